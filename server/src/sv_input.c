// Per-client input slot and rate limits (see sv_input.h).
#include "sv_input.h"

#include <string.h>

static double burst(int per_second) {
  double b = per_second * 0.5;
  return b < 4.0 ? 4.0 : b;
}

void sv_input_init(sv_input_state* s, const sv_input_limits* lim, uint64_t now_ns) {
  memset(s, 0, sizeof *s);
  s->packet_tokens = burst(lim->packets_per_second);
  s->byte_tokens = burst(lim->bytes_per_second);
  s->refill_ns = now_ns;
}

sv_admit sv_input_admit(sv_input_state* s, const sv_input_limits* lim, size_t bytes, uint64_t now_ns) {
  if (now_ns > s->refill_ns) {
    double dt = (double)(now_ns - s->refill_ns) * 1e-9;
    s->packet_tokens += dt * lim->packets_per_second;
    s->byte_tokens += dt * lim->bytes_per_second;
    double pb = burst(lim->packets_per_second), bb = burst(lim->bytes_per_second);
    if (s->packet_tokens > pb) s->packet_tokens = pb;
    if (s->byte_tokens > bb) s->byte_tokens = bb;
    s->refill_ns = now_ns;
  }
  if (s->packet_tokens < 1.0) return SV_ADMIT_OVER_PACKETS;
  if (s->byte_tokens < (double)bytes) return SV_ADMIT_OVER_BYTES;
  s->packet_tokens -= 1.0;
  s->byte_tokens -= (double)bytes;
  return SV_ADMIT_OK;
}

bool sv_input_offer(sv_input_state* s, const arb_proto_input* msg) {
  uint32_t newest_known = s->pending_seq > s->applied_seq ? s->pending_seq : s->applied_seq;
  // Commands are newest first (the decoder checks seq strictly decreases): the first one
  // decides; the redundant copies behind it are older by construction.
  if (msg->count <= 0 || msg->cmds[0].seq <= newest_known) return false;
  s->pending_seq = msg->cmds[0].seq;
  s->pending = msg->cmds[0].controls;
  return true;
}

bool sv_input_take(sv_input_state* s, arb_proto_input_cmd* out) {
  if (s->pending_seq == 0 || s->pending_seq <= s->applied_seq) return false;
  out->seq = s->pending_seq;
  out->controls = s->pending;
  s->applied_seq = s->pending_seq;
  s->pending_seq = 0;
  return true;
}
