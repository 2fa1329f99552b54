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
#   - server CPU per tick from /metrics' tick CPU histogram (the tick thread's own CPU
#     time per tick): mean (exact, from the sum) and p99 (interpolated in its bucket), and
#     of the mean the game step + hash and the snapshots (/metrics' per-part counters);
#   - the bots' snapshot ratio (received against snapshot rate x time since each
#     connection's first snapshot, joins included: a tick the server did not run counts
#     as missed), the same inside the window (from the bots' once-a-second progress
#     lines: snapshots/s over connected clients x the server's snapshot rate),
#     snapshots received per client per second, the share of the snapshots the server
#     sent that never arrived (gaps in their tick numbers), RTT p50/p99.
# It prints one line per run and a Markdown table at the end. A benchmark: it measures,
# it never passes or fails. Bots and server share the machine: on a small machine the
# bots' own CPU use is part of the load (the table prints the load average).
#
# usage: bench/clients.sh [BIN_DIR] [SECONDS] [COUNTS...]
#   BIN_DIR  directory with arbiter-server and arbiter-bot (default build/release/bin)
#   SECONDS  measured window per run (default 10); WARMUP=3 (env) seconds before it
# environment (all optional):
#   SCENE=FILE         scene for the server (default: the built-in scene)
#   SERVER_ARGS="..."  more server flags (e.g. --view-radius 30)
#   BOT_ARGS="..."     more arbiter-bot flags (e.g. --no-interp)
#   SERVER_CPU=N BOT_CPU=M  pin the server / the bots to those CPUs (taskset)
#   PERF_AT=N PERF_OUT=FILE  record `perf record -g` of the server during the window of
#                      the N-client run into FILE
#   PERF_CALLGRAPH="..."  perf's call-graph options instead of -g, e.g. "--call-graph
#                      dwarf,8192 -F 499" (the Release build keeps no frame pointers, so
#                      -g gives only the sampled function; dwarf gives whole stacks)
#   STARTUP=S          seconds a server may take to start (default 10; big scenes load slower)
set -eu

