// Physics extras, behaviour: springs (period, damped decay), Verlet rope and braced box,
// revolute pendulum and chain, distance joints, vehicles (top speed, turning, skid,
// braking, coasting), bullets (thin wall at 500 m/s, moving target), world queries with
// filters, collision filtering, and the time-scale step clock.
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

static double xt_abs(double v) {
  return v < 0 ? -v : v;
}

// ---- springs ----------------------------------------------------------------------------

static arb_body_id spring_bob(arb_world* w, float x) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, 0.0f);
  bd.mass = 2.0f;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.1f;
  return arb_body_create(w, &bd);
}

static arb_extra_id spring_to_origin(arb_world* w, arb_body_id b, float k, float c) {
  arb_spring_def sd = arb_default_spring_def();
  sd.body_a = b;
  sd.local_anchor_b = arb_v2(0.0f, 0.0f);
  sd.rest_length = 1.0f;
  sd.stiffness = k;
  sd.damping = c;
  return arb_spring_create(w, &sd);
}

static void test_spring_period(void** state) {
  arb_world* w = *state;
  arb_body_id b = spring_bob(w, 1.2f);
  const float k = 50.0f, m = 2.0f;
  assert_false(arb_extra_id_is_null(spring_to_origin(w, b, k, 0.0f)));
  double expected = 2.0 * 3.14159265358979 * sqrt((double)m / (double)k);
  // Upward zero crossings of x - rest, linearly interpolated.
  double crossings[16];
  int nc = 0;
  float prev = arb_body_get_position(w, b).x - 1.0f;
  for (int i = 1; i < 2000 && nc < 8; ++i) {
    arb_world_step(w, XT_DT);
    float x = arb_body_get_position(w, b).x - 1.0f;
    if (prev < 0.0f && x >= 0.0f)
      crossings[nc++] = ((double)i - 1.0 + (double)prev / (double)(prev - x)) * XT_DT;
    prev = x;
  }
  assert_int_equal(nc, 8);
  double period = (crossings[7] - crossings[0]) / 7.0;
  printf("spring period %.5f s, analytic %.5f s (%.3f %%)\n", period, expected,
         100.0 * (period - expected) / expected);
  assert_true(xt_abs(period - expected) / expected < 0.01);
  // Undamped: the amplitude neither grows nor decays (energy kept by the step scheme).
  float amp = 0.0f;
  for (int i = 0; i < 300; ++i) {
    arb_world_step(w, XT_DT);
    float x = arb_absf(arb_body_get_position(w, b).x - 1.0f);
    if (x > amp) amp = x;
  }
  assert_true(amp > 0.195f && amp < 0.205f);
}

static void test_spring_damped_decay(void** state) {
  arb_world* w = *state;
  arb_body_id b = spring_bob(w, 1.3f);
  const float k = 50.0f, m = 2.0f, c = 1.0f;
  spring_to_origin(w, b, k, c);
  // Local maxima of the displacement (three-sample peaks refined by a parabola).
  double peak_t[32], peak_a[32];
  int np = 0;
  float x0 = arb_body_get_position(w, b).x - 1.0f, x1 = x0;
  for (int i = 1; i < 2000 && np < 8; ++i) {
    arb_world_step(w, XT_DT);
    float x2 = arb_body_get_position(w, b).x - 1.0f;
    if (i >= 2 && x1 > x0 && x1 >= x2 && x1 > 0.0f) {
      double den = (double)x0 - 2.0 * x1 + x2;
      double off = den != 0.0 ? 0.5 * ((double)x0 - x2) / den : 0.0;
      peak_t[np] = ((double)(i - 1) + off) * XT_DT;
      peak_a[np] = (double)x1 - 0.25 * ((double)x0 - x2) * off;
      np++;
    }
    x0 = x1;
    x1 = x2;
  }
  assert_int_equal(np, 8);
  double rate = log(peak_a[0] / peak_a[7]) / (peak_t[7] - peak_t[0]);
  double expected = (double)c / (2.0 * (double)m);
  printf("damped decay rate %.5f 1/s, analytic %.5f 1/s (%.2f %%)\n", rate, expected,
         100.0 * (rate - expected) / expected);
  assert_true(xt_abs(rate - expected) / expected < 0.05);
}

static void test_spring_between_bodies(void** state) {
  arb_world* w = *state;
  arb_body_id a = spring_bob(w, -1.0f), b = spring_bob(w, 1.0f);
  arb_spring_def sd = arb_default_spring_def();
  sd.body_a = a;
  sd.body_b = b;
  sd.rest_length = 1.0f;
  sd.stiffness = 20.0f;
  sd.damping = 5.0f;
  arb_extra_id s = arb_spring_create(w, &sd);
  assert_false(arb_extra_id_is_null(s));
  assert_true(arb_absf(arb_spring_get_length(w, s) - 2.0f) < 1e-5f);
  xt_steps(w, 600);
  assert_true(arb_absf(arb_spring_get_length(w, s) - 1.0f) < 0.01f);
  // Momentum: internal forces, the centre of mass stays at the origin.
  float cx = 0.5f * (arb_body_get_position(w, a).x + arb_body_get_position(w, b).x);
  assert_true(arb_absf(cx) < 1e-4f);
  // Bad defs are refused, a destroyed spring is stale.
  arb_spring_def bad = sd;
  bad.stiffness = -1.0f;
  assert_true(arb_extra_id_is_null(arb_spring_create(w, &bad)));
  bad = sd;
  bad.body_b = a;
  assert_true(arb_extra_id_is_null(arb_spring_create(w, &bad)));
  assert_int_equal(arb_spring_destroy(w, s), 0);
  wt_soft_asserts();  // a stale id: an assert in debug builds, then the soft failure
  assert_int_equal(arb_spring_destroy(w, s), ARB_E_STALE_ID);
  wt_expect_asserts(1);
  assert_int_equal(arb_world_get_spring_count(w), 0);
}

// ---- particles --------------------------------------------------------------------------

