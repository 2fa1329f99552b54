// bench/physics — Box2D v3's own-construction benchmark scenes built with Chipmunk2D 7 (Debian
// libchipmunk-dev): rain, tumbler, spinner, washer and joint_grid, with the geometry,
// densities, materials, filters, motors, limits, kinematic velocities and spawn schedule of
// Box2D v3's benchmark code (shared/benchmarks.c, shared/human.c, release sizes; the shared
// numbers in scenes_shared.c). engine_chipmunk.c steps them as every scene (4 substeps x 10
// iterations, slop 0.005; or Chipmunk's defaults), sleeping as Box2D v3 leaves it in the scene
// (on, after 0.5 s at rest, but joint_grid). In Chipmunk's terms:
//   - materials: Chipmunk multiplies the two shapes' friction and elasticity, so each shape
//     gets the square root of its Box2D v3 value: sqrt(fa)*sqrt(fb) is Box2D v3's friction
//     sqrt(fa*fb). Box2D v3 takes the larger restitution of the two; in the spinner (the only
//     scene with restitution) every pair has 0.1, so every shape there, the chain and the bar
//     too (0 in Box2D v3), gets sqrt(0.1);
//   - capsules are segment shapes with a radius (exact); Chipmunk weighs them as a box of
//     length L + 2r, so each capsule's share of its body's moment is set to Box2D v3's
//     capsule inertia. Rounded polygons (the spinner's bar, the foot) are polygons with a
//     radius (exact);
//   - a revolute joint is a pivot joint, plus a rotary limit joint for its limits (the angle
//     range shifted by the reference angle: Chipmunk limits the bodies' angle difference),
//     a simple motor for its motor (max force = the torque limit; Chipmunk's motor drives
//     wB - wA to -rate, so the rate is minus Box2D v3's speed) and a damped rotary spring for
//     its spring (Box2D v3's stiffness and damping on the pair's effective inertia); a
//     pinned drum or bar does not collide with its ground (the spinner's bar passes the
//     chain, as Box2D v3's joint with collideConnected false);
//   - the spinner's chain loop is 360 static segments, each told its neighbours (no catching
//     on the joins, as a chain's ghost vertices); they collide on both sides (Box2D v3's
//     chain: inside only), the bodies stay inside;
//   - linear damping (the ragdoll's head and forearms): a velocity function, as Box2D v3 damps;
//     per-body sleep thresholds (ragdolls: 0.1 m/s) and the spinner bar's "never sleeps" have
//     no Chipmunk equivalent (its idle speed follows gravity; the bar never stops);
//   - joint_grid's 6 joints between two static bodies are left out (Chipmunk cannot solve a
//     constraint without a dynamic body; Box2D v3 never solves them either).
#include "scenes_chipmunk.h"

#include <chipmunk/chipmunk_structs.h>  // cpBody.v: damping without waking the body
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenes_shared.h"

// What a scene (or one ragdoll) added to the space, to remove and free it again.
typedef struct cp_list {
  void** items;
  int count, cap;
} cp_list;

typedef struct cp_owned {
  cp_list bodies, shapes, constraints;
} cp_owned;

static void push(cp_list* l, void* item) {
  if (l->count == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->items = realloc(l->items, (size_t)l->cap * sizeof *l->items);
    if (!l->items) abort();
  }
  l->items[l->count++] = item;
}

static cpBody* add_body(cpSpace* space, cp_owned* o, cpBody* body, float x, float y) {
  cpBodySetPosition(body, cpv(x, y));
  push(&o->bodies, cpSpaceAddBody(space, body));
  return body;
}

// A shape with Box2D v3's density, friction and restitution (see the top of the file).
static cpShape* add_shape(cpSpace* space, cp_owned* o, cpShape* shape, float density,
                          float friction, float restitution) {
  cpSpaceAddShape(space, shape);
  if (density > 0.0f) cpShapeSetDensity(shape, density);  // the body sums mass, centre, moment
  cpShapeSetFriction(shape, sqrtf(friction));
  cpShapeSetElasticity(shape, sqrtf(restitution));
  push(&o->shapes, shape);
  return shape;
}

