// Joints, behaviour: revolute limit, motor and spring; prismatic axis, limit and motor;
// weld (rigid and soft); a wheel-joint car over bumps; the motor and mouse joints; the
// distance joint's min/max length; save/restore of every kind mid-motion; refused defs.
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
#include "joint_kinds_world.h"

#define DEG (3.14159265f / 180.0f)

static float jt_abs(float v) {
  return v < 0.0f ? -v : v;
}

static arb_body_id jt_box(arb_world* w, float x, float y, float hw, float hh, float density) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(hw, hh);
  bd.shape.density = density;
  bd.shape.group = -1;  // jointed parts do not collide with each other
  return arb_body_create(w, &bd);
}

static arb_joint_def jt_def(arb_joint_type type, arb_body_id a, arb_body_id b) {
  arb_joint_def d = arb_default_joint_def();
  d.type = type;
  d.body_a = a;
  d.body_b = b;
  return d;
}

// ---- revolute ---------------------------------------------------------------------------

// A 2 m, 20 kg bar is driven down from horizontal onto a +-30 degree limit about a world
// pin by gravity and a 300 N*m motor, then driven up into the other end: the angle never
// leaves the range by more than 1 degree. (The world is body B: the joint angle is minus
// the bar's angle.)
static void test_revolute_limit_holds(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  arb_body_id bar = jt_box(w, 1.0f, 0.0f, 1.0f, 0.05f, 100.0f);
  arb_joint_def d = jt_def(ARB_JOINT_REVOLUTE, bar, arb_null_body_id);
  d.local_anchor_a = arb_v2(-1.0f, 0.0f);
  d.local_anchor_b = arb_v2(0.0f, 0.0f);
  d.enable_limit = true;
  d.lower = -30.0f * DEG;
  d.upper = 30.0f * DEG;
  d.enable_motor = true;
  d.motor_speed = 5.0f;
  d.max_motor_torque = 300.0f;
  arb_extra_id j = arb_joint_create(w, &d);
  assert_false(arb_extra_id_is_null(j));
  float worst = 0.0f, lowest = 0.0f, highest = 0.0f;
  for (int i = 0; i < 600; ++i) {
    if (i == 300) assert_int_equal(arb_joint_set_motor_speed(w, j, -5.0f), 0);  // now up
    arb_world_step(w, XT_DT);
    float angle = arb_body_get_angle(w, bar);
    lowest = arb_minf(lowest, angle);
    highest = arb_maxf(highest, angle);
    worst = arb_maxf(worst, arb_maxf(-30.0f * DEG - angle, angle - 30.0f * DEG));
  }
  printf("revolute limit: %.3f..%.3f deg, worst violation %.4f deg\n", lowest / DEG, highest / DEG,
         worst / DEG);
  assert_true(lowest < -29.0f * DEG && highest > 29.0f * DEG);  // it reached both ends
  assert_true(worst < 1.0f * DEG);
  assert_true(jt_abs(arb_joint_get_position(w, j) + arb_body_get_angle(w, bar)) < 1e-4f);
  arb_world_destroy(w);
}

