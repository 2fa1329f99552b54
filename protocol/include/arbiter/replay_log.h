// arbiter — the replay log (.arbrec): everything that entered the simulation, tick by
// tick, so a session can be re-simulated bit-for-bit. Byte layout in PROTOCOL.md,
// "Replay log".
//
// The server does the file I/O: encoders write one record into a caller buffer (append
// it to the file as is); the reader walks a byte buffer (a read or mmap'd file) and
// validates every record. A file cut short, torn by a crash or with flipped bits is read
// up to its last whole valid record, and the reader says where and why it stopped.
#pragma once

#include <arbiter/protocol.h>

ARB_C_BEGIN

/// 2: the header names the simulation version and the log a moved match continues. A
/// version-1 log (7 header elements) still reads, with both unknown (0 and "").
#define ARB_REPLAY_FORMAT_VERSION 2u
/// First 8 bytes of every .arbrec file.
#define ARB_REPLAY_MAGIC \
  "\x89"                 \
  "ARBREC\n"
#define ARB_REPLAY_MAGIC_LEN 8
/// Frame around every record: u32 body length, u8 kind, 3 zero bytes, body, u32 XXH32.
#define ARB_REPLAY_FRAME_OVERHEAD 12
#define ARB_REPLAY_MAX_RECORD (80 * 1024 * 1024)  ///< body bytes of one record
#define ARB_REPLAY_MAX_BUILD_ID 96                ///< bytes, without NUL
#define ARB_REPLAY_MAX_SCENE_TEXT (64 * 1024 * 1024)
#define ARB_REPLAY_MAX_CHECKPOINT (64 * 1024 * 1024)  ///< bytes of a game-state blob
#define ARB_REPLAY_MAX_PREDECESSOR 1024               ///< bytes of the predecessor's name

typedef enum arb_replay_kind {
  ARB_REPLAY_NONE = 0,
  ARB_REPLAY_HEADER = 1,      ///< exactly once, first
  ARB_REPLAY_TICK = 2,        ///< one per simulated tick, ticks strictly increasing by 1
  ARB_REPLAY_CHECKPOINT = 3,  ///< game state after a tick's step (seek, divergence search)
  ARB_REPLAY_END = 4,         ///< clean close; nothing may follow
  ARB_REPLAY_KIND_COUNT
} arb_replay_kind;

/// The header record. Strings and the scene are views (encoder: read; reader: into the
/// reader's buffer, valid as long as that buffer).
typedef struct arb_replay_header {
  uint32_t format_version;  ///< ARB_REPLAY_FORMAT_VERSION
  const char* build_id;  ///< ARB_BUILD_ID of the recording server, <= ARB_REPLAY_MAX_BUILD_ID bytes
  size_t build_id_len;
  const char* scene_text;  ///< the full scene file, so the log is self-contained
  size_t scene_len;
  uint64_t scene_hash;    ///< XXH3-64 of scene_text
  uint16_t tick_rate;     ///< ticks per second, 1..1000
  uint64_t seed;          ///< game seed given to arb_game_create
  int64_t start_time_ms;  ///< wall clock at start, Unix milliseconds (informational)
  /// Version 2: arb_game_sim_version of the recording build (0 = unknown, version 1).
  uint64_t sim_version;
  /// Version 2: the log this one continues, the match having moved here from another
  /// server (its path there); "" = none. <= ARB_REPLAY_MAX_PREDECESSOR bytes, a view.
  const char* predecessor;
  size_t predecessor_len;
} arb_replay_header;

typedef struct arb_replay_join {
  uint32_t client_id;   ///< > 0
  uint8_t avatar_kind;  ///< what the client asked for (arb_avatar_kind)
  uint32_t entity_id;   ///< the avatar entity arb_game_join returned (a check on replay)
  char name[ARB_PROTO_MAX_NAME + 1];
} arb_replay_join;

typedef struct arb_replay_input {
  uint32_t client_id;
  uint32_t seq;                   ///< the input's sequence number
  arb_proto_controls_q controls;  ///< exactly what was applied (dequantize to replay)
  uint64_t view_time;             ///< the command's view time (1/256 ticks), 0 = none (not written)
} arb_replay_input;

/// One tick: apply joins, then leaves, then inputs (arb_game_set_controls, in this order),
/// then step; the game hash after the step must equal world_hash.
typedef struct arb_replay_tick {
  uint64_t tick;  ///< the tick number after the step (arb_game_get_tick), > 0
  int join_count, leave_count, input_count;  ///< each 0..ARB_PROTO_MAX_CLIENTS
  arb_replay_join joins[ARB_PROTO_MAX_CLIENTS];
  uint32_t leaves[ARB_PROTO_MAX_CLIENTS];  ///< client ids
  arb_replay_input inputs[ARB_PROTO_MAX_CLIENTS];
  uint64_t world_hash;  ///< arb_game_hash after the step
} arb_replay_tick;

/// Game state (arb_game_save) after the step of `tick`.
typedef struct arb_replay_checkpoint {
  uint64_t tick;
  uint64_t world_hash;   ///< arb_game_hash at that point
  const uint8_t* state;  ///< view; <= ARB_REPLAY_MAX_CHECKPOINT bytes
  size_t state_len;
} arb_replay_checkpoint;

