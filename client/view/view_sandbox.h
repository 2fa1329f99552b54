// arbiter-view — scene sandbox (--scene FILE): the game rules run locally at the scene's
// tick rate with one local player (client id 1) driven by the keyboard. A quick way to
// look at a scene file without a server; nothing is sent or recorded.
#pragma once

#include <arbiter/controls.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct arb_game arb_game;
typedef struct view_sandbox view_sandbox;

/// path "default" = the built-in scene. On failure writes the reason (file, JSON path).
int view_sandbox_open(const char* path, arb_avatar_kind kind, view_sandbox** out, char* err,
                      size_t cap);
void view_sandbox_close(view_sandbox* s);
/// Run the ticks due after wall_dt seconds (bounded) with these controls.
void view_sandbox_update(view_sandbox* s, double wall_dt, const arb_controls* controls,
                         bool paused);
/// Back to the scene's initial state (player re-joined).
int view_sandbox_restart(view_sandbox* s);
arb_game* view_sandbox_game(view_sandbox* s);
const char* view_sandbox_name(const view_sandbox* s);
