// cl_client — the arb_client object: configuration, the connection state machine and the
// glue between transport (cl_net), snapshots (cl_snapshot), interpolation (cl_interp),
// clock (cl_clock), input (cl_input), prediction (cl_predict), events (cl_events) and
// statistics (cl_stats).
//
//   DISCONNECTED --connect--> CONNECTING --welcome--> CONNECTED
//        ^                      |  reject               | link lost / server disconnect
//        |<---------------------+                       v
//        |<--disconnect()-- RECONNECT_WAIT <------------+ (backoff doubles per attempt,
//                              | delay over                reset by a welcome)
//                              +--> CONNECTING
//
// A link is lost when ENet reports a disconnect or timeout, when nothing arrives for
// config.timeout seconds, or when a connect is not welcomed within connect_timeout.
// Rejections, kicks and version mismatches do not reconnect; everything else does when
// auto_reconnect is on.
#pragma once

#include <arbiter/client.h>
#include <arbiter/protocol.h>

#include "cl_clock.h"
#include "cl_events.h"
#include "cl_input.h"
#include "cl_interp.h"
#include "cl_mem.h"
#include "cl_net.h"
#include "cl_predict.h"
#include "cl_snapshot.h"
#include "cl_stats.h"

struct arb_client {
  arb_client_config cfg;  ///< strings point into the copies below
  char host[256];
  char url[ARB_CLIENT_MAX_URL + 1];
  char name[ARB_PROTO_MAX_NAME + 1];
  uint8_t token[ARB_PROTO_MAX_TOKEN];
  int token_len;
  char rejoin[ARB_PROTO_MAX_TEXT + 1];  ///< rejoin token from the server ("" = none): sent
                                        ///< instead of `token` when reconnecting
  // After an event `moved`, until the new server welcomes us back as ourselves: where the
  // match was (ENet host and port, or the WebSocket URL: both kept, whichever the
  // transport uses), to go back to if the new server cannot be reached (CL_MOVE_FALLBACK_S).
  bool moving;
  char moved_from_host[256];
  uint16_t moved_from_port;
  char moved_from_url[ARB_CLIENT_MAX_URL + 1];
  double moved_at;
  uint32_t moved_client_id;
  cl_mem mem;
  arb_proto_view view;  ///< the camera box to report (arb_client_set_view_box); kept
                        ///< across reconnects and re-sent after each welcome

  arb_client_state state;
  double now;           ///< latest update time
  double state_since;   ///< when the current state began
  double last_receive;  ///< last packet from the server
  double reconnect_at;  ///< RECONNECT_WAIT: when to try again
  float backoff;        ///< next reconnect delay, seconds
  bool have_now;

  cl_net net;
  cl_snapshots snaps;
  cl_interp interp;
  cl_clock clock;
  cl_input input;
  cl_events events;
  cl_predict predict;

  arb_client_session session;
  arb_client_static_body* statics;
  int static_count;
  uint32_t clock_tick;           ///< newest snapshot tick fed to the clock
  uint32_t last_input_seq;       ///< server's newest applied input for us
  uint32_t acked_tick;           ///< ack_tick of the newest input packet sent
  double input_sent_at;          ///< local time of the newest input packet sent
  double sample_time;            ///< server time of the last arb_client_sample
  bool sampled_own;              ///< the last arb_client_sample drew the own avatar predicted:
  arb_transform sampled_own_xf;  ///< ... at this pose (links and wheels on it follow it)
  double welcome_time;           ///< local time the welcome arrived (clock before any snapshot)
  double lead;                   ///< s, commands are made this far ahead of the server time
  double lead_time;              ///< local time the lead was last updated
  int lead_extra_ticks;          ///< added after late commands, taken back after calm periods
  double lead_calm_since;
  uint64_t late_seen;  ///< predict.late_commands already reacted to
  double ping_epoch;   ///< local time the connection began: pings carry time since then
  double next_ping;    ///< when the next ping is due
  uint32_t ping_id;    ///< of the newest ping sent on this connection

  // statistics
  cl_rate snap_rate, in_rate, out_rate;
  cl_loss loss;
  uint64_t decode_errors;  ///< non-snapshot decode failures (snapshot ones live in snaps)
  uint64_t inputs_sent;
  uint32_t connects, reconnects;
  char last_error[192];

  uint8_t buf[ARB_PROTO_MAX_PAYLOAD];  ///< encode scratch for hello and input
};
