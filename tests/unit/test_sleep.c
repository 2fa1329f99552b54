// Sleeping and islands (shared/src/island.c): a pile at rest falls asleep within the
// documented time and then costs no solver work; a thrown ball wakes exactly the island it
// hits; every documented wake-up cause wakes; sleeping survives save/restore bit-exactly.
// cmocka.h needs these first
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
// clang-format on

#include <arbiter/joint.h>

#include "../common/test_main.h"
#include "image_edit.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)
#define BASE 6
#define PILE (BASE * (BASE + 1) / 2)

// A pyramid of 1 m boxes resting exactly on each other, its left edge at x0.
static void add_pile(arb_world* w, float x0, arb_body_id* out) {
  int n = 0;
  for (int i = 0; i < BASE; ++i) {
    for (int j = i; j < BASE; ++j) {
      out[n++] = wt_box(w, ARB_BODY_DYNAMIC, x0 + 0.5f + (float)i * 0.5f + (float)(j - i),
                        0.5f + (float)i, 0.5f, 0.5f);
    }
  }
}

typedef struct two_piles {
  arb_world* w;
  arb_body_id ground;
  arb_body_id a[PILE], b[PILE];
} two_piles;

static two_piles make_two_piles(void) {
  two_piles t;
  t.w = wt_world(arb_v2(0.0f, -10.0f));
  t.ground = wt_box(t.w, ARB_BODY_STATIC, 0.0f, -1.0f, 40.0f, 1.0f);
  add_pile(t.w, -15.0f, t.a);
  add_pile(t.w, 10.0f, t.b);
  return t;
}

// A ball flying at the left pile from the left (it arrives within about a second).
static arb_body_id throw_ball(arb_world* w) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(-25.0f, 2.0f);
  bd.linear_velocity = arb_v2(20.0f, 2.0f);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.4f;
  return arb_body_create(w, &bd);
}

// Steps until every dynamic body sleeps; returns the tick count, or -1 after `max` ticks.
static int step_until_asleep(arb_world* w, int max) {
  for (int t = 1; t <= max; ++t) {
    arb_world_step(w, DT);
    if (arb_world_get_counters(w).awake_body_count == 0) return t;
  }
  return -1;
}

static void test_pile_falls_asleep_and_costs_nothing(void** state) {
  (void)state;
  two_piles t = make_two_piles();
  // Built at rest, a pile settles in a few ticks; then ARB_TIME_TO_SLEEP (0.5 s = 30
  // ticks) of rest. Documented: asleep about half a second after it stops. Allowed: 1 s.
  int ticks = step_until_asleep(t.w, 60);
  print_message("two %d-box piles asleep after %d ticks\n", PILE, ticks);
  assert_true(ticks >= 30 && ticks <= 60);
  arb_world_counters c = arb_world_get_counters(t.w);
  assert_int_equal(c.sleeping_body_count, 2 * PILE);
  arb_vec2 top = arb_body_get_position(t.w, t.a[PILE - 1]);
  arb_world_step(t.w, DT);  // the per-step arena grows once to what the island build used
  int64_t bytes = arb_world_get_byte_count(t.w);
  for (int i = 0; i < 300; ++i) {
    arb_world_step(t.w, DT);
    c = arb_world_get_counters(t.w);
    // No solver work at all: nothing integrated, solved or collided, no island built.
    assert_int_equal(c.step_solved_bodies, 0);
    assert_int_equal(c.step_solved_contacts, 0);
    assert_int_equal(c.step_collided_contacts, 0);
    assert_int_equal(c.step_island_count, 0);
    assert_int_equal(arb_world_get_byte_count(t.w), bytes);  // and no allocation
  }
  arb_vec2 top2 = arb_body_get_position(t.w, t.a[PILE - 1]);
  assert_true(top.x == top2.x && top.y == top2.y);  // frozen exactly
  assert_true(arb_length(arb_body_get_linear_velocity(t.w, t.a[PILE - 1])) == 0.0f);
  // The same piles with sleeping off stay awake and keep being solved.
  arb_world_enable_sleep(t.w, false);
  assert_int_equal(arb_world_get_counters(t.w).awake_body_count, 2 * PILE);
  arb_world_step(t.w, DT);
  c = arb_world_get_counters(t.w);
  assert_int_equal(c.step_solved_bodies, 2 * PILE);
  assert_true(c.step_solved_contacts >= 2 * (PILE - BASE + BASE));
  for (int i = 0; i < 120; ++i) arb_world_step(t.w, DT);
  assert_int_equal(arb_world_get_counters(t.w).awake_body_count, 2 * PILE);
  arb_world_destroy(t.w);
}

