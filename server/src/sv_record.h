// The replay-log recorder (--record): encodes the header, tick, checkpoint and end records
// (protocol/replay_log.h) and writes them to the file.
//
// Whole records are appended to a memory buffer and written out at least every
// SV_RECORD_FLUSH_NS and when the buffer fills; closing flushes and fsyncs. Because
// only whole records are ever handed to write(), a kill -9 leaves a file that reads back up
// to its last whole record and loses at most the unflushed half second.
//
// Every buffer a tick needs is allocated by sv_record_open: the encoding space holds the
// largest tick record the server can produce (max_clients joins, leaves and inputs) and a
// checkpoint of max_state_bytes. Should a checkpoint ever outgrow that estimate the buffer
// grows once, is counted in `grows` and logged (recording_buffer_grew): the tests hold it
// at 0. Failures are counted in the metrics and logged once; recording then goes on.
#pragma once

#include <arbiter/game.h>
#include <arbiter/replay_log.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sv_log.h"
#include "sv_metrics.h"

#define SV_RECORD_BUFFER (256 * 1024)  ///< bytes of whole records held before a write()
#define SV_RECORD_FLUSH_NS 500000000u  ///< write() at least this often (ns)

typedef struct sv_record_def {
  const char* target;               ///< a file (created or truncated) or an existing directory
  const arb_replay_header* header;  ///< written at once, start_time_ms set to now
  int max_clients;                  ///< most joins, leaves and inputs in one tick record
  size_t max_state_bytes;           ///< expected largest arb_game_save image (checkpoints)
  int checkpoint_every;             ///< a checkpoint every N ticks; 0 = none
  sv_log* log;                      ///< not owned
  sv_metrics* metrics;              ///< not owned: recording_bytes_total, recording_errors_total
} sv_record_def;

typedef struct sv_record {
  int fd;           ///< -1 when closed
  char path[1200];  ///< the file actually written
  uint8_t* buf;     ///< SV_RECORD_BUFFER bytes of whole records not yet written
  size_t len;
  uint64_t bytes_total;  ///< bytes handed to the file
  int error;             ///< sticky errno of the first failed write, 0 = fine
  uint8_t* enc;          ///< one encoded record (tick or checkpoint)
  size_t enc_cap;
  uint8_t* state;  ///< arb_game_save scratch for checkpoints
  size_t state_cap;
  uint64_t grows;      ///< times a buffer had to grow after open (expected 0)
  uint64_t ticks;      ///< tick records written
  uint64_t last_tick;  ///< tick of the last tick record written
  uint64_t last_flush_ns;
  int checkpoint_every;
  sv_log* log;
  sv_metrics* metrics;
} sv_record;

/// An estimate of the largest checkpoint: the game's state now plus max_clients avatars of
/// the largest kind (measured on a scratch game of `scene`), times two for the contacts and
/// joints that come and go.
size_t sv_record_state_estimate(const arb_scene* scene, uint64_t seed, const arb_game* game,
                                int max_clients);
/// Create the file (a directory gets a new arbiter-YYYYmmdd-HHMMSS-PID.arbrec), allocate
/// the buffers and write the header. Returns 0, or ARB_E_INVAL (bad target), ARB_E_IO or
/// ARB_E_NOMEM with a message in err; on failure nothing is left open or allocated.
int sv_record_open(sv_record* r, const sv_record_def* def, uint64_t now_ns, char* err,
                   size_t err_cap);
/// Append the tick record, then a checkpoint of `game` when the tick is due one, and write
/// the buffer out when SV_RECORD_FLUSH_NS have passed. No allocation (see above).
void sv_record_tick(sv_record* r, const arb_replay_tick* t, const arb_game* game, uint64_t now_ns);
/// A clean end: append the end record, then sv_record_close.
int sv_record_finish(sv_record* r);
/// Flush, fsync, close and free. Without an end record the log reads as cut short (EOF).
/// Returns 0 or -1 (see r->error). Safe on a closed recorder.
int sv_record_close(sv_record* r);
