// Shared bits of the server integration tests: the server path from argv, a cmocka main
// that passes it on (with ENet up for the whole program), and client and server set-up
// and tear-down.
#pragma once

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
