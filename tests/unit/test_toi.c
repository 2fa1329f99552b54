// GJK distance, sweeps and time of impact: a fast small circle against a thin wall is
// caught before it tunnels, and the TOI is conservative (never inside the other shape).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arbiter/collision.h>

#include "../common/test_main.h"
#include "geometry_test_util.h"
#include "test_rng.h"

static arb_sweep still(arb_vec2 p, float angle) {
  arb_sweep s = {arb_vec2_zero, p, p, arb_rot_from_angle(angle), arb_rot_from_angle(angle)};
  return s;
}

// A sweep from c1 to c2 without turning.
static arb_sweep slide(arb_vec2 c1, arb_vec2 c2) {
  arb_sweep s = {arb_vec2_zero, c1, c2, arb_rot_identity, arb_rot_identity};
  return s;
}

// The time-of-impact question for polygon a against circle b, up to the end of the step
// (max_fraction 1); the caller sets the sweeps.
static arb_toi_input polygon_circle_input(const arb_polygon* a, const arb_circle* b) {
  arb_toi_input in;
  in.proxy_a = arb_make_polygon_proxy(a);
  in.proxy_b = arb_make_circle_proxy(b);
  in.max_fraction = 1.0f;
  return in;
}

static void test_distance(void** state) {
  (void)state;
  arb_circle ca = {{0.0f, 0.0f}, 0.5f}, cb = {{0.0f, 0.0f}, 0.25f};
  arb_shape_proxy pa = arb_make_circle_proxy(&ca), pb = arb_make_circle_proxy(&cb);
  arb_distance_output d = arb_shape_distance(&pa, xf_at(1, 1, 0), &pb, xf_at(4, 5, 0));
  near(d.distance, 5.0f - 0.75f, 1e-5f);
  near(d.normal.x, 0.6f, 1e-6f);
  near(d.point_a.x, 1.3f, 1e-5f);
  near(d.point_b.y, 5.0f - 0.2f, 1e-5f);
  // Box to box, separated along x by 1 with a vertical offset: face distance.
  arb_polygon box = arb_make_box(0.5f, 0.5f);
  arb_shape_proxy bp = arb_make_polygon_proxy(&box);
  d = arb_shape_distance(&bp, xf_at(0, 0, 0), &bp, xf_at(2.0f, 0.3f, 0));
  near(d.distance, 1.0f, 1e-5f);
  near(d.normal.x, 1.0f, 1e-5f);
  // Corner to corner.
  d = arb_shape_distance(&bp, xf_at(0, 0, 0), &bp, xf_at(2.0f, 2.0f, 0));
  near(d.distance, sqrtf(2.0f), 1e-5f);
  // Rotated: a diamond's tip 0.1 from a face.
  d = arb_shape_distance(&bp, xf_at(0, 0, 0), &bp, xf_at(0.6f + sqrtf(0.5f), 0.0f, 0.25f * ARB_PI));
  near(d.distance, 0.1f, 1e-5f);
  // Segment against circle and polygon.
  arb_segment seg = {{-1.0f, 0.0f}, {1.0f, 0.0f}};
  arb_shape_proxy sp = arb_make_segment_proxy(&seg);
  d = arb_shape_distance(&sp, xf_at(0, 0, 0), &pb, xf_at(0.3f, 2.0f, 0));
  near(d.distance, 1.75f, 1e-5f);
  near(d.normal.y, 1.0f, 1e-6f);
  d = arb_shape_distance(&sp, xf_at(0, 0, 0), &bp, xf_at(3.0f, 0.0f, 0));
  near(d.distance, 1.5f, 1e-5f);
  // Overlap: 0 (cores overlapping, or only the rounded parts).
  d = arb_shape_distance(&bp, xf_at(0, 0, 0), &bp, xf_at(0.5f, 0.5f, 0.3f));
  assert_true(d.distance == 0.0f);
  d = arb_shape_distance(&pa, xf_at(0, 0, 0), &pb, xf_at(0.7f, 0, 0));
  assert_true(d.distance == 0.0f);
  assert_true(d.point_a.x == d.point_b.x);
}

