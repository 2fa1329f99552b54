// bench/physics — the capacity benchmark's world as a physics scene (scenes_shared.h,
// "arena"), built with arbiter's API: the step of a 10 000-body world in which about 2 000
// bodies move (mixers, walkers and what they push) and the rest sleep. The walkers get the
// top-down force controller's force before every step, as the game gives its avatars.
#include <stdlib.h>

#include "../../tests/common/body_defs.h"
#include "scenes_arbiter.h"
#include "scenes_shared.h"

typedef struct arena {
  arb_body_id walkers[BENCH_ARENA_WALKERS];
} arena;

static arb_body_id add(arb_world* w, const arb_body_def* bd) {
  arb_body_id id = arb_body_create(w, bd);
  if (arb_body_id_is_null(id)) abort();
  return id;
}

// A dynamic circle body at (x, y) with the given linear damping.
static arb_body_def circle_def(float x, float y, float radius, float linear_damping) {
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_DYNAMIC;
  bd.position = arb_v2(x, y);
  bd.linear_damping = linear_damping;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = radius;
  return bd;
}

static void add_walls(arb_world* w) {
  const float h = BENCH_ARENA_HALF, t = BENCH_ARENA_WALL;
  const float place[4][4] = {{0.0f, h + t, h + t, t},
                             {0.0f, -h - t, h + t, t},
                             {h + t, 0.0f, t, h + t},
                             {-h - t, 0.0f, t, h + t}};
  for (int k = 0; k < 4; ++k) {
    arb_body_def bd =
        box_body_def(ARB_BODY_STATIC, place[k][0], place[k][1], place[k][2], place[k][3]);
    add(w, &bd);
  }
}

static void add_mixer(arb_world* w, float cx, float cy) {
  for (int k = 0; k < BENCH_ARENA_RING_SEGMENTS; ++k) {
    arb_body_def bd = arb_default_body_def();
    bd.type = ARB_BODY_STATIC;
    bd.position = arb_v2(cx, cy);
    bd.shape.type = ARB_SHAPE_SEGMENT;
    bench_arena_ring_segment(k, &bd.shape.segment.a.x, &bd.shape.segment.a.y, &bd.shape.segment.b.x,
                             &bd.shape.segment.b.y);
    add(w, &bd);
  }
  arb_body_def rotor =
      box_body_def(ARB_BODY_KINEMATIC, cx, cy, BENCH_ARENA_ROTOR_HW, BENCH_ARENA_ROTOR_HH);
  rotor.angular_velocity = BENCH_ARENA_ROTOR_SPEED;
  add(w, &rotor);
  for (int k = 0; k < BENCH_ARENA_MIXER_BALLS; ++k) {
    float x, y;
    bench_arena_mixer_ball(k, &x, &y);
    arb_body_def bd = circle_def(cx + x, cy + y, BENCH_ARENA_BALL_RADIUS, 0.5f);
    bd.shape.restitution = 0.3f;
    add(w, &bd);
  }
}

static void* arena_create(arb_world* w) {
  arena* a = calloc(1, sizeof *a);
  if (!a) abort();
  arb_world_set_gravity(w, arb_v2(0.0f, 0.0f));
  add_walls(w);
  for (int m = 0; m < BENCH_ARENA_MIXERS; ++m) {
    float cx, cy;
    bench_arena_mixer_centre(m, &cx, &cy);
    add_mixer(w, cx, cy);
  }
  for (int i = 0; i < BENCH_ARENA_LOOSE; ++i) {
    arb_body_def bd = arb_default_body_def();
    bd.type = ARB_BODY_DYNAMIC;
    int ball;
    bench_arena_loose(i, &bd.position.x, &bd.position.y, &bd.angle, &ball);
    bd.linear_damping = 2.0f;
    bd.angular_damping = 2.0f;
    bd.is_awake = false;
    if (ball) {
      bd.shape.type = ARB_SHAPE_CIRCLE;
      bd.shape.circle.radius = BENCH_ARENA_BALL_RADIUS;
    } else {
      bd.shape.type = ARB_SHAPE_POLYGON;
      bd.shape.polygon = arb_make_box(BENCH_ARENA_CRATE_HALF, BENCH_ARENA_CRATE_HALF);
    }
    add(w, &bd);
  }
  for (int i = 0; i < BENCH_ARENA_WALKERS; ++i) {
    float x, y;
    bench_arena_walker_start(i, &x, &y);
    arb_body_def bd = circle_def(x, y, BENCH_ARENA_WALKER_RADIUS, 1.0f);
    bd.shape.density = BENCH_ARENA_WALKER_DENSITY;
    a->walkers[i] = add(w, &bd);
  }
  return a;
}

static void arena_before_step(void* state, arb_world* w, int step_index) {
  arena* a = state;
  const float dt = 1.0f / 60.0f;
  for (int i = 0; i < BENCH_ARENA_WALKERS; ++i) {
    arb_vec2 v = arb_body_get_linear_velocity(w, a->walkers[i]);
    arb_vec2 f;
    bench_arena_walker_force(i, step_index, dt, arb_body_get_mass(w, a->walkers[i]), v.x, v.y, &f.x,
                             &f.y);
    arb_body_apply_force_to_center(w, a->walkers[i], f);
  }
}

const bench_arbiter_scene bench_arbiter_arena = {
    "arena", BENCH_ARENA_BODIES, arena_create, arena_before_step, free,
};
