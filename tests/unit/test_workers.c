// Worker threads (arb_world_def.worker_count): a world stepped with 2 or 4 workers gives
// the same hash after every tick as with 1, in scenes large enough that the narrow phase,
// the packing of the wide constraints, the colours of the contact solver, the body
// integration and the impulse store are split between the threads; the contact and hit
// events are the same too; worker_count is not part of the saved state; out-of-range
// counts are rejected.
#include <arbiter/joint.h>
#include <arbiter/worker_pool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../common/test_main.h"  // cmocka
#include "world.h"                // shared/src: the pool pointer (were its threads started?)
#include "world_test_util.h"

#define DT (1.0f / 60.0f)
#define TICKS 240

static arb_world* make_world(int workers, bool sleep) {
  arb_world* w = wt_worker_world(workers, sleep);
  assert_int_equal(arb_pool_threads(w->pool), workers - 1);  // the parallel path runs
  return w;
}

// A pyramid of base 40 (820 boxes, ~2400 contacts), bouncy circles dropped on it and a
// kinematic paddle: every colour holds more wide constraints than one block.
static void build_pyramid(arb_world* w) {
  wt_ground(w, 60.0f);
  for (int i = 0; i < 40; ++i) {
    for (int j = i; j < 40; ++j) {
      wt_box(w, ARB_BODY_DYNAMIC, (float)i * 0.5f + (float)(j - i) - 20.0f, 0.5f + (float)i, 0.5f,
             0.5f);
    }
  }
  for (int k = 0; k < 40; ++k) {
    arb_body_def cd = arb_default_body_def();
    cd.position = arb_v2(-20.0f + (float)k, 45.0f + 0.3f * (float)(k % 5));
    cd.shape.type = ARB_SHAPE_CIRCLE;
    cd.shape.circle.radius = 0.3f;
    cd.shape.restitution = 0.5f;
    arb_body_create(w, &cd);
  }
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_KINEMATIC;
  bd.position = arb_v2(-30.0f, 1.0f);
  bd.linear_velocity = arb_v2(2.0f, 0.0f);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(1.0f, 0.5f);
  arb_body_create(w, &bd);
}

// Per-tick hashes of the scene with `workers` threads.
static void run(int workers, bool sleep, uint64_t* hashes) {
  arb_world* w = make_world(workers, sleep);
  build_pyramid(w);
  for (int t = 0; t < TICKS; ++t) {
    arb_world_step(w, DT);
    hashes[t] = arb_world_hash(w);
  }
  arb_world_destroy(w);
}

static void check_same_hashes(bool sleep) {
  static uint64_t one[TICKS], many[TICKS];
  run(1, sleep, one);
  const int counts[] = {2, 4};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    run(counts[k], sleep, many);
    for (int t = 0; t < TICKS; ++t) {
      if (one[t] != many[t])
        fail_msg("%d workers: hash differs from 1 worker at tick %d", counts[k], t);
    }
  }
}

