// Input commands (see cl_input.h).
#include "cl_input.h"

#include <math.h>
#include <string.h>

void cl_input_init(cl_input* in, int redundancy) {
  memset(in, 0, sizeof *in);
  if (redundancy < 1) redundancy = 1;
  if (redundancy > ARB_PROTO_MAX_INPUTS) redundancy = ARB_PROTO_MAX_INPUTS;
  in->redundancy = redundancy;
  arb_controls zero;
  memset(&zero, 0, sizeof zero);
  in->current = arb_proto_quantize_controls(&zero);
  in->snapped = arb_proto_dequantize_controls(&in->current);
}

void cl_input_restart(cl_input* in) {
  in->recent_count = 0;
  in->unsent = 0;
  in->seq = 0;
  in->packet_seq = 0;
}

int cl_input_set(cl_input* in, const arb_controls* c) {
  if (!isfinite(c->move_x) || !isfinite(c->move_y) || !isfinite(c->aim) || !isfinite(c->steer) ||
      !isfinite(c->throttle) || !isfinite(c->brake))
    return ARB_E_NONFINITE;
  in->current = arb_proto_quantize_controls(c);
  in->snapped = arb_proto_dequantize_controls(&in->current);
  return 0;
}

int cl_input_make(cl_input* in, uint32_t tick) {
  if (tick <= in->seq) return 0;
  // The first command, or far behind (a stalled application): skip ahead instead of
  // catching up; the server holds the controls over the ticks without a command.
  if (in->seq == 0) in->seq = tick - 1;
  if (tick - in->seq > ARB_PROTO_MAX_INPUTS) in->seq = tick - ARB_PROTO_MAX_INPUTS;
  int made = (int)(tick - in->seq);
  for (int k = 0; k < made; k++) {
    memmove(&in->recent[1], &in->recent[0], (ARB_PROTO_MAX_INPUTS - 1) * sizeof in->recent[0]);
    in->recent[0].seq = ++in->seq;
    in->recent[0].controls = in->current;
    in->recent[0].view_time = (in->current.buttons & ARB_BUTTON_FIRE) ? in->view_time : 0;
    if (in->recent_count < ARB_PROTO_MAX_INPUTS) in->recent_count++;
  }
  in->unsent += made;
  // More than a packet holds: the oldest are lost (the server holds the controls over them).
  if (in->unsent > ARB_PROTO_MAX_INPUTS) in->unsent = ARB_PROTO_MAX_INPUTS;
  return made;
}

void cl_input_packet(cl_input* in, uint32_t ack_tick, arb_proto_input* msg) {
  memset(msg, 0, sizeof *msg);
  msg->packet_seq = ++in->packet_seq;
  msg->ack_tick = ack_tick;
  msg->count = in->recent_count < in->redundancy ? in->recent_count : in->redundancy;
  if (msg->count < in->unsent) msg->count = in->unsent;  // never skip a tick
  for (int i = 0; i < msg->count; i++) msg->cmds[i] = in->recent[i];
  in->unsent = 0;
}
