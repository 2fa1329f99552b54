// Private to libarbiter_game: the physics-extras sections of a scene (`springs`,
// `joints`, `particles`, `constraints`, `constraint_iterations`, `vehicles`) and the
// vehicle avatar template. Parsed by scene_extras.c, built into a world after the bodies.
#pragma once

#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/vehicle.h>

#include "scene_parse.h"

#define ARB_SCENE_MAX_SPRINGS 100000
#define ARB_SCENE_MAX_JOINTS 100000
#define ARB_SCENE_MAX_VEHICLES 10000
#define ARB_SCENE_MAX_PARTICLES 1000000
#define ARB_SCENE_MAX_CONSTRAINTS 2000000

// Body references are kept as scene body indices (in the defs' body ids: index1 = scene
// index + 1, generation 0; null = the world) and resolved when a world is built.
typedef struct arb_scene_extras {
  arb_spring_def* springs;
  int spring_count;
  arb_joint_def* joints;
  int joint_count;
  arb_particle_def* particles;
  int particle_count;
  arb_constraint_def* constraints;
  int constraint_count;
  int constraint_iterations;  ///< 0 = the world default
  arb_vehicle_def* vehicles;
  int vehicle_count;
} arb_scene_extras;

// Helpers shared by the extras parsers (scene_extras.c, scene_joints.c).
arb_scene_extras* arb__sx_extras(sj_ctx* ctx, arb_scene* scene);  // created on first use
/// Parses one item of a list: the object v (at path [i]) into the zeroed item `slot`.
typedef int arb__sx_item_fn(sj_ctx* ctx, const json_t* v, const arb_scene* scene, void* slot);
/// An array of 0..limit objects: allocates *count `elem`-sized zeroed items (NULL for none)
/// and parses each with fn; on a failure ctx says where and why.
void* arb__sx_list(sj_ctx* ctx, const json_t* v, const arb_scene* scene, const char* what,
                   int limit, size_t elem, int* count, arb__sx_item_fn* fn);
/// A body by name (string) or scene index (integer) at obj.key; *out = -1 when absent.
int arb__sx_body_ref(sj_ctx* ctx, const json_t* obj, const char* key, bool required,
                     const arb_scene* scene, int* out);
arb_body_id arb__sx_ref_id(int index);  // scene index -> unresolved id (-1: null)
arb_transform arb__sx_body_xf(const arb_scene* scene, int index);  // pose as written
int arb__sx_fail_at(sj_ctx* ctx, const char* key, int code, const char* msg);
bool arb__sx_is_dynamic(const arb_scene* scene, int index);

/// Defines the section parser arb__scene_parse_<items>: the array of up to `limit` objects
/// at the section `items`, each parsed by item_fn into x->items (x->count of them).
#define ARB__SX_LIST_SECTION(items, count, limit, item_fn)                                      \
  int arb__scene_parse_##items(sj_ctx* ctx, const json_t* value, arb_scene* scene) {            \
    arb_scene_extras* x = arb__sx_extras(ctx, scene);                                           \
    if (x)                                                                                      \
      x->items =                                                                                \
          arb__sx_list(ctx, value, scene, #items, limit, sizeof *x->items, &x->count, item_fn); \
    return ctx->code;                                                                           \
  }

int arb__scene_parse_springs(sj_ctx* ctx, const json_t* value, arb_scene* scene);
int arb__scene_parse_joints(sj_ctx* ctx, const json_t* value, arb_scene* scene);
int arb__scene_parse_particles(sj_ctx* ctx, const json_t* value, arb_scene* scene);
int arb__scene_parse_constraints(sj_ctx* ctx, const json_t* value, arb_scene* scene);
int arb__scene_parse_constraint_iterations(sj_ctx* ctx, const json_t* value, arb_scene* scene);
int arb__scene_parse_vehicles(sj_ctx* ctx, const json_t* value, arb_scene* scene);
/// avatar.controller with "type": "vehicle" (the whole controller object).
int arb__scene_parse_vehicle_controller(sj_ctx* ctx, const json_t* value, arb_scene_avatar* avatar);
/// Defaults of the vehicle avatar (a kart: chassis template + wheels).
void arb__scene_default_vehicle_avatar(arb_scene_avatar* avatar);

/// Create the scene's extras in a world whose first scene->body_count bodies are the
/// scene's, in order. On failure, ctx (may be NULL) names the element refused.
int arb__scene_build_extras(const arb_scene* scene, arb_world* world, sj_ctx* ctx);
void arb__scene_free_extras(arb_scene* scene);
