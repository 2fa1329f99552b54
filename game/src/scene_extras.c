// Scene sections of the physics extras: `springs`, `joints`, `particles`, `constraints`,
// `constraint_iterations`, `vehicles`, and the vehicle avatar controller. Every value is
// range-checked with its JSON path here; the trial world of the loader then builds them,
// so a scene that loads always builds (docs/SCENES.md, "Physics extras").
#include "scene_extras.h"

#include <stdlib.h>
#include <string.h>

static const sj_bounds NONNEG = {0.0, 1.0e9, false};
static const sj_bounds POSITIVE = {0.0, 1.0e9, true};
static const sj_bounds STIFF01 = {0.0, 1.0, true};
static const sj_bounds LENGTH = {0.0, ARB_SCENE_MAX_COORD, false};
static const sj_bounds RADIUS = {0.0, 1.0e3, false};
static const sj_bounds STEER = {0.0, 1.2, false};
static const sj_bounds COEF = {0.0, 1.0e4, false};
static const sj_bounds MU = {0.0, 1.0e4, true};

arb_scene_extras* arb__sx_extras(sj_ctx* ctx, arb_scene* scene) {
  if (!scene->extras) {
    scene->extras = calloc(1, sizeof *scene->extras);
    if (!scene->extras) sj_fail(ctx, ARB_E_NOMEM, "out of memory");
  }
  return scene->extras;
}

void arb__scene_free_extras(arb_scene* scene) {
  arb_scene_extras* x = scene->extras;
  if (!x) return;
  free(x->springs);
  free(x->joints);
  free(x->particles);
  free(x->constraints);
  free(x->vehicles);
  free(x);
  scene->extras = NULL;
}

void* arb__sx_list(sj_ctx* ctx, const json_t* v, const arb_scene* scene, const char* what,
                   int limit, size_t elem, int* count, arb__sx_item_fn* fn) {
  *count = 0;
  if (!json_is_array(v)) {
    sj_fail(ctx, ARB_E_INVAL, "expected an array of %s, got %s", what, sj_type_name(v));
    return NULL;
  }
  size_t n = json_array_size(v);
  if (n > (size_t)limit) {
    sj_fail(ctx, ARB_E_TOO_BIG, "%zu %s, the limit is %d", n, what, limit);
    return NULL;
  }
  if (n == 0) return NULL;
  void* p = calloc(n, elem);
  if (!p) {
    sj_fail(ctx, ARB_E_NOMEM, "out of memory");
    return NULL;
  }
  *count = (int)n;
  for (size_t i = 0; i < n && !ctx->code; ++i) {
    size_t mark = sj_push_index(ctx, i);
    fn(ctx, json_array_get(v, i), scene, (char*)p + i * elem);
    sj_pop(ctx, mark);
  }
  return p;
}

// A body by name (string) or scene index (integer). Writes the index, -1 when absent.
int arb__sx_body_ref(sj_ctx* ctx, const json_t* obj, const char* key, bool required,
                     const arb_scene* scene, int* out) {
  *out = -1;
  if (ctx->code) return ctx->code;
  json_t* v = json_object_get(obj, key);
  size_t mark = sj_push_key(ctx, key);
  if (!v) {
    if (required) sj_fail(ctx, ARB_E_INVAL, "missing (required)");
  } else if (json_is_string(v)) {
    int i = arb_scene_find_body(scene, json_string_value(v));
    if (i < 0) {
      sj_fail(ctx, ARB_E_NOT_FOUND, "no body named \"%.64s\"", json_string_value(v));
    } else {
      *out = i;
    }
  } else if (json_is_integer(v)) {
    json_int_t i = json_integer_value(v);
    if (i < 0 || i >= scene->body_count) {
      sj_fail(ctx, ARB_E_RANGE, "body index must be between 0 and %d, got %lld",
              scene->body_count - 1, (long long)i);
    } else {
      *out = (int)i;
    }
  } else {
    sj_fail(ctx, ARB_E_INVAL, "expected a body name or index, got %s", sj_type_name(v));
  }
  sj_pop(ctx, mark);
  return ctx->code;
}

