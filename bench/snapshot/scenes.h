// Scenes of bench-snapshot, generated as scene JSON (docs/SCENES.md) so they run through
// the same loader as the server.
#pragma once

#include <stddef.h>

typedef enum bench_scene {
  SCENE_MOVING,  ///< 1000 elastic circles, top-down, never at rest
  SCENE_PILE,    ///< 1000 boxes and circles dropped into a bin, settling under gravity
  SCENE_SPARSE,  ///< 10 000 bodies: 1000 moving as in SCENE_MOVING, 9000 at rest elsewhere
  SCENE_COUNT
} bench_scene;

const char* bench_scene_name(bench_scene s);
/// Writes the scene's JSON into a malloc'd string (caller frees); NULL on no memory.
char* bench_scene_json(bench_scene s, size_t* len);
