// Scene sections that describe bodies: `bodies`, `avatar`, `spawn_points`, and the shape
// and material objects they share. Every value is checked here with a precise path, so
// the physics world only ever sees finite, in-range definitions.
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "scene_extras.h"
#include "scene_parse.h"

static const sj_bounds POSITIVE_SIZE = {0.0, ARB_SCENE_MAX_SIZE, true};
static const sj_bounds ROUNDING = {0.0, ARB_MAX_POLYGON_RADIUS, false};
static const sj_bounds DENSITY = {0.0, 1.0e6, true};
static const sj_bounds MASS = {0.0, 1.0e9, true};
static const sj_bounds FRICTION = {0.0, 100.0, false};
static const sj_bounds UNIT = {0.0, 1.0, false};
static const sj_bounds DAMPING = {0.0, 1.0e4, false};
static const sj_bounds SCALE = {-1.0e4, 1.0e4, false};
static const sj_bounds ANGLE = {-1.0e4, 1.0e4, false};
static const sj_bounds SPEED = {-ARB_SCENE_MAX_SPEED, ARB_SCENE_MAX_SPEED, false};
static const sj_bounds FORCE = {0.0, 1.0e9, false};
static const sj_bounds SLEEP_SPEED = {0.0, 1.0e4, false};

// ---- shapes -------------------------------------------------------------------------

static int check_min_size(sj_ctx* ctx, const char* key, float v) {
  if (v >= ARB_LINEAR_SLOP) return 0;
  size_t mark = sj_push_key(ctx, key);
  sj_fail(ctx, ARB_E_RANGE, "must be at least %g m (ARB_LINEAR_SLOP), got %g",
          (double)ARB_LINEAR_SLOP, (double)v);
  sj_pop(ctx, mark);
  return ctx->code;
}

// Two points of a shape (segment ends, capsule centres) must be ARB_LINEAR_SLOP apart;
// the error names the second one's key.
static int check_apart(sj_ctx* ctx, const char* key, arb_vec2 a, arb_vec2 b, const char* what,
                       const char* hint) {
  if (arb_distance(a, b) >= ARB_LINEAR_SLOP) return 0;
  size_t mark = sj_push_key(ctx, key);
  sj_fail(ctx, ARB_E_INVAL, "%s (closer than %g m)%s", what, (double)ARB_LINEAR_SLOP, hint);
  sj_pop(ctx, mark);
  return ctx->code;
}

