// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// Narrow phase: contact manifolds for every pair of shape kinds. All functions are pure,
// allocate nothing and work in shape A's frame (or relative to A's origin in world axes),
// which keeps precision when the pair is far from the world origin.
//
// Output convention (see collision.h): normal is unit, world axes, from A to B; each
// point lies midway between the two surfaces; anchor_a = point - xfa.p and
// anchor_b = point - xfb.p; separation < 0 is overlap; points are reported while the
// surfaces are closer than the speculative margin: ARB_SPECULATIVE_DISTANCE for the public
// functions, more for a world pair that moves fast (contact.c widens it by the relative
// motion of the step, so a fast body meets what is ahead of it as a speculative point).
//
// Polygon-polygon is SAT (best face of each polygon) followed by clipping the incident
// edge of one polygon against the reference face of the other:
//
//          v11 ---------- v12        reference face (poly 1), normal n1 points up
//        ^  |    x         x  |
//   n1   |     v22 ----------- v21   incident edge (poly 2), roughly anti-parallel
//
// The two clipped incident points give up to two contacts; their feature ids name the
// reference and incident vertices, so they stay the same while the same faces touch.
#include "manifold.h"

#include <float.h>

// The reference face is only switched to B when B's axis is better by this much: without
// the hysteresis, a box resting on a box would alternate reference faces from step to
// step on rounding noise and lose its warm-start ids.
#define ARB__FLIP_TOLERANCE (0.1f * ARB_LINEAR_SLOP)

// Append a point given relative to xfa.p in world axes.
void arb__add_point(arb_manifold* m, arb_vec2 rel_a, arb_transform xfa, arb_transform xfb,
                    float separation, uint16_t id) {
  arb_manifold_point* mp = &m->points[m->point_count++];
  mp->anchor_a = rel_a;
  mp->anchor_b = arb_add(rel_a, arb_sub(xfa.p, xfb.p));
  mp->point = arb_add(xfa.p, rel_a);
  mp->separation = separation;
  mp->normal_impulse = 0.0f;
  mp->tangent_impulse = 0.0f;
  mp->id = id;
}

// Position of B's local point in A's local frame.
static arb_vec2 arb__b_point_in_a(arb_transform xfa, arb_transform xfb, arb_vec2 local_b) {
  arb_vec2 rel = arb_add(arb_rotate(xfb.q, local_b), arb_sub(xfb.p, xfa.p));
  return arb_inv_rotate(xfa.q, rel);
}

arb_manifold arb__collide_circles(const arb_circle* a, arb_transform xfa, const arb_circle* b,
                                  arb_transform xfb, float margin) {
  arb_manifold m = arb__empty_manifold();
  // Both centres relative to A's origin (world axes).
  arb_vec2 ca = arb_rotate(xfa.q, a->center);
  arb_vec2 cb = arb_add(arb_rotate(xfb.q, b->center), arb_sub(xfb.p, xfa.p));
  float dist;
  arb_vec2 normal = arb_get_length_and_normalize(&dist, arb_sub(cb, ca));  // B - A, never A + B
  float separation = dist - a->radius - b->radius;
  if (separation > margin) return m;
  // Coincident centres: any direction is as good as another; pick world up so the
  // choice is deterministic and a circle dropped exactly onto another is pushed upward.
  if (normal.x == 0.0f && normal.y == 0.0f) normal = arb_v2(0.0f, 1.0f);
  arb_vec2 pa = arb_mul_add(ca, a->radius, normal);
  arb_vec2 pb = arb_mul_sub(cb, b->radius, normal);
  m.normal = normal;
  arb__add_point(&m, arb_lerp(pa, pb, 0.5f), xfa, xfb, separation, 0);
  return m;
}

