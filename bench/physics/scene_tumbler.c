// bench/physics — Box2D v3's benchmark "tumbler" built with arbiter, with the geometry,
// densities and motor of its benchmark code (CreateTumbler, release sizes):
//   - the drum: one dynamic body at (0, 10) with four 1 x 20 m walls of density 50 (boxes
//     of half extents 0.5 x 10 at (±10, 0) and 10 x 0.5 at (0, ±10) in its frame), pinned
//     to the world at its origin by a revolute joint whose motor turns it at 25 degrees
//     per second counter-clockwise with at most 1e8 N*m;
//   - inside: a 45 x 45 grid of 0.25 m boxes (density 1, friction 0.6), 0.4 m apart,
//     from (-9, -8) to (8.6, 9.6);
//   - sleeping on (Box2D v3's world default), 4 substeps, 750 steps.
// One difference in how it is said, not in what it does: Box2D v3 pins the drum (B) to a
// static ground body (A) with a motor speed of +25 deg/s (B relative to A); arbiter's joint
// takes the world as body B, so the drum is A and the same turn is -25 deg/s (the world
// relative to the drum).
#include <arbiter/joint.h>
#include <stdlib.h>

#include "scenes_arbiter.h"

enum { TUMBLER_GRID = 45 };

#define TUMBLER_PI 3.14159265359f

static void* tumbler_create(arb_world* w) {
  arb_shape_def walls[4];
  const arb_polygon wall[4] = {
      arb_make_offset_box(0.5f, 10.0f, arb_v2(10.0f, 0.0f), arb_rot_identity),
      arb_make_offset_box(0.5f, 10.0f, arb_v2(-10.0f, 0.0f), arb_rot_identity),
      arb_make_offset_box(10.0f, 0.5f, arb_v2(0.0f, 10.0f), arb_rot_identity),
      arb_make_offset_box(10.0f, 0.5f, arb_v2(0.0f, -10.0f), arb_rot_identity),
  };
  for (int i = 0; i < 4; ++i) {
    walls[i] = arb_default_shape_def();
    walls[i].type = ARB_SHAPE_POLYGON;
    walls[i].polygon = wall[i];
    walls[i].density = 50.0f;
  }
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_DYNAMIC;
  bd.position = arb_v2(0.0f, 10.0f);
  bd.shapes = walls;
  bd.shape_count = 4;
  arb_body_id drum = arb_body_create(w, &bd);
  if (arb_body_id_is_null(drum)) abort();

  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_REVOLUTE;
  jd.body_a = drum;
  jd.local_anchor_a = arb_v2(0.0f, 0.0f);
  jd.local_anchor_b = arb_v2(0.0f, 10.0f);  // body_b null: a world point
  jd.enable_motor = true;
  jd.motor_speed = -(TUMBLER_PI / 180.0f) * 25.0f;
  jd.max_motor_torque = 1e8f;
  if (arb_extra_id_is_null(arb_joint_create(w, &jd))) abort();

  bd = arb_default_body_def();
  bd.type = ARB_BODY_DYNAMIC;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.125f, 0.125f);
  float y = -0.2f * TUMBLER_GRID + 10.0f;
  for (int i = 0; i < TUMBLER_GRID; ++i) {
    float x = -0.2f * TUMBLER_GRID;
    for (int j = 0; j < TUMBLER_GRID; ++j) {
      bd.position = arb_v2(x, y);
      if (arb_body_id_is_null(arb_body_create(w, &bd))) abort();
      x += 0.4f;
    }
    y += 0.4f;
  }
  return NULL;
}

const bench_arbiter_scene bench_arbiter_tumbler = {
    "tumbler", 1 + TUMBLER_GRID* TUMBLER_GRID, tumbler_create, NULL, NULL,
};
