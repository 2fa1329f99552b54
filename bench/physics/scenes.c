// bench/physics — the benchmark scenes, defined as the reference engine (Box2D v3)
// defines large_pyramid and many_pyramids; rain_circles, free_field and resting_10k as the
// issues describe them. 1/60 s step, gravity (0, -10), friction 0.6, restitution 0, density 1.
// Box2D v3's scenes with joints, chains, capsules, kinematic drums or spawned bodies (rain,
// tumbler, washer, spinner, joint_grid) have no body list here: every engine builds them with
// its own code (bench_scene.own_construction).
#include "scenes.h"

#include <stdlib.h>
#include <string.h>

#include "scenes_shared.h"

const char* const bench_scene_names[] = {"large_pyramid",  "many_pyramids",
                                         "rain_circles",   "free_field",
                                         "resting_10k",    "smash",
                                         "joint_grid",     "tumbler",
                                         "washer",         "spinner",
                                         "rain",           "arena",
                                         "bouncy_circles", "bouncy_circles_095",
                                         "bouncy_topdown", "bouncy_boxes",
                                         "bouncy_mixed",   NULL};

typedef struct builder {
  bench_body* b;
  int count, cap;
} builder;

static bench_body* add(builder* bl) {
  if (bl->count == bl->cap) {
    bl->cap = bl->cap ? bl->cap * 2 : 1024;
    bl->b = realloc(bl->b, (size_t)bl->cap * sizeof *bl->b);
    if (!bl->b) abort();
  }
  bench_body* b = &bl->b[bl->count++];
  memset(b, 0, sizeof *b);
  return b;
}

static void add_box(builder* bl, int is_static, float x, float y, float hw, float hh) {
  bench_body* b = add(bl);
  b->is_static = is_static;
  b->kind = BENCH_BOX;
  b->x = x;
  b->y = y;
  b->hw = hw;
  b->hh = hh;
}

// A pyramid of 1x1 boxes resting exactly on each other (Box2D v3 benchmark layout).
static int add_pyramid(builder* bl, int base, float extent, float center_x, float base_y) {
  int top = -1;
  for (int i = 0; i < base; ++i) {
    float y = (2.0f * (float)i + 1.0f) * extent + base_y;
    for (int j = i; j < base; ++j) {
      float x = ((float)i + 1.0f) * extent + 2.0f * (float)(j - i) * extent + center_x;
      top = bl->count;
      add_box(bl, 0, x, y, extent, extent);
    }
  }
  return top;
}

// Deterministic uniform numbers in [0, 1) for the scene layout (not the simulation).
static float lcg(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)(*s >> 8) / 16777216.0f;
}

// Box2D v3 "smash": zero gravity, a 8 x 8 m box of density 8 at 40 m/s into a 120 x 80 grid
// of 0.4 m boxes created asleep; sleeping on (its world default) in every engine; 300 steps.
static void build_smash(builder* bl, bench_scene* s) {
  s->name = "smash";
  s->steps = 300;
  s->gy = 0.0f;
  s->sleeping = 1;
  s->every_engine_sleeps = 1;
  bench_body* ram = add(bl);
  ram->kind = BENCH_BOX;
  ram->x = -20.0f;
  ram->hw = ram->hh = 4.0f;
  ram->vx = 40.0f;
  ram->density = 8.0f;
  float d = 0.4f;
  int columns = 120, rows = 80;
  for (int i = 0; i < columns; ++i) {
    for (int j = 0; j < rows; ++j) {
      bench_body* b = add(bl);
      b->kind = BENCH_BOX;
      b->hw = b->hh = 0.5f * d;
      b->x = (float)i * d + 30.0f;
      b->y = ((float)j - (float)rows / 2.0f) * d;
      b->asleep = 1;
    }
  }
}

// A Box2D v3 scene with joints or bodies that come and go: each engine builds it itself
// (arbiter: scenes_arbiter.h, Box2D 2.4: scenes_box2d.cpp, Chipmunk: scenes_chipmunk.c,
// Box2D v3: its benchmark code), with sleeping as Box2D v3's Create function leaves it:
// its world default (on) unless it turns it off (joint_grid).
static void own_construction(bench_scene* s, const char* name, int steps, int sleeping) {
  s->name = name;
  s->steps = steps;
  s->sleeping = sleeping;
  s->every_engine_sleeps = sleeping;
  s->own_construction = 1;
}

