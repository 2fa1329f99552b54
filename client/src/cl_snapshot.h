// cl_snapshot — snapshot parts in, complete views out (Quake 3 style delta decoding of
// the snapshot stream, PROTOCOL.md §6).
//
// The server sends the view of tick T as a delta against a baseline B the client acked
// (B = 0: full), split into part_count packets that each apply on their own:
//
//   slots (ring of CL_SLOTS views, keyed by tick):
//     [B complete] --copy--> [T in progress: parts 0,2 of 3] --part 1--> [T complete]
//
// A part of a tick we have no slot for opens one by copying B's complete view (a B we no
// longer have, or never had, is counted in baseline_missing and the part dropped). A part
// seen before is a duplicate; a part older than every slot is dropped as too late. The
// newest complete tick is what the client acks. Older complete views stay as baselines
// for about a second (the server deltas against the last ack it received).
//
// A view holds every entity as an *origin* (its state at the tick of the record that last
// set it, §6.2); the newest complete view, and a view as it completes, also hold their
// bodies evaluated at their tick (`bodies`, cl_body: the wire state and its floats) that
// interpolation and prediction read (older views give the array up). For the
// newest view those come from the drawn set (every entity's freshest origin over all
// views received, so a correction that travelled in a sibling snapshot is not undone by
// the next view).
// Particles, links and wheels are kept in the origins too; cl_extras.c samples them from
// the complete views.
//
// Descriptions arrive only with enter records; they are kept in a table keyed by id while
// any slot's view still holds the entity.
//
// Untrusted input: every packet goes through arb_proto_decode_snapshot (bounded, total);
// anything inconsistent (a part index past part_count, a baseline that differs from the
// slot's, a delta for an id the baseline lacks) is counted as a decode error with a
// reason, never asserted. Independent of ENet.
#pragma once

#include <arbiter/protocol.h>
#include <arbiter/snapshot.h>

#include "cl_mem.h"

/// Views kept: ~1 s of baselines at 30 snapshots/s plus ticks still being assembled.
#define CL_SLOTS 40

/// A body of a view evaluated at the view's tick: the wire state, and the floats decoded
/// straight from it (nothing coarsened on the way: the angular velocity keeps the wire's
/// 1/65536 turn per second).
typedef struct cl_body {
  uint32_t id;
  arb_snapshot_state q;    ///< quantized, at the view's tick (prediction compares it exactly)
  arb_vec2 position;       ///< m
  float angle;             ///< rad, [-pi, pi)
  arb_vec2 velocity;       ///< m/s
  float angular_velocity;  ///< rad/s
} cl_body;

/// Bodies by strictly increasing id, in storage the client owns.
typedef struct cl_body_set {
  cl_body* items;
  int count, cap;
} cl_body_set;

/// The body with id `id` (binary search), or NULL.
const cl_body* cl_body_set_find(const cl_body_set* set, uint32_t id);
/// A body from its quantized state (the state's t0 is kept, the floats dequantized).
cl_body cl_body_from_state(uint32_t id, const arb_snapshot_state* q);

/// How to draw a body (its snapshot description, the first shape; a compound body's
/// other shapes are in its cl_desc_entry).
typedef struct cl_body_desc {
  uint8_t body_type;    ///< arb_body_type
  uint8_t avatar_kind;  ///< arb_avatar_kind of a player's avatar; 0 = not an avatar
  uint32_t owner;       ///< client id of the owning player, 0 = world
  arb_proto_shape shape;
} cl_body_desc;

typedef struct cl_slot {
  bool used;
  bool complete;
  uint32_t tick;
  uint32_t baseline;
  uint8_t part_count;
  int parts_seen;
  uint8_t seen[32];          ///< bitmap of part indexes received (256 bits)
  arb_snapshot_header h;     ///< of the first part received (the others must agree)
  arb_snapshot_set origins;  ///< the view: baseline + the parts received so far
  /// The bodies evaluated at `tick`: held by the newest complete view and by a view as it
  /// completes (cl_snap_result.slot); older views give their array up (empty).
  cl_body_set bodies;
} cl_slot;

