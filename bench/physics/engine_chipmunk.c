// bench/physics — the scenes built with Chipmunk2D 7 (Debian libchipmunk-dev).
// bench_engine_chipmunk_defaults is the same with Chipmunk's own defaults (one step, slop
// 0.1 m), for reference. Matched to arbiter: 4 substeps per 1/60 s step (cpSpaceStep(dt/4) four times) with
// Chipmunk's default 10 iterations, collision slop 0.005 m (arbiter's linear slop; the
// default 0.1 m lets a 1 m box sink 10 %), sleeping off unless the scene says every engine
// sleeps (smash: after 0.5 s at rest, as arbiter and Box2D). Chipmunk multiplies friction
// (fa*fb), so each shape gets sqrt(0.6) to give the same pair friction 0.6.
#include <chipmunk/chipmunk.h>
#include <math.h>
#include <stdlib.h>

#include "scenes.h"

enum { CP_SUBSTEPS = 4 };

typedef struct cp_bench {
  cpSpace* space;
  int substeps;
  cpBody** bodies;
  cpShape** shapes;
  int count;
} cp_bench;

static void* chipmunk_create_with(const bench_scene* s, int defaults) {
  cp_bench* b = calloc(1, sizeof *b);
  b->space = cpSpaceNew();
  cpSpaceSetGravity(b->space, cpv(s->gx, s->gy));
  cpSpaceSetIterations(b->space, 10);
  b->substeps = defaults ? 1 : CP_SUBSTEPS;
  if (!defaults) cpSpaceSetCollisionSlop(b->space, 0.005);
  if (s->every_engine_sleeps) cpSpaceSetSleepTimeThreshold(b->space, 0.5);
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

static void* chipmunk_create(const bench_scene* s) { return chipmunk_create_with(s, 0); }
static void* chipmunk_create_defaults(const bench_scene* s) { return chipmunk_create_with(s, 1); }

static void chipmunk_step(void* p, float dt) {
  cp_bench* b = p;
  for (int i = 0; i < b->substeps; ++i) cpSpaceStep(b->space, dt / (float)b->substeps);
}

static float chipmunk_body_y(void* p, int index) {
  cp_bench* b = p;
  return (float)cpBodyGetPosition(b->bodies[index]).y;
}

static void chipmunk_destroy(void* p) {
  cp_bench* b = p;
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

const bench_engine bench_engine_chipmunk = {"chipmunk", "4 substeps x 10 iterations, slop 0.005",
                                            chipmunk_create, chipmunk_step, chipmunk_body_y,
                                            chipmunk_destroy, NULL};
// Chipmunk as shipped: one cpSpaceStep per tick, 10 iterations, slop 0.1 m.
const bench_engine bench_engine_chipmunk_defaults = {"chipmunk-defaults", "1 step x 10 iterations, slop 0.1 (defaults)",
                                                     chipmunk_create_defaults, chipmunk_step,
                                                     chipmunk_body_y, chipmunk_destroy, NULL};
