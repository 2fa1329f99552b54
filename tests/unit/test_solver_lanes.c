// The contact solver's lane widths (shared/src/contact_lanes.inc): a world stepped with the
// 8-lane AVX2 path gives the same hash and the same contact and hit events after every
// tick as with the 4-lane path, with 1 and 2 workers, sleeping on and off, in scenes with
// partly filled wide constraints (colours of every size), the overflow colour (a plank
// holding more than 31 contacts), restitution and hit events, kinematic and bullet bodies;
// ARBITER_SIMD=sse2 selects the 4 lanes. On a CPU without AVX2 (or a build without it)
// the comparison is skipped with a message: there is only one path to run.
#define _POSIX_C_SOURCE 200809L  // setenv, unsetenv
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/test_main.h"  // cmocka
#include "contact_lanes.h"        // shared/src: arb__contact_lanes_force
#include "world_test_util.h"

#define DT (1.0f / 60.0f)
#define TICKS 300

// A plank on two posts under a heap of 90 circles (the plank's contacts overflow the 31
// colours), boxes with restitution thrown at each other above a floor, a kinematic sweeper
// and two bullets: a random mix from the seed.
static void build_scene(arb_world* w, uint32_t seed) {
  uint32_t rng = seed;
  wt_ground(w, 80.0f);
  wt_box(w, ARB_BODY_STATIC, -9.0f, 2.0f, 0.5f, 2.0f);
  wt_box(w, ARB_BODY_STATIC, 9.0f, 2.0f, 0.5f, 2.0f);
  wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 4.25f, 10.0f, 0.25f);
  for (int k = 0; k < 90; ++k) {
    arb_body_def cd = arb_default_body_def();
    cd.position = arb_v2(wt_rng_range(&rng, -9.0f, 9.0f), 5.0f + 0.8f * (float)k);
    cd.shape.type = ARB_SHAPE_CIRCLE;
    cd.shape.circle.radius = wt_rng_range(&rng, 0.15f, 0.35f);
    arb_body_create(w, &cd);
  }
  for (int k = 0; k < 60; ++k) {
    arb_body_def bd = box_body_def(ARB_BODY_DYNAMIC, wt_rng_range(&rng, 15.0f, 60.0f),
                                   wt_rng_range(&rng, 1.0f, 25.0f), wt_rng_range(&rng, 0.2f, 0.8f),
                                   wt_rng_range(&rng, 0.2f, 0.8f));
    bd.linear_velocity = arb_v2(wt_rng_range(&rng, -15.0f, 15.0f), wt_rng_range(&rng, -5.0f, 5.0f));
    bd.angular_velocity = wt_rng_range(&rng, -3.0f, 3.0f);
    bd.shape.restitution = wt_rng_range(&rng, 0.0f, 0.8f);
    arb_body_create(w, &bd);
  }
  arb_body_def kd = box_body_def(ARB_BODY_KINEMATIC, 10.0f, 0.6f, 1.5f, 0.5f);
  kd.linear_velocity = arb_v2(3.0f, 0.0f);
  arb_body_create(w, &kd);
  for (int k = 0; k < 2; ++k) {
    arb_body_def bullet = arb_default_body_def();
    bullet.position = arb_v2(-40.0f, 5.0f + 2.0f * (float)k);
    bullet.linear_velocity = arb_v2(150.0f, 0.0f);
    bullet.bullet = true;
    bullet.shape.type = ARB_SHAPE_CIRCLE;
    bullet.shape.circle.radius = 0.1f;
    arb_body_create(w, &bullet);
  }
}

// Per-tick digests with `width` lanes; returns the hit events seen.
static int run(int width, int workers, bool sleep, uint32_t seed, uint64_t* digests) {
  assert_int_equal(arb__contact_lanes_force(width), width);
  arb_world* w = wt_worker_world(workers, sleep);
  arb_world_set_hit_event_threshold(w, 1.0f);
  build_scene(w, seed);
  int hits = wt_step_digests(w, TICKS, DT, digests);
  arb_world_destroy(w);
  arb__contact_lanes_force(0);
  return hits;
}

static bool have_8_lanes(void) {
  int width = arb__contact_lanes_force(8);
  arb__contact_lanes_force(0);
  if (width != 8) {
    printf("  8 lanes (AVX2) unavailable on this CPU or build: nothing to compare with\n");
    return false;
  }
  return true;
}

static void same_steps(int workers, bool sleep) {
  if (!have_8_lanes()) skip();
  static uint64_t four[TICKS], eight[TICKS];
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    int hits = run(4, workers, sleep, seed, four);
    assert_true(hits > 0);  // the restitution and hit-event paths ran
    assert_int_equal(run(8, workers, sleep, seed, eight), hits);
    for (int t = 0; t < TICKS; ++t) {
      if (four[t] != eight[t])
        fail_msg("seed %u, %d workers, sleep %d: 8 lanes differ from 4 at tick %d", seed, workers,
                 sleep, t);
    }
  }
}

ARB_TEST_CASE(test_same_steps_one_worker, same_steps, 1, false)
ARB_TEST_CASE(test_same_steps_one_worker_sleeping, same_steps, 1, true)
ARB_TEST_CASE(test_same_steps_two_workers, same_steps, 2, true)

// ARBITER_SIMD=sse2 asks for the 4 lanes; without it the widest available ones run.
static void test_environment_selects_the_width(void** state) {
  (void)state;
  bool eight = have_8_lanes();
  assert_int_equal(setenv("ARBITER_SIMD", "sse2", 1), 0);
  assert_int_equal(arb__contact_lanes_select()->width, 4);
  assert_int_equal(unsetenv("ARBITER_SIMD"), 0);
  assert_int_equal(arb__contact_lanes_select()->width, eight ? 8 : 4);
}

ARB_TEST_MAIN(cmocka_unit_test(test_same_steps_one_worker),
              cmocka_unit_test(test_same_steps_one_worker_sleeping),
              cmocka_unit_test(test_same_steps_two_workers),
              cmocka_unit_test(test_environment_selects_the_width))
