#!/bin/sh
# bench/clients.sh — arbiter-server under arbiter-bot load on the default scene.
#
# For each client count (default: 1 16 64 128) it starts a fresh server on 127.0.0.1
# (ephemeral UDP port, HTTP /metrics on an ephemeral port, --max-clients raised to the
# count when above 64), runs arbiter-bot with that many clients, lets them connect and
# settle for WARMUP seconds, then measures for SECONDS:
#   - server tick time p50/p99/mean: from the deltas of /metrics' tick-duration histogram
#     (quantiles interpolated linearly inside a bucket; the bucket bounds are printed too);
#   - server CPU: utime+stime from /proc/PID/stat over the window, as % of one core and
#     as ms per tick;
#   - bytes per client per second: server -> client (the server's bytes_out counter / N)
#     and what the bots report (ENet UDP payload in and out per connected client);
#   - the bots' snapshot ratio and RTT p50/p99.
# It prints one line per run and a Markdown table at the end. A benchmark: it measures,
# it never passes or fails. Bots and server share the machine: on a small machine the
# bots' own CPU use is part of the load (the table prints the load average).
#
# usage: bench/clients.sh [BIN_DIR] [SECONDS] [COUNTS...]
#   BIN_DIR  directory with arbiter-server and arbiter-bot (default build/release/bin)
#   SECONDS  measured window per run (default 10); WARMUP=3 (env) seconds before it
set -eu

