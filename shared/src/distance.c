// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// Closest distance between convex shapes (GJK) and time of impact along linear +
// angular sweeps (conservative advancement), for continuous collision of fast bodies.
//
// Every shape kind is a "proxy": a convex cloud of up to 8 points grown by a radius
// (circle = 1 point + radius, segment = 2 points, polygon = its vertices and radius, capsule = 2
// points + radius). GJK works on the point clouds (the cores) in A's frame; radii are
// applied afterwards.
#include <arbiter/collision.h>

#include <float.h>
#include <string.h>

arb_shape_proxy arb_make_proxy(const arb_vec2* points, int count, float radius) {
  arb_shape_proxy p;
  if (count > ARB_MAX_POLYGON_VERTICES) count = ARB_MAX_POLYGON_VERTICES;
  if (count < 0) count = 0;
  p.count = count;
  for (int i = 0; i < ARB_MAX_POLYGON_VERTICES; ++i)
    p.points[i] = i < count ? points[i] : arb_vec2_zero;
  p.radius = radius;
  return p;
}

arb_shape_proxy arb_make_circle_proxy(const arb_circle* shape) {
  return arb_make_proxy(&shape->center, 1, shape->radius);
}

arb_shape_proxy arb_make_polygon_proxy(const arb_polygon* shape) {
  return arb_make_proxy(shape->vertices, shape->count, shape->radius);
}

arb_shape_proxy arb_make_segment_proxy(const arb_segment* shape) {
  arb_vec2 pts[2] = {shape->a, shape->b};
  return arb_make_proxy(pts, 2, 0.0f);
}

arb_shape_proxy arb_make_capsule_proxy(const arb_capsule* shape) {
  arb_vec2 pts[2] = {shape->center1, shape->center2};
  return arb_make_proxy(pts, 2, shape->radius);
}

// ---- GJK --------------------------------------------------------------------------------

typedef struct arb__simplex_vertex {
  arb_vec2 wa;  // support point on A
  arb_vec2 wb;  // support point on B
  arb_vec2 w;   // wb - wa: a point of the Minkowski difference B - A
  float a;      // barycentric weight of this vertex in the closest point
  int ia, ib;   // indices of wa, wb in their proxies
} arb__simplex_vertex;

typedef struct arb__simplex {
  arb__simplex_vertex v[3];
  int count;
} arb__simplex;

static int arb__support(const arb_vec2* pts, int count, arb_vec2 dir) {
  int best = 0;
  float best_dot = arb_dot(pts[0], dir);
  for (int i = 1; i < count; ++i) {
    float d = arb_dot(pts[i], dir);
    if (d > best_dot) {
      best_dot = d;
      best = i;
    }
  }
  return best;
}

// The simplex becomes its vertex k alone.
static void arb__keep_vertex(arb__simplex* s, int k) {
  s->v[0] = s->v[k];
  s->v[0].a = 1.0f;
  s->count = 1;
}

// The simplex becomes the edge of its vertices i (into slot 0) and k (into slot 1), given
// their unnormalized barycentric weights wi and wk.
static void arb__keep_edge(arb__simplex* s, int i, int k, float wi, float wk) {
  float inv = 1.0f / (wi + wk);
  arb__simplex_vertex vi = s->v[i], vk = s->v[k];
  vi.a = wi * inv;
  vk.a = wk * inv;
  s->v[0] = vi;
  s->v[1] = vk;
  s->count = 2;
}

// Reduce a 2-simplex to the feature closest to the origin (Voronoi regions of a segment).
static void arb__solve2(arb__simplex* s) {
  arb_vec2 w1 = s->v[0].w, w2 = s->v[1].w;
  arb_vec2 e12 = arb_sub(w2, w1);
  float d12_2 = -arb_dot(w1, e12);  // weight of w2 (unnormalized)
  if (d12_2 <= 0.0f) {
    arb__keep_vertex(s, 0);
    return;
  }
  float d12_1 = arb_dot(w2, e12);  // weight of w1
  if (d12_1 <= 0.0f) {
    arb__keep_vertex(s, 1);
    return;
  }
  arb__keep_edge(s, 0, 1, d12_1, d12_2);
}

