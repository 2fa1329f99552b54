// bench/physics — what more than one engine's builder of Box2D v3's own-construction scenes
// (scenes.h, own_construction) needs: the ragdoll of its shared/human.c with the layout and
// spawn schedule of its rain benchmark, the spinner's chain points, the washer's quads and
// the stiffness of a joint spring given in hertz. Plain C, also for the C++ Box2D 2.4 file.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

enum {
  BENCH_RAIN_ROWS = 5,          // ground rows; one group of ragdolls per row and column
  BENCH_RAIN_COLUMNS = 40,      // columns of groups across the ground
  BENCH_RAIN_GROUP_SIZE = 5,    // ragdolls per group
  BENCH_RAIN_GRID_COUNT = 500,  // a ground row is BENCH_RAIN_GRID_COUNT + 1 boxes
  BENCH_RAIN_SPAWN_MASK = 7,    // a column every 8 steps
  BENCH_BONES = 11,             // bodies of a ragdoll (10 joints)
};

#define BENCH_RAIN_GRID_SIZE 0.5f     // a ground box's side, and the step between boxes
#define BENCH_RAIN_ROW_SPACING 45.0f  // between the ground rows (y = 0, 45, ... 180)
#define BENCH_RAGDOLL_SPACING 0.5f    // between the ragdolls of a group
#define BENCH_JOINT_FRICTION 0.05f    // N*m, times the bone's friction scale
#define BENCH_JOINT_HERTZ 5.0f        // the joints' springs towards the rest pose
#define BENCH_JOINT_DAMPING_RATIO 0.5f
#define BENCH_RAGDOLL_SLEEP_THRESHOLD 0.1f  // m/s (Box2D v3's default: 0.05)
#define BENCH_FOOT_RADIUS 0.015f            // the foot polygon's rounding

// One bone: a body with a capsule along its y axis, joined to its parent at a pivot. All
// heights are above the ragdoll's spawn point (its feet); angles are fractions of pi.
typedef struct bench_bone {
  int parent;            // index in bench_bones[]; -1: the root, no joint
  float y;               // body origin
  float c1, c2, radius;  // capsule centres (y, body frame) and radius
  float linear_damping;
  float friction_scale;  // the joint's friction torque relative to BENCH_JOINT_FRICTION
  float pivot;           // joint pivot
  float lower, upper;    // joint limit
  float reference;       // the parent frame's rotation: the joint angle is B - A - reference
  int foot;              // carries a foot
} bench_bone;

/// The 11 bones of a ragdoll (scale 1), parents before children: hip, torso, head, upper
/// and lower left leg, upper and lower right leg, upper and lower left arm, upper and lower
/// right arm. Each shin carries a foot (friction 0.05, mask 1: it touches only the ground).
extern const bench_bone bench_bones[BENCH_BONES];
/// The foot's polygon in the shin's frame, before its BENCH_FOOT_RADIUS rounding.
extern const float bench_foot_points[4][2];

enum { BENCH_RAIN_RAGDOLLS = BENCH_RAIN_ROWS * BENCH_RAIN_COLUMNS * BENCH_RAIN_GROUP_SIZE };

typedef struct bench_rain_schedule {
  int column_count;  // columns created so far
  int column_index;  // the next column to rebuild once all exist
} bench_rain_schedule;

/// What an engine's rain does with a ragdoll; `slot` (0..BENCH_RAIN_RAGDOLLS-1) names its place
/// (ground row, column, place in the group).
typedef struct bench_rain_hooks {
  void* context;
  /// A new ragdoll in `slot` standing on (x, y) (its feet), in negative group -group.
  void (*create)(void* context, int slot, float x, float y, int group);
  /// Destroys the ragdoll in `slot` (its joints, then its bodies).
  void (*destroy)(void* context, int slot);
} bench_rain_hooks;

/// Box2D v3's StepRain, before step `step_index` (from 0): every 8th step, the next column of
/// 5 groups (one per ground row, 40 m above it) of 5 ragdolls 0.5 m apart; once all 40 columns
/// exist, the oldest column instead, each group destroyed and then created again.
void bench_rain_step(bench_rain_schedule* s, int step_index, const bench_rain_hooks* hooks);

