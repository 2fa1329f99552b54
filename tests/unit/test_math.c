// Math unit tests: vectors, rotations, transforms, AABBs, and our own trig against libm
// (libm is allowed here, in tests, as the reference; never in shared/).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arbiter/math.h>

#include "../common/test_main.h"
#include "fnv_bits.h"
#include "geometry_test_util.h"

// Error bounds asserted below (also in docs/DETERMINISM.md and math.h). The measured
// maxima are about half these: one float rounding of the double-precision result.
#define SIN_COS_MAX_ERR 1.0e-7  // |x| <= 1e6
#define ATAN2_MAX_ERR 2.5e-7    // angle in [-pi, pi]: half an ulp of pi is 1.2e-7
#define PI_D 3.14159265358979323846
#ifndef TRIG_GOLDEN_HASH
#define TRIG_GOLDEN_HASH 0xf996b53d72361017ull  // gcc -O0/-O2/-O3 -march=native, clang -O2, ASan
#endif

static void test_vec_ops(void** state) {
  (void)state;
  arb_vec2 a = arb_v2(1.0f, 2.0f), b = arb_v2(-3.0f, 0.5f);
  near(arb_add(a, b).x, -2.0f, 0.0f);
  near(arb_add(a, b).y, 2.5f, 0.0f);
  near(arb_sub(a, b).x, 4.0f, 0.0f);
  near(arb_sub(a, b).y, 1.5f, 0.0f);
  near(arb_scale(2.0f, a).y, 4.0f, 0.0f);
  near(arb_dot(a, b), -2.0f, 0.0f);
  near(arb_cross(a, b), 1.0f * 0.5f - 2.0f * -3.0f, 0.0f);
  // v x s and s x v are the two perpendiculars scaled by s.
  arb_vec2 vs = arb_cross_vs(a, 2.0f), sv = arb_cross_sv(2.0f, a);
  near(vs.x, 4.0f, 0.0f);
  near(vs.y, -2.0f, 0.0f);
  near(sv.x, -4.0f, 0.0f);
  near(sv.y, 2.0f, 0.0f);
  near(arb_dot(arb_left_perp(a), a), 0.0f, 0.0f);
  near(arb_length(arb_v2(3.0f, 4.0f)), 5.0f, 0.0f);
  near(arb_distance(arb_v2(1.0f, 1.0f), arb_v2(4.0f, 5.0f)), 5.0f, 0.0f);
  arb_vec2 l = arb_lerp(a, b, 0.25f);
  near(l.x, 0.0f, 1e-7f);
  near(l.y, 1.625f, 1e-7f);
  near(arb_lerp(a, b, 1.0f).x, b.x, 0.0f);
  arb_vec2 ma = arb_mul_add(a, 2.0f, b), ms = arb_mul_sub(a, 2.0f, b);
  near(ma.x, -5.0f, 0.0f);
  near(ms.x, 7.0f, 0.0f);
}

static void test_normalize(void** state) {
  (void)state;
  arb_vec2 z = arb_normalize(arb_vec2_zero);
  assert_true(z.x == 0.0f && z.y == 0.0f);  // safe: zero in, zero out (no NaN)
  z = arb_normalize(arb_v2(1e-12f, -1e-12f));
  assert_true(z.x == 0.0f && z.y == 0.0f);
  arb_vec2 n = arb_normalize(arb_v2(3.0f, -4.0f));
  near(n.x, 0.6f, 1e-7f);
  near(n.y, -0.8f, 1e-7f);
  float len = -1.0f;
  n = arb_get_length_and_normalize(&len, arb_v2(0.0f, 0.0f));
  assert_true(len == 0.0f && n.x == 0.0f && n.y == 0.0f);
  n = arb_get_length_and_normalize(&len, arb_v2(0.0f, -2.0f));
  near(len, 2.0f, 0.0f);
  near(n.y, -1.0f, 0.0f);
}

