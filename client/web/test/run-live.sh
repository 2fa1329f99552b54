#!/usr/bin/env bash
# ctest's web_client_live and web_client_migrate: test/live.test.js (or the test named
# by --test NAME: test/NAME.test.js), or exit 77 (ctest's SKIP_RETURN_CODE) when node, emcc
# or the built module (dist/) is missing — a failure instead when ARBITER_REQUIRE_MATRIX=1
# (.ci/run), where the toolchain must be there.
#   run-live.sh [--test NAME] ARBITER-SERVER ARBITER-BOT [...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
test=live
if [ "${1:-}" = --test ]; then test=$2; shift 2; fi
missing=
command -v node >/dev/null || missing+="node "
command -v emcc >/dev/null || missing+="emcc "
[ -f "$here/dist/arbiter_web.wasm" ] && [ -f "$here/dist/arbiter_web.js" ] || missing+="client/web/dist (the arbiter_web target) "
[ -d "$here/node_modules/ws" ] || missing+="client/web/node_modules (npm ci) "
if [ -n "$missing" ]; then
  echo "web_client_$test: missing: $missing"
  if [ "${ARBITER_REQUIRE_MATRIX:-0}" = 1 ]; then exit 1; fi
  echo "web_client_$test: SKIPPED"
  exit 77
fi
exec node "$here/test/$test.test.js" "$@"
