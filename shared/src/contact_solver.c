// DETERMINISM-CRITICAL: integration and the contact solver. Constraints are solved in
// contact array order (Gauss-Seidel), bodies are integrated in slot order.
//
// Why soft-step (substepping with soft contacts and relaxation, as in Box2D v3 and
// "Solver2D") rather than Baumgarte or split impulses:
//   - Baumgarte feeds position error into the velocity solve as a stiff spring with no
//     damping model; tall stacks either sink (small factor) or jitter and gain energy
//     (large factor), and the bias velocity survives into the next step as bounce.
//   - Split impulses (pseudo-velocities) fix the energy leak but need a separate position
//     solve whose convergence again depends on iteration count; tall stacks still creep.
//   - Soft step: each substep re-evaluates separation from the substep position deltas
//     (dp, dq), so the stiffness is tuned in Hz and damping ratio, independent of mass and
//     iteration count (a mass-spring-damper whose parameters are exact per substep). The
//     relax pass removes the bias velocity before the positions move on, so penetration
//     recovery never turns into bounce. Substeps (4) give small effective time steps,
//     which is what makes a 100-box pyramid stand with ~one iteration per substep.
//     Warm starting carries impulses between steps by feature id, and speculative points
//     (positive separation, bias = s/h) stop fast bodies at the surface instead of after
//     penetrating.
// Layout: constraints are graph-coloured (no two constraints of a colour share a moving
// body), then packed four at a time into "wide" constraints solved with 4-lane float
// vectors (SSE2, or a portable 4-float struct elsewhere). Every lane operation is one
// IEEE single-precision add/sub/mul/div/min/max/select, so both implementations give the
// same bits: SIMD here is only a way to run four independent scalar solves at once.
// (-DARB_NO_SIMD forces the portable path; the golden hashes must not change.)
// Materials: friction sqrt(fa*fb), restitution max(ra, rb), applied only to approach
// speeds above world.restitution_threshold and only for points that carried an impulse.
// Forces: the accumulated force/torque is applied once per step (dt*F/m, at the start),
// which keeps force-driven motion semi-implicit Euler at the step level (a spring driven
// through the accumulator keeps its energy); gravity is applied per substep (constant, so
// this is exact). Damping: v *= 1/(1 + dt*c) once per step.
#include "world.h"

#include "extras.h"  // joints: solved in the substep loop, before the contacts
#include "softness.h"
#include <arbiter/worker_pool.h>

// ---- 4-lane floats ----------------------------------------------------------------------

#if defined(__SSE2__) && !defined(ARB_NO_SIMD)
#include <emmintrin.h>
typedef __m128 f4;
static inline f4 f4_set(float a) { return _mm_set1_ps(a); }
static inline f4 f4_zero(void) { return _mm_setzero_ps(); }
static inline f4 f4_add(f4 a, f4 b) { return _mm_add_ps(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return _mm_sub_ps(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return _mm_mul_ps(a, b); }
/// a > b ? a : b per lane (also the scalar definition below).
static inline f4 f4_max(f4 a, f4 b) { return _mm_max_ps(a, b); }
/// a < b ? a : b per lane.
static inline f4 f4_min(f4 a, f4 b) { return _mm_min_ps(a, b); }
static inline f4 f4_gt(f4 a, f4 b) { return _mm_cmpgt_ps(a, b); }
static inline f4 f4_le(f4 a, f4 b) { return _mm_cmple_ps(a, b); }
static inline f4 f4_and(f4 a, f4 b) { return _mm_and_ps(a, b); }
/// mask ? a : b per lane.
static inline f4 f4_select(f4 mask, f4 a, f4 b) { return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b)); }
static inline bool f4_any(f4 mask) { return _mm_movemask_ps(mask) != 0; }
static inline float f4_lane(f4 a, int i) {
  float t[4];
  _mm_storeu_ps(t, a);
  return t[i];
}
#else
typedef struct f4 {
  float v[4];
} f4;
static inline f4 f4_set(float a) { f4 r = {{a, a, a, a}}; return r; }
static inline f4 f4_zero(void) { return f4_set(0.0f); }
#define ARB__F4_OP(name, expr)                          \
  static inline f4 name(f4 a, f4 b) {                   \
    f4 r;                                               \
    for (int i = 0; i < 4; ++i) r.v[i] = (expr);        \
    return r;                                           \
  }
