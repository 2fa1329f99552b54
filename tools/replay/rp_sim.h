// arbiter-replay — the re-simulation driver and the state comparison.
//
// Re-simulation is exactly what the server did (PROTOCOL.md §9.2): the scene from the log's
// own text, run at the header's tick rate, arb_game_create with the recorded seed, then per
// tick record the game's tick applier (arb_replay_inputs_from_tick + arb_game_apply_tick,
// the same two calls the server makes; the joins' entity ids must match the record) and
// arb_game_hash compared with the recorded hash. A sim starts at tick 0 or from a recorded
// checkpoint; it reads the following records through its own reader copy.
//
// (The viewer has its own driver in client/view/view_replay.c, built around playback
// speed and frame budgets; it applies ticks through the same two calls.)
#pragma once

#include <stdio.h>

#include <arbiter/game.h>
#include <arbiter/replay_inputs.h>

#include "rp_log.h"

typedef struct rp_sim {
  const rp_log* log;
  arb_scene* scene;
  arb_game* game;
  arb_replay_reader reader;   ///< the next record to apply
  arb_replay_tick* rec;       ///< decode space for one tick record (large)
  arb_replay_inputs* inputs;  ///< the record as the game applies it (large)
  uint64_t recorded_hash;     ///< world_hash of the last applied tick record
  bool strict;                ///< joins must give the recorded entity ids (off after a divergence)
  char why[400];              ///< the reason of the last failure
} rp_sim;

/// Load the log's scene (checking its recorded hash) and create the game at tick 0.
/// ARB_OK, or an error with the reason in sim->why (the log can not be re-simulated).
int rp_sim_init(rp_sim* sim, const rp_log* log);
void rp_sim_deinit(rp_sim* sim);

/// Restore a recorded checkpoint and continue reading after it. Checks that the restored
/// game hashes to the recorded value. ARB_OK or an error (reason in sim->why).
int rp_sim_start_at(rp_sim* sim, const rp_checkpoint* cp);

/// Put the sim at the state before the log's first tick record: tick 0 when the log starts
/// at tick 1, else its checkpoint before that tick. With prefer_checkpoint, at the latest
/// checkpoint at or before `target` instead (seek/dump skip the ticks before it). *used is
/// the checkpoint restored (NULL: tick 0). ARB_OK or an error (reason in sim->why).
int rp_sim_start(rp_sim* sim, const rp_log* log, uint64_t target, bool prefer_checkpoint,
                 const rp_checkpoint** used);

/// What rp_sim_step did.
enum {
  RP_STEP_JOIN_MISMATCH = -1,  ///< stepped, but a recorded join was not reproduced (reason in why)
  RP_STEP_END = 0,             ///< no more tick records
  RP_STEP_OK = 1,              ///< stepped; sim->recorded_hash is the recorded hash of the tick
  RP_STEP_STOPPED = 2,         ///< on_checkpoint returned non-zero; nothing stepped
};

/// Called for a checkpoint record of the current tick (before the next tick is applied).
typedef int rp_checkpoint_fn(rp_sim* sim, const arb_replay_checkpoint* cp, void* user);

/// Apply the next tick record and step once (see the RP_STEP_* values). Checkpoint records
/// on the way go to on_checkpoint (may be NULL); a non-zero return stops before the step.
int rp_sim_step(rp_sim* sim, rp_checkpoint_fn* on_checkpoint, void* user);

/// Test hook (arbiter-replay --perturb-gravity): scale the world's gravity by (1 + 2^-20),
/// a deliberately changed physics constant, to prove that verification can fail.
void rp_sim_perturb_gravity(rp_sim* sim);

/// Compare two games body by body (entity id order; position, rotation, velocities, bit for
/// bit) and print up to `limit` differing entities to out, each line prefixed by indent.
/// `a` is the recording, `b` the re-simulation. Returns the number of differing entities;
/// when none differ but the games' saved states do, says where the state bytes differ.
int rp_diff_games(const arb_game* a, const arb_game* b, int limit, const char* indent, FILE* out);
