// DETERMINISM-CRITICAL: the world, its memory, and the step pipeline (see world.h).
// Iteration is always in body slot order or contact array order.
#include "world.h"
#include <arbiter/worker_pool.h>

#include "extras.h"

#include <stdlib.h>
#include <string.h>

// ---- memory -----------------------------------------------------------------------------

// Every block carries its size in front so the byte count is exact without the caller
// passing sizes back (keeps the allocator hooks a plain alloc/free pair).
#define ARB__HEADER 32

void* arb__alloc(arb_world* w, size_t size) {
  size_t total = size + ARB__HEADER;
  void* raw = w->def.alloc ? w->def.alloc(total, w->def.alloc_user) : malloc(total);
  if (!raw) return NULL;
  memcpy(raw, &size, sizeof size);
  w->byte_count += (int64_t)total;
  return (uint8_t*)raw + ARB__HEADER;
}

void arb__free(arb_world* w, void* ptr) {
  if (!ptr) return;
  uint8_t* raw = (uint8_t*)ptr - ARB__HEADER;
  size_t size;
  memcpy(&size, raw, sizeof size);
  w->byte_count -= (int64_t)(size + ARB__HEADER);
  if (w->def.free) {
    w->def.free(raw, w->def.alloc_user);
  } else {
    free(raw);
  }
}

void* arb__grow(arb_world* w, void* old, int old_cap, int new_cap, size_t elem) {
  void* p = arb__alloc(w, (size_t)new_cap * elem);
  if (!p) return NULL;
  if (old && old_cap > 0) memcpy(p, old, (size_t)old_cap * elem);
  arb__free(w, old);
  return p;
}

void* arb__stack_alloc(arb_world* w, size_t size) {
  arb__stack* s = &w->stack;
  size = (size + 31u) & ~(size_t)31u;
  if (size == 0) size = 32;
  if (s->count == ARB__STACK_MAX_ENTRIES) return NULL;  // programmer error: too deep
  arb__stack_entry* e = &s->entries[s->count];
  e->size = size;
  if (s->top + size > s->capacity) {
    e->ptr = arb__alloc(w, size);
    e->heap = true;
  } else {
    e->ptr = s->data + s->top;
    e->heap = false;
  }
  if (!e->ptr) return NULL;
  s->top += size;
  if (s->top > s->high_water) s->high_water = s->top;
  s->count += 1;
  return e->ptr;
}

void arb__stack_free(arb_world* w, void* ptr) {
  arb__stack* s = &w->stack;
  if (!ptr || s->count == 0) return;
  arb__stack_entry* e = &s->entries[s->count - 1];
  if (e->ptr != ptr) return;  // not LIFO: programmer error, leak into the next reset
  if (e->heap) arb__free(w, e->ptr);
  s->top -= e->size;
  s->count -= 1;
}

// Called at the start of a step: grow the arena to last step's high-water mark so this
// step (and every later one of the same size) allocates nothing.
static void arb__stack_prepare(arb_world* w) {
  arb__stack* s = &w->stack;
  s->top = 0;
  s->count = 0;
  if (s->high_water > s->capacity) {
    size_t cap = s->high_water + s->high_water / 2;
    uint8_t* p = arb__alloc(w, cap);
    if (!p) return;  // keep the old arena; the step falls back to the heap
    arb__free(w, s->data);
    s->data = p;
    s->capacity = cap;
  }
}

// ---- defs -------------------------------------------------------------------------------

// The defaults as data: a def starts as one of these, every field not named zero.
#define ARB__SHAPE_DEFAULTS                                                         \
  {                                                                                 \
    .type = ARB_SHAPE_NONE, .density = 1.0f, .friction = 0.6f, .category_bits = 1u, \
    .mask_bits = 0xffffffffu                                                        \
  }
static const arb_world_def arb__world_defaults = {
    .gravity = {0.0f, -9.81f},
    .substeps = 4,
    .solve_iterations = 1,
    .relax_iterations = 1,
    .restitution_threshold = 1.0f,
    .contact_hertz = 30.0f,
    .contact_damping_ratio = 10.0f,
    .max_contact_push_speed = 3.0f,
    .max_linear_speed = 400.0f,
    .enable_continuous = true,
    .continuous_dynamic = true,
    .enable_sleep = true,
    .enable_contact_recycling = true,
    .hit_event_threshold = 1.0f,
    .body_capacity = 16,
    .worker_count = 1,
    .internal_value = ARB__DEF_COOKIE,
};
static const arb_shape_def arb__shape_defaults = ARB__SHAPE_DEFAULTS;
static const arb_body_def arb__body_defaults = {
    .type = ARB_BODY_DYNAMIC,
    .gravity_scale = 1.0f,
    .enable_sleep = true,
    .is_awake = true,
    .sleep_threshold = 0.05f,
    .shape = ARB__SHAPE_DEFAULTS,
    .internal_value = ARB__DEF_COOKIE,
};

