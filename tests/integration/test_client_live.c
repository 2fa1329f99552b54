// The client library and arbiter-bot against a real arbiter-server (127.0.0.1, ephemeral
// ports, every wait bounded):
//  - 8 bots for 10 s each receive >= 95 % of the snapshots the server's rate promises;
//  - a client pressing "right" sees its own avatar's interpolated x increase;
//  - a full server rejects the extra client with its reason ("server full"), reported as
//    an event by the library and in arbiter-bot's summary and exit status;
//  - the server restarts (SIGTERM, then kill -9) on the same port: bots and library
//    clients reconnect by themselves and receive snapshots again;
//  - with --view-radius, a spectator that set a camera box (arb_client_set_view_box)
//    before connecting gets what lies in the box, follows it when it moves, and gets it
//    again after a reconnect.
// argv: arbiter-server arbiter-bot
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "test_client_util.h"

static const char* g_server;
static const char* g_bot;

// A test's arbiter-server with the default options, started before the test; the test
// stops it (and checks its exit), cu_teardown kills it if the test failed first.
typedef struct live_server {
  cu_proc srv;
  int port;
} live_server;

static int server_setup(void** state) {
  static live_server s;
  s.port = cu_server_up(&s.srv, g_server, NULL);
  *state = &s;
  return 0;
}

#define SERVER_TEST(test) cmocka_unit_test_setup_teardown(test, server_setup, cu_teardown)

// ---- 8 bots, 10 s ----------------------------------------------------------------------

static void test_client_live_bots_receive_snapshots(void** state) {
  live_server* s = *state;
  int status = -1;
  json_t* j = cu_run_bot(g_bot, s->port, 8, 10.0, "random", &status);
  assert_int_equal(cu_stop(&s->srv, SIGTERM), 0);
  assert_non_null(j);
  assert_int_equal(status, 0);
  assert_true(json_is_true(json_object_get(j, "ok")));
  assert_int_equal((int)cu_jnum(j, "ever_connected"), 8);
  assert_int_equal((int)cu_jnum(j, "connected_at_end"), 8);
  assert_int_equal((int)cu_jnum(j, "decode_errors"), 0);
  double ratio = cu_jnum(j, "snapshot_ratio");
  print_message("8 bots: snapshot ratio %.4f, %.1f snapshots/s per client\n", ratio,
                cu_jnum(j, "snapshots_per_client_per_s"));
  assert_true(ratio >= 0.95);
  // Each bot on its own, not only on average.
  json_t* per = json_object_get(j, "per_client");
  assert_int_equal((int)json_array_size(per), 8);
  for (size_t i = 0; i < json_array_size(per); i++) {
    json_t* c = json_array_get(per, i);
    double got = cu_jnum(c, "snapshots"), expected = cu_jnum(c, "expected");
    assert_true(expected >= 9.0 * 30.0);  // connected for (nearly) the whole 10 s at 30/s
    assert_true(got >= 0.95 * expected);
  }
  json_decref(j);
}

// ---- --no-interp: decode and acknowledge only ------------------------------------------

static void test_client_live_bots_no_interp(void** state) {
  live_server* s = *state;
  int status = -1;
  json_t* j = cu_run_bot_flag(g_bot, s->port, 8, 5.0, "random", "--no-interp", &status);
  assert_int_equal(cu_stop(&s->srv, SIGTERM), 0);
  assert_non_null(j);
  assert_int_equal(status, 0);
  assert_int_equal((int)cu_jnum(j, "connected_at_end"), 8);
  assert_int_equal((int)cu_jnum(j, "decode_errors"), 0);
  // Snapshots keep coming (they are acknowledged: deltas need the acks) ...
  double ratio = cu_jnum(j, "snapshot_ratio");
  print_message("8 bots --no-interp: snapshot ratio %.4f\n", ratio);
  assert_true(ratio >= 0.95);
  // ... and nothing was sampled or predicted.
  assert_int_equal((int)cu_jnum(j, "continuity_samples"), 0);
  json_t* pred = json_object_get(j, "prediction");
  assert_int_equal((int)cu_jnum(pred, "checks"), 0);
  assert_int_equal((int)cu_jnum(pred, "predicting_at_end"), 0);
  json_decref(j);
}

