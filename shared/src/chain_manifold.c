// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// Chain manifolds. Every link whose box comes within the margin of B is collided on its
// own, in the chain's frame, as a one-sided segment:
//
//   - B's centre (a circle's, a polygon's centroid, a capsule's middle) behind the link's
//     line: nothing (bodies pass through from behind);
//   - a circle: the closest point of the link, except that a vertex belongs to one link
//     only (the link that starts there, or the last link for the end of an open chain),
//     and a centre over the neighbour's face is the neighbour's;
//   - a polygon or capsule: the two-sided segment manifold (manifold.c), kept when its
//     normal is one the link can have: its own normal, or towards an end, normals up to
//     the neighbour's normal when the corner there is convex (up to the link's direction
//     at an open end). Otherwise the normal is the link's own and B's incident edge is
//     clipped to the link: the ghost vertices. On a flat run of links the side of a box
//     never meets the next link's first vertex, so nothing catches there.
//
// A contact holds one manifold (one normal, two points), so the links' results are
// combined: the deepest link (lowest index on a tie) gives the normal, links whose normal
// is within ARB__CHAIN_MERGE_COS of it give their points, and of those the deepest and
// the one farthest from it along the surface are kept. In a concave corner (a more bent
// link whose point lies in front of the deepest one, both touching) the normal is the
// bisector of the two walls' normals and the deepest point of each wall is kept, its gap
// divided by the cosine between its wall's normal and the bisector: pushing along the
// bisector then opens both gaps, so a ball in a V rests instead of being pushed from wall
// to wall. Feature ids are the link index shifted left 6 bits with the link's own 6-bit
// feature, so warm starting follows a body from link to link.
#include <float.h>
#include <string.h>

#include "chain.h"
#include "manifold.h"

// cos(10 degrees): links bent less than this from the deepest one share its normal.
#define ARB__CHAIN_MERGE_COS 0.985f
// The link's own normal, to rounding.
#define ARB__CHAIN_SAME_COS (1.0f - 1.0e-6f)

typedef struct arb__chain_point {
  arb_vec2 p;  // chain frame, midway between the surfaces
  float sep;
  uint16_t id;
} arb__chain_point;

typedef struct arb__link_result {
  arb_vec2 normal;  // chain frame
  float deepest;
  int count;
  arb__chain_point pts[2];
} arb__link_result;

// B in the chain's frame: a hull (polygon or capsule) or a circle, its centre and box.
typedef struct arb__chain_other {
  arb__hull hull;
  bool is_capsule;
  arb_capsule capsule;  // a capsule B, in the chain's frame
  arb_circle circle;    // a circle B, in the chain's frame (radius 0: not a circle)
  arb_vec2 center;
  arb_aabb box;  // grown by the margin
} arb__chain_other;

static void arb__link_add(arb__link_result* r, arb_vec2 p, float sep, int feature) {
  arb__chain_point* cp = &r->pts[r->count++];
  cp->p = p;
  cp->sep = sep;
  cp->id = (uint16_t)(feature & 0x3f);
  if (r->count == 1 || sep < r->deepest) r->deepest = sep;
}

// ---- a link against a circle ------------------------------------------------------------

static bool arb__link_circle(const arb__link* l, const arb_circle* b, float margin,
                             arb__link_result* r) {
  arb_vec2 c = b->center;
  float len;
  arb_vec2 u = arb_get_length_and_normalize(&len, arb_sub(l->v2, l->v1));
  arb_vec2 n = arb_left_perp(u);
  float offset = arb_dot(n, arb_sub(c, l->v1));
  float t = arb_dot(arb_sub(c, l->v1), u);
  arb_vec2 on_a, normal;
  int feature = 0;
  if (t > 0.0f && t < len) {
    if (offset < 0.0f) return false;
    normal = n;
    on_a = arb_mul_sub(c, offset, n);
  } else {
    arb_vec2 v = t <= 0.0f ? l->v1 : l->v2;
    if (t <= 0.0f && l->has_prev) {
      arb_vec2 u0 = arb_normalize(arb_sub(l->v1, l->g0));
      if (arb_dot(arb_sub(c, l->v1), u0) < 0.0f) return false;  // over the previous face
      if (offset < 0.0f && arb_dot(arb_left_perp(u0), arb_sub(c, l->v1)) < 0.0f) return false;
    } else if (t >= len && l->has_next) {
      return false;  // the next link owns this vertex
    } else if (offset < 0.0f) {
      return false;
    }
    float dist;
    normal = arb_get_length_and_normalize(&dist, arb_sub(c, v));
    if (normal.x == 0.0f && normal.y == 0.0f) normal = n;
    on_a = v;
    feature = 1;
  }
  float sep = arb_dot(arb_sub(c, on_a), normal) - b->radius;
  if (sep > margin) return false;
  r->normal = normal;
  arb_vec2 on_b = arb_mul_sub(c, b->radius, normal);
  arb__link_add(r, arb_lerp(on_a, on_b, 0.5f), sep, feature);
  return true;
}

