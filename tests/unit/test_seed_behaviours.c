// The physics behaviours the seed texts describe, each against an analytic expectation
// with its tolerance stated next to the check. World defaults: 4 substeps, dt = 1/60 s.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

static void test_constant_velocity(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_body_id b = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 0.5f);
  arb_body_set_linear_velocity(w, b, arb_v2(1.0f, 0.0f));
  for (int i = 0; i < 60; ++i) arb_world_step(w, DT);
  // 1 m/s for 1 s -> 1 m; tolerance: float rounding of 240 substep additions (1e-5 m).
  assert_float_equal(arb_body_get_position(w, b).x, 1.0f, 1e-5f);
  assert_float_equal(arb_body_get_position(w, b).y, 0.0f, 1e-7f);
  assert_float_equal(arb_body_get_linear_velocity(w, b).x, 1.0f, 1e-7f);
  arb_world_destroy(w);
}

static void test_projectile(void** state) {
  (void)state;
  const float g = 9.81f, vx = 3.0f, vy = 12.0f;
  arb_world* w = wt_world(arb_v2(0.0f, -g));
  arb_body_id b = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 0.1f);
  arb_body_set_linear_velocity(w, b, arb_v2(vx, vy));
  const float h = DT / 4.0f;  // gravity is integrated per substep
  for (int i = 1; i <= 120; ++i) {
    arb_world_step(w, DT);
    float t = (float)i * DT;
    arb_vec2 p = arb_body_get_position(w, b);
    // Semi-implicit Euler with step h lands exactly g*h*t/2 below the parabola (the
    // velocity is updated first): y_n = vy*t - g*t^2/2 - g*h*t/2. Bound: that error
    // plus float rounding (1e-4 m).
    float exact = vy * t - 0.5f * g * t * t;
    float err = exact - p.y;
    assert_float_equal(err, 0.5f * g * h * t, 1e-4f);
    assert_true(err <= 0.5f * g * h * t + 1e-4f);
    assert_float_equal(p.x, vx * t, 1e-4f);
    assert_float_equal(arb_body_get_linear_velocity(w, b).y, vy - g * t, 1e-4f);
  }
  arb_world_destroy(w);
}

static void test_spring_through_force_accumulator(void** state) {
  (void)state;
  // m = 2 kg, k = 2*pi^2 N/m -> T = 2*pi*sqrt(m/k) = 2 s. F = -k x applied every step.
  const float m = 2.0f, k = 2.0f * ARB_PI * ARB_PI;
  const float period = 2.0f * ARB_PI * sqrtf(m / k);
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(1.0f, 0.0f);  // amplitude 1 m
  bd.mass = m;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.1f;
  arb_body_id b = arb_body_create(w, &bd);
  float e0 = 0.5f * k * 1.0f;
  float prev_x = 1.0f, max_e = e0, min_e = e0;
  float first_cross = -1.0f, last_cross = -1.0f;
  int crossings = 0;
  int steps = (int)(10.0f * period / DT) + 30;
  for (int i = 1; i <= steps; ++i) {
    float x = arb_body_get_position(w, b).x;
    arb_body_apply_force_to_center(w, b, arb_v2(-k * x, 0.0f));
    arb_world_step(w, DT);
    float nx = arb_body_get_position(w, b).x;
    float v = arb_body_get_linear_velocity(w, b).x;
    float e = 0.5f * m * v * v + 0.5f * k * nx * nx;
    if (e > max_e) max_e = e;
    if (e < min_e) min_e = e;
    if (prev_x > 0.0f && nx <= 0.0f) {  // downward zero crossing, interpolated in time
      float t = ((float)(i - 1) + prev_x / (prev_x - nx)) * DT;
      if (first_cross < 0.0f) first_cross = t;
      last_cross = t;
      crossings += 1;
    }
    prev_x = nx;
  }
  assert_true(crossings >= 10);
  float measured = (last_cross - first_cross) / (float)(crossings - 1);
  // Period within 1 % over 10 periods.
  assert_float_equal(measured, period, 0.01f * period);
  // No energy growth: symplectic Euler keeps the energy within a bounded band around E0
  // (band ~ k*omega*dt*A^2/2 ~ 5 %); no secular growth over 10 periods.
  assert_true(max_e <= 1.06f * e0);
  assert_true(min_e >= 0.94f * e0);
  arb_world_destroy(w);
}