ARB__F4_OP(f4_add, a.v[i] + b.v[i])
ARB__F4_OP(f4_sub, a.v[i] - b.v[i])
ARB__F4_OP(f4_mul, a.v[i] * b.v[i])
ARB__F4_OP(f4_max, a.v[i] > b.v[i] ? a.v[i] : b.v[i])
ARB__F4_OP(f4_min, a.v[i] < b.v[i] ? a.v[i] : b.v[i])
static inline float arb__mask(bool m) {
  uint32_t u = m ? 0xffffffffu : 0u;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline bool arb__is_set(float m) {
  uint32_t u;
  memcpy(&u, &m, 4);
  return u != 0u;
}
ARB__F4_OP(f4_gt, arb__mask(a.v[i] > b.v[i]))
ARB__F4_OP(f4_le, arb__mask(a.v[i] <= b.v[i]))
ARB__F4_OP(f4_and, arb__mask(arb__is_set(a.v[i]) && arb__is_set(b.v[i])))
static inline f4 f4_select(f4 m, f4 a, f4 b) {
  f4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = arb__is_set(m.v[i]) ? a.v[i] : b.v[i];
  return r;
}
static inline bool f4_any(f4 m) {
  return arb__is_set(m.v[0]) || arb__is_set(m.v[1]) || arb__is_set(m.v[2]) || arb__is_set(m.v[3]);
}
static inline float f4_lane(f4 a, int i) { return a.v[i]; }
#endif

// ---- constraints ------------------------------------------------------------------------

// One manifold point of four constraints.
typedef struct arb__wide_point {
  f4 rax, ray, rbx, rby;  // anchors relative to the centres of mass (world axes, step start)
  f4 base_separation;
  f4 normal_impulse, tangent_impulse, max_normal_impulse;
  f4 normal_mass, tangent_mass;
  f4 relative_velocity;  // normal approach speed at step start, or the fastest approach a
                         // solve pass stopped since (restitution)
} arb__wide_point;

// Four constraints of one colour (or one overflow constraint and three empty lanes).
// An empty lane or a missing second point has zero masses: it applies exactly nothing.
typedef struct arb__wide {
  int32_t a[4], b[4];    // body state index; static bodies and empty lanes: the dummy
  int32_t contact[4];    // contact index or -1
  f4 ma, ia, mb, ib;
  f4 nx, ny;
  f4 friction, restitution;
  f4 bias_rate, mass_scale, impulse_scale;
  arb__wide_point p[2];
} arb__wide;

typedef struct arb__lane_body {
  f4 vx, vy, w, flags;
} arb__lane_body;

typedef struct arb__lane_pose {
  f4 dpx, dpy, dqc, dqs;
} arb__lane_pose;

// Loads the four 32-bit words at byte `offset` of four body states, transposed: out[k]
// holds word k of the four lanes (the velocity or the pose change, see arb__body_state).
static inline void arb__gather4(const arb__body_state* st, const int32_t idx[4], size_t offset, f4 out[4]) {
#if defined(__SSE2__) && !defined(ARB_NO_SIMD)
  __m128 r0 = _mm_loadu_ps((const float*)((const char*)&st[idx[0]] + offset));
  __m128 r1 = _mm_loadu_ps((const float*)((const char*)&st[idx[1]] + offset));
  __m128 r2 = _mm_loadu_ps((const float*)((const char*)&st[idx[2]] + offset));
  __m128 r3 = _mm_loadu_ps((const float*)((const char*)&st[idx[3]] + offset));
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  out[0] = r0;
  out[1] = r1;
  out[2] = r2;
  out[3] = r3;
#else
  for (int i = 0; i < 4; ++i) {
    const char* s = (const char*)&st[idx[i]] + offset;
    for (int k = 0; k < 4; ++k) memcpy(&out[k].v[i], s + 4 * k, 4);
  }
#endif
}

_Static_assert(offsetof(arb__body_state, flags) == offsetof(arb__body_state, v) + 12, "v, w, flags: 4 words");
_Static_assert(offsetof(arb__body_state, dq) == offsetof(arb__body_state, dp) + 8, "dp, dq: 4 words");

static inline arb__lane_body arb__gather_vel(const arb__body_state* st, const int32_t idx[4]) {
  f4 r[4];
  arb__gather4(st, idx, offsetof(arb__body_state, v), r);
  return (arb__lane_body){r[0], r[1], r[2], r[3]};
}

// The dummy (static bodies, empty lanes) is never written: it stays zero, and worker
// threads solving wide constraints of one colour would otherwise all store to it.
static inline void arb__scatter_vel(arb__body_state* st, const int32_t idx[4], arb__lane_body b, int dummy) {
#if defined(__SSE2__) && !defined(ARB_NO_SIMD)
  __m128 r0 = b.vx, r1 = b.vy, r2 = b.w, r3 = b.flags;
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  if (idx[0] != dummy) _mm_storeu_ps(&st[idx[0]].v.x, r0);
  if (idx[1] != dummy) _mm_storeu_ps(&st[idx[1]].v.x, r1);
  if (idx[2] != dummy) _mm_storeu_ps(&st[idx[2]].v.x, r2);
  if (idx[3] != dummy) _mm_storeu_ps(&st[idx[3]].v.x, r3);
#else
  for (int i = 0; i < 4; ++i) {
    if (idx[i] == dummy) continue;
    arb__body_state* s = &st[idx[i]];
    s->v.x = b.vx.v[i];
    s->v.y = b.vy.v[i];
    s->w = b.w.v[i];
    memcpy(&s->flags, &b.flags.v[i], 4);
  }
#endif
}

static inline arb__lane_pose arb__gather_pose(const arb__body_state* st, const int32_t idx[4]) {
  f4 r[4];
  arb__gather4(st, idx, offsetof(arb__body_state, dp), r);
  return (arb__lane_pose){r[0], r[1], r[2], r[3]};
}

// Graph colouring: constraints of one colour share no moving body, so the four lanes of
// a wide constraint never touch the same body. Greedy in contact order, colours in
// order, overflow last (one constraint per wide entry): a pure function of the contact
// array. Static bodies never change in the solver, so they do not constrain colouring.
#define ARB__COLOR_COUNT 31
#define ARB__OVERFLOW ARB__COLOR_COUNT

typedef struct arb__solver {
  const int32_t* list;  // the candidate contacts (awake_contacts), or NULL: all
  int ncontacts;        // candidates
  int32_t* lane_of;     // per candidate: 4 * wide entry + lane, or -1 (no points); arena
                        // block under `wides`
  arb__wide* wides;
  int count;
  int offsets[ARB__COLOR_COUNT + 2];  // first wide entry of each colour (overflow last)
  int dummy;  // index of the dummy body state
  float inv_h;
  float max_push;
  float restitution_threshold;
} arb__solver;

static void arb__fill_lane(arb_world* w, arb__wide* k, int lane, int ci, arb__softness soft, arb__softness static_soft, int dummy) {
  const arb__contact* c = &w->contacts[ci];
  const arb_manifold* m = &c->manifold;
  int ia = c->body_a, ib = c->body_b;
  const arb__body* A = &w->bodies[ia];
  const arb__body* B = &w->bodies[ib];
  const arb__body_state* sa = &w->states[ia];
  const arb__body_state* sb = &w->states[ib];
  float ma = w->sims[ia].inv_mass, iA = w->sims[ia].inv_inertia;
  float mb = w->sims[ib].inv_mass, iB = w->sims[ib].inv_inertia;
  arb__softness sf = (ma == 0.0f || mb == 0.0f) ? static_soft : soft;
  k->a[lane] = w->sims[ia].type == ARB_BODY_STATIC ? dummy : ia;
  k->b[lane] = w->sims[ib].type == ARB_BODY_STATIC ? dummy : ib;
  k->contact[lane] = ci;
  float* f;
#define ARB__SETL(field, value) (f = (float*)&k->field, f[lane] = (value))
  ARB__SETL(ma, ma);
  ARB__SETL(ia, iA);
  ARB__SETL(mb, mb);
  ARB__SETL(ib, iB);
  ARB__SETL(nx, m->normal.x);
  ARB__SETL(ny, m->normal.y);
  ARB__SETL(friction, c->friction);
  ARB__SETL(restitution, c->restitution);
  ARB__SETL(bias_rate, sf.bias_rate);
  ARB__SETL(mass_scale, sf.mass_scale);
  ARB__SETL(impulse_scale, sf.impulse_scale);
  arb_vec2 oa = arb_sub(A->center, A->xf.p), ob = arb_sub(B->center, B->xf.p);
  arb_vec2 nrm = m->normal, tan = arb_right_perp(m->normal);
  for (int j = 0; j < m->point_count; ++j) {
    const arb_manifold_point* mp = &m->points[j];
    arb_vec2 ra = arb_sub(mp->anchor_a, oa);
    arb_vec2 rb = arb_sub(mp->anchor_b, ob);
    float rna = arb_cross(ra, nrm), rnb = arb_cross(rb, nrm);
    float kn = ma + mb + iA * rna * rna + iB * rnb * rnb;
    float rta = arb_cross(ra, tan), rtb = arb_cross(rb, tan);
    float kt = ma + mb + iA * rta * rta + iB * rtb * rtb;
    arb_vec2 va = arb_add(sa->v, arb_cross_sv(sa->w, ra));
    arb_vec2 vb = arb_add(sb->v, arb_cross_sv(sb->w, rb));
    ARB__SETL(p[j].rax, ra.x);
    ARB__SETL(p[j].ray, ra.y);
    ARB__SETL(p[j].rbx, rb.x);
    ARB__SETL(p[j].rby, rb.y);
    ARB__SETL(p[j].base_separation, mp->separation - arb_dot(arb_sub(rb, ra), nrm));
    ARB__SETL(p[j].normal_impulse, mp->normal_impulse);
    ARB__SETL(p[j].tangent_impulse, mp->tangent_impulse);
    ARB__SETL(p[j].normal_mass, kn > 0.0f ? 1.0f / kn : 0.0f);
    ARB__SETL(p[j].tangent_mass, kt > 0.0f ? 1.0f / kt : 0.0f);
    ARB__SETL(p[j].relative_velocity, arb_dot(nrm, arb_sub(vb, va)));
    ARB__SETL(p[j].max_normal_impulse, 0.0f);
  }
  // A missing second point: zero masses, so it applies exactly nothing (the lane's every
  // field is written here; only lanes no contact takes are cleared, arb__prepare).
  for (int j = m->point_count; j < 2; ++j) {
    f4* q = (f4*)&k->p[j];
    for (size_t field = 0; field < sizeof k->p[j] / sizeof(f4); ++field) {
      f = (float*)&q[field];
      f[lane] = 0.0f;
    }
  }
#undef ARB__SETL
}

static void arb__empty_wide(arb__wide* k, int dummy) {
  memset(k, 0, sizeof *k);  // all-zero floats: empty lanes
  for (int i = 0; i < 4; ++i) {
    k->a[i] = dummy;
    k->b[i] = dummy;
    k->contact[i] = -1;
  }
}

// Packing: the wide entries with lanes no contact takes are cleared (the last entry of a
// colour, every overflow entry), then each contact fills every field of its own lane, in
// contact order, on the worker threads (the contacts and their bodies are then read in
// memory order, the wide entries written once, in a few streams, one per colour).
typedef struct arb__pack_job {
  arb_world* w;
  const arb__solver* sv;
  arb__softness soft, static_soft;
} arb__pack_job;

static void arb__fill_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__pack_job* job = ctx;
  const arb__solver* sv = job->sv;
  for (int i = begin; i < end; ++i) {
    int at = sv->lane_of[i];
    if (at < 0) continue;
    int ci = sv->list ? sv->list[i] : i;
    arb__fill_lane(job->w, &sv->wides[at >> 2], at & 3, ci, job->soft, job->static_soft, sv->dummy);
  }
}

