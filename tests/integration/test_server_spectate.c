// Spectators (PROTOCOL.md §4.1.1): a hello with avatar kind 255 is welcomed without an
// avatar, sees every player's avatar in its snapshots, controls nothing, has its own cap
// (--max-spectators) and never appears in the replay log. With a view radius, a
// spectator that reports a camera box (`view`, §4.10) gets what lies in the box, and
// follows the box when it moves; a bad box is a malformed message.
#include <arbiter/game.h>
#include <arbiter/replay_inputs.h>
#include <arbiter/scene.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_file.h"
#include "test_server_common.h"

#define ADMIN_TOKEN "spectate-admin-token-0123456789abcdef"

static tc_client* connect_one(uint16_t port, const char* name, uint8_t avatar_kind) {
  tc_client* c = tc_create();
  c->avatar_kind = avatar_kind;
  assert_int_equal(tc_start(c, port, name, ARB_PROTO_VERSION), 0);
  tc_wait_settled(&c, 1, 10000);
  return c;
}

// GET /admin/sessions with the operator token; the answer (headers and body) into out.
static void admin_sessions(int http_port, char* out, size_t cap) {
  const char req[] =
      "GET /admin/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " ADMIN_TOKEN
      "\r\nConnection: close\r\n\r\n";
  assert_true(tc_http_raw(http_port, req, sizeof req - 1, 3000, out, cap) > 0);
  assert_non_null(strstr(out, " 200 "));
}

static void send_view(tc_client* c, bool active, arb_vec2 min, arb_vec2 max);

// The log re-simulated offline: every tick's hash matches; returns the joins, and counts
// the inputs recorded for `client`.
static uint64_t replay_joins(const char* path, uint32_t client, uint64_t* client_inputs) {
  replay_file rf;
  replay_file_open(&rf, path);
  arb_game* game = rf.game;
  arb_proto_error err;
  static arb_replay_tick t;
  static arb_replay_inputs desc;
  arb_replay_record rec;
  uint64_t joins = 0, ticks = 0, mismatches = 0;
  *client_inputs = 0;
  while (arb_replay_reader_next(&rf.reader, &rec) == 1) {
    if (rec.kind != ARB_REPLAY_TICK) continue;
    assert_int_equal(arb_replay_decode_tick(&rec, &t, &err), 0);
    arb_replay_inputs_from_tick(&t, &desc);
    assert_int_equal(arb_game_apply_tick(game, &desc.inputs), 0);
    if (arb_game_hash(game) != t.world_hash) mismatches++;
    joins += (uint64_t)t.join_count;
    for (int i = 0; i < t.input_count; ++i) *client_inputs += t.inputs[i].client_id == client;
    for (int i = 0; i < t.join_count; ++i) assert_int_not_equal(t.joins[i].client_id, client);
    ticks++;
  }
  print_message("replayed %llu ticks, %llu joins, %llu hash mismatches\n",
                (unsigned long long)ticks, (unsigned long long)joins,
                (unsigned long long)mismatches);
  assert_int_equal(rf.reader.stop, ARB_REPLAY_STOP_CLEAN);
  assert_true(ticks > 0);
  assert_int_equal(mismatches, 0);
  replay_file_close(&rf);
  return joins;
}

