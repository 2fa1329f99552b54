// arbiter — scene files (JSON, version 1; every key documented in docs/SCENES.md).
// A separate library from the dependency-free core: it parses with jansson and builds
// worlds through the public world API. Untrusted input: any text gives a scene or one
// error that names the file, the JSON path and the reason.
#pragma once

#include <arbiter/vehicle.h>
#include <arbiter/world.h>

ARB_C_BEGIN

typedef struct arb_scene arb_scene;

/// Where and why a scene was rejected.
typedef struct arb_scene_error {
  char file[256];     ///< file name as given, or "<built-in>" / the name passed to load_string
  char path[256];     ///< JSON path, e.g. "bodies[3].shape.circle.radius" ("" = whole file)
  char message[256];  ///< the reason, e.g. "must be > 0, got -1"
  int line, column;   ///< for JSON syntax errors, else 0
} arb_scene_error;

/// Format as "FILE: PATH: MESSAGE" (or with line:column for syntax errors).
ARB_API void arb_scene_error_format(const arb_scene_error* err, char* buf, size_t cap);

/// Parse and validate. On failure returns ARB_E_* and fills *err; *out stays NULL.
ARB_API int arb_scene_load_file(const char* path, arb_scene** out, arb_scene_error* err);
ARB_API int arb_scene_load_string(const char* text, size_t len, const char* name, arb_scene** out,
                                  arb_scene_error* err);
/// The built-in default scene (a walled arena with a pyramid and loose circles).
ARB_API int arb_scene_load_default(arb_scene** out, arb_scene_error* err);
ARB_API const char* arb_scene_default_text(void);
ARB_API void arb_scene_destroy(arb_scene* scene);

ARB_API const char* arb_scene_get_name(const arb_scene* scene);
/// The exact text the scene was parsed from (embedded in replay logs).
ARB_API const char* arb_scene_get_text(const arb_scene* scene, size_t* len);
/// XXH3-64 of the scene text.
ARB_API uint64_t arb_scene_get_hash(const arb_scene* scene);
ARB_API int arb_scene_get_tick_rate(const arb_scene* scene);
/// Override the tick rate (1..1000 Hz) the scene's games step at, as a server's --tick-rate
/// does. Replay logs record the rate used; re-simulations apply the header's rate the same
/// way after loading the recorded scene text. Affects games created afterwards.
ARB_API int arb_scene_set_tick_rate(arb_scene* scene, int hz);
/// Threads that step the worlds of the scene's games (arb_world_def.worker_count, 1..64),
/// as a server's --physics-threads sets. The results do not depend on it (not recorded).
/// Affects games created afterwards.
ARB_API int arb_scene_set_worker_count(arb_scene* scene, int workers);

/// Create a world holding the scene's bodies in scene order. body_ids (may be NULL)
/// receives up to cap ids, one per scene body. Returns ARB_OK or ARB_E_*.
ARB_API int arb_scene_create_world(const arb_scene* scene, arb_world** out, arb_body_id* body_ids,
                                   int cap);
ARB_API int arb_scene_get_body_count(const arb_scene* scene);
/// Name of scene body i, or NULL when it has none.
ARB_API const char* arb_scene_get_body_name(const arb_scene* scene, int i);

// ---- limits (documented in docs/SCENES.md) ---------------------------------------------

#define ARB_SCENE_VERSION 1
#define ARB_SCENE_MAX_FILE_SIZE (64 * 1024 * 1024)  ///< bytes
#define ARB_SCENE_MAX_BODIES 100000
#define ARB_SCENE_MAX_DEPTH 64  ///< nesting of JSON arrays/objects
#define ARB_SCENE_MAX_SPAWN_POINTS 1024
#define ARB_SCENE_MAX_NAME 64       ///< bytes in a body or scene name, without the NUL
#define ARB_SCENE_MAX_COORD 1.0e6f  ///< |position|, |point| in meters
#define ARB_SCENE_MAX_SIZE 1.0e4f   ///< radius, half extents, |polygon point|, meters
#define ARB_SCENE_MAX_SPEED 1.0e4f  ///< |velocity| m/s, |angular velocity| rad/s

