// The energy and stability stress suite: generated worlds (crowds of circles, boxes,
// capsules, polygons and compound bodies at restitution 0..1, with and without gravity and
// friction, mass ratios up to 1:100, ragdolls, chains, fast spinners, bodies at the speed
// limit) stepped for seconds inside a closed box of four static walls. Every few ticks each
// world must hold four physical laws, checked against physics rather than against a hash:
//   - energy: total mechanical energy (linear and angular kinetic + potential) never
//     rises above its value at the start by more than ENERGY_TOLERANCE of it. Nothing in
//     these worlds adds energy: no motors, springs, controllers or kinematic bodies;
//   - containment: no body's centre leaves the box;
//   - speed: no body is faster than the world's max_linear_speed;
//   - finiteness: no position, angle or velocity is NaN or infinite.
// Seeds: each case runs SEEDS_PER_CASE seeds from ARBITER_STRESS_SEED (default 1); `.ci/run`
// passes a new base seed every run and prints it. A failure prints the case, the seed, the
// tick and the law, and the command that replays exactly that world:
//   ARBITER_STRESS_SEED=S ARBITER_STRESS_CASE=NAME build/release/bin/test_energy
// ARBITER_STRESS_LONG=1 (the `test_energy_soak` test, `make soak`) runs four times the
// ticks, more bodies and more seeds.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
// clang-format on

#include <arbiter/joint.h>
#include <arbiter/world.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_rng.h"

// The container: four static boxes around [-HALF_W, HALF_W] x [0, HEIGHT].
#define HALF_W 12.0f
#define HEIGHT 18.0f
#define WALL 0.5f
// Energy may rise above the start by this fraction of it (kinetic energy plus potential
// energy above the floor). The soft contacts and joints push overlapping bodies apart at up
// to max_contact_push_speed, which could lift a pile a little; measured on this suite over
// 32 base seeds (64 worlds per case), the largest rise of any world was 0.05 %.
#define ENERGY_TOLERANCE 0.01
// A body's centre may be this far beyond the inner face of a wall (the soft contact lets
// bodies overlap a wall by a few centimetres).
#define CONTAINMENT_SLACK 0.1f
#define SEEDS_PER_CASE 2
#define CHECK_EVERY 10

typedef enum {
  CROWD_CIRCLE,
  CROWD_BOX,
  CROWD_CAPSULE,
  CROWD_POLYGON,
  CROWD_COMPOUND,
  CROWD_MIXED
} crowd_shape;
typedef enum { EXTRA_NONE, EXTRA_RAGDOLLS, EXTRA_CHAINS } crowd_extra;

typedef struct stress_case {
  const char* name;
  crowd_shape shape;
  int count;          // crowd bodies (extras come on top)
  float restitution;  // every shape and the walls
  float friction;     // every shape and the walls
  bool gravity;       // (0, -10) or none
  float mass_ratio;   // densities drawn in [1, mass_ratio]
  float speed;        // initial speeds drawn in [0, speed] m/s
  float spin;         // initial angular speeds drawn in [-spin, spin] rad/s
  float size;         // largest body half extent, m (the smallest is a third of it)
  crowd_extra extra;
  int ticks;  // at 60 Hz
} stress_case;

