// The scene's `joints` section: every joint type with its limit, motor and spring keys.
// Each type takes its own keys (another type's key is refused by name); every value is
// range-checked with its JSON path, and what arb_joint_create would refuse is refused here
// first, so a scene that loads always builds (docs/SCENES.md, "joints").
#include <string.h>

#include "scene_extras.h"

static const sj_bounds HERTZ = {0.0, 1.0e4, false};
static const sj_bounds RATIO = {0.0, 1.0e4, false};
static const sj_bounds LENGTH = {0.0, ARB_SCENE_MAX_COORD, false};
static const sj_bounds COORD = {-ARB_SCENE_MAX_COORD, ARB_SCENE_MAX_COORD, false};
static const sj_bounds HALF_TURN = {-3.14159265, 3.14159265, false};
static const sj_bounds ANGLE = {-1.0e4, 1.0e4, false};
static const sj_bounds SPEED = {-1.0e4, 1.0e4, false};
static const sj_bounds NONNEG = {0.0, 1.0e9, false};
static const sj_bounds POSITIVE = {0.0, 1.0e9, true};
static const sj_bounds UNIT = {0.0, 1.0, false};

// Scene names of the types, in arb_joint_type order from ARB_JOINT_DISTANCE.
static const char* const TYPE_NAMES[] = {"distance", "revolute", "prismatic", "weld",
                                         "wheel",    "motor",    "mouse",     NULL};

// The keys each type takes (the bodies and anchors first). Every type takes break_force.
#define ARB__JOINT_BODIES \
  "type", "body_a", "body_b", "anchor", "anchor_a", "anchor_b", "break_force"
static const char* const DISTANCE_KEYS[] = {
    ARB__JOINT_BODIES, "length", "hertz", "damping_ratio", "min_length", "max_length", NULL};
static const char* const REVOLUTE_KEYS[] = {
    ARB__JOINT_BODIES, "lower",         "upper",           "motor_speed", "max_motor_torque",
    "hertz",           "damping_ratio", "reference_angle", NULL};
static const char* const PRISMATIC_KEYS[] = {
    ARB__JOINT_BODIES, "axis",  "lower",         "upper",           "motor_speed",
    "max_motor_force", "hertz", "damping_ratio", "reference_angle", NULL};
static const char* const WELD_KEYS[] = {ARB__JOINT_BODIES, "hertz", "damping_ratio",
                                        "reference_angle", NULL};
static const char* const WHEEL_KEYS[] = {ARB__JOINT_BODIES, "axis",          "lower",
                                         "upper",           "motor_speed",   "max_motor_torque",
                                         "hertz",           "damping_ratio", NULL};
static const char* const MOTOR_KEYS[] = {"type",
                                         "body_a",
                                         "body_b",
                                         "anchor_b",
                                         "linear_offset",
                                         "angular_offset",
                                         "max_force",
                                         "max_torque",
                                         "correction_factor",
                                         "break_force",
                                         NULL};
static const char* const MOUSE_KEYS[] = {"type",        "body_a",    "anchor", "anchor_a",
                                         "target",      "max_force", "hertz",  "damping_ratio",
                                         "break_force", NULL};
static const char* const* const TYPE_KEYS[] = {
    DISTANCE_KEYS, REVOLUTE_KEYS, PRISMATIC_KEYS, WELD_KEYS, WHEEL_KEYS, MOTOR_KEYS, MOUSE_KEYS};
// Every key of some type: such a key on another type is named as misplaced, not unknown.
static const char* const ALL_KEYS[] = {ARB__JOINT_BODIES,
                                       "length",
                                       "hertz",
                                       "damping_ratio",
                                       "min_length",
                                       "max_length",
                                       "lower",
                                       "upper",
                                       "motor_speed",
                                       "max_motor_torque",
                                       "max_motor_force",
                                       "reference_angle",
                                       "axis",
                                       "linear_offset",
                                       "angular_offset",
                                       "max_force",
                                       "max_torque",
                                       "correction_factor",
                                       "target",
                                       NULL};

static bool has(const json_t* v, const char* key) {
  return json_object_get(v, key) != NULL;
}

