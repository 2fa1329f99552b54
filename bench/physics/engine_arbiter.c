// bench/physics — the scenes built with arbiter (4 substeps, soft contacts: the defaults):
// from the neutral body list, or by the scene's own construction (scenes_arbiter.h) with a
// hook before every step, as the Box2D v3 engine runs its benchmark's step functions.
#define _POSIX_C_SOURCE 200809L
#include <arbiter/joint.h>
#include <arbiter/world.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenes.h"
#include "scenes_arbiter.h"

int bench_arbiter_solve_iterations = 1;
int bench_arbiter_relax_iterations = 1;
int bench_arbiter_continuous = -1;
int bench_arbiter_recycling = 1;
int bench_arbiter_sleep_all = 0;
int bench_arbiter_workers = 1;

// The scenes arbiter builds with its own API (bench_scene.own_construction).
static const bench_arbiter_scene* const own_scenes[] = {
    &bench_arbiter_rain,      &bench_arbiter_tumbler,    &bench_arbiter_spinner,
    &bench_arbiter_washer,    &bench_arbiter_joint_grid, &bench_arbiter_arena,
    &bench_arbiter_bouncy[0], &bench_arbiter_bouncy[1],  &bench_arbiter_bouncy[2],
    &bench_arbiter_bouncy[3], &bench_arbiter_bouncy[4],  NULL};

typedef struct arb_bench {
  arb_world* world;
  arb_body_id* ids;                // neutral scenes: one per bench_body
  const bench_arbiter_scene* own;  // NULL: built from the neutral description
  void* own_state;
  int step_index;
} arb_bench;

static const bench_arbiter_scene* find_own(const char* name) {
  for (int i = 0; own_scenes[i]; ++i) {
    if (strcmp(own_scenes[i]->name, name) == 0) return own_scenes[i];
  }
  return NULL;
}

// The continuous policy of the compared rows: --continuous as given, else Box2D v3's
// (against static bodies only), the setting every engine of the table runs with.
static int compared_continuous(void) {
  return bench_arbiter_continuous >= 0 ? bench_arbiter_continuous : 2;
}

static void* arbiter_build(const bench_scene* s, bool sleep, int continuous) {
  arb_bench* b = calloc(1, sizeof *b);
  if (!b) abort();
  arb_world_def wd = arb_default_world_def();
  wd.enable_sleep = sleep;
  wd.gravity = arb_v2(s->gx, s->gy);
  wd.substeps = 4;
  wd.solve_iterations = bench_arbiter_solve_iterations;
  wd.relax_iterations = bench_arbiter_relax_iterations;
  wd.enable_continuous = continuous != 0;
  wd.continuous_dynamic = continuous != 2;
  wd.enable_contact_recycling = bench_arbiter_recycling;
  wd.worker_count = bench_arbiter_workers;
  if (s->own_construction) {
    b->own = find_own(s->name);  // bench_physics.c asked arbiter_builds_own first
    wd.body_capacity = b->own->body_capacity;
    b->world = arb_world_create(&wd);
    if (!b->world) abort();
    b->own_state = b->own->create(b->world);
    return b;
  }
  wd.body_capacity = s->count;
  b->world = arb_world_create(&wd);
  b->ids = calloc((size_t)s->count, sizeof *b->ids);
  if (!b->world || !b->ids) abort();
  for (int i = 0; i < s->count; ++i) {
    const bench_body* d = &s->bodies[i];
    arb_body_def bd = arb_default_body_def();
    bd.type = d->is_static ? ARB_BODY_STATIC : ARB_BODY_DYNAMIC;
    bd.position = arb_v2(d->x, d->y);
    bd.linear_velocity = arb_v2(d->vx, d->vy);
    bd.angular_velocity = d->w;
    bd.is_awake = !d->asleep;
    bd.shape.friction = s->friction;
    bd.shape.density = d->density > 0.0f ? d->density : 1.0f;
    if (d->category || d->mask) {
      bd.shape.category_bits = d->category;
      bd.shape.mask_bits = d->mask;
    }
    if (d->kind == BENCH_BOX) {
      bd.shape.type = ARB_SHAPE_POLYGON;
      bd.shape.polygon = arb_make_box(d->hw, d->hh);
    } else if (d->kind == BENCH_CIRCLE) {
      bd.shape.type = ARB_SHAPE_CIRCLE;
      bd.shape.circle.radius = d->radius;
    } else {
      bd.shape.type = ARB_SHAPE_SEGMENT;
      bd.shape.segment.a = arb_v2(d->ax, d->ay);
      bd.shape.segment.b = arb_v2(d->bx, d->by);
    }
    b->ids[i] = arb_body_create(b->world, &bd);
    if (arb_body_id_is_null(b->ids[i])) abort();
  }
  return b;
}