// The bodies of a contact as the colouring sees them: a moving body's index, -1 for a
// static one (it does not constrain colouring); a = ARB__NO_POINTS: nothing to solve.
typedef struct arb__color_end {
  int32_t a, b;
} arb__color_end;
#define ARB__NO_POINTS (-2)

static arb__color_end arb__contact_ends(const arb_world* w, int ci) {
  const arb__contact* c = &w->contacts[ci];
  if (c->manifold.point_count == 0) return (arb__color_end){ARB__NO_POINTS, ARB__NO_POINTS};
  int a = c->body_a, b = c->body_b;
  return (arb__color_end){w->sims[a].type != ARB_BODY_STATIC ? a : -1,
                          w->sims[b].type != ARB_BODY_STATIC ? b : -1};
}

typedef struct arb__ends_job {
  const arb_world* w;
  const int32_t* list;
  arb__color_end* ends;
} arb__ends_job;

static void arb__ends_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__ends_job* job = ctx;
  for (int i = begin; i < end; ++i)
    job->ends[i] = arb__contact_ends(job->w, job->list ? job->list[i] : i);
}

// Colour the touching contacts and pack them into wide constraints. Returns the count.
// With bodies asleep only the contacts of awake bodies are candidates (awake_contacts is
// ascending, so the colouring still runs in contact order).
static int arb__prepare(arb_world* w, arb__solver* sv, arb__softness soft, arb__softness static_soft) {
  const int32_t* list = w->sleeping_count > 0 ? w->awake_contacts : NULL;
  int ncontacts = list ? w->awake_contact_count : w->contact_count;
  w->stat_solved_contacts = 0;
  sv->wides = NULL;
  sv->count = 0;
  sv->list = list;
  sv->ncontacts = ncontacts;
  if (ncontacts == 0) return 0;
  int32_t* colors = arb__stack_alloc(w, (size_t)ncontacts * sizeof *colors);  // then lane_of
  uint32_t* masks = arb__stack_alloc(w, (size_t)w->body_slots * sizeof *masks);
  if (!colors || !masks) {
    arb__stack_free(w, masks);
    arb__stack_free(w, colors);
    return 0;
  }
  memset(masks, 0, (size_t)w->body_slots * sizeof *masks);
  // The colouring is sequential; what it reads of each contact is gathered first, by the
  // worker threads, into 8 bytes per contact (the contacts are 128 bytes apart).
  arb__color_end* ends = arb__stack_alloc(w, (size_t)ncontacts * sizeof *ends);
  if (ends) {
    arb__ends_job job = {w, list, ends};
    arb_pool_for(w->pool, arb__ends_range, &job, ncontacts, 256);
  }
  int per_color[ARB__COLOR_COUNT + 1];
  memset(per_color, 0, sizeof per_color);
  for (int i = 0; i < ncontacts; ++i) {
    arb__color_end e = ends ? ends[i] : arb__contact_ends(w, list ? list[i] : i);
    if (e.a == ARB__NO_POINTS) {
      colors[i] = -1;
      continue;
    }
    int a = e.a, b = e.b;
    bool ma = a >= 0, mb = b >= 0;
    uint32_t used = (ma ? masks[a] : 0u) | (mb ? masks[b] : 0u);
    int color = ARB__OVERFLOW;
    for (int k = 0; k < ARB__COLOR_COUNT; ++k) {
      if ((used & (1u << k)) == 0u) {
        color = k;
        break;
      }
    }
    if (color != ARB__OVERFLOW) {
      if (ma) masks[a] |= 1u << color;
      if (mb) masks[b] |= 1u << color;
    }
    colors[i] = color;
    per_color[color] += 1;
  }
  // Wide entries per colour: ceil(n/4); overflow constraints one per entry.
  int* offsets = sv->offsets;
  int lanes[ARB__COLOR_COUNT + 1];
  offsets[0] = 0;
  for (int k = 0; k <= ARB__COLOR_COUNT; ++k) {
    int nw = k == ARB__OVERFLOW ? per_color[k] : (per_color[k] + 3) / 4;
    offsets[k + 1] = offsets[k] + nw;
    lanes[k] = 0;
  }
  int nwide = offsets[ARB__COLOR_COUNT + 1];
  w->stat_solved_contacts = 0;
  for (int k = 0; k <= ARB__COLOR_COUNT; ++k) w->stat_solved_contacts += per_color[k];
  arb__stack_free(w, ends);
  arb__stack_free(w, masks);
  sv->lane_of = colors;  // freed by arb__solve after the wide array (LIFO)
  arb__wide* wides = NULL;
  if (nwide > 0) {
    wides = arb__stack_alloc(w, (size_t)nwide * sizeof *wides);
    if (!wides) return 0;
    // Which lane each contact takes is decided here, in contact order.
    for (int i = 0; i < ncontacts; ++i) {
      int color = colors[i];
      if (color < 0) continue;
      int slot = lanes[color]++;
      int entry = color == ARB__OVERFLOW ? offsets[color] + slot : offsets[color] + slot / 4;
      int lane = color == ARB__OVERFLOW ? 0 : slot % 4;
      sv->lane_of[i] = 4 * entry + lane;
    }
    sv->wides = wides;
    for (int k = 0; k < ARB__COLOR_COUNT; ++k) {
      if (per_color[k] % 4 != 0) arb__empty_wide(&wides[offsets[k + 1] - 1], sv->dummy);
    }
    for (int e = offsets[ARB__OVERFLOW]; e < nwide; ++e) arb__empty_wide(&wides[e], sv->dummy);
    arb__pack_job job = {w, sv, soft, static_soft};
    arb_pool_for(w->pool, arb__fill_range, &job, ncontacts, 256);
  }
  sv->wides = wides;
  sv->count = nwide;
  return nwide;
}