static void test_server_spectator_watches_without_playing(void** state) {
  (void)state;
  char path[128], token_path[128];
  snprintf(path, sizeof path, "/tmp/arbiter-test-spectate-%d.arbrec", (int)getpid());
  snprintf(token_path, sizeof token_path, "/tmp/arbiter-test-spectate-%d.token", (int)getpid());
  FILE* f = fopen(token_path, "w");
  assert_non_null(f);
  fputs(ADMIN_TOKEN "\n", f);
  fclose(f);
  tc_server s;
  START_SERVER(&s, "--record", path, "--max-clients", "2", "--max-spectators", "1", "--admin-token",
               token_path);
  uint16_t port = (uint16_t)s.port;

  tc_client* cs[3];
  cs[0] = connect_one(port, "watcher", ARB_PROTO_SPECTATOR);
  assert_int_equal(cs[0]->state, TC_WELCOMED);
  assert_true(cs[0]->welcome.client_id > 0);
  assert_int_equal(cs[0]->welcome.entity_id, 0);
  cs[1] = connect_one(port, "ada", ARB_AVATAR_DEFAULT);
  cs[2] = connect_one(port, "bob", ARB_AVATAR_DEFAULT);
  assert_int_equal(cs[1]->state,
                   TC_WELCOMED);  // both player slots were free: the spectator took none
  assert_int_equal(cs[2]->state, TC_WELCOMED);

  // The players stand still; the spectator pushes hard, and nothing of it is applied.
  arb_controls controls[3];
  memset(controls, 0, sizeof controls);
  controls[0].move_x = 1.0f;
  controls[0].move_y = 1.0f;
  controls[0].buttons = ARB_BUTTON_JUMP;
  drive(cs, 3, controls, 1500);
  arb_snapshot_state st;
  assert_true(cs[0]->snapshots_complete > 10);
  assert_true(tc_entity(cs[0], cs[1]->welcome.entity_id, &st));
  assert_true(tc_entity(cs[0], cs[2]->welcome.entity_id, &st));
  assert_int_equal(cs[0]->last_input_seq_acked, 0);  // no command of the spectator ever applied
  assert_true(cs[1]->last_input_seq_acked > 0);

  // One spectator slot: the next spectator is refused, with the reason.
  tc_client* extra_watcher = connect_one(port, "watcher2", ARB_PROTO_SPECTATOR);
  assert_int_equal(extra_watcher->state, TC_REJECTED);
  assert_int_equal(extra_watcher->reject.reason, ARB_PROTO_REASON_FULL);
  assert_string_equal(extra_watcher->reject.text, "spectators full (1)");
  tc_destroy(extra_watcher);

  char* body = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  assert_true(tc_metric(body, "arbiter_spectators_connected") == 1.0);
  assert_true(tc_metric(body, "arbiter_clients_connected") == 2.0);
  assert_true(tc_metric(body, "arbiter_spectator_inputs_ignored_total") > 0.0);
  free(body);
  static char answer[16384];
  admin_sessions(s.http_port, answer, sizeof answer);
  char want[96];
  snprintf(want, sizeof want, "{\"client\":%u,\"entity\":0,\"name\":\"watcher\"",
           cs[0]->welcome.client_id);
  const char* row = strstr(answer, want);
  assert_non_null(row);
  assert_non_null(strstr(row, "\"spectator\":true"));
  assert_true(strstr(row, "\"spectator\":true") < strstr(row, "}"));
  ARB_ASSERT_HAS(answer, "\"name\":\"ada\"", "\"spectator\":false");
  assert_non_null(strstr(row, "\"view\":null}"));  // no camera box reported yet
  // The box a client reports is listed for the operator.
  send_view(cs[0], true, arb_v2(1.0f, 2.0f), arb_v2(3.5f, 4.25f));
  drive(cs, 3, NULL, 300);
  admin_sessions(s.http_port, answer, sizeof answer);
  row = strstr(answer, want);
  assert_non_null(row);
  assert_non_null(strstr(row, "\"view\":[1.00,2.00,3.50,4.25]}"));

  uint32_t spectator_id = cs[0]->welcome.client_id;
  close_all(cs, 3);
  assert_int_equal(tc_server_stop(&s, SIGTERM, 5000), 0);
  uint64_t spectator_inputs = 0;
  assert_int_equal(replay_joins(path, spectator_id, &spectator_inputs), 2);
  assert_int_equal(spectator_inputs, 0);
  unlink(path);
  unlink(token_path);
  unlink(s.log_path);
}