// ---- scene contents (read-only views; valid while the scene lives) ------------------------

ARB_API arb_vec2 arb_scene_get_gravity(const arb_scene* scene);
/// Solver substeps per tick (the world default when the scene does not say).
ARB_API int arb_scene_get_substeps(const arb_scene* scene);
/// The scene's `seed` (0 when absent); mixed into the game's random generator.
ARB_API uint64_t arb_scene_get_seed(const arb_scene* scene);
/// A world definition with the scene's gravity, substeps, solve_iterations,
/// relax_iterations, enable_continuous, enable_sleep and enable_contact_recycling (other
/// fields default).
ARB_API arb_world_def arb_scene_get_world_def(const arb_scene* scene);
/// Definition of scene body i (0-based, scene order) or NULL when out of range. Static
/// geometry for a client's welcome message comes from here.
ARB_API const arb_body_def* arb_scene_get_body_def(const arb_scene* scene, int i);
/// Index of the body with this name, or -1.
ARB_API int arb_scene_find_body(const arb_scene* scene, const char* name);

/// Which rule turns a player's controls into forces on its avatar.
typedef enum arb_controller_type {
  ARB_CONTROLLER_NONE = 0,
  ARB_CONTROLLER_FORCE,    ///< move axes become a force; optional jump (controller_force.c)
  ARB_CONTROLLER_VEHICLE,  ///< steer/throttle/brake drive a vehicle (controller_vehicle.c)
  ARB_CONTROLLER_TYPE_COUNT
} arb_controller_type;

typedef enum arb_force_mode {
  ARB_FORCE_MODE_AUTO = 0,    ///< platformer when the scene has gravity, else top-down
  ARB_FORCE_MODE_PLATFORMER,  ///< move_x only (along the ground), jump when grounded
  ARB_FORCE_MODE_TOP_DOWN,    ///< move_x and move_y, no jump
  ARB_FORCE_MODE_COUNT
} arb_force_mode;

/// Parameters of the force controller (docs/SCENES.md, "avatar").
typedef struct arb_force_controller_def {
  arb_force_mode mode;
  float max_force;     ///< N, the largest force the controller applies
  float max_speed;     ///< m/s, the controller never accelerates the avatar beyond this
  float jump_impulse;  ///< N*s, applied against gravity when grounded; 0 = no jump
  float air_control;   ///< [0, 1], fraction of max_force available while airborne
} arb_force_controller_def;

/// The avatar's lag-compensated shot (docs/SCENES.md, "fire"): a press of the fire button
/// casts a ray along `aim` from the avatar against the other avatars as the player saw
/// them, and pushes the first one hit.
typedef struct arb_fire_def {
  bool enabled;   ///< false (no `fire` key): the fire button does nothing
  float range;    ///< m, length of the ray
  float impulse;  ///< N*s, along the ray, applied to the avatar hit
} arb_fire_def;

/// The template every player's avatar is spawned from.
typedef struct arb_scene_avatar {
  arb_body_def body;               ///< dynamic body: shape, material, filter, damping
  arb_controller_type controller;  ///< the controller for ARB_AVATAR_DEFAULT
  arb_force_controller_def force;  ///< used by ARB_CONTROLLER_FORCE
  arb_body_def vehicle_body;       ///< chassis of vehicle avatars (ARB_AVATAR_VEHICLE)
  arb_vehicle_def vehicle;         ///< their wheels (chassis id set at spawn)
  arb_fire_def fire;               ///< the fire button's shot (off by default)
} arb_scene_avatar;

/// The avatar template (the defaults when the scene has no `avatar` section).
ARB_API const arb_scene_avatar* arb_scene_get_avatar(const arb_scene* scene);
/// Spawn points (at least one: [0, 0] when the scene lists none).
ARB_API int arb_scene_get_spawn_point_count(const arb_scene* scene);
ARB_API arb_vec2 arb_scene_get_spawn_point(const arb_scene* scene, int i);

ARB_C_END
