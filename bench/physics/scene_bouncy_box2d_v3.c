// bench/physics — the bouncy crowds (scenes_shared.h, "bouncy_*") built with Box2D v3's API,
// body for body as scene_bouncy.c builds them with arbiter's: its benchmark has no such
// scenes. Restitution and friction on each shape's material; its defaults otherwise
// (restitution mixed by maximum, threshold 1 m/s, continuous on); sleeping off
// (engine_box2d_v3.c creates the world with enableSleep false for a scene without sleeping).
#include "scene_bouncy_box2d_v3.h"

#include <box2d/box2d.h>
#include <stdlib.h>

#include "scenes_shared.h"

static void create(b2WorldId world, const char* name) {
  const bench_bouncy_scene* s = bench_bouncy_find(name);
  if (!s) abort();
  b2World_SetGravity(world, (b2Vec2){0.0f, s->gravity});
  for (int k = 0; k < 4; ++k) {
    b2BodyDef bd = b2DefaultBodyDef();
    bd.type = b2_staticBody;
    float x, y, hw, hh;
    bench_bouncy_wall(k, &x, &y, &hw, &hh);
    bd.position = (b2Pos){x, y};
    b2ShapeDef sd = b2DefaultShapeDef();
    sd.material.restitution = 1.0f;
    sd.material.friction = 0.0f;
    b2Polygon box = b2MakeBox(hw, hh);
    b2CreatePolygonShape(b2CreateBody(world, &bd), &sd, &box);
  }
  for (int i = 0; i < BENCH_BOUNCY_BODIES; ++i) {
    bench_bouncy_body b = bench_bouncy_body_at(s, i);
    b2BodyDef bd = b2DefaultBodyDef();
    bd.type = b2_dynamicBody;
    bd.position = (b2Pos){b.x, b.y};
    bd.linearVelocity = (b2Vec2){b.vx, b.vy};
    b2BodyId id = b2CreateBody(world, &bd);
    b2ShapeDef sd = b2DefaultShapeDef();
    sd.density = 1.0f;
    sd.material.restitution = s->restitution;
    sd.material.friction = 0.0f;
    if (b.box) {
      b2Polygon box = b2MakeBox(b.hw, b.hh);
      b2CreatePolygonShape(id, &sd, &box);
    } else {
      b2Circle c = {{0.0f, 0.0f}, b.radius};
      b2CreateCircleShape(id, &sd, &c);
    }
  }
}

void bench_b3_create_bouncy_circles(b2WorldId world) {
  create(world, "bouncy_circles");
}
void bench_b3_create_bouncy_circles_095(b2WorldId world) {
  create(world, "bouncy_circles_095");
}
void bench_b3_create_bouncy_topdown(b2WorldId world) {
  create(world, "bouncy_topdown");
}
void bench_b3_create_bouncy_boxes(b2WorldId world) {
  create(world, "bouncy_boxes");
}
void bench_b3_create_bouncy_mixed(b2WorldId world) {
  create(world, "bouncy_mixed");
}
