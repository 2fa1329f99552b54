// bench/physics — the shared parts of the own-construction scenes' builders (scenes_shared.h),
// as Box2D v3's benchmark code (shared/benchmarks.c, shared/human.c, release sizes) has them.
#include "scenes_shared.h"

#include <math.h>
#include <string.h>

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

// Columns as in bench_bone: parent, y, capsule (c1, c2, radius), linear damping, friction
// scale, pivot, limit (lower, upper), reference, foot.
const bench_bone bench_bones[BENCH_BONES] = {
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

const float bench_foot_points[4][2] = {
    {-0.03f, -0.185f}, {0.11f, -0.185f}, {0.11f, -0.16f}, {-0.03f, -0.14f}};

// Where the first ragdoll of the group of `row` and `column` stands.
static void group_origin(int row, int column, float* x, float* y) {
  float span = (float)BENCH_RAIN_GRID_COUNT * BENCH_RAIN_GRID_SIZE;
  float spacing = span / (float)BENCH_RAIN_COLUMNS;
  *x = -0.5f * span + spacing * ((float)column + 0.5f);
  *y = 40.0f + BENCH_RAIN_ROW_SPACING * (float)row;
}

void bench_rain_step(bench_rain_schedule* s, int step_index, const bench_rain_hooks* hooks) {
  if ((step_index & BENCH_RAIN_SPAWN_MASK) != 0) return;
  int column, replace = s->column_count == BENCH_RAIN_COLUMNS;
  if (!replace) {
    column = s->column_count++;
  } else {
    column = s->column_index;
    s->column_index = (s->column_index + 1) % BENCH_RAIN_COLUMNS;
  }
  for (int row = 0; row < BENCH_RAIN_ROWS; ++row) {
    int first = (row * BENCH_RAIN_COLUMNS + column) * BENCH_RAIN_GROUP_SIZE;
    for (int i = 0; i < BENCH_RAIN_GROUP_SIZE && replace; ++i)
      hooks->destroy(hooks->context, first + i);
    float x, y;
    group_origin(row, column, &x, &y);
    for (int i = 0; i < BENCH_RAIN_GROUP_SIZE; ++i) {
      hooks->create(hooks->context, first + i, x, y, i + 1);
      x += BENCH_RAGDOLL_SPACING;
    }
  }
}

void bench_spinner_point(int i, float* x, float* y) {
  double a = -2.0 * 3.14159265358979323846 * (double)i / BENCH_SPINNER_POINTS;
  *x = (float)(40.0 * cos(a));
  *y = (float)(40.0 * sin(a) + 32.0);
}

static void put(float out[2], float scale, float ux, float uy) {
  out[0] = scale * ux;
  out[1] = scale * uy;
}

int bench_washer_quads(float quads[][4][2]) {
  const float r0 = 14.0f, r1 = 16.0f, r2 = 18.0f;
  const float angle = 3.14159265359f / 18.0f;
  const float qc = cosf(angle), qs = sinf(angle);
  const float oc = cosf(0.1f * angle), os = sinf(0.1f * angle);
  float u1x = 1.0f, u1y = 0.0f;
  int n = 0;
  for (int i = 0; i < 36; ++i) {
    float u2x = 1.0f, u2y = 0.0f;
    if (i != 35) {
      u2x = qc * u1x - qs * u1y;
      u2y = qs * u1x + qc * u1y;
    }
    // A ring piece: the angle from u1 to u2, less a tenth of it at either end.
    float a1x = oc * u1x + os * u1y, a1y = -os * u1x + oc * u1y;
    float a2x = oc * u2x - os * u2y, a2y = os * u2x + oc * u2y;
    put(quads[n][0], r1, a1x, a1y);
    put(quads[n][1], r2, a1x, a1y);
    put(quads[n][2], r1, a2x, a2y);
    put(quads[n][3], r2, a2x, a2y);
    n++;
    if (i % 9 == 0) {  // a paddle
      put(quads[n][0], r0, u1x, u1y);
      put(quads[n][1], r1, u1x, u1y);
      put(quads[n][2], r0, u2x, u2y);
      put(quads[n][3], r1, u2x, u2y);
      n++;
    }
    u1x = u2x;
    u1y = u2y;
  }
  return n;
}

bench_mass bench_capsule_mass(float x1, float y1, float x2, float y2, float radius, float density) {
  const float pi = 3.14159265359f;
  float rr = radius * radius;
  float length = sqrtf((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1));
  float circle_mass = density * (pi * rr);
  float box_mass = density * (2.0f * radius * length);
  // Two half circles, each offset by half the length (parallel axes twice, as Box2D v3).
  float lc = 4.0f * radius / (3.0f * pi);
  float h = 0.5f * length;
  bench_mass m;
  m.mass = circle_mass + box_mass;
  m.cx = 0.5f * (x1 + x2);
  m.cy = 0.5f * (y1 + y2);
  m.inertia = circle_mass * (0.5f * rr + h * h + 2.0f * h * lc) +
              box_mass * (4.0f * rr + length * length) / 12.0f;
  return m;
}

void bench_spring_constants(float hertz, float damping_ratio, float inertia_a, float inertia_b,
                            float* stiffness, float* damping) {
  float mass = inertia_a * inertia_b / (inertia_a + inertia_b);
  float omega = 2.0f * 3.14159265359f * hertz;
  *stiffness = mass * omega * omega;
  *damping = 2.0f * mass * damping_ratio * omega;
}

// ---- arena ------------------------------------------------------------------------------

void bench_arena_mixer_centre(int i, float* x, float* y) {
  const int side = 10;  // ceil(sqrt(BENCH_ARENA_MIXERS))
  float cell = 2.0f * BENCH_ARENA_HALF / (float)side;
  *x = -BENCH_ARENA_HALF + ((float)(i % side) + 0.5f) * cell;
  *y = -BENCH_ARENA_HALF + ((float)(i / side) + 0.5f) * cell;
}

void bench_arena_ring_segment(int k, float* ax, float* ay, float* bx, float* by) {
  const float pi = 3.14159265359f, r = BENCH_ARENA_RING_RADIUS;
  float a0 = 2.0f * pi * (float)k / BENCH_ARENA_RING_SEGMENTS;
  float a1 = 2.0f * pi * (float)(k + 1) / BENCH_ARENA_RING_SEGMENTS;
  *ax = r * cosf(a0);
  *ay = r * sinf(a0);
  *bx = r * cosf(a1);
  *by = r * sinf(a1);
}

void bench_arena_mixer_ball(int k, float* x, float* y) {
  const float pi = 3.14159265359f;
  float a = 2.0f * pi * ((float)k + 0.5f) / BENCH_ARENA_MIXER_BALLS;
  *x = 2.4f * cosf(a);
  *y = 2.4f * sinf(a);
}

// Uniform in [-1, 1) from the loose body's index and one of its two axes: a hash, so each
// body's place does not depend on the order the builders ask in.
static float arena_jitter(int i, int axis) {
  unsigned h = (unsigned)i * 2654435761u ^ (unsigned)(axis + 1) * 0x9E3779B9u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return (float)(h >> 8) / 8388608.0f - 1.0f;
}

void bench_arena_loose(int i, float* x, float* y, float* angle, int* ball) {
  const int cols = 89;  // ceil(sqrt(BENCH_ARENA_LOOSE))
  float step = 2.0f * BENCH_ARENA_HALF / (float)cols;
  float px = -BENCH_ARENA_HALF + ((float)(i % cols) + 0.5f + 0.2f * arena_jitter(i, 0)) * step;
  float py = -BENCH_ARENA_HALF + ((float)(i / cols) + 0.5f + 0.2f * arena_jitter(i, 1)) * step;
  for (int m = 0; m < BENCH_ARENA_MIXERS; ++m) {  // out of a mixer's ring, still in the arena
    float cx, cy;
    bench_arena_mixer_centre(m, &cx, &cy);
    if (fabsf(px - cx) < 5.5f && fabsf(py - cy) < 5.5f) {
      px += px < 0.0f ? 6.0f : -6.0f;
      break;
    }
  }
  *x = px;
  *y = py;
  *angle = 1.5f * arena_jitter(i, 2);
  *ball = i % 3 == 2;
}

void bench_arena_walker_start(int i, float* x, float* y) {
  float cell = 2.0f * BENCH_ARENA_HALF / 32.0f;
  *x = -BENCH_ARENA_HALF + ((float)(i % 32) + 0.5f) * cell;
  *y = -BENCH_ARENA_HALF + ((float)(i / 32) + 0.25f) * cell;
}

void bench_arena_walker_force(int i, int step, float dt, float mass, float vx, float vy, float* fx,
                              float* fy) {
  // bench-capacity's walk: a new direction every 2 s (120 steps at 60 Hz), from a hash.
  unsigned long long h = ((unsigned long long)(step / 120) + 1) * 0x9E3779B97F4A7C15ull ^
                         (unsigned long long)(i + 1) * 0xBF58476D1CE4E5B9ull;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  float mx = (float)((int)(h & 1023) - 512) / 512.0f;
  float my = (float)((int)(h >> 10 & 1023) - 512) / 512.0f;
  float len = sqrtf(mx * mx + my * my);
  if (len > 1.0f) {  // diagonals are not faster
    mx /= len;
    my /= len;
  }
  float f_x = mass / dt * (BENCH_ARENA_MAX_SPEED * mx - vx);
  float f_y = mass / dt * (BENCH_ARENA_MAX_SPEED * my - vy);
  float f = sqrtf(f_x * f_x + f_y * f_y);
  if (f > BENCH_ARENA_MAX_FORCE) {
    f_x *= BENCH_ARENA_MAX_FORCE / f;
    f_y *= BENCH_ARENA_MAX_FORCE / f;
  }
  *fx = f_x;
  *fy = f_y;
}

// ---- bouncy crowds ----------------------------------------------------------------------

const bench_bouncy_scene bench_bouncy_scenes[BENCH_BOUNCY_SCENES] = {
    {"bouncy_circles", BENCH_BOUNCY_CIRCLES, 1.0f, -10.0f},
    {"bouncy_circles_095", BENCH_BOUNCY_CIRCLES, 0.95f, -10.0f},
    {"bouncy_topdown", BENCH_BOUNCY_CIRCLES, 1.0f, 0.0f},
    {"bouncy_boxes", BENCH_BOUNCY_BOXES, 1.0f, -10.0f},
    {"bouncy_mixed", BENCH_BOUNCY_MIXED, 1.0f, -10.0f},
};

const bench_bouncy_scene* bench_bouncy_find(const char* name) {
  for (int k = 0; k < BENCH_BOUNCY_SCENES; ++k) {
    if (strcmp(bench_bouncy_scenes[k].name, name) == 0) return &bench_bouncy_scenes[k];
  }
  return NULL;
}

// Uniform in [0, 1) from the body's index and one of its draws (a hash of both and the
// layout's seed): the same bodies whatever the order the builders ask in.
static float bouncy_uniform(int i, int draw) {
  unsigned h = (unsigned)(i + 1) * 0x9E3779B1u ^ (unsigned)(draw + 1) * 0x85EBCA77u ^ 20271201u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return (float)(h >> 8) / 16777216.0f;
}

bench_bouncy_body bench_bouncy_body_at(const bench_bouncy_scene* s, int i) {
  const float pi = 3.14159265359f;
  bench_bouncy_body b;
  int column = i % BENCH_BOUNCY_COLUMNS, row = i / BENCH_BOUNCY_COLUMNS;
  b.x = -BENCH_BOUNCY_HALF_WIDTH + ((float)column + 0.5f) * BENCH_BOUNCY_CELL;
  b.y = ((float)row + 0.5f) * BENCH_BOUNCY_CELL;
  float speed = BENCH_BOUNCY_MAX_SPEED * bouncy_uniform(i, 0);
  float angle = 2.0f * pi * bouncy_uniform(i, 1);
  b.vx = speed * cosf(angle);
  b.vy = speed * sinf(angle);
  if (s->shapes == BENCH_BOUNCY_CIRCLES) {
    b.box = 0;
    b.radius = 0.4f;
    b.hw = b.hh = 0.0f;
  } else if (s->shapes == BENCH_BOUNCY_BOXES) {
    b.box = 1;
    b.radius = 0.0f;
    b.hw = b.hh = 0.4f;
  } else {  // 200 circles and 200 boxes, sizes 0.15-0.45 (at most 0.9 m in a 1 m cell)
    b.box = i & 1;
    b.radius = b.box ? 0.0f : 0.15f + 0.3f * bouncy_uniform(i, 2);
    b.hw = b.box ? 0.15f + 0.3f * bouncy_uniform(i, 2) : 0.0f;
    b.hh = b.box ? 0.15f + 0.3f * bouncy_uniform(i, 3) : 0.0f;
  }
  return b;
}

void bench_bouncy_wall(int k, float* x, float* y, float* hw, float* hh) {
  const float w = BENCH_BOUNCY_HALF_WIDTH, h = BENCH_BOUNCY_HEIGHT, t = BENCH_BOUNCY_WALL;
  // Floor and ceiling span the whole width and the walls' thickness; the side walls the
  // whole height between them.
  const float place[4][4] = {{0.0f, -t, w + 2.0f * t, t},
                             {0.0f, h + t, w + 2.0f * t, t},
                             {-w - t, 0.5f * h, t, 0.5f * h},
                             {w + t, 0.5f * h, t, 0.5f * h}};
  *x = place[k][0];
  *y = place[k][1];
  *hw = place[k][2];
  *hh = place[k][3];
}