static bool listed(const char* const* keys, const char* key) {
  for (; *keys; ++keys) {
    if (strcmp(*keys, key) == 0) return true;
  }
  return false;
}

// Keys of another type ("revolute joints do not take this key"), then unknown keys (with
// the type's own list).
static int check_type_keys(sj_ctx* ctx, const json_t* v, int type_index) {
  const char* key;
  json_t* value;
  json_object_foreach((json_t*)v, key, value) {
    if (!listed(TYPE_KEYS[type_index], key) && listed(ALL_KEYS, key)) {
      size_t mark = sj_push_key(ctx, key);
      sj_fail(ctx, ARB_E_INVAL, "%s joints do not take this key", TYPE_NAMES[type_index]);
      sj_pop(ctx, mark);
      return ctx->code;
    }
  }
  return sj_check_keys(ctx, v, TYPE_KEYS[type_index]);
}

static float scene_angle(const arb_scene* scene, int index) {
  return index >= 0 ? scene->bodies[index].def.angle : 0.0f;
}

// `anchor` (a world point on both bodies) or `anchor_a` / `anchor_b` (local).
static int parse_anchors(sj_ctx* ctx, const json_t* v, const arb_scene* scene, int a, int b,
                         arb_joint_def* d) {
  if (has(v, "anchor") && (has(v, "anchor_a") || has(v, "anchor_b"))) {
    return arb__sx_fail_at(ctx, "anchor", ARB_E_INVAL,
                           "give either anchor (world) or anchor_a/anchor_b (local), not both");
  }
  if (has(v, "anchor")) {
    arb_vec2 p = arb_vec2_zero;
    if (sj_vec2(ctx, v, "anchor", false, ARB_SCENE_MAX_COORD, &p.x, &p.y)) return ctx->code;
    d->local_anchor_a = arb_inv_transform_point(arb__sx_body_xf(scene, a), p);
    d->local_anchor_b = b >= 0 ? arb_inv_transform_point(arb__sx_body_xf(scene, b), p) : p;
    return 0;
  }
  sj_vec2(ctx, v, "anchor_a", false, ARB_SCENE_MAX_SIZE, &d->local_anchor_a.x,
          &d->local_anchor_a.y);
  sj_vec2(ctx, v, "anchor_b", false, ARB_SCENE_MAX_COORD, &d->local_anchor_b.x,
          &d->local_anchor_b.y);
  return ctx->code;
}

// `lower` and `upper` together enable the limit.
static int parse_limit(sj_ctx* ctx, const json_t* v, sj_bounds range, arb_joint_def* d) {
  if (has(v, "lower") != has(v, "upper")) {
    return arb__sx_fail_at(ctx, has(v, "lower") ? "upper" : "lower", ARB_E_INVAL,
                           "missing: a limit needs both lower and upper");
  }
  if (!has(v, "lower")) return 0;
  d->enable_limit = true;
  sj_float(ctx, v, "lower", true, range, &d->lower);
  sj_float(ctx, v, "upper", true, range, &d->upper);
  if (!ctx->code && d->lower > d->upper)
    return arb__sx_fail_at(ctx, "upper", ARB_E_RANGE, "must be >= lower");
  return ctx->code;
}

// `max_motor_torque` (or `_force`) enables the motor; `motor_speed` alone is refused.
static int parse_motor(sj_ctx* ctx, const json_t* v, const char* max_key, arb_joint_def* d) {
  if (has(v, "motor_speed") && !has(v, max_key)) {
    return arb__sx_fail_at(ctx, "motor_speed", ARB_E_INVAL,
                           strcmp(max_key, "max_motor_force") == 0
                               ? "a motor needs max_motor_force too"
                               : "a motor needs max_motor_torque too");
  }
  if (!has(v, max_key)) return 0;
  d->enable_motor = true;
  sj_float(ctx, v, "motor_speed", false, SPEED, &d->motor_speed);
  sj_float(ctx, v, max_key, true, NONNEG, &d->max_motor_torque);
  return ctx->code;
}

// `hertz` (> 0) enables the spring of a revolute, prismatic or wheel joint.
static int parse_spring(sj_ctx* ctx, const json_t* v, arb_joint_def* d) {
  sj_float(ctx, v, "hertz", false, HERTZ, &d->hertz);
  sj_float(ctx, v, "damping_ratio", false, RATIO, &d->damping_ratio);
  d->enable_spring = d->hertz > 0.0f;
  return ctx->code;
}