// A wheel on a world pin with a motor: it reaches the motor speed, and a weak motor that
// cannot lift a weight stalls at its torque.
static void test_revolute_motor_reaches_speed(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  arb_body_id wheel = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 0.5f);
  arb_joint_def d = jt_def(ARB_JOINT_REVOLUTE, wheel, arb_null_body_id);
  d.enable_motor = true;
  d.motor_speed = -3.0f;  // the world is B: -3 rad/s of B relative to A is +3 for the wheel
  d.max_motor_torque = 50.0f;
  arb_extra_id j = arb_joint_create(w, &d);
  xt_steps(w, 60);
  float speed = arb_body_get_angular_velocity(w, wheel);
  printf("motor: %.5f rad/s after 1 s (target 3)\n", speed);
  assert_true(jt_abs(speed - 3.0f) < 1e-3f);
  assert_int_equal(arb_joint_set_motor_speed(w, j, 2.0f), 0);
  xt_steps(w, 60);
  assert_true(jt_abs(arb_body_get_angular_velocity(w, wheel) + 2.0f) < 1e-3f);
  arb_world_destroy(w);

  // 1 N*m cannot hold a 1 kg bar of 2 m horizontal (10 N*m of gravity torque): it turns
  // the wrong way, so the torque cap is real.
  w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  arb_body_id bar = jt_box(w, 1.0f, 0.0f, 1.0f, 0.05f, 5.0f);
  d = jt_def(ARB_JOINT_REVOLUTE, bar, arb_null_body_id);
  d.local_anchor_a = arb_v2(-1.0f, 0.0f);
  d.enable_motor = true;
  d.motor_speed = -1.0f;  // counter-clockwise: up
  d.max_motor_torque = 1.0f;
  arb_joint_create(w, &d);
  xt_steps(w, 30);
  assert_true(arb_body_get_angular_velocity(w, bar) < 0.0f);
  arb_world_destroy(w);
}

// A spring about the pin: a bar twisted by 45 degrees in zero gravity swings back and
// settles at the reference angle.
static void test_revolute_spring(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  arb_body_id bar = jt_box(w, 0.0f, 0.0f, 1.0f, 0.05f, 1.0f);
  arb_body_set_transform(w, bar, arb_v2(0.0f, 0.0f), 45.0f * DEG);
  arb_joint_def d = jt_def(ARB_JOINT_REVOLUTE, bar, arb_null_body_id);
  d.enable_spring = true;
  d.hertz = 2.0f;
  d.damping_ratio = 0.5f;
  arb_joint_create(w, &d);
  float lowest = 1.0f;
  for (int i = 0; i < 180; ++i) {
    arb_world_step(w, XT_DT);
    lowest = arb_minf(lowest, arb_body_get_angle(w, bar));
  }
  assert_true(lowest < 0.0f);  // it overshoots (damping ratio 0.5)...
  assert_true(jt_abs(arb_body_get_angle(w, bar)) < 1.0f * DEG);  // ...and settles
  arb_world_destroy(w);
}

// ---- prismatic --------------------------------------------------------------------------

// A box on a 30-degree rail through the world: gravity and a sideways push try to take it
// off the rail; its anchor stays within 1 mm of the axis and it does not turn. A limit
// stops it at the rail's lower end, and a motor then drives it up to the upper end.
static void test_prismatic_keeps_axis(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  arb_body_id box = jt_box(w, 0.0f, 0.0f, 0.5f, 0.25f, 2.0f);
  arb_vec2 axis = arb_v2(0.8660254f, 0.5f);
  arb_joint_def d = jt_def(ARB_JOINT_PRISMATIC, box, arb_null_body_id);
  d.local_axis_a = axis;
  d.enable_limit = true;
  d.lower = -2.0f;
  d.upper = 3.0f;
  arb_extra_id j = arb_joint_create(w, &d);
  assert_false(arb_extra_id_is_null(j));
  float worst = 0.0f, turn = 0.0f;
  for (int i = 0; i < 240; ++i) {
    if (i < 60) arb_body_apply_force_to_center(w, box, arb_v2(-60.0f, 100.0f));
    arb_world_step(w, XT_DT);
    arb_vec2 p = arb_body_get_position(w, box);
    worst = arb_maxf(worst, jt_abs(arb_cross(axis, p)));
    turn = arb_maxf(turn, jt_abs(arb_body_get_angle(w, box)));
  }
  // The body slides along B - A = world point - body anchor: translation is -(p . axis).
  float t = arb_joint_get_position(w, j);
  printf("prismatic: off-axis %.5f mm, turn %.5f deg, at %.4f m\n", worst * 1000.0f, turn / DEG, t);
  assert_true(worst < 1.0e-3f);
  assert_true(turn < 0.1f * DEG);
  assert_true(t < 3.0f + 0.01f && t > 2.9f);  // resting on the upper translation limit
  arb_world_destroy(w);

  // A motor at 1 m/s with enough force carries the box up the rail against gravity.
  w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  box = jt_box(w, 0.0f, 0.0f, 0.5f, 0.25f, 2.0f);
  d = jt_def(ARB_JOINT_PRISMATIC, box, arb_null_body_id);
  d.local_axis_a = axis;
  d.enable_motor = true;
  d.motor_speed = -1.0f;  // B - A shrinks along the axis: the body moves up the rail
  d.max_motor_torque = 200.0f;
  arb_joint_create(w, &d);
  xt_steps(w, 120);
  arb_vec2 p = arb_body_get_position(w, box);
  float along = arb_dot(p, axis);
  printf("prismatic motor: %.4f m along the rail after 2 s\n", along);
  assert_true(jt_abs(along - 2.0f) < 0.05f);
  assert_true(jt_abs(arb_cross(axis, p)) < 1.0e-3f);
  arb_world_destroy(w);
}

