// DETERMINISM-CRITICAL: the physics extras in the canonical state: one visitor per record
// kind writes the hash and the image and reads (and checks) an image back.
//
// Section layout (little-endian, after the contacts of the world image; absent when the
// world has no extras, so such worlds hash and save exactly as without this module):
//   u32 tag 'XTRA' (0x41525458), i32 constraint_iterations, f32 last_dt
//   i32 spring_slots; per slot: u32 generation, u8 in_use; live: body_a, body_b
//     (i32 index1, u32 generation each), vec2 local_a, local_b, f32 rest, k, c
//   i32 joint_slots; per slot: u32 generation, u8 in_use; live: u8 type (bit 7: more
//     follows; bit 6: f32 break_force at the end of the record), body_a, body_b, vec2 local_a,
//     local_b, f32 length, hertz, damping_ratio, vec2 impulse; more (types after the revolute, or a
//     limit, motor or spring): u8 flags, vec2 local_axis, f32 reference_angle, lower, upper,
//     motor_speed, max_motor, max_force, max_torque, correction, angular/spring/motor/lower/upper
//     impulse
//   i32 vehicle_slots; per slot: u32 generation, u8 in_use; live: chassis, i32 wheels,
//     f32 max_steer, friction, ground_gravity, rolling, drag, steer_in, throttle_in,
//     brake_in; per wheel: vec2 offset, f32 radius, inertia, u8 steerable, driven,
//     f32 drive_torque, brake_torque, spin, steer, u8 skid
//   i32 particle_count; per particle: vec2 p, prev, f32 inv_mass, mass, radius, damping,
//     u32 mask_bits
//   i32 constraint_count; per constraint: i32 a, b, f32 rest, stiffness
// Body ids are stored as ids (not resolved): a stale one simply makes its object inactive,
// exactly as it did before the save.
#include "extras.h"

#define ARB__EXTRAS_TAG 0x41525458u

// Reading: a zeroed array of n elements from the world's allocator (NULL for none).
static void* arb__x_alloc(arb_codec* c, arb_world* w, int n, size_t elem) {
  if (c->err || n == 0) return NULL;
  void* p = arb__alloc(w, (size_t)n * elem);
  if (!p) {
    arb_codec_fail(c, ARB_E_NOMEM);
    return NULL;
  }
  memset(p, 0, (size_t)n * elem);
  return p;
}

// Slot header shared by springs, joints and vehicles: true when the slot is live.
static bool arb__x_slot(arb_codec* c, uint32_t* generation, uint8_t* in_use) {
  arb_codec_u32(c, generation);
  arb_codec_flag(c, in_use);
  ARB_CODEC_CHECK(c, *generation != 0);
  return !c->err && *in_use;
}

// Two bodies and an anchor on each (springs, joints).
static void arb__x_anchors(arb_codec* c, arb_body_id* a, arb_body_id* b, arb_vec2* la,
                           arb_vec2* lb) {
  arb_codec_id(c, a);
  arb_codec_id(c, b);
  ARB_CODEC_VEC2S(c, la, lb);
}

static void arb__spring_fields(arb_codec* c, arb__spring* s) {
  if (!arb__x_slot(c, &s->generation, &s->in_use)) return;
  arb__x_anchors(c, &s->body_a, &s->body_b, &s->local_a, &s->local_b);
  ARB_CODEC_F32S(c, &s->rest_length, &s->stiffness, &s->damping);
  ARB_CODEC_CHECK(c,
                  c->err || (s->rest_length >= 0.0f && s->stiffness >= 0.0f && s->damping >= 0.0f));
}

