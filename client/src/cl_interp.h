// cl_interp — per-entity snapshot history and interpolation of remote state.
//
// Every decoded snapshot pushes each entity's state at the snapshot's server time
// (tick * dt) into that entity's history (sorted by time; duplicates ignored; late,
// reordered samples slot into place). The application renders at
//
//     T = estimated server time (cl_clock) - interpolation delay
//
// and for each entity:
//
//   history:  s0 ---- s1 ---- s2 ---- s3 (newest)
//   T inside  |<-lerp->|                            linear in position/angle: exact at
//                                                   snapshot times, speed <= chord speed
//   T past newest        extrapolate with s3's velocities for <= extrapolation_limit,
//                        then hold still (flags EXTRAPOLATED / HELD)
//
// Corrections: whenever a push changes what the entity's curve says at the last rendered
// time T_out (a snapshot arriving after a gap, a reordered one filling a hole), the
// difference (last output - new curve at T_out) becomes an offset that fades linearly to
// zero, so the output never jumps. The fade lasts blend_time, or longer when needed so
// the correction moves the entity no faster than its own speed (at least 1 m/s, 1 rad/s):
// during a fade the output moves at most twice as fast as the body. Differences below
// 5 mm / 5 mrad are applied at once (quantization noise). A difference larger than
// teleport_distance plus what the extrapolation could have got wrong (2 * speed * time
// extrapolated) plus what is left of an earlier correction snaps: a real teleport.
// Sampled velocities include the fade, so they describe the motion actually drawn. Two snapshots
// further apart than teleport_distance and than their velocities explain are a teleport too: the
// entity stays at the first until the second's time instead of sliding across the map.
//
// Delay: starts at 2 nominal snapshot intervals. Each snapshot newer than all before
// tells how far behind the clock estimate rendering had to be to not run out of data
// until it came: need = estimated server time at arrival - previous newest snapshot time
// (one interval + one-way delay + jitter; outages clamped, extrapolation covers them).
// Target = smoothed mean need + 2.5 * mean absolute deviation of need + 2 ms, clamped to
// [delay_min, delay_max]. The delay moves towards the target at most 10 %/s upwards
// (50 %/s while the render time is past the newest snapshot: better slow down than guess)
// and 5 %/s downwards, so the rendered timeline keeps advancing at 0.5..1.05 of real
// time and never backwards.
//
// Independent of ENet and of real clocks: tests drive it with synthetic streams.
#pragma once

#include <arbiter/client.h>

#include "cl_mem.h"

/// History per entity: about one second at 30 snapshots/s.
#define CL_HISTORY 32
/// Recent snapshot times kept for the buffer-depth statistic.
#define CL_TIMES 64

typedef struct cl_sample {
  double t;    ///< server time, seconds
  arb_vec2 p;  ///< meters
  float a;     ///< radians, (-pi, pi]
  arb_vec2 v;  ///< m/s
  float w;     ///< rad/s
} cl_sample;

typedef struct cl_entity {
  arb_client_entity_desc desc;
  /// A ring: sample k (0 = oldest, ascending t, no duplicates) is
  /// hist[(first + k) % CL_HISTORY]. A full history takes a new sample by dropping its
  /// oldest in place: every body gets one per snapshot, and shifting 31 samples for each
  /// was most of a client's snapshot cost in a world of thousands of bodies.
  cl_sample hist[CL_HISTORY];
  int first;
  int count;
  bool has_out;    ///< an output was committed
  double out_t;    ///< server time of the last committed output
  arb_vec2 out_p;  ///< last committed output position
  float out_a;     ///< last committed output angle
  arb_vec2 off_p;  ///< correction at off_t0, fading to 0 over off_dur
  float off_a;
  double off_t0;
  float off_dur;  ///< >= blend_time, see cl_interp_push
  bool blending;  ///< off_p/off_a are non-zero
  uint32_t tag;   ///< the owner's bookkeeping (cl_client: newest tick listing it)
} cl_entity;

typedef struct cl_interp_params {
  float nominal_interval;      ///< seconds between snapshots announced by the server
  float delay_min, delay_max;  ///< seconds
  float extrapolation_limit;   ///< seconds
  float blend_time;            ///< seconds (server time)
  float teleport_distance;     ///< meters
  int max_entities;
} cl_interp_params;