// ---- solver passes ----------------------------------------------------------------------

// Applies impulse P = (px, py) at anchors ra/rb: A loses it, B gains it.
#define ARB__APPLY(A, B, k, pt, px, py)                                                         \
  do {                                                                                         \
    A.vx = f4_sub(A.vx, f4_mul(k->ma, px));                                                    \
    A.vy = f4_sub(A.vy, f4_mul(k->ma, py));                                                    \
    A.w = f4_sub(A.w, f4_mul(k->ia, f4_sub(f4_mul(pt->rax, py), f4_mul(pt->ray, px))));        \
    B.vx = f4_add(B.vx, f4_mul(k->mb, px));                                                    \
    B.vy = f4_add(B.vy, f4_mul(k->mb, py));                                                    \
    B.w = f4_add(B.w, f4_mul(k->ib, f4_sub(f4_mul(pt->rbx, py), f4_mul(pt->rby, px))));        \
  } while (0)

// Relative velocity of B's anchor point with respect to A's: (vB + wB x rB) - (vA + wA x rA).
static inline void arb__rel_vel(const arb__lane_body* A, const arb__lane_body* B, const arb__wide_point* pt, f4* dvx, f4* dvy) {
  f4 vax = f4_sub(A->vx, f4_mul(A->w, pt->ray));
  f4 vay = f4_add(A->vy, f4_mul(A->w, pt->rax));
  f4 vbx = f4_sub(B->vx, f4_mul(B->w, pt->rby));
  f4 vby = f4_add(B->vy, f4_mul(B->w, pt->rbx));
  *dvx = f4_sub(vbx, vax);
  *dvy = f4_sub(vby, vay);
}

