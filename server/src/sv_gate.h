// The connection gate (PROTOCOL.md §1.1, docs/SECURITY.md): the stateless cookie exchange
// that proves a client's source address before ENet is allowed to create a peer for it,
// plus the per-address rate limit on connection attempts.
//
// Nothing is stored for a request: the challenge's cookie is a keyed MAC (BLAKE2b, a
// random key per server start) over the address, the time and the client's nonce. Only a
// valid response creates state, an "admission" for that exact address and port, which
// lets one ENet CONNECT through for SV_GATE_ADMIT_MS. Both tables are fixed-size hash
// tables: under pressure old entries are overwritten, nothing grows.
#pragma once

#include <arbiter/gate.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SV_GATE_ADMIT_MS 5000      ///< an admission lets a CONNECT in for this long
#define SV_GATE_COOKIE_SECONDS 10  ///< a challenge's cookie stays valid this long
#define SV_GATE_RATE_SLOTS 4096    ///< addresses tracked by the attempt limiter
#define SV_GATE_ADMIT_SLOTS 1024   ///< admissions held at once

typedef enum sv_gate_result {
  SV_GATE_IGNORE = 0,    ///< consumed, no reply
  SV_GATE_REPLY,         ///< consumed; send `reply` to the sender
  SV_GATE_RATE_LIMITED,  ///< consumed; the address is over its attempt rate
  SV_GATE_BAD,  ///< consumed; malformed datagram, unknown kind, or a cookie that does not verify
} sv_gate_result;

typedef struct sv_gate_slot {
  uint64_t key;         ///< (ip << 16 | port) for admissions, ip for the limiter; 0 = empty
  uint64_t stamp_ms;    ///< limiter: last refill; admission: expiry
  float tokens;         ///< limiter only
  uint32_t connect_id;  ///< admission: the CONNECT that used it (0 = unused)
} sv_gate_slot;

typedef struct sv_gate {
  uint8_t key[32];
  float attempts_per_second;  ///< per source IP; burst = 2 s worth
  sv_gate_slot rate[SV_GATE_RATE_SLOTS];
  sv_gate_slot admit[SV_GATE_ADMIT_SLOTS];
} sv_gate;

/// A fresh random key. Returns 0, or -1 when libsodium cannot initialise.
int sv_gate_init(sv_gate* g, int attempts_per_second);
/// A gate datagram from ip:port (network-order ip as ENet stores it). On SV_GATE_REPLY,
/// reply (ARB_GATE_REQUEST_SIZE bytes of room) holds *reply_len bytes, never more than len.
sv_gate_result sv_gate_on_datagram(sv_gate* g, uint32_t ip, uint16_t port, const uint8_t* data,
                                   size_t len, uint64_t now_ms, uint8_t* reply, size_t* reply_len);
/// May an ENet CONNECT with this connectID from ip:port go through? True when the address
/// holds an unused admission (which the CONNECT then uses) or one used by the same
/// connectID (ENet retransmits its CONNECT until it is answered).
bool sv_gate_take_connect(sv_gate* g, uint32_t ip, uint16_t port, uint32_t connect_id,
                          uint64_t now_ms);
