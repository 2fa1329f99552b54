// arb_world_get_springs / arb_world_get_joints: live ids only, in slot order (a destroyed
// slot is reused lowest first), the count returned even when cap is short; anchors and
// joint type for drawing; arb_vehicle_get_wheel_radius.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
// clang-format on

#include "../common/test_main.h"
#include "extras_test_util.h"

static bool same_id(arb_extra_id a, arb_extra_id b) {
  return a.index1 == b.index1 && a.generation == b.generation;
}

static arb_extra_id spring(arb_world* w, arb_body_id a, arb_body_id b, float ax) {
  arb_spring_def sd = arb_default_spring_def();
  sd.body_a = a;
  sd.body_b = b;
  sd.local_anchor_a = arb_v2(ax, 0.0f);
  sd.local_anchor_b = arb_v2(0.0f, 5.0f);
  sd.rest_length = 1.0f;
  sd.stiffness = 10.0f;
  arb_extra_id id = arb_spring_create(w, &sd);
  assert_true(id.index1 > 0);
  return id;
}

static arb_extra_id joint(arb_world* w, arb_joint_type type, arb_body_id a, arb_body_id b) {
  arb_joint_def jd = arb_default_joint_def();
  jd.type = type;
  jd.body_a = a;
  jd.body_b = b;
  jd.local_anchor_b = arb_v2(0.0f, 3.0f);
  arb_extra_id id = arb_joint_create(w, &jd);
  assert_true(id.index1 > 0);
  return id;
}

// cmocka fixture: a world under gravity with two boxes for springs and joints to join, a
// at the origin, b 3 m to its right, as *state (destroyed after the test).
typedef struct two_boxes {
  arb_world* w;
  arb_body_id a, b;
} two_boxes;

static int two_boxes_setup(void** state) {
  static two_boxes t;
  t.w = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  t.a = wt_box(t.w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 0.5f, 0.5f);
  t.b = wt_box(t.w, ARB_BODY_DYNAMIC, 3.0f, 0.0f, 0.5f, 0.5f);
  *state = &t;
  return t.w ? 0 : -1;
}

static int two_boxes_teardown(void** state) {
  arb_world_destroy(((two_boxes*)*state)->w);
  return 0;
}
#define TWO_BOXES_TEST(test) \
  cmocka_unit_test_setup_teardown(test, two_boxes_setup, two_boxes_teardown)

static void test_empty_world_lists_nothing(void** state) {
  arb_world* w = *state;
  arb_extra_id out[4];
  assert_int_equal(arb_world_get_springs(w, out, 4), 0);
  assert_int_equal(arb_world_get_joints(w, out, 4), 0);
  // A null world is a programmer error: an assert where asserts are on, then 0.
  wt_soft_asserts();
  assert_int_equal(arb_world_get_springs(NULL, out, 4), 0);
  assert_int_equal(arb_world_get_joints(NULL, NULL, 0), 0);
  wt_expect_asserts(2);
}

