// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// Shape construction and validation, mass properties, bounding boxes and point tests.
// Everything is in the shape's local frame unless a transform is passed.
#include <arbiter/collision.h>

// A vertex closer than this to the line of an edge counts as lying on it. Polygons with
// features smaller than the linear slop are rejected anyway (duplicate points), so this
// only has to separate "really convex" from "numerically flat".
#define ARB__FLAT_TOLERANCE (0.1f * ARB_LINEAR_SLOP)

int arb_make_polygon(const arb_vec2* points, int count, arb_polygon* out, const char** why) {
  const char* dummy;
  if (why == NULL) why = &dummy;
  *why = NULL;
  if (points == NULL || out == NULL) {
    *why = "no points given";
    return ARB_E_INVAL;
  }
  if (count < 3) {
    *why = "a polygon needs at least 3 points";
    return ARB_E_INVAL;
  }
  if (count > ARB_MAX_POLYGON_VERTICES) {
    *why = "a polygon has at most 8 points (ARB_MAX_POLYGON_VERTICES)";
    return ARB_E_INVAL;
  }
  for (int i = 0; i < count; ++i) {
    if (!arb_vec2_is_valid(points[i])) {
      *why = "a point is NaN or infinite";
      return ARB_E_INVAL;
    }
    // Beyond this, areas and inertias (|x|^4) overflow float and the slop tolerances
    // drown in rounding.
    if (arb_absf(points[i].x) > ARB_MAX_POLYGON_COORD ||
        arb_absf(points[i].y) > ARB_MAX_POLYGON_COORD) {
      *why = "a point is farther than 1e4 m from the body origin (ARB_MAX_POLYGON_COORD)";
      return ARB_E_INVAL;
    }
  }
  for (int i = 0; i < count; ++i) {
    for (int j = i + 1; j < count; ++j) {
      if (arb_distance_sq(points[i], points[j]) < ARB_LINEAR_SLOP * ARB_LINEAR_SLOP) {
        *why = "two points coincide (closer than ARB_LINEAR_SLOP)";
        return ARB_E_INVAL;
      }
    }
  }

  // Twice the signed area, relative to the first point for precision.
  float area2 = 0.0f;
  for (int i = 1; i + 1 < count; ++i) {
    area2 += arb_cross(arb_sub(points[i], points[0]), arb_sub(points[i + 1], points[0]));
  }
  if (!(arb_absf(area2) > ARB_LINEAR_SLOP * ARB_LINEAR_SLOP)) {
    *why = "the polygon has (nearly) zero area: its points are collinear";
    return ARB_E_INVAL;
  }

  arb_polygon p;
  p.count = count;
  bool reverse = area2 < 0.0f;  // clockwise input: store it counter-clockwise
  for (int i = 0; i < count; ++i) p.vertices[i] = points[reverse ? count - 1 - i : i];

  for (int i = 0; i < count; ++i) {
    arb_vec2 e = arb_sub(p.vertices[i + 1 < count ? i + 1 : 0], p.vertices[i]);
    // Edges are at least ARB_LINEAR_SLOP long (duplicate check), so this is safe.
    p.normals[i] = arb_normalize(arb_right_perp(e));
  }

  // Strict convexity and simplicity: every vertex not on edge i lies strictly inside its
  // line. Checking all pairs (n <= 8) also rejects self-intersecting "stars" whose turns
  // all go the same way.
  for (int i = 0; i < count; ++i) {
    int i1 = i + 1 < count ? i + 1 : 0;
    for (int j = 0; j < count; ++j) {
      if (j == i || j == i1) continue;
      float d = arb_dot(p.normals[i], arb_sub(p.vertices[j], p.vertices[i]));
      if (d > -ARB__FLAT_TOLERANCE) {
        int next = i1 + 1 < count ? i1 + 1 : 0;
        if (j == next && d > -ARB__FLAT_TOLERANCE && d < ARB__FLAT_TOLERANCE) {
          *why = "three consecutive points are collinear";
        } else {
          *why = "the polygon is not convex (or its edges cross)";
        }
        return ARB_E_INVAL;
      }
    }
  }

  // Area centroid by a triangle fan from vertex 0 (relative coordinates: precision far
  // from the origin).
  arb_vec2 origin = p.vertices[0];
  arb_vec2 c = arb_vec2_zero;
  float area = 0.0f;
  for (int i = 1; i + 1 < count; ++i) {
    arb_vec2 e1 = arb_sub(p.vertices[i], origin);
    arb_vec2 e2 = arb_sub(p.vertices[i + 1], origin);
    float a = 0.5f * arb_cross(e1, e2);
    c = arb_mul_add(c, a * (1.0f / 3.0f), arb_add(e1, e2));
    area += a;
  }
  p.centroid = arb_add(origin, arb_scale(1.0f / area, c));
  p.radius = 0.0f;
  *out = p;
  return 0;
}

