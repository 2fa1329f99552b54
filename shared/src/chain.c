// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// Chain shapes: validation, bounds, ray casts and distance. A chain has no area (no mass,
// no inside); its links are one-sided segments (chain.h), collided in chain_manifold.c.
#include "chain.h"

#include <float.h>
#include <string.h>

int arb_chain_link_count(const arb_chain* shape) {
  if (!shape || shape->count < 2) return 0;
  return shape->loop ? shape->count : shape->count - 1;
}

bool arb_validate_chain(const arb_chain* c, const char** why) {
  const char* dummy;
  if (!why) why = &dummy;
  if (!c->points) return *why = "chain has no points", false;
  if (c->count < 2 || c->count > ARB_MAX_CHAIN_POINTS) {
    return *why = "chain needs 2..512 points (ARB_MAX_CHAIN_POINTS)", false;
  }
  if (c->loop && c->count < 3) return *why = "a chain loop needs at least 3 points", false;
  for (int i = 0; i < c->count; ++i) {
    arb_vec2 p = c->points[i];
    if (!arb_vec2_is_valid(p)) return *why = "chain point not finite", false;
    if (arb_absf(p.x) > ARB_MAX_CHAIN_COORD || arb_absf(p.y) > ARB_MAX_CHAIN_COORD) {
      return *why = "chain point beyond ARB_MAX_CHAIN_COORD", false;
    }
  }
  int links = arb_chain_link_count(c);
  for (int i = 0; i < links; ++i) {
    arb__link l = arb__chain_link(c, i);
    if (arb_distance(l.v1, l.v2) < ARB_LINEAR_SLOP) {
      return *why = "chain link shorter than ARB_LINEAR_SLOP", false;
    }
  }
  return true;
}

arb_aabb arb_compute_chain_aabb(const arb_chain* shape, arb_transform xf) {
  arb_vec2 p = arb_transform_point(xf, shape->points[0]);
  arb_aabb box = {p, p};
  for (int i = 1; i < shape->count; ++i) {
    p = arb_transform_point(xf, shape->points[i]);
    box.lower = arb_vmin(box.lower, p);
    box.upper = arb_vmax(box.upper, p);
  }
  return box;
}

// ---- the link tree (chain.h) ------------------------------------------------------------

// The local box of link i from its two points alone (cheaper than building the link).
static arb_aabb arb__link_box_at(const arb_chain* c, int i) {
  arb_vec2 v1 = c->points[i], v2 = c->points[i + 1 < c->count ? i + 1 : 0];
  arb_aabb box = {arb_vmin(v1, v2), arb_vmax(v1, v2)};
  return box;
}

static int arb__tree_leaves(int links) {
  int p = 1;
  while (p < links) p *= 2;
  return p;
}

size_t arb__chain_points_size(int count, bool loop) {
  int links = count < 2 ? 0 : (loop ? count : count - 1);
  return (size_t)count * sizeof(arb_vec2) + 2 * (size_t)arb__tree_leaves(links) * sizeof(arb_aabb);
}

void arb__chain_build_tree(arb_vec2* points, int count, bool loop) {
  arb_chain c = {points, count, loop};
  int links = arb_chain_link_count(&c), p = arb__tree_leaves(links);
  arb_aabb* tree = (arb_aabb*)(void*)(points + count);
  // An empty box: its lower corner above and its upper corner below any point.
  const arb_aabb empty = {{FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX}};
  tree[0] = empty;  // unused
  for (int i = 0; i < p; ++i) tree[p + i] = i < links ? arb__link_box_at(&c, i) : empty;
  for (int k = p - 1; k >= 1; --k) {
    tree[k].lower = arb_vmin(tree[2 * k].lower, tree[2 * k + 1].lower);
    tree[k].upper = arb_vmax(tree[2 * k].upper, tree[2 * k + 1].upper);
  }
}

int arb__chain_links_near(const arb_chain* c, const arb_aabb* tree, arb_aabb box, int* out) {
  int links = arb_chain_link_count(c), n = 0;
  if (!tree) {
    for (int i = 0; i < links; ++i) {  // DET: link order
      if (arb_aabb_overlaps(arb__link_box_at(c, i), box)) out[n++] = i;
    }
    return n;
  }
  int p = arb__tree_leaves(links);
  // Depth first, the left child on top: the leaves come out in link order.
  int stack[64];
  int top = 0;
  stack[top++] = 1;
  while (top > 0) {
    int k = stack[--top];
    if (!arb_aabb_overlaps(tree[k], box)) continue;
    if (k >= p) {
      out[n++] = k - p;  // an empty leaf never overlaps: k - p < links
      continue;
    }
    stack[top++] = 2 * k + 1;
    stack[top++] = 2 * k;
  }
  return n;
}

arb_cast_output arb_ray_cast_chain(const arb_ray_input* input, const arb_chain* shape) {
  arb_cast_output best;
  memset(&best, 0, sizeof best);
  arb_ray_input in = *input;
  int links = arb_chain_link_count(shape);
  for (int i = 0; i < links; ++i) {  // DET: link order, the first of equal hits wins
    arb__link l = arb__chain_link(shape, i);
    // One-sided: a ray going the way the front faces comes from behind the link.
    if (arb_dot(arb_left_perp(arb_sub(l.v2, l.v1)), in.translation) >= 0.0f) continue;
    arb_segment seg = {l.v1, l.v2};
    arb_cast_output o = arb_ray_cast_segment(&in, &seg);
    if (!o.hit || (best.hit && o.fraction >= best.fraction)) continue;
    best = o;
    in.max_fraction = o.fraction;
  }
  return best;
}

float arb__chain_distance(const arb_chain* c, arb_transform xfc, const arb_shape_proxy* p,
                          arb_transform xfp) {
  float best = 3.4e38f;
  int links = arb_chain_link_count(c);
  for (int i = 0; i < links; ++i) {  // DET: link order
    arb__link l = arb__chain_link(c, i);
    arb_vec2 pts[2] = {l.v1, l.v2};
    arb_shape_proxy link = arb_make_proxy(pts, 2, 0.0f);
    float d = arb_shape_distance(&link, xfc, p, xfp).distance;
    if (d < best) best = d;
  }
  return best;
}
