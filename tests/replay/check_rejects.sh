#!/usr/bin/env bash
# ctest check_determinism_rejects: scripts/check-determinism.sh must pass on a copy of the
# simulation sources and fail, naming the file and line, once a libm transcendental call
# (sinf, atan2, pow), -ffast-math or -march=native is added to that copy.
#   check_rejects.sh ROOT
set -uo pipefail
root=$1
check=$root/scripts/check-determinism.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arb-check-rejects.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

# fresh_copy: the parts of the tree the check reads, unchanged.
fresh_copy() {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree"
  cp -r "$root/shared" "$root/game" "$root/cmake" "$root/CMakeLists.txt" "$root/CMakePresets.json" \
        "$root/Makefile" "$tmp/tree/"
}

# expect_reject FILE LINE REGEX: appending LINE to FILE (relative to the copy) makes the
# check fail with output matching REGEX.
expect_reject() {
  fresh_copy
  printf '%s\n' "$2" >>"$tmp/tree/$1"
  local out rc
  out=$("$check" "$tmp/tree" 2>&1) && rc=0 || rc=$?
  if [ $rc -eq 0 ] || ! grep -qE -- "$3" <<<"${out//$'\n'/ }"; then
    echo "FAIL: '$2' in $1 was not rejected (exit $rc, want output /$3/):"
    printf '%s\n' "$out" | sed 's/^/    /'
    fails=$((fails + 1))
  else
    echo "ok: '$2' in $1 rejected: $(printf '%s\n' "$out" | head -2 | tr '\n' ' ')"
  fi
}

fresh_copy
if ! out=$("$check" "$tmp/tree" 2>&1); then
  echo "FAIL: the unchanged copy does not pass the check:"
  printf '%s\n' "$out" | sed 's/^/    /'
  exit 1
fi
expect_reject shared/src/math.c 'float arb__bad_sin(float x) { return sinf(x); }' \
  'libm transcendental call.*shared/src/math.c:[0-9]+:.*sinf'
expect_reject shared/src/math.c 'float arb__bad_atan2(float y, float x) { return (float)atan2(y, x); }' \
  'libm transcendental call.*math.c:[0-9]+:.*atan2'
expect_reject game/src/game.c 'static double arb__bad_pow(double x) { return pow(x, 1.5); }' \
  'libm transcendental call.*game/src/game.c:[0-9]+:.*pow'
expect_reject CMakeLists.txt 'add_compile_options(-ffast-math)' 'fast-math/FMA flag in the build files'
expect_reject CMakePresets.json '"-march=native"' 'machine-specific ISA flag'
[ $fails -eq 0 ] && echo "check_rejects: all rejected"
exit $((fails > 0))
