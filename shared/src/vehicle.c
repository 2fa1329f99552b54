// DETERMINISM-CRITICAL: vehicles (see vehicle.h). Vehicles run in slot order before the
// solver; each one solves its wheels in wheel order with a fixed iteration count on a
// local copy of the chassis velocity, then writes the resulting tyre forces into the
// chassis force accumulator at the wheel positions (the solver applies them as dt*F/m,
// which reproduces the local solve's velocity change).
//
// Per wheel, three bounded impulses (sequential impulses, accumulated over iterations):
//   axle:  brake + rolling resistance, pulls the spin towards 0, |J| <= torque*dt
//   tyre:  longitudinal slip (patch speed along the wheel minus spin*radius) -> 0 and
//          side slip -> 0, together clamped to the friction circle mu*N*dt (skid)
// The longitudinal tyre impulse acts on the chassis at the wheel and, reversed, on the
// wheel's spin (torque = impulse * radius), so a driven wheel pushes the car forward
// and a locked wheel drags it to a stop.
#include "extras.h"

#define ARB__VEHICLE_COOKIE 0x56454843  // "VEHC"
#define ARB__VEHICLE_ITERATIONS 4

arb_vehicle_def arb_default_vehicle_def(void) {
  arb_vehicle_def d;
  memset(&d, 0, sizeof d);
  d.wheel_count = 4;
  const float hx = 1.3f, hy = 0.8f;
  const float xs[4] = {hx, hx, -hx, -hx}, ys[4] = {hy, -hy, hy, -hy};
  for (int i = 0; i < 4; ++i) {
    arb_wheel_def* wd = &d.wheels[i];
    wd->offset = arb_v2(xs[i], ys[i]);
    wd->radius = 0.35f;
    wd->inertia = 1.2f;
    wd->steerable = i < 2;
    wd->driven = i >= 2;
    wd->drive_torque = wd->driven ? 700.0f : 0.0f;
    wd->brake_torque = 2500.0f;
  }
  d.max_steer_angle = 0.6f;
  d.friction = 1.0f;
  d.ground_gravity = 9.81f;
  d.rolling_resistance = 0.03f;
  d.drag = 4.0f;
  d.internal_value = ARB__VEHICLE_COOKIE;
  return d;
}

static bool arb__wheel_ok(const arb_wheel_def* wd) {
  if (!arb_vec2_is_valid(wd->offset) || arb_absf(wd->offset.x) > 1.0e3f ||
      arb_absf(wd->offset.y) > 1.0e3f) {
    return false;
  }
  float f[] = {wd->radius, wd->inertia, wd->drive_torque, wd->brake_torque};
  for (int i = 0; i < 4; ++i) {
    if (!arb_is_valid_float(f[i]) || f[i] < 0.0f || f[i] > 1.0e7f) return false;
  }
  return wd->radius > 0.0f && wd->inertia > 0.0f;
}

static bool arb__vehicle_def_ok(const arb_world* w, const arb_vehicle_def* d) {
  if (d->internal_value != ARB__VEHICLE_COOKIE) return false;
  int slot = arb__body_slot(w, d->chassis);
  if (slot < 0 || w->sims[slot].type != ARB_BODY_DYNAMIC) return false;
  if (d->wheel_count < 1 || d->wheel_count > ARB_VEHICLE_MAX_WHEELS) return false;
  for (int i = 0; i < d->wheel_count; ++i) {
    if (!arb__wheel_ok(&d->wheels[i])) return false;
  }
  float f[] = {d->max_steer_angle, d->friction, d->ground_gravity, d->rolling_resistance, d->drag};
  for (int i = 0; i < 5; ++i) {
    if (!arb_is_valid_float(f[i]) || f[i] < 0.0f || f[i] > 1.0e4f) return false;
  }
  return d->max_steer_angle <= 1.2f && d->friction > 0.0f && d->ground_gravity > 0.0f;
}

