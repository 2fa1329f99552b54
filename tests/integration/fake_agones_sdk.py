#!/usr/bin/env python3
"""A stand-in for the Agones SDK server's REST gateway, for tests without Kubernetes.

Implements the endpoints of Agones' "REST Game Server Client API" (agones.dev, Guides >
Client SDKs > REST; sdks/swagger/sdk.swagger.json and alpha.swagger.json, Agones 1.56) the
way the SDK server answers them, and records every call as one JSON line:

  POST /ready /health /allocate /shutdown     body {}                 -> {}
  POST /reserve                               {"seconds": "N"}        -> {}
  PUT  /metadata/label /metadata/annotation   {"key": K, "value": V}  -> {}   (key stored as agones.dev/sdk-K)
  GET  /gameserver                                                    -> GameServer
  GET  /watch/gameserver      chunked stream of {"result": GameServer} lines: the current
                              GameServer at once, then one line per change
  POST /alpha/player/connect /alpha/player/disconnect {"playerID": ID} -> {"bool": B}
  GET  /alpha/player/count -> {"count": "N"}   GET /alpha/player/connected -> {"list": [...]}
  GET/PUT /alpha/player/capacity {"count": "N"}

GameServer states follow the SDK server: Scheduled -> (ready) RequestReady -> Ready;
(allocate) Allocated; (shutdown) Shutdown. A JSON body that is not an object, a missing or
mistyped field, or a label that Kubernetes would refuse answers 400 with a gRPC-gateway
style error body, and is recorded too (so a test can fail on it).

What Kubernetes would do from outside the pod is simulated by flags:
  --allocate-after S   S seconds after /ready, become Allocated (a GameServerAllocation),
                       with the --annotation K=V pairs added to object_meta.annotations
Usage: fake_agones_sdk.py --port-file FILE --log FILE [--allocate-after S]
                          [--annotation K=V ...] [--player-capacity N]
"""
import argparse
import json
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
SDK_PREFIX = "agones.dev/sdk-"


class State:
    def __init__(self, args):
        self.lock = threading.Condition()
        self.version = 0
        self.log = open(args.log, "a", buffering=1)
        self.t0 = time.monotonic()
        self.gs = {
            "object_meta": {"name": "arbiter-test-gs", "namespace": "default", "uid": "1234",
                            "resource_version": "1", "generation": "1",
                            "creation_timestamp": str(int(time.time())),
                            "annotations": {}, "labels": {}},
            "spec": {"health": {"disabled": False, "period_seconds": 5, "failure_threshold": 3,
                                "initial_delay_seconds": 5}},
            "status": {"state": "Scheduled", "address": "127.0.0.1",
                       "ports": [{"name": "game", "port": 7777}],
                       "players": {"count": "0", "capacity": str(args.player_capacity), "ids": []}},
        }
        self.players = []
        self.capacity = args.player_capacity
        self.allocate_after = args.allocate_after
        self.annotations = dict(kv.split("=", 1) for kv in args.annotation)

    def record(self, method, path, body, status):
        entry = {"t": round(time.monotonic() - self.t0, 4), "wall": time.time(), "method": method, "path": path,
                 "body": body, "status": status}
        self.log.write(json.dumps(entry) + "\n")

    def changed(self):
        """Call with the lock held after changing self.gs."""
        self.version += 1
        self.gs["object_meta"]["resource_version"] = str(self.version + 1)
        self.lock.notify_all()

    def set_state(self, state):
        with self.lock:
            self.gs["status"]["state"] = state
            self.changed()


def error_body(code, message):
    # grpc-gateway's error shape (runtime.HTTPError): code is the gRPC code.
    return {"code": code, "message": message, "details": []}


