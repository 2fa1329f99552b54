// The tick applier, live and from the log: ticks described the way the server describes
// them (a tick record, its description applied by arb_game_apply_tick, the refused items
// dropped) are written by the server's real recorder, read back, decoded and applied to a
// second game; both games must hash the same after every tick. Joins, leaves and controls
// the game refuses are part of the mix. Also: the recorder's buffers, sized at open, never
// grow; and a failed sv_server_init leaves nothing open or allocated.
// cmocka.h needs these before it.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <arbiter/replay_inputs.h>
#include <enet/enet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/enet_group.h"
#include "../common/read_file.h"
#include "../common/test_main.h"
#include "sv_record.h"
#include "sv_server.h"

#define TICKS 400
#define CLIENTS 12
#define CHECKPOINT_EVERY 25

typedef struct live {
  arb_game* game;
  arb_replay_tick* rec;
  arb_replay_inputs* in;
  uint64_t hash[TICKS + 1];
  uint32_t next_client;
  int refused;  // items the game refused (and the record left out)
  uint64_t rng;
} live;

static uint32_t rnd(live* l, uint32_t n) {
  l->rng = l->rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(l->rng >> 33) % n;
}

// One tick as the server builds it: new joins (now and then a client id already in the
// game, which is refused), leaves (now and then an unknown client), and controls for every
// present client plus one unknown.
static void describe(live* l, const uint32_t* present, int n_present) {
  arb_replay_tick* t = l->rec;
  memset(t, 0, sizeof *t);
  if (n_present < CLIENTS && rnd(l, 4) == 0) {
    arb_replay_join* j = &t->joins[t->join_count++];
    j->client_id = l->next_client++;
    j->avatar_kind = (uint8_t)rnd(l, ARB_AVATAR_KIND_COUNT);
    snprintf(j->name, sizeof j->name, "c%u", j->client_id);
  }
  if (n_present > 0 && rnd(l, 7) == 0) {
    arb_replay_join* j = &t->joins[t->join_count++];
    *j = (arb_replay_join){present[0], 0, 0, "again"};
  }
  if (n_present > 2 && rnd(l, 9) == 0)
    t->leaves[t->leave_count++] = present[rnd(l, (uint32_t)n_present)];
  if (rnd(l, 11) == 0) t->leaves[t->leave_count++] = 999999;
  for (int i = 0; i < n_present; i++) {
    arb_controls c = {(float)rnd(l, 201) / 100.0f - 1.0f, (float)rnd(l, 201) / 100.0f - 1.0f,
                      (float)rnd(l, 600) / 100.0f - 3.0f, rnd(l, 4),
                      (float)rnd(l, 201) / 100.0f - 1.0f, (float)rnd(l, 101) / 100.0f,
                      (float)rnd(l, 101) / 100.0f};
    t->inputs[t->input_count++] =
        (arb_replay_input){present[i], (uint32_t)i, arb_proto_quantize_controls(&c), 0};
  }
  arb_controls none = {0};
  t->inputs[t->input_count++] =
      (arb_replay_input){888888, 1, arb_proto_quantize_controls(&none), 0};
}

// The server's sequence: describe, apply, keep what the game accepted, hash.
static void live_tick(live* l) {
  arb_entity avatars[CLIENTS + 2];
  int n = 0, total = arb_game_get_entities(l->game, NULL, 0);
  arb_entity* all = calloc((size_t)total, sizeof *all);
  arb_game_get_entities(l->game, all, total);
  for (int i = 0; i < total && n < CLIENTS + 2; i++)
    if (all[i].owner) avatars[n++] = all[i];
  free(all);
  uint32_t present[CLIENTS + 2];
  for (int i = 0; i < n; i++) present[i] = avatars[i].owner;
  describe(l, present, n);
  int items = l->rec->join_count + l->rec->leave_count + l->rec->input_count;
  arb_replay_inputs_from_tick(l->rec, l->in);
  arb_game_apply_tick(l->game, &l->in->inputs);
  arb_replay_tick_keep_applied(l->rec, l->in);
  l->refused += items - (l->rec->join_count + l->rec->leave_count + l->rec->input_count);
  l->rec->tick = arb_game_get_tick(l->game);
  l->rec->world_hash = arb_game_hash(l->game);
  l->hash[l->rec->tick] = l->rec->world_hash;
}

