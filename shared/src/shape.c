// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// The shape module (shape.h): each question the world asks of a shape, answered per kind
// by one switch without a default arm (generated from ARB_SHAPE_KINDS, collision.h, where
// every kind answers through a function of the same form: the bounding box and the ray
// cast); then the same questions for all the shapes of a body together, in shape order.
#include "shape.h"

#include "arbiter/query.h"
#include "chain.h"
#include "manifold.h"
#include "world.h"

// ---- validation -------------------------------------------------------------------------

static bool arb__finite_nonneg(float x) {
  return arb_is_valid_float(x) && x >= 0.0f;
}

static bool arb__validate_polygon(const arb_polygon* p, const char** why) {
  if (p->count < 3 || p->count > ARB_MAX_POLYGON_VERTICES)
    return *why = "polygon vertex count", false;
  for (int i = 0; i < p->count; ++i) {
    if (!arb_vec2_is_valid(p->vertices[i]) || !arb_vec2_is_valid(p->normals[i])) {
      return *why = "polygon vertex not finite", false;
    }
    float len = arb_length(p->normals[i]);
    if (len < 0.999f || len > 1.001f) return *why = "polygon normal not unit length", false;
  }
  if (!arb_vec2_is_valid(p->centroid)) return *why = "polygon centroid not finite", false;
  if (!(p->radius >= 0.0f && p->radius <= ARB_MAX_POLYGON_RADIUS)) {
    return *why = "polygon radius must be finite, >= 0 and <= ARB_MAX_POLYGON_RADIUS", false;
  }
  // Convex and counter-clockwise: every vertex lies behind every edge.
  for (int i = 0; i < p->count; ++i) {
    int i2 = i + 1 < p->count ? i + 1 : 0;
    arb_vec2 e = arb_sub(p->vertices[i2], p->vertices[i]);
    if (arb_cross(e, p->normals[i]) > 0.0f) return *why = "polygon normal points inwards", false;
    for (int j = 0; j < p->count; ++j) {
      if (arb_dot(p->normals[i], arb_sub(p->vertices[j], p->vertices[i])) > ARB_LINEAR_SLOP) {
        return *why = "polygon not convex", false;
      }
    }
    if (arb_length(e) < ARB_LINEAR_SLOP) return *why = "polygon has coincident vertices", false;
  }
  return true;
}

bool arb__validate_shape(const arb_shape_def* s, const char** why) {
  const char* dummy;
  if (!why) why = &dummy;
  if (!arb__finite_nonneg(s->density)) return *why = "density must be finite and >= 0", false;
  if (!arb__finite_nonneg(s->friction)) return *why = "friction must be finite and >= 0", false;
  if (!arb__finite_nonneg(s->restitution))
    return *why = "restitution must be finite and >= 0", false;
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      if (!arb_vec2_is_valid(s->circle.center)) return *why = "circle center not finite", false;
      if (!arb_is_valid_float(s->circle.radius) || s->circle.radius <= 0.0f) {
        return *why = "circle radius must be > 0", false;
      }
      return true;
    case ARB_SHAPE_POLYGON:
      return arb__validate_polygon(&s->polygon, why);
    case ARB_SHAPE_SEGMENT:
      if (!arb_vec2_is_valid(s->segment.a) || !arb_vec2_is_valid(s->segment.b)) {
        return *why = "segment end not finite", false;
      }
      if (arb_distance(s->segment.a, s->segment.b) < ARB_LINEAR_SLOP) {
        return *why = "segment too short", false;
      }
      return true;
    case ARB_SHAPE_CAPSULE:
      if (!arb_vec2_is_valid(s->capsule.center1) || !arb_vec2_is_valid(s->capsule.center2)) {
        return *why = "capsule center not finite", false;
      }
      if (!arb_is_valid_float(s->capsule.radius) || s->capsule.radius <= 0.0f) {
        return *why = "capsule radius must be > 0", false;
      }
      // A shorter core has no direction to collide along: that shape is a circle.
      if (arb_distance(s->capsule.center1, s->capsule.center2) < ARB_LINEAR_SLOP) {
        return *why = "capsule centers closer than ARB_LINEAR_SLOP (use a circle)", false;
      }
      return true;
    case ARB_SHAPE_CHAIN:
      // Sensors find their visitors by one convex distance; a chain has many links.
      if (s->sensor) return *why = "a chain cannot be a sensor", false;
      return arb_validate_chain(&s->chain, why);
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  // Also any value outside the enum (a def never set, a hostile image).
  return *why = "unknown shape type", false;
}

