#!/usr/bin/env bash
# Records the replay logs committed in tests/replay/ from a live arbiter-server with
# arbiter-bot clients over loopback, then verifies each with arbiter-replay. Run it when the
# physics changes on purpose (the committed logs then no longer verify: that is the point
# of them), review `arbiter-replay info` of the new files and commit them.
#
#   scripts/record-replays.sh [--bin DIR] [--out DIR]
#       all committed sessions (about 2.7 minutes): default.arbrec, extras.arbrec,
#       joinleave.arbrec, compound.arbrec, bouncy.arbrec, migrate-a.arbrec + migrate-b.arbrec
#   scripts/record-replays.sh [--bin DIR] --session FILE SECONDS BOTS [SCENE]
#       one session: BOTS random bots for SECONDS seconds (the live-equals-offline test)
#   scripts/record-replays.sh [--bin DIR] [--out DIR] --soak
#       the long soak log (10 minutes, 16 bots on the default arena), stored xz-compressed
#       as soak.arbrec.xz; re-record it too when the physics changes on purpose
#   scripts/record-replays.sh [--bin DIR] [--out DIR] --migrate
#       a match that moves between two live servers (docs/SCALING.md, "Moving a match"):
#       3 bots on server A; at about 4 s A hands the match to server B, the bots follow and
#       play 4 s more there: migrate-a.arbrec (A's log, to the hand-off tick) and
#       migrate-b.arbrec (B's, starting with B's checkpoint there). The determinism matrix
#       verifies them as one match and continues migrate-a.arbrec from every platform's
#       own state; re-record them too when the physics changes on purpose
#
# --bin defaults to build/release/bin (arbiter-server, arbiter-bot, arbiter-replay).
# Only 127.0.0.1 and a port the server picks itself (--port 0) are used.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/release/bin
out=$root/tests/replay
session=()
soak=0
migrate=0
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --session) session=("$2" "$3" "$4" "${5:-}"); shift $(($# >= 5 ? 5 : 4)) ;;
    --soak) soak=1; shift ;;
    --migrate) migrate=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "record-replays: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for p in arbiter-server arbiter-bot arbiter-replay; do
  [ -x "$bin/$p" ] || { echo "record-replays: $bin/$p is missing (build first)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/arb-record.XXXXXX")
