#!/usr/bin/env bash
# Installs the Debian packages arbiter builds and tests with. Does nothing when all are
# present. Uses sudo when not run as root.
# Usage: scripts/install-deps.sh [--matrix|--docker|--runtime|--build]
#   (no flag)  build + test dependencies of the host build (what `make run` needs)
#   --matrix   also the determinism matrix's other platforms (what `make test` needs;
#              docs/DETERMINISM.md, "Other architectures"): adds the arm64 and i386 dpkg
#              architectures, the aarch64 and i686 cross gcc, qemu-user-static, jansson for
#              arm64 and i386, Debian's emscripten (with clang/lld/llvm 14, binaryen and
#              nodejs), and jansson built with emcc from Debian's source package into
#              /opt/arbiter/wasm32 (this adds a deb-src entry for Debian's main archive)
#   --docker   also what `make test-docker` needs (podman, debootstrap, iproute2)
#   --runtime  only the shared libraries the binaries link (used by docker/Dockerfile)
#   --build    only what a Release build of the programs needs (docker/Dockerfile build stage)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

core_pkgs=(
  build-essential cmake ninja-build pkg-config git
  libuv1-dev libenet-dev libmsgpack-dev libjansson-dev libxxhash-dev libsodium-dev
  libwslay-dev nettle-dev
)
build_pkgs=("${core_pkgs[@]}"
  libcmocka-dev clang libclang-rt-14-dev clang-format
  libsdl2-dev zlib1g-dev
  python3 python3-yaml  # lifecycle/Agones test drivers, the docker/k8s manifest check
)
bench_pkgs=(libchipmunk-dev libbox2d-dev)
# The verifier's only library dependency is jansson; msgpack-c and xxHash are used
# header-only and their headers are the same files for every architecture (Multi-Arch: same).
matrix_pkgs=(
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static libjansson-dev:arm64
  gcc-i686-linux-gnu libc6-dev-i386-cross libjansson-dev:i386
  emscripten nodejs dpkg-dev xz-utils
  chromium  # the web client's browser tests (npm: see below)
  nginx-light openssl  # test_server_ws_tls: wss:// through the reverse proxy docs/SERVER.md gives
)
docker_pkgs=(podman debootstrap iproute2 uidmap fuse-overlayfs curl python3-yaml)
# What the programs link (ldd, checked by make test-docker); msgpack-c's packer and xxHash
# are used header-only (static inline), so libmsgpackc2 and libxxhash0 are not needed.
runtime_pkgs=(libuv1 libenet7 libjansson4 libsodium23 libwslay1 libnettle8)

want=("${build_pkgs[@]}" "${bench_pkgs[@]}")
matrix=0
case "${1:-}" in
  --matrix) want+=("${matrix_pkgs[@]}"); matrix=1 ;;
  --docker) want+=("${docker_pkgs[@]}") ;;
  --runtime) want=("${runtime_pkgs[@]}") ;;
  --build) want=("${core_pkgs[@]}") ;;
  "") ;;
  -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
  *) echo "install-deps.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# NodeSource's nodejs ships npm inside and conflicts with Debian's npm package: ask for that
# only when no npm is on the PATH.
if [ $matrix -eq 1 ] && ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi
wasm_jansson=/opt/arbiter/wasm32/lib/libjansson.a
need_wasm_jansson=0
[ $matrix -eq 1 ] && [ ! -f "$wasm_jansson" ] && need_wasm_jansson=1
# The web client's npm packages (client/web/package-lock.json), from the npm registry only:
# playwright-core drives Debian's chromium and downloads no browser.
npm_ci() {
  local web="$here/../client/web"
  [ $matrix -eq 1 ] || return 0
  [ -f "$web/node_modules/.package-lock.json" ] && [ "$web/node_modules/.package-lock.json" -nt "$web/package-lock.json" ] && return 0
  command -v npm >/dev/null 2>&1 || { echo "install-deps.sh: npm is missing" >&2; return 1; }
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
}
if [ ${#missing[@]} -eq 0 ] && [ $need_wasm_jansson -eq 0 ]; then npm_ci; exit 0; fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps.sh: missing packages (${missing[*]}) and no apt-get on this machine;" \
       "install them by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if [ $matrix -eq 1 ]; then
  for arch in arm64 i386; do
    dpkg --print-foreign-architectures | grep -qx $arch || $sudo dpkg --add-architecture $arch
  done
  # apt-get source needs a deb-src line; Debian's main archive, the suite this machine runs.
  src_list=/etc/apt/sources.list.d/arbiter-deb-src.list
  if [ ! -f $src_list ] && ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d; then
    suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
    echo "deb-src http://deb.debian.org/debian $suite main" | $sudo tee $src_list >/dev/null
  fi
fi
if [ ${#missing[@]} -gt 0 ] || [ $need_wasm_jansson -eq 1 ]; then
  # A mirror caught mid-sync fails single index files; the install below still fails
  # clearly if a package it needs is then unknown.
  $sudo apt-get update -qq || echo "install-deps.sh: apt-get update reported errors (above);" \
    "installing with the package lists it has" >&2
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps.sh: installing ${missing[*]}" >&2
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ $need_wasm_jansson -eq 1 ]; then
  $sudo "$here/build-wasm-jansson.sh" /opt/arbiter/wasm32
fi
npm_ci
