// bench/physics — Box2D v3's own-construction benchmark scenes (scenes.h, own_construction)
// built with Box2D 2.4 (scenes_box2d.cpp) for engine_box2d.cpp. C++ only.
#pragma once

#include <box2d/box2d.h>

struct bench_box2d_scene {
  const char* name;  // as in bench_scene_names
  /// Builds what exists before the first step; returns the scene's own state (or nullptr).
  void* (*create)(b2World* world);
  /// Called before every step with its index from 0, as Box2D v3's benchmark calls its step
  /// function (spawning, destruction; rain's joint springs); nullptr: nothing per step.
  void (*before_step)(void* state, b2World* world, int step_index);
  /// Frees the state, after the world (which owns the bodies); nullptr: nothing to free.
  void (*destroy)(void* state);
};

/// The scene of that name, or nullptr when Box2D 2.4 has no builder for it.
const bench_box2d_scene* bench_box2d_find_scene(const char* name);