arb_world_def arb_default_world_def(void) {
  return arb__world_defaults;
}
arb_shape_def arb_default_shape_def(void) {
  return arb__shape_defaults;
}
arb_body_def arb_default_body_def(void) {
  return arb__body_defaults;
}

static bool arb__world_def_valid(const arb_world_def* d) {
  if (d->internal_value != ARB__DEF_COOKIE) return false;
  if (!arb_vec2_is_valid(d->gravity)) return false;
  if (d->substeps < 1 || d->substeps > ARB__MAX_SUBSTEPS) return false;
  if (d->solve_iterations < 1 || d->solve_iterations > ARB__MAX_ITERATIONS) return false;
  if (d->relax_iterations < 1 || d->relax_iterations > ARB__MAX_ITERATIONS) return false;
  float f[] = {d->restitution_threshold,  d->contact_hertz,    d->contact_damping_ratio,
               d->max_contact_push_speed, d->max_linear_speed, d->hit_event_threshold};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) {
    if (!arb_is_valid_float(f[i]) || f[i] < 0.0f) return false;
  }
  if (d->max_linear_speed <= 0.0f) return false;
  if ((d->alloc == NULL) != (d->free == NULL)) return false;
  if (d->body_capacity < 0 || d->body_capacity > ARB__MAX_BODIES) return false;
  if (d->worker_count < 1 || d->worker_count > 64) return false;
  return true;
}

// ---- world ------------------------------------------------------------------------------

arb_world* arb_world_create(const arb_world_def* def) {
  ARB__CHECK_DEF(def, ARB__DEF_COOKIE);
  if (!def || !arb__world_def_valid(def)) return NULL;
  arb_world tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.def = *def;
  arb_world* w = arb__alloc(&tmp, sizeof *w);
  if (!w) return NULL;
  *w = tmp;
  w->free_head = ARB__NULL;
  arb__tree_init(&w->static_tree);
  arb__tree_init(&w->dynamic_tree);
  int cap = def->body_capacity > 0 ? def->body_capacity : 16;
  w->bodies = arb__alloc(w, (size_t)cap * sizeof *w->bodies);
  w->states = arb__alloc(w, (size_t)(cap + 1) * sizeof *w->states);  // + the solver dummy
  w->sims = arb__alloc(w, (size_t)cap * sizeof *w->sims);
  if (!w->bodies || !w->states || !w->sims) {
    arb_world_destroy(w);
    return NULL;
  }
  w->body_capacity = cap;
  // The step posts many short loops: idle workers spin a while before they sleep.
  w->pool = arb_pool_create(def->worker_count - 1, 20000);  // NULL: every loop on this thread
  return w;
}

void arb_world_destroy(arb_world* w) {
  if (!w) return;
  arb_pool_destroy(w->pool);
  if (w->bodies) arb__free_body_shapes(w, w->bodies, w->body_slots);
  arb__free(w, w->bodies);
  arb__free(w, w->states);
  arb__free(w, w->sims);
  arb__hash_cache_free(w);
  arb__free(w, w->contacts);
  arb__free(w, w->contact_briefs);
  arb__map_free(w, &w->pair_map);
  arb__tree_free(w, &w->static_tree);
  arb__tree_free(w, &w->dynamic_tree);
  arb__free(w, w->begin_events);
  arb__free(w, w->end_events);
  arb__free(w, w->hit_events);
  arb__free(w, w->joint_breaks);
  arb__sensors_free(w);
  arb__free(w, w->awake_bodies);
  arb__free(w, w->awake_contacts);
  arb__free(w, w->wake_requests);
  arb__free(w, w->moved_list);
  arb__free(w, w->paired_aabbs);
  arb__free(w, w->compounds);
  arb__free(w, w->compound_boxes);
  for (int i = 0; i < w->stack.count; ++i) {
    if (w->stack.entries[i].heap) arb__free(w, w->stack.entries[i].ptr);
  }
  arb__free(w, w->stack.data);
  arb__extras_free(w);
  arb__free(w, w);  // the struct's own block was counted in w itself
}

