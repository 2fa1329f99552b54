#!/usr/bin/env bash
# Fails when simulation code uses something that breaks bit-exact replays
# (docs/DETERMINISM.md, "Rules"): libm transcendental functions, C library randomness,
# wall-clock time, unstable sorting, pointer-value ordering, or -ffast-math.
# Usage: scripts/check-determinism.sh [ROOT]   (ROOT defaults to the repository)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
dirs=("$root/shared/src" "$root/shared/include" "$root/game/src")
status=0

report() {  # pattern, why
  local hits
  hits=$(grep -rnE --include='*.c' --include='*.h' --include='*.inc' "$1" "${dirs[@]}" 2>/dev/null \
         | grep -v 'DET-ALLOW' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|/?\*)' || true)
  if [ -n "$hits" ]; then
    echo "check-determinism: $2:"
    echo "$hits" | sed 's/^/  /'
    status=1
  fi
}

# Comment lines are skipped; a line may opt out with a DET-ALLOW comment saying why.
# Word boundaries keep arb_sin / arb_cos / arb_atan2 legal.
report '(^|[^_[:alnum:]])(sin|cos|tan|asin|acos|atan|atan2|exp|exp2|log|log2|log10|pow|cbrt|hypot|sinh|cosh|tanh)f?[[:space:]]*\(' \
  "libm transcendental call (results differ across libms/CPUs; use arb_sin/arb_cos/arb_atan2)"
report '(^|[^_[:alnum:]])(rand|srand|random|drand48|arc4random)[[:space:]]*\(' \
  "C library randomness (use the seeded, recorded generator)"
report '(^|[^_[:alnum:]])(time|clock|clock_gettime|gettimeofday)[[:space:]]*\(' \
  "wall-clock time in the simulation (time is tick x dt)"
report '(^|[^_[:alnum:]])qsort[[:space:]]*\(' \
  "qsort is not stable: ties would order by implementation detail"
report '\(u?intptr_t\)' \
  "pointer value used as a number (ordering by address is not deterministic)"
report '#pragma[[:space:]]+GCC[[:space:]]+optimize|fast-math|-Ofast' \
  "fast-math style optimisation"

# (Options before the files: after `--` grep would take --include for a file name, fail,
# and the pipeline would never report a hit.)
if grep -rnE --include='*.txt' --include='*.cmake' -e '-ffast-math|-Ofast|-mfma' \
     "$root/CMakeLists.txt" "$root/cmake" "$root/shared" 2>/dev/null | grep -vE 'fno-fast-math|never' ; then
  echo "check-determinism: fast-math/FMA flag in the build files (above)"
  status=1
fi
# -march=native / -mtune=native / wide ISAs make the build depend on the machine, and gcc
# vectorizes into FMA on them (docs/DETERMINISM.md, "Compilers, flags and the vectorizer").
isa=$(grep -rnE --include='*.txt' --include='*.cmake' --include='*.json' --include='Makefile' \
       -e '-march=native|-mtune=native|-mavx512|-march=x86-64-v[34]' "$root/CMakeLists.txt" \
       "$root/cmake" "$root/CMakePresets.json" "$root/Makefile" "$root/shared" 2>/dev/null \
       | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' || true)
if [ -n "$isa" ]; then
  echo "$isa"
  echo "check-determinism: machine-specific ISA flag in the build files (above)"
  status=1
fi
if ! grep -q -- '-fno-tree-slp-vectorize' "$root/CMakeLists.txt"; then
  echo "check-determinism: -fno-tree-loop-vectorize -fno-tree-slp-vectorize missing from CMakeLists.txt (gcc emits FMA)"
  status=1
fi
if ! grep -q -- '-ffp-contract=off' "$root/CMakeLists.txt"; then
  echo "check-determinism: -ffp-contract=off missing from CMakeLists.txt"
  status=1
fi
[ $status -eq 0 ] && echo "check-determinism: ok (${dirs[*]#$root/})"
exit $status