// Two circles in zero gravity on a collision course along x, restitution 1.
static void collide_head_on(float ma, float mb, float va, float vb, float* out_va, float* out_vb) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, 0.0f);
  wd.restitution_threshold = 0.1f;
  arb_world* w = arb_world_create(&wd);
  arb_body_def bd = arb_default_body_def();
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.5f;
  bd.shape.restitution = 1.0f;
  bd.shape.friction = 0.0f;
  bd.mass = ma;
  bd.position = arb_v2(-1.5f, 0.0f);
  bd.linear_velocity = arb_v2(va, 0.0f);
  arb_body_id a = arb_body_create(w, &bd);
  bd.mass = mb;
  bd.position = arb_v2(1.5f, 0.0f);
  bd.linear_velocity = arb_v2(vb, 0.0f);
  arb_body_id b = arb_body_create(w, &bd);
  // Gap 2 m, closing at >= 0.7 m/s: they meet within 3 s and separate; 5 s in total.
  for (int i = 0; i < 300; ++i) arb_world_step(w, DT);
  assert_true(arb_body_get_position(w, b).x - arb_body_get_position(w, a).x > 1.0f);
  *out_va = arb_body_get_linear_velocity(w, a).x;
  *out_vb = arb_body_get_linear_velocity(w, b).x;
  assert_float_equal(arb_body_get_linear_velocity(w, a).y, 0.0f, 1e-6f);
  arb_world_destroy(w);
}

static void test_elastic_collisions(void** state) {
  (void)state;
  float va, vb;
  // Equal masses swap velocities (tolerance 1e-4 m/s).
  collide_head_on(1.0f, 1.0f, 0.5f, -0.5f, &va, &vb);
  assert_float_equal(va, -0.5f, 1e-4f);
  assert_float_equal(vb, 0.5f, 1e-4f);
  // Unequal masses: momentum to 1e-5 relative, kinetic energy to 1e-3 relative, and the
  // analytic outcome to 1e-3 m/s.
  const float ma = 1.0f, mb = 3.0f, ua = 0.6f, ub = -0.1f;
  collide_head_on(ma, mb, ua, ub, &va, &vb);
  float p0 = ma * ua + mb * ub, p1 = ma * va + mb * vb;
  float e0 = 0.5f * ma * ua * ua + 0.5f * mb * ub * ub,
        e1 = 0.5f * ma * va * va + 0.5f * mb * vb * vb;
  assert_true(fabsf(p1 - p0) <= 1e-5f * fabsf(p0) + 1e-7f);
  assert_true(fabsf(e1 - e0) <= 1e-3f * e0);
  float exact_va = ((ma - mb) * ua + 2.0f * mb * ub) / (ma + mb);
  float exact_vb = ((mb - ma) * ub + 2.0f * ma * ua) / (ma + mb);
  assert_float_equal(va, exact_va, 1e-3f);
  assert_float_equal(vb, exact_vb, 1e-3f);
}

static void test_bounce_height_ratio(void** state) {
  (void)state;
  const float e = 0.7f, r = 0.25f, h0 = 5.0f;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_def gd = box_body_def(ARB_BODY_STATIC, 0.0f, -1.0f, 5.0f, 1.0f);
  arb_body_create(w, &gd);
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(0.0f, h0 + r);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = r;
  bd.shape.restitution = e;
  arb_body_id b = arb_body_create(w, &bd);
  float peaks[3];
  int n = 0;
  float prev_v = 0.0f;
  for (int i = 0; i < 600 && n < 3; ++i) {
    arb_world_step(w, DT);
    float v = arb_body_get_linear_velocity(w, b).y;
    if (prev_v > 0.0f && v <= 0.0f) peaks[n++] = arb_body_get_position(w, b).y - r;
    prev_v = v;
  }
  assert_int_equal(n, 3);
  // Each bounce reaches e^2 of the previous height. Tolerance 5 %: the peak is sampled
  // at step resolution and the impact happens within a step.
  assert_float_equal(peaks[0] / h0, e * e, 0.05f * e * e);
  assert_float_equal(peaks[1] / peaks[0], e * e, 0.05f * e * e);
  assert_float_equal(peaks[2] / peaks[1], e * e, 0.05f * e * e);
  arb_world_destroy(w);
}

static void test_box_rests_without_drift(void** state) {
  arb_world* w = *state;
  arb_body_id ground = wt_ground(w, 10.0f);
  arb_body_id b = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f);
  for (int i = 0; i < 60; ++i) arb_world_step(w, DT);
  arb_vec2 p1 = arb_body_get_position(w, b);
  float max_speed = 0.0f;
  for (int i = 0; i < 600; ++i) {
    arb_world_step(w, DT);
    float s = arb_length(arb_body_get_linear_velocity(w, b));
    if (s > max_speed) max_speed = s;
  }
  arb_vec2 p2 = arb_body_get_position(w, b);
  // Rests on the surface within the linear slop (5 mm), drifts < 0.1 mm in 10 s,
  // never moves faster than 1 mm/s (no jitter), and does not rotate.
  assert_float_equal(p2.y, 0.5f, ARB_LINEAR_SLOP);
  assert_float_equal(p2.x, p1.x, 1e-4f);
  assert_float_equal(p2.y, p1.y, 1e-4f);
  assert_true(max_speed < 1e-3f);
  assert_float_equal(arb_body_get_angle(w, b), 0.0f, 1e-4f);
  assert_float_equal(arb_body_get_position(w, ground).y, -1.0f, 0.0f);
}

