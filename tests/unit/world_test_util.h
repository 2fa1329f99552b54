// Helpers shared by the world, extras and assert tests.
#pragma once

// cmocka needs these before it, in this order.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
// clang-format on

#include <arbiter/world.h>

#include "../common/body_defs.h"

// A test that passes a stale id on purpose (to check the soft failure) installs this
// handler: ARB_ASSERT then counts instead of aborting in builds with asserts.
static int wt_assert_count;
static inline bool wt_count_assert(const char* condition, const char* file, int line) {
  (void)condition;
  (void)file;
  (void)line;
  wt_assert_count += 1;
  return false;
}
/// Count asserts from now on (from 0); arb_set_assert_handler(NULL) restores aborting.
static inline void wt_soft_asserts(void) {
  wt_assert_count = 0;
  arb_set_assert_handler(wt_count_assert);
}
/// The number of asserts the n deliberate programmer errors made (0 without asserts).
#define WT_ASSERTS(n) (ARB_ASSERT_ENABLED ? (n) : 0)
/// Ends wt_soft_asserts: asserts abort again, and the n deliberate programmer errors made
/// since must have made WT_ASSERTS(n) asserts.
static inline void wt_expect_asserts(int n) {
  arb_set_assert_handler(NULL);
  assert_int_equal(wt_assert_count, WT_ASSERTS(n));
}

static inline arb_world* wt_world(arb_vec2 gravity) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = gravity;
  return arb_world_create(&wd);
}

// cmocka fixtures for a test that gets its world in *state (`arb_world* w = *state;`): the
// setup makes it, the teardown destroys it after the test, whether it passed or failed.
static inline int wt_world_teardown(void** state) {
  arb_world_destroy(*state);
  return 0;
}
static inline int wt_fixture_world(void** state, arb_world* w) {
  *state = w;
  return w ? 0 : -1;
}
/// A world under (0, -10) in *state.
static inline int wt_gravity_world_setup(void** state) {
  return wt_fixture_world(state, wt_world(arb_v2(0.0f, -10.0f)));
}
#define WT_GRAVITY_TEST(test) \
  cmocka_unit_test_setup_teardown(test, wt_gravity_world_setup, wt_world_teardown)

/// A world under (0, -10) stepped by `workers` threads, sleeping or not (never NULL).
static inline arb_world* wt_worker_world(int workers, bool sleep) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, -10.0f);
  wd.worker_count = workers;
  wd.enable_sleep = sleep;
  arb_world* w = arb_world_create(&wd);
  assert_non_null(w);
  return w;
}

/// Step n times, copying every begin-touch event into out (the events live only until the
/// next step); returns how many began, and fails the test if more than cap did.
static inline int wt_step_begin_touches(arb_world* w, int n, float dt, arb_contact_event* out,
                                        int cap) {
  int count = 0;
  for (int i = 0; i < n; ++i) {
    arb_world_step(w, dt);
    const arb_contact_event* ev;
    int began = arb_world_get_begin_touch_events(w, &ev);
    assert_true(count + began <= cap);
    for (int k = 0; k < began; ++k) out[count++] = ev[k];
  }
  return count;
}

/// The world's save image (malloc'd: free it); its length in *size.
static inline uint8_t* wt_save(const arb_world* w, int* size) {
  *size = arb_world_save(w, NULL, 0);
  assert_true(*size > 0);
  uint8_t* image = malloc((size_t)*size);
  assert_non_null(image);
  assert_int_equal(arb_world_save(w, image, *size), *size);
  return image;
}

static inline arb_body_id wt_box(arb_world* w, arb_body_type type, float x, float y, float hw,
                                 float hh) {
  arb_body_def bd = box_body_def(type, x, y, hw, hh);
  return arb_body_create(w, &bd);
}

/// The ground most world tests stand things on: a static slab 2 m thick, its top at y = 0,
/// reaching half_width either side of x = 0.
static inline arb_body_id wt_ground(arb_world* w, float half_width) {
  return wt_box(w, ARB_BODY_STATIC, 0.0f, -1.0f, half_width, 1.0f);
}

