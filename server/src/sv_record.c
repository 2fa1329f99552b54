// The replay-log recorder (see sv_record.h).
#include "sv_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// ---- sizes --------------------------------------------------------------------------------

static int save_size(const arb_game* g) {
  int n = arb_game_save(g, NULL, 0);
  return n > 0 ? n : 0;
}

size_t sv_record_state_estimate(const arb_scene* scene, uint64_t seed, const arb_game* game,
                                int max_clients) {
  size_t now = (size_t)save_size(game), per_avatar = 0;
  arb_game* scratch = NULL;
  if (arb_game_create(scene, seed, &scratch) == 0) {
    for (int kind = 1; kind < ARB_AVATAR_KIND_COUNT; kind++) {
      int before = save_size(scratch);
      if (arb_game_join(scratch, (uint32_t)kind, (arb_avatar_kind)kind, NULL) != 0) continue;
      int grew = save_size(scratch) - before;
      if (grew > 0 && (size_t)grew > per_avatar) per_avatar = (size_t)grew;
    }
    arb_game_destroy(scratch);
  }
  return 2 * (now + (size_t)max_clients * per_avatar);
}

// ---- the file -----------------------------------------------------------------------------

// `target` is a file or an existing directory, in which a new timestamped file is named.
static int choose_path(sv_record* r, const char* target, char* err, size_t err_cap) {
  struct stat st;
  size_t tl = strlen(target);
  bool is_dir = (stat(target, &st) == 0 && S_ISDIR(st.st_mode));
  if (!is_dir && tl > 0 && target[tl - 1] == '/') {
    snprintf(err, err_cap, "--record: directory \"%s\" does not exist", target);
    return ARB_E_INVAL;
  }
  int n;
  if (is_dir) {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char name[64];
    strftime(name, sizeof name, "arbiter-%Y%m%d-%H%M%S", &tm);
    n = snprintf(r->path, sizeof r->path, "%s%s%s-%ld.arbrec", target,
                 target[tl - 1] == '/' ? "" : "/", name, (long)getpid());
  } else {
    n = snprintf(r->path, sizeof r->path, "%s", target);
  }
  if (n < 0 || (size_t)n + 16 >= sizeof r->path) {  // room for a rotated file's ".N"
    snprintf(err, err_cap, "--record: path too long");
    return ARB_E_INVAL;
  }
  return 0;
}

static long plain_write(void* user, int fd, const void* buf, size_t len) {
  (void)user;
  return (long)write(fd, buf, len);
}

static void note_error(sv_record* r, const char* what, int rc);

// A failed write or create: healthz degraded until a retry, the wait doubling each time.
static void schedule_retry(sv_record* r, int err, uint64_t now_ns) {
  r->error = err;
  r->backoff_ns = r->backoff_ns == 0 ? SV_RECORD_RETRY_MIN_NS : 2 * r->backoff_ns;
  if (r->backoff_ns > SV_RECORD_RETRY_MAX_NS) r->backoff_ns = SV_RECORD_RETRY_MAX_NS;
  r->retry_at_ns = now_ns + r->backoff_ns;
  r->metrics->recording_errors_total++;
}

// Write the pending bytes. What the file took is counted and removed from the buffer; on
// an error the rest stays for a retry after the backoff, so the file only ever grows by
// the next bytes of whole records, in order. Returns 0 when nothing is left.
static int flush_file(sv_record* r, uint64_t now_ns) {
  if (r->fd < 0) return -1;
  size_t done = 0;
  int err = 0;
  while (done < r->len) {
    long w = r->write_fn(r->write_user, r->fd, r->buf + done, r->len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : EIO;
      break;
    }
    done += (size_t)w;
  }
  r->bytes_total += done;
  r->file_bytes += done;
  r->metrics->recording_bytes_total += done;
  memmove(r->buf, r->buf + done, r->len - done);
  r->len -= done;
  r->metrics->recording_pending_bytes = r->len;
  if (err == 0) {
    if (r->error != 0)
      SV_LOG(r->log, SV_LOG_INFO, "recording_recovered", SV_LS("path", r->path),
             SV_LU("bytes_written", done));
    r->error = 0;
    r->backoff_ns = 0;
    return 0;
  }
  bool first = r->error == 0;
  schedule_retry(r, err, now_ns);
  if (first)
    SV_LOG(r->log, SV_LOG_ERROR, "recording_failed", SV_LS("what", "write"),
           SV_LS("error", strerror(err)), SV_LS("path", r->path), SV_LU("pending", r->len),
           SV_LU("retry_ms", r->backoff_ns / 1000000u));
  return -1;
}

