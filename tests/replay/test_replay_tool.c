// arbiter-replay's subcommands on logs built in memory: a clean log verifies; a wrong
// recorded hash, a changed physics constant (--perturb-gravity) and a doctored checkpoint
// each give exit 1 at the right tick with the differing entities; a log cut at every byte,
// a bit flipped in every byte, a wrong format version and a scene that does not parse
// give exit 2 with a reason, never a crash (run under ASan
// in `make test`); seek from a checkpoint (also one holding sleeping bodies) equals a
// re-simulation from tick 0; the header's
// tick rate (a server's --tick-rate) is the one re-simulated.
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <arbiter/game.h>
#include <arbiter/replay_inputs.h>

#include "../common/test_main.h"
#include "../unit/test_proto_fixtures.h"
#include "log_buffer.h"
#include "rp_cmd.h"

#define TICKS 40
#define CP_EVERY 10

typedef struct log_spec {
  const char* scene_text;  ///< NULL = the built-in scene
  uint64_t bad_hash_tick;  ///< record a wrong hash at this tick (0 = none)
  uint64_t bad_cp_tick;    ///< flip one byte of this checkpoint's state (0 = none)
  int sim_rate;            ///< the rate the session ran at (0 = the scene's, 60)
  int header_rate;         ///< the rate the header claims (0 = sim_rate)
  int ticks;               ///< session length (0 = TICKS)
  uint64_t from_tick;      ///< > 0: the log of a server the match moved to at this tick: its
                           ///< checkpoint there, then the ticks after it only
} log_spec;

// Bodies asleep in the last checkpoint make_log wrote (sleeping must survive seeks).
static int sleeping_at_last_checkpoint;

// A session like the server records it: client 1 joins at tick 1 and walks and jumps,
// client 2 joins at tick 5 and leaves at tick 25; checkpoints every CP_EVERY ticks.
static log_buffer make_log(const log_spec* spec) {
  log_buffer b = {0};
  const char* text = spec->scene_text ? spec->scene_text : arb_scene_default_text();
  arb_scene* scene = NULL;
  arb_scene_error serr;
  arb_replay_header h = fx_replay_header_for_scene(text, XXH3_64bits(text, strlen(text)));
  int sim_rate = spec->sim_rate ? spec->sim_rate : 60;
  h.tick_rate = (uint16_t)(spec->header_rate ? spec->header_rate : sim_rate);
  h.seed = 9;
  log_put(&b, log_header, &h);
  if (spec->scene_text) return b;  // only the header: the scene is the point of the test
  assert_int_equal(arb_scene_load_default(&scene, &serr), 0);
  assert_int_equal(arb_scene_set_tick_rate(scene, sim_rate), 0);  // as the server's --tick-rate
  arb_game* game = NULL;
  assert_int_equal(arb_game_create(scene, h.seed, &game), 0);
  arb_replay_tick* t = calloc(1, sizeof *t);
  arb_replay_inputs* in = malloc(sizeof *in);
  assert_non_null(t);
  assert_non_null(in);
  int state_cap = 1 << 20;
  uint8_t* state = malloc((size_t)state_cap);
  assert_non_null(state);
  const uint64_t ticks = spec->ticks > 0 ? (uint64_t)spec->ticks : TICKS;
  for (uint64_t tick = 1; tick <= ticks; tick++) {
    memset(t, 0, sizeof *t);
    t->tick = tick;
    uint32_t joiner = tick == 1 ? 1 : tick == 5 ? 2 : 0;
    if (joiner) {
      t->joins[0].client_id = joiner;
      snprintf(t->joins[0].name, sizeof t->joins[0].name, "c%u", joiner);
      t->join_count = 1;
    }
    if (tick == 25) t->leaves[t->leave_count++] = 2;
    arb_controls c;
    memset(&c, 0, sizeof c);
    c.move_x = (tick / 8) % 2 ? -0.7f : 1.0f;
    c.buttons = tick % 13 == 0 ? ARB_BUTTON_JUMP : 0;
    t->inputs[0].client_id = 1;
    t->inputs[0].seq = (uint32_t)tick;
    t->inputs[0].controls = arb_proto_quantize_controls(&c);
    t->input_count = 1;
    // Applied as the server applies a tick: through the game's tick applier, which also
    // gives the joins their entity ids for the record.
    arb_replay_inputs_from_tick(t, in);
    assert_int_equal(arb_game_apply_tick(game, &in->inputs), ARB_OK);
    arb_replay_tick_keep_applied(t, in);
    t->world_hash = arb_game_hash(game) ^ (tick == spec->bad_hash_tick ? 1u : 0u);
    if (tick > spec->from_tick) log_put(&b, log_tick, t);
    if (tick % CP_EVERY == 0 && tick >= spec->from_tick) {
      int n = arb_game_save(game, state, state_cap);
      assert_true(n > 0 && n <= state_cap);
      // A byte near the end: avatar/controller state, not a header field restore checks.
      if (tick == spec->bad_cp_tick) state[n - 3] ^= 0x40;
      arb_replay_checkpoint cp = {tick, arb_game_hash(game), state, (size_t)n};
      sleeping_at_last_checkpoint =
          arb_world_get_counters(arb_game_get_world(game)).sleeping_body_count;
      log_put(&b, log_checkpoint, &cp);
    }
  }
  arb_replay_end end = {ticks, ticks - spec->from_tick, h.start_time_ms + 1000};
  log_put(&b, log_end, &end);
  free(state);
  free(t);
  free(in);
  arb_game_destroy(game);
  arb_scene_destroy(scene);
  return b;
}

