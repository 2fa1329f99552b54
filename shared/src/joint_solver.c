// DETERMINISM-CRITICAL: joints inside the soft-step substep loop of contact_solver.c.
//
// Same scheme as the contacts (and Box2D v3): prepare once per step (anchors relative to
// the centres of mass, in world axes at step start), then per substep warm start with
// the accumulated impulse, solve with a soft bias computed from the current separation
// (substep deltas dp/dq, so no transform is rebuilt), and relax without bias after the
// positions moved. Joints are solved before contacts in joint slot order: contacts are
// the hard limits and get the last word. Rigid joints use twice the contact stiffness
// with damping ratio 2 (stiff, never springy); a soft distance joint uses its own
// frequency and damping ratio in both passes. The accumulated impulse is state (hashed
// and saved) so warm starting survives save/restore.
#include "extras.h"
#include "softness.h"

// A body as the joint solver sees it: its live state, or a fixed stand-in.
typedef struct arb__jbody {
  arb__body_state* st;  // NULL: fixed (world, static, stale)
  arb_vec2 v, dp;
  float w;
  arb_rot dq;
} arb__jbody;

static arb__jbody arb__jload(arb_world* w, int slot) {
  arb__jbody b;
  memset(&b, 0, sizeof b);
  b.dq = arb_rot_identity;
  if (slot >= 0) {
    b.st = &w->states[slot];
    b.v = b.st->v;
    b.w = b.st->w;
    b.dp = b.st->dp;
    b.dq = b.st->dq;
  }
  return b;
}

static void arb__jstore(arb__jbody* b) {
  if (!b->st) return;
  b->st->v = b->v;
  b->st->w = b->w;
}

static float arb__unwind(float a) {
  if (a > ARB_PI) return a - 2.0f * ARB_PI;
  if (a < -ARB_PI) return a + 2.0f * ARB_PI;
  return a;
}

void arb__joints_prepare(arb_world* w, float dt, float h) {
  arb__extras* x = w->extras;
  if (!x || x->joint_slots == 0) return;
  float hertz = arb_minf(w->def.contact_hertz, 0.25f * (float)w->def.substeps / dt);
  arb__softness js = arb__make_softness(2.0f * hertz, 2.0f, h);
  x->joint_bias_rate = js.bias_rate;
  x->joint_mass_scale = js.mass_scale;
  x->joint_impulse_scale = js.impulse_scale;
  x->joint_max_push = w->def.max_contact_push_speed;
  for (int i = 0; i < x->joint_slots; ++i) {  // DET: slot order
    arb__joint* j = &x->joints[i];
    j->ia = j->ib = -1;
    j->ma = j->mb = j->iA = j->iB = 0.0f;
    j->active = 0;
    j->step_impulse = arb_vec2_zero;
    if (!j->in_use) continue;
    int a = arb__body_slot(w, j->body_a);
    int b = arb_body_id_is_null(j->body_b) ? -1 : arb__body_slot(w, j->body_b);
    if (a < 0 || (b < 0 && !arb_body_id_is_null(j->body_b))) continue;          // a body is gone
    if (!arb__body_awake(w, a) && (b < 0 || !arb__body_awake(w, b))) continue;  // asleep
    j->active = 1;
    const arb__body* A = &w->bodies[a];
    j->ra = arb_rotate(A->xf.q, arb_sub(j->local_a, A->local_center));
    arb_vec2 cb;
    arb_rot qb = arb_rot_identity;
    if (b >= 0) {
      const arb__body* B = &w->bodies[b];
      j->rb = arb_rotate(B->xf.q, arb_sub(j->local_b, B->local_center));
      cb = B->center;
      qb = B->xf.q;
    } else {
      j->rb = arb_vec2_zero;
      cb = j->local_b;
    }
    j->delta_center = arb_sub(cb, A->center);
    j->axis = arb_rotate(A->xf.q, j->local_axis);
    j->delta_angle = 0.0f;
    if (j->type != ARB_JOINT_DISTANCE && j->type != ARB_JOINT_MOUSE) {  // atan2 only when used
      j->delta_angle = arb__unwind(arb_rot_relative_angle(A->xf.q, qb) - j->reference_angle);
    }
    // Static bodies never move: they are solved as fixed points (no state is touched).
    if (w->sims[a].type != ARB_BODY_STATIC) {
      j->ia = a;
      j->ma = w->sims[a].inv_mass;
      j->iA = w->sims[a].inv_inertia;
    }
    if (b >= 0 && w->sims[b].type != ARB_BODY_STATIC) {
      j->ib = b;
      j->mb = w->sims[b].inv_mass;
      j->iB = w->sims[b].inv_inertia;
    }
  }
}

