// 8 bots for 10 s through arbiter-netem at 10 % loss, 60 +- 20 ms one-way latency, 2 %
// duplication and 2 % reordering (both directions, seeded): every bot connects and stays
// connected (no connection lost once welcomed), the bots receive >= 85 % of the
// snapshots the server's rate promises (counted from each bot's first snapshot), and the
// interpolated positions it samples every frame stay continuous (arbiter-bot counts a
// discontinuity when an entity moves further between two frames than twice what its
// sampled velocity explains plus 10 cm, and its own predicted avatar also by the fade of
// its drawn correction; we require none; frames longer than a snapshot interval, as a
// starved sanitizer build samples, are not checked: they can skip a whole segment).
// argv: arbiter-server arbiter-bot arbiter-netem
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_client_util.h"

static const char* g_server;
static const char* g_bot;
static const char* g_netem;

static double jnum(const json_t* o, const char* key) {
  const json_t* v = json_object_get(o, key);
  assert_non_null(v);
  return json_number_value(v);
}

static void test_client_netem_bots_survive_bad_network(void** state) {
  (void)state;
  cu_proc srv, net;
  // The server configured for a lossy network: its default peer timeout (3 s; ENet gives
  // up after 1.5-3 s without an acknowledgement of one reliable command) drops a client
  // about once in ten 8-client runs at 10 % loss each way (five retransmissions in a row
  // lost, 19 % per round trip), which would test the server's setting, not the client.
  const char* lossy[] = {"--peer-timeout-ms", "10000", NULL};
  int port = cu_server_up(&srv, g_server, lossy);
  const char* impair[] = {"--loss", "10",        "--latency", "60",     "--jitter", "20", "--dup",
                          "2",      "--reorder", "2",         "--seed", "11",       NULL};
  int nport = cu_netem_start(&net, g_netem, port, impair);
  assert_true(nport > 0);

  int status = -1;
  json_t* j = cu_run_bot(g_bot, nport, 8, 10.0, "circle", &status);
  assert_int_equal(cu_stop(&net, SIGTERM), 0);
  assert_int_equal(cu_stop(&srv, SIGTERM), 0);
  assert_non_null(j);

  // The proxy really impaired the traffic.
  // stdout: the "listening on ..." line, then the JSON summary.
  json_error_t jerr;
  FILE* f = fopen(net.out, "r");
  assert_non_null(f);
  char line[512];
  assert_non_null(fgets(line, sizeof line, f));
  json_t* n = json_loadf(f, 0, &jerr);
  fclose(f);
  assert_non_null(n);
  json_t* down = json_object_get(n, "down");
  print_message("netem down: in %.0f lost %.0f duplicated %.0f reordered %.0f\n",
                jnum(down, "packets_in"), jnum(down, "lost"), jnum(down, "duplicated"),
                jnum(down, "reordered"));
  assert_true(jnum(down, "lost") > 0.05 * jnum(down, "packets_in"));
  assert_true(jnum(down, "duplicated") > 0 && jnum(down, "reordered") > 0);
  assert_true(jnum(json_object_get(n, "up"), "lost") > 0);
  json_decref(n);

  print_message(
      "through netem: ok %d, snapshot ratio %.4f, reconnects %.0f (drops %.0f), discontinuities "
      "%.0f of %.0f samples "
      "(worst step ratio %.3f; %.0f of %.0f frames too long to check), rtt p50 %.1f ms\n",
      json_is_true(json_object_get(j, "ok")), jnum(j, "snapshot_ratio"), jnum(j, "reconnects"),
      jnum(j, "drops"), jnum(j, "discontinuities"), jnum(j, "continuity_samples"),
      jnum(j, "worst_step_ratio"), jnum(j, "long_frames"), jnum(j, "frames"),
      jnum(j, "rtt_ms_p50"));
  assert_int_equal(status, 0);
  assert_int_equal((int)jnum(j, "ever_connected"), 8);
  assert_int_equal((int)jnum(j, "connected_at_end"), 8);
  // Stay connected: no connection lost after its welcome. (A handshake that loses too
  // many packets may be retried; that is connect_failures, reported, not a drop.)
  assert_int_equal((int)jnum(j, "drops"), 0);
  // >= 85 % of the snapshots over all bots; every single bot >= 80 % (10 s at 30/s is
  // ~290 snapshots per bot: one bot's share varies by about 2 % from run to run).
  assert_true(jnum(j, "snapshot_ratio") >= 0.85);
  json_t* per = json_object_get(j, "per_client");
  assert_int_equal((int)json_array_size(per), 8);
  for (size_t i = 0; i < json_array_size(per); i++) {
    json_t* c = json_array_get(per, i);
    print_message("  bot %zu: %.0f of %.0f snapshots (%.1f %%), lost %.0f, connected %.1f s\n", i,
                  jnum(c, "snapshots"), jnum(c, "expected"),
                  100.0 * jnum(c, "snapshots") / jnum(c, "expected"), jnum(c, "lost"),
                  jnum(c, "connected_s"));
  }
  for (size_t i = 0; i < json_array_size(per); i++) {
    json_t* c = json_array_get(per, i);
    assert_true(jnum(c, "expected") >= 4.0 * 30.0);
    assert_true(jnum(c, "snapshots") >= 0.80 * jnum(c, "expected"));
  }
  // Continuity: thousands of entity-frames checked, none jumped but for the predicted
  // avatars' snaps (a misprediction over predict_snap_distance, counted by the library:
  // two players running into each other at full speed behind 120 ms can do that).
  assert_true(jnum(j, "continuity_samples") > 8 * 300.0);
  json_t* pred = json_object_get(j, "prediction");
  print_message(
      "prediction: predicting %.0f, checks %.0f, corrections %.0f, snaps %.0f, error p95 %.4f m\n",
      jnum(pred, "predicting_at_end"), jnum(pred, "checks"), jnum(pred, "corrections"),
      jnum(pred, "snaps"), jnum(pred, "error_m_p95"));
  assert_int_equal((int)jnum(pred, "predicting_at_end"), 8);
  assert_true(jnum(j, "discontinuities") <= jnum(pred, "snaps"));
  assert_true(jnum(j, "rtt_ms_p50") > 80.0);  // the 2 x 60 ms really applied
  json_decref(j);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s ARBITER-SERVER ARBITER-BOT ARBITER-NETEM\n", argv[0]);
    return 2;
  }
  g_server = argv[1];
  g_bot = argv[2];
  g_netem = argv[3];
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_client_netem_bots_survive_bad_network, cu_teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  cu_cleanup();
  return rc;
}
