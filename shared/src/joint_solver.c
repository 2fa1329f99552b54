// DETERMINISM-CRITICAL: joints inside the soft-step substep loop of contact_solver.c.
//
// Same scheme as the contacts (and Box2D v3): prepare once per step (anchors relative to
// the centres of mass, in world axes at step start), then per substep warm start with
// the accumulated impulse, solve with a soft bias computed from the current separation
// (substep deltas dp/dq, so no transform is rebuilt), and relax without bias after the
// positions moved. Joints are solved before contacts, in colour order (arb__color_joints,
// slot order within a colour): contacts are the hard limits and get the last word. Rigid
// joints use twice the contact stiffness with damping ratio 2 (stiff, never springy); a
// soft distance joint uses its own frequency and damping ratio in both passes. The
// accumulated impulse is state (hashed and saved) so warm starting survives save/restore.
//
// Layout: prepare packs what the passes read and write for each solvable joint (bodies,
// masses, anchors, the point impulse) into one 64-byte arb__jrun, in colour order, so the
// passes stream one array instead of the ~200-byte joints. A plain revolute (a pin: no
// limit, motor or spring; most joints in chains, grids and cloths) is solved inline from
// it; a revolute with a limit, motor or spring reads its rows' parameters and impulses from
// a packed copy beside its entry (arb__jrev); the other joints read theirs from the joint.
#include <stdint.h>

#include <arbiter/bits.h>

#include "extras.h"
#include "softness.h"

// The rows and the point constraint run for every joint in every pass of every substep;
// a call each costs about what the row does, and gcc does not inline them on its own
// (callgrind, rain: 10 % fewer instructions per step inlined).
#define ARB__ROW_INLINE static inline __attribute__((always_inline))

// A body as the joint solver sees it: its live state, or a fixed stand-in.
typedef struct arb__jbody {
  arb__body_state* st;  // NULL: fixed (world, static, stale)
  arb_vec2 v, dp;
  float w;
  arb_rot dq;
} arb__jbody;

// The fixed stand-in: at rest, never moved (all +0, identity rotation).
static const arb__body_state arb__fixed_state = {
    {0.0f, 0.0f}, 0.0f, 0u, {0.0f, 0.0f}, {1.0f, 0.0f}};

static inline arb__jbody arb__jload(arb__body_state* states, int slot) {
  arb__body_state* st = slot >= 0 ? &states[slot] : NULL;
  const arb__body_state* s = st ? st : &arb__fixed_state;
  arb__jbody b = {st, s->v, s->dp, s->w, s->dq};
  return b;
}

static inline void arb__jstore(const arb__jbody* b) {
  if (!b->st) return;
  b->st->v = b->v;
  b->st->w = b->w;
}

static float arb__unwind(float a) {
  if (a > ARB_PI) return a - 2.0f * ARB_PI;
  if (a < -ARB_PI) return a + 2.0f * ARB_PI;
  return a;
}

// Kinds of arb__jrun entries (the low two bits of jrun_tag): which solve and projection.
enum {
  ARB__JRUN_PIN,       // plain revolute: point constraint only, projected
  ARB__JRUN_REVOLUTE,  // revolute with a limit, motor or spring: projected
  ARB__JRUN_ROD,       // rigid distance joint: projected
  ARB__JRUN_OTHER      // everything else: not projected
};

static int arb__jrun_kind(const arb__joint* j) {
  if (j->type == ARB_JOINT_REVOLUTE) return j->flags == 0 ? ARB__JRUN_PIN : ARB__JRUN_REVOLUTE;
  // Only pins and rigid rods are projected: the other joints' errors are angular or along
  // an axis, which their soft rows already pull back.
  bool rod = j->type == ARB_JOINT_DISTANCE && j->hertz == 0.0f && !(j->flags & ARB__JOINT_LIMIT);
  return rod ? ARB__JRUN_ROD : ARB__JRUN_OTHER;
}

// Room for every joint slot in the solver arrays. Grows only when joints were added since
// (no allocation in a step after the first). Out of memory: false, and no joint is solved
// this step (as contacts are dropped when the contact solver's arrays cannot be had).
static bool arb__jrun_reserve(arb_world* w, arb__extras* x) {
  if (x->joint_slots <= x->jrun_cap) return true;
  const size_t cap = (size_t)x->joint_cap;
  void* mem = arb__alloc(w, 2u * cap * sizeof(arb__jrun) + cap * sizeof(arb__jrev) + 64u);
  int32_t* tag = arb__alloc(w, 2u * cap * sizeof *tag);
  uint8_t* bytes = arb__alloc(w, 2u * cap);
  if (!mem || !tag || !bytes) {
    arb__free(w, mem);
    arb__free(w, tag);
    arb__free(w, bytes);
    return false;
  }
  arb__free(w, x->jrun_mem);
  arb__free(w, x->jrun_tag_mem);
  arb__free(w, x->jrun_open);
  x->jrun_mem = mem;
  // One cache line per entry. DET-ALLOW: the address only picks the padding in front of
  // the array; nothing is ordered or computed from it.
  x->jrun = (arb__jrun*)(((uintptr_t)mem + 63u) & ~(uintptr_t)63u);  // DET-ALLOW (above)
  x->jrun_spare = x->jrun + cap;
  x->jrev = (arb__jrev*)(x->jrun + 2u * cap);
  x->jrun_tag_mem = tag;
  x->jrun_tag = tag;
  x->jrun_tag_spare = tag + cap;
  x->jrun_open = bytes;
  x->jrun_color = bytes + cap;
  x->jrun_cap = (int32_t)cap;
  return true;
}

