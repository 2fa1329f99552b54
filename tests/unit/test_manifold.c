// Contact manifolds for every pair of shape kinds, degenerate cases, and randomized
// invariants (finite output, unit normal from A to B, agreement with GJK distance).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arbiter/collision.h>

#include "../common/test_main.h"
#include "fnv_bits.h"
#include "geometry_test_util.h"
#include "test_rng.h"

#ifndef MANIFOLD_GOLDEN_HASH
#define MANIFOLD_GOLDEN_HASH 0x64570328053a5e84ull  // gcc -O0/-O2/ASan, clang -O2 (x86-64 baseline)
#endif

// Invariants every non-empty manifold must satisfy.
static void check_manifold(const arb_manifold* m, arb_transform xfa, arb_transform xfb) {
  assert_in_range(m->point_count, 0, 2);
  if (m->point_count == 0) return;
  assert_true(arb_vec2_is_valid(m->normal));
  near(arb_length(m->normal), 1.0f, 1e-5f);
  for (int i = 0; i < m->point_count; ++i) {
    const arb_manifold_point* mp = &m->points[i];
    assert_true(arb_vec2_is_valid(mp->point) && isfinite(mp->separation));
    assert_true(mp->separation <= ARB_SPECULATIVE_DISTANCE + 1e-6f);
    float scale = 1e-5f * (1.0f + arb_length(mp->point));
    near(mp->anchor_a.x, mp->point.x - xfa.p.x, scale);
    near(mp->anchor_a.y, mp->point.y - xfa.p.y, scale);
    near(mp->anchor_b.x, mp->point.x - xfb.p.x, scale);
    near(mp->anchor_b.y, mp->point.y - xfb.p.y, scale);
    assert_true(mp->normal_impulse == 0.0f && mp->tangent_impulse == 0.0f);
  }
  if (m->point_count == 2) assert_true(m->points[0].id != m->points[1].id);
}

// The manifold of shape a at xa against shape b at xb by `collide` (one of arb_collide_*),
// checked against the invariants above before the test reads it.
#define CHECKED(collide, a, xa, b, xb) checked((collide)((a), (xa), (b), (xb)), (xa), (xb))
static arb_manifold checked(arb_manifold m, arb_transform xa, arb_transform xb) {
  check_manifold(&m, xa, xb);
  return m;
}

// A manifold with one point: its normal (within normal_tol) and separation (within 1e-5).
static void expect_one_point(const arb_manifold* m, float nx, float ny, float normal_tol,
                             float separation) {
  assert_int_equal(m->point_count, 1);
  near(m->normal.x, nx, normal_tol);
  near(m->normal.y, ny, normal_tol);
  near(m->points[0].separation, separation, 1e-5f);
}

static void test_circles(void** state) {
  (void)state;
  arb_circle a = {{0.0f, 0.0f}, 0.5f}, b = {{0.0f, 0.0f}, 0.25f};
  // Far from the origin: a circle test that adds positions instead of subtracting them
  // would see a distance of ~200 here.
  arb_transform xa = xf_at(100.0f, 50.0f, 0.3f), xb = xf_at(100.7f, 50.0f, -1.0f);
  arb_manifold m = CHECKED(arb_collide_circles, &a, xa, &b, xb);
  expect_one_point(&m, 1.0f, 0.0f, 1e-6f, -0.05f);
  // Midpoint between the surfaces: A's surface at 100.5, B's at 100.45.
  near(m.points[0].point.x, 100.475f, 1e-4f);
  // Swapped: normal still from A (now the small circle) to B.
  m = CHECKED(arb_collide_circles, &b, xb, &a, xa);
  near(m.normal.x, -1.0f, 1e-6f);
  // Offset centres in the body frame are honoured.
  arb_circle off = {{0.0f, 1.0f}, 0.5f};
  m = arb_collide_circles(&off, xf_at(0, 0, 0.5f * ARB_PI), &a, xf_at(-1.9f, 0, 0));
  assert_int_equal(m.point_count, 1);  // off's centre is at (-1, 0) after rotation
  near(m.normal.x, -1.0f, 1e-6f);
  near(m.points[0].separation, -0.1f, 1e-5f);
  // Touching within the speculative margin, and beyond it.
  m = arb_collide_circles(&a, xf_at(0, 0, 0), &b,
                          xf_at(0.75f + 0.5f * ARB_SPECULATIVE_DISTANCE, 0, 0));
  assert_int_equal(m.point_count, 1);
  assert_true(m.points[0].separation > 0.0f);
  m = arb_collide_circles(&a, xf_at(0, 0, 0), &b,
                          xf_at(0.75f + 1.5f * ARB_SPECULATIVE_DISTANCE, 0, 0));
  assert_int_equal(m.point_count, 0);
}

