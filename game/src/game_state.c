// The game layer's state in the canonical codec (arbiter/state_codec.h): one visitor per
// record drives arb_game_hash, arb_game_save and arb_game_restore.
//
// Image (all little-endian):
//   u32 magic "ARBG" | u32 version | u64 scene hash
//   u64 tick | u64 rng | u32 next_entity_id | u32 join_count | u32 avatar_count
//   avatar_count x { u32 client_id, u32 entity_id, i32 body index1, u32 body generation,
//                    u32 controller, f32 move_x, f32 move_y, f32 aim, u32 buttons,
//                    f32 steer, f32 throttle, f32 brake, i32 jump_cooldown }
//   scene avatar `fire` only: ring_len x { u64 tick, u32 count,
//                                           count x { u32 entity_id, f32 x, f32 y, f32 angle } }
//   u32 world image length | world image (arb_world_save)
// The hash covers the same state fields (tick to the last avatar), seeded with the world
// hash. Without `fire` the image and hash are exactly those of before shots existed.
//
// DETERMINISM: avatars are visited in join (entity id) order.
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <arbiter/state_codec.h>

#include "game_internal.h"

#define GAME_IMAGE_MAGIC 0x47425241u  // "ARBG" little-endian
#define GAME_IMAGE_VERSION 1u
#define AVATAR_IMAGE_BYTES (13u * 4u)

// The state as serialized: a view of the game (writing) or staging for a restore.
typedef struct game_image {
  uint64_t tick, rng;
  uint32_t next_entity_id, join_count, avatar_count;
  arb_avatar* avatars;
  arb_pose_tick* ring;  ///< g->ring_len slots (fire scenes only)
} game_image;

static bool controls_in_range(const arb_controls* c) {
  return c->move_x >= -1.0f && c->move_x <= 1.0f && c->move_y >= -1.0f && c->move_y <= 1.0f &&
         c->aim >= -ARB_PI && c->aim <= ARB_PI && c->steer >= -1.0f && c->steer <= 1.0f &&
         c->throttle >= 0.0f && c->throttle <= 1.0f && c->brake >= 0.0f && c->brake <= 1.0f;
}

// Reading only: what join and set_controls guarantee of an avatar.
static bool avatar_ok(const arb_game* g, const game_image* s, uint32_t i) {
  const arb_avatar* a = &s->avatars[i];
  bool ordered = i == 0 || a->entity_id > s->avatars[i - 1].entity_id;
  return a->client_id != 0 && ordered && a->entity_id > (uint32_t)g->scene_body_count &&
         a->entity_id < s->next_entity_id &&
         (a->controller == ARB_CONTROLLER_FORCE || a->controller == ARB_CONTROLLER_VEHICLE) &&
         controls_in_range(&a->controls) && a->jump_cooldown >= 0 &&
         a->jump_cooldown <= arb__force_jump_cooldown_ticks(g->dt);
}

static void avatar_fields(arb_codec* c, arb_avatar* a) {
  uint32_t controller = (uint32_t)a->controller;
  arb_codec_u32(c, &a->client_id);
  arb_codec_u32(c, &a->entity_id);
  arb_codec_i32(c, &a->body.index1);
  arb_codec_u32(c, &a->body.generation);
  arb_codec_u32(c, &controller);
  if (arb_codec_reading(c)) a->controller = (arb_controller_type)controller;
  ARB_CODEC_F32S(c, &a->controls.move_x, &a->controls.move_y, &a->controls.aim);
  arb_codec_u32(c, &a->controls.buttons);
  ARB_CODEC_F32S(c, &a->controls.steer, &a->controls.throttle, &a->controls.brake);
  arb_codec_i32(c, &a->jump_cooldown);
}

// The pose ring of a `fire` scene (game_fire.c): slot order, poses in entity id order.
static void ring_fields(arb_codec* c, const arb_game* g, game_image* s) {
  if (arb_codec_reading(c) && !c->err) {
    s->ring = calloc(g->ring_len, sizeof *s->ring);
    if (!s->ring) arb_codec_fail(c, ARB_E_NOMEM);
  }
  for (uint32_t i = 0; i < g->ring_len && !c->err; i++) {  // DET: slot order
    arb_pose_tick* slot = &s->ring[i];
    arb_codec_u64(c, &slot->tick);
    arb_codec_u32(c, &slot->count);
    if (arb_codec_reading(c) && !c->err) {
      ARB_CODEC_CHECK(c, slot->count <= ARB_GAME_MAX_AVATARS &&
                             (slot->count == 0 || slot->tick % g->ring_len == i));
      if (!c->err && (uint64_t)slot->count * 16u > arb_codec_left(c))
        arb_codec_fail(c, ARB_E_TRUNCATED);
      if (!c->err && slot->count) {
        slot->poses = calloc(slot->count, sizeof *slot->poses);
        slot->cap = slot->count;
        if (!slot->poses) arb_codec_fail(c, ARB_E_NOMEM);
      }
    }
    for (uint32_t k = 0; k < slot->count && !c->err; k++) {
      arb_pose* p = &slot->poses[k];
      arb_codec_u32(c, &p->entity_id);
      ARB_CODEC_F32S(c, &p->position.x, &p->position.y, &p->angle);
      ARB_CODEC_CHECK(c, c->err || k == 0 || p->entity_id > slot->poses[k - 1].entity_id);
    }
  }
}

