// DETERMINISM-CRITICAL: a circle's answers to the shape module (shape.h).
#include "shape_kind.h"

ARB__AREA_KIND_ANSWERS(circle)

bool arb__circle_valid(const arb_shape_def* s, const char** why) {
  if (!arb_vec2_is_valid(s->circle.center)) return *why = "circle center not finite", false;
  if (!arb_is_valid_float(s->circle.radius) || s->circle.radius <= 0.0f) {
    return *why = "circle radius must be > 0", false;
  }
  return true;
}

arb_vec2 arb__circle_center(const arb_circle* g) {
  return g->center;
}

// A circle body's centre of mass is the circle's centre.
float arb__circle_min_extent(const arb_circle* g, arb_vec2 center) {
  (void)center;
  return g->radius;
}

float arb__circle_max_extent(const arb_circle* g, arb_vec2 center) {
  return arb_distance(g->center, center) + g->radius;
}

bool arb__circle_out_of_reach(const arb_circle* g, arb_transform xf, arb_vec2 p, float reach) {
  return arb__circle_beyond(g, xf, p, reach);
}

arb_manifold arb__circle_collide_circle(const arb_circle* g, arb_transform xf, const arb_circle* c,
                                        arb_transform xc) {
  return arb_collide_circles(g, xf, c, xc);
}

// vec2 centre, f32 radius.
void arb__circle_fields(arb_codec* c, arb_shape_def* s, const arb__shape_codec* how) {
  (void)how;
  arb_codec_vec2(c, &s->circle.center);
  arb_codec_f32(c, &s->circle.radius);
}

// Its centre, grown by its radius.
int arb__circle_outline(const arb_circle* g, arb_shape_outline* out, arb_vec2* points,
                        int capacity) {
  out->radius = g->radius;
  return arb__outline_points(points, capacity, &g->center, 1);
}
