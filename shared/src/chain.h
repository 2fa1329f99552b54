// arbiter — chain links: the one-sided segments of a chain shape with their ghost
// vertices, shared by the chain geometry, manifolds, continuous collision and sensors.
// Not a public header.
#pragma once

#include "arbiter/collision.h"

// Link i runs v1 = points[i] -> v2 = points[i + 1] (a loop wraps). The ghosts are the
// points before v1 and after v2 along the chain, when the chain goes on there.
typedef struct arb__link {
  arb_vec2 v1, v2;
  arb_vec2 g0, g3;
  bool has_prev, has_next;
} arb__link;

static inline arb__link arb__chain_link(const arb_chain* c, int i) {
  int n = c->count;
  arb__link l;
  l.v1 = c->points[i];
  l.v2 = c->points[i + 1 < n ? i + 1 : 0];
  l.has_prev = c->loop || i > 0;
  l.has_next = c->loop || i + 2 < n;
  l.g0 = l.has_prev ? c->points[i > 0 ? i - 1 : n - 1] : l.v1;
  l.g3 = l.has_next ? c->points[(i + 2) % n] : l.v2;
  return l;
}

// The front normal of a link: the left of v1 -> v2.
static inline arb_vec2 arb__link_normal(arb_vec2 v1, arb_vec2 v2) {
  return arb_normalize(arb_left_perp(arb_sub(v2, v1)));
}

// The local box of link i.
static inline arb_aabb arb__link_box(const arb__link* l) {
  arb_aabb b = {arb_vmin(l->v1, l->v2), arb_vmax(l->v1, l->v2)};
  return b;
}

/// Distance between the chain (placed by xfc) and a proxy (placed by xfp): the least over
/// the links (both sides), as arb_shape_distance reports it.
float arb__chain_distance(const arb_chain* c, arb_transform xfc, const arb_shape_proxy* p,
                          arb_transform xfp);
