"""Moving a running match to another server (docs/SCALING.md, "Moving a match"): two live
arbiter-server processes on 127.0.0.1, arbiter-bot clients (some through arbiter-netem at
50 ms and 2 % loss), the hand-off mid-play, then the recordings re-simulated; and every
transfer the receiver must refuse. Usage: test_server_migrate.py <dir of arbiter-server>.
Prints each client's gap (the longest time without a snapshot) for docs/SCALING.md."""
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lifecycle_util import Server, admin_token_file, run_tests, verify_recording  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin"
TOKEN = "migrate-test-token-0123456789"


def pair(work, a_args=(), b_args=()):
    """Server A (the match) and server B (empty, --migrate-port), both recording."""
    tok = admin_token_file(work, TOKEN)
    a = Server(BIN, work, "a", ["--http-port", "-1", "--admin-token", tok, "--record",
                                os.path.join(work, "a.arbrec"), *a_args])
    b = Server(BIN, work, "b", ["--http-port", "-1", "--admin-token", tok, "--migrate-port", "-1",
                                "--record", os.path.join(work, "b.arbrec"), *b_args])
    b.migrate_port = b.wait_event("server_started", 5)["migrate_port"]
    assert b.migrate_port > 0
    return a, b


def bots(port, clients, duration, seed):
    return subprocess.Popen([os.path.join(BIN, "arbiter-bot"), "--host", "127.0.0.1", "--port", str(port),
                             "--clients", str(clients), "--duration", str(duration), "--seed", str(seed),
                             "--behaviour", "random", "--per-client"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def netem(port, work, name):
    """arbiter-netem in front of 127.0.0.1:port at 50 ms each way and 2 % loss; returns (proc, its port)."""
    port_file = os.path.join(work, name + ".port")
    p = subprocess.Popen([os.path.join(BIN, "arbiter-netem"), "--server", "127.0.0.1:%d" % port,
                          "--latency", "50", "--loss", "2", "--seed", "3", "--port-file", port_file],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 5
    while time.monotonic() < end:
        if os.path.exists(port_file) and open(port_file).read().strip():
            return p, int(open(port_file).read().strip())
        time.sleep(0.05)
    p.kill()
    raise AssertionError("arbiter-netem did not start")


def summary(proc, timeout=60):
    out, _ = proc.communicate(timeout=timeout)
    return json.loads(out)


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def migrate(a, b, clients_to=None):
    path = "/admin/migrate/127.0.0.1:%d" % b.migrate_port + ("/" + clients_to if clients_to else "")
    status, body = a.http("POST", path, token=TOKEN)
    assert status == 202, (status, body)
    return json.loads(body)


def b_log_files(work):
    return sorted(f for f in os.listdir(work) if f.startswith("b.") and f.endswith(".arbrec") and f != "b.arbrec")


def rejoin_jumps(s):
    """Each client's own-avatar step across its reconnect: (largest step m, largest ratio)."""
    c = [x for x in s["per_client"] if x["rejoin_checks"] > 0]
    return (max((x["rejoin_jump_m"] for x in c), default=0.0),
            max((x["rejoin_jump_ratio"] for x in c), default=0.0), len(c))


def test_migrate_mid_play(work):
    """16 bots, 12 on loopback and 4 through arbiter-netem (50 ms, 2 % loss): the match
    moves at about 3 s; every bot ends on B; A's log ends at the hand-off tick, B's next log
    starts with a checkpoint there; both re-simulate, the hash A stopped at is the hash B
    took over with, and the pair re-simulated as one match from A's first tick (B's ticks
    applied to A's re-simulated state, not to B's checkpoint) ends with B's final hash.
    The lossy bots are told B's own address (one address for every ENet client), so they
    reach B over loopback; test_migrate_through_netem moves bots from netem to netem."""
    a, b = pair(work)
    pa, port_a = netem(a.port, work, "netem-a")
    try:
        run = bots(a.port, 12, 8, 1)
        lossy = bots(port_a, 4, 8, 2)
        time.sleep(3)
        migrate(a, b)
        confirmed = a.wait_event("migrate_confirmed", 5)
        adopted = b.wait_event("migrate_adopted", 5)
        assert a.wait_exit(10) == 0
        s = summary(run)
        sl = summary(lossy)
        stopped = a.find("server_stopped")[-1]
        assert adopted["tick"] == confirmed["tick"] == stopped["tick"], (adopted, confirmed, stopped)
        assert adopted["hash"] == stopped["hash"], (adopted, stopped)
        assert adopted["players"] == 16, adopted
        assert s["connected_at_end"] == 12 and s["rejected"] == 0, s
        assert sl["connected_at_end"] == 4 and sl["rejected"] == 0, sl
        for c in s["per_client"] + sl["per_client"]:
            assert c["reconnects"] == 1 and c["ever_connected"], c
        gaps = [c["worst_stall_ms"] for c in s["per_client"]]
        lossy_gaps = [c["worst_stall_ms"] for c in sl["per_client"]]
        print("  loopback, 12 of 16 bots: pause %d ms, gap per client (ms): %s; p95 %.1f ms" %
              (confirmed["pause_ms"], " ".join("%.1f" % g for g in sorted(gaps)),
               percentile(gaps, 0.95)))
        print("  netem 50 ms / 2 %%, 4 of 16 bots (moved to B's own address): gap per client (ms): %s" %
              " ".join("%.1f" % g for g in sorted(lossy_gaps)))
        jump_m, jump_ratio, checked = rejoin_jumps(s)
        ljump_m, ljump_ratio, lchecked = rejoin_jumps(sl)
        print("  own avatar across the move: loopback %d checked, largest step %.3f m (%.2f of the allowance); "
              "netem %d checked, %.3f m (%.2f)" % (checked, jump_m, jump_ratio, lchecked, ljump_m, ljump_ratio))
        # The goal (p95 <= 100 ms on loopback, docs/SCALING.md) is a measured figure, printed
        # above; the test fails a hand-off that leaves clients without snapshots for a second,
        # which no scheduling hiccup of a loaded machine does.
        assert percentile(gaps, 0.95) <= 1000.0, gaps
        # Liveness, like the gap: an avatar put somewhere else (the spawn point, another
        # player's) steps metres in a frame whose allowance is 10 cm plus its speed's reach.
        assert checked + lchecked >= 8 and max(jump_ratio, ljump_ratio) <= 5.0, (s["per_client"], sl["per_client"])
        # B goes on simulating the match with the same players.
        rejoined = b.find("client_rejoined")
        assert len(rejoined) == 16, rejoined
        b.proc.send_signal(2)
        assert b.wait_exit(10) == 0
        out_a = verify_recording(BIN, os.path.join(work, "a.arbrec"))
        assert ("final tick %d hash %s" % (stopped["tick"], stopped["hash"])) in out_a, out_a
        files = b_log_files(work)
        assert len(files) == 1, files
        out_b = verify_recording(BIN, os.path.join(work, files[0]))
        assert "starting from the checkpoint of tick %d" % stopped["tick"] in out_b, out_b
        first = re.search(r"\((\d+)\.\.(\d+)\)", out_b)
        assert first and int(first.group(1)) == stopped["tick"] + 1, out_b
        info = subprocess.run([os.path.join(BIN, "arbiter-replay"), "info", os.path.join(work, files[0])],
                              capture_output=True, text=True, timeout=60).stdout
        assert "continues:   %s" % os.path.join(work, "a.arbrec") in info, info
        assert "this build's" in info, info
        final_b = b.find("server_stopped")[-1]
        assert ("hash %s" % final_b["hash"]) in out_b, (out_b, final_b)
        print("  A: %s\n  B: %s" % (out_a.splitlines()[0], " / ".join(out_b.splitlines()[:2])))
        # The whole match re-simulated offline from A's first tick: B's checkpoint is only
        # compared with the state re-simulated from A (bit for bit), B's ticks applied to it.
        both = subprocess.run([os.path.join(BIN, "arbiter-replay"), "verify", os.path.join(work, "a.arbrec"),
                               os.path.join(work, files[0])], capture_output=True, text=True, timeout=120)
        assert both.returncode == 0, both.stdout + both.stderr
        assert "continues at tick %d (hash %s): its checkpoint equals the re-simulated state" % (
            stopped["tick"], stopped["hash"]) in both.stdout, both.stdout
        assert re.search(r"OK: 2 logs verified as one match, re-simulated from tick 0 of the first .*"
                         r"final tick %d hash %s\n" % (final_b["tick"], final_b["hash"]), both.stdout), both.stdout
        print("  " + [x for x in both.stdout.splitlines() if x.startswith("OK")][0])
        swapped = subprocess.run([os.path.join(BIN, "arbiter-replay"), "verify", os.path.join(work, files[0]),
                                  os.path.join(work, "a.arbrec")], capture_output=True, text=True, timeout=120)
        assert swapped.returncode == 1 and "does not continue" in swapped.stdout, swapped.stdout
    finally:
        pa.kill()
        pa.wait()
        a.kill()
        b.kill()


def test_migrate_through_netem(work):
    """4 bots reach A through arbiter-netem (50 ms, 2 % loss) and are sent on to B through
    another netem proxy (the clients' address given with the migrate request). Beside it,
    the same 4 bots (same seed) play on a third server C through netem without moving: the
    own avatar's step across the move is compared with C's worst frame over the same loss."""
    a, b = pair(work)
    c = Server(BIN, work, "c", ["--http-port", "-1"])
    pa, port_a = netem(a.port, work, "netem-a")
    pb, port_b = netem(b.wait_event("server_started", 5)["port"], work, "netem-b")
    pc, port_c = netem(c.port, work, "netem-c")
    try:
        run = bots(port_a, 4, 9, 7)
        control = bots(port_c, 4, 9, 7)
        time.sleep(3.5)
        migrate(a, b, "127.0.0.1:%d" % port_b)
        a.wait_event("migrate_confirmed", 5)
        b.wait_event("migrate_adopted", 5)
        assert a.wait_exit(10) == 0
        s = summary(run)
        sc = summary(control)
        assert s["connected_at_end"] == 4 and s["rejected"] == 0, s
        assert sc["connected_at_end"] == 4, sc
        gaps = [x["worst_stall_ms"] for x in s["per_client"]]
        print("  netem 50 ms / 2 %%: gap per client (ms): %s" % " ".join("%.1f" % g for g in sorted(gaps)))
        jump_m, jump_ratio, checked = rejoin_jumps(s)
        control_ratio = max(x["worst_step_ratio"] for x in sc["per_client"])
        print("  own avatar across the move: %d checked, largest step %.3f m, %.2f of the allowance; "
              "without a move over the same loss: worst frame %.2f of the allowance, %d discontinuities; "
              "with the move (frames within each connection) %.2f, %d" %
              (checked, jump_m, jump_ratio, control_ratio, sc["discontinuities"],
               max(x["worst_step_ratio"] for x in s["per_client"]), s["discontinuities"]))
        assert len(b.find("client_rejoined")) == 4
        # Liveness, not a measurement: an avatar put somewhere else entirely (another
        # avatar's state, the spawn point) steps metres, far beyond any allowance.
        assert jump_ratio <= max(2.0, 2.0 * control_ratio), (jump_ratio, control_ratio)
    finally:
        for p in (pa, pb, pc):
            p.kill()
            p.wait()
        a.kill()
        b.kill()
        c.kill()


def test_refused_version_and_hash(work):
    """A state image naming another simulation version, or a game hash its state does not
    have, is refused by B; A says why and the match goes on there, clients connected."""
    for fault, why in (("version", "simulation version differs"), ("hash", "does not hash")):
        os.makedirs(os.path.join(work, fault), exist_ok=True)
        a, b = pair(os.path.join(work, fault), a_args=["--test-migrate-fault", fault])
        try:
            run = bots(a.port, 2, 5, 3)
            time.sleep(2.5)
            migrate(a, b)
            failed = a.wait_event("migrate_failed", 8)
            assert why in failed["why"], failed
            assert why in b.wait_event("migrate_refused", 5)["why"]
            s = summary(run)
            assert s["connected_at_end"] == 2 and s["reconnects"] == 0, s
            assert a.proc.poll() is None  # still running the match
            ticks = [e["tick"] for e in a.find("migrate_failed")]
            a.proc.send_signal(2)
            assert a.wait_exit(10) == 0
            assert a.find("server_stopped")[-1]["tick"] > ticks[-1] + 60  # it kept ticking
            verify_recording(BIN, os.path.join(work, fault, "a.arbrec"))
        finally:
            a.kill()
            b.kill()


def test_lifecycle_moves_along(work):
    """The match's lifecycle state and limits travel: A runs with --match-max-duration 6;
    the match moves at about 3 s to B (no limit of its own), which ends it at about 6 s of
    match time, as A would have."""
    a, b = pair(work, a_args=["--match-max-duration", "6"])
    try:
        run = bots(a.port, 2, 10, 11)
        a.wait_event("match_allocated", 5)
        t0 = time.monotonic()
        time.sleep(3)
        migrate(a, b)
        adopted = b.wait_event("migrate_adopted", 5)
        assert adopted["match"] == "allocated" and 2500 <= adopted["match_age_ms"] <= 4500, adopted
        assert a.wait_exit(10) == 0
        over = b.wait_event("match_over", 8)
        assert over["why"] == "max_duration", over
        assert 5.0 <= time.monotonic() - t0 <= 7.5, time.monotonic() - t0
        assert b.wait_exit(10) == 0
        run.kill()
        run.wait()
    finally:
        a.kill()
        b.kill()


def test_sigusr2(work):
    """SIGUSR2 moves the match to --migrate-to; --migrate-port without --admin-token is
    refused at start."""
    tok = admin_token_file(work, TOKEN)
    b = Server(BIN, work, "b", ["--admin-token", tok, "--migrate-port", "-1"])
    a = Server(BIN, work, "a", ["--admin-token", tok, "--migrate-to",
                                "127.0.0.1:%d" % b.wait_event("server_started", 5)["migrate_port"]])
    try:
        run = bots(a.port, 2, 5, 13)
        time.sleep(2.5)
        a.proc.send_signal(signal.SIGUSR2)
        a.wait_event("migrate_confirmed", 5)
        assert a.wait_exit(10) == 0
        assert summary(run)["connected_at_end"] == 2
        assert len(b.find("client_rejoined")) == 2
    finally:
        a.kill()
        b.kill()
    r = subprocess.run([os.path.join(BIN, "arbiter-server"), "--port", "0", "--http-port", "-1",
                        "--migrate-port", "-1"], capture_output=True, text=True, timeout=10)
    assert r.returncode != 0 and "--migrate-port needs --admin-token" in r.stderr, (r.returncode, r.stderr)


def transfer(port, payload, close_early=False):
    """Send bytes to a --migrate-port; returns the answer line ("" when none)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(payload)
        if close_early:
            return ""
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(256)
            if not chunk:
                break
            data += chunk
        return data.decode()
    finally:
        s.close()


def frame(token, image, declared=None):
    t = token.encode()
    return b"ARBMOVE1" + struct.pack("<H", len(t)) + t + struct.pack("<I", len(image) if declared is None
                                                                       else declared) + image


def test_refused_transfers(work):
    """Wrong credentials, a truncated or damaged image, one larger than the limit, a sender
    that dies mid-transfer: each refused or discarded, and B still takes a real match after."""
    a, b = pair(work)
    try:
        mp = b.migrate_port
        assert transfer(mp, frame("wrong-token-wrong-token", b"x" * 64)).startswith("refused wrong credentials")
        assert transfer(mp, b"GET / HTTP/1.0\r\n\r\n").startswith("refused not a match transfer")
        assert "larger than the limit" in transfer(mp, frame(TOKEN, b"", declared=0x7fffffff))
        assert "shorter than its header" in transfer(mp, frame(TOKEN, b"ARBMIGR\n"))
        damaged = b"ARBMIGR\n" + struct.pack("<I", 1) + b"\0" * 200
        assert "checksum mismatch" in transfer(mp, frame(TOKEN, damaged))
        # The sender goes away with half of what it announced: B discards the partial state.
        transfer(mp, frame(TOKEN, b"ARBMIGR\n" * 10, declared=4096), close_early=True)
        assert "went away" in b.wait_event("migrate_transfer_dropped", 5)["why"]
        assert not b.find("migrate_adopted")
        # The WebSocket clients' URL in the request: only ?ws= with a ws:// or wss:// URL.
        base = "/admin/migrate/127.0.0.1:%d" % mp
        for query, status, why in (("?ws=http%3A%2F%2Fb%2F", 409, "ws:// or wss://"), ("?port=1", 400, "ws=<url>"),
                                   ("?ws=ws%3A%2F%2Fb%2F%zz", 400, "ws=<url>"),
                                   ("?ws=wss://" + "b" * 200, 400, "at most 200 bytes")):
            got = a.http("POST", base + query, token=TOKEN)
            assert got[0] == status and why in got[1], (query, got)
        # Still free: the real match moves in.
        run = bots(a.port, 2, 5, 5)
        time.sleep(2.5)
        migrate(a, b)
        b.wait_event("migrate_adopted", 5)
        assert summary(run)["connected_at_end"] == 2
    finally:
        a.kill()
        b.kill()


def test_no_confirmation(work):
    """The target takes the bytes and never answers: after the confirmation timeout A says
    why and goes on with the match."""
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    port = lst.getsockname()[1]
    held = []

    def swallow():
        c, _ = lst.accept()
        held.append(c)
        while c.recv(65536):
            pass

    threading.Thread(target=swallow, daemon=True).start()
    tok = admin_token_file(work, TOKEN)
    a = Server(BIN, work, "a", ["--http-port", "-1", "--admin-token", tok])
    try:
        run = bots(a.port, 2, 9, 9)
        time.sleep(2)
        status, body = a.http("POST", "/admin/migrate/127.0.0.1:%d" % port, token=TOKEN)
        assert status == 202, body
        failed = a.wait_event("migrate_failed", 8)
        assert "no confirmation in time" in failed["why"], failed
        s = summary(run)
        assert s["connected_at_end"] == 2 and s["reconnects"] == 0, s
        assert a.proc.poll() is None
        # Refused at once: no admin token, a bad target.
        status, body = a.http("POST", "/admin/migrate/not-an-address", token=TOKEN)
        assert status == 409 and "target" in body, (status, body)
        status, _ = a.http("POST", "/admin/migrate/127.0.0.1:%d" % port)
        assert status == 401
    finally:
        a.kill()
        lst.close()
        for c in held:
            c.close()


if __name__ == "__main__":
    sys.exit(run_tests([test_migrate_mid_play, test_migrate_through_netem, test_refused_version_and_hash,
                        test_lifecycle_moves_along, test_sigusr2, test_refused_transfers, test_no_confirmation]))