// The scratch grown to one element of `size` bytes per body slot and cleared over the
// slots in use; NULL when out of memory. Grows only when bodies were added since.
static void* arb__body_scratch_clear(arb_world* w, arb__body_scratch* s, size_t size) {
  if (s->cap < w->body_slots) {
    int n = w->body_capacity > w->body_slots ? w->body_capacity : w->body_slots;
    void* m = arb__alloc(w, (size_t)n * size);
    if (!m) return NULL;
    arb__free(w, s->mem);
    s->mem = m;
    s->cap = n;
  }
  memset(s->mem, 0, (size_t)w->body_slots * size);
  return s->mem;
}

// Puts the step's joints in colour order: each joint takes the lowest colour that no
// joint before it (in slot order) on either of its bodies has, so the joints of one
// colour share no moving body, and a colour's joints are solved one after the other
// without each waiting for the body the previous one just wrote (as Box2D v3 orders its
// constraint graph). Joints on a body with 32 colours taken go last. Fixed bodies
// (slot -1) do not count. Out of memory: the slot order stays.
#define ARB__JOINT_COLORS 32
static void arb__color_joints(arb_world* w, arb__extras* x) {
  const int n = x->jrun_count;
  if (n < 2) return;  // nothing to order (and no per-body clear in a world of one joint)
  uint32_t* used = arb__body_scratch_clear(w, &x->body_colors, sizeof(uint32_t));
  if (!used) return;
  int start[ARB__JOINT_COLORS + 2] = {0};
  for (int k = 0; k < n; ++k) {  // DET: slot order
    const int a = x->jrun[k].ia, b = x->jrun[k].ib;
    const uint32_t taken = (a >= 0 ? used[a] : 0u) | (b >= 0 ? used[b] : 0u);
    const int c = taken == UINT32_MAX ? ARB__JOINT_COLORS : arb_lowest_bit(~taken);
    if (c < ARB__JOINT_COLORS) {
      if (a >= 0) used[a] |= 1u << c;
      if (b >= 0) used[b] |= 1u << c;
    }
    x->jrun_color[k] = (uint8_t)c;
    ++start[c + 1];
  }
  for (int c = 0; c <= ARB__JOINT_COLORS; ++c) start[c + 1] += start[c];
  for (int k = 0; k < n; ++k) {  // DET: stable, slot order within a colour
    const int to = start[x->jrun_color[k]]++;
    x->jrun_spare[to] = x->jrun[k];
    x->jrun_tag_spare[to] = x->jrun_tag[k];
  }
  arb__jrun* r = x->jrun;
  x->jrun = x->jrun_spare;
  x->jrun_spare = r;
  int32_t* t = x->jrun_tag;
  x->jrun_tag = x->jrun_tag_spare;
  x->jrun_tag_spare = t;
}

// The step-start frame of joint j between body slots a and b (b < 0: world anchor) into r.
static void arb__jrun_frame(const arb_world* w, arb__joint* j, arb__jrun* r, int a, int b) {
  const arb__body* A = &w->bodies[a];
  r->ra = arb_rotate(A->xf.q, arb_sub(j->local_a, A->local_center));
  arb_vec2 cb;
  arb_rot qb = arb_rot_identity;
  if (b >= 0) {
    const arb__body* B = &w->bodies[b];
    r->rb = arb_rotate(B->xf.q, arb_sub(j->local_b, B->local_center));
    cb = B->center;
    qb = B->xf.q;
  } else {
    r->rb = arb_vec2_zero;
    cb = j->local_b;
  }
  r->delta_center = arb_sub(cb, A->center);
  j->axis = arb_rotate(A->xf.q, j->local_axis);
  j->delta_angle = 0.0f;
  // atan2 only when used: not by distance and mouse joints, nor by a pin (no angle rows).
  bool pin = j->type == ARB_JOINT_REVOLUTE && j->flags == 0;
  if (j->type != ARB_JOINT_DISTANCE && j->type != ARB_JOINT_MOUSE && !pin) {
    j->delta_angle = arb__unwind(arb_rot_relative_angle(A->xf.q, qb) - j->reference_angle);
  }
  // Static bodies never move: they are solved as fixed points (no state is touched).
  r->ia = r->ib = -1;
  r->ma = r->mb = r->iA = r->iB = 0.0f;
  if (w->sims[a].type != ARB_BODY_STATIC) {
    r->ia = a;
    r->ma = w->sims[a].inv_mass;
    r->iA = w->sims[a].inv_inertia;
  }
  if (b >= 0 && w->sims[b].type != ARB_BODY_STATIC) {
    r->ib = b;
    r->mb = w->sims[b].inv_mass;
    r->iB = w->sims[b].inv_inertia;
  }
}

static void arb__jrev_fill(arb__jrev* v, const arb__jrun* r, const arb__joint* j, float h);