static inline bool arb__joint_active(const arb__joint* j) {
  return j->active && (j->ma + j->mb + j->iA + j->iB) > 0.0f;
}

// Separation vector B - A between the anchors, from the substep deltas.
static arb_vec2 arb__joint_delta(const arb__joint* j, const arb__jbody* A, const arb__jbody* B,
                                 arb_vec2* ra, arb_vec2* rb) {
  *ra = arb_rotate(A->dq, j->ra);
  *rb = arb_rotate(B->dq, j->rb);
  return arb_add(arb_add(arb_sub(B->dp, A->dp), j->delta_center), arb_sub(*rb, *ra));
}

static void arb__japply(arb__joint* j, arb__jbody* A, arb__jbody* B, arb_vec2 ra, arb_vec2 rb,
                        arb_vec2 P) {
  A->v = arb_mul_sub(A->v, j->ma, P);
  A->w -= j->iA * arb_cross(ra, P);
  B->v = arb_mul_add(B->v, j->mb, P);
  B->w += j->iB * arb_cross(rb, P);
  j->step_impulse = arb_add(j->step_impulse, P);
}

// ---- one-dimensional rows ---------------------------------------------------------------
//
// A row constrains one relative speed: n . (vB - vA) + a2 * wB - a1 * wA. An angular row has
// n = 0 and a1 = a2 = 1; an axis row has the axis as n and the lever arms' cross products.
// Limits, motors, springs and the prismatic/wheel/weld locks are all rows.
typedef struct arb__jrow {
  arb_vec2 n;
  float a1, a2;
  float mass;  // 1 / effective mass, 0 when nothing can move along the row
} arb__jrow;

// An axis row (n a unit vector) when linear is 1, an angular row when it is 0.
static arb__jrow arb__row(const arb__joint* j, arb_vec2 n, float a1, float a2, float linear) {
  arb__jrow r = {n, a1, a2, 0.0f};
  float k = linear * (j->ma + j->mb) + j->iA * a1 * a1 + j->iB * a2 * a2;
  r.mass = k > 0.0f ? 1.0f / k : 0.0f;
  return r;
}

static arb__jrow arb__angular_row(const arb__joint* j) {
  return arb__row(j, arb_vec2_zero, 1.0f, 1.0f, 0.0f);
}

static arb__jrow arb__row_neg(arb__jrow r) {
  r.n = arb_neg(r.n);
  r.a1 = -r.a1;
  r.a2 = -r.a2;
  return r;
}

static float arb__row_cdot(const arb__jrow* r, const arb__jbody* A, const arb__jbody* B) {
  return arb_dot(r->n, arb_sub(B->v, A->v)) + r->a2 * B->w - r->a1 * A->w;
}

static void arb__row_apply(arb__joint* j, const arb__jrow* r, arb__jbody* A, arb__jbody* B,
                           float imp) {
  A->v = arb_mul_sub(A->v, j->ma * imp, r->n);
  A->w -= j->iA * imp * r->a1;
  B->v = arb_mul_add(B->v, j->mb * imp, r->n);
  B->w += j->iB * imp * r->a2;
  j->step_impulse = arb_mul_add(j->step_impulse, imp, r->n);  // zero for an angular row
}

// Soft row towards C = 0 (a lock with the joint softness, or a spring with its own).
static void arb__row_soft(arb__joint* j, const arb__jrow* r, arb__jbody* A, arb__jbody* B,
                          float c, arb__softness s, float* acc) {
  float imp =
      -s.mass_scale * r->mass * (arb__row_cdot(r, A, B) + s.bias_rate * c) - s.impulse_scale * *acc;
  *acc += imp;
  arb__row_apply(j, r, A, B, imp);
}

