// bench/physics — Box2D v3's benchmark "spinner" built with arbiter, with the geometry,
// materials and motor of its benchmark code (CreateSpinner, release sizes):
//   - the ground: a static chain loop of 360 points on a circle of radius 40 m centred at
//     (0, 32) (friction 0.1), a container: the bodies stay inside;
//   - the spinner: a dynamic rounded box (half extents 0.4 x 20, radius 0.2, friction 0,
//     never asleep) at (0, 12), pinned to the world there by a revolute joint whose motor
//     turns it at 5 rad/s with unlimited torque (FLT_MAX);
//   - 6076 dynamic bodies, in turn a capsule (centres (±0.25, 0), radius 0.25), a circle
//     (radius 0.35) and a 0.7 m square (density 0.25, friction 0.1, restitution 0.1), 0.5 m
//     apart in rows from x = -23 to 23, from y = 2 upwards;
//   - sleeping on (Box2D v3's world default), 4 substeps, 500 steps.
// Said differently, not done differently: Box2D v3 lists the loop clockwise (its chains
// collide on the right side) and pins the spinner (B) to a ground body (A) at +5 rad/s;
// arbiter's chains collide on the left side, so the same points are listed the other way
// round, and its joint takes the world as body B, so the spinner is A and the motor speed
// is -5 rad/s (the world relative to the spinner).
#include <arbiter/joint.h>
#include <float.h>
#include <stdlib.h>

#include "scenes_arbiter.h"
#include "scenes_shared.h"

enum { SPINNER_POINTS = BENCH_SPINNER_POINTS, SPINNER_BODIES = 2 * 3038 };

static arb_body_id must_body(arb_world* w, const arb_body_def* bd) {
  arb_body_id id = arb_body_create(w, bd);
  if (arb_body_id_is_null(id)) abort();
  return id;
}

static void spinner_ground(arb_world* w) {
  static arb_vec2 points[SPINNER_POINTS];
  // Box2D v3's point i sits at angle -2*pi*i/360; listed backwards from point 0, the
  // loop goes counter-clockwise through the same points.
  for (int k = 0; k < SPINNER_POINTS; ++k) {
    bench_spinner_point((SPINNER_POINTS - k) % SPINNER_POINTS, &points[k].x, &points[k].y);
  }
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_CHAIN;
  bd.shape.chain = (arb_chain){points, SPINNER_POINTS, true};
  bd.shape.friction = 0.1f;
  must_body(w, &bd);
}

static void spinner_rotor(arb_world* w) {
  arb_polygon core = arb_make_box(0.4f, 20.0f);
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_DYNAMIC;
  bd.position = arb_v2(0.0f, 12.0f);
  bd.enable_sleep = false;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_rounded_polygon(&core, 0.2f);
  bd.shape.friction = 0.0f;
  arb_body_id rotor = must_body(w, &bd);

  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_REVOLUTE;
  jd.body_a = rotor;
  jd.local_anchor_b = arb_v2(0.0f, 12.0f);  // body_b null: a world point
  jd.enable_motor = true;
  jd.motor_speed = -5.0f;
  jd.max_motor_torque = FLT_MAX;
  if (arb_extra_id_is_null(arb_joint_create(w, &jd))) abort();
}

static void* spinner_create(arb_world* w) {
  spinner_ground(w);
  spinner_rotor(w);
  arb_shape_def shapes[3];
  for (int k = 0; k < 3; ++k) {
    shapes[k] = arb_default_shape_def();
    shapes[k].density = 0.25f;
    shapes[k].friction = 0.1f;
    shapes[k].restitution = 0.1f;
  }
  shapes[0].type = ARB_SHAPE_CAPSULE;
  shapes[0].capsule = (arb_capsule){arb_v2(-0.25f, 0.0f), arb_v2(0.25f, 0.0f), 0.25f};
  shapes[1].type = ARB_SHAPE_CIRCLE;
  shapes[1].circle = (arb_circle){arb_v2(0.0f, 0.0f), 0.35f};
  shapes[2].type = ARB_SHAPE_POLYGON;
  shapes[2].polygon = arb_make_box(0.35f, 0.35f);
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_DYNAMIC;
  float x = -23.0f, y = 2.0f;
  for (int i = 0; i < SPINNER_BODIES; ++i) {
    bd.position = arb_v2(x, y);
    bd.shape = shapes[i % 3];
    must_body(w, &bd);
    x += 0.5f;
    if (x >= 23.0f) {
      x = -23.0f;
      y += 0.5f;
    }
  }
  return NULL;
}

const bench_arbiter_scene bench_arbiter_spinner = {
    "spinner", 2 + SPINNER_BODIES, spinner_create, NULL, NULL,
};
