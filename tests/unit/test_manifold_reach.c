// The premise of the narrow phase's out-of-reach test (shared/src/contact.c,
// arb__out_of_reach): two shapes farther apart than the speculative margin plus
// ARB_LINEAR_SLOP get no manifold points from the collide functions, for every pair of
// shape kinds (chains included) and any margin a world uses (continuous collision widens it
// up to metres). The world skips the collide call for such pairs, so if a collide function
// could report a point there, skipping it would change results. Distances are GJK's
// (arb_shape_distance); poses are drawn so that most pairs lie near the reach.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "manifold.h"  // shared/src: the collide functions with a margin
#include "shape.h"     // shared/src: the world's per-kind dispatch
#include "test_rng.h"

TEST_LCG_STREAM(777u)

enum { CIRCLE, POLYGON, SEGMENT, CAPSULE, KINDS };

// The kinds drawn here, by the world's kinds.
static const arb_shape_type type_of[KINDS] = {[CIRCLE] = ARB_SHAPE_CIRCLE,
                                              [POLYGON] = ARB_SHAPE_POLYGON,
                                              [SEGMENT] = ARB_SHAPE_SEGMENT,
                                              [CAPSULE] = ARB_SHAPE_CAPSULE};

typedef struct shape {
  int kind;
  arb_shape_def def;  // of type type_of[kind]
  arb_shape_proxy proxy;
  float extent;  // farthest surface point from the local origin
} shape;

static arb_polygon random_polygon(float radius) {
  for (;;) {
    int n = 3 + (int)rnd(0.0f, 6.0f);
    if (n > ARB_MAX_POLYGON_VERTICES) n = ARB_MAX_POLYGON_VERTICES;
    arb_vec2 pts[ARB_MAX_POLYGON_VERTICES];
    float start = rnd(0.0f, 6.28f), rx = rnd(0.1f, 1.5f), ry = rnd(0.1f, 1.5f);
    for (int i = 0; i < n; ++i) {
      float a = start + 6.2831853f * ((float)i + rnd(-0.3f, 0.3f)) / (float)n;
      pts[i] = arb_v2(rx * arb_cos(a), ry * arb_sin(a));
    }
    arb_polygon p;
    if (arb_make_polygon(pts, n, &p, NULL) == 0) {
      p.radius = radius;
      return p;
    }
  }
}

static shape random_shape(int kind) {
  shape s = {.kind = kind};
  s.def.type = type_of[kind];
  if (kind == CIRCLE) {
    s.def.circle = (arb_circle){{rnd(-0.3f, 0.3f), rnd(-0.3f, 0.3f)}, rnd(0.05f, 1.0f)};
    s.proxy = arb_make_circle_proxy(&s.def.circle);
  } else if (kind == POLYGON) {
    s.def.polygon = random_polygon(rnd(0.0f, 1.0f) < 0.5f ? 0.0f : rnd(0.01f, 0.3f));
    s.proxy = arb_make_polygon_proxy(&s.def.polygon);
  } else {
    arb_vec2 p = {rnd(-2.0f, 2.0f), rnd(-2.0f, 2.0f)};
    arb_vec2 q = arb_add(p, arb_v2(rnd(-3.0f, 3.0f), rnd(-3.0f, 3.0f)));
    if (arb_distance(p, q) < 0.05f) q = arb_add(p, arb_v2(0.5f, 0.0f));
    if (kind == SEGMENT) {
      s.def.segment = (arb_segment){p, q};
      s.proxy = arb_make_segment_proxy(&s.def.segment);
    } else {
      s.def.capsule = (arb_capsule){p, q, rnd(0.05f, 0.6f)};
      s.proxy = arb_make_capsule_proxy(&s.def.capsule);
    }
  }
  for (int i = 0; i < s.proxy.count; ++i)
    s.extent = fmaxf(s.extent, arb_length(s.proxy.points[i]) + s.proxy.radius);
  return s;
}