void arb__joints_prepare(arb_world* w, float dt, float h) {
  arb__extras* x = w->extras;
  if (!x) return;
  x->jrun_count = 0;
  if (x->joint_slots == 0) return;
  const bool room = arb__jrun_reserve(w, x);
  float hertz = arb_minf(w->def.contact_hertz, 0.25f * (float)w->def.substeps / dt);
  arb__softness js = arb__make_softness(2.0f * hertz, 2.0f, h);
  x->joint_bias_rate = js.bias_rate;
  x->joint_mass_scale = js.mass_scale;
  x->joint_impulse_scale = js.impulse_scale;
  x->joint_max_push = w->def.max_contact_push_speed;
  for (int i = 0; i < x->joint_slots; ++i) {  // DET: slot order
    arb__joint* j = &x->joints[i];
    j->active = 0;
    j->step_impulse = arb_vec2_zero;
    if (!j->in_use || !room) continue;
    int a = arb__body_slot(w, j->body_a);
    int b = arb_body_id_is_null(j->body_b) ? -1 : arb__body_slot(w, j->body_b);
    if (a < 0 || (b < 0 && !arb_body_id_is_null(j->body_b))) continue;          // a body is gone
    if (!arb__body_awake(w, a) && (b < 0 || !arb__body_awake(w, b))) continue;  // asleep
    j->active = 1;
    arb__jrun* r = &x->jrun[x->jrun_count];
    arb__jrun_frame(w, j, r, a, b);
    if (!((r->ma + r->mb + r->iA + r->iB) > 0.0f)) continue;  // nothing can move
    r->impulse = j->impulse;
    r->step_impulse = arb_vec2_zero;
    x->jrun_tag[x->jrun_count++] = i * 4 + arb__jrun_kind(j);
  }
  arb__color_joints(w, x);
  for (int k = 0; k < x->jrun_count; ++k) {
    if ((x->jrun_tag[k] & 3) == ARB__JRUN_REVOLUTE) {
      arb__jrev_fill(&x->jrev[k], &x->jrun[k], &x->joints[x->jrun_tag[k] >> 2], h);
    }
  }
}

void arb__joints_store(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x) return;
  for (int k = 0; k < x->jrun_count; ++k) {
    arb__joint* j = &x->joints[x->jrun_tag[k] >> 2];
    j->impulse = x->jrun[k].impulse;
    j->step_impulse = x->jrun[k].step_impulse;
    if ((x->jrun_tag[k] & 3) == ARB__JRUN_REVOLUTE) {
      const arb__jrev* v = &x->jrev[k];
      j->spring_impulse = v->spring_impulse;
      j->motor_impulse = v->motor_impulse;
      j->lower_impulse = v->lower_impulse;
      j->upper_impulse = v->upper_impulse;
    }
  }
}

void arb__joints_drop_inactive(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x) return;
  int n = 0;
  for (int k = 0; k < x->jrun_count; ++k) {  // DET: colour order kept
    if (!x->joints[x->jrun_tag[k] >> 2].active) continue;
    x->jrun[n] = x->jrun[k];
    x->jrun_tag[n++] = x->jrun_tag[k];
  }
  x->jrun_count = n;
}

// Separation vector B - A between the anchors, from the substep deltas.
static inline arb_vec2 arb__joint_delta(const arb__jrun* r, const arb__jbody* A,
                                        const arb__jbody* B, arb_vec2* ra, arb_vec2* rb) {
  *ra = arb_rotate(A->dq, r->ra);
  *rb = arb_rotate(B->dq, r->rb);
  return arb_add(arb_add(arb_sub(B->dp, A->dp), r->delta_center), arb_sub(*rb, *ra));
}

static inline void arb__japply(arb__jrun* r, arb__jbody* A, arb__jbody* B, arb_vec2 ra, arb_vec2 rb,
                               arb_vec2 P) {
  A->v = arb_mul_sub(A->v, r->ma, P);
  A->w -= r->iA * arb_cross(ra, P);
  B->v = arb_mul_add(B->v, r->mb, P);
  B->w += r->iB * arb_cross(rb, P);
  r->step_impulse = arb_add(r->step_impulse, P);
}

// ---- one-dimensional rows ---------------------------------------------------------------
//
// A row constrains one relative speed: n . (vB - vA) + a2 * wB - a1 * wA. An angular row has
// n = 0 and a1 = a2 = 1; an axis row has the axis as n and the lever arms' cross products.
// Limits, motors, springs and the prismatic/wheel/weld locks are all rows.
//
// An angular row touches the angular velocities only: its n terms (0 * v) would add
// nothing but a signed zero, and cost 14 operations on the linear velocities' chain of
// every joint pass (a revolute with a spring, a motor and limits has four such rows).
typedef struct arb__jrow {
  arb_vec2 n;
  float a1, a2;
  float mass;    // 1 / effective mass, 0 when nothing can move along the row
  bool angular;  // n is zero: the linear terms are skipped
} arb__jrow;

// An axis row (n a unit vector) when linear is 1, an angular row when it is 0.
static arb__jrow arb__row(const arb__jrun* r, arb_vec2 n, float a1, float a2, float linear) {
  arb__jrow row = {n, a1, a2, 0.0f, linear == 0.0f};
  float k = linear * (r->ma + r->mb) + r->iA * a1 * a1 + r->iB * a2 * a2;
  row.mass = k > 0.0f ? 1.0f / k : 0.0f;
  return row;
}

static arb__jrow arb__angular_row(const arb__jrun* r) {
  return arb__row(r, arb_vec2_zero, 1.0f, 1.0f, 0.0f);
}

// What the rows of revolute j (with its arb__jrun r filled) read in the substeps.
static void arb__jrev_fill(arb__jrev* v, const arb__jrun* r, const arb__joint* j, float h) {
  v->angular_mass = arb__angular_row(r).mass;
  arb__softness s = arb__make_softness(j->hertz, j->damping_ratio, h);
  v->spring_bias_rate = s.bias_rate;
  v->spring_mass_scale = s.mass_scale;
  v->spring_impulse_scale = s.impulse_scale;
  v->motor_speed = j->motor_speed;
  v->max_motor_impulse = j->max_motor * h;
  v->lower = j->lower;
  v->upper = j->upper;
  v->delta_angle = j->delta_angle;
  v->spring_impulse = j->spring_impulse;
  v->motor_impulse = j->motor_impulse;
  v->lower_impulse = j->lower_impulse;
  v->upper_impulse = j->upper_impulse;
  v->flags = j->flags;
}