// The parameters and impulses of the limit, motor and spring and of the joint types after
// the revolute. Only written when used (type byte bit 7), so a plain distance or revolute
// joint keeps the record it always had.
static void arb__joint_more(arb_codec* c, arb__joint* j) {
  arb_codec_u8(c, &j->flags);
  arb_codec_vec2(c, &j->local_axis);
  ARB_CODEC_F32S(c, &j->reference_angle, &j->lower, &j->upper, &j->motor_speed, &j->max_motor,
                 &j->max_force, &j->max_torque, &j->correction);
  ARB_CODEC_F32S(c, &j->angular_impulse, &j->spring_impulse, &j->motor_impulse, &j->lower_impulse,
                 &j->upper_impulse);
  ARB_CODEC_CHECK(
      c, c->err || (j->flags < 8 && j->lower <= j->upper && j->max_motor >= 0.0f &&
                    j->max_force >= 0.0f && j->max_torque >= 0.0f && j->correction >= 0.0f &&
                    j->correction <= 1.0f && j->lower_impulse >= 0.0f && j->upper_impulse >= 0.0f));
  // What arb_joint_create requires of each type (a restored joint behaves like a created one).
  float axis_sq = arb_length_sq(j->local_axis);
  bool slider = j->type == ARB_JOINT_PRISMATIC || j->type == ARB_JOINT_WHEEL;
  ARB_CODEC_CHECK(c, c->err || !slider || (axis_sq > 0.99f && axis_sq < 1.01f));
  ARB_CODEC_CHECK(
      c, c->err || j->type != ARB_JOINT_MOTOR || j->max_force > 0.0f || j->max_torque > 0.0f);
  ARB_CODEC_CHECK(c, c->err || j->type != ARB_JOINT_MOUSE ||
                         (j->max_force > 0.0f && arb_body_id_is_null(j->body_b)));
}

#define ARB__JOINT_MORE 0x80u
#define ARB__JOINT_BREAKABLE 0x40u  // f32 break_force follows (only when it is set)

static void arb__joint_fields(arb_codec* c, arb__joint* j) {
  if (!arb__x_slot(c, &j->generation, &j->in_use)) return;
  uint8_t kind = j->type;
  if (j->type > ARB_JOINT_REVOLUTE || j->flags != 0) kind |= ARB__JOINT_MORE;
  if (j->break_force != 0.0f) kind |= ARB__JOINT_BREAKABLE;
  arb_codec_u8(c, &kind);
  j->type = kind & 0x3fu;
  arb__x_anchors(c, &j->body_a, &j->body_b, &j->local_a, &j->local_b);
  ARB_CODEC_F32S(c, &j->length, &j->hertz, &j->damping_ratio);
  arb_codec_vec2(c, &j->impulse);
  ARB_CODEC_CHECK(c, c->err || (j->type > ARB_JOINT_NONE && j->type < ARB_JOINT_TYPE_COUNT &&
                                j->length >= 0.0f && j->hertz >= 0.0f && j->hertz <= 1.0e4f &&
                                j->damping_ratio >= 0.0f));
  if (kind & ARB__JOINT_MORE) {
    arb__joint_more(c, j);
  } else if (arb_codec_reading(c)) {
    j->local_axis = arb_v2(1.0f, 0.0f);
  }
  ARB_CODEC_CHECK(c, c->err || (kind & ARB__JOINT_MORE) || j->type <= ARB_JOINT_REVOLUTE);
  if (kind & ARB__JOINT_BREAKABLE) {
    arb_codec_f32(c, &j->break_force);
    ARB_CODEC_CHECK(c, c->err || j->break_force > 0.0f);
  } else if (arb_codec_reading(c)) {
    j->break_force = 0.0f;
  }
}

static void arb__wheel_fields(arb_codec* c, arb__wheel* wh) {
  arb_codec_vec2(c, &wh->def.offset);
  ARB_CODEC_F32S(c, &wh->def.radius, &wh->def.inertia);
  arb_codec_bool(c, &wh->def.steerable);
  arb_codec_bool(c, &wh->def.driven);
  ARB_CODEC_F32S(c, &wh->def.drive_torque, &wh->def.brake_torque, &wh->spin, &wh->steer);
  arb_codec_flag(c, &wh->skid);
  ARB_CODEC_CHECK(c, c->err || (wh->def.radius > 0.0f && wh->def.inertia > 0.0f &&
                                wh->def.drive_torque >= 0.0f && wh->def.brake_torque >= 0.0f));
}

static void arb__vehicle_fields(arb_codec* c, arb__vehicle* v) {
  if (!arb__x_slot(c, &v->generation, &v->in_use)) return;
  arb_codec_id(c, &v->chassis);
  arb_codec_i32(c, &v->wheel_count);
  ARB_CODEC_CHECK(c, v->wheel_count >= 1 && v->wheel_count <= ARB_VEHICLE_MAX_WHEELS);
  if (c->err) return;
  ARB_CODEC_F32S(c, &v->max_steer, &v->friction, &v->ground_gravity, &v->rolling, &v->drag,
                 &v->steer_in, &v->throttle_in, &v->brake_in);
  ARB_CODEC_CHECK(
      c, c->err || (v->max_steer >= 0.0f && v->max_steer <= 1.2f && v->friction > 0.0f &&
                    v->ground_gravity > 0.0f && v->rolling >= 0.0f && v->drag >= 0.0f &&
                    v->steer_in >= -1.0f && v->steer_in <= 1.0f && v->throttle_in >= 0.0f &&
                    v->throttle_in <= 1.0f && v->brake_in >= 0.0f && v->brake_in <= 1.0f));
  for (int k = 0; k < v->wheel_count && !c->err; ++k) arb__wheel_fields(c, &v->wheels[k]);
}