// Motor: drive the row's speed to `speed` with an accumulated impulse within +-max_impulse.
static void arb__row_motor(arb__joint* j, const arb__jrow* r, arb__jbody* A, arb__jbody* B,
                           float speed, float max_impulse, float* acc) {
  float imp = -r->mass * (arb__row_cdot(r, A, B) - speed);
  float old = *acc;
  *acc = arb_clampf(old + imp, -max_impulse, max_impulse);
  arb__row_apply(j, r, A, B, *acc - old);
}

// One side of a limit: C >= 0 is allowed (approached speculatively at C / h), C < 0 is
// pushed back with the joint softness; the accumulated impulse only pushes.
static void arb__row_limit(const arb__extras* x, arb__joint* j, const arb__jrow* r,
                           arb__jbody* A, arb__jbody* B, float c, float h, bool use_bias,
                           float* acc) {
  float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
  if (c > 0.0f) {
    bias = c / h;
  } else if (use_bias) {
    bias = arb_maxf(x->joint_bias_rate * c, -x->joint_max_push);
    mass_scale = x->joint_mass_scale;
    impulse_scale = x->joint_impulse_scale;
  }
  float imp = -mass_scale * r->mass * (arb__row_cdot(r, A, B) + bias) - impulse_scale * *acc;
  float old = *acc;
  *acc = arb_maxf(old + imp, 0.0f);
  arb__row_apply(j, r, A, B, *acc - old);
}

static void arb__row_limits(const arb__extras* x, arb__joint* j, const arb__jrow* r,
                            arb__jbody* A, arb__jbody* B, float position, float h, bool use_bias,
                            arb__joint* acc) {
  arb__row_limit(x, j, r, A, B, position - j->lower, h, use_bias, &acc->lower_impulse);
  arb__jrow up = arb__row_neg(*r);
  arb__row_limit(x, j, &up, A, B, j->upper - position, h, use_bias, &acc->upper_impulse);
}

static arb__softness arb__lock_softness(const arb__extras* x, bool use_bias) {
  arb__softness s = {0.0f, 1.0f, 0.0f};
  if (use_bias) {
    s.bias_rate = x->joint_bias_rate;
    s.mass_scale = x->joint_mass_scale;
    s.impulse_scale = x->joint_impulse_scale;
  }
  return s;
}

// The joint's softness when hertz > 0 (soft weld, mouse, soft distance), else the lock's.
static arb__softness arb__own_softness(const arb__extras* x, const arb__joint* j, float h,
                                       bool use_bias) {
  return j->hertz > 0.0f ? arb__make_softness(j->hertz, j->damping_ratio, h)
                         : arb__lock_softness(x, use_bias);
}

// B's angle relative to A minus the reference angle, now.
static float arb__joint_angle(const arb__joint* j, const arb__jbody* A, const arb__jbody* B) {
  return j->delta_angle + arb_rot_relative_angle(A->dq, B->dq);
}

// The axis row of a prismatic or wheel joint and the translation along it.
static arb__jrow arb__axis_row(const arb__joint* j, const arb__jbody* A, const arb__jbody* B,
                               arb_vec2 n, float* translation) {
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(j, A, B, &ra, &rb);
  arb_vec2 axis = arb_rotate(A->dq, n);
  if (translation) *translation = arb_dot(axis, d);
  return arb__row(j, axis, arb_cross(arb_add(d, ra), axis), arb_cross(rb, axis), 1.0f);
}

// ---- the 2-D point constraint -------------------------------------------------------------

// Solves K * out = rhs for the point constraint's 2x2 mass matrix; false when singular.
static bool arb__point_solve(const arb__joint* j, arb_vec2 ra, arb_vec2 rb, arb_vec2 rhs,
                             arb_vec2* out) {
  float m = j->ma + j->mb;
  float k11 = m + ra.y * ra.y * j->iA + rb.y * rb.y * j->iB;
  float k12 = -ra.y * ra.x * j->iA - rb.y * rb.x * j->iB;
  float k22 = m + ra.x * ra.x * j->iA + rb.x * rb.x * j->iB;
  float det = k11 * k22 - k12 * k12;
  if (det == 0.0f) return false;
  det = 1.0f / det;
  *out = arb_v2(det * (k22 * rhs.x - k12 * rhs.y), det * (k11 * rhs.y - k12 * rhs.x));
  return true;
}

