#!/usr/bin/env bash
# arbiter-replay as a user runs it, on files: --help everywhere, info/dump/seek on a
# committed log, the perturbation self-test on a committed log (exit 1 at a reported tick,
# with the differing entities), and hand-corrupted copies of a committed log (truncated,
# bit flips, wrong magic, empty, missing file, scene hash mismatch) -> exit 2 with a reason.
#   cli_checks.sh ARBITER_REPLAY LOG [ARBITER_SIM]   (LOG: a session on the built-in scene)
set -uo pipefail
tool=$1
log=$2
sim=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arb-replay-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

# expect STATUS REGEX CMD...: the command exits with STATUS and its stdout+stderr match REGEX.
expect() {
  local want=$1 re=$2
  shift 2
  local out rc
  out=$("$@" 2>&1) && rc=0 || rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$re" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (want $want), output must match /$re/:"
    printf '%s\n' "$out" | head -15 | sed 's/^/    /'
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}

for cmd in verify info dump seek continue; do
  expect 0 "usage: arbiter-replay verify" "$tool" "$cmd" --help
done
expect 0 "^arbiter-replay arbiter-" "$tool" --version
expect 2 "unknown command" "$tool" replay "$log"
expect 2 "needs --tick" "$tool" seek "$log"
expect 2 "unknown option" "$tool" verify "$log" --tick 3

# info: header, scene, clients, integrity.
expect 0 "integrity: +clean" "$tool" info "$log"
expect 0 "scene: +\"default-arena\".*matches the text" "$tool" info "$log"
expect 0 "client 1 \".*joined tick" "$tool" info "$log"
# info's recorded final hash (the server's) is the one verify re-computes.
final=$("$tool" verify "$log" --quiet 2>&1 | sed -n 's/.*final tick \([0-9]*\) hash \([0-9a-f]*\).*/\1 hash \2/p')
expect 0 "recorded: +final tick ${final:-none} \(as the server" "$tool" info "$log"
# dump and seek agree (seek starts from the checkpoint of tick 1200, dump from tick 0).
seek=$("$tool" seek "$log" --tick 1234 2>/dev/null)
dump=$("$tool" dump "$log" --from 1234 --to 1234 2>/dev/null)
full=$("$tool" dump "$log" --from 0 --to 1234 --every 1234 2>/dev/null | tail -1)
if [ -n "$seek" ] && [ "$seek" = "$dump" ] && [ "$seek" = "$full" ] && [[ $seek == '{"tick":1234,"hash":"'* ]]; then
  passes=$((passes + 1))
else
  echo "FAIL: seek/dump at tick 1234 disagree: seek=${seek:0:80} dump=${dump:0:80} full=${full:0:80}"
  fails=$((fails + 1))
fi
expect 0 "started from the checkpoint of tick 1200" "$tool" seek "$log" --tick 1234 --hash-only
# dump prints exactly what arbiter-sim prints (the state before any player joined).
if [ -n "$sim" ]; then
  a=$("$tool" dump "$log" --from 0 --to 0 2>/dev/null)
  b=$("$sim" --ticks 0 2>/dev/null)
  if [ -n "$a" ] && [ "$a" = "$b" ]; then passes=$((passes + 1))
  else echo "FAIL: dump --to 0 differs from arbiter-sim --ticks 0: ${a:0:80} / ${b:0:80}"; fails=$((fails + 1)); fi
fi
expect 2 "outside the log" "$tool" seek "$log" --tick 99999999

# The committed pair of a match that moved between servers: one re-simulation from A's
# first tick through B's last, B's checkpoint compared with it, not restored.
ma=$here/migrate-a.arbrec mb=$here/migrate-b.arbrec
if [ -f "$ma" ] && [ -f "$mb" ]; then
  b_final=$("$tool" info "$mb" | sed -n 's/^recorded: *final tick \([0-9]*\) hash \([0-9a-f]*\).*/\1 hash \2/p')
  a_last=$("$tool" info "$ma" | sed -n 's/^recorded: *final tick \([0-9]*\) .*/\1/p')
  expect 0 "OK: 2 logs verified as one match, re-simulated from tick 0 of the first .*final tick ${b_final:-none}$" \
    "$tool" verify "$ma" "$mb"
  expect 0 "continues at tick ${a_last:-none} .*its checkpoint equals the re-simulated state bit for bit" \
    "$tool" verify "$ma" "$mb"
  expect 1 "migrate-a.arbrec does not continue the log before it" "$tool" verify "$mb" "$ma"
  expect 1 "does not continue the log before it \(another seed\)" "$tool" verify "$log" "$mb"
  # A continuation of A from this build's own state, verified alone and with B after it.
  expect 0 "continues .*migrate-a.arbrec at tick 100 from this build's state" \
    "$tool" continue "$ma" --tick 100 --out "$tmp/cont.arbrec"
  expect 0 "starting from the checkpoint of tick 100.*
