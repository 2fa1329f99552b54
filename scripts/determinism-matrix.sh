#!/usr/bin/env bash
# The determinism build matrix (docs/DETERMINISM.md): builds only arbiter-replay and the
# libraries it needs (physics core, game layer, protocol; cmake -DARB_REPLAY_ONLY=ON) for
# several compilers, flags and platforms, verifies every given replay log with each build,
# and fails unless every build verifies every log with the final tick and hash the
# recording server computed.
#
#   scripts/determinism-matrix.sh [--work DIR] [--jobs N] [--only NAME,...]
#                                 [--column SPEC]... [--allow-missing] [--skip-status N]
#                                 [--continue LOG@TICK] [--check] LOG...
#
# Builds (NAME: platform, compiler and flags; -ffp-contract=off etc. come from CMakeLists.txt):
#   gcc-O0       x86-64  gcc -O0
#   gcc-O2       x86-64  gcc -O2
#   clang-O2     x86-64  clang -O2
#   gcc-O3-v3    x86-64  gcc -O3 -march=x86-64-v3   (AVX2 + FMA: the hazardous one)
#   aarch64-O2   aarch64 aarch64-linux-gnu-gcc -O2, run under qemu-aarch64-static
#   i386-sse2    i386    i686-linux-gnu-gcc -O2 -msse2 -mfpmath=sse, run natively, or under
#                        qemu-i386-static where the kernel does not run 32-bit programs
#   wasm32       wasm32  Debian's emcc -O2, run under node
# and the row "server": the final tick and hash the live server recorded in each log.
# The other platforms need scripts/install-deps.sh --matrix; a build whose toolchain is
# missing fails the run (with --allow-missing it is only reported as SKIPPED). With
# --skip-status N the run exits N instead when toolchains are missing and every build that
# could run verified (ctest passes 77, its SKIP_RETURN_CODE, so a developer machine without
# the matrix shows the test as skipped). ARBITER_REQUIRE_MATRIX=1 in the environment (set
# by .ci/run) overrides both: a missing toolchain always fails the run.
# --check only looks for the toolchains of the selected builds: prints what is missing and
# exits 0 (all there), the --skip-status (missing) or 1 (missing, and required). LOG may
# be omitted with --check.
#
# --column NAME|PLATFORM|CC|FLAGS|APPENDED  replaces the builds above with your own
#   (repeatable; PLATFORM is host, aarch64, i386 or wasm32). APPENDED flags go after the
#   project's own on every compile line, so they can override -ffp-contract=off and
#   -fno-fast-math: the tests that show what breaks determinism use this.
# --jobs N (default 2): parallel compile jobs, and logs verified at once by each build.
# LOG may be .arbrec or .arbrec.xz (unpacked once into DIR/logs), or A+B[+C...]: the logs
# of one match that moved between servers, verified as one (arbiter-replay verify A B: B's
# ticks applied to the state re-simulated from A, its checkpoint compared bit for bit).
# --continue LOG@TICK: every build re-simulates LOG to TICK and writes a continuation log
#   starting with its own state there (arbiter-replay continue), as if the match had moved
#   at TICK to a server of that platform; the continuations must be byte-identical, and
#   the one made on each platform is verified by every build like the other logs (columns
#   continue-NAME): a state made on aarch64, i386 or wasm32 continues on x86-64 and the
#   reverse.
# Build trees go to DIR/<name> (default build/determinism-matrix) and are reused, so a
# second run only rebuilds what changed. Prints one line per build and log, then the table build x log ->
# final tick:hash, then each divergence as arbiter-replay verify localised it (tick,
# entity, field). Exit status: 0 all identical, 1 a build failed or a log did not verify
# identically (or a toolchain is missing), 2 usage, the --skip-status when toolchains are
# missing and every other build verified.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/build/determinism-matrix
jobs=2
only=
allow_missing=0
skip_status=
check_only=0
continue_spec=
logs=()
# abs_spec LOG[+LOG...]: the same with absolute paths.
abs_spec() {
  local part out=() parts
  IFS='+' read -r -a parts <<<"$1"
  for part in "${parts[@]}"; do out+=("$(cd "$(dirname "$part")" && pwd)/$(basename "$part")"); done
  (IFS='+'; echo "${out[*]}")
}
columns=()
while [ $# -gt 0 ]; do
  case $1 in
    --work) work=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --column) columns+=("$2"); shift 2 ;;
    --allow-missing) allow_missing=1; shift ;;
    --skip-status) skip_status=$2; shift 2 ;;
    --continue) continue_spec=$2; shift 2 ;;
    --check) check_only=1; shift ;;
    -h|--help) sed -n '2,52p' "$0" | sed '/^set -euo/d'; exit 0 ;;
    -*) echo "determinism-matrix: unknown option $1" >&2; exit 2 ;;
    *) logs+=("$(abs_spec "$1")"); shift ;;
  esac