// Room for `len` more bytes, keeping `reserve` free (the end record must always fit).
static bool fits(const sv_record* r, size_t len, size_t reserve) {
  return r->len + len + reserve <= r->cap;
}

static void append(sv_record* r, const uint8_t* data, size_t len) {
  memcpy(r->buf + r->len, data, len);
  r->len += len;
  r->metrics->recording_pending_bytes = r->len;
}

static int64_t unix_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// ---- records ------------------------------------------------------------------------------

typedef int64_t encode_fn(const void* rec, uint8_t* buf, size_t cap);
static int64_t enc_tick(const void* x, uint8_t* b, size_t c) {
  return arb_replay_encode_tick(x, b, c);
}
static int64_t enc_checkpoint(const void* x, uint8_t* b, size_t c) {
  return arb_replay_encode_checkpoint(x, b, c);
}
static int64_t enc_end(const void* x, uint8_t* b, size_t c) {
  return arb_replay_encode_end(x, b, c);
}

#define END_RESERVE 64  ///< an end record's frame and fields, always left free

static void note_error(sv_record* r, const char* what, int rc) {
  if (r->metrics->recording_errors_total++ == 0)
    SV_LOG(r->log, SV_LOG_ERROR, "recording_failed", SV_LS("what", what),
           SV_LS("error", arb_strerror(rc)), SV_LS("path", r->path));
}

// Grow a buffer that open sized too small: correct, but counted and logged, because it
// means a tick allocated.
static int grow(sv_record* r, uint8_t** buf, size_t* cap, size_t need, const char* what) {
  uint8_t* bigger = realloc(*buf, need);
  if (bigger == NULL) return ARB_E_NOMEM;
  *buf = bigger;
  *cap = need;
  if (r->grows++ == 0)
    SV_LOG(r->log, SV_LOG_WARN, "recording_buffer_grew", SV_LS("buffer", what),
           SV_LU("bytes", need));
  return 0;
}

// Encode into r->enc; returns the record's size, or 0 after counting an encoding error.
static size_t encode(sv_record* r, encode_fn* enc, const void* rec, const char* what) {
  int64_t n = enc(rec, r->enc, r->enc_cap);
  int rc = n > (int64_t)r->enc_cap ? grow(r, &r->enc, &r->enc_cap, (size_t)n, "record") : 0;
  if (rc == 0 && n > 0) n = enc(rec, r->enc, r->enc_cap);
  if (rc == 0 && n <= 0) rc = n < 0 ? (int)n : ARB_E_INVAL;
  if (rc != 0) {
    note_error(r, what, rc);
    return 0;
  }
  return (size_t)n;
}

// The end record of the current file; the file takes nothing after it.
static void end_file(sv_record* r) {
  arb_replay_end end = {r->file_last_tick, r->file_ticks, unix_ms()};
  size_t n = encode(r, enc_end, &end, "end");
  if (n > 0 && fits(r, n, 0)) append(r, r->enc, n);
  r->ended = true;
}

// A whole-game checkpoint every checkpoint_every ticks lets arbiter-replay seek and
// localise a divergence to bodies and fields; a new file starts with one. Returns false
// when it did not fit in the pending buffer (counted as dropped).
static bool write_checkpoint(sv_record* r, const arb_game* game, uint64_t tick, uint64_t hash) {
  int need = arb_game_save(game, NULL, 0);
  int rc = need > 0 ? 0 : (need < 0 ? need : ARB_E_STATE);
  if (rc == 0 && (size_t)need > r->state_cap)
    rc = grow(r, &r->state, &r->state_cap, (size_t)need, "checkpoint");
  if (rc == 0 && arb_game_save(game, r->state, need) != need) rc = ARB_E_STATE;
  if (rc != 0) {
    note_error(r, "checkpoint", rc);
    return true;
  }
  arb_replay_checkpoint cp = {tick, hash, r->state, (size_t)need};
  size_t n = encode(r, enc_checkpoint, &cp, "checkpoint");
  if (n == 0) return true;
  if (r->max_bytes > 0 && r->file_ticks > 0 &&
      r->file_bytes + r->len + n + END_RESERVE > r->max_bytes) {
    end_file(r);  // the next file starts with this very checkpoint
    return true;
  }
  if (!fits(r, n, END_RESERVE)) {
    r->metrics->recording_dropped_bytes_total += n;
    return false;
  }
  append(r, r->enc, n);
  return true;
}

