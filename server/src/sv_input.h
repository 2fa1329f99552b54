// Per-client input handling: rate limits (token buckets for packets/s and bytes/s), the
// newest-by-sequence input slot, deduplication of the redundant copies clients send, and
// the malformed-message strike count.
//
// Each input packet carries the client's last few commands (newest first). Only the newest
// command with a sequence number above everything seen so far is kept; at the tick
// boundary it is applied once (recorded as applied) and the game holds those controls
// until a newer one arrives. Older or repeated commands are dropped as "stale".
#pragma once

#include <arbiter/protocol.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct sv_input_limits {
  int packets_per_second;  ///< bucket refill rate; burst = half a second's worth
  int bytes_per_second;
} sv_input_limits;

typedef struct sv_input_state {
  uint32_t applied_seq;   ///< newest seq applied to the game, 0 = none
  uint32_t pending_seq;   ///< newest seq received and not applied yet, 0 = none
  arb_proto_controls_q pending;
  double packet_tokens, byte_tokens;
  uint64_t refill_ns;     ///< time of the last refill
  uint32_t strikes;       ///< malformed or unexpected messages so far
} sv_input_state;

typedef enum sv_admit {
  SV_ADMIT_OK = 0,
  SV_ADMIT_OVER_PACKETS,  ///< packets/s limit reached
  SV_ADMIT_OVER_BYTES,    ///< bytes/s limit reached
} sv_admit;

void sv_input_init(sv_input_state* s, const sv_input_limits* lim, uint64_t now_ns);
/// Charge one packet of `bytes` against the buckets; refuses (charging nothing) when over.
sv_admit sv_input_admit(sv_input_state* s, const sv_input_limits* lim, size_t bytes, uint64_t now_ns);
/// Offer a decoded input message. Returns true when it carried a command newer than any
/// seen (now pending), false when every command was stale (a duplicate or out of order).
bool sv_input_offer(sv_input_state* s, const arb_proto_input* msg);
/// At the tick boundary: the pending command, if any, becomes applied. Returns true and
/// fills *out when there is one to apply this tick.
bool sv_input_take(sv_input_state* s, arb_proto_input_cmd* out);
