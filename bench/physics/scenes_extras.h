// bench/physics — the physics-extras scenes (scenes_extras.c), arbiter only.
#pragma once

/// Names of the extras scenes, NULL-terminated.
extern const char* const bench_extras_scene_names[];
/// Run and print the extras scenes (only_scene NULL: all; an unknown name: none).
void bench_extras_run(const char* only_scene, int quick, int runs);