static arb_vec2 arb__point_cdot(const arb__jbody* A, const arb__jbody* B, arb_vec2 ra,
                                arb_vec2 rb) {
  return arb_sub(arb_add(B->v, arb_cross_sv(B->w, rb)), arb_add(A->v, arb_cross_sv(A->w, ra)));
}

// Soft point constraint; max_impulse > 0 caps the accumulated impulse's length.
static void arb__point_soft(arb__joint* j, arb__jbody* A, arb__jbody* B, arb__softness s,
                            float max_impulse) {
  arb_vec2 ra, rb, sol;
  arb_vec2 sep = arb__joint_delta(j, A, B, &ra, &rb);
  arb_vec2 bias = s.bias_rate != 0.0f ? arb_scale(s.bias_rate, sep) : arb_vec2_zero;
  arb_vec2 rhs = arb_add(arb__point_cdot(A, B, ra, rb), bias);
  if (!arb__point_solve(j, ra, rb, rhs, &sol)) return;
  arb_vec2 imp = arb_v2(-s.mass_scale * sol.x - s.impulse_scale * j->impulse.x,
                        -s.mass_scale * sol.y - s.impulse_scale * j->impulse.y);
  arb_vec2 old = j->impulse;
  j->impulse = arb_add(old, imp);
  if (max_impulse > 0.0f) {
    if (arb_length_sq(j->impulse) > max_impulse * max_impulse) {
      j->impulse = arb_scale(max_impulse / arb_length(j->impulse), j->impulse);
    }
    imp = arb_sub(j->impulse, old);
  }
  arb__japply(j, A, B, ra, rb, imp);
}

// ---- warm start -------------------------------------------------------------------------

static void arb__warm_start_joint(arb__joint* j, arb__jbody* A, arb__jbody* B) {
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(j, A, B, &ra, &rb);
  float limits = j->lower_impulse - j->upper_impulse;
  switch ((arb_joint_type)j->type) {
    case ARB_JOINT_DISTANCE: {
      float axial = j->impulse.x;
      if (j->flags & ARB__JOINT_LIMIT) axial += limits;
      arb__japply(j, A, B, ra, rb, arb_scale(axial, arb_normalize(d)));
      return;
    }
    case ARB_JOINT_PRISMATIC:
    case ARB_JOINT_WHEEL: {
      arb__jrow ax = arb__axis_row(j, A, B, j->axis, NULL);
      arb__jrow perp = arb__axis_row(j, A, B, arb_left_perp(j->axis), NULL);
      arb__jrow ang = arb__angular_row(j);
      bool prismatic = j->type == ARB_JOINT_PRISMATIC;
      float axial = j->spring_impulse + limits + (prismatic ? j->motor_impulse : 0.0f);
      arb__row_apply(j, &ax, A, B, axial);
      arb__row_apply(j, &perp, A, B, j->impulse.x);
      arb__row_apply(j, &ang, A, B, prismatic ? j->impulse.y : j->motor_impulse);
      return;
    }
    default: {  // point constraint plus an angular row
      arb__japply(j, A, B, ra, rb, j->impulse);
      if (j->type == ARB_JOINT_MOUSE || (j->type == ARB_JOINT_REVOLUTE && j->flags == 0)) return;
      arb__jrow ang = arb__angular_row(j);
      float angular = j->angular_impulse;
      if (j->type == ARB_JOINT_REVOLUTE) angular = j->spring_impulse + j->motor_impulse + limits;
      arb__row_apply(j, &ang, A, B, angular);
      return;
    }
  }
}

void arb__joints_warm_start(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x) return;
  for (int i = 0; i < x->joint_slots; ++i) {
    arb__joint* j = &x->joints[i];
    if (!arb__joint_active(j)) continue;
    arb__jbody A = arb__jload(w, j->ia), B = arb__jload(w, j->ib);
    arb__warm_start_joint(j, &A, &B);
    arb__jstore(&A);
    arb__jstore(&B);
  }
}