static void test_ball_wakes_exactly_the_island_it_hits(void** state) {
  (void)state;
  two_piles t = make_two_piles();
  assert_true(step_until_asleep(t.w, 60) > 0);
  arb_body_id ball = throw_ball(t.w);
  int hit = -1;
  for (int i = 0; i < 120 && hit < 0; ++i) {
    arb_world_step(t.w, DT);
    int awake_a = wt_awake_count(t.w, t.a, PILE);
    // Pile A is one island: it wakes all at once or not at all, pile B never.
    assert_true(awake_a == 0 || awake_a == PILE);
    assert_int_equal(wt_awake_count(t.w, t.b, PILE), 0);
    if (awake_a == PILE) hit = i;
  }
  assert_true(hit > 0);
  // Woken by the ball's contact: touching it, or (at 20 m/s, continuous collision) a
  // speculative point ahead of the ball that touches it in the next step.
  if (arb_body_get_contacts(t.w, ball, NULL, 0) == 0) arb_world_step(t.w, DT);
  assert_true(arb_body_get_contacts(t.w, ball, NULL, 0) > 0);
  arb_world_counters c = arb_world_get_counters(t.w);
  assert_int_equal(c.awake_body_count, PILE + 1);
  assert_int_equal(c.step_solved_bodies, PILE + 1);
  // Only the woken island's contacts (and the ball's) were solved: at most half.
  int solved = c.step_solved_contacts;
  arb_world_enable_sleep(t.w, false);
  arb_world_step(t.w, DT);
  assert_true(2 * solved <= arb_world_get_counters(t.w).step_solved_contacts + 2);
  arb_world_destroy(t.w);
}

// Every documented cause wakes a sleeping island, and only that island.
static void test_wake_causes(void** state) {
  (void)state;
  for (int cause = 0; cause < 9; ++cause) {
    two_piles t = make_two_piles();
    assert_true(step_until_asleep(t.w, 60) > 0);
    arb_body_id top = t.a[PILE - 1];
    switch (cause) {
      case 0:
        arb_body_apply_force_to_center(t.w, top, arb_v2(1.0f, 0.0f));
        break;
      case 1:
        arb_body_apply_linear_impulse(t.w, top, arb_v2(0.0f, 0.1f),
                                      arb_body_get_world_center(t.w, top));
        break;
      case 2:
        arb_body_set_linear_velocity(t.w, top, arb_v2(0.1f, 0.0f));
        break;
      case 3:
        arb_body_apply_torque(t.w, top, 0.5f);
        break;
      case 4:
        arb_body_set_transform(t.w, top, arb_v2(-12.0f, 8.0f), 0.0f);
        break;
      case 5:
        arb_body_destroy(t.w, t.a[0]);
        break;  // a bottom box: the pile loses support
      case 6: {
        // A joint from an awake body (a new box hanging next to the pile).
        arb_body_id box = wt_box(t.w, ARB_BODY_DYNAMIC, -16.0f, 3.0f, 0.3f, 0.3f);
        arb_joint_def jd = arb_default_joint_def();
        jd.type = ARB_JOINT_DISTANCE;
        jd.body_a = box;
        jd.body_b = top;
        jd.local_anchor_a = arb_v2(0.0f, 0.0f);
        jd.local_anchor_b = arb_v2(0.0f, 0.0f);
        assert_int_not_equal(arb_joint_create(t.w, &jd).index1, 0);
        break;
      }
      case 8:
        // Static geometry created against the pile (its contacts appear in the next step).
        wt_box(t.w, ARB_BODY_STATIC, -15.0f - 0.5f, 1.0f, 0.5f, 1.0f);
        arb_world_step(t.w, DT);
        break;
      default:
        arb_body_wake(t.w, top);
        break;
    }
    // Cause 5 destroyed a[0]: the rest of the pile wakes (its stale id is not asked about).
    int first = cause == 5 ? 1 : 0;
    assert_int_equal(wt_awake_count(t.w, t.a + first, PILE - first), PILE - first);
    assert_int_equal(arb_body_is_valid(t.w, t.a[0]), cause != 5);
    assert_int_equal(wt_awake_count(t.w, t.b, PILE), 0);
    arb_world_step(t.w, DT);
    assert_int_equal(wt_awake_count(t.w, t.b, PILE), 0);
    arb_world_destroy(t.w);
  }
  // Zero forces and velocities on a sleeping body change nothing and wake nothing.
  two_piles t = make_two_piles();
  assert_true(step_until_asleep(t.w, 60) > 0);
  arb_body_apply_force_to_center(t.w, t.a[0], arb_v2(0.0f, 0.0f));
  arb_body_set_linear_velocity(t.w, t.a[0], arb_v2(0.0f, 0.0f));
  arb_body_apply_angular_impulse(t.w, t.a[0], 0.0f);
  assert_int_equal(wt_awake_count(t.w, t.a, PILE), 0);
  // Moving the ground away from under them wakes both piles.
  two_piles m = make_two_piles();
  assert_true(step_until_asleep(m.w, 60) > 0);
  arb_body_set_transform(m.w, m.ground, arb_v2(0.0f, -50.0f), 0.0f);
  assert_int_equal(wt_awake_count(m.w, m.a, PILE) + wt_awake_count(m.w, m.b, PILE), 2 * PILE);
  arb_world_destroy(m.w);
  // Removing the ground wakes both piles (what they rest on is gone).
  arb_body_destroy(t.w, t.ground);
  assert_int_equal(wt_awake_count(t.w, t.a, PILE) + wt_awake_count(t.w, t.b, PILE), 2 * PILE);
  arb_world_destroy(t.w);
}

