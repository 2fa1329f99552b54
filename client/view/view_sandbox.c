// arbiter-view — scene sandbox (see view_sandbox.h).
#include "view_sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/game.h>

#define SANDBOX_CLIENT 1u
#define SANDBOX_MAX_CATCHUP 8  // ticks per frame at most: a slow frame slows time, never hangs

struct view_sandbox {
  arb_scene* scene;
  arb_game* game;
  arb_avatar_kind kind;
  double acc;
};

static int start(view_sandbox* s) {
  if (s->game) arb_game_destroy(s->game);
  s->game = NULL;
  int rc = arb_game_create(s->scene, 1, &s->game);
  if (rc != 0) return rc;
  uint32_t eid = 0;
  // A scene without an avatar template still shows; the player just has nothing to drive.
  (void)arb_game_join(s->game, SANDBOX_CLIENT, s->kind, &eid);
  s->acc = 0.0;
  return 0;
}

int view_sandbox_open(const char* path, arb_avatar_kind kind, view_sandbox** out, char* err,
                      size_t cap) {
  *out = NULL;
  view_sandbox* s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, cap, "out of memory");
    return ARB_E_NOMEM;
  }
  s->kind = kind;
  arb_scene_error se;
  memset(&se, 0, sizeof se);
  int rc = strcmp(path, "default") == 0 ? arb_scene_load_default(&s->scene, &se)
                                        : arb_scene_load_file(path, &s->scene, &se);
  if (rc != 0) {
    arb_scene_error_format(&se, err, cap);
    free(s);
    return rc;
  }
  rc = start(s);
  if (rc != 0) {
    snprintf(err, cap, "%s: cannot create the game: %s", path, arb_strerror(rc));
    view_sandbox_close(s);
    return rc;
  }
  *out = s;
  return 0;
}

void view_sandbox_close(view_sandbox* s) {
  if (!s) return;
  if (s->game) arb_game_destroy(s->game);
  if (s->scene) arb_scene_destroy(s->scene);
  free(s);
}

int view_sandbox_restart(view_sandbox* s) {
  return start(s);
}

void view_sandbox_update(view_sandbox* s, double wall_dt, const arb_controls* controls,
                         bool paused) {
  if (paused) return;
  // Every tick goes through the game's tick applier, as a predicting client's would: this
  // player's controls, then the step.
  arb_tick_control own = {SANDBOX_CLIENT, *controls, ARB_OK, 0};
  arb_tick_inputs tick = {NULL, 0, NULL, 0, &own, 1};
  double dt = (double)arb_game_get_dt(s->game);
  s->acc += wall_dt;
  int n = 0;
  while (s->acc >= dt && n < SANDBOX_MAX_CATCHUP) {
    arb_game_apply_tick(s->game, &tick);
    s->acc -= dt;
    n++;
  }
  if (n == SANDBOX_MAX_CATCHUP) s->acc = 0.0;
}

arb_game* view_sandbox_game(view_sandbox* s) {
  return s->game;
}
const char* view_sandbox_name(const view_sandbox* s) {
  return arb_scene_get_name(s->scene);
}