static uint8_t* read_all(const char* path, size_t* len) {
  uint8_t* data = (uint8_t*)arb_test_read_file(path, len);
  assert_non_null(data);
  return data;
}

// Replays the log into a fresh game and counts the ticks whose hash differs from the live
// one; with `tamper`, one recorded input is changed first.
static void replay(const char* path, const arb_scene* scene, const live* l, bool tamper,
                   int* differing) {
  size_t len = 0;
  uint8_t* data = read_all(path, &len);
  arb_replay_reader r;
  arb_proto_error err;
  assert_int_equal(arb_replay_reader_open(&r, data, len, &err), 0);
  arb_game* game = NULL;
  assert_int_equal(arb_game_create(scene, r.header.seed, &game), 0);
  arb_replay_tick* t = malloc(sizeof *t);
  arb_replay_inputs* in = malloc(sizeof *in);
  arb_replay_record rec;
  int checkpoints = 0;
  while (arb_replay_reader_next(&r, &rec) == 1) {
    if (rec.kind == ARB_REPLAY_CHECKPOINT) {
      arb_replay_checkpoint cp;
      assert_int_equal(arb_replay_decode_checkpoint(&rec, &cp, &err), 0);
      if (!tamper) assert_true(cp.world_hash == arb_game_hash(game));
      checkpoints++;
      continue;
    }
    if (rec.kind != ARB_REPLAY_TICK) continue;
    assert_int_equal(arb_replay_decode_tick(&rec, t, &err), 0);
    if (tamper && t->tick == TICKS / 2) {
      assert_true(t->input_count > 0);
      arb_proto_controls_q* q = &t->inputs[0].controls;  // push the other way, whatever the avatar
      q->move_x = (int8_t)(q->move_x > 0 ? -127 : 127);
      q->steer = (int8_t)(q->steer > 0 ? -127 : 127);
      q->throttle = (uint8_t)(q->throttle > 127 ? 0 : 255);
    }
    arb_replay_inputs_from_tick(t, in);
    assert_int_equal(arb_game_apply_tick(game, &in->inputs),
                     ARB_OK);  // only accepted items were recorded
    char why[200];
    assert_int_equal(arb_replay_inputs_check_joins(t, in, why, sizeof why), ARB_OK);
    assert_int_equal(arb_game_get_tick(game), t->tick);
    if (arb_game_hash(game) != l->hash[t->tick]) (*differing)++;
    if (!tamper) {
      assert_true(arb_game_hash(game) == t->world_hash);
      assert_true(arb_game_hash(game) == l->hash[t->tick]);
    }
  }
  assert_int_equal(r.stop, ARB_REPLAY_STOP_CLEAN);
  assert_int_equal(r.last_tick, TICKS);
  assert_int_equal(checkpoints, TICKS / CHECKPOINT_EVERY);
  arb_game_destroy(game);
  free(t);
  free(in);
  free(data);
}

static int load_scene(void** state) {
  arb_scene_error serr;
  return arb_scene_load_default((arb_scene**)state, &serr);
}

static int destroy_scene(void** state) {
  arb_scene_destroy(*state);
  return 0;
}

