// bench/physics — the bouncy crowds (scenes_shared.h) for Box2D v3, with the signature of its
// benchmark's Create functions (engine_box2d_v3.c runs them like them; no step function).
#pragma once

#include <box2d/id.h>

void bench_b3_create_bouncy_circles(b2WorldId world);
void bench_b3_create_bouncy_circles_095(b2WorldId world);
void bench_b3_create_bouncy_topdown(b2WorldId world);
void bench_b3_create_bouncy_boxes(b2WorldId world);
void bench_b3_create_bouncy_mixed(b2WorldId world);
