// cl_net — the client's ENet transport: one ENet host with one peer per arb_client (so
// several clients in a process never share sockets or state). A connect first runs the
// server's connection gate (arbiter/gate.h, PROTOCOL.md §1.1) on the host's own socket,
// then the ENet connect from that same socket. Non-blocking only:
// enet_host_service with timeout 0, drained until empty. Host names are resolved with
// ENet (numeric IPv4 addresses never block; a DNS name may, once per connect).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <arbiter/gate.h>

typedef struct _ENetHost cl_enet_host;
typedef struct _ENetPeer cl_enet_peer;

typedef enum cl_net_event_type {
  CL_NET_NONE = 0,
  CL_NET_CONNECTED,     ///< ENet handshake done
  CL_NET_RECEIVED,      ///< data/len/channel valid until the next cl_net call
  CL_NET_DISCONNECTED,  ///< the peer is gone (disconnect or timeout); data = ENet's code
} cl_net_event_type;

typedef struct cl_net_event {
  cl_net_event_type type;
  int channel;
  const uint8_t* data;
  size_t len;
  uint32_t code;
} cl_net_event;

typedef struct cl_net {
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
  float rtt, rtt_var;                 ///< s, smoothed from pongs (rtt_samples > 0), else ENet's
  uint32_t rtt_samples;               ///< pongs measured on this connection
  uint32_t last_sent, last_received;  ///< ENet's 32-bit totals at the last accounting
  uint32_t last_sent_packets, last_received_packets;
  uint64_t bytes_out, bytes_in, packets_out, packets_in;  ///< 64-bit totals
} cl_net;

/// Create the host (no connection yet). 0 or ARB_E_*.
int cl_net_init(cl_net* n);
void cl_net_deinit(cl_net* n);
/// Start connecting to host:port: the connection gate, then the ENet connect (both driven
/// by cl_net_poll); timeout_ms bounds how long ENet waits for acknowledgements (see
/// cl_net_set_timeout). 0, ARB_E_INVAL (unresolvable host) or ARB_E_STATE.
int cl_net_connect(cl_net* n, const char* host, uint16_t port, uint32_t timeout_ms);
/// ENet's timeouts for unacknowledged reliable commands: at least 5 s / 30 s (more for a
/// larger timeout_ms); the client's own silence check is the fast path.
void cl_net_set_timeout(cl_net* n, uint32_t timeout_ms);
/// Drop the peer at once (sends one unreliable disconnect carrying `code`).
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
/// One round trip measured by the caller (a ping's pong), seconds.
void cl_net_rtt_sample(cl_net* n, float rtt);
/// The socket descriptor, -1 without a host.
int cl_net_fd(const cl_net* n);
/// Update the 64-bit byte and packet totals from ENet's wrapping counters.
void cl_net_account(cl_net* n);
