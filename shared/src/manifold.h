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