static cpConstraint* add_constraint(cpSpace* space, cp_owned* o, cpConstraint* c) {
  push(&o->constraints, cpSpaceAddConstraint(space, c));
  return c;
}

// Removes and frees all of `o` (constraints, then shapes, then bodies); keeps its arrays.
static void free_owned(cpSpace* space, cp_owned* o) {
  for (int i = 0; i < o->constraints.count; ++i) {
    cpSpaceRemoveConstraint(space, o->constraints.items[i]);
    cpConstraintFree(o->constraints.items[i]);
  }
  for (int i = 0; i < o->shapes.count; ++i) {
    cpSpaceRemoveShape(space, o->shapes.items[i]);
    cpShapeFree(o->shapes.items[i]);
  }
  for (int i = 0; i < o->bodies.count; ++i) {
    cpSpaceRemoveBody(space, o->bodies.items[i]);
    cpBodyFree(o->bodies.items[i]);
  }
  o->constraints.count = o->shapes.count = o->bodies.count = 0;
}

static void release_owned(cpSpace* space, cp_owned* o) {
  free_owned(space, o);
  free(o->constraints.items);
  free(o->shapes.items);
  free(o->bodies.items);
}

// The scenes without per-step work keep only what they added.
static void owned_destroy(void* state, cpSpace* space) {
  release_owned(space, state);
  free(state);
}

static cp_owned* new_owned(void) {
  cp_owned* o = calloc(1, sizeof *o);
  if (!o) abort();
  return o;
}

// A capsule along (x1, y1)-(x2, y2) of radius r on `body`; once all the body's shapes are
// added, fix_capsule_moment gives its share of the moment Box2D v3's value.
static cpShape* add_capsule(cpSpace* space, cp_owned* o, cpBody* body, float x1, float y1, float x2,
                            float y2, float r, float density, float friction, float restitution) {
  return add_shape(space, o, cpSegmentShapeNew(body, cpv(x1, y1), cpv(x2, y2), r), density,
                   friction, restitution);
}

static void fix_capsule_moment(cpBody* body, float x1, float y1, float x2, float y2, float r,
                               float density) {
  bench_mass m = bench_capsule_mass(x1, y1, x2, y2, r, density);
  double length = hypot((double)x2 - x1, (double)y2 - y1) + 2.0 * r;
  double chipmunk = m.mass * (length * length + 4.0 * r * r) / 12.0;  // cpMomentForSegment
  cpBodySetMoment(body, cpBodyGetMoment(body) - chipmunk + m.inertia);
}

static cpConstraint* add_motor(cpSpace* space, cp_owned* o, cpBody* a, cpBody* b, float speed,
                               float max_torque) {
  cpConstraint* motor = add_constraint(space, o, cpSimpleMotorNew(a, b, -speed));
  cpConstraintSetMaxForce(motor, max_torque);
  return motor;
}

// Box2D v3's revolute joint pinning `body` (its origin) to `ground` at `anchor`, its motor
// turning the body at `speed` (rad/s) with at most `max_torque`. The two do not collide
// (Box2D v3's collideConnected false).
static void pin_with_motor(cpSpace* space, cp_owned* o, cpBody* ground, cpBody* body, cpVect anchor,
                           float speed, float max_torque) {
  cpConstraint* pivot = add_constraint(space, o, cpPivotJointNew2(ground, body, anchor, cpvzero));
  cpConstraintSetCollideBodies(pivot, cpFalse);
  add_motor(space, o, ground, body, speed, max_torque);
}

// ---- rain ---------------------------------------------------------------------------------

typedef struct cp_rain {
  cpSpace* space;
  cp_owned ground;
  cp_owned ragdolls[BENCH_RAIN_RAGDOLLS];  // by slot (bench_rain_hooks); empty: none
  bench_rain_schedule schedule;
} cp_rain;

// Box2D v3's linear damping (the body's bone in its user data), after gravity: it scales the
// velocity by 1 / (1 + dt * damping). The velocity is written directly: cpBodySetVelocity
// would restart the body's idle time, and it would never sleep.
static void damped_velocity(cpBody* body, cpVect gravity, cpFloat damping, cpFloat dt) {
  cpBodyUpdateVelocity(body, gravity, damping, dt);
  const bench_bone* bone = cpBodyGetUserData(body);
  body->v = cpvmult(body->v, 1.0 / (1.0 + dt * bone->linear_damping));
}

