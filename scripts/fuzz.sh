#!/usr/bin/env bash
# Runs every libFuzzer target (bin/fuzz-*) for SECONDS each, seeded from tests/fuzz/corpus/<name>,
# JOBS targets at a time (default: the number of CPUs).
# Usage: scripts/fuzz.sh BIN_DIR SECONDS [JOBS]
# New findings are written to build/fuzz/findings/<name>/; a crash fails the run.
set -euo pipefail
bin=${1:?usage: fuzz.sh BIN_DIR SECONDS [JOBS]}
secs=${2:-10}
jobs=${3:-$(nproc 2>/dev/null || echo 2)}
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
targets=("$bin"/fuzz-*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets in $bin"
  exit 0
fi

# One target; its exit status goes to $work/status so the summary below can read it.
run_one() {
  local t=$1 name seeds work args
  name=$(basename "$t")
  seeds="$root/tests/fuzz/corpus/${name#fuzz-}"
  work="$root/build/fuzz/findings/$name"
  mkdir -p "$work/corpus"
  rm -f "$work/status"
  args=("$work/corpus")
  [ -d "$seeds" ] && args+=("$seeds")
  local rc=0
  "$t" -max_total_time="$secs" -artifact_prefix="$work/" -print_final_stats=1 \
    "${args[@]}" > "$work/log.txt" 2>&1 || rc=$?
  echo "$rc" > "$work/status"
}

echo "fuzz.sh: ${#targets[@]} targets for ${secs}s each, $jobs at a time"
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

status=0
for t in "${targets[@]}"; do
  name=$(basename "$t")
  work="$root/build/fuzz/findings/$name"
  rc=$(cat "$work/status" 2>/dev/null || echo missing)
  if [ "$rc" != 0 ]; then
    echo "fuzz.sh: $name FAILED (exit $rc); last lines of $work/log.txt:"
    tail -40 "$work/log.txt"
    status=1
  else
    grep -E 'stat::number_of_executed_units' "$work/log.txt" | sed "s/^/  $name /" || true
  fi
done
exit $status