static void test_sweep_transform(void** state) {
  (void)state;
  arb_sweep s = {arb_v2(0.5f, 0.0f), arb_v2(1.0f, 1.0f), arb_v2(3.0f, 1.0f),
                 arb_rot_from_angle(0.0f), arb_rot_from_angle(0.5f * ARB_PI)};
  arb_transform x0 = arb_get_sweep_transform(&s, 0.0f);
  near(x0.p.x, 0.5f, 1e-6f);  // origin = centre - R * local_center
  near(x0.p.y, 1.0f, 1e-6f);
  arb_transform x1 = arb_get_sweep_transform(&s, 1.0f);
  near(x1.p.x, 3.0f, 1e-6f);
  near(x1.p.y, 0.5f, 1e-6f);
  arb_transform xh = arb_get_sweep_transform(&s, 0.5f);
  near(arb_rot_angle(xh.q), 0.25f * ARB_PI, 1e-6f);  // constant angular speed
  // The centre of mass follows the straight line.
  arb_vec2 c = arb_transform_point(xh, s.local_center);
  near(c.x, 2.0f, 1e-6f);
  near(c.y, 1.0f, 1e-6f);
}

// The sweep's pose as its definition gives it: the relative angle's atan2 and the
// rotation's sin and cos, every time (arb_get_sweep_transform skips both where they are
// known: at t = 0 and for a sweep that does not turn).
static arb_transform sweep_by_definition(const arb_sweep* s, float t) {
  float angle = arb_rot_relative_angle(s->q1, s->q2), sn, cs;
  arb_sincos(t * angle, &sn, &cs);
  arb_transform xf;
  xf.q = arb_rot_normalize(arb_rot_mul(arb_rot_normalize((arb_rot){cs, sn}), s->q1));
  xf.p = arb_sub(arb_lerp(s->c1, s->c2, t), arb_rotate(xf.q, s->local_center));
  return xf;
}

static void test_sweep_transform_bits(void** state) {
  (void)state;
  uint32_t seed = 12345u;
  for (int i = 0; i < 4000; ++i) {
    float v[8];
    for (int k = 0; k < 8; ++k) {
      seed = seed * 1664525u + 1013904223u;
      v[k] = (float)(seed >> 8) / 16777216.0f * 8.0f - 4.0f;
    }
    arb_rot q1 = arb_rot_from_angle(v[6]);
    // Every 4th sweep does not turn (q2 the same bits), every 4th turns by a tiny angle.
    arb_rot q2 = i % 4 == 0 ? q1 : arb_rot_from_angle(i % 4 == 1 ? v[6] + 1e-6f : v[7]);
    if (i % 8 == 3) q1.s = -0.0f;  // signed zeros in the rotation
    if (i % 8 == 4) q2 = q1 = (arb_rot){-1.0f, -0.0f};
    arb_sweep s = {arb_v2(v[0], v[1]), arb_v2(v[2], v[3]), arb_v2(v[4], v[5]), q1, q2};
    const float ts[4] = {0.0f, 1.0f, 0.25f, v[7] * 0.125f + 0.5f};
    for (int k = 0; k < 4; ++k) {
      arb_transform want = sweep_by_definition(&s, ts[k]);
      arb_transform got = arb_get_sweep_transform(&s, ts[k]);
      assert_memory_equal(&want, &got, sizeof want);
    }
  }
}

