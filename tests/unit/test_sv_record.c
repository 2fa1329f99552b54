// The replay-log recorder under write faults (server/src/sv_record.c), driven through its
// write-function hook: a disk that refuses writes for a while loses nothing once it takes
// them again; a fault that outlasts the pending buffer ends the file after its last whole
// record and goes on in a new file that starts with a checkpoint; --record-max-bytes
// rotation keeps every file under the limit. Every file must read back clean and pass
// `arbiter-replay verify` (argv[2]); bytes_total must equal what is on disk.
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <arbiter/scene.h>

#include "../common/read_file.h"
#include "../common/test_main.h"
#include "sv_record.h"

#define TICK_NS 16666667u

static const char* scene_path;
static const char* replay_tool;

typedef struct fault {
  bool failing;      ///< refuse every write with ENOSPC
  size_t partial;    ///< when > 0: take this many bytes of the next write, then fail
  uint64_t refused;  ///< writes refused
} fault;

static long faulty_write(void* user, int fd, const void* buf, size_t len) {
  fault* f = user;
  if (f->partial > 0) {
    size_t n = f->partial < len ? f->partial : len;
    f->partial = 0;
    f->failing = true;
    return (long)write(fd, buf, n);
  }
  if (f->failing) {
    f->refused++;
    errno = ENOSPC;
    return -1;
  }
  return (long)write(fd, buf, len);
}

typedef struct rig {
  arb_scene* scene;
  arb_game* game;
  arb_replay_header header;
  sv_log log;
  sv_metrics metrics;
  sv_record rec;
  fault fault;
  char dir[64];
  char path[128];
  uint64_t now;
} rig;

// The scene's game with one player, and a recorder on a fresh directory; returns what
// sv_record_open returned, its message in msg.
static int rig_try_open(rig* g, uint64_t max_bytes, size_t pending, char* msg, size_t cap) {
  memset(g, 0, sizeof *g);
  arb_scene_error err;
  assert_int_equal(arb_scene_load_file(scene_path, &g->scene, &err), 0);
  assert_int_equal(arb_game_create(g->scene, 7, &g->game), 0);
  uint32_t avatar;
  assert_int_equal(arb_game_join(g->game, 1, ARB_AVATAR_DEFAULT, &avatar), 0);
  g->header.format_version = ARB_REPLAY_FORMAT_VERSION;
  g->header.build_id = "test";
  g->header.build_id_len = 4;
  g->header.scene_text = arb_scene_get_text(g->scene, &g->header.scene_len);
  g->header.scene_hash = arb_scene_get_hash(g->scene);
  g->header.tick_rate = 60;
  g->header.seed = 7;
  sv_log_init(&g->log, stderr, SV_LOG_WARN, SV_LOG_TEXT);
  sv_metrics_init(&g->metrics);
  strcpy(g->dir, "/tmp/test_sv_record.XXXXXX");
  assert_non_null(mkdtemp(g->dir));
  snprintf(g->path, sizeof g->path, "%s/rec.arbrec", g->dir);
  sv_record_def def = {
      g->path, &g->header,   4,           sv_record_state_estimate(g->scene, 7, g->game, 4),
      60,      &g->log,      &g->metrics, max_bytes,
      pending, faulty_write, &g->fault};
  return sv_record_open(&g->rec, &def, g->now, msg, cap);
}

static void rig_open(rig* g, uint64_t max_bytes, size_t pending) {
  char msg[256];
  if (rig_try_open(g, max_bytes, pending, msg, sizeof msg) != 0) fail_msg("open: %s", msg);
}

