// DETERMINISM-CRITICAL: a capsule's answers to the shape module (shape.h).
#include "shape_kind.h"

ARB__AREA_KIND_ANSWERS(capsule)

bool arb__capsule_valid(const arb_shape_def* s, const char** why) {
  if (!arb_vec2_is_valid(s->capsule.center1) || !arb_vec2_is_valid(s->capsule.center2)) {
    return *why = "capsule center not finite", false;
  }
  if (!arb_is_valid_float(s->capsule.radius) || s->capsule.radius <= 0.0f) {
    return *why = "capsule radius must be > 0", false;
  }
  // A shorter core has no direction to collide along: that shape is a circle.
  if (arb_distance(s->capsule.center1, s->capsule.center2) < ARB_LINEAR_SLOP) {
    return *why = "capsule centers closer than ARB_LINEAR_SLOP (use a circle)", false;
  }
  return true;
}

arb_vec2 arb__capsule_center(const arb_capsule* g) {
  return arb_lerp(g->center1, g->center2, 0.5f);
}

// A capsule's centre of mass is the middle of its core.
float arb__capsule_min_extent(const arb_capsule* g, arb_vec2 center) {
  (void)center;
  return g->radius;
}

float arb__capsule_max_extent(const arb_capsule* g, arb_vec2 center) {
  return arb_maxf(arb_distance(g->center1, center), arb_distance(g->center2, center)) + g->radius;
}

bool arb__capsule_out_of_reach(const arb_capsule* g, arb_transform xf, arb_vec2 p, float reach) {
  return arb__core_beyond(g->center1, g->center2, g->radius, xf, p, reach);
}

arb_manifold arb__capsule_collide_circle(const arb_capsule* g, arb_transform xf,
                                         const arb_circle* c, arb_transform xc) {
  return arb_collide_capsule_and_circle(g, xf, c, xc);
}

// vec2 centre1, vec2 centre2, f32 radius.
void arb__capsule_fields(arb_codec* c, arb_shape_def* s, const arb__shape_codec* how) {
  (void)how;
  arb_codec_vec2(c, &s->capsule.center1);
  arb_codec_vec2(c, &s->capsule.center2);
  arb_codec_f32(c, &s->capsule.radius);
}

// Its two centres, grown by its radius.
int arb__capsule_outline(const arb_capsule* g, arb_shape_outline* out, arb_vec2* points,
                         int capacity) {
  out->radius = g->radius;
  arb_vec2 centers[2] = {g->center1, g->center2};
  return arb__outline_points(points, capacity, centers, 2);
}