static void test_circles_coincident(void** state) {
  (void)state;
  arb_circle a = {{0.0f, 0.0f}, 0.5f}, b = {{0.0f, 0.0f}, 0.3f};
  arb_transform x = xf_at(3.0f, 4.0f, 0.0f);
  arb_manifold m = CHECKED(arb_collide_circles, &a, x, &b, x);
  assert_int_equal(m.point_count, 1);
  near(m.points[0].separation, -0.8f, 1e-6f);
  // Deterministic choice: world up.
  assert_true(m.normal.x == 0.0f && m.normal.y == 1.0f);
}

static void test_polygon_circle(void** state) {
  (void)state;
  arb_polygon box = arb_make_box(1.0f, 0.5f);
  arb_circle c = {{0.0f, 0.0f}, 0.25f};
  arb_transform xa = xf_at(10.0f, -3.0f, 0.0f);
  // Face region, above the top face.
  arb_transform xb = xf_at(10.3f, -3.0f + 0.5f + 0.2f, 0.0f);
  arb_manifold m = CHECKED(arb_collide_polygon_and_circle, &box, xa, &c, xb);
  expect_one_point(&m, 0.0f, 1.0f, 1e-6f, -0.05f);
  near(m.points[0].point.x, 10.3f, 1e-5f);
  near(m.points[0].point.y, -3.0f + 0.5f - 0.025f, 1e-5f);
  // Vertex region: the normal points from the corner to the centre.
  xb = xf_at(10.0f + 1.0f + 0.15f, -3.0f + 0.5f + 0.15f, 0.0f);
  m = CHECKED(arb_collide_polygon_and_circle, &box, xa, &c, xb);
  expect_one_point(&m, sqrtf(0.5f), sqrtf(0.5f), 1e-5f, 0.15f * sqrtf(2.0f) - 0.25f);
  // Rotated polygon: the box turned 90 degrees has its long side vertical.
  arb_transform xr = xf_at(0.0f, 0.0f, 0.5f * ARB_PI);
  m = arb_collide_polygon_and_circle(&box, xr, &c, xf_at(0.0f, 1.2f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-5f);
  near(m.points[0].separation, -0.05f, 1e-5f);
  // Near a corner: within the margin of both faces' lines but beyond it from the corner.
  float g = 0.02f;
  arb_circle tiny = {{0.0f, 0.0f}, 0.005f};
  m = arb_collide_polygon_and_circle(&box, xf_at(0, 0, 0), &tiny, xf_at(1.0f + g, 0.5f + g, 0));
  assert_int_equal(m.point_count, 0);
  // Far away.
  m = arb_collide_polygon_and_circle(&box, xa, &c, xf_at(0, 0, 0));
  assert_int_equal(m.point_count, 0);
}

static void test_polygon_circle_center_inside(void** state) {
  (void)state;
  arb_polygon box = arb_make_box(1.0f, 0.5f);
  arb_circle c = {{0.0f, 0.0f}, 0.2f};
  arb_transform xa = xf_at(0.0f, 0.0f, 0.0f);
  // Centre inside, nearest to the top face (0.1 below it).
  arb_transform xb = xf_at(0.3f, 0.4f, 0.0f);
  arb_manifold m = CHECKED(arb_collide_polygon_and_circle, &box, xa, &c, xb);
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-6f);
  near(m.points[0].separation, -0.3f, 1e-6f);
  // Exactly at the polygon's centre: still a valid unit normal and full depth.
  m = CHECKED(arb_collide_polygon_and_circle, &box, xa, &c, xa);
  assert_int_equal(m.point_count, 1);
  near(m.points[0].separation, -0.7f, 1e-6f);
  // Centre exactly on a vertex.
  arb_transform xv = xf_at(1.0f, 0.5f, 0.0f);
  m = CHECKED(arb_collide_polygon_and_circle, &box, xa, &c, xv);
  assert_int_equal(m.point_count, 1);
  near(m.points[0].separation, -0.2f, 1e-6f);
  // Centre outside by less than normalizing can resolve (1e-10 m beyond a vertex at the
  // origin): the vertex region has no direction, and the face normal stands in (a zero
  // normal would make the world's save image unreadable).
  arb_vec2 tri_pts[3] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}};
  arb_polygon tri;
  assert_int_equal(arb_make_polygon(tri_pts, 3, &tri, NULL), 0);
  arb_transform xt = xf_at(-1e-10f, -1e-10f, 0.0f);
  m = CHECKED(arb_collide_polygon_and_circle, &tri, xa, &c, xt);
  assert_int_equal(m.point_count, 1);
  near(arb_length(m.normal), 1.0f, 1e-6f);
}