static void test_rope_holds_length(void** state) {
  arb_world* w = *state;
  assert_int_equal(arb_world_set_constraint_iterations(w, 16), 0);
  xt_rope(w, 0.0f, 10.0f, 20, 0.1f, 0.0f);
  assert_int_equal(arb_world_get_particle_count(w), 20);
  assert_int_equal(arb_world_get_constraint_count(w), 19);
  xt_steps(w, 600);  // swings down and settles (particle damping)
  float worst = 0.0f;
  for (int i = 0; i < 19; ++i) {
    int a, b;
    float rest;
    assert_int_equal(arb_constraint_get(w, i, &a, &b, &rest), 0);
    float len = arb_distance(arb_particle_get_position(w, a), arb_particle_get_position(w, b));
    float e = arb_absf(len - rest) / rest;
    if (e > worst) worst = e;
  }
  printf("rope: worst constraint error after settling %.4f %%\n", 100.0 * (double)worst);
  assert_true(worst < 0.01f);
  // Pinned end did not move; the free end hangs below it.
  assert_true(arb_particle_get_position(w, 0).x == 0.0f &&
              arb_particle_get_position(w, 0).y == 10.0f);
  assert_true(arb_particle_get_position(w, 19).y < 8.5f);
}

static void test_braced_box_keeps_shape(void** state) {
  arb_world* w = *state;
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 10.0f, 0.5f);
  const arb_vec2 corners[4] = {{-0.5f, 3.0f}, {0.5f, 3.0f}, {0.5f, 4.0f}, {-0.5f, 4.0f}};
  for (int i = 0; i < 4; ++i) {
    arb_particle_def pd = arb_default_particle_def();
    pd.position = corners[i];
    pd.radius = 0.05f;
    assert_int_equal(arb_particle_create(w, &pd), i);
  }
  const int pairs[6][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}, {1, 3}};
  for (int i = 0; i < 6; ++i) {
    arb_constraint_def cd = {pairs[i][0], pairs[i][1], -1.0f, 1.0f};
    assert_int_equal(arb_constraint_create(w, &cd), i);
  }
  // Tilted drop: one corner lands first.
  assert_int_equal(arb_particle_set_position(w, 0, arb_v2(-0.5f, 2.8f)), 0);
  float worst = 0.0f;
  for (int s = 0; s < 240; ++s) {
    arb_world_step(w, XT_DT);
    for (int i = 0; i < 6; ++i) {
      int a, b;
      float rest;
      arb_constraint_get(w, i, &a, &b, &rest);
      float e =
          arb_absf(arb_distance(arb_particle_get_position(w, a), arb_particle_get_position(w, b)) -
                   rest) /
          rest;
      if (s > 120 && e > worst) worst = e;  // after landing
    }
  }
  printf("braced box: worst constraint error at rest %.4f %%\n", 100.0 * (double)worst);
  assert_true(worst < 0.02f);
  for (int i = 0; i < 4; ++i) {
    arb_vec2 p = arb_particle_get_position(w, i);
    assert_true(p.y > 0.0f && p.y < 1.2f);  // on the ground, not through it
  }
  // Not inverted: counter-clockwise area still about 1 m^2.
  float area = 0.0f;
  for (int i = 0; i < 4; ++i) {
    area += arb_cross(arb_particle_get_position(w, i), arb_particle_get_position(w, (i + 1) % 4));
  }
  area *= 0.5f;
  assert_true(area > 0.95f && area < 1.05f);
}

static void test_particles_collide_with_bodies(void** state) {
  arb_world* w = *state;
  wt_segment(w, -5.0f, 0.0f, 5.0f, 0.0f);
  arb_body_id ball = wt_circle(w, ARB_BODY_STATIC, 2.0f, 1.0f, 0.5f);
  (void)ball;
  arb_particle_def pd = arb_default_particle_def();
  pd.radius = 0.05f;
  pd.position = arb_v2(0.0f, 2.0f);
  int p0 = arb_particle_create(w, &pd);
  pd.position = arb_v2(2.0f, 3.0f);
  int p1 = arb_particle_create(w, &pd);
  pd.position = arb_v2(-2.0f, 2.0f);
  pd.radius = 0.0f;  // radius 0: no collision
  int p2 = arb_particle_create(w, &pd);
  xt_steps(w, 120);
  arb_vec2 a = arb_particle_get_position(w, p0), b = arb_particle_get_position(w, p1);
  assert_true(a.y > 0.04f && a.y < 0.06f);
  assert_true(arb_distance(b, arb_v2(2.0f, 1.0f)) > 0.54f);  // resting on / rolled off the ball
  assert_true(arb_particle_get_position(w, p2).y < -1.0f);   // fell through
  assert_true(arb_length(arb_particle_get_velocity(w, p0)) < 0.1f);
}

// ---- joints -----------------------------------------------------------------------------

static double pendulum_period(float L, float theta0) {
  arb_world* w = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  const arb_vec2 pivot = {0.0f, 5.0f};
  const float r = 0.05f;
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(pivot.x + L * arb_sin(theta0), pivot.y - L * arb_cos(theta0));
  bd.mass = 1.0f;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = r;
  arb_body_id bob = arb_body_create(w, &bd);
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_REVOLUTE;
  jd.body_a = bob;
  jd.local_anchor_a = arb_sub(pivot, bd.position);
  jd.local_anchor_b = pivot;
  assert_false(arb_extra_id_is_null(arb_joint_create(w, &jd)));
  double crossings[8];
  int nc = 0;
  float prev = arb_body_get_position(w, bob).x;
  for (int i = 1; i < 3000 && nc < 6; ++i) {
    arb_world_step(w, XT_DT);
    float x = arb_body_get_position(w, bob).x;
    if (prev < 0.0f && x >= 0.0f)
      crossings[nc++] = ((double)i - 1.0 + (double)prev / (double)(prev - x)) * XT_DT;
    prev = x;
  }
  assert_int_equal(nc, 6);
  arb_world_destroy(w);
  return (crossings[5] - crossings[0]) / 5.0;
}

