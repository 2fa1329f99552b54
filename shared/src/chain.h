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

// ---- the link tree of a world's chain ----------------------------------------------------
//
// A chain contact would otherwise test every link's box against the other shape each step
// (360 links around each of 6000 bodies in Box2D v3's spinner). A world keeps, right after
// its copy of a chain's points (the same allocation: arb__chain_points_size), a complete
// binary tree of link boxes in heap order: node 1 is the root, node k's children are 2k
// and 2k + 1, and the leaves P..P + links - 1 are the links' boxes (P, the smallest power
// of two >= links; the leaves past the last link are empty boxes that overlap nothing).
// A parent is the min/max union of its children, so a box that overlaps a link overlaps
// every node above it: the walk tests exactly the links a link-by-link scan would
// accept, and returns them in link order. Derived data, not state: rebuilt from the
// points wherever a world makes its copy (creation, restore), never saved or hashed.

/// Bytes of a world's copy of a chain: count points, then its link tree.
size_t arb__chain_points_size(int count, bool loop);
/// Build the link tree behind points[0..count) (a copy sized by arb__chain_points_size).
void arb__chain_build_tree(arb_vec2* points, int count, bool loop);
/// The link tree of a chain whose points are a world's copy. Callers with a chain of
/// their own (the public arb_collide_chain_*) have none and pass NULL instead.
static inline const arb_aabb* arb__chain_tree(const arb_chain* c) {
  return (const arb_aabb*)(const void*)(c->points + c->count);
}
/// The links whose local box overlaps `box`, in ascending order, into out (room for
/// ARB_MAX_CHAIN_POINTS); their count. tree NULL: every link's box is tested.
int arb__chain_links_near(const arb_chain* c, const arb_aabb* tree, arb_aabb box, int* out);

/// Distance between the chain (placed by xfc) and a proxy (placed by xfp): the least over
/// the links (both sides), as arb_shape_distance reports it.
float arb__chain_distance(const arb_chain* c, arb_transform xfc, const arb_shape_proxy* p,
                          arb_transform xfp);