int64_t arb_world_get_byte_count(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  // Everything, the world struct included: after arb_world_destroy the allocator hooks
  // have seen exactly this many bytes returned.
  return w ? w->byte_count : 0;
}

uint64_t arb_world_get_step_count(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return w ? w->step_count : 0;
}
arb_vec2 arb_world_get_gravity(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return w ? w->def.gravity : arb_vec2_zero;
}
void arb_world_set_gravity(arb_world* w, arb_vec2 g) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w || w->locked || !arb_vec2_is_valid(g)) return;
  if (g.x != w->def.gravity.x || g.y != w->def.gravity.y) arb__wake_all(w);
  w->def.gravity = g;
}

void arb_world_enable_sleep(arb_world* w, bool enable) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w || w->locked || enable == w->def.enable_sleep) return;
  arb__wake_all(w);
  // Timers start from zero either way: while sleeping is off they are not run (finalize)
  // and must not carry a stale value (or a vehicle's stale veto) into the next time on.
  for (int i = 0; i < w->body_slots; ++i) {
    w->bodies[i].sleep_time = 0.0f;
    w->bodies[i].sleep_veto = 0;
  }
  w->def.enable_sleep = enable;
}

bool arb_world_is_sleep_enabled(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return w && w->def.enable_sleep;
}

// Continuous: the proxy also covers where the body is heading (see world.h, step 5).
static inline arb_vec2 arb__proxy_motion(const arb_world* w, int i, float dt) {
  return arb__continuous_dynamic(w) ? arb_scale(dt, w->states[i].v) : arb_vec2_zero;
}

// Sleep timer of one awake body from this step's motion (as Box2D v3): the speed of its
// farthest point, or half the position correction per second if that is larger (a body
// pushed out of an overlap every step is not at rest). A kinematic body is at rest only at
// exactly zero velocity. Returns true when the body has been slow long enough.
static inline bool arb__sleep_timer(arb_world* w, int i, float dt) {
  arb__body* b = &w->bodies[i];
  const arb__body_state* st = &w->states[i];
  bool slow;
  if (!w->def.enable_sleep || !b->enable_sleep || b->sleep_veto) {
    slow = false;
  } else if (w->sims[i].type == ARB_BODY_KINEMATIC) {
    slow = st->v.x == 0.0f && st->v.y == 0.0f && st->w == 0.0f;
  } else {
    float v = arb_length(st->v) + arb_absf(st->w) * b->max_extent;
    float dp = arb_length(st->dp) + arb_absf(st->dq.s) * b->max_extent;
    slow = arb_maxf(v, 0.5f * dp / dt) <= b->sleep_threshold;
  }
  b->sleep_veto = 0;
  b->sleep_time = slow ? b->sleep_time + dt : 0.0f;
  return b->sleep_time >= ARB_TIME_TO_SLEEP;
}

// What finalizing one body found (arb__finalize sums and acts on these in slot order).
enum { ARB__FINAL_SOLVED = 1, ARB__FINAL_SLEEPY = 2, ARB__FINAL_REFRESH = 4 };

// Transforms from the substep deltas, forces cleared, sleep timers. Writes only body i, so
// worker threads finalize the bodies in blocks; the proxies whose fat AABB the body left
// (ARB__FINAL_REFRESH) get their new boxes in the tree afterwards, in order.
static inline uint8_t arb__finalize_body(arb_world* w, int i, float dt, bool timers) {
  arb__body_sim* sim = &w->sims[i];
  if (sim->type != ARB_BODY_DYNAMIC && sim->type != ARB_BODY_KINEMATIC) return 0;
  arb__body* b = &w->bodies[i];
  arb__body_state* st = &w->states[i];
  uint8_t out = ARB__FINAL_SOLVED;
  if (timers && arb__sleep_timer(w, i, dt)) out |= ARB__FINAL_SLEEPY;
  b->xf.q = arb_rot_normalize(arb_rot_mul(st->dq, b->xf.q));
  b->center = arb_add(b->center, st->dp);
  b->xf.p = arb_sub(b->center, arb_rotate(b->xf.q, b->local_center));
  st->dp = arb_vec2_zero;
  st->dq = arb_rot_identity;
  b->force = arb_vec2_zero;
  b->torque = 0.0f;
  if (!arb__body_proxy_fits(w, i, arb__proxy_motion(w, i, dt))) out |= ARB__FINAL_REFRESH;
  return out;
}

