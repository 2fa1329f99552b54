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
// vectors (SSE2, or a portable 4-float struct elsewhere), or eight at a time with AVX2
// where the CPU has it (contact_solver_avx2.c, chosen at run time; the same source,
// contact_lanes.inc). Every lane operation is one IEEE single-precision
// add/sub/mul/div/min/max/select, so every implementation gives the same bits: SIMD here
// is only a way to run independent scalar solves at once, and which constraints run
// together does not matter within a colour. (-DARB_NO_SIMD forces the portable path and
// ARBITER_SIMD=sse2 the 4 lanes; the golden hashes must not change.)
// Materials: friction sqrt(fa*fb), restitution max(ra, rb), applied once per step after the
// relax pass, from the approach speed at step start, only where it is above
// world.restitution_threshold, the point pushed and its surfaces met, and never leaving
// the two bodies with more kinetic energy than they had (arb__apply_restitution).
// Speeds: clamped to max_linear_speed (and the rotation limit) in every substep and once
// more after restitution, the last stage that changes a velocity.
// Forces: the accumulated force/torque is applied once per step (dt*F/m, at the start),
// which keeps force-driven motion semi-implicit Euler at the step level (a spring driven
// through the accumulator keeps its energy); gravity is applied per substep (constant, so
// this is exact). Damping: v *= 1/(1 + dt*c) once per step.
#include <stdlib.h>
#include <string.h>

#include "contact_lanes.h"
#include "extras.h"  // joints: solved in the substep loop, before the contacts

// ---- 4-lane floats (the 8-lane ones: contact_solver_avx2.c) ------------------------------

#if defined(__SSE2__) && !defined(ARB_NO_SIMD)
#include <emmintrin.h>
#define ARB__FW_LANES 4
#include "lanes_x86.h"
#else
typedef struct fw {
  float v[4];
} fw;
static inline fw fw_set(float a) {
  fw r = {{a, a, a, a}};
  return r;
}
static inline fw fw_zero(void) {
  return fw_set(0.0f);
}
#define ARB__FW_OP(name, expr)                   \
  static inline fw name(fw a, fw b) {            \
    fw r;                                        \
    for (int i = 0; i < 4; ++i) r.v[i] = (expr); \
    return r;                                    \
  }
ARB__FW_OP(fw_add, a.v[i] + b.v[i])
ARB__FW_OP(fw_sub, a.v[i] - b.v[i])
ARB__FW_OP(fw_mul, a.v[i] * b.v[i])
ARB__FW_OP(fw_max, a.v[i] > b.v[i] ? a.v[i] : b.v[i])
ARB__FW_OP(fw_min, a.v[i] < b.v[i] ? a.v[i] : b.v[i])
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
ARB__FW_OP(fw_gt, arb__mask(a.v[i] > b.v[i]))
ARB__FW_OP(fw_le, arb__mask(a.v[i] <= b.v[i]))
ARB__FW_OP(fw_and, arb__mask(arb__is_set(a.v[i]) && arb__is_set(b.v[i])))
static inline fw fw_select(fw m, fw a, fw b) {
  fw r;
  for (int i = 0; i < 4; ++i) r.v[i] = arb__is_set(m.v[i]) ? a.v[i] : b.v[i];
  return r;
}
static inline bool fw_any(fw m) {
  return arb__is_set(m.v[0]) || arb__is_set(m.v[1]) || arb__is_set(m.v[2]) || arb__is_set(m.v[3]);
}
static inline float fw_lane(fw a, int i) {
  return a.v[i];
}
#endif

