// 16 clients at once are all welcomed and all receive snapshots; on a 64-slot server the
// 65th client is rejected with "server full" while the others keep playing.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_server_common.h"

#define SLOTS 64

static void test_server_capacity_16_clients_then_full(void** state) {
  (void)state;
  tc_server s;
  // Every test client shares 127.0.0.1: lift the per-address limits (tested elsewhere).
  START_SERVER(&s, "--max-clients", "64", "--peers-per-address", "128", "--connect-rate", "1000");
  tc_client* cs[SLOTS + 1];
  for (int i = 0; i <= SLOTS; ++i) assert_non_null(cs[i] = tc_create());

  // 16 at once.
  connect_all(cs, 16, (uint16_t)s.port, "cap");
  uint64_t before[16];
  for (int i = 0; i < 16; ++i) before[i] = cs[i]->snapshots_complete;
  drive(cs, 16, NULL, 1000);
  for (int i = 0; i < 16; ++i) {
    uint64_t got = cs[i]->snapshots_complete - before[i];
    if (got < 20) print_error("client %d: %llu snapshots in 1 s\n", i, (unsigned long long)got);
    assert_true(got >= 20);  // 30/s configured; loose bound, rates are checked elsewhere
    assert_int_equal(cs[i]->snapshot_errors, 0);
  }
  // Distinct ids for everyone.
  for (int i = 0; i < 16; ++i)
    for (int j = i + 1; j < 16; ++j)
      assert_int_not_equal(cs[i]->welcome.entity_id, cs[j]->welcome.entity_id);

  // Fill the remaining 48 slots, then one more.
  connect_all(cs + 16, SLOTS - 16, (uint16_t)s.port, "fill");
  assert_int_equal(tc_start(cs[SLOTS], (uint16_t)s.port, "one-too-many", ARB_PROTO_VERSION), 0);
  tc_wait_settled(cs + SLOTS, 1, 5000);
  tc_pump(cs + SLOTS, 1, 200);
  assert_int_equal(cs[SLOTS]->state, TC_REJECTED);
  assert_int_equal(cs[SLOTS]->reject.reason, ARB_PROTO_REASON_FULL);
  assert_string_equal(cs[SLOTS]->reject.text, "server full");

  // Everybody else is still served.
  uint64_t snaps[SLOTS];
  for (int i = 0; i < SLOTS; ++i) snaps[i] = cs[i]->snapshots_complete;
  drive(cs, SLOTS, NULL, 2000);
  for (int i = 0; i < SLOTS; ++i) {
    if (cs[i]->state != TC_WELCOMED || cs[i]->snapshots_complete <= snaps[i])
      print_error("client %d: state %d, %llu snapshots (%llu before), %llu packets, %llu errors\n",
                  i, (int)cs[i]->state, (unsigned long long)cs[i]->snapshots_complete,
                  (unsigned long long)snaps[i], (unsigned long long)cs[i]->snapshot_packets,
                  (unsigned long long)cs[i]->snapshot_errors);
  }
  for (int i = 0; i < SLOTS; ++i) {
    assert_int_equal(cs[i]->state, TC_WELCOMED);
    assert_true(cs[i]->snapshots_complete > snaps[i]);
  }

  char* metrics = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &metrics), 200);
  assert_true(tc_metric(metrics, "arbiter_clients_connected") == 64.0);
  assert_true(tc_metric(metrics, "arbiter_clients_rejected_total") >= 1.0);
  free(metrics);

  close_all(cs, SLOTS + 1);
  stop_server(&s);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_capacity_16_clients_then_full))