static void test_rotations(void** state) {
  (void)state;
  arb_rot q = arb_rot_from_angle(0.5f * ARB_PI);
  arb_vec2 v = arb_rotate(q, arb_v2(1.0f, 0.0f));
  near(v.x, 0.0f, 1e-7f);
  near(v.y, 1.0f, 1e-7f);
  arb_vec2 back = arb_inv_rotate(q, v);
  near(back.x, 1.0f, 1e-7f);
  near(back.y, 0.0f, 1e-7f);
  // Composition adds angles; inv_mul subtracts them.
  arb_rot a = arb_rot_from_angle(0.3f), b = arb_rot_from_angle(1.1f);
  near(arb_rot_angle(arb_rot_mul(a, b)), 1.4f, 1e-6f);
  near(arb_rot_angle(arb_rot_inv_mul(a, b)), 0.8f, 1e-6f);
  near(arb_rot_relative_angle(b, a), -0.8f, 1e-6f);
  // Unit length for many angles.
  for (int i = -50; i <= 50; ++i) {
    arb_rot r = arb_rot_from_angle(0.37f * (float)i);
    near(r.c * r.c + r.s * r.s, 1.0f, 4e-7f);  // two roundings of the squares
  }
  near(arb_rot_angle(arb_rot_integrate(arb_rot_identity, 0.01f)), atanf(0.01f), 1e-7f);
  arb_rot n = arb_rot_normalize((arb_rot){0.0f, 0.0f});
  assert_true(n.c == 1.0f && n.s == 0.0f);
  // arb_rot_from_angle(+-0) returns the identity without the series: the same bits the
  // series and the normalization give for both zeros.
  const float zeros[2] = {0.0f, -0.0f};
  for (int k = 0; k < 2; ++k) {
    float sn, cs;
    arb_sincos(zeros[k], &sn, &cs);
    arb_rot full = arb_rot_normalize((arb_rot){cs, sn});
    arb_rot fast = arb_rot_from_angle(zeros[k]);
    assert_memory_equal(&full, &fast, sizeof full);
  }
}

static void test_nlerp(void** state) {
  (void)state;
  arb_rot q1 = arb_rot_from_angle(0.0f), q2 = arb_rot_from_angle(0.5f * ARB_PI);
  arb_rot m = arb_rot_nlerp(q1, q2, 0.5f);
  near(arb_rot_angle(m), 0.25f * ARB_PI, 1e-6f);
  near(m.c * m.c + m.s * m.s, 1.0f, 2e-7f);
  arb_rot e0 = arb_rot_nlerp(q1, q2, 0.0f), e1 = arb_rot_nlerp(q1, q2, 1.0f);
  near(e0.c, q1.c, 1e-7f);
  near(e1.s, q2.s, 1e-7f);
  // Monotonic in t.
  float prev = -1.0f;
  for (int i = 0; i <= 10; ++i) {
    float ang = arb_rot_angle(arb_rot_nlerp(q1, q2, 0.1f * (float)i));
    assert_true(ang >= prev);
    prev = ang;
  }
}

static void test_rotate_towards(void** state) {
  (void)state;
  arb_rot from = arb_rot_from_angle(0.0f), to = arb_rot_from_angle(1.0f);
  // Within reach: lands exactly on the target.
  arb_rot r = arb_rot_towards(from, to, 2.0f);
  assert_true(r.c == to.c && r.s == to.s);
  // Limited: turns by exactly max_angle, in the right direction.
  near(arb_rot_angle(arb_rot_towards(from, to, 0.25f)), 0.25f, 1e-6f);
  near(arb_rot_angle(arb_rot_towards(to, from, 0.25f)), 0.75f, 1e-6f);
  // The short way across +-pi: 170 deg to -170 deg is +20 deg, not -340.
  float d170 = 170.0f * ARB_PI / 180.0f;
  r = arb_rot_towards(arb_rot_from_angle(d170), arb_rot_from_angle(-d170), 5.0f * ARB_PI / 180.0f);
  near(arb_rot_angle(r), 175.0f * ARB_PI / 180.0f, 1e-5f);
  // Zero, negative or NaN max angle: no turn.
  r = arb_rot_towards(from, to, 0.0f);
  assert_true(r.c == from.c && r.s == from.s);
  r = arb_rot_towards(from, to, -1.0f);
  assert_true(r.c == from.c && r.s == from.s);
  r = arb_rot_towards(from, to, NAN);
  assert_true(r.c == from.c && r.s == from.s);
  // Repeated steps converge and stop exactly at the target.
  arb_rot cur = from;
  for (int i = 0; i < 20; ++i) cur = arb_rot_towards(cur, to, 0.1f);
  assert_true(cur.c == to.c && cur.s == to.s);
}