// Adds `impulse` along the normal to point pt's accumulated impulse (kept >= 0), applies
// the accepted part to both bodies and records the largest push. Restitution bounces from
// the fastest approach the contact had to stop (vn), not only the speed at step start: a
// body caught by a speculative point mid-step has gained speed (gravity) since then, and
// that is the speed it hits with.
static inline void arb__push_normal(arb__lane_body* A, arb__lane_body* B, const arb__wide* k,
                                    arb__wide_point* pt, f4 impulse, f4 vn) {
  const f4 zero = f4_zero();
  f4 nimp = f4_max(f4_add(pt->normal_impulse, impulse), zero);
  impulse = f4_sub(nimp, pt->normal_impulse);
  pt->normal_impulse = nimp;
  pt->max_normal_impulse = f4_max(pt->max_normal_impulse, impulse);
  f4 stopped = f4_gt(impulse, zero);
  pt->relative_velocity = f4_select(stopped, f4_min(pt->relative_velocity, vn), pt->relative_velocity);
  f4 px = f4_mul(impulse, k->nx), py = f4_mul(impulse, k->ny);
  ARB__APPLY((*A), (*B), k, pt, px, py);
}

static void arb__warm_start(arb__body_state* st, arb__solver* sv, int begin, int end) {
  for (int i = begin; i < end; ++i) {
    arb__wide* k = &sv->wides[i];
    arb__lane_body A = arb__gather_vel(st, k->a);
    arb__lane_body B = arb__gather_vel(st, k->b);
    f4 tx = k->ny, ty = f4_sub(f4_zero(), k->nx);  // tangent = right perp of the normal
    for (int j = 0; j < 2; ++j) {
      const arb__wide_point* pt = &k->p[j];
      f4 px = f4_add(f4_mul(pt->normal_impulse, k->nx), f4_mul(pt->tangent_impulse, tx));
      f4 py = f4_add(f4_mul(pt->normal_impulse, k->ny), f4_mul(pt->tangent_impulse, ty));
      ARB__APPLY(A, B, k, pt, px, py);
    }
    arb__scatter_vel(st, k->a, A, sv->dummy);
    arb__scatter_vel(st, k->b, B, sv->dummy);
  }
}

static void arb__solve_contacts(arb__body_state* st, arb__solver* sv, bool use_bias, int begin, int end) {
  const f4 zero = f4_zero(), one = f4_set(1.0f);
  const f4 inv_h = f4_set(sv->inv_h);
  const f4 neg_push = f4_set(-sv->max_push);
  const f4 bias_on = use_bias ? f4_gt(one, zero) : f4_gt(zero, one);
  for (int i = begin; i < end; ++i) {
    arb__wide* k = &sv->wides[i];
    arb__lane_body A = arb__gather_vel(st, k->a);
    arb__lane_body B = arb__gather_vel(st, k->b);
    arb__lane_pose PA = arb__gather_pose(st, k->a);
    arb__lane_pose PB = arb__gather_pose(st, k->b);
    f4 dpx = f4_sub(PB.dpx, PA.dpx), dpy = f4_sub(PB.dpy, PA.dpy);
    for (int j = 0; j < 2; ++j) {
      arb__wide_point* pt = &k->p[j];
      // Current separation from the substep deltas (anchors rotate with the bodies).
      f4 qrbx = f4_sub(f4_mul(PB.dqc, pt->rbx), f4_mul(PB.dqs, pt->rby));
      f4 qrby = f4_add(f4_mul(PB.dqs, pt->rbx), f4_mul(PB.dqc, pt->rby));
      f4 qrax = f4_sub(f4_mul(PA.dqc, pt->rax), f4_mul(PA.dqs, pt->ray));
      f4 qray = f4_add(f4_mul(PA.dqs, pt->rax), f4_mul(PA.dqc, pt->ray));
      f4 dx = f4_add(dpx, f4_sub(qrbx, qrax));
      f4 dy = f4_add(dpy, f4_sub(qrby, qray));
      f4 s = f4_add(f4_add(f4_mul(dx, k->nx), f4_mul(dy, k->ny)), pt->base_separation);
      // s > 0: speculative, allow closing the gap and no more. Else soft push-out (only
      // with bias), capped at max_contact_push_speed.
      f4 spec = f4_gt(s, zero);
      f4 soft_on = f4_and(bias_on, f4_le(s, zero));
      f4 bias = f4_select(spec, f4_mul(s, inv_h), f4_select(soft_on, f4_max(f4_mul(k->bias_rate, s), neg_push), zero));
      f4 mass_scale = f4_select(soft_on, k->mass_scale, one);
      f4 impulse_scale = f4_select(soft_on, k->impulse_scale, zero);
      f4 dvx, dvy;
      arb__rel_vel(&A, &B, pt, &dvx, &dvy);
      f4 vn = f4_add(f4_mul(dvx, k->nx), f4_mul(dvy, k->ny));
      f4 impulse = f4_sub(f4_sub(zero, f4_mul(f4_mul(pt->normal_mass, mass_scale), f4_add(vn, bias))),
                          f4_mul(impulse_scale, pt->normal_impulse));
      arb__push_normal(&A, &B, k, pt, impulse, vn);
    }
    f4 tx = k->ny, ty = f4_sub(zero, k->nx);
    for (int j = 0; j < 2; ++j) {
      arb__wide_point* pt = &k->p[j];
      f4 dvx, dvy;
      arb__rel_vel(&A, &B, pt, &dvx, &dvy);
      f4 vt = f4_add(f4_mul(dvx, tx), f4_mul(dvy, ty));
      f4 impulse = f4_sub(zero, f4_mul(pt->tangent_mass, vt));
      f4 max_f = f4_mul(k->friction, pt->normal_impulse);
      f4 timp = f4_min(f4_max(f4_add(pt->tangent_impulse, impulse), f4_sub(zero, max_f)), max_f);
      impulse = f4_sub(timp, pt->tangent_impulse);
      pt->tangent_impulse = timp;
      f4 px = f4_mul(impulse, tx), py = f4_mul(impulse, ty);
      ARB__APPLY(A, B, k, pt, px, py);
    }
    arb__scatter_vel(st, k->a, A, sv->dummy);
    arb__scatter_vel(st, k->b, B, sv->dummy);
  }
}

