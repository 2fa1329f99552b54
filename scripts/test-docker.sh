#!/usr/bin/env bash
# make test-docker: builds the real docker/Dockerfile and runs the image the way a container
# runtime would, on machines with no Docker engine and no registry.
#
#  1. packages (scripts/install-deps.sh --docker); base image: localhost/debian:bookworm-slim
#     made with debootstrap and cached as a tarball in $ARBITER_DOCKER_CACHE
#  2. podman build --isolation=chroot --format docker of docker/Dockerfile (layer-cached)
#  3. the image: config (non-root user, entrypoint, ports, volume, healthcheck), no compiler,
#     every program's shared libraries resolve; docker/compose.yaml lint against it
#  4. `podman create` + `podman mount` give the container's writable root; the entrypoint
#     runs in its own network + pid + mount namespaces (chroot, the image's uid, env,
#     /proc, /dev, the recordings volume bind-mounted from a host directory), reachable from
#     the host over a veth pair (10.213.0.1 host, 10.213.0.2 container, /30)
#  5. the server gets compose's `server` environment; compose's `bots` command (the image's
#     arbiter-bot, 8 clients, 10 s, `--host server` = 10.213.0.2 via /etc/hosts) runs from
#     the host; /healthz and /metrics over the veth; the HEALTHCHECK inside the container
#  6. SIGTERM -> exit 0; compose's `verify` command re-simulates the recording in the
#     volume with the image's arbiter-replay
# Cleanup (processes, namespace, veth, mounts, container) always runs. Needs root.
#
# Environment: ARBITER_DOCKER_CACHE (default /var/cache/arbiter-docker), ARBITER_DOCKER_BASE
# (default localhost/debian:bookworm-slim; a registry image is pulled instead),
# ARBITER_DOCKER_IMAGE (default localhost/arbiter:test), ARBITER_DOCKER_FROM=worktree|HEAD
# (build context: the work tree as it is, default, or a clean clone of HEAD), JOBS (2),
# ARBITER_DOCKER_BUILD_ARGS (extra `podman build` arguments, e.g. --no-cache).
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$PWD
CACHE=${ARBITER_DOCKER_CACHE:-/var/cache/arbiter-docker}
BASE=${ARBITER_DOCKER_BASE:-localhost/debian:bookworm-slim}
IMAGE=${ARBITER_DOCKER_IMAGE:-localhost/arbiter:test}
FROM=${ARBITER_DOCKER_FROM:-worktree}
JOBS=${JOBS:-2}
extra_args=${ARBITER_DOCKER_BUILD_ARGS:-}
BOT_CLIENTS=8
BOT_SECONDS=10
HOST_IP=10.213.0.1
CT_IP=10.213.0.2
NS=arbiter-dt-$$
VETH_HOST=arbdt$$h
VETH_CT=arbdt$$c

passed=0
failed=0
t0=$SECONDS
step() { printf '\n== [%3ds] %s\n' $((SECONDS - t0)) "$*"; }
pass() { passed=$((passed + 1)); printf 'PASS  %s\n' "$*"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s\n' "$*"; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
quiet() { "$@" >/dev/null 2>&1; }
die() { printf 'test-docker: %s\n' "$*" >&2; exit 1; }

case "${1:-}" in
  -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) die "no arguments expected (try --help)" ;;
esac
[ "$(id -u)" -eq 0 ] || die "needs root (podman storage, network namespace, chroot)"
case $FROM in worktree|HEAD) ;; *) die "ARBITER_DOCKER_FROM must be worktree or HEAD" ;; esac

