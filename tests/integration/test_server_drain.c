// A drain as the players see it: SIGUSR1 -> every player gets a NOTICE that the server is
// draining, a new player gets reject SHUTDOWN, the match goes on until --drain-timeout,
// then a NOTICE "match over (drain_timeout)" and the DISCONNECT shutdown; exit 0 and the
// replay log is closed with its end record.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_server_common.h"

static void test_server_drain_tells_the_players(void** state) {
  (void)state;
  char path[128];
  snprintf(path, sizeof path, "/tmp/arbiter-test-drain-%d.arbrec", (int)getpid());
  tc_server s;
  START_SERVER(&s, "--record", path, "--drain-timeout", "1");
  tc_client* cs[2] = {tc_create(), tc_create()};
  connect_all(cs, 2, (uint16_t)s.port, "drain");
  drive(cs, 2, NULL, 300);

  kill(s.pid, SIGUSR1);
  drive(cs, 2, NULL, 400);
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(cs[i]->state, TC_WELCOMED);  // the match goes on
    assert_int_equal(cs[i]->last_notice.kind, ARB_PROTO_EVENT_NOTICE);
    assert_non_null(strstr(cs[i]->last_notice.text, "draining"));
  }
  tc_client* late = tc_create();
  assert_int_equal(tc_start(late, (uint16_t)s.port, "late", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&late, 1, 5000), 0);
  assert_int_equal(late->state, TC_REJECTED);
  assert_int_equal(late->reject.reason, ARB_PROTO_REASON_SHUTDOWN);
  assert_non_null(strstr(late->reject.text, "draining"));

  // The drain timeout (1 s) ends the match with players still in it.
  uint64_t end = tc_now_ms() + 5000;
  while (tc_now_ms() < end && cs[0]->disconnect_event.kind == 0) drive(cs, 2, NULL, 50);
  for (int i = 0; i < 2; ++i) {
    tc_pump(&cs[i], 1, 100);
    assert_int_equal(cs[i]->disconnect_event.code, ARB_PROTO_REASON_SHUTDOWN);
    assert_non_null(strstr(cs[i]->last_notice.text, "match over (drain_timeout)"));
  }
  assert_int_equal(tc_server_stop(&s, 0, 5000), 0);
  char value[64];
  assert_true(tc_log_find(s.log_path, "match_over", "why", value, sizeof value));
  assert_string_equal(value, "drain_timeout");
  assert_true(tc_log_find(s.log_path, "recording_closed", "path", value, sizeof value));

  tc_close(late);
  tc_destroy(late);
  close_all(cs, 2);
  unlink(path);
  unlink(s.log_path);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_drain_tells_the_players))