static void test_box_stack_stands(void** state) {
  arb_world* w = *state;
  wt_ground(w, 10.0f);
  arb_body_id ids[10];
  for (int i = 0; i < 10; ++i)
    ids[i] = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.5f + (float)i, 0.5f, 0.5f);
  for (int i = 0; i < 600; ++i) arb_world_step(w, DT);
  // 10 s later every box is still on its level (sinking < 5 cm in total at the top,
  // horizontal drift < 1 cm, rotation < 0.01 rad).
  for (int i = 0; i < 10; ++i) {
    arb_vec2 p = arb_body_get_position(w, ids[i]);
    assert_float_equal(p.x, 0.0f, 0.01f);
    assert_float_equal(p.y, 0.5f + (float)i, 0.05f);
    assert_float_equal(arb_body_get_angle(w, ids[i]), 0.0f, 0.01f);
  }
}

static void test_pyramid_stands(void** state) {
  arb_world* w = *state;
  arb_body_id ground = wt_ground(w, 40.0f);
  enum { BASE = 20, COUNT = BASE * (BASE + 1) / 2 };
  arb_body_id ids[COUNT];
  arb_vec2 start[COUNT];
  int n = 0;
  for (int i = 0; i < BASE; ++i) {
    for (int j = i; j < BASE; ++j) {
      float x = ((float)i + 1.0f) * 0.5f + (float)(j - i) - 0.5f * BASE;
      start[n] = arb_v2(x, 0.5f + (float)i);
      ids[n] = wt_box(w, ARB_BODY_DYNAMIC, start[n].x, start[n].y, 0.5f, 0.5f);
      n += 1;
    }
  }
  for (int i = 0; i < 600; ++i) arb_world_step(w, DT);
  // Standing after 10 s: every box within 10 cm of where it started (sinking of the soft
  // contacts, a few mm per level) and not rotated more than 0.02 rad.
  for (int k = 0; k < n; ++k) {
    arb_vec2 p = arb_body_get_position(w, ids[k]);
    assert_true(arb_distance(p, start[k]) < 0.1f);
    assert_float_equal(arb_body_get_angle(w, ids[k]), 0.0f, 0.02f);
  }
  // The static ground has not moved at all (bit-exact).
  assert_true(arb_body_get_position(w, ground).x == 0.0f);
  assert_true(arb_body_get_position(w, ground).y == -1.0f);
  assert_true(arb_body_get_angle(w, ground) == 0.0f);
}

static void test_static_and_kinematic(void** state) {
  arb_world* w = *state;
  arb_body_id s = wt_box(w, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f, 1.0f);
  // Forces, impulses and velocities on a static body change nothing.
  arb_body_apply_force_to_center(w, s, arb_v2(100.0f, 100.0f));
  arb_body_apply_linear_impulse(w, s, arb_v2(100.0f, 100.0f), arb_v2(1.0f, 1.0f));
  arb_body_set_linear_velocity(w, s, arb_v2(3.0f, 0.0f));
  // A dynamic body lands on it, a kinematic one passes through it.
  wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 3.0f, 0.5f);
  arb_body_def kd = box_body_def(ARB_BODY_KINEMATIC, -5.0f, 0.0f, 0.5f, 0.5f);
  kd.linear_velocity = arb_v2(2.0f, 0.0f);
  kd.angular_velocity = 1.0f;
  arb_body_id k = arb_body_create(w, &kd);
  for (int i = 0; i < 300; ++i) arb_world_step(w, DT);
  assert_true(arb_body_get_position(w, s).x == 0.0f && arb_body_get_position(w, s).y == 0.0f);
  assert_true(arb_body_get_angle(w, s) == 0.0f);
  assert_true(arb_body_get_linear_velocity(w, s).x == 0.0f);
  // Kinematic: moved only by its velocity (5 s at 2 m/s), no gravity, no push back.
  assert_float_equal(arb_body_get_position(w, k).x, 5.0f, 1e-3f);
  assert_float_equal(arb_body_get_position(w, k).y, 0.0f, 1e-6f);
  assert_float_equal(arb_body_get_linear_velocity(w, k).x, 2.0f, 0.0f);
}