typedef struct cl_interp {
  cl_interp_params p;
  cl_mem mem;
  /// The entities in no order, [0, count), and their indexes by increasing desc.id in
  /// order[0, count): adding or removing one of thousands moves a few kB of indexes, not
  /// the kilobyte-sized entities after it (a client joining a large world is sent
  /// thousands of them, a few dozen a snapshot). The entities sit in blocks (cl_blocks):
  /// the table grows without moving them.
  cl_blocks ents;
  int* order;
  int count, order_cap;

  // delay controller
  bool have_newest;
  double newest_t;  ///< newest snapshot time pushed through cl_interp_on_snapshot
  int arrivals;
  float interval;   ///< smoothed seconds between newest snapshots
  float need_mean;  ///< smoothed need (see above), seconds
  float need_dev;   ///< smoothed |need - need_mean|: the arrival jitter, seconds
  float target;     ///< delay target, seconds
  float delay;      ///< delay in use, seconds

  // render timeline
  bool have_T;
  double T;                ///< last committed render server time
  double last_render;      ///< render_time of the last frame
  double times[CL_TIMES];  ///< recent snapshot times, ascending
  int ntimes;
  float extrapolation;  ///< seconds past newest_t at the last frame (0 = inside)
} cl_interp;

/// Entity k of the table (k < count), in no order.
static inline cl_entity* cl_interp_ent(const cl_interp* in, int k) {
  return (cl_entity*)cl_blocks_at(&in->ents, k, sizeof(cl_entity));
}

/// The entity i-th in id order (i < count).
static inline cl_entity* cl_interp_at(const cl_interp* in, int i) {
  return cl_interp_ent(in, in->order[i]);
}

/// The interpolation a client's config asks for, at `nominal_interval` s between snapshots.
cl_interp_params cl_interp_params_of(const arb_client_config* config, float nominal_interval);
int cl_interp_init(cl_interp* in, const cl_interp_params* p, const cl_mem* mem);
void cl_interp_deinit(cl_interp* in);
/// Drop all entities and timing (a new connection).
void cl_interp_reset(cl_interp* in);
/// Change the nominal interval (from a welcome); restarts the delay at 2 intervals.
void cl_interp_set_nominal_interval(cl_interp* in, float interval);

/// Add an entity (or replace its description if known). ARB_E_FULL past max_entities.
int cl_interp_add(cl_interp* in, const arb_client_entity_desc* desc);
/// Forget an entity. ARB_E_NOT_FOUND if unknown.
int cl_interp_remove(cl_interp* in, uint32_t id);
cl_entity* cl_interp_find(cl_interp* in, uint32_t id);
const cl_entity* cl_interp_find_const(const cl_interp* in, uint32_t id);

/// Push one entity state at server time s->t. Ignored (returns 0) for duplicates and for
/// samples older than a full history. ARB_E_NOT_FOUND for an unknown entity, ARB_E_NONFINITE
/// for non-finite values.
int cl_interp_push(cl_interp* in, uint32_t id, const cl_sample* s);
/// A complete snapshot at server time t was received while the clock estimate was
/// est_now: feeds the delay controller (only snapshots newer than any before count).
void cl_interp_on_snapshot(cl_interp* in, double t, double est_now);

/// Advance the render timeline: slews the delay for the render time elapsed and returns
/// T = est_now - delay, never less than the previous T.
double cl_interp_frame(cl_interp* in, double est_now, double render_time);
/// Every entity's state at server time T, in id order; writes up to max, returns the
/// entity count. commit = remember the outputs as the reference for later corrections
/// (the normal path); commit = false only peeks (tests, debugging).
int cl_interp_sample(cl_interp* in, double T, arb_client_entity_state* out, int max, bool commit);
/// The uncorrected curve of one entity at T (no blend offset). 0 or ARB_E_NOT_FOUND.
int cl_interp_eval(const cl_interp* in, uint32_t id, double T, arb_client_entity_state* out);
/// Snapshots newer than T among the recent ones.
int cl_interp_buffer_depth(const cl_interp* in, double T);