// ---- input packets: one per tick, or fewer with --input-rate -------------------------

// By default a bot sends a packet per server tick (60/s here) and one more for each
// snapshot that completes between two of them (30/s); with --input-rate 30 one every 2
// ticks carrying both commands, each still applied at its own tick, and the acks ride
// them: at most 30 packets a second, while the avatar keeps being predicted and the
// snapshots keep coming.
static void test_client_live_input_rate(void** state) {
  live_server* s = *state;
  int status = -1;
  json_t* every = cu_run_bot(g_bot, s->port, 4, 5.0, "random", &status);
  assert_non_null(every);
  assert_int_equal(status, 0);
  const char* const half[] = {"--input-rate", "30", NULL};
  json_t* batched = cu_run_bot_args(g_bot, s->port, 4, 5.0, "random", half, &status);
  assert_int_equal(cu_stop(&s->srv, SIGTERM), 0);
  assert_non_null(batched);
  assert_int_equal(status, 0);
  double per_tick = cu_jnum(every, "inputs_per_client_per_s");
  double per_two = cu_jnum(batched, "inputs_per_client_per_s");
  print_message("input packets per client per second: %.1f by default, %.1f with --input-rate 30\n",
                per_tick, per_two);
  // A slow machine's late bot loop may make two commands for one packet, so the lower
  // bounds are loose.
  assert_true(per_tick > 30.0 && per_tick < 95.0);
  assert_true(per_two > 15.0 && per_two < 31.5);
  for (int k = 0; k < 2; k++) {
    json_t* j = k ? batched : every;
    assert_int_equal((int)cu_jnum(j, "connected_at_end"), 4);
    assert_true(cu_jnum(j, "snapshot_ratio") >= 0.95);
    assert_int_equal((int)cu_jnum(json_object_get(j, "prediction"), "predicting_at_end"), 4);
  }
  json_decref(every);
  json_decref(batched);
}

// ---- own avatar moves right ------------------------------------------------------------

static bool has_avatar_state(void* user) {
  cu_watched* w = (cu_watched*)user;
  cu_poll_events(w);
  if (!w->connected) return false;
  arb_client_entity_state st[512];
  int n = arb_client_sample(w->c, cu_now(), st, 512);
  uint32_t me = arb_client_get_session(w->c)->avatar_entity;
  for (int i = 0; i < n && i < 512; i++)
    if (st[i].id == me) return true;
  return false;
}

static bool own_x(arb_client* c, float* x) {
  static arb_client_entity_state st[4096];
  int n = arb_client_sample(c, cu_now(), st, 4096);
  uint32_t me = arb_client_get_session(c)->avatar_entity;
  for (int i = 0; i < n && i < 4096; i++) {
    if (st[i].id == me) {
      *x = st[i].position.x;
      return true;
    }
  }
  return false;
}