// Seed behaviour: a 0.05 m circle at 500 m/s against a 0.1 m static wall at 60 Hz.
static void test_bullet_vs_thin_wall(void** state) {
  (void)state;
  const float dt = 1.0f / 60.0f, speed = 500.0f;
  arb_polygon wall = arb_make_box(0.05f, 2.0f);
  arb_circle bullet = {{0.0f, 0.0f}, 0.05f};
  arb_toi_input in = polygon_circle_input(&wall, &bullet);
  in.sweep_a = still(arb_v2(0.0f, 0.0f), 0.0f);
  // Many start offsets so the wall falls at every place inside the step.
  for (int i = 0; i < 200; ++i) {
    float x0 = -0.2f - (speed * dt - 0.5f) * (float)i / 200.0f;
    arb_vec2 c1 = arb_v2(x0, 0.3f), c2 = arb_v2(x0 + speed * dt, 0.3f);
    in.sweep_b = slide(c1, c2);
    // Discrete collision alone would miss it: at the end of the step the bullet is
    // already past the wall.
    arb_transform end = arb_get_sweep_transform(&in.sweep_b, 1.0f);
    arb_transform xw = arb_get_sweep_transform(&in.sweep_a, 1.0f);
    assert_int_equal(arb_collide_polygon_and_circle(&wall, xw, &bullet, end).point_count, 0);
    arb_toi_output out = arb_time_of_impact(&in);
    assert_int_equal(out.state, ARB_TOI_HIT);
    // Caught just before the wall: surface gap within [0, 2 slop] at the TOI...
    arb_transform at = arb_get_sweep_transform(&in.sweep_b, out.fraction);
    float gap = -0.05f - (at.p.x + 0.05f);
    assert_true(gap >= 0.0f);
    assert_true(gap <= 2.0f * ARB_LINEAR_SLOP);
    // ...where the manifold takes over with a speculative contact.
    arb_manifold m = arb_collide_polygon_and_circle(&wall, xw, &bullet, at);
    assert_int_equal(m.point_count, 1);
    near(m.normal.x, -1.0f, 1e-5f);  // from the wall (A) towards the bullet on its left
  }
}

static void test_toi_cases(void** state) {
  (void)state;
  arb_polygon box = arb_make_box(0.5f, 0.5f);
  arb_circle c = {{0.0f, 0.0f}, 0.1f};
  arb_toi_input in = polygon_circle_input(&box, &c);
  // Already overlapping.
  in.sweep_a = still(arb_v2(0, 0), 0.0f);
  in.sweep_b = still(arb_v2(0.55f, 0), 0.0f);
  assert_int_equal(arb_time_of_impact(&in).state, ARB_TOI_OVERLAPPED);
  // Moving away / parallel past, never within reach.
  in.sweep_b = slide(arb_v2(1.0f, 0), arb_v2(10.0f, 0));
  arb_toi_output out = arb_time_of_impact(&in);
  assert_int_equal(out.state, ARB_TOI_SEPARATED);
  near(out.fraction, 1.0f, 0.0f);
  in.sweep_b = slide(arb_v2(-5.0f, 0.7f), arb_v2(5.0f, 0.7f));
  assert_int_equal(arb_time_of_impact(&in).state, ARB_TOI_SEPARATED);
  // Grazing within reach: hit above the top face.
  in.sweep_b = slide(arb_v2(-5.0f, 0.6f), arb_v2(5.0f, 0.6f));
  out = arb_time_of_impact(&in);
  assert_true(out.state == ARB_TOI_HIT || out.state == ARB_TOI_FAILED);
  // max_fraction limits the search.
  in.sweep_b = slide(arb_v2(-5.0f, 0), arb_v2(5.0f, 0));
  in.max_fraction = 0.3f;
  out = arb_time_of_impact(&in);
  assert_int_equal(out.state, ARB_TOI_SEPARATED);
  near(out.fraction, 0.3f, 0.0f);
  in.max_fraction = 1.0f;
  out = arb_time_of_impact(&in);
  assert_int_equal(out.state, ARB_TOI_HIT);
  near(out.fraction, (5.0f - 0.6f - ARB_LINEAR_SLOP) / 10.0f, 0.3f * ARB_LINEAR_SLOP / 10.0f);
  // A bullet against a moving body, head on: both move, the TOI uses relative motion.
  in.sweep_a = slide(arb_v2(3.0f, 0), arb_v2(-3.0f, 0));
  in.sweep_b = slide(arb_v2(-3.0f, 0), arb_v2(3.0f, 0));
  out = arb_time_of_impact(&in);
  assert_int_equal(out.state, ARB_TOI_HIT);
  near(out.fraction, (6.0f - 0.6f - ARB_LINEAR_SLOP) / 12.0f, 0.3f * ARB_LINEAR_SLOP / 12.0f);
  // Bad input.
  in.proxy_a.count = 0;
  assert_int_equal(arb_time_of_impact(&in).state, ARB_TOI_FAILED);
}