typedef struct result {
  int status;
  char out[16384];
  char err[4096];
} result;

static void slurp(FILE* f, char* dst, size_t cap) {
  rewind(f);
  size_t n = fread(dst, 1, cap - 1, f);
  dst[n] = '\0';
  fclose(f);
}

// Runs a subcommand over a copy of the bytes (rp_run takes ownership).
static void run(const rp_opts* o, const uint8_t* data, size_t len, result* r) {
  uint8_t* copy = malloc(len ? len : 1);
  assert_non_null(copy);
  if (len) memcpy(copy, data, len);
  FILE* out = tmpfile();
  FILE* err = tmpfile();
  assert_non_null(out);
  assert_non_null(err);
  r->status = rp_run(o, copy, len, out, err);
  slurp(out, r->out, sizeof r->out);
  slurp(err, r->err, sizeof r->err);
}

static rp_opts opts(rp_command cmd) {
  rp_opts o = rp_default_opts();
  o.cmd = cmd;
  o.name = "test.arbrec";
  return o;
}

// The logs the tests start from.
static log_spec clean_log = {0};
static log_spec long_log = {.ticks = 150};
static log_spec wrong_hash_at_17 = {.bad_hash_tick = 17};
static log_spec doctored_checkpoint_30 = {.bad_cp_tick = 30};
static log_spec bad_scene = {.scene_text = "{\"version\": 1, \"bodies\": [ {\"shape\": 3} "};

// cmocka fixture: the log of the log_spec given as the test's initial state, as *state (a
// log_buffer), freed after the test whatever it did to the bytes.
static int log_setup(void** state) {
  log_buffer* b = malloc(sizeof *b);
  assert_non_null(b);
  *b = make_log(*state);
  *state = b;
  return 0;
}

static int log_teardown(void** state) {
  log_buffer* b = *state;
  free(b->p);
  free(b);
  return 0;
}

#define LOG_TEST(test, spec) \
  cmocka_unit_test_prestate_setup_teardown(test, log_setup, log_teardown, &(spec))

// Runs `cmd` with its default options over the whole log; its exit status must be `want`.
static void run_expect(rp_command cmd, const log_buffer* b, int want, result* r) {
  rp_opts o = opts(cmd);
  run(&o, b->p, b->len, r);
  assert_int_equal(r->status, want);
}

static void test_replay_tool_clean_log_verifies(void** state) {
  log_buffer* b = *state;
  static result r;
  run_expect(RP_CMD_VERIFY, b, RP_EXIT_OK, &r);
  ARB_ASSERT_HAS(r.out, "OK: 40 ticks verified (1..40), 4 checkpoints identical bit for bit",
                 "ticks/s");
  run_expect(RP_CMD_INFO, b, RP_EXIT_OK, &r);
  ARB_ASSERT_HAS(r.out, "client 2 \"c2\"", "joined tick 5", "left tick 25", "integrity:   clean");
}

static void test_replay_tool_wrong_hash_diverges_at_its_tick(void** state) {
  log_buffer* b = *state;
  static result r;
  run_expect(RP_CMD_VERIFY, b, RP_EXIT_DIVERGED, &r);
  ARB_ASSERT_HAS(r.out, "DIVERGED at tick 17 ", "expected hash",
                 "last state identical to the recording bit for bit: tick 10");
  // Only the recorded hash was wrong, so the bodies at the next checkpoint agree.
  ARB_ASSERT_HAS(r.out, "at tick 20 (the next checkpoint", "saved game states are byte-identical");
}