static void arb__apply_restitution(arb__body_state* st, arb__solver* sv, int begin, int end) {
  const f4 zero = f4_zero();
  const f4 neg_threshold = f4_set(-sv->restitution_threshold);
  for (int i = begin; i < end; ++i) {
    arb__wide* k = &sv->wides[i];
    f4 bouncy = f4_gt(k->restitution, zero);
    if (!f4_any(bouncy)) continue;
    arb__lane_body A = arb__gather_vel(st, k->a);
    arb__lane_body B = arb__gather_vel(st, k->b);
    for (int j = 0; j < 2; ++j) {
      arb__wide_point* pt = &k->p[j];
      // Only real impacts bounce: fast enough, and the point actually pushed.
      f4 apply = f4_and(bouncy, f4_and(f4_le(pt->relative_velocity, neg_threshold), f4_gt(pt->max_normal_impulse, zero)));
      if (!f4_any(apply)) continue;
      f4 dvx, dvy;
      arb__rel_vel(&A, &B, pt, &dvx, &dvy);
      f4 vn = f4_add(f4_mul(dvx, k->nx), f4_mul(dvy, k->ny));
      f4 impulse = f4_sub(zero, f4_mul(pt->normal_mass, f4_add(vn, f4_mul(k->restitution, pt->relative_velocity))));
      impulse = f4_select(apply, impulse, zero);
      arb__push_normal(&A, &B, k, pt, impulse, vn);
    }
    arb__scatter_vel(st, k->a, A, sv->dummy);
    arb__scatter_vel(st, k->b, B, sv->dummy);
  }
}

// Hit event of one solved contact: its point that stopped the fastest approach (the
// restitution speed), when that is above the threshold and the point pushed (a
// speculative point the body did not reach pushes nothing). Events are collected in wide
// (colour) order and sorted into contact order by arb__sort_hits.
static void arb__record_hit(arb_world* w, const arb__wide* k, int lane, const arb__contact* c) {
  const arb_manifold* m = &c->manifold;
  int best = -1;
  float speed = w->def.hit_event_threshold;
  for (int j = 0; j < m->point_count; ++j) {
    float approach = -f4_lane(k->p[j].relative_velocity, lane);
    if (f4_lane(k->p[j].max_normal_impulse, lane) > 0.0f && approach > speed) {
      speed = approach;
      best = j;
    }
  }
  if (best < 0) return;
  if (w->hit_count == w->hit_capacity) {
    int cap = w->hit_capacity ? 2 * w->hit_capacity : 64;
    arb_contact_hit_event* p = arb__grow(w, w->hit_events, w->hit_count, cap, sizeof *p);
    if (!p) return;  // out of memory: the event is lost, the simulation is not affected
    w->hit_events = p;
    w->hit_capacity = cap;
  }
  arb_contact_hit_event* e = &w->hit_events[w->hit_count++];
  e->a.index1 = c->body_a + 1;
  e->a.generation = w->bodies[c->body_a].generation;
  e->b.index1 = c->body_b + 1;
  e->b.generation = w->bodies[c->body_b].generation;
  e->point = m->points[best].point;
  e->normal = m->normal;
  e->approach_speed = speed;
}

// Contact order: key = contact index (high) | event position (low).
static void arb__sort_hits(arb_world* w, const int32_t* contact_of) {
  int n = w->hit_count;
  if (n < 2) return;
  uint64_t* keys = arb__stack_alloc(w, (size_t)n * sizeof *keys);
  arb_contact_hit_event* copy = keys ? arb__stack_alloc(w, (size_t)n * sizeof *copy) : NULL;
  if (copy) {
    for (int i = 0; i < n; ++i) keys[i] = ((uint64_t)(uint32_t)contact_of[i] << 32) | (uint32_t)i;
    arb__sort_u64(w, keys, n);
    memcpy(copy, w->hit_events, (size_t)n * sizeof *copy);
    for (int i = 0; i < n; ++i) w->hit_events[i] = copy[keys[i] & 0xffffffffu];
  } else {
    w->hit_count = 0;  // out of memory: no events rather than events out of order
  }
  arb__stack_free(w, copy);
  arb__stack_free(w, keys);
}