// Reduce a 3-simplex (triangle) to its feature closest to the origin; count stays 3 only
// when the origin is inside (the cores overlap).
static void arb__solve3(arb__simplex* s) {
  arb_vec2 w1 = s->v[0].w, w2 = s->v[1].w, w3 = s->v[2].w;
  arb_vec2 e12 = arb_sub(w2, w1);
  float d12_1 = arb_dot(w2, e12), d12_2 = -arb_dot(w1, e12);
  arb_vec2 e13 = arb_sub(w3, w1);
  float d13_1 = arb_dot(w3, e13), d13_2 = -arb_dot(w1, e13);
  arb_vec2 e23 = arb_sub(w3, w2);
  float d23_1 = arb_dot(w3, e23), d23_2 = -arb_dot(w2, e23);
  // Signed areas of the sub-triangles opposite each vertex, oriented like the triangle.
  float n123 = arb_cross(e12, e13);
  float d123_1 = n123 * arb_cross(w2, w3);
  float d123_2 = n123 * arb_cross(w3, w1);
  float d123_3 = n123 * arb_cross(w1, w2);

  if (d12_2 <= 0.0f && d13_2 <= 0.0f) {  // vertex 1
    arb__keep_vertex(s, 0);
    return;
  }
  if (d12_1 > 0.0f && d12_2 > 0.0f && d123_3 <= 0.0f) {  // edge 12
    arb__keep_edge(s, 0, 1, d12_1, d12_2);
    return;
  }
  if (d13_1 > 0.0f && d13_2 > 0.0f && d123_2 <= 0.0f) {  // edge 13
    arb__keep_edge(s, 0, 2, d13_1, d13_2);
    return;
  }
  if (d12_1 <= 0.0f && d23_2 <= 0.0f) {  // vertex 2
    arb__keep_vertex(s, 1);
    return;
  }
  if (d13_1 <= 0.0f && d23_1 <= 0.0f) {  // vertex 3
    arb__keep_vertex(s, 2);
    return;
  }
  if (d23_1 > 0.0f && d23_2 > 0.0f && d123_1 <= 0.0f) {  // edge 23: w3 replaces w1
    arb__keep_edge(s, 2, 1, d23_2, d23_1);
    return;
  }
  float sum = d123_1 + d123_2 + d123_3;
  if (!(sum > 0.0f)) sum = 1.0f;  // degenerate triangle with the origin on it
  float inv = 1.0f / sum;
  s->v[0].a = d123_1 * inv;
  s->v[1].a = d123_2 * inv;
  s->v[2].a = d123_3 * inv;
  s->count = 3;
}

static arb_vec2 arb__closest(const arb__simplex* s) {
  arb_vec2 p = arb_vec2_zero;
  for (int i = 0; i < s->count; ++i) p = arb_mul_add(p, s->v[i].a, s->v[i].w);
  return p;
}

#define ARB__GJK_MAX_ITERATIONS 32