// ---- weld -------------------------------------------------------------------------------

// Two boxes welded end to end, hanging from a pin: they stay one rigid piece. A soft weld
// (2 Hz) bends under the load and springs back.
static void test_weld_rigid_and_soft(void** state) {
  (void)state;
  for (int soft = 0; soft < 2; ++soft) {
    arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
    arb_body_id a = jt_box(w, 0.5f, 0.0f, 0.5f, 0.1f, 1.0f);
    arb_body_id b = jt_box(w, 1.5f, 0.0f, 0.5f, 0.1f, 1.0f);
    arb_joint_def pin = jt_def(ARB_JOINT_REVOLUTE, a, arb_null_body_id);
    pin.local_anchor_a = arb_v2(-0.5f, 0.0f);
    arb_joint_create(w, &pin);
    arb_joint_def d = jt_def(ARB_JOINT_WELD, a, b);
    d.local_anchor_a = arb_v2(0.5f, 0.0f);
    d.local_anchor_b = arb_v2(-0.5f, 0.0f);
    d.hertz = soft ? 2.0f : 0.0f;
    d.damping_ratio = 0.7f;
    arb_joint_create(w, &d);
    float bend = 0.0f, gap = 0.0f;
    for (int i = 0; i < 300; ++i) {
      arb_world_step(w, XT_DT);
      bend = arb_maxf(bend, jt_abs(arb_body_get_angle(w, b) - arb_body_get_angle(w, a)));
      arb_transform xa = arb_body_get_transform(w, a), xb = arb_body_get_transform(w, b);
      gap = arb_maxf(gap, arb_distance(arb_transform_point(xa, arb_v2(0.5f, 0.0f)),
                                       arb_transform_point(xb, arb_v2(-0.5f, 0.0f))));
    }
    printf("weld %s: max bend %.3f deg, max gap %.5f m\n", soft ? "soft" : "rigid", bend / DEG,
           gap);
    if (soft) {
      assert_true(bend > 2.0f * DEG);
    } else {
      assert_true(bend < 1.0f * DEG);
      assert_true(gap < 0.01f);
    }
    arb_world_destroy(w);
  }
}

// ---- wheel ------------------------------------------------------------------------------

typedef struct jt_car {
  arb_body_id chassis, wheels[2];
  arb_extra_id joints[2];
} jt_car;

// Side view: a 2 m chassis on two 0.4 m wheels with 4 Hz suspension, rear wheel driven.
static jt_car jt_make_car(arb_world* w, float x, float y) {
  jt_car car;
  car.chassis = jt_box(w, x, y, 1.0f, 0.2f, 50.0f);
  for (int k = 0; k < 2; ++k) {
    float dx = k == 0 ? -0.8f : 0.8f;
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(x + dx, y - 0.5f);
    bd.shape.type = ARB_SHAPE_CIRCLE;
    bd.shape.circle.radius = 0.4f;
    bd.shape.density = 10.0f;
    bd.shape.friction = 1.0f;
    bd.shape.group = -1;
    car.wheels[k] = arb_body_create(w, &bd);
    arb_joint_def d = jt_def(ARB_JOINT_WHEEL, car.chassis, car.wheels[k]);
    d.local_anchor_a = arb_v2(dx, -0.5f);
    d.local_axis_a = arb_v2(0.0f, 1.0f);
    d.enable_spring = true;
    d.hertz = 4.0f;
    d.damping_ratio = 0.7f;
    d.enable_limit = true;
    d.lower = -0.25f;
    d.upper = 0.25f;
    d.enable_motor = k == 0;
    d.motor_speed = -8.0f;  // clockwise: rolls to the right
    d.max_motor_torque = 600.0f;
    car.joints[k] = arb_joint_create(w, &d);
  }
  return car;
}