static void test_springs_listed_in_slot_order_without_stale(void** state) {
  const two_boxes* t = *state;
  arb_world* w = t->w;
  const arb_body_id a = t->a, b = t->b;
  arb_extra_id s[4];
  for (int i = 0; i < 4; ++i) s[i] = spring(w, a, (i & 1) ? b : arb_null_body_id, 0.1f * (float)i);
  assert_int_equal(arb_spring_destroy(w, s[1]), 0);
  arb_extra_id out[8];
  memset(out, 0, sizeof out);
  assert_int_equal(arb_world_get_springs(w, out, 8), 3);
  assert_true(same_id(out[0], s[0]) && same_id(out[1], s[2]) && same_id(out[2], s[3]));
  // The freed slot is reused (lowest first) with a new generation: listed in slot order,
  // and the old id stays stale.
  arb_extra_id s4 = spring(w, a, b, 0.7f);
  assert_int_equal(s4.index1, s[1].index1);
  assert_true(s4.generation != s[1].generation);
  assert_int_equal(arb_world_get_springs(w, out, 8), 4);
  assert_true(same_id(out[0], s[0]) && same_id(out[1], s4) && same_id(out[2], s[2]) &&
              same_id(out[3], s[3]));
  arb_vec2 pa, pb;
  wt_soft_asserts();  // a stale id: an assert in debug builds, then the soft failure
  assert_int_equal(arb_spring_get_anchors(w, s[1], &pa, &pb), ARB_E_STALE_ID);
  wt_expect_asserts(1);
  assert_true(pa.x == 0.0f && pa.y == 0.0f && pb.x == 0.0f && pb.y == 0.0f);
  // Short cap: the total comes back, only cap ids are written.
  arb_extra_id two[2] = {{0, 0}, {0, 0}};
  assert_int_equal(arb_world_get_springs(w, two, 1), 4);
  assert_true(same_id(two[0], s[0]) && two[1].index1 == 0);
  assert_int_equal(arb_world_get_springs(w, NULL, 0), arb_world_get_spring_count(w));
  // Anchors: body A's local anchor in the world; a null body B means a world point.
  assert_int_equal(arb_spring_get_anchors(w, s[0], &pa, &pb), 0);
  assert_true(pa.x == 0.0f && pa.y == 0.0f && pb.x == 0.0f && pb.y == 5.0f);
  assert_int_equal(arb_spring_get_anchors(w, s[3], &pa, &pb), 0);
  assert_float_equal(pa.x, 0.3f, 1e-6f);
  assert_true(pb.x == 3.0f && pb.y == 5.0f);
  assert_float_equal(arb_distance(pa, pb), arb_spring_get_length(w, s[3]), 1e-6f);
  // Destroying a body makes its spring undrawable (anchors refused), the id stays listed
  // until the spring itself is destroyed.
  assert_int_equal(arb_body_destroy(w, b), 0);
  assert_int_equal(arb_spring_get_anchors(w, s[3], &pa, &pb), ARB_E_STALE_ID);
}

static void test_joints_listed_in_slot_order_with_type(void** state) {
  arb_world* w = *state;
  arb_body_id a = wt_box(w, ARB_BODY_DYNAMIC, 1.0f, 2.0f, 0.5f, 0.5f);
  arb_extra_id j0 = joint(w, ARB_JOINT_DISTANCE, a, arb_null_body_id);
  arb_extra_id j1 = joint(w, ARB_JOINT_REVOLUTE, a, arb_null_body_id);
  arb_extra_id j2 = joint(w, ARB_JOINT_DISTANCE, a, arb_null_body_id);
  assert_int_equal(arb_joint_get_type(w, j0), ARB_JOINT_DISTANCE);
  assert_int_equal(arb_joint_get_type(w, j1), ARB_JOINT_REVOLUTE);
  assert_int_equal(arb_joint_destroy(w, j0), 0);
  wt_soft_asserts();  // a stale id: an assert in debug builds, then the soft failure
  assert_int_equal(arb_joint_get_type(w, j0), ARB_JOINT_NONE);
  wt_expect_asserts(1);
  arb_extra_id out[4];
  assert_int_equal(arb_world_get_joints(w, out, 4), 2);
  assert_true(same_id(out[0], j1) && same_id(out[1], j2));
  assert_int_equal(arb_world_get_joint_count(w), 2);
  // Listing is a pure read: the same ids after stepping.
  xt_steps(w, 10);
  arb_extra_id again[4];
  assert_int_equal(arb_world_get_joints(w, again, 4), 2);
  assert_true(same_id(again[0], j1) && same_id(again[1], j2));
  arb_vec2 pa, pb;
  arb_joint_get_anchors(w, j2, &pa, &pb);
  assert_true(pb.x == 0.0f && pb.y == 3.0f);
}