// A hanging bridge of jointed planks over a smaller pyramid, bullets (swept against
// dynamic bodies) shot into the pyramid and bouncy circles: joints, continuous collision
// and hit events next to the parallel passes, with sleeping on (awake lists).
static void build_mixed(arb_world* w) {
  wt_ground(w, 60.0f);
  for (int i = 0; i < 25; ++i) {
    for (int j = i; j < 25; ++j)
      wt_box(w, ARB_BODY_DYNAMIC, (float)i * 0.5f + (float)(j - i) - 12.0f, 0.5f + (float)i, 0.5f,
             0.5f);
  }
  arb_body_id prev = arb_null_body_id;
  for (int i = 0; i < 30; ++i) {  // planks from (-15, 30) to (15, 30), pinned at both ends
    arb_body_def bd = box_body_def(ARB_BODY_DYNAMIC, -14.5f + (float)i, 30.0f, 0.5f, 0.1f);
    bd.shape.group = -1;
    arb_body_id b = arb_body_create(w, &bd);
    arb_joint_def jd = arb_default_joint_def();
    jd.body_a = b;
    jd.local_anchor_a = arb_v2(-0.5f, 0.0f);
    jd.body_b = prev;
    jd.local_anchor_b = arb_body_id_is_null(prev) ? arb_v2(-15.0f, 30.0f) : arb_v2(0.5f, 0.0f);
    assert_false(arb_extra_id_is_null(arb_joint_create(w, &jd)));
    prev = b;
  }
  arb_joint_def end = arb_default_joint_def();
  end.body_a = prev;
  end.local_anchor_a = arb_v2(0.5f, 0.0f);
  end.local_anchor_b = arb_v2(15.0f, 30.0f);
  assert_false(arb_extra_id_is_null(arb_joint_create(w, &end)));
  for (int k = 0; k < 12; ++k) {
    arb_body_def cd = arb_default_body_def();
    cd.position = arb_v2(-30.0f - 2.0f * (float)k, 2.0f + (float)k);
    cd.linear_velocity = arb_v2(120.0f, 0.0f);
    cd.bullet = true;
    cd.shape.type = ARB_SHAPE_CIRCLE;
    cd.shape.circle.radius = 0.1f;
    arb_body_create(w, &cd);
    cd.position = arb_v2(-14.0f + 2.5f * (float)k, 34.0f);  // drops onto the bridge
    cd.linear_velocity = arb_v2(0.0f, 0.0f);
    cd.bullet = false;
    cd.shape.circle.radius = 0.4f;
    cd.shape.restitution = 0.6f;
    arb_body_create(w, &cd);
  }
}

static int run_mixed(int workers, uint64_t* digests) {
  arb_world* w = make_world(workers, true);
  arb_world_set_hit_event_threshold(w, 0.5f);
  build_mixed(w);
  int hits = wt_step_digests(w, TICKS, DT, digests);
  arb_world_destroy(w);
  return hits;
}

static void test_same_steps_joints_bullets_hits(void** state) {
  (void)state;
  static uint64_t one[TICKS], many[TICKS];
  int hits = run_mixed(1, one);
  assert_true(hits > 0);  // the event path is exercised
  const int counts[] = {2, 4};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    assert_int_equal(run_mixed(counts[k], many), hits);
    for (int t = 0; t < TICKS; ++t) {
      if (one[t] != many[t])
        fail_msg("%d workers: state or events differ from 1 worker at tick %d", counts[k], t);
    }
  }
}

ARB_TEST_CASE(test_same_hash_awake, check_same_hashes, false)

// With sleeping on, the narrow phase and the solver run over the awake lists.
ARB_TEST_CASE(test_same_hash_sleeping, check_same_hashes, true)

// A world saved with 4 workers restores into a 1-worker world and continues identically.
static void test_save_restore_across_counts(void** state) {
  (void)state;
  arb_world* a = make_world(4, true);
  build_pyramid(a);
  for (int t = 0; t < 60; ++t) arb_world_step(a, DT);
  arb_world* b = wt_restore_image_of(make_world(1, true), a);
  wt_step_alike(a, b, 60, DT);
  arb_world_destroy(a);
  arb_world_destroy(b);
}

static void test_rejects_bad_counts(void** state) {
  (void)state;
  arb_world_def wd = arb_default_world_def();
  assert_int_equal(wd.worker_count, 1);
  wd.worker_count = 0;
  assert_null(arb_world_create(&wd));
  wd.worker_count = 65;
  assert_null(arb_world_create(&wd));
}

ARB_TEST_MAIN(cmocka_unit_test(test_same_hash_awake), cmocka_unit_test(test_same_hash_sleeping),
              cmocka_unit_test(test_same_steps_joints_bullets_hits),
              cmocka_unit_test(test_save_restore_across_counts),
              cmocka_unit_test(test_rejects_bad_counts))
