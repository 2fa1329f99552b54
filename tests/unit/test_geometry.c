// Shape construction, validation, mass properties, AABBs and point tests.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../common/test_main.h"
#include "geometry_test_util.h"

#include <arbiter/collision.h>

// Expect arb_make_polygon to reject the points with a reason containing `needle`.
static void expect_reject(const arb_vec2* pts, int n, const char* needle) {
  arb_polygon p;
  const char* why = NULL;
  int rc = arb_make_polygon(pts, n, &p, &why);
  assert_int_equal(rc, ARB_E_INVAL);
  assert_non_null(why);
  if (strstr(why, needle) == NULL) fail_msg("reason \"%s\" lacks \"%s\"", why, needle);
}

static void test_polygon_rejects(void** state) {
  (void)state;
  arb_vec2 two[2] = {{0, 0}, {1, 0}};
  expect_reject(two, 2, "at least 3");
  expect_reject(two, 0, "at least 3");
  arb_vec2 nine[9];
  for (int i = 0; i < 9; ++i) {
    float a = 2.0f * ARB_PI * (float)i / 9.0f;
    nine[i] = arb_v2(arb_cos(a), arb_sin(a));
  }
  expect_reject(nine, 9, "at most 8");
  arb_vec2 nonconvex[5] = {{0, 0}, {2, 0}, {2, 2}, {1, 0.5f}, {0, 2}};
  expect_reject(nonconvex, 5, "not convex");
  // A pentagram: every turn goes the same way, but the edges cross.
  arb_vec2 star[5];
  for (int i = 0; i < 5; ++i) {
    float a = 2.0f * ARB_PI * (float)(2 * i) / 5.0f;
    star[i] = arb_v2(arb_cos(a), arb_sin(a));
  }
  expect_reject(star, 5, "not convex");
  arb_vec2 collinear[3] = {{0, 0}, {1, 1}, {2, 2}};
  expect_reject(collinear, 3, "zero area");
  arb_vec2 collinear_mid[4] = {{0, 0}, {1, 0}, {2, 0}, {1, 1}};
  expect_reject(collinear_mid, 4, "collinear");
  arb_vec2 dup[4] = {{0, 0}, {1, 0}, {1, 0.001f}, {0, 1}};
  expect_reject(dup, 4, "coincide");
  arb_vec2 nan_pt[3] = {{0, 0}, {1, NAN}, {0, 1}};
  expect_reject(nan_pt, 3, "NaN");
  arb_vec2 inf_pt[3] = {{0, 0}, {INFINITY, 0}, {0, 1}};
  expect_reject(inf_pt, 3, "NaN");
  arb_vec2 far_pt[3] = {{0, 0}, {2e4f, 0}, {0, 1}};
  expect_reject(far_pt, 3, "farther");
  // NULL `why` is allowed; NULL points is an error, not a crash.
  arb_polygon p;
  assert_int_equal(arb_make_polygon(collinear, 3, &p, NULL), ARB_E_INVAL);
  assert_int_equal(arb_make_polygon(NULL, 3, &p, NULL), ARB_E_INVAL);
}

static void check_polygon_invariants(const arb_polygon* p) {
  for (int i = 0; i < p->count; ++i) {
    int j = i + 1 < p->count ? i + 1 : 0;
    arb_vec2 e = arb_sub(p->vertices[j], p->vertices[i]);
    near(arb_length(p->normals[i]), 1.0f, 1e-6f);
    near(arb_dot(p->normals[i], e), 0.0f, 1e-5f);
    // Outward: CCW means the normal is the edge turned clockwise.
    assert_true(arb_cross(e, p->normals[i]) < 0.0f);
  }
  assert_true(arb_point_in_polygon(p->centroid, p));
}

static void test_polygon_accepts_and_normalizes(void** state) {
  (void)state;
  arb_vec2 cw[4] = {{0, 0}, {0, 1}, {2, 1}, {2, 0}};  // clockwise
  arb_polygon p;
  const char* why = "unset";
  assert_int_equal(arb_make_polygon(cw, 4, &p, &why), 0);
  assert_null(why);
  assert_int_equal(p.count, 4);
  check_polygon_invariants(&p);
  near(p.centroid.x, 1.0f, 1e-6f);
  near(p.centroid.y, 0.5f, 1e-6f);
  // Same polygon given counter-clockwise: same vertex set, same orientation.
  arb_vec2 ccw[4] = {{2, 0}, {2, 1}, {0, 1}, {0, 0}};
  arb_polygon q;
  assert_int_equal(arb_make_polygon(ccw, 4, &q, NULL), 0);
  check_polygon_invariants(&q);
  // Triangle centroid is the vertex mean; octagon accepted.
  arb_vec2 tri[3] = {{0, 0}, {3, 0}, {0, 3}};
  assert_int_equal(arb_make_polygon(tri, 3, &p, NULL), 0);
  near(p.centroid.x, 1.0f, 1e-6f);
  near(p.centroid.y, 1.0f, 1e-6f);
  arb_vec2 oct[8];
  for (int i = 0; i < 8; ++i) {
    float a = 2.0f * ARB_PI * (float)i / 8.0f;
    oct[i] = arb_v2(10.0f + arb_cos(a), -4.0f + arb_sin(a));
  }
  assert_int_equal(arb_make_polygon(oct, 8, &p, NULL), 0);
  check_polygon_invariants(&p);
  near(p.centroid.x, 10.0f, 1e-5f);
  near(p.centroid.y, -4.0f, 1e-5f);
}