static inline arb_body_id wt_circle(arb_world* w, arb_body_type type, float x, float y, float r) {
  arb_body_def bd = arb_default_body_def();
  bd.type = type;
  bd.position = arb_v2(x, y);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = r;
  return arb_body_create(w, &bd);
}

static inline arb_body_id wt_segment(arb_world* w, float ax, float ay, float bx, float by) {
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_SEGMENT;
  bd.shape.segment.a = arb_v2(ax, ay);
  bd.shape.segment.b = arb_v2(bx, by);
  return arb_body_create(w, &bd);
}

/// Steps worlds a and b `steps` times by dt side by side; their hashes must agree after
/// every step (a world and its restored copy, or the same scene built two ways).
static inline void wt_step_alike(arb_world* a, arb_world* b, int steps, float dt) {
  for (int s = 0; s < steps; ++s) {
    arb_world_step(a, dt);
    arb_world_step(b, dt);
    assert_true(arb_world_hash(a) == arb_world_hash(b));
  }
}

/// FNV-1a of n bytes, continuing from h.
static inline uint64_t wt_fnv_bytes(uint64_t h, const void* bytes, size_t n) {
  const unsigned char* p = bytes;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/// The world's hash folded with every event of its last step (begin, end, hit), in order:
/// two runs that must step alike compare these after every step.
static inline uint64_t wt_step_digest(const arb_world* w) {
  uint64_t h = arb_world_hash(w);
  const arb_contact_event* ev;
  const arb_contact_hit_event* hits;
  int nb = arb_world_get_begin_touch_events(w, &ev);
  h = wt_fnv_bytes(h, ev, (size_t)nb * sizeof *ev);
  int ne = arb_world_get_end_touch_events(w, &ev);
  h = wt_fnv_bytes(h, ev, (size_t)ne * sizeof *ev);
  int nh = arb_world_get_hit_events(w, &hits);
  h = wt_fnv_bytes(h, hits, (size_t)nh * sizeof *hits);
  return h ^ ((uint64_t)nb << 40) ^ ((uint64_t)ne << 20) ^ (uint64_t)nh;
}

/// Steps w `ticks` times by dt, digests[t] = wt_step_digest after step t; returns the hit
/// events seen.
static inline int wt_step_digests(arb_world* w, int ticks, float dt, uint64_t* digests) {
  int hits = 0;
  for (int t = 0; t < ticks; ++t) {
    arb_world_step(w, dt);
    digests[t] = wt_step_digest(w);
    const arb_contact_hit_event* e;
    hits += arb_world_get_hit_events(w, &e);
  }
  return hits;
}

/// Restores the save image of `from` into `into` (a world created another way: default
/// settings, other workers...); returns `into`.
static inline arb_world* wt_restore_image_of(arb_world* into, const arb_world* from) {
  int size;
  uint8_t* image = wt_save(from, &size);
  assert_int_equal(arb_world_restore(into, image, size), 0);
  free(image);
  return into;
}

/// Saves w, steps it `steps` times by dt (a detour) and restores the save: the world must
/// then go on as if the detour had never happened.
static inline void wt_detour_and_restore(arb_world* w, int steps, float dt) {
  int size;
  uint8_t* image = wt_save(w, &size);
  for (int s = 0; s < steps; ++s) arb_world_step(w, dt);
  assert_int_equal(arb_world_restore(w, image, size), 0);
  free(image);
}

/// Runs a scene for `ticks` ticks, each one `tick_fn(w, tick, ctx)` (the scene's step and
/// whatever the test records of it), with a detour (wt_detour_and_restore, `detour_steps`
/// steps by dt) after tick `detour_at` (0: none). Destroys the world; returns its hash at
/// the end.
static inline uint64_t wt_run_with_detour(arb_world* w, int ticks,
                                          void (*tick_fn)(arb_world* w, int tick, void* ctx),
                                          void* ctx, int detour_at, int detour_steps, float dt) {
  for (int tick = 1; tick <= ticks; ++tick) {
    tick_fn(w, tick, ctx);
    if (tick == detour_at) wt_detour_and_restore(w, detour_steps, dt);
  }
  uint64_t hash = arb_world_hash(w);
  arb_world_destroy(w);
  return hash;
}

// How many of the n bodies are awake (sleeping tests).
/// A world with this gravity and continuous collision on or off (the tunnelling tests).
static inline arb_world* wt_world_continuous(bool continuous, arb_vec2 gravity) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = gravity;
  wd.enable_continuous = continuous;
  return arb_world_create(&wd);
}

