// arbiter-replay — a whole .arbrec log in memory, indexed in one validating pass.
//
// The file is read into one buffer (the reader's records are views into it). rp_log_scan
// walks every record once with the protocol's validating reader and keeps what the
// subcommands need: how the log ends, its tick range, the checkpoints (each with a copy
// of the reader positioned right after it, so re-simulation can start there) and the
// clients' join/leave ticks. Nothing here simulates.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <arbiter/replay_log.h>

typedef struct rp_checkpoint {
  uint64_t tick;
  uint64_t world_hash;   ///< recorded arb_game_hash at that tick
  const uint8_t* state;  ///< arb_game_save blob, a view into the log buffer
  size_t state_len;
  arb_replay_reader reader;  ///< positioned right after this checkpoint record
} rp_checkpoint;

typedef struct rp_client {
  uint32_t client_id;
  uint32_t entity_id;
  uint8_t avatar_kind;
  char name[ARB_PROTO_MAX_NAME + 1];
  uint64_t join_tick;   ///< tick record that carried the join
  uint64_t leave_tick;  ///< 0 = still there at the end of the log
} rp_client;

typedef struct rp_log {
  uint8_t* data;  ///< the whole file (owned)
  size_t len;
  arb_replay_reader start;  ///< positioned right after the header
  // Filled by rp_log_scan:
  arb_replay_reader end_state;  ///< the reader after its last record (stop reason, counts)
  char stop_text[400];          ///< arb_replay_reader_describe, or "clean"
  uint64_t first_tick;          ///< first tick record's tick, 0 if none
  uint64_t last_tick;
  uint64_t last_hash;  ///< the hash the recording server computed after the last tick
  uint64_t tick_count;
  bool have_end;
  arb_replay_end end;
  rp_checkpoint* cps;  ///< in log order (ticks increasing)
  int cp_count, cp_cap;
  rp_client* clients;  ///< in join order
  int client_count, client_cap;
} rp_log;

/// Open a log over `data` (ownership moves to the log on success and on failure). Checks
/// the magic and header, then scans and indexes every record. ARB_OK or an error with a
/// reason in err (the file is not a readable .arbrec at all). A log whose body stops early
/// still opens: see rp_log_is_clean and stop_text.
int rp_log_open(rp_log* log, uint8_t* data, size_t len, char* err, size_t err_cap);
void rp_log_close(rp_log* log);

/// The log was read to its end record with nothing after it.
bool rp_log_is_clean(const rp_log* log);

/// The latest checkpoint at or before `tick`, or NULL.
const rp_checkpoint* rp_log_checkpoint_at_or_before(const rp_log* log, uint64_t tick);
/// The first checkpoint at or after `tick`, or NULL.
const rp_checkpoint* rp_log_checkpoint_at_or_after(const rp_log* log, uint64_t tick);
