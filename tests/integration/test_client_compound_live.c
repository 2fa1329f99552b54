// Compound bodies through a real server and the client library: arbiter-server runs
// tests/scenes/compound.json and a client that joined gets
//  - the welcome's static geometry with a compound static body as one entry per shape, all
//    at the body's position and angle (the L platform: a post and a beam; the detector: a
//    box and its sensor ring), in shape order, beside the one-shape ground;
//  - every dynamic compound body's description with all its shapes, in order, as the
//    scene gives them (the table: 4 boxes; the car: a box, a capsule bumper, two wheels;
//    the hammer: handle and head), through arb_client_get_entity_shape.
// argv: arbiter-server SCENE.json (tests/scenes/compound.json)
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "test_client_util.h"

static const char* g_server;
static const char* g_scene;

// Connected, a snapshot in, and the scene's 3 dynamic compound bodies described.
static bool described(void* user) {
  arb_client* c = user;
  if (arb_client_get_snapshot_tick(c) == 0) return false;
  arb_client_entity_desc d[32];
  int n = arb_client_get_entities(c, d, 32);
  int compound = 0;
  for (int i = 0; i < n && i < 32; i++) compound += d[i].shape_count > 1;
  return compound == 3;
}

static void expect_statics(arb_client* c) {
  int n = 0;
  const arb_client_static_body* st = arb_client_get_static_geometry(c, &n);
  // ground, l_platform (post, beam), detector (box, ring)
  assert_int_equal(n, 5);
  assert_int_equal(st[0].shape.type, ARB_SHAPE_POLYGON);
  for (int k = 1; k <= 2; k++) {
    assert_true(st[k].position.x == -12.0f && st[k].position.y == 0.0f && st[k].angle == 0.0f);
    assert_int_equal(st[k].shape.type, ARB_SHAPE_POLYGON);
  }
  // The beam is the second shape: x -0.3..5.7, y 4.5..5 in the body frame.
  for (int v = 0; v < st[2].shape.polygon.count; v++) {
    arb_vec2 p = st[2].shape.polygon.vertices[v];
    assert_true(p.x > -0.31f && p.x < 5.71f && p.y > 4.49f && p.y < 5.01f);
  }
  assert_true(st[3].position.x == 12.0f && st[4].position.x == 12.0f);
  assert_int_equal(st[3].shape.type, ARB_SHAPE_POLYGON);
  assert_int_equal(st[4].shape.type, ARB_SHAPE_CIRCLE);
  assert_true(st[4].shape.circle.radius == 1.0f && st[4].shape.circle.center.y == 3.0f);
}

static void expect_entity_shapes(arb_client* c) {
  arb_client_entity_desc d[32];
  int n = arb_client_get_entities(c, d, 32);
  int seen[9] = {0};
  for (int i = 0; i < n && i < 32; i++) {
    int count = d[i].shape_count;
    assert_true(count >= 1 && count <= 8);
    seen[count] += 1;
    arb_client_shape s[8];
    for (int k = 0; k < count; k++)
      assert_int_equal(arb_client_get_entity_shape(c, d[i].id, k, &s[k]), 0);
    assert_int_equal(arb_client_get_entity_shape(c, d[i].id, count, NULL), ARB_E_NOT_FOUND);
    assert_int_equal(s[0].type, d[i].shape.type);
    if (count == 4 && s[1].type == ARB_SHAPE_CAPSULE) {  // the car
      assert_true(s[1].capsule.radius == 0.15f);
      assert_int_equal(s[2].type, ARB_SHAPE_CIRCLE);
      assert_true(s[2].circle.center.x == -0.8f && s[3].circle.center.x == 0.8f);
    } else if (count == 4) {  // the table: four boxes
      for (int k = 0; k < 4; k++) assert_int_equal(s[k].type, ARB_SHAPE_POLYGON);
    } else if (count == 2) {  // the hammer: the head is 0.8 m wide
      assert_true(s[1].polygon.vertices[1].x - s[1].polygon.vertices[0].x > 0.79f);
    }
  }
  assert_int_equal(seen[4], 2);  // table, car
  assert_int_equal(seen[2], 1);  // hammer
}

static void test_client_compound_shapes_arrive(void** state) {
  (void)state;
  cu_proc srv;
  const char* extra[] = {"--scene", g_scene, NULL};
  int port = cu_server_start(&srv, g_server, 0, extra);
  assert_true(port > 0);
  arb_client* c = cu_client(port, "compound");
  assert_non_null(c);
  assert_true(cu_pump(&c, 1, 20.0, described, c));
  expect_statics(c);
  expect_entity_shapes(c);
  arb_client_disconnect(c, "done");
  arb_client_destroy(c);
  assert_int_equal(cu_stop(&srv, SIGTERM), 0);
}

int main(int argc, char** argv) {
  if (!arb_test_args(argc, argv, "arbiter-server SCENE.json", &g_server, &g_scene, NULL)) return 2;
  return ARB_RUN_TESTS(NULL, cu_group_teardown,
                       cmocka_unit_test_teardown(test_client_compound_shapes_arrive, cu_teardown));
}