// ---- a link against a polygon or capsule -----------------------------------------------

// Whether unit normal d is one the link can push along (see the top of the file).
static bool arb__link_admits(const arb__link* l, arb_vec2 n, arb_vec2 d) {
  if (arb_dot(d, n) >= ARB__CHAIN_SAME_COS) return true;
  arb_vec2 u = arb_normalize(arb_sub(l->v2, l->v1));
  if (arb_dot(d, u) < 0.0f) {  // leaning back over v1: counter-clockwise from n
    arb_vec2 m = arb_neg(u);
    if (l->has_prev) {
      arb_vec2 u0 = arb_normalize(arb_sub(l->v1, l->g0));
      if (arb_cross(u0, u) >= 0.0f) return false;  // flat or concave corner: no cone
      m = arb_left_perp(u0);
    }
    return arb_cross(n, d) >= 0.0f && arb_cross(d, m) >= 0.0f;
  }
  arb_vec2 m = u;  // leaning forward over v2: clockwise from n
  if (l->has_next) {
    arb_vec2 u3 = arb_normalize(arb_sub(l->g3, l->v2));
    if (arb_cross(u, u3) >= 0.0f) return false;
    m = arb_left_perp(u3);
  }
  return arb_cross(n, d) <= 0.0f && arb_cross(d, m) <= 0.0f;
}

// B's incident edge clipped to the link, the link's normal n as the contact normal.
static void arb__link_clip(const arb__link* l, arb_vec2 n, const arb__hull* hb, float margin,
                           arb__link_result* r) {
  int e2 = 0;
  float min_dot = FLT_MAX;
  for (int i = 0; i < hb->count; ++i) {
    float d = arb_dot(n, hb->n[i]);
    if (d < min_dot) {
      min_dot = d;
      e2 = i;
    }
  }
  int i1 = e2, i2 = e2 + 1 < hb->count ? e2 + 1 : 0;
  arb_vec2 w1 = hb->v[i1], w2 = hb->v[i2];
  float len;
  arb_vec2 u = arb_get_length_and_normalize(&len, arb_sub(l->v2, l->v1));
  float t1 = arb_dot(arb_sub(w1, l->v1), u), t2 = arb_dot(arb_sub(w2, l->v1), u);
  float s_lo = 0.0f, s_hi = 1.0f;
  if (t1 != t2) {
    float sa = -t1 / (t2 - t1), sb = (len - t1) / (t2 - t1);
    s_lo = arb_maxf(0.0f, arb_minf(sa, sb));
    s_hi = arb_minf(1.0f, arb_maxf(sa, sb));
  } else if (t1 < 0.0f || t1 > len) {
    return;
  }
  if (s_lo > s_hi) return;  // the edge lies beyond the link's ends
  arb_vec2 p[2] = {arb_lerp(w1, w2, s_lo), arb_lerp(w1, w2, s_hi)};
  int feature[2] = {0x38 | (i1 & 7), 0x38 | (i2 & 7)};
  bool single = arb_distance_sq(p[0], p[1]) < ARB_LINEAR_SLOP * ARB_LINEAR_SLOP * 0.01f;
  for (int k = 0; k < (single ? 1 : 2); ++k) {
    float sep = arb_dot(arb_sub(p[k], l->v1), n);
    if (sep - hb->radius > margin) continue;
    float s = arb__rounded_point(&p[k], sep, n, 0.0f, hb->radius);
    arb__link_add(r, p[k], s, feature[k]);
  }
  r->normal = n;
}

static bool arb__link_hull(const arb__link* l, const arb__chain_other* o, float margin,
                           arb__link_result* r) {
  arb_vec2 n = arb__link_normal(l->v1, l->v2);
  if (arb_dot(n, arb_sub(o->center, l->v1)) < 0.0f) return false;  // B's centre behind
  arb_manifold m;
  if (o->is_capsule) {
    arb_capsule core = {l->v1, l->v2, 0.0f};
    m = arb__collide_capsules(&core, arb_transform_identity, &o->capsule, arb_transform_identity,
                              margin);
  } else {
    arb__hull ha;
    if (!arb__two_point_hull(l->v1, l->v2, 0.0f, &ha)) return false;
    m = arb__collide_hulls(ha.v, ha.n, 2, 0.0f, &o->hull, arb_transform_identity,
                           arb_transform_identity, margin);
  }
  if (m.point_count == 0) return false;  // separated along some axis
  if (arb__link_admits(l, n, m.normal)) {
    r->normal = m.normal;
    for (int k = 0; k < m.point_count; ++k) {
      uint16_t id = m.points[k].id;
      arb__link_add(r, m.points[k].point, m.points[k].separation,
                    (((id >> 8) & 7) << 3) | (id & 7));
    }
  } else {
    arb__link_clip(l, n, &o->hull, margin, r);
  }
  return r->count > 0;
}

