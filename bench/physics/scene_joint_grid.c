// bench/physics — Box2D v3's benchmark "joint_grid" built with arbiter, as its benchmark code
// builds it (CreateJointGrid, release sizes): 100 x 100 circles of radius 0.4 m (density 1)
// 1 m apart, each joined to its upper and left neighbours by revolute joints at the
// midpoints (no limits, motors or springs), the 7 middle bodies of the top row static; no
// shape collides (category 2, mask ~2); sleeping off (CreateJointGrid turns it off), 4
// substeps, 500 steps. Box2D v3 also creates the 6 joints between two of the static bodies,
// which it never solves; arbiter refuses a joint with nothing to move: 19 794 joints. It sags
// and swings under gravity: a joint solver benchmark without contacts. The main table runs it
// (bench_physics.c); the largest joint gap after the run is in arbiter's report line.
#include <arbiter/joint.h>
#include <stdbool.h>
#include <stdlib.h>

#include "scenes_arbiter.h"

enum { JOINT_GRID_N = 100 };

static void* joint_grid_create(arb_world* w) {
  const int n = JOINT_GRID_N;
  arb_body_id* ids = malloc((size_t)(n * n) * sizeof *ids);
  if (!ids) abort();
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_REVOLUTE;
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) {
      bool fixed = k >= n / 2 - 3 && k <= n / 2 + 3 && i == 0;
      arb_body_def bd = arb_default_body_def();
      bd.type = fixed ? ARB_BODY_STATIC : ARB_BODY_DYNAMIC;
      bd.position = arb_v2((float)k, -(float)i);
      bd.shape.type = ARB_SHAPE_CIRCLE;
      bd.shape.circle.radius = 0.4f;
      bd.shape.category_bits = 2;
      bd.shape.mask_bits = ~2u;
      arb_body_id b = arb_body_create(w, &bd);
      if (arb_body_id_is_null(b)) abort();
      int index = k * n + i;
      if (i > 0) {
        jd.body_a = ids[index - 1];
        jd.body_b = b;
        jd.local_anchor_a = arb_v2(0.0f, -0.5f);
        jd.local_anchor_b = arb_v2(0.0f, 0.5f);
        if (arb_extra_id_is_null(arb_joint_create(w, &jd))) abort();
      }
      if (k > 0 && !(fixed && k - 1 >= n / 2 - 3)) {  // not between two static bodies
        jd.body_a = ids[index - n];
        jd.body_b = b;
        jd.local_anchor_a = arb_v2(0.5f, 0.0f);
        jd.local_anchor_b = arb_v2(-0.5f, 0.0f);
        if (arb_extra_id_is_null(arb_joint_create(w, &jd))) abort();
      }
      ids[index] = b;
    }
  }
  free(ids);
  return NULL;
}

const bench_arbiter_scene bench_arbiter_joint_grid = {
    "joint_grid", JOINT_GRID_N* JOINT_GRID_N, joint_grid_create, NULL, NULL,
};
