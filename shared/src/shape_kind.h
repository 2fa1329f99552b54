// arbiter — what each shape kind answers, declared once for every row of ARB_SHAPE_KINDS
// (collision.h). Not a public header.
//
// A kind answers the shape module's questions (shape.h) and the state codec's with
// functions named after it, arb__<kind>_<question>, defined in its own file
// shared/src/shape_<kind>.c. The dispatch over kinds in shape.c and world_codec.c is made
// from the kinds list, so a new row whose kind misses an answer fails to build (a link
// error naming the function), and no dispatch needs a hand-written case.
#pragma once

#include "manifold.h"
#include "world.h"

/// What the state codec tells a kind's fields visitor.
typedef struct arb__shape_codec {
  arb_world* owner;  ///< the world whose allocator a read uses (a chain's points)
  bool rounded;      ///< the shape's flag byte says rounded (a polygon's radius follows)
} arb__shape_codec;

/// The mass data of a kind without area (lines).
static inline arb_mass_data arb__no_mass(void) {
  arb_mass_data md = {0.0f, {0.0f, 0.0f}, 0.0f};
  return md;
}

// The answers, as shape.h describes the questions (g: the kind's geometry in s):
//   valid          the geometry its kind requires (s whole: a chain may not be a sensor)
//   mass           mass data at `density` (no mass: lines)
//   proxy          the distance proxy (a chain: its first link)
//   center         the centre of its own area (the origin without area)
//   min_extent     shortest distance from `center` to the surface (0 without an inside)
//   max_extent     distance from `center` to the farthest point
//   contains       point (local frame) inside (false without an inside)
//   out_of_reach   point p (world) surely farther than `reach` outside, body at xf
//   collide_circle the manifold against a circle (particles)
//   fields         its record in the state (save image, hash, restore): world_codec.c
//   outline        its outline (arb_shape_outline): radius, closed and one_sided into
//                  *out, the first `capacity` points into `points`; returns the count
#define ARB__SHAPE_KIND_ANSWERS(NAME, name, has_area)                                              \
  bool arb__##name##_valid(const arb_shape_def* s, const char** why);                              \
  arb_mass_data arb__##name##_mass(const arb_##name* g, float density);                            \
  arb_shape_proxy arb__##name##_proxy(const arb_##name* g);                                        \
  arb_vec2 arb__##name##_center(const arb_##name* g);                                              \
  float arb__##name##_min_extent(const arb_##name* g, arb_vec2 center);                            \
  float arb__##name##_max_extent(const arb_##name* g, arb_vec2 center);                            \
  bool arb__##name##_contains(const arb_##name* g, arb_vec2 local);                                \
  bool arb__##name##_out_of_reach(const arb_##name* g, arb_transform xf, arb_vec2 p, float reach); \
  arb_manifold arb__##name##_collide_circle(const arb_##name* g, arb_transform xf,                 \
                                            const arb_circle* c, arb_transform xc);                \
  void arb__##name##_fields(arb_codec* c, arb_shape_def* s, const arb__shape_codec* how);          \
  int arb__##name##_outline(const arb_##name* g, arb_shape_outline* out, arb_vec2* points,         \
                            int capacity);
ARB_SHAPE_KINDS(ARB__SHAPE_KIND_ANSWERS)
#undef ARB__SHAPE_KIND_ANSWERS

// The answers that follow from a kind having area or not, written once:
// a kind with area forwards to its public functions of collision.h (arb_compute_<name>_mass,
// arb_make_<name>_proxy, arb_point_in_<name>); a line (segment, chain) has no mass, no
// centre of its own, no inside and no thickness.
#define ARB__AREA_KIND_ANSWERS(name)                                     \
  arb_mass_data arb__##name##_mass(const arb_##name* g, float density) { \
    return arb_compute_##name##_mass(g, density);                        \
  }                                                                      \
  arb_shape_proxy arb__##name##_proxy(const arb_##name* g) {             \
    return arb_make_##name##_proxy(g);                                   \
  }                                                                      \
  bool arb__##name##_contains(const arb_##name* g, arb_vec2 local) {     \
    return arb_point_in_##name(local, g);                                \
  }
#define ARB__LINE_KIND_ANSWERS(name)                                     \
  arb_mass_data arb__##name##_mass(const arb_##name* g, float density) { \
    (void)g, (void)density;                                              \
    return arb__no_mass();                                               \
  }                                                                      \
  arb_vec2 arb__##name##_center(const arb_##name* g) {                   \
    (void)g;                                                             \
    return arb_vec2_zero;                                                \
  }                                                                      \
  float arb__##name##_min_extent(const arb_##name* g, arb_vec2 center) { \
    (void)g, (void)center;                                               \
    return 0.0f;                                                         \
  }                                                                      \
  bool arb__##name##_contains(const arb_##name* g, arb_vec2 local) {     \
    (void)g, (void)local;                                                \
    return false;                                                        \
  }

// An outline answer's points: the first `capacity` of `n` copied, n returned.
static inline int arb__outline_points(arb_vec2* points, int capacity, const arb_vec2* from, int n) {
  for (int i = 0; i < n && i < capacity; ++i) points[i] = from[i];
  return n;
}
