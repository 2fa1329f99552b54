// Breakable joints: a weight on a weak joint of any type breaks it (one event, the
// right ids and a force above the threshold, then the weight falls), a strong joint holds
// and reports the weight's force, a growing pull breaks a joint exactly once at the step
// its force passes the threshold, and the break force is state (save/restore).
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

#include "../common/test_main.h"
#include "extras_test_util.h"

#define G 10.0f
#define MASS 10.0f  // a 0.5 m x 0.5 m box of density 40

// A 10 kg box hanging 1 m under a static anchor on a `type` joint breaking at `limit`.
static arb_extra_id hang(arb_world* w, arb_joint_type type, float limit, arb_body_id* weight) {
  arb_body_id anchor = wt_box(w, ARB_BODY_STATIC, 0.0f, 5.0f, 0.2f, 0.2f);
  arb_body_def bd = box_body_def(ARB_BODY_DYNAMIC, 0.0f, 4.0f, 0.25f, 0.25f);
  bd.shape.density = 40.0f;
  *weight = arb_body_create(w, &bd);
  arb_joint_def d = arb_default_joint_def();
  d.type = type;
  d.body_a = *weight;
  d.body_b = anchor;
  // Every joint but the distance joint (its anchors are 1 m apart) joins the point 1 m
  // above the weight's centre to the anchor, so the weight starts at rest in place.
  d.local_anchor_a = arb_v2(0.0f, type == ARB_JOINT_DISTANCE ? 0.0f : 1.0f);
  d.local_anchor_b = arb_v2(0.0f, 0.0f);
  // Prismatic and wheel: the default axis (+x) is across the pull, which the joint holds.
  if (type == ARB_JOINT_MOTOR || type == ARB_JOINT_MOUSE) {
    d.max_force = 4.0f * MASS * G;  // strong enough to hold the weight
    d.max_torque = 100.0f;
  }
  if (type == ARB_JOINT_MOUSE) {  // the target is a world point: the anchor's
    d.body_b = arb_null_body_id;
    d.local_anchor_b = arb_v2(0.0f, 5.0f);
    d.hertz = 30.0f;
    d.damping_ratio = 1.0f;
  }
  d.break_force = limit;
  return arb_joint_create(w, &d);
}

static void hanging_weight(arb_joint_type type) {
  // Weak: half the weight breaks it in the first steps, once.
  arb_world* w = xt_world(arb_v2(0.0f, -G), 0.0f);
  arb_body_id weight;
  arb_extra_id j = hang(w, type, 0.5f * MASS * G, &weight);
  assert_false(arb_extra_id_is_null(j));
  assert_float_equal(arb_body_get_mass(w, weight), MASS, 1e-3f);
  int events = 0, tick_broken = -1;
  for (int tick = 0; tick < 120; ++tick) {
    arb_world_step(w, XT_DT);
    const arb_joint_break_event* ev;
    int n = arb_world_get_joint_break_events(w, &ev);
    for (int i = 0; i < n; ++i) {
      assert_int_equal(ev[i].joint.index1, j.index1);
      assert_int_equal(ev[i].joint.generation, j.generation);
      assert_true(arb_body_id_equals(ev[i].body_a, weight));
      assert_true(ev[i].force > 0.5f * MASS * G);
      tick_broken = tick;
    }
    events += n;
  }
  assert_int_equal(events, 1);
  assert_in_range(tick_broken, 0, 5);
  assert_int_equal(arb_world_get_joint_count(w), 0);
  // Free fall since then: well below the anchor and falling at about g * t.
  assert_true(arb_body_get_position(w, weight).y < -5.0f);
  assert_float_equal(arb_body_get_linear_velocity(w, weight).y,
                     -G * (120 - tick_broken - 1) * XT_DT, 0.5f);
  arb_world_destroy(w);

  // Strong: twice the weight holds; its force is the weight's (within 2%) while awake, 0
  // once the weight sleeps (nothing is solved).
  w = xt_world(arb_v2(0.0f, -G), 0.0f);
  j = hang(w, type, 2.0f * MASS * G, &weight);
  for (int tick = 0; tick < 300; ++tick) {
    arb_world_step(w, XT_DT);
    assert_int_equal(arb_world_get_joint_break_events(w, NULL), 0);
    if (tick == 20) assert_float_equal(arb_joint_get_force(w, j), MASS * G, 0.02f * MASS * G);
  }
  assert_int_equal(arb_world_get_joint_count(w), 1);
  assert_false(arb_body_is_awake(w, weight));
  assert_true(arb_joint_get_force(w, j) == 0.0f);
  assert_float_equal(arb_body_get_position(w, weight).y, 4.0f, 0.01f);
  arb_world_destroy(w);
}