static bool arbiter_sleeps(const bench_scene* s) {
  return s->sleeping || bench_arbiter_sleep_all;
}
static void* arbiter_create(const bench_scene* s) {
  return arbiter_build(s, arbiter_sleeps(s), compared_continuous());
}
static void* arbiter_create_no_sleep(const bench_scene* s) {
  return arbiter_build(s, false, compared_continuous());
}
static void* arbiter_create_dynamic_ccd(const bench_scene* s) {
  return arbiter_build(s, arbiter_sleeps(s), 1);
}

static void arbiter_step(void* p, float dt) {
  arb_bench* b = p;
  if (b->own && b->own->before_step) b->own->before_step(b->own_state, b->world, b->step_index);
  b->step_index++;
  arb_world_step(b->world, dt);
}

static float arbiter_body_y(void* p, int index) {
  arb_bench* b = p;
  return arb_body_get_position(b->world, b->ids[index]).y;
}

static void arbiter_destroy(void* p) {
  arb_bench* b = p;
  arb_world_destroy(b->world);
  if (b->own && b->own->destroy) b->own->destroy(b->own_state);
  free(b->ids);
  free(b);
}

float bench_arbiter_max_joint_gap(const arb_world* w) {
  int n = arb_world_get_joint_count(w);
  arb_extra_id* ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
  float gap = 0.0f;
  if (!ids) return -1.0f;
  n = arb_world_get_joints(w, ids, n);
  for (int i = 0; i < n; ++i) {
    arb_vec2 a, b;
    arb_joint_get_anchors(w, ids[i], &a, &b);
    float d = arb_distance(a, b);
    if (d > gap) gap = d;
  }
  free(ids);
  return gap;
}

double bench_arbiter_world_energy(const arb_world* w) {
  int n = arb_world_get_body_count(w);
  arb_body_id* ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
  if (!ids) return NAN;
  n = arb_world_get_bodies(w, ids, n);
  arb_vec2 g = arb_world_get_gravity(w);
  double e = 0.0;
  for (int i = 0; i < n; ++i) {
    if (arb_body_get_type(w, ids[i]) != ARB_BODY_DYNAMIC) continue;
    double m = arb_body_get_mass(w, ids[i]), inertia = arb_body_get_rotational_inertia(w, ids[i]);
    arb_vec2 v = arb_body_get_linear_velocity(w, ids[i]), c = arb_body_get_world_center(w, ids[i]);
    double om = arb_body_get_angular_velocity(w, ids[i]);
    e += 0.5 * m * ((double)v.x * v.x + (double)v.y * v.y) + 0.5 * inertia * om * om -
         m * ((double)g.x * c.x + (double)g.y * c.y);
  }
  free(ids);
  return e;
}

static double arbiter_energy(void* p) {
  return bench_arbiter_world_energy(((arb_bench*)p)->world);
}

