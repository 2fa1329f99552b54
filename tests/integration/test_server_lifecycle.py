#!/usr/bin/env python3
"""Match lifecycle without Agones: --exit-when-empty, --match-max-duration, the drain by
SIGUSR1 and by the operator endpoint POST /admin/drain (bearer token from --admin-token),
and the states in /healthz and /metrics. Real arbiter-server and arbiter-bot processes on
127.0.0.1; every wait bounded.

Usage: test_server_lifecycle.py BIN_DIR"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lifecycle_util import Server, admin_token_file, bots, metric, run_tests, verify_recording  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin"
TOKEN = "t0ken-for-the-lifecycle-test-0123456789"


def test_http_drain_lets_the_match_finish(work):
    token_file = admin_token_file(work, TOKEN)
    rec = os.path.join(work, "drain.arbrec")
    srv = Server(BIN, work, "server", ["--admin-token", token_file, "--drain-timeout", "30", "--record", rec])
    try:
        status, body = srv.http("GET", "/healthz")
        assert status == 200 and '"state":"ready"' in body, body
        b = bots(BIN, srv.port, 2, 4)
        for _ in range(100):
            if len(srv.find("client_joined")) >= 2:
                break
            time.sleep(0.05)
        assert len(srv.find("client_joined")) == 2, srv.events()[-5:]
        assert '"state":"allocated"' in srv.http("GET", "/healthz")[1]

        assert srv.http("POST", "/admin/drain")[0] == 401
        assert srv.http("POST", "/admin/drain", token=TOKEN + "x")[0] == 401
        assert srv.http("POST", "/admin/drain", token=TOKEN[:-1])[0] == 401
        assert srv.http("GET", "/admin/drain", token=TOKEN)[0] == 405
        assert srv.http("POST", "/admin/nothing", token=TOKEN)[0] == 404
        status, body = srv.http("POST", "/admin/drain", token=TOKEN)
        assert status == 202 and '"state":"draining"' in body, (status, body)
        assert srv.http("POST", "/metrics")[0] == 405
        status, body = srv.http("GET", "/healthz")
        assert status == 200 and '"state":"draining"' in body, body
        m = srv.http("GET", "/metrics")[1]
        assert metric(m, 'arbiter_match_state{state="draining"}') == 1, m
        assert metric(m, 'arbiter_admin_requests_total{result="refused"}') == 3, m
        assert metric(m, 'arbiter_admin_requests_total{result="accepted"}') == 1, m

        # No new players while draining.
        late = bots(BIN, srv.port, 1, 1, seed=9)
        assert late.wait(30) != 0, "a player joined a draining server"
        assert srv.find("client_rejected"), "no client_rejected for the late player"

        # The match finishes when its players leave: exit 0, the recording verifies.
        assert b.wait(30) == 0
        srv.expect_match_end("drained", 10)
        print("  " + verify_recording(BIN, rec).splitlines()[0])
    finally:
        srv.kill()


def test_operator_endpoints_off_without_token(work):
    srv = Server(BIN, work, "server")
    try:
        assert srv.http("POST", "/admin/drain", token=TOKEN)[0] == 404
        assert '"state":"ready"' in srv.http("GET", "/healthz")[1]
    finally:
        srv.kill()


def test_bad_token_file_is_a_config_error(work):
    token_file = os.path.join(work, "short.token")
    with open(token_file, "w") as f:
        f.write("short\n")
    import subprocess
    r = subprocess.run([os.path.join(BIN, "arbiter-server"), "--port", "0", "--http-port", "-1", "--admin-token",
                        token_file], capture_output=True, text=True, timeout=20)
    assert r.returncode == 2 and "--admin-token" in r.stderr, (r.returncode, r.stderr)


def test_sigusr1_without_a_match_exits_at_once(work):
    srv = Server(BIN, work, "server")
    try:
        srv.proc.send_signal(signal.SIGUSR1)
        assert srv.wait_exit(10) == 0
        assert srv.find("server_stopping", why="drained"), srv.events()[-4:]
    finally:
        srv.kill()


def test_sigusr1_drain_timeout_ends_a_long_match(work):
    srv = Server(BIN, work, "server", ["--drain-timeout", "1"])
    try:
        b = bots(BIN, srv.port, 1, 20)
        srv.wait_event("client_joined", 10)
        srv.proc.send_signal(signal.SIGUSR1)
        srv.wait_event("match_draining", 5, by="SIGUSR1")
        srv.expect_match_end("drain_timeout", 10, players=1)
        b.kill()
        b.wait()
    finally:
        srv.kill()


def test_exit_when_empty_and_max_duration(work):
    srv = Server(BIN, work, "empty", ["--exit-when-empty", "1"])
    long = Server(BIN, work, "long", ["--match-max-duration", "2"])
    try:
        a = bots(BIN, srv.port, 2, 2)
        c = bots(BIN, long.port, 1, 20)
        srv.expect_match_end("empty", 15)
        assert a.wait(30) == 0
        long.expect_match_end("max_duration", 15, players=1)
        c.kill()
        c.wait()
    finally:
        srv.kill()
        long.kill()


if __name__ == "__main__":
    sys.exit(run_tests([test_http_drain_lets_the_match_finish, test_operator_endpoints_off_without_token,
                        test_bad_token_file_is_a_config_error, test_sigusr1_without_a_match_exits_at_once,
                        test_sigusr1_drain_timeout_ends_a_long_match, test_exit_when_empty_and_max_duration]))
