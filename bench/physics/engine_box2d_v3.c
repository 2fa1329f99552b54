// bench/physics — Box2D v3, built from the source tree given at configure time
// (BOX2D_V3_SRC, see box2d_v3.cmake). Scenes that Box2D v3's own benchmark defines are
// built by its benchmark code (shared/benchmarks.c of that tree), so the reference runs
// exactly what its `benchmark` program runs: 4 substeps, its world defaults (continuous
// collision on), one worker (no task callbacks: its serial path). The arena, which its
// benchmark does not have, is built by scene_arena_box2d_v3.c as arbiter's scene_arena.c
// builds it. Other scenes are built from the engine-neutral description, like the other
// engines.
#include <benchmarks.h>
#include <box2d/box2d.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene_arena_box2d_v3.h"
#include "scene_bouncy_box2d_v3.h"
#include "scenes.h"

typedef struct b3_scene_fns {
  const char* name;
  void (*create)(b2WorldId);
  float (*step)(b2WorldId, int);  // called before every step, as its benchmark does; or NULL
} b3_scene_fns;

static const b3_scene_fns own_scenes[] = {
    {"large_pyramid", CreateLargePyramid, NULL},
    {"many_pyramids", CreateManyPyramids, NULL},
    {"joint_grid", CreateJointGrid, NULL},
    {"smash", CreateSmash, NULL},
    {"tumbler", CreateTumbler, NULL},
    {"washer", CreateWasher, NULL},
    {"rain", CreateRain, StepRain},
    {"spinner", CreateSpinner, StepSpinner},
    {"arena", bench_b3_create_arena, bench_b3_step_arena},  // ours (scene_arena_box2d_v3.c)
    // ours too (scene_bouncy_box2d_v3.c)
    {"bouncy_circles", bench_b3_create_bouncy_circles, NULL},
    {"bouncy_circles_095", bench_b3_create_bouncy_circles_095, NULL},
    {"bouncy_topdown", bench_b3_create_bouncy_topdown, NULL},
    {"bouncy_boxes", bench_b3_create_bouncy_boxes, NULL},
    {"bouncy_mixed", bench_b3_create_bouncy_mixed, NULL},
    {NULL, NULL, NULL},
};

typedef struct b3_bench {
  b2WorldId world;
  const b3_scene_fns* own;  // NULL: built from the neutral description
  int step_index;
  b2BodyId* bodies;  // neutral scenes: one per bench_body
  int count;         // of bodies
  b2BodyId top;      // own scenes with a top body: found by position
} b3_bench;

static const b3_scene_fns* find_own(const char* name) {
  for (const b3_scene_fns* f = own_scenes; f->name; ++f) {
    if (strcmp(f->name, name) == 0) return f;
  }
  return NULL;
}

static void build_neutral(b3_bench* b, const bench_scene* s) {
  b->bodies = calloc((size_t)s->count, sizeof *b->bodies);
  if (!b->bodies) abort();
  b->count = s->count;
  b2World_EnableSleeping(b->world, s->sleeping != 0);
  for (int i = 0; i < s->count; ++i) {
    const bench_body* d = &s->bodies[i];
    b2BodyDef bd = b2DefaultBodyDef();
    bd.type = d->is_static ? b2_staticBody : b2_dynamicBody;
    bd.position = (b2Pos){d->x, d->y};
    bd.linearVelocity = (b2Vec2){d->vx, d->vy};
    bd.angularVelocity = d->w;
    b2BodyId id = b2CreateBody(b->world, &bd);
    b2ShapeDef sd = b2DefaultShapeDef();
    sd.density = 1.0f;
    sd.material.friction = s->friction;
    if (d->kind == BENCH_BOX) {
      b2Polygon box = b2MakeBox(d->hw, d->hh);
      b2CreatePolygonShape(id, &sd, &box);
    } else if (d->kind == BENCH_CIRCLE) {
      b2Circle c = {{0.0f, 0.0f}, d->radius};
      b2CreateCircleShape(id, &sd, &c);
    } else {
      b2Segment seg = {{d->ax, d->ay}, {d->bx, d->by}};
      b2CreateSegmentShape(id, &sd, &seg);
    }
    b->bodies[i] = id;
  }
}

static bool take_dynamic(b2ShapeId shape, void* context) {
  b2BodyId body = b2Shape_GetBody(shape);
  if (b2Body_GetType(body) != b2_dynamicBody) return true;
  *(b2BodyId*)context = body;
  return false;
}

static void* b3_create(const bench_scene* s) {
  b3_bench* b = calloc(1, sizeof *b);
  if (!b) abort();
  b2WorldDef wd = b2DefaultWorldDef();
  wd.workerCount = 1;
  // A scene without sleeping is created without it (its benchmark's own scenes that turn
  // it off do so again in their Create function; the neutral ones in build_neutral).
  if (!s->sleeping) wd.enableSleep = false;
  b->world = b2CreateWorld(&wd);
  b->own = find_own(s->name);
  if (b->own) {
    b->own->create(b->world);
    if (s->top_body >= 0) {  // the box the neutral description puts at the top
      const bench_body* t = &s->bodies[s->top_body];
      b2AABB box = {{t->x - 0.01f, t->y - 0.01f}, {t->x + 0.01f, t->y + 0.01f}};
      b2World_OverlapAABB(b->world, b2Pos_zero, box, b2DefaultQueryFilter(), take_dynamic, &b->top);
    }
  } else {
    b2World_SetGravity(b->world, (b2Vec2){s->gx, s->gy});
    build_neutral(b, s);
  }
  return b;
}