/// The wall of the tunnelling tests, 80 m tall: the segment x = 5, or a static box 0.2 m
/// thick centred on x = 5 (its face at x = 4.9).
static inline void wt_tunnel_wall(arb_world* w, bool segment) {
  if (segment) {
    wt_segment(w, 5.0f, -40.0f, 5.0f, 40.0f);
  } else {
    wt_box(w, ARB_BODY_STATIC, 5.0f, 0.0f, 0.1f, 40.0f);
  }
}

/// Fires a tunnelling shot in w (wall and projectile built): steps it 60 times by dt,
/// destroys it and returns the largest x the projectile's centre reached.
static inline float wt_shot_max_x(arb_world* w, arb_body_id projectile, float dt) {
  float max_x = -1e9f;
  for (int s = 0; s < 60; ++s) {
    arb_world_step(w, dt);
    max_x = arb_maxf(max_x, arb_body_get_position(w, projectile).x);
  }
  arb_world_destroy(w);
  return max_x;
}

static inline int wt_awake_count(const arb_world* w, const arb_body_id* ids, int n) {
  int k = 0;
  for (int i = 0; i < n; ++i) k += arb_body_is_awake(w, ids[i]);
  return k;
}

// xorshift32 for randomized tests (seed != 0): the same seed, the same world.
static inline uint32_t wt_rng_next(uint32_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}
static inline float wt_rng_range(uint32_t* s, float lo, float hi) {
  return lo + (hi - lo) * (float)(wt_rng_next(s) & 0xffffffu) / 16777216.0f;
}

/// The live bodies of a randomized test world, in any order; ids[0] is its ground.
#define WT_MAX_BODIES 400
typedef struct wt_body_list {
  arb_body_id ids[WT_MAX_BODIES];
  int n;
} wt_body_list;

/// Adds a body just created (it must be valid) to the list.
static inline void wt_body_list_add(const arb_world* w, wt_body_list* l, arb_body_id id) {
  assert_true(arb_body_is_valid(w, id));
  assert_true(l->n < WT_MAX_BODIES);
  l->ids[l->n++] = id;
}

/// The index of a random body of the list other than the ground (the list has two or more).
static inline int wt_body_list_pick(const wt_body_list* l, uint32_t* rng) {
  return 1 + (int)(wt_rng_next(rng) % (uint32_t)(l->n - 1));
}

/// Destroys the body at index i and drops it from the list (the last one takes its place).
static inline void wt_body_list_destroy(arb_world* w, wt_body_list* l, int i) {
  assert_int_equal(arb_body_destroy(w, l->ids[i]), 0);
  l->ids[i] = l->ids[--l->n];
}

/// A randomized test world under gravity (0, -10): a static ground box 2 m thick with its
/// top at y = 0, half_width to each side, then min_count + (a random number below spread)
/// bodies from random_body; all of them listed in l (the ground first).
typedef arb_body_id (*wt_random_body_fn)(arb_world* w, uint32_t* rng);
static inline arb_world* wt_random_world(wt_body_list* l, float half_width, int min_count,
                                         int spread, wt_random_body_fn random_body, uint32_t* rng) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  l->n = 0;
  wt_body_list_add(w, l, wt_box(w, ARB_BODY_STATIC, 0.0f, -1.0f, half_width, 1.0f));
  int count = min_count + (int)(wt_rng_next(rng) % (uint32_t)spread);
  for (int k = 0; k < count; ++k) wt_body_list_add(w, l, random_body(w, rng));
  return w;
}