static void test_pendulum_period(void** state) {
  (void)state;
  const float L = 1.0f, r = 0.05f, g = 9.81f;
  double period = pendulum_period(L, 0.05f);
  // Small-angle period of this physical pendulum (a disc of radius r on a massless rod).
  double expected =
      2.0 * 3.14159265358979 * sqrt(((double)L * L + 0.5 * (double)r * r) / ((double)g * L));
  printf("pendulum period %.5f s, small-angle %.5f s (%.3f %%)\n", period, expected,
         100.0 * (period - expected) / expected);
  assert_true(xt_abs(period - expected) / expected < 0.02);
}

static arb_body_id chain_link(arb_world* w, float x, float y, float half) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(half, 0.05f);
  bd.shape.group = -1;  // links never collide with each other
  bd.shape.density = 20.0f;
  return arb_body_create(w, &bd);
}

static void test_chain_does_not_stretch(void** state) {
  arb_world* w = *state;
  const float half = 0.25f;
  const int n = 10;
  arb_body_id links[10];
  arb_extra_id joints[10];
  for (int i = 0; i < n; ++i) {
    links[i] =
        chain_link(w, half + 2.0f * half * (float)i, 10.0f, half);  // horizontal: falls and swings
    arb_joint_def jd = arb_default_joint_def();
    jd.body_a = links[i];
    jd.local_anchor_a = arb_v2(-half, 0.0f);
    if (i == 0) {
      jd.local_anchor_b = arb_v2(0.0f, 10.0f);
    } else {
      jd.body_b = links[i - 1];
      jd.local_anchor_b = arb_v2(half, 0.0f);
    }
    joints[i] = arb_joint_create(w, &jd);
    assert_false(arb_extra_id_is_null(joints[i]));
  }
  assert_int_equal(arb_world_get_joint_count(w), n);
  // A heavy weight at the end.
  arb_body_id weight = wt_circle(w, ARB_BODY_DYNAMIC, 2.0f * half * (float)n + 0.2f, 10.0f, 0.2f);
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_DISTANCE;
  jd.body_a = weight;
  jd.body_b = links[n - 1];
  jd.local_anchor_b = arb_v2(half, 0.0f);
  assert_false(arb_extra_id_is_null(arb_joint_create(w, &jd)));
  float worst = 0.0f, lowest = 100.0f;
  for (int s = 0; s < 360; ++s) {
    arb_world_step(w, XT_DT);
    lowest = arb_minf(lowest, arb_body_get_position(w, links[n - 1]).y);
    float gap = 0.0f;
    for (int i = 0; i < n; ++i) {
      arb_vec2 a, b;
      arb_joint_get_anchors(w, joints[i], &a, &b);
      gap += arb_distance(a, b);
    }
    float stretch = gap / (2.0f * half * (float)n);
    if (stretch > worst) worst = stretch;
  }
  printf("10-link chain: worst stretch while swinging %.4f %%\n", 100.0 * (double)worst);
  assert_true(worst < 0.01f);
  // It swung through the bottom: the last link came down to about a chain length below.
  assert_true(lowest < 5.5f);
}

// A ragdoll (torso, head, two-part arms and legs, 9 revolute joints) dropped onto the
// ground: it lands, tumbles and comes to rest without coming apart.
static arb_body_id rag_box(arb_world* w, float x, float y, float hw, float hh) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(hw, hh);
  bd.shape.group = -5;  // parts never collide with each other
  return arb_body_create(w, &bd);
}

static void test_ragdoll_holds(void** state) {
  arb_world* w = *state;
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  const float y = 4.0f;
  arb_body_id torso = rag_box(w, 0.0f, y, 0.2f, 0.4f);
  arb_body_id head = rag_box(w, 0.0f, y + 0.6f, 0.15f, 0.15f);
  arb_body_id parts[8];
  const float side[2] = {-1.0f, 1.0f};
  for (int k = 0; k < 2; ++k) {
    parts[k * 4 + 0] = rag_box(w, side[k] * 0.45f, y + 0.3f, 0.2f, 0.06f);   // upper arm
    parts[k * 4 + 1] = rag_box(w, side[k] * 0.85f, y + 0.3f, 0.2f, 0.06f);   // forearm
    parts[k * 4 + 2] = rag_box(w, side[k] * 0.1f, y - 0.65f, 0.07f, 0.25f);  // thigh
    parts[k * 4 + 3] = rag_box(w, side[k] * 0.1f, y - 1.15f, 0.07f, 0.25f);  // shin
  }
  struct {
    arb_body_id a, b;
    arb_vec2 p;
  } pins[9];
  int n = 0;
  pins[n].a = head, pins[n].b = torso, pins[n++].p = arb_v2(0.0f, y + 0.45f);
  for (int k = 0; k < 2; ++k) {
    pins[n].a = parts[k * 4 + 0], pins[n].b = torso,
    pins[n++].p = arb_v2(side[k] * 0.25f, y + 0.3f);
    pins[n].a = parts[k * 4 + 1], pins[n].b = parts[k * 4 + 0],
    pins[n++].p = arb_v2(side[k] * 0.65f, y + 0.3f);
    pins[n].a = parts[k * 4 + 2], pins[n].b = torso, pins[n++].p = arb_v2(side[k] * 0.1f, y - 0.4f);
    pins[n].a = parts[k * 4 + 3], pins[n].b = parts[k * 4 + 2],
    pins[n++].p = arb_v2(side[k] * 0.1f, y - 0.9f);
  }
  arb_extra_id joints[9];
  for (int i = 0; i < n; ++i) {
    arb_joint_def jd = arb_default_joint_def();
    jd.body_a = pins[i].a;
    jd.body_b = pins[i].b;
    jd.local_anchor_a = arb_inv_transform_point(arb_body_get_transform(w, pins[i].a), pins[i].p);
    jd.local_anchor_b = arb_inv_transform_point(arb_body_get_transform(w, pins[i].b), pins[i].p);
    joints[i] = arb_joint_create(w, &jd);
    assert_false(arb_extra_id_is_null(joints[i]));
  }
  arb_body_apply_linear_impulse(w, torso, arb_v2(3.0f, 0.0f), arb_v2(0.0f, y + 0.3f));  // a shove
  float worst = 0.0f;
  for (int s = 0; s < 300; ++s) {
    arb_world_step(w, XT_DT);
    for (int i = 0; i < n; ++i) {
      arb_vec2 a, b;
      arb_joint_get_anchors(w, joints[i], &a, &b);
      worst = arb_maxf(worst, arb_distance(a, b));
    }
  }
  printf("ragdoll: largest joint gap while falling and landing %.2f mm\n", 1000.0 * (double)worst);
  assert_true(worst < 0.01f);
  float ty = arb_body_get_position(w, torso).y;
  assert_true(ty > 0.0f && ty < 1.0f);  // on the ground, not through it
  assert_true(arb_length(arb_body_get_linear_velocity(w, torso)) < 0.1f);  // at rest
}

