// Chains on the wire and in scene files: a chain goes out as pieces of up to 8 points
// that join end to end back into the same points (open and loop), a piece round-trips
// through the wire shape and a welcome message, a chain that fits one shape converts
// directly and a larger one or a loop does not; scene files describe chains and refuse bad
// ones with FILE: JSON.PATH: REASON; a scene with a chain builds a world whose chain has
// the file's points.
// cmocka.h needs these first
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
// clang-format on

#include <arbiter/protocol.h>
#include <arbiter/scene.h>

#include "test_proto_fixtures.h"

// Pieces of a chain of n points joined back: the points in order (a loop ends with point
// 0 again). Returns the number of points written.
static int join_pieces(const arb_chain* c, arb_vec2* out, int cap) {
  arb_proto_shape pieces[ARB_MAX_CHAIN_POINTS];  // a piece holds at least one link
  int n = arb_proto_chain_pieces(c, pieces, ARB_MAX_CHAIN_POINTS);
  assert_int_equal(n, arb_proto_chain_pieces(c, NULL, 0));
  int k = 0;
  for (int p = 0; p < n; p++) {
    assert_int_equal(pieces[p].kind, ARB_PROTO_SHAPE_CHAIN);
    assert_true(pieces[p].count >= 2 && pieces[p].count <= ARB_PROTO_CHAIN_PIECE_POINTS);
    arb_shape_geometry g;
    assert_int_equal(arb_proto_shape_to_geometry(&pieces[p], &g), ARB_OK);
    assert_int_equal(g.type, ARB_SHAPE_CHAIN);
    assert_false(g.chain.loop);
    // Each piece starts where the one before ended.
    if (p > 0) assert_memory_equal(&g.chain.points[0], &out[k - 1], sizeof out[0]);
    for (int i = p > 0 ? 1 : 0; i < g.chain.count && k < cap; i++) out[k++] = g.chain.points[i];
  }
  return k;
}

static void test_pieces_join_back(void** state) {
  (void)state;
  arb_vec2 pts[ARB_MAX_CHAIN_POINTS], back[ARB_MAX_CHAIN_POINTS + 1];
  for (int i = 0; i < ARB_MAX_CHAIN_POINTS; i++) pts[i] = arb_v2((float)i, (float)(i % 5) * 0.25f);
  const int counts[5] = {2, 8, 9, 20, ARB_MAX_CHAIN_POINTS};
  for (int c = 0; c < 5; c++) {
    for (int loop = 0; loop < 2; loop++) {
      arb_chain chain = {pts, counts[c], loop != 0};
      if (loop && counts[c] < 3) continue;
      int links = arb_chain_link_count(&chain);
      assert_int_equal(arb_proto_chain_pieces(&chain, NULL, 0), (links + 6) / 7);
      int k = join_pieces(&chain, back, ARB_MAX_CHAIN_POINTS + 1);
      assert_int_equal(k, links + 1);
      assert_memory_equal(back, pts, (size_t)counts[c] * sizeof pts[0]);
      if (loop) assert_memory_equal(&back[counts[c]], &pts[0], sizeof pts[0]);
    }
  }
  arb_chain empty = {NULL, 0, false};
  assert_int_equal(arb_proto_chain_pieces(&empty, NULL, 0), ARB_E_INVAL);
  arb_chain big = {pts, 20, false};
  arb_proto_shape two[2];
  assert_int_equal(arb_proto_chain_pieces(&big, two, 2), ARB_E_NOSPACE);
}

