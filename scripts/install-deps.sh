#!/usr/bin/env bash
# Installs the Debian packages arbiter builds and tests with. Does nothing when all are
# present. Uses sudo when not run as root. Usage: scripts/install-deps.sh [--docker|--runtime|--build]
#   (no flag)  build + test dependencies (what `make run` and `make test` need)
#   --docker   also what `make test-docker` needs (podman, debootstrap, iproute2)
#   --runtime  only the shared libraries the binaries link (used by docker/Dockerfile)
#   --build    only what a Release build of the programs needs (docker/Dockerfile build stage)
set -euo pipefail

core_pkgs=(
  build-essential cmake ninja-build pkg-config git
  libuv1-dev libenet-dev libmsgpack-dev libjansson-dev libxxhash-dev libsodium-dev
)
build_pkgs=("${core_pkgs[@]}"
  libcmocka-dev clang libclang-rt-14-dev
  libsdl2-dev zlib1g-dev
  python3 python3-yaml  # lifecycle/Agones test drivers, the docker/k8s manifest check
)
bench_pkgs=(libchipmunk-dev libbox2d-dev)
docker_pkgs=(podman debootstrap iproute2 uidmap fuse-overlayfs curl python3-yaml)
# What the programs link (ldd, checked by make test-docker); msgpack-c's packer and xxHash
# are used header-only (static inline), so libmsgpackc2 and libxxhash0 are not needed.
runtime_pkgs=(libuv1 libenet7 libjansson4 libsodium23)

want=("${build_pkgs[@]}" "${bench_pkgs[@]}")
case "${1:-}" in
  --docker) want+=("${docker_pkgs[@]}") ;;
  --runtime) want=("${runtime_pkgs[@]}") ;;
  --build) want=("${core_pkgs[@]}") ;;
  "") ;;
  -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
  *) echo "install-deps.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

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
echo "install-deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