# --- cleanup: everything this run starts or creates, by id ------------------------------
tmp=""
ctr=""
server_launcher=""
server_pid=""
kill_tree() {  # children first, so none is re-parented out of reach
  local p
  for p in $(pgrep -P "$1" || true); do kill_tree "$p"; done
  kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
  set +e
  trap '' INT TERM   # a second signal must not cut the cleanup short
  [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null
  [ -n "$server_launcher" ] && { kill_tree "$server_launcher"; wait "$server_launcher" 2>/dev/null; }
  ip link del "$VETH_HOST" 2>/dev/null
  ip netns del "$NS" 2>/dev/null
  if [ -n "$ctr" ]; then
    podman umount "$ctr" >/dev/null 2>&1
    podman rm -f -v "$ctr" >/dev/null 2>&1
  fi
  [ -n "$tmp" ] && rm -rf "$tmp"
  rm -rf "$CACHE/rootfs.$$" "$CACHE/debian-bookworm-slim.tar.tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$CACHE"
tmp=$(mktemp -d /tmp/arbiter-test-docker.XXXXXX)
echo $$ >"$tmp/pid"
# One run at a time: the veth addresses and the image tag are fixed.
exec 9>"$CACHE/test-docker.lock"
flock -w 900 9 || die "another test-docker run holds $CACHE/test-docker.lock"

# Leftovers of a run that was killed before its cleanup could run (names carry its pid).
for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^arbiter-dt-[0-9]*$' || true); do
  kill -0 "${n#arbiter-dt-}" 2>/dev/null || ip netns del "$n" 2>/dev/null || true
done
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^arbdt[0-9]*h$' || true); do
  p=${l#arbdt}; kill -0 "${p%h}" 2>/dev/null || ip link del "$l" 2>/dev/null || true
done
for d in /tmp/arbiter-test-docker.*; do  # temporary trees of dead runs (pid inside)
  [ -f "$d/pid" ] && ! kill -0 "$(cat "$d/pid")" 2>/dev/null && rm -rf "$d"
done
if command -v podman >/dev/null 2>&1; then
  podman ps -a --filter label=org.arbiter.test-docker --format '{{.ID}} {{index .Labels "org.arbiter.test-docker"}}' 2>/dev/null |
    while read -r id p; do kill -0 "$p" 2>/dev/null || { podman umount "$id"; podman rm -f -v "$id"; } >/dev/null 2>&1 || true; done
fi

# --- 1. packages and base image ---------------------------------------------------------
step "packages (scripts/install-deps.sh --docker)"
scripts/install-deps.sh --docker

# The official debian:bookworm-slim, re-made: minbase, no docs/man/locales, empty apt
# lists, dpkg told to skip docs in later installs, apt sources incl. updates and security.
bootstrap_base() {
  local tarball=$CACHE/debian-bookworm-slim.tar rootfs=$CACHE/rootfs.$$
  if [ ! -s "$tarball" ]; then
    step "bootstrapping the base with debootstrap (cached in $tarball)"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian \
      >"$CACHE/debootstrap.log" 2>&1 || { tail -20 "$CACHE/debootstrap.log"; rm -rf "$rootfs"; die "debootstrap failed"; }
    mkdir -p "$rootfs/etc/dpkg/dpkg.cfg.d"
    printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
      'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
      'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
      'path-exclude /usr/share/lintian/*' >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim"
    rm -f "$rootfs/etc/apt/sources.list"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    rm -rf "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    find "$rootfs/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
    rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
    find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
    tar --numeric-owner -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  podman import -q --change 'CMD ["bash"]' "$tarball" "$BASE" >/dev/null
}

step "base image $BASE"
if podman image exists "$BASE"; then
  echo "present in podman storage"
elif [ "${BASE#localhost/}" != "$BASE" ]; then
  bootstrap_base
else
  podman pull "$BASE" || die "cannot pull $BASE (no registry? leave ARBITER_DOCKER_BASE unset to bootstrap one)"
fi

# --- 2. build ---------------------------------------------------------------------------
ctx=$REPO
if [ "$FROM" = HEAD ]; then
  git clone -q --no-hardlinks "$REPO" "$tmp/ctx"
  ctx=$tmp/ctx
fi
step "podman build docker/Dockerfile (context: $FROM, log: $CACHE/build.log)"
old_id=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
commit_before=$(git -C "$ctx" rev-parse --short=12 HEAD 2>/dev/null || echo none)
build_t=$SECONDS
if ! podman build --isolation=chroot --format docker --layers -f "$ctx/docker/Dockerfile" \
      --build-arg BASE="$BASE" --build-arg JOBS="$JOBS" $extra_args -t "$IMAGE" "$ctx" >"$CACHE/build.log" 2>&1; then
  tail -40 "$CACHE/build.log"
  die "podman build failed (whole log: $CACHE/build.log)"
fi
echo "built in $((SECONDS - build_t)) s"
new_id=$(podman image inspect --format '{{.Id}}' "$IMAGE")
# Keep the cache small: the previous image of this tag goes, and so do build stages of
# earlier runs; this run's build stage (the last image the log names before the runtime
# stage starts) stays tagged, so its compiler layer is reused next time.
[ -n "$old_id" ] && [ "$old_id" != "$new_id" ] && podman rmi "$old_id" >/dev/null 2>&1 || true
build_stage=$(awk '/^\[2\/2\] STEP/ {exit} /^--> [0-9a-f]+$/ {id=$2} END {print id}' "$CACHE/build.log")
[ -n "$build_stage" ] && podman tag "$build_stage" "$IMAGE-build" 2>/dev/null || true
for l in org.arbiter.stage=build org.opencontainers.image.title=arbiter; do
  podman image prune -f --filter "label=$l" >/dev/null 2>&1 || true
done
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
echo "image $IMAGE: $((size / 1000000)) MB ($size bytes)"

# --- 3. the image as built --------------------------------------------------------------
step "image config, contents and compose lint"
podman image inspect "$IMAGE" >"$tmp/inspect.json"
# cfgval EXPR: a Python expression over c (the image's Config) and h (its Healthcheck,
# which podman keeps beside Config).
cfgval() {
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; c=d["Config"]
h=c.get("Healthcheck") or d.get("Healthcheck") or {}
v=eval(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v))' "$tmp/inspect.json" "$1"
}
user=$(cfgval 'c.get("User","")')
uid=${user%%:*}
gid=${user#*:}; [ "$gid" = "$user" ] && gid=$uid
check "image USER is a numeric non-root uid ($user)" test -n "$uid" -a "$uid" != 0 -a -z "${uid//[0-9]/}"
check "ENTRYPOINT is [\"arbiter-server\"]" test "$(cfgval 'c.get("Entrypoint")')" = '["arbiter-server"]'
check "EXPOSE 7777/udp and 8080/tcp" test "$(cfgval 'sorted((c.get("ExposedPorts") or {}).keys())')" = '["7777/udp", "8080/tcp"]'
check "VOLUME /var/lib/arbiter/recordings" test "$(cfgval 'sorted((c.get("Volumes") or {}).keys())')" = '["/var/lib/arbiter/recordings"]'
healthcheck=$(cfgval 'h.get("Test") or []')
check "HEALTHCHECK is set ($healthcheck)" test "$healthcheck" != '[]'
check "STOPSIGNAL SIGTERM" test "$(cfgval 'c.get("StopSignal","")')" = SIGTERM
mapfile -t image_env < <(cfgval '"\n".join(c.get("Env") or [])')
grep -q '^PATH=' < <(printf '%s\n' "${image_env[@]}") || image_env+=("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
image_env+=("HOSTNAME=arbiter-test" "HOME=/var/lib/arbiter")
check "ENV has ARBITER_* configuration" grep -q '^ARBITER_' <(printf '%s\n' "${image_env[@]}")
workdir=$(cfgval 'c.get("WorkingDir") or "/"')
hc_cmd=$(cfgval '" ".join(h.get("Test", [])[1:])')

ctr=$(podman create --no-healthcheck --image-volume ignore --label "org.arbiter.test-docker=$$" "$IMAGE")
root=$(podman mount "$ctr")
echo "container root: $root"
check "user $uid exists in the image's /etc/passwd" grep -q "^[^:]*:[^:]*:$uid:" "$root/etc/passwd"
compilers=$(find "$root" -xdev \( -type f -o -type l \) -regextype posix-extended \
  -regex '.*/(x86_64-linux-gnu-)?(gcc|g\+\+|cc|c\+\+|c89|c99|cpp|clang|clang\+\+|tcc|cc1|cc1plus|ld|ld\.bfd|ld\.gold|as)(-[0-9.]+)?' \
  -print | sed "s#^$root##")
check "no compiler, assembler or linker in the image${compilers:+ (found: $(echo $compilers))}" test -z "$compilers"
headers=$(find "$root/usr/include" -name '*.h' 2>/dev/null | wc -l)
check "no C headers in the image ($headers found)" test "$headers" -eq 0
programs=$(cd "$root/usr/local/bin" && ls)
echo "programs: $(echo $programs)"
for p in arbiter-server arbiter-bot arbiter-replay; do
  check "$p is in the image" test -x "$root/usr/local/bin/$p"
done
scene=$(printf '%s\n' "${image_env[@]}" | sed -n 's/^ARBITER_SCENE=//p')
check "the default scene ARBITER_SCENE=${scene:-unset} is in the image" test -n "$scene" -a -f "$root$scene"
missing_libs=""
: >"$tmp/libs"
for p in $programs; do
  [ "$(head -c4 "$root/usr/local/bin/$p" | tail -c3)" = ELF ] || continue
  chroot "$root" /usr/bin/ldd "/usr/local/bin/$p" >"$tmp/ldd.$p" 2>&1 || true
  grep -q 'not found' "$tmp/ldd.$p" && missing_libs+=" $p:$(grep 'not found' "$tmp/ldd.$p" | awk '{print $1}' | tr '\n' ' ')"
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' "$tmp/ldd.$p" >>"$tmp/libs"
done
check "every program's shared libraries resolve in the image${missing_libs:+ (missing:$missing_libs)}" test -z "$missing_libs"
# Which packages those libraries come from, against install-deps.sh --runtime's list.
used_pkgs=$(sort -u "$tmp/libs" | while read -r l; do chroot "$root" dpkg -S "$(readlink -f "$root$l" | sed "s#^$root##")" 2>/dev/null || chroot "$root" dpkg -S "$l" 2>/dev/null; done \
  | cut -d: -f1 | sort -u | tr '\n' ' ')
runtime_pkgs=$(sed -n 's/^runtime_pkgs=(\(.*\))$/\1/p' "$ctx/scripts/install-deps.sh")
echo "libraries come from: $used_pkgs"
echo "install-deps.sh --runtime: $runtime_pkgs"
unused=""
for p in $runtime_pkgs; do case " $used_pkgs " in *" $p "*) ;; *) unused+=" $p" ;; esac; done
[ -n "$unused" ] && echo "note: runtime packages no program links:$unused"
for p in $programs; do
  [ "$p" = arbiter-verify-recordings ] && continue
  check "$p --help exits 0" quiet chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i "${image_env[@]}" "$p" --help
done
version=$(chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i "${image_env[@]}" arbiter-server --version 2>&1 || true)
commit=$(git -C "$ctx" rev-parse --short=12 HEAD 2>/dev/null || echo none)
# Either HEAD from before the build or now: in a shared work tree someone may commit meanwhile.
check "arbiter-server --version names the commit it was built from ($version)" \
  grep -q -e "$commit_before" -e "$commit" <<<"$version"
if [ -x "$root/usr/local/bin/arbiter-server" ]; then
  chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i "${image_env[@]}" arbiter-server --help >"$tmp/server-help" 2>&1 || true
  help_arg=(--server-help "$tmp/server-help")
  for e in "${image_env[@]}"; do
    case $e in ARBITER_*) n=${e%%=*}; check "image ENV $n is an arbiter-server setting" grep -q "$n" "$tmp/server-help" ;; esac
  done
else
  help_arg=()
fi
check "docker/compose.yaml lint (parses; names only existing images, programs, ports, paths)" \
  /usr/bin/python3 "$ctx/docker/lint-compose.py" "$ctx/docker/compose.yaml" --root "$root" --config "$tmp/inspect.json" "${help_arg[@]}"
# The lint must be able to fail: a program, a port and a volume path the image lacks.
mkdir -p "$tmp/lint"
sed -e "s#context: \.\.#context: $ctx#" -e 's#"arbiter-bot"#"arbiter-bott"#' -e 's#7777:7777/udp#7777:7778/udp#' \
    -e 's#recordings:/var/lib/arbiter/recordings:ro#recordings:/var/lib/arbiter/rec:ro#' \
    "$ctx/docker/compose.yaml" >"$tmp/lint/compose.yaml"
/usr/bin/python3 "$ctx/docker/lint-compose.py" "$tmp/lint/compose.yaml" --root "$root" --config "$tmp/inspect.json" \
  >/dev/null 2>"$tmp/lint/out" || true
check "the lint rejects a compose file with a missing program, port and volume path ($(wc -l <"$tmp/lint/out") problems)" \
  test "$(grep -c -E "arbiter-bott|7778|/var/lib/arbiter/rec'" "$tmp/lint/out")" = 3

# --- 4. run the server as a container ---------------------------------------------------
step "network namespace $NS, veth $VETH_HOST ($HOST_IP) <-> $VETH_CT ($CT_IP)"
if ip -o addr show | grep -q " ${HOST_IP%.*}\."; then die "${HOST_IP%.*}.0/30 is already in use on this host"; fi
ip netns add "$NS"
ip link add "$VETH_HOST" type veth peer name "$VETH_CT"
ip link set "$VETH_CT" netns "$NS"
ip addr add "$HOST_IP/30" dev "$VETH_HOST"
ip link set "$VETH_HOST" up
ip -n "$NS" addr add "$CT_IP/30" dev "$VETH_CT"
ip -n "$NS" link set "$VETH_CT" up
ip -n "$NS" link set lo up

vol=$tmp/recordings
mkdir -p "$vol"
chown "$(stat -c %u:%g "$root/var/lib/arbiter/recordings")" "$vol"
# What a runtime does between namespaces and exec: private mounts, a fresh /proc for the
# new pid namespace, a minimal /dev, the volume; then chroot with the image's uid.
cat >"$tmp/container-init" <<'EOF'
#!/bin/sh
set -e
root=$1 vol=$2 hosts=$3 user=$4 workdir=$5; shift 5
mount --make-rprivate /
mount -t proc proc "$root/proc"
mount -t tmpfs -o nosuid,mode=755,size=1m tmpfs "$root/dev"
for n in null zero random urandom; do : >"$root/dev/$n"; mount --bind "/dev/$n" "$root/dev/$n"; done
ln -s /proc/self/fd "$root/dev/fd"
[ -z "$vol" ] || mount --bind "$vol" "$root/var/lib/arbiter/recordings"
[ -z "$hosts" ] || mount --bind "$hosts" "$root/etc/hosts"
cd "$root$workdir"
exec chroot --userspec="$user" "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$workdir" "$@"
EOF
chmod +x "$tmp/container-init"
# Compose's service network, reduced to what the bots need: the name `server`.
printf '127.0.0.1\tlocalhost\n%s\tserver\n' "$CT_IP" >"$tmp/hosts"
# in_container NETNS|- VOLUME|- CMD...: new pid + mount namespaces on the image root, with
# the image's environment plus the compose service's (ct_env), like `docker compose run`.
ct_env=()
in_container() {
  local net=$1 v=$2; shift 2
  [ "$v" = - ] && v=""
  local run=(unshare --mount --pid --fork "$tmp/container-init" "$root" "$v" "$tmp/hosts" "$uid:$gid" "$workdir"
             /usr/bin/env -i "${image_env[@]}" "${ct_env[@]}" "$@")
  if [ "$net" = - ]; then "${run[@]}"; else ip netns exec "$net" "${run[@]}"; fi
}
compose() { /usr/bin/python3 "$ctx/docker/lint-compose.py" "$ctx/docker/compose.yaml" "$@"; }

step "start the image's entrypoint with compose's server environment (log: $CACHE/server.log)"
entry=$(cfgval '" ".join(c.get("Entrypoint") or [])')
out=$(compose --env server) || die "docker/compose.yaml: cannot read the server's environment"
mapfile -t ct_env <<<"$out"; [ -n "$out" ] || ct_env=()
echo "compose server environment: ${ct_env[*]}"
in_container "$NS" "$vol" $entry >"$CACHE/server.log" 2>&1 &
server_launcher=$!
ct_env=()
# The launcher is a subshell -> ip netns exec/unshare -> the container's pid 1.
descendant_named() {
  local p q
  for p in $(pgrep -P "$2" || true); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ] && { echo "$p"; return; }
    q=$(descendant_named "$1" "$p") && [ -n "$q" ] && { echo "$q"; return; }
  done
  return 0
}
for _ in $(seq 50); do
  server_pid=$(descendant_named arbiter-server "$server_launcher")
  [ -n "$server_pid" ] && break
  sleep 0.1