// A chain of up to 8 points is one shape; 9 points or a loop are not (they go in pieces).
static void test_geometry_conversion(void** state) {
  (void)state;
  arb_vec2 pts[9];
  for (int i = 0; i < 9; i++) pts[i] = arb_v2((float)i, 0.0f);
  arb_shape_geometry g;
  memset(&g, 0, sizeof g);
  g.type = ARB_SHAPE_CHAIN;
  g.chain = (arb_chain){pts, 8, false};
  arb_proto_shape s;
  assert_int_equal(arb_proto_shape_from_geometry(&g, &s), ARB_OK);
  assert_int_equal(s.kind, ARB_PROTO_SHAPE_CHAIN);
  assert_int_equal(s.count, 8);
  assert_string_equal(arb_proto_shape_kind_name(s.kind), "chain");
  g.chain.count = 9;
  assert_int_equal(arb_proto_shape_from_geometry(&g, &s), ARB_E_INVAL);
  g.chain = (arb_chain){pts, 4, true};
  assert_int_equal(arb_proto_shape_from_geometry(&g, &s), ARB_E_INVAL);
}

// A welcome carrying a chain's pieces decodes to the same pieces; a piece with one point
// or nine is refused by the decoder.
static void test_welcome_round_trip(void** state) {
  (void)state;
  arb_vec2 pts[12];
  for (int i = 0; i < 12; i++) pts[i] = arb_v2((float)i - 6.0f, (float)(i * i) * 0.05f);
  arb_chain chain = {pts, 12, true};
  arb_proto_static_body statics[4], back[4];
  arb_proto_shape pieces[4];
  int n = arb_proto_chain_pieces(&chain, pieces, 4);
  assert_int_equal(n, 2);
  memset(statics, 0, sizeof statics);
  for (int k = 0; k < n; k++) {
    statics[k].position = arb_v2(1.0f, 2.0f);
    statics[k].angle = 0.25f;
    statics[k].shape = pieces[k];
  }
  arb_proto_welcome w = fx_welcome();  // its fields, with this level
  w.statics = statics;
  w.static_count = n;
  w.static_cap = n;
  uint8_t buf[2048];
  int len = arb_proto_encode_welcome(&w, buf, sizeof buf);
  assert_true(len > 0);
  arb_proto_welcome r;
  memset(&r, 0, sizeof r);
  r.statics = back;
  r.static_cap = 4;
  arb_proto_error err;
  assert_int_equal(arb_proto_decode_welcome(buf, (size_t)len, &r, &err), ARB_OK);
  assert_int_equal(r.static_count, n);
  for (int k = 0; k < n; k++) {
    assert_int_equal(back[k].shape.kind, ARB_PROTO_SHAPE_CHAIN);
    assert_int_equal(back[k].shape.count, pieces[k].count);
    assert_memory_equal(back[k].shape.points, pieces[k].points,
                        (size_t)pieces[k].count * sizeof pts[0]);
  }
  // One point is not a piece: the encoder refuses what the decoder would.
  statics[1].shape.count = 1;
  assert_true(arb_proto_encode_welcome(&w, buf, sizeof buf) < 0);
}

static const char* const good_scene =
    "{\"version\": 1, \"bodies\": ["
    "{\"type\": \"static\", \"shape\": {\"chain\": {\"points\": [[-4, 1], [-2, 0], [2, 0], [4, "
    "1]]}}},"
    "{\"type\": \"kinematic\", \"shape\": {\"chain\": {\"loop\": true, \"points\": [[0, 0], [0, "
    "1], "
    "[1, 1]]}}, \"position\": [0, 5]},"
    "{\"shape\": {\"circle\": {\"radius\": 0.25}}, \"position\": [0, 2]}]}";

static void test_scene_builds(void** state) {
  (void)state;
  arb_scene* scene = NULL;
  arb_scene_error err;
  assert_int_equal(arb_scene_load_string(good_scene, strlen(good_scene), "t.json", &scene, &err),
                   ARB_OK);
  arb_world* w = NULL;
  arb_body_id ids[3];
  assert_int_equal(arb_scene_create_world(scene, &w, ids, 3), ARB_OK);
  const arb_shape_def* s = arb_body_get_shape(w, ids[0]);
  assert_int_equal(s->type, ARB_SHAPE_CHAIN);
  assert_int_equal(s->chain.count, 4);
  assert_false(s->chain.loop);
  assert_true(s->chain.points[3].x == 4.0f && s->chain.points[3].y == 1.0f);
  s = arb_body_get_shape(w, ids[1]);
  assert_true(s->type == ARB_SHAPE_CHAIN && s->chain.loop && s->chain.count == 3);
  for (int i = 0; i < 120; i++) arb_world_step(w, 1.0f / 60.0f);
  // The ball fell on the flat middle link and rests there.
  arb_vec2 p = arb_body_get_position(w, ids[2]);
  assert_true(p.y > 0.24f && p.y < 0.26f);
  arb_world_destroy(w);
  arb_scene_destroy(scene);
}

