// arbiter — a replay log's tick record as the game applies it (arb_game_apply_tick).
//
// The record (arb_replay_tick) holds what was recorded: quantized controls, sequence
// numbers, names. The game applies a plain description (tick_inputs.h) with the
// dequantized controls. Both the live server and every re-simulation derive that
// description from a record with arb_replay_inputs_from_tick, so what is applied live and
// what a replay applies come from the same bytes through the same function.
#pragma once

#include <arbiter/replay_log.h>
#include <arbiter/tick_inputs.h>

ARB_C_BEGIN

/// A tick record's description for arb_game_apply_tick, with room for the largest record.
typedef struct arb_replay_inputs {
  arb_tick_inputs inputs;  ///< points into the arrays below (arb_replay_inputs_from_tick)
  arb_tick_join joins[ARB_PROTO_MAX_CLIENTS];
  arb_tick_leave leaves[ARB_PROTO_MAX_CLIENTS];
  arb_tick_control controls[ARB_PROTO_MAX_CLIENTS];
} arb_replay_inputs;

/// Describe the record's joins, leaves and dequantized controls, in the record's order.
/// Counts outside 0..ARB_PROTO_MAX_CLIENTS are clamped (the decoder never produces them).
ARB_API void arb_replay_inputs_from_tick(const arb_replay_tick* t, arb_replay_inputs* out);

/// After arb_game_apply_tick on a description of `t`: drop from the record every item the
/// game refused and write each join's entity id, so the record holds exactly what changed
/// the game. This is what the live server records.
ARB_API void arb_replay_tick_keep_applied(arb_replay_tick* t, const arb_replay_inputs* applied);

/// After arb_game_apply_tick on a description of a recorded `t`: ARB_OK when every join
/// succeeded with the entity id the record names, else ARB_E_CORRUPT with the first
/// difference in why ("join of client 3 gave entity 12 (ok), the log says entity 11").
ARB_API int arb_replay_inputs_check_joins(const arb_replay_tick* t,
                                          const arb_replay_inputs* applied, char* why,
                                          size_t why_cap);

ARB_C_END