done
[ -n "$server_pid" ] || { cat "$CACHE/server.log"; die "arbiter-server did not start in the container"; }
check "the server runs as uid $uid, not root" test "$(awk '/^Uid:/{print $2}' "/proc/$server_pid/status")" = "$uid"
check "the server is pid 1 of its pid namespace (signals reach it as under docker)" \
  test "$(awk '/^NSpid:/{print $NF}' "/proc/$server_pid/status")" = 1

http_port=$(printf '%s\n' "${image_env[@]}" | sed -n 's/^ARBITER_HTTP_PORT=//p'); http_port=${http_port:-8080}
url=http://$CT_IP:$http_port
ready=0
for _ in $(seq 100); do
  if curl -fsS -m 1 -o /dev/null "$url/healthz" 2>/dev/null; then ready=1; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
check "GET $url/healthz answers 200 from the host through the veth" test $ready = 1
[ $ready = 1 ] || { tail -20 "$CACHE/server.log"; die "the server never became healthy"; }
check "the image's HEALTHCHECK ($hc_cmd) passes inside the container" \
  nsenter -t "$server_pid" -n -m -p -r -w -S "$uid" -G "$gid" /usr/bin/env -i "${image_env[@]}" $hc_cmd

# --- 5. traffic -------------------------------------------------------------------------
out=$(BOT_CLIENTS=$BOT_CLIENTS BOT_SECONDS=$BOT_SECONDS compose --argv bots) && [ -n "$out" ] ||
  die "docker/compose.yaml: cannot read the bots service's command"