// ---- passes over the colours ------------------------------------------------------------

typedef enum { ARB__WARM_START, ARB__SOLVE, ARB__RELAX, ARB__RESTITUTION } arb__pass;

typedef struct arb__pass_job {
  arb__body_state* st;
  arb__solver* sv;
  arb__pass pass;
  int base;  // first wide entry of the colour being run
} arb__pass_job;

static void arb__pass_range(void* ctx, int begin, int end, int thread) {
  const arb__pass_job* job = ctx;
  begin += job->base;
  end += job->base;
  switch (job->pass) {
    case ARB__WARM_START: arb__warm_start(job->st, job->sv, begin, end); break;
    case ARB__SOLVE: arb__solve_contacts(job->st, job->sv, true, begin, end); break;
    case ARB__RELAX: arb__solve_contacts(job->st, job->sv, false, begin, end); break;
    case ARB__RESTITUTION: arb__apply_restitution(job->st, job->sv, begin, end); break;
  }
}

// One pass over every wide constraint, colour after colour. The wide constraints of one
// colour share no moving body, so worker threads run them in any order with the same
// bits; the overflow entries (which may share bodies) run in order on this thread.
static void arb__run_pass(arb_pool* pool, arb__body_state* st, arb__solver* sv, arb__pass pass) {
  arb__pass_job job = {st, sv, pass, 0};
  if (sv->count == 0) return;
  if (!pool) {
    arb__pass_range(&job, 0, sv->count, 0);
    return;
  }
  for (int c = 0; c < ARB__COLOR_COUNT; ++c) {
    job.base = sv->offsets[c];
    arb_pool_for(pool, arb__pass_range, &job, sv->offsets[c + 1] - sv->offsets[c], 16);
  }
  job.base = sv->offsets[ARB__OVERFLOW];
  arb__pass_range(&job, 0, sv->offsets[ARB__OVERFLOW + 1] - sv->offsets[ARB__OVERFLOW], 0);
}

// Hands the solved impulses back to the contacts, in contact order (each contact reads its
// own lane: a per-contact write, safe in parallel, and the contact array is walked in
// memory order), and marks the contacts with a hit event.
typedef struct arb__store_job {
  arb_world* w;
  const arb__solver* sv;
  uint8_t* hit;  // per candidate contact: 1 when arb__record_hit will record; or NULL
} arb__store_job;

static bool arb__has_hit(const arb_world* w, const arb__wide* k, int lane, const arb_manifold* m) {
  float speed = w->def.hit_event_threshold;
  for (int j = 0; j < m->point_count; ++j) {
    float approach = -f4_lane(k->p[j].relative_velocity, lane);
    if (f4_lane(k->p[j].max_normal_impulse, lane) > 0.0f && approach > speed) return true;
  }
  return false;
}

static void arb__store_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__store_job* job = ctx;
  arb_world* w = job->w;
  const arb__solver* sv = job->sv;
  for (int i = begin; i < end; ++i) {
    int at = sv->lane_of[i];
    if (job->hit) job->hit[i] = 0;
    if (at < 0) continue;
    const arb__wide* k = &sv->wides[at >> 2];
    int lane = at & 3;
    arb_manifold* m = &w->contacts[sv->list ? sv->list[i] : i].manifold;
    for (int j = 0; j < m->point_count; ++j) {
      m->points[j].normal_impulse = f4_lane(k->p[j].normal_impulse, lane);
      m->points[j].tangent_impulse = f4_lane(k->p[j].tangent_impulse, lane);
    }
    if (job->hit) job->hit[i] = arb__has_hit(w, k, lane, m);
  }
}

// The hit events come out in contact order here; arb__sort_hits keeps them so (one event
// per contact: the same order as sorting events collected in colour order).
static void arb__store_impulses(arb_world* w, const arb__solver* sv) {
  if (!sv->wides) return;
  int n = sv->ncontacts;
  int32_t* contact_of = arb__stack_alloc(w, (size_t)(n + 1) * sizeof *contact_of);
  uint8_t* hit = contact_of ? arb__stack_alloc(w, (size_t)n + 1) : NULL;
  arb__store_job job = {w, sv, hit};
  arb_pool_for(w->pool, arb__store_range, &job, n, 256);
  if (!hit) {  // out of memory: the impulses are stored, this step's hit events are lost
    arb__stack_free(w, contact_of);
    return;
  }
  for (int i = 0; i < n; ++i) {
    if (!hit[i]) continue;
    int at = sv->lane_of[i], ci = sv->list ? sv->list[i] : i;
    int before = w->hit_count;
    arb__record_hit(w, &sv->wides[at >> 2], at & 3, &w->contacts[ci]);
    if (w->hit_count > before) contact_of[before] = ci;
  }
  arb__stack_free(w, hit);
  arb__sort_hits(w, contact_of);
  arb__stack_free(w, contact_of);
}

// Accumulated forces and damping, once per step (see the comment at the top).
static inline void arb__apply_force(arb_world* w, int i, float dt) {
  const arb__body_sim* sim = &w->sims[i];
  if (sim->type != ARB_BODY_DYNAMIC) return;
  const arb__body* b = &w->bodies[i];
  arb__body_state* st = &w->states[i];
  arb_vec2 v = arb_mul_add(st->v, dt * sim->inv_mass, b->force);
  float av = st->w + dt * sim->inv_inertia * b->torque;
  if (sim->linear_damping > 0.0f) v = arb_scale(1.0f / (1.0f + dt * sim->linear_damping), v);
  if (sim->angular_damping > 0.0f) av *= 1.0f / (1.0f + dt * sim->angular_damping);
  st->v = v;
  st->w = av;
}