// The circle's centre is taken into A's frame; the polygon face of greatest separation
// decides between the face region and the two vertex regions at its ends.
arb_manifold arb__collide_polygon_and_circle(const arb_polygon* a, arb_transform xfa,
                                             const arb_circle* b, arb_transform xfb, float margin) {
  arb_manifold m = arb__empty_manifold();
  int count = a->count;
  if (count < 3) return m;
  arb_vec2 c = arb__b_point_in_a(xfa, xfb, b->center);
  float radius = b->radius + a->radius;  // a rounded polygon's rim adds to the reach

  // Face of least penetration / most separation.
  int edge = 0;
  float s_max = -FLT_MAX;
  for (int i = 0; i < count; ++i) {
    float s = arb_dot(a->normals[i], arb_sub(c, a->vertices[i]));
    if (s > s_max) {
      s_max = s;
      edge = i;
    }
  }
  if (s_max - radius > margin) return m;

  arb_vec2 v1 = a->vertices[edge];
  arb_vec2 v2 = a->vertices[edge + 1 < count ? edge + 1 : 0];
  arb_vec2 normal;
  arb_vec2 on_a;  // closest point on the polygon surface
  float separation;
  if (s_max <= 0.0f) {
    // Centre inside (or on) the polygon: push out through the nearest face.
    normal = a->normals[edge];
    on_a = arb_mul_sub(c, s_max, normal);
    separation = s_max - radius;
  } else {
    // Outside: the closest feature is that face or one of its end vertices.
    float u1 = arb_dot(arb_sub(c, v1), arb_sub(v2, v1));
    float u2 = arb_dot(arb_sub(c, v2), arb_sub(v1, v2));
    if (u1 <= 0.0f || u2 <= 0.0f) {
      arb_vec2 v = u1 <= 0.0f ? v1 : v2;
      float dist;
      normal = arb_get_length_and_normalize(&dist, arb_sub(c, v));
      // dist >= s_max > 0 here, but a centre within 1e-9 m of the vertex has no direction
      // to normalize (a zero normal): the face's normal stands in for it.
      if (normal.x == 0.0f && normal.y == 0.0f) normal = a->normals[edge];
      separation = dist - radius;
      if (separation > margin) return m;
      on_a = v;
    } else {
      normal = a->normals[edge];
      on_a = arb_mul_sub(c, s_max, normal);
      separation = s_max - radius;
    }
  }
  if (a->radius > 0.0f) on_a = arb_mul_add(on_a, a->radius, normal);  // onto the rim
  arb_vec2 on_b = arb_mul_sub(c, b->radius, normal);
  m.normal = arb_rotate(xfa.q, normal);
  arb__add_point(&m, arb_rotate(xfa.q, arb_lerp(on_a, on_b, 0.5f)), xfa, xfb, separation, 0);
  return m;
}

// A segment a-b grown by ra (0: a plain segment, > 0: a capsule) against a circle: the
// closest point of the segment to the centre decides, as for a circle.
static arb_manifold arb__collide_core_and_circle(arb_vec2 pa, arb_vec2 pb, float ra,
                                                 arb_transform xfa, const arb_circle* b,
                                                 arb_transform xfb, float margin) {
  arb_manifold m = arb__empty_manifold();
  arb_vec2 c = arb__b_point_in_a(xfa, xfb, b->center);
  arb_vec2 e = arb_sub(pb, pa);
  float ee = arb_dot(e, e);
  float t = ee > 0.0f ? arb_clampf(arb_dot(arb_sub(c, pa), e) / ee, 0.0f, 1.0f) : 0.0f;
  arb_vec2 closest = arb_mul_add(pa, t, e);
  float dist;
  arb_vec2 normal = arb_get_length_and_normalize(&dist, arb_sub(c, closest));
  float separation = dist - b->radius - ra;
  if (separation > margin) return m;
  if (normal.x == 0.0f && normal.y == 0.0f) {
    // Centre exactly on the segment: use the segment's left normal (up for a segment
    // drawn left to right, the usual ground).
    normal = arb_normalize(arb_left_perp(e));
    if (normal.x == 0.0f && normal.y == 0.0f) normal = arb_v2(0.0f, 1.0f);
  }
  if (ra != 0.0f) closest = arb_mul_add(closest, ra, normal);  // onto the capsule's surface
  arb_vec2 on_b = arb_mul_sub(c, b->radius, normal);
  m.normal = arb_rotate(xfa.q, normal);
  arb__add_point(&m, arb_rotate(xfa.q, arb_lerp(closest, on_b, 0.5f)), xfa, xfb, separation, 0);
  return m;
}

arb_manifold arb__collide_segment_and_circle(const arb_segment* a, arb_transform xfa,
                                             const arb_circle* b, arb_transform xfb, float margin) {
  return arb__collide_core_and_circle(a->a, a->b, 0.0f, xfa, b, xfb, margin);
}

