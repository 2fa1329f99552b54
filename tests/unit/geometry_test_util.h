// Helpers of the math and collision tests: a float comparison that names both values, and
// a transform from a position and an angle, a manifold's count and normal. Include after
// cmocka.
#pragma once

#include <arbiter/collision.h>
#include <arbiter/math.h>
#include <math.h>

static inline void near(float a, float b, float tol) {
  if (!(fabsf(a - b) <= tol))
    fail_msg("%.9g != %.9g (tol %.3g)", (double)a, (double)b, (double)tol);
}

static inline arb_transform xf_at(float x, float y, float angle) {
  arb_transform t = {arb_v2(x, y), arb_rot_from_angle(angle)};
  return t;
}

/// The manifold has `count` points and the normal (x, y), each component within tol.
static inline void expect_normal(const arb_manifold* m, int count, float x, float y, float tol) {
  assert_int_equal(m->point_count, count);
  near(m->normal.x, x, tol);
  near(m->normal.y, y, tol);
}
