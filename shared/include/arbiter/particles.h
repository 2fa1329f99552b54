// arbiter — Verlet particles and distance constraints (physics extras): ropes, cloth and
// soft bodies.
//
// A particle is a point mass with a position and a previous position (velocity is their
// difference over dt). Each step, after the rigid bodies moved: every free particle moves
// by x' = x + (x - x_prev) / (1 + dt*damping) + gravity*dt^2 (damping is a per-second
// rate), then the distance constraints are relaxed `constraint_iterations` times in
// creation order (Gauss-Seidel), then each particle is pushed out of the bodies it
// overlaps as a circle of its radius (static and moving bodies alike; friction from the
// body's shape). Particles read bodies but never push them (one-way coupling).
// Particles are created and never destroyed individually (arb_particles_clear removes
// all). Part of the world hash and of save/restore.
#pragma once

#include "world.h"

ARB_C_BEGIN

typedef struct arb_particle_def {
  arb_vec2 position;   ///< meters (the previous position starts equal: at rest)
  float mass;          ///< kg, > 0
  float radius;        ///< collision radius, meters; 0 = does not collide with bodies
  float damping;       ///< per-second rate, >= 0
  bool pinned;         ///< pinned particles never move (infinite mass)
  uint32_t mask_bits;  ///< collides with bodies whose category_bits intersect; default all
  int internal_value;  ///< set by arb_default_particle_def; DO NOT SET
} arb_particle_def;

ARB_API arb_particle_def arb_default_particle_def(void);
/// Returns the particle's index (creation order, >= 0) or a negative ARB_E_* code.
ARB_API int arb_particle_create(arb_world* world, const arb_particle_def* def);
ARB_API int arb_world_get_particle_count(const arb_world* world);
ARB_API arb_vec2 arb_particle_get_position(const arb_world* world, int particle);
/// Displacement over the last step divided by the step (0 before the first step).
ARB_API arb_vec2 arb_particle_get_velocity(const arb_world* world, int particle);
ARB_API bool arb_particle_is_pinned(const arb_world* world, int particle);
/// Move a particle (and its previous position: no velocity is created). Between steps.
ARB_API int arb_particle_set_position(arb_world* world, int particle, arb_vec2 position);
ARB_API int arb_particle_set_pinned(arb_world* world, int particle, bool pinned);

typedef struct arb_constraint_def {
  int a, b;           ///< particle indices, distinct
  float rest_length;  ///< meters; < 0 = the current distance
  float stiffness;    ///< (0, 1]: fraction of the error removed per iteration; default 1
} arb_constraint_def;

/// Returns the constraint's index or a negative ARB_E_* code.
ARB_API int arb_constraint_create(arb_world* world, const arb_constraint_def* def);
ARB_API int arb_world_get_constraint_count(const arb_world* world);
/// The two particles and the rest length of constraint i. Returns 0 or ARB_E_RANGE.
ARB_API int arb_constraint_get(const arb_world* world, int i, int* a, int* b, float* rest_length);
/// Relaxation passes per step over all constraints (1..256; default 8).
ARB_API int arb_world_set_constraint_iterations(arb_world* world, int iterations);
ARB_API int arb_world_get_constraint_iterations(const arb_world* world);
/// Remove every particle and constraint.
ARB_API void arb_particles_clear(arb_world* world);

ARB_C_END