done
[ ${#logs[@]} -gt 0 ] || [ $check_only -eq 1 ] || { echo "determinism-matrix: no LOG given (see --help)" >&2; exit 2; }
require=0
if [ "${ARBITER_REQUIRE_MATRIX:-0}" = 1 ]; then require=1 allow_missing=0 skip_status=; fi
mkdir -p "$work"
work=$(cd "$work" && pwd)  # absolute: the compiler launchers are named by path

if [ ${#columns[@]} -eq 0 ]; then
  columns=(
    "gcc-O0|host|gcc|-O0|"
    "gcc-O2|host|gcc|-O2|"
    "clang-O2|host|clang|-O2|"
    "gcc-O3-v3|host|gcc|-O3 -march=x86-64-v3|"
    "aarch64-O2|aarch64|aarch64-linux-gnu-gcc|-O2|"
    "i386-sse2|i386|i686-linux-gnu-gcc|-O2 -msse2 -mfpmath=sse|"
    "wasm32|wasm32|emcc|-O2|"
  )
fi
wasm_prefix=/opt/arbiter/wasm32
emscripten_cmake=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake
# Debian's emscripten finds its node modules (acorn) there; a nodejs from elsewhere does not.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
mkdir -p "$work/logs"

start=$(date +%s)
status=0
declare -A result detail

# platform_check PLATFORM CC: prints what is missing for it (nothing when all is there).
platform_check() {
  local need=("$2") files=()
  case $1 in
    aarch64) need+=(qemu-aarch64-static); files=(/usr/lib/aarch64-linux-gnu/pkgconfig/jansson.pc) ;;
    i386) need+=(qemu-i386-static); files=(/usr/lib/i386-linux-gnu/pkgconfig/jansson.pc) ;;
    wasm32) need+=(node); files=("$wasm_prefix/lib/pkgconfig/jansson.pc" "$emscripten_cmake") ;;
  esac
  local t
  for t in "${need[@]}"; do command -v "$t" >/dev/null || printf '%s ' "$t"; done
  for t in "${files[@]}"; do [ -f "$t" ] || printf '%s ' "$t"; done
}

# platform_setup NAME PLATFORM: sets cross (extra cmake arguments) and run (the runner).
platform_setup() {
  local tc=$work/$1.toolchain.cmake
  cross=()
  run=()
  case $2 in
    aarch64|i386)
      # Debian's cross gcc finds the multiarch headers and libraries by itself.
      local triplet=aarch64-linux-gnu cpu=aarch64
      if [ "$2" = i386 ]; then triplet=i386-linux-gnu cpu=i686; fi
      printf '%s\n' "set(CMAKE_SYSTEM_NAME Linux)" "set(CMAKE_SYSTEM_PROCESSOR $cpu)" \
        "set(ENV{PKG_CONFIG_LIBDIR} \"/usr/lib/$triplet/pkgconfig:/usr/share/pkgconfig\")" >"$tc"
      cross=(-DCMAKE_TOOLCHAIN_FILE="$tc")
      if [ "$2" = aarch64 ]; then run=(qemu-aarch64-static); fi
      ;;
    wasm32)
      # jansson from scripts/build-wasm-jansson.sh; msgpack-c and xxHash header-only, from a
      # directory that holds only their headers (never all of /usr/include: glibc's).
      local inc=$work/$1.headers
      mkdir -p "$inc"
      ln -sfn /usr/include/msgpack.h "$inc/msgpack.h"
      ln -sfn /usr/include/msgpack "$inc/msgpack"
      ln -sfn /usr/include/xxhash.h "$inc/xxhash.h"
      printf '%s\n' "include($emscripten_cmake)" "list(APPEND CMAKE_FIND_ROOT_PATH $wasm_prefix)" \
        "set(ENV{PKG_CONFIG_LIBDIR} \"$wasm_prefix/lib/pkgconfig\")" >"$tc"
      cross=(-DCMAKE_TOOLCHAIN_FILE="$tc" -DARB_MSGPACK_INCLUDE_DIR="$inc" -DXXHASH_INCLUDE_DIRS="$inc"
             "-DCMAKE_EXE_LINKER_FLAGS=-sNODERAWFS=1 -sEXIT_RUNTIME=1 -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node")
      # Node 18+ has fetch(), which emscripten 3.1.6's loader then tries on a file path.
      run=(node --no-experimental-fetch)
      ;;
  esac
}

