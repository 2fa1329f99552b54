// Capsules and rounded polygons as pure geometry: mass and inertia against a numerical
// integration, bounding box, point test, ray casts, GJK distance, and the contact
// manifold against each other shape kind (circle, polygon, segment, capsule) with
// points, normals and separations worked out by hand in the comments.
// cmocka.h needs these first
// clang-format off
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
// clang-format on

#include <arbiter/collision.h>

#include "geometry_test_util.h"

static void expect_point(const arb_manifold* m, int i, float x, float y, float separation) {
  near(m->points[i].point.x, x, 1e-4f);
  near(m->points[i].point.y, y, 1e-4f);
  near(m->points[i].separation, separation, 1e-4f);
}

// The point with the smaller x first (the clipping order is not part of the contract).
static void sort_by_x(arb_manifold* m) {
  if (m->point_count == 2 && m->points[1].point.x < m->points[0].point.x) {
    arb_manifold_point t = m->points[0];
    m->points[0] = m->points[1];
    m->points[1] = t;
  }
}

// ---- mass, bounds, point test -------------------------------------------------------

// Mass, centroid and polar moment of a tilted capsule by summing cells of a fine grid in
// double precision: an integration that knows nothing of half discs and parallel axes.
static void test_mass_matches_integration(void** state) {
  (void)state;
  arb_capsule c = {{-0.6f, 0.1f}, {0.4f, 0.5f}, 0.3f};
  const double density = 2.5;
  arb_mass_data md = arb_compute_capsule_mass(&c, (float)density);
  const int n = 1600;
  const double lo_x = -1.0, hi_x = 0.8, lo_y = -0.3, hi_y = 0.9;
  double hx = (hi_x - lo_x) / n, hy = (hi_y - lo_y) / n;
  double m = 0.0, mx = 0.0, my = 0.0, mrr = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double x = lo_x + (i + 0.5) * hx, y = lo_y + (j + 0.5) * hy;
      if (!arb_point_in_capsule(arb_v2((float)x, (float)y), &c)) continue;
      double dm = density * hx * hy;
      m += dm;
      mx += dm * x;
      my += dm * y;
      mrr += dm * (x * x + y * y);
    }
  }
  double cx = mx / m, cy = my / m;
  double inertia = mrr - m * (cx * cx + cy * cy);
  near(md.mass, (float)m, 2e-3f * (float)m);
  near(md.center.x, (float)cx, 1e-3f);
  near(md.center.y, (float)cy, 1e-3f);
  near(md.rotational_inertia, (float)inertia, 3e-3f * (float)inertia);
}

// The closed form by hand for centres (-1, 0), (1, 0), radius 0.5, density 1:
// rectangle 2 x 1: m = 2, I = 2 (4 + 1) / 12 = 5/6; disc m = pi/4, half-disc centroid
// d = 2 / (3 pi), per the parallel axis theorem the two halves give
// (pi/4)(0.125 + 1 + 2 d) = pi/4 * 1.125 + 1/3.
static void test_mass_closed_form(void** state) {
  (void)state;
  arb_capsule c = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.5f};
  arb_mass_data md = arb_compute_capsule_mass(&c, 1.0f);
  near(md.mass, 2.0f + ARB_PI / 4.0f, 1e-5f);
  near(md.center.x, 0.0f, 0.0f);
  near(md.center.y, 0.0f, 0.0f);
  near(md.rotational_inertia, 5.0f / 6.0f + ARB_PI / 4.0f * 1.125f + 1.0f / 3.0f, 1e-5f);
}

static void test_aabb_and_point(void** state) {
  (void)state;
  arb_capsule c = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.5f};
  arb_aabb box = arb_compute_capsule_aabb(&c, xf_at(2.0f, 3.0f, ARB_PI / 2.0f));
  near(box.lower.x, 1.5f, 1e-5f);
  near(box.upper.x, 2.5f, 1e-5f);
  near(box.lower.y, 2.0f - 0.5f, 1e-5f);
  near(box.upper.y, 4.0f + 0.5f, 1e-5f);
  assert_true(arb_point_in_capsule(arb_v2(1.3f, 0.39f), &c));   // in the end cap
  assert_false(arb_point_in_capsule(arb_v2(1.3f, 0.41f), &c));  // just outside it
  assert_true(arb_point_in_capsule(arb_v2(0.0f, -0.49f), &c));
  assert_false(arb_point_in_capsule(arb_v2(1.49f, 0.49f), &c));  // the bounding box corner
}

