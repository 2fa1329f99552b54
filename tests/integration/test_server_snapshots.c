// A client connects, is welcomed, receives snapshots at the configured rate (±10 % over
// 5 s on loopback), and its input moves its own avatar and no other; the scene message
// reaches the client that did not ask for none. With --view-radius
// it sees only what is near its avatar.
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_server_common.h"

static void test_server_snapshots_rate_and_own_avatar(void** state) {
  (void)state;
  tc_server s;
  START_SERVER(&s, "--snapshot-rate", "30");
  tc_client* cs[2] = {tc_create(), tc_create()};
  cs[1]->hello_flags = ARB_PROTO_HELLO_NO_SCENE;  // b does not predict: no scene message
  connect_all(cs, 2, (uint16_t)s.port, "snap");
  tc_client *a = cs[0], *b = cs[1];
  assert_int_equal(a->welcome.tick_rate, 60);
  assert_int_equal(a->welcome.snapshot_rate, 30);
  assert_true(a->welcome.static_count > 0);
  assert_int_not_equal(a->welcome.entity_id, b->welcome.entity_id);
  assert_int_not_equal(a->welcome.client_id, b->welcome.client_id);

  // The avatars settle, then A walks away from B (towards the open side), B stays still;
  // 5 s measured.
  walk_away walk = settle_then_walk_away(cs, 0);
  float ax = walk.x[0], bx = walk.x[1];
  const arb_controls* ctl = walk.ctl;
  uint64_t snaps0 = a->snapshots_complete;
  uint32_t tick0 = a->latest_tick;
  uint64_t t0 = tc_now_ms();
  drive(cs, 2, ctl, 5000);
  double secs = (double)(tc_now_ms() - t0) / 1000.0;
  double rate = (double)(a->snapshots_complete - snaps0) / secs;
  double tick_span = (double)(a->latest_tick - tick0) / 2.0 / secs;  // K = 2 ticks per snapshot
  print_message("snapshots: %.1f/s complete (%.1f/s by tick span), %llu errors, %llu bytes\n", rate,
                tick_span, (unsigned long long)a->snapshot_errors,
                (unsigned long long)a->snapshot_bytes);
  assert_true(rate >= 27.0 && rate <= 33.0);
  // Each client's snapshots come every K = 2 ticks (on its phase, docs/SERVER.md).
  assert_int_equal((a->latest_tick - tick0) % 2, 0);
  // The scene message went to a only (b's hello asked for none).
  assert_int_equal(a->scenes_received, 1);
  assert_int_equal(b->scenes_received, 0);
  assert_true(b->snapshots_complete > 100);
  assert_true(a->last_input_seq_acked > 0);

  arb_snapshot_state a1, b1;
  assert_true(tc_entity(b, a->welcome.entity_id, &a1));  // seen from the other client
  assert_true(tc_entity(b, b->welcome.entity_id, &b1));
  float dxa = arb_proto_dequantize_pos(a1.x) - ax;
  float dxb = arb_proto_dequantize_pos(b1.x) - bx;
  print_message("avatar A moved %.3f m, B moved %.3f m\n", dxa, dxb);
  assert_true(fabsf(dxa) > 0.5f);
  assert_true((dxa > 0) == (ctl[0].move_x > 0));
  assert_true(fabsf(dxb) < 0.05f);

  close_all(cs, 2);
  stop_server(&s);
}

// --view-radius: a client sees its own avatar and only entities within the radius.
// The same server runs with --tick-rate 30 (overriding the scene's 60), as welcomed.
static void test_server_snapshots_view_radius(void** state) {
  (void)state;
  tc_server s;
  START_SERVER(&s, "--view-radius", "4", "--tick-rate", "30");
  tc_client* cs[1] = {tc_create()};
  connect_all(cs, 1, (uint16_t)s.port, "radius");
  tc_client* c = cs[0];
  assert_int_equal(c->welcome.tick_rate, 30);
  drive(cs, 1, NULL, 1500);
  arb_snapshot_state me;
  assert_true(tc_entity(c, c->welcome.entity_id, &me));
  const arb_snapshot_set* view = &c->ring[c->latest_slot];
  float mx = arb_proto_dequantize_pos(me.x), my = arb_proto_dequantize_pos(me.y);
  for (int i = 0; i < view->count; ++i) {
    arb_snapshot_state e;
    assert_true(tc_entity(c, view->items[i].id, &e));
    float dx = arb_proto_dequantize_pos(e.x) - mx;
    float dy = arb_proto_dequantize_pos(e.y) - my;
    assert_true(dx * dx + dy * dy <= 4.05f * 4.05f);
  }
  // The built-in scene has 21 dynamic bodies spread over 40 m: most are out of view.
  print_message("%d entities within 4 m\n", view->count);
  assert_true(view->count >= 1 && view->count < 10);
  tc_close(c);
  tc_destroy(c);
  stop_server(&s);
}

/* The round trip the server holds for a client, read from /admin/sessions. */
static int server_rtt(const tc_server* s, const char* token) {
  char req[256];
  int n = snprintf(req, sizeof req,
                   "GET /admin/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                   "%s\r\nConnection: close\r\n\r\n",
                   token);
  static char out[65536];
  assert_true(tc_http_raw(s->http_port, req, (size_t)n, 3000, out, sizeof out) > 0);
  const char* at = strstr(out, "\"rtt_ms\":");
  assert_non_null(at);
  return atoi(at + strlen("\"rtt_ms\":"));
}

// The round trip the server holds for a client (the snapshot rate control's delay
// signal) keeps being measured while the client plays: ENet pings only a peer it has not
// heard from, so a client sending inputs every tick kept the estimate its join left. Here
// the client answers every 120 ms for a while (as a slow link would) and the estimate
// must follow.
static void test_server_snapshots_round_trip_measured(void** state) {
  (void)state;
  const char* token = "rtt-admin-token-0123456789abcdef0123";
  char token_path[128];
  snprintf(token_path, sizeof token_path, "/tmp/arbiter-test-rtt-%d.token", (int)getpid());
  FILE* f = fopen(token_path, "w");
  assert_non_null(f);
  fprintf(f, "%s\n", token);
  fclose(f);
  tc_server s;
  START_SERVER(&s, "--admin-token", token_path);
  tc_client* cs[1] = {tc_create()};
  cs[0]->hello_flags = ARB_PROTO_HELLO_NO_SCENE;
  connect_all(cs, 1, (uint16_t)s.port, "rtt");
  drive(cs, 1, NULL, 2000);
  int fast = server_rtt(&s, token);
  arb_controls zero;
  memset(&zero, 0, sizeof zero);
  for (uint64_t end = tc_now_ms() + 6000; tc_now_ms() < end;) {
    tc_send_input(cs[0], &zero);
    tc_service(cs[0], 0);
    tc_sleep_ms(120);
  }
  int slow = server_rtt(&s, token);
  print_message("round trip the server holds: %d ms, then %d ms answering every 120 ms\n", fast,
                slow);
  assert_true(fast < 60);
  assert_true(slow >= 30);
  tc_close(cs[0]);
  tc_destroy(cs[0]);
  stop_server(&s);
  unlink(token_path);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_snapshots_rate_and_own_avatar),
                 cmocka_unit_test(test_server_snapshots_view_radius),
                 cmocka_unit_test(test_server_snapshots_round_trip_measured))