static void arb__vehicle_destroyed(arb_world* w, const arb__vehicle* v) {
  arb__wake_ids(w, v->chassis, arb_null_body_id);  // no longer driven
}
ARB__EXTRA_LOOKUPS(arb__vehicle, vehicle, vehicles, vehicle_slots, vehicle_cap, vehicle_free)

// Fills a claimed vehicle from its def.
static void arb__vehicle_created(arb_world* w, arb__vehicle* v, const arb_vehicle_def* def) {
  v->chassis = def->chassis;
  arb__wake_ids(w, def->chassis, arb_null_body_id);
  v->wheel_count = def->wheel_count;
  v->max_steer = def->max_steer_angle;
  v->friction = def->friction;
  v->ground_gravity = def->ground_gravity;
  v->rolling = def->rolling_resistance;
  v->drag = def->drag;
  for (int i = 0; i < def->wheel_count; ++i) {
    v->wheels[i].def = def->wheels[i];
    // Flags are stored as exactly 0 or 1 (they are hashed byte-wise).
    v->wheels[i].def.steerable = def->wheels[i].steerable ? 1 : 0;
    v->wheels[i].def.driven = def->wheels[i].driven ? 1 : 0;
  }
}
ARB__EXTRA_CREATE(arb__vehicle, vehicle, ARB__VEHICLE_COOKIE)

static float arb__clamp_input(float v, float lo, float hi) {
  if (!arb_is_valid_float(v)) return 0.0f;
  v = arb_clampf(v, lo, hi);
  return v == 0.0f ? 0.0f : v;  // -0 -> +0: the hash sees one zero
}

int arb_vehicle_set_input(arb_world* w, arb_extra_id id, float steer, float throttle, float brake) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  arb__vehicle* v = arb__vehicle_get(w, id);
  if (!v) return ARB_E_STALE_ID;
  v->steer_in = arb__clamp_input(steer, -1.0f, 1.0f);
  v->throttle_in = arb__clamp_input(throttle, 0.0f, 1.0f);
  v->brake_in = arb__clamp_input(brake, 0.0f, 1.0f);
  if (v->steer_in != 0.0f || v->throttle_in != 0.0f || v->brake_in != 0.0f) {
    arb__wake_ids(w, v->chassis, arb_null_body_id);  // a driver's input wakes the car
  }
  return 0;
}

arb_body_id arb_vehicle_get_chassis(const arb_world* w, arb_extra_id id) {
  const arb__vehicle* v = arb__vehicle_get(w, id);
  return v ? v->chassis : arb_null_body_id;
}

int arb_vehicle_get_wheel_count(const arb_world* w, arb_extra_id id) {
  const arb__vehicle* v = arb__vehicle_get(w, id);
  return v ? v->wheel_count : 0;
}

static const arb__wheel* arb__wheel_get(const arb_world* w, arb_extra_id id, int i) {
  const arb__vehicle* v = arb__vehicle_get(w, id);
  return v && i >= 0 && i < v->wheel_count ? &v->wheels[i] : NULL;
}

float arb_vehicle_get_wheel_spin(const arb_world* w, arb_extra_id id, int i) {
  const arb__wheel* wh = arb__wheel_get(w, id, i);
  return wh ? wh->spin : 0.0f;
}

float arb_vehicle_get_wheel_radius(const arb_world* w, arb_extra_id id, int i) {
  const arb__wheel* wh = arb__wheel_get(w, id, i);
  return wh ? wh->def.radius : 0.0f;
}

arb_vec2 arb_vehicle_get_wheel_offset(const arb_world* w, arb_extra_id id, int i) {
  const arb__wheel* wh = arb__wheel_get(w, id, i);
  return wh ? wh->def.offset : arb_vec2_zero;
}

float arb_vehicle_get_steer_angle(const arb_world* w, arb_extra_id id, int i) {
  const arb__wheel* wh = arb__wheel_get(w, id, i);
  return wh ? wh->steer : 0.0f;
}