static void test_distance_joints(void** state) {
  arb_world* w = *state;
  arb_body_id anchor = wt_box(w, ARB_BODY_STATIC, 0.0f, 5.0f, 0.1f, 0.1f);
  arb_body_id rigid = wt_circle(w, ARB_BODY_DYNAMIC, 2.0f, 5.0f, 0.1f);
  arb_body_id soft = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 3.5f, 0.1f);  // 1.5 m below the anchor
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_DISTANCE;
  jd.body_a = rigid;
  jd.body_b = anchor;
  arb_extra_id jr = arb_joint_create(w, &jd);  // length < 0: the current distance, 2 m
  jd.body_a = soft;
  jd.length = 1.0f;
  jd.hertz = 2.0f;
  jd.damping_ratio = 0.3f;
  arb_extra_id js = arb_joint_create(w, &jd);
  assert_false(arb_extra_id_is_null(jr) || arb_extra_id_is_null(js));
  float worst = 0.0f, soft_max = 0.0f;
  for (int s = 0; s < 300; ++s) {
    arb_world_step(w, XT_DT);
    arb_vec2 a, b;
    arb_joint_get_anchors(w, jr, &a, &b);
    worst = arb_maxf(worst, arb_absf(arb_distance(a, b) - 2.0f));
    arb_joint_get_anchors(w, js, &a, &b);
    soft_max = arb_maxf(soft_max, arb_distance(a, b));
  }
  assert_true(worst < 0.01f);    // a rod
  assert_true(soft_max > 1.3f);  // a spring: released 1.5 m away, it bounces
  arb_vec2 a, b;
  arb_joint_get_anchors(w, js, &a, &b);
  // At rest the soft joint sags by g/omega^2 beyond its length.
  xt_steps(w, 900);
  arb_joint_get_anchors(w, js, &a, &b);
  float omega = 2.0f * ARB_PI * 2.0f;
  assert_true(arb_absf(arb_distance(a, b) - (1.0f + 9.81f / (omega * omega))) < 0.02f);
  // Invalid: both static / same body / bad type.
  jd.body_a = anchor;
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &jd)));
  jd.body_a = soft;
  jd.body_b = soft;
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &jd)));
  jd.body_b = anchor;
  jd.type = ARB_JOINT_TYPE_COUNT;
  assert_true(arb_extra_id_is_null(arb_joint_create(w, &jd)));
  // A destroyed body leaves its joint inert, not dangling.
  assert_int_equal(arb_body_destroy(w, rigid), 0);
  xt_steps(w, 10);
  assert_int_equal(arb_joint_destroy(w, jr), 0);
}

// ---- vehicles ---------------------------------------------------------------------------

static float car_speed(arb_world* w, arb_body_id c) {
  return arb_length(arb_body_get_linear_velocity(w, c));
}

static void test_vehicle_top_speed(void** state) {
  arb_world* w = *state;
  arb_body_id c;
  arb_extra_id car = xt_car(w, 0.0f, 0.0f, 0.0f, &c);
  assert_false(arb_extra_id_is_null(car));
  assert_int_equal(arb_vehicle_set_input(w, car, 0.0f, 1.0f, 0.0f), 0);
  xt_steps(w, 60 * 40);
  float v1 = arb_vehicle_get_forward_speed(w, car);
  xt_steps(w, 60 * 10);
  float v2 = arb_vehicle_get_forward_speed(w, car);
  printf("vehicle top speed %.3f m/s (10 s earlier %.3f)\n", (double)v2, (double)v1);
  assert_true(v2 > 15.0f);
  assert_true(arb_absf(v2 - v1) / v2 < 0.005f);
  // Straight: no drift sideways, no rotation.
  assert_true(arb_absf(arb_body_get_position(w, c).y) < 0.05f);
  assert_true(arb_absf(arb_body_get_angle(w, c)) < 1e-3f);
  // The driven wheels roll at the ground speed (no wheelspin once at speed).
  float spin = arb_vehicle_get_wheel_spin(w, car, 2);
  assert_true(arb_absf(spin * 0.35f - v2) / v2 < 0.01f);
}

static float turn_radius(float steer) {
  arb_world* w = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  arb_body_id c;
  arb_extra_id car = xt_car(w, 0.0f, 0.0f, 0.0f, &c);
  arb_vehicle_set_input(w, car, 0.0f, 0.6f, 0.0f);
  while (arb_vehicle_get_forward_speed(w, car) < 8.0f) arb_world_step(w, XT_DT);
  arb_vehicle_set_input(w, car, steer, 0.1f, 0.0f);
  xt_steps(w, 120);
  double sum = 0.0;
  for (int i = 0; i < 60; ++i) {
    arb_world_step(w, XT_DT);
    sum += (double)(car_speed(w, c) / arb_absf(arb_body_get_angular_velocity(w, c)));
  }
  float left = arb_body_get_angular_velocity(w, c);
  arb_world_destroy(w);
  assert_true(left > 0.0f);  // positive steer turns left (counter-clockwise)
  return (float)(sum / 60.0);
}

static void test_vehicle_turns(void** state) {
  (void)state;
  float r1 = turn_radius(0.2f), r2 = turn_radius(0.5f), r3 = turn_radius(1.0f);
  printf("vehicle turn radius at 8 m/s: steer 0.2 -> %.2f m, 0.5 -> %.2f m, 1.0 -> %.2f m\n",
         (double)r1, (double)r2, (double)r3);
  assert_true(r1 > r2 && r2 > r3);
  assert_true(r3 > 2.0f && r1 < 40.0f);
}

