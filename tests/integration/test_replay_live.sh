#!/usr/bin/env bash
# Live equals offline: record a fresh 10 s session (arbiter-server --record, 4 arbiter-bot
# clients, 127.0.0.1, a port the server picks) and verify it with arbiter-replay: every
# tick's hash and every checkpoint must match the live server's.
#   test_replay_live.sh BIN_DIR
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arb-replay-live.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$root/scripts/record-replays.sh" --bin "$bin" --session "$tmp/live.arbrec" 10 4
"$bin/arbiter-replay" info "$tmp/live.arbrec"
out=$("$bin/arbiter-replay" verify "$tmp/live.arbrec")
echo "$out"
# 10 s at 60 Hz, 4 clients joined, at least one checkpoint compared bit for bit.
ticks=$(echo "$out" | sed -n 's/^OK: \([0-9]*\) ticks verified.*/\1/p')
[ -n "$ticks" ] && [ "$ticks" -ge 550 ] || { echo "FAIL: expected >= 550 verified ticks"; exit 1; }
grep -qE ', [1-9][0-9]* checkpoints identical bit for bit' <<<"$out" || { echo "FAIL: no checkpoint compared"; exit 1; }
[ "$("$bin/arbiter-replay" info "$tmp/live.arbrec" | grep -c '^  client ')" -eq 4 ] || { echo "FAIL: not 4 clients"; exit 1; }
echo "1 passed, 0 failed"