/// Box2D v3's spinner ground: point i (0..359) of its chain loop, a circle of radius 40 m
/// about (0, 32), listed clockwise (at angle -2*pi*i/360).
enum { BENCH_SPINNER_POINTS = 360 };
void bench_spinner_point(int i, float* x, float* y);

/// Box2D v3's washer drum in its body frame: 36 ring pieces between radii 16 and 18 m and 4
/// paddles between 14 and 16 m, each four points p1 p2 p3 p4 as Box2D v3 gives them to its
/// hull function (inner and outer at the first angle, inner and outer at the second: not in
/// order around the quad). Fills quads[40][4][2] and returns 40.
enum { BENCH_WASHER_QUADS = 40 };
int bench_washer_quads(float quads[][4][2]);

/// The mass, centre of mass and rotational inertia about that centre of a capsule of centres
/// (x1, y1), (x2, y2) and radius `radius`, as Box2D v3 computes them (b2ComputeCapsuleMass),
/// for the engines whose capsules are built or weighed otherwise.
typedef struct bench_mass {
  float mass, cx, cy, inertia;
} bench_mass;
bench_mass bench_capsule_mass(float x1, float y1, float x2, float y2, float radius, float density);

/// A spring of `hertz` and `damping_ratio` between two bodies of rotational inertia
/// inertia_a and inertia_b (about their centres of mass): Box2D v3's soft spring on a revolute
/// joint as a stiffness (N*m/rad) and a damping (N*m*s/rad) on the pair's effective inertia.
void bench_spring_constants(float hertz, float damping_ratio, float inertia_a, float inertia_b,
                            float* stiffness, float* damping);

// ---- arena: the capacity benchmark's world (bench/capacity/make_scene.py) --------------
// A top-down 300 m x 300 m arena without gravity: 4 static walls; 100 mixers, each a static
// ring of 12 segments (radius 4 m) with a kinematic bar (6.6 x 0.4 m) spinning at 2 rad/s
// and 8 balls (r 0.4 m, linear damping 0.5, restitution 0.3) inside; 7 896 loose crates
// (1 m boxes) and balls (r 0.4 m) on a jittered grid, damped (2 and 2) and created asleep;
// and 256 walkers, the players' avatars (circles r 0.5 m, density 2, linear damping 1),
// each driven toward a direction that changes every 2 s by the force controller of the
// game's top-down avatars (a force toward max speed, at most max force). The layout is the
// script's with another jitter generator; the counts, shapes and settings are its own.

enum {
  BENCH_ARENA_MIXERS = 100,
  BENCH_ARENA_RING_SEGMENTS = 12,
  BENCH_ARENA_MIXER_BALLS = 8,
  BENCH_ARENA_LOOSE = 7896,  // 10 000 bodies less the walls and the mixers' 2 100
  BENCH_ARENA_WALKERS = 256,
  BENCH_ARENA_BODIES =
      4 + BENCH_ARENA_MIXERS * (BENCH_ARENA_RING_SEGMENTS + 1 + BENCH_ARENA_MIXER_BALLS) +
      BENCH_ARENA_LOOSE + BENCH_ARENA_WALKERS,
};

#define BENCH_ARENA_HALF 150.0f       // half the arena's side, m
#define BENCH_ARENA_WALL 1.0f         // half the walls' thickness, m
#define BENCH_ARENA_RING_RADIUS 4.0f  // m
#define BENCH_ARENA_ROTOR_HW 3.3f     // the rotor bar's half extents, m
#define BENCH_ARENA_ROTOR_HH 0.2f
#define BENCH_ARENA_ROTOR_SPEED 2.0f  // rad/s
#define BENCH_ARENA_BALL_RADIUS 0.4f  // mixer and loose balls, m
#define BENCH_ARENA_CRATE_HALF 0.5f   // m
#define BENCH_ARENA_WALKER_RADIUS 0.5f
#define BENCH_ARENA_WALKER_DENSITY 2.0f
#define BENCH_ARENA_MAX_FORCE 60.0f  // N
#define BENCH_ARENA_MAX_SPEED 6.0f   // m/s

