#!/usr/bin/env bash
# The determinism build matrix (docs/DETERMINISM.md): builds only arbiter-replay and the
# libraries it needs with several compilers and optimisation levels, verifies every given
# replay log with each build, and fails unless every build verifies every log with the
# same final tick and hash.
#
#   scripts/determinism-matrix.sh [--work DIR] [--jobs N] [--only NAME,...] LOG...
#
# Builds (NAME: compiler and flags; -ffp-contract=off etc. come from CMakeLists.txt):
#   gcc-O0       gcc -O0
#   gcc-O2       gcc -O2
#   clang-O2     clang -O2
#   gcc-O3-v3    gcc -O3 -march=x86-64-v3   (AVX2 + FMA: the hazardous one)
#   aarch64-O2   aarch64-linux-gnu-gcc -O2, run under qemu-aarch64-static (cross-architecture);
#                only when the cross toolchain and the arm64 libraries are installed:
#                  dpkg --add-architecture arm64 && apt-get update && apt-get install \
#                    gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static \
#                    libjansson-dev:arm64 libmsgpack-dev:arm64 libuv1-dev:arm64 libenet-dev:arm64 libxxhash-dev:arm64
#                otherwise it is reported as skipped (and --require-aarch64 makes that a failure).
# Build trees go to DIR/<name> (default build/determinism-matrix) and are reused, so a
# second run only rebuilds what changed. Prints one line per build and log, then a table.
# Exit status: 0 all identical, 1 a build failed or a log did not verify identically, 2 usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/build/determinism-matrix
jobs=2
only=
require_a64=0
logs=()
while [ $# -gt 0 ]; do
  case $1 in
    --work) work=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --require-aarch64) require_a64=1; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    -*) echo "determinism-matrix: unknown option $1" >&2; exit 2 ;;
    *) logs+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"); shift ;;
  esac
done
[ ${#logs[@]} -gt 0 ] || { echo "determinism-matrix: no LOG given (see --help)" >&2; exit 2; }

# name|C compiler|C++ compiler|C flags
matrix=(
  "gcc-O0|gcc|g++|-O0"
  "gcc-O2|gcc|g++|-O2"
  "clang-O2|clang|clang++|-O2"
  "gcc-O3-v3|gcc|g++|-O3 -march=x86-64-v3"
  "aarch64-O2|aarch64-linux-gnu-gcc|aarch64-linux-gnu-g++|-O2"
)
a64_pc=/usr/lib/aarch64-linux-gnu/pkgconfig

start=$(date +%s)
status=0
declare -A result
names=()
for entry in "${matrix[@]}"; do
  IFS='|' read -r name cc cxx flags <<<"$entry"
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  names+=("$name")
  dir=$work/$name
  t0=$(date +%s)
  run=()
  cross=()
  if [[ $name == aarch64* ]]; then
    if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null || ! command -v qemu-aarch64-static >/dev/null \
       || [ ! -f "$a64_pc/jansson.pc" ] || [ ! -f "$a64_pc/msgpack.pc" ] || [ ! -f "$a64_pc/libuv.pc" ]; then
      unset 'names[${#names[@]}-1]'
      echo "determinism-matrix: $name: SKIPPED: the aarch64 cross toolchain, qemu-user-static or the arm64 libraries are not installed (see --help)"
      [ $require_a64 -eq 0 ] || status=1
      continue
    fi
    mkdir -p "$work"
    # Debian's cross gcc finds the multiarch arm64 headers and libraries by itself.
    printf '%s\n' "set(CMAKE_SYSTEM_NAME Linux)" "set(CMAKE_SYSTEM_PROCESSOR aarch64)" \
      "set(ENV{PKG_CONFIG_LIBDIR} \"$a64_pc:/usr/share/pkgconfig\")" >"$dir.toolchain.cmake"
    cross=(-DCMAKE_TOOLCHAIN_FILE="$dir.toolchain.cmake")
    run=(qemu-aarch64-static)
  elif ! command -v "$cc" >/dev/null; then
    echo "determinism-matrix: $name: $cc is not installed" >&2
    status=1
    continue
  fi
  # Only the tool and its libraries: no tests, benchmarks or viewer.
  if ! { cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=None "${cross[@]}" \
           -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_FLAGS="$flags" \
           -DARB_BUILD_TESTS=OFF -DARB_BUILD_BENCH=OFF -DARB_BUILD_VIEW=OFF -DARB_WERROR=OFF \
         && cmake --build "$dir" -j "$jobs" --target arbiter-replay; } >"$work-$name.log" 2>&1; then
    tail -20 "$work-$name.log" >&2
    echo "determinism-matrix: $name: build failed (log: $work-$name.log)" >&2
    status=1
    continue
  fi
  echo "determinism-matrix: $name: built in $(( $(date +%s) - t0 )) s ($cc $flags)"
  for log in "${logs[@]}"; do
    out=$("${run[@]}" "$dir/bin/arbiter-replay" verify "$log" --quiet 2>&1) && rc=0 || rc=$?
    final=$(printf '%s\n' "$out" | sed -n 's/.*final tick \([0-9]*\) hash \([0-9a-f]*\).*/\1:\2/p')
    if [ $rc -ne 0 ] || [ -z "$final" ]; then
      echo "determinism-matrix: $name: $(basename "$log"): FAILED (exit $rc)"
      printf '%s\n' "$out" | head -8 | sed 's/^/  /'
      result[$name,$log]="FAILED"
      status=1
    else
      result[$name,$log]=$final
      echo "determinism-matrix: $name: $(basename "$log"): OK, final tick:hash $final"
    fi
  done
done

echo
printf '%-22s' "log"
for name in "${names[@]}"; do printf ' %-28s' "$name"; done
echo
for log in "${logs[@]}"; do
  printf '%-22s' "$(basename "$log")"
  first=
  for name in "${names[@]}"; do
    r=${result[$name,$log]:-"not built"}
    printf ' %-28s' "$r"
    if [ -z "$first" ]; then first=$r
    elif [ "$r" != "$first" ]; then status=1
    fi
  done
  echo
done
echo "determinism-matrix: $([ $status -eq 0 ] && echo "identical across ${#names[@]} builds" || echo "FAILED"), $(( $(date +%s) - start )) s"
exit $status
