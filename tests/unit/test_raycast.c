// Ray casts: analytic hits for each shape kind, misses, rays starting inside, parallel
// rays, max_fraction, and shapes behind the origin (which must miss).
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

static arb_ray_input ray(float ox, float oy, float dx, float dy, float max_fraction) {
  arb_ray_input in = {{ox, oy}, {dx, dy}, max_fraction};
  return in;
}

static void expect_hit(arb_cast_output out, float fraction, float nx, float ny) {
  assert_true(out.hit);
  near(out.fraction, fraction, 1e-5f);
  near(out.normal.x, nx, 1e-5f);
  near(out.normal.y, ny, 1e-5f);
}

static void test_ray_circle(void** state) {
  (void)state;
  arb_circle c = {{2.0f, 1.0f}, 0.5f};
  arb_ray_input in = ray(0.0f, 1.0f, 4.0f, 0.0f, 1.0f);
  arb_cast_output out = arb_ray_cast_circle(&in, &c);
  expect_hit(out, 1.5f / 4.0f, -1.0f, 0.0f);
  near(out.point.x, 1.5f, 1e-6f);
  near(out.point.y, 1.0f, 1e-6f);
  // Off-centre chord: hit at x = 2 - sqrt(0.25 - 0.09) = 1.6.
  in = ray(0.0f, 1.3f, 4.0f, 0.0f, 1.0f);
  out = arb_ray_cast_circle(&in, &c);
  assert_true(out.hit);
  near(out.point.x, 1.6f, 1e-5f);
  near(out.normal.x, -0.8f, 1e-5f);
  near(out.normal.y, 0.6f, 1e-5f);
  // Miss beside it; circle behind the origin (t < 0 is not a hit); too short a ray.
  const arb_ray_input misses_circle[] = {
      ray(0.0f, 1.6f, 4.0f, 0.0f, 1.0f),
      ray(4.0f, 1.0f, 4.0f, 0.0f, 1.0f),
      ray(0.0f, 1.0f, 4.0f, 0.0f, 0.3f),
  };
  for (size_t i = 0; i < sizeof misses_circle / sizeof misses_circle[0]; ++i)
    assert_false(arb_ray_cast_circle(&misses_circle[i], &c).hit);
  in = ray(0.0f, 1.0f, 4.0f, 0.0f, 0.375f);  // exactly reaching
  assert_true(arb_ray_cast_circle(&in, &c).hit);
  // Starting inside: fraction 0, zero normal.
  in = ray(2.1f, 1.0f, 4.0f, 0.0f, 1.0f);
  out = arb_ray_cast_circle(&in, &c);
  assert_true(out.hit);
  assert_true(out.fraction == 0.0f && out.normal.x == 0.0f && out.normal.y == 0.0f);
  // Zero-length ray outside, and non-finite input.
  in = ray(0.0f, 0.0f, 0.0f, 0.0f, 1.0f);
  assert_false(arb_ray_cast_circle(&in, &c).hit);
  in = ray(NAN, 0.0f, 1.0f, 0.0f, 1.0f);
  assert_false(arb_ray_cast_circle(&in, &c).hit);
  // A long ray: precision of the closest-approach formulation.
  in = ray(-1.0e4f, 1.0f, 2.0e4f, 0.0f, 1.0f);
  out = arb_ray_cast_circle(&in, &c);
  assert_true(out.hit);
  near(out.point.x, 1.5f, 2e-3f);
}

static void test_ray_polygon(void** state) {
  (void)state;
  arb_polygon box = arb_make_offset_box(1.0f, 0.5f, arb_v2(3.0f, 0.0f), arb_rot_identity);
  arb_ray_input in = ray(0.0f, 0.0f, 10.0f, 0.0f, 1.0f);
  arb_cast_output out = arb_ray_cast_polygon(&in, &box);
  expect_hit(out, 0.2f, -1.0f, 0.0f);
  // From above, diagonal, into the top face.
  in = ray(3.0f, 2.5f, 1.0f, -4.0f, 1.0f);
  out = arb_ray_cast_polygon(&in, &box);
  expect_hit(out, 0.5f, 0.0f, 1.0f);
  near(out.point.x, 3.5f, 1e-6f);
  // Parallel to a face and outside it: miss; parallel and inside the slab: hit.
  in = ray(0.0f, 0.6f, 10.0f, 0.0f, 1.0f);
  assert_false(arb_ray_cast_polygon(&in, &box).hit);
  in = ray(0.0f, 0.4f, 10.0f, 0.0f, 1.0f);
  expect_hit(arb_ray_cast_polygon(&in, &box), 0.2f, -1.0f, 0.0f);
  // Behind, too short, pointing away.
  const arb_ray_input misses_polygon[] = {
      ray(5.0f, 0.0f, 10.0f, 0.0f, 1.0f),
      ray(0.0f, 0.0f, 10.0f, 0.0f, 0.19f),
      ray(0.0f, 0.0f, -10.0f, 0.0f, 1.0f),
  };
  for (size_t i = 0; i < sizeof misses_polygon / sizeof misses_polygon[0]; ++i)
    assert_false(arb_ray_cast_polygon(&misses_polygon[i], &box).hit);
  // Inside.
  in = ray(3.0f, 0.0f, 1.0f, 1.0f, 1.0f);
  out = arb_ray_cast_polygon(&in, &box);
  assert_true(out.hit && out.fraction == 0.0f && out.normal.x == 0.0f && out.normal.y == 0.0f);
  // Triangle: slanted face normal.
  arb_vec2 tri[3] = {{0, 0}, {2, 0}, {0, 2}};
  arb_polygon t;
  assert_int_equal(arb_make_polygon(tri, 3, &t, NULL), 0);
  in = ray(3.0f, 3.0f, -3.0f, -3.0f, 1.0f);
  out = arb_ray_cast_polygon(&in, &t);
  expect_hit(out, 2.0f / 3.0f, sqrtf(0.5f), sqrtf(0.5f));
}