static void test_client_live_right_moves_own_avatar(void** state) {
  live_server* s = *state;
  cu_watched w;
  memset(&w, 0, sizeof w);
  w.c = cu_client(s->port, "righty");
  assert_non_null(w.c);
  arb_client* cs[1] = {w.c};
  assert_true(cu_pump(cs, 1, 5.0, has_avatar_state, &w));
  // Let the avatar settle (spawn, land), then press right.
  cu_pump(cs, 1, 0.7, NULL, NULL);
  float x0 = 0.0f, x1 = 0.0f, prev = 0.0f;
  assert_true(own_x(w.c, &x0));
  arb_controls right;
  memset(&right, 0, sizeof right);
  right.move_x = 1.0f;
  assert_int_equal(arb_client_set_controls(w.c, &right), 0);
  assert_true(arb_client_get_controls(w.c).move_x == 1.0f);  // 127/127 quantizes exactly
  prev = x0;
  int increases = 0, frames = 0;
  double end = cu_now() + 1.5;
  while (cu_now() < end) {
    cu_pump(cs, 1, 0.016, NULL, NULL);
    float x = 0.0f;  // set by own_x (gcc cannot see that assert_true stops the test)
    assert_true(own_x(w.c, &x));
    if (x > prev) increases++;
    frames++;
    prev = x;
  }
  assert_true(own_x(w.c, &x1));
  print_message(
      "own avatar x %.3f -> %.3f after 1.5 s of 'right' (%d of %d frames moved right), input seq "
      "%u\n",
      x0, x1, increases, frames, arb_client_get_input_sequence(w.c));
  assert_true(x1 > x0 + 0.5f);
  assert_true(arb_client_get_input_sequence(w.c) > 60);  // ~60 inputs/s were sent
  arb_client_stats st;
  arb_client_get_stats(w.c, &st);
  assert_true(st.snapshots_received > 50);
  assert_int_equal((int)st.decode_errors, 0);
  arb_client_disconnect(w.c, "test over");
  arb_client_destroy(w.c);
  assert_int_equal(cu_stop(&s->srv, SIGTERM), 0);
}

// ---- headless: no interpolation history -------------------------------------------------

static bool has_latest(void* user) {
  arb_client_entity_state st[4];
  return arb_client_get_latest((arb_client*)user, st, 4) > 0;
}

// A client created with interpolate = false decodes and acknowledges snapshots (the server
// keeps sending deltas against what it acknowledged) and knows the entities, but keeps no
// history: arb_client_sample gives nothing, arb_client_get_latest the newest states.
static void test_client_live_headless_client(void** state) {
  live_server* s = *state;
  arb_client_config cfg = arb_client_default_config();
  cfg.host = "127.0.0.1";
  cfg.port = (uint16_t)s->port;
  cfg.name = "headless";
  cfg.interpolate = false;
  cfg.predict = false;
  arb_client* c = NULL;
  assert_int_equal(arb_client_create(&cfg, &c), 0);
  assert_int_equal(arb_client_connect(c), 0);
  arb_client* cs[1] = {c};
  assert_true(cu_pump(cs, 1, 5.0, has_latest, c));
  cu_pump(cs, 1, 1.0, NULL, NULL);
  static arb_client_entity_state st[4096];
  int latest = arb_client_get_latest(c, st, 4096);
  uint32_t me = arb_client_get_session(c)->avatar_entity;
  arb_client_entity_desc d;
  assert_int_equal(arb_client_get_entity(c, me, &d), 0);
  assert_int_equal(arb_client_sample(c, cu_now(), st, 4096), 0);
  arb_client_stats stats;
  arb_client_get_stats(c, &stats);
  print_message("headless client: %d entities in the newest snapshot, %llu snapshots\n", latest,
                (unsigned long long)stats.snapshots_received);
  assert_true(latest > 0);
  assert_true(stats.snapshots_received > 20);
  assert_int_equal((int)stats.decode_errors, 0);
  arb_client_disconnect(c, "test over");
  arb_client_destroy(c);
  assert_int_equal(cu_stop(&s->srv, SIGTERM), 0);
}

// ---- full server -----------------------------------------------------------------------

typedef struct three {
  cu_watched w[3];
} three;

static bool two_in_one_out(void* user) {
  three* t = (three*)user;
  int in = 0, out = 0;
  for (int i = 0; i < 3; i++) {
    cu_poll_events(&t->w[i]);
    in += t->w[i].connected;
    out += t->w[i].rejected;
  }
  return in == 2 && out == 1;
}

