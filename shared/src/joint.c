// DETERMINISM-CRITICAL: joint creation, destruction and queries (the solver part is in
// joint_solver.c). Slots are reused lowest-first, so ids depend only on call order.
#include "extras.h"

#define ARB__JOINT_COOKIE 0x4a4f4e54  // "JONT"

arb_joint_def arb_default_joint_def(void) {
  arb_joint_def d;
  memset(&d, 0, sizeof d);
  d.type = ARB_JOINT_REVOLUTE;
  d.length = -1.0f;
  d.damping_ratio = 1.0f;
  d.local_axis_a = arb_v2(1.0f, 0.0f);
  d.correction_factor = 0.3f;
  d.internal_value = ARB__JOINT_COOKIE;
  return d;
}

static arb_vec2 arb__anchor_world(const arb_world* w, arb_body_id id, arb_vec2 local) {
  int slot = arb__body_slot(w, id);
  return slot < 0 ? local : arb_transform_point(w->bodies[slot].xf, local);
}

static bool arb__finite(const float* v, int n) {
  for (int i = 0; i < n; ++i) {
    if (!arb_is_valid_float(v[i])) return false;
  }
  return true;
}

// The limit, motor, spring and type-specific fields (body checks are done by the caller).
static bool arb__joint_params_ok(const arb_joint_def* d) {
  const float f[] = {d->reference_angle,  d->lower,     d->upper,      d->motor_speed,
                     d->max_motor_torque, d->max_force, d->max_torque, d->correction_factor};
  if (!arb__finite(f, (int)(sizeof f / sizeof f[0])) || !arb_vec2_is_valid(d->local_axis_a)) {
    return false;
  }
  if (d->max_motor_torque < 0.0f || d->max_force < 0.0f || d->max_torque < 0.0f) return false;
  if (d->correction_factor < 0.0f || d->correction_factor > 1.0f) return false;
  if (d->enable_limit && d->lower > d->upper) return false;
  switch (d->type) {
    case ARB_JOINT_DISTANCE:
      return !d->enable_limit || d->lower >= 0.0f;
    case ARB_JOINT_PRISMATIC:
    case ARB_JOINT_WHEEL:
      return arb_length_sq(d->local_axis_a) > 1.0e-12f;
    case ARB_JOINT_MOTOR:
      return d->max_force > 0.0f || d->max_torque > 0.0f;
    case ARB_JOINT_MOUSE:
      return arb_body_id_is_null(d->body_b) && d->max_force > 0.0f;
    default:
      return true;
  }
}

// Which of the limit, motor and spring a type takes (others are ignored).
static uint8_t arb__joint_flags(const arb_joint_def* d) {
  uint8_t f = 0;
  bool limits = d->type == ARB_JOINT_DISTANCE || d->type == ARB_JOINT_REVOLUTE ||
                d->type == ARB_JOINT_PRISMATIC || d->type == ARB_JOINT_WHEEL;
  bool motors = limits && d->type != ARB_JOINT_DISTANCE;
  if (limits && d->enable_limit) f |= ARB__JOINT_LIMIT;
  if (motors && d->enable_motor) f |= ARB__JOINT_MOTOR;
  if (motors && d->enable_spring && d->hertz > 0.0f) f |= ARB__JOINT_SPRING;
  return f;
}

static bool arb__joint_def_ok(const arb_world* w, const arb_joint_def* d) {
  if (d->internal_value != ARB__JOINT_COOKIE) return false;
  if (d->type <= ARB_JOINT_NONE || d->type >= ARB_JOINT_TYPE_COUNT) return false;
  int a = arb__body_slot(w, d->body_a);
  if (a < 0) return false;
  int b = arb_body_id_is_null(d->body_b) ? -1 : arb__body_slot(w, d->body_b);
  if (!arb_body_id_is_null(d->body_b) && b < 0) return false;
  if (a == b) return false;
  // Something must be able to move.
  bool ma = w->sims[a].type == ARB_BODY_DYNAMIC, mb = b >= 0 && w->sims[b].type == ARB_BODY_DYNAMIC;
  if (!ma && !mb) return false;
  if (!arb_vec2_is_valid(d->local_anchor_a) || !arb_vec2_is_valid(d->local_anchor_b)) return false;
  if (!arb_is_valid_float(d->length) || !arb_is_valid_float(d->hertz) ||
      !arb_is_valid_float(d->damping_ratio)) {
    return false;
  }
  if (d->hertz < 0.0f || d->damping_ratio < 0.0f || d->hertz > 1.0e4f) return false;
  if (!arb_is_valid_float(d->break_force) || d->break_force < 0.0f) return false;
  return arb__joint_params_ok(d);
}