// A car from rest at the origin, heading +x, on full throttle until it reaches `speed`.
static arb_extra_id car_up_to_speed(arb_world* w, arb_body_id* chassis, float speed) {
  arb_extra_id car = xt_car(w, 0.0f, 0.0f, 0.0f, chassis);
  arb_vehicle_set_input(w, car, 0.0f, 1.0f, 0.0f);
  while (arb_vehicle_get_forward_speed(w, car) < speed) arb_world_step(w, XT_DT);
  return car;
}

static void test_vehicle_skids_when_oversteered(void** state) {
  arb_world* w = *state;
  arb_body_id c;
  arb_extra_id car = car_up_to_speed(w, &c, 20.0f);
  bool skid_before = false;
  for (int i = 0; i < 4; ++i) skid_before = skid_before || arb_vehicle_is_wheel_skidding(w, car, i);
  assert_false(skid_before);
  arb_vehicle_set_input(w, car, 1.0f, 1.0f, 0.0f);
  bool skid = false;
  float ratio = 0.0f;
  for (int s = 0; s < 60; ++s) {
    arb_world_step(w, XT_DT);
    for (int i = 0; i < 4; ++i) skid = skid || arb_vehicle_is_wheel_skidding(w, car, i);
    // Yaw rate against the no-slip (kinematic bicycle) yaw rate v*tan(delta)/wheelbase.
    float v = car_speed(w, c);
    float kinematic = v * 0.684137f / 2.6f;  // tan(0.6 rad), wheelbase 2.6 m
    if (s >= 30) ratio = arb_maxf(ratio, arb_absf(arb_body_get_angular_velocity(w, c)) / kinematic);
  }
  printf("over-steer at 20 m/s: skidding %d, yaw rate / no-slip yaw rate %.3f\n", skid,
         (double)ratio);
  assert_true(skid);
  assert_true(ratio < 0.5f);  // the tyres slide: it turns far wider than the wheels point
}

static void test_vehicle_brakes_and_coasts(void** state) {
  arb_world* w = *state;
  arb_body_id c;
  arb_extra_id car = car_up_to_speed(w, &c, 20.0f);
  float x0 = arb_body_get_position(w, c).x;
  arb_vehicle_set_input(w, car, 0.0f, 0.0f, 1.0f);
  int steps = 0;
  while (car_speed(w, c) > 0.01f && steps < 600) {
    arb_world_step(w, XT_DT);
    steps++;
  }
  float dist = arb_body_get_position(w, c).x - x0;
  printf("full brake from 20 m/s: stopped in %.2f s over %.2f m\n", (double)steps * XT_DT,
         (double)dist);
  assert_true(steps < 600);
  assert_true(dist > 5.0f && dist < 40.0f);  // bounded by v^2 / (2 mu g) ~ 20 m plus slack
  // No input: coasts to rest from 15 m/s, slowing all the way.
  arb_vehicle_set_input(w, car, 0.0f, 1.0f, 0.0f);
  while (arb_vehicle_get_forward_speed(w, car) < 15.0f) arb_world_step(w, XT_DT);
  arb_vehicle_set_input(w, car, 0.0f, 0.0f, 0.0f);
  float last = car_speed(w, c);
  bool monotonic = true;
  steps = 0;
  while (car_speed(w, c) > 0.01f && steps < 60 * 120) {
    arb_world_step(w, XT_DT);
    float v = car_speed(w, c);
    monotonic = monotonic && v <= last + 1e-4f;
    last = v;
    steps++;
  }
  printf("coasting from 15 m/s: at rest after %.1f s\n", (double)steps * XT_DT);
  assert_true(monotonic);
  assert_true(steps < 60 * 120);
  xt_steps(w, 60);
  assert_true(car_speed(w, c) < 0.01f);
}

static void test_vehicle_api(void** state) {
  arb_world* w = *state;
  arb_body_id c;
  arb_extra_id car = xt_car(w, 3.0f, 1.0f, 0.5f, &c);
  assert_true(arb_body_id_equals(arb_vehicle_get_chassis(w, car), c));
  assert_int_equal(arb_vehicle_get_wheel_count(w, car), 4);
  arb_vehicle_set_input(w, car, 5.0f, -1.0f, 0.0f / 0.0f);  // clamped, NaN -> 0
  arb_world_step(w, XT_DT);
  assert_true(arb_absf(arb_vehicle_get_steer_angle(w, car, 0) - 0.6f) < 1e-6f);
  assert_true(arb_vehicle_get_steer_angle(w, car, 2) == 0.0f);
  arb_transform t = arb_vehicle_get_wheel_transform(w, car, 0);
  arb_vec2 expect = arb_transform_point(arb_body_get_transform(w, c), arb_v2(1.3f, 0.8f));
  assert_true(arb_distance(t.p, expect) < 1e-5f);
  arb_extra_id ids[4];
  assert_int_equal(arb_world_get_vehicles(w, ids, 4), 1);
  arb_vehicle_def vd = arb_default_vehicle_def();
  vd.chassis = wt_box(w, ARB_BODY_STATIC, 0, -5, 1, 1);
  assert_true(arb_extra_id_is_null(arb_vehicle_create(w, &vd)));  // static chassis
  vd.chassis = c;
  vd.wheel_count = 0;
  assert_true(arb_extra_id_is_null(arb_vehicle_create(w, &vd)));
  vd.wheel_count = 4;
  vd.wheels[1].radius = -1.0f;
  assert_true(arb_extra_id_is_null(arb_vehicle_create(w, &vd)));
  assert_int_equal(arb_vehicle_destroy(w, car), 0);
  wt_soft_asserts();  // a stale id: an assert in debug builds, then the soft failure
  assert_int_equal(arb_vehicle_set_input(w, car, 0, 0, 0), ARB_E_STALE_ID);
  wt_expect_asserts(1);
  assert_int_equal(arb_world_get_vehicles(w, NULL, 0), 0);
}