// The five worlds that exploded before restitution was fixed come first (400 bodies,
// random velocities up to 4 m/s, restitution 0.95-1, friction 0); then the rest of the
// space: shapes, materials, gravity, mass ratios, joints, spin and speed.
static const stress_case cases[] = {
    {"circles_e1_gravity", CROWD_CIRCLE, 400, 1.0f, 0.0f, true, 1.0f, 4.0f, 0.0f, 0.4f, EXTRA_NONE,
     600},
    {"circles_e095_gravity", CROWD_CIRCLE, 400, 0.95f, 0.0f, true, 1.0f, 4.0f, 0.0f, 0.4f,
     EXTRA_NONE, 600},
    {"circles_e1_topdown", CROWD_CIRCLE, 400, 1.0f, 0.0f, false, 1.0f, 4.0f, 0.0f, 0.4f, EXTRA_NONE,
     600},
    {"boxes_e1_gravity", CROWD_BOX, 400, 1.0f, 0.0f, true, 1.0f, 4.0f, 0.0f, 0.4f, EXTRA_NONE, 600},
    {"mixed_e1_gravity", CROWD_MIXED, 400, 1.0f, 0.0f, true, 1.0f, 4.0f, 0.0f, 0.4f, EXTRA_NONE,
     600},
    {"boxes_e1_topdown_spin", CROWD_BOX, 200, 1.0f, 0.0f, false, 1.0f, 12.0f, 15.0f, 0.4f,
     EXTRA_NONE, 300},
    {"capsules_e09_friction", CROWD_CAPSULE, 200, 0.9f, 0.6f, true, 1.0f, 6.0f, 5.0f, 0.45f,
     EXTRA_NONE, 300},
    {"polygons_e1_mass100", CROWD_POLYGON, 200, 1.0f, 0.0f, true, 100.0f, 6.0f, 5.0f, 0.45f,
     EXTRA_NONE, 300},
    {"polygons_e05_friction", CROWD_POLYGON, 200, 0.5f, 0.8f, true, 10.0f, 6.0f, 5.0f, 0.45f,
     EXTRA_NONE, 300},
    {"compounds_e1_topdown", CROWD_COMPOUND, 120, 1.0f, 0.0f, false, 1.0f, 8.0f, 10.0f, 0.45f,
     EXTRA_NONE, 300},
    {"compounds_e08_gravity", CROWD_COMPOUND, 120, 0.8f, 0.3f, true, 100.0f, 6.0f, 5.0f, 0.45f,
     EXTRA_NONE, 300},
    {"mixed_e0_friction", CROWD_MIXED, 250, 0.0f, 0.6f, true, 100.0f, 8.0f, 10.0f, 0.4f, EXTRA_NONE,
     300},
    {"mixed_e1_topdown_mass100", CROWD_MIXED, 250, 1.0f, 0.0f, false, 100.0f, 10.0f, 10.0f, 0.4f,
     EXTRA_NONE, 300},
    {"spinners_e1", CROWD_BOX, 100, 1.0f, 0.3f, true, 1.0f, 2.0f, 120.0f, 0.45f, EXTRA_NONE, 300},
    {"ragdolls_e05", CROWD_CIRCLE, 40, 0.5f, 0.4f, true, 1.0f, 4.0f, 0.0f, 0.3f, EXTRA_RAGDOLLS,
     300},
    {"ragdolls_e1_topdown", CROWD_BOX, 40, 1.0f, 0.0f, false, 1.0f, 6.0f, 5.0f, 0.3f,
     EXTRA_RAGDOLLS, 300},
    {"chains_e09", CROWD_CIRCLE, 60, 0.9f, 0.2f, true, 1.0f, 4.0f, 0.0f, 0.3f, EXTRA_CHAINS, 300},
    {"speed_limit_e1", CROWD_CIRCLE, 60, 1.0f, 0.0f, false, 1.0f, 1000.0f, 0.0f, 0.15f, EXTRA_NONE,
     240},
};
#define CASE_COUNT ((int)(sizeof cases / sizeof cases[0]))

typedef struct stress_run {
  const stress_case* c;
  uint64_t seed;
  bool long_run;
  arb_world* w;
  float max_speed;
  arb_vec2 gravity;
} stress_run;

static float uniform(uint64_t* rng, float lo, float hi) {
  return lo + (hi - lo) * (float)(xorshift64_next(rng) >> 40) / 16777216.0f;
}

static arb_shape_def material(const stress_case* c, float density) {
  arb_shape_def s = arb_default_shape_def();
  s.restitution = c->restitution;
  s.friction = c->friction;
  s.density = density;
  return s;
}

static void add_walls(stress_run* r) {
  const struct {
    float x, y, hw, hh;
  } walls[4] = {{0.0f, -WALL, HALF_W + 2.0f * WALL, WALL},
                {0.0f, HEIGHT + WALL, HALF_W + 2.0f * WALL, WALL},
                {-HALF_W - WALL, 0.5f * HEIGHT, WALL, 0.5f * HEIGHT + 2.0f * WALL},
                {HALF_W + WALL, 0.5f * HEIGHT, WALL, 0.5f * HEIGHT + 2.0f * WALL}};
  for (int i = 0; i < 4; ++i) {
    arb_body_def bd = arb_default_body_def();
    bd.type = ARB_BODY_STATIC;
    bd.position = arb_v2(walls[i].x, walls[i].y);
    bd.shape = material(r->c, 1.0f);
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(walls[i].hw, walls[i].hh);
    assert_true(arb_body_is_valid(r->w, arb_body_create(r->w, &bd)));
  }
}