// One tick: the avatar's joins at tick 1 is recorded; the world steps and is recorded.
static void rig_tick(rig* g) {
  static arb_replay_tick t;
  memset(&t, 0, sizeof t);
  arb_game_step(g->game);
  t.tick = arb_game_get_tick(g->game);
  if (t.tick == 1) {
    t.join_count = 1;
    t.joins[0] = (arb_replay_join){1, ARB_AVATAR_DEFAULT, 0, "p"};
    arb_entity e;
    assert_int_equal(arb_game_get_avatar(g->game, 1, &e), 0);
    t.joins[0].entity_id = e.id;
  }
  t.world_hash = arb_game_hash(g->game);
  g->now += TICK_NS;
  sv_record_tick(&g->rec, &t, g->game, g->now);
}

static off_t file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? st.st_size : -1;
}

// Read `path` back: it must end clean; returns its first and last tick.
static void read_clean(const char* path, uint64_t* first, uint64_t* last) {
  size_t n = 0;
  uint8_t* data = (uint8_t*)arb_test_read_file(path, &n);
  assert_non_null(data);
  arb_replay_reader r;
  arb_proto_error err;
  assert_int_equal(arb_replay_reader_open(&r, data, n, &err), 0);
  arb_replay_record rec;
  *first = 0;
  while (arb_replay_reader_next(&r, &rec) == 1)
    if (*first == 0 && (rec.kind == ARB_REPLAY_TICK || rec.kind == ARB_REPLAY_CHECKPOINT))
      *first = rec.kind == ARB_REPLAY_TICK ? rec.tick : rec.tick + 1;
  char why[256];
  if (r.stop != ARB_REPLAY_STOP_CLEAN)
    fail_msg("%s: %s", path, arb_replay_reader_describe(&r, why, sizeof why));
  *last = r.last_tick;
  free(data);
}

static void verify(const char* path) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "\"%s\" verify \"%s\" >/dev/null", replay_tool, path);
  assert_int_equal(system(cmd), 0);
}

static void rig_close(rig* g) {
  arb_game_destroy(g->game);
  arb_scene_destroy(g->scene);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g->dir);
  assert_int_equal(system(cmd), 0);
}

// A disk full for 3 s (a torn write first): retries with backoff, nothing lost, the
// metrics count only what reached the file, healthy again after the retry that worked.
static void test_retry_loses_nothing(void** state) {
  (void)state;
  rig* g = calloc(1, sizeof *g);
  rig_open(g, 0, 0);
  for (int i = 0; i < 60; i++) rig_tick(g);
  g->fault.partial = 5;  // the next flush tears a record, then the disk is full
  for (int i = 0; i < 180; i++) {
    rig_tick(g);
    assert_int_equal(g->metrics.recording_bytes_total, (uint64_t)file_size(g->path));
  }
  assert_int_not_equal(g->rec.error, 0);
  assert_true(g->metrics.recording_pending_bytes > 0);
  uint64_t refused = g->fault.refused;
  assert_true(refused >= 3 && refused < 30);  // backoff: far fewer attempts than ticks
  assert_int_equal(g->metrics.recording_errors_total, refused);  // each refused attempt
  g->fault.failing = false;
  int waited = 0;
  while (g->rec.error != 0 && waited++ < 400) rig_tick(g);  // the backoff passes
  assert_int_equal(g->rec.error, 0);                        // the retry worked: healthy again
  assert_int_equal(g->metrics.recording_pending_bytes, 0);  // the whole backlog is on disk
  assert_int_equal(g->metrics.recording_bytes_total, (uint64_t)file_size(g->path));
  while (arb_game_get_tick(g->game) < 600) rig_tick(g);
  assert_int_equal(g->metrics.recording_dropped_ticks_total, 0);
  assert_int_equal(sv_record_finish(&g->rec), 0);
  assert_int_equal(g->metrics.recording_bytes_total, (uint64_t)file_size(g->path));
  uint64_t first, last;
  read_clean(g->path, &first, &last);
  assert_int_equal(first, 1);
  assert_int_equal(last, 600);
  verify(g->path);
  rig_close(g);
  free(g);
}