// ---- bullets ----------------------------------------------------------------------------

static arb_body_id bullet(arb_world* w, float x, float y, float vx, bool is_bullet) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.linear_velocity = arb_v2(vx, 0.0f);
  bd.bullet = is_bullet;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.05f;
  return arb_body_create(w, &bd);
}

static void test_bullet_thin_wall(void** state) {
  (void)state;
  int passed_discrete = 0;
  for (int k = 0; k < 24; ++k) {  // different phases of the step against the wall
    // mode 0: bullet; 1: plain body, continuous on (the default); 2: plain, continuous off.
    for (int mode = 0; mode < 3; ++mode) {
      arb_world_def wd = arb_default_world_def();
      wd.gravity = arb_v2(0.0f, 0.0f);
      wd.max_linear_speed = 1000.0f;
      wd.enable_continuous = mode != 2;
      arb_world* w = arb_world_create(&wd);
      wt_box(w, ARB_BODY_STATIC, 5.0f, 0.0f, 0.05f, 2.0f);  // 0.1 m thick
      arb_body_id b = bullet(w, -(float)k * 0.37f, 0.0f, 500.0f, mode == 0);
      float max_x = -100.0f;
      for (int s = 0; s < 40; ++s) {
        arb_world_step(w, XT_DT);
        max_x = arb_maxf(max_x, arb_body_get_position(w, b).x);
      }
      if (mode != 2) {
        assert_true(max_x < 4.95f - 0.05f + 0.01f);  // never beyond the near face
      } else if (max_x > 5.1f) {
        passed_discrete++;
      }
      arb_world_destroy(w);
    }
  }
  printf(
      "500 m/s into a 0.1 m wall: bullets and plain bodies stopped 24/24, plain bodies "
      "without continuous tunnelled %d/24\n",
      passed_discrete);
  assert_true(passed_discrete > 0);  // without CCD it does tunnel: the test is meaningful
  // Conservative advancement has no speed limit: 10 km/s (167 m per step) is stopped too.
  for (int k = 0; k < 8; ++k) {
    arb_world* w = xt_world(arb_v2(0.0f, 0.0f), 20000.0f);
    wt_box(w, ARB_BODY_STATIC, 5.0f + 0.013f * (float)k, 0.0f, 0.05f, 2.0f);
    arb_body_id b = bullet(w, -(float)k * 0.37f, 0.0f, 10000.0f, true);
    for (int s = 0; s < 20; ++s) {
      arb_world_step(w, XT_DT);
      assert_true(arb_body_get_position(w, b).x < 4.95f + 0.013f * (float)k - 0.04f);
    }
    arb_world_destroy(w);
  }
}

static void test_bullet_vs_moving_body(void** state) {
  (void)state;
  for (int k = 0; k < 12; ++k) {
    arb_world* w = xt_world(arb_v2(0.0f, 0.0f), 1000.0f);
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(10.0f + 0.31f * (float)k, 0.0f);
    bd.linear_velocity = arb_v2(-30.0f, 0.0f);
    bd.fixed_rotation = true;  // a spinning plank would let the bullet slide off its end
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(0.05f, 1.0f);
    arb_body_id target = arb_body_create(w, &bd);
    arb_body_id b = bullet(w, 0.0f, 0.3f, 500.0f, true);
    bool behind = false;
    for (int s = 0; s < 30; ++s) {
      arb_world_step(w, XT_DT);
      // In the target's frame the bullet must stay on the side it came from.
      arb_vec2 local =
          arb_inv_transform_point(arb_body_get_transform(w, target), arb_body_get_position(w, b));
      behind = behind || local.x > 0.0f;
    }
    assert_false(behind);
    // It was caught: the target was pushed (gained momentum toward +x) and the bullet
    // now moves with it.
    assert_true(arb_body_get_linear_velocity(w, target).x > -30.0f);
    assert_true(arb_body_get_linear_velocity(w, b).x < 0.0f);
    arb_world_destroy(w);
  }
}

// ---- queries and filtering --------------------------------------------------------------

