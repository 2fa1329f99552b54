// bench/physics — the physics-extras scenes (arbiter only: the other engines have no
// common interface for these): a 50x50 Verlet cloth, 100 vehicles on a plane, 1000
// bullets in a walled box, 100 ragdolls with limited joints, rain through sensor boxes (Box2D
// v3's joint grid is a scene of the main table, scene_joint_grid.c). Same timing
// rules as bench_physics.c (first step untimed, minimum of the runs, thread CPU time, p99 single
// step). See docs/BENCHMARKS.md, "Physics extras".
#define _POSIX_C_SOURCE 200809L
#include "scenes_extras.h"

#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/vehicle.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/body_defs.h"
#include "../../tests/common/particle_cloth.h"
#include "bench_clock.h"
#include "scenes.h"          // bench_arbiter_sleep_all, bench_arbiter_continuous
#include "scenes_arbiter.h"  // bench_arbiter_max_joint_gap

static arb_world* make_world(arb_vec2 g, float max_speed) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = g;
  if (max_speed > 0.0f) wd.max_linear_speed = max_speed;
  wd.body_capacity = 1100;
  // Arbiter-only scenes: arbiter's own default policy unless --continuous says otherwise.
  const int continuous = bench_arbiter_continuous >= 0 ? bench_arbiter_continuous : 1;
  wd.enable_continuous = continuous != 0;
  wd.continuous_dynamic = continuous != 2;
  wd.enable_contact_recycling = bench_arbiter_recycling != 0;
  wd.enable_sleep = bench_arbiter_sleep_all != 0;  // as the figures before sleeping existed
  return arb_world_create(&wd);
}

static void add_box(arb_world* w, arb_body_type type, float x, float y, float hw, float hh) {
  arb_body_def bd = box_body_def(type, x, y, hw, hh);
  arb_body_create(w, &bd);
}

// Four static walls (bottom, top, left, right) of half-thickness t, centred on the lines
// y = -half, y = +half, x = -half and x = +half.
static void add_walls(arb_world* w, float half, float t) {
  add_box(w, ARB_BODY_STATIC, 0.0f, -half, half, t);
  add_box(w, ARB_BODY_STATIC, 0.0f, half, half, t);
  add_box(w, ARB_BODY_STATIC, -half, 0.0f, t, half);
  add_box(w, ARB_BODY_STATIC, half, 0.0f, t, half);
}

// 50 x 50 particles 0.1 m apart (structural constraints), top row pinned every 7th,
// draping over a static circle onto the ground. 4 substeps x 8 relaxation passes.
static arb_world* build_cloth(int* count) {
  arb_world* w = make_world(arb_v2(0.0f, -9.81f), 0.0f);
  add_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.position = arb_v2(0.5f, 2.0f);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 1.0f;
  arb_body_create(w, &bd);
  const particle_cloth cloth = {50, {-2.0f, 3.5f}, 0.1f, 0.04f, 0.2f, 7};
  particle_cloth_create(w, &cloth);
  *count = arb_world_get_particle_count(w);
  return w;
}

// 100 cars (4 m x 2 m, 1000 kg, 4 wheels) in a 10 x 10 grid on a walled plane, full
// throttle with a different steering each: they drive, turn, skid and collide.
static arb_world* build_vehicles(int* count) {
  arb_world* w = make_world(arb_v2(0.0f, 0.0f), 0.0f);
  add_walls(w, 80.0f, 1.0f);
  for (int k = 0; k < 100; ++k) {
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(-50.0f + 10.0f * (float)(k % 10), -50.0f + 10.0f * (float)(k / 10));
    bd.angle = 0.6f * (float)k;
    bd.mass = 1000.0f;
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(2.0f, 1.0f);
    arb_vehicle_def vd = arb_default_vehicle_def();
    vd.chassis = arb_body_create(w, &bd);
    arb_extra_id v = arb_vehicle_create(w, &vd);
    arb_vehicle_set_input(w, v, (float)(k % 5 - 2) * 0.3f, 1.0f, 0.0f);
  }
  *count = arb_world_get_vehicles(w, NULL, 0);
  return w;
}

// 1000 bullets (circles r 0.05 m) at 100-400 m/s in a 20 m x 20 m box of 0.1 m walls.
static arb_world* build_bullets(int* count) {
  arb_world* w = make_world(arb_v2(0.0f, 0.0f), 1000.0f);
  add_walls(w, 10.0f, 0.05f);
  uint32_t seed = 12345u;
  for (int k = 0; k < 1000; ++k) {
    seed = seed * 1664525u + 1013904223u;
    float a = (float)(seed >> 8) * (6.2831853f / 16777216.0f);
    seed = seed * 1664525u + 1013904223u;
    float speed = 100.0f + 300.0f * (float)(seed >> 8) / 16777216.0f;
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(-9.0f + 0.6f * (float)(k % 31), -9.0f + 0.55f * (float)(k / 31));
    bd.linear_velocity = arb_v2(speed * arb_cos(a), speed * arb_sin(a));
    bd.bullet = true;
    bd.shape.type = ARB_SHAPE_CIRCLE;
    bd.shape.circle.radius = 0.05f;
    bd.shape.restitution = 0.8f;
    bd.shape.friction = 0.0f;
    arb_body_create(w, &bd);
  }
  *count = 1000;
  return w;
}

