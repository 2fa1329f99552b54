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

void arb__joints_prepare(arb_world* w, float dt, float h) {
  arb__extras* x = w->extras;
  if (!x || x->joint_slots == 0) return;
  float hertz = arb_minf(w->def.contact_hertz, 0.25f * (float)w->def.substeps / dt);
  arb__softness js = arb__make_softness(2.0f * hertz, 2.0f, h);
  x->joint_bias_rate = js.bias_rate;
  x->joint_mass_scale = js.mass_scale;
  x->joint_impulse_scale = js.impulse_scale;
  for (int i = 0; i < x->joint_slots; ++i) {  // DET: slot order
    arb__joint* j = &x->joints[i];
    j->ia = j->ib = -1;
    j->ma = j->mb = j->iA = j->iB = 0.0f;
    j->active = 0;
    if (!j->in_use) continue;
    int a = arb__body_slot(w, j->body_a);
    int b = arb_body_id_is_null(j->body_b) ? -1 : arb__body_slot(w, j->body_b);
    if (a < 0 || (b < 0 && !arb_body_id_is_null(j->body_b))) continue;  // a body is gone
    if (!arb__body_awake(w, a) && (b < 0 || !arb__body_awake(w, b))) continue;  // asleep
    j->active = 1;
    const arb__body* A = &w->bodies[a];
    j->ra = arb_rotate(A->xf.q, arb_sub(j->local_a, A->local_center));
    arb_vec2 cb;
    if (b >= 0) {
      const arb__body* B = &w->bodies[b];
      j->rb = arb_rotate(B->xf.q, arb_sub(j->local_b, B->local_center));
      cb = B->center;
    } else {
      j->rb = arb_vec2_zero;
      cb = j->local_b;
    }
    j->delta_center = arb_sub(cb, A->center);
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

static void arb__japply(const arb__joint* j, arb__jbody* A, arb__jbody* B, arb_vec2 ra, arb_vec2 rb,
                        arb_vec2 P) {
  A->v = arb_mul_sub(A->v, j->ma, P);
  A->w -= j->iA * arb_cross(ra, P);
  B->v = arb_mul_add(B->v, j->mb, P);
  B->w += j->iB * arb_cross(rb, P);
}

void arb__joints_warm_start(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x) return;
  for (int i = 0; i < x->joint_slots; ++i) {
    arb__joint* j = &x->joints[i];
    if (!arb__joint_active(j)) continue;
    arb__jbody A = arb__jload(w, j->ia), B = arb__jload(w, j->ib);
    arb_vec2 ra, rb;
    arb_vec2 d = arb__joint_delta(j, &A, &B, &ra, &rb);
    arb_vec2 P = j->impulse;
    if (j->type == ARB_JOINT_DISTANCE) P = arb_scale(j->impulse.x, arb_normalize(d));
    arb__japply(j, &A, &B, ra, rb, P);
    arb__jstore(&A);
    arb__jstore(&B);
  }
}

static void arb__solve_revolute(const arb__extras* x, arb__joint* j, arb__jbody* A, arb__jbody* B,
                                bool use_bias) {
  arb_vec2 ra, rb;
  arb_vec2 sep = arb__joint_delta(j, A, B, &ra, &rb);
  arb_vec2 cdot =
      arb_sub(arb_add(B->v, arb_cross_sv(B->w, rb)), arb_add(A->v, arb_cross_sv(A->w, ra)));
  arb_vec2 bias = arb_vec2_zero;
  float mass_scale = 1.0f, impulse_scale = 0.0f;
  if (use_bias) {
    bias = arb_scale(x->joint_bias_rate, sep);
    mass_scale = x->joint_mass_scale;
    impulse_scale = x->joint_impulse_scale;
  }
  float m = j->ma + j->mb;
  float k11 = m + ra.y * ra.y * j->iA + rb.y * rb.y * j->iB;
  float k12 = -ra.y * ra.x * j->iA - rb.y * rb.x * j->iB;
  float k22 = m + ra.x * ra.x * j->iA + rb.x * rb.x * j->iB;
  float det = k11 * k22 - k12 * k12;
  if (det == 0.0f) return;
  det = 1.0f / det;
  arb_vec2 rhs = arb_add(cdot, bias);
  arb_vec2 sol = arb_v2(det * (k22 * rhs.x - k12 * rhs.y), det * (k11 * rhs.y - k12 * rhs.x));
  arb_vec2 imp = arb_v2(-mass_scale * sol.x - impulse_scale * j->impulse.x,
                        -mass_scale * sol.y - impulse_scale * j->impulse.y);
  j->impulse = arb_add(j->impulse, imp);
  arb__japply(j, A, B, ra, rb, imp);
}

static void arb__solve_distance(const arb__extras* x, arb__joint* j, arb__jbody* A, arb__jbody* B,
                                float h, bool use_bias) {
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(j, A, B, &ra, &rb);
  float len;
  arb_vec2 axis = arb_get_length_and_normalize(&len, d);
  if (len == 0.0f) return;  // coincident anchors: no direction to push along
  arb_vec2 dv =
      arb_sub(arb_add(B->v, arb_cross_sv(B->w, rb)), arb_add(A->v, arb_cross_sv(A->w, ra)));
  float cdot = arb_dot(axis, dv);
  float cra = arb_cross(ra, axis), crb = arb_cross(rb, axis);
  float k = j->ma + j->mb + j->iA * cra * cra + j->iB * crb * crb;
  if (k <= 0.0f) return;
  float axial_mass = 1.0f / k;
  float c = len - j->length;
  float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
  if (j->hertz > 0.0f) {
    arb__softness s = arb__make_softness(j->hertz, j->damping_ratio, h);
    bias = s.bias_rate * c;
    mass_scale = s.mass_scale;
    impulse_scale = s.impulse_scale;
  } else if (use_bias) {
    bias = x->joint_bias_rate * c;
    mass_scale = x->joint_mass_scale;
    impulse_scale = x->joint_impulse_scale;
  }
  float imp = -mass_scale * axial_mass * (cdot + bias) - impulse_scale * j->impulse.x;
  j->impulse.x += imp;
  arb__japply(j, A, B, ra, rb, arb_scale(imp, axis));
}

void arb__joints_solve(arb_world* w, float h, bool use_bias) {
  arb__extras* x = w->extras;
  if (!x) return;
  for (int i = 0; i < x->joint_slots; ++i) {  // DET: slot order
    arb__joint* j = &x->joints[i];
    if (!arb__joint_active(j)) continue;
    arb__jbody A = arb__jload(w, j->ia), B = arb__jload(w, j->ib);
    if (j->type == ARB_JOINT_REVOLUTE) {
      arb__solve_revolute(x, j, &A, &B, use_bias);
    } else {
      arb__solve_distance(x, j, &A, &B, h, use_bias);
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
    float m = j->ma + j->mb;
    float k11 = m + ra.y * ra.y * j->iA + rb.y * rb.y * j->iB;
    float k12 = -ra.y * ra.x * j->iA - rb.y * rb.x * j->iB;
    float k22 = m + ra.x * ra.x * j->iA + rb.x * rb.x * j->iB;
    float det = k11 * k22 - k12 * k12;
    if (det == 0.0f) return;
    det = 1.0f / det;
    P = arb_v2(-det * (k22 * d.x - k12 * d.y), -det * (k11 * d.y - k12 * d.x));
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

void arb__joints_project(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x || x->joint_slots == 0) return;
  const int n = x->joint_slots;
  for (int pass = 0; pass < ARB__JOINT_PROJECT_PASSES; ++pass) {
    for (int k = 0; k < n; ++k) {  // DET: slot order, then reversed
      arb__joint* j = &x->joints[(pass & 1) ? n - 1 - k : k];
      if (!arb__joint_active(j) || (j->type == ARB_JOINT_DISTANCE && j->hertz > 0.0f)) continue;
      arb__project_joint(w, j);
    }
  }
}