static void arb__joint_destroyed(arb_world* w, const arb__joint* j) {
  arb__constraint_ends_released(w, j->body_a, j->body_b);
}
ARB__EXTRA_LOOKUPS(arb__joint, joint, joints, joint_slots, joint_cap, joint_free)

// Fills a claimed joint from its def.
static void arb__joint_created(arb_world* w, arb__joint* j, const arb_joint_def* def) {
  j->type = (uint8_t)def->type;
  j->body_a = def->body_a;
  j->body_b = def->body_b;
  j->local_a = def->local_anchor_a;
  j->local_b = def->local_anchor_b;
  j->hertz = def->hertz;
  j->damping_ratio = def->damping_ratio;
  j->length = def->length;
  if (j->type == ARB_JOINT_DISTANCE && j->length < 0.0f) {
    j->length = arb_distance(arb__anchor_world(w, def->body_a, def->local_anchor_a),
                             arb__anchor_world(w, def->body_b, def->local_anchor_b));
  }
  if (j->type != ARB_JOINT_DISTANCE) j->length = 0.0f;
  j->flags = arb__joint_flags(def);
  j->local_axis = arb_normalize(def->local_axis_a);
  j->reference_angle = def->reference_angle;
  j->lower = def->lower;
  j->upper = def->upper;
  j->motor_speed = def->motor_speed;
  j->max_motor = def->max_motor_torque;
  j->max_force = def->max_force;
  j->max_torque = def->max_torque;
  j->correction = def->correction_factor;
  j->break_force = def->break_force;
  arb__constraint_ends_created(w, def->body_a, def->body_b);
}
ARB__EXTRA_CREATE(arb__joint, joint, ARB__JOINT_COOKIE)

void arb_joint_get_anchors(const arb_world* w, arb_extra_id id, arb_vec2* a, arb_vec2* b) {
  const arb__joint* j = arb__joint_get(w, id);
  arb_vec2 pa = arb_vec2_zero, pb = arb_vec2_zero;
  if (j) {
    pa = arb__anchor_world(w, j->body_a, j->local_a);
    pb = arb_body_id_is_null(j->body_b) ? j->local_b : arb__anchor_world(w, j->body_b, j->local_b);
  }
  if (a) *a = pa;
  if (b) *b = pb;
}

int arb_joint_get_bodies(const arb_world* w, arb_extra_id id, arb_body_id* body_a,
                         arb_body_id* body_b, arb_vec2* local_a, arb_vec2* local_b) {
  const arb__joint* j = arb__joint_get(w, id);
  return ARB__ATTACHMENT_OUT(j, body_a, body_b, local_a, local_b);
}

// The joint a setter changes: NULL with *err ARB_E_INVAL (no world), ARB_E_STATE (inside
// a step) or ARB_E_STALE_ID.
static arb__joint* arb__joint_to_change(arb_world* w, arb_extra_id id, int* err) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  *err = !w ? ARB_E_INVAL : w->locked ? ARB_E_STATE : 0;
  arb__joint* j = *err ? NULL : arb__joint_get(w, id);
  if (!*err && !j) *err = ARB_E_STALE_ID;
  return j;
}

int arb_joint_set_target(arb_world* w, arb_extra_id id, arb_vec2 target) {
  int err;
  arb__joint* j = arb__joint_to_change(w, id, &err);
  if (!j) return err;
  if (j->type != ARB_JOINT_MOUSE || !arb_vec2_is_valid(target)) return ARB_E_INVAL;
  j->local_b = target;
  arb__wake_ids(w, j->body_a, j->body_b);
  return 0;
}

int arb_joint_set_motor_speed(arb_world* w, arb_extra_id id, float speed) {
  int err;
  arb__joint* j = arb__joint_to_change(w, id, &err);
  if (!j) return err;
  bool motors =
      j->type == ARB_JOINT_REVOLUTE || j->type == ARB_JOINT_PRISMATIC || j->type == ARB_JOINT_WHEEL;
  if (!motors || !arb_is_valid_float(speed)) return ARB_E_INVAL;
  j->motor_speed = speed;
  arb__wake_ids(w, j->body_a, j->body_b);
  return 0;
}

static arb_rot arb__body_rot(const arb_world* w, arb_body_id id) {
  int slot = arb__body_slot(w, id);
  return slot < 0 ? arb_rot_identity : w->bodies[slot].xf.q;
}