static void test_client_live_full_server_reason(void** state) {
  (void)state;
  const char* extra[] = {"--max-clients", "2", NULL};
  cu_proc srv;
  int port = cu_server_up(&srv, g_server, extra);
  three t;
  memset(&t, 0, sizeof t);
  arb_client* cs[3];
  for (int i = 0; i < 3; i++) {
    char name[32];
    snprintf(name, sizeof name, "full-%d", i);
    t.w[i].c = cs[i] = cu_client(port, name);
    assert_non_null(cs[i]);
    cu_pump(cs, i + 1, 0.3, NULL, NULL);  // in order: the third is the one too many
  }
  assert_true(cu_pump(cs, 3, 5.0, two_in_one_out, &t));
  assert_false(t.w[0].rejected || t.w[1].rejected);
  assert_true(t.w[2].rejected);
  print_message("rejected: code %d, '%s'\n", t.w[2].reject_code, t.w[2].reject_text);
  assert_int_equal(t.w[2].reject_code, 2);  // ARB_PROTO_REASON_FULL
  assert_non_null(strstr(t.w[2].reject_text, "full"));
  assert_int_equal(arb_client_get_state(cs[2]),
                   ARB_CLIENT_DISCONNECTED);  // no retry after a reject
  cu_pump(cs, 3, 0.5, NULL, NULL);
  assert_int_equal(arb_client_get_state(cs[2]), ARB_CLIENT_DISCONNECTED);

  // arbiter-bot reports the same and exits non-zero.
  int status = -1;
  json_t* j = cu_run_bot(g_bot, port, 1, 2.0, "idle", &status);
  assert_non_null(j);
  assert_int_equal(status, 1);
  assert_true(json_is_false(json_object_get(j, "ok")));
  assert_int_equal((int)cu_jnum(j, "rejected"), 1);
  const char* reason = json_string_value(
      json_object_get(json_array_get(json_object_get(j, "per_client"), 0), "reason"));
  assert_non_null(reason);
  assert_non_null(strstr(reason, "full"));
  json_decref(j);
  for (int i = 0; i < 3; i++) arb_client_destroy(cs[i]);
  assert_int_equal(cu_stop(&srv, SIGTERM), 0);
}

// ---- server restart --------------------------------------------------------------------

typedef struct group {
  arb_client** cs;
  int n;
  uint32_t min_connects;
  uint64_t snaps_at_least;
} group;

static bool all_back(void* user) {
  group* g = (group*)user;
  for (int i = 0; i < g->n; i++) {
    cu_discard_events(g->cs[i]);
    arb_client_stats st;
    arb_client_get_stats(g->cs[i], &st);
    if (arb_client_get_state(g->cs[i]) != ARB_CLIENT_CONNECTED || st.connects < g->min_connects ||
        st.snapshots_received < g->snaps_at_least)
      return false;
  }
  return true;
}

