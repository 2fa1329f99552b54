#!/usr/bin/env bash
# `make demo`: the server on the built-in default scene, 4 bots and the viewer, in one
# command. Closing the viewer window (or Ctrl-C) stops the bots and the server too.
#   scripts/demo.sh [viewer options...]        e.g. scripts/demo.sh --avatar vehicle --stats
# Environment: BIN (default build/release/bin), DEMO_PORT (default 7777), DEMO_BOTS (4).
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${BIN:-build/release/bin}
PORT=${DEMO_PORT:-7777}
BOTS=${DEMO_BOTS:-4}

for p in arbiter-server arbiter-bot; do
  [ -x "$BIN/$p" ] || { echo "demo: $BIN/$p is missing; run 'make build' first" >&2; exit 1; }
done
if [ ! -x "$BIN/arbiter-view" ]; then
  echo "demo: $BIN/arbiter-view was not built: SDL2 is missing (install libsdl2-dev," \
       "then 'make build')" >&2
  exit 1
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${SDL_VIDEODRIVER:-}" ]; then
  echo "demo: no display (DISPLAY and WAYLAND_DISPLAY are unset); for a picture without" \
       "one: scripts/demo.sh --screenshot demo.png --after 3" >&2
fi

pids=()
cleanup() {
  trap - EXIT INT TERM
  # Only the processes started here, newest first.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

LOGS=build/demo
mkdir -p "$LOGS"
echo "demo: arbiter-server on 127.0.0.1:$PORT (default scene), $BOTS bots, viewer;" \
     "logs in $LOGS/server.log and $LOGS/bots.log" >&2
"$BIN/arbiter-server" --bind 127.0.0.1 --port "$PORT" --http-port 0 2>"$LOGS/server.log" &
pids+=($!)
sleep 0.5
if ! kill -0 "${pids[0]}" 2>/dev/null; then
  tail -n 5 "$LOGS/server.log" >&2
  echo "demo: the server did not start (port $PORT busy? try DEMO_PORT=7000)" >&2
  exit 1
fi
"$BIN/arbiter-bot" --host 127.0.0.1 --port "$PORT" --clients "$BOTS" --duration 86400 \
  --behaviour random --seed "$RANDOM" >"$LOGS/bots.log" 2>&1 &
pids+=($!)
# The viewer in the foreground: when its window closes, the trap stops the rest.
"$BIN/arbiter-view" --host 127.0.0.1 --port "$PORT" "$@"
