// ENet transport (see cl_net.h). The only client file that includes <enet/enet.h>.
#define _POSIX_C_SOURCE 200809L  // clock_gettime
#include "cl_net.h"

#include <enet/enet.h>
#include <string.h>
#include <time.h>

#include <arbiter/base.h>
#include <arbiter/protocol.h>

// The first retransmission of the ENet CONNECT comes no sooner than twice this.
#define CL_NET_MIN_FIRST_RTT_MS 20

int cl_net_init(cl_net* n) {
  memset(n, 0, sizeof *n);
  // On POSIX enet_initialize only checks the platform; it keeps no state, so calling it
  // per client is harmless and keeps the library free of a global init call.
  if (enet_initialize() != 0) return ARB_E_IO;
  n->host = enet_host_create(NULL, 1, ARB_PROTO_CHANNEL_COUNT, 0, 0);
  if (!n->host) return ARB_E_IO;
  // A hostile server must not make us buffer ENet's 32 MiB defaults: the largest message
  // is the scene (sent once), and besides it a few other reliable messages may wait.
  n->host->maximumPacketSize = ARB_PROTO_MAX_SCENE_MESSAGE + 1024;
  n->host->maximumWaitingData = ARB_PROTO_MAX_SCENE_MESSAGE + 4u * ARB_PROTO_MAX_RELIABLE;
  return 0;
}

static void release_packet(cl_net* n) {
  if (n->packet) {
    enet_packet_destroy((ENetPacket*)n->packet);
    n->packet = NULL;
  }
}

void cl_net_deinit(cl_net* n) {
  release_packet(n);
  if (n->host) {
    if (n->peer) {
      // A non-zero code tells the server we are leaving, not lost (no rejoin hold).
      enet_peer_disconnect_now(n->peer, ARB_PROTO_REASON_OTHER);
      n->peer = NULL;
    }
    enet_host_destroy(n->host);
  }
  memset(n, 0, sizeof *n);
}

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

// The nonce only has to differ between attempts and be unknown to third parties that
// cannot see our traffic; it is not a secret.
static uint64_t make_nonce(const cl_net* n) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)n ^
               ((uint64_t)n->host->address.port << 48);
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 29);
}

int cl_net_connect(cl_net* n, const char* host, uint16_t port, const char* url,
                   uint32_t timeout_ms) {
  (void)url;
  if (!n->host) return ARB_E_STATE;
  release_packet(n);
  if (n->peer) {
    enet_peer_reset(n->peer);
    n->peer = NULL;
  }
  ENetAddress addr;
  memset(&addr, 0, sizeof addr);
  if (enet_address_set_host_ip(&addr, host) != 0 && enet_address_set_host(&addr, host) != 0)
    return ARB_E_INVAL;
  n->gate_ip = addr.host;
  n->gate_port = port;
  n->timeout_ms = timeout_ms;
  n->gating = true;
  n->gate_rtt_ms = 0;
  n->rtt_samples = 0;
  arb_gate_client_start(&n->gate, make_nonce(n), ARB_PROTO_VERSION);
  return 0;
}

static void gate_send(cl_net* n, const ENetAddress* server, const uint8_t* buf, int len) {
  if (len <= 0) return;
  ENetBuffer out = {.data = (void*)buf, .dataLength = (size_t)len};
  enet_socket_send(n->host->socket, server, &out, 1);
  n->gate_sent_ms = mono_ms();
}

// ENet starts every peer at a 500 ms round trip with no variance, so a lost CONNECT is
// resent only after 0.5, 1.5 and 3.5 s: three tries in the client's 5 s connect window,
// and the server drops a handshake that is not done within its half-open timeout (1 s by
// default), after which only our resends can start it again. The gate has just measured
// the path (each exchange from its latest send: a lower bound when a reply to an earlier
// send arrives, so the longer of the two): start ENet from that, retransmitting after
// twice the round trip.
static void seed_connect_rtt(cl_net* n) {
  uint32_t rtt = n->gate_rtt_ms;
  if (rtt < CL_NET_MIN_FIRST_RTT_MS) rtt = CL_NET_MIN_FIRST_RTT_MS;
  if (rtt > ENET_PEER_DEFAULT_ROUND_TRIP_TIME / 2) rtt = ENET_PEER_DEFAULT_ROUND_TRIP_TIME / 2;
  n->peer->roundTripTime = rtt;
  n->peer->roundTripTimeVariance = rtt / 4;
}

