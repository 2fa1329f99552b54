"""A node drain moves the match, and a move nobody reaches is called off (docs/SCALING.md,
"Draining a node" and "Moving a match"): live arbiter-server processes on 127.0.0.1, the
fake Agones SDK server (fake_agones_sdk.py), a fake allocator (a small HTTP server in this
file) and arbiter-bot clients.

- SIGTERM to an --agones server with --migrate-allocator: the allocator is asked (by name,
  through the resolver), answers with a live B, every bot ends on B, A exits 0 and the SDK
  saw /shutdown; the two recordings verify as one match.
- The allocator answers 500 (no fallback), or B refuses the image (--migrate-on-drain):
  A stops as SIGTERM always did, exit 0, /shutdown, and B holds nothing.
- A move whose clients' address answers nobody: no player reaches B, A cancels within
  1.5 s, B drops the match and is empty again, the bots come back to A with their rejoin
  tokens and keep playing, and a later real move to the same B succeeds; every recording
  verifies.
- A killed after B took the match and before anyone arrived: B drops it and takes the next;
  A stopped cleanly then: it commits on its way out and B keeps the match.

Usage: test_server_migrate_drain.py <dir of arbiter-server, arbiter-bot, arbiter-replay>."""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lifecycle_util import FakeAgones, Server, admin_token_file, run_tests, verify_recording  # noqa: E402
from fake_agones_sdk import reply_json  # noqa: E402
from test_server_agones import log_time  # noqa: E402
from test_server_migrate import BIN, TOKEN, bots, summary  # noqa: E402


def token_file(work):
    """The admin token file every server of these tests shares (the move's credential)."""
    return admin_token_file(work, TOKEN)


def receiver(work, name="b", args=(), sdk=None):
    """An empty server taking moved matches on a --migrate-port, recording; with sdk (a
    FakeAgones), under --agones."""
    agones = ["--agones"] if sdk else []
    b = Server(BIN, work, name, ["--admin-token", token_file(work), "--migrate-port", "-1", "--record",
                                 os.path.join(work, name + ".arbrec"), *agones, *args],
               env={"AGONES_SDK_HTTP_PORT": str(sdk.port)} if sdk else None)
    b.migrate_port = b.wait_event("server_started", 5)["migrate_port"]
    assert b.migrate_port > 0
    return b


SETTLE_S = 4.5  # SV_MIG_SETTLE_MS: a receiver drops a match nobody settled after this


def wait_count(server, event, n, timeout):
    """The first n `event`s in the server's log, waiting up to timeout s for them."""
    end = time.monotonic() + timeout
    while len(server.find(event)) < n and time.monotonic() < end:
        time.sleep(0.05)
    found = server.find(event)
    assert len(found) >= n, (event, n, found)
    return found[:n]


def move_to_nobody(a, b, dead, clients, duration, seed, play_s=2.5):
    """Starts `clients` bots on A and, after `play_s` of play, moves the match to B with the
    clients sent to `dead` (a bound UDP socket nobody reads). Returns the bots' run and A's
    migrate_confirmed event."""
    run = bots(a.port, clients, duration, seed)
    time.sleep(play_s)
    path = "/admin/migrate/127.0.0.1:%d/127.0.0.1:%d" % (b.migrate_port, dead.getsockname()[1])
    status, body = a.http("POST", path, token=TOKEN)
    assert status == 202, (status, body)
    return run, a.wait_event("migrate_confirmed", 5)


