#!/usr/bin/env bash
# The web page's files on arbiter-server's HTTP port (docs/WEB.md): a server on ephemeral
# 127.0.0.1 ports with --web-root on a directory made here, asked with curl:
#   content types (html, js, css, wasm, json), HEAD, 404 for a missing file, refused paths
#   (.., percent-escapes, hidden files, a symbolic link out of the root, "//", a file over
#   the size bound), POST refused, /config.json, /healthz and /metrics still the server's;
#   the startup log names the page's URL; --web-root on a missing directory fails to start;
#   and without --web-root the build tree's bundle (<build>/share/arbiter/web) is served
#   when it exists.
#   test_web_static.sh ARBITER_SERVER
set -uo pipefail
server=$1
command -v curl >/dev/null || { echo "SKIPPED: curl is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arb-web-static.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
passes=0 fails=0
check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then passes=$((passes + 1)); else fails=$((fails + 1)); echo "FAIL: $1: expected [$2], got [$3]"; fi
}

root=$tmp/root
mkdir -p "$root/sub" "$tmp/outside"
printf '<!doctype html><title>t</title>\n' >"$root/index.html"
printf 'export const x = 1;\n' >"$root/app.js"
printf 'body{}\n' >"$root/sub/style.css"
printf '<p>sub</p>\n' >"$root/sub/index.html"
printf '\0asm\1\0\0\0' >"$root/module.wasm"
printf '{"a":1}\n' >"$root/data.json"
printf 'secret\n' >"$root/.hidden"
printf 'outside\n' >"$tmp/outside/secret.txt"
ln -s "$tmp/outside/secret.txt" "$root/link.txt"
ln -s "$tmp/outside" "$root/linkdir"
head -c $((4 * 1024 * 1024 + 1)) /dev/zero >"$root/big.bin"
head -c $((4 * 1024 * 1024)) /dev/zero >"$root/max.bin"

# start_server LOG ARGS...: sets port (HTTP) from the server_started line.
start_server() {
  local log=$1
  shift
  : >"$log"
  "$server" --port 0 --http-port -1 --http-bind 127.0.0.1 "$@" >>"$log" 2>&1 &
  pids+=($!)
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/.*server_started.* http_port=\([0-9]*\).*/\1/p' "$log")
    [ -n "$port" ] && return 0
    sleep 0.05
  done
  echo "FAIL: the server did not start:"; cat "$log"; exit 1
}
start_server "$tmp/a.log" --web-root "$root"
url=http://127.0.0.1:$port

status() { curl -s -o /dev/null -w '%{http_code}' --path-as-is "$@"; }
ctype() { curl -s -o /dev/null -w '%{content_type}' --path-as-is "$@"; }

check "GET /" 200 "$(status "$url/")"
check "GET / content" "$(cat "$root/index.html")" "$(curl -s "$url/")"
check "type html" "text/html; charset=utf-8" "$(ctype "$url/index.html")"
check "type js" "text/javascript; charset=utf-8" "$(ctype "$url/app.js")"
check "type css" "text/css; charset=utf-8" "$(ctype "$url/sub/style.css")"
check "type wasm" "application/wasm" "$(ctype "$url/module.wasm")"
check "type json" "application/json" "$(ctype "$url/data.json")"
check "wasm bytes" "$(od -An -tx1 "$root/module.wasm")" "$(curl -s "$url/module.wasm" | od -An -tx1)"
check "directory index" "$(cat "$root/sub/index.html")" "$(curl -s "$url/sub/")"
check "nosniff" 1 "$(curl -s -D - -o /dev/null "$url/app.js" | grep -ci '^X-Content-Type-Options: nosniff')"
check "HEAD status" 200 "$(status -I "$url/app.js")"
check "HEAD length" "$(stat -c %s "$root/app.js")" "$(curl -s -I "$url/app.js" | tr -d '\r' | sed -n 's/^Content-Length: //p')"
check "HEAD no body" 0 "$(curl -s -I "$url/app.js" | tr -d '\r' | sed '1,/^$/d' | wc -c)"
check "missing" 404 "$(status "$url/nope.js")"
check "missing dir" 404 "$(status "$url/nodir/x.js")"
check "dotdot" 404 "$(status "$url/../outside/secret.txt")"
check "dotdot inside" 404 "$(status "$url/sub/../app.js")"
check "dotdot etc" 404 "$(status "$url/../../../../etc/passwd")"
check "percent-escaped dotdot" 404 "$(status "$url/%2e%2e/outside/secret.txt")"
check "percent" 404 "$(status "$url/app%2ejs")"
check "hidden file" 404 "$(status "$url/.hidden")"
check "symlink out of the root" 404 "$(status "$url/link.txt")"
check "symlinked dir out of the root" 404 "$(status "$url/linkdir/secret.txt")"
check "double slash" 404 "$(status "$url//etc/passwd")"
check "backslash" 404 "$(status "$url/..%5c..%5cetc%5cpasswd")"
check "over the size bound" 404 "$(status "$url/big.bin")"
check "at the size bound" 200 "$(status "$url/max.bin")"
check "at the size bound, bytes" $((4 * 1024 * 1024)) "$(curl -s "$url/max.bin" | wc -c)"
check "POST a file" 405 "$(status -X POST "$url/app.js")"
check "PUT" 405 "$(status -X PUT "$url/app.js")"
check "config.json" '{"wsPort":0,"wsPath":"/"}' "$(curl -s "$url/config.json")"
check "config.json type" "application/json" "$(ctype "$url/config.json")"
check "healthz" 200 "$(status "$url/healthz")"
check "metrics" 200 "$(status "$url/metrics")"
check "admin is the server's" 404 "$(status "$url/admin/sessions")"
check "the page in the log" 1 "$(grep -c "web_page url=\"\?http://127.0.0.1:$port/" "$tmp/a.log")"

# A missing --web-root is a configuration error, said at start.
"$server" --port 0 --http-port -1 --web-root "$tmp/nonexistent" >"$tmp/b.log" 2>&1
rc=$?
check "missing --web-root fails" 1 "$([ $rc -ne 0 ] && echo 1 || echo 0)"
check "missing --web-root says why" 1 "$(grep -c 'web-root.*is not a directory' "$tmp/b.log")"

"$server" --port 0 --http-port -1 --web-root / >"$tmp/d.log" 2>&1
rc=$?
check "--web-root / fails" 1 "$([ $rc -ne 0 ] && echo 1 || echo 0)"
check "--web-root / says why" 1 "$(grep -c 'web-root.*whole file system' "$tmp/d.log")"

# The default: the bundle next to the executable (<build>/bin/../share/arbiter/web).
bundle=$(dirname "$server")/../share/arbiter/web
if [ -f "$bundle/index.html" ]; then
  start_server "$tmp/c.log"
  check "default root: index" 200 "$(status "http://127.0.0.1:$port/")"
  check "default root: renderer" 200 "$(status "http://127.0.0.1:$port/render.js")"
  if [ -f "$bundle/dist/arbiter_web.wasm" ]; then
    check "default root: wasm type" "application/wasm" "$(ctype "http://127.0.0.1:$port/dist/arbiter_web.wasm")"
  fi
else
  echo "note: no bundle at $bundle (the default web root is not checked)"
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