static void test_client_live_server_restart_reconnects(void** state) {
  live_server* s = *state;

  // arbiter-bot across a graceful restart (SIGTERM: the server says why it leaves).
  char portbuf[16];
  snprintf(portbuf, sizeof portbuf, "%d", s->port);
  char* argv[] = {(char*)g_bot, "--port", portbuf,       "--clients", "4",
                  "--duration", "7",      "--behaviour", "circle",    NULL};
  cu_proc bot;
  assert_int_equal(cu_spawn(&bot, "restart-bot", argv), 0);
  // Library clients too, for the hard kill below.
  arb_client* cs[3];
  for (int i = 0; i < 3; i++) {
    char name[32];
    snprintf(name, sizeof name, "lib-%d", i);
    cs[i] = cu_client(s->port, name);
    assert_non_null(cs[i]);
  }
  group g = {cs, 3, 1, 10};
  assert_true(cu_pump(cs, 3, 5.0, all_back, &g));
  cu_pump(cs, 3, 1.0, NULL, NULL);
  assert_int_equal(cu_stop(&s->srv, SIGTERM), 0);
  cu_pump(cs, 3, 0.5, NULL, NULL);
  int port2 = cu_server_start(&s->srv, g_server, s->port, NULL);
  assert_int_equal(port2, s->port);
  arb_client_stats st;
  arb_client_get_stats(cs[0], &st);
  g.min_connects = 2;
  g.snaps_at_least = st.snapshots_received + 10;
  assert_true(cu_pump(cs, 3, 8.0, all_back, &g));

  // The bot's summary: everyone reconnected and is connected at the end.
  int status = -1;
  while ((status = cu_wait(&bot, 0.01)) < 0 && bot.pid > 0) cu_pump(cs, 3, 0.05, NULL, NULL);
  assert_int_equal(status, 0);
  json_error_t jerr;
  json_t* j = json_load_file(bot.out, 0, &jerr);
  assert_non_null(j);
  print_message("bots after a graceful restart: reconnects %d, connected at end %d\n",
                (int)cu_jnum(j, "reconnects"), (int)cu_jnum(j, "connected_at_end"));
  assert_int_equal((int)cu_jnum(j, "connected_at_end"), 4);
  assert_true(cu_jnum(j, "reconnects") >= 4);
  json_decref(j);

  // kill -9: no goodbye; the clients notice the silence, back off and come back.
  assert_int_equal(cu_stop(&s->srv, SIGKILL), 128 + SIGKILL);
  cu_pump(cs, 3, 0.5, NULL, NULL);
  assert_int_equal(cu_server_start(&s->srv, g_server, s->port, NULL), s->port);
  arb_client_get_stats(cs[0], &st);
  g.min_connects = 3;
  g.snaps_at_least = st.snapshots_received + 10;
  double t0 = cu_now();
  assert_true(cu_pump(cs, 3, 15.0, all_back, &g));
  print_message("library clients back %.1f s after a kill -9 restart\n", cu_now() - t0);
  for (int i = 0; i < 3; i++) {
    arb_client_get_stats(cs[i], &st);
    assert_true(st.reconnects >= 2);
    arb_client_destroy(cs[i]);
  }
  assert_int_equal(cu_stop(&s->srv, SIGTERM), 0);
}

// ---- camera box --------------------------------------------------------------------------

typedef struct box_watch {
  arb_client** cs;          ///< spectator, player a, player b
  uint32_t want, unwanted;  ///< entity ids the spectator must know / must not know
  double settle_until;      ///< and not before then (old snapshots still arriving)
} box_watch;

static bool spectator_sees(void* user) {
  box_watch* w = (box_watch*)user;
  for (int i = 0; i < 3; i++) cu_discard_events(w->cs[i]);
  arb_client_entity_desc d;
  return cu_now() >= w->settle_until && arb_client_get_state(w->cs[0]) == ARB_CLIENT_CONNECTED &&
         arb_client_get_entity(w->cs[0], w->want, &d) == 0 &&
         arb_client_get_entity(w->cs[0], w->unwanted, &d) != 0;
}

static uint32_t avatar_id(arb_client* c) {
  return arb_client_get_session(c)->avatar_entity;
}

// Where player c's avatar is (its own newest snapshot), with a 2 m box around it.
static arb_vec2 avatar_at(arb_client* c, arb_vec2* lo, arb_vec2* hi) {
  arb_client_entity_state st[64];
  int n = arb_client_get_latest(c, st, 64);
  for (int i = 0; i < n && i < 64; i++) {
    if (st[i].id != avatar_id(c)) continue;
    *lo = arb_v2(st[i].position.x - 1.0f, st[i].position.y - 1.0f);
    *hi = arb_v2(st[i].position.x + 1.0f, st[i].position.y + 1.0f);
    return st[i].position;
  }
  fail_msg("avatar %u not in its own snapshot", avatar_id(c));
  return arb_v2(0.0f, 0.0f);
}

