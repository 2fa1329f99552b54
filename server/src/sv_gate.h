// The connection gate (PROTOCOL.md §1.1, docs/SECURITY.md): the stateless cookie exchange
// that proves a client's source address before ENet is allowed to create a peer for it,
// plus the per-address rate limit on connections.
//
// Nothing is stored for a request: the challenge's cookie is a keyed MAC (BLAKE2b, a
// random key per server start) over the address, the time and the client's nonce. Only a
// valid response creates state, an "admission" for that exact address and port, which
// lets one ENet CONNECT through for SV_GATE_ADMIT_MS. Both tables are fixed-size hash
// tables: under pressure old entries are overwritten, nothing grows.
//
// Whose budget pays: a request's source address is unproven (anyone can forge it), so a
// request is charged to no address. Answering it is safe (the challenge is smaller than the
// request, and nothing is stored), so requests are limited only by one server-wide
// challenge budget that bounds the server's own output. The per-address budget is charged
// only by a response whose cookie verifies, which proves the sender receives at that
// address: a forger who never sees the challenges cannot spend it (docs/SECURITY.md, W5).
#pragma once

#include <arbiter/gate.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SV_GATE_ADMIT_MS 5000      ///< an admission lets a CONNECT in for this long
#define SV_GATE_COOKIE_SECONDS 10  ///< a challenge's cookie stays valid this long
#define SV_GATE_RATE_SLOTS 4096    ///< addresses tracked by the attempt limiter
#define SV_GATE_ADMIT_SLOTS 1024   ///< admissions held at once
/// Challenges sent per second by the whole server (burst: 1 s worth): at most 800 KB/s of
/// 40-byte challenges, for at least 1.28 MB/s of 64-byte requests that caused them.
#define SV_GATE_CHALLENGES_PER_SECOND 20000
/// What one admission costs its address's budget: the two datagrams of the exchange
/// (request and response), charged when the response proves the address.
#define SV_GATE_ADMISSION_COST 2.0f

typedef enum sv_gate_result {
  SV_GATE_IGNORE = 0,    ///< consumed, no reply
  SV_GATE_REPLY,         ///< consumed; send `reply` to the sender
  SV_GATE_RATE_LIMITED,  ///< consumed; a proven address over its connection rate
  SV_GATE_BUSY,          ///< consumed; a request beyond the server-wide challenge budget
  SV_GATE_BAD,  ///< consumed; malformed datagram, unknown kind, or a cookie that does not verify
} sv_gate_result;

typedef struct sv_gate_slot {
  uint64_t key;         ///< (ip << 16 | port) for admissions, ip for the limiter; 0 = empty
  uint64_t stamp_ms;    ///< limiter: last refill; admission: expiry
  uint64_t nonce;       ///< admission: the exchange's nonce (a resent response is free)
  float tokens;         ///< limiter only
  uint32_t connect_id;  ///< admission: the CONNECT that used it (0 = unused)
} sv_gate_slot;

typedef struct sv_gate {
  uint8_t key[32];
  float attempts_per_second;    ///< per proven IP, SV_GATE_ADMISSION_COST each; burst = 2 s worth
  float challenge_tokens;       ///< server-wide challenge budget left, <= 1 s worth
  uint64_t challenge_stamp_ms;  ///< last refill of challenge_tokens
  sv_gate_slot rate[SV_GATE_RATE_SLOTS];
  sv_gate_slot admit[SV_GATE_ADMIT_SLOTS];
} sv_gate;

/// A fresh random key. Returns 0, or -1 when libsodium cannot initialise.
int sv_gate_init(sv_gate* g, int attempts_per_second);
/// A gate datagram from ip:port (network-order ip as ENet stores it): a request is answered
/// within the server-wide challenge budget, a verified response within ip's budget (a
/// resent response for an admission already given is answered free). On SV_GATE_REPLY,
/// reply (ARB_GATE_REQUEST_SIZE bytes of room) holds *reply_len bytes, never more than len.
sv_gate_result sv_gate_on_datagram(sv_gate* g, uint32_t ip, uint16_t port, const uint8_t* data,
                                   size_t len, uint64_t now_ms, uint8_t* reply, size_t* reply_len);
/// May an ENet CONNECT with this connectID from ip:port go through? True when the address
/// holds an unused admission (which the CONNECT then uses) or one used by the same
/// connectID (ENet retransmits its CONNECT until it is answered).
bool sv_gate_take_connect(sv_gate* g, uint32_t ip, uint16_t port, uint32_t connect_id,
                          uint64_t now_ms);