// ---- ray casts --------------------------------------------------------------------------

static void test_ray_casts(void** state) {
  (void)state;
  arb_capsule c = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.5f};
  // Down onto the flat side: from y = 3 to the surface at y = 0.5 is 2.5 of 5.
  arb_ray_input in = {{0.0f, 3.0f}, {0.0f, -5.0f}, 1.0f};
  arb_cast_output o = arb_ray_cast_capsule(&in, &c);
  assert_true(o.hit);
  near(o.fraction, 0.5f, 1e-6f);
  near(o.normal.x, 0.0f, 1e-6f);
  near(o.normal.y, 1.0f, 1e-6f);
  near(o.point.y, 0.5f, 1e-6f);
  // Along the axis into the left cap: the surface at x = -1.5, 1.5 of 6.
  in = (arb_ray_input){{-3.0f, 0.0f}, {6.0f, 0.0f}, 1.0f};
  o = arb_ray_cast_capsule(&in, &c);
  assert_true(o.hit);
  near(o.fraction, 0.25f, 1e-6f);
  near(o.normal.x, -1.0f, 1e-6f);
  // Into the right cap along its normal (0.6, 0.8): the surface point (1.3, 0.4) is 2.5
  // from the start (2.8, 2.4), half of 5.
  in = (arb_ray_input){{2.8f, 2.4f}, {-3.0f, -4.0f}, 1.0f};
  o = arb_ray_cast_capsule(&in, &c);
  assert_true(o.hit);
  near(o.fraction, 0.5f, 1e-5f);
  near(o.normal.x, 0.6f, 1e-5f);
  near(o.normal.y, 0.8f, 1e-5f);
  near(o.point.x, 1.3f, 1e-5f);
  // Up from below, rotated into the capsule's frame like the world does: the bottom side.
  in = (arb_ray_input){{0.5f, -2.0f}, {0.0f, 3.0f}, 1.0f};
  o = arb_ray_cast_capsule(&in, &c);
  assert_true(o.hit);
  near(o.fraction, 0.5f, 1e-6f);
  near(o.normal.y, -1.0f, 1e-6f);
  // Misses: passing above, pointing away, stopping short, starting inside (fraction 0).
  in = (arb_ray_input){{-3.0f, 0.6f}, {6.0f, 0.0f}, 1.0f};
  assert_false(arb_ray_cast_capsule(&in, &c).hit);
  in = (arb_ray_input){{0.0f, 3.0f}, {0.0f, 5.0f}, 1.0f};
  assert_false(arb_ray_cast_capsule(&in, &c).hit);
  in = (arb_ray_input){{0.0f, 3.0f}, {0.0f, -5.0f}, 0.4f};
  assert_false(arb_ray_cast_capsule(&in, &c).hit);
  in = (arb_ray_input){{0.5f, 0.2f}, {1.0f, 0.0f}, 1.0f};
  o = arb_ray_cast_capsule(&in, &c);
  assert_true(o.hit);
  near(o.fraction, 0.0f, 0.0f);
  // Non-finite input is a miss.
  in = (arb_ray_input){{NAN, 3.0f}, {0.0f, -5.0f}, 1.0f};
  assert_false(arb_ray_cast_capsule(&in, &c).hit);
}

// ---- distance (the proxy continuous collision sweeps) ---------------------------------