static arb__jrow arb__row_neg(arb__jrow r) {
  r.n = arb_neg(r.n);
  r.a1 = -r.a1;
  r.a2 = -r.a2;
  return r;
}

ARB__ROW_INLINE float arb__row_cdot(const arb__jrow* r, const arb__jbody* A, const arb__jbody* B) {
  if (r->angular) return r->a2 * B->w - r->a1 * A->w;
  return arb_dot(r->n, arb_sub(B->v, A->v)) + r->a2 * B->w - r->a1 * A->w;
}

ARB__ROW_INLINE void arb__row_apply(arb__jrun* r, const arb__jrow* row, arb__jbody* A,
                                    arb__jbody* B, float imp) {
  A->w -= r->iA * imp * row->a1;
  B->w += r->iB * imp * row->a2;
  if (row->angular) return;
  A->v = arb_mul_sub(A->v, r->ma * imp, row->n);
  B->v = arb_mul_add(B->v, r->mb * imp, row->n);
  r->step_impulse = arb_mul_add(r->step_impulse, imp, row->n);
}

// Soft row towards C = 0 (a lock with the joint softness, or a spring with its own).
ARB__ROW_INLINE void arb__row_soft(arb__jrun* r, const arb__jrow* row, arb__jbody* A, arb__jbody* B,
                                   float c, arb__softness s, float* acc) {
  float imp = -s.mass_scale * row->mass * (arb__row_cdot(row, A, B) + s.bias_rate * c) -
              s.impulse_scale * *acc;
  *acc += imp;
  arb__row_apply(r, row, A, B, imp);
}

// Motor: drive the row's speed to `speed` with an accumulated impulse within +-max_impulse.
ARB__ROW_INLINE void arb__row_motor(arb__jrun* r, const arb__jrow* row, arb__jbody* A,
                                    arb__jbody* B, float speed, float max_impulse, float* acc) {
  float imp = -row->mass * (arb__row_cdot(row, A, B) - speed);
  float old = *acc;
  *acc = arb_clampf(old + imp, -max_impulse, max_impulse);
  arb__row_apply(r, row, A, B, *acc - old);
}

// One side of a limit: C >= 0 is allowed (approached speculatively at C / h), C < 0 is
// pushed back with the joint softness; the accumulated impulse only pushes.
ARB__ROW_INLINE void arb__row_limit(const arb__extras* x, arb__jrun* r, const arb__jrow* row,
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
  float imp = -mass_scale * row->mass * (arb__row_cdot(row, A, B) + bias) - impulse_scale * *acc;
  float old = *acc;
  *acc = arb_maxf(old + imp, 0.0f);
  arb__row_apply(r, row, A, B, *acc - old);
}

// Both sides of a limit [lower, upper] on the row's position, each with its impulse.
ARB__ROW_INLINE void arb__row_limits(const arb__extras* x, arb__jrun* r, const arb__jrow* row,
                                     arb__jbody* A, arb__jbody* B, float position, float h,
                                     bool use_bias, float lower, float upper, float* lower_impulse,
                                     float* upper_impulse) {
  arb__row_limit(x, r, row, A, B, position - lower, h, use_bias, lower_impulse);
  arb__jrow up = arb__row_neg(*row);
  arb__row_limit(x, r, &up, A, B, upper - position, h, use_bias, upper_impulse);
}

