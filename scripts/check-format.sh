#!/usr/bin/env bash
# Every C source and header the repository tracks is as .clang-format lays it out: the
# tree was formatted once, so any line a change adds that clang-format would lay out
# differently fails here (with the file and line). `.ci/run` runs it; to fix a change:
#   git clang-format        (the changed lines only)   or   clang-format -i FILE...
# Needs clang-format (Debian: clang-format; version 14 is what formatted the tree).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || {
  echo "check-format: clang-format is not installed (Debian: apt-get install clang-format)" >&2
  exit 2
}
files=$(git ls-files '*.c' '*.h' '*.cpp' '*.inc')
if ! out=$(clang-format --dry-run --Werror $files 2>&1); then
  echo "$out" | grep -E '^[^ ].*: (error|warning):' | head -40
  echo "check-format: the lines above are not clang-formatted (git clang-format fixes a change)" >&2
  exit 1
fi
echo "check-format: $(echo "$files" | wc -l) files clang-formatted"
