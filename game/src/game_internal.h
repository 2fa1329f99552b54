// Private to libarbiter_game: the game's state. Everything here that changes during a
// game is part of arb_game_hash and of the save image (game_state.c, state_fields).
#pragma once

#include <arbiter/game.h>

typedef struct arb_avatar {
  uint32_t client_id;  ///< > 0, unique among avatars
  uint32_t entity_id;  ///< > scene body count, unique, increasing with join order
  arb_body_id body;
  arb_controller_type controller;
  arb_controls controls;  ///< clamped, held until replaced
  int32_t jump_cooldown;  ///< ticks until the next jump is allowed
} arb_avatar;

/// Poses of every avatar after one tick (entity id order), for rewinding shots.
typedef struct arb_pose {
  uint32_t entity_id;
  arb_vec2 position;
  float angle;
} arb_pose;

typedef struct arb_pose_tick {
  uint64_t tick;  ///< the tick these are from; slot empty when no avatar was recorded
  uint32_t count;
  uint32_t cap;
  arb_pose* poses;
} arb_pose_tick;

struct arb_game {
  const arb_scene* scene;     ///< borrowed; outlives the game
  arb_world* world;           ///< owned
  float dt;                   ///< seconds, 1 / tick_rate
  uint64_t tick;              ///< completed arb_game_step calls
  uint64_t rng;               ///< PCG32 state (spawn choice)
  uint32_t next_entity_id;    ///< never decreases: ids are never reused
  uint32_t join_count;        ///< successful joins so far
  arb_body_id* scene_bodies;  ///< entity i+1 is scene body i
  int scene_body_count;
  arb_avatar* avatars;  ///< in join order, which is entity id order
  int avatar_count, avatar_cap;
  int* by_client;         ///< avatar indices sorted by client id (controller order)
  float spawn_clearance;  ///< m: a spawn point closer than this to an avatar is taken
  // Scene avatar `fire` only (else ring_len 0 and none of this is in the image or hash):
  arb_pose_tick* ring;  ///< poses of the last ring_len ticks, slot tick % ring_len
  uint32_t ring_len;    ///< tick_rate + 2: one second back and the tick before it
  arb_game_hit* hits;   ///< the last apply_tick's hits (not state: rebuilt every tick)
  int hit_count, hit_cap;
};

/// Lag-compensated shots (game_fire.c). init: ring for a scene with `fire` (ARB_E_NOMEM).
int arb__fire_init(arb_game* g);
void arb__fire_free_ring(arb_pose_tick* ring, uint32_t len);
/// Keep the avatars' poses of the tick just stepped.
int arb__fire_record(arb_game* g);
/// The fire button of `client_id` went down with these controls: resolve the shot.
void arb__fire_shoot(arb_game* g, uint32_t client_id, uint64_t view_time);

/// Cooldown after a jump, in ticks (so one press is one jump while the contact persists).
int arb__force_jump_cooldown_ticks(float dt);

/// Apply the force controller of one avatar for this tick (forces/impulses only; the world
/// step integrates them). Reads contacts of the last step to decide whether it is grounded.
void arb__controller_force_apply(arb_world* world, const arb_force_controller_def* def,
                                 arb_vec2 gravity, float dt, arb_avatar* avatar);

/// The physics extras of arb_game_write_json (game_json.c): particles, vehicles, springs,
/// joints, each key only when the world has some.
void arb__game_write_extras_json(const arb_game* game, arb_write_fn* write, void* user);