// ---- geometry per kind ------------------------------------------------------------------

arb_mass_data arb__shape_mass(const arb_shape_def* s) {
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      return arb_compute_circle_mass(&s->circle, s->density);
    case ARB_SHAPE_POLYGON:
      return arb_compute_polygon_mass(&s->polygon, s->density);
    case ARB_SHAPE_CAPSULE:
      return arb_compute_capsule_mass(&s->capsule, s->density);
    case ARB_SHAPE_SEGMENT:  // lines have no mass
    case ARB_SHAPE_CHAIN:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  arb_mass_data md = {0.0f, {0.0f, 0.0f}, 0.0f};
  return md;
}

arb_aabb arb__shape_aabb(const arb_shape_def* s, arb_transform xf) {
#define ARB__AABB_CASE(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                     \
    return arb_compute_##name##_aabb(&s->name, xf);
  switch (s->type) {
    ARB_SHAPE_KINDS(ARB__AABB_CASE)
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  arb_aabb a = {xf.p, xf.p};
  return a;
}

arb_shape_proxy arb__shape_proxy(const arb_shape_def* s) {
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      return arb_make_circle_proxy(&s->circle);
    case ARB_SHAPE_POLYGON:
      return arb_make_polygon_proxy(&s->polygon);
    case ARB_SHAPE_CAPSULE:
      return arb_make_capsule_proxy(&s->capsule);
    // Callers that meet chains (ccd.c, sensor.c) go link by link; this is the first.
    case ARB_SHAPE_CHAIN:
      return arb_make_proxy(s->chain.points, 2, 0.0f);
    case ARB_SHAPE_SEGMENT:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return arb_make_segment_proxy(&s->segment);
}

arb_vec2 arb__shape_center(const arb_shape_def* s) {
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      return s->circle.center;
    case ARB_SHAPE_POLYGON:
      return s->polygon.centroid;
    case ARB_SHAPE_CAPSULE:
      return arb_lerp(s->capsule.center1, s->capsule.center2, 0.5f);
    case ARB_SHAPE_SEGMENT:
    case ARB_SHAPE_CHAIN:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return arb_vec2_zero;
}

static float arb__polygon_min_extent(const arb_polygon* p, arb_vec2 center) {
  float min_e = 3.4e38f;
  for (int i = 0; i < p->count; ++i) {
    float face = arb_dot(p->normals[i], arb_sub(p->vertices[i], center));
    if (face < min_e) min_e = face;
  }
  if (p->radius > 0.0f) min_e += p->radius;  // the rim
  return min_e < 0.0f ? 0.0f : min_e;
}

float arb__shape_min_extent(const arb_shape_def* s, arb_vec2 center) {
  switch (s->type) {
    // A circle body's centre of mass is the circle's centre.
    case ARB_SHAPE_CIRCLE:
      return s->circle.radius;
    // A capsule's centre of mass is the middle of its core.
    case ARB_SHAPE_CAPSULE:
      return s->capsule.radius;
    case ARB_SHAPE_POLYGON:
      return arb__polygon_min_extent(&s->polygon, center);
    case ARB_SHAPE_SEGMENT:  // no inside
    case ARB_SHAPE_CHAIN:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return 0.0f;
}

float arb__shape_max_extent(const arb_shape_def* s, arb_vec2 center) {
  float ext = 0.0f;
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      ext = arb_distance(s->circle.center, center) + s->circle.radius;
      break;
    case ARB_SHAPE_POLYGON:
      for (int i = 0; i < s->polygon.count; ++i) {
        ext = arb_maxf(ext, arb_distance(s->polygon.vertices[i], center));
      }
      if (s->polygon.radius > 0.0f) ext += s->polygon.radius;
      break;
    case ARB_SHAPE_SEGMENT:
      ext = arb_maxf(arb_distance(s->segment.a, center), arb_distance(s->segment.b, center));
      break;
    case ARB_SHAPE_CAPSULE:
      ext = arb_maxf(arb_distance(s->capsule.center1, center),
                     arb_distance(s->capsule.center2, center)) +
            s->capsule.radius;
      break;
    case ARB_SHAPE_CHAIN:
      for (int i = 0; i < s->chain.count; ++i) {
        ext = arb_maxf(ext, arb_distance(s->chain.points[i], center));
      }
      break;
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return ext;
}

arb_cast_output arb__shape_ray_cast(const arb_shape_def* s, const arb_ray_input* local) {
#define ARB__RAY_CAST_CASE(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                         \
    return arb_ray_cast_##name(local, &s->name);
  switch (s->type) {
    ARB_SHAPE_KINDS(ARB__RAY_CAST_CASE)
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  static const arb_cast_output miss = {0};
  return miss;
}

bool arb__shape_contains_point(const arb_shape_def* s, arb_vec2 local) {
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      return arb_point_in_circle(local, &s->circle);
    case ARB_SHAPE_POLYGON:
      return arb_point_in_polygon(local, &s->polygon);
    case ARB_SHAPE_CAPSULE:
      return arb_point_in_capsule(local, &s->capsule);
    case ARB_SHAPE_SEGMENT:  // no inside
    case ARB_SHAPE_CHAIN:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return false;
}

bool arb__shape_beyond(const arb_shape_def* s, arb_transform xf, arb_vec2 p, float reach) {
  switch (s->type) {
    case ARB_SHAPE_POLYGON:
      return arb__polygon_beyond(&s->polygon, xf, p, reach);
    case ARB_SHAPE_CIRCLE:
      return arb__circle_beyond(&s->circle, xf, p, reach);
    case ARB_SHAPE_CAPSULE:
      return arb__core_beyond(s->capsule.center1, s->capsule.center2, s->capsule.radius, xf, p,
                              reach);
    case ARB_SHAPE_SEGMENT:
      return arb__core_beyond(s->segment.a, s->segment.b, 0.0f, xf, p, reach);
    case ARB_SHAPE_CHAIN:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return false;
}

arb_manifold arb__shape_collide_circle(const arb_shape_def* s, arb_transform xf,
                                       const arb_circle* c, arb_transform xc) {
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      return arb_collide_circles(&s->circle, xf, c, xc);
    case ARB_SHAPE_POLYGON:
      return arb_collide_polygon_and_circle(&s->polygon, xf, c, xc);
    case ARB_SHAPE_SEGMENT:
      return arb_collide_segment_and_circle(&s->segment, xf, c, xc);
    case ARB_SHAPE_CAPSULE:
      return arb_collide_capsule_and_circle(&s->capsule, xf, c, xc);
    case ARB_SHAPE_CHAIN:
      return arb__collide_chain_and_circle(&s->chain, arb__chain_tree(&s->chain), xf, c, xc,
                                           ARB_SPECULATIVE_DISTANCE);
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return arb__empty_manifold();
}

// ---- any kind, for callers outside the world (game rules, the viewer) ------------------

// The def of a geometry (material and filter zero): the internal dispatch above serves both.
static arb_shape_def arb__geometry_def(const arb_shape_geometry* g) {
  arb_shape_def d;
  memset(&d, 0, sizeof d);
  d.type = g->type;
  // Both unions are ARB_SHAPE_GEOMETRY_UNION, and the polygon is its largest member.
  memcpy(&d.polygon, &g->polygon, sizeof d.polygon);
  return d;
}

arb_aabb arb_compute_shape_aabb(const arb_shape_geometry* shape, arb_transform xf) {
  arb_shape_def d = arb__geometry_def(shape);
  return arb__shape_aabb(&d, xf);
}

float arb_compute_shape_extent(const arb_shape_geometry* shape, arb_vec2 center) {
  arb_shape_def d = arb__geometry_def(shape);
  return arb__shape_max_extent(&d, center);
}

arb_cast_output arb_ray_cast_shape(const arb_ray_input* input, const arb_shape_geometry* shape) {
  arb_shape_def d = arb__geometry_def(shape);
  return arb__shape_ray_cast(&d, input);
}

// ---- filters ----------------------------------------------------------------------------

bool arb__shape_filters_match(const arb_shape_def* sa, const arb_shape_def* sb) {
  if (sa->group == sb->group && sa->group != 0) return sa->group > 0;
  return (sa->mask_bits & sb->category_bits) != 0 && (sb->mask_bits & sa->category_bits) != 0;
}

// A sensor never gets a contact (nor a sweep): it only reports overlaps (sensor.c).
bool arb__shapes_should_collide(const arb_shape_def* sa, const arb_shape_def* sb) {
  if (sa->sensor || sb->sensor) return false;
  return arb__shape_filters_match(sa, sb) && arb__contact_has_collider(sa->type, sb->type);
}

// ---- the shapes of a body ---------------------------------------------------------------

// One shape: exactly that shape's data. Otherwise the parallel axis theorem about the
// combined centre of mass.
arb_mass_data arb__body_mass_data(const arb__body* b) {
  int n = b->shape_count;
  if (n == 1) return arb__shape_mass(&b->shape);
  bool all_sensors = true;
  for (int i = 0; i < n; ++i) all_sensors = all_sensors && arb__body_shape(b, i)->sensor;
  arb_mass_data part[ARB_MAX_BODY_SHAPES];
  arb_mass_data sum = {0.0f, {0.0f, 0.0f}, 0.0f};
  float area = 0.0f;  // weights when the shapes have no mass (a static body of density 0)
  arb_vec2 area_center = arb_vec2_zero;
  for (int i = 0; i < n; ++i) {  // DET: shape order
    const arb_shape_def* s = arb__body_shape(b, i);
    arb_shape_def unit = *s;
    unit.density = 1.0f;
    arb_mass_data u = arb__shape_mass(&unit);
    area += u.mass;
    area_center = arb_mul_add(area_center, u.mass, u.center);
    part[i] = arb__shape_mass(s);
    if (s->sensor && !all_sensors) part[i].mass = part[i].rotational_inertia = 0.0f;
    sum.mass += part[i].mass;
    sum.center = arb_mul_add(sum.center, part[i].mass, part[i].center);
  }
  if (!(sum.mass > 0.0f)) {
    sum.center = area > 0.0f ? arb_scale(1.0f / area, area_center) : arb_vec2_zero;
    return sum;
  }
  sum.center = arb_scale(1.0f / sum.mass, sum.center);
  for (int i = 0; i < n; ++i) {
    arb_vec2 d = arb_sub(part[i].center, sum.center);
    sum.rotational_inertia += part[i].rotational_inertia + part[i].mass * arb_dot(d, d);
  }
  return sum;
}

bool arb__body_has_area(const arb__body* b) {
  for (int i = 0; i < b->shape_count; ++i) {
    if (arb_shape_has_area(arb__body_shape(b, i)->type)) return true;
  }
  return false;
}

bool arb__body_has_sensor(const arb__body* b) {
  for (int i = 0; i < b->shape_count; ++i) {
    if (arb__body_shape(b, i)->sensor) return true;
  }
  return false;
}

// A compound body's box: the union of its shapes' (out of line: finalize computes the box
// of every moving body, most of them with one shape).
static arb_aabb arb__compound_aabb(const arb__body* b) {
  arb_aabb box = arb__shape_aabb(&b->shape, b->xf);
  for (int i = 1; i < b->shape_count; ++i) {
    box = arb_aabb_union(box, arb__shape_aabb(&b->more_shapes[i - 1], b->xf));
  }
  return box;
}

arb_aabb arb__body_compute_aabb(const arb__body* b) {
  if (b->shape_count > 1) return arb__compound_aabb(b);
  return arb__shape_aabb(&b->shape, b->xf);
}

float arb__body_min_extent(const arb__body* b) {
  if (b->shape_count == 1) return arb__shape_min_extent(&b->shape, b->local_center);
  // A compound body could pass through something thin once its thinnest solid shape moves
  // further than that shape's own half thickness.
  float min_e = 3.4e38f;
  for (int i = 0; i < b->shape_count; ++i) {
    const arb_shape_def* s = arb__body_shape(b, i);
    if (s->sensor) continue;
    min_e = arb_minf(min_e, arb__shape_min_extent(s, arb__shape_center(s)));
  }
  return min_e > 1e38f ? 0.0f : min_e;
}

float arb__body_max_extent(const arb__body* b) {
  float ext = arb__shape_max_extent(&b->shape, b->local_center);
  for (int i = 1; i < b->shape_count; ++i) {
    ext = arb_maxf(ext, arb__shape_max_extent(&b->more_shapes[i - 1], b->local_center));
  }
  return ext;
}

arb_cast_output arb__body_ray_cast(const arb__body* b, const arb_ray_input* local,
                                   const arb_query_filter* filter) {
  arb_cast_output best;
  memset(&best, 0, sizeof best);
  for (int i = 0; i < b->shape_count; ++i) {  // DET: shape order; ties keep the lower
    const arb_shape_def* s = arb__body_shape(b, i);
    if (s->sensor || (filter && !arb_query_filter_accepts(*filter, s))) continue;
    arb_ray_input in = *local;
    if (best.hit) in.max_fraction = best.fraction;
    arb_cast_output o = arb__shape_ray_cast(s, &in);
    if (o.hit && (!best.hit || o.fraction < best.fraction)) best = o;
  }
  return best;
}
