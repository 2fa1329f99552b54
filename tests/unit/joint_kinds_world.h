// tests — one world with every joint kind in motion, for the tests that check joints
// across steps, saves and restores (test_extras_determinism pins its hash after 900 ticks).
#pragma once

#include "extras_test_util.h"

// A dynamic box body of half extents hw x hh at (x, y) in collision group `group`.
static inline arb_body_id jk_box(arb_world* w, float x, float y, float hw, float hh,
                                 int32_t group) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(hw, hh);
  bd.shape.group = group;
  return arb_body_create(w, &bd);
}

// A joint of `type` between a and b, anchored at `anchor` on a.
static inline arb_joint_def jk_def(arb_joint_type type, arb_body_id a, arb_body_id b,
                                   arb_vec2 anchor) {
  arb_joint_def d = arb_default_joint_def();
  d.type = type;
  d.body_a = a;
  d.body_b = b;
  d.local_anchor_a = anchor;
  return d;
}

// Every joint type with its limit, motor and spring: a wheel car over a bump, a door on
// a limited motor, a soft weld, a piston, a dragged box, a crane hook, a rope.
static inline arb_world* jk_world(void) {
  arb_world* w = xt_world(arb_v2(0.0f, -10.0f), 0.0f);
  wt_segment(w, -30.0f, 0.0f, 60.0f, 0.0f);
  wt_circle(w, ARB_BODY_STATIC, 6.0f, -0.35f, 0.5f);
  arb_body_id chassis = jk_box(w, 0.0f, 1.0f, 1.0f, 0.2f, -1);
  for (int k = 0; k < 2; ++k) {
    arb_body_id wheel = wt_circle(w, ARB_BODY_DYNAMIC, k ? 0.8f : -0.8f, 0.5f, 0.4f);
    arb_joint_def d = jk_def(ARB_JOINT_WHEEL, chassis, wheel, arb_v2(k ? 0.8f : -0.8f, -0.5f));
    d.local_axis_a = arb_v2(0.0f, 1.0f);
    d.enable_spring = d.enable_limit = d.enable_motor = true;
    d.hertz = 4.0f;
    d.damping_ratio = 0.7f;
    d.lower = -0.25f;
    d.upper = 0.25f;
    d.motor_speed = -6.0f;
    d.max_motor_torque = k ? 0.0f : 30.0f;
    arb_joint_create(w, &d);
  }
  arb_body_id door = jk_box(w, -10.0f, 2.0f, 0.1f, 1.0f, 0);
  arb_joint_def d = jk_def(ARB_JOINT_REVOLUTE, door, arb_null_body_id, arb_v2(0.0f, 1.0f));
  d.local_anchor_b = arb_v2(-10.0f, 3.0f);
  d.enable_limit = d.enable_motor = d.enable_spring = true;
  d.lower = -1.0f;
  d.upper = 1.0f;
  d.motor_speed = 2.0f;
  d.max_motor_torque = 5.0f;
  d.hertz = 1.0f;
  arb_joint_create(w, &d);
  arb_body_id plank = jk_box(w, -8.0f, 3.0f, 0.5f, 0.05f, 0);
  d = jk_def(ARB_JOINT_WELD, door, plank, arb_v2(0.0f, 1.0f));
  d.local_anchor_b = arb_v2(-0.5f, 0.0f);
  d.reference_angle = 0.3f;
  d.hertz = 3.0f;
  arb_joint_create(w, &d);
  arb_body_id piston = jk_box(w, -14.0f, 2.0f, 0.3f, 0.3f, 0);
  d = jk_def(ARB_JOINT_PRISMATIC, piston, arb_null_body_id, arb_vec2_zero);
  d.local_anchor_b = arb_v2(-14.0f, 2.0f);
  d.local_axis_a = arb_v2(1.0f, 2.0f);
  d.enable_limit = d.enable_motor = true;
  d.lower = -1.0f;
  d.upper = 1.5f;
  d.motor_speed = 1.0f;
  d.max_motor_torque = 20.0f;
  arb_joint_create(w, &d);
  arb_body_id crate = jk_box(w, 12.0f, 0.5f, 0.5f, 0.5f, 0);
  d = jk_def(ARB_JOINT_MOUSE, crate, arb_null_body_id, arb_v2(0.2f, 0.3f));
  d.local_anchor_b = arb_v2(13.0f, 3.0f);
  d.hertz = 4.0f;
  d.max_force = 60.0f;
  arb_joint_create(w, &d);
  arb_body_id hook = jk_box(w, 16.0f, 3.0f, 0.3f, 0.3f, 0);
  d = jk_def(ARB_JOINT_MOTOR, hook, arb_null_body_id, arb_vec2_zero);
  d.local_anchor_b = arb_v2(17.0f, 5.0f);
  d.reference_angle = 0.4f;
  d.max_force = 40.0f;
  d.max_torque = 4.0f;
  arb_joint_create(w, &d);
  arb_body_id ball = wt_circle(w, ARB_BODY_DYNAMIC, 20.0f, 4.0f, 0.2f);
  d = jk_def(ARB_JOINT_DISTANCE, ball, arb_null_body_id, arb_vec2_zero);
  d.local_anchor_b = arb_v2(21.0f, 6.0f);
  d.enable_limit = true;
  d.lower = 0.5f;
  d.upper = 3.0f;
  arb_joint_create(w, &d);
  return w;
}
