#!/usr/bin/env python3
"""Many matches on one machine: four arbiter-server processes on their own ports (picked
by each server), bots spread over them (a different number on each), each server ends its
match when its players have left (--exit-when-empty) and exits 0, and each server's
recording verifies with arbiter-replay and holds exactly the clients sent to it.

Usage: test_server_fleet.py BIN_DIR"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lifecycle_util import Server, bots, run_tests, verify_recording  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin"


def test_four_servers(work):
    servers, players = [], [1, 2, 3, 2]
    try:
        for i in range(4):
            rec = os.path.join(work, "match-%d.arbrec" % i)
            servers.append((Server(BIN, work, "server-%d" % i, ["--exit-when-empty", "1", "--record", rec,
                                                                 "--seed", str(i + 1)]), rec))
        ports = {s.port for s, _ in servers}
        assert len(ports) == 4, ports
        runs = [bots(BIN, s.port, n, 3, seed=10 * i + 1) for i, ((s, _), n) in enumerate(zip(servers, players))]
        for r in runs:
            assert r.wait(60) == 0, "arbiter-bot failed"
        for i, ((s, rec), n) in enumerate(zip(servers, players)):
            s.expect_match_end("empty", 15)
            out = verify_recording(BIN, rec)
            info = subprocess.run([os.path.join(BIN, "arbiter-replay"), "info", rec], capture_output=True, text=True,
                                  timeout=60).stdout
            clients = sum(1 for line in info.splitlines() if line.startswith("  client "))
            assert clients == n, (i, clients, n, info)
            print("  server %d (port %d): %d clients; %s" % (i, s.port, n, out.splitlines()[0]))
    finally:
        for s, _ in servers:
            s.kill()


if __name__ == "__main__":
    sys.exit(run_tests([test_four_servers]))