arb_polygon arb_make_box(float half_width, float half_height) {
  arb_polygon p;
  if (!(half_width > 0.0f) || !(half_height > 0.0f) || !isfinite(half_width) ||
      !isfinite(half_height)) {
    // Programmer error; a zero-count polygon collides with nothing and has no mass.
    p.count = 0;
    p.radius = 0.0f;
    p.centroid = arb_vec2_zero;
    for (int i = 0; i < ARB_MAX_POLYGON_VERTICES; ++i) p.vertices[i] = p.normals[i] = arb_vec2_zero;
    return p;
  }
  p.count = 4;
  p.radius = 0.0f;
  p.vertices[0] = arb_v2(-half_width, -half_height);
  p.vertices[1] = arb_v2(half_width, -half_height);
  p.vertices[2] = arb_v2(half_width, half_height);
  p.vertices[3] = arb_v2(-half_width, half_height);
  p.normals[0] = arb_v2(0.0f, -1.0f);
  p.normals[1] = arb_v2(1.0f, 0.0f);
  p.normals[2] = arb_v2(0.0f, 1.0f);
  p.normals[3] = arb_v2(-1.0f, 0.0f);
  for (int i = 4; i < ARB_MAX_POLYGON_VERTICES; ++i) p.vertices[i] = p.normals[i] = arb_vec2_zero;
  p.centroid = arb_vec2_zero;
  return p;
}

arb_polygon arb_make_offset_box(float half_width, float half_height, arb_vec2 center,
                                arb_rot rotation) {
  arb_polygon p = arb_make_box(half_width, half_height);
  arb_transform xf = {center, rotation};
  for (int i = 0; i < p.count; ++i) {
    p.vertices[i] = arb_transform_point(xf, p.vertices[i]);
    p.normals[i] = arb_rotate(rotation, p.normals[i]);
  }
  if (p.count > 0) p.centroid = center;
  return p;
}

arb_polygon arb_make_rounded_polygon(const arb_polygon* core, float radius) {
  arb_polygon p = *core;
  p.radius = radius;
  return p;
}

arb_mass_data arb_compute_circle_mass(const arb_circle* shape, float density) {
  arb_mass_data md;
  float rr = shape->radius * shape->radius;
  md.mass = density * ARB_PI * rr;
  md.center = shape->center;
  // Solid disc about its centre: m r^2 / 2.
  md.rotational_inertia = 0.5f * md.mass * rr;
  return md;
}

