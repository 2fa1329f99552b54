// bench/physics — the scenes built with Chipmunk2D 7 (Debian libchipmunk-dev).
// bench_engine_chipmunk_defaults is the same with Chipmunk's own defaults (one step, slop
// 0.1 m), for reference. Matched to arbiter: 4 substeps per 1/60 s step (cpSpaceStep(dt/4) four
// times) with Chipmunk's default 10 iterations, collision slop 0.005 m (arbiter's linear slop; the
// default 0.1 m lets a 1 m box sink 10 %), sleeping off unless the scene says every engine
// sleeps (smash and the own-construction scenes Box2D v3 defines with sleeping on: after
// 0.5 s at rest, as arbiter and Box2D). Chipmunk multiplies friction (fa*fb), so each shape
// gets sqrt(0.6) to give the same pair friction 0.6. The neutral scenes come from their body
// list; the own-construction scenes (rain, tumbler, spinner, washer, joint_grid) from
// scenes_chipmunk.c, with a hook before every step.
#include <chipmunk/chipmunk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenes.h"
#include "scenes_chipmunk.h"

enum { CP_SUBSTEPS = 4 };

typedef struct cp_bench {
  cpSpace* space;
  int substeps;
  cpBody** bodies;
  cpShape** shapes;
  int count;
  const bench_chipmunk_scene* own;  // NULL: built from the neutral description
  void* own_state;
  int step_index;
} cp_bench;

static void* chipmunk_create_with(const bench_scene* s, int defaults) {
  cp_bench* b = calloc(1, sizeof *b);
  b->space = cpSpaceNew();
  cpSpaceSetGravity(b->space, cpv(s->gx, s->gy));
  cpSpaceSetIterations(b->space, 10);
  b->substeps = defaults ? 1 : CP_SUBSTEPS;
  if (!defaults) cpSpaceSetCollisionSlop(b->space, 0.005);
  if (s->every_engine_sleeps) cpSpaceSetSleepTimeThreshold(b->space, 0.5);
  if (s->own_construction) {
    b->own = bench_chipmunk_find_scene(s->name);  // bench_physics.c asked chipmunk_builds_own first
    b->own_state = b->own->create(b->space);
    return b;
  }
  b->bodies = calloc((size_t)s->count, sizeof *b->bodies);
  b->shapes = calloc((size_t)s->count, sizeof *b->shapes);
  b->count = s->count;
  float friction = sqrtf(s->friction);
  for (int i = 0; i < s->count; ++i) {
    const bench_body* d = &s->bodies[i];
    cpBody* body;
    if (d->is_static) {
      body = cpBodyNewStatic();
    } else {
      double mass, moment, density = d->density > 0.0f ? d->density : 1.0;
      if (d->kind == BENCH_BOX) {
        mass = density * 4.0 * d->hw * d->hh;
        moment = cpMomentForBox(mass, 2.0 * d->hw, 2.0 * d->hh);
      } else {
        mass = density * 3.14159265358979 * d->radius * d->radius;
        moment = cpMomentForCircle(mass, 0.0, d->radius, cpvzero);
      }
      body = cpBodyNew(mass, moment);
      cpBodySetVelocity(body, cpv(d->vx, d->vy));
      cpBodySetAngularVelocity(body, d->w);
    }
    cpBodySetPosition(body, cpv(d->x, d->y));
    cpSpaceAddBody(b->space, body);
    cpShape* shape;
    if (d->kind == BENCH_BOX) {
      shape = cpBoxShapeNew(body, 2.0 * d->hw, 2.0 * d->hh, 0.0);
    } else if (d->kind == BENCH_CIRCLE) {
      shape = cpCircleShapeNew(body, d->radius, cpvzero);
    } else {
      shape = cpSegmentShapeNew(body, cpv(d->ax, d->ay), cpv(d->bx, d->by), 0.0);
    }
    cpShapeSetFriction(shape, friction);
    cpShapeSetElasticity(shape, 0.0);
    cpSpaceAddShape(b->space, shape);
    if (d->is_static) cpSpaceReindexShapesForBody(b->space, body);
    if (d->asleep && !d->is_static && s->every_engine_sleeps) cpBodySleep(body);
    b->bodies[i] = body;
    b->shapes[i] = shape;
  }
  return b;
}

static void* chipmunk_create(const bench_scene* s) {
  return chipmunk_create_with(s, 0);
}
static void* chipmunk_create_defaults(const bench_scene* s) {
  return chipmunk_create_with(s, 1);
}