// ---- solve, per type --------------------------------------------------------------------

// The revolute's spring, motor and limit rows on the relative angle.
static void arb__revolute_rows(const arb__extras* x, arb__joint* j, arb__jbody* A, arb__jbody* B,
                               float h, bool use_bias) {
  arb__jrow ang = arb__angular_row(j);
  if (j->flags & ARB__JOINT_SPRING) {
    arb__softness s = arb__make_softness(j->hertz, j->damping_ratio, h);
    arb__row_soft(j, &ang, A, B, arb__joint_angle(j, A, B), s, &j->spring_impulse);
  }
  if (j->flags & ARB__JOINT_MOTOR) {
    arb__row_motor(j, &ang, A, B, j->motor_speed, j->max_motor * h, &j->motor_impulse);
  }
  if (j->flags & ARB__JOINT_LIMIT) {
    arb__row_limits(x, j, &ang, A, B, arb__joint_angle(j, A, B), h, use_bias, j);
  }
}

static void arb__solve_revolute(const arb__extras* x, arb__joint* j, arb__jbody* A, arb__jbody* B,
                                float h, bool use_bias) {
  if (j->flags) arb__revolute_rows(x, j, A, B, h, use_bias);
  arb__point_soft(j, A, B, arb__lock_softness(x, use_bias), 0.0f);
}

// The prismatic's perpendicular and angular rows as one 2x2 block: solved one after the
// other, the angular row undoes the torque of the perpendicular row's lever arm and the
// body settles off the axis.
static void arb__prismatic_lock(arb__joint* j, const arb__jrow* perp, arb__jbody* A, arb__jbody* B,
                                arb_vec2 c, arb__softness s) {
  float s1 = perp->a1, s2 = perp->a2;
  float k11 = j->ma + j->mb + j->iA * s1 * s1 + j->iB * s2 * s2;
  float k12 = j->iA * s1 + j->iB * s2;
  float k22 = j->iA + j->iB;
  if (k22 == 0.0f) k22 = 1.0f;  // fixed rotation on both sides: the angle row is inert
  float det = k11 * k22 - k12 * k12;
  if (det == 0.0f) return;
  det = 1.0f / det;
  arb_vec2 rhs =
      arb_v2(arb__row_cdot(perp, A, B) + s.bias_rate * c.x, B->w - A->w + s.bias_rate * c.y);
  arb_vec2 sol = arb_v2(det * (k22 * rhs.x - k12 * rhs.y), det * (k11 * rhs.y - k12 * rhs.x));
  arb_vec2 imp = arb_v2(-s.mass_scale * sol.x - s.impulse_scale * j->impulse.x,
                        -s.mass_scale * sol.y - s.impulse_scale * j->impulse.y);
  j->impulse = arb_add(j->impulse, imp);
  arb__row_apply(j, perp, A, B, imp.x);
  A->w -= j->iA * imp.y;
  B->w += j->iB * imp.y;
}

// Prismatic and wheel: spring, motor and limits along the axis, then the locks (the
// perpendicular row; the prismatic's angle row, or the wheel's drive motor on the spin).
static void arb__solve_slider(const arb__extras* x, arb__joint* j, arb__jbody* A, arb__jbody* B,
                              float h, bool use_bias) {
  bool prismatic = j->type == ARB_JOINT_PRISMATIC;
  float t;
  arb__jrow ax = arb__axis_row(j, A, B, j->axis, &t);
  if (j->flags & ARB__JOINT_SPRING) {
    arb__softness s = arb__make_softness(j->hertz, j->damping_ratio, h);
    arb__row_soft(j, &ax, A, B, t, s, &j->spring_impulse);
  }
  arb__jrow ang = arb__angular_row(j);
  if (j->flags & ARB__JOINT_MOTOR) {
    arb__row_motor(j, prismatic ? &ax : &ang, A, B, j->motor_speed, j->max_motor * h,
                   &j->motor_impulse);
  }
  if (j->flags & ARB__JOINT_LIMIT) {
    ax = arb__axis_row(j, A, B, j->axis, &t);
    arb__row_limits(x, j, &ax, A, B, t, h, use_bias, j);
  }
  arb__softness lock = arb__lock_softness(x, use_bias);
  float c;
  arb__jrow perp = arb__axis_row(j, A, B, arb_left_perp(j->axis), &c);
  if (prismatic) {
    arb__prismatic_lock(j, &perp, A, B, arb_v2(c, arb__joint_angle(j, A, B)), lock);
  } else {
    arb__row_soft(j, &perp, A, B, c, lock, &j->impulse.x);
  }
}