static void test_wheel_radius(void** state) {
  arb_world* w = *state;
  arb_body_def bd = arb_default_body_def();
  bd.mass = 800.0f;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(2.0f, 1.0f);
  arb_body_id c = arb_body_create(w, &bd);
  arb_vehicle_def vd = arb_default_vehicle_def();
  vd.chassis = c;
  vd.wheels[0].radius = 0.25f;
  vd.wheels[3].radius = 0.5f;
  arb_extra_id v = arb_vehicle_create(w, &vd);
  assert_true(v.index1 > 0);
  assert_float_equal(arb_vehicle_get_wheel_radius(w, v, 0), 0.25f, 0.0f);
  assert_float_equal(arb_vehicle_get_wheel_radius(w, v, 1),
                     arb_default_vehicle_def().wheels[1].radius, 0.0f);
  assert_float_equal(arb_vehicle_get_wheel_radius(w, v, 3), 0.5f, 0.0f);
  assert_true(arb_vehicle_get_wheel_radius(w, v, vd.wheel_count) == 0.0f);
  assert_true(arb_vehicle_get_wheel_radius(w, v, -1) == 0.0f);
  assert_int_equal(arb_vehicle_destroy(w, v), 0);
  wt_soft_asserts();  // a stale id: an assert in debug builds, then the soft failure
  assert_true(arb_vehicle_get_wheel_radius(w, v, 0) == 0.0f);
  wt_expect_asserts(1);
}

// A create takes the lowest free slot, however the slots were freed (destroy in any
// order, a joint breaking in a step) and after a restore, which starts the search for it
// afresh (the worlds' ids must not depend on which of them was restored).
static void test_freed_slots_reused_lowest_first(void** state) {
  const two_boxes* t = *state;
  arb_world* w = t->w;
  const arb_body_id a = t->a, b = t->b;
  arb_extra_id j[48], s[48];
  for (int i = 0; i < 48; ++i) {
    j[i] = joint(w, ARB_JOINT_DISTANCE, a, b);
    s[i] = spring(w, a, b, 0.01f * (float)i);
    assert_int_equal(j[i].index1, i + 1);
    assert_int_equal(s[i].index1, i + 1);
  }
  const int freed[3] = {40, 7, 23};  // freed highest-first-but-one: the order must not matter
  for (int k = 0; k < 3; ++k) {
    assert_int_equal(arb_joint_destroy(w, j[freed[k]]), 0);
    assert_int_equal(arb_spring_destroy(w, s[freed[k]]), 0);
  }
  const int expect[4] = {7, 23, 40, 48};
  for (int k = 0; k < 4; ++k) {
    assert_int_equal(joint(w, ARB_JOINT_DISTANCE, a, b).index1, expect[k] + 1);
    assert_int_equal(spring(w, a, b, 0.5f).index1, expect[k] + 1);
  }
  // A joint that breaks in the step frees its slot: the next create takes it.
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_DISTANCE;
  jd.body_a = a;
  jd.body_b = arb_null_body_id;  // holds a falling box: breaks at once
  jd.break_force = 1.0e-3f;
  assert_int_equal(arb_joint_destroy(w, j[3]), 0);
  arb_extra_id weak = arb_joint_create(w, &jd);
  assert_int_equal(weak.index1, 4);
  xt_steps(w, 2);
  assert_int_equal(joint(w, ARB_JOINT_DISTANCE, a, b).index1, 4);
  // Freed slots in a saved image: a restored world reuses the lowest of them first.
  assert_int_equal(arb_joint_destroy(w, j[30]), 0);
  assert_int_equal(arb_joint_destroy(w, j[12]), 0);
  int size = 0;
  uint8_t* image = wt_save(w, &size);
  arb_world* r = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  assert_int_equal(arb_world_restore(r, image, size), 0);
  free(image);
  for (arb_world* x = w; x; x = x == w ? r : NULL) {
    assert_int_equal(joint(x, ARB_JOINT_DISTANCE, a, b).index1, 13);
    assert_int_equal(joint(x, ARB_JOINT_DISTANCE, a, b).index1, 31);
    assert_int_equal(joint(x, ARB_JOINT_DISTANCE, a, b).index1, 50);
  }
  arb_world_destroy(r);
}

ARB_TEST_MAIN(XT_EARTH_TEST(test_empty_world_lists_nothing),
              TWO_BOXES_TEST(test_freed_slots_reused_lowest_first),
              TWO_BOXES_TEST(test_springs_listed_in_slot_order_without_stale),
              XT_EARTH_TEST(test_joints_listed_in_slot_order_with_type),
              XT_ZERO_G_TEST(test_wheel_radius))