// How many bullets are outside the box at the end (must be 0: none tunnelled).
static int escaped(arb_world* w) {
  arb_body_id ids[1100];
  int n = arb_world_get_bodies(w, ids, 1100);
  int out = 0;
  for (int i = 0; i < n && i < 1100; ++i) {
    if (arb_body_get_type(w, ids[i]) != ARB_BODY_DYNAMIC) continue;
    arb_vec2 p = arb_body_get_position(w, ids[i]);
    out += p.x < -10.0f || p.x > 10.0f || p.y < -10.0f || p.y > 10.0f;
  }
  return out;
}

// One ragdoll: torso, head, upper arms, forearms, thighs, shins (10 boxes), pinned by 9
// revolute joints with limits (neck, shoulders, elbows, hips, knees); parts of one ragdoll
// do not collide with each other (their own negative group).
static void add_ragdoll(arb_world* w, float x, float y, int32_t group) {
  static const struct {
    float x, y, hw, hh;
  } parts[10] = {{0.0f, 0.0f, 0.2f, 0.4f},      {0.0f, 0.6f, 0.15f, 0.15f},
                 {-0.45f, 0.3f, 0.2f, 0.06f},   {-0.85f, 0.3f, 0.2f, 0.06f},
                 {0.45f, 0.3f, 0.2f, 0.06f},    {0.85f, 0.3f, 0.2f, 0.06f},
                 {-0.1f, -0.65f, 0.07f, 0.25f}, {-0.1f, -1.15f, 0.07f, 0.25f},
                 {0.1f, -0.65f, 0.07f, 0.25f},  {0.1f, -1.15f, 0.07f, 0.25f}};
  // Joint: parts a (child) and b (parent), the pin relative to the torso, the limit.
  static const struct {
    int a, b;
    float x, y, lower, upper;
  } pins[9] = {{1, 0, 0.0f, 0.45f, -0.5f, 0.5f},  {2, 0, -0.25f, 0.3f, -1.5f, 1.5f},
               {3, 2, -0.65f, 0.3f, -2.0f, 0.0f}, {4, 0, 0.25f, 0.3f, -1.5f, 1.5f},
               {5, 4, 0.65f, 0.3f, 0.0f, 2.0f},   {6, 0, -0.1f, -0.4f, -1.0f, 1.0f},
               {7, 6, -0.1f, -0.9f, 0.0f, 2.0f},  {8, 0, 0.1f, -0.4f, -1.0f, 1.0f},
               {9, 8, 0.1f, -0.9f, 0.0f, 2.0f}};
  arb_body_id ids[10];
  for (int i = 0; i < 10; ++i) {
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(x + parts[i].x, y + parts[i].y);
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(parts[i].hw, parts[i].hh);
    bd.shape.group = group;
    ids[i] = arb_body_create(w, &bd);
  }
  for (int i = 0; i < 9; ++i) {
    arb_joint_def jd = arb_default_joint_def();
    jd.type = ARB_JOINT_REVOLUTE;
    jd.body_a = ids[pins[i].b];
    jd.body_b = ids[pins[i].a];
    arb_vec2 p = arb_v2(x + pins[i].x, y + pins[i].y);
    jd.local_anchor_a = arb_sub(p, arb_body_get_position(w, jd.body_a));
    jd.local_anchor_b = arb_sub(p, arb_body_get_position(w, jd.body_b));
    jd.enable_limit = true;
    jd.lower = pins[i].lower;
    jd.upper = pins[i].upper;
    arb_joint_create(w, &jd);
  }
}

// A world (gravity -10, sleeping as --sleep says) with a walled pit 32 m wide: the floor's
// top at y = 0, walls 2 * wall_half_height high.
static arb_world* pit_world(int capacity, float wall_half_height) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, -10.0f);
  wd.body_capacity = capacity;
  wd.enable_sleep = bench_arbiter_sleep_all != 0;
  wd.enable_contact_recycling = bench_arbiter_recycling != 0;
  arb_world* w = arb_world_create(&wd);
  add_box(w, ARB_BODY_STATIC, 0.0f, -1.0f, 20.0f, 1.0f);
  add_box(w, ARB_BODY_STATIC, -17.0f, wall_half_height, 1.0f, wall_half_height);
  add_box(w, ARB_BODY_STATIC, 17.0f, wall_half_height, 1.0f, wall_half_height);
  return w;
}

// 100 ragdolls (1000 bodies, 900 limited revolute joints) dropped in a 10 x 10 grid
// 3 m apart into a walled pit, where they fall onto each other and pile up.
static arb_world* build_ragdolls(int* count) {
  arb_world* w = pit_world(1100, 10.0f);
  for (int k = 0; k < 100; ++k) {
    add_ragdoll(w, -13.5f + 3.0f * (float)(k % 10), 4.0f + 3.0f * (float)(k / 10), -1 - k);
  }
  *count = arb_world_get_body_count(w) - 3;
  return w;
}