typedef struct arb_replay_end {
  uint64_t last_tick;   ///< tick of the last tick record, 0 if none
  uint64_t tick_count;  ///< number of tick records written
  int64_t end_time_ms;  ///< wall clock, Unix milliseconds
} arb_replay_end;

// ---- writing: each returns bytes needed (> 0; > cap means nothing usable was written) or
// a negative ARB_E_* for an invalid record. Append the bytes to the file as they are.

/// Magic + header record: the first bytes of a file.
ARB_API int64_t arb_replay_encode_header(const arb_replay_header* h, uint8_t* buf, size_t cap);
ARB_API int64_t arb_replay_encode_tick(const arb_replay_tick* t, uint8_t* buf, size_t cap);
ARB_API int64_t arb_replay_encode_checkpoint(const arb_replay_checkpoint* c, uint8_t* buf,
                                             size_t cap);
ARB_API int64_t arb_replay_encode_end(const arb_replay_end* e, uint8_t* buf, size_t cap);

// ---- reading ----------------------------------------------------------------------------

/// Why the reader stopped.
typedef enum arb_replay_stop {
  ARB_REPLAY_STOP_NONE = 0,   ///< not stopped yet
  ARB_REPLAY_STOP_CLEAN = 1,  ///< end record read, nothing after it
  ARB_REPLAY_STOP_EOF =
      2,  ///< data ends exactly after a whole record but no end record (crash or still recording)
  ARB_REPLAY_STOP_TRUNCATED = 3,  ///< the last record is cut short
  ARB_REPLAY_STOP_CHECKSUM = 4,   ///< a record's checksum does not match (torn write, bit flip)
  ARB_REPLAY_STOP_CORRUPT = 5,    ///< bad frame, bad record body, or records out of order
} arb_replay_stop;

/// One record as the reader returns it.
typedef struct arb_replay_record {
  uint8_t kind;         ///< arb_replay_kind
  uint64_t offset;      ///< file offset of the frame
  uint32_t size;        ///< frame size in bytes (body + ARB_REPLAY_FRAME_OVERHEAD)
  const uint8_t* body;  ///< msgpack body, a view into the reader's buffer
  uint32_t body_len;
  uint64_t tick;  ///< TICK/CHECKPOINT: its tick; END: last_tick; HEADER: 0
} arb_replay_record;

/// Reader state; fields are readable, set them only through the functions.
typedef struct arb_replay_reader {
  const uint8_t* data;
  size_t len;
  size_t offset;             ///< start of the next record
  arb_replay_header header;  ///< valid after a successful open
  arb_replay_stop stop;
  uint64_t last_good_offset;  ///< end of the last valid record (a safe truncation point)
  uint64_t last_tick;         ///< tick of the last valid tick record, 0 if none
  uint64_t tick_count;        ///< valid tick records read so far
  uint64_t record_count;      ///< valid records read so far, header included
  arb_proto_error error;      ///< why it stopped, when not CLEAN
  bool saw_end;               ///< internal: the end record was read
  bool tick_known;            ///< internal: game_tick is set
  uint64_t game_tick;         ///< internal: tick of the game state at `offset`
} arb_replay_reader;

/// Reads the file at path ("-": stdin) into memory, for arb_replay_reader_open: *data (the
/// caller frees it) and *len. ARB_OK, or ARB_E_IO, ARB_E_NOMEM or ARB_E_TOO_BIG (over
/// 16 GiB) with the path and the reason in err.
ARB_API int arb_replay_read_file(const char* path, uint8_t** data, size_t* len, char* err,
                                 size_t err_cap);

/// Check the magic and the header record. The buffer must outlive the reader. Returns
/// ARB_OK, or an error (err filled) when the file is not a readable .arbrec.
ARB_API int arb_replay_reader_open(arb_replay_reader* r, const uint8_t* data, size_t len,
                                   arb_proto_error* err);
/// Next validated record after the header: 1 = *rec filled, 0 = stopped (see r->stop and
/// arb_replay_reader_describe; 0 again on every later call). Never fails otherwise.
ARB_API int arb_replay_reader_next(arb_replay_reader* r, arb_replay_record* rec);
/// A one-line account of where the reader stopped, e.g. "stopped at offset 4711 after tick
/// 312: record checksum mismatch (stored 0x…, computed 0x…)". Returns buf.
ARB_API const char* arb_replay_reader_describe(const arb_replay_reader* r, char* buf, size_t cap);

/// Decode a record's body (the reader already validated it, so these only fail on a
/// record that did not come from the reader).
ARB_API int arb_replay_decode_tick(const arb_replay_record* rec, arb_replay_tick* out,
                                   arb_proto_error* err);
ARB_API int arb_replay_decode_checkpoint(const arb_replay_record* rec, arb_replay_checkpoint* out,
                                         arb_proto_error* err);
ARB_API int arb_replay_decode_end(const arb_replay_record* rec, arb_replay_end* out,
                                  arb_proto_error* err);

ARB_API const char* arb_replay_stop_name(int stop);
ARB_API const char* arb_replay_kind_name(int kind);

ARB_C_END
