// cl_net — the client's transport, one per arb_client (several clients in a process never
// share sockets or state). Non-blocking only; events are drained by cl_net_poll. Two
// implementations of this one interface, chosen at build time:
//
//  - ENet over UDP (cl_net.c, native builds): one ENet host with one peer. A connect first
//    runs the server's connection gate (arbiter/gate.h, PROTOCOL.md §1.1) on the host's own
//    socket, then the ENet connect from that same socket; enet_host_service with timeout
//    0, drained until empty. Host names are resolved with ENet (numeric IPv4 addresses
//    never block; a DNS name may, once per connect).
//  - WebSocket (cl_net_ws.c, the WebAssembly build, ARB_CLIENT_WEBSOCKET): the JavaScript
//    host owns the socket (PROTOCOL.md §1.2: one protocol message per binary message, no
//    channel byte, no gate). The module imports open/send/close from it and exports the
//    socket's open/message/close events (cl_net_ws_on_*), which are queued here until
//    cl_net_poll hands them to the client like ENet's.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef ARB_CLIENT_WEBSOCKET
#include <arbiter/gate.h>

typedef struct _ENetHost cl_enet_host;
typedef struct _ENetPeer cl_enet_peer;
#endif

typedef enum cl_net_event_type {
  CL_NET_NONE = 0,
  CL_NET_CONNECTED,     ///< ENet handshake done / WebSocket open
  CL_NET_RECEIVED,      ///< data/len/channel valid until the next cl_net call
  CL_NET_DISCONNECTED,  ///< the peer is gone (disconnect or timeout); code = ENet's code or
                        ///< the WebSocket close code
} cl_net_event_type;

typedef struct cl_net_event {
  cl_net_event_type type;
  int channel;
  const uint8_t* data;
  size_t len;
  uint32_t code;
} cl_net_event;

#ifdef ARB_CLIENT_WEBSOCKET
// One event of the JavaScript socket, queued until cl_net_poll (data follows the struct).
typedef struct cl_ws_item {
  struct cl_ws_item* next;
  cl_net_event_type type;
  uint32_t code;
  size_t len;
} cl_ws_item;
#endif

typedef struct cl_net {
#ifdef ARB_CLIENT_WEBSOCKET
  int socket;  ///< the JavaScript side's socket id; 0 = none
  bool open;   ///< its open event has been polled
  cl_ws_item *head, *tail;
  cl_ws_item* last;  ///< item of the last RECEIVED event, freed on the next poll
  size_t queued;     ///< bytes waiting in the queue
#else
  cl_enet_host* host;
  cl_enet_peer* peer;
  void* packet;  ///< ENetPacket of the last RECEIVED event, destroyed on the next poll
  bool gating;   ///< running the connection gate; the ENet connect follows
  arb_gate_client gate;
  uint32_t gate_ip;  ///< server address (network order) and port for the gate/connect
  uint16_t gate_port;
  uint32_t timeout_ms;
  uint64_t gate_sent_ms;              ///< when the last gate datagram went out
  uint32_t gate_rtt_ms;               ///< round trip the gate measured (its longest exchange)
  uint32_t last_sent, last_received;  ///< ENet's 32-bit totals at the last accounting
  uint32_t last_sent_packets, last_received_packets;
#endif
  float rtt, rtt_var;    ///< s, smoothed from pongs (rtt_samples > 0), else ENet's
  uint32_t rtt_samples;  ///< pongs measured on this connection
  uint64_t bytes_out, bytes_in, packets_out, packets_in;  ///< 64-bit totals
} cl_net;

/// Create the host (no connection yet). 0 or ARB_E_*.
int cl_net_init(cl_net* n);
void cl_net_deinit(cl_net* n);
/// Start connecting. ENet: to host:port, the connection gate, then the ENet connect (both
/// driven by cl_net_poll); timeout_ms bounds how long ENet waits for acknowledgements (see
/// cl_net_set_timeout). WebSocket: to `url` (host and port unused). 0, ARB_E_INVAL
/// (unresolvable host, no url) or ARB_E_STATE / ARB_E_IO.
int cl_net_connect(cl_net* n, const char* host, uint16_t port, const char* url,
                   uint32_t timeout_ms);
/// ENet's timeouts for unacknowledged reliable commands: at least 5 s / 30 s (more for a
/// larger timeout_ms); the client's own silence check is the fast path.
void cl_net_set_timeout(cl_net* n, uint32_t timeout_ms);
/// Drop the peer at once (ENet: sends one unreliable disconnect carrying `code`; WebSocket:
/// closes with 1000 when `code` is non-zero, a leave, else with 4000 + reason other: lost).
void cl_net_drop(cl_net* n, uint32_t code);
/// Next network event, non-blocking: 1 = *ev filled, 0 = nothing pending, < 0 = error.
int cl_net_poll(cl_net* n, cl_net_event* ev);
/// Queue a packet on a channel: reliable or unsequenced. 0 or ARB_E_*.
int cl_net_send(cl_net* n, int channel, const uint8_t* data, size_t len, bool reliable);
/// Push queued packets out now.
void cl_net_flush(cl_net* n);
/// Smoothed round-trip time and its variance, seconds (0 when not connected): from the
/// samples given to cl_net_rtt_sample, or ENet's estimate before the first one.
void cl_net_rtt(const cl_net* n, float* rtt, float* variance);
/// One round trip measured by the caller (a ping's pong), seconds. Smoothed as TCP does
/// (RFC 6298): the first sample sets it, each later one moves the mean by 1/8 and the mean
/// deviation by 1/4 of the difference.
static inline void cl_net_rtt_sample(cl_net* n, float rtt) {
  if (!(rtt >= 0.0f)) return;
  if (n->rtt_samples++ == 0) {
    n->rtt = rtt;
    n->rtt_var = 0.5f * rtt;
    return;
  }
  float dev = rtt > n->rtt ? rtt - n->rtt : n->rtt - rtt;
  n->rtt_var += 0.25f * (dev - n->rtt_var);
  n->rtt += 0.125f * (rtt - n->rtt);
}
/// The socket descriptor, -1 without a host.
int cl_net_fd(const cl_net* n);
#ifdef ARB_CLIENT_WEBSOCKET
// The JavaScript socket's events, exported by the module (cl_net_ws.c).
/// The socket is open.
void cl_net_ws_on_open(cl_net* n);
/// A binary message of `len` bytes arrived: returns where to copy it (synchronously,
/// before anything else runs in the module), or NULL when it cannot be kept (the link is
/// then reported lost and the socket closed).
uint8_t* cl_net_ws_on_message(cl_net* n, size_t len);
/// The socket closed: its close code (1006 when it ended without a close frame).
void cl_net_ws_on_close(cl_net* n, int code);
#endif

/// Update the 64-bit byte and packet totals (ENet: from its wrapping counters).
void cl_net_account(cl_net* n);