// The same with the joint's limit and impulses.
static void arb__joint_limits(const arb__extras* x, arb__jrun* r, arb__joint* j,
                              const arb__jrow* row, arb__jbody* A, arb__jbody* B, float position,
                              float h, bool use_bias) {
  arb__row_limits(x, r, row, A, B, position, h, use_bias, j->lower, j->upper, &j->lower_impulse,
                  &j->upper_impulse);
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

// The angle from rotation a to b. Within a step the two bodies' substep rotations differ
// by little, so most calls take a float series for |angle| <= pi/8 (|tan| <= 0.4142: the
// first omitted term, u^19 / 19, is below 3e-9 rad) instead of arb_atan2's double one
// (exact to the float ulp over the whole circle, with double divisions and 12 terms);
// larger angles still take it.
static inline float arb__substep_angle(arb_rot a, arb_rot b) {
  // atan(u) = u + u^3 * (-1/3 + u^2 * (1/5 + u^2 * (... + u^2 / 17))), innermost first.
  static const float series[] = {1.0f / 17.0f, -1.0f / 15.0f, 1.0f / 13.0f, -1.0f / 11.0f,
                                 1.0f / 9.0f,  -1.0f / 7.0f,  1.0f / 5.0f,  -1.0f / 3.0f};
  const float s = a.c * b.s - a.s * b.c, c = a.c * b.c + a.s * b.s;
  if (!(c > 0.0f) || arb_absf(s) > 0.41421356f * c) return arb_atan2(s, c);
  const float u = s / c, u2 = u * u;
  float p = series[0];
  for (int k = 1; k < (int)(sizeof series / sizeof series[0]); ++k) p = p * u2 + series[k];
  return u + u * u2 * p;
}

// B's angle relative to A minus the reference angle, now.
static float arb__joint_angle(const arb__joint* j, const arb__jbody* A, const arb__jbody* B) {
  return j->delta_angle + arb__substep_angle(A->dq, B->dq);
}

// The axis row of a prismatic or wheel joint and the translation along it.
static arb__jrow arb__axis_row(const arb__jrun* r, const arb__jbody* A, const arb__jbody* B,
                               arb_vec2 n, float* translation) {
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(r, A, B, &ra, &rb);
  arb_vec2 axis = arb_rotate(A->dq, n);
  if (translation) *translation = arb_dot(axis, d);
  return arb__row(r, axis, arb_cross(arb_add(d, ra), axis), arb_cross(rb, axis), 1.0f);
}

// ---- the 2-D point constraint -------------------------------------------------------------

// Solves K * out = rhs for the point constraint's 2x2 mass matrix; false when singular.
static inline bool arb__point_solve(const arb__jrun* r, arb_vec2 ra, arb_vec2 rb, arb_vec2 rhs,
                                    arb_vec2* out) {
  float m = r->ma + r->mb;
  float k11 = m + ra.y * ra.y * r->iA + rb.y * rb.y * r->iB;
  float k12 = -ra.y * ra.x * r->iA - rb.y * rb.x * r->iB;
  float k22 = m + ra.x * ra.x * r->iA + rb.x * rb.x * r->iB;
  float det = k11 * k22 - k12 * k12;
  if (det == 0.0f) return false;
  det = 1.0f / det;
  *out = arb_v2(det * (k22 * rhs.x - k12 * rhs.y), det * (k11 * rhs.y - k12 * rhs.x));
  return true;
}

static inline arb_vec2 arb__point_cdot(const arb__jbody* A, const arb__jbody* B, arb_vec2 ra,
                                       arb_vec2 rb) {
  return arb_sub(arb_add(B->v, arb_cross_sv(B->w, rb)), arb_add(A->v, arb_cross_sv(A->w, ra)));
}

// Soft point constraint; max_impulse > 0 caps the accumulated impulse's length.
ARB__ROW_INLINE void arb__point_soft(arb__jrun* r, arb__jbody* A, arb__jbody* B, arb__softness s,
                                     float max_impulse) {
  arb_vec2 ra, rb, sol;
  arb_vec2 sep = arb__joint_delta(r, A, B, &ra, &rb);
  arb_vec2 bias = s.bias_rate != 0.0f ? arb_scale(s.bias_rate, sep) : arb_vec2_zero;
  arb_vec2 rhs = arb_add(arb__point_cdot(A, B, ra, rb), bias);
  if (!arb__point_solve(r, ra, rb, rhs, &sol)) return;
  arb_vec2 imp = arb_v2(-s.mass_scale * sol.x - s.impulse_scale * r->impulse.x,
                        -s.mass_scale * sol.y - s.impulse_scale * r->impulse.y);
  arb_vec2 old = r->impulse;
  r->impulse = arb_add(old, imp);
  if (max_impulse > 0.0f) {
    if (arb_length_sq(r->impulse) > max_impulse * max_impulse) {
      r->impulse = arb_scale(max_impulse / arb_length(r->impulse), r->impulse);
    }
    imp = arb_sub(r->impulse, old);
  }
  arb__japply(r, A, B, ra, rb, imp);
}

// ---- warm start -------------------------------------------------------------------------

static void arb__warm_start_joint(arb__jrun* r, const arb__joint* j, arb__jbody* A, arb__jbody* B) {
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(r, A, B, &ra, &rb);
  float limits = j->lower_impulse - j->upper_impulse;
  switch ((arb_joint_type)j->type) {
    case ARB_JOINT_DISTANCE: {
      float axial = r->impulse.x;
      if (j->flags & ARB__JOINT_LIMIT) axial += limits;
      arb__japply(r, A, B, ra, rb, arb_scale(axial, arb_normalize(d)));
      return;
    }
    case ARB_JOINT_PRISMATIC:
    case ARB_JOINT_WHEEL: {
      arb__jrow ax = arb__axis_row(r, A, B, j->axis, NULL);
      arb__jrow perp = arb__axis_row(r, A, B, arb_left_perp(j->axis), NULL);
      arb__jrow ang = arb__angular_row(r);
      bool prismatic = j->type == ARB_JOINT_PRISMATIC;
      float axial = j->spring_impulse + limits + (prismatic ? j->motor_impulse : 0.0f);
      arb__row_apply(r, &ax, A, B, axial);
      arb__row_apply(r, &perp, A, B, r->impulse.x);
      arb__row_apply(r, &ang, A, B, prismatic ? r->impulse.y : j->motor_impulse);
      return;
    }
    default: {  // weld, motor: point constraint plus an angular row; mouse: the point only
      arb__japply(r, A, B, ra, rb, r->impulse);
      if (j->type == ARB_JOINT_MOUSE) return;
      arb__jrow ang = arb__angular_row(r);
      arb__row_apply(r, &ang, A, B, j->angular_impulse);
      return;
    }
  }
}

// The revolute's point constraint plus its rows' impulses on the angle, from the packed
// copy (the pin is warm started inline).
static void arb__warm_start_revolute(arb__jrun* r, const arb__jrev* v, arb__jbody* A,
                                     arb__jbody* B) {
  arb__japply(r, A, B, arb_rotate(A->dq, r->ra), arb_rotate(B->dq, r->rb), r->impulse);
  arb__jrow ang = {arb_vec2_zero, 1.0f, 1.0f, v->angular_mass, true};
  float limits = v->lower_impulse - v->upper_impulse;
  arb__row_apply(r, &ang, A, B, v->spring_impulse + v->motor_impulse + limits);
}

void arb__joints_warm_start(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x) return;
  arb__body_state* st = w->states;
  for (int k = 0; k < x->jrun_count; ++k) {  // DET: colour order
    arb__jrun* r = &x->jrun[k];
    const int32_t tag = x->jrun_tag[k];
    arb__jbody A = arb__jload(st, r->ia), B = arb__jload(st, r->ib);
    if ((tag & 3) == ARB__JRUN_PIN) {
      arb__japply(r, &A, &B, arb_rotate(A.dq, r->ra), arb_rotate(B.dq, r->rb), r->impulse);
    } else if ((tag & 3) == ARB__JRUN_REVOLUTE) {
      arb__warm_start_revolute(r, &x->jrev[k], &A, &B);
    } else {
      arb__warm_start_joint(r, &x->joints[tag >> 2], &A, &B);
    }
    arb__jstore(&A);
    arb__jstore(&B);
  }
}