arb_vec2 arb_joint_get_axis(const arb_world* w, arb_extra_id id) {
  const arb__joint* j = arb__joint_get(w, id);
  if (!j || (j->type != ARB_JOINT_PRISMATIC && j->type != ARB_JOINT_WHEEL)) return arb_vec2_zero;
  return arb_rotate(arb__body_rot(w, j->body_a), j->local_axis);
}

float arb_joint_get_position(const arb_world* w, arb_extra_id id) {
  const arb__joint* j = arb__joint_get(w, id);
  if (!j) return 0.0f;
  arb_vec2 a, b;
  arb_joint_get_anchors(w, id, &a, &b);
  switch ((arb_joint_type)j->type) {
    case ARB_JOINT_DISTANCE:
      return arb_distance(a, b);
    case ARB_JOINT_REVOLUTE: {
      float r = arb_rot_relative_angle(arb__body_rot(w, j->body_a), arb__body_rot(w, j->body_b)) -
                j->reference_angle;
      if (r > ARB_PI) r -= 2.0f * ARB_PI;
      if (r < -ARB_PI) r += 2.0f * ARB_PI;
      return r;
    }
    case ARB_JOINT_PRISMATIC:
    case ARB_JOINT_WHEEL:
      return arb_dot(arb_joint_get_axis(w, id), arb_sub(b, a));
    default:
      return 0.0f;
  }
}

int arb_world_get_joint_count(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return arb__joint_ids(w, NULL, 0);
}

arb_joint_type arb_joint_get_type(const arb_world* w, arb_extra_id id) {
  const arb__joint* j = arb__joint_get(w, id);
  return j ? (arb_joint_type)j->type : ARB_JOINT_NONE;
}

int arb_world_get_joints(const arb_world* w, arb_extra_id* out, int cap) {
  ARB__CHECK_WORLD(w);
  return arb__joint_ids(w, out, cap);
}

// ---- breaking -------------------------------------------------------------------------------

// The linear impulse the joint gave its bodies over the step (every substep's warm start,
// solve and relax: what external forces applied once per step and gravity applied per
// substep both load it with), as a force.
static float arb__joint_force(const arb__joint* j, float dt) {
  if (!j->active || !(dt > 0.0f)) return 0.0f;
  return arb_length(j->step_impulse) / dt;
}

float arb_joint_get_force(const arb_world* w, arb_extra_id id) {
  const arb__joint* j = arb__joint_get(w, id);
  return j ? arb__joint_force(j, w->last_step_dt) : 0.0f;
}

static void arb__push_break(arb_world* w, int slot, const arb__joint* j, float force) {
  if (w->joint_break_count == w->joint_break_cap) {
    int cap = w->joint_break_cap ? 2 * w->joint_break_cap : 16;
    arb_joint_break_event* p = arb__grow(w, w->joint_breaks, w->joint_break_count, cap, sizeof *p);
    if (!p) return;  // the joint still breaks; only the report is lost
    w->joint_breaks = p;
    w->joint_break_cap = cap;
  }
  arb_joint_break_event* e = &w->joint_breaks[w->joint_break_count++];
  e->joint.index1 = slot + 1;
  e->joint.generation = j->generation;
  e->body_a = j->body_a;
  e->body_b = j->body_b;
  e->force = force;
}

void arb__joints_break(arb_world* w, float dt) {
  w->joint_break_count = 0;
  arb__extras* x = w->extras;
  if (!x) return;
  bool broke = false;
  for (int i = 0; i < x->joint_slots; ++i) {  // DET: slot order
    arb__joint* j = &x->joints[i];
    if (!j->in_use || j->break_force <= 0.0f) continue;
    float force = arb__joint_force(j, dt);
    if (!(force > j->break_force)) continue;
    arb__push_break(w, i, j, force);
    j->in_use = 0;
    arb__extra_freed(&x->joint_free, i);
    j->active = 0;  // the projection and the next steps skip it
    broke = true;
    arb__wake_ids(w, j->body_a, j->body_b);  // sleep timers restart: the bodies just came apart
  }
  if (broke) arb__joints_drop_inactive(w);
}

int arb_world_get_joint_break_events(const arb_world* w, const arb_joint_break_event** out) {
  ARB__CHECK_WORLD(w);
  if (out) *out = w ? w->joint_breaks : NULL;
  return w ? w->joint_break_count : 0;
}
