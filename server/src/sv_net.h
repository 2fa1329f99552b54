// ENet glue on the libuv loop.
//
// ENet's socket is watched with uv_poll; when it is readable every pending event is
// drained with enet_host_service(host, &ev, 0) until it returns 0. The server also calls
// sv_net_service once per tick (acks, retransmits and timeouts only happen inside
// service calls) and sv_net_flush right after queueing a tick's snapshots.
// After a drain between ticks the poll rests for the receive interval (a uv_timer
// re-arms it): with hundreds of clients a datagram arrives every few microseconds, and
// waking for each one cost more than the datagrams (a wake-up's system calls and ENet's
// pass over every peer). Inputs are applied at the next tick whenever they are read, so
// the interval only delays what ENet does between ticks: acks, handshakes, RTT samples.
// Every datagram first goes through ENet's intercept hook (sv_net.c): gate datagrams are
// answered there (sv_gate.h), a CONNECT only reaches ENet from an admitted address, and
// every other datagram is checked (sv_enet_check.h) before ENet may allocate for it.
// When the peer table is full, an admitted CONNECT makes room: the peer that has not said
// hello (sv_net_set_greeted) from the address holding the most such peers, its oldest,
// is disconnected and reported as an ENet DISCONNECT event (data ARB_PROTO_REASON_FULL),
// unless the newcomer's own address holds as many (the CONNECT is then dropped,
// `table_full`). So neither one address nor many, each holding a few idle peers, can keep
// a new address out (docs/SECURITY.md).
// Channels: 0 reliable control (hello/welcome/reject/bye), 1 unsequenced inputs,
// 2 unreliable snapshots (+ snapshot acks from clients).
#pragma once

#include <enet/enet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "sv_ban.h"
#include "sv_gate.h"
#include "sv_metrics.h"

#define SV_NET_CHANNELS 3
#define SV_CH_CONTROL 0
#define SV_CH_INPUT 1
#define SV_CH_SNAPSHOT 2

/// Largest packet a peer may send us; inputs and control messages are far smaller.
#define SV_NET_MAX_INCOMING 4096
/// Fragmented packets cost memory in proportion to what a peer has proven it can send
/// (docs/SECURITY.md, W6). ENet allocates a fragmented packet's whole length on its first
/// fragment and holds it until the last arrives, so a fragment that would start a packet
/// is dropped (`fragment_budget`) unless both hold:
/// - the peer's incomplete packets, this one included, fit in SV_NET_FRAG_FREE plus the
///   bytes of its datagrams that reached ENet so far, and in SV_NET_FRAG_PEER_MAX;
/// - all peers' incomplete packets fit in SV_NET_FRAG_TOTAL_MAX, unless the peer said
///   hello and is assembling nothing (an honest client is never kept waiting by others).
/// ENet resends a dropped reliable fragment, so a client over its budget is slowed, not
/// broken. arbiter clients send nothing larger than one datagram; every peer may start
/// one packet of the largest size without proof.
#define SV_NET_FRAG_FREE SV_NET_MAX_INCOMING
#define SV_NET_FRAG_PEER_MAX (4 * SV_NET_MAX_INCOMING)
#define SV_NET_FRAG_TOTAL_MAX (256 * 1024)
/// Round trip and variance a new peer's handshake starts from (ENet's own: 500, 0).
#define SV_NET_FIRST_RTT_MS 150
#define SV_NET_FIRST_RTT_VARIANCE_MS 25

/// Abuse limits (docs/SECURITY.md lists them with their defaults).
typedef struct sv_net_limits {
  int peers_per_address;     ///< ENet peers one IP address may hold
  int attempts_per_second;   ///< gate requests + responses per IP address per second
  int half_open_timeout_ms;  ///< an unfinished ENet handshake is reset after this
} sv_net_limits;

/// What sv_net keeps of one ENet peer beyond ENet's own state.
typedef struct sv_net_peer_state {
  uint64_t half_open_since;   ///< ms when first seen half-open, 0 = not
  uint64_t last_datagram_ms;  ///< ms of its last datagram that passed the checks
  uint64_t born_ms;           ///< ms when the CONNECT that took it was admitted
  bool greeted;               ///< its session said hello (never evicted for room)
  uint64_t proven_bytes;      ///< bytes of its datagrams that reached ENet
  size_t frag_bytes;          ///< incomplete fragmented bytes as last counted (>= ENet's)
} sv_net_peer_state;

