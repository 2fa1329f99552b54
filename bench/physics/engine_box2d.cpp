// bench/physics — the scenes built with Box2D 2.4 (Debian libbox2d-dev), C++.
// Box2D 2.4 has no substeps: one Step(1/60) with its recommended 8 velocity and 3
// position iterations, sleeping off unless the scene says every engine sleeps (smash);
// friction mixes as sqrt(fa*fb) like arbiter.
#include <box2d/box2d.h>

#include <vector>

#include "scenes.h"

namespace {

struct b2_bench {
  b2World world{b2Vec2(0.0f, -10.0f)};
  std::vector<b2Body*> bodies;
};

void* box2d_create(const bench_scene* s) {
  auto* b = new b2_bench();
  b->world.SetGravity(b2Vec2(s->gx, s->gy));
  const bool sleeps = s->every_engine_sleeps != 0;
  b->world.SetAllowSleeping(sleeps);
  b->bodies.reserve(static_cast<size_t>(s->count));
  for (int i = 0; i < s->count; ++i) {
    const bench_body& d = s->bodies[i];
    b2BodyDef bd;
    bd.type = d.is_static ? b2_staticBody : b2_dynamicBody;
    bd.position.Set(d.x, d.y);
    bd.linearVelocity.Set(d.vx, d.vy);
    bd.angularVelocity = d.w;
    bd.allowSleep = sleeps;
    bd.awake = !(sleeps && d.asleep);
    b2Body* body = b->world.CreateBody(&bd);
    b2FixtureDef fd;
    fd.density = d.density > 0.0f ? d.density : 1.0f;
    fd.friction = s->friction;
    fd.restitution = 0.0f;
    b2PolygonShape box;
    b2CircleShape circle;
    b2EdgeShape edge;
    if (d.kind == BENCH_BOX) {
      box.SetAsBox(d.hw, d.hh);
      fd.shape = &box;
    } else if (d.kind == BENCH_CIRCLE) {
      circle.m_radius = d.radius;
      fd.shape = &circle;
    } else {
      edge.SetTwoSided(b2Vec2(d.ax, d.ay), b2Vec2(d.bx, d.by));
      fd.shape = &edge;
    }
    body->CreateFixture(&fd);
    b->bodies.push_back(body);
  }
  return b;
}

void box2d_step(void* p, float dt) { static_cast<b2_bench*>(p)->world.Step(dt, 8, 3); }

float box2d_body_y(void* p, int index) {
  return static_cast<b2_bench*>(p)->bodies[static_cast<size_t>(index)]->GetPosition().y;
}

void box2d_destroy(void* p) { delete static_cast<b2_bench*>(p); }

}  // namespace

extern "C" const bench_engine bench_engine_box2d = {"box2d-2.4", "1 step x 8 velocity + 3 position iterations",
                                                    box2d_create, box2d_step, box2d_body_y, box2d_destroy, nullptr};