// ---- combining the links ----------------------------------------------------------------

// The chosen points in the chain's frame, into a world manifold.
static arb_manifold arb__chain_manifold(const arb__chain_point* pts[2], int count, arb_vec2 normal,
                                        arb_transform xfa, arb_transform xfb) {
  arb_manifold m = arb__empty_manifold();
  if (count == 0) return m;
  m.normal = arb_rotate(xfa.q, normal);
  for (int k = 0; k < count; ++k) {
    arb__add_point(&m, arb_rotate(xfa.q, pts[k]->p), xfa, xfb, pts[k]->sep, pts[k]->id);
  }
  return m;
}

// The normal of the link result holding point p.
static arb_vec2 arb__point_normal(const arb__link_result* res, int n, const arb__chain_point* p) {
  for (int k = 0; k < n; ++k) {
    if (p >= res[k].pts && p < res[k].pts + res[k].count) return res[k].normal;
  }
  return arb_vec2_zero;
}

// The deepest point of a link bent away from `normal` by more than the merge angle (less
// than a right angle plus a half) that lies in front of the deepest point `deep`: the
// other wall of a concave corner B sits in. Only when both touch (within the speculative
// distance): the far points of a fast body's wide margin keep their own link's normal.
// NULL when there is none.
static const arb__chain_point* arb__chain_corner(const arb__link_result* res, int n,
                                                 arb_vec2 normal, const arb__chain_point* deep) {
  const arb__chain_point* best = NULL;
  if (deep->sep > ARB_SPECULATIVE_DISTANCE) return NULL;
  for (int k = 0; k < n; ++k) {  // DET: link order, the first of equal depths wins
    float d = arb_dot(res[k].normal, normal);
    if (d >= ARB__CHAIN_MERGE_COS || d < -0.5f) continue;
    for (int j = 0; j < res[k].count; ++j) {
      const arb__chain_point* p = &res[k].pts[j];
      if (p->sep > ARB_SPECULATIVE_DISTANCE) continue;
      if (arb_dot(arb_sub(p->p, deep->p), normal) <= 0.0f) continue;  // convex: ignore
      if (!best || p->sep < best->sep) best = p;
    }
  }
  return best;
}

// Picks the manifold from the links' results (see the top of the file).
static arb_manifold arb__chain_combine(arb__link_result* res, const int* links, int n,
                                       int max_points, arb_transform xfa, arb_transform xfb) {
  int primary = -1;
  for (int k = 0; k < n; ++k) {  // DET: link order, the first of equal depths wins
    if (primary < 0 || res[k].deepest < res[primary].deepest) primary = k;
  }
  const arb__chain_point* pick[2] = {NULL, NULL};
  if (primary < 0) return arb__chain_manifold(pick, 0, arb_vec2_zero, xfa, xfb);
  arb_vec2 normal = res[primary].normal;
  for (int k = 0; k < n; ++k) {
    if (arb_dot(res[k].normal, normal) < ARB__CHAIN_MERGE_COS) continue;
    for (int j = 0; j < res[k].count; ++j) {
      res[k].pts[j].id = (uint16_t)(res[k].pts[j].id | (links[k] << 6));
      if (!pick[0] || res[k].pts[j].sep < pick[0]->sep) pick[0] = &res[k].pts[j];
    }
  }
  const arb__chain_point* corner = arb__chain_corner(res, n, normal, pick[0]);
  if (corner) {
    // A concave corner: one normal between the two walls pushes out of both, each
    // point's gap measured along it (see the top of the file).
    arb_vec2 n2 = arb__point_normal(res, n, corner);
    arb_vec2 bisector = arb_normalize(arb_add(normal, n2));
    arb__chain_point both[2] = {*pick[0], *corner};
    both[0].sep = pick[0]->sep / arb_dot(normal, bisector);
    both[1].sep = corner->sep / arb_dot(n2, bisector);
    const arb__chain_point* pair[2] = {&both[0], &both[1]};
    if (corner < pick[0]) {
      pair[0] = &both[1];
      pair[1] = &both[0];
    }
    return arb__chain_manifold(pair, 2, bisector, xfa, xfb);
  }
  int count = 1;
  if (max_points > 1) {
    arb_vec2 tangent = arb_left_perp(normal);
    float best = ARB_LINEAR_SLOP;
    for (int k = 0; k < n; ++k) {
      if (arb_dot(res[k].normal, normal) < ARB__CHAIN_MERGE_COS) continue;
      for (int j = 0; j < res[k].count; ++j) {
        float d = arb_absf(arb_dot(arb_sub(res[k].pts[j].p, pick[0]->p), tangent));
        if (d > best) {
          best = d;
          pick[1] = &res[k].pts[j];
        }
      }
    }
    count = pick[1] ? 2 : 1;
    // Keep the chain's order (the lower link first) so the pair reads the same each step.
    if (count == 2 && pick[1] < pick[0]) {
      const arb__chain_point* t = pick[0];
      pick[0] = pick[1];
      pick[1] = t;
    }
  }
  return arb__chain_manifold(pick, count, normal, xfa, xfb);
}

