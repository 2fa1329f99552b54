// tests, bench — a cloth of particles, for the scenes that drape one (the extras
// determinism test, the physics benchmark): n x n particles `spacing` apart from `corner`
// rightwards and upwards, each joined to its right and its upper neighbour by a constraint
// at its current length; in the top row every `pin_every`-th particle from the left is
// pinned.
#pragma once

#include <arbiter/particles.h>

typedef struct particle_cloth {
  int n;
  arb_vec2 corner;  ///< the bottom-left particle
  float spacing, radius, damping;
  int pin_every;
} particle_cloth;

static inline void particle_cloth_create(arb_world* w, const particle_cloth* c) {
  const int n = c->n;
  int base = arb_world_get_particle_count(w);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      arb_particle_def pd = arb_default_particle_def();
      pd.position =
          arb_v2(c->corner.x + c->spacing * (float)i, c->corner.y + c->spacing * (float)j);
      pd.radius = c->radius;
      pd.damping = c->damping;
      pd.pinned = j == n - 1 && i % c->pin_every == 0;
      arb_particle_create(w, &pd);
    }
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      int k = base + j * n + i;
      arb_constraint_def cd = {k, k + 1, -1.0f, 1.0f};
      if (i + 1 < n) arb_constraint_create(w, &cd);
      cd.b = k + n;
      if (j + 1 < n) arb_constraint_create(w, &cd);
    }
  }
}
