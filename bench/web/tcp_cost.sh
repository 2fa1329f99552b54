#!/bin/sh
# bench/web/tcp_cost.sh — the cost of TCP: the same scene through the same impaired link,
# WebSocket against ENet.
#
# The link: two network namespaces joined by a veth pair (server in one, clients in the
# other), LOSS % of packets dropped each way at the IP level (iptables statistic match, so
# TCP really retransmits; GSO off so a drop is one MTU packet), and DELAY ± JITTER ms each
# way added in user space (this kernel has no netem): for ENet by arbiter-netem (datagrams
# may overtake each other, as on real links), for WebSocket by bench/web/delay_proxy.mjs
# (one queue per direction, so the byte stream stays in order). Both sit on the client
# side of the lossy link. TCP's own round trip on the veth stays below a millisecond, so
# its retransmission timers are those of a short path: a real 100 ms path recovers later
# (a retransmission timeout is at least 200 ms on Linux whatever the path).
#
# Per transport CLIENTS clients run SECONDS with the "toggle" behaviour (move 1 s, stand
# 1 s): kbit/s in per client, input-to-confirmed-motion p50/p95 (from the controls that
# start a move to the first snapshot showing the server's avatar moving: arbiter-bot's and
# ws_bots.mjs's confirm_ms), snapshot ratio and the worst stall (longest time without a
# complete snapshot). ROUNDS alternate the two.
#
# usage (root): bench/web/tcp_cost.sh [BIN_DIR] [SECONDS] [CLIENTS]   (build/release/bin 30 4)
# environment: LOSS (2), DELAY (50), JITTER (10), ROUNDS (2)
# A benchmark: it measures, it never passes or fails.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "${1:-build/release/bin}" && pwd)
SECONDS_RUN=${2:-30}
CLIENTS=${3:-4}
LOSS=${LOSS:-2}; DELAY=${DELAY:-50}; JITTER=${JITTER:-10}; ROUNDS=${ROUNDS:-2}
[ "$(id -u)" -eq 0 ] || { echo "bench/web/tcp_cost.sh: needs root (network namespaces)" >&2; exit 2; }
for t in ip iptables node; do command -v $t >/dev/null || { echo "bench/web/tcp_cost.sh: needs $t" >&2; exit 2; }; done
NSA=arbtcpa$$; NSB=arbtcpb$$
TMP=$(mktemp -d /tmp/arbiter-tcp-cost.XXXXXX)
cleanup() {
  for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
  ip netns del "$NSA" 2>/dev/null || true; ip netns del "$NSB" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
P=$(awk -v l="$LOSS" 'BEGIN {printf "%.4f", l / 100}')
ip netns add "$NSA"; ip netns add "$NSB"
ip link add va$$ type veth peer name vb$$
ip link set va$$ netns "$NSA"; ip link set vb$$ netns "$NSB"
ip -n "$NSA" addr add 10.231.0.1/24 dev va$$; ip -n "$NSA" link set va$$ up; ip -n "$NSA" link set lo up
ip -n "$NSB" addr add 10.231.0.2/24 dev vb$$; ip -n "$NSB" link set vb$$ up; ip -n "$NSB" link set lo up
ip -n "$NSA" link set dev va$$ gso_max_segs 1; ip -n "$NSB" link set dev vb$$ gso_max_segs 1
ip netns exec "$NSA" iptables -A OUTPUT -o va$$ -m statistic --mode random --probability "$P" -j DROP
ip netns exec "$NSB" iptables -A OUTPUT -o vb$$ -m statistic --mode random --probability "$P" -j DROP

ip netns exec "$NSA" "$BIN/arbiter-server" --port 7777 --bind 10.231.0.1 --ws-port 7780 \
  --http-port -1 --peers-per-address 64 --ws-per-address 64 > "$TMP/server.out" 2> "$TMP/server.err" &
echo $! >> "$TMP/pids"
sleep 1
grep -q server_started "$TMP/server.err" || { cat "$TMP/server.err" >&2; exit 1; }

wait_line() {  # $1 = file, $2 = pattern: the port after "listening on HOST:"
  for _ in $(seq 100); do
    L=$(grep -a -m1 "$2" "$1" 2>/dev/null || true)
    [ -n "$L" ] && { echo "$L" | sed 's/.*://'; return; }
    sleep 0.1
  done
  echo "bench/web/tcp_cost.sh: no '$2' in $1" >&2; cat "$1" >&2; exit 1
}

enet() {
  rm -f "$TMP/netem.port"  # a new proxy per round: wait for its own port
  ip netns exec "$NSB" "$BIN/arbiter-netem" --server 10.231.0.1:7777 --listen 127.0.0.1:0 \
    --latency "$DELAY" --jitter "$JITTER" --seed "$1" --port-file "$TMP/netem.port" \
    > "$TMP/netem.json" 2> "$TMP/netem.err" &
  NP=$!; echo $NP >> "$TMP/pids"
  for _ in $(seq 100); do [ -s "$TMP/netem.port" ] && break; sleep 0.1; done
  NPORT=$(cat "$TMP/netem.port")
  ip netns exec "$NSB" "$BIN/arbiter-bot" --host 127.0.0.1 --port "$NPORT" --clients "$CLIENTS" \
    --duration "$SECONDS_RUN" --behaviour toggle --seed "$1" > "$TMP/enet.json" 2> "$TMP/enet.err" || true
  kill "$NP" 2>/dev/null || true; wait "$NP" 2>/dev/null || true
  python3 - "$TMP/enet.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); p = j["prediction"]
print("| ENet | %.1f | %.0f / %.0f | %.3f | %.0f | %d/%d |" % (j["bytes_in_per_client_per_s"] * 8 / 1000,
      j["confirm_ms_p50"], j["confirm_ms_p95"], j["snapshot_ratio"],
      j["worst_stall_ms"], j["connected_at_end"], j["clients"]))
PY
}

websocket() {
  : > "$TMP/proxy.out"
  ip netns exec "$NSB" node "$HERE/delay_proxy.mjs" 127.0.0.1:0 10.231.0.1:7780 "$DELAY" "$JITTER" "$1" \
    > "$TMP/proxy.out" 2> "$TMP/proxy.err" &
  PP=$!; echo $PP >> "$TMP/pids"
  PPORT=$(wait_line "$TMP/proxy.out" "listening on")
  ip netns exec "$NSB" node "$HERE/ws_bots.mjs" --url "ws://127.0.0.1:$PPORT/" --clients "$CLIENTS" \
    --duration "$SECONDS_RUN" --behaviour toggle --seed "$1" > "$TMP/ws.json" 2> "$TMP/ws.err" || true
  kill "$PP" 2>/dev/null || true; wait "$PP" 2>/dev/null || true
  python3 - "$TMP/ws.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("| WebSocket | %.1f | %.0f / %.0f | %.3f | %.0f | %d/%d |" % (j["kbit_in_per_client"],
      j["confirm_ms_p50"] or 0, j["confirm_ms_p95"] or 0, j["snapshot_ratio_mean"],
      j["worst_stall_ms"], j["connected_at_end"], j["clients"]))
PY
}

echo "link: $LOSS % loss each way (IP level), $DELAY ± $JITTER ms each way; $CLIENTS clients, ${SECONDS_RUN} s, default scene"
echo "| transport | kbit/s in per client | input→confirmed motion p50 / p95 ms | snapshot ratio | worst stall ms | connected |"
echo "|---|---:|---:|---:|---:|---:|"
for r in $(seq "$ROUNDS"); do
  enet "$r"
  websocket "$r"
done