typedef struct bad_chain {
  const char* body;  // the body object
  const char* path;
  const char* message;
} bad_chain;

static void test_scene_errors(void** state) {
  (void)state;
  static char many[8192];
  int k =
      snprintf(many, sizeof many, "{\"type\": \"static\", \"shape\": {\"chain\": {\"points\": [");
  for (int i = 0; i <= ARB_MAX_CHAIN_POINTS; i++)
    k += snprintf(many + k, sizeof many - (size_t)k, "%s[%d, 0]", i ? ", " : "", i);
  snprintf(many + k, sizeof many - (size_t)k, "]}}}");
  const bad_chain cases[] = {
      {many, "bodies[0].shape.chain.points", "a chain needs 2 to 512 points, got 513"},
      {"{\"type\": \"static\", \"shape\": {\"chain\": {\"points\": [[0, 0]]}}}",
       "bodies[0].shape.chain.points", "a chain needs 2 to 512 points, got 1"},
      {"{\"type\": \"static\", \"shape\": {\"chain\": {\"loop\": true, \"points\": [[0, 0], [1, "
       "0]]}}}",
       "bodies[0].shape.chain.points", "a chain loop needs 3 to 512 points, got 2"},
      {"{\"type\": \"static\", \"shape\": {\"chain\": {\"loop\": true, \"points\": [[0, 0], [1, "
       "0], "
       "[1, 1], [0, 0.001]]}}}",
       "bodies[0].shape.chain.points[3]", "within 0.005 m of point 0"},
      {"{\"type\": \"static\", \"shape\": {\"chain\": {\"points\": [[0, 0], [1e6, 0]]}}}",
       "bodies[0].shape.chain.points[1][0]", "100000"},
      {"{\"type\": \"static\", \"shape\": {\"chain\": {\"points\": [[0, 0], [1, 0]], \"closed\": "
       "true}}}",
       "bodies[0].shape.chain.closed", "unknown key"},
      {"{\"type\": \"static\", \"shape\": {\"chain\": {\"points\": [0, 1]}}}",
       "bodies[0].shape.chain.points[0]", "expected [x, y]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[9000];
    snprintf(text, sizeof text, "{\"version\": 1, \"bodies\": [%s]}", cases[i].body);
    arb_scene* scene = NULL;
    arb_scene_error err;
    memset(&err, 0, sizeof err);
    assert_true(arb_scene_load_string(text, strlen(text), "bad.json", &scene, &err) < 0);
    assert_null(scene);
    if (strcmp(err.path, cases[i].path) != 0 || !strstr(err.message, cases[i].message)) {
      fail_msg("case %zu: got %s: %s", i, err.path, err.message);
    }
    char line[1024];
    arb_scene_error_format(&err, line, sizeof line);
    assert_true(strncmp(line, "bad.json: ", 10) == 0);
  }
  // The avatar moves: no chain.
  const char* avatar =
      "{\"version\": 1, \"avatar\": {\"shape\": {\"chain\": {\"points\": [[0, 0], [1, 0]]}}}}";
  arb_scene* scene = NULL;
  arb_scene_error err;
  assert_true(arb_scene_load_string(avatar, strlen(avatar), "a.json", &scene, &err) < 0);
  assert_string_equal(err.path, "avatar.shape.chain");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pieces_join_back),   cmocka_unit_test(test_geometry_conversion),
      cmocka_unit_test(test_welcome_round_trip), cmocka_unit_test(test_scene_builds),
      cmocka_unit_test(test_scene_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