pids=()
cleanup() {
  # Only the processes started here.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# start_server FILE SEED [SCENE [LOG [ARG...]]]: sets srv_pid and port (the server's
# events go to LOG, default $work/server.log).
start_server() {
  local file=$1 seed=$2 scene=${3:-} log=${4:-$work/server.log}
  local args=(--bind 127.0.0.1 --port 0 --http-port 0 --record "$file" --checkpoint-every 600 --seed "$seed")
  [ -n "$scene" ] && args+=(--scene "$scene")
  [ $# -gt 4 ] && args+=("${@:5}")
  "$bin/arbiter-server" "${args[@]}" 2>"$log" &
  srv_pid=$!
  pids+=("$srv_pid")
  port=
  for _ in $(seq 100); do
    port=$(grep -o ' port=[0-9]*' "$log" | head -1 | cut -d= -f2 || true)
    [ -n "$port" ] && return 0
    kill -0 "$srv_pid" 2>/dev/null || break
    sleep 0.05
  done
  cat "$log" >&2
  echo "record-replays: the server did not start" >&2
  exit 1
}

# bots DELAY SECONDS COUNT SEED [BEHAVIOUR]: a bot process joining after DELAY seconds.
bots() {
  (sleep "$1"; exec "$bin/arbiter-bot" --host 127.0.0.1 --port "$port" --duration "$2" --clients "$3" \
     --seed "$4" --behaviour "${5:-random}" >"$work/bots-$4.json" 2>"$work/bots-$4.err") &
  pids+=($!)
  bot_pids+=($!)
}

# finish FILE: wait for the bots, stop the server cleanly (end record), verify the log.
finish() {
  local status=0
  for pid in "${bot_pids[@]}"; do wait "$pid" || status=1; done
  bot_pids=()
  [ $status -eq 0 ] || { cat "$work"/bots-*.err >&2; echo "record-replays: a bot failed" >&2; }
  sleep 0.3  # a last second of physics after the leaves
  kill -INT "$srv_pid"
  wait "$srv_pid" || { cat "$work/server.log" >&2; echo "record-replays: the server failed" >&2; exit 1; }
  [ $status -eq 0 ] || exit 1
  "$bin/arbiter-replay" verify "$1" --quiet
  echo "record-replays: $1: $(stat -c %s "$1") bytes"
}

bot_pids=()
if [ ${#session[@]} -gt 0 ]; then
  start_server "${session[0]}" 5 "${session[3]}"
  bots 0 "${session[1]}" "${session[2]}" 1
  finish "${session[0]}"
  exit 0
fi

mkdir -p "$out"
# record_migrate: the migration pair (--migrate). B first (empty, listening for the match),
# then A with the bots; the hand-off through A's admin endpoint. The servers' last
# arguments override start_server's --http-port 0. Relative names: B's log names A's as
# its predecessor as given to A's --record.
record_migrate() {
  (
    cd "$work"
    echo "record-replays-migrate-token-0123456789" >"$work/admin.token"
    start_server migrate-b.arbrec 3 "" "$work/b.log" --admin-token "$work/admin.token" \
      --migrate-port -1
    b_pid=$srv_pid
    migrate_port=$(grep -o ' migrate_port=[0-9]*' "$work/b.log" | head -1 | cut -d= -f2)
    start_server migrate-a.arbrec 3 "" "$work/a.log" --admin-token "$work/admin.token" \
      --http-port -1
    http_port=$(grep -o ' http_port=[0-9]*' "$work/a.log" | head -1 | cut -d= -f2)
    bots 0 8 3 11
    sleep 4
    curl -sf -X POST -H "Authorization: Bearer $(cat "$work/admin.token")" \
      "http://127.0.0.1:$http_port/admin/migrate/127.0.0.1:$migrate_port" >/dev/null ||
      { cat "$work/a.log" >&2; echo "record-replays: the migrate request failed" >&2; exit 1; }
    wait "$srv_pid" || { cat "$work/a.log" >&2; echo "record-replays: server A failed" >&2; exit 1; }
    srv_pid=$b_pid
    finish "$work/migrate-b.1.arbrec"
  )
  cp "$work/migrate-a.arbrec" "$out/migrate-a.arbrec"
  cp "$work/migrate-b.1.arbrec" "$out/migrate-b.arbrec"
  "$bin/arbiter-replay" verify "$out/migrate-a.arbrec" "$out/migrate-b.arbrec" --quiet
}

if [ $migrate -eq 1 ]; then
  record_migrate
  exit 0
fi
if [ $soak -eq 1 ]; then
  # 16 clients for 10 minutes (36 000 ticks): 10 wandering at random, 3 chasing the nearest
  # body, 3 running in circles; everyone joins at once and leaves at the end.
  command -v xz >/dev/null || { echo "record-replays: xz is not installed" >&2; exit 2; }
  start_server "$work/soak.arbrec" 23
  bots 0 600 10 71 random
  bots 0 600 3 81 seek
  bots 0 600 3 91 circle
  finish "$work/soak.arbrec"
  xz -9 -T1 -c "$work/soak.arbrec" >"$out/soak.arbrec.xz"
  echo "record-replays: $out/soak.arbrec.xz: $(stat -c %s "$out/soak.arbrec.xz") bytes"
  exit 0
fi
# 1. The built-in default scene, 3 bots running about for ~33 s (about 2000 ticks).
start_server "$out/default.arbrec" 7
bots 0 33 3 11
finish "$out/default.arbrec"

# 2. Joints, springs, particles and vehicle avatars (tests/scenes/extras.json), 3 bots.
start_server "$out/extras.arbrec" 13 "$root/tests/scenes/extras.json"
bots 0 28 3 21 random
finish "$out/extras.arbrec"

# 3. Clients joining and leaving mid-session: 2 bots throughout, 2 more from 5 s to 15 s,
#    1 from 12 s to 27 s, 1 circling from 20 s to 26 s.
start_server "$out/joinleave.arbrec" 17
bots 0 32 2 31
bots 5 10 2 41
bots 12 15 1 51 seek
bots 20 6 1 61 circle
finish "$out/joinleave.arbrec"

# 4. Compound bodies (tests/scenes/compound.json: a table, a car, a hammer, an L platform
#    and a sensor ring, several shapes each), 3 bots for 20 s: the same as
#    `--session compound.arbrec 20 3 tests/scenes/compound.json`.
start_server "$out/compound.arbrec" 5 "$root/tests/scenes/compound.json"
bots 0 20 3 1
finish "$out/compound.arbrec"

# 5. A bouncy crowd (tests/scenes/bouncy.json: 200 circles and boxes at restitution 1,
#    friction 0, in a closed box), 2 bots for 15 s: the world the energy rules of the
#    contact solver exist for, verified by every build of the determinism matrix; the same
#    as `--session bouncy.arbrec 15 2 tests/scenes/bouncy.json`.
start_server "$out/bouncy.arbrec" 5 "$root/tests/scenes/bouncy.json"
bots 0 15 2 1
finish "$out/bouncy.arbrec"

# 6. A match moved between two servers: migrate-a.arbrec and migrate-b.arbrec (--migrate).
record_migrate