// A convex polygon of 5-8 vertices on a circle of radius `size`, jittered in angle.
static arb_polygon random_polygon(uint64_t* rng, float size) {
  int n = 5 + (int)(xorshift64_next(rng) % 4);
  arb_vec2 pts[8];
  for (int i = 0; i < n; ++i) {
    float a = (6.2831853f * ((float)i + uniform(rng, -0.25f, 0.25f))) / (float)n;
    arb_rot q = arb_rot_from_angle(a);
    pts[i] = arb_v2(size * q.c, size * q.s);
  }
  arb_polygon p;
  const char* why = NULL;
  if (arb_make_polygon(pts, n, &p, &why) != 0) p = arb_make_box(0.7f * size, 0.7f * size);
  return p;
}

// One shape of kind k with half extent about `size` (never more).
static arb_shape_def crowd_shape_def(const stress_run* r, uint64_t* rng, crowd_shape k, float size,
                                     float density) {
  arb_shape_def s = material(r->c, density);
  switch (k) {
    case CROWD_CIRCLE:
      s.type = ARB_SHAPE_CIRCLE;
      s.circle.radius = size;
      break;
    case CROWD_BOX:
      s.type = ARB_SHAPE_POLYGON;
      s.polygon = arb_make_box(size * 0.7071f, size * uniform(rng, 0.35f, 0.7071f));
      break;
    case CROWD_CAPSULE:
      s.type = ARB_SHAPE_CAPSULE;
      s.capsule.radius = 0.4f * size;
      s.capsule.center1 = arb_v2(-0.6f * size, 0.0f);
      s.capsule.center2 = arb_v2(0.6f * size, 0.0f);
      break;
    case CROWD_POLYGON:
    case CROWD_COMPOUND:
    case CROWD_MIXED:
      s.type = ARB_SHAPE_POLYGON;
      s.polygon = random_polygon(rng, size);
      break;
  }
  return s;
}

static arb_body_def moving_body(stress_run* r, uint64_t* rng, arb_vec2 at) {
  const stress_case* c = r->c;
  arb_body_def bd = arb_default_body_def();
  bd.position = at;
  bd.angle = uniform(rng, -3.14159f, 3.14159f);
  arb_rot dir = arb_rot_from_angle(uniform(rng, -3.14159f, 3.14159f));
  float speed = uniform(rng, 0.0f, c->speed);
  bd.linear_velocity = arb_v2(speed * dir.c, speed * dir.s);
  bd.angular_velocity = uniform(rng, -c->spin, c->spin);
  bd.enable_sleep = false;
  return bd;
}

static void add_crowd(stress_run* r, uint64_t* rng, int count) {
  const stress_case* c = r->c;
  float cell = 2.0f * c->size + 0.05f;
  int cols = (int)(2.0f * HALF_W / cell), rows = (int)(HEIGHT / cell);
  if (count > cols * rows) count = cols * rows;
  for (int i = 0; i < count; ++i) {
    arb_vec2 at =
        arb_v2(-HALF_W + cell * (0.5f + (float)(i % cols)), cell * (0.5f + (float)(i / cols)));
    arb_body_def bd = moving_body(r, rng, at);
    float size = uniform(rng, c->size / 3.0f, c->size);
    float density = uniform(rng, 1.0f, c->mass_ratio);
    crowd_shape k = c->shape;
    if (k == CROWD_MIXED) k = (crowd_shape)(xorshift64_next(rng) % 4);  // circle..polygon
    arb_shape_def parts[3];
    if (k == CROWD_COMPOUND) {
      // Three shapes in a row, each within the body's extent: a dumbbell or a hammer.
      parts[0] = crowd_shape_def(r, rng, CROWD_BOX, 0.4f * size, density);
      parts[1] =
          crowd_shape_def(r, rng, CROWD_CIRCLE, 0.35f * size, uniform(rng, 1.0f, c->mass_ratio));
      parts[2] = crowd_shape_def(r, rng, CROWD_CIRCLE, 0.3f * size, density);
      parts[0].polygon =
          arb_make_offset_box(0.5f * size, 0.15f * size, arb_v2(0.0f, 0.0f), arb_rot_identity);
      parts[1].circle.center = arb_v2(-0.6f * size, 0.0f);
      parts[2].circle.center = arb_v2(0.65f * size, 0.0f);
      bd.shapes = parts;
      bd.shape_count = 3;
    } else {
      bd.shape = crowd_shape_def(r, rng, k, size, density);
    }
    assert_true(arb_body_is_valid(r->w, arb_body_create(r->w, &bd)));
  }
}

