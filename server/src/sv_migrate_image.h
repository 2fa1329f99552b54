// The state image of a running match, as one server hands it to another (docs/SCALING.md,
// "Moving a match"): everything the receiving server needs to continue the match from
// the next tick, and nothing it must trust before checking.
//
// Bytes (all little-endian):
//   8  magic "ARBMIGR\n"          u32 format version (SV_MIG_IMAGE_VERSION)
//   u64 simulation version (arb_game_sim_version)    u64 scene hash   u64 seed
//   u64 tick                       u64 game hash (arb_game_hash at that tick)
//   u16 tick rate                  u32 next client id
//   u8 match state (sv_match_state: 1 ready, 2 allocated, 3 draining)
//   u64 match age, u64 drain age (ns since the allocation and the drain; 0 = not yet)
//   u64 max duration, u64 exit when empty, u64 drain timeout (sv_match_limits, ns)
//   u16 recording path length, bytes (the sender's replay log, "" = not recording)
//   u32 player count (<= SV_MIG_MAX_PLAYERS), per player:
//     u32 client id, u32 entity id, u8 avatar kind, u8 flags (1 = connect token),
//     u64 the token's player id, u8 name length, name, u8 rejoin token length, token
//   u32 game image length (<= SV_MIG_MAX_GAME), arb_game_save bytes
//   u64 XXH3-64 of every byte before it
// The decoder is total: any input gives a decoded image or one clear error.
#pragma once

#include <arbiter/protocol.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SV_MIG_IMAGE_VERSION 1u
#define SV_MIG_MAGIC "ARBMIGR\n"
#define SV_MIG_MAX_PLAYERS 4096
#define SV_MIG_MAX_GAME (64u * 1024u * 1024u)
/// The largest image a server accepts: the game image and the players beside it.
#define SV_MIG_MAX_IMAGE (SV_MIG_MAX_GAME + 1024u * 1024u)
#define SV_MIG_MAX_PATH 1024
#define SV_MIG_TOKEN_MAX 39
#define SV_MIG_MATCH_READY 1  ///< the values of sv_match_state a moving match can be in
#define SV_MIG_MATCH_DRAINING 3

typedef struct sv_mig_player {
  uint32_t client_id, entity_id;
  uint8_t avatar_kind;
  bool has_token;
  uint64_t token_client_id;
  char name[ARB_PROTO_MAX_NAME + 1];
  char rejoin_token[SV_MIG_TOKEN_MAX + 1];
} sv_mig_player;

typedef struct sv_mig_image {
  uint64_t sim_version, scene_hash, seed, tick, game_hash;
  uint16_t tick_rate;
  uint32_t next_client_id;
  uint8_t match_state;  ///< sv_match_state: SV_MIG_MATCH_READY .. SV_MIG_MATCH_DRAINING
  uint64_t match_age_ns, drain_age_ns;
  uint64_t max_duration_ns, exit_when_empty_ns, drain_timeout_ns;
  char record_path[SV_MIG_MAX_PATH + 1];
  int player_count;
  sv_mig_player* players;  ///< encode: the caller's; decode: allocated (sv_mig_image_free)
  const uint8_t* game;     ///< encode: the caller's; decode: a view into the input
  size_t game_len;
} sv_mig_image;

/// Bytes the image takes; encode into buf (cap >= that). Returns the length, or 0 when a
/// field is out of range (too many players, a name or token too long).
size_t sv_mig_image_size(const sv_mig_image* m);
size_t sv_mig_image_encode(const sv_mig_image* m, uint8_t* buf, size_t cap);
/// Decode untrusted bytes. 0 and *out filled (players allocated, game a view into buf), or
/// ARB_E_TRUNCATED, ARB_E_CORRUPT (bad magic, range, checksum), ARB_E_VERSION (format),
/// ARB_E_TOO_BIG or ARB_E_NOMEM, with the reason in err. The simulation version and the
/// game hash are the caller's to check against its own build and the restored game.
int sv_mig_image_decode(const uint8_t* buf, size_t len, sv_mig_image* out, char* err,
                        size_t err_cap);
void sv_mig_image_free(sv_mig_image* m);
