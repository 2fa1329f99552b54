#!/bin/sh
# bench/web/mixed.sh — WebSocket and ENet clients in one match, against ENet alone.
#
# The capacity world (bench/capacity/make_scene.py: 300 m x 300 m, 10 000 bodies), 60 Hz
# ticks, 30 Hz snapshots, --view-radius 30, --client-kbps 1000 (the capacity benchmark's
# settings). Per round two runs, each with a fresh server:
#   enet   N ENet clients (arbiter-bot --no-interp)
#   mixed  N/2 ENet clients + N/2 WebSocket clients (bench/web/ws_bots.mjs --no-interp:
#          the C client library in WebAssembly under Node, through the npm package)
# After WARMUP seconds, a window of SECONDS: ticks/s and the tick thread's CPU per tick
# (/metrics), the server process's CPU per tick (/proc), and the snapshots each transport's
# clients received (per client per second, and the ratio against 30/s over their run).
# Rounds alternate the two runs (ROUNDS, default 2), so a noisy machine affects both.
#
# usage: bench/web/mixed.sh [BIN_DIR] [SECONDS] [N]     (defaults build/release/bin 10 256)
# environment: ROUNDS (2), WARMUP (8), PIN=1 (server on CPU 0, clients on CPU 1)
# A benchmark: it measures, it never passes or fails.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-build/release/bin}
WINDOW=${2:-10}
N=${3:-256}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-8}
HALF=$((N / 2))
SERVER_PIN=""; CLIENT_PIN=""
if [ "${PIN:-0}" = 1 ]; then SERVER_PIN="taskset -c 0"; CLIENT_PIN="taskset -c 1"; fi
for exe in arbiter-server arbiter-bot; do
  [ -x "$BIN/$exe" ] || { echo "bench/web/mixed.sh: $BIN/$exe not found" >&2; exit 2; }
done
command -v node >/dev/null || { echo "bench/web/mixed.sh: needs node" >&2; exit 2; }

TMP=$(mktemp -d /tmp/arbiter-bench-mixed.XXXXXX)
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
python3 "$HERE/../capacity/make_scene.py" 10000 100 > "$TMP/scene.json"

metric() {  # $1 = metrics file, $2 = name: the sum of its samples
  awk -v n="$2" '$1 == n || index($1, n "{") == 1 {s += $2} END {printf "%.6f\n", s}' "$1"
}

run() {  # $1 = label, $2 = ENet clients, $3 = WebSocket clients
  # shellcheck disable=SC2086
  $SERVER_PIN "$BIN/arbiter-server" --port 0 --bind 127.0.0.1 --http-port -1 --ws-port -1 \
    --max-clients "$N" --peers-per-address "$N" --ws-per-address "$N" --connect-rate $((N * 4)) \
    --scene "$TMP/scene.json" --view-radius 30 --client-kbps 1000 \
    > "$TMP/server.out" 2> "$TMP/server.err" &
  SPID=$!; PIDS="$SPID"
  for _ in $(seq 300); do
    sleep 0.1
    LINE=$(grep -a -m1 'server_started' "$TMP/server.err" || true)
    PORT=$(echo "$LINE" | grep -o ' port=[0-9]*' | cut -d= -f2)
    HTTP=$(echo "$LINE" | grep -o 'http_port=[0-9]*' | cut -d= -f2)
    WS=$(echo "$LINE" | grep -o 'ws_port=[0-9]*' | cut -d= -f2)
    [ -n "$PORT" ] && [ -n "$HTTP" ] && [ -n "$WS" ] && break
  done
  [ -n "$WS" ] || { echo "bench/web/mixed.sh: server did not start" >&2; cat "$TMP/server.err" >&2; exit 1; }
  RUN=$((WARMUP + WINDOW + 5))
  if [ "$2" -gt 0 ]; then
    $CLIENT_PIN "$BIN/arbiter-bot" --port "$PORT" --clients "$2" --duration "$RUN" --no-interp \
      > "$TMP/bot.json" 2> "$TMP/bot.err" &
    PIDS="$PIDS $!"; BPID=$!
  fi
  if [ "$3" -gt 0 ]; then
    $CLIENT_PIN node "$HERE/ws_bots.mjs" --url "ws://127.0.0.1:$WS/" --clients "$3" --duration "$RUN" \
      --no-interp > "$TMP/ws.json" 2> "$TMP/ws.err" &
    PIDS="$PIDS $!"; WPID=$!
  fi
  sleep "$WARMUP"
  curl -s "http://127.0.0.1:$HTTP/metrics" > "$TMP/m1"; C1=$(awk '{print $14 + $15}' "/proc/$SPID/stat")
  sleep "$WINDOW"
  curl -s "http://127.0.0.1:$HTTP/metrics" > "$TMP/m2"; C2=$(awk '{print $14 + $15}' "/proc/$SPID/stat")
  [ "$2" -gt 0 ] && wait "$BPID" || true
  [ "$3" -gt 0 ] && wait "$WPID" || true
  kill "$SPID" 2>/dev/null || true; wait "$SPID" 2>/dev/null || true
  T1=$(metric "$TMP/m1" arbiter_ticks_total); T2=$(metric "$TMP/m2" arbiter_ticks_total)
  S1=$(metric "$TMP/m1" arbiter_tick_cpu_seconds_sum); S2=$(metric "$TMP/m2" arbiter_tick_cpu_seconds_sum)
  python3 - "$1" "$2" "$3" "$T1" "$T2" "$S1" "$S2" "$C1" "$C2" "$(getconf CLK_TCK)" "$WINDOW" \
    "$TMP/bot.json" "$TMP/ws.json" <<'PY'
import json, os, sys
label, ne, nw, t1, t2, s1, s2, c1, c2, hz, window, botf, wsf = sys.argv[1:]
ticks = float(t2) - float(t1)
tick_cpu = (float(s2) - float(s1)) / ticks * 1000 if ticks else float("nan")
proc_cpu = (float(c2) - float(c1)) / float(hz) / ticks * 1000 if ticks else float("nan")
def part(path, n, kind):
    if int(n) == 0 or not os.path.exists(path) or os.path.getsize(path) == 0:
        return "—"
    j = json.load(open(path))
    if kind == "enet":
        return "%d/%d connected, %.1f snap/s, ratio %.3f" % (j["connected_at_end"], int(n),
               j["snapshots_per_client_per_s"], j["snapshot_ratio"])
    return "%d/%d connected, ratio mean %.3f min %.3f" % (j["connected_at_end"], int(n),
           j["snapshot_ratio_mean"], j["snapshot_ratio_min"])
print("| %s | %s | %s | %.1f | %.2f | %.2f | %s | %s |" % (label, ne, nw, ticks / float(window),
      tick_cpu, proc_cpu, part(botf, ne, "enet"), part(wsf, nw, "ws")))
PY
  rm -f "$TMP/bot.json" "$TMP/ws.json"
  PIDS=""
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | ENet | WebSocket | ticks/s | tick CPU ms | process CPU ms/tick | ENet clients | WebSocket clients |"
echo "|---|---:|---:|---:|---:|---:|---|---|"
for r in $(seq "$ROUNDS"); do
  run "enet ($r)" "$N" 0
  run "mixed ($r)" "$HALF" $((N - HALF))
done