arb_distance_output arb_shape_distance(const arb_shape_proxy* a, arb_transform xfa,
                                       const arb_shape_proxy* b, arb_transform xfb) {
  arb_distance_output out;
  out.point_a = out.point_b = out.normal = arb_vec2_zero;
  out.distance = 0.0f;
  out.iterations = 0;
  if (a->count < 1 || b->count < 1) return out;

  // B's core in A's frame: the result stays precise far from the world origin.
  arb_transform xf = arb_inv_transform_mul(xfa, xfb);
  arb_vec2 bl[ARB_MAX_POLYGON_VERTICES];
  for (int i = 0; i < b->count; ++i) bl[i] = arb_transform_point(xf, b->points[i]);

  arb__simplex s;
  s.count = 1;
  s.v[0].ia = 0;
  s.v[0].ib = 0;
  s.v[0].wa = a->points[0];
  s.v[0].wb = bl[0];
  s.v[0].w = arb_sub(bl[0], a->points[0]);
  s.v[0].a = 1.0f;

  bool overlap = false;
  int iter = 0;
  while (iter < ARB__GJK_MAX_ITERATIONS) {
    int save_a[3], save_b[3], save_count = s.count;
    for (int i = 0; i < s.count; ++i) {
      save_a[i] = s.v[i].ia;
      save_b[i] = s.v[i].ib;
    }
    if (s.count == 2)
      arb__solve2(&s);
    else if (s.count == 3)
      arb__solve3(&s);
    if (s.count == 3) {
      overlap = true;
      break;
    }
    arb_vec2 p = arb__closest(&s);
    if (arb_dot(p, p) < FLT_EPSILON * FLT_EPSILON) {
      overlap = true;  // the origin is on the simplex: the cores touch
      break;
    }
    // Next support point: furthest along -p in B - A.
    arb__simplex_vertex* v = &s.v[s.count];
    v->ia = arb__support(a->points, a->count, p);
    v->ib = arb__support(bl, b->count, arb_neg(p));
    v->wa = a->points[v->ia];
    v->wb = bl[v->ib];
    v->w = arb_sub(v->wb, v->wa);
    ++iter;
    // No real progress towards the origin: converged within float precision.
    float pp = arb_dot(p, p);
    if (pp - arb_dot(v->w, p) <= 1.0e-6f * pp) break;
    // No new vertex: converged (the main exit; also stops cycling on rounding noise).
    bool duplicate = false;
    for (int i = 0; i < save_count; ++i) {
      if (v->ia == save_a[i] && v->ib == save_b[i]) {
        duplicate = true;
        break;
      }
    }
    if (duplicate) break;
    ++s.count;
  }
  out.iterations = iter;

  arb_vec2 pa = arb_vec2_zero, pb = arb_vec2_zero;
  for (int i = 0; i < s.count; ++i) {
    pa = arb_mul_add(pa, s.v[i].a, s.v[i].wa);
    pb = arb_mul_add(pb, s.v[i].a, s.v[i].wb);
  }
  float dist = 0.0f;
  arb_vec2 n = overlap ? arb_vec2_zero : arb_get_length_and_normalize(&dist, arb_sub(pb, pa));
  float ra = a->radius, rb = b->radius;
  if (overlap || dist <= ra + rb) {
    // Touching or overlapping: one shared point, distance 0.
    arb_vec2 mid =
        dist > 0.0f ? arb_mul_add(pa, ra + 0.5f * (dist - ra - rb), n) : arb_lerp(pa, pb, 0.5f);
    pa = pb = mid;
    dist = 0.0f;
  } else {
    pa = arb_mul_add(pa, ra, n);
    pb = arb_mul_sub(pb, rb, n);
    dist -= ra + rb;
  }
  out.point_a = arb_transform_point(xfa, pa);
  out.point_b = arb_transform_point(xfa, pb);
  out.normal = arb_rotate(xfa.q, n);
  out.distance = dist;
  return out;
}

// ---- sweeps and time of impact --------------------------------------------------------

// A rotation whose products cannot overflow: its relative angle to itself is exactly +0.
static bool arb__rot_bounded(arb_rot q) {
  return arb_absf(q.c) <= 2.0f && arb_absf(q.s) <= 2.0f;
}

// The angle a sweep turns through, q1 to q2 the shorter way round (arb_rot_relative_angle).
// A body that did not turn (every static body) has q1 and q2 the same bits: inv(q) * q is
// then (c*c + s*s, c*s - s*c) = (> 0, +0), whose atan2 is +0, given without it.
static float arb__sweep_angle(const arb_sweep* sweep) {
  if (memcmp(&sweep->q1, &sweep->q2, sizeof sweep->q1) == 0 && arb__rot_bounded(sweep->q1)) {
    return 0.0f;
  }
  return arb_rot_relative_angle(sweep->q1, sweep->q2);
}