// ---- solve, per type --------------------------------------------------------------------

// A revolute with rows: the spring, the motor and the limits on the relative angle, then
// the point constraint (the joints' usual order and arithmetic, from the packed copy). The
// angle is taken once: the rows change velocities only, not the substep rotations it is
// measured from.
ARB__ROW_INLINE void arb__solve_revolute(const arb__extras* x, arb__jrun* r, arb__jrev* v,
                                         arb__jbody* A, arb__jbody* B, float h, bool use_bias,
                                         arb__softness lock) {
  arb__jrow ang = {arb_vec2_zero, 1.0f, 1.0f, v->angular_mass, true};
  float angle = 0.0f;
  if (v->flags & (ARB__JOINT_SPRING | ARB__JOINT_LIMIT)) {
    angle = v->delta_angle + arb__substep_angle(A->dq, B->dq);
  }
  if (v->flags & ARB__JOINT_SPRING) {
    arb__softness s = {v->spring_bias_rate, v->spring_mass_scale, v->spring_impulse_scale};
    arb__row_soft(r, &ang, A, B, angle, s, &v->spring_impulse);
  }
  if (v->flags & ARB__JOINT_MOTOR) {
    arb__row_motor(r, &ang, A, B, v->motor_speed, v->max_motor_impulse, &v->motor_impulse);
  }
  if (v->flags & ARB__JOINT_LIMIT) {
    arb__row_limits(x, r, &ang, A, B, angle, h, use_bias, v->lower, v->upper, &v->lower_impulse,
                    &v->upper_impulse);
  }
  arb__point_soft(r, A, B, lock, 0.0f);
}

// The prismatic's perpendicular and angular rows as one 2x2 block: solved one after the
// other, the angular row undoes the torque of the perpendicular row's lever arm and the
// body settles off the axis.
static void arb__prismatic_lock(arb__jrun* r, const arb__jrow* perp, arb__jbody* A, arb__jbody* B,
                                arb_vec2 c, arb__softness s) {
  float s1 = perp->a1, s2 = perp->a2;
  float k11 = r->ma + r->mb + r->iA * s1 * s1 + r->iB * s2 * s2;
  float k12 = r->iA * s1 + r->iB * s2;
  float k22 = r->iA + r->iB;
  if (k22 == 0.0f) k22 = 1.0f;  // fixed rotation on both sides: the angle row is inert
  float det = k11 * k22 - k12 * k12;
  if (det == 0.0f) return;
  det = 1.0f / det;
  arb_vec2 rhs =
      arb_v2(arb__row_cdot(perp, A, B) + s.bias_rate * c.x, B->w - A->w + s.bias_rate * c.y);
  arb_vec2 sol = arb_v2(det * (k22 * rhs.x - k12 * rhs.y), det * (k11 * rhs.y - k12 * rhs.x));
  arb_vec2 imp = arb_v2(-s.mass_scale * sol.x - s.impulse_scale * r->impulse.x,
                        -s.mass_scale * sol.y - s.impulse_scale * r->impulse.y);
  r->impulse = arb_add(r->impulse, imp);
  arb__row_apply(r, perp, A, B, imp.x);
  A->w -= r->iA * imp.y;
  B->w += r->iB * imp.y;
}

// Prismatic and wheel: spring, motor and limits along the axis, then the locks (the
// perpendicular row; the prismatic's angle row, or the wheel's drive motor on the spin).
static void arb__solve_slider(const arb__extras* x, arb__jrun* r, arb__joint* j, arb__jbody* A,
                              arb__jbody* B, float h, bool use_bias) {
  bool prismatic = j->type == ARB_JOINT_PRISMATIC;
  float t;
  arb__jrow ax = arb__axis_row(r, A, B, j->axis, &t);
  if (j->flags & ARB__JOINT_SPRING) {
    arb__softness s = arb__make_softness(j->hertz, j->damping_ratio, h);
    arb__row_soft(r, &ax, A, B, t, s, &j->spring_impulse);
  }
  arb__jrow ang = arb__angular_row(r);
  if (j->flags & ARB__JOINT_MOTOR) {
    arb__row_motor(r, prismatic ? &ax : &ang, A, B, j->motor_speed, j->max_motor * h,
                   &j->motor_impulse);
  }
  if (j->flags & ARB__JOINT_LIMIT) {
    ax = arb__axis_row(r, A, B, j->axis, &t);
    arb__joint_limits(x, r, j, &ax, A, B, t, h, use_bias);
  }
  arb__softness lock = arb__lock_softness(x, use_bias);
  float c;
  arb__jrow perp = arb__axis_row(r, A, B, arb_left_perp(j->axis), &c);
  if (prismatic) {
    arb__prismatic_lock(r, &perp, A, B, arb_v2(c, arb__joint_angle(j, A, B)), lock);
  } else {
    arb__row_soft(r, &perp, A, B, c, lock, &r->impulse.x);
  }
}