static void test_damping_rate(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_body_def bd = arb_default_body_def();
  bd.linear_velocity = arb_v2(10.0f, 0.0f);
  bd.linear_damping = 0.5f;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.5f;
  arb_body_id b = arb_body_create(w, &bd);
  for (int i = 0; i < 60; ++i) arb_world_step(w, DT);
  // v *= 1/(1 + dt*c) per step: after 60 steps 10 * (1/(1 + 0.5/60))^60 (~ e^-0.5).
  float expect = 10.0f * powf(1.0f / (1.0f + 0.5f * DT), 60.0f);
  assert_float_equal(arb_body_get_linear_velocity(w, b).x, expect, 1e-4f);
  arb_world_destroy(w);
}

// A box on a static ramp: it stays when tan(angle) < friction and slides with
// a = g (sin - mu cos) when tan(angle) > friction (mu = sqrt(0.6 * 0.6) = 0.6).
static float ramp_slide(float angle, float* accel) {
  const float g = 10.0f;
  arb_world* w = wt_world(arb_v2(0.0f, -g));
  arb_body_def rd = arb_default_body_def();
  rd.type = ARB_BODY_STATIC;
  rd.angle = angle;
  rd.shape.type = ARB_SHAPE_POLYGON;
  rd.shape.polygon = arb_make_box(20.0f, 0.5f);
  arb_body_create(w, &rd);
  arb_rot q = arb_rot_from_angle(angle);
  arb_body_def bd = arb_default_body_def();
  bd.angle = angle;
  bd.position = arb_rotate(q, arb_v2(0.0f, 0.5f + 0.25f));  // resting on the ramp surface
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.25f, 0.25f);
  arb_body_id b = arb_body_create(w, &bd);
  for (int i = 0; i < 30; ++i) arb_world_step(w, DT);
  arb_vec2 p0 = arb_body_get_position(w, b);
  float v0 = arb_dot(arb_body_get_linear_velocity(w, b), arb_v2(q.c, q.s));
  for (int i = 0; i < 60; ++i) arb_world_step(w, DT);
  arb_vec2 p1 = arb_body_get_position(w, b);
  float v1 = arb_dot(arb_body_get_linear_velocity(w, b), arb_v2(q.c, q.s));
  *accel = -(v1 - v0) / 1.0f;  // down the slope is -x along the ramp for angle > 0
  arb_world_destroy(w);
  return arb_distance(p0, p1);
}

static void test_friction_on_a_ramp(void** state) {
  (void)state;
  float a;
  // tan = 0.5 < 0.6: static friction holds; creep < 1 mm in 1 s.
  float d = ramp_slide(0.4636476f, &a);
  assert_true(d < 1e-3f);
  // tan = 0.8 > 0.6: slides with a = g (sin - mu cos) = 10 (0.6247 - 0.6 * 0.7809)
  // = 1.562 m/s^2; tolerance 2 %.
  d = ramp_slide(0.6747409f, &a);
  assert_true(d > 0.5f);
  assert_float_equal(a, 10.0f * (0.6246950f - 0.6f * 0.7808688f), 0.02f * 1.562f);
}

static void test_restitution_threshold(void** state) {
  (void)state;
  // e = 1, but an impact slower than the threshold (1 m/s) does not bounce: a ball
  // dropped from 2 cm hits at ~0.63 m/s and stays down; from 1 m (4.5 m/s) it bounces.
  for (int k = 0; k < 2; ++k) {
    float drop = k == 0 ? 0.02f : 1.0f;
    arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
    wt_ground(w, 5.0f);
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(0.0f, 0.25f + drop);
    bd.shape.type = ARB_SHAPE_CIRCLE;
    bd.shape.circle.radius = 0.25f;
    bd.shape.restitution = 1.0f;
    arb_body_id b = arb_body_create(w, &bd);
    float max_up = 0.0f;
    for (int i = 0; i < 90; ++i) {
      arb_world_step(w, DT);
      float vy = arb_body_get_linear_velocity(w, b).y;
      if (vy > max_up) max_up = vy;
    }
    if (k == 0) {
      assert_true(max_up < 0.05f);  // no bounce (push-out only)
    } else {
      assert_float_equal(max_up, sqrtf(2.0f * 10.0f * drop), 0.05f * 4.47f);
    }
    arb_world_destroy(w);
  }
}

ARB_TEST_MAIN(cmocka_unit_test(test_constant_velocity), cmocka_unit_test(test_projectile),
              cmocka_unit_test(test_spring_through_force_accumulator),
              cmocka_unit_test(test_elastic_collisions), cmocka_unit_test(test_bounce_height_ratio),
              WT_GRAVITY_TEST(test_box_rests_without_drift), WT_GRAVITY_TEST(test_box_stack_stands),
              WT_GRAVITY_TEST(test_pyramid_stands), WT_GRAVITY_TEST(test_static_and_kinematic),
              cmocka_unit_test(test_damping_rate), cmocka_unit_test(test_friction_on_a_ramp),
              cmocka_unit_test(test_restitution_threshold))