static int parse_circle(sj_ctx* ctx, const json_t* v, arb_shape_def* shape) {
  static const char* const keys[] = {"radius", "center", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  float r = 0.0f, cx = 0.0f, cy = 0.0f;
  if (sj_float(ctx, v, "radius", true, POSITIVE_SIZE, &r)) return ctx->code;
  if (check_min_size(ctx, "radius", r)) return ctx->code;
  if (sj_vec2(ctx, v, "center", false, ARB_SCENE_MAX_SIZE, &cx, &cy)) return ctx->code;
  shape->type = ARB_SHAPE_CIRCLE;
  shape->circle.center = arb_v2(cx, cy);
  shape->circle.radius = r;
  return 0;
}

// The optional `radius` of a box or polygon: rounds it (0, the default, keeps it sharp).
static int parse_rounding(sj_ctx* ctx, const json_t* v, arb_shape_def* shape) {
  float radius = 0.0f;
  if (sj_float(ctx, v, "radius", false, ROUNDING, &radius)) return ctx->code;
  shape->polygon = arb_make_rounded_polygon(&shape->polygon, radius);
  return 0;
}

static int parse_box(sj_ctx* ctx, const json_t* v, arb_shape_def* shape) {
  static const char* const keys[] = {"half_width", "half_height", "center",
                                     "angle",      "radius",      NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  float hw = 0.0f, hh = 0.0f, cx = 0.0f, cy = 0.0f, angle = 0.0f;
  if (sj_float(ctx, v, "half_width", true, POSITIVE_SIZE, &hw)) return ctx->code;
  if (check_min_size(ctx, "half_width", hw)) return ctx->code;
  if (sj_float(ctx, v, "half_height", true, POSITIVE_SIZE, &hh)) return ctx->code;
  if (check_min_size(ctx, "half_height", hh)) return ctx->code;
  if (sj_vec2(ctx, v, "center", false, ARB_SCENE_MAX_SIZE, &cx, &cy)) return ctx->code;
  if (sj_float(ctx, v, "angle", false, ANGLE, &angle)) return ctx->code;
  shape->type = ARB_SHAPE_POLYGON;
  if (cx == 0.0f && cy == 0.0f && angle == 0.0f) {
    shape->polygon = arb_make_box(hw, hh);
  } else {
    shape->polygon = arb_make_offset_box(hw, hh, arb_v2(cx, cy), arb_rot_from_angle(angle));
  }
  // The engine bounds polygon coordinates; an offset box can reach past that.
  for (int i = 0; i < shape->polygon.count; i++) {
    arb_vec2 p = shape->polygon.vertices[i];
    if (arb_absf(p.x) > ARB_MAX_POLYGON_COORD || arb_absf(p.y) > ARB_MAX_POLYGON_COORD) {
      return sj_fail(ctx, ARB_E_RANGE, "the box reaches farther than %g m from the body origin",
                     (double)ARB_MAX_POLYGON_COORD);
    }
  }
  return parse_rounding(ctx, v, shape);
}

static int parse_polygon(sj_ctx* ctx, const json_t* v, arb_shape_def* shape) {
  static const char* const keys[] = {"points", "radius", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  json_t* pts = json_object_get(v, "points");
  size_t mark = sj_push_key(ctx, "points");
  if (!pts) {
    sj_fail(ctx, ARB_E_INVAL, "missing (required)");
  } else if (!json_is_array(pts)) {
    sj_fail(ctx, ARB_E_INVAL, "expected an array of [x, y] points, got %s", sj_type_name(pts));
  } else if (json_array_size(pts) < 3 || json_array_size(pts) > ARB_MAX_POLYGON_VERTICES) {
    sj_fail(ctx, json_array_size(pts) < 3 ? ARB_E_INVAL : ARB_E_TOO_BIG,
            "a polygon needs 3 to %d points, got %zu", ARB_MAX_POLYGON_VERTICES,
            json_array_size(pts));
  } else {
    arb_vec2 p[ARB_MAX_POLYGON_VERTICES];
    int n = (int)json_array_size(pts);
    for (int i = 0; i < n && !ctx->code; i++) {
      size_t m = sj_push_index(ctx, (size_t)i);
      sj_vec2_value(ctx, json_array_get(pts, (size_t)i), ARB_SCENE_MAX_SIZE, &p[i].x, &p[i].y);
      sj_pop(ctx, m);
    }
    if (!ctx->code) {
      const char* why = NULL;
      if (arb_make_polygon(p, n, &shape->polygon, &why) != ARB_OK) {
        sj_fail(ctx, ARB_E_INVAL, "not a valid convex polygon: %s", why ? why : "rejected");
      } else {
        shape->type = ARB_SHAPE_POLYGON;
      }
    }
  }
  sj_pop(ctx, mark);
  if (ctx->code) return ctx->code;
  return parse_rounding(ctx, v, shape);
}

static int parse_segment(sj_ctx* ctx, const json_t* v, arb_shape_def* shape) {
  static const char* const keys[] = {"a", "b", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  arb_vec2 a = arb_vec2_zero, b = arb_vec2_zero;
  if (sj_vec2(ctx, v, "a", true, ARB_SCENE_MAX_COORD, &a.x, &a.y)) return ctx->code;
  if (sj_vec2(ctx, v, "b", true, ARB_SCENE_MAX_COORD, &b.x, &b.y)) return ctx->code;
  if (check_apart(ctx, "b", a, b, "segment end points coincide", "")) return ctx->code;
  shape->type = ARB_SHAPE_SEGMENT;
  shape->segment.a = a;
  shape->segment.b = b;
  return 0;
}

static int parse_capsule(sj_ctx* ctx, const json_t* v, arb_shape_def* shape) {
  static const char* const keys[] = {"center1", "center2", "radius", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  arb_vec2 a = arb_vec2_zero, b = arb_vec2_zero;
  float r = 0.0f;
  if (sj_vec2(ctx, v, "center1", true, ARB_SCENE_MAX_SIZE, &a.x, &a.y)) return ctx->code;
  if (sj_vec2(ctx, v, "center2", true, ARB_SCENE_MAX_SIZE, &b.x, &b.y)) return ctx->code;
  if (sj_float(ctx, v, "radius", true, POSITIVE_SIZE, &r)) return ctx->code;
  if (check_min_size(ctx, "radius", r)) return ctx->code;
  if (check_apart(ctx, "center2", a, b, "the centres coincide", ": use a circle")) return ctx->code;
  shape->type = ARB_SHAPE_CAPSULE;
  shape->capsule.center1 = a;
  shape->capsule.center2 = b;
  shape->capsule.radius = r;
  return 0;
}

// The points of a chain, each at least ARB_LINEAR_SLOP from the one before (and, in a
// loop, the last from the first): the error names the point.
static int parse_chain_points(sj_ctx* ctx, const json_t* pts, bool loop, arb_vec2* p, int n) {
  for (int i = 0; i < n && !ctx->code; i++) {
    size_t m = sj_push_index(ctx, (size_t)i);
    if (!sj_vec2_value(ctx, json_array_get(pts, (size_t)i), ARB_MAX_CHAIN_COORD, &p[i].x,
                       &p[i].y) &&
        i > 0 && arb_distance(p[i - 1], p[i]) < ARB_LINEAR_SLOP) {
      sj_fail(ctx, ARB_E_INVAL, "within %g m of the point before (a link without length)",
              (double)ARB_LINEAR_SLOP);
    }
    sj_pop(ctx, m);
  }
  if (!ctx->code && loop && arb_distance(p[n - 1], p[0]) < ARB_LINEAR_SLOP) {
    size_t m = sj_push_index(ctx, (size_t)n - 1);
    sj_fail(ctx, ARB_E_INVAL, "within %g m of point 0 (the loop's closing link has no length)",
            (double)ARB_LINEAR_SLOP);
    sj_pop(ctx, m);
  }
  return ctx->code;
}

// `chain`: {"points": [[x, y], ...], "loop": false}. The points live as long as the scene.
static int parse_chain(sj_ctx* ctx, const json_t* v, arb_shape_def* shape, arb_vec2** owned) {
  static const char* const keys[] = {"points", "loop", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  bool loop = false;
  if (sj_bool(ctx, v, "loop", &loop)) return ctx->code;
  json_t* pts = json_object_get(v, "points");
  size_t n = pts && json_is_array(pts) ? json_array_size(pts) : 0;
  size_t min = loop ? 3 : 2;
  size_t mark = sj_push_key(ctx, "points");
  if (!pts) {
    sj_fail(ctx, ARB_E_INVAL, "missing (required)");
  } else if (!json_is_array(pts)) {
    sj_fail(ctx, ARB_E_INVAL, "expected an array of [x, y] points, got %s", sj_type_name(pts));
  } else if (n < min || n > ARB_MAX_CHAIN_POINTS) {
    sj_fail(ctx, n < min ? ARB_E_INVAL : ARB_E_TOO_BIG, "a %s needs %zu to %d points, got %zu",
            loop ? "chain loop" : "chain", min, ARB_MAX_CHAIN_POINTS, n);
  } else if (!(*owned = malloc(n * sizeof **owned))) {
    sj_fail(ctx, ARB_E_NOMEM, "out of memory");
  } else if (!parse_chain_points(ctx, pts, loop, *owned, (int)n)) {
    shape->type = ARB_SHAPE_CHAIN;
    shape->chain.points = *owned;
    shape->chain.count = (int)n;
    shape->chain.loop = loop;
  }
  sj_pop(ctx, mark);
  return ctx->code;
}

// The material, filter and sensor keys of one shape: density, friction, restitution,
// category, mask, group, sensor. On a body they set every shape's; an element of `shapes`
// may set its own over them.
static int parse_shape_material(sj_ctx* ctx, const json_t* v, arb_shape_def* shape) {
  long long category = shape->category_bits, mask = shape->mask_bits, group = shape->group;
  sj_float(ctx, v, "density", false, DENSITY, &shape->density);
  sj_float(ctx, v, "friction", false, FRICTION, &shape->friction);
  sj_float(ctx, v, "restitution", false, UNIT, &shape->restitution);
  sj_int(ctx, v, "category", false, 0, 0xFFFFFFFFll, &category);
  sj_int(ctx, v, "mask", false, 0, 0xFFFFFFFFll, &mask);
  sj_int(ctx, v, "group", false, INT32_MIN, INT32_MAX, &group);
  shape->category_bits = (uint32_t)category;
  shape->mask_bits = (uint32_t)mask;
  shape->group = (int32_t)group;
  // A sensor reports overlaps instead of colliding (arb_shape_def.sensor).
  if (ctx->code || sj_bool(ctx, v, "sensor", &shape->sensor)) return ctx->code;
  if (shape->sensor && shape->type == ARB_SHAPE_CHAIN) {
    size_t m = sj_push_key(ctx, "sensor");
    sj_fail(ctx, ARB_E_INVAL, "a chain cannot be a sensor (use a box or polygon zone)");
    sj_pop(ctx, m);
  }
  return ctx->code;
}

// The keys of a shape object that name its kind, in the order messages list them (a new
// kind is a row here and a branch in parse_shape), then the material keys an element of
// `shapes` may have beside it.
#define SHAPE_KIND_KEYS "circle", "box", "polygon", "capsule", "segment", "chain"
static const char* const kind_keys[] = {SHAPE_KIND_KEYS, NULL};
static const char* const kind_and_material_keys[] = {SHAPE_KIND_KEYS, "density",  "friction",
                                                     "restitution",   "category", "mask",
                                                     "group",         "sensor",   NULL};

static bool is_shape_kind(const char* key) {
  for (int i = 0; kind_keys[i]; ++i) {
    if (strcmp(kind_keys[i], key) == 0) return true;
  }
  return false;
}

// `shape` holds exactly one of the kinds (an element of `shapes`: with material keys
// beside it, `with_material`). Segments and chains have no area, hence no mass: only
// bodies that never need one (static, kinematic) may use them; `chain_points` (NULL where
// chains are not allowed) receives a chain's points.
static int parse_shape(sj_ctx* ctx, const json_t* v, arb_shape_def* shape, bool allow_segment,
                       arb_vec2** chain_points, bool with_material) {
  if (sj_check_keys(ctx, v, with_material ? kind_and_material_keys : kind_keys)) return ctx->code;
  const char* kind = NULL;
  json_t* body = NULL;
  size_t kinds = 0;
  const char* key;
  json_t* value;
  json_object_foreach((json_t*)v, key, value) {
    if (!is_shape_kind(key)) continue;
    kinds += 1;
    if (!kind) kind = key, body = value;
  }
  if (kinds != 1) {
    char list[128];
    return sj_fail(ctx, ARB_E_INVAL, "must hold exactly one shape kind (has %zu) of: %s", kinds,
                   sj_join_keys(kind_keys, list, sizeof list));
  }
  size_t mark = sj_push_key(ctx, kind);
  if (sj_expect_object(ctx, body)) {
    // reported
  } else if (strcmp(kind, "circle") == 0) {
    parse_circle(ctx, body, shape);
  } else if (strcmp(kind, "box") == 0) {
    parse_box(ctx, body, shape);
  } else if (strcmp(kind, "polygon") == 0) {
    parse_polygon(ctx, body, shape);
  } else if (strcmp(kind, "capsule") == 0) {
    parse_capsule(ctx, body, shape);
  } else if (!allow_segment) {
    sj_fail(ctx, ARB_E_INVAL, "%ss have no mass: only static or kinematic bodies may use them",
            kind);
  } else if (strcmp(kind, "chain") == 0 && !chain_points) {
    sj_fail(ctx, ARB_E_INVAL, "a chain must be its body's only shape");
  } else if (strcmp(kind, "chain") == 0) {
    parse_chain(ctx, body, shape, chain_points);
  } else {
    parse_segment(ctx, body, shape);
  }
  sj_pop(ctx, mark);
  if (!ctx->code && with_material) parse_shape_material(ctx, v, shape);
  return ctx->code;
}

// ---- material, damping, filter (bodies and the avatar) ----------------------------------

static int parse_material(sj_ctx* ctx, const json_t* v, arb_body_def* def) {
  if (parse_shape_material(ctx, v, &def->shape)) return ctx->code;
  sj_float(ctx, v, "mass", false, MASS, &def->mass);
  sj_float(ctx, v, "linear_damping", false, DAMPING, &def->linear_damping);
  sj_float(ctx, v, "angular_damping", false, DAMPING, &def->angular_damping);
  sj_float(ctx, v, "gravity_scale", false, SCALE, &def->gravity_scale);
  sj_bool(ctx, v, "fixed_rotation", &def->fixed_rotation);
  sj_bool(ctx, v, "bullet", &def->bullet);
  sj_bool(ctx, v, "enable_sleep", &def->enable_sleep);
  sj_bool(ctx, v, "awake", &def->is_awake);
  sj_float(ctx, v, "sleep_threshold", false, SLEEP_SPEED, &def->sleep_threshold);
  return ctx->code;
}

// `shapes`: 1..ARB_MAX_BODY_SHAPES elements, each a `shape` object with its own material
// keys over the body's (`material`: the body's shape material). A chain must be alone.
static int parse_shapes(sj_ctx* ctx, const json_t* v, arb_scene_body* body,
                        const arb_shape_def* material) {
  if (!json_is_array(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected an array of shapes, got %s", sj_type_name(v));
  size_t n = json_array_size(v);
  if (n < 1 || n > ARB_MAX_BODY_SHAPES) {
    return sj_fail(ctx, ARB_E_INVAL, "%zu shapes, expected 1 to %d", n, ARB_MAX_BODY_SHAPES);
  }
  body->shapes = calloc(n, sizeof *body->shapes);
  if (!body->shapes) return sj_fail(ctx, ARB_E_NOMEM, "out of memory");
  arb_body_def* def = &body->def;
  for (size_t i = 0; i < n && !ctx->code; i++) {
    size_t mark = sj_push_index(ctx, i);
    body->shapes[i] = *material;
    if (sj_expect_object(ctx, json_array_get(v, i)) == 0) {
      parse_shape(ctx, json_array_get(v, i), &body->shapes[i], def->type != ARB_BODY_DYNAMIC,
                  n == 1 ? &body->chain_points : NULL, true);
    }
    sj_pop(ctx, mark);
  }
  def->shapes = body->shapes;
  def->shape_count = (int)n;
  return ctx->code;
}

// ---- bodies -------------------------------------------------------------------------

static int parse_body(sj_ctx* ctx, const json_t* v, arb_scene_body* body) {
  static const char* const keys[] = {"name",
                                     "type",
                                     "shape",
                                     "shapes",
                                     "position",
                                     "angle",
                                     "velocity",
                                     "angular_velocity",
                                     "density",
                                     "mass",
                                     "restitution",
                                     "friction",
                                     "linear_damping",
                                     "angular_damping",
                                     "gravity_scale",
                                     "fixed_rotation",
                                     "bullet",
                                     "enable_sleep",
                                     "awake",
                                     "sleep_threshold",
                                     "category",
                                     "mask",
                                     "group",
                                     "sensor",
                                     NULL};
  static const char* const types[] = {"dynamic", "static", "kinematic", NULL};
  static const arb_body_type type_values[] = {ARB_BODY_DYNAMIC, ARB_BODY_STATIC,
                                              ARB_BODY_KINEMATIC};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;

  arb_body_def* def = &body->def;
  *def = arb_default_body_def();
  const char* name = NULL;
  int type = 0;
  if (sj_string(ctx, v, "name", false, ARB_SCENE_MAX_NAME, &name)) return ctx->code;
  if (sj_enum(ctx, v, "type", types, &type)) return ctx->code;
  def->type = type_values[type];

  // `shape` (one shape) or `shapes` (a compound body), with the body's material keys.
  json_t* shape = json_object_get(v, "shape");
  json_t* shapes = json_object_get(v, "shapes");
  size_t mark = sj_push_key(ctx, shapes ? "shapes" : "shape");
  if (shape && shapes) {
    sj_fail(ctx, ARB_E_INVAL, "give either shape or shapes, not both");
  } else if (!shape && !shapes) {
    sj_fail(ctx, ARB_E_INVAL, "missing (required)");
  } else if (shape) {
    parse_shape(ctx, shape, &def->shape, def->type != ARB_BODY_DYNAMIC, &body->chain_points, false);
  }
  sj_pop(ctx, mark);
  if (ctx->code) return ctx->code;

  sj_vec2(ctx, v, "position", false, ARB_SCENE_MAX_COORD, &def->position.x, &def->position.y);
  sj_float(ctx, v, "angle", false, ANGLE, &def->angle);
  sj_vec2(ctx, v, "velocity", false, ARB_SCENE_MAX_SPEED, &def->linear_velocity.x,
          &def->linear_velocity.y);
  sj_float(ctx, v, "angular_velocity", false, SPEED, &def->angular_velocity);
  if (parse_material(ctx, v, def)) return ctx->code;
  if (shapes) {
    mark = sj_push_key(ctx, "shapes");
    parse_shapes(ctx, shapes, body, &def->shape);
    sj_pop(ctx, mark);
    if (ctx->code) return ctx->code;
  }

  if (name) {
    size_t n = strlen(name);
    body->name = malloc(n + 1);
    if (!body->name) return sj_fail(ctx, ARB_E_NOMEM, "out of memory");
    memcpy(body->name, name, n + 1);
  }
  return 0;
}

int arb__scene_parse_bodies(sj_ctx* ctx, const json_t* value, arb_scene* scene) {
  if (!json_is_array(value))
    return sj_fail(ctx, ARB_E_INVAL, "expected an array of bodies, got %s", sj_type_name(value));
  size_t n = json_array_size(value);
  if (n > ARB_SCENE_MAX_BODIES) {
    return sj_fail(ctx, ARB_E_TOO_BIG, "%zu bodies, the limit is %d", n, ARB_SCENE_MAX_BODIES);
  }
  if (n == 0) return 0;
  scene->bodies = calloc(n, sizeof *scene->bodies);
  if (!scene->bodies) return sj_fail(ctx, ARB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    size_t mark = sj_push_index(ctx, i);
    // Counted before parsing so a half-parsed body's name is freed with the scene.
    scene->body_count = (int)i + 1;
    parse_body(ctx, json_array_get(value, i), &scene->bodies[i]);
    sj_pop(ctx, mark);
    if (ctx->code) return ctx->code;
  }
  return 0;
}

typedef struct name_ref {
  const char* name;
  int index;
} name_ref;

static int compare_names(const void* a, const void* b) {
  const name_ref* x = a;
  const name_ref* y = b;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  return (x->index > y->index) - (x->index < y->index);  // total order: no ties
}

int arb__scene_check_names(sj_ctx* ctx, const arb_scene* scene) {
  int named = 0;
  for (int i = 0; i < scene->body_count; i++) named += scene->bodies[i].name != NULL;
  if (named < 2) return 0;
  name_ref* refs = malloc((size_t)named * sizeof *refs);
  if (!refs) return sj_fail(ctx, ARB_E_NOMEM, "out of memory");
  int k = 0;
  for (int i = 0; i < scene->body_count; i++) {
    if (scene->bodies[i].name) refs[k++] = (name_ref){scene->bodies[i].name, i};
  }
  qsort(refs, (size_t)named, sizeof *refs, compare_names);  // DET-ALLOW: total order, no ties
  // Report the duplicate that comes first in the file (the lowest second occurrence).
  int dup = -1, first = -1;
  for (int i = 1; i < named; i++) {
    if (strcmp(refs[i].name, refs[i - 1].name) == 0 &&
        (i < 2 || strcmp(refs[i - 1].name, refs[i - 2].name) != 0)) {
      if (dup < 0 || refs[i].index < dup) {
        dup = refs[i].index;
        first = refs[i - 1].index;
      }
    }
  }
  free(refs);
  if (dup < 0) return 0;
  size_t m1 = sj_push_key(ctx, "bodies");
  size_t m2 = sj_push_index(ctx, (size_t)dup);
  size_t m3 = sj_push_key(ctx, "name");
  sj_fail(ctx, ARB_E_INVAL, "duplicate name \"%s\" (first used by bodies[%d])",
          scene->bodies[dup].name, first);
  sj_pop(ctx, m3);
  sj_pop(ctx, m2);
  sj_pop(ctx, m1);
  return ctx->code;
}

// ---- avatar -------------------------------------------------------------------------

void arb__scene_default_avatar(arb_scene_avatar* avatar) {
  memset(avatar, 0, sizeof *avatar);
  avatar->body = arb_default_body_def();
  avatar->body.type = ARB_BODY_DYNAMIC;
  avatar->body.fixed_rotation = true;
  avatar->body.shape.type = ARB_SHAPE_CIRCLE;
  avatar->body.shape.circle.center = arb_vec2_zero;
  avatar->body.shape.circle.radius = 0.5f;
  avatar->controller = ARB_CONTROLLER_FORCE;
  avatar->force.mode = ARB_FORCE_MODE_AUTO;
  avatar->force.max_force = 20.0f;
  avatar->force.max_speed = 5.0f;
  avatar->force.jump_impulse = 0.0f;
  avatar->force.air_control = 0.3f;
  arb__scene_default_vehicle_avatar(avatar);
}

static int parse_controller(sj_ctx* ctx, const json_t* v, arb_scene_avatar* avatar) {
  static const char* const keys[] = {"type",         "mode",        "max_force", "max_speed",
                                     "jump_impulse", "air_control", NULL};
  // Index = arb_controller_type - 1. "vehicle" is recognised so its refusal is explicit.
  static const char* const types[] = {"force", "vehicle", NULL};
  static const char* const modes[] = {"auto", "platformer", "top_down", NULL};
  json_t* t = json_is_object(v) ? json_object_get(v, "type") : NULL;
  if (t && json_is_string(t) && strcmp(json_string_value(t), "vehicle") == 0) {
    return arb__scene_parse_vehicle_controller(ctx, v, avatar);  // scene_extras.c
  }
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  int type = 0, mode = 0;
  if (sj_enum(ctx, v, "type", types, &type)) return ctx->code;
  avatar->controller = ARB_CONTROLLER_FORCE;
  if (sj_enum(ctx, v, "mode", modes, &mode)) return ctx->code;
  avatar->force.mode = (arb_force_mode)mode;
  sj_float(ctx, v, "max_force", false, FORCE, &avatar->force.max_force);
  sj_float(ctx, v, "max_speed", false, (sj_bounds){0.0, ARB_SCENE_MAX_SPEED, false},
           &avatar->force.max_speed);
  sj_float(ctx, v, "jump_impulse", false, FORCE, &avatar->force.jump_impulse);
  sj_float(ctx, v, "air_control", false, UNIT, &avatar->force.air_control);
  return ctx->code;
}

// `fire`: {"range": m, "impulse": N*s}, both required; the key's presence turns it on.
static int parse_fire(sj_ctx* ctx, const json_t* v, arb_fire_def* fire) {
  static const char* const keys[] = {"range", "impulse", NULL};
  static const sj_bounds RANGE = {0.0, ARB_SCENE_MAX_SIZE, true};
  static const sj_bounds IMPULSE = {0.0, 1.0e6, false};
  if (sj_expect_object(ctx, v) || sj_check_keys(ctx, v, keys)) return ctx->code;
  if (sj_float(ctx, v, "range", true, RANGE, &fire->range)) return ctx->code;
  if (sj_float(ctx, v, "impulse", true, IMPULSE, &fire->impulse)) return ctx->code;
  fire->enabled = true;
  return ARB_OK;
}

int arb__scene_parse_avatar(sj_ctx* ctx, const json_t* value, arb_scene* scene) {
  static const char* const keys[] = {"shape",
                                     "density",
                                     "mass",
                                     "friction",
                                     "restitution",
                                     "linear_damping",
                                     "angular_damping",
                                     "gravity_scale",
                                     "fixed_rotation",
                                     "bullet",
                                     "category",
                                     "mask",
                                     "group",
                                     "controller",
                                     "enable_sleep",
                                     "awake",
                                     "sleep_threshold",
                                     "fire",
                                     NULL};
  if (sj_check_keys(ctx, value, keys)) return ctx->code;
  arb_scene_avatar* avatar = &scene->avatar;
  json_t* fire = json_object_get(value, "fire");
  if (fire) {
    size_t mark = sj_push_key(ctx, "fire");
    parse_fire(ctx, fire, &avatar->fire);
    sj_pop(ctx, mark);
    if (ctx->code) return ctx->code;
  }
  json_t* shape = json_object_get(value, "shape");
  if (shape) {
    size_t mark = sj_push_key(ctx, "shape");
    parse_shape(ctx, shape, &avatar->body.shape, false, NULL, false);
    sj_pop(ctx, mark);
  }
  if (parse_material(ctx, value, &avatar->body)) return ctx->code;
  json_t* controller = json_object_get(value, "controller");
  if (controller) {
    size_t mark = sj_push_key(ctx, "controller");
    parse_controller(ctx, controller, avatar);
    sj_pop(ctx, mark);
  }
  return ctx->code;
}

// ---- spawn points -------------------------------------------------------------------

int arb__scene_parse_spawn_points(sj_ctx* ctx, const json_t* value, arb_scene* scene) {
  if (!json_is_array(value)) {
    return sj_fail(ctx, ARB_E_INVAL, "expected an array of [x, y] points, got %s",
                   sj_type_name(value));
  }
  size_t n = json_array_size(value);
  if (n == 0 || n > ARB_SCENE_MAX_SPAWN_POINTS) {
    return sj_fail(ctx, n == 0 ? ARB_E_INVAL : ARB_E_TOO_BIG, "needs 1 to %d points, got %zu",
                   ARB_SCENE_MAX_SPAWN_POINTS, n);
  }
  scene->spawn_points = calloc(n, sizeof *scene->spawn_points);
  if (!scene->spawn_points) return sj_fail(ctx, ARB_E_NOMEM, "out of memory");
  scene->spawn_count = (int)n;
  for (size_t i = 0; i < n && !ctx->code; i++) {
    size_t mark = sj_push_index(ctx, i);
    sj_vec2_value(ctx, json_array_get(value, i), ARB_SCENE_MAX_COORD, &scene->spawn_points[i].x,
                  &scene->spawn_points[i].y);
    sj_pop(ctx, mark);
  }
  return ctx->code;
}