// 2000 circles rained into a walled pit through a 10 x 10 grid of static sensor boxes
// (`sensors` false: the same rain without them, so the two rows differ by the sensor pass).
static arb_world* build_rain(int* count, bool sensors) {
  arb_world* w = pit_world(2200, 15.0f);
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(1.2f, 0.8f);
  bd.shape.sensor = true;
  for (int k = 0; k < 100 && sensors; ++k) {
    bd.position = arb_v2(-13.5f + 3.0f * (float)(k % 10), 3.0f + 2.5f * (float)(k / 10));
    arb_body_create(w, &bd);
  }
  bd = arb_default_body_def();
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.25f;
  for (int i = 0; i < 2000; ++i) {
    bd.position = arb_v2(-15.0f + 0.6f * (float)(i % 50), 30.0f + 0.6f * (float)(i / 50));
    arb_body_create(w, &bd);
  }
  *count = 2000;
  return w;
}

static arb_world* build_sensor_rain(int* count) {
  return build_rain(count, true);
}
static arb_world* build_plain_rain(int* count) {
  return build_rain(count, false);
}

static int cmp_d(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

typedef struct xscene {
  const char* name;
  const char* what;  // unit of the count column
  arb_world* (*build)(int* count);
  int steps;
  const char* config;
} xscene;

static const xscene xscenes[] = {
    {"cloth_50x50", "particles", build_cloth, 300,
     "4 substeps x 8 relaxation passes, 4900 constraints"},
    {"vehicles_100", "vehicles", build_vehicles, 300,
     "4 wheels each, 4 tyre iterations, 4 substeps"},
    {"bullets_1000", "bullets", build_bullets, 300,
     "CCD (time of impact) against walls and bodies"},
    {"ragdolls_100", "bodies", build_ragdolls, 300,
     "900 revolute joints with limits, pile-up with contacts, 4 substeps"},
    {"sensors_100", "circles", build_sensor_rain, 300,
     "falling through 100 static sensor boxes (overlap events every step)"},
    {"sensors_none", "circles", build_plain_rain, 300, "the same rain without the sensors"},
};

const char* const bench_extras_scene_names[] = {
    "cloth_50x50", "vehicles_100", "bullets_1000", "ragdolls_100", "sensors_100", "sensors_none",
    NULL};

void bench_extras_run(const char* only_scene, int quick, int runs) {
  for (size_t si = 0; si < sizeof xscenes / sizeof xscenes[0]; ++si) {
    const xscene* x = &xscenes[si];
    if (only_scene && strcmp(only_scene, x->name) != 0) continue;
    int steps = quick ? x->steps / 5 : x->steps;
    double best = 1e30, best_cpu = 1e30, p99 = 0.0;
    double* times = malloc((size_t)steps * sizeof *times);
    int count = 0, out = 0;
    long events = 0;  // sensor begin + end events of the last run
    float gap = 0.0f;
    double e_start = NAN, e_end = NAN;  // rigid bodies only, first run (bench_physics.c)
    for (int r = 0; r < runs && times; ++r) {
      arb_world* w = x->build(&count);
      if (r == 0) e_start = bench_arbiter_world_energy(w);
      arb_world_step(w, 1.0f / 60.0f);  // untimed: pairs and arena warm-up
      double total = 0.0, c0 = bench_cpu_ms();
      for (int i = 0; i < steps - 1; ++i) {
        double t0 = bench_wall_ms();
        arb_world_step(w, 1.0f / 60.0f);
        times[i] = bench_wall_ms() - t0;
        total += times[i];
        if (r == runs - 1) {
          events +=
              arb_world_get_sensor_begin_events(w, NULL) + arb_world_get_sensor_end_events(w, NULL);
        }
      }
      double cpu = (bench_cpu_ms() - c0) / (double)(steps - 1);
      if (r == 0) e_end = bench_arbiter_world_energy(w);
      if (cpu < best_cpu) best_cpu = cpu;
      if (total / (double)(steps - 1) < best) {
        best = total / (double)(steps - 1);
        qsort(times, (size_t)(steps - 1), sizeof *times, cmp_d);
        p99 = times[(int)((double)(steps - 2) * 0.99)];
      }
      if (x->build == build_bullets) out = escaped(w);
      if (x->build == build_ragdolls) gap = bench_arbiter_max_joint_gap(w);
      arb_world_destroy(w);
    }
    free(times);
    char energy[32];
    bench_format_energy(e_start, e_end, energy, (int)sizeof energy);
    printf("%-14s %-9s %7d %9.3f %9.3f %9.3f %9s %8s %11s  %d %s; %s\n", x->name, "arbiter", count,
           best, best_cpu, p99, "-", "-", energy, count, x->what, x->config);
    if (x->build == build_bullets)
      printf("%-14s %-9s bullets outside the box after the run: %d\n", "", "", out);
    if (x->build == build_ragdolls)
      printf("%-14s %-9s largest joint gap after the run: %.4f m\n", "", "", (double)gap);
    if (x->build == build_sensor_rain)
      printf("%-14s %-9s sensor begin + end events in the run: %ld\n", "", "", events);
    fflush(stdout);
  }
}