// The rim a radius adds to a polygon, per unit density and relative to vertex 0 like the
// core's fan: along each edge a rectangle (edge length x radius), at each corner a sector
// of a disc whose angle is the turn between the two edges' normals (the sectors add up
// to one whole disc). Adds to the area, first moment and second moment of the core.
static void arb__add_rounding(const arb_polygon* shape, float* area, arb_vec2* moment,
                              float* inertia) {
  const arb_vec2 origin = shape->vertices[0];
  const float r = shape->radius, rr = r * r;
  for (int i = 0; i < shape->count; ++i) {
    arb_vec2 v1 = arb_sub(shape->vertices[i], origin);
    arb_vec2 v2 = arb_sub(shape->vertices[i + 1 < shape->count ? i + 1 : 0], origin);
    arb_vec2 n = shape->normals[i];
    float len = arb_distance(v1, v2);
    // Edge rectangle: centroid half a radius out from the edge's middle; about its
    // centroid m (len^2 + r^2) / 12, moved to the origin (parallel axes).
    float a = len * r;
    arb_vec2 cr = arb_mul_add(arb_lerp(v1, v2, 0.5f), 0.5f * r, n);
    *area += a;
    *moment = arb_mul_add(*moment, a, cr);
    *inertia += a * ((len * len + rr) * (1.0f / 12.0f) + arb_dot(cr, cr));
    // Corner sector at v1 between the previous edge's normal and this one's: angle t,
    // area t r^2 / 2, centroid 4 r half_chord / (3 t) out along the bisector, second
    // moment about the corner area r^2 / 2.
    arb_vec2 n0 = shape->normals[i > 0 ? i - 1 : shape->count - 1];
    float t = arb_atan2(arb_cross(n0, n), arb_dot(n0, n));
    if (!(t > 0.0f)) continue;
    float half_chord = 0.5f * arb_distance(n0, n);  // the sine of half the angle
    float sa = 0.5f * t * rr;
    float d = 4.0f * r * half_chord / (3.0f * t);
    arb_vec2 cs = arb_mul_add(v1, d, arb_normalize(arb_add(n0, n)));
    *area += sa;
    *moment = arb_mul_add(*moment, sa, cs);
    *inertia += sa * (0.5f * rr - d * d + arb_dot(cs, cs));
  }
}

arb_mass_data arb_compute_polygon_mass(const arb_polygon* shape, float density) {
  arb_mass_data md = {0.0f, arb_vec2_zero, 0.0f};
  if (shape->count < 3) return md;
  // Triangle fan from vertex 0. For the triangle (origin, e1, e2) of area A, the second
  // moment about the fan origin is A/6 * (|e1|^2 + e1.e2 + |e2|^2). Summing those, then
  // shifting to the centroid with the parallel axis theorem, is exact for any convex
  // polygon (a w x h box gives m (w^2 + h^2) / 12).
  arb_vec2 origin = shape->vertices[0];
  float area = 0.0f;
  float inertia = 0.0f;  // per unit density, about `origin`
  arb_vec2 c = arb_vec2_zero;
  for (int i = 1; i + 1 < shape->count; ++i) {
    arb_vec2 e1 = arb_sub(shape->vertices[i], origin);
    arb_vec2 e2 = arb_sub(shape->vertices[i + 1], origin);
    float a = 0.5f * arb_cross(e1, e2);
    area += a;
    c = arb_mul_add(c, a * (1.0f / 3.0f), arb_add(e1, e2));
    inertia += a * (1.0f / 6.0f) * (arb_dot(e1, e1) + arb_dot(e1, e2) + arb_dot(e2, e2));
  }
  if (shape->radius > 0.0f) arb__add_rounding(shape, &area, &c, &inertia);
  md.mass = density * area;
  arb_vec2 local_c = arb_scale(1.0f / area, c);  // centroid relative to origin
  md.center = arb_add(origin, local_c);
  // Shift from the fan origin to the centroid.
  md.rotational_inertia = density * (inertia - area * arb_dot(local_c, local_c));
  return md;
}

arb_mass_data arb_compute_capsule_mass(const arb_capsule* shape, float density) {
  // A rectangle of length L (between the centres) and width 2r, plus a disc of radius r
  // cut in two halves that sit at the rectangle's ends.
  float r = shape->radius, rr = r * r;
  float length = arb_distance(shape->center1, shape->center2);
  float h = 0.5f * length;
  float disc_mass = density * ARB_PI * rr;
  float rect_mass = density * 2.0f * r * length;
  // Rectangle about its centre: m (L^2 + (2r)^2) / 12.
  float rect_inertia = rect_mass * (length * length + 4.0f * rr) * (1.0f / 12.0f);
  // Half disc: its centroid lies d = 4r / (3 pi) from its flat side, its inertia about
  // that side's midpoint is (m/2) r^2 / 2. Move to the centroid (- (m/2) d^2), then out to
  // the capsule centre at h + d (+ (m/2) (h + d)^2): per half (m/2)(r^2/2 + h^2 + 2 h d).
  float d = 4.0f * r / (3.0f * ARB_PI);
  float caps_inertia = disc_mass * (0.5f * rr + h * h + 2.0f * h * d);
  arb_mass_data md;
  md.mass = disc_mass + rect_mass;
  md.center = arb_lerp(shape->center1, shape->center2, 0.5f);
  md.rotational_inertia = rect_inertia + caps_inertia;
  return md;
}