static void state_fields(arb_codec* c, const arb_game* g, game_image* s) {
  arb_codec_u64(c, &s->tick);
  arb_codec_u64(c, &s->rng);
  arb_codec_u32(c, &s->next_entity_id);
  arb_codec_u32(c, &s->join_count);
  arb_codec_u32(c, &s->avatar_count);
  if (arb_codec_reading(c) && !c->err) {
    if (s->avatar_count > ARB_GAME_MAX_AVATARS) arb_codec_fail(c, ARB_E_TOO_BIG);
    ARB_CODEC_CHECK(
        c, s->next_entity_id > (uint32_t)g->scene_body_count && s->avatar_count <= s->join_count);
    if (!c->err && (uint64_t)s->avatar_count * AVATAR_IMAGE_BYTES > arb_codec_left(c))
      arb_codec_fail(c, ARB_E_TRUNCATED);
    if (c->err) return;
    s->avatars = calloc(s->avatar_count ? s->avatar_count : 1, sizeof *s->avatars);
    if (!s->avatars) arb_codec_fail(c, ARB_E_NOMEM);
  }
  for (uint32_t i = 0; i < s->avatar_count && !c->err; i++) {  // DET: join order
    avatar_fields(c, &s->avatars[i]);
    ARB_CODEC_CHECK(c, c->err || avatar_ok(g, s, i));
  }
  if (g->ring_len) ring_fields(c, g, s);
}

static game_image image_of(const arb_game* g) {
  game_image s = {g->tick,    g->rng, g->next_entity_id, g->join_count, (uint32_t)g->avatar_count,
                  g->avatars, g->ring};  // writing never stores through it
  return s;
}

static void header_fields(arb_codec* c, uint32_t* magic, uint32_t* version, uint64_t* scene_hash) {
  arb_codec_u32(c, magic);
  arb_codec_u32(c, version);
  arb_codec_u64(c, scene_hash);
}

uint64_t arb_game_hash(const arb_game* game) {
  XXH3_state_t st;
  // xxHash 0.8.1 reads st.seed before setting it in reset_withSeed: when stack garbage
  // equals the seed it skips building the secret and the hash depends on old stack bytes.
  XXH3_INITSTATE(&st);
  XXH3_64bits_reset_withSeed(&st, arb_world_hash(game->world));
  arb_codec c;
  arb_codec_init_hash(&c, &st);
  game_image s = image_of(game);
  state_fields(&c, game, &s);
  arb_codec_flush(&c);
  return XXH3_64bits_digest(&st);
}

int arb_game_save(const arb_game* game, uint8_t* buf, int cap) {
  int world_len = arb_world_save(game->world, NULL, 0);
  if (world_len < 0) return world_len;
  uint32_t magic = GAME_IMAGE_MAGIC, version = GAME_IMAGE_VERSION, wlen = (uint32_t)world_len;
  uint64_t scene_hash = arb_scene_get_hash(game->scene);
  game_image s = image_of(game);
  arb_codec c;
  arb_codec_init_count(&c);
  header_fields(&c, &magic, &version, &scene_hash);
  state_fields(&c, game, &s);
  uint64_t total = arb_codec_pos(&c) + 4u + (uint64_t)world_len;
  if (total > (uint64_t)INT32_MAX) return ARB_E_TOO_BIG;
  if (!buf || cap < 0 || (uint64_t)cap < total) return (int)total;
  arb_codec_init_write(&c, buf, (size_t)cap);
  header_fields(&c, &magic, &version, &scene_hash);
  state_fields(&c, game, &s);
  arb_codec_u32(&c, &wlen);
  if (c.err) return c.err;
  size_t at = arb_codec_pos(&c);
  int written = arb_world_save(game->world, buf + at, (int)(total - at));
  if (written != world_len) return written < 0 ? written : ARB_E_STATE;
  return (int)total;
}

