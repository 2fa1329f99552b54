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

sv_admit sv_input_admit(sv_input_state* s, const sv_input_limits* lim, size_t bytes,
                        uint64_t now_ns) {
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

// Insert keeping seq ascending; a full queue drops its oldest command (the newest matter).
static bool queue_insert(sv_input_state* s, const arb_proto_input_cmd* cmd) {
  int at = s->queued;
  while (at > 0 && s->queue[at - 1].seq > cmd->seq) at--;
  if (at > 0 && s->queue[at - 1].seq == cmd->seq) return false;  // a redundant copy
  if (s->queued == SV_INPUT_QUEUE) {
    if (at == 0) return false;  // older than everything in a full queue
    memmove(&s->queue[0], &s->queue[1], (size_t)(at - 1) * sizeof s->queue[0]);
    at--;
    s->queued--;
  } else {
    memmove(&s->queue[at + 1], &s->queue[at], (size_t)(s->queued - at) * sizeof s->queue[0]);
  }
  s->queue[at] = *cmd;
  s->queued++;
  return true;
}

bool sv_input_offer(sv_input_state* s, const arb_proto_input* msg) {
  bool any = false;
  // Oldest first, so a full queue keeps the newest.
  for (int i = msg->count - 1; i >= 0; i--) {
    if (msg->cmds[i].seq <= s->applied_seq) continue;
    any |= queue_insert(s, &msg->cmds[i]);
  }
  return any;
}

bool sv_input_take(sv_input_state* s, uint32_t tick, arb_proto_input_cmd* out) {
  if (s->queued == 0) return false;
  int due = 0;  // queue[0..due) is due now
  if ((uint64_t)s->queue[s->queued - 1].seq > (uint64_t)tick + SV_INPUT_HORIZON) {
    due = s->queued;
  } else {
    while (due < s->queued && s->queue[due].seq <= tick) due++;
  }
  if (due == 0) return false;
  for (int i = 0; i < due; i++)
    if (s->queue[i].seq < tick) s->late++;
  *out = s->queue[due - 1];
  s->applied_seq = out->seq;
  memmove(&s->queue[0], &s->queue[due], (size_t)(s->queued - due) * sizeof s->queue[0]);
  s->queued -= due;
  return true;
}
