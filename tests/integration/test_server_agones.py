#!/usr/bin/env python3
"""arbiter-server --agones against the fake Agones SDK server (fake_agones_sdk.py), no
Kubernetes: ready once after the game port is open, health at the configured period while
ticking and none once the tick stalls, labels, allocation seen through the watch with match
parameters from its annotations, player connect/disconnect per client, shutdown when the
match is over, exit 0 with the recording closed and verifying.

Usage: test_server_agones.py BIN_DIR   (arbiter-server, arbiter-bot, arbiter-replay)"""
import calendar
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lifecycle_util import FakeAgones, Server, bots, run_tests, verify_recording  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin"


def log_time(ts):
    """Server log timestamp (2026-11-21T05:36:51.786Z) -> Unix seconds."""
    base, ms = ts.rstrip("Z").split(".")
    return calendar.timegm(time.strptime(base, "%Y-%m-%dT%H:%M:%S")) + int(ms) / 1000.0


def test_agones_match(work):
    health_ms = 400
    fake = FakeAgones(work, "sdk", ["--allocate-after", "1.5", "--annotation", "arbiter.dev/exit-when-empty=2",
                                    "--annotation", "arbiter.dev/scene=default-arena",
                                    "--annotation", "arbiter.dev/other=ignored"])
    rec = os.path.join(work, "match.arbrec")
    srv = Server(BIN, work, "server", ["--agones", "--agones-health-ms", str(health_ms), "--record", rec],
                 env={"AGONES_SDK_HTTP_PORT": str(fake.port)})
    try:
        started = srv.wait_event("server_started", 5)
        # Ready exactly once, after the game port was bound (server_started is logged after
        # the bind), then the two labels.
        ready = fake.wait_call("/ready", 5)
        assert ready[0]["status"] == 200, ready
        assert ready[0]["wall"] >= log_time(started["ts"]) - 0.001, (ready[0], started["ts"])
        labels = fake.wait_call("/metadata/label", 5, 2)
        keys = {c["body"]["key"]: c["body"]["value"] for c in labels}
        assert keys.get("scene") == "default-arena" and keys.get("build"), keys
        assert all(c["status"] == 200 for c in labels), labels
        ann = fake.wait_call("/metadata/annotation", 5)
        assert ann[0]["body"] == {"key": "recording", "value": "match.arbrec"}, ann

        # The allocation arrives through the watch, with the match parameters.
        allocated = srv.wait_event("match_allocated", 10, source="agones")
        params = srv.wait_event("match_parameters", 5)
        assert params["exit_when_empty_s"] == 2, params
        status, body = srv.http("GET", "/healthz")
        assert status == 200 and '"state":"allocated"' in body, (status, body)

        # Two players come and go: one connect and one disconnect each, in that order.
        b = bots(BIN, srv.port, 2, 2)
        assert b.wait(30) == 0, "arbiter-bot failed"
        fake.wait_call("/alpha/player/disconnect", 5, 2)
        assert not srv.find("scene_mismatch")
        connects = [c["body"]["playerID"] for c in fake.calls("/alpha/player/connect")]
        disconnects = [c["body"]["playerID"] for c in fake.calls("/alpha/player/disconnect")]
        assert sorted(connects) == sorted(disconnects) and len(set(connects)) == 2, (connects, disconnects)
        order = [(c["path"], c["body"].get("playerID")) for c in fake.calls() if c["path"].startswith("/alpha/")]
        for pid in connects:
            assert order.index(("/alpha/player/connect", pid)) < order.index(("/alpha/player/disconnect", pid)), order
        assert all(c["status"] == 200 for c in fake.calls() if c["path"].startswith("/alpha/")), fake.calls()
        assert not fake.calls("/allocate"), "allocated by Agones: no self-allocation expected"

        # Empty for 2 s (the annotation) -> match over -> /shutdown -> exit 0.
        over = srv.expect_match_end("empty", 10)
        shutdown = fake.calls("/shutdown")
        assert len(shutdown) == 1 and shutdown[0]["status"] == 200, shutdown
        assert len(fake.calls("/ready")) == 1, fake.calls("/ready")

        # Health while ticking, at the configured period until the end. The server sends
        # each ping at least a period after the last one; the fake sees arrival times, which
        # a ping queued behind another call can shift, so the mean gap is what is checked.
        health = [c["t"] for c in fake.calls("/health")]
        span = health[-1] - health[0]
        assert len(health) >= 5, health
        gaps = [b - a for a, b in zip(health, health[1:])]
        mean = span / len(gaps)
        assert 0.85 * health_ms / 1000.0 <= mean < 3 * health_ms / 1000.0, gaps
        assert all(c["status"] == 200 for c in fake.calls()), [c for c in fake.calls() if c["status"] != 200]

        srv.wait_event("recording_closed", 1)
        out = verify_recording(BIN, rec)
        print("  " + out.splitlines()[0])
        print("  allocated (gameserver %s); %d health pings over %.1f s (mean gap %.3f s); match over: %s" %
              (allocated.get("gameserver"), len(health), span, mean, over["why"]))
    finally:
        srv.kill()
        fake.stop()