static void test_ray_segment(void** state) {
  (void)state;
  arb_segment s = {{1.0f, -1.0f}, {1.0f, 1.0f}};
  arb_ray_input in = ray(0.0f, 0.5f, 2.0f, 0.0f, 1.0f);
  expect_hit(arb_ray_cast_segment(&in, &s), 0.5f, -1.0f, 0.0f);
  // Two-sided: from the other side the normal faces that way.
  in = ray(3.0f, 0.0f, -4.0f, 0.0f, 1.0f);
  expect_hit(arb_ray_cast_segment(&in, &s), 0.5f, 1.0f, 0.0f);
  // Past the end, behind, too short, parallel, collinear.
  const arb_ray_input misses_segment[] = {
      ray(0.0f, 1.5f, 2.0f, 0.0f, 1.0f),   ray(2.0f, 0.0f, 2.0f, 0.0f, 1.0f),
      ray(0.0f, 0.0f, 2.0f, 0.0f, 0.49f),  ray(0.0f, -5.0f, 0.0f, 10.0f, 1.0f),
      ray(1.0f, -5.0f, 0.0f, 10.0f, 1.0f),
  };
  for (size_t i = 0; i < sizeof misses_segment / sizeof misses_segment[0]; ++i)
    assert_false(arb_ray_cast_segment(&misses_segment[i], &s).hit);
  // Through the end point exactly.
  in = ray(0.0f, 1.0f, 2.0f, 0.0f, 1.0f);
  assert_true(arb_ray_cast_segment(&in, &s).hit);
  // Oblique.
  arb_segment d = {{0.0f, 0.0f}, {2.0f, 2.0f}};
  in = ray(2.0f, 0.0f, -2.0f, 2.0f, 1.0f);
  arb_cast_output out = arb_ray_cast_segment(&in, &d);
  expect_hit(out, 0.5f, sqrtf(0.5f), -sqrtf(0.5f));
  near(out.point.x, 1.0f, 1e-6f);
}

static void test_ray_aabb(void** state) {
  (void)state;
  arb_aabb box = {{1.0f, 1.0f}, {3.0f, 2.0f}};
  // x slab [1/4, 3/4], y slab [1/2, 1]: entry = max of entries = 1/2 (bottom face).
  arb_ray_input in = ray(0.0f, 0.0f, 4.0f, 2.0f, 1.0f);
  arb_cast_output out = arb_ray_cast_aabb(&in, box);
  expect_hit(out, 0.5f, 0.0f, -1.0f);
  near(out.point.x, 2.0f, 1e-6f);
  // A tutorial bug took min of the entries (1/4 here): that point is outside the box.
  assert_true(arb_aabb_contains_point(box, out.point));
  // Slabs that do not overlap: miss.
  in = ray(0.0f, 0.0f, 8.0f, 1.0f, 1.0f);
  assert_false(arb_ray_cast_aabb(&in, box).hit);
  // From the right, parallel to x.
  in = ray(5.0f, 1.5f, -5.0f, 0.0f, 1.0f);
  expect_hit(arb_ray_cast_aabb(&in, box), 0.4f, 1.0f, 0.0f);
  // Parallel and outside the y slab.
  in = ray(5.0f, 2.5f, -5.0f, 0.0f, 1.0f);
  assert_false(arb_ray_cast_aabb(&in, box).hit);
  // Behind, short, inside.
  in = ray(5.0f, 1.5f, 5.0f, 0.0f, 1.0f);
  assert_false(arb_ray_cast_aabb(&in, box).hit);
  in = ray(5.0f, 1.5f, -5.0f, 0.0f, 0.3f);
  assert_false(arb_ray_cast_aabb(&in, box).hit);
  in = ray(2.0f, 1.5f, 1.0f, 0.0f, 1.0f);
  out = arb_ray_cast_aabb(&in, box);
  assert_true(out.hit && out.fraction == 0.0f && out.normal.x == 0.0f && out.normal.y == 0.0f);
}