static void create_ragdoll(void* context, int slot, float x, float y, int group) {
  cp_rain* rn = context;
  cpSpace* space = rn->space;
  cp_owned* o = &rn->ragdolls[slot];
  const cpShapeFilter filter = cpShapeFilterNew((cpGroup)group, 2, 1 | 2);
  const cpShapeFilter foot_filter = cpShapeFilterNew((cpGroup)group, 2, 1);
  cpVect foot[4];
  for (int i = 0; i < 4; ++i) foot[i] = cpv(bench_foot_points[i][0], bench_foot_points[i][1]);
  cpBody* bodies[BENCH_BONES];
  for (int i = 0; i < BENCH_BONES; ++i) {
    const bench_bone* bone = &bench_bones[i];
    cpBody* body = add_body(space, o, cpBodyNew(0.0, 0.0), x, y + bone->y);
    cpShape* capsule =
        add_capsule(space, o, body, 0.0f, bone->c1, 0.0f, bone->c2, bone->radius, 1.0f, 0.2f, 0.0f);
    cpShapeSetFilter(capsule, filter);
    if (bone->foot) {
      cpShape* shape =
          add_shape(space, o, cpPolyShapeNew(body, 4, foot, cpTransformIdentity, BENCH_FOOT_RADIUS),
                    1.0f, 0.05f, 0.0f);
      cpShapeSetFilter(shape, foot_filter);
    }
    fix_capsule_moment(body, 0.0f, bone->c1, 0.0f, bone->c2, bone->radius, 1.0f);
    if (bone->linear_damping > 0.0f) {
      cpBodySetUserData(body, (cpDataPointer)bone);
      cpBodySetVelocityUpdateFunc(body, damped_velocity);
    }
    bodies[i] = body;
    if (bone->parent < 0) continue;
    cpBody* parent = bodies[bone->parent];
    float reference = bone->reference * (float)CP_PI;
    add_constraint(space, o, cpPivotJointNew(parent, body, cpv(x, y + bone->pivot)));
    add_constraint(space, o,
                   cpRotaryLimitJointNew(parent, body, bone->lower * CP_PI + reference,
                                         bone->upper * CP_PI + reference));
    add_motor(space, o, parent, body, 0.0f, bone->friction_scale * BENCH_JOINT_FRICTION);
    float stiffness, damping;
    bench_spring_constants(BENCH_JOINT_HERTZ, BENCH_JOINT_DAMPING_RATIO,
                           (float)cpBodyGetMoment(parent), (float)cpBodyGetMoment(body), &stiffness,
                           &damping);
    // The spring drives A's angle minus B's to its rest angle.
    add_constraint(space, o, cpDampedRotarySpringNew(parent, body, -reference, stiffness, damping));
  }
}

static void* rain_create(cpSpace* space) {
  cp_rain* rn = calloc(1, sizeof *rn);
  if (!rn) abort();
  rn->space = space;
  // The ground: one static body of 5 rows of 501 boxes, as Box2D v3.
  cpBody* ground = add_body(space, &rn->ground, cpBodyNewStatic(), 0.0f, 0.0f);
  const cpShapeFilter filter = cpShapeFilterNew(CP_NO_GROUP, 1, CP_ALL_CATEGORIES);
  const float half = 0.5f * BENCH_RAIN_GRID_SIZE;
  float y = 0.0f;
  for (int i = 0; i < BENCH_RAIN_ROWS; ++i) {
    float x = -0.5f * (float)BENCH_RAIN_GRID_COUNT * BENCH_RAIN_GRID_SIZE;
    for (int j = 0; j <= BENCH_RAIN_GRID_COUNT; ++j) {
      cpShape* box =
          add_shape(space, &rn->ground,
                    cpBoxShapeNew2(ground, cpBBNew(x - half, y - half, x + half, y + half), 0.0),
                    0.0f, 0.6f, 0.0f);
      cpShapeSetFilter(box, filter);
      x += BENCH_RAIN_GRID_SIZE;
    }
    y += BENCH_RAIN_ROW_SPACING;
  }
  return rn;
}