static arb_body_id add_part(stress_run* r, arb_body_def* bd, arb_shape_def shape) {
  bd->shape = shape;
  arb_body_id id = arb_body_create(r->w, bd);
  assert_true(arb_body_is_valid(r->w, id));
  return id;
}

static void pin(stress_run* r, arb_body_id a, arb_body_id b, arb_vec2 world_anchor, float lo,
                float hi) {
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_REVOLUTE;
  jd.body_a = a;
  jd.body_b = b;
  arb_transform xa = arb_body_get_transform(r->w, a), xb = arb_body_get_transform(r->w, b);
  jd.local_anchor_a = arb_inv_transform_point(xa, world_anchor);
  jd.local_anchor_b = arb_inv_transform_point(xb, world_anchor);
  jd.enable_limit = lo < hi;
  jd.lower = lo;
  jd.upper = hi;
  assert_true(arb_joint_create(r->w, &jd).index1 != 0);
}

// Ragdolls: a torso box, a head, two arms and two legs (capsules) pinned with limits,
// thrown in with the crowd's velocities.
static void add_ragdolls(stress_run* r, uint64_t* rng, int count) {
  for (int i = 0; i < count; ++i) {
    arb_vec2 at =
        arb_v2(-HALF_W + 3.0f + 4.5f * (float)(i % 5), HEIGHT - 3.0f - 4.0f * (float)(i / 5));
    arb_body_def bd = moving_body(r, rng, at);
    bd.angle = 0.0f;
    arb_shape_def m = material(r->c, uniform(rng, 1.0f, r->c->mass_ratio));
    arb_shape_def torso = m, head = m, limb = m;
    torso.type = ARB_SHAPE_POLYGON;
    torso.polygon = arb_make_box(0.25f, 0.4f);
    head.type = ARB_SHAPE_CIRCLE;
    head.circle.radius = 0.2f;
    limb.type = ARB_SHAPE_CAPSULE;
    limb.capsule.radius = 0.08f;
    limb.capsule.center1 = arb_v2(0.0f, -0.25f);
    limb.capsule.center2 = arb_v2(0.0f, 0.25f);
    arb_body_id t = add_part(r, &bd, torso);
    arb_body_def hd = bd;
    hd.position = arb_add(at, arb_v2(0.0f, 0.62f));
    pin(r, t, add_part(r, &hd, head), arb_add(at, arb_v2(0.0f, 0.42f)), -0.5f, 0.5f);
    const float side[2] = {-1.0f, 1.0f};
    for (int s = 0; s < 2; ++s) {
      arb_body_def ad = bd;
      ad.position = arb_add(at, arb_v2(0.38f * side[s], 0.1f));
      pin(r, t, add_part(r, &ad, limb), arb_add(at, arb_v2(0.3f * side[s], 0.35f)), -1.5f, 1.5f);
      arb_body_def ld = bd;
      ld.position = arb_add(at, arb_v2(0.14f * side[s], -0.75f));
      pin(r, t, add_part(r, &ld, limb), arb_add(at, arb_v2(0.14f * side[s], -0.45f)), -0.8f, 0.8f);
    }
  }
}

// Free chains of 10 capsule links pinned end to end, thrown across the box.
static void add_chains(stress_run* r, uint64_t* rng, int count) {
  for (int i = 0; i < count; ++i) {
    arb_vec2 start = arb_v2(-HALF_W + 1.0f, HEIGHT - 1.0f - 1.5f * (float)i);
    arb_body_def bd = moving_body(r, rng, start);
    bd.angle = 0.0f;
    bd.angular_velocity = 0.0f;
    arb_shape_def link = material(r->c, uniform(rng, 1.0f, r->c->mass_ratio));
    link.type = ARB_SHAPE_CAPSULE;
    link.capsule.radius = 0.1f;
    link.capsule.center1 = arb_v2(-0.4f, 0.0f);
    link.capsule.center2 = arb_v2(0.4f, 0.0f);
    arb_body_id prev = {0};
    for (int k = 0; k < 10; ++k) {
      bd.position = arb_add(start, arb_v2(0.5f + 1.0f * (float)k, 0.0f));
      arb_body_id id = add_part(r, &bd, link);
      if (k > 0) pin(r, prev, id, arb_add(start, arb_v2(1.0f * (float)k, 0.0f)), 0.0f, 0.0f);
      prev = id;
    }
  }
}