/// Centre of mixer i (a 10 x 10 grid over the arena).
void bench_arena_mixer_centre(int i, float* x, float* y);
/// End points of segment k of a mixer's ring, in the mixer's frame.
void bench_arena_ring_segment(int k, float* ax, float* ay, float* bx, float* by);
/// Ball k of a mixer, in the mixer's frame.
void bench_arena_mixer_ball(int k, float* x, float* y);
/// Loose body i (0..BENCH_ARENA_LOOSE-1): position, angle, and whether it is a ball (else a crate).
void bench_arena_loose(int i, float* x, float* y, float* angle, int* ball);
/// Walker i's start (the scene's spawn points in order).
void bench_arena_walker_start(int i, float* x, float* y);
/// The force on walker i before step `step` (from 0) at tick length dt, for its mass and
/// velocity: toward max speed in its direction of the moment, at most max force.
void bench_arena_walker_force(int i, int step, float dt, float mass, float vx, float vy, float* fx,
                              float* fy);

// ---- bouncy crowds: energy against Box2D v3 ---------------------------------------------
// A closed box of four static walls 0.5 m thick around an inner 24 m x 18 m (x from -12 to
// 12, the floor's top at y = 0), restitution 1, friction 0, holding 400 bodies of friction 0
// and density 1 on a grid of 1 m cells, 24 across and 17 up, filled from the floor (400 of
// its 408 cells: 400 bodies in 432 m^2 leave no room for larger cells), each at its cell's
// centre with a seeded random velocity of up to 4 m/s in a random direction and no spin.
// Nothing in the scene adds energy: its mechanical energy should never rise above the start.

enum {
  BENCH_BOUNCY_BODIES = 400,
  BENCH_BOUNCY_COLUMNS = 24,
  BENCH_BOUNCY_SCENES = 5,
  BENCH_BOUNCY_STEPS = 1200,       // 20 s at 60 Hz
  BENCH_BOUNCY_SAMPLE_EVERY = 30,  // steps between two energy samples (bench_scene.probe_every)
};

#define BENCH_BOUNCY_HALF_WIDTH 12.0f  // inner half width, m
#define BENCH_BOUNCY_HEIGHT 18.0f      // inner height above the floor's top (y = 0), m
#define BENCH_BOUNCY_WALL 0.25f        // half the walls' thickness, m
#define BENCH_BOUNCY_CELL 1.0f         // grid cell, m
#define BENCH_BOUNCY_MAX_SPEED 4.0f    // initial speed at most, m/s

typedef enum bench_bouncy_shapes {
  BENCH_BOUNCY_CIRCLES,  // circles r = 0.4
  BENCH_BOUNCY_BOXES,    // boxes 0.8 x 0.8
  BENCH_BOUNCY_MIXED,    // circles (even indices) and boxes (odd) of sizes 0.15-0.45 (radius,
                         // half extents each)
} bench_bouncy_shapes;

typedef struct bench_bouncy_scene {
  const char* name;
  bench_bouncy_shapes shapes;
  float restitution;  // the bodies' (the walls': 1)
  float gravity;      // y, m/s^2 (x: 0)
} bench_bouncy_scene;

/// bouncy_circles, bouncy_circles_095, bouncy_topdown, bouncy_boxes, bouncy_mixed.
extern const bench_bouncy_scene bench_bouncy_scenes[BENCH_BOUNCY_SCENES];
/// The bouncy scene of that name, or NULL.
const bench_bouncy_scene* bench_bouncy_find(const char* name);

typedef struct bench_bouncy_body {
  int box;     // 1: a box of half extents hw, hh (angle 0); 0: a circle of `radius`
  float x, y;  // centre
  float hw, hh, radius;
  float vx, vy;  // initial velocity
} bench_bouncy_body;

/// Body i (0..BENCH_BOUNCY_BODIES-1) of scene s: the same for every engine and every run.
bench_bouncy_body bench_bouncy_body_at(const bench_bouncy_scene* s, int i);
/// Wall k (0..3: floor, ceiling, left, right): its centre and half extents.
void bench_bouncy_wall(int k, float* x, float* y, float* hw, float* hh);

#ifdef __cplusplus
}
#endif
