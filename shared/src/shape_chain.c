// DETERMINISM-CRITICAL: a chain's answers to the shape module (shape.h). A chain is a
// line (no mass, no inside) of links; the link-by-link work is in chain.h.
#include "chain.h"
#include "shape_kind.h"

ARB__LINE_KIND_ANSWERS(chain)

bool arb__chain_valid(const arb_shape_def* s, const char** why) {
  // Sensors find their visitors by one convex distance; a chain has many links.
  if (s->sensor) return *why = "a chain cannot be a sensor", false;
  return arb_validate_chain(&s->chain, why);
}

// Callers that meet chains (ccd.c, sensor.c) go link by link; this is the first.
arb_shape_proxy arb__chain_proxy(const arb_chain* g) {
  return arb_make_proxy(g->points, 2, 0.0f);
}

float arb__chain_max_extent(const arb_chain* g, arb_vec2 center) {
  float ext = 0.0f;
  for (int i = 0; i < g->count; ++i) ext = arb_maxf(ext, arb_distance(g->points[i], center));
  return ext;
}

// The links have their own test in the chain collide.
bool arb__chain_out_of_reach(const arb_chain* g, arb_transform xf, arb_vec2 p, float reach) {
  (void)g, (void)xf, (void)p, (void)reach;
  return false;
}

arb_manifold arb__chain_collide_circle(const arb_chain* g, arb_transform xf, const arb_circle* c,
                                       arb_transform xc) {
  return arb__collide_chain_and_circle(g, arb__chain_tree(g), xf, c, xc, ARB_SPECULATIVE_DISTANCE);
}

// u16 count, u8 loop, count vec2 points. Reading allocates the world's copy of the points
// from how->owner (the shape owns it from then on, even if a later check fails).
void arb__chain_fields(arb_codec* c, arb_shape_def* s, const arb__shape_codec* how) {
  arb_chain* ch = &s->chain;
  uint16_t count = (uint16_t)ch->count;
  arb_codec_u16(c, &count);
  arb_codec_bool(c, &ch->loop);
  ARB_CODEC_CHECK(
      c, count >= 2 && count <= ARB_MAX_CHAIN_POINTS && (size_t)count * 8 <= arb_codec_left(c));
  if (c->err) return;
  if (arb_codec_reading(c)) {
    ch->count = count;
    arb_vec2* points = arb__alloc(how->owner, arb__chain_points_size(count, ch->loop));
    ch->points = points;
    if (!points) {
      arb_codec_fail(c, ARB_E_NOMEM);
      return;
    }
    for (int i = 0; i < count; ++i) arb_codec_vec2(c, &points[i]);
    if (!c->err) arb__chain_build_tree(points, count, ch->loop);  // derived (chain.h), not read
  } else {
    // Writing never stores: the points are only read.
    for (int i = 0; i < count; ++i) arb_codec_vec2(c, (arb_vec2*)&ch->points[i]);
  }
}

// Its points, closed when it loops; its links collide from the left only. A shape whose
// points are missing (a chain described without them) has none.
int arb__chain_outline(const arb_chain* g, arb_shape_outline* out, arb_vec2* points, int capacity) {
  out->closed = g->loop;
  out->one_sided = true;
  int n = g->points && g->count >= 0 && g->count <= ARB_MAX_CHAIN_POINTS ? g->count : 0;
  return arb__outline_points(points, capacity, g->points, n);
}