static void test_sleep_settings(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_ground(w, 40.0f);
  arb_body_id restless = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f);
  arb_body_id on_top = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 1.5f, 0.5f, 0.5f);
  arb_body_id alone = wt_box(w, ARB_BODY_DYNAMIC, 5.0f, 0.5f, 0.5f, 0.5f);
  arb_body_enable_sleep(w, restless, false);
  assert_false(arb_body_is_sleep_enabled(w, restless));
  for (int i = 0; i < 120; ++i) arb_world_step(w, DT);
  // A body that may not sleep keeps its whole island awake; other islands still sleep.
  assert_true(arb_body_is_awake(w, restless) && arb_body_is_awake(w, on_top));
  assert_false(arb_body_is_awake(w, alone));
  // A body created asleep stays so until touched, even in mid-air.
  arb_body_def bd = arb_default_body_def();
  bd.is_awake = false;
  bd.position = arb_v2(10.0f, 5.0f);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.5f;
  arb_body_id floating = arb_body_create(w, &bd);
  for (int i = 0; i < 60; ++i) arb_world_step(w, DT);
  assert_false(arb_body_is_awake(w, floating));
  assert_true(arb_body_get_position(w, floating).y == 5.0f);
  // A moving kinematic body that touches a sleeping one wakes it and keeps it awake.
  arb_body_def kd = arb_default_body_def();
  kd.type = ARB_BODY_KINEMATIC;
  kd.position = arb_v2(3.95f, 0.5f);         // 5 cm from `alone`
  kd.linear_velocity = arb_v2(0.02f, 0.0f);  // slower than the sleep threshold
  kd.shape.type = ARB_SHAPE_POLYGON;
  kd.shape.polygon = arb_make_box(0.5f, 0.5f);
  arb_body_id pusher = arb_body_create(w, &kd);
  for (int i = 0; i < 600; ++i) arb_world_step(w, DT);
  assert_true(arb_body_is_awake(w, pusher));
  assert_true(arb_body_is_awake(w, alone));
  assert_true(arb_body_get_position(w, alone).x > 5.0f + 0.05f);  // it was pushed
  arb_body_set_linear_velocity(w, pusher, arb_v2(0.0f, 0.0f));
  for (int i = 0; i < 120; ++i) arb_world_step(w, DT);
  assert_false(arb_body_is_awake(w, pusher));  // a kinematic body at zero velocity sleeps
  assert_false(arb_body_is_awake(w, alone));
  // A world with sleeping off never sleeps.
  arb_world_def wd = arb_default_world_def();
  wd.enable_sleep = false;
  arb_world* w2 = arb_world_create(&wd);
  wt_box(w2, ARB_BODY_STATIC, 0.0f, -1.0f, 40.0f, 1.0f);
  arb_body_id b2 = wt_box(w2, ARB_BODY_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f);
  for (int i = 0; i < 120; ++i) arb_world_step(w2, DT);
  assert_true(arb_body_is_awake(w2, b2));
  assert_false(arb_world_is_sleep_enabled(w2));
  arb_world_destroy(w2);
  arb_world_destroy(w);
}