// `axis`: a world direction as written (default `fallback`), kept in A's frame.
static int parse_axis(sj_ctx* ctx, const json_t* v, const arb_scene* scene, int a,
                      arb_vec2 fallback, arb_joint_def* d) {
  arb_vec2 axis = fallback;
  if (sj_vec2(ctx, v, "axis", false, ARB_SCENE_MAX_COORD, &axis.x, &axis.y)) return ctx->code;
  if (arb_length_sq(axis) < 1.0e-12f)
    return arb__sx_fail_at(ctx, "axis", ARB_E_INVAL, "must not be zero");
  d->local_axis_a = arb_inv_rotate(arb__sx_body_xf(scene, a).q, arb_normalize(axis));
  return 0;
}

static int parse_distance(sj_ctx* ctx, const json_t* v, const arb_scene* scene, int a, int b,
                          arb_joint_def* d) {
  sj_float(ctx, v, "length", false, LENGTH, &d->length);
  sj_float(ctx, v, "hertz", false, HERTZ, &d->hertz);
  sj_float(ctx, v, "damping_ratio", false, RATIO, &d->damping_ratio);
  if (has(v, "min_length") || has(v, "max_length")) {
    d->enable_limit = true;
    d->lower = 0.0f;
    d->upper = 2.0f * ARB_SCENE_MAX_COORD;
    sj_float(ctx, v, "min_length", false, LENGTH, &d->lower);
    sj_float(ctx, v, "max_length", false, LENGTH, &d->upper);
    if (!ctx->code && d->lower > d->upper)
      return arb__sx_fail_at(ctx, "max_length", ARB_E_RANGE, "must be >= min_length");
  }
  if (ctx->code) return ctx->code;
  if (d->length < 0.0f) {
    arb_vec2 pa = arb_transform_point(arb__sx_body_xf(scene, a), d->local_anchor_a);
    arb_vec2 pb = arb_transform_point(arb__sx_body_xf(scene, b), d->local_anchor_b);
    d->length = arb_distance(pa, pb);
  }
  return 0;
}

static int parse_motor_joint(sj_ctx* ctx, const json_t* v, const arb_scene* scene, int a, int b,
                             arb_joint_def* d) {
  sj_vec2(ctx, v, "anchor_b", false, ARB_SCENE_MAX_SIZE, &d->local_anchor_b.x,
          &d->local_anchor_b.y);
  if (ctx->code) return ctx->code;
  // Default offset: where B's anchor is in A's frame as written (hold the pose).
  arb_vec2 pb = b >= 0 ? arb_transform_point(arb__sx_body_xf(scene, b), d->local_anchor_b)
                       : d->local_anchor_b;
  d->local_anchor_a = arb_inv_transform_point(arb__sx_body_xf(scene, a), pb);
  sj_vec2(ctx, v, "linear_offset", false, ARB_SCENE_MAX_COORD, &d->local_anchor_a.x,
          &d->local_anchor_a.y);
  sj_float(ctx, v, "angular_offset", false, ANGLE, &d->reference_angle);
  sj_float(ctx, v, "max_force", false, NONNEG, &d->max_force);
  sj_float(ctx, v, "max_torque", false, NONNEG, &d->max_torque);
  sj_float(ctx, v, "correction_factor", false, UNIT, &d->correction_factor);
  if (!ctx->code && d->max_force <= 0.0f && d->max_torque <= 0.0f)
    return arb__sx_fail_at(ctx, "max_force", ARB_E_INVAL,
                           "a motor joint needs max_force or max_torque > 0");
  return ctx->code;
}

static int parse_mouse(sj_ctx* ctx, const json_t* v, const arb_scene* scene, int a,
                       arb_joint_def* d) {
  if (parse_anchors(ctx, v, scene, a, -1, d)) return ctx->code;
  d->hertz = 5.0f;
  d->damping_ratio = 0.7f;
  sj_vec2(ctx, v, "target", true, ARB_SCENE_MAX_COORD, &d->local_anchor_b.x, &d->local_anchor_b.y);
  sj_float(ctx, v, "max_force", true, POSITIVE, &d->max_force);
  sj_float(ctx, v, "hertz", false, HERTZ, &d->hertz);
  sj_float(ctx, v, "damping_ratio", false, RATIO, &d->damping_ratio);
  return ctx->code;
}

