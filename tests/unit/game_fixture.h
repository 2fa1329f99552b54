// The world of the server-side tests: the game of a scene file (seed 1) with players joined,
// as a server has it after their handshakes.
#pragma once

#include <arbiter/game.h>
#include <arbiter/scene.h>
#include <stddef.h>
#include <stdint.h>

typedef struct game_fixture {
  arb_scene* scene;
  arb_game* game;
} game_fixture;

static inline void game_fixture_close(game_fixture* f) {
  arb_game_destroy(f->game);
  arb_scene_destroy(f->scene);
  f->game = NULL;
  f->scene = NULL;
}

/// Loads scene_path, creates its game with seed 1 and joins clients 1..players with the
/// scene's default avatar (their entity ids into avatars, when not NULL). 0, or -1 with
/// nothing left open.
static inline int game_fixture_open(game_fixture* f, const char* scene_path, int players,
                                    uint32_t* avatars) {
  arb_scene_error err;
  f->scene = NULL;
  f->game = NULL;
  if (arb_scene_load_file(scene_path, &f->scene, &err) != 0 ||
      arb_game_create(f->scene, 1, &f->game) != 0) {
    game_fixture_close(f);
    return -1;
  }
  for (int i = 0; i < players; ++i) {
    uint32_t entity = 0;
    if (arb_game_join(f->game, (uint32_t)i + 1, ARB_AVATAR_DEFAULT, &entity) != 0) {
      game_fixture_close(f);
      return -1;
    }
    if (avatars) avatars[i] = entity;
  }
  return 0;
}