static void test_box_resting_on_box(void** state) {
  (void)state;
  arb_polygon ground = arb_make_box(10.0f, 1.0f), box = arb_make_box(0.5f, 0.5f);
  arb_transform xg = xf_at(0.0f, -1.0f, 0.0f);
  arb_transform xb = xf_at(0.2f, 0.49f, 0.0f);  // 1 cm into the ground
  arb_manifold m = CHECKED(arb_collide_polygons, &ground, xg, &box, xb);
  expect_normal(&m, 2, 0.0f, 1.0f, 1e-6f);
  float xs[2];
  for (int i = 0; i < 2; ++i) {
    near(m.points[i].separation, -0.01f, 1e-5f);
    near(m.points[i].point.y, -0.005f, 1e-5f);  // midway between the surfaces
    xs[i] = m.points[i].point.x;
  }
  near(fminf(xs[0], xs[1]), -0.3f, 1e-5f);
  near(fmaxf(xs[0], xs[1]), 0.7f, 1e-5f);
  // Order swapped: normal flips (A to B), separation identical.
  arb_manifold r = arb_collide_polygons(&box, xb, &ground, xg);
  check_manifold(&r, xb, xg);
  assert_int_equal(r.point_count, 2);
  near(r.normal.y, -1.0f, 1e-6f);
  near(r.points[0].separation, -0.01f, 1e-5f);
  // Small box on a big box: the small box's face is not always the reference; still 2.
  arb_polygon small = arb_make_box(0.1f, 0.1f);
  m = arb_collide_polygons(&small, xf_at(0.0f, 0.095f, 0.0f), &ground, xf_at(0.0f, -1.0f, 0.0f));
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, -1.0f, 1e-6f);
  // Lifted beyond the margin: nothing.
  m = arb_collide_polygons(&ground, xg, &box,
                           xf_at(0.2f, 0.5f + 1.5f * ARB_SPECULATIVE_DISTANCE, 0.0f));
  assert_int_equal(m.point_count, 0);
  // Lifted within the margin: speculative points with positive separation.
  m = arb_collide_polygons(&ground, xg, &box,
                           xf_at(0.2f, 0.5f + 0.5f * ARB_SPECULATIVE_DISTANCE, 0.0f));
  assert_int_equal(m.point_count, 2);
  near(m.points[0].separation, 0.5f * ARB_SPECULATIVE_DISTANCE, 1e-5f);
}

static void test_feature_ids_stable(void** state) {
  (void)state;
  arb_polygon box = arb_make_box(0.5f, 0.5f);
  // A stack of equal boxes: same-size faces, where reference-face flip-flopping on
  // rounding noise would change ids every step.
  arb_manifold first =
      arb_collide_polygons(&box, xf_at(0.0f, 0.0f, 0.0f), &box, xf_at(0.001f, 0.995f, 0.0f));
  assert_int_equal(first.point_count, 2);
  for (int k = 1; k < 50; ++k) {
    float jitter = 1e-4f * (float)((k * 37) % 11 - 5);
    arb_manifold m =
        arb_collide_polygons(&box, xf_at(0.0f, 0.0f, jitter * 0.1f), &box,
                             xf_at(0.001f + jitter, 0.995f + 0.1f * jitter, -jitter * 0.1f));
    assert_int_equal(m.point_count, 2);
    // Same id set (order may differ).
    bool same = (m.points[0].id == first.points[0].id && m.points[1].id == first.points[1].id) ||
                (m.points[0].id == first.points[1].id && m.points[1].id == first.points[0].id);
    assert_true(same);
  }
}