static void test_box(void** state) {
  (void)state;
  arb_polygon b = arb_make_box(1.5f, 0.25f);
  assert_int_equal(b.count, 4);
  check_polygon_invariants(&b);
  // Invalid extents: a count-0 polygon, no mass, collides with nothing.
  assert_int_equal(arb_make_box(0.0f, 1.0f).count, 0);
  assert_int_equal(arb_make_box(1.0f, NAN).count, 0);
  arb_polygon z = arb_make_box(-1.0f, 1.0f);
  assert_true(arb_compute_polygon_mass(&z, 1.0f).mass == 0.0f);
  assert_int_equal(
      arb_collide_polygons(&z, arb_transform_identity, &b, arb_transform_identity).point_count, 0);
  // Offset box: vertices moved and rotated, centroid at the offset.
  arb_polygon o =
      arb_make_offset_box(1.0f, 0.5f, arb_v2(3.0f, -2.0f), arb_rot_from_angle(0.5f * ARB_PI));
  check_polygon_invariants(&o);
  near(o.centroid.x, 3.0f, 0.0f);
  arb_aabb box = arb_compute_polygon_aabb(&o, arb_transform_identity);
  near(box.lower.x, 2.5f, 1e-6f);
  near(box.upper.x, 3.5f, 1e-6f);
  near(box.lower.y, -3.0f, 1e-6f);
  near(box.upper.y, -1.0f, 1e-6f);
}

static void test_box_inertia_exact(void** state) {
  (void)state;
  // A solid w x h box: m (w^2 + h^2) / 12 (not the w^2 h^2 of the tutorial).
  const float dims[][2] = {{1, 1}, {2, 1}, {0.1f, 3}, {10, 0.2f}, {200, 2}};
  for (int i = 0; i < 5; ++i) {
    float w = dims[i][0], h = dims[i][1], density = 2.5f;
    arb_polygon b = arb_make_box(0.5f * w, 0.5f * h);
    arb_mass_data md = arb_compute_polygon_mass(&b, density);
    float m = density * w * h;
    near(md.mass, m, 1e-6f * m);
    float inertia = m * (w * w + h * h) / 12.0f;
    near(md.rotational_inertia, inertia, 2e-6f * inertia);
    near(md.center.x, 0.0f, 1e-6f);
    near(md.center.y, 0.0f, 1e-6f);
    // Offset and rotated: same inertia about its own centre, centre at the offset.
    arb_polygon o =
        arb_make_offset_box(0.5f * w, 0.5f * h, arb_v2(4.0f, 7.0f), arb_rot_from_angle(0.8f));
    arb_mass_data mo = arb_compute_polygon_mass(&o, density);
    near(mo.mass, m, 1e-5f * m);
    near(mo.rotational_inertia, inertia, 1e-4f * inertia);
    near(mo.center.x, 4.0f, 1e-4f);
    near(mo.center.y, 7.0f, 1e-4f);
  }
}

static void test_mass_circle_and_polygon(void** state) {
  (void)state;
  arb_circle c = {{0.5f, -1.0f}, 2.0f};
  arb_mass_data md = arb_compute_circle_mass(&c, 3.0f);
  near(md.mass, 3.0f * ARB_PI * 4.0f, 1e-5f);
  near(md.rotational_inertia, 0.5f * md.mass * 4.0f, 1e-4f);
  assert_true(md.center.x == 0.5f && md.center.y == -1.0f);
  // Right triangle legs a, b at the origin: area ab/2, centroid (a/3, b/3), inertia about
  // the centroid m (a^2 + b^2) / 18.
  arb_vec2 tri[3] = {{0, 0}, {3, 0}, {0, 2}};
  arb_polygon p;
  assert_int_equal(arb_make_polygon(tri, 3, &p, NULL), 0);
  md = arb_compute_polygon_mass(&p, 2.0f);
  near(md.mass, 6.0f, 1e-5f);
  near(md.center.x, 1.0f, 1e-6f);
  near(md.center.y, 2.0f / 3.0f, 1e-6f);
  near(md.rotational_inertia, 6.0f * 13.0f / 18.0f, 1e-5f);
  // Regular octagon of circumradius R, far from the origin: area 2 sqrt(2) R^2, and the
  // regular n-gon inertia I = m R^2 (1 + 2 cos^2(pi/n)) / 6.
  arb_vec2 oct[8];
  float R = 1.5f;
  for (int i = 0; i < 8; ++i) {
    float a = 2.0f * ARB_PI * (float)i / 8.0f;
    oct[i] = arb_v2(R * arb_cos(a) - 20.0f, R * arb_sin(a) + 5.0f);
  }
  assert_int_equal(arb_make_polygon(oct, 8, &p, NULL), 0);
  md = arb_compute_polygon_mass(&p, 1.0f);
  float area = 2.0f * sqrtf(2.0f) * R * R;
  near(md.mass, area, 1e-4f);
  float c8 = cosf(ARB_PI / 8.0f);
  near(md.rotational_inertia, area * R * R * (1.0f + 2.0f * c8 * c8) / 6.0f, 1e-3f);
  near(md.center.x, -20.0f, 1e-4f);
  near(md.center.y, 5.0f, 1e-4f);
}

