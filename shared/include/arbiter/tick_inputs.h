// arbiter — one tick's player inputs: the joins, the leaves and each client's controls that
// arb_game_apply_tick applies before it steps. Plain values in caller-owned arrays, and
// stand-alone (like controls.h), so the protocol (which reads and writes them in the replay
// log) and the game rules (which apply them) share one type without depending on each
// other. The live server, every re-simulation and a client predicting its own avatar all
// describe a tick this way and hand it to the same function.
#pragma once

#include "controls.h"

ARB_C_BEGIN

typedef struct arb_tick_join {
  uint32_t client_id;    ///< > 0, never joined before
  arb_avatar_kind kind;  ///< as the client asked (DEFAULT = the scene's)
  uint32_t entity_id;    ///< out: the avatar's entity id, 0 when the join failed
  int result;            ///< out: ARB_OK or why the join failed (nothing changed then)
} arb_tick_join;

typedef struct arb_tick_leave {
  uint32_t client_id;
  int result;  ///< out: ARB_OK or ARB_E_NOT_FOUND (nothing changed then)
} arb_tick_leave;

typedef struct arb_tick_control {
  uint32_t client_id;
  arb_controls controls;  ///< the dequantized values, exactly what was (or will be) recorded
  int result;             ///< out: ARB_OK or why they were refused (nothing changed then)
  /// The server time the player saw when it made these controls (its interpolation time),
  /// in 1/256 ticks; a shot (fire button pressed, scene avatar `fire`) is resolved against
  /// the other avatars as they were then, at most 1 s back. 0 = now (no rewind).
  uint64_t view_time;
} arb_tick_control;

/// Applied in this order: every join, every leave, every control, then one step. Counts
/// may be 0 (arrays NULL then); the arrays are borrowed for the call.
typedef struct arb_tick_inputs {
  arb_tick_join* joins;
  int join_count;
  arb_tick_leave* leaves;
  int leave_count;
  arb_tick_control* controls;
  int control_count;
} arb_tick_inputs;

ARB_C_END
