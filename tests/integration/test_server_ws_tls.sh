#!/usr/bin/env bash
# test_server_ws_tls: the nginx block of docs/SERVER.md ("TLS (wss://) with a reverse
# proxy"), as written there but for its ports and certificate, in front of arbiter-server
# with a self-signed certificate; a session over wss:// through it with Node's ws
# (ws_tls_client.js). Without nginx, openssl, node or the ws package the test reports
# SKIPPED (exit 77, ctest's SKIP_RETURN_CODE) unless ARBITER_REQUIRE_MATRIX=1.
#   test_server_ws_tls.sh ARBITER-SERVER NODE_MODULES_DIR SERVER_MD
set -uo pipefail
server=${1:?usage: test_server_ws_tls.sh ARBITER-SERVER NODE_MODULES_DIR SERVER_MD}
modules=${2:?}
doc=${3:?}
missing() {
  if [ "${ARBITER_REQUIRE_MATRIX:-0}" = 1 ]; then
    echo "test_server_ws_tls: FAILED: $1 (ARBITER_REQUIRE_MATRIX=1)"
    exit 1
  fi
  echo "test_server_ws_tls: SKIPPED: $1"
  exit 77
}
nginx=$(command -v nginx || ls /usr/sbin/nginx 2> /dev/null) || missing "nginx is not installed"
command -v openssl > /dev/null || missing "openssl is not installed"
command -v node > /dev/null || missing "node is not installed"
[ -f "$modules/ws/package.json" ] || missing "no ws package in $modules (cd client/web && npm ci)"

work=$(mktemp -d /tmp/arbiter-ws-tls.XXXXXX)
server_pid= nginx_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2> /dev/null
  [ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "test_server_ws_tls: FAILED: $1"
  for f in "$work"/*.log; do echo "--- $f"; tail -20 "$f"; done
  exit 1
}

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2> "$work/openssl.log" || fail "openssl req"

"$server" --port 0 --http-port 0 --ws-port -1 --ws-bind 127.0.0.1 --log-format json \
  2> "$work/server.log" &
server_pid=$!
ws_port=
for _ in $(seq 100); do
  ws_port=$(grep -o '"ws_port":[0-9]*' "$work/server.log" | head -1 | cut -d: -f2)
  [ -n "$ws_port" ] && break
  sleep 0.1
done
[ -n "$ws_port" ] || fail "the server did not start"

# A free port for nginx (the kernel's choice, released just before nginx binds it).
tls_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')

# The block exactly as documented, with this test's ports and certificate.
block=$(awk '/^```nginx$/ {on = 1; next} on && /^```$/ {exit} on' "$doc")
[ -n "$block" ] || fail "no nginx block in $doc"
block=${block//listen 443 ssl;/listen 127.0.0.1:$tls_port ssl;}
block=${block//\/etc\/ssl\/arbiter\/fullchain.pem/$work/cert.pem}
block=${block//\/etc\/ssl\/arbiter\/privkey.pem/$work/key.pem}
block=${block//127.0.0.1:7780/127.0.0.1:$ws_port}
cat > "$work/nginx.conf" << CONF
pid $work/nginx.pid;
error_log $work/nginx.log;
events {}
http {
    access_log off;
    client_body_temp_path $work;
    proxy_temp_path $work;
$block
}
CONF
"$nginx" -p "$work" -c "$work/nginx.conf" -g 'daemon off;' 2>> "$work/nginx.log" &
nginx_pid=$!
for _ in $(seq 50); do
  node -e "require('net').connect($tls_port,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" && break
  sleep 0.1
done
node "$(dirname "$0")/ws_tls_client.js" "$modules" "wss://127.0.0.1:$tls_port/" > "$work/client.log" 2>&1
rc=$?
cat "$work/client.log"
[ $rc = 0 ] || fail "the session over wss:// failed"
echo "test_server_ws_tls: passed (nginx $("$nginx" -v 2>&1 | cut -d/ -f2), wss://127.0.0.1:$tls_port -> ws://127.0.0.1:$ws_port)"
