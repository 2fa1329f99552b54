// bench/physics — Box2D v3's benchmark "washer" built with arbiter, with the geometry and
// motion of its benchmark code (CreateWasher, release sizes, its kinematic drum):
//   - the drum: kinematic, at (0, 10), turning at 25 degrees per second counter-clockwise
//     and drifting at (0.001, -0.002) m/s; 36 ring pieces between radii 16 and 18 m (each
//     spans 10 degrees less a 1 % gap at either end) and 4 paddles between 14 and 16 m
//     (at the ring pieces 0, 9, 18 and 27), 40 quads in all;
//   - inside: a 90 x 90 grid of 0.2 m boxes (density 1, friction 0.6), 0.21 m apart, from
//     (-9.9, -9.9 + 10);
//   - sleeping on (Box2D v3's world default), 4 substeps, 500 steps.
// One difference: an arbiter body carries at most ARB_MAX_BODY_SHAPES (8) shapes, so the
// drum is five kinematic bodies of 8 quads each, created at the same pose with the same
// velocities. A kinematic arbiter body turns about its centre of mass (Box2D v3's about its
// origin), so each body holds quads in opposite pairs (four neighbours and the four across
// the drum): its centre of mass is the drum's centre to within 1.3e-5 m, and the five move
// as one to within 5e-5 m over its 500 steps (a hundredth of ARB_LINEAR_SLOP). The broad phase sees
// five proxies, each the box of two opposite arcs across the whole drum, where Box2D v3 sees
// one per quad: a box pairs with every quad of each body whose box holds it, most of them far
// away (the narrow phase rules those out without a collide call, but they are contacts).
#include <stdlib.h>

#include "scenes_arbiter.h"

enum { WASHER_GRID = 90, WASHER_SHAPES = 40, WASHER_BODIES = WASHER_SHAPES / ARB_MAX_BODY_SHAPES };

#define WASHER_PI 3.14159265359f

// The quad of points p1 (inner radius, first angle), p2 (outer, first), p3 (inner,
// second) and p4 (outer, second), listed as Box2D v3 lists them to its hull function;
// arb_make_polygon takes them in order around the quad.
static arb_shape_def quad(arb_vec2 p1, arb_vec2 p2, arb_vec2 p3, arb_vec2 p4) {
  const arb_vec2 points[4] = {p1, p2, p4, p3};
  arb_shape_def s = arb_default_shape_def();
  s.type = ARB_SHAPE_POLYGON;
  if (arb_make_polygon(points, 4, &s.polygon, NULL) != 0) abort();
  return s;
}

static void* washer_create(arb_world* w) {
  const float r0 = 14.0f, r1 = 16.0f, r2 = 18.0f;
  const float angle = WASHER_PI / 18.0f;
  const arb_rot q = {arb_cos(angle), arb_sin(angle)};
  const arb_rot qo = {arb_cos(0.1f * angle), arb_sin(0.1f * angle)};
  arb_shape_def ring[36], paddle[36];
  arb_vec2 u1 = arb_v2(1.0f, 0.0f);
  for (int i = 0; i < 36; ++i) {
    arb_vec2 u2 = i == 35 ? arb_v2(1.0f, 0.0f) : arb_rotate(q, u1);
    arb_vec2 a1 = arb_inv_rotate(qo, u1), a2 = arb_rotate(qo, u2);
    ring[i] = quad(arb_scale(r1, a1), arb_scale(r2, a1), arb_scale(r1, a2), arb_scale(r2, a2));
    if (i % 9 == 0) {  // a paddle
      paddle[i] = quad(arb_scale(r0, u1), arb_scale(r1, u1), arb_scale(r0, u2), arb_scale(r1, u2));
    }
    u1 = u2;
  }
  // Each body: four ring pieces or paddles next to each other and the four opposite them,
  // so its centre of mass is the drum's centre (to rounding): a kinematic body turns about
  // its centre of mass. Entries: a ring piece i (0..17) with i + 18, or a paddle (-1: the
  // paddles at 0 and 180 degrees, -2: at 90 and 270).
  static const int layout[WASHER_BODIES][4] = {
      {0, 1, 2, -1}, {3, 4, 5, 6}, {7, 8, 9, -2}, {10, 11, 12, 13}, {14, 15, 16, 17}};
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_KINEMATIC;
  bd.position = arb_v2(0.0f, 10.0f);
  bd.angular_velocity = (WASHER_PI / 180.0f) * 25.0f;
  bd.linear_velocity = arb_v2(0.001f, -0.002f);
  for (int k = 0; k < WASHER_BODIES; ++k) {
    arb_shape_def shapes[ARB_MAX_BODY_SHAPES];
    int n = 0;
    for (int e = 0; e < 4; ++e) {
      int i = layout[k][e];
      const arb_shape_def* from = i >= 0 ? ring : paddle;
      int first = i >= 0 ? i : (i == -1 ? 0 : 9);
      shapes[n++] = from[first];
      shapes[n++] = from[first + 18];
    }
    bd.shapes = shapes;
    bd.shape_count = n;
    if (arb_body_id_is_null(arb_body_create(w, &bd))) abort();
  }

  bd = arb_default_body_def();
  bd.type = ARB_BODY_DYNAMIC;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.1f, 0.1f);
  const float a = 0.1f;
  float y = -1.1f * a * WASHER_GRID + 10.0f;
  for (int i = 0; i < WASHER_GRID; ++i) {
    float x = -1.1f * a * WASHER_GRID;
    for (int j = 0; j < WASHER_GRID; ++j) {
      bd.position = arb_v2(x, y);
      if (arb_body_id_is_null(arb_body_create(w, &bd))) abort();
      x += 2.1f * a;
    }
    y += 2.1f * a;
  }
  return NULL;
}

const bench_arbiter_scene bench_arbiter_washer = {
    "washer", WASHER_BODIES + WASHER_GRID* WASHER_GRID, washer_create, NULL, NULL,
};
