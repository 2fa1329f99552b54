// arbiter — the manifold functions with an explicit speculative margin (meters): points
// are reported while the surfaces are closer than `margin`. The public arb_collide_*
// functions are these with ARB_SPECULATIVE_DISTANCE. Not a public header.
#pragma once

#include "arbiter/collision.h"

arb_manifold arb__collide_circles(const arb_circle* a, arb_transform xfa, const arb_circle* b,
                                  arb_transform xfb, float margin);
arb_manifold arb__collide_polygon_and_circle(const arb_polygon* a, arb_transform xfa,
                                             const arb_circle* b, arb_transform xfb, float margin);
arb_manifold arb__collide_polygons(const arb_polygon* a, arb_transform xfa, const arb_polygon* b,
                                   arb_transform xfb, float margin);
arb_manifold arb__collide_segment_and_circle(const arb_segment* a, arb_transform xfa,
                                             const arb_circle* b, arb_transform xfb, float margin);
arb_manifold arb__collide_segment_and_polygon(const arb_segment* a, arb_transform xfa,
                                              const arb_polygon* b, arb_transform xfb,
                                              float margin);
arb_manifold arb__collide_capsules(const arb_capsule* a, arb_transform xfa, const arb_capsule* b,
                                   arb_transform xfb, float margin);
arb_manifold arb__collide_capsule_and_circle(const arb_capsule* a, arb_transform xfa,
                                             const arb_circle* b, arb_transform xfb, float margin);
arb_manifold arb__collide_polygon_and_capsule(const arb_polygon* a, arb_transform xfa,
                                              const arb_capsule* b, arb_transform xfb,
                                              float margin);
arb_manifold arb__collide_segment_and_capsule(const arb_segment* a, arb_transform xfa,
                                              const arb_capsule* b, arb_transform xfb,
                                              float margin);

// ---- pieces shared with the chain manifolds (chain_manifold.c) -------------------------

// A convex vertex loop in A's frame, grown by a radius (0 for sharp polygons and
// segments). count 2 is a two-sided segment (edges a->b, b->a), or with a radius a capsule.
typedef struct arb__hull {
  arb_vec2 v[ARB_MAX_POLYGON_VERTICES];
  arb_vec2 n[ARB_MAX_POLYGON_VERTICES];
  int count;
  float radius;
} arb__hull;

arb_manifold arb__empty_manifold(void);
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

arb_manifold arb__collide_chain_and_circle(const arb_chain* a, arb_transform xfa,
                                           const arb_circle* b, arb_transform xfb, float margin);
arb_manifold arb__collide_chain_and_polygon(const arb_chain* a, arb_transform xfa,
                                            const arb_polygon* b, arb_transform xfb, float margin);
arb_manifold arb__collide_chain_and_capsule(const arb_chain* a, arb_transform xfa,
                                            const arb_capsule* b, arb_transform xfb, float margin);
