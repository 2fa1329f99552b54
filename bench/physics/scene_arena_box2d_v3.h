// bench/physics — the arena (scenes_shared.h) for Box2D v3, with the signatures of its
// benchmark's Create and Step functions (engine_box2d_v3.c runs it like them).
#pragma once

#include <box2d/id.h>

void bench_b3_create_arena(b2WorldId world);
/// Before step `step_index` (from 0): the walkers' forces.
float bench_b3_step_arena(b2WorldId world, int step_index);
