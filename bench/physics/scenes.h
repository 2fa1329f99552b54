// bench/physics — engine-neutral descriptions of the benchmark scenes, so every engine
// (arbiter, Chipmunk2D, Box2D 2.4) builds exactly the same bodies. See docs/BENCHMARKS.md.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

enum { BENCH_BOX = 0, BENCH_CIRCLE = 1, BENCH_SEGMENT = 2 };

typedef struct bench_body {
  int is_static;
  int kind;                 // BENCH_*
  float x, y;               // body position
  float hw, hh;             // box half extents
  float radius;             // circle radius
  float ax, ay, bx, by;     // segment end points (body frame)
  float vx, vy, w;          // initial velocity
  float density;            // kg/m^2; 0 = 1
  int asleep;               // created asleep (Box2D v3 smash)
  unsigned category, mask;  // collision filter; 0, 0 = the defaults (1, all)
} bench_body;

typedef struct bench_scene {
  const char* name;
  float gx, gy;
  float dt;
  float friction;  // every shape; mixed sqrt(fa*fb) (so the pair value is the same)
  int steps;       // default step count (the first `warmup` are not timed)
  int warmup;      // untimed steps at the start (0 = 1)
  int sleeping;    // a sleeping scene: arbiter runs it with sleeping on, and again as
                   // bench_engine_arbiter_no_sleep (every other scene: sleeping off)
  int top_body;    // index of the pyramid's top box (stability figure) or -1
  int count;
  bench_body* bodies;
  int every_engine_sleeps;  // Box2D 2.4 and Chipmunk sleep too (after 0.5 s at rest) and
                            // start the bodies marked `asleep` sleeping (smash, and the
                            // own-construction scenes Box2D v3 defines with sleeping on);
                            // in every other scene they run with sleeping off
  int own_construction;     // no body list (count 0): a Box2D v3 benchmark scene with joints,
                            // kinematic or compound bodies, chains, capsules or bodies
                            // spawned while it runs; arbiter builds it with its own API
                            // (scenes_arbiter.h), Box2D v3 with its benchmark code, and the
                            // other engines whose builds_own says so with theirs
  int probe_every;          // > 0: an extra untimed run on the engines with energy and census
                            // samples the energy every probe_every steps and counts the
                            // bodies outside probe_box and the fastest every step (the
                            // bouncy crowds); arbiter also runs it as "arbiter dyn-ccd"
  float probe_box[4];       // x0, y0, x1, y1: where every body's centre belongs
} bench_scene;

/// Names of the scenes, NULL-terminated.
extern const char* const bench_scene_names[];
/// Builds the named scene (malloc). Returns 0, or -1 for an unknown name.
int bench_scene_build(const char* name, bench_scene* out);
void bench_scene_free(bench_scene* s);

/// One engine behind a neutral interface.
typedef struct bench_engine {
  const char* name;
  const char* config;  // how substeps/iterations are matched
  void* (*create)(const bench_scene* s);
  void (*step)(void* world, float dt);
  float (*body_y)(void* world, int index);
  void (*destroy)(void* world);
  /// Optional: one line of extra figures about the final state (NULL: none).
  void (*report)(void* world, char* line, int cap);
  /// Optional (NULL: none): nonzero when this engine builds the own-construction scene of
  /// that name with its own code (then create builds it and step runs its per-step work,
  /// such as rain's spawning, before each step). arbiter and Box2D v3 build all of them.
  int (*builds_own)(const char* scene_name);
  /// Optional (NULL: the column says "-"): the world's total mechanical energy in J, summed
  /// in double over its dynamic rigid bodies: 0.5 m |v|^2 + 0.5 I w^2 - m (g . p), with v and
  /// p the velocity and position of the centre of mass, I the rotational inertia about it and
  /// g the world's gravity (potential energy zero at the origin). Particles, vehicle wheels,
  /// joints and springs hold none; static and kinematic bodies are left out.
  double (*energy)(void* world);
  /// Optional (NULL: none): over the same dynamic rigid bodies, how many have their centre of
  /// mass outside the rectangle box[0] <= x <= box[2], box[1] <= y <= box[3]; *max_speed gets
  /// the largest speed of a centre of mass (m/s). For the scenes with probe_every.
  int (*census)(void* world, const float box[4], double* max_speed);
} bench_engine;

/// The "E end/start" cell: 100 (end - start) / |start| as "+0.3 %", or the end value in J
/// when |start| < 1e-9 J (bodies at rest without gravity: no percentage of zero), or "-" when
/// either is not finite (an engine without the hook, or out of memory).
void bench_format_energy(double start, double end, char* out, int cap);

extern const bench_engine bench_engine_arbiter;
/// The same engine with arb_world_def.enable_sleep = false in every scene.
extern const bench_engine bench_engine_arbiter_no_sleep;
/// The same engine with arbiter's own default continuous policy (continuous_dynamic: fast
/// dynamic bodies kept from passing through each other too), in the sleeping scenes, while
/// the compared rows run Box2D v3's policy (against static bodies only).
extern const bench_engine bench_engine_arbiter_dynamic_ccd;
/// --sleep: bench_engine_arbiter sleeps in every scene (default: only in sleeping scenes;
/// the Box2D v3 benchmark scenes are defined with sleeping off).
extern int bench_arbiter_sleep_all;
/// arbiter's solve/relax passes per substep (--solve-iterations / --relax-iterations; 1, 1).
extern int bench_arbiter_solve_iterations, bench_arbiter_relax_iterations;
/// arbiter's enable_continuous as --continuous gave it: 0 off, 1 on, 2 against static
/// bodies only (continuous_dynamic false), -1 not given: the compared rows then run 2 (as
/// Box2D v3's enableContinuous), the physics extras arbiter's default (1).
extern int bench_arbiter_continuous;
/// arbiter's enable_contact_recycling (--recycling on|off; on).
extern int bench_arbiter_recycling;
/// --workers N: arb_world_def.worker_count of every arbiter world (default 1).
extern int bench_arbiter_workers;
#ifdef BENCH_HAVE_CHIPMUNK
extern const bench_engine bench_engine_chipmunk;
extern const bench_engine bench_engine_chipmunk_defaults;
#endif
#ifdef BENCH_HAVE_BOX2D
extern const bench_engine bench_engine_box2d;
#endif
#ifdef BENCH_HAVE_BOX2D_V3
/// Box2D v3 from BOX2D_V3_SRC (box2d_v3.cmake); its own benchmark code builds its scenes.
extern const bench_engine bench_engine_box2d_v3;
#endif

#ifdef __cplusplus
}
#endif
