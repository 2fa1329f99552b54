// bench/physics — the scenes built with Box2D 2.4 (Debian libbox2d-dev), C++.
// Box2D 2.4 has no substeps: one Step(1/60) with its recommended 8 velocity and 3
// position iterations, sleeping off unless the scene says every engine sleeps (smash and
// the own-construction scenes Box2D v3 defines with sleeping on); friction mixes as
// sqrt(fa*fb) and restitution as max(ra, rb), like Box2D v3. The neutral scenes come from
// their body list; the own-construction scenes (rain, tumbler, spinner, washer, joint_grid)
// from scenes_box2d.cpp, with a hook before every step.
#include <box2d/box2d.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <vector>

#include "scenes.h"
#include "scenes_box2d.h"

namespace {

struct b2_bench {
  b2World world{b2Vec2(0.0f, -10.0f)};
  std::vector<b2Body*> bodies;
  const bench_box2d_scene* own = nullptr;  // nullptr: built from the neutral description
  void* own_state = nullptr;
  int step_index = 0;
};

void* box2d_create(const bench_scene* s) {
  auto* b = new b2_bench();
  b->world.SetGravity(b2Vec2(s->gx, s->gy));
  const bool sleeps = s->every_engine_sleeps != 0;
  b->world.SetAllowSleeping(sleeps);
  if (s->own_construction) {
    b->own = bench_box2d_find_scene(s->name);  // bench_physics.c asked box2d_builds_own first
    b->own_state = b->own->create(&b->world);
    return b;
  }
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

void box2d_step(void* p, float dt) {
  auto* b = static_cast<b2_bench*>(p);
  if (b->own && b->own->before_step) b->own->before_step(b->own_state, &b->world, b->step_index);
  b->step_index++;
  b->world.Step(dt, 8, 3);
}

float box2d_body_y(void* p, int index) {
  auto* b = static_cast<b2_bench*>(p);
  if (b->own) return 0.0f;  // no top body in an own-construction scene
  return b->bodies[static_cast<size_t>(index)]->GetPosition().y;
}

void box2d_destroy(void* p) {
  auto* b = static_cast<b2_bench*>(p);
  const bench_box2d_scene* own = b->own;
  void* state = b->own_state;
  delete b;  // the world and all its bodies first: the scene's state only points at them
  if (own && own->destroy) own->destroy(state);
}

// The own-construction scenes' final state (the neutral scenes print no line).
void box2d_report(void* p, char* line, int cap) {
  auto* b = static_cast<b2_bench*>(p);
  if (!b->own) return;
  int awake = 0, touching = 0;
  float fastest = 0.0f, lowest = FLT_MAX;  // how far it went wrong, if it did
  for (const b2Body* body = b->world.GetBodyList(); body; body = body->GetNext()) {
    if (body->GetType() == b2_staticBody) continue;
    awake += body->IsAwake();
    fastest = std::max(fastest, body->GetLinearVelocity().Length());
    lowest = std::min(lowest, body->GetPosition().y);
  }
  for (const b2Contact* c = b->world.GetContactList(); c; c = c->GetNext()) {
    touching += c->IsTouching();
  }
  std::snprintf(line, static_cast<size_t>(cap),
                "%d bodies (%d awake), %d joints, %d contacts (%d touching); "
                "fastest body %.1f m/s, lowest at y = %.1f m",
                b->world.GetBodyCount(), awake, b->world.GetJointCount(),
                b->world.GetContactCount(), touching, static_cast<double>(fastest),
                static_cast<double>(lowest));
}

// Box2D 2.4's GetInertia is about the body origin: the part about the centre of mass is
// I - m |c|^2 (c the local centre).
double box2d_energy(void* p) {
  auto* b = static_cast<b2_bench*>(p);
  const b2Vec2 g = b->world.GetGravity();
  double e = 0.0;
  for (const b2Body* body = b->world.GetBodyList(); body; body = body->GetNext()) {
    if (body->GetType() != b2_dynamicBody) continue;
    const double m = body->GetMass();
    const b2Vec2 c = body->GetLocalCenter();
    const double inertia =
        body->GetInertia() - m * (static_cast<double>(c.x) * c.x + static_cast<double>(c.y) * c.y);
    const b2Vec2 v = body->GetLinearVelocity();
    const b2Vec2 x = body->GetWorldCenter();
    const double w = body->GetAngularVelocity();
    e += 0.5 * m * (static_cast<double>(v.x) * v.x + static_cast<double>(v.y) * v.y) +
         0.5 * inertia * w * w -
         m * (static_cast<double>(g.x) * x.x + static_cast<double>(g.y) * x.y);
  }
  return e;
}

int box2d_builds_own(const char* name) {
  return bench_box2d_find_scene(name) != nullptr;
}

}  // namespace

extern "C" const bench_engine bench_engine_box2d = {
    "box2d-2.4",  "1 step x 8 velocity + 3 position iterations",
    box2d_create, box2d_step,
    box2d_body_y, box2d_destroy,
    box2d_report, box2d_builds_own,
    box2d_energy, NULL};