// Every link near B collided (in link order), then combined.
static arb_manifold arb__collide_chain(const arb_chain* a, const arb_aabb* tree, arb_transform xfa,
                                       const arb__chain_other* o, arb_transform xfb, float margin,
                                       int max_points) {
  arb__link_result res[ARB_MAX_CHAIN_POINTS];
  int links[ARB_MAX_CHAIN_POINTS];
  int near[ARB_MAX_CHAIN_POINTS];
  // Most links are far from B: their boxes are ruled out (a tree walk for a world's
  // chain) before a link, with its ghost vertices, is built.
  int near_count = arb__chain_links_near(a, tree, o->box, near);
  int n = 0;
  for (int k = 0; k < near_count; ++k) {  // DET: link order
    int i = near[k];
    arb__link l = arb__chain_link(a, i);
    arb__link_result* r = &res[n];
    r->count = 0;
    r->deepest = 0.0f;
    bool hit = o->circle.radius > 0.0f ? arb__link_circle(&l, &o->circle, margin, r)
                                       : arb__link_hull(&l, o, margin, r);
    if (hit) links[n++] = i;
  }
  return arb__chain_combine(res, links, n, max_points, xfa, xfb);
}

static arb_aabb arb__grown_box(const arb_vec2* v, int count, float grow) {
  arb_aabb box = {v[0], v[0]};
  for (int i = 1; i < count; ++i) {
    box.lower = arb_vmin(box.lower, v[i]);
    box.upper = arb_vmax(box.upper, v[i]);
  }
  box.lower = arb_sub(box.lower, arb_v2(grow, grow));
  box.upper = arb_add(box.upper, arb_v2(grow, grow));
  return box;
}

// Clears `o` for shape B; returns the transform from B's frame into the chain's.
static arb_transform arb__chain_other_clear(arb__chain_other* o, arb_transform xfa,
                                            arb_transform xfb) {
  memset(o, 0, sizeof *o);
  return arb_inv_transform_mul(xfa, xfb);
}

arb_manifold arb__collide_chain_and_circle(const arb_chain* a, const arb_aabb* tree,
                                           arb_transform xfa, const arb_circle* b,
                                           arb_transform xfb, float margin) {
  arb__chain_other o;
  arb_transform xf = arb__chain_other_clear(&o, xfa, xfb);
  o.circle.center = o.center = arb_transform_point(xf, b->center);
  o.circle.radius = b->radius;
  o.box = arb__grown_box(&o.center, 1, b->radius + margin);
  return arb__collide_chain(a, tree, xfa, &o, xfb, margin, 1);
}

arb_manifold arb__collide_chain_and_polygon(const arb_chain* a, const arb_aabb* tree,
                                            arb_transform xfa, const arb_polygon* b,
                                            arb_transform xfb, float margin) {
  if (b->count < 3) return arb__empty_manifold();
  arb__chain_other o;
  arb_transform xf = arb__chain_other_clear(&o, xfa, xfb);
  arb__polygon_hull(b, xf, &o.hull);
  o.center = arb_transform_point(xf, b->centroid);
  o.box = arb__grown_box(o.hull.v, o.hull.count, b->radius + margin);
  return arb__collide_chain(a, tree, xfa, &o, xfb, margin, 2);
}

arb_manifold arb__collide_chain_and_capsule(const arb_chain* a, const arb_aabb* tree,
                                            arb_transform xfa, const arb_capsule* b,
                                            arb_transform xfb, float margin) {
  arb__chain_other o;
  arb_transform xf = arb__chain_other_clear(&o, xfa, xfb);
  o.is_capsule = true;
  o.capsule.center1 = arb_transform_point(xf, b->center1);
  o.capsule.center2 = arb_transform_point(xf, b->center2);
  o.capsule.radius = b->radius;
  if (!arb__two_point_hull(o.capsule.center1, o.capsule.center2, b->radius, &o.hull)) {
    return arb__empty_manifold();
  }
  o.center = arb_lerp(o.capsule.center1, o.capsule.center2, 0.5f);
  o.box = arb__grown_box(o.hull.v, 2, b->radius + margin);
  return arb__collide_chain(a, tree, xfa, &o, xfb, margin, 2);
}

ARB_COLLIDE_CHAIN_PAIRS(ARB__DEFINE_PUBLIC_CHAIN_COLLIDE)