bool arb_vehicle_is_wheel_skidding(const arb_world* w, arb_extra_id id, int i) {
  const arb__wheel* wh = arb__wheel_get(w, id, i);
  return wh && wh->skid;
}

arb_transform arb_vehicle_get_wheel_transform(const arb_world* w, arb_extra_id id, int i) {
  arb_transform t = {arb_vec2_zero, arb_rot_identity};
  const arb__wheel* wh = arb__wheel_get(w, id, i);
  const arb__vehicle* v = arb__vehicle_get(w, id);
  int slot = v ? arb__body_slot(w, v->chassis) : -1;
  if (!wh || slot < 0) return t;
  const arb__body* b = &w->bodies[slot];
  t.p = arb_transform_point(b->xf, wh->def.offset);
  t.q = arb_rot_mul(b->xf.q, arb_rot_from_angle(wh->steer));
  return t;
}

float arb_vehicle_get_forward_speed(const arb_world* w, arb_extra_id id) {
  const arb__vehicle* v = arb__vehicle_get(w, id);
  int slot = v ? arb__body_slot(w, v->chassis) : -1;
  if (slot < 0) return 0.0f;
  return arb_dot(w->states[slot].v, arb_rotate(w->bodies[slot].xf.q, arb_v2(1.0f, 0.0f)));
}

arb_extra_id arb_vehicle_find_by_chassis(const arb_world* w, arb_body_id chassis) {
  ARB__CHECK_WORLD(w);
  arb_extra_id id = {0, 0};
  const arb__extras* x = w ? w->extras : NULL;
  for (int i = 0; x && i < x->vehicle_slots; ++i) {  // DET: slot order
    const arb__vehicle* v = &x->vehicles[i];
    if (v->in_use && arb_body_id_equals(v->chassis, chassis)) {
      id.index1 = i + 1;
      id.generation = v->generation;
      return id;
    }
  }
  return id;
}

int arb_world_get_vehicles(const arb_world* w, arb_extra_id* out, int cap) {
  ARB__CHECK_WORLD(w);
  return arb__vehicle_ids(w, out, cap);
}

// ---- step -------------------------------------------------------------------------------

typedef struct arb__wheel_work {
  arb_vec2 r, fwd, side;  // arm from the centre of mass, wheel axes (world)
  float acc_long, acc_side, acc_axle;
  float axle_max, k_long, k_side;
} arb__wheel_work;