// Constant angular speed from q1 to q2 (the shorter way round), so the TOI bound on the
// motion of any point is exact: |angle| * distance from the centre. `angle` is the
// sweep's arb__sweep_angle, worked out once by a caller that evaluates many times.
static arb_transform arb__sweep_at(const arb_sweep* sweep, float angle, float t) {
  arb_transform xf;
  xf.q = arb_rot_normalize(arb_rot_mul(arb_rot_from_angle(t * angle), sweep->q1));
  arb_vec2 c = arb_lerp(sweep->c1, sweep->c2, t);
  xf.p = arb_sub(c, arb_rotate(xf.q, sweep->local_center));
  return xf;
}

arb_transform arb_get_sweep_transform(const arb_sweep* sweep, float t) {
  // At t = 0 the rotation step is the identity for any finite angle (0 * angle is +-0),
  // and the angle of two bounded rotations is finite: no atan2 needed.
  if (t == 0.0f && arb__rot_bounded(sweep->q1) && arb__rot_bounded(sweep->q2)) {
    return arb__sweep_at(sweep, 0.0f, 0.0f);
  }
  return arb__sweep_at(sweep, arb__sweep_angle(sweep), t);
}

static float arb__max_extent(const arb_shape_proxy* p, arb_vec2 center) {
  float r2 = 0.0f;
  for (int i = 0; i < p->count; ++i) r2 = arb_maxf(r2, arb_distance_sq(p->points[i], center));
  return sqrtf(r2);
}

#define ARB__TOI_MAX_ITERATIONS 64

arb_toi_output arb_time_of_impact(const arb_toi_input* input) {
  arb_toi_output out = {ARB_TOI_UNKNOWN, 0.0f};
  float t_max = arb_clampf(input->max_fraction, 0.0f, 1.0f);
  const arb_shape_proxy* pa = &input->proxy_a;
  const arb_shape_proxy* pb = &input->proxy_b;
  const arb_sweep* sa = &input->sweep_a;
  const arb_sweep* sb = &input->sweep_b;
  if (pa->count < 1 || pb->count < 1 || !(input->max_fraction == input->max_fraction)) {
    out.state = ARB_TOI_FAILED;
    return out;
  }

  // Stop when the surfaces are ARB_LINEAR_SLOP apart (within a quarter slop): close
  // enough for the speculative contact to take over, never through.
  float target = ARB_LINEAR_SLOP;
  float tolerance = 0.25f * ARB_LINEAR_SLOP;

  // Per unit of t: relative centre motion and the largest speed of any core point due
  // to rotation (angle swept times distance from the rotation centre).
  arb_vec2 dc = arb_sub(arb_sub(sb->c2, sb->c1), arb_sub(sa->c2, sa->c1));
  const float angle_a = arb__sweep_angle(sa), angle_b = arb__sweep_angle(sb);
  float wa = arb_absf(angle_a);
  float wb = arb_absf(angle_b);
  float rot_bound =
      wa * arb__max_extent(pa, sa->local_center) + wb * arb__max_extent(pb, sb->local_center);

  float t = 0.0f;
  for (int iter = 0; iter < ARB__TOI_MAX_ITERATIONS; ++iter) {
    arb_transform xfa = arb__sweep_at(sa, angle_a, t);
    arb_transform xfb = arb__sweep_at(sb, angle_b, t);
    arb_distance_output d = arb_shape_distance(pa, xfa, pb, xfb);
    if (d.distance < target + tolerance) {
      out.state = (t == 0.0f && d.distance <= 0.0f) ? ARB_TOI_OVERLAPPED : ARB_TOI_HIT;
      out.fraction = t;
      return out;
    }
    // The surface distance shrinks no faster than the centres approach along the
    // normal plus the rotational speed bound; advancing by distance / bound can not
    // step through the other shape.
    float approach = -arb_dot(dc, d.normal) + rot_bound;
    if (approach <= 0.0f) {
      out.state = ARB_TOI_SEPARATED;
      out.fraction = t_max;
      return out;
    }
    t += (d.distance - target) / approach;
    if (t >= t_max) {
      out.state = ARB_TOI_SEPARATED;
      out.fraction = t_max;
      return out;
    }
  }
  // Out of iterations (grazing motion): t is still a safe, conservative time.
  out.state = ARB_TOI_FAILED;
  out.fraction = t;
  return out;
}