static void chipmunk_step(void* p, float dt) {
  cp_bench* b = p;
  if (b->own && b->own->before_step) b->own->before_step(b->own_state, b->space, b->step_index);
  b->step_index++;
  for (int i = 0; i < b->substeps; ++i) cpSpaceStep(b->space, dt / (float)b->substeps);
}

static float chipmunk_body_y(void* p, int index) {
  cp_bench* b = p;
  if (b->own) return 0.0f;  // no top body in an own-construction scene
  return (float)cpBodyGetPosition(b->bodies[index]).y;
}

static void chipmunk_destroy(void* p) {
  cp_bench* b = p;
  if (b->own) b->own->destroy(b->own_state, b->space);
  for (int i = 0; i < b->count; ++i) {
    cpSpaceRemoveShape(b->space, b->shapes[i]);
    cpShapeFree(b->shapes[i]);
  }
  for (int i = 0; i < b->count; ++i) {
    cpSpaceRemoveBody(b->space, b->bodies[i]);
    cpBodyFree(b->bodies[i]);
  }
  cpSpaceFree(b->space);
  free(b->bodies);
  free(b->shapes);
  free(b);
}

typedef struct cp_counts {
  int bodies, awake, constraints;
  double fastest, lowest;  // how far it went wrong, if it did
} cp_counts;

// Each constraint once, from its body A (the space's own list leaves out the sleeping ones).
static void count_constraint(cpBody* body, cpConstraint* constraint, void* data) {
  if (cpConstraintGetBodyA(constraint) == body) ((cp_counts*)data)->constraints++;
}

static void count_body(cpBody* body, void* data) {
  cp_counts* c = data;
  c->bodies++;
  cpBodyEachConstraint(body, count_constraint, c);
  if (cpBodyGetType(body) != CP_BODY_TYPE_DYNAMIC) return;
  c->awake += !cpBodyIsSleeping(body);
  c->fastest = fmax(c->fastest, cpvlength(cpBodyGetVelocity(body)));
  c->lowest = fmin(c->lowest, cpBodyGetPosition(body).y);
}

// The own-construction scenes' final state (the neutral scenes print no line).
static void chipmunk_report(void* p, char* line, int cap) {
  cp_bench* b = p;
  if (!b->own) return;
  cp_counts c = {0, 0, 0, 0.0, INFINITY};
  cpSpaceEachBody(b->space, count_body, &c);
  snprintf(line, (size_t)cap,
           "%d bodies (%d awake), %d constraints; fastest body %.1f m/s, lowest at y = %.1f m",
           c.bodies, c.awake, c.constraints, c.fastest, c.lowest);
}

typedef struct cp_energy {
  cpVect g;
  double e;
} cp_energy;

static void add_energy(cpBody* body, void* data) {
  cp_energy* c = data;
  if (cpBodyGetType(body) != CP_BODY_TYPE_DYNAMIC) return;
  // The moment is about the centre of gravity, the velocity that of the centre of gravity.
  double m = cpBodyGetMass(body), moment = cpBodyGetMoment(body);
  cpVect v = cpBodyGetVelocity(body);
  cpVect p = cpBodyLocalToWorld(body, cpBodyGetCenterOfGravity(body));
  double w = cpBodyGetAngularVelocity(body);
  c->e += 0.5 * m * cpvlengthsq(v) + 0.5 * moment * w * w - m * cpvdot(c->g, p);
}

// Every body of the space, asleep or awake, neutral or own scene.
static double chipmunk_energy(void* p) {
  cp_bench* b = p;
  cp_energy c = {cpSpaceGetGravity(b->space), 0.0};
  cpSpaceEachBody(b->space, add_energy, &c);
  return c.e;
}

static int chipmunk_builds_own(const char* name) {
  return bench_chipmunk_find_scene(name) != NULL;
}

const bench_engine bench_engine_chipmunk = {
    "chipmunk",      "4 substeps x 10 iterations, slop 0.005",
    chipmunk_create, chipmunk_step,
    chipmunk_body_y, chipmunk_destroy,
    chipmunk_report, chipmunk_builds_own,
    chipmunk_energy, NULL};
// Chipmunk as shipped: one cpSpaceStep per tick, 10 iterations, slop 0.1 m.
const bench_engine bench_engine_chipmunk_defaults = {
    "chipmunk-defaults",      "1 step x 10 iterations, slop 0.1 (defaults)",
    chipmunk_create_defaults, chipmunk_step,
    chipmunk_body_y,          chipmunk_destroy,
    chipmunk_report,          chipmunk_builds_own,
    chipmunk_energy,          NULL};
