#!/usr/bin/env python3
"""Operator controls behind --admin-token: GET /admin/sessions, POST /admin/kick/<client>,
POST /admin/ban/<ip>/<seconds> (and lifting it with 0 seconds), each logged and counted in
/metrics; bad arguments answered 400/404/405. Real arbiter-server and arbiter-bot processes
on 127.0.0.1; every wait bounded.

Usage: test_server_admin.py BIN_DIR"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lifecycle_util import Server, bots, metric, run_tests  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin"
TOKEN = "t0ken-for-the-admin-test-0123456789"


def start(work, args=()):
    token_file = os.path.join(work, "admin.token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    return Server(BIN, work, "server", ["--admin-token", token_file, *args])


def sessions(srv, state="active"):
    status, body = srv.http("GET", "/admin/sessions", token=TOKEN)
    assert status == 200, (status, body)
    return [s for s in json.loads(body)["sessions"] if s["state"] == state]


def wait_sessions(srv, count, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = sessions(srv)
        if len(got) == count:
            return got
        time.sleep(0.05)
    raise AssertionError("not %d active sessions within %s s: %s" % (count, timeout, sessions(srv)))


def stop(*procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def test_list_and_kick(work):
    srv = start(work)
    b = None
    try:
        b = bots(BIN, srv.port, 2, 30)
        two = wait_sessions(srv, 2, 10)
        assert all(s["addr"].startswith("127.0.0.1:") and s["name"].startswith("bot-") and s["client"] > 0
                   for s in two), two
        assert srv.http("GET", "/admin/sessions")[0] == 401
        assert srv.http("POST", "/admin/sessions", token=TOKEN)[0] == 405
        assert srv.http("GET", "/admin/kick/1", token=TOKEN)[0] == 405
        assert srv.http("POST", "/admin/kick/999999", token=TOKEN)[0] == 404
        assert srv.http("POST", "/admin/kick/x1", token=TOKEN)[0] == 404
        victim = two[0]["client"]
        status, body = srv.http("POST", "/admin/kick/%d" % victim, token=TOKEN)
        assert status == 200 and json.loads(body)["kicked"] == victim, (status, body)
        srv.wait_event("admin_kick", 5, client=victim)
        left = wait_sessions(srv, 1, 10)
        assert left[0]["client"] != victim, left
        srv.wait_event("client_kicked", 5, client=victim, reason="kicked")
        m = srv.http("GET", "/metrics")[1]
        assert metric(m, 'arbiter_admin_actions_total{action="kick"}') == 1, m
        assert metric(m, 'arbiter_admin_actions_total{action="sessions"}') >= 2, m  # one list per wait at least
        assert metric(m, 'arbiter_admin_requests_total{result="refused"}') == 1, m
        assert metric(m, 'arbiter_clients_kicked_total') == 1, m
    finally:
        if b:
            stop(b)
        srv.kill()


def test_ban_an_address_for_a_time(work):
    srv = start(work)
    procs = []
    try:
        procs.append(bots(BIN, srv.port, 1, 30))
        wait_sessions(srv, 1, 10)
        for bad in ["/admin/ban/127.0.0.1", "/admin/ban/127.0.0.1/-1", "/admin/ban/127.0.0.1/604801",
                    "/admin/ban/127.0.0/5", "/admin/ban/localhost/5", "/admin/ban/127.0.0.1/5x"]:
            status, body = srv.http("POST", bad, token=TOKEN)
            assert status == 400, (bad, status, body)
        status, body = srv.http("POST", "/admin/ban/127.0.0.1/3", token=TOKEN)
        assert status == 200, (status, body)
        answer = json.loads(body)
        assert answer == {"ip": "127.0.0.1", "seconds": 3, "was_banned": False, "kicked": 1}, answer
        banned_at = time.monotonic()
        srv.wait_event("admin_ban", 5, ip="127.0.0.1", seconds=3)
        wait_sessions(srv, 0, 5)
        assert metric(srv.http("GET", "/metrics")[1], "arbiter_bans_active") == 1

        # While banned nothing from the address gets in; counted as "banned".
        procs.append(bots(BIN, srv.port, 1, 30, seed=5))
        time.sleep(1.0)
        if time.monotonic() - banned_at < 2.5:
            assert sessions(srv) == [] and sessions(srv, "await_hello") == [], sessions(srv)
        m = srv.http("GET", "/metrics")[1]
        assert metric(m, 'arbiter_datagrams_dropped_total{reason="banned"}') > 0, m

        # Afterwards the same client (it keeps retrying) joins.
        wait_sessions(srv, 1, 15)
        m = srv.http("GET", "/metrics")[1]
        assert metric(m, "arbiter_bans_active") == 0, m
        assert metric(m, 'arbiter_admin_actions_total{action="ban"}') == 1, m

        # A long ban lifted early with 0 seconds.
        status, body = srv.http("POST", "/admin/ban/127.0.0.1/600", token=TOKEN)
        assert status == 200 and json.loads(body)["kicked"] == 1, body
        wait_sessions(srv, 0, 5)
        status, body = srv.http("POST", "/admin/ban/127.0.0.1/0", token=TOKEN)
        assert status == 200 and json.loads(body)["was_banned"] is True, body
        procs.append(bots(BIN, srv.port, 1, 30, seed=7))
        wait_sessions(srv, 1, 15)
    finally:
        stop(*procs)
        srv.kill()


def test_spectator_listed_and_kicked(work):
    srv = start(work, ["--max-spectators", "1"])
    procs = []
    try:
        procs.append(bots(BIN, srv.port, 1, 30))
        procs.append(bots(BIN, srv.port, 1, 30, seed=5, spectate=True))
        two = wait_sessions(srv, 2, 10)
        watchers = [s for s in two if s["spectator"]]
        assert len(watchers) == 1 and watchers[0]["entity"] == 0, two
        player = [s for s in two if not s["spectator"]][0]
        assert player["entity"] > 0, two
        m = srv.http("GET", "/metrics")[1]
        assert metric(m, "arbiter_spectators_connected") == 1 and metric(m, "arbiter_clients_connected") == 1, m
        assert metric(m, "arbiter_spectator_inputs_ignored_total") == 0, m  # the library sends acks only

        status, body = srv.http("POST", "/admin/kick/%d" % watchers[0]["client"], token=TOKEN)
        assert status == 200, (status, body)
        assert wait_sessions(srv, 1, 10)[0]["client"] == player["client"]
        m = srv.http("GET", "/metrics")[1]
        assert metric(m, "arbiter_spectators_connected") == 0 and metric(m, "arbiter_clients_connected") == 1, m
    finally:
        stop(*procs)
        srv.kill()


if __name__ == "__main__":
    sys.exit(run_tests([test_list_and_kick, test_ban_an_address_for_a_time, test_spectator_listed_and_kicked]))