static void destroy_ragdoll(void* context, int slot) {
  cp_rain* rn = context;
  free_owned(rn->space, &rn->ragdolls[slot]);
}

static void rain_before_step(void* state, cpSpace* space, int step_index) {
  cp_rain* rn = state;
  const bench_rain_hooks hooks = {rn, create_ragdoll, destroy_ragdoll};
  (void)space;  // rn->space
  bench_rain_step(&rn->schedule, step_index, &hooks);
}

static void rain_destroy(void* state, cpSpace* space) {
  cp_rain* rn = state;
  for (int i = 0; i < BENCH_RAIN_RAGDOLLS; ++i) release_owned(space, &rn->ragdolls[i]);
  release_owned(space, &rn->ground);
  free(rn);
}

// ---- tumbler ------------------------------------------------------------------------------

static void* tumbler_create(cpSpace* space) {
  cp_owned* o = new_owned();
  cpBody* ground = add_body(space, o, cpBodyNewStatic(), 0.0f, 0.0f);
  cpBody* drum = add_body(space, o, cpBodyNew(0.0, 0.0), 0.0f, 10.0f);
  const cpBB walls[4] = {cpBBNew(9.5, -10.0, 10.5, 10.0), cpBBNew(-10.5, -10.0, -9.5, 10.0),
                         cpBBNew(-10.0, 9.5, 10.0, 10.5), cpBBNew(-10.0, -10.5, 10.0, -9.5)};
  for (int i = 0; i < 4; ++i)
    add_shape(space, o, cpBoxShapeNew2(drum, walls[i], 0.0), 50.0f, 0.6f, 0.0f);
  pin_with_motor(space, o, ground, drum, cpv(0.0, 10.0), (float)(CP_PI / 180.0) * 25.0f, 1e8f);

  const int grid = 45;
  float y = -0.2f * (float)grid + 10.0f;
  for (int i = 0; i < grid; ++i) {
    float x = -0.2f * (float)grid;
    for (int j = 0; j < grid; ++j) {
      cpBody* body = add_body(space, o, cpBodyNew(0.0, 0.0), x, y);
      add_shape(space, o, cpBoxShapeNew(body, 0.25, 0.25, 0.0), 1.0f, 0.6f, 0.0f);
      x += 0.4f;
    }
    y += 0.4f;
  }
  return o;
}

// ---- washer -------------------------------------------------------------------------------

static void* washer_create(cpSpace* space) {
  cp_owned* o = new_owned();
  cpBody* drum = add_body(space, o, cpBodyNewKinematic(), 0.0f, 10.0f);
  cpBodySetAngularVelocity(drum, (float)(CP_PI / 180.0) * 25.0f);
  cpBodySetVelocity(drum, cpv(0.001, -0.002));
  float quads[BENCH_WASHER_QUADS][4][2];
  int n = bench_washer_quads(quads);
  for (int k = 0; k < n; ++k) {
    cpVect points[4];
    for (int i = 0; i < 4; ++i) points[i] = cpv(quads[k][i][0], quads[k][i][1]);
    // cpPolyShapeNew takes the convex hull of the points, as Box2D v3's b2ComputeHull.
    add_shape(space, o, cpPolyShapeNew(drum, 4, points, cpTransformIdentity, 0.0), 0.0f, 0.6f,
              0.0f);
  }

  const int grid = 90;
  const float a = 0.1f;
  float y = -1.1f * a * (float)grid + 10.0f;
  for (int i = 0; i < grid; ++i) {
    float x = -1.1f * a * (float)grid;
    for (int j = 0; j < grid; ++j) {
      cpBody* body = add_body(space, o, cpBodyNew(0.0, 0.0), x, y);
      add_shape(space, o, cpBoxShapeNew(body, 2.0 * a, 2.0 * a, 0.0), 1.0f, 0.6f, 0.0f);
      x += 2.1f * a;
    }
    y += 2.1f * a;
  }
  return o;
}

// ---- spinner ------------------------------------------------------------------------------