def test_agones_health_stops_when_tick_stalls(work):
    fake = FakeAgones(work, "sdk")
    srv = Server(BIN, work, "server", ["--agones", "--agones-health-ms", "200", "--test-stall-after-ms", "1500"],
                 env={"AGONES_SDK_HTTP_PORT": str(fake.port)})
    try:
        srv.wait_event("tick_stalled_for_test", 10)
        stalled_at = time.monotonic()
        fake.wait_call("/ready", 5)
        before = len(fake.calls("/health"))
        assert before >= 3, fake.calls("/health")
        # The loop is alive (HTTP answers) but no tick runs: no more pings, /healthz 503.
        time.sleep(1.5)
        after = fake.calls("/health")
        # At most one ping may have been on its way when the tick stopped.
        assert len(after) <= before + 1, (before, len(after))
        status, body = srv.http("GET", "/healthz")
        assert status == 503, (status, body)
        print("  %d pings before the stall, %d in the %.1f s after" %
              (before, len(after) - before, time.monotonic() - stalled_at))
        srv.proc.terminate()
        assert srv.wait_exit(10) == 0
        assert len(fake.calls("/shutdown")) == 1, fake.calls()
    finally:
        srv.kill()
        fake.stop()


def test_agones_first_join_self_allocates(work):
    # No allocator: the first player allocates the match, and the server tells Agones.
    fake = FakeAgones(work, "sdk")
    srv = Server(BIN, work, "server", ["--agones", "--match-max-duration", "2"],
                 env={"AGONES_SDK_HTTP_PORT": str(fake.port)})
    try:
        fake.wait_call("/ready", 5)
        b = bots(BIN, srv.port, 1, 6)
        srv.wait_event("match_allocated", 10, source="first_join")
        fake.wait_call("/allocate", 5)
        srv.expect_match_end("max_duration", 10)
        b.wait(30)
        assert len(fake.calls("/shutdown")) == 1
        assert [c["path"] for c in fake.calls()].index("/allocate") > 0
    finally:
        srv.kill()
        fake.stop()


def test_agones_allocation_for_another_scene(work):
    # The allocation asks for a scene this server did not load: the match ends at once.
    fake = FakeAgones(work, "sdk", ["--allocate-after", "0.5", "--annotation", "arbiter.dev/scene=some-other-scene"])
    srv = Server(BIN, work, "server", ["--agones"], env={"AGONES_SDK_HTTP_PORT": str(fake.port)})
    try:
        mismatch = srv.wait_event("scene_mismatch", 10)
        assert mismatch["wanted"] == "some-other-scene" and mismatch["loaded"] == "default-arena", mismatch
        srv.expect_match_end("scene_mismatch", 5)
        assert len(fake.calls("/shutdown")) == 1, fake.calls()
    finally:
        srv.kill()
        fake.stop()


if __name__ == "__main__":
    sys.exit(run_tests([test_agones_match, test_agones_health_stops_when_tick_stalls,
                        test_agones_first_join_self_allocates, test_agones_allocation_for_another_scene]))
