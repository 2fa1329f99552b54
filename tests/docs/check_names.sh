#!/usr/bin/env bash
# Keeps a document true to the code: every file path it names in backticks exists, and
# every C name it gives in backticks (arb_*, arb__*, ARB_*, sv_*, cl_*, view_* and the
# like) is defined or used somewhere in the sources. A renamed function or a moved file
# then fails this test until the document follows.
#   check_names.sh ROOT DOC...
# Exit status: 0 all found, 1 something named is missing (listed), 2 usage.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: check_names.sh ROOT DOC..." >&2; exit 2; }
root=$1
shift
cd "$root" || exit 2
dirs=(shared protocol game server client tools bench tests scripts docker cmake)
missing=0
checked=0
for doc in "$@"; do
  [ -f "$doc" ] || { echo "check_names: $doc: no such document" >&2; exit 2; }
  # Backticked spans, one per line (inline code only: fenced blocks are skipped).
  spans=$(awk '/^```/ {fence = !fence; next} !fence' "$doc" | grep -o '`[^`]*`' | tr -d '`' | sort -u)
  while IFS= read -r span; do
    [ -n "$span" ] || continue
    # A path: a word with a slash and a file ending, or a known top-level folder.
    if [[ $span =~ ^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.*-]+)+/?$ ]] && [[ $span != */*/*/*/*/* ]]; then
      top=${span%%/*}
      case " ${dirs[*]} docs .ci Makefile CMakeLists.txt " in *" $top "*) ;; *) continue ;; esac
      checked=$((checked + 1))
      # A glob (tests/fuzz/*.c) must match something; a plain path must exist.
      if ! compgen -G "$span" >/dev/null; then
        echo "$doc: names \`$span\`, which does not exist"
        missing=$((missing + 1))
      fi
      continue
    fi
    # A C name, optionally called: arb_world_step, arb__solve(), sv_session_check_timeouts(...)
    name=${span%%(*}
    if [[ $name =~ ^(arb|ARB|sv|cl|view|bench|fuzz)_[A-Za-z0-9_]*[A-Za-z0-9]$ ]] && [[ $name == *_*[a-z]* || $name == ARB_* ]]; then
      checked=$((checked + 1))
      if ! grep -rqw --include='*.c' --include='*.h' --include='*.def' --include='*.inc' --include='*.cpp' \
        --include='*.cmake' --include='CMakeLists.txt' -e "$name" "${dirs[@]}" 2>/dev/null; then
        echo "$doc: names \`$name\`, which no source file defines or uses"
        missing=$((missing + 1))
      fi
    fi
  done <<<"$spans"
done
echo "check_names: $checked names checked, $missing missing"
[ $missing -eq 0 ]