static void test_wheel_car_drives_over_bumps(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  wt_segment(w, -10.0f, 0.0f, 60.0f, 0.0f);
  for (int k = 0; k < 5; ++k) {  // 0.15 m round bumps every 4 m
    float bx = 6.0f + 4.0f * (float)k;
    arb_body_id bump = wt_circle(w, ARB_BODY_STATIC, bx, -0.35f, 0.5f);
    assert_false(arb_body_id_is_null(bump));
  }
  jt_car car = jt_make_car(w, 0.0f, 1.0f);
  assert_false(arb_extra_id_is_null(car.joints[0]));
  assert_false(arb_extra_id_is_null(car.joints[1]));
  float worst_tilt = 0.0f, travel_lo = 0.0f, travel_hi = 0.0f, off_axis = 0.0f;
  for (int i = 0; i < 600; ++i) {
    arb_world_step(w, XT_DT);
    worst_tilt = arb_maxf(worst_tilt, jt_abs(arb_body_get_angle(w, car.chassis)));
    for (int k = 0; k < 2; ++k) {
      float t = arb_joint_get_position(w, car.joints[k]);
      travel_lo = arb_minf(travel_lo, t);
      travel_hi = arb_maxf(travel_hi, t);
      arb_vec2 a, b;
      arb_joint_get_anchors(w, car.joints[k], &a, &b);
      off_axis = arb_maxf(off_axis,
                          jt_abs(arb_cross(arb_joint_get_axis(w, car.joints[k]), arb_sub(b, a))));
    }
  }
  float x = arb_body_get_position(w, car.chassis).x;
  printf(
      "wheel car: x %.2f m after 10 s, tilt <= %.2f deg, suspension %.3f..%.3f m, "
      "off axis %.4f m\n",
      x, worst_tilt / DEG, travel_lo, travel_hi, off_axis);
  assert_true(x > 26.0f);                      // past all five bumps
  assert_true(worst_tilt < 30.0f * DEG);       // never rolled over
  assert_true(travel_hi - travel_lo > 0.02f);  // the suspension worked
  assert_true(travel_lo > -0.26f && travel_hi < 0.26f);
  assert_true(off_axis < 0.01f);
  arb_world_destroy(w);
}

// ---- motor and mouse joints -------------------------------------------------------------

// A mouse joint drags a resting box across the floor to a target, then to a second one.
static void test_mouse_drags_box(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  wt_segment(w, -20.0f, 0.0f, 20.0f, 0.0f);
  arb_body_id box = jt_box(w, 0.0f, 0.5f, 0.5f, 0.5f, 1.0f);
  xt_steps(w, 60);  // settles (and may fall asleep)
  arb_joint_def d = jt_def(ARB_JOINT_MOUSE, box, arb_null_body_id);
  d.local_anchor_b = arb_v2(4.0f, 3.0f);
  d.hertz = 5.0f;
  d.damping_ratio = 0.7f;
  d.max_force = 1000.0f * arb_body_get_mass(w, box);
  arb_extra_id j = arb_joint_create(w, &d);
  assert_false(arb_extra_id_is_null(j));
  xt_steps(w, 120);
  arb_vec2 p = arb_body_get_position(w, box);
  printf("mouse: box at (%.4f, %.4f), target (4, 3)\n", p.x, p.y);
  assert_true(arb_distance(p, arb_v2(4.0f, 3.0f)) < 0.05f);
  assert_int_equal(arb_joint_set_target(w, j, arb_v2(-3.0f, 2.0f)), 0);
  xt_steps(w, 120);
  assert_true(arb_distance(arb_body_get_position(w, box), arb_v2(-3.0f, 2.0f)) < 0.05f);
  arb_world_destroy(w);

  // A weak mouse (max force below the weight) cannot lift it.
  w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  wt_segment(w, -20.0f, 0.0f, 20.0f, 0.0f);
  box = jt_box(w, 0.0f, 0.5f, 0.5f, 0.5f, 1.0f);
  d.body_a = box;
  d.local_anchor_b = arb_v2(0.0f, 5.0f);
  d.max_force = 5.0f;  // weight: 10 N
  arb_joint_create(w, &d);
  xt_steps(w, 120);
  assert_true(arb_body_get_position(w, box).y < 0.6f);
  arb_world_destroy(w);
}