typedef struct sv_net sv_net;
/// One ENet event. For RECEIVE the packet is destroyed by sv_net after the callback
/// returns: do not keep pointers into it.
typedef void sv_net_event_fn(void* user, const ENetEvent* ev);
/// An admitted CONNECT from `ip` (network order) will take a peer; its address holds
/// `peers` peers now (handshakes included), under the per-address cap.
typedef void sv_net_budget_fn(void* user, uint32_t ip, int peers);
/// Connections `ip` (network order) holds over other transports (WebSocket).
typedef int sv_net_other_fn(void* user, uint32_t ip);

struct sv_net {
  ENetHost* host;
  uv_poll_t poll;
  bool poll_open;
  uv_timer_t rearm;         ///< re-arms the poll after a drain; open while poll_open
  int receive_interval_ms;  ///< least ms from one drain between ticks to the next; 0 = none
  uint64_t wakeups;         ///< drains started by the poll (not by the tick)
  uint16_t port;            ///< the bound UDP port (useful with --port 0)
  sv_net_event_fn* on_event;
  sv_net_budget_fn* on_budget;  ///< NULL = none; called with `user` (sv_net_set_budget_hook)
  sv_net_other_fn* other_of;    ///< NULL = ENet only (sv_net_set_other_count)
  void* user;
  sv_metrics* metrics;  ///< not owned
  bool in_service;      ///< guards re-entrant service from inside a callback
  bool closed_to_new;   ///< stopping: no more gate admissions or CONNECTs
  sv_net_limits limits;
  sv_gate* gate;                  ///< owned (large fixed tables)
  sv_bans bans;                   ///< operator bans, checked first for every datagram
  sv_net_peer_state* peer_state;  ///< owned; one per ENet peer, in ENet's order
  uint64_t* scratch;  ///< one per ENet peer: eviction candidates, sorted (no allocation then)
  size_t frag_total;  ///< sum of the peers' frag_bytes: never below what ENet holds
  uint64_t last_expiry_ms;
};

/// Bind and start watching. peer_count covers the player slots plus a margin for peers
/// that are only told "server full". Returns 0 or -1 with a message in err.
int sv_net_init(sv_net* n, uv_loop_t* loop, const char* bind, int port, int peer_count,
                const sv_net_limits* limits, sv_net_event_fn* on_event, void* user,
                sv_metrics* metrics, char* err, size_t err_cap);
/// Drain every pending event (non-blocking); also resets half-open peers that are too old.
void sv_net_service(sv_net* n);
/// After a drain started by the poll, wait `ms` (0 = not at all) before watching the
/// socket again; the tick's own sv_net_service is unaffected. Default 0.
void sv_net_set_receive_interval(sv_net* n, int ms);
/// Copy data into a new ENet packet and queue it. Returns 0 or -1 (packet freed).
int sv_net_send(sv_net* n, ENetPeer* peer, uint8_t channel, const void* data, size_t len,
                uint32_t flags);
/// Stop admitting new connections (drain, shutdown); connected peers are unaffected.
void sv_net_close_to_new(sv_net* n);
/// Milliseconds since the last datagram from this peer (any kind, acks included); 0 if
/// none was seen yet.
uint64_t sv_net_silent_ms(const sv_net* n, const ENetPeer* peer);
/// Ban an IPv4 address (network order) for ms milliseconds, 0 = lift the ban: its
/// datagrams are dropped from now on. Returns true when it was banned before.
bool sv_net_ban(sv_net* n, uint32_t ip, uint64_t ms);
/// Bans in force now.
int sv_net_ban_count(const sv_net* n);
/// The peer's session said hello: a full table no longer evicts it (until the peer is
/// reused by a new connection).
void sv_net_set_greeted(sv_net* n, const ENetPeer* peer);
/// Call `fn` (with the user pointer of sv_net_init) for each admitted new CONNECT, so the
/// caller can make room in what else the address holds (rejoin holds).
void sv_net_set_budget_hook(sv_net* n, sv_net_budget_fn* fn);
/// Count what `fn` (with the user pointer of sv_net_init) says an address holds over other
/// transports against --peers-per-address as well: a CONNECT that would pass it is dropped
/// (`address_full`).
void sv_net_set_other_count(sv_net* n, sv_net_other_fn* fn);
/// Peers of an address (network order) that are not free: handshakes, connected, closing.
int sv_net_peers_of(const sv_net* n, uint32_t ip);
/// True while the peer is in any state but free (ENet's DISCONNECTED).
bool sv_net_peer_live(const ENetPeer* peer);
/// Send queued packets now.
void sv_net_flush(sv_net* n);
/// True when everything sent to the peer has left and every reliable message was acked.
bool sv_net_reliable_idle(const ENetPeer* peer);
/// Stop watching, close the poll handle; the ENet host is destroyed once the handle is
/// closed (run the loop afterwards). Safe to call twice.
void sv_net_close(sv_net* n);