// Save while one pile sleeps and the other is being hit; the restored world has the same
// sleeping bodies and steps bit-identically, through the second pile waking up.
static void test_sleep_survives_save_restore(void** state) {
  (void)state;
  two_piles t = make_two_piles();
  assert_true(step_until_asleep(t.w, 60) > 0);
  throw_ball(t.w);
  for (int i = 0; i < 40; ++i) arb_world_step(t.w, DT);
  assert_int_equal(wt_awake_count(t.w, t.a, PILE), PILE);
  assert_int_equal(wt_awake_count(t.w, t.b, PILE), 0);
  int size;
  uint8_t* img = wt_save(t.w, &size);
  arb_world_def wd = arb_default_world_def();
  arb_world* r = arb_world_create(&wd);
  assert_int_equal(arb_world_restore(r, img, size), 0);
  assert_int_equal(arb_world_hash(r), arb_world_hash(t.w));
  for (int i = 0; i < PILE; ++i) {
    assert_int_equal(arb_body_is_awake(r, t.a[i]), arb_body_is_awake(t.w, t.a[i]));
    assert_int_equal(arb_body_is_awake(r, t.b[i]), arb_body_is_awake(t.w, t.b[i]));
  }
  for (int i = 0; i < 400; ++i) {
    if (i == 200) {  // wake pile B in both through its island list (restored from the image)
      arb_body_apply_linear_impulse(t.w, t.b[PILE - 1], arb_v2(2.0f, 0.0f),
                                    arb_body_get_world_center(t.w, t.b[PILE - 1]));
      arb_body_apply_linear_impulse(r, t.b[PILE - 1], arb_v2(2.0f, 0.0f),
                                    arb_body_get_world_center(r, t.b[PILE - 1]));
      assert_int_equal(wt_awake_count(r, t.b, PILE), PILE);
    }
    arb_world_step(t.w, DT);
    arb_world_step(r, DT);
    assert_int_equal(arb_world_hash(r), arb_world_hash(t.w));
  }
  assert_int_equal(arb_world_get_counters(r).sleeping_body_count,
                   arb_world_get_counters(t.w).sleeping_body_count);
  free(img);
  arb_world_destroy(r);
  arb_world_destroy(t.w);
}

// Restore refuses a sleep record the simulation could not have produced: sleeping bodies
// in a world with sleeping off, an island head that is not a sleeping body, unknown flags,
// a negative threshold, a non-finite timer.
static void test_inconsistent_sleep_image_refused(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_ground(w, 10.0f);
  wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f);
  wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 1.5f, 0.5f, 0.5f);
  assert_true(step_until_asleep(w, 120) > 0);
  int size;
  uint8_t* img = wt_save(w, &size);
  // The record closes the payload (no extras): tag, u8 on, ground (u8 flags, f32 threshold,
  // f32 timer), then each box (the same and i32 island head).
  size_t plen = (size_t)size - 28, s = plen - 40;
  assert_memory_equal(img + 20 + s, "SLEP", 4);
  arb_world_def wd = arb_default_world_def();
  arb_world* r = arb_world_create(&wd);
  uint8_t same = 1, off = 0, bad_flags = 4;
  int32_t ground_head = 0;
  float negative = -1.0f, nan = 0.0f;
  uint32_t nan_bits = 0x7fc00000u;
  memcpy(&nan, &nan_bits, 4);
  assert_int_equal(restore_edited(r, img, size, s + 4, &same, 1), 0);  // unedited: accepted
  assert_int_equal(restore_edited(r, img, size, s + 4, &off, 1), ARB_E_CORRUPT);
  assert_int_equal(restore_edited(r, img, size, s + 36, &ground_head, 4), ARB_E_CORRUPT);
  assert_int_equal(restore_edited(r, img, size, s + 14, &bad_flags, 1), ARB_E_CORRUPT);
  assert_int_equal(restore_edited(r, img, size, s + 15, &negative, 4), ARB_E_CORRUPT);
  assert_int_equal(restore_edited(r, img, size, s + 19, &nan, 4), ARB_E_NONFINITE);
  assert_int_equal(arb_world_hash(r), arb_world_hash(w));  // refusals left the world as it was
  free(img);
  arb_world_destroy(r);
  arb_world_destroy(w);
}

