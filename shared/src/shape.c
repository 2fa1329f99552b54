// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// The shape module (shape.h): each question the world asks of a shape goes to the kind's
// own answer (shape_kind.h, shape_<kind>.c; the bounding box and ray cast: collision.h's
// functions of the kind) through one switch without a default arm, made from the kinds
// list (ARB_SHAPE_KINDS, collision.h); then the same questions for all the shapes of a body
// together, in shape order.
#include "shape.h"

#include "shape_kind.h"

#include "arbiter/query.h"
#include "chain.h"
#include "manifold.h"
#include "world.h"

// ---- validation -------------------------------------------------------------------------

static bool arb__finite_nonneg(float x) {
  return arb_is_valid_float(x) && x >= 0.0f;
}

bool arb__validate_shape(const arb_shape_def* s, const char** why) {
  const char* dummy;
  if (!why) why = &dummy;
  if (!arb__finite_nonneg(s->density)) return *why = "density must be finite and >= 0", false;
  if (!arb__finite_nonneg(s->friction)) return *why = "friction must be finite and >= 0", false;
  if (!arb__finite_nonneg(s->restitution))
    return *why = "restitution must be finite and >= 0", false;
#define ARB__VALID_CASE(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                      \
    return arb__##name##_valid(s, why);
  switch (s->type) {
    ARB_SHAPE_KINDS(ARB__VALID_CASE)
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  // Also any value outside the enum (a def never set, a hostile image).
  return *why = "unknown shape type", false;
}

// ---- geometry per kind ------------------------------------------------------------------

// Each question below goes to the kind's own answer (shape_kind.h); a value outside the
// enum falls out of the switch to the answer after it.
#define ARB__ASK(question)               \
  switch (s->type) {                     \
    ARB_SHAPE_KINDS(ARB__ASK_##question) \
    case ARB_SHAPE_NONE:                 \
    case ARB_SHAPE_TYPE_COUNT:           \
      break;                             \
  }
#define ARB__ASK_MASS(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                    \
    return arb__##name##_mass(&s->name, s->density);
#define ARB__ASK_AABB(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                    \
    return arb_compute_##name##_aabb(&s->name, xf);
#define ARB__ASK_PROXY(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                     \
    return arb__##name##_proxy(&s->name);
#define ARB__ASK_CENTER(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                      \
    return arb__##name##_center(&s->name);
#define ARB__ASK_MIN_EXTENT(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                          \
    return arb__##name##_min_extent(&s->name, center);
#define ARB__ASK_MAX_EXTENT(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                          \
    return arb__##name##_max_extent(&s->name, center);
#define ARB__ASK_RAY_CAST(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                        \
    return arb_ray_cast_##name(local, &s->name);
#define ARB__ASK_CONTAINS(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                        \
    return arb__##name##_contains(&s->name, local);
#define ARB__ASK_BEYOND(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                      \
    return arb__##name##_out_of_reach(&s->name, xf, p, reach);
#define ARB__ASK_OUTLINE(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                       \
    return arb__##name##_outline(&s->name, out, points, capacity);
#define ARB__ASK_COLLIDE_CIRCLE(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                              \
    return arb__##name##_collide_circle(&s->name, xf, c, xc);

arb_mass_data arb__shape_mass(const arb_shape_def* s) {
  ARB__ASK(MASS)
  return arb__no_mass();
}

arb_aabb arb__shape_aabb(const arb_shape_def* s, arb_transform xf) {
  ARB__ASK(AABB)
  arb_aabb a = {xf.p, xf.p};
  return a;
}

arb_shape_proxy arb__shape_proxy(const arb_shape_def* s) {
  ARB__ASK(PROXY)
  return arb_make_segment_proxy(&s->segment);
}

arb_vec2 arb__shape_center(const arb_shape_def* s) {
  ARB__ASK(CENTER)
  return arb_vec2_zero;
}

float arb__shape_min_extent(const arb_shape_def* s, arb_vec2 center) {
  ARB__ASK(MIN_EXTENT)
  return 0.0f;
}

float arb__shape_max_extent(const arb_shape_def* s, arb_vec2 center) {
  ARB__ASK(MAX_EXTENT)
  return 0.0f;
}

arb_cast_output arb__shape_ray_cast(const arb_shape_def* s, const arb_ray_input* local) {
  ARB__ASK(RAY_CAST)
  static const arb_cast_output miss = {0};
  return miss;
}

bool arb__shape_contains_point(const arb_shape_def* s, arb_vec2 local) {
  ARB__ASK(CONTAINS)
  return false;
}

bool arb__shape_beyond(const arb_shape_def* s, arb_transform xf, arb_vec2 p, float reach) {
  ARB__ASK(BEYOND)
  return false;
}

arb_manifold arb__shape_collide_circle(const arb_shape_def* s, arb_transform xf,
                                       const arb_circle* c, arb_transform xc) {
  ARB__ASK(COLLIDE_CIRCLE)
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

const char* arb_shape_type_name(arb_shape_type type) {
#define ARB__NAME_CASE(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                     \
    return #name;
  switch (type) {
    ARB_SHAPE_KINDS(ARB__NAME_CASE)
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
#undef ARB__NAME_CASE
  return "none";
}

static int arb__shape_outline(const arb_shape_def* s, arb_shape_outline* out, arb_vec2* points,
                              int capacity) {
  ARB__ASK(OUTLINE)
  return 0;
}

int arb_compute_shape_outline(const arb_shape_geometry* shape, arb_shape_outline* out,
                              arb_vec2* points, int capacity) {
  arb_shape_def d = arb__geometry_def(shape);
  memset(out, 0, sizeof *out);
  out->kind = arb_shape_type_name(shape->type);
  out->count = arb__shape_outline(&d, out, points, points ? arb_maxi(capacity, 0) : 0);
  out->has_area = out->count > 0 && arb_shape_has_area(shape->type);
  return out->count;
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