static void test_ray_transformed_consistency(void** state) {
  (void)state;
  // The same box as a polygon and as an AABB gives the same hit from every direction.
  arb_polygon p = arb_make_offset_box(1.0f, 0.5f, arb_v2(0.5f, -0.25f), arb_rot_identity);
  arb_aabb a = arb_compute_polygon_aabb(&p, arb_transform_identity);
  for (int i = 0; i < 360; ++i) {
    float ang = (float)i * ARB_PI / 180.0f;
    arb_vec2 dir = arb_v2(arb_cos(ang), arb_sin(ang));
    arb_ray_input in = {arb_mul_sub(arb_v2(0.5f, -0.25f), 4.0f, dir), arb_scale(8.0f, dir), 1.0f};
    arb_cast_output o1 = arb_ray_cast_polygon(&in, &p), o2 = arb_ray_cast_aabb(&in, a);
    assert_true(o1.hit && o2.hit);
    near(o1.fraction, o2.fraction, 1e-5f);
    assert_true(arb_dot(o1.normal, dir) < 0.0f);
  }
}

TEST_LCG_STREAM(4242u)

// Random convex polygons and rays: a hit lies on the boundary and nothing before it is
// inside; a miss has no sampled point inside.
static void test_ray_polygon_random(void** state) {
  (void)state;
  int hits = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    int n = 3 + iter % 6;
    arb_vec2 pts[8];
    for (int i = 0; i < n; ++i) {
      float a = 6.2831853f * ((float)i + rnd(-0.3f, 0.3f)) / (float)n;
      pts[i] = arb_v2(rnd(0.5f, 2.0f) * arb_cos(a) + 1.0f, rnd(0.5f, 2.0f) * arb_sin(a) - 0.5f);
    }
    arb_polygon p;
    if (arb_make_polygon(pts, n, &p, NULL) != 0) continue;
    // Half the rays aim roughly at the polygon, half go anywhere.
    arb_vec2 o = arb_v2(rnd(-5, 5), rnd(-5, 5));
    arb_vec2 d = iter % 2 ? arb_v2(rnd(-8, 8), rnd(-8, 8))
                          : arb_scale(rnd(1.0f, 2.0f),
                                      arb_sub(arb_v2(1.0f + rnd(-1, 1), -0.5f + rnd(-1, 1)), o));
    arb_ray_input in = {o, d, rnd(0.2f, 1.0f)};
    arb_cast_output out = arb_ray_cast_polygon(&in, &p);
    float limit = out.hit ? out.fraction : in.max_fraction;
    for (int k = 0; k < 100; ++k) {
      float t = limit * (float)k / 100.0f;
      arb_vec2 q = arb_mul_add(in.origin, t, in.translation);
      // Strictly inside by a margin (rounding at the boundary is not a failure).
      bool deep = true;
      for (int i = 0; i < p.count; ++i) {
        if (arb_dot(p.normals[i], arb_sub(q, p.vertices[i])) > -1e-4f) deep = false;
      }
      if (deep && !(out.hit && out.fraction == 0.0f))
        fail_msg("iter %d: inside at t=%g before the hit", iter, (double)t);
    }
    if (out.hit && out.fraction > 0.0f) {
      ++hits;
      assert_true(out.fraction <= in.max_fraction);
      near(arb_length(out.normal), 1.0f, 1e-5f);
      assert_true(arb_dot(out.normal, in.translation) < 0.0f);
      float worst = -1.0f;  // the hit point is on the boundary: max face distance ~ 0
      for (int i = 0; i < p.count; ++i)
        worst = fmaxf(worst, arb_dot(p.normals[i], arb_sub(out.point, p.vertices[i])));
      near(worst, 0.0f, 1e-4f);
    }
  }
  print_message("random polygon rays: %d hits\n", hits);
  assert_true(hits > 300);
}

ARB_TEST_MAIN(cmocka_unit_test(test_ray_circle), cmocka_unit_test(test_ray_polygon),
              cmocka_unit_test(test_ray_segment), cmocka_unit_test(test_ray_aabb),
              cmocka_unit_test(test_ray_transformed_consistency),
              cmocka_unit_test(test_ray_polygon_random))
