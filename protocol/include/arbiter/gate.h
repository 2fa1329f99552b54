// arbiter — the connection gate: the stateless pre-handshake a client runs on the server's
// UDP port before its ENet connect (PROTOCOL.md §1.1). Plain datagrams, no ENet, no msgpack:
//
//   client                                   server
//     |-- request  (64 B, nonce) ------------->|  stateless: nothing is stored
//     |<- challenge (40 B, nonce, cookie) -----|  cookie = MAC(address, time, nonce)
//     |-- response (64 B, nonce, cookie) ----->|  cookie checked: the address is proven
//     |<- admitted (16 B, nonce) --------------|  this address may send one ENet CONNECT
//     |-- ENet connect ----------------------->|  (a CONNECT from anyone else is dropped)
//
// Every reply is smaller than the datagram that caused it, so a spoofed source address
// gets at most one datagram no larger than what the attacker sent. This header only
// encodes and decodes the datagrams; the cookie's MAC is the server's business and
// opaque to clients, which echo it byte for byte.
#pragma once

#include <arbiter/base.h>
#include <stddef.h>
#include <stdint.h>

ARB_C_BEGIN

/// The first two bytes read as an ENet header whose "compressed" flag is set: a server
/// without a compressor (arbiter's) drops such a datagram, so a gate datagram can never
/// be mistaken for ENet traffic, nor ENet traffic for a gate datagram.
#define ARB_GATE_MAGIC0 0x7Fu
#define ARB_GATE_MAGIC1 0xFFu
#define ARB_GATE_VERSION 1u

#define ARB_GATE_REQUEST_SIZE 64  ///< zero padding makes it larger than any reply
#define ARB_GATE_CHALLENGE_SIZE 40
#define ARB_GATE_RESPONSE_SIZE 64
#define ARB_GATE_ADMITTED_SIZE 16
#define ARB_GATE_COOKIE_SIZE 24  ///< opaque to the client

typedef enum arb_gate_kind {
  ARB_GATE_REQUEST = 1,    ///< client -> server
  ARB_GATE_CHALLENGE = 2,  ///< server -> client
  ARB_GATE_RESPONSE = 3,   ///< client -> server
  ARB_GATE_ADMITTED = 4,   ///< server -> client
} arb_gate_kind;

/// One decoded gate datagram. `cookie` is meaningful for challenge and response,
/// `proto_version` for request.
typedef struct arb_gate_msg {
  arb_gate_kind kind;
  uint32_t proto_version;  ///< request: the protocol version the client will speak
  uint64_t nonce;          ///< chosen by the client, echoed in every reply
  uint8_t cookie[ARB_GATE_COOKIE_SIZE];
} arb_gate_msg;

/// True when data starts with the gate magic (the datagram is the gate's, not ENet's).
int arb_gate_is_gate(const uint8_t* data, size_t len);
/// Encode m into buf (cap >= the kind's size). Returns the size written, ARB_E_INVAL
/// (unknown kind) or ARB_E_NOSPACE.
int arb_gate_encode(const arb_gate_msg* m, uint8_t* buf, size_t cap);
/// Decode one datagram. Exact sizes only; padding must be zero. 0 or ARB_E_CORRUPT.
int arb_gate_decode(const uint8_t* data, size_t len, arb_gate_msg* out);

// ---- the client's side, without sockets ----------------------------------------------
// The caller owns the socket: it sends what arb_gate_client_next gives and feeds every
// datagram from the server to arb_gate_client_receive until the state is ADMITTED, then
// starts its ENet connect from the same socket (the admission is for that address/port).

#define ARB_GATE_RETRY_MS 200  ///< resend the request/response after this long without a reply

typedef enum arb_gate_client_state {
  ARB_GATE_CLIENT_REQUESTING = 0,  ///< sending requests, waiting for a challenge
  ARB_GATE_CLIENT_RESPONDING,      ///< sending the response, waiting for admitted
  ARB_GATE_CLIENT_ADMITTED,        ///< done: connect with ENet now
} arb_gate_client_state;

typedef struct arb_gate_client {
  arb_gate_client_state state;
  uint32_t proto_version;
  uint64_t nonce;
  uint8_t cookie[ARB_GATE_COOKIE_SIZE];
  uint64_t next_send_ms;  ///< 0 = send at once
} arb_gate_client;

/// Begin: nonce should be random (it lets the client ignore replies to someone else).
void arb_gate_client_start(arb_gate_client* c, uint64_t nonce, uint32_t proto_version);
/// The datagram to send now, if any: returns its size (written to out, cap >= 64) or 0.
int arb_gate_client_next(arb_gate_client* c, uint64_t now_ms, uint8_t* out, size_t cap);
/// A datagram from the server. Returns 1 when it moved the state on, else 0 (ignored).
int arb_gate_client_receive(arb_gate_client* c, const uint8_t* data, size_t len);

ARB_C_END
