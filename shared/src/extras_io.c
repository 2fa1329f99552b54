// DETERMINISM-CRITICAL: canonical serialization of the physics extras (hash and image)
// and their checked restore.
//
// Section layout (little-endian, after the contacts of the world image; absent when the
// world has no extras, so such worlds hash and save exactly as without this module):
//   u32 tag 'XTRA' (0x41525458), i32 constraint_iterations, f32 last_dt
//   i32 spring_slots; per slot: u32 generation, u8 in_use; live: body_a, body_b
//     (i32 index1, u32 generation each), vec2 local_a, local_b, f32 rest, k, c
//   i32 joint_slots; per slot: u32 generation, u8 in_use; live: u8 type, body_a, body_b,
//     vec2 local_a, local_b, f32 length, hertz, damping_ratio, vec2 impulse
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
// Largest record: a vehicle with 8 wheels (~330 bytes).
#define ARB__X_RECORD 512

static void arb__w_id(arb__writer* wr, arb_body_id id) {
  arb__w_i32(wr, id.index1);
  arb__w_u32(wr, id.generation);
}

void arb__extras_serialize(const arb_world* w, arb__writer* wr) {
  const arb__extras* x = w->extras;
  if (arb__extras_empty(x)) return;
  arb__w_reserve(wr, ARB__X_RECORD);
  arb__w_u32(wr, ARB__EXTRAS_TAG);
  arb__w_i32(wr, x->constraint_iterations);
  arb__w_f32(wr, x->last_dt);
  arb__w_i32(wr, x->spring_slots);
  for (int i = 0; i < x->spring_slots; ++i) {
    const arb__spring* s = &x->springs[i];
    arb__w_reserve(wr, ARB__X_RECORD);
    arb__w_u32(wr, s->generation);
    arb__w_u8(wr, s->in_use);
    if (!s->in_use) continue;
    arb__w_id(wr, s->body_a);
    arb__w_id(wr, s->body_b);
    arb__w_vec2(wr, s->local_a);
    arb__w_vec2(wr, s->local_b);
    arb__w_f32(wr, s->rest_length);
    arb__w_f32(wr, s->stiffness);
    arb__w_f32(wr, s->damping);
  }
  arb__w_reserve(wr, ARB__X_RECORD);
  arb__w_i32(wr, x->joint_slots);
  for (int i = 0; i < x->joint_slots; ++i) {
    const arb__joint* j = &x->joints[i];
    arb__w_reserve(wr, ARB__X_RECORD);
    arb__w_u32(wr, j->generation);
    arb__w_u8(wr, j->in_use);
    if (!j->in_use) continue;
    arb__w_u8(wr, j->type);
    arb__w_id(wr, j->body_a);
    arb__w_id(wr, j->body_b);
    arb__w_vec2(wr, j->local_a);
    arb__w_vec2(wr, j->local_b);
    arb__w_f32(wr, j->length);
    arb__w_f32(wr, j->hertz);
    arb__w_f32(wr, j->damping_ratio);
    arb__w_vec2(wr, j->impulse);
  }
  arb__w_reserve(wr, ARB__X_RECORD);
  arb__w_i32(wr, x->vehicle_slots);
  for (int i = 0; i < x->vehicle_slots; ++i) {
    const arb__vehicle* v = &x->vehicles[i];
    arb__w_reserve(wr, ARB__X_RECORD);
    arb__w_u32(wr, v->generation);
    arb__w_u8(wr, v->in_use);
    if (!v->in_use) continue;
    arb__w_id(wr, v->chassis);
    arb__w_i32(wr, v->wheel_count);
    const float f[] = {v->max_steer, v->friction, v->ground_gravity, v->rolling,
                       v->drag,      v->steer_in, v->throttle_in,    v->brake_in};
    for (int k = 0; k < 8; ++k) arb__w_f32(wr, f[k]);
    for (int k = 0; k < v->wheel_count; ++k) {
      const arb__wheel* wh = &v->wheels[k];
      arb__w_vec2(wr, wh->def.offset);
      arb__w_f32(wr, wh->def.radius);
      arb__w_f32(wr, wh->def.inertia);
      arb__w_u8(wr, wh->def.steerable ? 1 : 0);
      arb__w_u8(wr, wh->def.driven ? 1 : 0);
      arb__w_f32(wr, wh->def.drive_torque);
      arb__w_f32(wr, wh->def.brake_torque);
      arb__w_f32(wr, wh->spin);
      arb__w_f32(wr, wh->steer);
      arb__w_u8(wr, wh->skid);
    }
  }
  arb__w_reserve(wr, ARB__X_RECORD);
  arb__w_i32(wr, x->particle_count);
  for (int i = 0; i < x->particle_count; ++i) {
    const arb__particle* p = &x->particles[i];
    arb__w_reserve(wr, ARB__X_RECORD);
    arb__w_vec2(wr, p->p);
    arb__w_vec2(wr, p->prev);
    arb__w_f32(wr, p->inv_mass);
    arb__w_f32(wr, p->mass);
    arb__w_f32(wr, p->radius);
    arb__w_f32(wr, p->damping);
    arb__w_u32(wr, p->mask_bits);
  }
  arb__w_reserve(wr, ARB__X_RECORD);
  arb__w_i32(wr, x->constraint_count);
  for (int i = 0; i < x->constraint_count; ++i) {
    const arb__constraint* c = &x->constraints[i];
    arb__w_reserve(wr, ARB__X_RECORD);
    arb__w_i32(wr, c->a);
    arb__w_i32(wr, c->b);
    arb__w_f32(wr, c->rest);
    arb__w_f32(wr, c->stiffness);
  }
}

