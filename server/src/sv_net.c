// ENet host on a libuv loop (see sv_net.h and DEPENDENCIES.md "ENet").
#include "sv_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/protocol.h>

#include "sv_enet_check.h"

// ENet's intercept hook gets the host but no user pointer. Hosts are only serviced from
// sv_net_service, which points this at itself for the duration of the call.
static _Thread_local sv_net* tl_servicing;

static uint64_t now_ms(void) {
  return uv_hrtime() / 1000000u;
}

static void count_drop(sv_net* n, sv_datagram_drop why) {
  if (n->metrics) n->metrics->datagrams_dropped_total[why]++;
}

static int on_gate_datagram(sv_net* n, ENetHost* host) {
  if (n->closed_to_new) {
    count_drop(n, SV_DGRAM_STOPPING);
    return 1;
  }
  uint8_t reply[ARB_GATE_REQUEST_SIZE];
  size_t reply_len = 0;
  const ENetAddress* from = &host->receivedAddress;
  sv_gate_result r = sv_gate_on_datagram(n->gate, from->host, from->port, host->receivedData,
                                         host->receivedDataLength, now_ms(), reply, &reply_len);
  if (r == SV_GATE_RATE_LIMITED)
    count_drop(n, SV_DGRAM_RATE_LIMITED);
  else if (r == SV_GATE_BUSY)
    count_drop(n, SV_DGRAM_CHALLENGE_BUDGET);
  else if (r == SV_GATE_BAD)
    count_drop(n, arb_gate_is_gate(host->receivedData, host->receivedDataLength) &&
                          host->receivedDataLength == ARB_GATE_RESPONSE_SIZE
                      ? SV_DGRAM_GATE_COOKIE
                      : SV_DGRAM_GATE_MALFORMED);
  if (r != SV_GATE_REPLY) return 1;
  if (n->metrics) {
    if (reply[6] == ARB_GATE_CHALLENGE)
      n->metrics->gate_challenges_total++;
    else
      n->metrics->gate_admitted_total++;
  }
  ENetBuffer buf = {.data = reply, .dataLength = reply_len};
  enet_socket_send(host->socket, from, &buf, 1);
  return 1;
}

// ENet starts a peer at a 500 ms round trip with no variance, so a lost VERIFY_CONNECT is
// resent after 0.5 s and then 1.5 s, past the half-open timeout (1 s by default): one
// loss each way in a row and the handshake is dropped. An admitted CONNECT is about to
// take a free peer: start it from a round trip typical of the internet, so the
// VERIFY_CONNECT is resent after 0.25 s and 0.75 s. ENet measures the real round trip
// from the first acknowledgement on. ENet gives a new connection the first free peer in
// array order, so only that one is seeded (a resent CONNECT finds it already seeded), and
// stamped as new: not greeted, born now.
static void prepare_free_peer(sv_net* n, ENetHost* host) {
  for (size_t i = 0; i < host->peerCount; ++i) {
    ENetPeer* p = &host->peers[i];
    if (p->state != ENET_PEER_STATE_DISCONNECTED) continue;
    p->roundTripTime = SV_NET_FIRST_RTT_MS;
    p->roundTripTimeVariance = SV_NET_FIRST_RTT_VARIANCE_MS;
    // frag_bytes is left to set_frag_bytes, which keeps frag_total its sum.
    sv_net_peer_state* st = &n->peer_state[i];
    st->born_ms = now_ms();
    st->greeted = false;
    st->half_open_since = 0;
    st->last_datagram_ms = 0;
    st->proven_bytes = 0;
    return;
  }
}

// Eviction candidates packed for sorting: address (32 bits), then a rank that grows as the
// peer gets younger (20 bits of ms: peers older than 17 minutes all rank as oldest), then
// the peer index (12 bits, < 4096). Sorted, each address's peers are together, oldest
// first.
#define SV_NET_AGE_BITS 20u
#define SV_NET_INDEX_BITS 12u
static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

