// Rejoin (PROTOCOL.md §4.6): a client whose connection is lost without a goodbye comes
// back with the rejoin token from its welcome and gets the same client id and avatar,
// while the others never see it leave; each token works once; after the rejoin window
// the avatar leaves and the old token gets a new avatar (open server). Only a session that
// played (inputs applied for 2 s) is held.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_server_common.h"

// Join and wait for the rejoin token that follows the welcome.
static tc_client* join(uint16_t port, const char* name, const char* token) {
  tc_client* c = tc_create();
  if (token) snprintf(c->token, sizeof c->token, "%s", token);
  assert_int_equal(tc_start(c, port, name, ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&c, 1, 5000), 1);
  uint64_t end = tc_now_ms() + 2000;
  while (c->rejoin_token[0] == '\0' && tc_now_ms() < end) tc_service(c, 5);
  assert_true(strncmp(c->rejoin_token, "rj1.", 4) == 0);
  return c;
}

// The connection dies without a word: the host is destroyed, nothing is sent.
static void lose(tc_client* c) {
  tc_destroy(c);
}

// The start both tests share: a server that holds a lost avatar for `window_ms`, a
// "watcher" and "ada" joined, then ada's connection dies.
typedef struct lost_ada {
  tc_server s;
  uint16_t port;
  tc_client* watcher;
  uint32_t client_id, entity_id;  ///< ada's
  char token[ARB_PROTO_MAX_TEXT + 1];
} lost_ada;

static void start_and_lose_ada(lost_ada* t, const char* window_ms) {
  const char* extra[] = {"--peer-timeout-ms", "500", "--rejoin-window-ms", window_ms, NULL};
  start_server(&t->s, extra);
  t->port = (uint16_t)t->s.port;
  t->watcher = join(t->port, "watcher", NULL);
  tc_client* a = join(t->port, "ada", NULL);
  // A session is held for a rejoin only once it has played 2 s (SV_REJOIN_MIN_PLAY_MS).
  tc_client* both[2] = {t->watcher, a};
  drive(both, 2, NULL, 3000);
  t->client_id = a->welcome.client_id;
  t->entity_id = a->welcome.entity_id;
  snprintf(t->token, sizeof t->token, "%s", a->rejoin_token);
  lose(a);
}

// The watcher leaves and the server stops cleanly.
static void finish(lost_ada* t) {
  tc_close(t->watcher);
  tc_destroy(t->watcher);
  assert_int_equal(tc_server_stop(&t->s, SIGTERM, 5000), 0);
  unlink(t->s.log_path);
}

static void test_server_rejoin_same_avatar(void** state) {
  (void)state;
  lost_ada t;
  start_and_lose_ada(&t, "3000");
  uint16_t port = t.port;
  const char* token = t.token;
  uint32_t client_id = t.client_id, entity_id = t.entity_id;
  drive(&t.watcher, 1, NULL, 1000);  // the server notices the silence (500 ms) and holds the avatar

  tc_client* back = join(port, "ada-again", token);
  print_message("rejoined: client %u entity %u (was %u, %u)\n", back->welcome.client_id,
                back->welcome.entity_id, client_id, entity_id);
  assert_int_equal(back->welcome.client_id, client_id);
  assert_int_equal(back->welcome.entity_id, entity_id);
  assert_string_not_equal(back->rejoin_token, token);  // a fresh token for the next loss
  drive(&t.watcher, 1, NULL, 300);
  assert_int_equal(t.watcher->left_events, 0);  // nobody saw ada leave
  // The avatar is in the rejoined client's snapshots.
  drive(&back, 1, NULL, 300);
  arb_snapshot_state st;
  assert_true(tc_entity(back, entity_id, &st));

  // The used token is worth nothing now: a new client, a new avatar.
  tc_client* reuse = join(port, "reuse", token);
  assert_int_not_equal(reuse->welcome.client_id, client_id);
  assert_int_not_equal(reuse->welcome.entity_id, entity_id);

  EXPECT_METRICS(&t.s, {"arbiter_rejoins_total", 1}, {"arbiter_clients_connected", 3});
  tc_close(back);
  tc_destroy(back);
  tc_close(reuse);
  tc_destroy(reuse);
  finish(&t);
}

static void test_server_rejoin_window_expires(void** state) {
  (void)state;
  lost_ada t;
  start_and_lose_ada(&t, "1000");
  uint16_t port = t.port;
  drive(&t.watcher, 1, NULL, 2500);  // silence 0.5 s + window 1 s + margin
  assert_int_equal(t.watcher->left_events, 1);
  tc_client* late = join(port, "late", t.token);
  assert_int_not_equal(late->welcome.entity_id, t.entity_id);
  tc_close(late);
  tc_destroy(late);
  // A client that says goodbye leaves at once (no hold).
  tc_client* b = join(port, "polite", NULL);
  tc_close(b);
  tc_destroy(b);
  drive(&t.watcher, 1, NULL, 300);
  assert_int_equal(t.watcher->left_events, 3);
  // A client lost before it played 2 s is not held: it leaves once its silence is noticed
  // (500 ms), not after the window.
  tc_client* brief = join(port, "brief", NULL);
  lose(brief);
  drive(&t.watcher, 1, NULL, 900);
  assert_int_equal(t.watcher->left_events, 4);
  EXPECT_METRICS(&t.s, {"arbiter_rejoins_pending", 0}, {"arbiter_rejoin_holds_skipped_total", 1});
  finish(&t);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_rejoin_same_avatar),
                 cmocka_unit_test(test_server_rejoin_window_expires))
