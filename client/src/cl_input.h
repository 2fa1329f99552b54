// cl_input — the client's input stream: controls quantized exactly as the server does
// (arb_proto_quantize_controls), one command per server tick, its sequence number being
// the server tick it is meant for, and each packet carrying the newest N commands so a
// lost packet costs nothing.
//
//   tick:     ... 41   42   43   44        packet at tick 44 (N = 4):
//   commands:      c41  c42  c43  c44  ->   cmds = [c44, c43, c42, c41] (newest first)
//
// Making commands and sending them are apart: the caller makes the commands every tick
// (cl_input_make: up to the estimated server tick plus the lead that makes them arrive in
// time) and sends a packet every tick or, with a capped input rate, every few ticks
// (cl_input_packet: it carries every command made since the last packet). When an update
// comes late, the missed ticks still get their commands (at most ARB_PROTO_MAX_INPUTS per
// update, so a stalled application does not flood the server afterwards).
#pragma once

#include <arbiter/protocol.h>

typedef struct cl_input {
  arb_proto_controls_q current;                      ///< quantized controls, held until replaced
  arb_controls snapped;                              ///< what the server will apply
  arb_proto_input_cmd recent[ARB_PROTO_MAX_INPUTS];  ///< newest first
  int recent_count;
  int unsent;           ///< commands made since the last packet (0..ARB_PROTO_MAX_INPUTS)
  uint32_t seq;         ///< newest command's sequence number = its tick (0 = none yet)
  uint32_t packet_seq;  ///< newest packet's sequence number
  int redundancy;       ///< commands per packet, 1..ARB_PROTO_MAX_INPUTS
  uint64_t view_time;   ///< stamped on new commands with the fire button (1/256 ticks)
} cl_input;

void cl_input_init(cl_input* in, int redundancy);
/// Start a new stream (new connection).
void cl_input_restart(cl_input* in);
/// ARB_E_NONFINITE for NaN/Inf values; otherwise quantize and hold.
int cl_input_set(cl_input* in, const arb_controls* c);
/// Commands for the ticks after the newest one up to `tick`: appends them (recent[0] is
/// the newest). Returns the number of new commands (0 = none due yet).
int cl_input_make(cl_input* in, uint32_t tick);
/// Fills *msg with the next packet: the newest `redundancy` commands, and at least every
/// one made since the last packet.
void cl_input_packet(cl_input* in, uint32_t ack_tick, arb_proto_input* msg);