static void arb__solve_weld(const arb__extras* x, arb__jrun* r, arb__joint* j, arb__jbody* A,
                            arb__jbody* B, float h, bool use_bias) {
  arb__softness s = arb__own_softness(x, j, h, use_bias);
  arb__jrow ang = arb__angular_row(r);
  arb__row_soft(r, &ang, A, B, arb__joint_angle(j, A, B), s, &j->angular_impulse);
  arb__point_soft(r, A, B, s, 0.0f);
}

// Motor joint: removes `correction` of the offset error per substep, within the force and
// torque caps (Box2D's motor joint); the relax pass only damps the relative motion.
static void arb__solve_motor(arb__jrun* r, arb__joint* j, arb__jbody* A, arb__jbody* B, float h,
                             bool use_bias) {
  float rate = use_bias ? j->correction / h : 0.0f;
  arb__jrow ang = arb__angular_row(r);
  float imp = -ang.mass * (arb__row_cdot(&ang, A, B) + rate * arb__joint_angle(j, A, B));
  float old = j->angular_impulse, cap = j->max_torque * h;
  j->angular_impulse = arb_clampf(old + imp, -cap, cap);
  arb__row_apply(r, &ang, A, B, j->angular_impulse - old);
  arb__softness s = {rate, 1.0f, 0.0f};
  if (j->max_force > 0.0f) arb__point_soft(r, A, B, s, j->max_force * h);
}

// The rod or spring keeps the arithmetic of the original distance joint (its results are
// in the golden hashes); a rope's limits are rows.
static void arb__solve_distance(const arb__extras* x, arb__jrun* r, arb__joint* j, arb__jbody* A,
                                arb__jbody* B, float h, bool use_bias) {
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(r, A, B, &ra, &rb);
  float len;
  arb_vec2 axis = arb_get_length_and_normalize(&len, d);
  if (len == 0.0f) return;  // coincident anchors: no direction to push along
  float cra = arb_cross(ra, axis), crb = arb_cross(rb, axis);
  float k = r->ma + r->mb + r->iA * cra * cra + r->iB * crb * crb;
  if (k <= 0.0f) return;
  bool rope = (j->flags & ARB__JOINT_LIMIT) != 0;
  if (j->hertz > 0.0f || !rope) {  // spring, or the rigid rod
    arb_vec2 dv = arb__point_cdot(A, B, ra, rb);
    float cdot = arb_dot(axis, dv);
    float c = len - j->length;
    arb__softness s = arb__own_softness(x, j, h, use_bias);
    float bias = s.bias_rate != 0.0f ? s.bias_rate * c : 0.0f;
    float imp = -s.mass_scale * (1.0f / k) * (cdot + bias) - s.impulse_scale * r->impulse.x;
    r->impulse.x += imp;
    arb__japply(r, A, B, ra, rb, arb_scale(imp, axis));
  }
  if (rope) {
    arb__jrow row = arb__row(r, axis, cra, crb, 1.0f);
    arb__joint_limits(x, r, j, &row, A, B, len, h, use_bias);
  }
}

// Every joint but the revolute (the pin inline, the others by arb__solve_revolute).
static void arb__solve_joint(const arb__extras* x, arb__jrun* r, arb__joint* j, arb__jbody* A,
                             arb__jbody* B, float h, bool use_bias) {
  switch ((arb_joint_type)j->type) {
    case ARB_JOINT_PRISMATIC:
    case ARB_JOINT_WHEEL:
      arb__solve_slider(x, r, j, A, B, h, use_bias);
      break;
    case ARB_JOINT_WELD:
      arb__solve_weld(x, r, j, A, B, h, use_bias);
      break;
    case ARB_JOINT_MOTOR:
      arb__solve_motor(r, j, A, B, h, use_bias);
      break;
    case ARB_JOINT_MOUSE:
      arb__point_soft(r, A, B, arb__own_softness(x, j, h, use_bias), j->max_force * h);
      break;
    default:
      arb__solve_distance(x, r, j, A, B, h, use_bias);
      break;
  }
}

void arb__joints_solve(arb_world* w, float h, bool use_bias) {
  arb__extras* x = w->extras;
  if (!x) return;
  arb__body_state* st = w->states;
  const arb__softness lock = arb__lock_softness(x, use_bias);
  for (int k = 0; k < x->jrun_count; ++k) {  // DET: colour order
    arb__jrun* r = &x->jrun[k];
    const int32_t tag = x->jrun_tag[k];
    // Each kind loads its own copies of the bodies: the ones passed to the out-of-line
    // arb__solve_joint live in memory, the inlined kinds' stay in registers.
    if ((tag & 3) == ARB__JRUN_PIN) {
      arb__jbody A = arb__jload(st, r->ia), B = arb__jload(st, r->ib);
      arb__point_soft(r, &A, &B, lock, 0.0f);
      arb__jstore(&A);
      arb__jstore(&B);
    } else if ((tag & 3) == ARB__JRUN_REVOLUTE) {
      arb__jbody A = arb__jload(st, r->ia), B = arb__jload(st, r->ib);
      arb__solve_revolute(x, r, &x->jrev[k], &A, &B, h, use_bias, lock);
      arb__jstore(&A);
      arb__jstore(&B);
    } else {
      arb__jbody A = arb__jload(st, r->ia), B = arb__jload(st, r->ib);
      arb__solve_joint(x, r, &x->joints[tag >> 2], &A, &B, h, use_bias);
      arb__jstore(&A);
      arb__jstore(&B);
    }
  }
}