// by_client: avatar indices sorted by client id (insertion sort on at most 4096); false
// when two avatars share a client id.
static bool sort_by_client(const arb_avatar* avatars, uint32_t count, int* by_client) {
  for (uint32_t i = 0; i < count; i++) {
    int k = (int)i;
    while (k > 0 && avatars[by_client[k - 1]].client_id > avatars[i].client_id) {
      by_client[k] = by_client[k - 1];
      k--;
    }
    by_client[k] = (int)i;
    if (k > 0 && avatars[by_client[k - 1]].client_id == avatars[i].client_id) return false;
  }
  return true;
}

// The world restore commits on success only; the bodies the game refers to are checked
// after it, so the current world is kept to put back if they do not match.
static int restore_world(arb_game* g, const game_image* s, const uint8_t* image, uint32_t len) {
  int backup_len = arb_world_save(g->world, NULL, 0);
  uint8_t* backup = backup_len > 0 ? malloc((size_t)backup_len) : NULL;
  if (!backup || arb_world_save(g->world, backup, backup_len) != backup_len) {
    free(backup);
    return ARB_E_NOMEM;
  }
  int rc = arb_world_restore(g->world, image, (int)len);
  bool bodies_ok = true;
  for (uint32_t i = 0; i < s->avatar_count && rc == ARB_OK && bodies_ok; i++) {
    bodies_ok = arb_body_is_valid(g->world, s->avatars[i].body);
  }
  for (int i = 0; i < g->scene_body_count && rc == ARB_OK && bodies_ok; i++) {
    bodies_ok = arb_body_is_valid(g->world, g->scene_bodies[i]);
  }
  if (rc == ARB_OK && !bodies_ok) {
    arb_world_restore(g->world, backup, backup_len);
    rc = ARB_E_CORRUPT;
  }
  free(backup);
  return rc;
}

// Reads and checks everything up to the world image; *s owns its avatars on success.
static int read_state(arb_game* g, arb_codec* c, game_image* s) {
  uint32_t magic = 0, version = 0, world_len = 0;
  uint64_t scene_hash = 0;
  arb_codec_u32(c, &magic);
  if (magic != GAME_IMAGE_MAGIC) return c->err ? c->err : ARB_E_CORRUPT;
  arb_codec_u32(c, &version);
  if (version != GAME_IMAGE_VERSION) return c->err ? c->err : ARB_E_VERSION;
  arb_codec_u64(c, &scene_hash);
  if (scene_hash != arb_scene_get_hash(g->scene)) return c->err ? c->err : ARB_E_INVAL;
  state_fields(c, g, s);
  arb_codec_u32(c, &world_len);
  if (c->err) return c->err;
  if (world_len != arb_codec_left(c))
    return world_len > arb_codec_left(c) ? ARB_E_TRUNCATED : ARB_E_CORRUPT;
  return ARB_OK;
}

int arb_game_restore(arb_game* game, const uint8_t* buf, int len) {
  if (!game || !buf || len < 0) return ARB_E_INVAL;
  arb_codec c;
  arb_codec_init_read(&c, buf, (size_t)len);
  game_image s = {0};
  int rc = read_state(game, &c, &s);
  int* by_client =
      rc == ARB_OK ? calloc(s.avatar_count ? s.avatar_count : 1, sizeof *by_client) : NULL;
  if (rc == ARB_OK && !by_client) rc = ARB_E_NOMEM;
  if (rc == ARB_OK && !sort_by_client(s.avatars, s.avatar_count, by_client)) rc = ARB_E_CORRUPT;
  if (rc == ARB_OK) rc = restore_world(game, &s, buf + c.in_pos, (uint32_t)arb_codec_left(&c));
  if (rc != ARB_OK) {
    free(s.avatars);
    free(by_client);
    arb__fire_free_ring(s.ring, game->ring_len);
    return rc;
  }
  if (game->ring_len) {
    arb__fire_free_ring(game->ring, game->ring_len);
    game->ring = s.ring;
  }
  game->hit_count = 0;
  free(game->avatars);
  free(game->by_client);
  game->avatars = s.avatars;
  game->by_client = by_client;
  game->avatar_count = (int)s.avatar_count;
  game->avatar_cap = s.avatar_count ? (int)s.avatar_count : 1;
  game->tick = s.tick;
  game->rng = s.rng;
  game->next_entity_id = s.next_entity_id;
  game->join_count = s.join_count;
  return ARB_OK;
}

uint64_t arb_game_sim_version(void) {
  uint64_t parts[3] = {ARB_GAME_SIM_REVISION, GAME_IMAGE_VERSION, arb_world_image_layout()};
  uint8_t bytes[sizeof parts];
  for (int i = 0; i < 3; ++i)  // little-endian, whatever the host
    for (int b = 0; b < 8; ++b) bytes[8 * i + b] = (uint8_t)(parts[i] >> (8 * b));
  return XXH3_64bits(bytes, sizeof bytes);
}