// The largest tick record this server can write: every field at its widest valid value.
static int64_t max_tick_record(int max_clients) {
  arb_replay_tick* t = calloc(1, sizeof *t);
  if (t == NULL) return ARB_E_NOMEM;
  int n = max_clients < 1                       ? 1
          : max_clients > ARB_PROTO_MAX_CLIENTS ? ARB_PROTO_MAX_CLIENTS
                                                : max_clients;
  arb_controls wide = {-1.0f, -1.0f, -3.0f, 0xFFFFFFFFu, -1.0f, 1.0f, 1.0f};
  t->tick = t->world_hash = UINT64_MAX;
  t->join_count = t->leave_count = t->input_count = n;
  for (int i = 0; i < n; i++) {
    t->joins[i] = (arb_replay_join){UINT32_MAX, ARB_AVATAR_KIND_COUNT - 1, UINT32_MAX, ""};
    memset(t->joins[i].name, 'x', ARB_PROTO_MAX_NAME);
    t->leaves[i] = UINT32_MAX;
    t->inputs[i] = (arb_replay_input){UINT32_MAX, UINT32_MAX, arb_proto_quantize_controls(&wide),
                                      UINT64_MAX};  // a shot's view time: 9 more bytes
  }
  int64_t bytes = arb_replay_encode_tick(t, NULL, 0);
  free(t);
  return bytes;
}

static int alloc_buffers(sv_record* r, const sv_record_def* def, char* err, size_t err_cap) {
  int64_t tick_bytes = max_tick_record(def->max_clients);
  if (tick_bytes <= 0) {
    snprintf(err, err_cap, "--record: cannot size the tick record: %s",
             arb_strerror((int)tick_bytes));
    return tick_bytes < 0 ? (int)tick_bytes : ARB_E_INVAL;
  }
  r->max_tick_bytes = (size_t)tick_bytes;
  r->state_cap = def->max_state_bytes;  // a new file's first checkpoint, even with none due
  r->enc_cap = (size_t)tick_bytes;
  if (r->state_cap + 64 > r->enc_cap)
    r->enc_cap = r->state_cap + 64;  // a checkpoint's frame and fields
  // A new file's header and checkpoint must fit at once, with room for ticks after them.
  r->cap = def->pending_bytes ? def->pending_bytes : SV_RECORD_PENDING;
  size_t least = r->header_bytes + 2 * r->enc_cap + END_RESERVE;
  if (r->cap < least) r->cap = least;
  r->buf = malloc(r->cap);
  r->enc = malloc(r->enc_cap);
  r->state = r->state_cap ? malloc(r->state_cap) : NULL;
  if (r->buf == NULL || r->enc == NULL || (r->state_cap && r->state == NULL)) {
    snprintf(err, err_cap, "--record: out of memory");
    return ARB_E_NOMEM;
  }
  return 0;
}

static void release(sv_record* r) {
  if (r->fd >= 0) close(r->fd);
  r->fd = -1;
  r->active = false;
  free(r->buf);
  free(r->enc);
  free(r->state);
  r->buf = r->enc = r->state = NULL;
  r->metrics->recording_pending_bytes = 0;
}

// Magic and header (the whole scene text) go straight into the pending buffer, which
// open sized to hold them.
static int append_header(sv_record* r) {
  arb_replay_header header = r->header;
  header.start_time_ms = unix_ms();
  int64_t n = arb_replay_encode_header(&header, NULL, 0);
  if (n <= 0) return n < 0 ? (int)n : ARB_E_INVAL;
  if (!fits(r, (size_t)n, 0)) return ARB_E_NOMEM;
  if (arb_replay_encode_header(&header, r->buf + r->len, r->cap - r->len) != n) return ARB_E_INVAL;
  r->len += (size_t)n;
  r->metrics->recording_pending_bytes = r->len;
  return 0;
}

static int create_file(sv_record* r) {
  r->fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (r->fd < 0) return errno;
  r->file_bytes = r->file_ticks = r->file_last_tick = 0;
  r->ended = false;
  r->metrics->recording_files_total++;
  return 0;
}

// The smallest file that replays on its own: header, checkpoint, one tick, end.
static uint64_t least_file_bytes(const sv_record* r) {
  return r->header_bytes + r->state_cap + 64 + r->max_tick_bytes + END_RESERVE;
}