static void test_transforms(void** state) {
  (void)state;
  arb_transform t = {arb_v2(2.0f, -1.0f), arb_rot_from_angle(0.7f)};
  arb_vec2 p = arb_v2(0.3f, 4.0f);
  arb_vec2 w = arb_transform_point(t, p);
  arb_vec2 back = arb_inv_transform_point(t, w);
  near(back.x, p.x, 1e-6f);
  near(back.y, p.y, 1e-6f);
  arb_transform u = {arb_v2(-5.0f, 3.0f), arb_rot_from_angle(-2.1f)};
  arb_vec2 via_mul = arb_transform_point(arb_transform_mul(t, u), p);
  arb_vec2 nested = arb_transform_point(t, arb_transform_point(u, p));
  near(via_mul.x, nested.x, 1e-5f);
  near(via_mul.y, nested.y, 1e-5f);
  // inverse(t) * u maps u-local points into t-local.
  arb_vec2 a1 = arb_transform_point(arb_inv_transform_mul(t, u), p);
  arb_vec2 a2 = arb_inv_transform_point(t, arb_transform_point(u, p));
  near(a1.x, a2.x, 1e-5f);
  near(a1.y, a2.y, 1e-5f);
}

static void test_aabb(void** state) {
  (void)state;
  arb_aabb a = {{0.0f, 0.0f}, {2.0f, 1.0f}}, b = {{1.0f, 0.5f}, {3.0f, 3.0f}};
  arb_aabb c = {{2.5f, 2.5f}, {3.0f, 3.0f}};
  assert_true(arb_aabb_overlaps(a, b));
  assert_false(arb_aabb_overlaps(a, c));
  arb_aabb u = arb_aabb_union(a, b);
  assert_true(arb_aabb_contains(u, a) && arb_aabb_contains(u, b));
  assert_false(arb_aabb_contains(a, b));
  near(arb_aabb_perimeter(a), 6.0f, 0.0f);
  near(arb_aabb_center(a).x, 1.0f, 0.0f);
  near(arb_aabb_extents(a).y, 0.5f, 0.0f);
  assert_true(arb_aabb_contains_point(a, arb_v2(2.0f, 1.0f)));
  assert_false(arb_aabb_contains_point(a, arb_v2(2.01f, 1.0f)));
}

static double max_sincos_err(float lo, float hi, int samples) {
  double worst = 0.0;
  for (int i = 0; i <= samples; ++i) {
    float x = lo + (hi - lo) * (float)((double)i / samples);
    double es = fabs((double)arb_sin(x) - sin((double)x));
    double ec = fabs((double)arb_cos(x) - cos((double)x));
    if (es > worst) worst = es;
    if (ec > worst) worst = ec;
  }
  return worst;
}

static void test_trig_vs_libm(void** state) {
  (void)state;
  // Dense sweep of the common range, then large angles (accumulated rotation).
  double e1 = max_sincos_err(-4.0f * ARB_PI, 4.0f * ARB_PI, 400000);
  double e2 = max_sincos_err(-1000.0f, 1000.0f, 200000);
  double e3 = max_sincos_err(1.0e4f, 1.0e6f, 100000);
  double e4 = max_sincos_err(-1.0e6f, -1.0e4f, 100000);
  print_message("sin/cos max abs error: %.3g (|x|<4pi) %.3g (|x|<1e3) %.3g %.3g (1e4..1e6)\n", e1,
                e2, e3, e4);
  assert_true(e1 <= SIN_COS_MAX_ERR);
  assert_true(e2 <= SIN_COS_MAX_ERR);
  assert_true(e3 <= SIN_COS_MAX_ERR);
  assert_true(e4 <= SIN_COS_MAX_ERR);
  // Exact values and symmetries the simulation relies on.
  assert_true(arb_sin(0.0f) == 0.0f && arb_cos(0.0f) == 1.0f);
  for (int i = 1; i < 1000; ++i) {
    float x = 0.0173f * (float)i * (float)i;
    assert_true(arb_sin(-x) == -arb_sin(x));
    assert_true(arb_cos(-x) == arb_cos(x));
    float s, c;
    arb_sincos(x, &s, &c);
    assert_true(s == arb_sin(x) && c == arb_cos(x));
  }
  // Non-finite input gives NaN, never a crash; huge finite input stays on the circle.
  assert_true(isnan(arb_sin(NAN)) && isnan(arb_cos(INFINITY)) && isnan(arb_sin(-INFINITY)));
  float big = 3.0e38f;
  assert_true(fabsf(arb_sin(big)) <= 1.0f && fabsf(arb_cos(big)) <= 1.0f);
}

