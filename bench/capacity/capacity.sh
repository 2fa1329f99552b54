#!/bin/sh
# bench/capacity/capacity.sh — how many players one server core holds in a large world.
#
# Generates the capacity scene (make_scene.py: a 300 m x 300 m top-down arena, 10 000
# bodies, resting crates and balls that start asleep, 100 kinematic mixers that keep about
# 800 balls moving) and runs bench/clients.sh on it for each client count: a fresh server
# per count, arbiter-bot --no-interp clients (decode and acknowledge snapshots only, so the
# clients are not the bottleneck) walking in random directions, and the table of ticks/s,
# tick wall time, tick CPU (mean, p99), bytes and snapshots per client.
#
# usage: bench/capacity/capacity.sh [BIN_DIR] [SECONDS] [COUNTS...]
#   BIN_DIR  default build/release/bin; SECONDS default 10; COUNTS default "1 64 256 512"
# environment: BODIES (10000), MIXERS (100), VIEW_RADIUS (30 m; 0 = whole world; auto = the
#   server's default),
#   PIN=1 (server on CPU 0, bots on CPU 1: only on an otherwise idle machine, pinning on a
#   loaded one starves both), PERF_AT / PERF_OUT, WARMUP (default 5) as for
#   bench/clients.sh.
# A benchmark: it measures, it never passes or fails.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-build/release/bin}
SECONDS_RUN=${2:-10}
[ $# -ge 2 ] && shift 2 || shift $#
COUNTS=${*:-"1 64 256 512"}

SCENE_FILE=$(mktemp /tmp/arbiter-capacity-scene.XXXXXX)
trap 'rm -f "$SCENE_FILE"' EXIT INT TERM
python3 "$HERE/make_scene.py" "${BODIES:-10000}" "${MIXERS:-100}" > "$SCENE_FILE"

if [ "${PIN:-0}" = 1 ]; then
  SERVER_CPU=0
  BOT_CPU=1
fi
echo "scene: make_scene.py ${BODIES:-10000} ${MIXERS:-100}, view radius ${VIEW_RADIUS:-30} m, server CPU ${SERVER_CPU:-any}, bots CPU ${BOT_CPU:-any}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
SCENE="$SCENE_FILE" SERVER_ARGS="--view-radius ${VIEW_RADIUS:-30} ${SERVER_ARGS:-}" \
  BOT_ARGS="--no-interp ${BOT_ARGS:-}" WARMUP="${WARMUP:-5}" STARTUP="${STARTUP:-30}" \
  SERVER_CPU="${SERVER_CPU:-}" BOT_CPU="${BOT_CPU:-}" \
  sh "$HERE/../clients.sh" "$BIN" "$SECONDS_RUN" $COUNTS
