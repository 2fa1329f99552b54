// Helpers shared by the physics-extras tests (test_extras_*.c).
#pragma once

#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/query.h>
#include <arbiter/time_scale.h>
#include <arbiter/vehicle.h>

#include "world_test_util.h"

#define XT_DT (1.0f / 60.0f)

static inline arb_world* xt_world(arb_vec2 gravity, float max_speed) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = gravity;
  if (max_speed > 0.0f) wd.max_linear_speed = max_speed;
  return arb_world_create(&wd);
}

// Fixtures (see wt_world_teardown): a world without gravity, or under (0, -9.81), in *state.
static inline int xt_zero_g_setup(void** state) {
  return wt_fixture_world(state, xt_world(arb_v2(0.0f, 0.0f), 0.0f));
}
static inline int xt_earth_setup(void** state) {
  return wt_fixture_world(state, xt_world(arb_v2(0.0f, -9.81f), 0.0f));
}
#define XT_ZERO_G_TEST(test) \
  cmocka_unit_test_setup_teardown(test, xt_zero_g_setup, wt_world_teardown)
#define XT_EARTH_TEST(test) cmocka_unit_test_setup_teardown(test, xt_earth_setup, wt_world_teardown)

static inline void xt_steps(arb_world* w, int n) {
  for (int i = 0; i < n; ++i) arb_world_step(w, XT_DT);
}

/// A top-down car: 4 m x 2 m box chassis of 1000 kg at (x, y) heading `angle`.
static inline arb_extra_id xt_car(arb_world* w, float x, float y, float angle,
                                  arb_body_id* chassis) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.angle = angle;
  bd.mass = 1000.0f;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(2.0f, 1.0f);
  arb_body_id c = arb_body_create(w, &bd);
  if (chassis) *chassis = c;
  arb_vehicle_def vd = arb_default_vehicle_def();
  vd.chassis = c;
  return arb_vehicle_create(w, &vd);
}

/// Rope of n particles from (x, y) to the right, spacing d, first pinned.
static inline int xt_rope(arb_world* w, float x, float y, int n, float d, float radius) {
  int first = -1;
  for (int i = 0; i < n; ++i) {
    arb_particle_def pd = arb_default_particle_def();
    pd.position = arb_v2(x + d * (float)i, y);
    pd.pinned = i == 0;
    pd.radius = radius;
    pd.damping = 1.0f;
    int id = arb_particle_create(w, &pd);
    if (i == 0) first = id;
    if (i > 0) {
      arb_constraint_def cd = {id - 1, id, -1.0f, 1.0f};
      arb_constraint_create(w, &cd);
    }
  }
  return first;
}