// The keys of one type, after the bodies and anchors.
static int parse_type_keys(sj_ctx* ctx, const json_t* v, const arb_scene* scene, int a, int b,
                           arb_joint_def* d) {
  bool angled =
      d->type == ARB_JOINT_REVOLUTE || d->type == ARB_JOINT_PRISMATIC || d->type == ARB_JOINT_WELD;
  if (angled) {
    d->reference_angle = scene_angle(scene, b) - scene_angle(scene, a);
    sj_float(ctx, v, "reference_angle", false, ANGLE, &d->reference_angle);
  }
  switch (d->type) {
    case ARB_JOINT_DISTANCE:
      return parse_distance(ctx, v, scene, a, b, d);
    case ARB_JOINT_REVOLUTE:
      parse_limit(ctx, v, HALF_TURN, d);
      parse_motor(ctx, v, "max_motor_torque", d);
      return parse_spring(ctx, v, d);
    case ARB_JOINT_PRISMATIC:
    case ARB_JOINT_WHEEL: {
      bool wheel = d->type == ARB_JOINT_WHEEL;
      parse_axis(ctx, v, scene, a, wheel ? arb_v2(0.0f, 1.0f) : arb_v2(1.0f, 0.0f), d);
      parse_limit(ctx, v, COORD, d);
      parse_motor(ctx, v, wheel ? "max_motor_torque" : "max_motor_force", d);
      return parse_spring(ctx, v, d);
    }
    case ARB_JOINT_WELD:
      sj_float(ctx, v, "hertz", false, HERTZ, &d->hertz);
      sj_float(ctx, v, "damping_ratio", false, RATIO, &d->damping_ratio);
      return ctx->code;
    default:
      return ctx->code;
  }
}

static int parse_joint(sj_ctx* ctx, const json_t* v, const arb_scene* scene, void* slot) {
  arb_joint_def* d = slot;
  if (sj_expect_object(ctx, v)) return ctx->code;
  *d = arb_default_joint_def();
  int type = 0, a, b;
  if (!has(v, "type")) return arb__sx_fail_at(ctx, "type", ARB_E_INVAL, "missing (required)");
  if (sj_enum(ctx, v, "type", TYPE_NAMES, &type) || check_type_keys(ctx, v, type)) return ctx->code;
  d->type = (arb_joint_type)(ARB_JOINT_DISTANCE + type);
  // Any type: the force (N) above which the step removes the joint; absent or 0: never.
  if (sj_float(ctx, v, "break_force", false, NONNEG, &d->break_force)) return ctx->code;
  if (arb__sx_body_ref(ctx, v, "body_a", true, scene, &a) ||
      arb__sx_body_ref(ctx, v, "body_b", false, scene, &b))
    return ctx->code;
  if (a == b) return arb__sx_fail_at(ctx, "body_b", ARB_E_INVAL, "must differ from body_a");
  if (!arb__sx_is_dynamic(scene, a) && !arb__sx_is_dynamic(scene, b)) {
    return arb__sx_fail_at(ctx, "body_a", ARB_E_INVAL, "a joint needs at least one dynamic body");
  }
  if (d->type == ARB_JOINT_MOUSE) {
    if (!arb__sx_is_dynamic(scene, a))
      return arb__sx_fail_at(ctx, "body_a", ARB_E_INVAL, "a mouse joint drags a dynamic body");
    parse_mouse(ctx, v, scene, a, d);
  } else if (d->type == ARB_JOINT_MOTOR) {
    parse_motor_joint(ctx, v, scene, a, b, d);
  } else if (!parse_anchors(ctx, v, scene, a, b, d)) {
    parse_type_keys(ctx, v, scene, a, b, d);
  }
  d->body_a = arb__sx_ref_id(a);
  d->body_b = arb__sx_ref_id(b);
  return ctx->code;
}

ARB__SX_LIST_SECTION(joints, joint_count, ARB_SCENE_MAX_JOINTS, parse_joint)