// ---- reader -----------------------------------------------------------------------------

typedef struct arb__xr {
  const uint8_t* p;
  size_t len, pos;
  int err;
} arb__xr;

static void arb__xr_fail(arb__xr* r, int err) {
  if (!r->err) r->err = err;
}
static bool arb__xr_need(arb__xr* r, size_t n) {
  if (r->err) return false;
  if (r->len - r->pos < n) {
    r->err = ARB_E_TRUNCATED;
    return false;
  }
  return true;
}
static uint8_t arb__xr_u8(arb__xr* r) {
  return arb__xr_need(r, 1) ? r->p[r->pos++] : 0;
}
static uint32_t arb__xr_u32(arb__xr* r) {
  if (!arb__xr_need(r, 4)) return 0;
  const uint8_t* b = r->p + r->pos;
  r->pos += 4;
  return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
static int32_t arb__xr_i32(arb__xr* r) {
  return (int32_t)arb__xr_u32(r);
}
static float arb__xr_f32(arb__xr* r) {
  uint32_t bits = arb__xr_u32(r);
  float f;
  memcpy(&f, &bits, 4);
  if (!r->err && !arb_is_valid_float(f)) r->err = ARB_E_NONFINITE;
  return r->err ? 0.0f : f;
}
static arb_vec2 arb__xr_vec2(arb__xr* r) {
  arb_vec2 v;
  v.x = arb__xr_f32(r);
  v.y = arb__xr_f32(r);
  return v;
}
static arb_body_id arb__xr_id(arb__xr* r) {
  arb_body_id id;
  id.index1 = arb__xr_i32(r);
  id.generation = arb__xr_u32(r);
  if (id.index1 < 0) arb__xr_fail(r, ARB_E_CORRUPT);
  return id;
}
static bool arb__xr_flag(arb__xr* r) {
  uint8_t v = arb__xr_u8(r);
  if (v > 1) arb__xr_fail(r, ARB_E_CORRUPT);
  return v == 1;
}
// A count of items of at least `min_size` bytes each, bounded by the bytes left.
static int arb__xr_count(arb__xr* r, size_t min_size) {
  int32_t n = arb__xr_i32(r);
  if (r->err) return 0;
  if (n < 0 || n > ARB__MAX_EXTRAS || (size_t)n * min_size > r->len - r->pos) {
    arb__xr_fail(r, ARB_E_TOO_BIG);
    return 0;
  }
  return n;
}
static void* arb__xr_array(arb_world* w, arb__xr* r, int n, size_t elem) {
  if (r->err || n == 0) return NULL;
  void* p = arb__alloc(w, (size_t)n * elem);
  if (!p) {
    arb__xr_fail(r, ARB_E_NOMEM);
    return NULL;
  }
  memset(p, 0, (size_t)n * elem);
  return p;
}
static bool arb__nonneg_f(float f) {
  return f >= 0.0f;
}

static void arb__read_springs(arb_world* w, arb__xr* r, arb__extras* x) {
  int n = arb__xr_count(r, 5);
  x->springs = arb__xr_array(w, r, n, sizeof *x->springs);
  if (r->err) return;
  x->spring_slots = x->spring_cap = n;
  for (int i = 0; i < n && !r->err; ++i) {
    arb__spring* s = &x->springs[i];
    s->generation = arb__xr_u32(r);
    s->in_use = arb__xr_flag(r);
    if (s->generation == 0) arb__xr_fail(r, ARB_E_CORRUPT);
    if (!s->in_use) continue;
    s->body_a = arb__xr_id(r);
    s->body_b = arb__xr_id(r);
    s->local_a = arb__xr_vec2(r);
    s->local_b = arb__xr_vec2(r);
    s->rest_length = arb__xr_f32(r);
    s->stiffness = arb__xr_f32(r);
    s->damping = arb__xr_f32(r);
    if (!arb__nonneg_f(s->rest_length) || !arb__nonneg_f(s->stiffness) ||
        !arb__nonneg_f(s->damping)) {
      arb__xr_fail(r, ARB_E_CORRUPT);
    }
  }
}

static void arb__read_joints(arb_world* w, arb__xr* r, arb__extras* x) {
  int n = arb__xr_count(r, 5);
  x->joints = arb__xr_array(w, r, n, sizeof *x->joints);
  if (r->err) return;
  x->joint_slots = x->joint_cap = n;
  for (int i = 0; i < n && !r->err; ++i) {
    arb__joint* j = &x->joints[i];
    j->generation = arb__xr_u32(r);
    j->in_use = arb__xr_flag(r);
    j->ia = j->ib = -1;
    if (j->generation == 0) arb__xr_fail(r, ARB_E_CORRUPT);
    if (!j->in_use) continue;
    j->type = arb__xr_u8(r);
    j->body_a = arb__xr_id(r);
    j->body_b = arb__xr_id(r);
    j->local_a = arb__xr_vec2(r);
    j->local_b = arb__xr_vec2(r);
    j->length = arb__xr_f32(r);
    j->hertz = arb__xr_f32(r);
    j->damping_ratio = arb__xr_f32(r);
    j->impulse = arb__xr_vec2(r);
    if (j->type <= ARB_JOINT_NONE || j->type >= ARB_JOINT_TYPE_COUNT || j->length < 0.0f ||
        j->hertz < 0.0f || j->hertz > 1.0e4f || j->damping_ratio < 0.0f) {
      arb__xr_fail(r, ARB_E_CORRUPT);
    }
  }
}

static void arb__read_vehicles(arb_world* w, arb__xr* r, arb__extras* x) {
  int n = arb__xr_count(r, 5);
  x->vehicles = arb__xr_array(w, r, n, sizeof *x->vehicles);
  if (r->err) return;
  x->vehicle_slots = x->vehicle_cap = n;
  for (int i = 0; i < n && !r->err; ++i) {
    arb__vehicle* v = &x->vehicles[i];
    v->generation = arb__xr_u32(r);
    v->in_use = arb__xr_flag(r);
    if (v->generation == 0) arb__xr_fail(r, ARB_E_CORRUPT);
    if (!v->in_use) continue;
    v->chassis = arb__xr_id(r);
    v->wheel_count = arb__xr_i32(r);
    if (r->err || v->wheel_count < 1 || v->wheel_count > ARB_VEHICLE_MAX_WHEELS) {
      arb__xr_fail(r, ARB_E_CORRUPT);
      return;
    }
    float* f[] = {&v->max_steer, &v->friction, &v->ground_gravity, &v->rolling,
                  &v->drag,      &v->steer_in, &v->throttle_in,    &v->brake_in};
    for (int k = 0; k < 8; ++k) *f[k] = arb__xr_f32(r);
    bool ok = v->max_steer >= 0.0f && v->max_steer <= 1.2f && v->friction > 0.0f &&
              v->ground_gravity > 0.0f && v->rolling >= 0.0f && v->drag >= 0.0f &&
              v->steer_in >= -1.0f && v->steer_in <= 1.0f && v->throttle_in >= 0.0f &&
              v->throttle_in <= 1.0f && v->brake_in >= 0.0f && v->brake_in <= 1.0f;
    for (int k = 0; k < v->wheel_count && !r->err; ++k) {
      arb__wheel* wh = &v->wheels[k];
      wh->def.offset = arb__xr_vec2(r);
      wh->def.radius = arb__xr_f32(r);
      wh->def.inertia = arb__xr_f32(r);
      wh->def.steerable = arb__xr_flag(r);
      wh->def.driven = arb__xr_flag(r);
      wh->def.drive_torque = arb__xr_f32(r);
      wh->def.brake_torque = arb__xr_f32(r);
      wh->spin = arb__xr_f32(r);
      wh->steer = arb__xr_f32(r);
      wh->skid = arb__xr_flag(r) ? 1 : 0;
      ok = ok && wh->def.radius > 0.0f && wh->def.inertia > 0.0f && wh->def.drive_torque >= 0.0f &&
           wh->def.brake_torque >= 0.0f;
    }
    if (!ok) arb__xr_fail(r, ARB_E_CORRUPT);
  }
}

static void arb__read_particles(arb_world* w, arb__xr* r, arb__extras* x) {
  int n = arb__xr_count(r, 36);
  x->particles = arb__xr_array(w, r, n, sizeof *x->particles);
  if (r->err) return;
  x->particle_count = x->particle_cap = n;
  for (int i = 0; i < n && !r->err; ++i) {
    arb__particle* p = &x->particles[i];
    p->p = arb__xr_vec2(r);
    p->prev = arb__xr_vec2(r);
    p->inv_mass = arb__xr_f32(r);
    p->mass = arb__xr_f32(r);
    p->radius = arb__xr_f32(r);
    p->damping = arb__xr_f32(r);
    p->mask_bits = arb__xr_u32(r);
    if (p->inv_mass < 0.0f || !(p->mass > 0.0f) || p->radius < 0.0f || p->radius > 1.0e3f ||
        p->damping < 0.0f) {
      arb__xr_fail(r, ARB_E_CORRUPT);
    }
  }
  int m = arb__xr_count(r, 16);
  x->constraints = arb__xr_array(w, r, m, sizeof *x->constraints);
  if (r->err) return;
  x->constraint_count = x->constraint_cap = m;
  for (int i = 0; i < m && !r->err; ++i) {
    arb__constraint* c = &x->constraints[i];
    c->a = arb__xr_i32(r);
    c->b = arb__xr_i32(r);
    c->rest = arb__xr_f32(r);
    c->stiffness = arb__xr_f32(r);
    if (c->a < 0 || c->b < 0 || c->a >= n || c->b >= n || c->a == c->b || c->rest < 0.0f ||
        !(c->stiffness > 0.0f) || c->stiffness > 1.0f) {
      arb__xr_fail(r, ARB_E_CORRUPT);
    }
  }
}

int arb__extras_read(arb_world* w, const uint8_t* p, size_t len, arb__extras** out) {
  *out = NULL;
  if (len == 0) return 0;
  arb__xr r = {p, len, 0, 0};
  if (arb__xr_u32(&r) != ARB__EXTRAS_TAG) return r.err ? r.err : ARB_E_CORRUPT;
  arb__extras* x = arb__alloc(w, sizeof *x);
  if (!x) return ARB_E_NOMEM;
  memset(x, 0, sizeof *x);
  x->constraint_iterations = arb__xr_i32(&r);
  x->last_dt = arb__xr_f32(&r);
  if (!r.err &&
      (x->constraint_iterations < 1 || x->constraint_iterations > 256 || x->last_dt < 0.0f)) {
    arb__xr_fail(&r, ARB_E_CORRUPT);
  }
  arb__read_springs(w, &r, x);
  arb__read_joints(w, &r, x);
  arb__read_vehicles(w, &r, x);
  arb__read_particles(w, &r, x);
  if (!r.err && r.pos != r.len) r.err = ARB_E_CORRUPT;  // trailing bytes
  if (r.err) {
    arb__extras_release(w, x);
    return r.err;
  }
  *out = x;
  return 0;
}

void arb__extras_commit(arb_world* w, arb__extras* x) {
  arb__extras_free(w);
  w->extras = x;
}