static void arb__solve_weld(const arb__extras* x, arb__joint* j, arb__jbody* A, arb__jbody* B,
                            float h, bool use_bias) {
  arb__softness s = arb__own_softness(x, j, h, use_bias);
  arb__jrow ang = arb__angular_row(j);
  arb__row_soft(j, &ang, A, B, arb__joint_angle(j, A, B), s, &j->angular_impulse);
  arb__point_soft(j, A, B, s, 0.0f);
}

// Motor joint: removes `correction` of the offset error per substep, within the force and
// torque caps (Box2D's motor joint); the relax pass only damps the relative motion.
static void arb__solve_motor(arb__joint* j, arb__jbody* A, arb__jbody* B, float h, bool use_bias) {
  float rate = use_bias ? j->correction / h : 0.0f;
  arb__jrow ang = arb__angular_row(j);
  float imp = -ang.mass * (arb__row_cdot(&ang, A, B) + rate * arb__joint_angle(j, A, B));
  float old = j->angular_impulse, cap = j->max_torque * h;
  j->angular_impulse = arb_clampf(old + imp, -cap, cap);
  arb__row_apply(j, &ang, A, B, j->angular_impulse - old);
  arb__softness s = {rate, 1.0f, 0.0f};
  if (j->max_force > 0.0f) arb__point_soft(j, A, B, s, j->max_force * h);
}

// The rod or spring keeps the arithmetic of the original distance joint (its results are
// in the golden hashes); a rope's limits are rows.
static void arb__solve_distance(const arb__extras* x, arb__joint* j, arb__jbody* A, arb__jbody* B,
                                float h, bool use_bias) {
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(j, A, B, &ra, &rb);
  float len;
  arb_vec2 axis = arb_get_length_and_normalize(&len, d);
  if (len == 0.0f) return;  // coincident anchors: no direction to push along
  float cra = arb_cross(ra, axis), crb = arb_cross(rb, axis);
  float k = j->ma + j->mb + j->iA * cra * cra + j->iB * crb * crb;
  if (k <= 0.0f) return;
  bool rope = (j->flags & ARB__JOINT_LIMIT) != 0;
  if (j->hertz > 0.0f || !rope) {  // spring, or the rigid rod
    arb_vec2 dv = arb__point_cdot(A, B, ra, rb);
    float cdot = arb_dot(axis, dv);
    float c = len - j->length;
    arb__softness s = arb__own_softness(x, j, h, use_bias);
    float bias = s.bias_rate != 0.0f ? s.bias_rate * c : 0.0f;
    float imp = -s.mass_scale * (1.0f / k) * (cdot + bias) - s.impulse_scale * j->impulse.x;
    j->impulse.x += imp;
    arb__japply(j, A, B, ra, rb, arb_scale(imp, axis));
  }
  if (rope) {
    arb__jrow r = arb__row(j, axis, cra, crb, 1.0f);
    arb__row_limits(x, j, &r, A, B, len, h, use_bias, j);
  }
}