static void arb__vehicle_step(arb_world* w, arb__vehicle* veh, float dt) {
  int slot = arb__body_slot(w, veh->chassis);
  if (slot < 0 || w->sims[slot].type != ARB_BODY_DYNAMIC || w->bodies[slot].sleeping) return;
  arb__body* b = &w->bodies[slot];
  const arb__body_sim* sim = &w->sims[slot];
  const arb__body_state* st = &w->states[slot];
  const float inv_m = sim->inv_mass, inv_i = sim->inv_inertia;
  const int n = veh->wheel_count;
  const float load = b->mass * veh->ground_gravity / (float)n;  // N per wheel
  const float max_j = veh->friction * load * dt;
  arb_vec2 v = st->v;
  float av = st->w;
  // Drag on the chassis (quadratic in speed; gives the top speed).
  arb_vec2 drag_j = arb_scale(-veh->drag * arb_length(v) * dt, v);
  v = arb_mul_add(v, inv_m, drag_j);
  arb_vec2 force = arb_scale(1.0f / dt, drag_j);
  float torque = 0.0f;
  arb__wheel_work work[ARB_VEHICLE_MAX_WHEELS];
  for (int i = 0; i < n; ++i) {
    arb__wheel* wh = &veh->wheels[i];
    const arb_wheel_def* wd = &wh->def;
    arb__wheel_work* k = &work[i];
    wh->steer = wd->steerable ? veh->steer_in * veh->max_steer : 0.0f;
    arb_rot q = arb_rot_mul(b->xf.q, arb_rot_from_angle(wh->steer));
    k->fwd = arb_rotate(q, arb_v2(1.0f, 0.0f));
    k->side = arb_left_perp(k->fwd);
    k->r = arb_rotate(b->xf.q, arb_sub(wd->offset, b->local_center));
    float cl = arb_cross(k->r, k->fwd), cs = arb_cross(k->r, k->side);
    k->k_long = inv_m + inv_i * cl * cl + wd->radius * wd->radius / wd->inertia;
    k->k_side = inv_m + inv_i * cs * cs;
    k->acc_long = k->acc_side = k->acc_axle = 0.0f;
    k->axle_max = (veh->brake_in * wd->brake_torque + veh->rolling * load * wd->radius) * dt;
    if (wd->driven) wh->spin += veh->throttle_in * wd->drive_torque * dt / wd->inertia;
    wh->skid = 0;
  }
  for (int it = 0; it < ARB__VEHICLE_ITERATIONS; ++it) {
    for (int i = 0; i < n; ++i) {  // DET: wheel order
      arb__wheel* wh = &veh->wheels[i];
      const arb_wheel_def* wd = &wh->def;
      arb__wheel_work* k = &work[i];
      // Axle: brake and rolling resistance stop the spin, up to their torque.
      if (k->axle_max > 0.0f) {
        float acc = arb_clampf(k->acc_axle - wh->spin * wd->inertia, -k->axle_max, k->axle_max);
        wh->spin += (acc - k->acc_axle) / wd->inertia;
        k->acc_axle = acc;
      }
      // Tyre: contact-patch velocity (the ground is at rest) against the wheel surface.
      arb_vec2 vp = arb_add(v, arb_cross_sv(av, k->r));
      float slip = arb_dot(vp, k->fwd) - wh->spin * wd->radius;
      float side = arb_dot(vp, k->side);
      float jl = k->acc_long - slip / k->k_long;
      float js = k->acc_side - side / k->k_side;
      float mag = sqrtf(jl * jl + js * js);
      wh->skid = 0;
      if (mag > max_j) {  // friction circle: the tyre slides
        float s = max_j / mag;
        jl *= s;
        js *= s;
        wh->skid = 1;
      }
      float dl = jl - k->acc_long, ds = js - k->acc_side;
      k->acc_long = jl;
      k->acc_side = js;
      arb_vec2 P = arb_add(arb_scale(dl, k->fwd), arb_scale(ds, k->side));
      v = arb_mul_add(v, inv_m, P);
      av += inv_i * arb_cross(k->r, P);
      wh->spin -= dl * wd->radius / wd->inertia;
    }
  }
  for (int i = 0; i < n; ++i) {
    const arb__wheel_work* k = &work[i];
    arb_vec2 P = arb_add(arb_scale(k->acc_long, k->fwd), arb_scale(k->acc_side, k->side));
    force = arb_mul_add(force, 1.0f / dt, P);
    torque += arb_cross(k->r, P) / dt;
  }
  b->force = arb_add(b->force, force);
  b->torque += torque;
  // Held input or a spinning wheel keeps the car awake (the chassis alone may be at rest).
  bool busy = veh->steer_in != 0.0f || veh->throttle_in != 0.0f || veh->brake_in != 0.0f;
  for (int i = 0; i < n && !busy; ++i) {
    busy = arb_absf(veh->wheels[i].spin) * veh->wheels[i].def.radius > b->sleep_threshold;
  }
  if (busy) b->sleep_veto = 1;
}

void arb__vehicles_apply(arb_world* w, float dt) {
  arb__extras* x = w->extras;
  for (int i = 0; i < x->vehicle_slots; ++i) {  // DET: slot order
    if (x->vehicles[i].in_use) arb__vehicle_step(w, &x->vehicles[i], dt);
  }
}