static void send_view(tc_client* c, bool active, arb_vec2 min, arb_vec2 max) {
  arb_proto_view v = {active, min, max};
  uint8_t buf[64];
  int n = arb_proto_encode_view(&v, buf, sizeof buf);
  assert_true(n > 0);
  assert_int_equal(tc_send_raw(c, ARB_PROTO_CHANNEL_CONTROL, buf, (size_t)n, true), 0);
}

static arb_vec2 position_of(tc_client* watcher, uint32_t entity) {
  arb_snapshot_state st;
  assert_true(tc_entity(watcher, entity, &st));
  return arb_v2((float)st.x / ARB_PROTO_POS_SCALE, (float)st.y / ARB_PROTO_POS_SCALE);
}

// A 2 m box around p.
static void look_at(tc_client** cs, arb_vec2 p) {
  send_view(cs[0], true, arb_v2(p.x - 1.0f, p.y - 1.0f), arb_v2(p.x + 1.0f, p.y + 1.0f));
  drive(cs, 3, NULL, 800);
}

static void test_server_spectator_sees_its_view_box(void** state) {
  (void)state;
  tc_server s;
  START_SERVER(&s, "--view-radius", "1");
  uint16_t port = (uint16_t)s.port;
  tc_client* cs[3];
  cs[0] = connect_one(port, "watcher", ARB_PROTO_SPECTATOR);
  cs[1] = connect_one(port, "ada", ARB_AVATAR_DEFAULT);
  cs[2] = connect_one(port, "bob", ARB_AVATAR_DEFAULT);
  uint32_t ada = cs[1]->welcome.entity_id, bob = cs[2]->welcome.entity_id;
  drive(cs, 3, NULL, 800);
  // No box: the whole world, both avatars (standing apart).
  arb_vec2 pa = position_of(cs[0], ada), pb = position_of(cs[0], bob);
  assert_true(arb_distance_sq(pa, pb) > 3.0f * 3.0f);

  arb_snapshot_state st;
  look_at(cs, pa);
  assert_true(tc_entity(cs[0], ada, &st));
  assert_false(tc_entity(cs[0], bob, &st));
  look_at(cs, pb);  // the box moves: what is only in the old one goes
  assert_true(tc_entity(cs[0], bob, &st));
  assert_false(tc_entity(cs[0], ada, &st));

  // A box larger than the limit is malformed: a strike, and the previous box stays.
  uint8_t bad[64];
  arb_proto_view ok = {true, arb_v2(0.0f, 0.0f), arb_v2(1.0f, 1.0f)};
  int n = arb_proto_encode_view(&ok, bad, sizeof bad);
  assert_true(n > 0);
  const float too_far = 5000.0f;  // max_x: the float at bytes 14..17, big-endian
  uint32_t bits;
  memcpy(&bits, &too_far, 4);
  for (int k = 0; k < 4; ++k) bad[14 + k] = (uint8_t)(bits >> (24 - 8 * k));
  assert_int_equal(tc_send_raw(cs[0], ARB_PROTO_CHANNEL_CONTROL, bad, (size_t)n, true), 0);
  drive(cs, 3, NULL, 500);
  assert_true(tc_entity(cs[0], bob, &st));
  assert_false(tc_entity(cs[0], ada, &st));
  char* body = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  assert_true(tc_metric(body, "arbiter_messages_rejected_total{reason=\"decode\"}") == 1.0);
  free(body);

  // Cleared: the whole world again.
  send_view(cs[0], false, arb_v2(0.0f, 0.0f), arb_v2(0.0f, 0.0f));
  drive(cs, 3, NULL, 800);
  assert_true(tc_entity(cs[0], ada, &st));
  assert_true(tc_entity(cs[0], bob, &st));
  close_all(cs, 3);
  stop_server(&s);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_spectator_watches_without_playing),
                 cmocka_unit_test(test_server_spectator_sees_its_view_box))