// The Box2D v3 scenes that build themselves, with their run length and sleeping.
typedef struct own_scene_row {
  const char* name;
  int steps;
  int sleeping;
} own_scene_row;
static const own_scene_row own_scenes[] = {
    {"rain", 1000, 1},       // ragdoll rain: bodies appear and vanish while it runs (scene_rain.c)
    {"tumbler", 750, 1},     // a motor-driven drum, one body of four walls (scene_tumbler.c)
    {"washer", 500, 1},      // a turning kinematic drum of 40 quads (scene_washer.c)
    {"spinner", 500, 1},     // a motor-driven bar inside a chain loop (scene_spinner.c)
    {"joint_grid", 500, 0},  // 100 x 100 circles, 19 800 revolute joints (6 of them between two
                             // static bodies), no contacts, sleeping off (scene_joint_grid.c)
};

static const own_scene_row* own_scene(const char* name) {
  for (size_t i = 0; i < sizeof own_scenes / sizeof own_scenes[0]; ++i)
    if (strcmp(own_scenes[i].name, name) == 0) return &own_scenes[i];
  return NULL;
}

int bench_scene_build(const char* name, bench_scene* s) {
  memset(s, 0, sizeof *s);
  builder bl = {0};
  s->gx = 0.0f;
  s->gy = -10.0f;
  s->dt = 1.0f / 60.0f;
  s->friction = 0.6f;
  s->top_body = -1;
  if (strcmp(name, "large_pyramid") == 0) {
    // Base 100 (5050 boxes) on a static 200 x 2 m box centred at (0, -1); 500 steps.
    s->name = "large_pyramid";
    s->steps = 500;
    add_box(&bl, 1, 0.0f, -1.0f, 100.0f, 1.0f);
    int base = 100;
    s->top_body = add_pyramid(&bl, base, 0.5f, -0.5f * (float)base, 0.0f);
  } else if (strcmp(name, "many_pyramids") == 0) {
    // 20 x 20 pyramids of base 10 on 20 static ground segments 11 m apart; 200 steps.
    s->name = "many_pyramids";
    s->steps = 200;
    int base = 10, rows = 20, cols = 20;
    float extent = 0.5f;
    float ground_dy = 2.0f * extent * ((float)base + 1.0f);
    float ground_w = 2.0f * extent * (float)cols * ((float)base + 1.0f);
    float gy = 0.0f;
    for (int i = 0; i < rows; ++i) {
      bench_body* g = add(&bl);
      g->is_static = 1;
      g->kind = BENCH_SEGMENT;
      g->ax = -0.5f * ground_w;
      g->ay = gy;
      g->bx = 0.5f * ground_w;
      g->by = gy;
      gy += ground_dy;
    }
    float base_w = 2.0f * extent * (float)base, base_y = 0.0f;
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        float cx = -0.5f * ground_w + (float)j * (base_w + 2.0f * extent) + 2.0f * extent;
        int top = add_pyramid(&bl, base, extent, cx - 0.5f, base_y);
        if (i == 0 && j == 0) s->top_body = top;
      }
      base_y += ground_dy;
    }
  } else if (strcmp(name, "rain_circles") == 0) {
    // 4000 circles, r 0.25-0.5, dropped in columns into a box 40 m wide with 40 m walls
    // standing on a wide ground (what overflows the rim lands there); 1000 steps.
    s->name = "rain_circles";
    s->steps = 1000;
    add_box(&bl, 1, 0.0f, -1.0f, 100.0f, 1.0f);   // wide ground, top at y = 0
    add_box(&bl, 1, -20.5f, 20.0f, 0.5f, 20.0f);  // left wall
    add_box(&bl, 1, 20.5f, 20.0f, 0.5f, 20.0f);   // right wall
    unsigned seed = 12345u;
    int cols = 36;
    for (int k = 0; k < 4000; ++k) {
      int row = k / cols, col = k % cols;
      bench_body* c = add(&bl);
      c->kind = BENCH_CIRCLE;
      c->radius = 0.25f + 0.25f * lcg(&seed);
      c->x = -17.5f + (float)col * 1.0f + 0.2f * (lcg(&seed) - 0.5f);
      c->y = 45.0f + (float)row * 1.1f;
    }
  } else if (strcmp(name, "free_field") == 0) {
    // 1000 bodies (boxes and circles alternating) on a 40 x 25 grid, 3 m apart, all with
    // the same velocity: they fall and drift together and never touch; 1000 steps.
    s->name = "free_field";
    s->steps = 1000;
    for (int k = 0; k < 1000; ++k) {
      bench_body* b = add(&bl);
      b->kind = (k & 1) ? BENCH_CIRCLE : BENCH_BOX;
      b->hw = b->hh = 0.5f;
      b->radius = 0.5f;
      b->x = (float)(k % 40) * 3.0f;
      b->y = (float)(k / 40) * 3.0f;
      b->vx = 2.0f;
      b->vy = 1.0f;
      b->w = 0.5f;
    }
  } else if (strcmp(name, "resting_10k") == 0) {
    // 10 000 dynamic bodies, 1 % of them moving: 20 static ground segments 10 m apart,
    // each holding 165 columns of three 1 m boxes (1.5 m apart, resting exactly on each
    // other) and, in a free lane at the right end, 5 circles of radius 0.5 rolling at
    // 1 m/s (nothing slows a rolling circle, so they stay awake). 60 untimed warm-up
    // steps (the boxes settle and, with sleeping on, fall asleep), then 500 timed steps.
    s->name = "resting_10k";
    s->steps = 560;
    s->warmup = 60;
    s->sleeping = 1;
    for (int row = 0; row < 20; ++row) {
      float gy = 10.0f * (float)row;
      bench_body* g = add(&bl);
      g->is_static = 1;
      g->kind = BENCH_SEGMENT;
      g->ax = -10.0f;
      g->ay = gy;
      g->bx = 290.0f;
      g->by = gy;
      for (int c = 0; c < 165; ++c) {
        for (int k = 0; k < 3; ++k)
          add_box(&bl, 0, 1.5f * (float)c, gy + 0.5f + (float)k, 0.5f, 0.5f);
      }
      for (int k = 0; k < 5; ++k) {
        bench_body* b = add(&bl);
        b->kind = BENCH_CIRCLE;
        b->radius = 0.5f;
        b->x = 255.0f + 2.0f * (float)k;
        b->y = gy + 0.5f;
        b->vx = 1.0f;
        b->w = -2.0f;  // rolling without slipping: w = -v / r
      }
    }
  } else if (strcmp(name, "smash") == 0) {
    build_smash(&bl, s);
  } else if (own_scene(name)) {
    const own_scene_row* o = own_scene(name);
    own_construction(s, o->name, o->steps, o->sleeping);
  } else if (strcmp(name, "arena") == 0) {
    // The capacity benchmark's world (scenes_shared.h, scene_arena.c): 10 000 bodies, top
    // down, most asleep; sleeping on; 60 untimed steps (the mixers' balls and the walkers
    // get going), then 540 timed.
    own_construction(s, "arena", 600, 1);
    s->gy = 0.0f;
    s->warmup = 60;
  } else if (bench_bouncy_find(name)) {
    // The bouncy crowds (scenes_shared.h; scene_bouncy.c, scene_bouncy_box2d_v3.c): 400
    // bodies of restitution 1 (or 0.95) and friction 0 in a closed box; sleeping off; 1200
    // steps, the energy sampled every 30 in an extra untimed run.
    const bench_bouncy_scene* b = bench_bouncy_find(name);
    own_construction(s, b->name, BENCH_BOUNCY_STEPS, 0);
    s->gy = b->gravity;
    s->probe_every = BENCH_BOUNCY_SAMPLE_EVERY;
    s->probe_box[0] = -BENCH_BOUNCY_HALF_WIDTH;
    s->probe_box[1] = 0.0f;
    s->probe_box[2] = BENCH_BOUNCY_HALF_WIDTH;
    s->probe_box[3] = BENCH_BOUNCY_HEIGHT;
  } else {
    return -1;
  }
  s->count = bl.count;
  s->bodies = bl.b;
  return 0;
}

void bench_scene_free(bench_scene* s) {
  free(s->bodies);
  memset(s, 0, sizeof *s);
}
