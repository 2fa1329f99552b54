#!/usr/bin/env bash
# Runs every libFuzzer target (bin/fuzz-*) for SECONDS each, seeded from tests/fuzz/corpus/<name>.
# Usage: scripts/fuzz.sh BIN_DIR SECONDS
# New findings are written to build/fuzz/findings/<name>/; a crash fails the run.
set -euo pipefail
bin=${1:?usage: fuzz.sh BIN_DIR SECONDS}
secs=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
targets=("$bin"/fuzz-*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets in $bin"
  exit 0
fi
status=0
for t in "${targets[@]}"; do
  name=$(basename "$t")
  seeds="$root/tests/fuzz/corpus/${name#fuzz-}"
  work="$root/build/fuzz/findings/$name"
  mkdir -p "$work/corpus"
  args=("$work/corpus")
  [ -d "$seeds" ] && args+=("$seeds")
  echo "fuzz.sh: $name for ${secs}s"
  if ! "$t" -max_total_time="$secs" -artifact_prefix="$work/" -print_final_stats=1 \
        "${args[@]}" > "$work/log.txt" 2>&1; then
    echo "fuzz.sh: $name FAILED; last lines of $work/log.txt:"
    tail -40 "$work/log.txt"
    status=1
  else
    grep -E 'stat::number_of_executed_units' "$work/log.txt" | sed "s/^/  $name /" || true
  fi
done
exit $status