static void test_parallel_edges(void** state) {
  (void)state;
  // Identical boxes stacked with coincident side faces: the clip lands exactly on the
  // reference face's ends. Two points at x = -0.5 and x = +0.5.
  arb_polygon box = arb_make_box(0.5f, 0.5f);
  arb_transform xa = xf_at(0.0f, 0.0f, 0.0f), xb = xf_at(0.0f, 0.99f, 0.0f);
  arb_manifold m = CHECKED(arb_collide_polygons, &box, xa, &box, xb);
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, 1.0f, 1e-6f);
  near(fminf(m.points[0].point.x, m.points[1].point.x), -0.5f, 1e-6f);
  near(fmaxf(m.points[0].point.x, m.points[1].point.x), 0.5f, 1e-6f);
  // Side by side, touching along a vertical face (a row of boxes): normal +x.
  xb = xf_at(0.999f, 0.0f, 0.0f);
  m = arb_collide_polygons(&box, xa, &box, xb);
  assert_int_equal(m.point_count, 2);
  near(m.normal.x, 1.0f, 1e-6f);
  near(m.points[0].separation, -0.001f, 1e-6f);
  // Corner facing corner within the margin, faces aligned: a single point (the clipped
  // incident edge collapses to its end), not two coincident ones.
  xb = xf_at(1.0f, 1.004f, 0.0f);
  m = CHECKED(arb_collide_polygons, &box, xa, &box, xb);
  assert_int_equal(m.point_count, 1);
  // Thin sliver polygons at grazing angles keep finite output.
  arb_polygon plank = arb_make_box(5.0f, 0.01f);
  for (int i = 0; i < 100; ++i) {
    float a = 1e-4f * (float)(i - 50);
    arb_transform xp = xf_at(0.1f * (float)i, 0.019f, a);
    m = CHECKED(arb_collide_polygons, &plank, xa, &plank, xp);
    assert_true(m.point_count >= 1);
  }
}

static void test_rotated_boxes(void** state) {
  (void)state;
  arb_polygon ground = arb_make_box(10.0f, 1.0f), box = arb_make_box(0.5f, 0.5f);
  arb_transform xg = xf_at(0.0f, -1.0f, 0.0f);
  // Standing on a corner (45 degrees): one point at the corner.
  float h = 0.5f * sqrtf(2.0f);
  arb_transform xb = xf_at(0.0f, h - 0.02f, 0.25f * ARB_PI);
  arb_manifold m = CHECKED(arb_collide_polygons, &ground, xg, &box, xb);
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-6f);
  near(m.points[0].separation, -0.02f, 1e-5f);
  near(m.points[0].point.x, 0.0f, 1e-5f);
  // Box resting flat on a tilted ground: the normal is the tilted up vector.
  float tilt = 0.3f;
  arb_transform tg = xf_at(0.0f, 0.0f, tilt);
  arb_vec2 up = arb_rotate(tg.q, arb_v2(0.0f, 1.0f));
  arb_transform tb = {arb_mul_add(tg.p, 1.0f + 0.5f - 0.01f, up), tg.q};
  m = CHECKED(arb_collide_polygons, &ground, tg, &box, tb);
  expect_normal(&m, 2, up.x, up.y, 1e-5f);
  near(m.points[0].separation, -0.01f, 1e-4f);
  near(m.points[1].separation, -0.01f, 1e-4f);
  // Corner facing corner, separated diagonally within the margin: one point, diagonal
  // normal and the true distance (not the face-axis distance).
  float gap = 0.01f;
  m = arb_collide_polygons(&box, xf_at(0, 0, 0), &box, xf_at(1.0f + gap, 1.0f + gap, 0));
  expect_one_point(&m, sqrtf(0.5f), sqrtf(0.5f), 1e-5f, gap * sqrtf(2.0f));
  // Coincident polygons: deep overlap, still a valid manifold.
  m = CHECKED(arb_collide_polygons, &box, xf_at(2, 2, 0.1f), &box, xf_at(2, 2, 0.1f));
  assert_true(m.point_count >= 1);
  near(m.points[0].separation, -1.0f, 1e-5f);
}