# build NAME CC FLAGS APPENDED: configures and builds arbiter-replay in $work/NAME.
build() {
  local dir=$work/$1 launcher=()
  if [ -n "$4" ]; then
    printf '#!/bin/sh\nexec "$@" %s\n' "$4" >"$work/$1.append.sh"
    chmod +x "$work/$1.append.sh"
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER="$work/$1.append.sh")
  fi
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=None "${cross[@]}" "${launcher[@]}" \
    -DCMAKE_C_COMPILER="$2" -DCMAKE_C_FLAGS="$3" -DARB_REPLAY_ONLY=ON -DARB_WERROR=OFF \
    && cmake --build "$dir" -j "$jobs" --target arbiter-replay
}

# local_log LOG: the .arbrec to verify (an .xz is unpacked once into $work/logs); for a
# chain A+B, each of its logs so.
local_log() {
  if [[ $1 == *+* ]]; then
    local part out=() parts
    IFS='+' read -r -a parts <<<"$1"
    for part in "${parts[@]}"; do out+=("$(local_log "$part")"); done
    (IFS='+'; echo "${out[*]}")
    return
  fi
  case $1 in
    *.xz)
      local out=$work/logs/$(basename "$1" .xz)
      if [ ! -f "$out" ] || [ "$1" -nt "$out" ]; then xz -dc "$1" >"$out.tmp" && mv "$out.tmp" "$out"; fi
      echo "$out" ;;
    *) echo "$1" ;;
  esac
}
logname() {
  local b part names=() parts
  IFS='+' read -r -a parts <<<"$1"
  for part in "${parts[@]}"; do b=$(basename "$part"); names+=("${b%%.*}"); done
  (IFS='+'; echo "${names[*]}")
}

