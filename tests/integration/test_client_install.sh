#!/bin/sh
# The installed client library works for a game outside this tree: install the "client"
# component into a temporary prefix, compile a small program with only
# `pkg-config --cflags --libs arbiter-client`, run it (creates a client, checks the
# defaults and the quantization of controls, destroys it; no network needed).
# usage: test_client_install.sh BUILD_DIR [CFLAGS]   (CFLAGS: the build's own flags)
set -eu
BUILD=$1
FLAGS=${2:-}
TMP=$(mktemp -d /tmp/arbiter-client-install.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --component client --prefix "$TMP/prefix" >/dev/null
PC=$(find "$TMP/prefix" -name arbiter-client.pc)
[ -n "$PC" ] || { echo "arbiter-client.pc not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$PC")
cat > "$TMP/game.c" <<'C'
#include <arbiter/client.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  arb_client_config cfg = arb_client_default_config();
  cfg.name = "installed";
  arb_client* c = NULL;
  int rc = arb_client_create(&cfg, &c);
  if (rc != 0) { printf("create: %s\n", arb_strerror(rc)); return 1; }
  arb_controls in;
  memset(&in, 0, sizeof in);
  in.move_x = 0.5f;
  if (arb_client_set_controls(c, &in) != 0) return 1;
  float q = arb_client_get_controls(c).move_x;   /* 64/127: what the server applies */
  if (!(q > 0.49f && q < 0.51f) || q == 0.5f) { printf("quantized move_x %f\n", q); return 1; }
  if (arb_client_get_state(c) != ARB_CLIENT_DISCONNECTED) return 1;
  arb_client_destroy(c);
  printf("ok %f\n", q);
  return 0;
}
C
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror $FLAGS "$TMP/game.c" $(pkg-config --cflags --libs arbiter-client) -o "$TMP/game"
"$TMP/game"