static void test_world_ray_casts(void** state) {
  arb_world* w = *state;
  arb_body_id circle = wt_circle(w, ARB_BODY_STATIC, 5.0f, 0.0f, 1.0f);
  arb_body_id box = wt_box(w, ARB_BODY_STATIC, 10.0f, 0.0f, 0.5f, 0.5f);
  arb_body_id seg = wt_segment(w, 15.0f, -1.0f, 15.0f, 1.0f);
  arb_query_filter all = arb_default_query_filter();
  arb_ray_hit h;
  assert_true(arb_world_ray_cast_closest(w, arb_v2(0, 0), arb_v2(20, 0), all, &h));
  assert_true(arb_body_id_equals(h.body, circle));
  assert_true(arb_absf(h.fraction - 0.2f) < 1e-6f && h.normal.x == -1.0f &&
              arb_absf(h.point.x - 4.0f) < 1e-5f);
  arb_ray_hit hits[4];
  assert_int_equal(arb_world_ray_cast_all(w, arb_v2(0, 0), arb_v2(20, 0), all, hits, 4), 3);
  assert_true(arb_body_id_equals(hits[0].body, circle) && arb_body_id_equals(hits[1].body, box) &&
              arb_body_id_equals(hits[2].body, seg));
  assert_true(arb_absf(hits[1].fraction - 9.5f / 20.0f) < 1e-6f &&
              arb_absf(hits[2].fraction - 0.75f) < 1e-6f);
  // Capacity 1 keeps the nearest; the total is still reported.
  assert_int_equal(arb_world_ray_cast_all(w, arb_v2(0, 0), arb_v2(20, 0), all, hits, 1), 3);
  assert_true(arb_body_id_equals(hits[0].body, circle));
  // Body types: a dynamic box in front is seen by default and skipped by a static-only
  // filter; a dynamic-only filter sees nothing else.
  arb_body_id crate = wt_box(w, ARB_BODY_DYNAMIC, 2.0f, 0.0f, 0.25f, 0.25f);
  assert_true(arb_world_ray_cast_closest(w, arb_v2(0, 0), arb_v2(20, 0), all, &h));
  assert_true(arb_body_id_equals(h.body, crate));
  arb_query_filter statics = all;
  statics.body_types = ARB_QUERY_TYPE(ARB_BODY_STATIC);
  assert_true(arb_world_ray_cast_closest(w, arb_v2(0, 0), arb_v2(20, 0), statics, &h));
  assert_true(arb_body_id_equals(h.body, circle));
  assert_int_equal(arb_world_ray_cast_all(w, arb_v2(0, 0), arb_v2(20, 0), statics, hits, 4), 3);
  arb_query_filter dynamics = all;
  dynamics.body_types = ARB_QUERY_TYPE(ARB_BODY_DYNAMIC);
  assert_int_equal(arb_world_ray_cast_all(w, arb_v2(0, 0), arb_v2(20, 0), dynamics, hits, 4), 1);
  assert_true(arb_body_id_equals(hits[0].body, crate));
  arb_body_destroy(w, crate);
  // From the far side: nearest first again.
  assert_int_equal(arb_world_ray_cast_all(w, arb_v2(20, 0), arb_v2(-20, 0), all, hits, 4), 3);
  assert_true(arb_body_id_equals(hits[0].body, seg) && arb_body_id_equals(hits[2].body, circle));
  // Filtered: the circle's category is not seen.
  arb_query_filter f = all;
  f.mask_bits = ~1u;
  assert_false(arb_world_ray_cast_closest(w, arb_v2(0, 0), arb_v2(20, 0), f,
                                          &h));  // all bodies are category 1
  // Miss, short ray, starting inside, parallel to the segment.
  assert_false(arb_world_ray_cast_closest(w, arb_v2(0, 0), arb_v2(0, 20), all, &h));
  assert_false(arb_world_ray_cast_closest(w, arb_v2(0, 0), arb_v2(3.9f, 0), all, &h));
  assert_true(arb_world_ray_cast_closest(w, arb_v2(5.2f, 0.1f), arb_v2(20, 0), all, &h));
  assert_true(arb_body_id_equals(h.body, circle) && h.fraction == 0.0f && h.normal.x == 0.0f &&
              h.normal.y == 0.0f);
  assert_false(arb_world_ray_cast_closest(w, arb_v2(15.0f, -5.0f), arb_v2(0, 10), all, &h));
  // Rotated box: analytic hit on its corner-facing side.
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.position = arb_v2(0.0f, 10.0f);
  bd.angle = ARB_PI / 4.0f;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(1.0f, 1.0f);
  bd.shape.category_bits = 2u;
  arb_body_id diamond = arb_body_create(w, &bd);
  f = all;
  f.mask_bits = 2u;
  assert_true(arb_world_ray_cast_closest(w, arb_v2(-5.0f, 10.0f), arb_v2(10.0f, 0.0f), f, &h));
  assert_true(arb_body_id_equals(h.body, diamond));
  assert_true(arb_absf(h.point.x + 1.41421356f) < 1e-4f);
}

static void test_world_overlap_and_point(void** state) {
  arb_world* w = *state;
  arb_body_id a = wt_circle(w, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f);
  arb_body_id b = wt_box(w, ARB_BODY_DYNAMIC, 1.5f, 0.0f, 1.0f, 1.0f);
  wt_segment(w, -1.0f, 3.0f, 1.0f, 3.0f);
  arb_query_filter all = arb_default_query_filter();
  arb_body_id out[4];
  assert_int_equal(arb_world_query_point(w, arb_v2(0.75f, 0.0f), all, out, 4), 2);
  assert_true(arb_body_id_equals(out[0], a) && arb_body_id_equals(out[1], b));
  assert_int_equal(arb_world_query_point(w, arb_v2(-0.9f, 0.9f), all, out, 4),
                   0);  // in the circle's box only
  assert_int_equal(arb_world_query_point(w, arb_v2(0.0f, 3.0f), all, out, 4),
                   0);  // segments hold no points
  arb_aabb box = {{-0.5f, 2.5f}, {0.5f, 3.5f}};
  assert_int_equal(arb_world_overlap_aabb(w, box, all, out, 4), 1);
  arb_aabb big = {{-10.0f, -10.0f}, {10.0f, 10.0f}};
  assert_int_equal(arb_world_overlap_aabb(w, big, all, out, 4), 3);
  arb_query_filter g = all;
  g.group = -3;
  arb_shape_def s = *arb_body_get_shape(w, a);
  assert_true(arb_query_filter_accepts(g, &s));
  s.group = -3;
  assert_false(arb_query_filter_accepts(g, &s));
  s.group = 3;
  g.group = 3;
  g.mask_bits = 0;
  assert_true(arb_query_filter_accepts(g, &s));  // same positive group: seen whatever the bits
}

// A world with a static ground (category 1) and *bd a small circle to drop on it.
static arb_world* filter_world(arb_body_def* bd) {
  arb_world* w = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  *bd = arb_default_body_def();
  bd->shape.type = ARB_SHAPE_CIRCLE;
  bd->shape.circle.radius = 0.25f;
  return w;
}

static void test_collision_filtering(void** state) {
  (void)state;
  arb_body_def bd;
  arb_world* w = filter_world(&bd);
  bd.position = arb_v2(-3.0f, 1.0f);
  arb_body_id normal = arb_body_create(w, &bd);
  bd.position = arb_v2(0.0f, 1.0f);
  bd.shape.mask_bits = ~1u;  // ignores the ground
  arb_body_id ghost = arb_body_create(w, &bd);
  bd.shape.mask_bits = 0xffffffffu;
  bd.shape.group = -7;
  bd.position = arb_v2(3.0f, 0.25f);
  arb_body_id g1 = arb_body_create(w, &bd);
  bd.position = arb_v2(3.0f, 0.6f);
  arb_body_id g2 = arb_body_create(w, &bd);  // overlaps g1: same negative group never collides
  bd.shape.group = 7;
  bd.shape.category_bits = 4u;
  bd.shape.mask_bits = 4u;  // would not see each other by bits, but the positive group collides
  bd.position = arb_v2(6.0f, 0.25f);
  arb_body_id p1 = arb_body_create(w, &bd);
  bd.shape.mask_bits = 5u;
  bd.position = arb_v2(6.0f, 0.75f);
  arb_body_id p2 = arb_body_create(w, &bd);
  xt_steps(w, 120);
  assert_true(arb_body_get_position(w, normal).y > 0.2f);
  assert_true(arb_body_get_position(w, ghost).y < -5.0f);
  assert_true(arb_body_get_position(w, g1).y > 0.2f);
  assert_true(arb_absf(arb_body_get_position(w, g2).y - arb_body_get_position(w, g1).y) <
              0.05f);  // sank into g1
  assert_true(arb_body_get_position(w, p2).y - arb_body_get_position(w, p1).y > 0.45f);  // stacked
  arb_world_destroy(w);
}