static void test_client_live_spectator_view_box(void** state) {
  (void)state;
  const char* extra[] = {"--view-radius", "1", NULL};
  cu_proc srv;
  int port = cu_server_up(&srv, g_server, extra);
  arb_client* cs[3];
  cs[1] = cu_client(port, "box-a");
  cs[2] = cu_client(port, "box-b");
  assert_non_null(cs[1]);
  assert_non_null(cs[2]);
  group g = {cs + 1, 2, 1, 5};
  assert_true(cu_pump(cs + 1, 2, 5.0, all_back, &g));
  arb_vec2 alo, ahi, blo, bhi;
  arb_vec2 pa = avatar_at(cs[1], &alo, &ahi), pb = avatar_at(cs[2], &blo, &bhi);
  assert_true(arb_distance_sq(pa, pb) > 3.0f * 3.0f);

  // Bad boxes are refused by the library; a good one set before connecting is sent after
  // the welcome.
  arb_client_config cfg = arb_client_default_config();
  cfg.host = "127.0.0.1";
  cfg.port = (uint16_t)port;
  cfg.name = "box-watcher";
  cfg.spectate = true;
  assert_int_equal(arb_client_create(&cfg, &cs[0]), 0);
  assert_int_equal(arb_client_set_view_box(cs[0], arb_v2(0.0f, 0.0f), arb_v2(1001.0f, 1.0f)),
                   ARB_E_RANGE);
  assert_int_equal(arb_client_set_view_box(cs[0], arb_v2(1.0f, 0.0f), arb_v2(0.0f, 1.0f)),
                   ARB_E_RANGE);
  assert_int_equal(arb_client_set_view_box(cs[0], arb_v2(NAN, 0.0f), arb_v2(0.0f, 1.0f)),
                   ARB_E_NONFINITE);
  assert_int_equal(arb_client_set_view_box(cs[0], alo, ahi), 0);
  assert_int_equal(arb_client_connect(cs[0]), 0);
  box_watch w = {cs, avatar_id(cs[1]), avatar_id(cs[2]), 0.0};
  assert_true(cu_pump(cs, 3, 5.0, spectator_sees, &w));

  // The box moves to b: a leaves the spectator's world.
  assert_int_equal(arb_client_set_view_box(cs[0], blo, bhi), 0);
  w = (box_watch){cs, avatar_id(cs[2]), avatar_id(cs[1]), cu_now() + 0.3};
  assert_true(cu_pump(cs, 3, 5.0, spectator_sees, &w));

  // A new connection: the box is sent again after the welcome.
  assert_int_equal(arb_client_disconnect(cs[0], "test"), 0);
  assert_int_equal(arb_client_connect(cs[0]), 0);
  w.settle_until = cu_now() + 0.5;
  assert_true(cu_pump(cs, 3, 5.0, spectator_sees, &w));
  arb_client_stats st;
  arb_client_get_stats(cs[0], &st);
  assert_true(st.connects >= 2);

  // Cleared: the whole world, both avatars.
  assert_int_equal(arb_client_clear_view_box(cs[0]), 0);
  arb_client_entity_desc d;
  double end = cu_now() + 5.0;
  while (cu_now() < end && arb_client_get_entity(cs[0], avatar_id(cs[1]), &d) != 0)
    cu_pump(cs, 3, 0.05, NULL, NULL);
  assert_int_equal(arb_client_get_entity(cs[0], avatar_id(cs[1]), &d), 0);
  assert_int_equal(arb_client_get_entity(cs[0], avatar_id(cs[2]), &d), 0);
  for (int i = 0; i < 3; i++) arb_client_destroy(cs[i]);
  assert_int_equal(cu_stop(&srv, SIGTERM), 0);
}

int main(int argc, char** argv) {
  if (!arb_test_args(argc, argv, "ARBITER-SERVER ARBITER-BOT", &g_server, &g_bot, NULL)) return 2;
  signal(SIGPIPE, SIG_IGN);
  return ARB_RUN_TESTS(
      NULL, cu_group_teardown, SERVER_TEST(test_client_live_bots_receive_snapshots),
      SERVER_TEST(test_client_live_bots_no_interp), SERVER_TEST(test_client_live_input_rate),
      SERVER_TEST(test_client_live_right_moves_own_avatar),
      SERVER_TEST(test_client_live_headless_client),
      cmocka_unit_test_teardown(test_client_live_spectator_view_box, cu_teardown),
      cmocka_unit_test_teardown(test_client_live_full_server_reason, cu_teardown),
      SERVER_TEST(test_client_live_server_restart_reconnects));
}
