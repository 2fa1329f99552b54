// The viewer's replay driver (client/view/view_replay.c) without SDL or a server: a
// recording is synthesized here with the game rules and the replay-log encoder, then
// played back, checked tick by tick, sought backwards through checkpoints and forwards,
// and fed a truncated copy and one with a wrong recorded hash.
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <arbiter/game.h>
#include <arbiter/replay_inputs.h>

#include "log_buffer.h"
#include "view_replay.h"

#define TICKS 700
#define BAD_TICK 50

static uint64_t g_hash[TICKS + 1];  // game hash after each tick, [0] = initial
static char g_path[512];

// Two players join at tick 1 and push around with changing controls; a third joins at
// tick 200 and the first leaves at tick 400. wrong_hash_at: a tick whose recorded hash is
// falsified (0 = none).
static log_buffer synthesize(uint64_t wrong_hash_at) {
  arb_scene* scene = NULL;
  arb_scene_error se;
  assert_int_equal(arb_scene_load_default(&scene, &se), 0);
  arb_game* game = NULL;
  assert_int_equal(arb_game_create(scene, 42, &game), 0);
  g_hash[0] = arb_game_hash(game);

  log_buffer b = {0};
  size_t text_len = 0;
  arb_replay_header h;
  memset(&h, 0, sizeof h);
  h.format_version = ARB_REPLAY_FORMAT_VERSION;
  h.build_id = "test";
  h.build_id_len = 4;
  h.scene_text = arb_scene_get_text(scene, &text_len);
  h.scene_len = text_len;
  h.scene_hash = arb_scene_get_hash(scene);
  h.tick_rate = (uint16_t)arb_scene_get_tick_rate(scene);
  h.seed = 42;
  log_put(&b, log_header, &h);

  arb_replay_tick* t = calloc(1, sizeof *t);
  arb_replay_inputs* desc = malloc(sizeof *desc);
  assert_non_null(t);
  assert_non_null(desc);
  for (uint64_t tick = 1; tick <= TICKS; tick++) {
    memset(t, 0, sizeof *t);
    t->tick = tick;
    uint32_t joining[2] = {0, 0};
    if (tick == 1) {
      joining[0] = 1;
      joining[1] = 2;
    } else if (tick == 200) {
      joining[0] = 3;
    }
    for (int i = 0; i < 2 && joining[i]; i++) {
      arb_replay_join* j = &t->joins[t->join_count++];
      j->client_id = joining[i];
      j->avatar_kind = ARB_AVATAR_DEFAULT;
      snprintf(j->name, sizeof j->name, "p%u", joining[i]);
    }
    if (tick == 400) t->leaves[t->leave_count++] = 1;
    for (uint32_t c = 1; c <= 3; c++) {
      if ((c == 1 && tick >= 400) || (c == 3 && tick < 200)) continue;
      arb_controls ctl;
      memset(&ctl, 0, sizeof ctl);
      ctl.move_x = ((tick / 37 + c) % 3) - 1.0f;
      ctl.move_y = (tick % 90 < 10) ? 1.0f : 0.0f;
      arb_replay_input* in = &t->inputs[t->input_count++];
      in->client_id = c;
      in->seq = (uint32_t)tick;
      in->controls = arb_proto_quantize_controls(&ctl);
    }
    // Applied as the server applies a tick (the joins get their entity ids here).
    arb_replay_inputs_from_tick(t, desc);
    assert_int_equal(arb_game_apply_tick(game, &desc->inputs), ARB_OK);
    arb_replay_tick_keep_applied(t, desc);
    g_hash[tick] = arb_game_hash(game);
    t->world_hash = g_hash[tick] ^ (tick == wrong_hash_at ? 1u : 0u);
    log_put(&b, log_tick, t);
  }
  arb_replay_end e = {TICKS, TICKS, 0};
  log_put(&b, log_end, &e);
  free(t);
  free(desc);
  arb_game_destroy(game);
  arb_scene_destroy(scene);
  return b;
}

static void write_file(const log_buffer* b, size_t len) {
  FILE* f = fopen(g_path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b->p, 1, len, f), len);
  fclose(f);
}

static view_replay* open_replay(void) {
  view_replay* r = NULL;
  char err[512] = "";
  int rc = view_replay_open(g_path, &r, err, sizeof err);
  if (rc != 0) fprintf(stderr, "open: %s\n", err);
  assert_int_equal(rc, 0);
  return r;
}

// Run pending work (a seek, or playback) until nothing more happens.
static void settle(view_replay* r) {
  for (int i = 0; i < 1000 && view_replay_seeking(r); i++) view_replay_update(r, 0.0, 1000.0);
}