static void test_atan2_vs_libm(void** state) {
  (void)state;
  double worst = 0.0;
  const float radii[] = {1e-6f, 1e-3f, 0.5f, 1.0f, 7.0f, 1e3f, 1e6f};
  for (int k = 0; k < 7; ++k) {
    for (int i = 0; i <= 100000; ++i) {
      double ang = -PI_D + 2.0 * PI_D * i / 100000.0;
      float x = (float)(radii[k] * cos(ang)), y = (float)(radii[k] * sin(ang));
      double e = fabs((double)arb_atan2(y, x) - atan2((double)y, (double)x));
      if (e > worst) worst = e;
    }
  }
  print_message("atan2 max abs error: %.3g\n", worst);
  assert_true(worst <= ATAN2_MAX_ERR);
  // Axes, quadrants and signed zeros as C99 Annex F.
  assert_true(arb_atan2(0.0f, 0.0f) == 0.0f);
  near(arb_atan2(0.0f, -1.0f), ARB_PI, 1e-7f);
  near(arb_atan2(-0.0f, -1.0f), -ARB_PI, 1e-7f);
  near(arb_atan2(1.0f, 0.0f), 0.5f * ARB_PI, 1e-7f);
  near(arb_atan2(-1.0f, 0.0f), -0.5f * ARB_PI, 1e-7f);
  near(arb_atan2(1.0f, 1.0f), 0.25f * ARB_PI, 1e-7f);
  near(arb_atan2(-1.0f, -1.0f), -0.75f * ARB_PI, 1e-7f);
  near(arb_atan2(INFINITY, 1.0f), 0.5f * ARB_PI, 1e-7f);
  assert_true(isnan(arb_atan2(NAN, 1.0f)));
  // Round trip with rotations.
  for (int i = -31; i <= 31; ++i) {
    float a = 0.1f * (float)i;
    near(arb_rot_angle(arb_rot_from_angle(a)), a, 3e-7f);
  }
}

// Bit-exact golden values: the same inputs must give the same bits in every build
// (debug -O0, release -O2, ASan) and on every platform; a change here means the trig
// code or the floating-point flags changed, which changes every simulation hash.
static void test_trig_golden_bits(void** state) {
  (void)state;
  uint64_t h = 1469598103934665603ull;
  for (int i = -20000; i <= 20000; ++i) {
    float x = 0.00731f * (float)i * (1.0f + 0.001f * (float)(i % 17));
    float s, c;
    arb_sincos(x, &s, &c);
    h = fnv_bits(h, s);
    h = fnv_bits(h, c);
    h = fnv_bits(h, arb_atan2(x, 1.0f - 0.0003f * (float)i));
    arb_rot q = arb_rot_from_angle(x);
    h = fnv_bits(h, q.c);
    h = fnv_bits(h, q.s);
  }
  print_message("trig golden hash: 0x%016llx\n", (unsigned long long)h);
  assert_true(h == TRIG_GOLDEN_HASH);
}

ARB_TEST_MAIN(cmocka_unit_test(test_vec_ops), cmocka_unit_test(test_normalize),
              cmocka_unit_test(test_rotations), cmocka_unit_test(test_nlerp),
              cmocka_unit_test(test_rotate_towards), cmocka_unit_test(test_transforms),
              cmocka_unit_test(test_aabb), cmocka_unit_test(test_trig_vs_libm),
              cmocka_unit_test(test_atan2_vs_libm), cmocka_unit_test(test_trig_golden_bits))