static void test_live_and_logged_ticks_apply_to_the_same_hashes(void** state) {
  const arb_scene* scene = *state;
  live* l = calloc(1, sizeof *l);
  l->rec = malloc(sizeof *l->rec);
  l->in = malloc(sizeof *l->in);
  l->next_client = 1;
  l->rng = 12345;
  assert_int_equal(arb_game_create(scene, 5, &l->game), 0);

  char path[128];
  snprintf(path, sizeof path, "/tmp/arbiter-test-record-%d.arbrec", (int)getpid());
  arb_replay_header h = {ARB_REPLAY_FORMAT_VERSION,
                         "test",
                         4,
                         NULL,
                         0,
                         arb_scene_get_hash(scene),
                         (uint16_t)arb_scene_get_tick_rate(scene),
                         5,
                         0,
                         0,
                         "",
                         0};
  h.scene_text = arb_scene_get_text(scene, &h.scene_len);
  sv_metrics metrics;
  sv_metrics_init(&metrics);
  sv_log log;
  sv_log_init(&log, stderr, SV_LOG_WARN, SV_LOG_TEXT);
  sv_record_def def = {path,
                       &h,
                       CLIENTS + 2,
                       sv_record_state_estimate(scene, 5, l->game, CLIENTS),
                       CHECKPOINT_EVERY,
                       &log,
                       &metrics,
                       0,
                       0,
                       NULL,
                       NULL};
  sv_record r;
  char err[256];
  assert_int_equal(sv_record_open(&r, &def, 0, err, sizeof err), 0);
  for (int i = 0; i < TICKS; i++) {
    live_tick(l);
    sv_record_tick(&r, l->rec, l->game, (uint64_t)i * 16000000u);
  }
  assert_int_equal(sv_record_finish(&r), 0);
  assert_int_equal(metrics.recording_errors_total, 0);
  assert_int_equal(r.grows, 0);     // every tick and checkpoint fitted the buffers sized at open
  assert_true(l->refused > TICKS);  // the unknown client's control alone is refused every tick
  assert_true(arb_game_get_avatar_count(l->game) > 2);

  int differing = 0;
  replay(path, scene, l, false, &differing);
  assert_int_equal(differing, 0);
  replay(path, scene, l, true, &differing);  // the comparison can fail: one input differs
  assert_true(differing > 0);

  unlink(path);
  arb_game_destroy(l->game);
  free(l->rec);
  free(l->in);
  free(l);
}

// Each stage of init fails in turn after the ones before it opened files, sockets and
// memory; the loop must then close with no handle left (ASan checks the memory).
static void test_failed_init_undoes_itself(void** state) {
  (void)state;
  char path[128];
  snprintf(path, sizeof path, "/tmp/arbiter-test-init-%d.arbrec", (int)getpid());
  struct {
    const char* record;
    const char* http_bind;
    const char* admin_token;
    int rc;
  } cases[] = {
      // The recording (after the scene, the game and the tick buffers).
      {"/nonexistent-dir/", "127.0.0.1", "", ARB_E_INVAL},
      // HTTP, after the log and UDP are open.
      {path, "not-an-address", "", ARB_E_IO},
      // The match lifecycle's token file, after everything else is open.
      {path, "127.0.0.1", "/nonexistent-token", ARB_E_INVAL},
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    sv_config cfg = sv_default_config();
    cfg.port = 0;
    cfg.http_port = -1;
    cfg.log_level = SV_LOG_ERROR;
    snprintf(cfg.record, sizeof cfg.record, "%s", cases[i].record);
    snprintf(cfg.http_bind, sizeof cfg.http_bind, "%s", cases[i].http_bind);
    snprintf(cfg.admin_token, sizeof cfg.admin_token, "%s", cases[i].admin_token);
    sv_server* s = calloc(1, sizeof *s);
    char err[512] = "";
    assert_int_equal(sv_server_init(s, &loop, &cfg, err, sizeof err), cases[i].rc);
    assert_true(err[0] != '\0');
    // Closing handles finish within one loop iteration; an open one would keep it alive.
    for (int k = 0; k < 10 && uv_loop_alive(&loop); k++) uv_run(&loop, UV_RUN_NOWAIT);
    assert_false(uv_loop_alive(&loop));
    assert_int_equal(uv_loop_close(&loop), 0);
    sv_server_deinit(s);  // not needed, but harmless (nothing is freed twice)
    free(s);
  }
  unlink(path);
}

int main(void) {
  return ARB_RUN_TESTS(
      enet_group_setup, enet_group_teardown,
      cmocka_unit_test_setup_teardown(test_live_and_logged_ticks_apply_to_the_same_hashes,
                                      load_scene, destroy_scene),
      cmocka_unit_test(test_failed_init_undoes_itself));
}
