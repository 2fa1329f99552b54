"""Helpers for the lifecycle tests: start arbiter-server and the fake Agones SDK server on
127.0.0.1, read the server's JSON log, ask its HTTP port, run arbiter-bot. Every wait is
bounded; a failed check raises AssertionError with what was expected and what was seen."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


class Server:
    """arbiter-server --port 0 --http-port -1 --log-format json plus extra args."""

    def __init__(self, bin_dir, work, name, args=(), env=None):
        self.log_path = os.path.join(work, name + ".log")
        self.log = open(self.log_path, "w")
        full_env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "AGONES_"))}
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [os.path.join(bin_dir, "arbiter-server"), "--port", "0", "--http-port", "-1", "--log-format", "json",
             *args], stderr=self.log, stdout=subprocess.DEVNULL, env=full_env)
        started = self.wait_event("server_started", 10)
        self.port, self.http_port = started["port"], started["http_port"]

    def events(self):
        out = []
        with open(self.log_path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    out.append(json.loads(line))
        return out

    def find(self, event, **match):
        return [e for e in self.events() if e.get("event") == event and all(e.get(k) == v for k, v in match.items())]

    def wait_event(self, event, timeout, **match):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = self.find(event, **match)
            if found:
                return found[-1]
            if self.proc.poll() is not None and not self.find(event, **match):
                break
            time.sleep(0.05)
        raise AssertionError("no %s %s in the server log within %s s (exit %s):\n%s" %
                             (event, match, timeout, self.proc.poll(), open(self.log_path).read()[-3000:]))

    def expect_match_end(self, why, timeout, players=None):
        """The match ends for `why` within timeout s (with `players` still in it, when
        given) and then the server exits 0. Returns the match_over event."""
        over = self.wait_event("match_over", timeout)
        assert over["why"] == why, over
        if players is not None:
            assert over["players"] == players, over
        assert self.wait_exit(10) == 0
        return over

    def http(self, method, path, token=None, timeout=3):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.http_port, path), method=method,
                                     data=b"" if method == "POST" else None)
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the server did not exit within %s s:\n%s" %
                                 (timeout, open(self.log_path).read()[-3000:]))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class FakeAgones:
    """tests/integration/fake_agones_sdk.py on a free port."""

    def __init__(self, work, name, args=()):
        self.log_path = os.path.join(work, name + ".calls")
        port_file = os.path.join(work, name + ".port")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_agones_sdk.py"), "--port-file",
                                      port_file, "--log", self.log_path, *args])
        end = time.monotonic() + 10
        while not os.path.exists(port_file):
            if time.monotonic() > end or self.proc.poll() is not None:
                raise AssertionError("the fake Agones SDK server did not start")
            time.sleep(0.02)
        self.port = int(open(port_file).read())

    def calls(self, path=None):
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path) as f:
            out = [json.loads(line) for line in f if line.strip()]
        return [c for c in out if path is None or c["path"] == path]

    def wait_call(self, path, timeout, count=1):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(self.calls(path)) >= count:
                return self.calls(path)
            time.sleep(0.05)
        raise AssertionError("expected %d %s call(s) within %s s; calls so far: %s" %
                             (count, path, timeout, [c["path"] for c in self.calls()]))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def bots(bin_dir, port, clients, duration, seed=1, spectate=False):
    """Start arbiter-bot in the background (spectators with spectate); returns the Popen (stdout: JSON summary)."""
    return subprocess.Popen([os.path.join(bin_dir, "arbiter-bot"), "--host", "127.0.0.1", "--port", str(port),
                             "--clients", str(clients), "--duration", str(duration), "--seed", str(seed),
                             "--behaviour", "random"] + (["--spectate"] if spectate else []),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def metric(text, name):
    """The value of one /metrics line (name with its labels), None when absent."""
    m = re.search(r"^%s (\S+)$" % re.escape(name), text, re.M)
    return float(m.group(1)) if m else None


def admin_token_file(work, token):
    """The --admin-token file (work/admin.token) holding token; returns its path."""
    path = os.path.join(work, "admin.token")
    with open(path, "w") as f:
        f.write(token + "\n")
    return path


def verify_recording(bin_dir, path):
    """arbiter-replay verify: every tick hash re-simulated (from the checkpoint the log
    starts with, when it does); returns its output."""
    r = subprocess.run([os.path.join(bin_dir, "arbiter-replay"), "verify", path], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0 or "\nOK: " not in "\n" + r.stdout:
        raise AssertionError("arbiter-replay verify %s failed (%d):\n%s%s" % (path, r.returncode, r.stdout, r.stderr))
    return r.stdout.strip()


def run_tests(tests):
    """Run test functions (each gets a fresh temp dir); print a line each; exit status."""
    failed = 0
    for t in tests:
        with tempfile.TemporaryDirectory(prefix="arb-lifecycle-") as work:
            t0 = time.monotonic()
            try:
                t(work)
                print("PASS %s (%.1f s)" % (t.__name__, time.monotonic() - t0), flush=True)
            except Exception as e:  # noqa: BLE001 - report every failure the same way
                failed += 1
                print("FAIL %s after %.1f s: %s: %s" % (t.__name__, time.monotonic() - t0, type(e).__name__, e),
                      flush=True)
                print(traceback.format_exc(), end="", flush=True)
                for name in sorted(os.listdir(work)):  # the servers' logs, before they are deleted
                    if name.endswith(".log"):
                        with open(os.path.join(work, name), errors="replace") as f:
                            print("--- %s (last 3000 bytes)\n%s" % (name, f.read()[-3000:]), flush=True)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0
