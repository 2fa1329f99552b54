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
// bodies, 13 shapes and 10 joints, as in Box2D v3.
#include <arbiter/joint.h>
#include <stdlib.h>

#include "scenes_arbiter.h"

enum {
  RAIN_ROWS = 5,          // ground rows; one group of ragdolls per row and column
  RAIN_COLUMNS = 40,      // columns of groups across the ground
  RAIN_GROUP_SIZE = 5,    // ragdolls per group
  RAIN_GRID_COUNT = 500,  // a ground row is RAIN_GRID_COUNT + 1 boxes
  RAIN_SPAWN_MASK = 7,    // a column every 8 steps
  BONES = 11,
};

#define RAIN_GRID_SIZE 0.5f
#define RAIN_ROW_SPACING 45.0f
#define RAIN_SPAWN_HEIGHT 40.0f  // above the group's ground row
#define RAGDOLL_SPACING 0.5f     // between the ragdolls of a group
#define JOINT_FRICTION 0.05f     // N*m, times the bone's friction scale
#define JOINT_HERTZ 5.0f
#define JOINT_DAMPING_RATIO 0.5f
#define SLEEP_THRESHOLD 0.1f

// One bone: a body with a capsule along its y axis, joined to its parent at a pivot. All
// heights are above the ragdoll's spawn point (its feet); angles are fractions of pi.
typedef struct bone_spec {
  int parent;            // index in bones[]; -1: the root, no joint
  float y;               // body origin
  float c1, c2, radius;  // capsule centres (y, body frame) and radius
  float linear_damping;
  float friction_scale;  // the joint's friction torque relative to JOINT_FRICTION
  float pivot;           // joint pivot
  float lower, upper;    // joint limit
  float reference;       // the parent frame's rotation: the joint angle is B - A - reference
  int foot;              // carries a foot
} bone_spec;

enum {
  HIP,
  TORSO,
  HEAD,
  UPPER_LEFT_LEG,
  LOWER_LEFT_LEG,
  UPPER_RIGHT_LEG,
  LOWER_RIGHT_LEG,
  UPPER_LEFT_ARM,
  LOWER_LEFT_ARM,
  UPPER_RIGHT_ARM,
  LOWER_RIGHT_ARM
};

// Columns as in bone_spec: parent, y, capsule (c1, c2, radius), linear damping, friction
// scale, pivot, limit (lower, upper), reference, foot.
static const bone_spec bones[BONES] = {
    [HIP] = {-1, 0.95f, -0.02f, 0.02f, 0.095f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0},
    [TORSO] = {HIP, 1.2f, -0.135f, 0.135f, 0.09f, 0.0f, 0.5f, 1.0f, -0.25f, 0.0f, 0.0f, 0},
    [HEAD] = {TORSO, 1.475f, -0.038f, 0.039f, 0.075f, 0.1f, 0.25f, 1.4f, -0.3f, 0.1f, 0.0f, 0},
    [UPPER_LEFT_LEG] = {HIP, 0.775f, -0.125f, 0.125f, 0.06f, 0.0f, 1.0f, 0.9f, -0.05f, 0.4f, 0.0f,
                        0},
    [LOWER_LEFT_LEG] = {UPPER_LEFT_LEG, 0.475f, -0.155f, 0.125f, 0.045f, 0.0f, 0.5f, 0.625f, -0.5f,
                        -0.02f, 0.0f, 1},
    [UPPER_RIGHT_LEG] = {HIP, 0.775f, -0.125f, 0.125f, 0.06f, 0.0f, 1.0f, 0.9f, -0.05f, 0.4f, 0.0f,
                         0},
    [LOWER_RIGHT_LEG] = {UPPER_RIGHT_LEG, 0.475f, -0.155f, 0.125f, 0.045f, 0.0f, 0.5f, 0.625f,
                         -0.5f, -0.02f, 0.0f, 1},
    [UPPER_LEFT_ARM] = {TORSO, 1.225f, -0.125f, 0.125f, 0.035f, 0.0f, 0.5f, 1.35f, -0.1f, 0.8f,
                        0.0f, 0},
    [LOWER_LEFT_ARM] = {UPPER_LEFT_ARM, 0.975f, -0.125f, 0.125f, 0.03f, 0.1f, 0.1f, 1.1f, -0.2f,
                        0.3f, 0.25f, 0},
    [UPPER_RIGHT_ARM] = {TORSO, 1.225f, -0.125f, 0.125f, 0.035f, 0.0f, 0.5f, 1.35f, -0.1f, 0.8f,
                         0.0f, 0},
    [LOWER_RIGHT_ARM] = {UPPER_RIGHT_ARM, 0.975f, -0.125f, 0.125f, 0.03f, 0.1f, 0.1f, 1.1f, -0.2f,
                         0.3f, 0.25f, 0},
};

typedef struct ragdoll {
  arb_body_id bodies[BONES];
  arb_extra_id joints[BONES - 1];
  int body_count, joint_count;
} ragdoll;