arb_body_id arb__sx_ref_id(int index) {
  arb_body_id id = {index + 1, 0};  // resolved by arb__scene_build_extras
  return index < 0 ? arb_null_body_id : id;
}

arb_transform arb__sx_body_xf(const arb_scene* scene, int index) {
  arb_transform xf = {arb_vec2_zero, arb_rot_identity};
  if (index >= 0) {
    xf.p = scene->bodies[index].def.position;
    xf.q = arb_rot_from_angle(scene->bodies[index].def.angle);
  }
  return xf;
}

int arb__sx_fail_at(sj_ctx* ctx, const char* key, int code, const char* msg) {
  size_t mark = sj_push_key(ctx, key);
  sj_fail(ctx, code, "%s", msg);
  sj_pop(ctx, mark);
  return ctx->code;
}

bool arb__sx_is_dynamic(const arb_scene* scene, int index) {
  return index >= 0 && scene->bodies[index].def.type == ARB_BODY_DYNAMIC;
}

// ---- springs ----------------------------------------------------------------------------

static int parse_spring(sj_ctx* ctx, const json_t* v, const arb_scene* scene, void* slot) {
  arb_spring_def* d = slot;
  static const char* const keys[] = {"body_a",      "body_b",    "anchor_a", "anchor_b",
                                     "rest_length", "stiffness", "damping",  NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  *d = arb_default_spring_def();
  int a, b;
  if (arb__sx_body_ref(ctx, v, "body_a", true, scene, &a) ||
      arb__sx_body_ref(ctx, v, "body_b", false, scene, &b))
    return ctx->code;
  if (a == b) return arb__sx_fail_at(ctx, "body_b", ARB_E_INVAL, "must differ from body_a");
  sj_vec2(ctx, v, "anchor_a", false, ARB_SCENE_MAX_SIZE, &d->local_anchor_a.x,
          &d->local_anchor_a.y);
  sj_vec2(ctx, v, "anchor_b", false, ARB_SCENE_MAX_COORD, &d->local_anchor_b.x,
          &d->local_anchor_b.y);
  d->rest_length = -1.0f;
  sj_float(ctx, v, "rest_length", false, LENGTH, &d->rest_length);
  sj_float(ctx, v, "stiffness", true, NONNEG, &d->stiffness);
  sj_float(ctx, v, "damping", false, NONNEG, &d->damping);
  if (ctx->code) return ctx->code;
  if (d->rest_length < 0.0f) {  // default: the distance in the scene as written
    arb_vec2 pa = arb_transform_point(arb__sx_body_xf(scene, a), d->local_anchor_a);
    arb_vec2 pb = arb_transform_point(arb__sx_body_xf(scene, b), d->local_anchor_b);
    d->rest_length = arb_distance(pa, pb);
  }
  d->body_a = arb__sx_ref_id(a);
  d->body_b = arb__sx_ref_id(b);
  return 0;
}

ARB__SX_LIST_SECTION(springs, spring_count, ARB_SCENE_MAX_SPRINGS, parse_spring)

// ---- particles and constraints ----------------------------------------------------------

static int parse_mask(sj_ctx* ctx, const json_t* v, const char* key, uint32_t* out) {
  long long m = *out;
  if (sj_int(ctx, v, key, false, 0, 0xFFFFFFFFll, &m)) return ctx->code;
  *out = (uint32_t)m;
  return 0;
}

static int parse_particle(sj_ctx* ctx, const json_t* v, const arb_scene* scene, void* slot) {
  arb_particle_def* d = slot;
  static const char* const keys[] = {"position", "mass", "radius", "damping",
                                     "pinned",   "mask", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  *d = arb_default_particle_def();
  sj_vec2(ctx, v, "position", true, ARB_SCENE_MAX_COORD, &d->position.x, &d->position.y);
  sj_float(ctx, v, "mass", false, POSITIVE, &d->mass);
  sj_float(ctx, v, "radius", false, RADIUS, &d->radius);
  sj_float(ctx, v, "damping", false, NONNEG, &d->damping);
  sj_bool(ctx, v, "pinned", &d->pinned);
  parse_mask(ctx, v, "mask", &d->mask_bits);
  return ctx->code;
}

ARB__SX_LIST_SECTION(particles, particle_count, ARB_SCENE_MAX_PARTICLES, parse_particle)

static int parse_constraint(sj_ctx* ctx, const json_t* v, const arb_scene* scene, void* slot) {
  arb_constraint_def* d = slot;
  const arb_scene_extras* x = scene->extras;
  static const char* const keys[] = {"a", "b", "rest_length", "stiffness", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  long long a = 0, b = 0;
  if (x->particle_count == 0)
    return sj_fail(ctx, ARB_E_INVAL, "the scene has no particles to connect");
  if (sj_int(ctx, v, "a", true, 0, x->particle_count - 1, &a)) return ctx->code;
  if (sj_int(ctx, v, "b", true, 0, x->particle_count - 1, &b)) return ctx->code;
  if (a == b) return arb__sx_fail_at(ctx, "b", ARB_E_INVAL, "must differ from a");
  d->a = (int)a;
  d->b = (int)b;
  d->rest_length = arb_distance(x->particles[a].position, x->particles[b].position);
  d->stiffness = 1.0f;
  sj_float(ctx, v, "rest_length", false, LENGTH, &d->rest_length);
  sj_float(ctx, v, "stiffness", false, STIFF01, &d->stiffness);
  return ctx->code;
}

ARB__SX_LIST_SECTION(constraints, constraint_count, ARB_SCENE_MAX_CONSTRAINTS, parse_constraint)

int arb__scene_parse_constraint_iterations(sj_ctx* ctx, const json_t* value, arb_scene* scene) {
  arb_scene_extras* x = arb__sx_extras(ctx, scene);
  if (!x) return ctx->code;
  if (!json_is_integer(value))
    return sj_fail(ctx, ARB_E_INVAL, "expected an integer, got %s", sj_type_name(value));
  json_int_t n = json_integer_value(value);
  if (n < 1 || n > 256)
    return sj_fail(ctx, ARB_E_RANGE, "must be between 1 and 256, got %lld", (long long)n);
  x->constraint_iterations = (int)n;
  return 0;
}

// ---- vehicles ---------------------------------------------------------------------------

static int parse_wheel(sj_ctx* ctx, const json_t* v, arb_wheel_def* w) {
  static const char* const keys[] = {"offset", "radius",       "inertia",      "steer",
                                     "drive",  "drive_torque", "brake_torque", NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  sj_vec2(ctx, v, "offset", true, 1.0e3f, &w->offset.x, &w->offset.y);
  sj_float(ctx, v, "radius", false, (sj_bounds){0.0, 100.0, true}, &w->radius);
  sj_float(ctx, v, "inertia", false, (sj_bounds){0.0, 1.0e6, true}, &w->inertia);
  sj_bool(ctx, v, "steer", &w->steerable);
  sj_bool(ctx, v, "drive", &w->driven);
  sj_float(ctx, v, "drive_torque", false, (sj_bounds){0.0, 1.0e7, false}, &w->drive_torque);
  sj_float(ctx, v, "brake_torque", false, (sj_bounds){0.0, 1.0e7, false}, &w->brake_torque);
  return ctx->code;
}

// The vehicle parameters shared by `vehicles[i]` and the vehicle avatar controller.
static int parse_vehicle_params(sj_ctx* ctx, const json_t* v, arb_vehicle_def* d) {
  json_t* wheels = json_object_get(v, "wheels");
  if (wheels) {
    size_t mark = sj_push_key(ctx, "wheels");
    if (!json_is_array(wheels) || json_array_size(wheels) < 1 ||
        json_array_size(wheels) > ARB_VEHICLE_MAX_WHEELS) {
      sj_fail(ctx, ARB_E_INVAL, "expected an array of 1 to %d wheels, got %s",
              ARB_VEHICLE_MAX_WHEELS,
              json_is_array(wheels) ? "another count" : sj_type_name(wheels));
    } else {
      arb_wheel_def tpl = d->wheels[0];
      tpl.steerable = false;
      tpl.driven = false;
      d->wheel_count = (int)json_array_size(wheels);
      for (int i = 0; i < d->wheel_count && !ctx->code; ++i) {
        size_t m2 = sj_push_index(ctx, (size_t)i);
        d->wheels[i] = tpl;
        parse_wheel(ctx, json_array_get(wheels, (size_t)i), &d->wheels[i]);
        sj_pop(ctx, m2);
      }
    }
    sj_pop(ctx, mark);
  }
  sj_float(ctx, v, "max_steer_angle", false, STEER, &d->max_steer_angle);
  sj_float(ctx, v, "friction", false, MU, &d->friction);
  sj_float(ctx, v, "ground_gravity", false, MU, &d->ground_gravity);
  sj_float(ctx, v, "rolling_resistance", false, COEF, &d->rolling_resistance);
  sj_float(ctx, v, "drag", false, COEF, &d->drag);
  return ctx->code;
}

static int parse_vehicle(sj_ctx* ctx, const json_t* v, const arb_scene* scene, void* slot) {
  arb_vehicle_def* d = slot;
  static const char* const keys[] = {
      "chassis", "wheels", "max_steer_angle", "friction", "ground_gravity", "rolling_resistance",
      "drag",    NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  *d = arb_default_vehicle_def();
  int c;
  if (arb__sx_body_ref(ctx, v, "chassis", true, scene, &c)) return ctx->code;
  if (!arb__sx_is_dynamic(scene, c))
    return arb__sx_fail_at(ctx, "chassis", ARB_E_INVAL, "the chassis must be a dynamic body");
  if (parse_vehicle_params(ctx, v, d)) return ctx->code;
  d->chassis = arb__sx_ref_id(c);
  return 0;
}

ARB__SX_LIST_SECTION(vehicles, vehicle_count, ARB_SCENE_MAX_VEHICLES, parse_vehicle)

// ---- vehicle avatar ---------------------------------------------------------------------

void arb__scene_default_vehicle_avatar(arb_scene_avatar* avatar) {
  // A kart: 2 m x 1 m, 200 kg, rear drive; top speed about 20 m/s. It lives in the plane
  // (gravity_scale 0): vehicles are seen from above.
  arb_body_def* b = &avatar->vehicle_body;
  *b = arb_default_body_def();
  b->mass = 200.0f;
  b->gravity_scale = 0.0f;
  b->shape.type = ARB_SHAPE_POLYGON;
  b->shape.polygon = arb_make_box(1.0f, 0.5f);
  arb_vehicle_def* v = &avatar->vehicle;
  *v = arb_default_vehicle_def();
  const float xs[4] = {0.7f, 0.7f, -0.7f, -0.7f}, ys[4] = {0.45f, -0.45f, 0.45f, -0.45f};
  for (int i = 0; i < 4; ++i) {
    v->wheels[i].offset = arb_v2(xs[i], ys[i]);
    v->wheels[i].radius = 0.25f;
    v->wheels[i].inertia = 0.3f;
    v->wheels[i].drive_torque = v->wheels[i].driven ? 110.0f : 0.0f;
    v->wheels[i].brake_torque = 400.0f;
  }
  v->drag = 2.0f;
}

int arb__scene_parse_vehicle_controller(sj_ctx* ctx, const json_t* v, arb_scene_avatar* avatar) {
  static const char* const keys[] = {"type",
                                     "chassis",
                                     "wheels",
                                     "max_steer_angle",
                                     "friction",
                                     "ground_gravity",
                                     "rolling_resistance",
                                     "drag",
                                     NULL};
  if (sj_check_keys(ctx, v, keys)) return ctx->code;
  avatar->controller = ARB_CONTROLLER_VEHICLE;
  json_t* chassis = json_object_get(v, "chassis");
  if (chassis) {  // {"half_width", "half_height", "mass"}: the chassis box
    static const char* const ckeys[] = {"half_width", "half_height", "mass", NULL};
    size_t mark = sj_push_key(ctx, "chassis");
    float hw = 1.0f, hh = 0.5f;
    if (!sj_check_keys(ctx, chassis, ckeys)) {
      sj_float(ctx, chassis, "half_width", false, (sj_bounds){ARB_LINEAR_SLOP, 100.0, false}, &hw);
      sj_float(ctx, chassis, "half_height", false, (sj_bounds){ARB_LINEAR_SLOP, 100.0, false}, &hh);
      sj_float(ctx, chassis, "mass", false, (sj_bounds){0.0, 1.0e7, true},
               &avatar->vehicle_body.mass);
      avatar->vehicle_body.shape.polygon = arb_make_box(hw, hh);
    }
    sj_pop(ctx, mark);
  }
  return parse_vehicle_params(ctx, v, &avatar->vehicle);
}

// ---- building ---------------------------------------------------------------------------

static arb_body_id resolve(arb_body_id ref, const arb_body_id* ids) {
  return arb_body_id_is_null(ref) ? arb_null_body_id : ids[ref.index1 - 1];
}

static int build_fail(sj_ctx* ctx, const char* key, int i, const char* what) {
  if (!ctx) return ARB_E_INVAL;
  size_t m1 = sj_push_key(ctx, key);
  size_t m2 = sj_push_index(ctx, (size_t)i);
  sj_fail(ctx, ARB_E_INVAL, "rejected by the physics world (%s)", what);
  sj_pop(ctx, m2);
  sj_pop(ctx, m1);
  return ctx->code;
}

int arb__scene_build_extras(const arb_scene* scene, arb_world* world, sj_ctx* ctx) {
  const arb_scene_extras* x = scene->extras;
  if (!x) return 0;
  int nb = scene->body_count;
  arb_body_id* ids = NULL;
  if (nb > 0) {
    ids = malloc((size_t)nb * sizeof *ids);
    if (!ids) return ctx ? sj_fail(ctx, ARB_E_NOMEM, "out of memory") : ARB_E_NOMEM;
    if (arb_world_get_bodies(world, ids, nb) < nb) {
      free(ids);
      return ARB_E_STATE;
    }
  }
  int rc = 0;
  // Springs and joints, in scene order (DET), each with its two bodies' scene indices
  // resolved to the built ids.
#define BUILD_BETWEEN_BODIES(kind, items, count)              \
  for (int i = 0; i < x->count && !rc; ++i) {                 \
    arb_##kind##_def d = x->items[i];                         \
    d.body_a = resolve(d.body_a, ids);                        \
    d.body_b = resolve(d.body_b, ids);                        \
    if (arb_extra_id_is_null(arb_##kind##_create(world, &d))) \
      rc = build_fail(ctx, #items, i, "invalid " #kind);      \
  }
  BUILD_BETWEEN_BODIES(spring, springs, spring_count)
  BUILD_BETWEEN_BODIES(joint, joints, joint_count)
#undef BUILD_BETWEEN_BODIES
  for (int i = 0; i < x->particle_count && !rc; ++i) {
    if (arb_particle_create(world, &x->particles[i]) < 0)
      rc = build_fail(ctx, "particles", i, "invalid particle");
  }
  for (int i = 0; i < x->constraint_count && !rc; ++i) {
    if (arb_constraint_create(world, &x->constraints[i]) < 0) {
      rc = build_fail(ctx, "constraints", i, "invalid constraint");
    }
  }
  if (!rc && x->constraint_iterations > 0)
    rc = arb_world_set_constraint_iterations(world, x->constraint_iterations);
  for (int i = 0; i < x->vehicle_count && !rc; ++i) {
    arb_vehicle_def d = x->vehicles[i];
    d.chassis = resolve(d.chassis, ids);
    if (arb_extra_id_is_null(arb_vehicle_create(world, &d)))
      rc = build_fail(ctx, "vehicles", i, "invalid vehicle");
  }
  free(ids);
  return rc;
}