// Send what the gate wants sent and read the socket ourselves: no ENet peer exists yet,
// so nothing else is waiting for these datagrams. Admitted: start the ENet connect.
static int run_gate(cl_net* n) {
  ENetAddress server = {.host = n->gate_ip, .port = n->gate_port};
  uint8_t buf[ARB_GATE_REQUEST_SIZE];
  gate_send(n, &server, buf, arb_gate_client_next(&n->gate, mono_ms(), buf, sizeof buf));
  for (int i = 0; i < 64 && n->gate.state != ARB_GATE_CLIENT_ADMITTED; ++i) {
    uint8_t in[256];
    ENetAddress from;
    ENetBuffer b = {.data = in, .dataLength = sizeof in};
    int got = enet_socket_receive(n->host->socket, &from, &b, 1);
    if (got <= 0) break;
    if (from.host != server.host || from.port != server.port) continue;
    if (!arb_gate_client_receive(&n->gate, in, (size_t)got)) continue;
    uint64_t rtt = mono_ms() - n->gate_sent_ms;
    if (rtt > n->gate_rtt_ms) n->gate_rtt_ms = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt;
    if (n->gate.state == ARB_GATE_CLIENT_RESPONDING)  // answer the challenge now
      gate_send(n, &server, buf, arb_gate_client_next(&n->gate, mono_ms(), buf, sizeof buf));
  }
  if (n->gate.state != ARB_GATE_CLIENT_ADMITTED) return 0;
  n->gating = false;
  n->peer = enet_host_connect(n->host, &server, ARB_PROTO_CHANNEL_COUNT, 0);
  if (!n->peer) return ARB_E_IO;
  seed_connect_rtt(n);
  cl_net_set_timeout(n, n->timeout_ms);
  return 0;
}

void cl_net_set_timeout(cl_net* n, uint32_t timeout_ms) {
  if (!n->peer) return;
  if (timeout_ms < 300) timeout_ms = 300;
  // ENet gives up when one reliable command stays unacknowledged this long. At 20 % loss
  // each way with 100 +- 100 ms jitter its doubling retransmissions fit only two or three
  // tries into a few seconds, and a lost ping or hello then cost the connection; so ENet
  // gets generous limits, and a dead server is noticed by the client's own silence check
  // (nothing at all received for `timeout`). Generous means many tries: a try and its
  // acknowledgement both arrive 64 % of the time at that loss, so a command fails all n
  // tries with probability 0.36^n, and ENet sends a reliable ping every ping interval
  // (it counts only acknowledgements as hearing from the server). The earlier limits (256
  // and 60 s: 8 or 9 tries) ended a client that way about once in 5-15 hours; these (13
  // or 14 tries: the waits double from about the round trip, and one wait reaching 1 h
  // ends it) about once in 800-2 300 hours. The server does the same (sv_session.c).
  uint32_t lo = timeout_ms > 5000u ? timeout_ms : 5000u;
  uint64_t three = 3u * (uint64_t)timeout_ms;  // a long configured timeout must not wrap
  uint32_t hi = three > 3600000u ? (three > UINT32_MAX ? UINT32_MAX : (uint32_t)three) : 3600000u;
  enet_peer_timeout(n->peer, 16384, lo, hi);
  // ENet pings a peer (reliably) when no acknowledgement has come from it for this long:
  // only acknowledgements count, so a client that sends no reliable messages pings the
  // server every interval however many snapshots arrive. Liveness is left to the client's
  // own silence check, and the round trip is measured by cl_net_poll's unsequenced pings,
  // so the interval is long.
  enet_peer_ping_interval(n->peer, 5000);
}

