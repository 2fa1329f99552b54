#!/usr/bin/env bash
# Builds the web page's static bundle (docs/WEB.md): the WebAssembly replay player
# compiled by Debian's emscripten with the determinism matrix's wasm32 flags, the pages
# (client/web/page/) and the JavaScript library (client/web/lib/), copied into one
# directory any web host can serve, and which arbiter-server serves on its HTTP port.
#
#   scripts/build-web.sh OUT_DIR [WASM_BUILD_DIR]
#
# WASM_BUILD_DIR (default OUT_DIR.wasm) holds the emscripten CMake tree and is reused, so
# a second run only rebuilds what changed. Without emcc or node the bundle is not built:
# the script says so and exits 77 (OUT_DIR then holds the pages only).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-web.sh OUT_DIR [WASM_BUILD_DIR]}
wasm_dir=${2:-$out.wasm}
wasm_prefix=/opt/arbiter/wasm32
emscripten_cmake=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake
# Debian's emscripten finds its node modules (acorn) there; a nodejs from elsewhere does not.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

mkdir -p "$out"
# The pages and the library first: they need no compiler.
for f in "$root"/client/web/page/*; do [ -e "$f" ] && cp -u "$f" "$out"/; done
for f in "$root"/client/web/lib/*.js; do [ -e "$f" ] && cp -u "$f" "$out"/; done

missing=
command -v emcc >/dev/null || missing+="emcc "
command -v node >/dev/null || missing+="node "
[ -f "$emscripten_cmake" ] || missing+="$emscripten_cmake "
[ -f "$wasm_prefix/lib/pkgconfig/jansson.pc" ] || missing+="$wasm_prefix (scripts/build-wasm-jansson.sh) "
if [ -n "$missing" ]; then
  echo "build-web: SKIPPED the WebAssembly replay player: missing $missing(scripts/install-deps.sh --matrix)" >&2
  exit 77
fi

mkdir -p "$wasm_dir"
wasm_dir=$(cd "$wasm_dir" && pwd)
inc=$wasm_dir/headers  # msgpack-c and xxHash headers only (never all of /usr/include)
mkdir -p "$inc"
ln -sfn /usr/include/msgpack.h "$inc/msgpack.h"
ln -sfn /usr/include/msgpack "$inc/msgpack"
ln -sfn /usr/include/xxhash.h "$inc/xxhash.h"
tc=$wasm_dir/toolchain.cmake
printf '%s\n' "include($emscripten_cmake)" "list(APPEND CMAKE_FIND_ROOT_PATH $wasm_prefix)" \
  "set(ENV{PKG_CONFIG_LIBDIR} \"$wasm_prefix/lib/pkgconfig\")" >"$tc.new"
cmp -s "$tc.new" "$tc" && rm "$tc.new" || mv "$tc.new" "$tc"
if [ ! -f "$wasm_dir/build.ninja" ]; then
  cmake -S "$root" -B "$wasm_dir" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_TOOLCHAIN_FILE="$tc" \
    -DCMAKE_C_COMPILER=emcc -DCMAKE_C_FLAGS=-O2 -DARB_REPLAY_ONLY=ON -DARB_WERROR=OFF \
    -DARB_MSGPACK_INCLUDE_DIR="$inc" -DXXHASH_INCLUDE_DIRS="$inc" >/dev/null
fi
cmake --build "$wasm_dir" -j "${JOBS:-2}" --target arbiter-replay-web
cp -u "$wasm_dir"/bin/arbiter-replay-web.js "$wasm_dir"/bin/arbiter-replay-web.wasm "$out"/