int sv_record_open(sv_record* r, const sv_record_def* def, uint64_t now_ns, char* err,
                   size_t err_cap) {
  memset(r, 0, sizeof *r);
  r->fd = -1;
  r->log = def->log;
  r->metrics = def->metrics;
  r->checkpoint_every = def->checkpoint_every;
  r->last_flush_ns = now_ns;
  r->max_bytes = def->max_bytes;
  r->header = *def->header;
  r->write_fn = def->write_fn ? def->write_fn : plain_write;
  r->write_user = def->write_user;
  int64_t hb = arb_replay_encode_header(&r->header, NULL, 0);
  r->header_bytes = hb > 0 ? (size_t)hb : 0;
  int rc = choose_path(r, def->target, err, err_cap);
  if (rc == 0) rc = alloc_buffers(r, def, err, err_cap);
  if (rc == 0 && r->max_bytes > 0 && r->max_bytes < least_file_bytes(r)) {
    snprintf(err, err_cap,
             "--record-max-bytes: %llu is below the smallest file that replays on its own "
             "(header, checkpoint, one tick: %llu bytes)",
             (unsigned long long)r->max_bytes, (unsigned long long)least_file_bytes(r));
    rc = ARB_E_INVAL;
  }
  memcpy(r->first_path, r->path, sizeof r->path);
  if (rc == 0 && (rc = create_file(r)) != 0) {
    snprintf(err, err_cap, "--record: cannot create \"%s\": %s", r->path, strerror(rc));
    rc = ARB_E_INVAL;
  }
  r->active = rc == 0;
  if (rc == 0 && (rc = append_header(r)) != 0)
    snprintf(err, err_cap, "--record: cannot encode the header: %s", arb_strerror(rc));
  if (rc == 0 && flush_file(r, now_ns) != 0) {
    snprintf(err, err_cap, "--record: cannot write the header to \"%s\": %s", r->path,
             strerror(r->error));
    rc = ARB_E_IO;
  }
  if (rc != 0) release(r);
  return rc;
}

// "x.arbrec" -> "x.N.arbrec"; any other name -> "name.N".
static void next_path(sv_record* r) {
  const char* p = r->first_path;
  size_t n = strlen(p), ext = strlen(".arbrec");
  r->file_index++;
  int w;  // open left room for the number (choose_path)
  if (n > ext && strcmp(p + n - ext, ".arbrec") == 0)
    w = snprintf(r->path, sizeof r->path, "%.*s.%d.arbrec", (int)(n - ext), p, r->file_index);
  else
    w = snprintf(r->path, sizeof r->path, "%s.%d", p, r->file_index);
  if (w < 0 || (size_t)w >= sizeof r->path) r->path[0] = '\0';  // create fails, is retried
}

// The ended file is all written: close it and start the next one with the header and a
// checkpoint of this tick, so it replays on its own. A file that cannot be created is
// retried after the backoff, ticks meanwhile counted as dropped.
static void start_next_file(sv_record* r, const arb_replay_tick* t, const arb_game* game,
                            uint64_t now_ns) {
  if (r->fd >= 0) {
    // No fsync here: it could stall the tick; the final close fsyncs the last file.
    if (close(r->fd) != 0) note_error(r, "close", ARB_E_IO);
    r->fd = -1;
    next_path(r);
  }
  int err = create_file(r);
  if (err != 0) {
    if (r->error == 0)
      SV_LOG(r->log, SV_LOG_ERROR, "recording_failed", SV_LS("what", "create"),
             SV_LS("error", strerror(err)), SV_LS("path", r->path));
    schedule_retry(r, err, now_ns);
    return;
  }
  if (append_header(r) != 0) note_error(r, "header", ARB_E_NOMEM);
  write_checkpoint(r, game, t->tick, t->world_hash);
  if (r->dropped_ticks > 0) {
    SV_LOG(r->log, SV_LOG_WARN, "recording_dropped", SV_LU("first_tick", r->drop_first_tick),
           SV_LU("last_tick", r->drop_last_tick), SV_LU("ticks", r->dropped_ticks),
           SV_LS("next_file", r->path));
    r->dropped_ticks = 0;
  } else {
    SV_LOG(r->log, SV_LOG_INFO, "recording_rotated", SV_LS("path", r->path),
           SV_LU("tick", t->tick));
  }
  flush_file(r, now_ns);
  r->last_flush_ns = now_ns;
}