static void test_view_replay_plays_checks_and_seeks(void** state) {
  (void)state;
  log_buffer b = synthesize(0);
  write_file(&b, b.len);
  view_replay* r = open_replay();
  assert_int_equal(view_replay_tick(r), 0);
  assert_int_equal(view_replay_last_tick(r), TICKS);
  assert_string_equal(view_replay_get_check(r)->log_end, "log complete");

  // Play 2 s of real time at 1x: 120 ticks at 60 Hz, hashes checked.
  for (int i = 0; i < 120; i++) view_replay_update(r, 1.0 / 60.0, 1000.0);
  assert_true(view_replay_tick(r) >= 119 && view_replay_tick(r) <= 120);
  // Seek to the end, through and past the checkpoint ticks.
  view_replay_seek(r, 100000);
  settle(r);
  assert_int_equal(view_replay_tick(r), TICKS);
  const view_replay_check* ck = view_replay_get_check(r);
  assert_int_equal(ck->checked, TICKS);
  assert_int_equal(ck->mismatches, 0);
  assert_true(ck->last_ok);
  assert_string_equal(ck->error, "");
  assert_int_equal(arb_game_hash(view_replay_game(r)), g_hash[TICKS]);

  // Backwards: restores a checkpoint (0, 300 or 600) and re-simulates to the exact tick.
  const int64_t targets[] = {350, 299, 601, 0, 1, 650};
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    view_replay_seek(r, targets[i]);
    settle(r);
    assert_int_equal(view_replay_tick(r), targets[i]);
    assert_int_equal(arb_game_hash(view_replay_game(r)), g_hash[targets[i]]);
  }
  // Re-simulated ticks are not counted twice.
  assert_int_equal(ck->checked, TICKS);
  assert_int_equal(ck->mismatches, 0);

  // Stepping pauses and moves exactly one tick; speed is clamped.
  view_replay_step(r);
  assert_true(view_replay_paused(r));
  assert_int_equal(view_replay_tick(r), 651);
  view_replay_update(r, 1.0, 1000.0);  // paused: nothing happens
  assert_int_equal(view_replay_tick(r), 651);
  view_replay_set_speed(r, 100.0f);
  assert_true(view_replay_speed(r) == VIEW_REPLAY_MAX_SPEED);
  view_replay_set_speed(r, 0.0f);
  assert_true(view_replay_speed(r) == VIEW_REPLAY_MIN_SPEED);
  // 8x for 0.25 s of real time = 120 ticks.
  view_replay_set_speed(r, 8.0f);
  view_replay_set_paused(r, false);
  view_replay_update(r, 0.25, 1000.0);
  assert_int_equal(view_replay_tick(r), TICKS);  // 651 + 120 clamps at the end
  assert_int_equal(arb_game_hash(view_replay_game(r)), g_hash[TICKS]);
  view_replay_close(r);

  // A log cut in the middle of a record: plays up to the last whole tick, says why.
  write_file(&b, b.len - 40);
  r = open_replay();
  assert_true(view_replay_last_tick(r) < TICKS && view_replay_last_tick(r) > TICKS - 5);
  assert_string_not_equal(view_replay_get_check(r)->log_end, "log complete");
  view_replay_seek(r, 100000);
  settle(r);
  assert_int_equal(view_replay_tick(r), view_replay_last_tick(r));
  assert_int_equal(view_replay_get_check(r)->mismatches, 0);
  view_replay_close(r);
  free(b.p);
}

static void test_view_replay_reports_a_hash_mismatch(void** state) {
  (void)state;
  log_buffer b = synthesize(BAD_TICK);
  write_file(&b, b.len);
  view_replay* r = open_replay();
  view_replay_seek(r, 100000);
  settle(r);
  const view_replay_check* ck = view_replay_get_check(r);
  assert_int_equal(ck->mismatches, 1);
  assert_int_equal(ck->first_mismatch, BAD_TICK);
  assert_true(ck->last_ok);
  view_replay_seek(r, BAD_TICK);
  settle(r);
  assert_false(ck->last_ok);
  assert_int_equal(ck->mismatches, 1);
  view_replay_close(r);
  free(b.p);
}

static void test_view_replay_rejects_bad_files(void** state) {
  (void)state;
  view_replay* r = NULL;
  char err[512] = "";
  assert_true(view_replay_open("/nonexistent/x.arbrec", &r, err, sizeof err) < 0);
  assert_null(r);
  assert_non_null(strstr(err, "/nonexistent/x.arbrec"));
  FILE* f = fopen(g_path, "wb");
  assert_non_null(f);
  fputs("this is not a replay log", f);
  fclose(f);
  err[0] = '\0';
  assert_true(view_replay_open(g_path, &r, err, sizeof err) < 0);
  assert_null(r);
  assert_non_null(strstr(err, "not a readable replay log"));
}

int main(int argc, char** argv) {
  snprintf(g_path, sizeof g_path, "%s/test_view_replay.arbrec", argc > 1 ? argv[1] : ".");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_view_replay_plays_checks_and_seeks),
      cmocka_unit_test(test_view_replay_reports_a_hash_mismatch),
      cmocka_unit_test(test_view_replay_rejects_bad_files),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  remove(g_path);
  return rc;
}
