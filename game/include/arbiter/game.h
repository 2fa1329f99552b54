// arbiter — the game rules layer: a scene's world plus the players' avatars.
//
// This is the deterministic core shared by the live server and by every offline
// re-simulation (arbiter-replay, the viewer's replay player): both feed it the same
// joins, leaves and controls at tick boundaries, so live == offline by construction.
// It does no I/O and knows nothing of networking or wall time.
//
// A tick is applied by arb_game_apply_tick from a plain description (tick_inputs.h): the
// joins, then the leaves, then each client's controls, then one arb_game_step. Everything
// that re-simulates or predicts a tick goes through it; the single calls below are for
// tests and tools that build a game by hand.
#pragma once

#include <arbiter/controls.h>
#include <arbiter/scene.h>
#include <arbiter/tick_inputs.h>

ARB_C_BEGIN

typedef struct arb_game arb_game;

/// A simulated object as the network sees it: stable entity ids, never reused.
typedef struct arb_entity {
  uint32_t id;  ///< entity id, > 0, assigned in creation order
  arb_body_id body;
  uint32_t owner;  ///< client id of the avatar's player, 0 = world
  arb_avatar_kind
      kind;  ///< ARB_AVATAR_FORCE or _VEHICLE for avatars (never DEFAULT); DEFAULT for world bodies
} arb_entity;

/// The game owns its world. The scene must outlive the game.
ARB_API int arb_game_create(const arb_scene* scene, uint64_t seed, arb_game** out);
ARB_API void arb_game_destroy(arb_game* game);
ARB_API arb_world* arb_game_get_world(arb_game* game);
ARB_API const arb_scene* arb_game_get_scene(const arb_game* game);
ARB_API uint64_t arb_game_get_tick(const arb_game* game);
/// Fixed step length, 1 / tick_rate seconds.
ARB_API float arb_game_get_dt(const arb_game* game);

/// Spawn the client's avatar (spawn point chosen deterministically from the game state).
/// Writes the avatar's entity id. Fails for an id already joined or ARB_E_FULL.
ARB_API int arb_game_join(arb_game* game, uint32_t client_id, arb_avatar_kind kind,
                          uint32_t* entity_id);
ARB_API int arb_game_leave(arb_game* game, uint32_t client_id);
/// Controls are held until replaced. Values are clamped to their ranges.
ARB_API int arb_game_set_controls(arb_game* game, uint32_t client_id, const arb_controls* controls);
/// Apply every avatar's controller, then step the world once.
ARB_API void arb_game_step(arb_game* game);
/// Apply one tick's inputs (joins, leaves, controls, each in array order) and step once.
/// Every item gets its result (and a join its entity id); a refused item changes nothing.
/// Returns ARB_OK, the first item's error (the step happened anyway), or ARB_E_INVAL for
/// a malformed description (nothing applied, no step).
ARB_API int arb_game_apply_tick(arb_game* game, arb_tick_inputs* inputs);
/// World hash plus the game's own state (avatars, controls, tick, rng).
ARB_API uint64_t arb_game_hash(const arb_game* game);

/// Entities in id order. Writes up to cap, returns the total.
ARB_API int arb_game_get_entities(const arb_game* game, arb_entity* out, int cap);
ARB_API int arb_game_find_entity(const arb_game* game, uint32_t entity_id, arb_entity* out);

/// Whole game state (world + avatars), for checkpoints. Same contract as arb_world_save.
ARB_API int arb_game_save(const arb_game* game, uint8_t* buf, int cap);
ARB_API int arb_game_restore(arb_game* game, const uint8_t* buf, int len);
/// The simulation version: a hash of what determines a game's results from its state and
/// inputs (ARB_GAME_SIM_REVISION, the game image's version, the world image's layout). Two
/// builds with the same version step the same state to the same hashes; a state image or
/// replay log names it, and a migration between different versions is refused.
ARB_API uint64_t arb_game_sim_version(void);
/// Raised whenever a change makes the same inputs give different results (the golden
/// hashes and committed replay logs change in the same commit).
#define ARB_GAME_SIM_REVISION 1u

/// Most avatars a game holds at once (joins beyond fail with ARB_E_FULL).
#define ARB_GAME_MAX_AVATARS 4096

/// The avatar of a client: ARB_OK and *out filled, or ARB_E_NOT_FOUND.
ARB_API int arb_game_get_avatar(const arb_game* game, uint32_t client_id, arb_entity* out);
ARB_API int arb_game_get_avatar_count(const arb_game* game);
/// The controls currently held for a client (after clamping).
ARB_API int arb_game_get_controls(const arb_game* game, uint32_t client_id, arb_controls* out);

/// A shot that hit (scene avatar `fire`), in the order the tick's controls were applied.
typedef struct arb_game_hit {
  uint64_t tick;           ///< the tick whose step applied the shot's impulse
  uint32_t shooter;        ///< client id of the player who fired
  uint32_t target_entity;  ///< the avatar hit
  uint32_t target_owner;   ///< its player's client id
  arb_vec2 point;          ///< m, where the ray met it, as the shooter saw it
  uint64_t view_time;      ///< the time the shot was resolved at, 1/256 ticks (bounded)
} arb_game_hit;

/// The hits of the last arb_game_apply_tick; valid until the next one. Returns the count.
ARB_API int arb_game_get_hits(const arb_game* game, const arb_game_hit** out);

/// Sink for arb_game_write_json; called several times per line.
typedef void arb_write_fn(const char* data, size_t len, void* user);

/// One JSON line (with its trailing newline) describing the current tick, the format
/// arbiter-sim prints (docs/SCENES.md): {"tick":N,"hash":"<16 hex>","bodies":[...]} with
/// entities in id order, then "particles", "vehicles", "springs" and "joints" when the world
/// has any; or only tick and hash when with_bodies is false. "hash" is arb_world_hash.
/// Avatars carry "name":"avatar" and "owner":<client id>.
ARB_API void arb_game_write_json(const arb_game* game, bool with_bodies, arb_write_fn* write,
                                 void* user);

ARB_C_END
