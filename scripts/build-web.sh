#!/usr/bin/env bash
# Assembles the web page's static bundle (docs/WEB.md) in OUT_DIR, laid out like the npm
# package so the relative URLs work anywhere it is served:
#   OUT_DIR/index.html app.js render.js page.css   the page (client/web/page/)
#   OUT_DIR/lib/arbiter.js replay.js ...            the JavaScript library (client/web/lib/)
#   OUT_DIR/dist/arbiter_web.js arbiter_web.wasm     the WebAssembly module: the client
#                                                    library and the replay player
# The module is built by the native build's target arbiter_web (emscripten, the
# determinism matrix's wasm32 flags) into client/web/dist/.
#
#   scripts/build-web.sh OUT_DIR [--allow-missing]
#
# Exit status: 0, or 77 when the module has not been built (emcc missing: scripts/
# install-deps.sh --matrix); with --allow-missing that is only reported (the pages are
# copied either way).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-web.sh OUT_DIR [--allow-missing]}
allow_missing=0
[ "${2:-}" = --allow-missing ] && allow_missing=1
web=$root/client/web

mkdir -p "$out/lib" "$out/dist"
# Only what changed is copied (the server may be serving the directory).
sync_file() { cmp -s "$1" "$2" || cp "$1" "$2"; }
for f in "$web"/page/*; do sync_file "$f" "$out/$(basename "$f")"; done
for f in "$web"/lib/*.js "$web"/lib/*.d.ts; do [ -e "$f" ] && sync_file "$f" "$out/lib/$(basename "$f")"; done
missing=
for f in arbiter_web.js arbiter_web.wasm package.json; do
  if [ -f "$web/dist/$f" ]; then sync_file "$web/dist/$f" "$out/dist/$f"; else missing+="$f "; fi
done
if [ -n "$missing" ]; then
  echo "build-web: the WebAssembly module is not built (client/web/dist: ${missing% }): the page can neither play nor replay; emcc: scripts/install-deps.sh --matrix" >&2
  [ $allow_missing -eq 1 ] && exit 0
  exit 77
fi