static void test_segment_circle(void** state) {
  (void)state;
  arb_segment seg = {{-5.0f, 0.0f}, {5.0f, 0.0f}};
  arb_circle c = {{0.0f, 0.0f}, 0.5f};
  arb_transform xs = xf_at(0.0f, 2.0f, 0.0f);
  arb_manifold m = CHECKED(arb_collide_segment_and_circle, &seg, xs, &c, xf_at(1.0f, 2.45f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-6f);
  near(m.points[0].separation, -0.05f, 1e-5f);
  // Below: two-sided, normal still from the segment to the circle.
  m = arb_collide_segment_and_circle(&seg, xs, &c, xf_at(1.0f, 1.55f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, -1.0f, 1e-6f);
  // Past the end: the end cap.
  m = arb_collide_segment_and_circle(&seg, xs, &c, xf_at(5.3f, 2.4f, 0.0f));
  expect_one_point(&m, 0.6f, 0.8f, 1e-5f, 0.0f);
  // Centre exactly on the segment: deterministic segment normal, full depth.
  m = arb_collide_segment_and_circle(&seg, xs, &c, xf_at(2.0f, 2.0f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.y, 1.0f, 1e-6f);
  near(m.points[0].separation, -0.5f, 1e-6f);
  // Rotated segment.
  arb_transform xr = xf_at(0.0f, 0.0f, 0.5f * ARB_PI);  // now vertical
  m = arb_collide_segment_and_circle(&seg, xr, &c, xf_at(-0.4f, 1.0f, 0.0f));
  assert_int_equal(m.point_count, 1);
  near(m.normal.x, -1.0f, 1e-5f);
  near(m.points[0].separation, -0.1f, 1e-5f);
  // Beyond the margin.
  m = arb_collide_segment_and_circle(&seg, xs, &c, xf_at(0.0f, 2.6f, 0.0f));
  assert_int_equal(m.point_count, 0);
}

static void test_segment_polygon(void** state) {
  (void)state;
  arb_segment seg = {{-5.0f, 0.0f}, {5.0f, 0.0f}};
  arb_polygon box = arb_make_box(0.5f, 0.5f);
  arb_transform xs = xf_at(0.0f, 0.0f, 0.0f);
  arb_transform xb = xf_at(1.0f, 0.49f, 0.0f);
  arb_manifold m = CHECKED(arb_collide_segment_and_polygon, &seg, xs, &box, xb);
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, 1.0f, 1e-6f);
  near(m.points[0].separation, -0.01f, 1e-5f);
  near(m.points[1].separation, -0.01f, 1e-5f);
  // Below the segment.
  xb = xf_at(1.0f, -0.49f, 0.0f);
  m = CHECKED(arb_collide_segment_and_polygon, &seg, xs, &box, xb);
  assert_int_equal(m.point_count, 2);
  near(m.normal.y, -1.0f, 1e-6f);
  // Hanging over the end: one clipped point at the end of the segment, one inside.
  xb = xf_at(5.2f, 0.49f, 0.0f);
  m = CHECKED(arb_collide_segment_and_polygon, &seg, xs, &box, xb);
  assert_int_equal(m.point_count, 2);
  // Box tipped onto its corner in the middle of the segment.
  xb = xf_at(0.0f, 0.5f * sqrtf(2.0f) - 0.01f, 0.25f * ARB_PI);
  m = arb_collide_segment_and_polygon(&seg, xs, &box, xb);
  assert_int_equal(m.point_count, 1);
  near(m.points[0].separation, -0.01f, 1e-5f);
  // Box beside the end, beyond the margin.
  m = arb_collide_segment_and_polygon(&seg, xs, &box, xf_at(5.6f, 0.0f, 0.0f));
  assert_int_equal(m.point_count, 0);
  // Box touching the end point with its side face (the segment end pokes the side).
  xb = xf_at(5.49f, 0.0f, 0.0f);
  m = CHECKED(arb_collide_segment_and_polygon, &seg, xs, &box, xb);
  assert_int_equal(m.point_count, 1);
  near(m.normal.x, 1.0f, 1e-5f);
  near(m.points[0].separation, -0.01f, 1e-5f);
}

// ---- randomized invariants ---------------------------------------------------------------

TEST_LCG_STREAM(12345u)

static arb_polygon random_polygon(void) {
  for (;;) {
    int n = 3 + (int)rnd(0.0f, 6.0f);
    if (n > 8) n = 8;
    arb_vec2 pts[8];
    float start = rnd(0.0f, 6.28f);
    float rx = rnd(0.1f, 1.5f), ry = rnd(0.1f, 1.5f);
    for (int i = 0; i < n; ++i) {
      float a = start + 6.2831853f * ((float)i + rnd(-0.3f, 0.3f)) / (float)n;
      pts[i] = arb_v2(rx * arb_cos(a), ry * arb_sin(a));
    }
    arb_polygon p;
    if (arb_make_polygon(pts, n, &p, NULL) == 0) return p;
  }
}

static void test_random_invariants(void** state) {
  (void)state;
  int with_points = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    arb_polygon pa = random_polygon(), pb = random_polygon();
    arb_circle ca = {{rnd(-0.3f, 0.3f), rnd(-0.3f, 0.3f)}, rnd(0.05f, 1.0f)};
    arb_circle cb = {{rnd(-0.3f, 0.3f), rnd(-0.3f, 0.3f)}, rnd(0.05f, 1.0f)};
    arb_segment sa = {{rnd(-3, 3), rnd(-3, 3)}, {rnd(-3, 3), rnd(-3, 3)}};
    if (arb_distance_sq(sa.a, sa.b) < 0.01f) continue;
    float base_x = rnd(-1000.0f, 1000.0f), base_y = rnd(-1000.0f, 1000.0f);
    arb_transform xa = xf_at(base_x, base_y, rnd(-10.0f, 10.0f));
    arb_transform xb =
        xf_at(base_x + rnd(-3.0f, 3.0f), base_y + rnd(-3.0f, 3.0f), rnd(-10.0f, 10.0f));

    arb_shape_proxy proxies_a[3] = {arb_make_polygon_proxy(&pa), arb_make_circle_proxy(&ca),
                                    arb_make_segment_proxy(&sa)};
    arb_shape_proxy proxies_b[2] = {arb_make_polygon_proxy(&pb), arb_make_circle_proxy(&cb)};
    arb_manifold ms[5];
    int which_a[5] = {0, 0, 1, 2, 2}, which_b[5] = {0, 1, 1, 1, 0};
    ms[0] = arb_collide_polygons(&pa, xa, &pb, xb);
    ms[1] = arb_collide_polygon_and_circle(&pa, xa, &cb, xb);
    ms[2] = arb_collide_circles(&ca, xa, &cb, xb);
    ms[3] = arb_collide_segment_and_circle(&sa, xa, &cb, xb);
    ms[4] = arb_collide_segment_and_polygon(&sa, xa, &pb, xb);
    for (int k = 0; k < 5; ++k) {
      const arb_manifold* m = &ms[k];
      check_manifold(m, xa, xb);
      arb_distance_output d =
          arb_shape_distance(&proxies_a[which_a[k]], xa, &proxies_b[which_b[k]], xb);
      float tol = 2e-3f;  // float precision at |x| ~ 1000 is ~6e-5; SAT vs GJK rounding
      if (d.distance > ARB_SPECULATIVE_DISTANCE + tol) {
        if (m->point_count != 0)
          fail_msg("pair %d: %d points at distance %g", k, m->point_count, (double)d.distance);
      }
      if (d.distance == 0.0f && m->point_count == 0) fail_msg("pair %d: overlap without points", k);
      if (m->point_count > 0) {
        ++with_points;
        float min_sep = m->points[0].separation;
        if (m->point_count == 2) min_sep = fminf(min_sep, m->points[1].separation);
        // The reported separation never overstates the true distance.
        if (min_sep > d.distance + tol)
          fail_msg("pair %d: separation %g > distance %g", k, (double)min_sep, (double)d.distance);
        // Separated shapes: the normal points from A towards B.
        if (d.distance > tol) assert_true(arb_dot(m->normal, d.normal) > 0.0f);
      }
    }
    // Swapping A and B negates the normal and keeps the deepest separation.
    arb_manifold r = arb_collide_polygons(&pb, xb, &pa, xa);
    assert_int_equal(r.point_count > 0, ms[0].point_count > 0);
    if (r.point_count > 0 && ms[0].point_count > 0) {
      float s1 = fminf(ms[0].points[0].separation,
                       ms[0].point_count == 2 ? ms[0].points[1].separation : 1e9f);
      float s2 = fminf(r.points[0].separation, r.point_count == 2 ? r.points[1].separation : 1e9f);
      near(s1, s2, 0.02f + 0.1f * fabsf(s1));
    }
  }
  assert_true(with_points > 1000);  // the sampling really exercises contacts
}

// Bit-exact golden value over many manifolds (every pair kind): the narrow phase feeds
// the world hash, so every build and platform must produce the same bits.
static uint64_t hash_manifold(uint64_t h, const arb_manifold* m) {
  h = fnv_bits(h, (float)m->point_count);
  h = fnv_bits(h, m->normal.x);
  h = fnv_bits(h, m->normal.y);
  for (int i = 0; i < m->point_count; ++i) {
    const arb_manifold_point* p = &m->points[i];
    h = fnv_bits(h, p->anchor_a.x);
    h = fnv_bits(h, p->anchor_a.y);
    h = fnv_bits(h, p->anchor_b.x);
    h = fnv_bits(h, p->anchor_b.y);
    h = fnv_bits(h, p->point.x);
    h = fnv_bits(h, p->point.y);
    h = fnv_bits(h, p->separation);
    h = fnv_bits(h, (float)p->id);
  }
  return h;
}

static void test_manifold_golden_bits(void** state) {
  (void)state;
  rng_state = 2024u;
  uint64_t h = 1469598103934665603ull;
  for (int iter = 0; iter < 3000; ++iter) {
    // One draw per statement: the order of evaluation of function arguments and
    // initializers is unspecified in C, and compilers do differ.
    float r[16];
    arb_polygon pa = random_polygon();
    arb_polygon pb = random_polygon();
    for (int k = 0; k < 16; ++k) r[k] = rnd(-1.0f, 1.0f);
    arb_circle ca = {{0.3f * r[0], 0.3f * r[1]}, 0.5f + 0.45f * r[2]};
    arb_circle cb = {{0.3f * r[3], 0.3f * r[4]}, 0.5f + 0.45f * r[5]};
    arb_segment sa = {{3.0f * r[6], 3.0f * r[7]}, {3.0f * r[8] + 3.5f, 3.0f * r[9]}};
    float bx = 100.0f * r[10], by = 100.0f * r[11];
    arb_transform xa = xf_at(bx, by, 10.0f * r[12]);
    arb_transform xb = xf_at(bx + 2.5f * r[13], by + 2.5f * r[14], 10.0f * r[15]);
    arb_manifold m = arb_collide_polygons(&pa, xa, &pb, xb);
    h = hash_manifold(h, &m);
    m = arb_collide_polygon_and_circle(&pa, xa, &cb, xb);
    h = hash_manifold(h, &m);
    m = arb_collide_circles(&ca, xa, &cb, xb);
    h = hash_manifold(h, &m);
    m = arb_collide_segment_and_circle(&sa, xa, &cb, xb);
    h = hash_manifold(h, &m);
    m = arb_collide_segment_and_polygon(&sa, xa, &pb, xb);
    h = hash_manifold(h, &m);
    arb_mass_data md = arb_compute_polygon_mass(&pa, 1.5f);
    h = fnv_bits(h, md.mass);
    h = fnv_bits(h, md.rotational_inertia);
    h = fnv_bits(h, md.center.x);
  }
  print_message("manifold golden hash: 0x%016llx\n", (unsigned long long)h);
  assert_true(h == MANIFOLD_GOLDEN_HASH);
}

ARB_TEST_MAIN(cmocka_unit_test(test_circles), cmocka_unit_test(test_circles_coincident),
              cmocka_unit_test(test_polygon_circle),
              cmocka_unit_test(test_polygon_circle_center_inside),
              cmocka_unit_test(test_box_resting_on_box), cmocka_unit_test(test_feature_ids_stable),
              cmocka_unit_test(test_parallel_edges), cmocka_unit_test(test_rotated_boxes),
              cmocka_unit_test(test_segment_circle), cmocka_unit_test(test_segment_polygon),
              cmocka_unit_test(test_random_invariants), cmocka_unit_test(test_manifold_golden_bits))