// Loads the four 32-bit words at byte `offset` of four body states, transposed: out[k]
// holds word k of the four lanes (the velocity or the pose change, see arb__body_state).
static inline void arb__gather_words(const arb__body_state* st, const int32_t idx[4], size_t offset,
                                     fw out[4]) {
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

// The inverse, skipping the lanes at the dummy.
static inline void arb__scatter_words(arb__body_state* st, const int32_t idx[4], size_t offset,
                                      const fw in[4], int dummy) {
#if defined(__SSE2__) && !defined(ARB_NO_SIMD)
  __m128 r0 = in[0], r1 = in[1], r2 = in[2], r3 = in[3];
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  if (idx[0] != dummy) _mm_storeu_ps((float*)((char*)&st[idx[0]] + offset), r0);
  if (idx[1] != dummy) _mm_storeu_ps((float*)((char*)&st[idx[1]] + offset), r1);
  if (idx[2] != dummy) _mm_storeu_ps((float*)((char*)&st[idx[2]] + offset), r2);
  if (idx[3] != dummy) _mm_storeu_ps((float*)((char*)&st[idx[3]] + offset), r3);
#else
  for (int i = 0; i < 4; ++i) {
    if (idx[i] == dummy) continue;
    char* s = (char*)&st[idx[i]] + offset;
    for (int k = 0; k < 4; ++k) memcpy(s + 4 * k, &in[k].v[i], 4);
  }
#endif
}

#define ARB__W 4
#define ARB__LANES_NAME arb__contact_lanes_4
#include "contact_lanes.inc"

// ---- colouring and hit order (the same for every lane width) ----------------------------

// The bodies of a contact as the colouring sees them: a moving body's index, -1 for a
// static one (it does not constrain colouring); a = ARB__NO_POINTS: nothing to solve.
typedef struct arb__color_end {
  int32_t a, b;
} arb__color_end;
#define ARB__NO_POINTS (-2)

static arb__color_end arb__contact_ends(const arb_world* w, int ci) {
  const arb__contact_brief* c = &w->contact_briefs[ci];
  if (c->point_count == 0) return (arb__color_end){ARB__NO_POINTS, ARB__NO_POINTS};
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

// Colours the touching contacts (the same for every lane width): sv->lane_of = each
// candidate's colour (-1: no points), per_color the counts. Returns false when there is
// nothing to pack (no candidates, or no memory: then nothing is solved this step).
// With bodies asleep only the contacts of awake bodies are candidates (awake_contacts is
// ascending, so the colouring still runs in contact order).
static bool arb__color_contacts(arb_world* w, arb__solver* sv,
                                int per_color[ARB__COLOR_COUNT + 1]) {
  const int32_t* list = w->sleeping_count > 0 ? w->awake_contacts : NULL;
  int ncontacts = list ? w->awake_contact_count : w->contact_count;
  w->stat_solved_contacts = 0;
  sv->list = list;
  sv->ncontacts = ncontacts;
  if (ncontacts == 0) return false;
  int32_t* colors = arb__stack_alloc(w, (size_t)ncontacts * sizeof *colors);  // then lane_of
  uint32_t* masks = arb__stack_alloc(w, (size_t)w->body_slots * sizeof *masks);
  if (!colors || !masks) {
    arb__stack_free(w, masks);
    arb__stack_free(w, colors);
    return false;
  }
  memset(masks, 0, (size_t)w->body_slots * sizeof *masks);
  // The colouring is sequential; what it reads of each contact is gathered first, by the
  // worker threads, into 8 bytes per contact (from the 20-byte briefs).
  arb__color_end* ends = arb__stack_alloc(w, (size_t)ncontacts * sizeof *ends);
  if (ends) {
    arb__ends_job job = {w, list, ends};
    arb_pool_for(w->pool, arb__ends_range, &job, ncontacts, 256);
  }
  memset(per_color, 0, (ARB__COLOR_COUNT + 1) * sizeof *per_color);
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
  for (int k = 0; k <= ARB__COLOR_COUNT; ++k) w->stat_solved_contacts += per_color[k];
  arb__stack_free(w, ends);
  arb__stack_free(w, masks);
  sv->lane_of = colors;  // freed by arb__solve after the wide array (LIFO)
  return true;
}

// Contact order: key = contact index (high) | event position (low).
void arb__sort_hits(arb_world* w, const int32_t* contact_of) {
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

// The world's speed limits: linear speed at most max_v (direction kept), angular at max_w.
static inline void arb__clamp_speed(arb__body_state* st, float max_v, float max_w) {
  float vv = arb_dot(st->v, st->v);
  if (vv > max_v * max_v) st->v = arb_scale(max_v / sqrtf(vv), st->v);
  if (st->w * st->w > max_w * max_w) st->w = st->w < 0.0f ? -max_w : max_w;
}

static inline void arb__integrate_velocity(arb_world* w, int i, float h, arb_vec2 g, float max_v,
                                           float max_w) {
  const arb__body_sim* sim = &w->sims[i];
  if (sim->type != ARB_BODY_DYNAMIC) return;
  arb__body_state* st = &w->states[i];
  st->v = arb_mul_add(st->v, h * sim->gravity_scale, g);
  arb__clamp_speed(st, max_v, max_w);
}

// After the last stage that changes velocities (restitution): what the step hands on,
// and what the state shows, is within the limits too.
static inline void arb__final_clamp(arb_world* w, int i, float max_v, float max_w) {
  if (w->sims[i].type != ARB_BODY_DYNAMIC) return;
  arb__clamp_speed(&w->states[i], max_v, max_w);
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
typedef enum {
  ARB__APPLY_FORCE,
  ARB__INTEGRATE_VELOCITY,
  ARB__INTEGRATE_POSITION,
  ARB__CLAMP_SPEED
} arb__body_pass;

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
    case ARB__CLAMP_SPEED:
      ARB__EACH_BODY(w, list, begin, end, arb__final_clamp, max_v, max_w);
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
  sv.substeps = substeps;
  sv.h = h;
  sv.inv_h = 1.0f / h;
  sv.dt = dt;
  sv.gravity = w->def.gravity;
  sv.max_push = w->def.max_contact_push_speed;
  sv.restitution_threshold = w->def.restitution_threshold;
  arb__body_state* st = w->states;
  memset(&st[sv.dummy], 0, sizeof st[sv.dummy]);
  st[sv.dummy].dq = arb_rot_identity;
  const arb__contact_lanes* lanes = arb__contact_lanes_select();
  int per_color[ARB__COLOR_COUNT + 1];
  if (arb__color_contacts(w, &sv, per_color)) lanes->pack(w, &sv, per_color, soft, static_soft);
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
    lanes->run_pass(w->pool, st, &sv, ARB__WARM_START);
    for (int i = 0; i < solves; ++i) {
      arb__joints_solve(w, h, true);
      lanes->run_pass(w->pool, st, &sv, ARB__SOLVE);
    }
    arb__run_body_pass(w, &bodies, ARB__INTEGRATE_POSITION);
    for (int i = 0; i < relax; ++i) {
      arb__joints_solve(w, h, false);
      lanes->run_pass(w->pool, st, &sv, ARB__RELAX);
    }
  }
  lanes->run_pass(w->pool, st, &sv, ARB__RESTITUTION);
  arb__run_body_pass(w, &bodies, ARB__CLAMP_SPEED);
  arb__joints_store(w);
  lanes->store_impulses(w, &sv);
  // LIFO: the wide array is the newest block, the lane array below it.
  if (sv.wides_block) arb__stack_free(w, sv.wides_block);
  if (sv.lane_of) arb__stack_free(w, sv.lane_of);
}

// ---- lane width -------------------------------------------------------------------------

static int arb__forced_width;  // arb__contact_lanes_force (tests, before any step); 0: auto

static const arb__contact_lanes* arb__lanes_of_width(int width) {
#if defined(ARB_AVX2_LANES) && !defined(ARB_NO_SIMD)
  __builtin_cpu_init();
  if (width == 8 && __builtin_cpu_supports("avx2")) return &arb__contact_lanes_8;
#endif
  (void)width;
  return &arb__contact_lanes_4;
}

// Asked once per step (no state shared between the threads stepping worlds; a getenv is
// nothing beside a step).
const arb__contact_lanes* arb__contact_lanes_select(void) {
  if (arb__forced_width != 0) return arb__lanes_of_width(arb__forced_width);
  const char* env = getenv("ARBITER_SIMD");
  return arb__lanes_of_width(env && strcmp(env, "sse2") == 0 ? 4 : 8);
}

int arb__contact_lanes_force(int width) {
  arb__forced_width = width;
  return arb__contact_lanes_select()->width;
}

int arb_contact_solver_lanes(void) {
  return arb__contact_lanes_select()->width;
}