// Every dynamic shape masks out its own category, so the broad phase skips the whole tree
// for them by its category and mask unions; a positive group still collides, and the
// ground (another category) is still found.
static void test_collision_filtering_unions(void** state) {
  (void)state;
  arb_body_def bd;
  arb_world* w = filter_world(&bd);
  bd.shape.category_bits = 2u;
  bd.shape.mask_bits = ~2u;
  bd.position = arb_v2(-3.0f, 0.25f);
  arb_body_id a = arb_body_create(w, &bd);
  bd.position = arb_v2(-3.0f, 0.6f);
  arb_body_id b = arb_body_create(w, &bd);  // overlaps a: the bits keep them apart
  bd.shape.group = 9;
  bd.position = arb_v2(3.0f, 0.25f);
  arb_body_id p1 = arb_body_create(w, &bd);
  bd.position = arb_v2(3.0f, 0.75f);
  arb_body_id p2 = arb_body_create(w, &bd);  // the same positive group: collides
  xt_steps(w, 120);
  assert_true(arb_body_get_position(w, a).y > 0.2f);  // on the ground
  assert_true(arb_body_get_position(w, b).y > 0.2f);
  assert_true(arb_absf(arb_body_get_position(w, b).y - arb_body_get_position(w, a).y) < 0.05f);
  assert_true(arb_body_get_position(w, p2).y - arb_body_get_position(w, p1).y > 0.45f);  // stacked
  arb_world_destroy(w);
}

// ---- time scale -------------------------------------------------------------------------

static void test_time_scale_clock(void** state) {
  (void)state;
  arb_step_clock c;
  assert_int_equal(arb_step_clock_init(&c, XT_DT, 0.25f, 8), 0);
  const int64_t frame = c.step_ns;  // a display refreshing at the tick rate
  int steps = 0;
  for (int i = 0; i < 240; ++i) steps += arb_step_clock_advance(&c, frame);
  assert_int_equal(steps, 60);  // 4 s of wall time at 0.25x = 1 s of simulation
  assert_int_equal(arb_step_clock_set_scale(&c, 8.0f), 0);
  steps = 0;
  for (int i = 0; i < 60; ++i) {
    int n = arb_step_clock_advance(&c, frame);
    assert_int_equal(n, 8);
    steps += n;
  }
  assert_int_equal(steps, 480);
  assert_true(arb_step_clock_alpha(&c) >= 0.0f && arb_step_clock_alpha(&c) < 1.0f);
  // Bounded catch-up: a 10 s stall runs at most max_steps.
  assert_int_equal(arb_step_clock_advance(&c, 10000000000ll), 8);
  assert_true(c.dropped > 0);
  assert_int_equal(arb_step_clock_set_scale(&c, 0.0f), 0);
  assert_int_equal(arb_step_clock_advance(&c, frame), 0);  // paused
  assert_int_equal(arb_step_clock_set_scale(&c, 100.0f), ARB_E_INVAL);
  assert_int_equal(arb_step_clock_init(&c, 0.0f, 1.0f, 1), ARB_E_INVAL);
  // Same fixed steps whatever the scale: identical states at the same step count.
  uint64_t hashes[2];
  const float scales[2] = {0.25f, 8.0f};
  for (int k = 0; k < 2; ++k) {
    arb_world* w = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
    wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 5.0f, 0.5f);
    wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 2.0f, 0.5f, 0.5f);
    arb_step_clock_init(&c, XT_DT, scales[k], 64);
    while (arb_world_get_step_count(w) < 120) {
      int n = arb_step_clock_advance(&c, frame);
      for (int i = 0; i < n && arb_world_get_step_count(w) < 120; ++i) arb_world_step(w, XT_DT);
    }
    hashes[k] = arb_world_hash(w);
    arb_world_destroy(w);
  }
  assert_true(hashes[0] == hashes[1]);
}

ARB_TEST_MAIN(XT_ZERO_G_TEST(test_spring_period), XT_ZERO_G_TEST(test_spring_damped_decay),
              XT_ZERO_G_TEST(test_spring_between_bodies), XT_EARTH_TEST(test_rope_holds_length),
              XT_EARTH_TEST(test_braced_box_keeps_shape),
              XT_EARTH_TEST(test_particles_collide_with_bodies),
              cmocka_unit_test(test_pendulum_period), XT_EARTH_TEST(test_chain_does_not_stretch),
              XT_EARTH_TEST(test_ragdoll_holds), XT_EARTH_TEST(test_distance_joints),
              XT_ZERO_G_TEST(test_vehicle_top_speed), cmocka_unit_test(test_vehicle_turns),
              XT_ZERO_G_TEST(test_vehicle_skids_when_oversteered),
              XT_ZERO_G_TEST(test_vehicle_brakes_and_coasts), XT_ZERO_G_TEST(test_vehicle_api),
              cmocka_unit_test(test_bullet_thin_wall), cmocka_unit_test(test_bullet_vs_moving_body),
              XT_ZERO_G_TEST(test_world_ray_casts), XT_ZERO_G_TEST(test_world_overlap_and_point),
              cmocka_unit_test(test_collision_filtering),
              cmocka_unit_test(test_collision_filtering_unions),
              cmocka_unit_test(test_time_scale_clock))