static void build(stress_run* r) {
  const stress_case* c = r->c;
  uint64_t rng = r->seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  arb_world_def wd = arb_default_world_def();
  wd.gravity = c->gravity ? arb_v2(0.0f, -10.0f) : arb_v2(0.0f, 0.0f);
  wd.enable_sleep = false;
  r->w = arb_world_create(&wd);
  assert_non_null(r->w);
  r->max_speed = wd.max_linear_speed;
  r->gravity = wd.gravity;
  add_walls(r);
  int count = r->long_run ? c->count * 3 / 2 : c->count;
  if (c->extra == EXTRA_RAGDOLLS) add_ragdolls(r, &rng, r->long_run ? 15 : 10);
  if (c->extra == EXTRA_CHAINS) add_chains(r, &rng, r->long_run ? 6 : 4);
  if (c->extra == EXTRA_NONE) {
    add_crowd(r, &rng, count);
  } else {
    // The crowd below the jointed bodies (the lower half of the box).
    uint64_t crowd_rng = rng;
    int cols = (int)(2.0f * HALF_W / (2.0f * c->size + 0.05f));
    add_crowd(r, &crowd_rng, count < cols * 4 ? count : cols * 4);
  }
}

typedef struct world_state {
  double energy;   // kinetic + potential (floor at y = 0)
  float fastest;   // m/s
  int outside;     // bodies whose centre left the box
  int not_finite;  // bodies with a NaN or infinite value
} world_state;

static world_state measure(const stress_run* r) {
  world_state s = {0.0, 0.0f, 0, 0};
  static arb_body_id ids[4096];
  int n = arb_world_get_bodies(r->w, ids, 4096);
  assert_true(n <= 4096);
  for (int i = 0; i < n; ++i) {
    if (arb_body_get_type(r->w, ids[i]) != ARB_BODY_DYNAMIC) continue;
    arb_vec2 c = arb_body_get_world_center(r->w, ids[i]);
    arb_vec2 v = arb_body_get_linear_velocity(r->w, ids[i]);
    float w = arb_body_get_angular_velocity(r->w, ids[i]);
    double m = arb_body_get_mass(r->w, ids[i]),
           inertia = arb_body_get_rotational_inertia(r->w, ids[i]);
    if (!isfinite(c.x) || !isfinite(c.y) || !isfinite(v.x) || !isfinite(v.y) || !isfinite(w) ||
        !isfinite(arb_body_get_angle(r->w, ids[i]))) {
      s.not_finite += 1;
      continue;
    }
    s.energy += 0.5 * m * ((double)v.x * v.x + (double)v.y * v.y) + 0.5 * inertia * (double)w * w -
                m * ((double)r->gravity.x * c.x + (double)r->gravity.y * c.y);
    float speed = sqrtf(v.x * v.x + v.y * v.y);
    if (speed > s.fastest) s.fastest = speed;
    if (c.x < -HALF_W - CONTAINMENT_SLACK || c.x > HALF_W + CONTAINMENT_SLACK ||
        c.y < -CONTAINMENT_SLACK || c.y > HEIGHT + CONTAINMENT_SLACK) {
      s.outside += 1;
    }
  }
  return s;
}