static void test_replay_tool_changed_gravity_is_caught(void** state) {
  log_buffer* b = *state;
  rp_opts o = opts(RP_CMD_VERIFY);
  o.perturb_tick = 20;
  static result r;
  run(&o, b->p, b->len, &r);
  assert_int_equal(r.status, RP_EXIT_DIVERGED);
  assert_non_null(strstr(r.out, "DIVERGED at tick 20 "));
  // Tick 20 has a checkpoint: the differing entities are listed with their fields.
  ARB_ASSERT_HAS(r.out, "at tick 20 (a checkpoint)", "\n    entity ", " ulp)");
}

static void test_replay_tool_doctored_checkpoint_is_caught(void** state) {
  log_buffer* b = *state;
  static result r;
  // The hashes all match, but the checkpoint's state bytes do not: the stronger check.
  run_expect(RP_CMD_VERIFY, b, RP_EXIT_DIVERGED, &r);
  ARB_ASSERT_HAS(r.out, "DIVERGED at tick 30 ", "checkpoint state differs");
}

// Seeking to `tick` starts from the checkpoint of `cp_tick` and prints exactly what a
// re-simulation from tick 0 (dump) prints for that tick.
static void check_seek_equals_dump(const log_buffer* b, uint64_t tick, uint64_t cp_tick) {
  rp_opts o = opts(RP_CMD_SEEK);
  o.tick = tick;
  static result seek, dump;
  run(&o, b->p, b->len, &seek);
  assert_int_equal(seek.status, RP_EXIT_OK);
  char started[64];
  snprintf(started, sizeof started, "started from the checkpoint of tick %llu",
           (unsigned long long)cp_tick);
  assert_non_null(strstr(seek.err, started));
  o = opts(RP_CMD_DUMP);
  o.from = 0;
  o.to = tick;
  o.every = tick;
  run(&o, b->p, b->len, &dump);
  assert_int_equal(dump.status, RP_EXIT_OK);
  assert_non_null(strstr(dump.err, "started from tick 0"));
  char key[32];
  snprintf(key, sizeof key, "{\"tick\":%llu,", (unsigned long long)tick);
  const char* last = strstr(dump.out, key);
  assert_non_null(last);
  assert_string_equal(last, seek.out);
  assert_non_null(strstr(seek.out, "\"owner\":1"));
}

static void test_replay_tool_seek_equals_full_resimulation(void** state) {
  log_buffer* b = *state;
  check_seek_equals_dump(b, 27, 20);
}

// A checkpoint taken while scene bodies sleep restores them asleep: seeking from it gives
// the recorded hash on every tick and the same state as re-simulating from tick 0.
static void test_replay_tool_seek_across_sleeping_bodies(void** state) {
  log_buffer* b = *state;
  assert_true(sleeping_at_last_checkpoint > 0);
  check_seek_equals_dump(b, 147, 140);
  static result verify;
  run_expect(RP_CMD_VERIFY, b, RP_EXIT_OK, &verify);
}

static void test_replay_tool_every_truncation_is_exit_2_or_prefix(void** state) {
  log_buffer* b = *state;
  static result r;
  // Every cut of a log: exit 2 without --allow-truncated; with it, the readable prefix
  // verifies (0) unless even the header is cut (2). Never a divergence, never a crash.
  for (size_t cut = 0; cut < b->len; cut += (cut < 300 ? 1 : b->len / 300 + 1)) {
    rp_opts o = opts(RP_CMD_VERIFY);
    o.quiet = true;
    run(&o, b->p, cut, &r);
    assert_int_equal(r.status, RP_EXIT_UNREADABLE);
    assert_true(strstr(r.err, "not a readable replay log") ||
                strstr(r.err, "does not end cleanly"));
    o.allow_truncated = true;
    run(&o, b->p, cut, &r);
    if (r.status != RP_EXIT_OK) {
      assert_int_equal(r.status, RP_EXIT_UNREADABLE);
      assert_non_null(strstr(r.err, "not a readable replay log"));
    } else {
      assert_non_null(strstr(r.out, "the log ends early, verified its readable prefix"));
    }
  }
}