BIN=${1:-build/release/bin}
SECONDS_RUN=${2:-10}
[ $# -ge 2 ] && shift 2 || shift $#
COUNTS=${*:-"1 16 64 128"}
WARMUP=${WARMUP:-3}
BEHAVIOUR=${BEHAVIOUR:-random}
SCENE=${SCENE:-}
SERVER_ARGS=${SERVER_ARGS:-}
BOT_ARGS=${BOT_ARGS:-}
STARTUP=${STARTUP:-10}
# taskset execs the program, so $! stays the program's pid (for /proc/PID/stat).
SERVER_PIN=${SERVER_CPU:+taskset -c $SERVER_CPU}
BOT_PIN=${BOT_CPU:+taskset -c $BOT_CPU}

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
  [ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

metrics() {  # $1 = http port, $2 = output file
  python3 - "$1" "$2" <<'EOF'
import sys, time, urllib.request
port, out = sys.argv[1], sys.argv[2]
for attempt in range(5):  # a saturated server may drop a connection: ask again
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60) as r:
            open(out, "wb").write(r.read())
        break
    except OSError as e:
        print(f"bench/clients.sh: /metrics: {e}", file=sys.stderr)
        if attempt == 4:
            raise
        time.sleep(0.5)
EOF
}

cpu_ticks() {  # utime + stime of a pid, in clock ticks
  awk '{print $14 + $15}' "/proc/$1/stat"
}

ROWS="$TMP/rows"
: > "$ROWS"
HZ=$(getconf CLK_TCK)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
echo "server: $BIN/arbiter-server ${SCENE:-(default scene)} $SERVER_ARGS, bots: --behaviour $BEHAVIOUR $BOT_ARGS, window ${SECONDS_RUN}s after ${WARMUP}s warm-up"

for N in $COUNTS; do
  MAX=64
  [ "$N" -gt 64 ] && MAX=$N
  # Every bot connects from 127.0.0.1: one address must be allowed all of them, and all
  # of their connection-gate datagrams at once (the default of 20 per second per address
  # lets about 10 clients in per second: 256 would not all be in by the window).
  # shellcheck disable=SC2086  # SERVER_PIN and SERVER_ARGS are lists of words
  $SERVER_PIN "$BIN/arbiter-server" --port 0 --bind 127.0.0.1 --http-port -1 --max-clients "$MAX" \
    --peers-per-address "$MAX" --connect-rate $((MAX * 4)) \
    ${SCENE:+--scene "$SCENE"} $SERVER_ARGS > "$TMP/server.out" 2> "$TMP/server.err" &
  SERVER_PID=$!
  PORT=""; HTTP=""
  for _ in $(seq $((STARTUP * 10))); do
    sleep 0.1
    LINE=$(grep -a -m1 'server_started' "$TMP/server.err" || true)
    PORT=$(echo "$LINE" | grep -o ' port=[0-9]*' | cut -d= -f2)
    HTTP=$(echo "$LINE" | grep -o 'http_port=[0-9]*' | cut -d= -f2)
    [ -n "$PORT" ] && [ -n "$HTTP" ] && break
  done
  if [ -z "$PORT" ] || [ -z "$HTTP" ]; then
    echo "bench/clients.sh: server did not start:" >&2
    cat "$TMP/server.err" >&2
    exit 1
  fi

  # shellcheck disable=SC2086  # BOT_PIN and BOT_ARGS are lists of words
  $BOT_PIN "$BIN/arbiter-bot" --port "$PORT" --clients "$N" --duration $((WARMUP + SECONDS_RUN + 60)) \
    --behaviour "$BEHAVIOUR" --seed 1 $BOT_ARGS > "$TMP/bot.json" 2> "$TMP/bot.err" &
  BOT_PID=$!
  sleep "$WARMUP"
  metrics "$HTTP" "$TMP/m1"
  C1=$(cpu_ticks "$SERVER_PID")
  T1=$(date +%s.%N)
  if [ "${PERF_AT:-}" = "$N" ]; then
    perf record ${PERF_CALLGRAPH:--g} -o "${PERF_OUT:-perf.data}" -p "$SERVER_PID" -- sleep "$SECONDS_RUN" 2> "$TMP/perf.err" ||
      cat "$TMP/perf.err" >&2
  else
    sleep "$SECONDS_RUN"
  fi
  metrics "$HTTP" "$TMP/m2"
  C2=$(cpu_ticks "$SERVER_PID")
  T2=$(date +%s.%N)
  LOAD=$(cut -d' ' -f1 /proc/loadavg)
  # The bots run until told to stop (a loaded server may answer /metrics late: the bots
  # must still be there when the window closes); SIGTERM makes them print the summary.
  kill -TERM "$BOT_PID" 2>/dev/null || true
  wait "$BOT_PID" || true
  BOT_PID=""
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""

  python3 - "$N" "$TMP/m1" "$TMP/m2" "$C1" "$C2" "$T1" "$T2" "$HZ" "$TMP/bot.json" "$LOAD" \
    "$TMP/bot.err" "$WARMUP" "$SECONDS_RUN" >> "$ROWS" <<'EOF'
import json, re, sys
n, m1, m2, c1, c2, t1, t2, hz, botf, load, boterr, warmup, window = sys.argv[1:]
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
def histogram(name):
    bs = []
    for k in b:
        m = re.match(name + r'_bucket\{le="([^"]+)"\}', k)
        if m:
            le = float("inf") if m.group(1) == "+Inf" else float(m.group(1))
            bs.append((le, delta(k)))
    bs.sort()
    return bs, delta(name + "_count"), delta(name + "_sum")
buckets, count, total = histogram("arbiter_tick_duration_seconds")
def quantile(q, buckets, count):
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
p50, l50, h50 = quantile(0.50, buckets, count)
p99, l99, h99 = quantile(0.99, buckets, count)
cpu_buckets, cpu_count, cpu_sum = histogram("arbiter_tick_cpu_seconds")
cpu99, cpu99_lo, cpu99_hi = quantile(0.99, cpu_buckets, cpu_count)
cpu_s = (float(c2) - float(c1)) / float(hz)
ticks = delta("arbiter_ticks_total")
srv_out = delta("arbiter_bytes_out_total") / n / dt
srv_in = delta("arbiter_bytes_in_total") / n / dt
bot = json.load(open(botf))
# The bots' progress lines (one a second, t from their start) inside the window: the
# snapshots received then, against the server's snapshot rate for every client.
in_window = []
for line in open(boterr, errors="replace"):
    m = re.search(r"t=(\d+)s connected=\d+/\d+ snapshots/s=([\d.]+)", line)
    if m and float(warmup) < int(m.group(1)) <= float(warmup) + float(window):
        in_window.append(float(m.group(2)))
rate = bot.get("snapshot_rate") or 0
window_ratio = sum(in_window) / len(in_window) / (n * rate) if in_window and rate else 0.0
row = {
  "clients": n, "connected": bot.get("connected_at_end"), "ticks_per_s": ticks / dt,
  "tick_p50_ms": p50 * 1e3, "tick_p50_bucket": [l50 * 1e3, h50 * 1e3],
  "tick_p99_ms": p99 * 1e3, "tick_p99_bucket": [l99 * 1e3, h99 * 1e3],
  "tick_mean_ms": (total / count * 1e3) if count else 0.0,
  "overruns": delta("arbiter_tick_overruns_total"), "skipped": delta("arbiter_ticks_skipped_total"),
  "cpu_pct": 100.0 * cpu_s / dt, "cpu_ms_per_tick": (1e3 * cpu_s / ticks) if ticks else 0.0,
  "tick_cpu_mean_ms": (cpu_sum / cpu_count * 1e3) if cpu_count else 0.0,
  "tick_cpu_p99_ms": cpu99 * 1e3, "tick_cpu_p99_bucket": [cpu99_lo * 1e3, cpu99_hi * 1e3],
  "step_cpu_ms": 1e3 * delta("arbiter_tick_step_cpu_seconds_total") / ticks if ticks else 0.0,
  "snapshot_cpu_ms": 1e3 * delta("arbiter_tick_snapshot_cpu_seconds_total") / ticks if ticks else 0.0,
  "snapshots_per_client_s": bot.get("snapshots_per_client_per_s"),
  "server_out_B_per_client_s": srv_out, "server_in_B_per_client_s": srv_in,
  "bot_in_B_per_client_s": bot.get("bytes_in_per_client_per_s"),
  "bot_out_B_per_client_s": bot.get("bytes_out_per_client_per_s"),
  "snapshot_ratio": bot.get("snapshot_ratio"), "window_ratio": window_ratio,
  "lost_ratio": bot.get("snapshots_lost", 0) / max(1.0, bot.get("snapshots_lost", 0) + bot.get("snapshots_received", 0)),
  "rtt_p50_ms": bot.get("rtt_ms_p50"),
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
print("| clients | connected | ticks/s | tick wall p50 (bucket) | tick wall p99 (bucket) | tick CPU mean | of which step / snapshots | tick CPU p99 (bucket) | process CPU | process CPU/tick | server→client B/s per client | client→server B/s per client | snapshots/s per client | snapshots received | in the window | sent, not received | RTT p50/p99 | load |")
print("|---:|---:|---:|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
for r in rows:
    print("| %d | %d | %.1f | %.2f ms (%.2f–%.2f) | %.2f ms (%.2f–%.2f) | %.2f ms | %.2f / %.2f ms | %.2f ms (%.2f–%.2f) | %.1f %% | %.2f ms | %.0f | %.0f | %.1f | %.1f %% | %.1f %% | %.2f %% | %.1f / %.1f ms | %.2f |" % (
        r["clients"], r["connected"], r["ticks_per_s"], r["tick_p50_ms"], r["tick_p50_bucket"][0], r["tick_p50_bucket"][1],
        r["tick_p99_ms"], r["tick_p99_bucket"][0], r["tick_p99_bucket"][1], r["tick_cpu_mean_ms"],
        r["step_cpu_ms"], r["snapshot_cpu_ms"],
        r["tick_cpu_p99_ms"], r["tick_cpu_p99_bucket"][0], r["tick_cpu_p99_bucket"][1], r["cpu_pct"],
        r["cpu_ms_per_tick"], r["server_out_B_per_client_s"], r["server_in_B_per_client_s"],
        r["snapshots_per_client_s"] or 0, 100.0 * (r["snapshot_ratio"] or 0), 100.0 * r["window_ratio"], 100.0 * r["lost_ratio"], r["rtt_p50_ms"] or 0,
        r["rtt_p99_ms"] or 0, r["load"]))
EOF