static inline void arb__integrate_velocity(arb_world* w, int i, float h, arb_vec2 g, float max_v, float max_w) {
  const arb__body_sim* sim = &w->sims[i];
  if (sim->type != ARB_BODY_DYNAMIC) return;
  arb__body_state* st = &w->states[i];
  arb_vec2 v = arb_mul_add(st->v, h * sim->gravity_scale, g);
  float av = st->w;
  float vv = arb_dot(v, v);
  if (vv > max_v * max_v) v = arb_scale(max_v / sqrtf(vv), v);
  if (av * av > max_w * max_w) av = av < 0.0f ? -max_w : max_w;
  st->v = v;
  st->w = av;
}

static inline void arb__integrate_position(arb_world* w, int i, float h) {
  int type = w->sims[i].type;
  if (type != ARB_BODY_DYNAMIC && type != ARB_BODY_KINEMATIC) return;
  arb__body_state* st = &w->states[i];
  st->dq = arb_rot_integrate(st->dq, h * st->w);
  st->dp = arb_mul_add(st->dp, h, st->v);
}

// ---- passes over the bodies -------------------------------------------------------------

// Each body pass reads and writes only the body it is at, so worker threads split the
// awake bodies in blocks with the same bits. It runs over all slots (nothing asleep) or
// over the awake list.
typedef enum { ARB__APPLY_FORCE, ARB__INTEGRATE_VELOCITY, ARB__INTEGRATE_POSITION } arb__body_pass;

typedef struct arb__body_job {
  arb_world* w;
  const int32_t* list;  // awake bodies, or NULL: slots 0..n-1
  arb__body_pass pass;
  float dt, h, max_v, max_w;
  arb_vec2 g;
} arb__body_job;

#define ARB__EACH_BODY(w, list, begin, end, body_fn, ...)                           \
  do {                                                                              \
    if (list) {                                                                     \
      for (int k_ = (begin); k_ < (end); ++k_) body_fn(w, (list)[k_], __VA_ARGS__); \
    } else {                                                                        \
      for (int i_ = (begin); i_ < (end); ++i_) body_fn(w, i_, __VA_ARGS__);         \
    }                                                                               \
  } while (0)

static void arb__body_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__body_job* job = ctx;
  arb_world* w = job->w;  // locals: the body writes (floats) could alias the job's floats
  const int32_t* list = job->list;
  const float dt = job->dt, h = job->h, max_v = job->max_v, max_w = job->max_w;
  const arb_vec2 g = job->g;
  switch (job->pass) {
    case ARB__APPLY_FORCE:
      ARB__EACH_BODY(w, list, begin, end, arb__apply_force, dt);
      break;
    case ARB__INTEGRATE_VELOCITY:
      ARB__EACH_BODY(w, list, begin, end, arb__integrate_velocity, h, g, max_v, max_w);
      break;
    case ARB__INTEGRATE_POSITION:
      ARB__EACH_BODY(w, list, begin, end, arb__integrate_position, h);
      break;
  }
}

static void arb__run_body_pass(arb_world* w, arb__body_job* job, arb__body_pass pass) {
  int n;
  job->list = arb__awake_list(w, &n);
  job->pass = pass;
  arb_pool_for(w->pool, arb__body_range, job, n, 256);
}

void arb__solve(arb_world* w, float dt) {
  const int substeps = w->def.substeps;
  const int solves = w->def.solve_iterations;
  const int relax = w->def.relax_iterations;
  const float h = dt / (float)substeps;
  // Contacts stiffer than a quarter of the substep rate would be under-resolved.
  float hertz = arb_minf(w->def.contact_hertz, 0.25f * (float)substeps / dt);
  arb__softness soft = arb__make_softness(hertz, w->def.contact_damping_ratio, h);
  arb__softness static_soft = arb__make_softness(2.0f * hertz, w->def.contact_damping_ratio, h);

  arb__solver sv;
  memset(&sv, 0, sizeof sv);
  sv.dummy = w->body_capacity;
  sv.inv_h = 1.0f / h;
  sv.max_push = w->def.max_contact_push_speed;
  sv.restitution_threshold = w->def.restitution_threshold;
  arb__body_state* st = w->states;
  memset(&st[sv.dummy], 0, sizeof st[sv.dummy]);
  st[sv.dummy].dq = arb_rot_identity;
  arb__prepare(w, &sv, soft, static_soft);
  arb__joints_prepare(w, dt, h);
  arb__body_job bodies = {w,
                          NULL,
                          ARB__APPLY_FORCE,
                          dt,
                          h,
                          w->def.max_linear_speed,
                          ARB__MAX_ROTATION / h,
                          w->def.gravity};
  arb__run_body_pass(w, &bodies, ARB__APPLY_FORCE);
  for (int s = 0; s < substeps; ++s) {
    arb__run_body_pass(w, &bodies, ARB__INTEGRATE_VELOCITY);
    arb__joints_warm_start(w);
    arb__run_pass(w->pool, st, &sv, ARB__WARM_START);
    for (int i = 0; i < solves; ++i) {
      arb__joints_solve(w, h, true);
      arb__run_pass(w->pool, st, &sv, ARB__SOLVE);
    }
    arb__run_body_pass(w, &bodies, ARB__INTEGRATE_POSITION);
    for (int i = 0; i < relax; ++i) {
      arb__joints_solve(w, h, false);
      arb__run_pass(w->pool, st, &sv, ARB__RELAX);
    }
  }
  arb__run_pass(w->pool, st, &sv, ARB__RESTITUTION);
  arb__joints_store(w);
  arb__store_impulses(w, &sv);
  // LIFO: the wide array is the newest block, the lane array below it.
  if (sv.wides) arb__stack_free(w, sv.wides);
  if (sv.lane_of) arb__stack_free(w, sv.lane_of);
}
