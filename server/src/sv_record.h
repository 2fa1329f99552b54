// The replay-log recorder (--record): encodes the header, tick, checkpoint and end records
// (protocol/replay_log.h) and writes them to the file.
//
// Whole records are appended to a memory buffer and written out at least every
// SV_RECORD_FLUSH_NS and when SV_RECORD_BUFFER bytes wait; closing flushes and fsyncs. The
// file only ever grows by the next bytes of whole records, in order (a write cut short is
// continued exactly where it stopped), so a kill -9 leaves a file that reads back up to its
// last whole record and loses at most the unflushed half second.
//
// A failed write (disk full, I/O error) keeps the unwritten bytes and is retried with a
// doubling backoff (SV_RECORD_RETRY_MIN_NS .. SV_RECORD_RETRY_MAX_NS); meanwhile records
// keep being appended to the pending buffer (SV_RECORD_PENDING bytes). When that is full
// the recorder stops appending: the file is ended after the records it already has, every
// later tick is counted as dropped, and once the pending bytes are written a new numbered
// file starts with the header and a checkpoint of the current tick, so each file replays
// on its own. With max_bytes the same switch to a new file (rotation) happens before a file
// would grow past max_bytes.
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

#define SV_RECORD_BUFFER (256 * 1024)        ///< bytes of whole records held before a write()
#define SV_RECORD_FLUSH_NS 500000000u        ///< write() at least this often (ns)
#define SV_RECORD_PENDING (8 * 1024 * 1024)  ///< default most bytes waiting for the disk
#define SV_RECORD_RETRY_MIN_NS 100000000u    ///< first retry after a failed write (ns)
#define SV_RECORD_RETRY_MAX_NS 5000000000u   ///< the backoff doubles up to this (ns)

/// write(2) or a test's stand-in (fault injection): same contract as write.
typedef long sv_record_write_fn(void* user, int fd, const void* buf, size_t len);

typedef struct sv_record_def {
  const char* target;               ///< a file (created or truncated) or an existing directory
  const arb_replay_header* header;  ///< written at once, start_time_ms set to now
  int max_clients;                  ///< most joins, leaves and inputs in one tick record
  size_t max_state_bytes;           ///< expected largest arb_game_save image (checkpoints)
  int checkpoint_every;             ///< a checkpoint every N ticks; 0 = none
  sv_log* log;                      ///< not owned
  sv_metrics* metrics;              ///< not owned: recording_* counters and gauges
  uint64_t max_bytes;               ///< rotate before a file grows past this; 0 = no limit
  size_t pending_bytes;             ///< pending buffer; 0 = SV_RECORD_PENDING
  sv_record_write_fn* write_fn;     ///< NULL = write(2)
  void* write_user;
} sv_record_def;

typedef struct sv_record {
  bool active;            ///< open (fd may be -1 for a moment while a new file cannot be created)
  int fd;                 ///< the current file, -1 when none
  char path[1200];        ///< the file being written now
  char first_path[1200];  ///< the file named by --record; later files are numbered after it
  int file_index;         ///< 0 for the first file, n for the nth new file
  uint8_t* buf;           ///< whole records not yet written (a failed write keeps its tail)
  size_t len, cap;
  uint64_t bytes_total;  ///< bytes the files accepted (written, not just buffered)
  uint64_t file_bytes;   ///< bytes of the current file written
  int error;             ///< errno of the failing write, 0 = writing works
  bool ended;            ///< current file has its end record: wait for it, then a new file
  uint64_t retry_at_ns, backoff_ns;
  uint64_t max_bytes;
  arb_replay_header header;  ///< views (build id, scene text) owned by the caller
  char predecessor[ARB_REPLAY_MAX_PREDECESSOR + 1];  ///< header.predecessor points here
  size_t header_bytes, max_tick_bytes;
  uint64_t file_ticks, file_last_tick;                      ///< tick records in the current file
  uint64_t dropped_ticks, drop_first_tick, drop_last_tick;  ///< the gap being dropped now
  sv_record_write_fn* write_fn;
  void* write_user;
  uint8_t* enc;  ///< one encoded record (tick or checkpoint)
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
/// Append the tick record, then a checkpoint of `game` when the tick is due one, write the
/// buffer out when due (or retry a failed write when its backoff has passed) and switch to
/// a new file when due (see above). No allocation besides the new file's name.
void sv_record_tick(sv_record* r, const arb_replay_tick* t, const arb_game* game, uint64_t now_ns);
/// The game was replaced by another one (a match moved in from another server): end the
/// current file and start the next with the header (its seed set to `seed`, naming the
/// log the match continues, `predecessor`, "" = none) and a checkpoint of `game`, from
/// which the ticks that follow replay.
void sv_record_restart(sv_record* r, const arb_game* game, uint64_t seed, const char* predecessor,
                       uint64_t now_ns);
/// A clean end: append the end record, then sv_record_close.
int sv_record_finish(sv_record* r);
/// Flush (one attempt), fsync, close and free. Without an end record the log reads as cut
/// short (EOF). Returns 0 or -1 (see r->error). Safe on a closed recorder.
int sv_record_close(sv_record* r);
