// bench/physics — Box2D v3 benchmark scenes that the engine-neutral body list (scenes.h)
// cannot describe (joints, capsules, chains, kinematic drums, bodies created and destroyed
// while it runs): arbiter builds them with its own API, as Box2D v3's benchmark code builds
// them for Box2D v3 (Box2D 2.4: scenes_box2d.h, Chipmunk: scenes_chipmunk.h).
#pragma once

#include <arbiter/world.h>

typedef struct bench_arbiter_scene {
  const char* name;   // as in bench_scene_names
  int body_capacity;  // arb_world_def.body_capacity hint: the most bodies alive at once
  /// Builds what exists before the first step; returns the scene's own state.
  void* (*create)(arb_world* world);
  /// Called before every step with its index from 0, as Box2D v3's benchmark calls its step
  /// function (spawning, destruction); NULL: nothing per step.
  void (*before_step)(void* state, arb_world* world, int step_index);
  void (*destroy)(void* state);  ///< NULL: nothing to free
} bench_arbiter_scene;

/// Box2D v3 benchmark/rain (scene_rain.c): ragdolls rained onto three rows of ground boxes.
extern const bench_arbiter_scene bench_arbiter_rain;
/// Box2D v3 benchmark/tumbler (scene_tumbler.c): boxes in a motor-driven four-wall drum.
extern const bench_arbiter_scene bench_arbiter_tumbler;
/// Box2D v3 benchmark/spinner (scene_spinner.c): a motor-driven bar stirring 6076 bodies
/// inside a 360-point chain loop.
extern const bench_arbiter_scene bench_arbiter_spinner;
/// Box2D v3 benchmark/washer (scene_washer.c): 8100 boxes in a turning kinematic drum of
/// 40 quads (five kinematic bodies of 8 quads moving as one).
extern const bench_arbiter_scene bench_arbiter_washer;
/// Box2D v3 benchmark/joint_grid (scene_joint_grid.c): 100 x 100 circles joined by 19 800
/// revolute joints, no contacts.
extern const bench_arbiter_scene bench_arbiter_joint_grid;

/// The capacity benchmark's world (scene_arena.c, scenes_shared.h "arena"): 10 000 bodies,
/// mixers and 256 walkers keeping about a fifth of them awake.
extern const bench_arbiter_scene bench_arbiter_arena;

/// The bouncy crowds (scene_bouncy.c, scenes_shared.h "bouncy_*"), in the order of
/// bench_bouncy_scenes: 400 bodies of restitution 1 (or 0.95) in a closed box.
extern const bench_arbiter_scene bench_arbiter_bouncy[];

/// The largest distance between a joint's two anchors in the world (how far its joints came
/// apart), or -1 when out of memory.
float bench_arbiter_max_joint_gap(const arb_world* world);

/// The world's total mechanical energy in J (bench_engine.energy): over its dynamic bodies,
/// 0.5 m |v|^2 + 0.5 I w^2 - m (g . p) in double; NAN when out of memory.
double bench_arbiter_world_energy(const arb_world* world);
