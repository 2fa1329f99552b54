// The world of the server's per-client snapshot tests: a scene's game with players joined
// (game_fixture.h) and the server's snapshot state (capture and grid), opened and closed
// together.
#pragma once

#include "game_fixture.h"
#include "sv_snapshot.h"

/// game_fixture_open, then sv_snapshot_init for max_entities. 0, or -1 with nothing left open.
static inline int snap_world_open(game_fixture* world, sv_snapshot* snap, const char* scene_path,
                                  int players, uint32_t* avatars, int max_entities) {
  if (game_fixture_open(world, scene_path, players, avatars) != 0) return -1;
  if (sv_snapshot_init(snap, max_entities) != 0) {
    game_fixture_close(world);
    return -1;
  }
  return 0;
}

static inline void snap_world_close(game_fixture* world, sv_snapshot* snap) {
  sv_snapshot_free(snap);
  game_fixture_close(world);
}
