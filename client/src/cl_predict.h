// cl_predict — the own avatar, predicted: a local game built from the scene the server
// sent, stepped through arb_game_apply_tick (the server's own tick applier) with the
// client's quantized commands the moment they are made, and reconciled with every
// snapshot.
//
//   server tick:   ... T ............................. P   (P = newest predicted tick)
//   local history:     [image T][image T+1] ... [image P]  one game image per tick
//   snapshot of T:     restore image T, put the server's other dynamic bodies in, and
//                      quantize(predicted avatar at T) == server's?  yes: keep ours
//                      no: put the server's avatar state in (a correction)
//                      then re-simulate T+1..P with the commands kept for them ("snap the
//                      simulation") and fade the drawn difference out ("smooth the drawing")
//
// Commands are stamped with the server tick they are meant for (PROTOCOL.md, input), so
// the prediction applies command k at tick k exactly as the server does when it arrives in
// time: with the same start state (the scene message carries the avatar's exact floats)
// and the same commands, the predicted trajectory is the server's, bit for bit, as long
// as nothing the client does not simulate touches the avatar. Other entities are not
// predicted (they stay interpolated); the local world's other bodies only serve as
// obstacles, placed as the newest snapshot has them. Other players' avatars near ours are
// in the local world as bodies put back before every tick (cl_predict_proxy.h): running
// into one is predicted as far as its newest snapshot state, carried forward, is right.
#pragma once

#include <arbiter/client.h>
#include <arbiter/game.h>
#include <arbiter/protocol.h>

#include "cl_mem.h"
#include "cl_predict_proxy.h"

#define CL_PREDICT_HISTORY 128  ///< ticks of history kept (about 2 s at 60 Hz)

typedef struct cl_predict_tick {
  uint32_t tick;          ///< server tick this entry is for; 0 = empty
  arb_controls controls;  ///< what the avatar's controls were at this tick
  bool has_command;       ///< a command was made for this tick (else held controls)
  arb_vec2 position;      ///< avatar after the tick
  float angle;
  arb_vec2 velocity;
  float angular_velocity;
  bool touching;   ///< the avatar touches a non-static body after the tick
  uint8_t* image;  ///< arb_game_save after the tick
  int image_len, image_cap;
} cl_predict_tick;

#define CL_PREDICT_CHECKS 64  ///< comparisons with the server kept (arb_client_get_predict_checks)

typedef struct cl_predict_check {
  uint32_t tick;
  bool agree, touching;
  arb_snapshot_state predicted, server;  ///< quantized as on the wire
} cl_predict_check;

typedef struct cl_predict_params {
  float smoothing;      ///< s, time constant of the drawn error fade
  float snap_distance;  ///< m, corrections larger than this are drawn as a jump
} cl_predict_params;

// What prediction has measured so far (arb_client_stats reads it).
typedef struct cl_predict_stats {
  uint64_t checks, corrections, snaps, late_commands;
  float last_error, max_error;
  bool last_error_free;   ///< the last check's tick had the avatar touching only the level
  float max_correction;   ///< m, largest jump of the simulated avatar by a correction
  uint64_t motion_count;  ///< input changes drawn
  float motion_last;      ///< s, the last one's input-to-motion time
} cl_predict_stats;

typedef struct cl_predict {
  cl_mem mem;
  cl_predict_params params;
  arb_scene* scene;
  arb_game* game;
  uint32_t client_id;
  arb_body_id avatar;
  uint32_t tick;      ///< server tick the local game is at; 0 = not predicting
  arb_controls held;  ///< controls in effect (the server holds them the same way)
  cl_predict_tick ring[CL_PREDICT_HISTORY];
  cl_proxies proxies;  ///< the other avatars near ours, put back before every tick
  bool drawn;          ///< the predicted avatar has been drawn since the start
  arb_vec2 offset;     ///< drawn = simulated + offset; fades to 0
  float angle_offset;
  double offset_time;  ///< local time the offset was last faded
  // input-to-motion: a change of controls, until the first drawn frame that shows it
  bool change_pending;   ///< a change not drawn yet
  uint32_t change_tick;  ///< first tick simulated with the changed controls; 0 = not yet
  double change_time;
  cl_predict_stats stats;  ///< kept across a reconnect (cl_predict_stop), as are the checks
  /// The last comparisons with the server, the newest at (stats.checks - 1) % size.
  cl_predict_check checks[CL_PREDICT_CHECKS];
  char error[256];  ///< why prediction is off, "" when on
} cl_predict;

void cl_predict_init(cl_predict* p, const cl_mem* mem, const cl_predict_params* params);
/// Free the local game and history (prediction off until the next start).
void cl_predict_stop(cl_predict* p);
/// Build the local game from a scene message and place the avatar at its exact state.
/// `kind` is the avatar kind the client asked for; `tick_rate` the welcome's.
int cl_predict_start(cl_predict* p, const arb_proto_scene* msg, uint32_t client_id,
                     arb_avatar_kind kind, int tick_rate);
static inline bool cl_predict_active(const cl_predict* p) {
  return p->tick != 0;
}
/// The controls changed at local time `now` (for the input-to-motion figure).
void cl_predict_note_change(cl_predict* p, double now);
/// Simulate up to `tick`; `cmd` (may be NULL) is the command made for `tick`, earlier ticks
/// without one hold the controls.
int cl_predict_advance(cl_predict* p, uint32_t tick, const arb_controls* cmd);
/// A complete snapshot of `tick` (the view, with the avatar `avatar_entity`) and the newest
/// command the server had applied. Re-simulates from it with the server's other bodies
/// (and the other avatars near ours, whose descriptions `desc_of(ctx, id)` gives), and
/// with its avatar when that disagrees with the prediction (a correction).
void cl_predict_on_snapshot(cl_predict* p, uint32_t tick, uint32_t last_input_seq,
                            uint32_t avatar_entity, const cl_body_set* view,
                            cl_proxy_desc_fn* desc_of, const void* ctx, double now);
/// The avatar to draw at fractional server tick `ft` (between the two newest predicted
/// ticks), with the fading correction; local time `now`. False when not predicting.
/// `shown` (may be NULL) is where the avatar was drawn until now (interpolated): the first
/// predicted frame starts there and the difference fades out like a correction.
bool cl_predict_sample(cl_predict* p, double ft, double now, const arb_vec2* shown,
                       arb_client_entity_state* out);