// A motor joint drives a floating box to an offset and angle relative to a static base.
static void test_motor_joint_reaches_offset(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  arb_body_id base = wt_box(w, ARB_BODY_STATIC, 0.0f, -5.0f, 1.0f, 0.1f);
  arb_body_id box = jt_box(w, 0.0f, 0.0f, 0.5f, 0.5f, 1.0f);
  arb_joint_def d = jt_def(ARB_JOINT_MOTOR, base, box);
  d.local_anchor_a = arb_v2(2.0f, 6.0f);
  d.reference_angle = 0.5f;
  d.max_force = 500.0f;
  d.max_torque = 100.0f;
  d.correction_factor = 0.3f;
  assert_false(arb_extra_id_is_null(arb_joint_create(w, &d)));
  xt_steps(w, 180);
  arb_vec2 p = arb_body_get_position(w, box);
  float a = arb_body_get_angle(w, box);
  printf("motor joint: box at (%.4f, %.4f) angle %.4f, target (2, 1) 0.5\n", p.x, p.y, a);
  assert_true(arb_distance(p, arb_v2(2.0f, 1.0f)) < 0.02f);
  assert_true(jt_abs(a - 0.5f) < 0.01f);
  arb_world_destroy(w);
}

// ---- distance min/max -------------------------------------------------------------------

// A rope: a ball on a distance joint with length in [0.5, 2] falls free until the rope
// is taut at 2 m, and is free again when thrown up inside the range.
static void test_distance_min_max(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  arb_body_id ball = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, -1.0f, 0.1f);
  arb_joint_def d = jt_def(ARB_JOINT_DISTANCE, ball, arb_null_body_id);
  d.enable_limit = true;
  d.lower = 0.5f;
  d.upper = 2.0f;
  arb_extra_id j = arb_joint_create(w, &d);
  assert_false(arb_extra_id_is_null(j));
  xt_steps(w, 10);  // 1 m of rope, nothing holds it yet: free fall
  assert_true(arb_body_get_linear_velocity(w, ball).y < -1.5f);
  float longest = 0.0f;
  for (int i = 0; i < 240; ++i) {
    arb_world_step(w, XT_DT);
    longest = arb_maxf(longest, arb_joint_get_position(w, j));
  }
  printf("rope: longest %.4f m (max 2), now %.4f m\n", longest, arb_joint_get_position(w, j));
  assert_true(longest < 2.0f + 0.02f);
  assert_true(jt_abs(arb_joint_get_position(w, j) - 2.0f) < 0.01f);
  // Thrown up hard: the rope stops it at the minimum length.
  arb_body_set_linear_velocity(w, ball, arb_v2(0.0f, 30.0f));
  float shortest = 3.0f;
  for (int i = 0; i < 30; ++i) {
    arb_world_step(w, XT_DT);
    shortest = arb_minf(shortest, arb_joint_get_position(w, j));
  }
  assert_true(shortest > 0.5f - 0.02f);
  arb_world_destroy(w);
}

// ---- determinism ------------------------------------------------------------------------

