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
  if (n < 0 || (size_t)n >= sizeof r->path) {
    snprintf(err, err_cap, "--record: path too long");
    return ARB_E_INVAL;
  }
  return 0;
}

static int write_all(sv_record* r, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(r->fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      r->error = errno;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int flush_file(sv_record* r) {
  if (r->fd < 0 || r->error) return -1;
  if (r->len == 0) return 0;
  int rc = write_all(r, r->buf, r->len);
  r->len = 0;
  return rc;
}

static int append(sv_record* r, const uint8_t* data, size_t len) {
  if (r->fd < 0 || r->error) return -1;
  if (r->len + len > SV_RECORD_BUFFER && flush_file(r) != 0) return -1;
  r->bytes_total += len;
  if (len > SV_RECORD_BUFFER)
    return write_all(r, data, len);  // a huge record (scene, checkpoint) goes straight out
  memcpy(r->buf + r->len, data, len);
  r->len += len;
  return 0;
}

static int64_t unix_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// ---- records ------------------------------------------------------------------------------

typedef int64_t encode_fn(const void* rec, uint8_t* buf, size_t cap);
static int64_t enc_header(const void* x, uint8_t* b, size_t c) {
  return arb_replay_encode_header(x, b, c);
}
static int64_t enc_tick(const void* x, uint8_t* b, size_t c) {
  return arb_replay_encode_tick(x, b, c);
}
static int64_t enc_checkpoint(const void* x, uint8_t* b, size_t c) {
  return arb_replay_encode_checkpoint(x, b, c);
}
static int64_t enc_end(const void* x, uint8_t* b, size_t c) {
  return arb_replay_encode_end(x, b, c);
}

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

static int write_record(sv_record* r, encode_fn* enc, const void* rec, const char* what) {
  int64_t n = enc(rec, r->enc, r->enc_cap);
  int rc = n > (int64_t)r->enc_cap ? grow(r, &r->enc, &r->enc_cap, (size_t)n, "record") : 0;
  if (rc == 0 && n > 0) n = enc(rec, r->enc, r->enc_cap);
  if (rc == 0 && n <= 0) rc = n < 0 ? (int)n : ARB_E_INVAL;
  if (rc == 0 && append(r, r->enc, (size_t)n) != 0) rc = ARB_E_IO;
  if (rc != 0) {
    note_error(r, what, rc);
    return rc;
  }
  r->metrics->recording_bytes_total += (uint64_t)n;
  return 0;
}

// A whole-game checkpoint every checkpoint_every ticks lets arbiter-replay seek and
// localise a divergence to bodies and fields.
static void write_checkpoint(sv_record* r, const arb_game* game, uint64_t tick, uint64_t hash) {
  int need = arb_game_save(game, NULL, 0);
  int rc = need > 0 ? 0 : (need < 0 ? need : ARB_E_STATE);
  if (rc == 0 && (size_t)need > r->state_cap)
    rc = grow(r, &r->state, &r->state_cap, (size_t)need, "checkpoint");
  if (rc == 0 && arb_game_save(game, r->state, need) != need) rc = ARB_E_STATE;
  if (rc != 0) {
    note_error(r, "checkpoint", rc);
    return;
  }
  arb_replay_checkpoint cp = {tick, hash, r->state, (size_t)need};
  write_record(r, enc_checkpoint, &cp, "checkpoint");
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
  r->state_cap = def->checkpoint_every > 0 ? def->max_state_bytes : 0;
  r->enc_cap = (size_t)tick_bytes;
  if (r->state_cap + 64 > r->enc_cap)
    r->enc_cap = r->state_cap + 64;  // a checkpoint's frame and fields
  r->buf = malloc(SV_RECORD_BUFFER);
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
  free(r->buf);
  free(r->enc);
  free(r->state);
  r->buf = r->enc = r->state = NULL;
}

// The header holds the whole scene text, so it is encoded once into its own buffer.
static int write_header(sv_record* r, const arb_replay_header* def_header) {
  arb_replay_header header = *def_header;
  header.start_time_ms = unix_ms();
  const arb_replay_header* h = &header;
  int64_t n = arb_replay_encode_header(h, NULL, 0);
  if (n <= 0) return n < 0 ? (int)n : ARB_E_INVAL;
  uint8_t* buf = malloc((size_t)n);
  if (buf == NULL) return ARB_E_NOMEM;
  int rc = enc_header(h, buf, (size_t)n) == n ? 0 : ARB_E_INVAL;
  if (rc == 0 && (append(r, buf, (size_t)n) != 0 || flush_file(r) != 0)) rc = ARB_E_IO;
  free(buf);
  if (rc == 0) r->metrics->recording_bytes_total += (uint64_t)n;
  return rc;
}

int sv_record_open(sv_record* r, const sv_record_def* def, uint64_t now_ns, char* err,
                   size_t err_cap) {
  memset(r, 0, sizeof *r);
  r->fd = -1;
  r->log = def->log;
  r->metrics = def->metrics;
  r->checkpoint_every = def->checkpoint_every;
  r->last_flush_ns = now_ns;
  int rc = choose_path(r, def->target, err, err_cap);
  if (rc == 0) rc = alloc_buffers(r, def, err, err_cap);
  if (rc == 0) {
    r->fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (r->fd < 0) {
      snprintf(err, err_cap, "--record: cannot create \"%s\": %s", r->path, strerror(errno));
      rc = ARB_E_INVAL;
    }
  }
  if (rc == 0) {
    rc = write_header(r, def->header);
    if (rc != 0)
      snprintf(err, err_cap, "--record: cannot write the header to \"%s\": %s", r->path,
               arb_strerror(rc));
  }
  if (rc != 0) release(r);
  return rc;
}

void sv_record_tick(sv_record* r, const arb_replay_tick* t, const arb_game* game, uint64_t now_ns) {
  if (r->fd < 0) return;
  if (write_record(r, enc_tick, t, "tick") == 0) {
    r->ticks++;
    r->last_tick = t->tick;
    if (r->checkpoint_every > 0 && t->tick % (uint64_t)r->checkpoint_every == 0)
      write_checkpoint(r, game, t->tick, t->world_hash);
  }
  if (now_ns - r->last_flush_ns >= SV_RECORD_FLUSH_NS) {
    if (flush_file(r) != 0) note_error(r, "flush", ARB_E_IO);
    r->last_flush_ns = now_ns;
  }
}

int sv_record_finish(sv_record* r) {
  if (r->fd < 0) return 0;
  arb_replay_end end = {r->last_tick, r->ticks, unix_ms()};
  write_record(r, enc_end, &end, "end");
  return sv_record_close(r);
}

int sv_record_close(sv_record* r) {
  if (r->fd < 0) return 0;
  int rc = flush_file(r);
  if (fsync(r->fd) != 0 && rc == 0) {
    r->error = errno;
    rc = -1;
  }
  if (close(r->fd) != 0 && rc == 0) {
    r->error = errno;
    rc = -1;
  }
  r->fd = -1;
  release(r);
  return rc;
}
