// bench/physics — Box2D v3's benchmark "rain" built with arbiter, with the geometry,
// masses, joint settings, filters and spawn schedule of its benchmark code (CreateRain,
// StepRain and the ragdoll of its shared/human.c, release sizes):
//   - ground: 5 rows, 45 m apart, of 501 static 0.5 m boxes side by side (y = 0, 45, ... 180);
//   - every 8th step (from step 0) one column of 5 groups (one per row, 40 m above its
//     ground row) of 5 ragdolls 0.5 m apart appears; once all 40 columns exist, the oldest
//     column is destroyed and rebuilt instead (at most 1000 ragdolls); 1000 steps;
//   - a ragdoll: 11 capsule bones (friction 0.2, category 2, mask 1|2, sleep threshold
//     0.1 m/s, linear damping 0.1 on the head and forearms), 10 revolute joints with
//     limits, a 5 Hz / 0.5 spring towards the rest pose and a motor of speed 0 as joint
//     friction (0.05 N*m times the bone's scale); each shin carries a rounded foot as a
//     second shape (friction 0.05, mask 1: it touches only the ground). The k-th ragdoll
//     of every group has negative group -k, so it never collides with the k-th ragdoll of
//     another group;
//   - sleeping on (Box2D v3's world default), 4 substeps.
// One difference: the ground is 2505 static bodies of one box each (Box2D v3: one body,
// 2505 shapes; an arbiter body carries at most ARB_MAX_BODY_SHAPES). A ragdoll is 11
// bodies, 13 shapes and 10 joints, as in Box2D v3. The ragdoll's bones, the layout and the
// spawn schedule are in scenes_shared.c, shared with the other engines' rain builders.
#include <arbiter/joint.h>
#include <stdlib.h>

#include "scenes_arbiter.h"
#include "scenes_shared.h"

typedef struct ragdoll {
  arb_body_id bodies[BENCH_BONES];
  arb_extra_id joints[BENCH_BONES - 1];
  int body_count, joint_count;
} ragdoll;

typedef struct rain {
  arb_world* world;
  ragdoll ragdolls[BENCH_RAIN_RAGDOLLS];  // by slot (bench_rain_hooks)
  arb_polygon foot;                       // in the shin's frame
  bench_rain_schedule schedule;
} rain;

// The benchmark cannot run with a part missing: a failed creation is a bug here.
static arb_body_id must_body(arb_world* w, const arb_body_def* bd) {
  arb_body_id id = arb_body_create(w, bd);
  if (arb_body_id_is_null(id)) abort();
  return id;
}

static arb_extra_id must_joint(arb_world* w, const arb_joint_def* jd) {
  arb_extra_id id = arb_joint_create(w, jd);
  if (arb_extra_id_is_null(id)) abort();
  return id;
}

static arb_body_def part_def(float x, float y, int group) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.sleep_threshold = BENCH_RAGDOLL_SLEEP_THRESHOLD;
  bd.shape.friction = 0.2f;
  bd.shape.category_bits = 2;
  bd.shape.mask_bits = 1 | 2;
  bd.shape.group = -group;
  return bd;
}

static arb_extra_id bone_joint(arb_world* w, const ragdoll* r, int bone) {
  const bench_bone* b = &bench_bones[bone];
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_REVOLUTE;
  jd.body_a = r->bodies[b->parent];
  jd.body_b = r->bodies[bone];
  jd.local_anchor_a = arb_v2(0.0f, b->pivot - bench_bones[b->parent].y);
  jd.local_anchor_b = arb_v2(0.0f, b->pivot - b->y);
  jd.reference_angle = b->reference * ARB_PI;
  jd.enable_limit = true;
  jd.lower = b->lower * ARB_PI;
  jd.upper = b->upper * ARB_PI;
  jd.enable_motor = true;
  jd.motor_speed = 0.0f;
  jd.max_motor_torque = b->friction_scale * BENCH_JOINT_FRICTION;
  jd.enable_spring = true;
  jd.hertz = BENCH_JOINT_HERTZ;
  jd.damping_ratio = BENCH_JOINT_DAMPING_RATIO;
  return must_joint(w, &jd);
}