static void* spinner_create(cpSpace* space) {
  cp_owned* o = new_owned();
  const float restitution = 0.1f;  // every pair's (see the top of the file)
  cpBody* ground = add_body(space, o, cpBodyNewStatic(), 0.0f, 0.0f);
  cpVect p[BENCH_SPINNER_POINTS];
  for (int i = 0; i < BENCH_SPINNER_POINTS; ++i) {
    float x, y;
    bench_spinner_point(i, &x, &y);
    p[i] = cpv(x, y);
  }
  for (int i = 0; i < BENCH_SPINNER_POINTS; ++i) {
    const int m = BENCH_SPINNER_POINTS;
    cpShape* s = add_shape(space, o, cpSegmentShapeNew(ground, p[i], p[(i + 1) % m], 0.0), 0.0f,
                           0.1f, restitution);
    cpSegmentShapeSetNeighbors(s, p[(i + m - 1) % m], p[(i + 2) % m]);
  }

  cpBody* bar = add_body(space, o, cpBodyNew(0.0, 0.0), 0.0f, 12.0f);
  add_shape(space, o, cpBoxShapeNew(bar, 0.8, 40.0, 0.2), 1.0f, 0.0f, restitution);
  pin_with_motor(space, o, ground, bar, cpv(0.0, 12.0), 5.0f,
                 INFINITY);  // the bar passes the chain

  float x = -23.0f, y = 2.0f;
  for (int i = 0; i < 2 * 3038; ++i) {
    cpBody* body = add_body(space, o, cpBodyNew(0.0, 0.0), x, y);
    if (i % 3 == 0) {
      add_capsule(space, o, body, -0.25f, 0.0f, 0.25f, 0.0f, 0.25f, 0.25f, 0.1f, restitution);
      fix_capsule_moment(body, -0.25f, 0.0f, 0.25f, 0.0f, 0.25f, 0.25f);
    } else if (i % 3 == 1) {
      add_shape(space, o, cpCircleShapeNew(body, 0.35, cpvzero), 0.25f, 0.1f, restitution);
    } else {
      add_shape(space, o, cpBoxShapeNew(body, 0.7, 0.7, 0.0), 0.25f, 0.1f, restitution);
    }
    x += 0.5f;
    if (x >= 23.0f) {
      x = -23.0f;
      y += 0.5f;
    }
  }
  return o;
}

// ---- joint_grid ---------------------------------------------------------------------------

static void* joint_grid_create(cpSpace* space) {
  cp_owned* o = new_owned();
  const int n = 100;
  cpBody** bodies = malloc((size_t)(n * n) * sizeof *bodies);
  if (!bodies) abort();
  const cpShapeFilter filter = cpShapeFilterNew(CP_NO_GROUP, 2, ~(cpBitmask)2);
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) {
      int fixed = k >= n / 2 - 3 && k <= n / 2 + 3 && i == 0;
      cpBody* body =
          add_body(space, o, fixed ? cpBodyNewStatic() : cpBodyNew(0.0, 0.0), (float)k, -(float)i);
      cpShape* circle = add_shape(space, o, cpCircleShapeNew(body, 0.4, cpvzero),
                                  fixed ? 0.0f : 1.0f, 0.6f, 0.0f);
      cpShapeSetFilter(circle, filter);
      int index = k * n + i;
      if (i > 0) {  // never between two static bodies
        add_constraint(space, o,
                       cpPivotJointNew2(bodies[index - 1], body, cpv(0.0, -0.5), cpv(0.0, 0.5)));
      }
      if (k > 0 && !(fixed && cpBodyGetType(bodies[index - n]) == CP_BODY_TYPE_STATIC)) {
        add_constraint(space, o,
                       cpPivotJointNew2(bodies[index - n], body, cpv(0.5, 0.0), cpv(-0.5, 0.0)));
      }
      bodies[index] = body;
    }
  }
  free(bodies);
  return o;
}

static const bench_chipmunk_scene scenes[] = {
    {"rain", rain_create, rain_before_step, rain_destroy},
    {"tumbler", tumbler_create, NULL, owned_destroy},
    {"washer", washer_create, NULL, owned_destroy},
    {"spinner", spinner_create, NULL, owned_destroy},
    {"joint_grid", joint_grid_create, NULL, owned_destroy},
};

const bench_chipmunk_scene* bench_chipmunk_find_scene(const char* name) {
  for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
    if (strcmp(scenes[i].name, name) == 0) return &scenes[i];
  }
  return NULL;
}
