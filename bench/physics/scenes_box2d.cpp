// bench/physics — Box2D v3's own-construction benchmark scenes built with Box2D 2.4 (Debian
// libbox2d-dev): rain, tumbler, spinner, washer and joint_grid, with the geometry, densities,
// materials, filters, motors, limits, kinematic velocities and spawn schedule of Box2D v3's
// benchmark code (shared/benchmarks.c, shared/human.c, release sizes; the shared numbers in
// scenes_shared.c). engine_box2d.cpp steps them as every scene: one Step(1/60) with 8
// velocity and 3 position iterations, sleeping as Box2D v3 leaves it in the scene (on, but
// joint_grid). Where Box2D 2.4 lacks what Box2D v3 uses:
//   - capsules (rain's bones, every third spinner body): a box between the two centres and a
//     circle at each, on one body; its mass, centre and rotational inertia are set to the
//     capsule's (Box2D v3's formula, SetMassData), not the overlapping parts' sum;
//   - rounded polygons: the spinner's bar (a 0.4 x 20 m box rounded by 0.2 m) is one polygon,
//     the box around it with its corners cut at 45 degrees (8 vertices; mass 0.1 % less);
//     the ragdoll's foot is its core polygon without the 0.015 m rounding (2.4 polygons carry
//     their own 0.01 m skin);
//   - revolute joint springs (rain: 5 Hz, damping ratio 0.5 towards the rest pose): 2.4's
//     revolute joint has none, so a torque -k*angle - c*relative speed is applied to the two
//     bodies before each step, with Box2D v3's stiffness and damping on the pair's effective
//     inertia (explicit where Box2D v3's soft spring is implicit);
//   - per-body sleep thresholds (ragdolls: 0.1 m/s): 2.4 has fixed tolerances (0.01 m/s,
//     2 degrees/s, 0.5 s).
// Chains: b2ChainShape::CreateLoop with Box2D v3's points in its order (both collide on the
// right of the points, the inside of the loop). Motor speeds are B relative to A in both.
#include "scenes_box2d.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include "scenes_shared.h"