// The manifold of a and b through the convex collide function of their kinds (a row of
// ARB_COLLIDE_PAIRS), with A the kind the world would put first (the row's order, as
// in contact.c's table), so every row is reached.
static arb_manifold collide(const shape* a, arb_transform xa, const shape* b, arb_transform xb,
                            float margin) {
  static const int rank[KINDS] = {[SEGMENT] = 0, [POLYGON] = 1, [CAPSULE] = 2, [CIRCLE] = 3};
  if (rank[a->kind] > rank[b->kind]) return collide(b, xb, a, xa, margin);
#define PAIR(ka, kb) ((ka)*ARB_SHAPE_TYPE_COUNT + (kb))
#define CASE(name, KA, ka, KB, kb)           \
  case PAIR(ARB_SHAPE_##KA, ARB_SHAPE_##KB): \
    return arb__collide_##name(&a->def.ka, xa, &b->def.kb, xb, margin);
  switch (PAIR(a->def.type, b->def.type)) {
    ARB_COLLIDE_PAIRS(CASE)
    default:  // segment-segment has no collide function (two static shapes)
      return arb__empty_manifold();
  }
#undef CASE
#undef PAIR
}

// Margins from the fixed speculative distance to what a body at 120 m/s adds in a step.
static float random_margin(void) {
  return rnd(0.0f, 1.0f) < 0.3f ? ARB_SPECULATIVE_DISTANCE : rnd(0.02f, 2.0f);
}

// A somewhere far from the origin, B at a random direction and distance up to `reach`
// (the sum of the extents and the margin) and half a metre beyond, both turned at random.
static void random_poses(float reach, arb_transform* xa, arb_transform* xb) {
  float bx = rnd(-1000.0f, 1000.0f), by = rnd(-1000.0f, 1000.0f);
  *xa = (arb_transform){{bx, by}, arb_rot_from_angle(rnd(-4.0f, 4.0f))};
  float dir = rnd(-4.0f, 4.0f), len = rnd(0.0f, reach + 0.5f);
  *xb = (arb_transform){{bx + len * arb_cos(dir), by + len * arb_sin(dir)},
                        arb_rot_from_angle(rnd(-4.0f, 4.0f))};
}

// Two random shapes of random kinds (false for two segments, which never collide), a
// margin, and poses near the reach of their bounding circles.
static bool random_pair(shape* a, arb_transform* xa, shape* b, arb_transform* xb, float* margin) {
  int ka = (int)rnd(0.0f, (float)KINDS), kb = (int)rnd(0.0f, (float)KINDS);
  if (ka >= KINDS) ka = KINDS - 1;
  if (kb >= KINDS) kb = KINDS - 1;
  if (ka == SEGMENT && kb == SEGMENT) return false;
  *a = random_shape(ka);
  *b = random_shape(kb);
  *margin = random_margin();
  random_poses(a->extent + b->extent + *margin, xa, xb);
  return true;
}

typedef struct tally {
  int with_points;  // pairs the collide function gave a point
  int near_reach;   // pairs within 5 cm beyond the reach, where a point could hide
} tally;

// Counts a pair at GJK distance d; true when m has a point although d is beyond the reach.
static bool point_beyond_reach(tally* t, const arb_manifold* m, float d, float margin) {
  t->with_points += m->point_count > 0;
  if (d <= margin + ARB_LINEAR_SLOP) return false;
  t->near_reach += d <= margin + ARB_LINEAR_SLOP + 0.05f;
  return m->point_count != 0;
}

static void test_no_points_beyond_reach(void** state) {
  (void)state;
  tally t = {0, 0};
  for (int iter = 0; iter < 200000; ++iter) {
    shape a, b;
    float margin;
    arb_transform xa, xb;
    if (!random_pair(&a, &xa, &b, &xb, &margin)) continue;
    arb_manifold m = collide(&a, xa, &b, xb, margin);
    float d = arb_shape_distance(&a.proxy, xa, &b.proxy, xb).distance;
    if (point_beyond_reach(&t, &m, d, margin))
      fail_msg("kinds %d, %d, margin %.9g: %d points at distance %.9g (separation %.9g)", a.kind,
               b.kind, (double)margin, m.point_count, (double)d, (double)m.points[0].separation);
  }
  print_message("pairs with points %d, pairs just beyond reach %d\n", t.with_points, t.near_reach);
  assert_true(t.with_points > 20000);  // the sampling reaches the collide functions' points
  assert_true(t.near_reach > 1000);    // and the edge of the reach, where a point could hide
}

// The world's second out-of-reach test (contact.c): a shape against the other body's
// bounding circle (here B's local origin and extent). Whenever it answers "beyond", the
// shapes must be farther apart than the margin and the slop (GJK), and the collide function
// must give no point; the sampling must reach pairs it rules out while the bounding circles
// still meet (what it is for), and pairs just past its reach.
static bool shape_beyond(const shape* a, arb_transform xa, arb_vec2 p, float reach) {
  return arb__shape_beyond(&a->def, xa, p, reach);
}

static void test_no_points_beyond_shape_reach(void** state) {
  (void)state;
  int beyond = 0, circles_meet = 0, near_edge = 0;
  for (int iter = 0; iter < 200000; ++iter) {
    shape a, b;
    float margin;
    arb_transform xa, xb;
    if (!random_pair(&a, &xa, &b, &xb, &margin)) continue;
    float slack = margin + ARB_LINEAR_SLOP;
    float d = arb_shape_distance(&a.proxy, xa, &b.proxy, xb).distance;
    near_edge += d > slack && d <= slack + 0.05f && !shape_beyond(&a, xa, xb.p, b.extent + slack);
    if (!shape_beyond(&a, xa, xb.p, b.extent + slack)) continue;
    beyond += 1;
    circles_meet += arb_distance(xa.p, xb.p) <= a.extent + b.extent + slack;
    arb_manifold m = collide(&a, xa, &b, xb, margin);
    if (d <= slack || m.point_count != 0)
      fail_msg("kinds %d, %d, margin %.9g: ruled out at distance %.9g with %d points", a.kind,
               b.kind, (double)margin, (double)d, m.point_count);
  }
  print_message("ruled out %d, of which the bounding circles meet %d; near the edge, kept %d\n",
                beyond, circles_meet, near_edge);
  assert_true(beyond > 20000);
  assert_true(circles_meet > 10000);
  assert_true(near_edge > 1000);
}

// The same for chains (a world's chain collides link by link; NULL: no link tree, every
// link's box is tested) against the three kinds a chain collides with. The distance is the
// nearest link's.
static void test_no_chain_points_beyond_reach(void** state) {
  (void)state;
  tally t = {0, 0};
  for (int iter = 0; iter < 100000; ++iter) {
    arb_vec2 pts[6];
    int n = 2 + (int)rnd(0.0f, 5.0f);
    if (n > 6) n = 6;
    pts[0] = arb_v2(rnd(-3.0f, 3.0f), rnd(-3.0f, 3.0f));
    for (int i = 1; i < n; ++i)
      pts[i] = arb_add(pts[i - 1], arb_v2(rnd(0.3f, 2.0f), rnd(-1.5f, 1.5f)));
    arb_chain chain = {pts, n, n >= 3 && rnd(0.0f, 1.0f) < 0.3f};
    int kb = (int)rnd(0.0f, 3.0f);
    shape b = random_shape(kb == 0 ? CIRCLE : kb == 1 ? POLYGON : CAPSULE);
    float margin = random_margin();
    float extent = 0.0f;
    for (int i = 0; i < n; ++i) extent = fmaxf(extent, arb_length(pts[i]));
    arb_transform xa, xb;
    random_poses(extent + b.extent + margin, &xa, &xb);
    arb_manifold m;
    if (b.kind == CIRCLE)
      m = arb__collide_chain_and_circle(&chain, NULL, xa, &b.def.circle, xb, margin);
    else if (b.kind == POLYGON)
      m = arb__collide_chain_and_polygon(&chain, NULL, xa, &b.def.polygon, xb, margin);
    else
      m = arb__collide_chain_and_capsule(&chain, NULL, xa, &b.def.capsule, xb, margin);
    float d = 1.0e30f;
    int links = chain.loop ? n : n - 1;
    for (int i = 0; i < links; ++i) {
      arb_segment link = {pts[i], pts[(i + 1) % n]};
      arb_shape_proxy lp = arb_make_segment_proxy(&link);
      d = fminf(d, arb_shape_distance(&lp, xa, &b.proxy, xb).distance);
    }
    if (point_beyond_reach(&t, &m, d, margin))
      fail_msg("chain and kind %d, margin %.9g: %d points at distance %.9g", b.kind, (double)margin,
               m.point_count, (double)d);
  }
  print_message("chain pairs with points %d, just beyond reach %d\n", t.with_points, t.near_reach);
  assert_true(t.with_points > 10000);
  assert_true(t.near_reach > 500);
}

ARB_TEST_MAIN(cmocka_unit_test(test_no_points_beyond_reach),
              cmocka_unit_test(test_no_points_beyond_shape_reach),
              cmocka_unit_test(test_no_chain_points_beyond_reach))
