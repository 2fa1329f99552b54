// bench/physics — the bouncy crowds (scenes_shared.h, "bouncy_*") built with arbiter's API,
// body for body as scene_bouncy_box2d_v3.c builds them with Box2D v3's: a closed box of
// restitution 1 and friction 0 holding 400 bodies of restitution 1 (or 0.95) and friction
// 0. The world is otherwise the bench's (bench_physics.c: 4 substeps, sleeping off, the
// compared rows' continuous policy).
#include <stdlib.h>

#include "scenes_arbiter.h"
#include "scenes_shared.h"

static void add(arb_world* w, const arb_body_def* bd) {
  if (arb_body_id_is_null(arb_body_create(w, bd))) abort();
}

static void* bouncy_create(arb_world* w, const char* name) {
  const bench_bouncy_scene* s = bench_bouncy_find(name);
  if (!s) abort();
  arb_world_set_gravity(w, arb_v2(0.0f, s->gravity));
  for (int k = 0; k < 4; ++k) {
    arb_body_def bd = arb_default_body_def();
    bd.type = ARB_BODY_STATIC;
    float hw, hh;
    bench_bouncy_wall(k, &bd.position.x, &bd.position.y, &hw, &hh);
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(hw, hh);
    bd.shape.restitution = 1.0f;
    bd.shape.friction = 0.0f;
    add(w, &bd);
  }
  for (int i = 0; i < BENCH_BOUNCY_BODIES; ++i) {
    bench_bouncy_body b = bench_bouncy_body_at(s, i);
    arb_body_def bd = arb_default_body_def();
    bd.type = ARB_BODY_DYNAMIC;
    bd.position = arb_v2(b.x, b.y);
    bd.linear_velocity = arb_v2(b.vx, b.vy);
    if (b.box) {
      bd.shape.type = ARB_SHAPE_POLYGON;
      bd.shape.polygon = arb_make_box(b.hw, b.hh);
    } else {
      bd.shape.type = ARB_SHAPE_CIRCLE;
      bd.shape.circle.radius = b.radius;
    }
    bd.shape.density = 1.0f;
    bd.shape.restitution = s->restitution;
    bd.shape.friction = 0.0f;
    add(w, &bd);
  }
  return NULL;
}

static void* create_circles(arb_world* w) {
  return bouncy_create(w, "bouncy_circles");
}
static void* create_circles_095(arb_world* w) {
  return bouncy_create(w, "bouncy_circles_095");
}
static void* create_topdown(arb_world* w) {
  return bouncy_create(w, "bouncy_topdown");
}
static void* create_boxes(arb_world* w) {
  return bouncy_create(w, "bouncy_boxes");
}
static void* create_mixed(arb_world* w) {
  return bouncy_create(w, "bouncy_mixed");
}

enum { BODIES = 4 + BENCH_BOUNCY_BODIES };
const bench_arbiter_scene bench_arbiter_bouncy[BENCH_BOUNCY_SCENES] = {
    {"bouncy_circles", BODIES, create_circles, NULL, NULL},
    {"bouncy_circles_095", BODIES, create_circles_095, NULL, NULL},
    {"bouncy_topdown", BODIES, create_topdown, NULL, NULL},
    {"bouncy_boxes", BODIES, create_boxes, NULL, NULL},
    {"bouncy_mixed", BODIES, create_mixed, NULL, NULL},
};
