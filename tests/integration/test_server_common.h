// Shared bits of the server integration tests: the server path from argv, a cmocka main
// that passes it on (with ENet up for the whole program), and client and server set-up
// and tear-down.
#pragma once

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../common/enet_group.h"
#include "../common/test_main.h"
#include "testclient.h"

static const char* g_server_exe;

#define SERVER_TEST_MAIN(...)                                                                \
  int main(int argc, char** argv) {                                                          \
    if (!arb_test_args(argc, argv, "PATH-TO-arbiter-server", &g_server_exe, NULL)) return 2; \
    if (getenv("ARB_TEST_FILTER")) cmocka_set_test_filter(getenv("ARB_TEST_FILTER"));        \
    return ARB_RUN_TESTS(enet_group_setup, enet_group_teardown, __VA_ARGS__);                \
  }

/// Start clients 0..n-1 named prefix-i and wait until all are welcomed (or fail the test).
static inline void connect_all(tc_client** cs, int n, uint16_t port, const char* prefix) {
  for (int i = 0; i < n; ++i) {
    char name[32];
    snprintf(name, sizeof name, "%s-%d", prefix, i);
    assert_int_equal(tc_start(cs[i], port, name, ARB_PROTO_VERSION), 0);
  }
  int welcomed = tc_wait_settled(cs, n, 10000);
  assert_int_equal(welcomed, n);
}

/// Close and free clients 0..n-1 (the counterpart of tc_create + connect_all).
static inline void close_all(tc_client** cs, int n) {
  for (int i = 0; i < n; ++i) {
    tc_close(cs[i]);
    tc_destroy(cs[i]);
  }
}

/// Start the server under test with these command-line options (NULL terminated; NULL: its
/// defaults), or fail the test. stop_server is its counterpart.
static inline void start_server(tc_server* s, const char* const* extra) {
  assert_int_equal(tc_server_start(s, g_server_exe, extra), 0);
}

/// start_server with the options listed: START_SERVER(&s, "--view-radius", "4").
#define START_SERVER(s, ...) start_server((s), (const char* const[]){__VA_ARGS__, NULL})

/// Stop the server with SIGTERM, expecting a clean exit within 5 s, and remove its log.
static inline void stop_server(tc_server* s) {
  assert_int_equal(tc_server_stop(s, SIGTERM, 5000), 0);
  unlink(s->log_path);
}

/// Pump clients for duration_ms, each sending an input every 1/60 s (controls[i] or zero).
static inline void drive(tc_client** cs, int n, const arb_controls* controls, int duration_ms) {
  uint64_t end = tc_now_ms() + (uint64_t)duration_ms;
  uint64_t next_input = 0;
  arb_controls zero;
  memset(&zero, 0, sizeof zero);
  while (tc_now_ms() < end) {
    uint64_t now = tc_now_ms();
    if (now >= next_input) {
      for (int i = 0; i < n; ++i)
        if (cs[i]->state == TC_WELCOMED) tc_send_input(cs[i], controls ? &controls[i] : &zero);
      next_input = now + 16;
    }
    for (int i = 0; i < n; ++i) tc_service(cs[i], 0);
    tc_sleep_ms(1);
  }
}

/// Two clients' avatars after they settled, and the controls that walk one of them away
/// from the other while the other stands still.
typedef struct walk_away {
  float x[2];           ///< settled x of cs[0]'s and cs[1]'s avatar
  arb_controls ctl[2];  ///< for drive(cs, 2, ctl, ...)
} walk_away;

/// Lets the two welcomed clients' avatars fall and settle (1.5 s without input), checks
/// that cs[walker] sees both avatars and the other client sees the walker's, and returns
/// their positions with controls that move cs[walker] away from the other avatar.
static inline walk_away settle_then_walk_away(tc_client** cs, int walker) {
  tc_client *w = cs[walker], *other = cs[1 - walker];
  drive(cs, 2, NULL, 1500);
  arb_snapshot_state w0, o0;
  assert_true(tc_entity(w, w->welcome.entity_id, &w0));
  assert_true(tc_entity(w, other->welcome.entity_id, &o0));
  assert_true(tc_entity(other, w->welcome.entity_id, &w0));
  walk_away r;
  memset(&r, 0, sizeof r);
  r.x[walker] = arb_proto_dequantize_pos(w0.x);
  r.x[1 - walker] = arb_proto_dequantize_pos(o0.x);
  r.ctl[walker].move_x = r.x[walker] < r.x[1 - walker] ? -1.0f : 1.0f;
  return r;
}

/// The value of one sample of the server's /metrics page now (`name` may include labels;
/// NaN if the page has no such sample). Fails the test if the page cannot be read.
static inline double server_metric(const tc_server* s, const char* name) {
  char* body = NULL;
  assert_int_equal(tc_http_get(s->http_port, "/metrics", &body), 200);
  double v = tc_metric(body, name);
  free(body);
  return v;
}

/// A sample of /metrics and the exact value a test expects of it.
typedef struct metric_want {
  const char* name;
  double value;
} metric_want;

/// Fails unless one reading of /metrics shows every listed sample at exactly its value,
/// naming each one that differs: EXPECT_METRICS(&s, {"arbiter_rejoins_total", 1}, ...).
#define EXPECT_METRICS(s, ...)                            \
  expect_metrics((s), (const metric_want[]){__VA_ARGS__}, \
                 sizeof((const metric_want[]){__VA_ARGS__}) / sizeof(metric_want))
static inline void expect_metrics(const tc_server* s, const metric_want* want, size_t n) {
  char* body = NULL;
  assert_int_equal(tc_http_get(s->http_port, "/metrics", &body), 200);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    double got = tc_metric(body, want[i].name);
    if (got == want[i].value) continue;
    print_error("%s is %g, expected %g\n", want[i].name, got, want[i].value);
    wrong++;
  }
  free(body);
  assert_int_equal(wrong, 0);
}
