#!/bin/sh
# arbiter-verify-recordings: re-simulates every replay log in a directory with
# `arbiter-replay verify` and fails if any diverges or is unreadable, or if there is none.
# Installed in the image as /usr/local/bin/arbiter-verify-recordings; the compose profile
# `verify` and scripts/test-docker.sh run it after a session.
# Usage: arbiter-verify-recordings [DIR]   (default $ARBITER_RECORD, else /var/lib/arbiter/recordings)
# Exit: 0 all verified, 1 a log failed or none found, 2 bad usage.
set -u
case "${1:-}" in
  -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -le 1 ] || { echo "arbiter-verify-recordings: at most one directory (try --help)" >&2; exit 2; }
dir="${1:-${ARBITER_RECORD:-/var/lib/arbiter/recordings}}"
[ -d "$dir" ] || { echo "arbiter-verify-recordings: '$dir' is not a directory" >&2; exit 2; }
command -v arbiter-replay >/dev/null 2>&1 || { echo "arbiter-verify-recordings: arbiter-replay is not in this image" >&2; exit 1; }

total=0; failed=0
for f in "$dir"/*; do
  [ -f "$f" ] || continue
  case "${f##*/}" in .*) continue ;; esac   # hidden files are partial writes, not logs
  total=$((total + 1))
  if arbiter-replay verify "$f"; then
    echo "arbiter-verify-recordings: ok   $f"
  else
    failed=$((failed + 1))
    echo "arbiter-verify-recordings: FAIL $f" >&2
  fi
done
if [ "$total" -eq 0 ]; then
  echo "arbiter-verify-recordings: no recordings in $dir" >&2
  exit 1
fi
echo "arbiter-verify-recordings: $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