// A ragdoll standing on (x, y), in negative group -group.
static void create_ragdoll(arb_world* w, const rain* rn, ragdoll* r, float x, float y, int group) {
  r->body_count = r->joint_count = 0;
  for (int i = 0; i < BENCH_BONES; ++i) {
    const bench_bone* b = &bench_bones[i];
    arb_body_def bd = part_def(x, y + b->y, group);
    bd.linear_damping = b->linear_damping;
    bd.shape.type = ARB_SHAPE_CAPSULE;
    bd.shape.capsule.center1 = arb_v2(0.0f, b->c1);
    bd.shape.capsule.center2 = arb_v2(0.0f, b->c2);
    bd.shape.capsule.radius = b->radius;
    arb_shape_def shapes[2] = {bd.shape, bd.shape};
    if (b->foot) {  // the shin's second shape, in its frame
      shapes[1].type = ARB_SHAPE_POLYGON;
      shapes[1].polygon = rn->foot;
      shapes[1].friction = 0.05f;
      shapes[1].mask_bits = 1;
      bd.shapes = shapes;
      bd.shape_count = 2;
    }
    r->bodies[i] = must_body(w, &bd);
    r->body_count = i + 1;
    if (b->parent >= 0) r->joints[r->joint_count++] = bone_joint(w, r, i);
  }
}

static void destroy_ragdoll(arb_world* w, ragdoll* r) {
  for (int i = 0; i < r->joint_count; ++i) arb_joint_destroy(w, r->joints[i]);
  for (int i = 0; i < r->body_count; ++i) arb_body_destroy(w, r->bodies[i]);
  r->body_count = r->joint_count = 0;
}

static void rain_create_ragdoll(void* context, int slot, float x, float y, int group) {
  rain* rn = context;
  create_ragdoll(rn->world, rn, &rn->ragdolls[slot], x, y, group);
}

static void rain_destroy_ragdoll(void* context, int slot) {
  rain* rn = context;
  destroy_ragdoll(rn->world, &rn->ragdolls[slot]);
}

static void* rain_create(arb_world* w) {
  rain* rn = calloc(1, sizeof *rn);
  if (!rn) abort();
  rn->world = w;
  arb_vec2 foot[4];
  for (int i = 0; i < 4; ++i) foot[i] = arb_v2(bench_foot_points[i][0], bench_foot_points[i][1]);
  arb_polygon core;
  if (arb_make_polygon(foot, 4, &core, NULL) != 0) abort();
  rn->foot = arb_make_rounded_polygon(&core, BENCH_FOOT_RADIUS);
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.5f * BENCH_RAIN_GRID_SIZE, 0.5f * BENCH_RAIN_GRID_SIZE);
  float y = 0.0f;
  for (int i = 0; i < BENCH_RAIN_ROWS; ++i) {
    float x = -0.5f * (float)BENCH_RAIN_GRID_COUNT * BENCH_RAIN_GRID_SIZE;
    for (int j = 0; j <= BENCH_RAIN_GRID_COUNT; ++j) {
      bd.position = arb_v2(x, y);
      must_body(w, &bd);
      x += BENCH_RAIN_GRID_SIZE;
    }
    y += BENCH_RAIN_ROW_SPACING;
  }
  return rn;
}

// Every 8th step: the next new column, or (all 40 exist) rebuild the oldest one.
static void rain_before_step(void* state, arb_world* w, int step_index) {
  rain* rn = state;
  const bench_rain_hooks hooks = {rn, rain_create_ragdoll, rain_destroy_ragdoll};
  (void)w;  // rn->world
  bench_rain_step(&rn->schedule, step_index, &hooks);
}

static void rain_destroy(void* state) {
  free(state);
}

const bench_arbiter_scene bench_arbiter_rain = {
    "rain",       BENCH_RAIN_ROWS*(BENCH_RAIN_GRID_COUNT + 1) + BENCH_RAIN_RAGDOLLS* BENCH_BONES,
    rain_create,  rain_before_step,
    rain_destroy,
};