// An admitted CONNECT from `ip` with `connect_id` arrives: true when ENet will find a free
// peer for it, making one if the table is full (see sv_net.h); false when it is refused.
static bool make_room(sv_net* n, ENetHost* host, uint32_t connect_id) {
  const ENetAddress* from = &host->receivedAddress;
  uint64_t now = now_ms();
  size_t own = 0, count = 0;
  for (size_t i = 0; i < host->peerCount; ++i) {
    const ENetPeer* p = &host->peers[i];
    if (p->state == ENET_PEER_STATE_DISCONNECTED) return true;  // room (ENet takes the first)
    if (p->address.host != from->host) continue;
    if (p->address.port == from->port && p->connectID == connect_id) return true;  // a resend
    own++;
  }
  // ENet refuses an address at its cap whatever we free.
  if (n->limits.peers_per_address > 0 && own >= (size_t)n->limits.peers_per_address) return true;
  for (size_t i = 0; i < host->peerCount; ++i) {
    if (n->peer_state[i].greeted) continue;
    uint64_t age = now - n->peer_state[i].born_ms;
    uint64_t max_age = (1u << SV_NET_AGE_BITS) - 1u;
    uint64_t rank = max_age - (age < max_age ? age : max_age);  // smaller = older
    n->scratch[count++] =
        (uint64_t)host->peers[i].address.host << 32 | rank << SV_NET_INDEX_BITS | (uint64_t)i;
  }
  qsort(n->scratch, count, sizeof *n->scratch, cmp_u64);
  // The address with the most candidates; among equals, the one whose oldest is oldest.
  size_t best = 0, best_len = 0, own_len = 0;
  uint64_t index_mask = (1u << SV_NET_INDEX_BITS) - 1u;
  uint64_t age_mask = ((1u << SV_NET_AGE_BITS) - 1u) << SV_NET_INDEX_BITS;
  for (size_t i = 0; i < count;) {
    size_t j = i;
    while (j < count && n->scratch[j] >> 32 == n->scratch[i] >> 32) j++;
    if (n->scratch[i] >> 32 == from->host) own_len = j - i;
    if (j - i > best_len ||
        (j - i == best_len && (n->scratch[i] & age_mask) < (n->scratch[best] & age_mask))) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  if (best_len == 0 || own_len >= best_len) {
    count_drop(n, SV_DGRAM_TABLE_FULL);
    return false;
  }
  size_t victim_index = (size_t)(n->scratch[best] & index_mask);
  ENetPeer* victim = &host->peers[victim_index];
  bool reported = victim->state == ENET_PEER_STATE_CONNECTED ||
                  victim->state == ENET_PEER_STATE_DISCONNECT_LATER ||
                  victim->state == ENET_PEER_STATE_DISCONNECTING ||
                  victim->state == ENET_PEER_STATE_ZOMBIE;
  // One DISCONNECT datagram (to an address that passed the gate), then the peer is free.
  // Inside ENet's receive loop this is safe: the flush sends from its own buffers, not
  // the received datagram's.
  enet_peer_disconnect_now(victim, ARB_PROTO_REASON_FULL);
  n->peer_state[victim_index].half_open_since = 0;
  if (n->metrics) n->metrics->peers_evicted_total++;
  if (reported) {  // the server knows this peer: tell it, as ENet would have
    ENetEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.type = ENET_EVENT_TYPE_DISCONNECT;
    ev.peer = victim;
    ev.data = ARB_PROTO_REASON_FULL;
    n->on_event(n->user, &ev);
  }
  return true;
}

// With other transports on (WebSocket), an address's connections there count against
// --peers-per-address too: a new CONNECT from an address whose ENet peers and other
// connections fill its budget is dropped (`address_full`). ENet's own cap
// (duplicatePeers) only sees its peers.
static bool address_full(sv_net* n, ENetHost* host, uint32_t connect_id) {
  if (n->other_of == NULL || n->limits.peers_per_address <= 0) return false;
  const ENetAddress* from = &host->receivedAddress;
  int other = n->other_of(n->user, from->host);
  if (other == 0) return false;
  int own = 0;
  for (size_t i = 0; i < host->peerCount; ++i) {
    const ENetPeer* p = &host->peers[i];
    if (p->state == ENET_PEER_STATE_DISCONNECTED || p->address.host != from->host) continue;
    if (p->address.port == from->port && p->connectID == connect_id) return false;  // a resend
    own++;
  }
  return own + other >= n->limits.peers_per_address;
}

// A new (not resent) CONNECT that ENet will accept: the caller may release what else its
// address holds so that the newcomer fits in the per-address budget.
static void budget_room(sv_net* n, ENetHost* host, uint32_t connect_id) {
  if (n->on_budget == NULL) return;
  const ENetAddress* from = &host->receivedAddress;
  int own = 0;
  for (size_t i = 0; i < host->peerCount; ++i) {
    const ENetPeer* p = &host->peers[i];
    if (p->state == ENET_PEER_STATE_DISCONNECTED || p->address.host != from->host) continue;
    if (p->address.port == from->port && p->connectID == connect_id) return;  // a resend
    own++;
  }
  // At the cap ENet refuses it: nothing is released for a newcomer that is not let in.
  if (n->limits.peers_per_address > 0 && own >= n->limits.peers_per_address) return;
  n->on_budget(n->user, from->host, own);
}

static void set_frag_bytes(sv_net* n, size_t peer, size_t bytes) {
  n->frag_total = n->frag_total - n->peer_state[peer].frag_bytes + bytes;
  n->peer_state[peer].frag_bytes = bytes;
  if (n->metrics) n->metrics->fragment_bytes_buffered = (int64_t)n->frag_total;
}

// A datagram that passed the checks, for `peer`: false when a packet it starts is over
// the fragment budget (sv_net.h).
static bool fragments_paid(sv_net* n, ENetHost* host, int peer) {
  size_t buffered = 0;
  size_t starts = sv_enet_fragment_starts(host, &host->peers[peer], &buffered);
  set_frag_bytes(n, (size_t)peer, buffered);
  if (starts == 0) return true;
  uint64_t allowance = SV_NET_FRAG_FREE + n->peer_state[peer].proven_bytes;
  if (allowance > SV_NET_FRAG_PEER_MAX) allowance = SV_NET_FRAG_PEER_MAX;
  if (buffered + starts > allowance) return false;
  if (n->frag_total + starts > SV_NET_FRAG_TOTAL_MAX &&
      !(n->peer_state[peer].greeted && buffered == 0))
    return false;
  set_frag_bytes(n, (size_t)peer, buffered + starts);
  return true;
}

// Every datagram, before ENet parses it. 1 = consumed (dropped or answered), 0 = ENet's.
static int intercept(ENetHost* host, ENetEvent* event) {
  (void)event;
  sv_net* n = tl_servicing;
  if (n == NULL || n->host != host) return 0;
  if (sv_ban_active(&n->bans, host->receivedAddress.host, now_ms())) {
    count_drop(n, SV_DGRAM_BANNED);
    return 1;
  }
  if (arb_gate_is_gate(host->receivedData, host->receivedDataLength))
    return on_gate_datagram(n, host);
  uint32_t connect_id = 0;
  int peer = -1;
  sv_enet_verdict v = sv_enet_check(host, SV_NET_MAX_INCOMING, &connect_id, &peer);
  switch (v) {
    case SV_ENET_PASS:
      // Any datagram counts as a sign of life, acknowledgements included: a client that
      // is still receiving a large welcome sends nothing else.
      if (peer < 0) return 0;
      if (!fragments_paid(n, host, peer)) {
        count_drop(n, SV_DGRAM_FRAGMENT_BUDGET);
        return 1;
      }
      n->peer_state[peer].last_datagram_ms = now_ms();
      n->peer_state[peer].proven_bytes += host->receivedDataLength;
      return 0;
    case SV_ENET_CONNECT:
      if (n->closed_to_new) {
        count_drop(n, SV_DGRAM_STOPPING);
        return 1;
      }
      if (!sv_gate_take_connect(n->gate, host->receivedAddress.host, host->receivedAddress.port,
                                connect_id, now_ms())) {
        count_drop(n, SV_DGRAM_NOT_ADMITTED);
        return 1;
      }
      if (address_full(n, host, connect_id)) {
        count_drop(n, SV_DGRAM_ADDRESS_FULL);
        return 1;
      }
      if (!make_room(n, host, connect_id)) return 1;
      prepare_free_peer(n, host);
      budget_room(n, host, connect_id);
      return 0;
    case SV_ENET_DROP_FRAGMENT:
      count_drop(n, SV_DGRAM_ENET_FRAGMENT);
      return 1;
    case SV_ENET_DROP_WINDOW:
      count_drop(n, SV_DGRAM_ENET_WINDOW);
      return 1;
    case SV_ENET_DROP_PEER:
      count_drop(n, SV_DGRAM_ENET_PEER);
      return 1;
    default:
      count_drop(n, SV_DGRAM_ENET_MALFORMED);
      return 1;
  }
}

bool sv_net_ban(sv_net* n, uint32_t ip, uint64_t ms) {
  return sv_ban_set(&n->bans, ip, ms, now_ms());
}

int sv_net_ban_count(const sv_net* n) {
  return sv_ban_count(&n->bans, now_ms());
}

static bool half_open(const ENetPeer* p) {
  return p->state == ENET_PEER_STATE_ACKNOWLEDGING_CONNECT ||
         p->state == ENET_PEER_STATE_CONNECTION_PENDING ||
         p->state == ENET_PEER_STATE_CONNECTION_SUCCEEDED || p->state == ENET_PEER_STATE_CONNECTING;
}

// A peer whose handshake does not complete within the half-open timeout is disconnected:
// the server has not reported it to anyone yet, so nothing else refers to it. One
// DISCONNECT datagram goes out (the address passed the gate, so this reflects nothing):
// when only the client's acknowledgement of VERIFY_CONNECT was lost, its ENet host
// believes it is connected and would otherwise resend its hello into the void until its
// connect timeout. The same pass recounts each peer's incomplete fragmented packets, so
// the fragment budget gets back what completed packets and freed peers released.
static void expire_half_open(sv_net* n) {
  uint64_t now = now_ms();
  if (now - n->last_expiry_ms < 50) return;
  n->last_expiry_ms = now;
  int64_t count = 0;
  for (size_t i = 0; i < n->host->peerCount; ++i) {
    ENetPeer* p = &n->host->peers[i];
    // Packets completed or freed with their peer since last counted.
    set_frag_bytes(n, i, sv_enet_fragment_buffered(p));
    uint64_t* since = &n->peer_state[i].half_open_since;
    if (!half_open(p)) {
      *since = 0;
      continue;
    }
    if (*since == 0) *since = now;
    if (now - *since >= (uint64_t)n->limits.half_open_timeout_ms) {
      enet_peer_disconnect_now(p, ARB_PROTO_REASON_TIMEOUT);
      *since = 0;
      if (n->metrics) n->metrics->half_open_expired_total++;
      continue;
    }
    ++count;
  }
  if (n->metrics) n->metrics->half_open_peers = count;
}

static void on_poll(uv_poll_t* handle, int status, int events);

static void on_rearm(uv_timer_t* timer) {
  sv_net* n = timer->data;
  if (n->poll_open) uv_poll_start(&n->poll, UV_READABLE, on_poll);
}

static void on_poll(uv_poll_t* handle, int status, int events) {
  sv_net* n = handle->data;
  (void)status;
  (void)events;
  n->wakeups++;
  // On a poll error there is nothing better to do than let ENet look at the socket.
  sv_net_service(n);
  if (n->receive_interval_ms > 0 && n->poll_open) {
    uv_poll_stop(&n->poll);
    uv_timer_start(&n->rearm, on_rearm, (uint64_t)n->receive_interval_ms, 0);
  }
}

void sv_net_set_receive_interval(sv_net* n, int ms) {
  n->receive_interval_ms = ms > 0 ? ms : 0;
}

static void destroy_host(sv_net* n) {
  if (n->host) {
    enet_host_destroy(n->host);
    n->host = NULL;
  }
  free(n->gate);
  n->gate = NULL;
  free(n->peer_state);
  n->peer_state = NULL;
  free(n->scratch);
  n->scratch = NULL;
}

int sv_net_init(sv_net* n, uv_loop_t* loop, const char* bind, int port, int peer_count,
                const sv_net_limits* limits, sv_net_event_fn* on_event, void* user,
                sv_metrics* metrics, char* err, size_t err_cap) {
  memset(n, 0, sizeof *n);
  n->limits = *limits;
  n->gate = malloc(sizeof *n->gate);
  if (n->gate == NULL || sv_gate_init(n->gate, limits->attempts_per_second) != 0) {
    snprintf(err, err_cap, "cannot initialise the connection gate (libsodium)");
    free(n->gate);
    n->gate = NULL;
    return -1;
  }
  n->on_event = on_event;
  n->user = user;
  n->metrics = metrics;
  ENetAddress addr;
  if (enet_address_set_host_ip(&addr, bind) != 0) {
    snprintf(err, err_cap, "--bind: \"%s\" is not an IPv4 address", bind);
    destroy_host(n);
    return -1;
  }
  addr.port = (enet_uint16)port;
  if (peer_count > 4095) peer_count = 4095;  // ENet's hard limit (4096 fails)
  n->host = enet_host_create(&addr, (size_t)peer_count, SV_NET_CHANNELS, 0, 0);
  if (n->host == NULL) {
    snprintf(err, err_cap, "cannot bind UDP %s:%d (in use or not permitted)", bind, port);
    destroy_host(n);
    return -1;
  }
  // The 32 MiB defaults let one peer make us buffer a lot of garbage.
  n->host->maximumPacketSize = SV_NET_MAX_INCOMING;
  n->host->maximumWaitingData = 64 * 1024;
  n->host->duplicatePeers = (size_t)limits->peers_per_address;
  n->host->intercept = intercept;
  n->peer_state = calloc(n->host->peerCount, sizeof *n->peer_state);
  n->scratch = calloc(n->host->peerCount, sizeof *n->scratch);
  if (n->peer_state == NULL || n->scratch == NULL) {
    snprintf(err, err_cap, "out of memory");
    destroy_host(n);
    return -1;
  }
  ENetAddress bound;
  if (enet_socket_get_address(n->host->socket, &bound) == 0)
    n->port = bound.port;
  else
    n->port = (uint16_t)port;
  int rc = uv_poll_init_socket(loop, &n->poll, n->host->socket);
  if (rc != 0) {
    snprintf(err, err_cap, "uv_poll_init_socket: %s", uv_strerror(rc));
    destroy_host(n);
    return -1;
  }
  n->poll.data = n;
  n->poll_open = true;
  uv_timer_init(loop, &n->rearm);
  n->rearm.data = n;
  uv_poll_start(&n->poll, UV_READABLE, on_poll);
  return 0;
}

void sv_net_service(sv_net* n) {
  if (n->host == NULL || n->in_service) return;
  n->in_service = true;
  sv_net* outer = tl_servicing;
  tl_servicing = n;
  ENetEvent ev;
  // A bound on one drain keeps a flood from starving the ticker; the poll fires again.
  for (int i = 0; i < 4096; ++i) {
    int rc = enet_host_service(n->host, &ev, 0);
    if (rc <= 0) break;
    if (ev.type == ENET_EVENT_TYPE_RECEIVE && n->metrics) {
      n->metrics->packets_in_total++;
      n->metrics->bytes_in_total += ev.packet->dataLength;
    }
    n->on_event(n->user, &ev);
    if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
  }
  tl_servicing = outer;
  expire_half_open(n);
  n->in_service = false;
}

int sv_net_send(sv_net* n, ENetPeer* peer, uint8_t channel, const void* data, size_t len,
                uint32_t flags) {
  if (n->host == NULL) return -1;
  ENetPacket* p = enet_packet_create(data, len, flags);
  if (p == NULL) return -1;
  // ENet's maximumPacketSize bounds what we send as well as what peers may send us. Keep
  // it small for incoming data and lift it only while queueing a large reliable message
  // of ours (a welcome with a big level, the scene text); ENet fragments it right here.
  size_t incoming_limit = n->host->maximumPacketSize;
  if (len > incoming_limit && (flags & ENET_PACKET_FLAG_RELIABLE)) n->host->maximumPacketSize = len;
  int rc = enet_peer_send(peer, channel, p);
  n->host->maximumPacketSize = incoming_limit;
  if (rc != 0) {
    enet_packet_destroy(p);  // not freed by ENet on failure
    return -1;
  }
  if (n->metrics) {
    n->metrics->packets_out_total++;
    n->metrics->bytes_out_total += len;
  }
  return 0;
}

void sv_net_close_to_new(sv_net* n) {
  n->closed_to_new = true;
}

uint64_t sv_net_silent_ms(const sv_net* n, const ENetPeer* peer) {
  if (n->host == NULL || n->peer_state == NULL) return 0;
  size_t i = (size_t)(peer - n->host->peers);
  if (i >= n->host->peerCount || n->peer_state[i].last_datagram_ms == 0) return 0;
  uint64_t now = now_ms();
  uint64_t last = n->peer_state[i].last_datagram_ms;
  return now > last ? now - last : 0;
}

void sv_net_set_greeted(sv_net* n, const ENetPeer* peer) {
  if (n->host == NULL || n->peer_state == NULL) return;
  size_t i = (size_t)(peer - n->host->peers);
  if (i < n->host->peerCount) n->peer_state[i].greeted = true;
}

bool sv_net_reliable_idle(const ENetPeer* peer) {
  return peer->reliableDataInTransit == 0 && enet_list_empty(&peer->outgoingCommands) &&
         enet_list_empty(&peer->sentReliableCommands);
}

void sv_net_set_budget_hook(sv_net* n, sv_net_budget_fn* fn) {
  n->on_budget = fn;
}

void sv_net_set_other_count(sv_net* n, sv_net_other_fn* fn) {
  n->other_of = fn;
}

int sv_net_peers_of(const sv_net* n, uint32_t ip) {
  if (n->host == NULL) return 0;
  int count = 0;
  for (size_t i = 0; i < n->host->peerCount; ++i)
    if (n->host->peers[i].state != ENET_PEER_STATE_DISCONNECTED &&
        n->host->peers[i].address.host == ip)
      count++;
  return count;
}

bool sv_net_peer_live(const ENetPeer* peer) {
  return peer != NULL && peer->state != ENET_PEER_STATE_DISCONNECTED;
}

void sv_net_flush(sv_net* n) {
  if (n->host) enet_host_flush(n->host);
}

static void on_poll_closed(uv_handle_t* handle) {
  destroy_host(handle->data);
}

void sv_net_close(sv_net* n) {
  if (!n->poll_open) {
    destroy_host(n);
    return;
  }
  n->poll_open = false;
  uv_timer_stop(&n->rearm);
  uv_close((uv_handle_t*)&n->rearm, NULL);
  uv_poll_stop(&n->poll);
  uv_close((uv_handle_t*)&n->poll, on_poll_closed);
}