static void arb__particle_fields(arb_codec* c, arb__particle* p) {
  ARB_CODEC_VEC2S(c, &p->p, &p->prev);
  ARB_CODEC_F32S(c, &p->inv_mass, &p->mass, &p->radius, &p->damping);
  arb_codec_u32(c, &p->mask_bits);
  ARB_CODEC_CHECK(c, c->err || (p->inv_mass >= 0.0f && p->mass > 0.0f && p->radius >= 0.0f &&
                                p->radius <= 1.0e3f && p->damping >= 0.0f));
}

static void arb__constraint_fields(arb_codec* c, arb__constraint* k, int particles) {
  arb_codec_i32(c, &k->a);
  arb_codec_i32(c, &k->b);
  ARB_CODEC_F32S(c, &k->rest, &k->stiffness);
  ARB_CODEC_CHECK(c, c->err || (k->a >= 0 && k->b >= 0 && k->a < particles && k->b < particles &&
                                k->a != k->b && k->rest >= 0.0f && k->stiffness > 0.0f &&
                                k->stiffness <= 1.0f));
}

// One array of records: its count (elements of at least min_bytes), then each record.
// Reading allocates the array and sets count and capacity to n.
#define ARB__X_LIST(c, w, arr, count, cap, min_bytes, VISIT)                  \
  do {                                                                        \
    arb_codec_count((c), &(count), ARB__MAX_EXTRAS, (min_bytes));             \
    if (arb_codec_reading(c)) {                                               \
      (arr) = arb__x_alloc((c), (w), (count), sizeof *(arr));                 \
      (count) = (cap) = (c)->err ? 0 : (count);                               \
    }                                                                         \
    for (int i_ = 0; i_ < (count) && !(c)->err; ++i_) VISIT((c), &(arr)[i_]); \
  } while (0)

#define ARB__X_CONSTRAINT(c, k) arb__constraint_fields((c), (k), x->particle_count)

void arb__extras_codec(arb_codec* c, arb_world* w, arb__extras** xp) {
  if (arb_codec_reading(c)) {
    *xp = NULL;
    if (arb_codec_left(c) == 0 || c->err) return;
    *xp = arb__alloc(w, sizeof **xp);
    if (!*xp) {
      arb_codec_fail(c, ARB_E_NOMEM);
      return;
    }
    memset(*xp, 0, sizeof **xp);
  } else if (arb__extras_empty(*xp)) {
    return;
  }
  arb__extras* x = *xp;
  uint32_t tag = ARB__EXTRAS_TAG;
  arb_codec_u32(c, &tag);
  ARB_CODEC_CHECK(c, tag == ARB__EXTRAS_TAG);
  arb_codec_i32(c, &x->constraint_iterations);
  arb_codec_f32(c, &x->last_dt);
  ARB_CODEC_CHECK(c, c->err || (x->constraint_iterations >= 1 && x->constraint_iterations <= 256 &&
                                x->last_dt >= 0.0f));
  ARB__X_LIST(c, w, x->springs, x->spring_slots, x->spring_cap, 5, arb__spring_fields);
  ARB__X_LIST(c, w, x->joints, x->joint_slots, x->joint_cap, 5, arb__joint_fields);
  ARB__X_LIST(c, w, x->vehicles, x->vehicle_slots, x->vehicle_cap, 5, arb__vehicle_fields);
  ARB__X_LIST(c, w, x->particles, x->particle_count, x->particle_cap, 36, arb__particle_fields);
  ARB__X_LIST(c, w, x->constraints, x->constraint_count, x->constraint_cap, 16, ARB__X_CONSTRAINT);
  if (arb_codec_left(c) != 0) arb_codec_fail(c, ARB_E_CORRUPT);  // trailing bytes
}

void arb__extras_commit(arb_world* w, arb__extras* x) {
  arb__extras_free(w);
  w->extras = x;
}