// ---- position projection ----------------------------------------------------------------
//
// Soft constraints let a joint drift while a chain whips or carries a heavy load: the
// error is pulled back over the next steps, never removed at once. After the substeps
// (before finalize), Gauss-Seidel passes project the rigid joints' anchors back together
// by moving the bodies' step displacements (dp, dq) only: positions change, velocities do
// not, so the projection adds no energy (the nonlinear Gauss-Seidel stabilisation of
// Box2D v2.4). Passes alternate direction (colour order, then reversed) so a correction
// is not always overwritten by the same neighbour. Each correction is capped to keep a violent
// state sane. Only pins and rigid rods are projected (arb__jrun_kind).
//
// What a pass visits and when the passes stop (all from the state, so deterministic):
// - a joint whose gap is within the tolerance is left alone, and later passes skip it
//   until a correction moves one of its bodies (a resting ragdoll costs one look);
// - the passes stop when one corrects nothing, or when the error a pass finds is more
//   than half of what the pass before the last found: a forward and a backward sweep
//   together halve the error of a chain or a ragdoll, while a large hanging grid (where
//   Gauss-Seidel needs hundreds of passes) keeps nearly all of it, so further passes
//   there cost time and correct nothing.
#define ARB__JOINT_PROJECT_PASSES 8
#define ARB__JOINT_MAX_CORRECTION 0.2f
#define ARB__JOINT_PROJECT_TOLERANCE 0.0005f  // m: a tenth of the contacts' linear slop
#define ARB__JOINT_PROJECT_STALL 0.5f

static inline void arb__jmove(arb__body_state* st, float m, float i, arb_vec2 r, arb_vec2 P) {
  if (!st) return;
  // Kinematic bodies (m = i = 0) and fixed rotation (i = 0) keep their exact pose bits.
  if (m != 0.0f) st->dp = arb_mul_add(st->dp, m, P);
  if (i != 0.0f) st->dq = arb_rot_integrate(st->dq, i * arb_cross(r, P));
}

// One projection of joint r; `rod` is its length when it is a rigid rod, else < 0.
// Returns the error it found (before correcting): 0 when within the tolerance, left alone.
static inline float arb__project_joint(arb__body_state* states, const arb__jrun* r, float rod) {
  arb__jbody A = arb__jload(states, r->ia), B = arb__jload(states, r->ib);
  arb_vec2 ra, rb;
  arb_vec2 d = arb__joint_delta(r, &A, &B, &ra, &rb);
  arb_vec2 P;
  float error;
  if (rod < 0.0f) {
    error = arb_length(d);
    if (error <= ARB__JOINT_PROJECT_TOLERANCE) return 0.0f;
    if (error > ARB__JOINT_MAX_CORRECTION) d = arb_scale(ARB__JOINT_MAX_CORRECTION / error, d);
    arb_vec2 sol;
    if (!arb__point_solve(r, ra, rb, d, &sol)) return 0.0f;
    P = arb_neg(sol);
  } else {
    float len;
    arb_vec2 axis = arb_get_length_and_normalize(&len, d);
    if (len == 0.0f) return 0.0f;
    error = arb_absf(len - rod);
    if (error <= ARB__JOINT_PROJECT_TOLERANCE) return 0.0f;
    float c = arb_clampf(len - rod, -ARB__JOINT_MAX_CORRECTION, ARB__JOINT_MAX_CORRECTION);
    float cra = arb_cross(ra, axis), crb = arb_cross(rb, axis);
    float k = r->ma + r->mb + r->iA * cra * cra + r->iB * crb * crb;
    if (k <= 0.0f) return 0.0f;
    P = arb_scale(-c / k, axis);
  }
  arb__jmove(A.st, -r->ma, -r->iA, ra, P);
  arb__jmove(B.st, r->mb, r->iB, rb, P);
  return error;
}

static inline float arb__project_entry(const arb__extras* x, arb__body_state* states, int e) {
  const int32_t tag = x->jrun_tag[e];
  float rod = (tag & 3) == ARB__JRUN_ROD ? x->joints[tag >> 2].length : -1.0f;
  return arb__project_joint(states, &x->jrun[e], rod);
}

// Whether body slot b was moved by the last pass (mark pass) or this one (pass + 1).
static inline bool arb__moved_since(const uint8_t* moved, int b, int pass) {
  return b >= 0 && moved[b] >= pass;
}

void arb__joints_project(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x || x->jrun_count == 0) return;
  const int n = x->jrun_count;
  // Per-body marks, cleared; NULL when out of memory (then every pass visits every joint).
  uint8_t* moved = arb__body_scratch_clear(w, &x->body_moved, 1u);
  uint8_t* open = x->jrun_open;
  float sums[ARB__JOINT_PROJECT_PASSES];
  for (int pass = 0; pass < ARB__JOINT_PROJECT_PASSES; ++pass) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {  // DET: colour order, then reversed
      const int e = (pass & 1) ? n - 1 - k : k;
      if ((x->jrun_tag[e] & 3) == ARB__JRUN_OTHER) continue;
      const arb__jrun* r = &x->jrun[e];
      // A joint found within the tolerance stays so until one of its bodies moves.
      if (pass > 0 && moved && !open[e] && !arb__moved_since(moved, r->ia, pass) &&
          !arb__moved_since(moved, r->ib, pass))
        continue;
      float error = arb__project_entry(x, w->states, e);
      open[e] = error > 0.0f;
      if (error > 0.0f) {
        sum += error;
        if (moved && r->ia >= 0) moved[r->ia] = (uint8_t)(pass + 1);
        if (moved && r->ib >= 0) moved[r->ib] = (uint8_t)(pass + 1);
      }
    }
    sums[pass] = sum;  // the stopping rule: top of this section
    if (sum == 0.0f || (pass > 1 && sum > ARB__JOINT_PROJECT_STALL * sums[pass - 2])) break;
  }
}
