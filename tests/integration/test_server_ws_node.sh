#!/usr/bin/env bash
# test_server_ws_node: arbiter-server driven by Node's `ws` package (test_server_ws_node.js).
# Without node or the package (client/web: npm ci) the test reports SKIPPED (exit 77,
# ctest's SKIP_RETURN_CODE) unless ARBITER_REQUIRE_MATRIX=1, which makes it a failure.
#   test_server_ws_node.sh ARBITER-SERVER NODE_MODULES_DIR
set -uo pipefail
server=${1:?usage: test_server_ws_node.sh ARBITER-SERVER NODE_MODULES_DIR}
modules=${2:?usage: test_server_ws_node.sh ARBITER-SERVER NODE_MODULES_DIR}
missing() {
  if [ "${ARBITER_REQUIRE_MATRIX:-0}" = 1 ]; then
    echo "test_server_ws_node: FAILED: $1 (ARBITER_REQUIRE_MATRIX=1)"
    exit 1
  fi
  echo "test_server_ws_node: SKIPPED: $1"
  exit 77
}
command -v node > /dev/null || missing "node is not installed"
[ -f "$modules/ws/package.json" ] || missing "no ws package in $modules (cd client/web && npm ci)"
exec node "$(dirname "$0")/test_server_ws_node.js" "$server" "$modules"