static void test_replay_tool_every_bit_flip_is_exit_2(void** state) {
  log_buffer* b = *state;
  static result r;
  for (size_t i = 0; i < b->len; i += (i < 300 ? 1 : b->len / 700 + 1)) {
    b->p[i] ^= (uint8_t)(1u << (i % 8));
    rp_opts o = opts(RP_CMD_VERIFY);
    run(&o, b->p, b->len, &r);
    b->p[i] ^= (uint8_t)(1u << (i % 8));
    if (r.status != RP_EXIT_UNREADABLE)
      fail_msg("flip at byte %zu: exit %d\n%s%s", i, r.status, r.out, r.err);
    assert_true(r.err[0] != '\0');
  }
}

static void test_replay_tool_wrong_version_is_exit_2(void** state) {
  log_buffer* b = *state;
  // Header body at 16: fixarray, then format_version as a positive fixint. Re-seal the
  // record's checksum so only the version is wrong.
  assert_int_equal(b->p[17], ARB_REPLAY_FORMAT_VERSION);
  b->p[17] = ARB_REPLAY_FORMAT_VERSION + 1;
  uint32_t body_len = (uint32_t)b->p[8] | (uint32_t)b->p[9] << 8 | (uint32_t)b->p[10] << 16 |
                      (uint32_t)b->p[11] << 24;
  uint32_t sum = XXH32(b->p + 8, 8 + body_len, 0);
  for (int k = 0; k < 4; k++) b->p[16 + body_len + (size_t)k] = (uint8_t)(sum >> (8 * k));
  static result r;
  run_expect(RP_CMD_VERIFY, b, RP_EXIT_UNREADABLE, &r);
  ARB_ASSERT_HAS(r.err, "not a readable replay log", "version");
}

static void test_replay_tool_bad_scene_is_exit_2(void** state) {
  log_buffer* b = *state;
  arb_replay_end end = {0, 0, 1};
  log_put(b, log_end, &end);
  static result r;
  run_expect(RP_CMD_VERIFY, b, RP_EXIT_UNREADABLE, &r);
  assert_non_null(strstr(r.err, "the recorded scene does not load"));
  run_expect(RP_CMD_INFO, b, RP_EXIT_UNREADABLE, &r);
  assert_non_null(strstr(r.out, "DOES NOT LOAD"));
}

static void test_replay_tool_tick_rate_comes_from_the_header(void** state) {
  (void)state;
  // A session run at 30 Hz (--tick-rate 30) on the 60 Hz default scene re-simulates at 30.
  log_spec spec = {.sim_rate = 30};
  log_buffer b = make_log(&spec);
  static result r;
  run_expect(RP_CMD_VERIFY, &b, RP_EXIT_OK, &r);
  run_expect(RP_CMD_INFO, &b, RP_EXIT_OK, &r);
  assert_non_null(strstr(r.out, "tick rate:   30 Hz (the scene file says 60 Hz"));
  free(b.p);
  // A header that names another rate than the one simulated: dt differs, so does tick 1's
  // world (gravity acts on the falling bodies from the first step).
  log_spec wrong = {.sim_rate = 60, .header_rate = 50};
  b = make_log(&wrong);
  run_expect(RP_CMD_VERIFY, &b, RP_EXIT_DIVERGED, &r);
  assert_non_null(strstr(r.out, "DIVERGED at tick 1 "));
  free(b.p);
}

// verify A B (rp_run_chain) over copies of the logs; the status must be `want`.
static void run_chain(const log_buffer* logs, int count, int want, result* r) {
  rp_chain_link links[4];
  static const char* names[] = {"a.arbrec", "b.arbrec", "c.arbrec", "d.arbrec"};
  assert_true(count <= 4);
  for (int k = 0; k < count; k++) {
    links[k] = (rp_chain_link){names[k], malloc(logs[k].len), logs[k].len};
    assert_non_null(links[k].data);
    memcpy(links[k].data, logs[k].p, logs[k].len);
  }
  FILE* out = tmpfile();
  FILE* err = tmpfile();
  assert_non_null(out);
  assert_non_null(err);
  rp_opts o = opts(RP_CMD_VERIFY);
  r->status = rp_run_chain(&o, links, count, out, err);
  slurp(out, r->out, sizeof r->out);
  slurp(err, r->err, sizeof r->err);
  assert_int_equal(r->status, want);
}

