#!/usr/bin/env bash
# ctest replay_broken_builds_diverge: what docs/DETERMINISM.md says breaks determinism does.
# Builds arbiter-replay with scripts/determinism-matrix.sh --column (flags appended after
# the project's own, so they override -ffp-contract=off and -fno-fast-math) and checks:
#   i386-x87         -mfpmath=387: the build refuses it (#error on FLT_EVAL_METHOD)
#   i386-x87-forced  -mfpmath=387 with the refusal switched off: LOG diverges
#   gcc-fma          -march=x86-64-v3 (FMA) and -ffp-contract=fast: LOG diverges
#   gcc-fast-math    -ffast-math: LOG diverges
#   control          -march=x86-64-v3 with -ffp-contract=off appended the same way: LOG
#                    verifies, so the divergences come from the flags, not the mechanism
# and prints the matrix table with each divergence localised (tick, entity, field).
#   broken_builds.sh WORK_DIR LOG
# Exits 77 (ctest: skipped) when the i386 cross compiler is missing, unless
# ARBITER_REQUIRE_MATRIX=1 (CI), where that fails.
set -uo pipefail
work=$1
log=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
grep -qw fma /proc/cpuinfo || { echo "broken_builds: this CPU has no FMA: the gcc-fma build can not run here" >&2; exit 1; }

columns=(
  --column "i386-x87|i386|i686-linux-gnu-gcc|-O2 -mfpmath=387|"
  --column "i386-x87-forced|i386|i686-linux-gnu-gcc|-O2 -mfpmath=387|-DARB_ALLOW_EXCESS_PRECISION"
  --column "gcc-fma|host|gcc|-O2 -march=x86-64-v3|-ffp-contract=fast"
  --column "gcc-fast-math|host|gcc|-O2|-ffast-math"
  --column "control|host|gcc|-O2 -march=x86-64-v3|-ffp-contract=off"
)
bash "$root/scripts/determinism-matrix.sh" --work "$work" --check --skip-status 77 "${columns[@]}"
rc=$?
[ $rc -eq 0 ] || exit $rc

out=$(bash "$root/scripts/determinism-matrix.sh" --work "$work" --jobs 2 "${columns[@]}" "$log" 2>&1)
rc=$?
printf '%s\n' "$out"
echo
fails=0
name=$(basename "$log" .arbrec)
want() {  # REGEX WHAT
  if grep -qE -- "$1" <<<"$out"; then echo "ok: $2"
  else echo "FAIL: $2 (no line matches /$1/)"; fails=$((fails + 1)); fi
}
[ $rc -eq 1 ] || { echo "FAIL: the matrix of broken builds exited $rc, want 1"; fails=$((fails + 1)); }
want "^determinism-matrix: i386-x87: build failed" "the x87 build is refused"
if grep -q "FLT_EVAL_METHOD == 0" "$work/i386-x87.log" 2>/dev/null; then
  echo "ok: ... by the FLT_EVAL_METHOD check: $(grep -m1 -o 'error: #error.*' "$work/i386-x87.log")"
else
  echo "FAIL: the x87 build failed for another reason than the FLT_EVAL_METHOD check ($work/i386-x87.log)"
  fails=$((fails + 1))
fi
for b in i386-x87-forced gcc-fma gcc-fast-math; do
  want "^determinism-matrix: $b: $name: DIVERGED@[0-9]+" "$b diverges"
done
want "^determinism-matrix: control: $name: OK" "the control build (flags appended the same way) verifies"
want "^  DIVERGED at tick [0-9]+" "the divergences are localised"
[ $fails -eq 0 ] && echo "broken_builds: x87 refused; x87, FMA contraction and -ffast-math each diverge"
exit $((fails > 0))
