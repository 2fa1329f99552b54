// arbiter — the manifold functions with an explicit speculative margin (meters): points
// are reported while the surfaces are closer than `margin`. The public arb_collide_*
// functions are these with ARB_SPECULATIVE_DISTANCE. Not a public header.
#pragma once

#include "arbiter/collision.h"

// Each row of ARB_COLLIDE_PAIRS and ARB_COLLIDE_CHAIN_PAIRS (collision.h) has
// arb__collide_<name>, its margin given (declared here), and the public arb_collide_<name>
// with ARB_SPECULATIVE_DISTANCE (defined by ARB__DEFINE_PUBLIC_COLLIDE); the narrow
// phase's table of collide functions is made from the rows too (contact.c). Convex pairs
// are in manifold.c, chain pairs in chain_manifold.c.
#define ARB__DECLARE_COLLIDE_WITH_MARGIN(name, KA, ka, KB, kb)                              \
  arb_manifold arb__collide_##name(const arb_##ka* a, arb_transform xfa, const arb_##kb* b, \
                                   arb_transform xfb, float margin);
ARB_COLLIDE_PAIRS(ARB__DECLARE_COLLIDE_WITH_MARGIN)

// A chain pair takes the chain's link tree too: arb__chain_tree of a world's chain
// (chain.h), or NULL to test every link's box.
#define ARB__DECLARE_CHAIN_COLLIDE_WITH_MARGIN(name, KA, ka, KB, kb)                           \
  arb_manifold arb__collide_##name(const arb_##ka* a, const arb_aabb* tree, arb_transform xfa, \
                                   const arb_##kb* b, arb_transform xfb, float margin);
ARB_COLLIDE_CHAIN_PAIRS(ARB__DECLARE_CHAIN_COLLIDE_WITH_MARGIN)

// Whether point p (world) lies farther than `reach` outside a shape of a body at xf. Each
// answers from a lower bound on the distance (the largest face distance of a polygon, the
// distance to a capsule's or segment's core), so true means the shape is surely farther
// than `reach` from p: the narrow phase's out-of-reach test for a long shape against a
// small body's bounding circle (contact.c; tests/unit/test_manifold_reach.c).
static inline bool arb__polygon_beyond(const arb_polygon* g, arb_transform xf, arb_vec2 p,
                                       float reach) {
  arb_vec2 q = arb_inv_transform_point(xf, p);
  float limit = reach + g->radius;
  for (int i = 0; i < g->count; ++i) {
    if (arb_dot(g->normals[i], arb_sub(q, g->vertices[i])) > limit) return true;
  }
  return false;
}

static inline bool arb__circle_beyond(const arb_circle* g, arb_transform xf, arb_vec2 p,
                                      float reach) {
  float limit = reach + g->radius;
  return arb_distance_sq(arb_inv_transform_point(xf, p), g->center) > limit * limit;
}

// A capsule (radius > 0) or a segment (radius 0) from its core c1-c2 (distinct points).
static inline bool arb__core_beyond(arb_vec2 c1, arb_vec2 c2, float radius, arb_transform xf,
                                    arb_vec2 p, float reach) {
  arb_vec2 q = arb_inv_transform_point(xf, p);
  arb_vec2 e = arb_sub(c2, c1);
  float t = arb_clampf(arb_dot(arb_sub(q, c1), e) / arb_dot(e, e), 0.0f, 1.0f);
  float limit = reach + radius;
  return arb_distance_sq(q, arb_mul_add(c1, t, e)) > limit * limit;
}

#define ARB__DEFINE_PUBLIC_COLLIDE(name, KA, ka, KB, kb)                                   \
  arb_manifold arb_collide_##name(const arb_##ka* a, arb_transform xfa, const arb_##kb* b, \
                                  arb_transform xfb) {                                     \
    return arb__collide_##name(a, xfa, b, xfb, ARB_SPECULATIVE_DISTANCE);                  \
  }

#define ARB__DEFINE_PUBLIC_CHAIN_COLLIDE(name, KA, ka, KB, kb)                             \
  arb_manifold arb_collide_##name(const arb_##ka* a, arb_transform xfa, const arb_##kb* b, \
                                  arb_transform xfb) {                                     \
    return arb__collide_##name(a, NULL, xfa, b, xfb, ARB_SPECULATIVE_DISTANCE);            \
  }

// ---- pieces shared with the chain manifolds (chain_manifold.c) -------------------------

// A convex vertex loop in A's frame, grown by a radius (0 for sharp polygons and
// segments). count 2 is a two-sided segment (edges a->b, b->a), or with a radius a capsule.
typedef struct arb__hull {
  arb_vec2 v[ARB_MAX_POLYGON_VERTICES];
  arb_vec2 n[ARB_MAX_POLYGON_VERTICES];
  int count;
  float radius;
} arb__hull;

// No points, every field zero. Inline and copied from a constant: it is the result of
// most pairs in a crowd, and a struct built field by field and then read back in wider
// loads stalls on store forwarding.
static inline arb_manifold arb__empty_manifold(void) {
  static const arb_manifold empty = {0};
  return empty;
}
/// Append a point given relative to xfa.p in world axes.
void arb__add_point(arb_manifold* m, arb_vec2 rel_a, arb_transform xfa, arb_transform xfb,
                    float separation, uint16_t id);
/// SAT and clipping of hull A (va, na, ca grown by ra, in A's frame) against hb (in A's frame).
arb_manifold arb__collide_hulls(const arb_vec2* va, const arb_vec2* na, int ca, float ra,
                                const arb__hull* hb, arb_transform xfa, arb_transform xfb,
                                float margin);
/// A polygon placed by xf (B's frame in A's frame) as a hull.
void arb__polygon_hull(const arb_polygon* p, arb_transform xf, arb__hull* h);
/// A two-vertex hull (edge 0 v0->v1 with its right normal, edge 1 back); false when v0 == v1.
bool arb__two_point_hull(arb_vec2 v0, arb_vec2 v1, float radius, arb__hull* h);
/// Moves p (on the incident core, `sep` from the reference core along normal) midway
/// between the surfaces of radii r1 (reference) and r2; returns the surface separation.
float arb__rounded_point(arb_vec2* p, float sep, arb_vec2 normal, float r1, float r2);
