// Private to libarbiter_game: the parsed scene. A scene is immutable after loading; the
// world, the game and the tools only read it through scene.h.
#pragma once

#include <arbiter/scene.h>

typedef struct arb_scene_body {
  char* name;              ///< NUL-terminated, or NULL when the body has none
  arb_body_def def;        ///< ready for arb_body_create
  arb_vec2* chain_points;  ///< a chain shape's points (def.shape.chain.points), or NULL
  arb_shape_def* shapes;   ///< a compound body's shapes (def.shapes), or NULL
} arb_scene_body;

struct arb_scene {
  char* text;  ///< the exact source text, NUL-terminated (replay logs embed it)
  size_t text_len;
  uint64_t hash;  ///< XXH3-64 of text
  char* name;     ///< `name`, else the file's base name without ".json"
  int version;
  uint64_t seed;
  arb_vec2 gravity;      ///< m/s^2
  int tick_rate;         ///< Hz
  int substeps;          ///< 0 = world default
  int solve_iterations;  ///< 0 = world default
  int relax_iterations;  ///< 0 = world default
  int continuous;        ///< `enable_continuous`: 0 = world default (on), 1 on, -1 off,
                         ///< 2 "static" (on, against static bodies only)
  bool sleep_off;        ///< `enable_sleep: false`
  bool recycling_off;    ///< `enable_contact_recycling: false`
  int worker_count;      ///< threads per world (not from the text: a server setting); 0 = 1
  arb_scene_body* bodies;
  int body_count;
  arb_scene_avatar avatar;
  arb_vec2* spawn_points;
  int spawn_count;
  struct arb_scene_extras* extras;  ///< springs, joints, particles, vehicles (scene_extras.c)
};

/// The built-in scene's text (generated from game/default_scene.json).
const char* arb__default_scene_text(size_t* len);