static arb_body_id rest_box(arb_world* w, float x) {
  return wt_box(w, ARB_BODY_DYNAMIC, x, 0.5f, 0.5f, 0.5f);
}

static arb_body_id post(arb_world* w, float x) {
  return wt_box(w, ARB_BODY_STATIC, x, 2.0f, 0.2f, 0.2f);
}

static void join(arb_world* w, arb_body_id a, arb_body_id b) {
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_DISTANCE;
  jd.body_a = a;
  jd.body_b = b;
  assert_int_not_equal(arb_joint_create(w, &jd).index1, 0);
}

// Destroying a body wakes whatever a joint or spring ties to it. A dynamic body's partners
// sleep in its island and wake with it; a static body's (here: posts in the air, touching
// nothing) are found only through the constraints. The world scans its constraints only
// for a body slot one of them may name (a count per slot, built on demand), so the counts
// must follow creations, releases and reused slots.
static void test_destroyed_body_wakes_its_constraint_partners(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_ground(w, 40.0f);
  arb_body_id lone = post(w, -20.0f), a = post(w, -10.0f), b = rest_box(w, -7.0f);
  arb_body_id d = rest_box(w, 5.0f), e = rest_box(w, 8.0f), f = post(w, 2.0f);
  join(w, b, a);
  arb_spring_def sd = arb_default_spring_def();
  sd.body_a = d;
  sd.body_b = f;
  sd.rest_length = 3.0f;
  sd.stiffness = 10.0f;
  arb_extra_id spring = arb_spring_create(w, &sd);
  assert_int_not_equal(spring.index1, 0);
  assert_true(step_until_asleep(w, 120) > 0);

  // No constraint names it: nothing wakes (the counts are built here).
  assert_int_equal(arb_body_destroy(w, lone), 0);
  assert_int_equal(arb_world_get_counters(w).awake_body_count, 0);
  // A new post takes the lone one's slot, joined to e after the counts were built.
  arb_body_id g = post(w, 11.0f);
  assert_int_equal(g.index1, lone.index1);
  join(w, e, g);
  assert_true(step_until_asleep(w, 120) > 0);
  assert_int_equal(arb_body_destroy(w, g), 0);
  assert_true(arb_body_is_awake(w, e));
  assert_false(arb_body_is_awake(w, b) || arb_body_is_awake(w, d));
  assert_true(step_until_asleep(w, 120) > 0);

  // The joint b-a names a: b wakes; the others sleep on.
  assert_int_equal(arb_body_destroy(w, a), 0);
  assert_true(arb_body_is_awake(w, b));
  assert_false(arb_body_is_awake(w, d) || arb_body_is_awake(w, e));
  assert_true(step_until_asleep(w, 120) > 0);

  // The spring released, nothing names f: destroying it wakes nobody.
  assert_int_equal(arb_spring_destroy(w, spring), 0);
  assert_true(step_until_asleep(w, 120) > 0);
  assert_int_equal(arb_body_destroy(w, f), 0);
  assert_int_equal(arb_world_get_counters(w).awake_body_count, 0);
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_pile_falls_asleep_and_costs_nothing),
              cmocka_unit_test(test_ball_wakes_exactly_the_island_it_hits),
              cmocka_unit_test(test_wake_causes),
              cmocka_unit_test(test_destroyed_body_wakes_its_constraint_partners),
              cmocka_unit_test(test_sleep_settings),
              cmocka_unit_test(test_sleep_survives_save_restore),
              cmocka_unit_test(test_inconsistent_sleep_image_refused))