OK: [0-9]+ ticks verified \(101\.\.${a_last:-none}\)" "$tool" verify "$tmp/cont.arbrec"
  expect 0 "continues.*its checkpoint equals" "$tool" verify "$tmp/cont.arbrec" "$mb"
  # B's log continued at its own first tick is B's log: the server wrote the same
  # checkpoint bytes this tool makes (only the header's predecessor name, migrate-b for
  # migrate-a, and so the header's checksum differ).
  (cd "$here" && "$tool" continue migrate-b.arbrec --tick "${a_last:-0}" --out "$tmp/b-again.arbrec") >/dev/null 2>&1
  if [ "$(cmp -l "$tmp/b-again.arbrec" "$mb" 2>/dev/null | wc -l)" -le 5 ]; then passes=$((passes + 1))
  else echo "FAIL: continue of migrate-b at its first tick differs from it beyond the header"; fails=$((fails + 1)); fi
  expect 2 "is outside" "$tool" continue "$ma" --tick 999999 --out "$tmp/x.arbrec"
  expect 2 "needs --out" "$tool" continue "$ma" --tick 100
fi

# A changed physics constant must be caught, at the tick it takes effect or later.
expect 1 "DIVERGED at tick 1000 .*expected hash [0-9a-f]{16}, actual [0-9a-f]{16}" \
  "$tool" verify "$log" --perturb-gravity 1000
expect 1 "at tick 1200 \(the next checkpoint, 200 ticks after the divergence" \
  "$tool" verify "$log" --perturb-gravity 1000
expect 1 "entity [0-9]+ \"[a-z_0-9]+\":.* -> .*ulp" "$tool" verify "$log" --perturb-gravity 1000

# Hand-corrupted copies.
size=$(stat -c %s "$log")
head -c $((size - 100)) "$log" >"$tmp/cut.arbrec"
expect 2 "does not end cleanly: truncated" "$tool" verify "$tmp/cut.arbrec"
expect 0 "the log ends early, verified its readable prefix up to tick [0-9]+: truncated" \
  "$tool" verify "$tmp/cut.arbrec" --allow-truncated
expect 2 "integrity: +truncated" "$tool" info "$tmp/cut.arbrec"
head -c 40 "$log" >"$tmp/header-cut.arbrec"
expect 2 "not a readable replay log" "$tool" verify "$tmp/header-cut.arbrec" --allow-truncated
cp "$log" "$tmp/flip.arbrec"
# Every bit of the middle byte flipped (a constant could be the byte already there).
middle=$(od -An -tu1 -j $((size / 2)) -N1 "$log" | tr -d ' ')
printf "\\x$(printf '%02x' $((middle ^ 0xff)))" | dd of="$tmp/flip.arbrec" bs=1 seek=$((size / 2)) conv=notrunc status=none
# The middle byte may be a record's payload (its checksum fails) or its length field (the
# record then overruns the file): either way a reasoned exit 2.
expect 2 "checksum|record cut short" "$tool" verify "$tmp/flip.arbrec"
cp "$log" "$tmp/magic.arbrec"
printf 'X' | dd of="$tmp/magic.arbrec" bs=1 seek=1 conv=notrunc status=none
expect 2 "not a readable replay log" "$tool" verify "$tmp/magic.arbrec"
: >"$tmp/empty.arbrec"
expect 2 "not a readable replay log" "$tool" verify "$tmp/empty.arbrec"
expect 2 "cannot open" "$tool" verify "$tmp/does-not-exist.arbrec"
expect 2 "not a readable replay log" "$tool" verify "$here/cli_checks.sh"
# The protocol's golden log: valid records, but the scene hash does not match its text.
golden=$here/../fuzz/corpus/replay/golden.arbrec
if [ -f "$golden" ]; then
  expect 2 "scene hash .* does not match the scene text" "$tool" verify "$golden"
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