static void test_aabbs_and_points(void** state) {
  (void)state;
  arb_transform xf = {arb_v2(1.0f, 2.0f), arb_rot_from_angle(0.25f * ARB_PI)};
  arb_circle c = {{1.0f, 0.0f}, 0.5f};
  arb_aabb a = arb_compute_circle_aabb(&c, xf);
  float s = sqrtf(0.5f);
  near(a.lower.x, 1.0f + s - 0.5f, 1e-6f);
  near(a.upper.y, 2.0f + s + 0.5f, 1e-6f);
  arb_polygon b = arb_make_box(1.0f, 1.0f);
  a = arb_compute_polygon_aabb(&b, xf);
  near(a.lower.x, 1.0f - sqrtf(2.0f), 1e-6f);
  near(a.upper.x, 1.0f + sqrtf(2.0f), 1e-6f);
  arb_segment seg = {{-1.0f, 0.0f}, {1.0f, 0.0f}};
  a = arb_compute_segment_aabb(&seg, xf);
  near(a.lower.x, 1.0f - s, 1e-6f);
  near(a.upper.y, 2.0f + s, 1e-6f);
  assert_true(arb_point_in_circle(arb_v2(1.4f, 0.0f), &c));
  assert_false(arb_point_in_circle(arb_v2(1.6f, 0.0f), &c));
  assert_true(arb_point_in_polygon(arb_v2(0.99f, -0.99f), &b));
  assert_true(arb_point_in_polygon(arb_v2(1.0f, 1.0f), &b));  // boundary counts
  assert_false(arb_point_in_polygon(arb_v2(1.01f, 0.0f), &b));
}

static uint32_t rng_state = 99u;
static uint32_t rnd_u32(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state;
}

// Hostile input (scene files are untrusted): random bit patterns (NaN, Inf, denormals,
// huge values), random counts, near-duplicates and near-collinear points. Every call
// either fails with a reason or yields a polygon that satisfies all invariants and has
// finite, positive mass.
static void test_polygon_hostile_input(void** state) {
  (void)state;
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    arb_vec2 pts[12];
    int count = (int)(rnd_u32() % 14u) - 1;  // -1 .. 12
    int mode = iter % 4;
    for (int i = 0; i < 12; ++i) {
      if (mode == 0) {  // raw bits
        uint32_t a = rnd_u32(), b = rnd_u32();
        memcpy(&pts[i].x, &a, sizeof a);
        memcpy(&pts[i].y, &b, sizeof b);
      } else {  // plausible shapes with perturbations that may break them
        float ang = 6.2831853f * (float)i / (float)(count > 0 ? count : 1);
        float r = mode == 1 ? 1.0f : (float)(rnd_u32() % 1000u) * 0.002f;
        pts[i] = arb_v2(r * arb_cos(ang), r * arb_sin(ang));
        if (mode == 3) {
          pts[i].x += (float)((int)(rnd_u32() % 200u) - 100) * 1e-4f;
          if (i > 0 && rnd_u32() % 8u == 0) pts[i] = pts[i - 1];
        }
      }
    }
    arb_polygon p;
    const char* why = NULL;
    int rc = arb_make_polygon(pts, count, &p, &why);
    if (rc != 0) {
      assert_int_equal(rc, ARB_E_INVAL);
      assert_non_null(why);
      continue;
    }
    ++accepted;
    assert_null(why);
    assert_in_range(p.count, 3, ARB_MAX_POLYGON_VERTICES);
    check_polygon_invariants(&p);
    arb_mass_data md = arb_compute_polygon_mass(&p, 1.0f);
    assert_true(isfinite(md.mass) && md.mass > 0.0f);
    assert_true(isfinite(md.rotational_inertia) && md.rotational_inertia > 0.0f);
  }
  assert_true(accepted > 1000);
}

ARB_TEST_MAIN(cmocka_unit_test(test_polygon_rejects),
              cmocka_unit_test(test_polygon_accepts_and_normalizes), cmocka_unit_test(test_box),
              cmocka_unit_test(test_box_inertia_exact),
              cmocka_unit_test(test_mass_circle_and_polygon),
              cmocka_unit_test(test_aabbs_and_points), cmocka_unit_test(test_polygon_hostile_input))