static void drop_tick(sv_record* r, const arb_replay_tick* t, size_t bytes) {
  if (r->dropped_ticks++ == 0) {
    r->drop_first_tick = t->tick;
    SV_LOG(r->log, SV_LOG_ERROR, "recording_buffer_full", SV_LS("path", r->path),
           SV_LU("pending", r->len), SV_LU("first_dropped_tick", t->tick));
  }
  r->drop_last_tick = t->tick;
  r->metrics->recording_dropped_ticks_total++;
  r->metrics->recording_dropped_bytes_total += bytes;
}

// Append tick t (and its checkpoint when due), or drop it when the pending buffer is full
// or the file has ended; a full buffer ends the file after the records it holds.
static void append_tick(sv_record* r, const arb_replay_tick* t, const arb_game* game) {
  size_t n = encode(r, enc_tick, t, "tick");
  if (n == 0) return;
  if (!r->ended && !fits(r, n, END_RESERVE)) end_file(r);
  if (r->ended || r->fd < 0) {
    drop_tick(r, t, n);
    return;
  }
  append(r, r->enc, n);
  r->ticks++;
  r->file_ticks++;
  r->last_tick = r->file_last_tick = t->tick;
  if (r->checkpoint_every > 0 && t->tick % (uint64_t)r->checkpoint_every == 0 &&
      !write_checkpoint(r, game, t->tick, t->world_hash))
    SV_LOG(r->log, SV_LOG_WARN, "recording_checkpoint_dropped", SV_LU("tick", t->tick));
}

// Could the largest tick record take the file past max_bytes? (A due checkpoint that
// would is not written: the file ends before it and the next one starts with it.)
static bool rotation_due(const sv_record* r) {
  if (r->max_bytes == 0 || r->ended) return false;
  return r->file_bytes + r->len + r->max_tick_bytes + END_RESERVE > r->max_bytes;
}

void sv_record_tick(sv_record* r, const arb_replay_tick* t, const arb_game* game, uint64_t now_ns) {
  if (!r->active) return;
  append_tick(r, t, game);
  if (rotation_due(r)) end_file(r);
  bool failing = r->error != 0;
  bool due = failing ? now_ns >= r->retry_at_ns
                     : (r->ended || r->len >= SV_RECORD_BUFFER ||
                        now_ns - r->last_flush_ns >= SV_RECORD_FLUSH_NS);
  if (due && r->fd >= 0) {
    flush_file(r, now_ns);
    r->last_flush_ns = now_ns;
  }
  if (r->ended && r->len == 0 && (r->fd >= 0 || now_ns >= r->retry_at_ns))
    start_next_file(r, t, game, now_ns);
}

void sv_record_restart(sv_record* r, const arb_game* game, uint64_t seed, const char* predecessor,
                       uint64_t now_ns) {
  if (!r->active) return;
  if (!r->ended && r->fd >= 0) end_file(r);
  if (r->fd >= 0) flush_file(r, now_ns);
  r->header.seed = seed;
  size_t pl = strlen(predecessor);
  if (pl > ARB_REPLAY_MAX_PREDECESSOR) pl = 0;  // a name cut short would name another file
  memcpy(r->predecessor, predecessor, pl);
  r->predecessor[pl] = '\0';
  r->header.predecessor = r->predecessor;
  r->header.predecessor_len = pl;
  arb_replay_tick* t = calloc(1, sizeof *t);  // only its tick and hash are read
  if (t == NULL) {
    note_error(r, "restart", ARB_E_NOMEM);
    return;
  }
  t->tick = arb_game_get_tick(game);
  t->world_hash = arb_game_hash(game);
  // A failed write keeps its bytes: the new file then starts when they are out, with the
  // checkpoint of that later tick (sv_record_tick).
  if (r->len == 0) start_next_file(r, t, game, now_ns);
  free(t);
}

int sv_record_finish(sv_record* r) {
  if (!r->active) return 0;
  if (!r->ended && r->fd >= 0) end_file(r);
  return sv_record_close(r);
}

int sv_record_close(sv_record* r) {
  if (!r->active) return 0;
  int rc = 0;
  if (r->fd >= 0) {
    rc = r->len > 0 ? flush_file(r, 0) : 0;
    if (fsync(r->fd) != 0 && rc == 0) {
      r->error = errno;
      rc = -1;
    }
    if (close(r->fd) != 0 && rc == 0) {
      r->error = errno;
      rc = -1;
    }
    r->fd = -1;
  } else {
    rc = -1;
  }
  release(r);
  return rc;
}