static void test_distance(void** state) {
  (void)state;
  arb_capsule c = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.5f};
  arb_shape_proxy pc = arb_make_capsule_proxy(&c);
  assert_int_equal(pc.count, 2);
  near(pc.radius, 0.5f, 0.0f);
  arb_polygon box = arb_make_box(0.5f, 0.5f);
  arb_shape_proxy pb = arb_make_polygon_proxy(&box);
  // Box bottom at y = 1.5, capsule top at 0.5.
  arb_distance_output d =
      arb_shape_distance(&pc, xf_at(0.0f, 0.0f, 0.0f), &pb, xf_at(0.3f, 2.0f, 0.0f));
  near(d.distance, 1.0f, 1e-5f);
  near(d.normal.y, 1.0f, 1e-5f);
  near(d.point_a.y, 0.5f, 1e-5f);
  // Standing on end (turned a quarter): its top is at 1 + 0.5 = 1.5; the box above at 2.5.
  d = arb_shape_distance(&pc, xf_at(0.0f, 0.0f, ARB_PI / 2.0f), &pb, xf_at(0.0f, 3.0f, 0.0f));
  near(d.distance, 1.0f, 1e-5f);
}

// ---- manifolds ----------------------------------------------------------------------

// Capsule A: centres (-1, 0), (1, 0), radius 0.5 at the origin.
static const arb_capsule long_capsule = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.5f};
// Capsule B: centres (-0.5, 0), (0.5, 0), radius 0.25.
static const arb_capsule short_capsule = {{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.25f};

static void test_capsule_circle(void** state) {
  (void)state;
  arb_circle ball = {{0.0f, 0.0f}, 0.25f};
  arb_transform xa = xf_at(0.0f, 0.0f, 0.0f);
  // Over the flat side at (0.5, 0.7): core point (0.5, 0), 0.7 - 0.25 - 0.5 = -0.05; the
  // point midway between y = 0.5 and y = 0.45.
  arb_manifold m =
      arb_collide_capsule_and_circle(&long_capsule, xa, &ball, xf_at(0.5f, 0.7f, 0.0f));
  expect_normal(&m, 1, 0.0f, 1.0f, 1e-6f);
  expect_point(&m, 0, 0.5f, 0.475f, -0.05f);
  // Off the right cap at (1.3, 0.4): centre (1, 0) is 0.5 away along (0.6, 0.8), so
  // -0.25; surfaces at (1.3, 0.4) and (1.15, 0.2), midpoint (1.225, 0.3).
  m = arb_collide_capsule_and_circle(&long_capsule, xa, &ball, xf_at(1.3f, 0.4f, 0.0f));
  expect_normal(&m, 1, 0.6f, 0.8f, 1e-5f);
  expect_point(&m, 0, 1.225f, 0.3f, -0.25f);
  // The same capsule turned upright (a quarter turn) and moved: the ball at its side.
  m = arb_collide_capsule_and_circle(&long_capsule, xf_at(5.0f, 5.0f, ARB_PI / 2.0f), &ball,
                                     xf_at(5.7f, 5.2f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.x, 1.0f, 1e-5f);
  expect_point(&m, 0, 5.475f, 5.2f, -0.05f);
  // Beyond the speculative margin: nothing.
  m = arb_collide_capsule_and_circle(&long_capsule, xa, &ball, xf_at(0.0f, 0.8f, 0.0f));
  assert_int_equal(m.point_count, 0);
}

// Lying on a box top (y = 0.5) 0.01 deep: one point under each centre, midway between the
// surfaces (y = 0.495).
static void test_polygon_capsule_on_side(void** state) {
  (void)state;
  arb_polygon box = arb_make_box(2.0f, 0.5f);
  arb_manifold m = arb_collide_polygon_and_capsule(&box, xf_at(0.0f, 0.0f, 0.0f), &short_capsule,
                                                   xf_at(0.3f, 0.74f, 0.0f));
  expect_normal(&m, 2, 0.0f, 1.0f, 1e-6f);
  sort_by_x(&m);
  expect_point(&m, 0, -0.2f, 0.495f, -0.01f);
  expect_point(&m, 1, 0.8f, 0.495f, -0.01f);
  assert_true(m.points[0].id != m.points[1].id);
  // Half over the edge at x = 2: the point under the overhang is clipped to the corner.
  m = arb_collide_polygon_and_capsule(&box, xf_at(0.0f, 0.0f, 0.0f), &short_capsule,
                                      xf_at(2.0f, 0.74f, 0.0f));
  assert_int_equal(m.point_count, 2);
  sort_by_x(&m);
  expect_point(&m, 0, 1.5f, 0.495f, -0.01f);
  expect_point(&m, 1, 2.0f, 0.495f, -0.01f);
}

// Standing on end 0.01 deep: one point under the lower cap. Off a box corner: the corner
// (0.5, 0.5) and the cap centre (0.644, 0.692) are 0.24 apart along (0.6, 0.8), so the
// separation is 0.24 - 0.25 and the point lies midway between the corner and the cap.
static void test_polygon_capsule_end_and_corner(void** state) {
  (void)state;
  arb_polygon box = arb_make_box(0.5f, 0.5f);
  arb_transform xa = xf_at(0.0f, 0.0f, 0.0f);
  arb_manifold m =
      arb_collide_polygon_and_capsule(&box, xa, &short_capsule, xf_at(0.0f, 1.24f, ARB_PI / 2.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-5f);
  expect_point(&m, 0, 0.0f, 0.495f, -0.01f);
  m = arb_collide_polygon_and_capsule(&box, xa, &short_capsule, xf_at(1.144f, 0.692f, 0.0f));
  expect_normal(&m, 1, 0.6f, 0.8f, 1e-4f);
  expect_point(&m, 0, 0.497f, 0.496f, -0.01f);
  // The box turned by 45 degrees with a corner up at y = sqrt(0.5): the capsule lying
  // across it touches that corner only, straight below its middle.
  float top = sqrtf(0.5f);
  m = arb_collide_polygon_and_capsule(&box, xf_at(0.0f, 0.0f, ARB_PI / 4.0f), &short_capsule,
                                      xf_at(0.0f, top + 0.24f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-4f);
  expect_point(&m, 0, 0.0f, top - 0.005f, -0.01f);
}

// On a ground segment y = 0 (two-sided), 0.01 deep: two points at y = -0.005.
static void test_segment_capsule(void** state) {
  (void)state;
  arb_segment ground = {{-5.0f, 0.0f}, {5.0f, 0.0f}};
  arb_manifold m = arb_collide_segment_and_capsule(&ground, xf_at(0.0f, 0.0f, 0.0f), &short_capsule,
                                                   xf_at(1.0f, 0.24f, 0.0f));
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, 1.0f, 1e-6f);
  sort_by_x(&m);
  expect_point(&m, 0, 0.5f, -0.005f, -0.01f);
  expect_point(&m, 1, 1.5f, -0.005f, -0.01f);
  // From below: the normal points down (A to B).
  m = arb_collide_segment_and_capsule(&ground, xf_at(0.0f, 0.0f, 0.0f), &short_capsule,
                                      xf_at(1.0f, -0.24f, 0.0f));
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, -1.0f, 1e-6f);
  // Past the segment's end at x = 5, the cap at (5.3, 0.4) relative to the end: one
  // point along (0.6, 0.8), 0.5 - 0.25 = 0.25 apart: beyond the margin. Closer, at
  // 0.24 along the same direction: -0.01.
  m = arb_collide_segment_and_capsule(&ground, xf_at(0.0f, 0.0f, 0.0f), &short_capsule,
                                      xf_at(5.0f + 0.144f + 0.5f, 0.192f, 0.0f));
  expect_normal(&m, 1, 0.6f, 0.8f, 1e-4f);
  near(m.points[0].separation, -0.01f, 1e-4f);
}

static void test_capsule_capsule(void** state) {
  (void)state;
  arb_transform xa = xf_at(0.0f, 0.0f, 0.0f);
  // Parallel, B on A's top (y = 0.5) 0.01 deep: points under B's centres (x = 0 and 1)
  // midway between y = 0.5 and 0.49.
  arb_manifold m =
      arb_collide_capsules(&long_capsule, xa, &short_capsule, xf_at(0.5f, 0.74f, 0.0f));
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, 1.0f, 1e-6f);
  sort_by_x(&m);
  expect_point(&m, 0, 0.0f, 0.495f, -0.01f);
  expect_point(&m, 1, 1.0f, 0.495f, -0.01f);
  // Crossed: B upright above A at x = 0.3, its lower centre at y = 0.7; the cores are 0.7
  // apart, the surfaces -0.05; one point between y = 0.5 and y = 0.45.
  m = arb_collide_capsules(&long_capsule, xa, &short_capsule, xf_at(0.3f, 1.2f, ARB_PI / 2.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-5f);
  expect_point(&m, 0, 0.3f, 0.475f, -0.05f);
  // End to end along the axis: A's right centre (1, 0), B's left centre (2.2, 0): 1.2
  // apart, surfaces 1.2 - 0.75 = 0.45: beyond the margin. At 0.74: -0.01, normal +x.
  m = arb_collide_capsules(&long_capsule, xa, &short_capsule, xf_at(2.7f, 0.0f, 0.0f));
  assert_int_equal(m.point_count, 0);
  m = arb_collide_capsules(&long_capsule, xa, &short_capsule, xf_at(2.24f, 0.0f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.x, 1.0f, 1e-5f);
  expect_point(&m, 0, 1.495f, 0.0f, -0.01f);
}

// Far from the origin and turned, the same contact as at the origin (the functions work
// relative to A, so precision does not drop with distance).
static void test_far_and_turned(void** state) {
  (void)state;
  float a = 0.7f;
  arb_rot q = arb_rot_from_angle(a);
  arb_vec2 base = arb_v2(1000.0f, -500.0f);
  arb_transform xa = {base, q};
  arb_transform xb = {arb_add(base, arb_rotate(q, arb_v2(0.5f, 0.74f))), q};
  arb_manifold m = arb_collide_capsules(&long_capsule, xa, &short_capsule, xb);
  assert_int_equal(m.point_count, 2);
  arb_vec2 up = arb_rotate(q, arb_v2(0.0f, 1.0f));
  near(m.normal.x, up.x, 1e-5f);
  near(m.normal.y, up.y, 1e-5f);
  for (int i = 0; i < 2; ++i) near(m.points[i].separation, -0.01f, 2e-4f);
}

// ---- rounded polygons ---------------------------------------------------------------

// Mass, centroid and polar moment of a shape given by its point test, by summing the
// cells of an n x n grid over [lo, hi]^2 in double precision.
typedef struct grid_mass {
  double m, cx, cy, inertia;
} grid_mass;

static grid_mass integrate_polygon(const arb_polygon* p, double density, double lo, double hi) {
  const int n = 1600;
  double h = (hi - lo) / n;
  double m = 0.0, mx = 0.0, my = 0.0, mrr = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double x = lo + (i + 0.5) * h, y = lo + (j + 0.5) * h;
      if (!arb_point_in_polygon(arb_v2((float)x, (float)y), p)) continue;
      double dm = density * h * h;
      m += dm;
      mx += dm * x;
      my += dm * y;
      mrr += dm * (x * x + y * y);
    }
  }
  grid_mass g = {m, mx / m, my / m, 0.0};
  g.inertia = mrr - m * (g.cx * g.cx + g.cy * g.cy);
  return g;
}

static void test_rounded_polygon_mass(void** state) {
  (void)state;
  // A rounded box by hand: half extents 0.5 x 0.25, radius 0.1. Area: core 0.5, four edge
  // strips (1 + 0.5) * 2 * 0.1 = 0.3, four quarter discs pi * 0.01.
  arb_polygon core = arb_make_box(0.5f, 0.25f);
  arb_polygon rbox = arb_make_rounded_polygon(&core, 0.1f);
  arb_mass_data md = arb_compute_polygon_mass(&rbox, 1.0f);
  near(md.mass, 0.5f + 0.3f + ARB_PI * 0.01f, 1e-5f);
  near(md.center.x, 0.0f, 1e-6f);
  near(md.center.y, 0.0f, 1e-6f);
  grid_mass g = integrate_polygon(&rbox, 1.0, -0.7, 0.7);
  near(md.rotational_inertia, (float)g.inertia, 3e-3f * (float)g.inertia);
  // A rounded triangle off the origin (corners of different angles).
  arb_vec2 tri[3] = {{0.1f, -0.2f}, {0.9f, 0.1f}, {0.2f, 0.6f}};
  assert_int_equal(arb_make_polygon(tri, 3, &core, NULL), 0);
  arb_polygon rtri = arb_make_rounded_polygon(&core, 0.15f);
  md = arb_compute_polygon_mass(&rtri, 3.0f);
  g = integrate_polygon(&rtri, 3.0, -0.4, 1.1);
  near(md.mass, (float)g.m, 2e-3f * (float)g.m);
  near(md.center.x, (float)g.cx, 1e-3f);
  near(md.center.y, (float)g.cy, 1e-3f);
  near(md.rotational_inertia, (float)g.inertia, 3e-3f * (float)g.inertia);
  // Radius 0 is the sharp polygon, bit for bit.
  arb_mass_data sharp = arb_compute_polygon_mass(&core, 3.0f);
  arb_polygon zero = arb_make_rounded_polygon(&core, 0.0f);
  arb_mass_data same = arb_compute_polygon_mass(&zero, 3.0f);
  assert_memory_equal(&sharp, &same, sizeof sharp);
}

static void test_rounded_polygon_bounds_point_ray(void** state) {
  (void)state;
  arb_polygon core = arb_make_box(0.5f, 0.5f);
  arb_polygon p = arb_make_rounded_polygon(&core, 0.1f);
  arb_aabb box = arb_compute_polygon_aabb(&p, xf_at(1.0f, 0.0f, 0.0f));
  near(box.lower.x, 0.4f, 1e-6f);
  near(box.upper.y, 0.6f, 1e-6f);
  // The corner arc is centred on (0.5, 0.5): (0.55, 0.55) is 0.071 from it, (0.58, 0.58) 0.113.
  assert_true(arb_point_in_polygon(arb_v2(0.55f, 0.55f), &p));
  assert_false(arb_point_in_polygon(arb_v2(0.58f, 0.58f), &p));
  assert_true(arb_point_in_polygon(arb_v2(0.0f, 0.59f), &p));
  assert_false(arb_point_in_polygon(arb_v2(0.0f, 0.61f), &p));
  // Down onto the top (y = 0.6): 2.4 of 5.
  arb_ray_input in = {{0.0f, 3.0f}, {0.0f, -5.0f}, 1.0f};
  arb_cast_output o = arb_ray_cast_polygon(&in, &p);
  assert_true(o.hit);
  near(o.fraction, 0.48f, 1e-6f);
  near(o.normal.y, 1.0f, 1e-6f);
  // Diagonally onto the corner: the arc's point (0.5 + 0.1 / sqrt 2) on each axis.
  float k = 0.5f + 0.1f * sqrtf(0.5f);
  in = (arb_ray_input){{2.0f, 2.0f}, {-2.0f, -2.0f}, 1.0f};
  o = arb_ray_cast_polygon(&in, &p);
  assert_true(o.hit);
  near(o.point.x, k, 1e-5f);
  near(o.point.y, k, 1e-5f);
  near(o.normal.x, sqrtf(0.5f), 1e-5f);
  // Starting in the rim: fraction 0.
  in = (arb_ray_input){{0.55f, 0.0f}, {1.0f, 0.0f}, 1.0f};
  o = arb_ray_cast_polygon(&in, &p);
  assert_true(o.hit);
  near(o.fraction, 0.0f, 0.0f);
  // The distance proxy carries the radius.
  near(arb_make_polygon_proxy(&p).radius, 0.1f, 0.0f);
}

static void test_rounded_polygon_manifolds(void** state) {
  (void)state;
  arb_polygon ground = arb_make_box(5.0f, 0.5f);  // top at y = 0.5
  arb_polygon core = arb_make_box(0.4f, 0.4f);
  arb_polygon p = arb_make_rounded_polygon(&core, 0.1f);  // a 1 m box with round corners
  // Resting 0.01 deep: bottom of the rim at 0.49 with its centre at 0.99. Two points
  // under the core's corners (x = +-0.4) midway between y = 0.5 and 0.49.
  arb_manifold m =
      arb_collide_polygons(&ground, xf_at(0.0f, 0.0f, 0.0f), &p, xf_at(0.0f, 0.99f, 0.0f));
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, 1.0f, 1e-6f);
  sort_by_x(&m);
  expect_point(&m, 0, -0.4f, 0.495f, -0.01f);
  expect_point(&m, 1, 0.4f, 0.495f, -0.01f);
  // Rounded on both sides: the same box as A and B one on top of the other.
  m = arb_collide_polygons(&p, xf_at(0.0f, 0.0f, 0.0f), &p, xf_at(0.2f, 0.99f, 0.0f));
  assert_int_equal(m.point_count, 2);
  sort_by_x(&m);
  expect_point(&m, 0, -0.2f, 0.495f, -0.01f);
  expect_point(&m, 1, 0.4f, 0.495f, -0.01f);
  // A circle (r 0.25) off the rounded corner along (0.6, 0.8): corner centre (0.4, 0.4),
  // circle centre 0.34 away, so 0.34 - 0.1 - 0.25 = -0.01.
  arb_circle ball = {{0.0f, 0.0f}, 0.25f};
  m = arb_collide_polygon_and_circle(&p, xf_at(0.0f, 0.0f, 0.0f), &ball,
                                     xf_at(0.4f + 0.204f, 0.4f + 0.272f, 0.0f));
  expect_normal(&m, 1, 0.6f, 0.8f, 1e-4f);
  near(m.points[0].separation, -0.01f, 1e-5f);
  // On its face: centre at y = 0.74, surfaces at 0.5 and 0.49.
  m = arb_collide_polygon_and_circle(&p, xf_at(0.0f, 0.0f, 0.0f), &ball, xf_at(0.1f, 0.74f, 0.0f));
  assert_int_equal(m.point_count, 1);
  expect_point(&m, 0, 0.1f, 0.495f, -0.01f);
  // A rounded box on a segment, and a capsule on a rounded box: two points each.
  arb_segment floor = {{-5.0f, 0.0f}, {5.0f, 0.0f}};
  m = arb_collide_segment_and_polygon(&floor, xf_at(0.0f, 0.0f, 0.0f), &p,
                                      xf_at(1.0f, 0.49f, 0.0f));
  assert_int_equal(m.point_count, 2);
  sort_by_x(&m);
  expect_point(&m, 0, 0.6f, -0.005f, -0.01f);
  m = arb_collide_polygon_and_capsule(&p, xf_at(0.0f, 0.0f, 0.0f), &short_capsule,
                                      xf_at(0.0f, 0.74f, 0.0f));
  assert_int_equal(m.point_count, 2);
  sort_by_x(&m);
  expect_point(&m, 0, -0.4f, 0.495f, -0.01f);
  expect_point(&m, 1, 0.4f, 0.495f, -0.01f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mass_matches_integration),
      cmocka_unit_test(test_mass_closed_form),
      cmocka_unit_test(test_aabb_and_point),
      cmocka_unit_test(test_ray_casts),
      cmocka_unit_test(test_distance),
      cmocka_unit_test(test_capsule_circle),
      cmocka_unit_test(test_polygon_capsule_on_side),
      cmocka_unit_test(test_polygon_capsule_end_and_corner),
      cmocka_unit_test(test_segment_capsule),
      cmocka_unit_test(test_capsule_capsule),
      cmocka_unit_test(test_far_and_turned),
      cmocka_unit_test(test_rounded_polygon_mass),
      cmocka_unit_test(test_rounded_polygon_bounds_point_ray),
      cmocka_unit_test(test_rounded_polygon_manifolds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
