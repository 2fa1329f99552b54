// arbiter — the per-client priority accumulator that decides what a snapshot carries when
// the client's byte budget is short (after Fiedler's "State Synchronization"). Every
// snapshot each entity in the client's view gains priority by its relevance: the client's
// own avatar first, then nearness to the avatar, speed, and lying inside the camera box the
// client reported; entities the client is up to date on start again from zero, the others
// keep growing, so nothing waits for ever. Nothing here allocates after init.
#pragma once

#include <arbiter/math.h>
#include <arbiter/snapshot.h>

ARB_C_BEGIN

/// What one client cares about.
typedef struct arb_snapshot_interest {
  uint32_t avatar_id;  ///< 0 = none
  arb_vec2 avatar;     ///< its position
  bool has_view;       ///< a camera box was reported
  arb_aabb view;       ///< world-space camera box
  float near_radius;   ///< meters at which relevance halves from nearness alone (> 0)
} arb_snapshot_interest;

/// What the weights of one interest share (arb_snapshot_priority_begin computes it once).
typedef struct arb_snapshot_interest_scales {
  float near_sq;         ///< near_radius squared (10 m when not positive)
  arb_vec2 view_centre;  ///< of the camera box
  float view_half_sq;    ///< half the camera box's diagonal, squared
} arb_snapshot_interest_scales;

typedef struct arb_snapshot_priority {
  uint32_t* ids;  ///< entities with an accumulator, increasing
  float* acc;
  int count, cap;
  uint32_t* spare_ids;  ///< merge scratch
  float* spare_acc;
  int cursor;                ///< arb_snapshot_priority_next: where the last id was looked up
  arb_snapshot_interest in;  ///< this snapshot's (arb_snapshot_priority_begin)
  arb_snapshot_interest_scales scales;  ///< of `in`
  float dt;                             ///< this snapshot's seconds
} arb_snapshot_priority;

ARB_API int arb_snapshot_priority_init(arb_snapshot_priority* p, int max_entities);
ARB_API void arb_snapshot_priority_free(arb_snapshot_priority* p);
/// Relevance of one entity per second (own avatar: 1e6).
ARB_API float arb_snapshot_relevance(const arb_snapshot_interest* in, uint32_t id,
                                     arb_vec2 position, float speed);
/// Weight of one entity's error when ordering by what the client draws wrong
/// (arb_snapshot_build_args.weight): own avatar 1e6, else 1 / (1 + (distance / near_radius)^2),
/// times 4 inside the camera box. Speed is left out: the error already says it.
ARB_API float arb_snapshot_weight(const arb_snapshot_interest* in, uint32_t id, arb_vec2 position);
/// Keep accumulators for the entities of `current` (others are dropped), add each one's
/// relevance × dt, and write them to out[i] (one per current item) for the builder.
/// weight: NULL, or one arb_snapshot_weight per current item is written there too.
ARB_API void arb_snapshot_priority_update(arb_snapshot_priority* p, const arb_snapshot_set* current,
                                          const arb_vec2* positions, const float* speeds,
                                          const arb_snapshot_interest* in, float dt, float* out,
                                          float* weight);
/// After a build: entities the client is now up to date on start from zero.
ARB_API void arb_snapshot_priority_sent(arb_snapshot_priority* p, const uint8_t* up_to_date);

// The same accumulators computed only for the entities a build asks about (those that
// changed: arb_snapshot_build_args.rank), for a world mostly at rest. An entity up to date
// has none (zero), so only the others are kept. Per snapshot: arb_snapshot_priority_begin,
// arb_snapshot_priority_next for entities by increasing id, then arb_snapshot_priority_keep.
// The values equal arb_snapshot_priority_update's (then _sent) for the same inputs.

/// Start a snapshot's lookups, for the client's interest `in` over dt seconds (what the
/// entities' weights share is computed here once, not per entity).
ARB_API void arb_snapshot_priority_begin(arb_snapshot_priority* p, const arb_snapshot_interest* in,
                                         float dt);
/// Entity `id`'s accumulator (0 without one) plus its relevance × dt; weight: NULL or its
/// arb_snapshot_weight. Ids must increase between arb_snapshot_priority_begin calls.
ARB_API float arb_snapshot_priority_next(arb_snapshot_priority* p, uint32_t id, arb_vec2 position,
                                         float speed, float* weight);
/// After the build: keep acc[j] for the items of `current` not up to date (each one asked
/// with arb_snapshot_priority_next, its value in acc[j]), drop every other accumulator.
ARB_API void arb_snapshot_priority_keep(arb_snapshot_priority* p, const arb_snapshot_set* current,
                                        const float* acc, const uint8_t* up_to_date);
/// The same from the list of items not up to date (arb_snapshot_build_args.stale, increasing):
/// keep acc[stale[k]] for each, drop every other accumulator. Reads only those items.
ARB_API void arb_snapshot_priority_keep_stale(arb_snapshot_priority* p,
                                              const arb_snapshot_set* current, const float* acc,
                                              const int* stale, int count);

ARB_C_END