BIN=${1:-build/release/bin}
SECONDS_RUN=${2:-10}
[ $# -ge 2 ] && shift 2 || shift $#
COUNTS=${*:-"1 16 64 128"}
WARMUP=${WARMUP:-3}
BEHAVIOUR=${BEHAVIOUR:-random}

for exe in arbiter-server arbiter-bot; do
  if [ ! -x "$BIN/$exe" ]; then
    echo "bench/clients.sh: $BIN/$exe not found (build it: cmake --build build/release)" >&2
    exit 2
  fi
done
command -v python3 >/dev/null || { echo "bench/clients.sh: needs python3" >&2; exit 2; }

TMP=$(mktemp -d /tmp/arbiter-bench-clients.XXXXXX)
SERVER_PID=""
BOT_PID=""
cleanup() {
  [ -n "$BOT_PID" ] && kill "$BOT_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

metrics() {  # $1 = http port, $2 = output file
  python3 - "$1" "$2" <<'EOF'
import sys, urllib.request
port, out = sys.argv[1], sys.argv[2]
with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
    open(out, "wb").write(r.read())
EOF
}

cpu_ticks() {  # utime + stime of a pid, in clock ticks
  awk '{print $14 + $15}' "/proc/$1/stat"
}

ROWS="$TMP/rows"
: > "$ROWS"
HZ=$(getconf CLK_TCK)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
echo "server: $BIN/arbiter-server (default scene), bots: --behaviour $BEHAVIOUR, window ${SECONDS_RUN}s after ${WARMUP}s warm-up"

for N in $COUNTS; do
  MAX=64
  [ "$N" -gt 64 ] && MAX=$N
  "$BIN/arbiter-server" --port 0 --bind 127.0.0.1 --http-port -1 --max-clients "$MAX" \
    > "$TMP/server.out" 2> "$TMP/server.err" &
  SERVER_PID=$!
  PORT=""; HTTP=""
  for _ in $(seq 100); do
    sleep 0.1
    LINE=$(grep -m1 'server_started' "$TMP/server.err" || true)
    PORT=$(echo "$LINE" | grep -o ' port=[0-9]*' | cut -d= -f2)
    HTTP=$(echo "$LINE" | grep -o 'http_port=[0-9]*' | cut -d= -f2)
    [ -n "$PORT" ] && [ -n "$HTTP" ] && break
  done
  if [ -z "$PORT" ] || [ -z "$HTTP" ]; then
    echo "bench/clients.sh: server did not start:" >&2
    cat "$TMP/server.err" >&2
    exit 1
  fi

  "$BIN/arbiter-bot" --port "$PORT" --clients "$N" --duration $((WARMUP + SECONDS_RUN + 1)) \
    --behaviour "$BEHAVIOUR" --seed 1 > "$TMP/bot.json" 2> "$TMP/bot.err" &
  BOT_PID=$!
  sleep "$WARMUP"
  metrics "$HTTP" "$TMP/m1"
  C1=$(cpu_ticks "$SERVER_PID")
  T1=$(date +%s.%N)
  sleep "$SECONDS_RUN"
  metrics "$HTTP" "$TMP/m2"
  C2=$(cpu_ticks "$SERVER_PID")
  T2=$(date +%s.%N)
  LOAD=$(cut -d' ' -f1 /proc/loadavg)
  wait "$BOT_PID" || true
  BOT_PID=""
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""

  python3 - "$N" "$TMP/m1" "$TMP/m2" "$C1" "$C2" "$T1" "$T2" "$HZ" "$TMP/bot.json" "$LOAD" >> "$ROWS" <<'EOF'
import json, re, sys
n, m1, m2, c1, c2, t1, t2, hz, botf, load = sys.argv[1:]
n = int(n); dt = float(t2) - float(t1)
def parse(path):
    d = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        k, v = line.rsplit(" ", 1)
        d[k] = float(v)
    return d
a, b = parse(m1), parse(m2)
def delta(k): return b.get(k, 0.0) - a.get(k, 0.0)
buckets = []
for k in b:
    m = re.match(r'arbiter_tick_duration_seconds_bucket\{le="([^"]+)"\}', k)
    if m:
        le = float("inf") if m.group(1) == "+Inf" else float(m.group(1))
        buckets.append((le, delta(k)))
buckets.sort()
count = delta("arbiter_tick_duration_seconds_count")
total = delta("arbiter_tick_duration_seconds_sum")
def quantile(q):
    target = q * count
    lo, prev = 0.0, 0.0
    for le, c in buckets:
        if c >= target:
            if le == float("inf"):
                return lo, lo, le
            frac = (target - prev) / (c - prev) if c > prev else 1.0
            return lo + (le - lo) * frac, lo, le
        lo, prev = le, c
    return lo, lo, lo
p50, l50, h50 = quantile(0.50)
p99, l99, h99 = quantile(0.99)
cpu_s = (float(c2) - float(c1)) / float(hz)
ticks = delta("arbiter_ticks_total")
srv_out = delta("arbiter_bytes_out_total") / n / dt
srv_in = delta("arbiter_bytes_in_total") / n / dt
bot = json.load(open(botf))
row = {
  "clients": n, "connected": bot.get("connected_at_end"), "ticks_per_s": ticks / dt,
  "tick_p50_ms": p50 * 1e3, "tick_p50_bucket": [l50 * 1e3, h50 * 1e3],
  "tick_p99_ms": p99 * 1e3, "tick_p99_bucket": [l99 * 1e3, h99 * 1e3],
  "tick_mean_ms": (total / count * 1e3) if count else 0.0,
  "overruns": delta("arbiter_tick_overruns_total"), "skipped": delta("arbiter_ticks_skipped_total"),
  "cpu_pct": 100.0 * cpu_s / dt, "cpu_ms_per_tick": (1e3 * cpu_s / ticks) if ticks else 0.0,
  "server_out_B_per_client_s": srv_out, "server_in_B_per_client_s": srv_in,
  "bot_in_B_per_client_s": bot.get("bytes_in_per_client_per_s"),
  "bot_out_B_per_client_s": bot.get("bytes_out_per_client_per_s"),
  "snapshot_ratio": bot.get("snapshot_ratio"), "rtt_p50_ms": bot.get("rtt_ms_p50"),
  "rtt_p99_ms": bot.get("rtt_ms_p99"), "load": float(load),
}
print(json.dumps(row))
EOF
  tail -1 "$ROWS"
done

python3 - "$ROWS" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print()
print("| clients | connected | tick p50 (bucket) | tick p99 (bucket) | tick mean | server CPU | CPU/tick | server→client B/s per client | client→server B/s per client | snapshots received | RTT p50/p99 | load |")
print("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
for r in rows:
    print("| %d | %d | %.2f ms (%.2f–%.2f) | %.2f ms (%.2f–%.2f) | %.2f ms | %.1f %% | %.2f ms | %.0f | %.0f | %.1f %% | %.1f / %.1f ms | %.2f |" % (
        r["clients"], r["connected"], r["tick_p50_ms"], r["tick_p50_bucket"][0], r["tick_p50_bucket"][1],
        r["tick_p99_ms"], r["tick_p99_bucket"][0], r["tick_p99_bucket"][1], r["tick_mean_ms"], r["cpu_pct"],
        r["cpu_ms_per_tick"], r["server_out_B_per_client_s"], r["server_in_B_per_client_s"],
        100.0 * (r["snapshot_ratio"] or 0), r["rtt_p50_ms"] or 0, r["rtt_p99_ms"] or 0, r["load"]))
EOF
