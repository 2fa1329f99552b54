// bench/physics — the arena (scenes_shared.h) built with Box2D v3's API, body for body as
// scene_arena.c builds it with arbiter's: Box2D v3's benchmark has no such scene. Its
// defaults otherwise (friction 0.6, restitution mixed by maximum, sleeping on).
#include "scene_arena_box2d_v3.h"

#include <box2d/box2d.h>
#include <stdlib.h>

#include "scenes_shared.h"

// One world at a time (bench-physics runs the engines one after another).
static b2BodyId walkers[BENCH_ARENA_WALKERS];

static b2BodyId add_body(b2WorldId world, b2BodyType type, float x, float y, float angle) {
  b2BodyDef bd = b2DefaultBodyDef();
  bd.type = type;
  bd.position = (b2Pos){x, y};
  bd.rotation = b2MakeRot(angle);
  return b2CreateBody(world, &bd);
}

static void add_box(b2BodyId body, float hw, float hh, float density) {
  b2ShapeDef sd = b2DefaultShapeDef();
  sd.density = density;
  b2Polygon box = b2MakeBox(hw, hh);
  b2CreatePolygonShape(body, &sd, &box);
}

static void add_circle(b2BodyId body, float radius, float density, float restitution) {
  b2ShapeDef sd = b2DefaultShapeDef();
  sd.density = density;
  sd.material.restitution = restitution;
  b2Circle c = {{0.0f, 0.0f}, radius};
  b2CreateCircleShape(body, &sd, &c);
}

static void add_mixer(b2WorldId world, float cx, float cy) {
  for (int k = 0; k < BENCH_ARENA_RING_SEGMENTS; ++k) {
    b2BodyId ring = add_body(world, b2_staticBody, cx, cy, 0.0f);
    b2Segment seg;
    bench_arena_ring_segment(k, &seg.point1.x, &seg.point1.y, &seg.point2.x, &seg.point2.y);
    b2ShapeDef sd = b2DefaultShapeDef();
    b2CreateSegmentShape(ring, &sd, &seg);
  }
  b2BodyDef rotor = b2DefaultBodyDef();
  rotor.type = b2_kinematicBody;
  rotor.position = (b2Pos){cx, cy};
  rotor.angularVelocity = BENCH_ARENA_ROTOR_SPEED;
  add_box(b2CreateBody(world, &rotor), BENCH_ARENA_ROTOR_HW, BENCH_ARENA_ROTOR_HH, 1.0f);
  for (int k = 0; k < BENCH_ARENA_MIXER_BALLS; ++k) {
    float x, y;
    bench_arena_mixer_ball(k, &x, &y);
    b2BodyDef bd = b2DefaultBodyDef();
    bd.type = b2_dynamicBody;
    bd.position = (b2Pos){cx + x, cy + y};
    bd.linearDamping = 0.5f;
    add_circle(b2CreateBody(world, &bd), BENCH_ARENA_BALL_RADIUS, 1.0f, 0.3f);
  }
}

void bench_b3_create_arena(b2WorldId world) {
  b2World_SetGravity(world, (b2Vec2){0.0f, 0.0f});
  const float h = BENCH_ARENA_HALF, t = BENCH_ARENA_WALL;
  const float walls[4][4] = {{0.0f, h + t, h + t, t},
                             {0.0f, -h - t, h + t, t},
                             {h + t, 0.0f, t, h + t},
                             {-h - t, 0.0f, t, h + t}};
  for (int k = 0; k < 4; ++k)
    add_box(add_body(world, b2_staticBody, walls[k][0], walls[k][1], 0.0f), walls[k][2],
            walls[k][3], 1.0f);
  for (int m = 0; m < BENCH_ARENA_MIXERS; ++m) {
    float cx, cy;
    bench_arena_mixer_centre(m, &cx, &cy);
    add_mixer(world, cx, cy);
  }
  for (int i = 0; i < BENCH_ARENA_LOOSE; ++i) {
    float x, y, angle;
    int ball;
    bench_arena_loose(i, &x, &y, &angle, &ball);
    b2BodyDef bd = b2DefaultBodyDef();
    bd.type = b2_dynamicBody;
    bd.position = (b2Pos){x, y};
    bd.rotation = b2MakeRot(angle);
    bd.linearDamping = 2.0f;
    bd.angularDamping = 2.0f;
    bd.isAwake = false;
    b2BodyId id = b2CreateBody(world, &bd);
    if (ball)
      add_circle(id, BENCH_ARENA_BALL_RADIUS, 1.0f, 0.0f);
    else
      add_box(id, BENCH_ARENA_CRATE_HALF, BENCH_ARENA_CRATE_HALF, 1.0f);
  }
  for (int i = 0; i < BENCH_ARENA_WALKERS; ++i) {
    float x, y;
    bench_arena_walker_start(i, &x, &y);
    b2BodyDef bd = b2DefaultBodyDef();
    bd.type = b2_dynamicBody;
    bd.position = (b2Pos){x, y};
    bd.linearDamping = 1.0f;
    walkers[i] = b2CreateBody(world, &bd);
    add_circle(walkers[i], BENCH_ARENA_WALKER_RADIUS, BENCH_ARENA_WALKER_DENSITY, 0.0f);
  }
}

float bench_b3_step_arena(b2WorldId world, int step_index) {
  (void)world;
  const float dt = 1.0f / 60.0f;
  for (int i = 0; i < BENCH_ARENA_WALKERS; ++i) {
    b2Vec2 v = b2Body_GetLinearVelocity(walkers[i]), f;
    bench_arena_walker_force(i, step_index, dt, b2Body_GetMass(walkers[i]), v.x, v.y, &f.x, &f.y);
    b2Body_ApplyForceToCenter(walkers[i], f, true);
  }
  return 0.0f;
}