static int arbiter_census(void* p, const float box[4], double* max_speed) {
  const arb_world* w = ((arb_bench*)p)->world;
  int n = arb_world_get_body_count(w);
  arb_body_id* ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
  if (!ids) abort();
  n = arb_world_get_bodies(w, ids, n);
  int outside = 0;
  double fastest = 0.0;
  for (int i = 0; i < n; ++i) {
    if (arb_body_get_type(w, ids[i]) != ARB_BODY_DYNAMIC) continue;
    arb_vec2 c = arb_body_get_world_center(w, ids[i]), v = arb_body_get_linear_velocity(w, ids[i]);
    if (!(c.x >= box[0] && c.y >= box[1] && c.x <= box[2] && c.y <= box[3])) outside++;
    double speed = sqrt((double)v.x * v.x + (double)v.y * v.y);
    if (speed > fastest) fastest = speed;
  }
  free(ids);
  *max_speed = fastest;
  return outside;
}

static double ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// What the server pays per tick besides the step: the state hash, and a save/restore.
static void arbiter_report(void* p, char* line, int cap) {
  arb_bench* b = p;
  enum { REPS = 10 };
  volatile uint64_t sink = 0;
  double t0 = ms_now();
  for (int i = 0; i < REPS; ++i) sink ^= arb_world_hash(b->world);
  double hash_ms = (ms_now() - t0) / REPS;
  int n = arb_world_save(b->world, NULL, 0);
  uint8_t* img = malloc((size_t)n);
  t0 = ms_now();
  for (int i = 0; i < REPS; ++i) arb_world_save(b->world, img, n);
  double save_ms = (ms_now() - t0) / REPS;
  arb_world_def wd = arb_default_world_def();
  arb_world* w2 = arb_world_create(&wd);
  t0 = ms_now();
  int rc = 0;
  for (int i = 0; i < REPS; ++i) rc |= arb_world_restore(w2, img, n);
  double restore_ms = (ms_now() - t0) / REPS;
  arb_world_counters wc = arb_world_get_counters(b->world);
  char joints[64] = "";
  if (arb_world_get_joint_count(b->world) > 0) {
    snprintf(joints, sizeof joints, "; %d joints, largest gap %.4f m",
             arb_world_get_joint_count(b->world), (double)bench_arbiter_max_joint_gap(b->world));
  }
  snprintf(line, (size_t)cap,
           "%d contacts (%d touching); %d awake, %d asleep, last step solved %d bodies and %d "
           "contacts%s; hash %.3f ms, save %.3f ms (%d bytes), restore %.3f ms%s; "
           "%lld bytes allocated",
           wc.contact_count, wc.touching_count, wc.awake_body_count, wc.sleeping_body_count,
           wc.step_solved_bodies, wc.step_solved_contacts, joints, hash_ms, save_ms, n, restore_ms,
           rc ? " (FAILED)" : "", (long long)wc.byte_count);
  arb_world_destroy(w2);
  free(img);
  (void)sink;
}

static int arbiter_builds_own(const char* name) {
  return find_own(name) != NULL;
}

const bench_engine bench_engine_arbiter = {
    "arbiter",      "4 substeps, 1 relax, soft contacts 30 Hz",
    arbiter_create, arbiter_step,
    arbiter_body_y, arbiter_destroy,
    arbiter_report, arbiter_builds_own,
    arbiter_energy, arbiter_census};
const bench_engine bench_engine_arbiter_no_sleep = {
    "arbiter no-sleep",      "as arbiter, enable_sleep = false",
    arbiter_create_no_sleep, arbiter_step,
    arbiter_body_y,          arbiter_destroy,
    arbiter_report,          arbiter_builds_own,
    arbiter_energy,          arbiter_census};
const bench_engine bench_engine_arbiter_dynamic_ccd = {
    "arbiter dyn-ccd",
    "as arbiter, continuous_dynamic = true (arbiter's default)",
    arbiter_create_dynamic_ccd,
    arbiter_step,
    arbiter_body_y,
    arbiter_destroy,
    arbiter_report,
    arbiter_builds_own,
    arbiter_energy,
    arbiter_census};