# verify_all: verifies every log with every build, up to $jobs at once (qemu and node are
# single-threaded), the most expensive first (log size x a factor for emulation or -O0) so
# the long ones run side by side and never last and alone. Leaves each output in
# $work/out.<name>.<i>, with its exit status and wall seconds in .rc and .sec.
verify_all() {
  local name i cost running=() cmd chain f
  for name in "${names[@]}"; do
    [ -n "${bin[$name]:-}" ] || continue
    for i in "${!vlogs[@]}"; do
      cost=0
      IFS='+' read -r -a chain <<<"${vlogs[$i]}"
      for f in "${chain[@]}"; do cost=$((cost + $(stat -c %s "$f"))); done
      case "${runner[$name]} $name" in
        qemu*) cost=$((cost * 40)) ;;
        node*) cost=$((cost * 4)) ;;
        *-O0*) cost=$((cost * 8)) ;;
      esac
      echo "$cost $name $i"
    done
  done | sort -rn >"$work/jobs.$$"
  while read -r cost name i; do
    read -r -a cmd <<<"${runner[$name]} ${bin[$name]}"
    IFS='+' read -r -a chain <<<"${vlogs[$i]}"
    { t=$(date +%s) rc=0
      "${cmd[@]}" verify "${chain[@]}" --quiet --max-bodies 3 >"$work/out.$name.$i" 2>&1 || rc=$?
      echo $rc >"$work/out.$name.$i.rc"
      echo $(( $(date +%s) - t )) >"$work/out.$name.$i.sec"; } &
    running+=($!)
    if [ ${#running[@]} -ge "$jobs" ]; then wait "${running[0]}"; running=("${running[@]:1}"); fi
  done <"$work/jobs.$$"
  wait
  rm -f "$work/jobs.$$"
}

# missing_report: one SKIPPED line per selected build whose toolchain is missing; sets
# missing_any.
missing_any=0
missing_report() {
  local entry name platform cc flags appended missing
  for entry in "${columns[@]}"; do
    IFS='|' read -r name platform cc flags appended <<<"$entry"
    if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
    missing=$(platform_check "$platform" "$cc")
    [ -n "$missing" ] || continue
    missing_any=1
    echo "determinism-matrix: $name: SKIPPED: not installed: $missing(scripts/install-deps.sh --matrix installs them)"
  done
}
if [ $check_only -eq 1 ]; then
  missing_report
  [ $missing_any -eq 1 ] || exit 0
  if [ $require -eq 1 ]; then
    echo "determinism-matrix: FAILED: ARBITER_REQUIRE_MATRIX=1 and toolchains are missing"
    exit 1
  fi
  exit "${skip_status:-1}"
fi

vlogs=()
for log in "${logs[@]}"; do vlogs+=("$(local_log "$log")"); done

names=()
declare -A bin=() runner=() platform_of=()
for entry in "${columns[@]}"; do
  IFS='|' read -r name platform cc flags appended <<<"$entry"
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  missing=$(platform_check "$platform" "$cc")
  if [ -n "$missing" ]; then
    echo "determinism-matrix: $name: SKIPPED: not installed: $missing(scripts/install-deps.sh --matrix installs them)"
    missing_any=1
    [ $allow_missing -eq 1 ] || [ -n "$skip_status" ] || status=1
    continue
  fi
  names+=("$name")
  platform_of[$name]=$platform
  platform_setup "$name" "$platform"
  t0=$(date +%s)
  if ! build "$name" "$cc" "$flags" "$appended" >"$work/$name.log" 2>&1; then
    grep -m3 -E 'error|Error' "$work/$name.log" | sed 's/^/  /' >&2 || true
    echo "determinism-matrix: $name: build failed (log: $work/$name.log)"
    for log in "${logs[@]}"; do result[$name,$log]="BUILD FAILED"; done
    status=1
    continue
  fi
  bin[$name]=$work/$name/bin/arbiter-replay
  if [ "$platform" = wasm32 ]; then bin[$name]=${bin[$name]}.js; fi
  # i386 runs natively where the kernel executes 32-bit programs, else under qemu.
  if [ "$platform" = i386 ] && ! "${bin[$name]}" --version >/dev/null 2>&1; then run=(qemu-i386-static); fi
  runner[$name]=${run[*]}
  echo "determinism-matrix: $name: built in $(( $(date +%s) - t0 )) s ($cc $flags${appended:+, then $appended}${run:+; runs under ${run[*]}})"
done

# --continue: every build writes its continuation; they must be byte-identical; the one
# of each platform is then verified by every build as one more log.
if [ -n "$continue_spec" ] && [ ${#bin[@]} -gt 0 ]; then
  cont_log=$(local_log "$(abs_spec "${continue_spec%@*}")") cont_tick=${continue_spec##*@}
  first_cont=
  declare -A platform_done=()
  for name in "${names[@]}"; do
    [ -n "${bin[$name]:-}" ] || continue
    read -r -a cmd <<<"${runner[$name]} ${bin[$name]}"
    out=$work/logs/continue-$name.arbrec
    rm -f "$out"
    if ! "${cmd[@]}" continue "$cont_log" --tick "$cont_tick" --out "$out" >"$work/out.continue.$name" 2>&1; then
      echo "determinism-matrix: $name: continue $(logname "$cont_log")@$cont_tick FAILED: $(head -2 "$work/out.continue.$name")"
      status=1
      continue
    fi
    if [ -z "$first_cont" ]; then
      first_cont=$out
    elif ! cmp -s "$first_cont" "$out"; then
      echo "determinism-matrix: $name: its continuation of $(logname "$cont_log") at tick $cont_tick differs from $(basename "$first_cont"): $(cmp "$first_cont" "$out" | head -1)"
      status=1
    fi
    if [ -z "${platform_done[${platform_of[$name]}]:-}" ]; then
      platform_done[${platform_of[$name]}]=1
      logs+=("$out")
      vlogs+=("$out")
    fi
  done
  [ $status -ne 0 ] || echo "determinism-matrix: every build's state at tick $cont_tick of $(logname "$cont_log") is byte-identical (continue-NAME: the continuation of each platform)"
fi

t0=$(date +%s)
verify_all
for name in "${names[@]}"; do
  [ -n "${bin[$name]:-}" ] || continue
  for i in "${!logs[@]}"; do
    log=${logs[$i]}
    out=$(cat "$work/out.$name.$i")
    rc=$(cat "$work/out.$name.$i.rc")
    sec=$(cat "$work/out.$name.$i.sec")
    final=$(printf '%s\n' "$out" | sed -n 's/.*final tick \([0-9]*\) hash \([0-9a-f]*\).*/\1:\2/p')
    if [ "$rc" -eq 0 ] && [ -n "$final" ]; then
      result[$name,$log]=$final
      echo "determinism-matrix: $name: $(logname "$log"): OK, final tick:hash $final ($sec s)"
    else
      at=$(printf '%s\n' "$out" | sed -n 's/^DIVERGED at tick \([0-9]*\).*/\1/p' | head -1)
      result[$name,$log]=$([ -n "$at" ] && echo "DIVERGED@$at" || echo "FAILED (exit $rc)")
      detail[$name,$log]=$(printf '%s\n' "$out" | head -9)
      echo "determinism-matrix: $name: $(logname "$log"): ${result[$name,$log]} ($sec s)"
      status=1
    fi
  done
done
echo "determinism-matrix: verified ${#logs[@]} logs with ${#bin[@]} builds in $(( $(date +%s) - t0 )) s, $jobs at once"

# The live server's own hashes, as recorded in each log.
for log in "${logs[@]}"; do
  rec=
  if [ ${#bin[@]} -gt 0 ]; then
    first=${names[0]}
    for n in "${names[@]}"; do [ -z "${bin[$n]:-}" ] || { first=$n; break; }; done
    read -r -a info_tool <<<"${runner[$first]} ${bin[$first]}"
    local_last=$(local_log "$log")
    rec=$("${info_tool[@]}" info "${local_last##*+}" 2>/dev/null \
          | sed -n 's/^recorded: *final tick \([0-9]*\) hash \([0-9a-f]*\).*/\1:\2/p' || true)
  fi
  result[server,$log]=${rec:-unknown}
done

echo
printf '%-16s' "build"
for log in "${logs[@]}"; do printf ' %-22s' "$(logname "$log")"; done
echo
for name in "${names[@]}" server; do
  printf '%-16s' "$name"
  for log in "${logs[@]}"; do
    r=${result[$name,$log]:-"-"}
    printf ' %-22s' "$r"
    [ "$r" = "${result[server,$log]}" ] || status=1
  done
  echo
done
for name in "${names[@]}"; do
  for log in "${logs[@]}"; do
    [ -n "${detail[$name,$log]:-}" ] || continue
    echo
    echo "$name x $(logname "$log"):"
    printf '%s\n' "${detail[$name,$log]}" | sed 's/^/  /'
  done
done
echo "determinism-matrix: $([ $status -eq 0 ] && echo "identical across ${#names[@]} builds and the server" || echo "FAILED"), $(( $(date +%s) - start )) s"
if [ $missing_any -eq 1 ]; then
  if [ $require -eq 1 ]; then
    echo "determinism-matrix: FAILED: ARBITER_REQUIRE_MATRIX=1 and toolchains are missing"
    exit 1
  fi
  if [ $status -eq 0 ] && [ -n "$skip_status" ]; then
    echo "determinism-matrix: SKIPPED: the builds above verified; the missing ones did not run"
    exit "$skip_status"
  fi
fi
exit $status