def replay(*paths):
    r = subprocess.run([os.path.join(BIN, "arbiter-replay"), "verify", *paths], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip()


def log_files(work, name):
    """The numbered files a server's recording continued in (b.1.arbrec, b.2.arbrec, ...)."""
    files = [f for f in os.listdir(work) if f.startswith(name + ".") and f.endswith(".arbrec")
             and f != name + ".arbrec"]
    return [os.path.join(work, f) for f in sorted(files, key=lambda f: int(f.split(".")[1]))]


class Allocator:
    """The matchmaker's endpoint --migrate-allocator POSTs to: answers `status` with `answer`
    (JSON) and keeps every request body."""

    def __init__(self, status, answer):
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                outer.requests.append({"path": self.path, "body": json.loads(self.rfile.read(n) or b"null")})
                reply_json(self, status, answer)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.port = self.http.server_address[1]
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


def agones_sender(work, fake, args):
    return Server(BIN, work, "a", ["--agones", "--admin-token", token_file(work), "--record",
                                   os.path.join(work, "a.arbrec"), *args],
                  env={"AGONES_SDK_HTTP_PORT": str(fake.port)})


def test_sigterm_moves_through_the_allocator(work):
    fake_b = FakeAgones(work, "sdk-b")
    b = receiver(work, sdk=fake_b)
    ws_url = "wss://b.example.com/play"  # where browser clients would be sent
    alloc = Allocator(200, {"migrate": "127.0.0.1:%d" % b.migrate_port, "ws": ws_url})
    fake = FakeAgones(work, "sdk")
    a = agones_sender(work, fake, ["--migrate-allocator", "http://localhost:%d/arbiter/move" % alloc.port])
    try:
        fake.wait_call("/ready", 5)
        run = bots(a.port, 4, 8, 21)
        time.sleep(3)
        t0 = time.monotonic()
        a.proc.send_signal(signal.SIGTERM)
        assert a.wait_exit(15) == 0
        took = time.monotonic() - t0
        assert a.find("migrate_on_drain", source="allocator"), a.events()[-10:]
        committed = a.wait_event("migrate_committed", 1)
        assert a.find("migrate_confirmed")[-1]["ws_clients_to"] == ws_url, a.events()[-10:]
        assert a.find("server_stopping")[-1]["why"] == "migrated"
        assert len(fake.calls("/shutdown")) == 1, fake.calls()
        adopted = b.wait_event("migrate_adopted", 1)
        assert adopted["players"] == 4 and adopted["tick"] == committed["tick"], (adopted, committed)
        req = alloc.requests
        assert len(req) == 1 and req[0]["path"] == "/arbiter/move", req
        body = req[0]["body"]
        assert body["gameserver"] == "arbiter-test-gs" and body["scene"] == "default-arena", body
        assert body["players"] == 4 and body["tick_rate"] == 60 and len(body["sim_version"]) == 16, body
        s = summary(run)
        assert s["connected_at_end"] == 4 and s["rejected"] == 0, s
        assert len(b.find("client_rejoined")) == 4
        # B tells its fleet it holds a match now.
        fake_b.wait_call("/allocate", 5)
        print("  SIGTERM to exit: %.2f s; first player on B %d ms after the moved event" %
              (took, committed["first_arrival_ms"]))
        b.proc.send_signal(signal.SIGINT)
        assert b.wait_exit(10) == 0
        out = replay(os.path.join(work, "a.arbrec"), *log_files(work, "b"))
        assert "OK: 2 logs verified as one match" in out, out
        print("  " + out.splitlines()[-1])
    finally:
        a.kill()
        b.kill()
        fake.stop()
        fake_b.stop()
        alloc.close()


def test_sigterm_move_fails_then_stops(work):
    """Allocator 500 without a fallback; B refusing (another simulation version) through
    --migrate-on-drain: each time A stops at once as without a target."""
    for case in ("allocator_500", "refused"):
        sub = os.path.join(work, case)
        os.makedirs(sub)
        b = receiver(sub)
        alloc = Allocator(500, {"error": "no server free"})
        fake = FakeAgones(sub, "sdk")
        extra = (["--migrate-allocator", "http://127.0.0.1:%d/move" % alloc.port] if case == "allocator_500" else
                 ["--migrate-on-drain", "127.0.0.1:%d" % b.migrate_port, "--test-migrate-fault", "version"])
        a = agones_sender(sub, fake, extra)
        try:
            fake.wait_call("/ready", 5)
            run = bots(a.port, 2, 6, 23)
            time.sleep(2.5)
            a.proc.send_signal(signal.SIGTERM)
            assert a.wait_exit(10) == 0
            if case == "allocator_500":
                failed = a.wait_event("migrate_allocator_failed", 1)
                assert "HTTP 500" in failed["why"], failed
                assert len(alloc.requests) == 1
            else:
                failed = a.wait_event("migrate_failed", 1)
                assert "simulation version differs" in failed["why"], failed
                assert b.find("migrate_refused")
            assert a.find("server_stopping")[-1]["why"] == "SIGTERM"
            assert len(fake.calls("/shutdown")) == 1, fake.calls()
            assert not b.find("migrate_adopted")
            s = summary(run)
            assert s["connected_at_end"] == 0, s
            verify_recording(BIN, os.path.join(sub, "a.arbrec"))
            print("  %s: %s" % (case, failed["why"][:80]))
        finally:
            a.kill()
            b.kill()
            fake.stop()
            alloc.close()


def test_unreachable_receiver_comes_back(work):
    """The clients are sent to an address where nobody answers: A cancels the move, B drops
    it (under --agones: Allocated, then Ready again), every bot rejoins A and plays on; then a
    real move to the same B succeeds."""
    fake_b = FakeAgones(work, "sdk-b")
    b = receiver(work, sdk=fake_b)
    a = Server(BIN, work, "a", ["--admin-token", token_file(work), "--record", os.path.join(work, "a.arbrec")])
    dead = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # bound, never read: nobody answers
    dead.bind(("127.0.0.1", 0))
    try:
        run, confirmed = move_to_nobody(a, b, dead, 4, 14, 25, play_s=3)
        cancelled = a.wait_event("migrate_cancelled", 5)
        assert "no player reached the receiver" in cancelled["why"], cancelled
        dropped = b.wait_event("migrate_dropped", 5)
        assert "cancelled" in dropped["why"], dropped
        # Every bot comes back to A with its own avatar, within A's rejoin window.
        back = wait_count(a, "client_rejoined", 4, 8)
        moved_at = log_time(confirmed["ts"])
        cancel_s = log_time(cancelled["ts"]) - moved_at
        back_s = [log_time(e["ts"]) - moved_at for e in back]
        assert a.proc.poll() is None and not b.find("client_rejoined")
        status, body = b.http("GET", "/healthz")
        assert status == 200 and '"state":"ready"' in body, body
        calls = [c["path"] for c in fake_b.calls() if c["path"] in ("/ready", "/allocate")]
        assert calls == ["/ready", "/allocate", "/ready"], calls
        # A kept ticking from where it paused.
        time.sleep(1.5)
        status, body = a.http("GET", "/healthz")
        assert status == 200 and json.loads(body)["tick"] > confirmed["tick"] + 60, body
        # B is free again: the real move goes through.
        status, body = a.http("POST", "/admin/migrate/127.0.0.1:%d" % b.migrate_port, token=TOKEN)
        assert status == 202, (status, body)
        adopted = wait_count(b, "migrate_adopted", 2, 5)[1]
        assert adopted["players"] == 4, adopted
        assert a.wait_exit(10) == 0
        s = summary(run)
        assert s["connected_at_end"] == 4 and s["rejected"] == 0, s
        assert len(b.find("client_rejoined")) == 4
        print("  after the moved event: cancelled at %.2f s, the bots back on A at %s s" %
              (cancel_s, " ".join("%.2f" % t for t in sorted(back_s))))
        assert all(2.5 <= t <= 8 for t in back_s), back_s
        b.proc.send_signal(signal.SIGINT)
        assert b.wait_exit(10) == 0
        # A's log runs on through the cancelled move; each of B's files verifies on its own
        # (its own game, the abandoned continuation, its own game again, the real one), and
        # the real one continues A's.
        out_a = verify_recording(BIN, os.path.join(work, "a.arbrec"))
        files = log_files(work, "b")
        assert len(files) == 3, files
        for f in files:
            replay(f)
        out = replay(os.path.join(work, "a.arbrec"), files[-1])
        assert "OK: 2 logs verified as one match" in out, out
        print("  A: %s\n  %s" % (out_a.splitlines()[0], out.splitlines()[-1]))
    finally:
        dead.close()
        a.kill()
        b.kill()
        fake_b.stop()


def test_sender_dies_while_settling(work):
    """A is killed (SIGKILL) after B took the match and before anyone arrived: B drops the
    match and takes the next one, from another server."""
    b = receiver(work)
    a = Server(BIN, work, "a", ["--admin-token", token_file(work)])
    a2 = None
    dead = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dead.bind(("127.0.0.1", 0))
    try:
        run, _ = move_to_nobody(a, b, dead, 2, 6, 27)
        a.kill()
        dropped = b.wait_event("migrate_dropped", 5)
        assert "went away" in dropped["why"], dropped
        run.kill()
        run.wait()
        a2 = Server(BIN, work, "a2", ["--admin-token", token_file(work)])
        run = bots(a2.port, 3, 6, 29)
        time.sleep(2.5)
        assert a2.http("POST", "/admin/migrate/127.0.0.1:%d" % b.migrate_port, token=TOKEN)[0] == 202
        assert [e["players"] for e in wait_count(b, "migrate_adopted", 2, 5)] == [2, 3]
        assert a2.wait_exit(10) == 0
        assert summary(run)["connected_at_end"] == 3
    finally:
        dead.close()
        for srv in (a, a2, b):
            if srv:
                srv.kill()


def test_sender_stopping_while_settling_commits(work):
    """A stops cleanly (SIGINT) after B took the match and before anyone arrived: it commits
    the move on its way out, and B keeps the match for the clients on their way."""
    b = receiver(work)
    a = Server(BIN, work, "a", ["--admin-token", token_file(work)])
    dead = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dead.bind(("127.0.0.1", 0))
    try:
        run, _ = move_to_nobody(a, b, dead, 2, 5, 31)
        a.proc.send_signal(signal.SIGINT)
        assert a.wait_exit(10) == 0
        assert a.find("migrate_committed", by="this server stopping"), a.events()[-6:]
        assert b.wait_event("migrate_committed", 5)["by"] == "the sender stopping"
        time.sleep(SETTLE_S)
        assert not b.find("migrate_dropped")
        status, body = b.http("GET", "/healthz")
        assert status == 200 and '"state":"allocated"' in body, body
        run.kill()
        run.wait()
    finally:
        dead.close()
        a.kill()
        b.kill()


if __name__ == "__main__":
    sys.exit(run_tests([test_sigterm_moves_through_the_allocator, test_sigterm_move_fails_then_stops,
                        test_unreachable_receiver_comes_back, test_sender_dies_while_settling,
                        test_sender_stopping_while_settling_commits]))