arb_aabb arb_compute_circle_aabb(const arb_circle* shape, arb_transform xf) {
  arb_vec2 p = arb_transform_point(xf, shape->center);
  float r = shape->radius;
  arb_aabb box = {{p.x - r, p.y - r}, {p.x + r, p.y + r}};
  return box;
}

arb_aabb arb_compute_polygon_aabb(const arb_polygon* shape, arb_transform xf) {
  if (shape->count < 1) {
    arb_aabb empty = {xf.p, xf.p};
    return empty;
  }
  arb_vec2 lower = arb_transform_point(xf, shape->vertices[0]);
  arb_vec2 upper = lower;
  for (int i = 1; i < shape->count; ++i) {
    arb_vec2 v = arb_transform_point(xf, shape->vertices[i]);
    lower = arb_vmin(lower, v);
    upper = arb_vmax(upper, v);
  }
  if (shape->radius > 0.0f) {
    arb_vec2 r = arb_v2(shape->radius, shape->radius);
    lower = arb_sub(lower, r);
    upper = arb_add(upper, r);
  }
  arb_aabb box = {lower, upper};
  return box;
}

arb_aabb arb_compute_segment_aabb(const arb_segment* shape, arb_transform xf) {
  arb_vec2 a = arb_transform_point(xf, shape->a);
  arb_vec2 b = arb_transform_point(xf, shape->b);
  arb_aabb box = {arb_vmin(a, b), arb_vmax(a, b)};
  return box;
}

arb_aabb arb_compute_capsule_aabb(const arb_capsule* shape, arb_transform xf) {
  arb_vec2 a = arb_transform_point(xf, shape->center1);
  arb_vec2 b = arb_transform_point(xf, shape->center2);
  arb_vec2 r = arb_v2(shape->radius, shape->radius);
  arb_aabb box = {arb_sub(arb_vmin(a, b), r), arb_add(arb_vmax(a, b), r)};
  return box;
}

bool arb_point_in_circle(arb_vec2 point, const arb_circle* shape) {
  return arb_distance_sq(point, shape->center) <= shape->radius * shape->radius;
}

static float arb__segment_distance_sq(arb_vec2 p, arb_vec2 a, arb_vec2 b);

bool arb_point_in_polygon(arb_vec2 point, const arb_polygon* shape) {
  if (shape->count < 3) return false;
  bool inside = true;
  for (int i = 0; i < shape->count; ++i) {
    if (arb_dot(shape->normals[i], arb_sub(point, shape->vertices[i])) > 0.0f) inside = false;
  }
  if (inside || !(shape->radius > 0.0f)) return inside;
  // Outside the core: inside the rim when within the radius of an edge.
  float rr = shape->radius * shape->radius;
  for (int i = 0; i < shape->count; ++i) {
    arb_vec2 b = shape->vertices[i + 1 < shape->count ? i + 1 : 0];
    if (arb__segment_distance_sq(point, shape->vertices[i], b) <= rr) return true;
  }
  return false;
}

// Squared distance from p to the segment a-b (shared by the capsule's point test).
static float arb__segment_distance_sq(arb_vec2 p, arb_vec2 a, arb_vec2 b) {
  arb_vec2 e = arb_sub(b, a);
  float ee = arb_dot(e, e);
  float t = ee > 0.0f ? arb_clampf(arb_dot(arb_sub(p, a), e) / ee, 0.0f, 1.0f) : 0.0f;
  return arb_distance_sq(p, arb_mul_add(a, t, e));
}

bool arb_point_in_capsule(arb_vec2 point, const arb_capsule* shape) {
  float d2 = arb__segment_distance_sq(point, shape->center1, shape->center2);
  return d2 <= shape->radius * shape->radius;
}