static void test_joints_save_restore_mid_motion(void** state) {
  (void)state;
  arb_world* w = jk_world();
  arb_world* twin = jk_world();
  assert_int_equal(arb_world_get_joint_count(w), 8);
  xt_steps(w, 90);
  xt_steps(twin, 90);
  assert_int_equal(arb_world_hash(w), arb_world_hash(twin));
  int size;
  uint8_t* img = wt_save(w, &size);
  arb_world* r = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  assert_int_equal(arb_world_restore(r, img, size), 0);
  assert_int_equal(arb_world_hash(r), arb_world_hash(w));
  for (int i = 0; i < 120; ++i) {
    arb_world_step(w, XT_DT);
    arb_world_step(r, XT_DT);
    arb_world_step(twin, XT_DT);
    assert_int_equal(arb_world_hash(r), arb_world_hash(w));
    assert_int_equal(arb_world_hash(twin), arb_world_hash(w));
  }
  // The joint state is in the hash: a changed motor speed or target changes it.
  uint64_t before = arb_world_hash(w);
  arb_extra_id ids[8];
  assert_int_equal(arb_world_get_joints(w, ids, 8), 8);
  for (int k = 0; k < 8; ++k) {
    if (arb_joint_get_type(w, ids[k]) == ARB_JOINT_MOUSE)
      arb_joint_set_target(w, ids[k], arb_v2(0, 9));
  }
  assert_true(arb_world_hash(w) != before);
  // Every truncation of the image is refused.
  for (int len = size - 1; len > size - 200 && len > 0; --len) {
    arb_world* t = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
    assert_true(arb_world_restore(t, img, len) < 0);
    arb_world_destroy(t);
  }
  free(img);
  arb_world_destroy(r);
  arb_world_destroy(twin);
  arb_world_destroy(w);
}

// ---- refused definitions ----------------------------------------------------------------

static void test_joint_defs_refused(void** state) {
  (void)state;
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  arb_body_id a = jt_box(w, 0.0f, 0.0f, 0.5f, 0.5f, 1.0f);
  arb_body_id b = jt_box(w, 2.0f, 0.0f, 0.5f, 0.5f, 1.0f);
  arb_joint_def d = jt_def(ARB_JOINT_REVOLUTE, a, b);
  d.enable_limit = true;
  d.lower = 1.0f;
  d.upper = -1.0f;  // lower > upper
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_PRISMATIC, a, b);
  d.local_axis_a = arb_v2(0.0f, 0.0f);  // no axis
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_MOUSE, a, b);  // a mouse joint pulls towards a world point
  d.max_force = 10.0f;
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_MOUSE, a, arb_null_body_id);  // no force
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_MOTOR, a, b);  // neither force nor torque
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_REVOLUTE, a, b);
  d.max_motor_torque = -1.0f;
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_DISTANCE, a, b);
  d.enable_limit = true;
  d.lower = -1.0f;
  d.upper = 1.0f;
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_WELD, a, b);
  d.reference_angle = 0.0f / 0.0f;
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &d)));
  d = jt_def(ARB_JOINT_WELD, a, b);
  arb_extra_id weld = arb_joint_create(w, &d);
  assert_false(arb_extra_id_is_null(weld));
  assert_int_equal(arb_joint_set_target(w, weld, arb_v2(0, 0)), ARB_E_INVAL);
  assert_int_equal(arb_joint_set_motor_speed(w, weld, 1.0f), ARB_E_INVAL);
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_revolute_limit_holds),
              cmocka_unit_test(test_revolute_motor_reaches_speed),
              cmocka_unit_test(test_revolute_spring), cmocka_unit_test(test_prismatic_keeps_axis),
              cmocka_unit_test(test_weld_rigid_and_soft),
              cmocka_unit_test(test_wheel_car_drives_over_bumps),
              cmocka_unit_test(test_mouse_drags_box),
              cmocka_unit_test(test_motor_joint_reaches_offset),
              cmocka_unit_test(test_distance_min_max),
              cmocka_unit_test(test_joints_save_restore_mid_motion),
              cmocka_unit_test(test_joint_defs_refused))