// Runs one world; returns the largest energy rise seen (fraction of the start), and fails
// with the case, seed and tick where a law broke.
static double run_case(const stress_case* c, uint64_t seed, bool long_run) {
  stress_run r = {c, seed, long_run, NULL, 0.0f, {0.0f, 0.0f}};
  build(&r);
  const float dt = 1.0f / 60.0f;
  // The start: after one step, so the speed law holds (bodies created faster than the
  // clamp are clamped by their first step) and the energy is that of the clamped world.
  arb_world_step(r.w, dt);
  world_state start = measure(&r);
  double worst = -1.0;
  int ticks = long_run ? 4 * c->ticks : c->ticks;
  for (int t = 2; t <= ticks; ++t) {
    arb_world_step(r.w, dt);
    if (t % CHECK_EVERY != 0 && t != ticks) continue;
    world_state now = measure(&r);
    double rise = (now.energy - start.energy) / fabs(start.energy);
    if (rise > worst) worst = rise;
    const char* law = now.not_finite ? "a value is NaN or infinite"
                      : now.outside  ? "a body left the box"
                      : now.fastest > r.max_speed * 1.0001f
                          ? "a body is faster than max_linear_speed"
                      : rise > ENERGY_TOLERANCE ? "energy rose above the start"
                                                : NULL;
    if (law) {
      fprintf(
          stderr,
          "test_energy: case %s seed %llu tick %d: %s (energy %+.3f %% of the start, %d outside, "
          "%d not finite, fastest %.1f m/s)\n  replay: ARBITER_STRESS_SEED=%llu "
          "ARBITER_STRESS_CASE=%s%s test_energy\n",
          c->name, (unsigned long long)seed, t, law, 100.0 * rise, now.outside, now.not_finite,
          (double)now.fastest, (unsigned long long)seed, c->name,
          long_run ? " ARBITER_STRESS_LONG=1" : "");
      arb_world_destroy(r.w);
      fail();
    }
  }
  if (getenv("ARBITER_STRESS_VERBOSE")) {
    world_state end = measure(&r);
    printf("    seed %llu: %d bodies, energy start %.1f end %+.1f %%, fastest %.1f m/s\n",
           (unsigned long long)seed, arb_world_get_body_count(r.w), start.energy,
           100.0 * (end.energy - start.energy) / fabs(start.energy), (double)end.fastest);
  }
  arb_world_destroy(r.w);
  return worst;
}

static uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* s = getenv(name);
  if (!s || !*s) return fallback;
  char* end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  return end && *end == '\0' ? (uint64_t)v : fallback;
}

static void test_stress_suite(void** state) {
  (void)state;
  uint64_t base = env_u64("ARBITER_STRESS_SEED", 1);
  bool long_run = getenv("ARBITER_STRESS_LONG") != NULL;
  const char* only = getenv("ARBITER_STRESS_CASE");
  int seeds = long_run ? 4 * SEEDS_PER_CASE : SEEDS_PER_CASE;
  if (only) seeds = 1;
  printf("test_energy: base seed %llu, %d seed(s) per case%s\n", (unsigned long long)base, seeds,
         long_run ? ", long" : "");
  int ran = 0;
  for (int i = 0; i < CASE_COUNT; ++i) {
    if (only && strcmp(only, cases[i].name) != 0) continue;
    double worst = -1.0;
    for (int s = 0; s < seeds; ++s) {
      double rise = run_case(&cases[i], base + (uint64_t)s, long_run);
      if (rise > worst) worst = rise;
    }
    printf("  %-26s energy at most %+.3f %% of the start\n", cases[i].name, 100.0 * worst);
    ran += 1;
  }
  assert_true(ran > 0);  // a misspelt ARBITER_STRESS_CASE runs nothing: say so
}

// The laws themselves: a world that gains energy on purpose (a body pushed every tick) and
// one that loses a body (no walls) must fail them, or the suite could pass on anything.
static void test_laws_catch_a_gain_and_an_escape(void** state) {
  (void)state;
  stress_case c = cases[0];
  c.count = 20;
  stress_run r = {&c, 1, false, NULL, 0.0f, {0.0f, 0.0f}};
  build(&r);
  arb_world_step(r.w, 1.0f / 60.0f);
  world_state start = measure(&r);
  arb_body_id ids[64];
  int n = arb_world_get_bodies(r.w, ids, 64);
  for (int t = 0; t < 60; ++t) {
    arb_body_apply_force_to_center(r.w, ids[n - 1], arb_v2(0.0f, 40.0f));
    arb_world_step(r.w, 1.0f / 60.0f);
  }
  world_state pushed = measure(&r);
  assert_true((pushed.energy - start.energy) / fabs(start.energy) > ENERGY_TOLERANCE);
  arb_body_set_transform(r.w, ids[n - 1], arb_v2(0.0f, HEIGHT + 5.0f), 0.0f);
  assert_int_equal(measure(&r).outside, 1);
  arb_world_destroy(r.w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_laws_catch_a_gain_and_an_escape),
      cmocka_unit_test(test_stress_suite),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
