// bench/physics — Box2D v3's own-construction benchmark scenes (scenes.h, own_construction)
// built with Chipmunk2D 7 (scenes_chipmunk.c) for engine_chipmunk.c.
#pragma once

#include <chipmunk/chipmunk.h>

typedef struct bench_chipmunk_scene {
  const char* name;  // as in bench_scene_names
  /// Builds what exists before the first step; returns the scene's own state.
  void* (*create)(cpSpace* space);
  /// Called before every step with its index from 0, as Box2D v3's benchmark calls its step
  /// function (spawning, destruction); NULL: nothing per step.
  void (*before_step)(void* state, cpSpace* space, int step_index);
  /// Removes from the space and frees all that create and before_step added, and the state.
  void (*destroy)(void* state, cpSpace* space);
} bench_chipmunk_scene;

/// The scene of that name, or NULL when Chipmunk has no builder for it.
const bench_chipmunk_scene* bench_chipmunk_find_scene(const char* name);