static void b3_step(void* p, float dt) {
  b3_bench* b = p;
  if (b->own && b->own->step) b->own->step(b->world, b->step_index);
  b->step_index++;
  b2World_Step(b->world, dt, 4);
}

static float b3_body_y(void* p, int index) {
  b3_bench* b = p;
  b2BodyId id = b->own ? b->top : b->bodies[index];
  return b2Body_IsValid(id) ? (float)b2Body_GetPosition(id).y : 0.0f;
}

static void b3_destroy(void* p) {
  b3_bench* b = p;
  b2DestroyWorld(b->world);
  free(b->bodies);
  free(b);
}

// The dynamic bodies of an own scene, which its benchmark code builds without handing out
// their ids (and rain creates and destroys while it runs): every shape of the world from an
// AABB query over its bounds, each body once.
typedef struct b3_body_list {
  b2BodyId* ids;
  int count, cap;
  bool failed;
} b3_body_list;

static bool collect_dynamic(b2ShapeId shape, void* context) {
  b3_body_list* l = context;
  b2BodyId body = b2Shape_GetBody(shape);
  if (b2Body_GetType(body) != b2_dynamicBody) return true;
  if (l->count == l->cap) {
    int cap = l->cap > 0 ? 2 * l->cap : 1024;
    b2BodyId* ids = realloc(l->ids, (size_t)cap * sizeof *ids);
    if (!ids) {
      l->failed = true;
      return false;
    }
    l->ids = ids;
    l->cap = cap;
  }
  l->ids[l->count++] = body;
  return true;
}

static int cmp_body_index(const void* a, const void* b) {
  int32_t x = ((const b2BodyId*)a)->index1, y = ((const b2BodyId*)b)->index1;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static double body_energy(b2BodyId id, b2Vec2 g) {
  double m = b2Body_GetMass(id), inertia = b2Body_GetRotationalInertia(id);
  b2Vec2 v = b2Body_GetLinearVelocity(id);
  b2Pos c = b2Body_GetWorldCenter(id);
  double om = b2Body_GetAngularVelocity(id);
  return 0.5 * m * ((double)v.x * v.x + (double)v.y * v.y) + 0.5 * inertia * om * om -
         m * ((double)g.x * (double)c.x + (double)g.y * (double)c.y);
}

// The dynamic bodies of an own scene, each once (a list to free), or a NULL list when out of
// memory.
static b3_body_list own_dynamic_bodies(b3_bench* b) {
  b3_body_list l = {NULL, 0, 0, false};
  b2AABB box = b2World_GetBounds(b->world);
  box.lowerBound = (b2Vec2){box.lowerBound.x - 1.0f, box.lowerBound.y - 1.0f};
  box.upperBound = (b2Vec2){box.upperBound.x + 1.0f, box.upperBound.y + 1.0f};
  b2QueryFilter every = {UINT64_MAX, UINT64_MAX};  // whatever the shapes' filters
  b2World_OverlapAABB(b->world, b2Pos_zero, box, every, collect_dynamic, &l);
  if (l.failed) {
    free(l.ids);
    return (b3_body_list){NULL, 0, 0, true};
  }
  // The shapes of one body next to each other, to keep it once.
  if (l.count > 1) qsort(l.ids, (size_t)l.count, sizeof *l.ids, cmp_body_index);
  int n = 0;
  for (int i = 0; i < l.count; ++i) {
    if (i == 0 || l.ids[i].index1 != l.ids[i - 1].index1) l.ids[n++] = l.ids[i];
  }
  l.count = n;
  return l;
}

static double b3_energy(void* p) {
  b3_bench* b = p;
  b2Vec2 g = b2World_GetGravity(b->world);
  double e = 0.0;
  if (!b->own) {
    for (int i = 0; i < b->count; ++i) {
      if (b2Body_GetType(b->bodies[i]) == b2_dynamicBody) e += body_energy(b->bodies[i], g);
    }
    return e;
  }
  b3_body_list l = own_dynamic_bodies(b);
  if (l.failed) return NAN;
  for (int i = 0; i < l.count; ++i) e += body_energy(l.ids[i], g);
  free(l.ids);
  return e;
}

static int b3_census(void* p, const float box[4], double* max_speed) {
  b3_bench* b = p;
  b3_body_list l = {b->bodies, b->count, b->count, false};
  if (b->own) l = own_dynamic_bodies(b);
  if (l.failed) abort();
  int outside = 0;
  double fastest = 0.0;
  for (int i = 0; i < l.count; ++i) {
    if (b2Body_GetType(l.ids[i]) != b2_dynamicBody) continue;
    b2Pos c = b2Body_GetWorldCenter(l.ids[i]);
    b2Vec2 v = b2Body_GetLinearVelocity(l.ids[i]);
    if (!(c.x >= box[0] && c.y >= box[1] && c.x <= box[2] && c.y <= box[3])) outside++;
    double speed = sqrt((double)v.x * v.x + (double)v.y * v.y);
    if (speed > fastest) fastest = speed;
  }
  if (b->own) free(l.ids);
  *max_speed = fastest;
  return outside;
}

static int b3_builds_own(const char* name) {
  return find_own(name) != NULL;
}

#ifdef BENCH_BOX2D_V3_AVX2
#define BOX2D_V3_ISA "AVX2"
#else
#define BOX2D_V3_ISA "SSE2"
#endif
const bench_engine bench_engine_box2d_v3 = {
    "box2d-v3", "its benchmark: 4 substeps, 1 worker, its defaults, " BOX2D_V3_ISA,
    b3_create,  b3_step,
    b3_body_y,  b3_destroy,
    NULL,       b3_builds_own,
    b3_energy,  b3_census};