typedef struct rain {
  ragdoll groups[RAIN_ROWS * RAIN_COLUMNS][RAIN_GROUP_SIZE];
  arb_polygon foot;  // in the shin's frame
  int column_count;  // columns created so far
  int column_index;  // the next column to rebuild once all exist
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
  bd.sleep_threshold = SLEEP_THRESHOLD;
  bd.shape.friction = 0.2f;
  bd.shape.category_bits = 2;
  bd.shape.mask_bits = 1 | 2;
  bd.shape.group = -group;
  return bd;
}

static arb_extra_id bone_joint(arb_world* w, const ragdoll* r, int bone) {
  const bone_spec* b = &bones[bone];
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_REVOLUTE;
  jd.body_a = r->bodies[b->parent];
  jd.body_b = r->bodies[bone];
  jd.local_anchor_a = arb_v2(0.0f, b->pivot - bones[b->parent].y);
  jd.local_anchor_b = arb_v2(0.0f, b->pivot - b->y);
  jd.reference_angle = b->reference * ARB_PI;
  jd.enable_limit = true;
  jd.lower = b->lower * ARB_PI;
  jd.upper = b->upper * ARB_PI;
  jd.enable_motor = true;
  jd.motor_speed = 0.0f;
  jd.max_motor_torque = b->friction_scale * JOINT_FRICTION;
  jd.enable_spring = true;
  jd.hertz = JOINT_HERTZ;
  jd.damping_ratio = JOINT_DAMPING_RATIO;
  return must_joint(w, &jd);
}

// A ragdoll standing on (x, y), in negative group -group.
static void create_ragdoll(arb_world* w, const rain* rn, ragdoll* r, float x, float y, int group) {
  r->body_count = r->joint_count = 0;
  for (int i = 0; i < BONES; ++i) {
    const bone_spec* b = &bones[i];
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

static void create_group(arb_world* w, rain* rn, int row, int column) {
  float span = (float)RAIN_GRID_COUNT * RAIN_GRID_SIZE;
  float spacing = span / (float)RAIN_COLUMNS;
  float x = -0.5f * span + spacing * ((float)column + 0.5f);
  float y = RAIN_SPAWN_HEIGHT + RAIN_ROW_SPACING * (float)row;
  for (int i = 0; i < RAIN_GROUP_SIZE; ++i) {
    create_ragdoll(w, rn, &rn->groups[row * RAIN_COLUMNS + column][i], x, y, i + 1);
    x += RAGDOLL_SPACING;
  }
}

static void destroy_group(arb_world* w, rain* rn, int row, int column) {
  for (int i = 0; i < RAIN_GROUP_SIZE; ++i) {
    destroy_ragdoll(w, &rn->groups[row * RAIN_COLUMNS + column][i]);
  }
}

static void* rain_create(arb_world* w) {
  rain* rn = calloc(1, sizeof *rn);
  if (!rn) abort();
  const arb_vec2 foot[4] = {{-0.03f, -0.185f}, {0.11f, -0.185f}, {0.11f, -0.16f}, {-0.03f, -0.14f}};
  arb_polygon core;
  if (arb_make_polygon(foot, 4, &core, NULL) != 0) abort();
  rn->foot = arb_make_rounded_polygon(&core, 0.015f);
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.5f * RAIN_GRID_SIZE, 0.5f * RAIN_GRID_SIZE);
  float y = 0.0f;
  for (int i = 0; i < RAIN_ROWS; ++i) {
    float x = -0.5f * (float)RAIN_GRID_COUNT * RAIN_GRID_SIZE;
    for (int j = 0; j <= RAIN_GRID_COUNT; ++j) {
      bd.position = arb_v2(x, y);
      must_body(w, &bd);
      x += RAIN_GRID_SIZE;
    }
    y += RAIN_ROW_SPACING;
  }
  return rn;
}

// Every 8th step: the next new column, or (all 40 exist) rebuild the oldest one.
static void rain_before_step(void* state, arb_world* w, int step_index) {
  rain* rn = state;
  if ((step_index & RAIN_SPAWN_MASK) != 0) return;
  if (rn->column_count < RAIN_COLUMNS) {
    for (int row = 0; row < RAIN_ROWS; ++row) create_group(w, rn, row, rn->column_count);
    rn->column_count++;
    return;
  }
  for (int row = 0; row < RAIN_ROWS; ++row) {
    destroy_group(w, rn, row, rn->column_index);
    create_group(w, rn, row, rn->column_index);
  }
  rn->column_index = (rn->column_index + 1) % RAIN_COLUMNS;
}

static void rain_destroy(void* state) {
  free(state);
}

const bench_arbiter_scene bench_arbiter_rain = {
    "rain",       RAIN_ROWS*(RAIN_GRID_COUNT + 1) + RAIN_ROWS* RAIN_COLUMNS* RAIN_GROUP_SIZE* BONES,
    rain_create,  rain_before_step,
    rain_destroy,
};
