// DETERMINISM-CRITICAL: a segment's answers to the shape module (shape.h). A segment is a
// line: no mass, no inside.
#include "shape_kind.h"

ARB__LINE_KIND_ANSWERS(segment)

bool arb__segment_valid(const arb_shape_def* s, const char** why) {
  if (!arb_vec2_is_valid(s->segment.a) || !arb_vec2_is_valid(s->segment.b)) {
    return *why = "segment end not finite", false;
  }
  if (arb_distance(s->segment.a, s->segment.b) < ARB_LINEAR_SLOP) {
    return *why = "segment too short", false;
  }
  return true;
}

arb_shape_proxy arb__segment_proxy(const arb_segment* g) {
  return arb_make_segment_proxy(g);
}

float arb__segment_max_extent(const arb_segment* g, arb_vec2 center) {
  return arb_maxf(arb_distance(g->a, center), arb_distance(g->b, center));
}

bool arb__segment_out_of_reach(const arb_segment* g, arb_transform xf, arb_vec2 p, float reach) {
  return arb__core_beyond(g->a, g->b, 0.0f, xf, p, reach);
}

arb_manifold arb__segment_collide_circle(const arb_segment* g, arb_transform xf,
                                         const arb_circle* c, arb_transform xc) {
  return arb_collide_segment_and_circle(g, xf, c, xc);
}

// vec2 a, vec2 b.
void arb__segment_fields(arb_codec* c, arb_shape_def* s, const arb__shape_codec* how) {
  (void)how;
  arb_codec_vec2(c, &s->segment.a);
  arb_codec_vec2(c, &s->segment.b);
}

// Its two ends.
int arb__segment_outline(const arb_segment* g, arb_shape_outline* out, arb_vec2* points,
                         int capacity) {
  (void)out;
  arb_vec2 ends[2] = {g->a, g->b};
  return arb__outline_points(points, capacity, ends, 2);
}