def reply_json(handler, status, obj):
    """Answers an http.server request with `status` and `obj` as a JSON body."""
    data = json.dumps(obj).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None  # set in main

    def log_message(self, fmt, *args):  # keep the test output quiet
        pass

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n > 0 else b""
        if not raw:
            return {}, None
        try:
            body = json.loads(raw)
        except ValueError as e:
            return raw.decode(errors="replace"), "body is not JSON: %s" % e
        if not isinstance(body, dict):
            return body, "body is not a JSON object"
        return body, None

    def handle_call(self, method):
        st = self.state
        path = self.path
        body, bad = self.read_body() if method != "GET" else ({}, None)
        status, answer = 200, {}
        if bad:
            status, answer = 400, error_body(3, bad)
        else:
            status, answer = self.route(method, path, body)
        st.record(method, path, body, status)
        if answer is not None:
            reply_json(self, status, answer)

    def route(self, method, path, body):
        st = self.state
        simple = {"/ready": "Ready", "/allocate": "Allocated", "/shutdown": "Shutdown"}
        if method == "POST" and path in simple:
            if body != {}:
                return 400, error_body(3, "expected an empty object")
            st.set_state(simple[path])
            if path == "/ready" and st.allocate_after is not None:
                threading.Timer(st.allocate_after, self.allocate_from_outside).start()
            return 200, {}
        if method == "POST" and path == "/health":
            return (200, {}) if body == {} else (400, error_body(3, "expected an empty object"))
        if method == "POST" and path == "/reserve":
            if not isinstance(body.get("seconds"), (str, int)):
                return 400, error_body(3, "seconds missing")
            st.set_state("Reserved")
            return 200, {}
        if method == "PUT" and path in ("/metadata/label", "/metadata/annotation"):
            key, value = body.get("key"), body.get("value")
            if not isinstance(key, str) or not isinstance(value, str) or set(body) - {"key", "value"}:
                return 400, error_body(3, "expected {\"key\": string, \"value\": string}")
            if path == "/metadata/label" and (not LABEL_NAME.match(key) or len(SDK_PREFIX + key) > 63 + len("agones.dev/")
                                              or len(value) > 63 or not LABEL_VALUE.match(value)):
                return 400, error_body(3, "invalid label %r=%r" % (key, value))
            field = "labels" if path.endswith("label") else "annotations"
            with st.lock:
                st.gs["object_meta"][field][SDK_PREFIX + key] = value
                st.changed()
            return 200, {}
        if method == "GET" and path == "/gameserver":
            with st.lock:
                return 200, json.loads(json.dumps(st.gs))
        if method == "GET" and path == "/watch/gameserver":
            self.watch()
            return 200, None
        if path.startswith("/alpha/player/"):
            return self.players(method, path[len("/alpha/player/"):], body)
        return 404, error_body(5, "Not Found")

    def players(self, method, what, body):
        st = self.state
        with st.lock:
            if method == "POST" and what in ("connect", "disconnect"):
                pid = body.get("playerID")
                if not isinstance(pid, str) or not pid or set(body) - {"playerID"}:
                    return 400, error_body(3, "expected {\"playerID\": string}")
                if what == "connect":
                    if pid in st.players:
                        return 200, {"bool": False}
                    if len(st.players) >= st.capacity:
                        return 500, error_body(2, "players are already at capacity")
                    st.players.append(pid)
                else:
                    if pid not in st.players:
                        return 200, {"bool": False}
                    st.players.remove(pid)
                st.gs["status"]["players"]["count"] = str(len(st.players))
                st.gs["status"]["players"]["ids"] = list(st.players)
                st.changed()
                return 200, {"bool": True}
            if method == "GET" and what == "count":
                return 200, {"count": str(len(st.players))}
            if method == "GET" and what == "connected":
                return 200, {"list": list(st.players)}
            if what == "capacity":
                if method == "GET":
                    return 200, {"count": str(st.capacity)}
                if method == "PUT" and isinstance(body.get("count"), (str, int)):
                    st.capacity = int(body["count"])
                    st.gs["status"]["players"]["capacity"] = str(st.capacity)
                    st.changed()
                    return 200, {}
        return 404, error_body(5, "Not Found")

    def allocate_from_outside(self):
        """What a GameServerAllocation does: state Allocated plus its metadata."""
        st = self.state
        with st.lock:
            st.gs["object_meta"]["annotations"].update(st.annotations)
            st.gs["object_meta"]["annotations"]["agones.dev/last-allocated"] = time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            st.gs["status"]["state"] = "Allocated"
            st.changed()
        st.record("K8S", "GameServerAllocation", st.annotations, 200)

    def watch(self):
        st = self.state
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        seen = -1
        try:
            while True:
                with st.lock:
                    while st.version == seen:
                        st.lock.wait(timeout=1.0)
                    seen = st.version
                    line = (json.dumps({"result": st.gs}) + "\n").encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        self.handle_call("GET")

    def do_POST(self):
        self.handle_call("POST")

    def do_PUT(self):
        self.handle_call("PUT")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--allocate-after", type=float)
    ap.add_argument("--annotation", action="append", default=[])
    ap.add_argument("--player-capacity", type=int, default=64)
    args = ap.parse_args()
    Handler.state = State(args)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.replace(args.port_file + ".tmp", args.port_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except SystemExit:
        pass


if __name__ == "__main__":
    main()