mapfile -t bot_argv <<<"$out"
step "compose's bots service from the host ('server' = $CT_IP): ${bot_argv[*]}"
( sleep $((BOT_SECONDS / 2)); curl -sS -m 2 "$url/metrics" >"$tmp/metrics.during" 2>&1 ) &
metrics_job=$!
bot_rc=0
# timeout runs inside the container: it is the bot's parent there and can always kill it.
in_container - - timeout -s KILL $((BOT_SECONDS + 30)) "${bot_argv[@]}" >"$CACHE/bot.log" 2>&1 || bot_rc=$?
wait "$metrics_job" || true
tail -3 "$CACHE/bot.log"
check "arbiter-bot: $BOT_CLIENTS clients connected and received snapshots (exit $bot_rc)" test "$bot_rc" = 0
check "GET /healthz still 200 after the load" curl -fsS -m 2 -o /dev/null "$url/healthz"
curl -sS -m 2 -D "$tmp/metrics.headers" "$url/metrics" >"$tmp/metrics" || true
check "GET /metrics answers 200 with Prometheus text" grep -qi '^HTTP/1.[01] 200' "$tmp/metrics.headers"
check "/metrics lines are Prometheus exposition format" /usr/bin/python3 -c '
import re, sys
ok = True; n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    n += 1
    if not re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+0-9.eE]+|[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? ([-+]?Inf|NaN)( [0-9]+)?", line) and not re.fullmatch(r"\S+ [-+0-9.eE]+ [0-9]+", line):
        print("bad metrics line:", line); ok = False
sys.exit(0 if ok and n > 0 else 1)' "$tmp/metrics"
during_clients=$(awk '$1 == "arbiter_clients_connected" {print $2}' "$tmp/metrics.during" 2>/dev/null)
check "/metrics during the run showed $BOT_CLIENTS connected clients (${during_clients:-none})" \
  test "${during_clients%.*}" = "$BOT_CLIENTS"
ticks=$(awk '$1 == "arbiter_ticks_total" {print $2}' "$tmp/metrics")
check "/metrics counts ticks (${ticks:-none})" test "${ticks:-0}" != 0
recbytes=$(awk '$1 == "arbiter_recording_bytes_total" {print $2}' "$tmp/metrics")
check "/metrics counts recording bytes (${recbytes:-none})" test "${recbytes:-0}" != 0

# --- 6. stop and the recording ----------------------------------------------------------
step "SIGTERM to the server; the recording in the volume"
kill -TERM "$server_pid"
stop_rc=0
for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$server_pid" 2>/dev/null; then
  fail "the server did not exit within 10 s of SIGTERM (compose stop_grace_period)"
  kill -KILL "$server_pid" 2>/dev/null || true
fi
wait "$server_launcher" || stop_rc=$?
server_launcher=""
server_pid=""
check "the server exited 0 after SIGTERM (exit $stop_rc)" test "$stop_rc" = 0
ls -l "$vol"
nrec=$(find "$vol" -maxdepth 1 -type f ! -name '.*' -size +0 | wc -l)
check "a non-empty recording is in the volume directory ($nrec)" test "$nrec" -ge 1
if ip netns exec "$NS" chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i "${image_env[@]}" $hc_cmd 2>/dev/null; then
  fail "the HEALTHCHECK fails once the server is gone (it passed)"
else
  pass "the HEALTHCHECK fails once the server is gone"
fi
out=$(compose --argv verify) && [ -n "$out" ] || die "docker/compose.yaml: cannot read the verify service's command"
mapfile -t verify_argv <<<"$out"
verify_rc=0
in_container - "$vol" timeout -s KILL 300 "${verify_argv[@]}" >"$tmp/verify.out" 2>&1 || verify_rc=$?
cat "$tmp/verify.out"
check "compose's verify service (${verify_argv[*]}): the recording verifies with the image's arbiter-replay" \
  test "$verify_rc" = 0
# Live equals offline: the tick and state hash the server logged as it stopped.
live=$(/usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
  try: e=json.loads(l)
  except ValueError: continue
  if e.get("event")=="server_stopped": print(e.get("tick"), e.get("hash"))' "$CACHE/server.log")
replayed=$(sed -n 's/.*final tick \([0-9]*\) hash \([0-9a-f]*\).*/\1 \2/p' "$tmp/verify.out" | tail -1)
check "the replayed final tick and hash equal the live server's (${live:-none} / ${replayed:-none})" \
  test -n "$live" -a "$live" = "$replayed"
# Everything the session wrote went to the volume: the container layer is unchanged, so
# `docker run --read-only` works.
changes=$(podman diff "$ctr" 2>/dev/null | grep -v -E '^[ACD] /(proc|dev|sys)(/|$)' || true)
check "the server wrote nothing outside the volume (read-only root works)${changes:+: $(echo $changes)}" test -z "$changes"

step "summary"
echo "image $IMAGE: $((size / 1000000)) MB; total time $((SECONDS - t0)) s"
echo "logs: $CACHE/build.log $CACHE/server.log $CACHE/bot.log"
echo "test-docker: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