// A long thin spinning bar sweeping through a circle: the rotation alone brings them
// together; the TOI must stop before contact.
static void test_toi_rotation(void** state) {
  (void)state;
  arb_polygon bar = arb_make_box(2.0f, 0.02f);
  arb_circle c = {{0.0f, 0.0f}, 0.05f};
  arb_toi_input in = polygon_circle_input(&bar, &c);
  in.sweep_a = (arb_sweep){arb_vec2_zero, arb_v2(0, 0), arb_v2(0, 0), arb_rot_from_angle(0.0f),
                           arb_rot_from_angle(3.0f)};
  in.sweep_b = still(arb_v2(0.0f, 1.5f), 0.0f);
  arb_toi_output out = arb_time_of_impact(&in);
  assert_true(out.state == ARB_TOI_HIT);
  arb_transform xa = arb_get_sweep_transform(&in.sweep_a, out.fraction);
  arb_transform xb = arb_get_sweep_transform(&in.sweep_b, out.fraction);
  arb_distance_output d = arb_shape_distance(&in.proxy_a, xa, &in.proxy_b, xb);
  assert_true(d.distance > 0.0f && d.distance <= 2.0f * ARB_LINEAR_SLOP);
  // The bar reaches the circle's direction (90 degrees) slightly after the TOI.
  float angle = 3.0f * out.fraction;
  assert_true(angle < 0.5f * ARB_PI && angle > 0.5f * ARB_PI - 0.1f);
}

TEST_LCG_STREAM(777u)

// Conservative: no sampled time before the TOI has the shapes touching, and a HIT
// leaves them separated by at most about two slops.
static void test_toi_random_conservative(void** state) {
  (void)state;
  int hits = 0;
  for (int iter = 0; iter < 400; ++iter) {
    arb_polygon pa = arb_make_box(rnd(0.05f, 1.0f), rnd(0.05f, 1.0f));
    arb_circle cb = {{rnd(-0.1f, 0.1f), rnd(-0.1f, 0.1f)}, rnd(0.02f, 0.5f)};
    arb_toi_input in;
    in.proxy_a = arb_make_polygon_proxy(&pa);
    in.proxy_b = iter % 2 ? arb_make_circle_proxy(&cb) : arb_make_polygon_proxy(&pa);
    in.sweep_a = (arb_sweep){arb_vec2_zero, arb_v2(0, 0), arb_v2(rnd(-1, 1), rnd(-1, 1)),
                             arb_rot_from_angle(rnd(-3, 3)), arb_rot_from_angle(rnd(-3, 3))};
    float ang = rnd(0.0f, 6.283f);
    arb_vec2 start = arb_v2(4.0f * arb_cos(ang), 4.0f * arb_sin(ang));
    arb_vec2 end = arb_v2(-start.x + rnd(-1, 1), -start.y + rnd(-1, 1));
    in.sweep_b = (arb_sweep){arb_vec2_zero, start, end, arb_rot_from_angle(rnd(-3, 3)),
                             arb_rot_from_angle(rnd(-3, 3))};
    in.max_fraction = 1.0f;
    arb_toi_output out = arb_time_of_impact(&in);
    assert_true(out.fraction >= 0.0f && out.fraction <= 1.0f);
    for (int k = 0; k <= 40; ++k) {
      float t = out.fraction * (float)k / 40.0f;
      arb_distance_output d =
          arb_shape_distance(&in.proxy_a, arb_get_sweep_transform(&in.sweep_a, t), &in.proxy_b,
                             arb_get_sweep_transform(&in.sweep_b, t));
      if (!(d.distance > 0.0f))
        fail_msg("iter %d: touching at t=%g before toi %g", iter, (double)t, (double)out.fraction);
    }
    if (out.state == ARB_TOI_HIT) {
      ++hits;
      arb_distance_output d =
          arb_shape_distance(&in.proxy_a, arb_get_sweep_transform(&in.sweep_a, out.fraction),
                             &in.proxy_b, arb_get_sweep_transform(&in.sweep_b, out.fraction));
      assert_true(d.distance <= 2.0f * ARB_LINEAR_SLOP);
    }
  }
  assert_true(hits > 100);
}

ARB_TEST_MAIN(cmocka_unit_test(test_distance), cmocka_unit_test(test_sweep_transform),
              cmocka_unit_test(test_sweep_transform_bits),
              cmocka_unit_test(test_bullet_vs_thin_wall), cmocka_unit_test(test_toi_cases),
              cmocka_unit_test(test_toi_rotation), cmocka_unit_test(test_toi_random_conservative))
