// arbiter — world queries with collision filtering (physics extras): ray casts (closest
// hit and all hits), AABB overlap and point queries. Read-only; any time between steps.
// Results are deterministic: bodies are visited in slot order and ties go to the lower
// slot. The standalone shape ray casts are in collision.h (arb_ray_cast_circle, ...).
#pragma once

#include "world.h"

ARB_C_BEGIN

/// Which shapes a query sees, with the same rule as two shapes colliding: a shape is seen
/// when (mask_bits & shape.category_bits) != 0 and (shape.mask_bits & category_bits) != 0,
/// except that a non-zero group equal to the shape's decides alone (> 0 seen, < 0 not).
/// The world queries also see only bodies whose type is in `body_types` (0: every type).
typedef struct arb_query_filter {
  uint32_t category_bits;  ///< the query's own category; default all bits
  uint32_t mask_bits;      ///< categories it sees; default all bits
  int32_t group;           ///< default 0
  uint32_t body_types;     ///< ARB_QUERY_TYPE(ARB_BODY_STATIC) | ...; default 0 = all types
} arb_query_filter;

/// The body_types bit of one body type.
#define ARB_QUERY_TYPE(body_type) (1u << (unsigned)(body_type))

/// Sees every shape.
ARB_API arb_query_filter arb_default_query_filter(void);
ARB_API bool arb_query_filter_accepts(arb_query_filter filter, const arb_shape_def* shape);

/// One ray hit (fraction along origin + fraction * translation, fraction in [0, 1]).
/// A ray starting inside a solid shape hits it at fraction 0 with a zero normal.
typedef struct arb_ray_hit {
  arb_body_id body;
  arb_vec2 point;   ///< world
  arb_vec2 normal;  ///< world, unit (zero when the ray starts inside)
  float fraction;
} arb_ray_hit;

/// Ray casts pass through sensor shapes (arb_shape_def.sensor); the overlap and point
/// queries see them.
/// Closest hit accepted by the filter. Returns true and fills *out on a hit.
ARB_API bool arb_world_ray_cast_closest(const arb_world* world, arb_vec2 origin,
                                        arb_vec2 translation, arb_query_filter filter,
                                        arb_ray_hit* out);
/// Every hit (one per body: its entry point), sorted by fraction then slot. Writes up to
/// cap hits, returns the total count.
ARB_API int arb_world_ray_cast_all(const arb_world* world, arb_vec2 origin, arb_vec2 translation,
                                   arb_query_filter filter, arb_ray_hit* out, int cap);
/// Bodies whose shape's AABB overlaps `box`, filtered, in slot order. Returns the total.
ARB_API int arb_world_overlap_aabb(const arb_world* world, arb_aabb box, arb_query_filter filter,
                                   arb_body_id* out, int cap);
/// Bodies whose solid shape contains the world point (segments never do), filtered, in
/// slot order. Returns the total.
ARB_API int arb_world_query_point(const arb_world* world, arb_vec2 point, arb_query_filter filter,
                                  arb_body_id* out, int cap);

ARB_C_END