void cl_net_drop(cl_net* n, uint32_t code) {
  release_packet(n);
  n->gating = false;
  if (!n->peer) return;
  enet_peer_disconnect_now(n->peer, code);
  n->peer = NULL;
}

int cl_net_poll(cl_net* n, cl_net_event* ev) {
  release_packet(n);
  memset(ev, 0, sizeof *ev);
  if (!n->host) return 0;
  if (n->gating) {
    int rc = run_gate(n);
    if (rc != 0 || n->gating) return rc;
  }
  ENetEvent e;
  for (;;) {
    int rc = enet_host_service(n->host, &e, 0);
    if (rc < 0) return ARB_E_IO;
    if (rc == 0) return 0;
    switch (e.type) {
      case ENET_EVENT_TYPE_CONNECT:
        if (e.peer != n->peer) continue;
        // ENet's packet throttle drops unreliable packets at random when the RTT swings;
        // with 100 +- 100 ms jitter it fell to zero and silenced our inputs for seconds,
        // long enough for the server to time us out. Inputs are small and rate-limited by
        // the server: always send them (the server does the same for its snapshots).
        enet_peer_throttle_configure(n->peer, ENET_PEER_PACKET_THROTTLE_INTERVAL, 0, 0);
        ev->type = CL_NET_CONNECTED;
        return 1;
      case ENET_EVENT_TYPE_RECEIVE:
        if (e.peer != n->peer) {
          enet_packet_destroy(e.packet);
          continue;
        }
        n->packet = e.packet;
        ev->type = CL_NET_RECEIVED;
        ev->channel = e.channelID;
        ev->data = e.packet->data;
        ev->len = e.packet->dataLength;
        return 1;
      case ENET_EVENT_TYPE_DISCONNECT:
        if (e.peer != n->peer) continue;
        n->peer = NULL;
        ev->type = CL_NET_DISCONNECTED;
        ev->code = e.data;
        return 1;
      default:
        continue;
    }
  }
}

int cl_net_send(cl_net* n, int channel, const uint8_t* data, size_t len, bool reliable) {
  if (!n->peer || n->peer->state != ENET_PEER_STATE_CONNECTED) return ARB_E_STATE;
  ENetPacket* p = enet_packet_create(
      data, len, reliable ? ENET_PACKET_FLAG_RELIABLE : ENET_PACKET_FLAG_UNSEQUENCED);
  if (!p) return ARB_E_NOMEM;
  if (enet_peer_send(n->peer, (enet_uint8)channel, p) != 0) {
    enet_packet_destroy(p);  // ENet keeps ownership only on success
    return ARB_E_IO;
  }
  return 0;
}

void cl_net_flush(cl_net* n) {
  if (n->host) enet_host_flush(n->host);
}

void cl_net_rtt(const cl_net* n, float* rtt, float* variance) {
  *rtt = 0.0f;
  *variance = 0.0f;
  if (!n->peer || n->peer->state != ENET_PEER_STATE_CONNECTED) return;
  if (n->rtt_samples > 0) {
    *rtt = n->rtt;
    *variance = n->rtt_var;
    return;
  }
  *rtt = (float)n->peer->roundTripTime / 1000.0f;
  *variance = (float)n->peer->roundTripTimeVariance / 1000.0f;
}

void cl_net_account(cl_net* n) {
  if (!n->host) return;
  uint32_t s = n->host->totalSentData, r = n->host->totalReceivedData;
  uint32_t sp = n->host->totalSentPackets, rp = n->host->totalReceivedPackets;
  n->bytes_out += (uint32_t)(s - n->last_sent);
  n->bytes_in += (uint32_t)(r - n->last_received);
  n->packets_out += (uint32_t)(sp - n->last_sent_packets);
  n->packets_in += (uint32_t)(rp - n->last_received_packets);
  n->last_sent = s;
  n->last_received = r;
  n->last_sent_packets = sp;
  n->last_received_packets = rp;
}

int cl_net_fd(const cl_net* n) {
  return n->host ? (int)n->host->socket : -1;
}