arb_manifold arb__collide_capsule_and_circle(const arb_capsule* a, arb_transform xfa,
                                             const arb_circle* b, arb_transform xfb, float margin) {
  return arb__collide_core_and_circle(a->center1, a->center2, a->radius, xfa, b, xfb, margin);
}

// ---- polygon-polygon (SAT + clipping) --------------------------------------------------

// Largest separation of poly2 from poly1 along poly1's face normals. Stops early once an
// axis separates the pair beyond the speculative margin (the caller then gives up).
static float arb__max_separation(const arb_vec2* v1, const arb_vec2* n1, int c1, const arb_vec2* v2,
                                 int c2, float margin, int* edge) {
  int best = 0;
  float max_sep = -FLT_MAX;
  for (int i = 0; i < c1; ++i) {
    arb_vec2 n = n1[i];
    arb_vec2 v = v1[i];
    float si = FLT_MAX;
    for (int j = 0; j < c2; ++j) {
      float sij = arb_dot(n, arb_sub(v2[j], v));
      if (sij < si) si = sij;
    }
    if (si > max_sep) {
      max_sep = si;
      best = i;
      if (si > margin) break;
    }
  }
  *edge = best;
  return max_sep;
}

// Closest points between segments p1-q1 and p2-q2: fractions f1, f2 in [0, 1], exactly
// 0 or 1 when the closest point is an end point.
static void arb__segment_closest(arb_vec2 p1, arb_vec2 q1, arb_vec2 p2, arb_vec2 q2, float* f1,
                                 float* f2) {
  arb_vec2 d1 = arb_sub(q1, p1);
  arb_vec2 d2 = arb_sub(q2, p2);
  arb_vec2 r = arb_sub(p1, p2);
  float a = arb_dot(d1, d1);
  float e = arb_dot(d2, d2);
  float f = arb_dot(d2, r);
  float s, t;
  float eps = 1.0e-12f;
  if (a <= eps && e <= eps) {
    s = t = 0.0f;
  } else if (a <= eps) {
    s = 0.0f;
    t = arb_clampf(f / e, 0.0f, 1.0f);
  } else {
    float c = arb_dot(d1, r);
    if (e <= eps) {
      t = 0.0f;
      s = arb_clampf(-c / a, 0.0f, 1.0f);
    } else {
      float b = arb_dot(d1, d2);
      float denom = a * e - b * b;
      s = denom > 0.0f ? arb_clampf((b * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
      t = (b * s + f) / e;
      if (t < 0.0f) {
        t = 0.0f;
        s = arb_clampf(-c / a, 0.0f, 1.0f);
      } else if (t > 1.0f) {
        t = 1.0f;
        s = arb_clampf((b - c) / a, 0.0f, 1.0f);
      }
    }
  }
  *f1 = s;
  *f2 = t;
}

// A contact point between two rounded features: `p` lies on the incident core, `sep` is
// its core distance from the reference core along `normal` (reference radius r1,
// incident r2). The point goes midway between the two surfaces; returns the surface
// separation. Sharp shapes (r1 = r2 = 0) keep the plain expressions, bit for bit.
float arb__rounded_point(arb_vec2* p, float sep, arb_vec2 normal, float r1, float r2) {
  if (r1 == 0.0f && r2 == 0.0f) {
    *p = arb_mul_sub(*p, 0.5f * sep, normal);
    return sep;
  }
  *p = arb_mul_add(*p, 0.5f * (r1 - r2 - sep), normal);
  return sep - r1 - r2;
}

// A is the hull (va, na, ca) grown by ra; hb is B in A's frame. ids name A's vertex in the
// high byte whichever side is reference. Separations along the axes are of the cores; the
// radii widen the reach and are taken off where points are made.
arb_manifold arb__collide_hulls(const arb_vec2* va, const arb_vec2* na, int ca, float ra,
                                const arb__hull* hb, arb_transform xfa, arb_transform xfb,
                                float margin) {
  arb_manifold m = arb__empty_manifold();
  const float reach = margin + ra + hb->radius;
  int edge_a, edge_b;
  float sep_a = arb__max_separation(va, na, ca, hb->v, hb->count, reach, &edge_a);
  if (sep_a > reach) return m;
  float sep_b = arb__max_separation(hb->v, hb->n, hb->count, va, ca, reach, &edge_b);
  if (sep_b > reach) return m;

  const arb_vec2 *v1, *n1, *v2, *n2;
  int c1, c2, e1;
  bool flip = sep_b > sep_a + ARB__FLIP_TOLERANCE;
  if (flip) {
    v1 = hb->v;
    n1 = hb->n;
    c1 = hb->count;
    e1 = edge_b;
    v2 = va;
    n2 = na;
    c2 = ca;
  } else {
    v1 = va;
    n1 = na;
    c1 = ca;
    e1 = edge_a;
    v2 = hb->v;
    n2 = hb->n;
    c2 = hb->count;
  }
  arb_vec2 normal = n1[e1];
  float r1 = flip ? hb->radius : ra, r2 = flip ? ra : hb->radius;

  // Incident edge: the face of poly 2 most anti-parallel to the reference normal.
  int e2 = 0;
  float min_dot = FLT_MAX;
  for (int i = 0; i < c2; ++i) {
    float d = arb_dot(normal, n2[i]);
    if (d < min_dot) {
      min_dot = d;
      e2 = i;
    }
  }
  int i11 = e1, i12 = e1 + 1 < c1 ? e1 + 1 : 0;
  int i21 = e2, i22 = e2 + 1 < c2 ? e2 + 1 : 0;
  arb_vec2 v11 = v1[i11], v12 = v1[i12];
  arb_vec2 v21 = v2[i21], v22 = v2[i22];
  arb_vec2 world_normal = arb_rotate(xfa.q, flip ? arb_neg(normal) : normal);

#define ARB__ID(ref, inc) (flip ? ARB_MAKE_FEATURE_ID(inc, ref) : ARB_MAKE_FEATURE_ID(ref, inc))

  float sep = arb_maxf(sep_a, sep_b);
  if (sep > ARB__FLIP_TOLERANCE) {
    // Not touching: if the closest features are two vertices (corner facing corner), the
    // face normal misjudges both direction and distance; use the true closest points.
    float f1, f2;
    arb__segment_closest(v11, v12, v21, v22, &f1, &f2);
    if ((f1 == 0.0f || f1 == 1.0f) && (f2 == 0.0f || f2 == 1.0f)) {
      arb_vec2 p1 = f1 == 0.0f ? v11 : v12;
      arb_vec2 p2 = f2 == 0.0f ? v21 : v22;
      float dist;
      arb_vec2 n = arb_get_length_and_normalize(&dist, arb_sub(p2, p1));
      if (dist > reach) return m;
      if (n.x != 0.0f || n.y != 0.0f) {
        m.normal = arb_rotate(xfa.q, flip ? arb_neg(n) : n);
        int ref = f1 == 0.0f ? i11 : i12;
        int inc = f2 == 0.0f ? i21 : i22;
        arb_vec2 p = arb_lerp(p1, p2, 0.5f);
        if (r1 != 0.0f || r2 != 0.0f) {
          p = p2;
          dist = arb__rounded_point(&p, dist, n, r1, r2);
        }
        arb__add_point(&m, arb_rotate(xfa.q, p), xfa, xfb, dist, ARB__ID(ref, inc));
        return m;
      }
    }
  }

  // Clip the incident edge to the side planes of the reference face. Coordinates along
  // the face tangent, measured from v11: the face spans [0, upper1], the incident edge
  // [lower2 (at v22), upper2 (at v21)].
  arb_vec2 tangent = arb_left_perp(normal);
  float upper1 = arb_dot(arb_sub(v12, v11), tangent);
  float upper2 = arb_dot(arb_sub(v21, v11), tangent);
  float lower2 = arb_dot(arb_sub(v22, v11), tangent);
  float span = upper2 - lower2;
  arb_vec2 v_lower = v22, v_upper = v21;
  if (span > 1.0e-6f) {
    if (lower2 < 0.0f) v_lower = arb_lerp(v22, v21, arb_clampf(-lower2 / span, 0.0f, 1.0f));
    if (upper2 > upper1) {
      v_upper = arb_lerp(v22, v21, arb_clampf((upper1 - lower2) / span, 0.0f, 1.0f));
    }
  }
  float sep_lower = arb_dot(arb_sub(v_lower, v11), normal);
  float sep_upper = arb_dot(arb_sub(v_upper, v11), normal);
  // Edges that do not overlap along the tangent clip to the same point: report it once.
  bool single = arb_distance_sq(v_lower, v_upper) < ARB_LINEAR_SLOP * ARB_LINEAR_SLOP * 0.01f;

  m.normal = world_normal;
  if (sep_lower <= reach) {
    arb_vec2 p = v_lower;
    float s = arb__rounded_point(&p, sep_lower, normal, r1, r2);
    arb__add_point(&m, arb_rotate(xfa.q, p), xfa, xfb, s, ARB__ID(i11, i22));
  }
  if (!single && sep_upper <= reach) {
    arb_vec2 p = v_upper;
    float s = arb__rounded_point(&p, sep_upper, normal, r1, r2);
    arb__add_point(&m, arb_rotate(xfa.q, p), xfa, xfb, s, ARB__ID(i12, i21));
  }
#undef ARB__ID
  if (m.point_count == 0) m.normal = arb_vec2_zero;
  return m;
}

// A polygon placed by xf (B's frame in A's frame) as a hull.
void arb__polygon_hull(const arb_polygon* p, arb_transform xf, arb__hull* h) {
  h->count = p->count;
  h->radius = p->radius;
  for (int i = 0; i < p->count; ++i) {
    h->v[i] = arb_transform_point(xf, p->vertices[i]);
    h->n[i] = arb_rotate(xf.q, p->normals[i]);
  }
}

// A two-vertex hull: edge 0 runs v0->v1, edge 1 runs back; with the other shape's normals
// these are all the separating axes in 2D. False for a zero-length core.
bool arb__two_point_hull(arb_vec2 v0, arb_vec2 v1, float radius, arb__hull* h) {
  arb_vec2 n0 = arb_normalize(arb_right_perp(arb_sub(v1, v0)));
  if (n0.x == 0.0f && n0.y == 0.0f) return false;
  h->count = 2;
  h->radius = radius;
  h->v[0] = v0;
  h->v[1] = v1;
  h->n[0] = n0;
  h->n[1] = arb_neg(n0);
  return true;
}

// A capsule placed by xf (B's frame in A's frame) as a hull.
static bool arb__capsule_hull(const arb_capsule* c, arb_transform xf, arb__hull* h) {
  return arb__two_point_hull(arb_transform_point(xf, c->center1),
                             arb_transform_point(xf, c->center2), c->radius, h);
}

arb_manifold arb__collide_polygons(const arb_polygon* a, arb_transform xfa, const arb_polygon* b,
                                   arb_transform xfb, float margin) {
  if (a->count < 3 || b->count < 3) return arb__empty_manifold();
  arb__hull hb;
  arb__polygon_hull(b, arb_inv_transform_mul(xfa, xfb), &hb);
  return arb__collide_hulls(a->vertices, a->normals, a->count, a->radius, &hb, xfa, xfb, margin);
}

arb_manifold arb__collide_segment_and_polygon(const arb_segment* a, arb_transform xfa,
                                              const arb_polygon* b, arb_transform xfb,
                                              float margin) {
  arb__hull ha, hb;
  if (b->count < 3 || !arb__two_point_hull(a->a, a->b, 0.0f, &ha)) return arb__empty_manifold();
  arb__polygon_hull(b, arb_inv_transform_mul(xfa, xfb), &hb);
  return arb__collide_hulls(ha.v, ha.n, 2, 0.0f, &hb, xfa, xfb, margin);
}

arb_manifold arb__collide_polygon_and_capsule(const arb_polygon* a, arb_transform xfa,
                                              const arb_capsule* b, arb_transform xfb,
                                              float margin) {
  arb__hull hb;
  if (a->count < 3 || !arb__capsule_hull(b, arb_inv_transform_mul(xfa, xfb), &hb)) {
    return arb__empty_manifold();
  }
  return arb__collide_hulls(a->vertices, a->normals, a->count, a->radius, &hb, xfa, xfb, margin);
}

arb_manifold arb__collide_segment_and_capsule(const arb_segment* a, arb_transform xfa,
                                              const arb_capsule* b, arb_transform xfb,
                                              float margin) {
  arb_capsule core = {a->a, a->b, 0.0f};
  return arb__collide_capsules(&core, xfa, b, xfb, margin);
}

// ---- capsule-capsule (two rounded segments) ---------------------------------------------

// Cores closer to parallel than this (sine of the angle) that overlap along A's axis
// touch along a line: two points, like a capsule lying on a box.
#define ARB__PARALLEL_SINE 0.05f

// Two segments have no face normals that cover every direction (collinear cores are
// separated along their common axis), so this pair does not go through the hull SAT:
// the closest points of the cores decide. When the cores are nearly parallel and
// overlap along A's axis, B's core is clipped to A's span and each clipped end is a
// point (the normal is A's side normal); otherwise the closest points make one point.
// A may have radius 0 (a two-sided segment).
arb_manifold arb__collide_capsules(const arb_capsule* a, arb_transform xfa, const arb_capsule* b,
                                   arb_transform xfb, float margin) {
  arb_manifold m = arb__empty_manifold();
  const float ra = a->radius, rb = b->radius;
  arb_transform xf = arb_inv_transform_mul(xfa, xfb);
  arb_vec2 p1 = a->center1, p2 = a->center2;
  arb_vec2 q1 = arb_transform_point(xf, b->center1), q2 = arb_transform_point(xf, b->center2);
  float f1, f2;
  arb__segment_closest(p1, p2, q1, q2, &f1, &f2);
  arb_vec2 ca = arb_lerp(p1, p2, f1), cb = arb_lerp(q1, q2, f2);
  float dist;
  arb_vec2 normal = arb_get_length_and_normalize(&dist, arb_sub(cb, ca));
  if (dist - ra - rb > margin) return m;
  float len_a, len_b;
  arb_vec2 ua = arb_get_length_and_normalize(&len_a, arb_sub(p2, p1));
  arb_vec2 ub = arb_get_length_and_normalize(&len_b, arb_sub(q2, q1));
  if (len_a == 0.0f || len_b == 0.0f) return m;
  arb_vec2 side = arb_left_perp(ua);
  if (arb_dot(side, arb_sub(arb_lerp(q1, q2, 0.5f), p1)) < 0.0f) side = arb_neg(side);

  if (arb_absf(arb_cross(ua, ub)) < ARB__PARALLEL_SINE) {
    // B's ends along A's axis, clipped to A's span [0, len_a].
    float t1 = arb_dot(arb_sub(q1, p1), ua), t2 = arb_dot(arb_sub(q2, p1), ua);
    float lo = arb_maxf(arb_minf(t1, t2), 0.0f), hi = arb_minf(arb_maxf(t1, t2), len_a);
    if (hi - lo > ARB_LINEAR_SLOP) {
      float span = t2 - t1;
      m.normal = arb_rotate(xfa.q, side);
      for (int k = 0; k < 2; ++k) {
        float t = k == 0 ? lo : hi;
        arb_vec2 q = arb_lerp(q1, q2, arb_clampf((t - t1) / span, 0.0f, 1.0f));
        float sep = arb_dot(arb_sub(q, p1), side);
        if (sep - ra - rb > margin) continue;
        float s = arb__rounded_point(&q, sep, side, ra, rb);
        // ids: which end of B's span (B's lower or upper end along A's axis).
        arb__add_point(&m, arb_rotate(xfa.q, q), xfa, xfb, s, ARB_MAKE_FEATURE_ID(0, k + 1));
      }
      if (m.point_count > 0) return m;
      m.normal = arb_vec2_zero;
    }
  }
  // Crossing cores have no direction between them: push out along A's side.
  if (normal.x == 0.0f && normal.y == 0.0f) normal = side;
  arb_vec2 p = cb;
  float s = arb__rounded_point(&p, dist, normal, ra, rb);
  m.normal = arb_rotate(xfa.q, normal);
  // ids: the feature of each core (0 start, 1 interior, 2 end).
  int fa = f1 == 0.0f ? 0 : (f1 == 1.0f ? 2 : 1), fb = f2 == 0.0f ? 0 : (f2 == 1.0f ? 2 : 1);
  arb__add_point(&m, arb_rotate(xfa.q, p), xfa, xfb, s, ARB_MAKE_FEATURE_ID(fa + 3, fb + 3));
  return m;
}

// ---- public functions: the fixed speculative margin ------------------------------------

ARB_COLLIDE_PAIRS(ARB__DEFINE_PUBLIC_COLLIDE)
