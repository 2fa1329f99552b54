// Per-client input handling: rate limits (token buckets for packets/s and bytes/s), the
// queue of commands waiting for their tick, deduplication of the redundant copies clients
// send, and the malformed-message strike count.
//
// A command's sequence number names the server tick it is meant for (PROTOCOL.md, input):
// a predicting client runs ahead of the server and stamps each command with the tick at
// which it simulated it. Each input packet carries the client's last few commands (newest
// first); every one not applied or queued yet is queued, so a lost packet costs nothing.
// At the boundary of tick T the newest queued command with seq <= T is applied once
// (recorded as applied) and older ones are dropped; the game holds those controls until
// the next. A command whose tick had passed when it was applied or dropped is "late" (it
// was simulated by the client at another tick than the server's). A seq more than
// SV_INPUT_HORIZON ticks ahead is not waited for: it is due at once (a client that counts
// its commands from 1 instead of stamping ticks gets the newest command every tick).
#pragma once

#include <arbiter/protocol.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct sv_input_limits {
  int packets_per_second;  ///< bucket refill rate; burst = half a second's worth
  int bytes_per_second;
} sv_input_limits;

#define SV_INPUT_QUEUE 64    ///< commands waiting for their tick, per client
#define SV_INPUT_HORIZON 64  ///< ticks ahead a command may wait (about 1 s at 60 Hz)

typedef struct sv_input_state {
  uint32_t applied_seq;                       ///< newest seq applied to the game, 0 = none
  arb_proto_input_cmd queue[SV_INPUT_QUEUE];  ///< seq ascending, all > applied_seq
  int queued;
  uint64_t late;  ///< commands applied or dropped after the tick they named
  double packet_tokens, byte_tokens;
  uint64_t refill_ns;  ///< time of the last refill
  uint32_t strikes;    ///< malformed or unexpected messages so far
} sv_input_state;

typedef enum sv_admit {
  SV_ADMIT_OK = 0,
  SV_ADMIT_OVER_PACKETS,  ///< packets/s limit reached
  SV_ADMIT_OVER_BYTES,    ///< bytes/s limit reached
} sv_admit;

void sv_input_init(sv_input_state* s, const sv_input_limits* lim, uint64_t now_ns);
/// Charge one packet of `bytes` against the buckets; refuses (charging nothing) when over.
sv_admit sv_input_admit(sv_input_state* s, const sv_input_limits* lim, size_t bytes,
                        uint64_t now_ns);
/// Offer a decoded input message. Returns true when it carried a command not applied or
/// queued yet (now queued), false when every command was stale (duplicates, old copies).
bool sv_input_offer(sv_input_state* s, const arb_proto_input* msg);
/// At the boundary of `tick` (the tick the step will reach): the newest command due, if
/// any, becomes applied. Returns true and fills *out when there is one to apply.
bool sv_input_take(sv_input_state* s, uint32_t tick, arb_proto_input_cmd* out);