typedef struct arb__finalize_job {
  arb_world* w;
  const int32_t* list;  // awake bodies, or NULL: slots 0..n-1
  uint8_t* out;         // per position: ARB__FINAL_* bits
  float dt;
  bool timers;
} arb__finalize_job;

static void arb__finalize_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__finalize_job* job = ctx;
  for (int k = begin; k < end; ++k) {
    job->out[k] = arb__finalize_body(job->w, job->list ? job->list[k] : k, job->dt, job->timers);
  }
}

// All slots while nothing sleeps, else the awake list (sleeping off: the timers stay 0, see
// arb_world_enable_sleep, nothing to run). Returns the sleepy count.
static int arb__finalize(arb_world* w, float dt) {
  int n, solved = 0, sleepy = 0;
  const int32_t* list = arb__awake_list(w, &n);
  uint8_t* out = n > 0 ? arb__stack_alloc(w, (size_t)n) : NULL;
  arb__finalize_job job = {w, list, out, dt, list || w->def.enable_sleep};
  if (out) arb_pool_for(w->pool, arb__finalize_range, &job, n, 256);
  for (int k = 0; k < n; ++k) {
    int i = list ? list[k] : k;
    uint8_t f = out ? out[k] : arb__finalize_body(w, i, dt, job.timers);
    solved += (f & ARB__FINAL_SOLVED) != 0;
    sleepy += (f & ARB__FINAL_SLEEPY) != 0;
    // A body whose tight AABB left its fat AABB gets a new fat AABB and is queried for new
    // pairs next step.
    if (f & ARB__FINAL_REFRESH) arb__body_refresh_proxy(w, i, false, arb__proxy_motion(w, i, dt));
  }
  arb__stack_free(w, out);
  w->stat_solved_bodies = solved;
  return sleepy;
}

void arb_world_step(arb_world* w, float dt) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w || w->locked || !arb_is_valid_float(dt) || dt <= 0.0f) return;
  w->locked = true;
  arb__stack_prepare(w);
  w->begin_count = 0;
  // Ends of contacts destroyed with a body since the last step are reported now, first.
  int pending = w->end_count - w->end_reported;
  if (pending > 0 && w->end_reported > 0) {
    memmove(w->end_events, w->end_events + w->end_reported,
            (size_t)pending * sizeof *w->end_events);
  }
  w->end_count = pending;
  w->hit_count = 0;
  arb__sleep_prepare(w);
  // From here to the end of continuous collision the step posts hundreds of short loops:
  // the worker threads wait for them spinning, not asleep.
  arb_pool_hold(w->pool);
  if (arb__continuous_dynamic(w)) arb__ccd_extend_proxies(w, dt);
  arb__update_pairs(w, dt);
  arb__collect_awake_contacts(w);
  arb__collide(w, dt);
  arb__apply_wake_requests(w);
  arb__ccd_begin(w);
  arb__extras_pre_solve(w, dt);
  arb__solve(w, dt);
  arb__joints_break(w, dt);
  arb__joints_project(w);
  int sleepy = arb__finalize(w, dt);
  arb__ccd_finish(w, dt);
  arb_pool_release(w->pool);
  arb__extras_post_step(w, dt);
  arb__islands_sleep(w, sleepy);
  arb__ccd_wake_hits(w);
  arb__sensors_update(w);
  w->end_reported = w->end_count;
  w->last_step_dt = dt;
  w->step_count += 1;
  ARB__VALIDATE_WORLD(w);
  w->locked = false;
}

int arb_world_get_begin_touch_events(const arb_world* w, const arb_contact_event** out) {
  ARB__CHECK_WORLD(w);
  if (!w || !out) return 0;
  *out = w->begin_events;
  return w->begin_count;
}

int arb_world_get_end_touch_events(const arb_world* w, const arb_contact_event** out) {
  ARB__CHECK_WORLD(w);
  if (!w || !out) return 0;
  *out = w->end_events;
  return w->end_reported;  // not yet those of bodies destroyed since the step
}

int arb_world_get_hit_events(const arb_world* w, const arb_contact_hit_event** out) {
  ARB__CHECK_WORLD(w);
  if (!w || !out) return 0;
  *out = w->hit_events;
  return w->hit_count;
}

void arb_world_set_hit_event_threshold(arb_world* w, float speed) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (w && !w->locked && arb_is_valid_float(speed) && speed >= 0.0f)
    w->def.hit_event_threshold = speed;
}