namespace {

b2Body* make_body(b2World* world, b2BodyType type, float x, float y) {
  b2BodyDef bd;
  bd.type = type;
  bd.position.Set(x, y);
  return world->CreateBody(&bd);
}

// A fixture with Box2D v3's shape defaults: density 1, friction 0.6, restitution 0.
b2FixtureDef shape_def() {
  b2FixtureDef fd;
  fd.density = 1.0f;
  fd.friction = 0.6f;
  fd.restitution = 0.0f;
  return fd;
}

void add_fixture(b2Body* body, b2FixtureDef fd, const b2Shape* shape) {
  fd.shape = shape;
  body->CreateFixture(&fd);
}

// A capsule of centres c1, c2 (body frame) and radius r: a box and two circles. Returns its
// mass data as Box2D v3 computes it (inertia about the body origin, as 2.4 wants it).
b2MassData add_capsule(b2Body* body, b2Vec2 c1, b2Vec2 c2, float r, const b2FixtureDef& fd) {
  b2Vec2 d = c2 - c1;
  b2PolygonShape box;
  box.SetAsBox(0.5f * d.Length(), r, 0.5f * (c1 + c2), std::atan2(d.y, d.x));
  add_fixture(body, fd, &box);
  b2CircleShape circle;
  circle.m_radius = r;
  circle.m_p = c1;
  add_fixture(body, fd, &circle);
  circle.m_p = c2;
  add_fixture(body, fd, &circle);
  bench_mass m = bench_capsule_mass(c1.x, c1.y, c2.x, c2.y, r, fd.density);
  b2MassData md;
  md.mass = m.mass;
  md.center.Set(m.cx, m.cy);
  md.I = m.inertia + m.mass * b2Dot(md.center, md.center);
  return md;
}

// Two mass data about the same origin, combined.
b2MassData combine(const b2MassData& a, const b2MassData& b) {
  b2MassData md;
  md.mass = a.mass + b.mass;
  md.center = (1.0f / md.mass) * (a.mass * a.center + b.mass * b.center);
  md.I = a.I + b.I;
  return md;
}

// The rotational inertia about the centre of mass (2.4's GetInertia is about the origin).
float central_inertia(const b2Body* body) {
  b2Vec2 c = body->GetLocalCenter();
  return body->GetInertia() - body->GetMass() * b2Dot(c, c);
}

// Box2D v3's revolute joint pinning `body` (B, its origin) to `ground` (A) at `anchor`, its
// motor turning B at `speed` (rad/s, B relative to A) with at most `max_torque`.
// collideConnected false: the two do not collide (the spinner's bar passes the chain).
void pin_with_motor(b2World* world, b2Body* ground, b2Body* body, b2Vec2 anchor, float speed,
                    float max_torque) {
  b2RevoluteJointDef jd;
  jd.bodyA = ground;
  jd.bodyB = body;
  jd.localAnchorA = anchor;
  jd.localAnchorB.Set(0.0f, 0.0f);
  jd.enableMotor = true;
  jd.motorSpeed = speed;
  jd.maxMotorTorque = max_torque;
  world->CreateJoint(&jd);
}

// ---- rain ---------------------------------------------------------------------------------

struct spring {
  b2Body* a;
  b2Body* b;
  float reference, stiffness, damping;
};

struct ragdoll {
  b2Body* bodies[BENCH_BONES];
  spring springs[BENCH_BONES - 1];
  bool alive;
};

struct rain {
  b2World* world;
  ragdoll ragdolls[BENCH_RAIN_RAGDOLLS];  // by slot (bench_rain_hooks)
  b2PolygonShape foot;                    // in the shin's frame
  bench_rain_schedule schedule;
};

void create_ragdoll(void* context, int slot, float x, float y, int group) {
  auto* rn = static_cast<rain*>(context);
  b2World* world = rn->world;
  ragdoll* r = &rn->ragdolls[slot];
  b2FixtureDef fd = shape_def();
  fd.friction = 0.2f;
  fd.filter.categoryBits = 2;
  fd.filter.maskBits = 1 | 2;
  fd.filter.groupIndex = static_cast<int16>(-group);
  b2FixtureDef foot = fd;
  foot.friction = 0.05f;
  foot.filter.maskBits = 1;
  for (int i = 0; i < BENCH_BONES; ++i) {
    const bench_bone& bone = bench_bones[i];
    b2BodyDef bd;
    bd.type = b2_dynamicBody;
    bd.position.Set(x, y + bone.y);
    bd.linearDamping = bone.linear_damping;
    b2Body* body = world->CreateBody(&bd);
    b2MassData md =
        add_capsule(body, b2Vec2(0.0f, bone.c1), b2Vec2(0.0f, bone.c2), bone.radius, fd);
    if (bone.foot) {
      add_fixture(body, foot, &rn->foot);
      b2MassData fm;
      rn->foot.ComputeMass(&fm, foot.density);
      md = combine(md, fm);
    }
    body->SetMassData(&md);
    r->bodies[i] = body;
    if (bone.parent < 0) continue;
    b2Body* parent = r->bodies[bone.parent];
    b2RevoluteJointDef jd;
    jd.Initialize(parent, body, b2Vec2(x, y + bone.pivot));
    jd.referenceAngle = bone.reference * b2_pi;
    jd.enableLimit = true;
    jd.lowerAngle = bone.lower * b2_pi;
    jd.upperAngle = bone.upper * b2_pi;
    jd.enableMotor = true;
    jd.motorSpeed = 0.0f;
    jd.maxMotorTorque = bone.friction_scale * BENCH_JOINT_FRICTION;
    world->CreateJoint(&jd);
    spring& s = r->springs[i - 1];
    s.a = parent;
    s.b = body;
    s.reference = jd.referenceAngle;
    bench_spring_constants(BENCH_JOINT_HERTZ, BENCH_JOINT_DAMPING_RATIO, central_inertia(parent),
                           central_inertia(body), &s.stiffness, &s.damping);
  }
  r->alive = true;
}

// The joint springs Box2D v3 solves, as torques for the coming step (awake bodies only: a
// sleeping ragdoll stays asleep).
void apply_springs(const ragdoll& r) {
  for (const spring& s : r.springs) {
    float angle = s.b->GetAngle() - s.a->GetAngle() - s.reference;
    float speed = s.b->GetAngularVelocity() - s.a->GetAngularVelocity();
    float torque = -s.stiffness * angle - s.damping * speed;
    s.b->ApplyTorque(torque, false);
    s.a->ApplyTorque(-torque, false);
  }
}

void destroy_ragdoll(void* context, int slot) {
  auto* rn = static_cast<rain*>(context);
  ragdoll& r = rn->ragdolls[slot];
  for (b2Body* body : r.bodies) rn->world->DestroyBody(body);  // and its joints
  r.alive = false;
}

void* rain_create(b2World* world) {
  auto* rn = new rain();
  rn->world = world;
  b2Vec2 foot[4];
  for (int i = 0; i < 4; ++i) foot[i].Set(bench_foot_points[i][0], bench_foot_points[i][1]);
  rn->foot.Set(foot, 4);
  // The ground: one static body of 5 rows of 501 boxes, as Box2D v3.
  b2Body* ground = make_body(world, b2_staticBody, 0.0f, 0.0f);
  b2FixtureDef fd = shape_def();
  b2PolygonShape box;
  const float half = 0.5f * BENCH_RAIN_GRID_SIZE;
  float y = 0.0f;
  for (int i = 0; i < BENCH_RAIN_ROWS; ++i) {
    float x = -0.5f * static_cast<float>(BENCH_RAIN_GRID_COUNT) * BENCH_RAIN_GRID_SIZE;
    for (int j = 0; j <= BENCH_RAIN_GRID_COUNT; ++j) {
      box.SetAsBox(half, half, b2Vec2(x, y), 0.0f);
      add_fixture(ground, fd, &box);
      x += BENCH_RAIN_GRID_SIZE;
    }
    y += BENCH_RAIN_ROW_SPACING;
  }
  return rn;
}

void rain_before_step(void* state, b2World* world, int step_index) {
  auto* rn = static_cast<rain*>(state);
  const bench_rain_hooks hooks = {rn, create_ragdoll, destroy_ragdoll};
  (void)world;  // rn->world
  bench_rain_step(&rn->schedule, step_index, &hooks);
  for (const ragdoll& r : rn->ragdolls) {
    if (r.alive) apply_springs(r);
  }
}

void rain_destroy(void* state) {
  delete static_cast<rain*>(state);
}

// ---- tumbler ------------------------------------------------------------------------------

void* tumbler_create(b2World* world) {
  b2Body* ground = make_body(world, b2_staticBody, 0.0f, 0.0f);
  b2Body* drum = make_body(world, b2_dynamicBody, 0.0f, 10.0f);
  b2FixtureDef fd = shape_def();
  fd.density = 50.0f;
  b2PolygonShape wall;
  wall.SetAsBox(0.5f, 10.0f, b2Vec2(10.0f, 0.0f), 0.0f);
  add_fixture(drum, fd, &wall);
  wall.SetAsBox(0.5f, 10.0f, b2Vec2(-10.0f, 0.0f), 0.0f);
  add_fixture(drum, fd, &wall);
  wall.SetAsBox(10.0f, 0.5f, b2Vec2(0.0f, 10.0f), 0.0f);
  add_fixture(drum, fd, &wall);
  wall.SetAsBox(10.0f, 0.5f, b2Vec2(0.0f, -10.0f), 0.0f);
  add_fixture(drum, fd, &wall);
  pin_with_motor(world, ground, drum, b2Vec2(0.0f, 10.0f), (b2_pi / 180.0f) * 25.0f, 1e8f);

  const int grid = 45;
  b2PolygonShape box;
  box.SetAsBox(0.125f, 0.125f);
  fd = shape_def();
  float y = -0.2f * static_cast<float>(grid) + 10.0f;
  for (int i = 0; i < grid; ++i) {
    float x = -0.2f * static_cast<float>(grid);
    for (int j = 0; j < grid; ++j) {
      add_fixture(make_body(world, b2_dynamicBody, x, y), fd, &box);
      x += 0.4f;
    }
    y += 0.4f;
  }
  return nullptr;
}

// ---- washer -------------------------------------------------------------------------------

void* washer_create(b2World* world) {
  b2BodyDef bd;
  bd.type = b2_kinematicBody;
  bd.position.Set(0.0f, 10.0f);
  bd.angularVelocity = (b2_pi / 180.0f) * 25.0f;
  bd.linearVelocity.Set(0.001f, -0.002f);
  b2Body* drum = world->CreateBody(&bd);
  float quads[BENCH_WASHER_QUADS][4][2];
  int n = bench_washer_quads(quads);
  b2FixtureDef fd = shape_def();
  for (int k = 0; k < n; ++k) {
    b2Vec2 points[4];
    for (int i = 0; i < 4; ++i) points[i].Set(quads[k][i][0], quads[k][i][1]);
    b2PolygonShape quad;
    quad.Set(points, 4);  // its convex hull, as Box2D v3's b2ComputeHull
    add_fixture(drum, fd, &quad);
  }

  const int grid = 90;
  const float a = 0.1f;
  b2PolygonShape box;
  box.SetAsBox(a, a);
  float y = -1.1f * a * static_cast<float>(grid) + 10.0f;
  for (int i = 0; i < grid; ++i) {
    float x = -1.1f * a * static_cast<float>(grid);
    for (int j = 0; j < grid; ++j) {
      add_fixture(make_body(world, b2_dynamicBody, x, y), fd, &box);
      x += 2.1f * a;
    }
    y += 2.1f * a;
  }
  return nullptr;
}

// ---- spinner ------------------------------------------------------------------------------

void* spinner_create(b2World* world) {
  b2Body* ground = make_body(world, b2_staticBody, 0.0f, 0.0f);
  {
    b2Vec2 points[BENCH_SPINNER_POINTS];
    for (int i = 0; i < BENCH_SPINNER_POINTS; ++i)
      bench_spinner_point(i, &points[i].x, &points[i].y);
    b2ChainShape chain;
    chain.CreateLoop(points, BENCH_SPINNER_POINTS);
    b2FixtureDef fd = shape_def();
    fd.friction = 0.1f;
    add_fixture(ground, fd, &chain);
  }
  {
    b2BodyDef bd;
    bd.type = b2_dynamicBody;
    bd.position.Set(0.0f, 12.0f);
    bd.allowSleep = false;
    b2Body* bar = world->CreateBody(&bd);
    // Box2D v3's b2MakeRoundedBox(0.4, 20, 0.2) as one polygon: the 0.8 x 40.4 m box it
    // fits in with the corners cut at 45 degrees (8 vertices, 2.4's most), within 6 cm of
    // the rounded corners; the mass is 0.1 % less.
    const b2Vec2 octagon[8] = {{0.6f, -20.0f}, {0.6f, 20.0f},   {0.4f, 20.2f},   {-0.4f, 20.2f},
                               {-0.6f, 20.0f}, {-0.6f, -20.0f}, {-0.4f, -20.2f}, {0.4f, -20.2f}};
    b2PolygonShape shape;
    shape.Set(octagon, 8);
    b2FixtureDef fd = shape_def();
    fd.friction = 0.0f;
    add_fixture(bar, fd, &shape);
    pin_with_motor(world, ground, bar, b2Vec2(0.0f, 12.0f), 5.0f, FLT_MAX);
  }

  b2FixtureDef fd = shape_def();
  fd.friction = 0.1f;
  fd.restitution = 0.1f;
  fd.density = 0.25f;
  b2CircleShape circle;
  circle.m_radius = 0.35f;
  b2PolygonShape square;
  square.SetAsBox(0.35f, 0.35f);
  float x = -23.0f, y = 2.0f;
  for (int i = 0; i < 2 * 3038; ++i) {
    b2Body* body = make_body(world, b2_dynamicBody, x, y);
    if (i % 3 == 0) {
      b2MassData md = add_capsule(body, b2Vec2(-0.25f, 0.0f), b2Vec2(0.25f, 0.0f), 0.25f, fd);
      body->SetMassData(&md);
    } else if (i % 3 == 1) {
      add_fixture(body, fd, &circle);
    } else {
      add_fixture(body, fd, &square);
    }
    x += 0.5f;
    if (x >= 23.0f) {
      x = -23.0f;
      y += 0.5f;
    }
  }
  return nullptr;
}

// ---- joint_grid ---------------------------------------------------------------------------

void* joint_grid_create(b2World* world) {
  const int n = 100;
  std::vector<b2Body*> bodies(static_cast<size_t>(n * n));
  b2FixtureDef fd = shape_def();
  fd.filter.categoryBits = 2;
  fd.filter.maskBits = static_cast<uint16>(~2u);
  b2CircleShape circle;
  circle.m_radius = 0.4f;
  b2RevoluteJointDef jd;
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) {
      bool fixed = k >= n / 2 - 3 && k <= n / 2 + 3 && i == 0;
      b2Body* body = make_body(world, fixed ? b2_staticBody : b2_dynamicBody, static_cast<float>(k),
                               -static_cast<float>(i));
      add_fixture(body, fd, &circle);
      size_t index = static_cast<size_t>(k * n + i);
      if (i > 0) {
        jd.bodyA = bodies[index - 1];
        jd.bodyB = body;
        jd.localAnchorA.Set(0.0f, -0.5f);
        jd.localAnchorB.Set(0.0f, 0.5f);
        world->CreateJoint(&jd);
      }
      if (k > 0) {
        jd.bodyA = bodies[index - static_cast<size_t>(n)];
        jd.bodyB = body;
        jd.localAnchorA.Set(0.5f, 0.0f);
        jd.localAnchorB.Set(-0.5f, 0.0f);
        world->CreateJoint(&jd);
      }
      bodies[index] = body;
    }
  }
  return nullptr;
}

const bench_box2d_scene scenes[] = {
    {"rain", rain_create, rain_before_step, rain_destroy},
    {"tumbler", tumbler_create, nullptr, nullptr},
    {"washer", washer_create, nullptr, nullptr},
    {"spinner", spinner_create, nullptr, nullptr},
    {"joint_grid", joint_grid_create, nullptr, nullptr},
};

}  // namespace

const bench_box2d_scene* bench_box2d_find_scene(const char* name) {
  for (const bench_box2d_scene& s : scenes) {
    if (std::strcmp(s.name, name) == 0) return &s;
  }
  return nullptr;
}