void arb__joints_solve(arb_world* w, float h, bool use_bias) {
  arb__extras* x = w->extras;
  if (!x) return;
  for (int i = 0; i < x->joint_slots; ++i) {  // DET: slot order
    arb__joint* j = &x->joints[i];
    if (!arb__joint_active(j)) continue;
    arb__jbody A = arb__jload(w, j->ia), B = arb__jload(w, j->ib);
    switch ((arb_joint_type)j->type) {
      case ARB_JOINT_REVOLUTE:
        arb__solve_revolute(x, j, &A, &B, h, use_bias);
        break;
      case ARB_JOINT_PRISMATIC:
      case ARB_JOINT_WHEEL:
        arb__solve_slider(x, j, &A, &B, h, use_bias);
        break;
      case ARB_JOINT_WELD:
        arb__solve_weld(x, j, &A, &B, h, use_bias);
        break;
      case ARB_JOINT_MOTOR:
        arb__solve_motor(j, &A, &B, h, use_bias);
        break;
      case ARB_JOINT_MOUSE:
        arb__point_soft(j, &A, &B, arb__own_softness(x, j, h, use_bias), j->max_force * h);
        break;
      default:
        arb__solve_distance(x, j, &A, &B, h, use_bias);
        break;
    }
    arb__jstore(&A);
    arb__jstore(&B);
  }
}

// ---- position projection ----------------------------------------------------------------
//
// Soft constraints let a joint drift while a chain whips or carries a heavy load: the
// error is pulled back over the next steps, never removed at once. After the substeps
// (before finalize), a few Gauss-Seidel passes project the rigid joints' anchors back
// together by moving the bodies' step displacements (dp, dq) only: positions change,
// velocities do not, so the projection adds no energy (the nonlinear Gauss-Seidel
// stabilisation of Box2D v2.4). Passes alternate direction so corrections travel along a
// chain from either end. Each correction is capped to keep a violent state sane.
#define ARB__JOINT_PROJECT_PASSES 8
#define ARB__JOINT_MAX_CORRECTION 0.2f

static void arb__jmove(arb__jbody* b, float m, float i, arb_vec2 r, arb_vec2 P) {
  if (!b->st) return;
  // Kinematic bodies (m = i = 0) and fixed rotation (i = 0) keep their exact pose bits.
  if (m != 0.0f) b->st->dp = arb_mul_add(b->st->dp, m, P);
  if (i != 0.0f) b->st->dq = arb_rot_integrate(b->st->dq, i * arb_cross(r, P));
  b->dp = b->st->dp;
  b->dq = b->st->dq;
}

static void arb__project_joint(arb_world* w, arb__joint* j) {
  arb__jbody A = arb__jload(w, j->ia), B = arb__jload(w, j->ib);
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(j, &A, &B, &ra, &rb);
  arb_vec2 P;
  if (j->type == ARB_JOINT_REVOLUTE) {
    float len = arb_length(d);
    if (len > ARB__JOINT_MAX_CORRECTION) d = arb_scale(ARB__JOINT_MAX_CORRECTION / len, d);
    arb_vec2 sol;
    if (!arb__point_solve(j, ra, rb, d, &sol)) return;
    P = arb_neg(sol);
  } else {
    float len;
    arb_vec2 axis = arb_get_length_and_normalize(&len, d);
    if (len == 0.0f) return;
    float c = arb_clampf(len - j->length, -ARB__JOINT_MAX_CORRECTION, ARB__JOINT_MAX_CORRECTION);
    float cra = arb_cross(ra, axis), crb = arb_cross(rb, axis);
    float k = j->ma + j->mb + j->iA * cra * cra + j->iB * crb * crb;
    if (k <= 0.0f) return;
    P = arb_scale(-c / k, axis);
  }
  arb__jmove(&A, -j->ma, -j->iA, ra, P);
  arb__jmove(&B, j->mb, j->iB, rb, P);
}

// Only pins and rigid rods are projected: the other joints' errors are angular or along
// an axis, which their soft rows already pull back.
static bool arb__projected(const arb__joint* j) {
  if (j->type == ARB_JOINT_REVOLUTE) return true;
  return j->type == ARB_JOINT_DISTANCE && j->hertz == 0.0f && !(j->flags & ARB__JOINT_LIMIT);
}

void arb__joints_project(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x || x->joint_slots == 0) return;
  const int n = x->joint_slots;
  for (int pass = 0; pass < ARB__JOINT_PROJECT_PASSES; ++pass) {
    for (int k = 0; k < n; ++k) {  // DET: slot order, then reversed
      arb__joint* j = &x->joints[(pass & 1) ? n - 1 - k : k];
      if (!arb__joint_active(j) || !arb__projected(j)) continue;
      arb__project_joint(w, j);
    }
  }
}