ARB_TEST_CASE(test_revolute_breaks, hanging_weight, ARB_JOINT_REVOLUTE)
ARB_TEST_CASE(test_distance_breaks, hanging_weight, ARB_JOINT_DISTANCE)
ARB_TEST_CASE(test_prismatic_breaks, hanging_weight, ARB_JOINT_PRISMATIC)
ARB_TEST_CASE(test_weld_breaks, hanging_weight, ARB_JOINT_WELD)
ARB_TEST_CASE(test_wheel_breaks, hanging_weight, ARB_JOINT_WHEEL)
ARB_TEST_CASE(test_motor_breaks, hanging_weight, ARB_JOINT_MOTOR)
ARB_TEST_CASE(test_mouse_breaks, hanging_weight, ARB_JOINT_MOUSE)

// A pull growing by 5 N per step on a weightless-world joint breaking at 300 N: it holds
// while the force is below, breaks in the step the force passes 300 N, reports it once.
static void test_growing_pull_breaks_once(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  arb_body_id weight;
  arb_extra_id j = hang(w, ARB_JOINT_REVOLUTE, 300.0f, &weight);
  int events = 0;
  float last_force = 0.0f;
  for (int tick = 1; tick <= 120; ++tick) {
    arb_body_apply_force_to_center(w, weight, arb_v2(0.0f, -5.0f * (float)tick));
    arb_world_step(w, XT_DT);
    const arb_joint_break_event* ev;
    int n = arb_world_get_joint_break_events(w, &ev);
    if (n == 1) {
      assert_true(ev[0].force > 300.0f);
      assert_in_range(tick, 60, 62);  // 5 N * 60 = 300 N
      assert_true(last_force <= 300.0f);
    } else {
      assert_int_equal(n, 0);
      if (events == 0) last_force = arb_joint_get_force(w, j);
    }
    events += n;
  }
  assert_int_equal(events, 1);
  arb_world_destroy(w);
}

// The break force is state: it changes the hash (a joint without one keeps the hash it
// always had), and a world restored before the break breaks at the same step.
static void test_break_force_is_state(void** state) {
  (void)state;
  arb_world* a = xt_world(arb_v2(0.0f, -G), 0.0f);
  arb_world* b = xt_world(arb_v2(0.0f, -G), 0.0f);
  arb_body_id wa, wb;
  hang(a, ARB_JOINT_REVOLUTE, 0.0f, &wa);
  hang(b, ARB_JOINT_REVOLUTE, 2.0f * MASS * G, &wb);
  assert_int_not_equal(arb_world_hash(a), arb_world_hash(b));
  arb_world_destroy(a);
  arb_world_destroy(b);

  // A pull that passes the limit at step 60; saved at step 30 and restored into a new world.
  a = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  hang(a, ARB_JOINT_REVOLUTE, 300.0f, &wa);
  int broke_a = -1, broke_b = -1;
  static uint8_t image[1 << 14];
  int len = 0;
  for (int tick = 1; tick <= 90; ++tick) {
    arb_body_apply_force_to_center(a, wa, arb_v2(0.0f, -5.0f * (float)tick));
    arb_world_step(a, XT_DT);
    if (arb_world_get_joint_break_events(a, NULL) == 1) broke_a = tick;
    if (tick == 30) len = arb_world_save(a, image, (int)sizeof image);
  }
  assert_true(len > 0 && len <= (int)sizeof image);
  b = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  assert_int_equal(arb_world_restore(b, image, len), 0);
  for (int tick = 31; tick <= 90; ++tick) {
    arb_body_apply_force_to_center(b, wa, arb_v2(0.0f, -5.0f * (float)tick));
    arb_world_step(b, XT_DT);
    if (arb_world_get_joint_break_events(b, NULL) == 1) broke_b = tick;
  }
  assert_true(broke_a > 30);
  assert_int_equal(broke_a, broke_b);
  assert_int_equal(arb_world_hash(a), arb_world_hash(b));
  arb_world_destroy(a);
  arb_world_destroy(b);
}

static void test_invalid_break_force_refused(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -G), 0.0f);
  arb_body_id weight;
  assert_true(arb_extra_id_is_null(hang(w, ARB_JOINT_REVOLUTE, -1.0f, &weight)));
  assert_true(arb_extra_id_is_null(hang(w, ARB_JOINT_DISTANCE, 1.0f / 0.0f, &weight)));
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_revolute_breaks), cmocka_unit_test(test_distance_breaks),
              cmocka_unit_test(test_prismatic_breaks), cmocka_unit_test(test_weld_breaks),
              cmocka_unit_test(test_wheel_breaks), cmocka_unit_test(test_motor_breaks),
              cmocka_unit_test(test_mouse_breaks), cmocka_unit_test(test_growing_pull_breaks_once),
              cmocka_unit_test(test_break_force_is_state),
              cmocka_unit_test(test_invalid_break_force_refused))
