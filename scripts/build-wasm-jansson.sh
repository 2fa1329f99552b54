#!/usr/bin/env bash
# Builds jansson for wasm32 with Debian's emscripten from Debian's own source package
# (apt-get source jansson: the same version and patches as libjansson-dev), and installs
# the static library, its headers and jansson.pc under PREFIX. Debian has no wasm32
# architecture, so this is how the determinism matrix's wasm32 build of arbiter-replay
# gets the scene parser's one library (docs/DETERMINISM.md, "Other architectures").
# Called by scripts/install-deps.sh --matrix; needs a deb-src line, dpkg-dev and emscripten.
#
#   scripts/build-wasm-jansson.sh PREFIX        (for example /opt/arbiter/wasm32)
set -euo pipefail
case "${1:-}" in
  ""|-h|--help) sed -n '2,9p' "$0"; [ -n "${1:-}" ]; exit $? ;;
esac
prefix=$1
for tool in apt-get dpkg-source emcmake emmake; do
  command -v $tool >/dev/null || { echo "build-wasm-jansson: $tool is not installed" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/arb-wasm-jansson.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source -qq jansson >/dev/null 2>"$work/source.log" || { cat "$work/source.log" >&2; exit 1; }
src=$(find "$work" -maxdepth 1 -type d -name 'jansson-*' | head -1)
[ -n "$src" ] || { echo "build-wasm-jansson: apt-get source jansson gave no source tree" >&2; exit 1; }
# Static library only: no tests, examples or docs.
emcmake cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DJANSSON_BUILD_SHARED_LIBS=OFF -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON \
  -DJANSSON_BUILD_DOCS=OFF >"$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
cmake --install "$work/build" >/dev/null
echo "build-wasm-jansson: $(basename "$src") for wasm32 installed in $prefix" >&2