// A fault longer than the pending buffer holds: the file ends after its last whole
// record, the gap is counted, and the next file starts with a checkpoint; both verify.
static void test_overflow_starts_a_new_file(void** state) {
  (void)state;
  rig* g = calloc(1, sizeof *g);
  rig_open(g, 0, 1);  // the smallest pending buffer the recorder allows
  for (int i = 0; i < 30; i++) rig_tick(g);
  g->fault.failing = true;
  for (int i = 0; i < 3000 && g->metrics.recording_dropped_ticks_total == 0; i++) rig_tick(g);
  assert_true(g->metrics.recording_dropped_ticks_total > 0);
  for (int i = 0; i < 60; i++) rig_tick(g);
  g->fault.failing = false;
  for (int i = 0; i < 600; i++) rig_tick(g);
  assert_int_equal(g->rec.error, 0);
  assert_int_equal(g->rec.file_index, 1);
  uint64_t dropped = g->metrics.recording_dropped_ticks_total;
  uint64_t end_tick = arb_game_get_tick(g->game);
  assert_int_equal(sv_record_finish(&g->rec), 0);
  char next[160];
  snprintf(next, sizeof next, "%s/rec.1.arbrec", g->dir);
  assert_int_equal(g->metrics.recording_bytes_total,
                   (uint64_t)(file_size(g->path) + file_size(next)));
  uint64_t first0, last0, first1, last1;
  read_clean(g->path, &first0, &last0);
  read_clean(next, &first1, &last1);
  assert_int_equal(first0, 1);
  assert_int_equal(last1, end_tick);
  assert_int_equal(first1 - last0 - 1, dropped);  // exactly the counted ticks are missing
  verify(g->path);
  verify(next);
  rig_close(g);
  free(g);
}

// --record-max-bytes: every file stays under the limit, ticks continue from one file to
// the next, and each file verifies on its own.
static void test_rotation(void** state) {
  (void)state;
  rig* g = calloc(1, sizeof *g);
  rig_open(g, 0, 0);
  uint64_t limit = g->rec.header_bytes + g->rec.state_cap + 64 + g->rec.max_tick_bytes + 64;
  sv_record_close(&g->rec);
  rig_close(g);
  rig_open(g, limit + 20000, 0);
  for (int i = 0; i < 900; i++) rig_tick(g);
  assert_int_equal(sv_record_finish(&g->rec), 0);
  int files = g->rec.file_index + 1;
  assert_true(files >= 3);
  assert_int_equal(g->metrics.recording_files_total, (uint64_t)files);
  uint64_t expect_first = 1, total = 0;
  for (int i = 0; i < files; i++) {
    char p[160];
    if (i == 0)
      snprintf(p, sizeof p, "%s", g->path);
    else
      snprintf(p, sizeof p, "%s/rec.%d.arbrec", g->dir, i);
    assert_true((uint64_t)file_size(p) <= limit + 20000);
    total += (uint64_t)file_size(p);
    uint64_t first, last;
    read_clean(p, &first, &last);
    assert_int_equal(first, expect_first);
    expect_first = last + 1;
    verify(p);
  }
  assert_int_equal(expect_first, 901);
  assert_int_equal(g->metrics.recording_bytes_total, total);
  rig_close(g);
  free(g);
}

// A limit below one self-contained file is refused at open.
static void test_limit_too_small(void** state) {
  (void)state;
  rig* g = calloc(1, sizeof *g);
  char msg[256] = "";
  assert_int_equal(rig_try_open(g, 100, 0, msg, sizeof msg), ARB_E_INVAL);
  assert_non_null(strstr(msg, "--record-max-bytes"));
  rig_close(g);
  free(g);
}

int main(int argc, char** argv) {
  if (!arb_test_args(argc, argv, "SCENE.json ARBITER-REPLAY", &scene_path, &replay_tool, NULL))
    return 2;
  return ARB_RUN_TESTS(NULL, NULL, cmocka_unit_test(test_retry_loses_nothing),
                       cmocka_unit_test(test_overflow_starts_a_new_file),
                       cmocka_unit_test(test_rotation), cmocka_unit_test(test_limit_too_small));
}
