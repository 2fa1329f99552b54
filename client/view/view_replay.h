// arbiter-view — the replay player's re-simulation driver (no SDL in here, so it can move
// to a shared place later). It loads a .arbrec log, rebuilds the game from the scene text
// the log carries, and feeds it the recorded joins, leaves and controls tick by tick,
// comparing arb_game_hash with the recorded hash after every step.
//
// Seeking: the driver keeps its own game checkpoints (arb_game_save every
// VIEW_REPLAY_CHECKPOINT_EVERY ticks, plus tick 0) together with the log reader's
// position; a backward seek restores the nearest checkpoint at or before the target and
// re-simulates forward. Forward work is bounded per call so the window never freezes.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct arb_game arb_game;
typedef struct view_replay view_replay;

#define VIEW_REPLAY_CHECKPOINT_EVERY 300  // ticks (5 s at 60 Hz)
#define VIEW_REPLAY_MIN_SPEED 0.25f
#define VIEW_REPLAY_MAX_SPEED 8.0f

/// Open and index a log. On failure returns ARB_E_* and writes a one-line reason.
int view_replay_open(const char* path, view_replay** out, char* err, size_t err_cap);
void view_replay_close(view_replay* r);

/// Advance playback by wall_dt seconds of real time (times the speed), or continue a
/// seek. Does at most `budget_ms` milliseconds of simulation work.
void view_replay_update(view_replay* r, double wall_dt, double budget_ms);
void view_replay_set_paused(view_replay* r, bool paused);
bool view_replay_paused(const view_replay* r);
/// One tick forward (pauses).
void view_replay_step(view_replay* r);
/// Clamped to [VIEW_REPLAY_MIN_SPEED, VIEW_REPLAY_MAX_SPEED].
void view_replay_set_speed(view_replay* r, float speed);
float view_replay_speed(const view_replay* r);
/// Go to tick (clamped to [0, last tick]); finished over the next updates.
void view_replay_seek(view_replay* r, int64_t tick);

arb_game* view_replay_game(view_replay* r);
uint64_t view_replay_tick(const view_replay* r);
uint64_t view_replay_last_tick(const view_replay* r);
int view_replay_tick_rate(const view_replay* r);
bool view_replay_seeking(const view_replay* r);

typedef struct view_replay_check {
  uint64_t checked;         ///< ticks whose hash was compared
  uint64_t mismatches;      ///< ticks whose hash differed
  uint64_t first_mismatch;  ///< tick of the first difference, 0 = none
  bool last_ok;             ///< the current tick matched
  char error[320];          ///< a replay error that stopped playback ("" = none)
  char log_end[200];        ///< how the log ends (clean, truncated at ...)
} view_replay_check;

const view_replay_check* view_replay_get_check(const view_replay* r);