/// How to draw a particle, link or wheel (its snapshot description without the body parts).
typedef struct cl_extra_desc {
  uint8_t cls;  ///< arb_snapshot_class
  uint8_t link_kind, joint_type;
  uint32_t a, b;                ///< link ends (0 = the world); wheel: a = chassis
  arb_vec2 anchor_a, anchor_b;  ///< in a's and b's frames (world for an end 0); wheel: mount
  float radius;
} cl_extra_desc;

/// A description, keyed by (id, extra.cls): views of different ticks may hold the same id
/// with different classes (a hostile server, or an id reused), and each keeps its own.
typedef struct cl_desc_entry {
  uint32_t id;
  cl_body_desc desc;    ///< bodies (desc.shape: the first shape)
  cl_extra_desc extra;  ///< extra.cls is the class; the rest only for non-bodies
  uint8_t more_count;   ///< a compound body's other shapes
  arb_proto_shape more[ARB_SNAPSHOT_MAX_SHAPES - 1];
} cl_desc_entry;

typedef struct cl_snapshots {
  cl_mem mem;
  int max_entities;
  cl_slot slots[CL_SLOTS];
  uint32_t newest_complete;  ///< tick, 0 = none
  /// What is drawn: every entity's freshest origin over the views received
  /// (arbiter/snapshot_drawn.h); the newest view's `bodies` are evaluated from it.
  arb_snapshot_set drawn, drawn_tmp;
  cl_body_set spare_bodies;  ///< a body array no view holds, for the next view to complete
  cl_blocks descs;  ///< cl_desc_entry, in the order they came (pruned: compacted); cl_desc_at
  int ndescs;
  /// Open addressing over descs by (id, class), at most half full: entry + 1, 0 = empty.
  /// Finding or adding a description costs the same however many the client holds (a
  /// client joining a large world is sent thousands).
  int* desc_index;
  int desc_index_cap;       ///< a power of two, or 0
  arb_snapshot_part* part;  ///< decode scratch (large; allocated once)
  // counters (the client's stats read them)
  uint64_t parts, completed, duplicates, late, baseline_missing, errors;
} cl_snapshots;

/// What one accepted part did.
typedef struct cl_snap_result {
  uint32_t tick;
  bool completed;                 ///< this part completed its tick
  bool newest;                    ///< tick is newer than every complete tick before it
  const cl_slot* slot;            ///< the view of `tick` (complete or not)
  const arb_snapshot_part* part;  ///< the decoded part (valid until the next receive)
} cl_snap_result;

/// Description k of the table (k < ndescs).
static inline cl_desc_entry* cl_desc_at(const cl_snapshots* s, int k) {
  return (cl_desc_entry*)cl_blocks_at(&s->descs, k, sizeof(cl_desc_entry));
}

int cl_snapshots_init(cl_snapshots* s, int max_entities, const cl_mem* mem);
void cl_snapshots_deinit(cl_snapshots* s);
/// Forget every view (new connection). Counters are kept.
void cl_snapshots_reset(cl_snapshots* s);

/// Decode and apply one snapshot packet. Returns 1 when applied (res filled), 0 when
/// dropped as duplicate or late (counted), or a negative ARB_E_* for a bad packet or a
/// missing baseline (counted; err says why).
int cl_snapshots_receive(cl_snapshots* s, const uint8_t* buf, size_t len, cl_snap_result* res,
                         arb_proto_error* err);

/// The complete view of a tick, or NULL.
const cl_slot* cl_snapshots_get(const cl_snapshots* s, uint32_t tick);
/// A body of a slot's view (complete or not) evaluated at the slot's tick. False when the
/// view lacks it or it is not a body.
bool cl_snapshots_body_at(const cl_slot* slot, uint32_t id, cl_body* out);
/// Description of a body present in some view, or NULL.
const cl_body_desc* cl_snapshots_desc(const cl_snapshots* s, uint32_t id);
/// A described body's shapes after the first (a compound body); their count (0: one
/// shape, or not described). *more may be NULL.
int cl_snapshots_more_shapes(const cl_snapshots* s, uint32_t id, const arb_proto_shape** more);
/// Description of a particle, link or wheel (class cls) present in some view, or NULL.
const cl_extra_desc* cl_snapshots_extra(const cl_snapshots* s, uint32_t id, uint8_t cls);