// A match that moved at tick 20: A's log to tick 20, B's from its checkpoint there. The
// pair verifies as one re-simulation; B's checkpoint is compared with A's re-simulated
// state, so a checkpoint whose hash is right but whose bytes are not is caught, and B's
// log written by `continue` from this build's state is B's log.
static void test_replay_tool_chain_is_one_resimulation(void** state) {
  (void)state;
  log_spec a_spec = {.ticks = 20}, b_spec = {.from_tick = 20},
           doctored_spec = {.from_tick = 20, .bad_cp_tick = 20};
  log_buffer logs[2] = {make_log(&a_spec), make_log(&b_spec)};
  static result r;
  run_chain(logs, 2, RP_EXIT_OK, &r);
  ARB_ASSERT_HAS(r.out, "b.arbrec continues at tick 20 (hash ",
                 "its checkpoint equals the re-simulated state bit for bit",
                 "OK: 2 logs verified as one match, re-simulated from tick 0 of the first "
                 "through the last (40 ticks, 5 checkpoints identical bit for bit); final tick 40");
  log_buffer swapped[2] = {logs[1], logs[0]};
  run_chain(swapped, 2, RP_EXIT_DIVERGED, &r);
  ARB_ASSERT_HAS(r.out, "b.arbrec does not continue the log before it", "checkpoint at tick 10 ");
  log_buffer doctored[2] = {logs[0], make_log(&doctored_spec)};
  run_chain(doctored, 2, RP_EXIT_DIVERGED, &r);
  ARB_ASSERT_HAS(r.out, "DIVERGED at tick 20: b.arbrec starts with a checkpoint that differs");
  free(doctored[1].p);

  // continue: the whole 40-tick log continued at 20 from this build's state.
  log_buffer whole = make_log(&clean_log);
  FILE* file = tmpfile();
  FILE* out = tmpfile();
  assert_non_null(file);
  assert_non_null(out);
  rp_opts o = opts(RP_CMD_CONTINUE);
  o.tick = 20;
  uint8_t* copy = malloc(whole.len);
  assert_non_null(copy);
  memcpy(copy, whole.p, whole.len);
  assert_int_equal(rp_run_continue(&o, copy, whole.len, file, out, stderr), RP_EXIT_OK);
  slurp(out, r.out, sizeof r.out);
  ARB_ASSERT_HAS(r.out, "continues test.arbrec at tick 20 from this build's state",
                 "then 20 recorded ticks to tick 40");
  log_buffer cont = {0};
  cont.cap = cont.len = (size_t)ftell(file);
  cont.p = malloc(cont.len);
  assert_non_null(cont.p);
  rewind(file);
  assert_int_equal(fread(cont.p, 1, cont.len, file), cont.len);
  fclose(file);
  logs[1] = cont;
  run_chain(logs, 2, RP_EXIT_OK, &r);
  ARB_ASSERT_HAS(r.out, "final tick 40");
  run_expect(RP_CMD_VERIFY, &cont, RP_EXIT_OK, &r);
  ARB_ASSERT_HAS(r.out, "starting from the checkpoint of tick 20",
                 "OK: 20 ticks verified (21..40)");
  o.tick = 40;  // nothing after it to continue with
  copy = malloc(whole.len);
  assert_non_null(copy);
  memcpy(copy, whole.p, whole.len);
  FILE* sink = tmpfile();
  assert_non_null(sink);
  assert_int_equal(rp_run_continue(&o, copy, whole.len, sink, sink, sink), RP_EXIT_UNREADABLE);
  slurp(sink, r.err, sizeof r.err);
  ARB_ASSERT_HAS(r.err, "--tick 40 is outside");
  free(cont.p);
  free(whole.p);
  free(logs[0].p);
  free(swapped[0].p);
}

ARB_TEST_MAIN(LOG_TEST(test_replay_tool_clean_log_verifies, clean_log),
              LOG_TEST(test_replay_tool_wrong_hash_diverges_at_its_tick, wrong_hash_at_17),
              LOG_TEST(test_replay_tool_changed_gravity_is_caught, clean_log),
              LOG_TEST(test_replay_tool_doctored_checkpoint_is_caught, doctored_checkpoint_30),
              LOG_TEST(test_replay_tool_seek_equals_full_resimulation, clean_log),
              LOG_TEST(test_replay_tool_seek_across_sleeping_bodies, long_log),
              LOG_TEST(test_replay_tool_every_truncation_is_exit_2_or_prefix, clean_log),
              LOG_TEST(test_replay_tool_every_bit_flip_is_exit_2, clean_log),
              LOG_TEST(test_replay_tool_wrong_version_is_exit_2, clean_log),
              LOG_TEST(test_replay_tool_bad_scene_is_exit_2, bad_scene),
              cmocka_unit_test(test_replay_tool_tick_rate_comes_from_the_header),
              cmocka_unit_test(test_replay_tool_chain_is_one_resimulation))
