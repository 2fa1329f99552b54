// Physics extras in scene files and the game layer: every new key loads into the world
// (`springs`, `joints`, `particles`, `constraints`, `constraint_iterations`, `vehicles`,
// the vehicle avatar controller), bad input for each key is refused with its JSON path
// and reason, vehicle avatars join, drive and leave, and game save/restore with a vehicle
// avatar replays bit for bit. tests/scenes/extras.json is the recorded test scene.
#include <arbiter/game.h>
#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/scene.h>
#include <arbiter/vehicle.h>
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

#include "../common/test_main.h"
#include "scene_test_util.h"
// clang-format on

static const char* const GOOD =
    "{\"gravity\":[0,-9.81],"
    "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shape\":{\"box\":{\"half_width\":20,"
    "\"half_height\":0.5}}},"
    "{\"name\":\"bob\",\"shape\":{\"circle\":{\"radius\":0.2}},\"position\":[1,5]},"
    "{\"name\":\"rod\",\"shape\":{\"box\":{\"half_width\":0.5,\"half_height\":0.05}},\"position\":["
    "3,5],\"group\":-1},"
    "{\"name\":\"car\",\"shape\":{\"box\":{\"half_width\":2,\"half_height\":1}},\"position\":[0,3],"
    "\"mass\":1000,"
    "\"gravity_scale\":0},"
    "{\"name\":\"shot\",\"shape\":{\"circle\":{\"radius\":0.05}},\"position\":[-5,2],\"velocity\":["
    "200,0],"
    "\"bullet\":true,\"category\":2,\"mask\":1,\"group\":0}],"
    "\"springs\":[{\"body_a\":\"bob\",\"anchor_b\":[1,7],\"stiffness\":50,\"damping\":1}],"
    "\"joints\":[{\"type\":\"revolute\",\"body_a\":\"rod\",\"anchor\":[2.5,5]},"
    "{\"type\":\"distance\",\"body_a\":1,\"body_b\":2,\"anchor_b\":[0.5,0],\"hertz\":4,\"damping_"
    "ratio\":0.5}],"
    "\"particles\":[{\"position\":[0,8],\"pinned\":true},{\"position\":[0.5,8],\"radius\":0.05},"
    "{\"position\":[1,8],\"radius\":0.05,\"mass\":2,\"damping\":0.5,\"mask\":1}],"
    "\"constraints\":[{\"a\":0,\"b\":1},{\"a\":1,\"b\":2,\"rest_length\":0.6,\"stiffness\":0.5}],"
    "\"constraint_iterations\":12,"
    "\"vehicles\":[{\"chassis\":\"car\",\"max_steer_angle\":0.5,\"drag\":3,"
    "\"wheels\":[{\"offset\":[1.2,0.8],\"steer\":true},{\"offset\":[1.2,-0.8],\"steer\":true},"
    "{\"offset\":[-1.2,0.8],\"drive\":true,\"drive_torque\":500},{\"offset\":[-1.2,-0.8],\"drive\":"
    "true,"
    "\"drive_torque\":500}]}]}";

static int load(const char* text, arb_scene** out, arb_scene_error* err) {
  return arb_scene_load_string(text, strlen(text), "t.json", out, err);
}

static void test_scene_extras_load_and_build(void** state) {
  (void)state;
  arb_scene* scene = NULL;
  arb_scene_error err;
  int rc = load(GOOD, &scene, &err);
  if (rc) fail_msg("%s: %s", err.path, err.message);
  arb_world* w = st_world(scene);
  assert_int_equal(arb_world_get_spring_count(w), 1);
  assert_int_equal(arb_world_get_joint_count(w), 2);
  assert_int_equal(arb_world_get_particle_count(w), 3);
  assert_int_equal(arb_world_get_constraint_count(w), 2);
  assert_int_equal(arb_world_get_constraint_iterations(w), 12);
  arb_extra_id v;
  assert_int_equal(arb_world_get_vehicles(w, &v, 1), 1);
  assert_int_equal(arb_vehicle_get_wheel_count(w, v), 4);
  assert_true(arb_particle_is_pinned(w, 0) && !arb_particle_is_pinned(w, 1));
  int a, b;
  float rest;
  assert_int_equal(arb_constraint_get(w, 0, &a, &b, &rest), 0);
  assert_true(a == 0 && b == 1 && rest == 0.5f);  // default: the distance as written
  assert_int_equal(arb_constraint_get(w, 1, &a, &b, &rest), 0);
  assert_true(rest == 0.6f);
  // The world anchor of the revolute joint lands on both sides at (2.5, 5).
  arb_extra_id j0 = {1, 1};
  arb_vec2 pa, pb;
  arb_joint_get_anchors(w, j0, &pa, &pb);
  assert_true(arb_distance(pa, arb_v2(2.5f, 5.0f)) < 1e-5f &&
              arb_distance(pb, arb_v2(2.5f, 5.0f)) < 1e-5f);
  // Same scene, same hash, and it moves.
  arb_world* w2 = st_world(scene);
  arb_vehicle_set_input(w, v, 0.3f, 1.0f, 0.0f);
  arb_vehicle_set_input(w2, v, 0.3f, 1.0f, 0.0f);
  uint64_t h0 = arb_world_hash(w);
  for (int i = 0; i < 120; ++i) {
    arb_world_step(w, 1.0f / 60.0f);
    arb_world_step(w2, 1.0f / 60.0f);
  }
  assert_true(arb_world_hash(w) == arb_world_hash(w2) && arb_world_hash(w) != h0);
  assert_true(arb_vehicle_get_forward_speed(w, v) > 2.0f);
  arb_world_destroy(w);
  arb_world_destroy(w2);
  arb_scene_destroy(scene);
}

#define BODIES                                                                              \
  "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shape\":{\"circle\":{\"radius\":1}}}," \
  "{\"name\":\"d\",\"shape\":{\"circle\":{\"radius\":1}},\"position\":[3,0]}]"

static void test_scene_extras_bad_input(void** state) {
  (void)state;
  static const st_refused cases[] = {
      {"{" BODIES ",\"springs\":{}}", ARB_E_INVAL, "springs",
       "expected an array of springs, got an object"},
      {"{" BODIES ",\"springs\":[{\"body_a\":\"d\"}]}", ARB_E_INVAL, "springs[0].stiffness",
       "missing (required)"},
      {"{" BODIES ",\"springs\":[{\"body_a\":\"nope\",\"stiffness\":1}]}", ARB_E_NOT_FOUND,
       "springs[0].body_a", "no body named \"nope\""},
      {"{" BODIES ",\"springs\":[{\"body_a\":5,\"stiffness\":1}]}", ARB_E_RANGE,
       "springs[0].body_a", "body index must be between 0 and 1, got 5"},
      {"{" BODIES ",\"springs\":[{\"body_a\":\"d\",\"stiffness\":-2}]}", ARB_E_RANGE,
       "springs[0].stiffness", "must be between 0 and"},
      {"{" BODIES ",\"springs\":[{\"body_a\":\"d\",\"body_b\":\"d\",\"stiffness\":1}]}",
       ARB_E_INVAL, "springs[0].body_b", "must differ from body_a"},
      {"{" BODIES ",\"springs\":[{\"body_a\":\"d\",\"stiffness\":1,\"spin\":1}]}", ARB_E_INVAL,
       "springs[0].spin", "unknown key"},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"d\",\"break_force\":-1}]}",
       ARB_E_RANGE, "joints[0].break_force", "must be between 0 and"},
      {"{" BODIES ",\"joints\":[{\"type\":\"mouse\",\"body_a\":\"d\",\"max_force\":1,"
       "\"break_force\":\"weak\"}]}",
       ARB_E_INVAL, "joints[0].break_force", "expected a number"},
      {"{" BODIES ",\"joints\":[{\"body_a\":\"d\"}]}", ARB_E_INVAL, "joints[0].type",
       "missing (required)"},
      {"{" BODIES ",\"joints\":[{\"type\":\"rope\",\"body_a\":\"d\"}]}", ARB_E_INVAL,
       "joints[0].type", "unknown value \"rope\""},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"g\"}]}", ARB_E_INVAL,
       "joints[0].body_a", "at least one dynamic body"},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"d\",\"length\":1}]}",
       ARB_E_INVAL, "joints[0].length", "revolute joints do not take this key"},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"d\",\"spin\":1}]}", ARB_E_INVAL,
       "joints[0].spin", "unknown key (expected one of: type, body_a"},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"d\",\"lower\":-1}]}",
       ARB_E_INVAL, "joints[0].upper", "a limit needs both lower and upper"},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"d\",\"lower\":1,"
       "\"upper\":0}]}",
       ARB_E_RANGE, "joints[0].upper", "must be >= lower"},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"d\",\"lower\":-4,"
       "\"upper\":0}]}",
       ARB_E_RANGE, "joints[0].lower", "must be between -3.14159"},
      {"{" BODIES ",\"joints\":[{\"type\":\"revolute\",\"body_a\":\"d\",\"motor_speed\":1}]}",
       ARB_E_INVAL, "joints[0].motor_speed", "needs max_motor_torque"},
      {"{" BODIES ",\"joints\":[{\"type\":\"prismatic\",\"body_a\":\"d\",\"axis\":[0,0]}]}",
       ARB_E_INVAL, "joints[0].axis", "must not be zero"},
      {"{" BODIES ",\"joints\":[{\"type\":\"prismatic\",\"body_a\":\"d\","
       "\"max_motor_torque\":1}]}",
       ARB_E_INVAL, "joints[0].max_motor_torque", "prismatic joints do not take this key"},
      {"{" BODIES ",\"joints\":[{\"type\":\"wheel\",\"body_a\":\"d\",\"hertz\":-1}]}", ARB_E_RANGE,
       "joints[0].hertz", "must be between 0 and 10000"},
      {"{" BODIES ",\"joints\":[{\"type\":\"mouse\",\"body_a\":\"d\",\"target\":[1,1]}]}",
       ARB_E_INVAL, "joints[0].max_force", "missing (required)"},
      {"{" BODIES ",\"joints\":[{\"type\":\"mouse\",\"body_a\":\"d\",\"body_b\":\"g\"}]}",
       ARB_E_INVAL, "joints[0].body_b", "mouse joints do not take this key"},
      {"{" BODIES ",\"joints\":[{\"type\":\"motor\",\"body_a\":\"g\",\"body_b\":\"d\"}]}",
       ARB_E_INVAL, "joints[0].max_force", "needs max_force or max_torque"},
      {"{" BODIES ",\"joints\":[{\"type\":\"motor\",\"body_a\":\"g\",\"body_b\":\"d\","
       "\"max_force\":1,\"correction_factor\":2}]}",
       ARB_E_RANGE, "joints[0].correction_factor", "must be between 0 and 1"},
      {"{" BODIES ",\"joints\":[{\"type\":\"distance\",\"body_a\":\"d\",\"min_length\":2,"
       "\"max_length\":1}]}",
       ARB_E_RANGE, "joints[0].max_length", "must be >= min_length"},
      {"{" BODIES ",\"joints\":[{\"type\":\"distance\",\"body_a\":\"d\",\"anchor\":[0,0],\"anchor_"
       "a\":[0,0]}]}",
       ARB_E_INVAL, "joints[0].anchor", "not both"},
      {"{" BODIES ",\"joints\":[{\"type\":\"distance\",\"body_a\":\"d\",\"hertz\":-1}]}",
       ARB_E_RANGE, "joints[0].hertz", "must be between 0 and 10000, got -1"},
      {"{\"particles\":[{\"mass\":1}]}", ARB_E_INVAL, "particles[0].position",
       "missing (required)"},
      {"{\"particles\":[{\"position\":[0,0],\"mass\":0}]}", ARB_E_RANGE, "particles[0].mass",
       "must be > 0"},
      {"{\"particles\":[{\"position\":[0,0],\"radius\":1e9}]}", ARB_E_RANGE, "particles[0].radius",
       "must be between 0 and 1000"},
      {"{\"particles\":[{\"position\":[0,\"x\"]}]}", ARB_E_INVAL, "particles[0].position[1]",
       "expected a number"},
      {"{\"particles\":[{\"position\":[0,0],\"pinned\":1}]}", ARB_E_INVAL, "particles[0].pinned",
       "expected"},
      {"{\"constraints\":[{\"a\":0,\"b\":1}]}", ARB_E_INVAL, "constraints[0]",
       "no particles to connect"},
      {"{\"particles\":[{\"position\":[0,0]},{\"position\":[1,0]}],\"constraints\":[{\"a\":0,\"b\":"
       "2}]}",
       ARB_E_RANGE, "constraints[0].b", "must be between 0 and 1, got 2"},
      {"{\"particles\":[{\"position\":[0,0]},{\"position\":[1,0]}],\"constraints\":[{\"a\":1,\"b\":"
       "1}]}",
       ARB_E_INVAL, "constraints[0].b", "must differ from a"},
      {"{\"particles\":[{\"position\":[0,0]},{\"position\":[1,0]}],\"constraints\":[{\"a\":0,\"b\":"
       "1,"
       "\"stiffness\":0}]}",
       ARB_E_RANGE, "constraints[0].stiffness", "must be > 0 and <= 1"},
      {"{\"constraint_iterations\":0}", ARB_E_RANGE, "constraint_iterations",
       "between 1 and 256, got 0"},
      {"{\"constraint_iterations\":\"many\"}", ARB_E_INVAL, "constraint_iterations",
       "expected an integer"},
      {"{" BODIES ",\"vehicles\":[{}]}", ARB_E_INVAL, "vehicles[0].chassis", "missing (required)"},
      {"{" BODIES ",\"vehicles\":[{\"chassis\":\"g\"}]}", ARB_E_INVAL, "vehicles[0].chassis",
       "must be a dynamic body"},
      {"{" BODIES ",\"vehicles\":[{\"chassis\":\"d\",\"wheels\":[]}]}", ARB_E_INVAL,
       "vehicles[0].wheels", "1 to 8 wheels"},
      {"{" BODIES ",\"vehicles\":[{\"chassis\":\"d\",\"wheels\":[{\"radius\":1}]}]}", ARB_E_INVAL,
       "vehicles[0].wheels[0].offset", "missing (required)"},
      {"{" BODIES
       ",\"vehicles\":[{\"chassis\":\"d\",\"wheels\":[{\"offset\":[0,0],\"radius\":0}]}]}",
       ARB_E_RANGE, "vehicles[0].wheels[0].radius", "must be > 0"},
      {"{" BODIES ",\"vehicles\":[{\"chassis\":\"d\",\"friction\":0}]}", ARB_E_RANGE,
       "vehicles[0].friction", "must be > 0"},
      {"{\"avatar\":{\"controller\":{\"type\":\"vehicle\",\"mode\":\"auto\"}}}", ARB_E_INVAL,
       "avatar.controller.mode", "unknown key"},
      {"{\"avatar\":{\"controller\":{\"type\":\"vehicle\",\"chassis\":{\"mass\":-1}}}}",
       ARB_E_RANGE, "avatar.controller.chassis.mass", "must be > 0"},
  };
  st_expect_refused(cases, sizeof cases / sizeof cases[0], "t.json");
}

static void test_scene_extras_file(void** state) {
  st_scene_world* sw = *state;
  arb_world* w = sw->w;
  assert_true(arb_world_get_joint_count(w) >= 7);
  assert_true(arb_world_get_particle_count(w) >= 50);
  assert_int_equal(arb_world_get_vehicles(w, NULL, 0), 2);
  assert_int_equal(arb_scene_get_avatar(sw->scene)->controller, ARB_CONTROLLER_VEHICLE);
}

// Every joint type from the scene file, each with its limit, motor or spring.
static void test_scene_joints_file(void** state) {
  st_scene_world* sw = *state;
  arb_world* w = sw->w;
  static const arb_joint_type want[] = {
      ARB_JOINT_REVOLUTE, ARB_JOINT_PRISMATIC, ARB_JOINT_REVOLUTE,
      ARB_JOINT_WELD,     ARB_JOINT_WHEEL,     ARB_JOINT_WHEEL,
      ARB_JOINT_MOTOR,    ARB_JOINT_MOUSE,     ARB_JOINT_DISTANCE};
  arb_extra_id ids[9];
  assert_int_equal(arb_world_get_joints(w, ids, 9), 9);
  for (int i = 0; i < 9; ++i) assert_int_equal(arb_joint_get_type(w, ids[i]), want[i]);
  for (int i = 0; i < 300; ++i) arb_world_step(w, 1.0f / 60.0f);
  // The door's motor holds it on its upper limit (1.2 rad), the piston's on 1.5 m.
  assert_true(arb_joint_get_position(w, ids[0]) > 1.15f &&
              arb_joint_get_position(w, ids[0]) < 1.22f);
  assert_true(arb_joint_get_position(w, ids[1]) > 1.45f &&
              arb_joint_get_position(w, ids[1]) < 1.52f);
  // The rope is taut at its max length.
  assert_true(arb_joint_get_position(w, ids[8]) > 2.95f &&
              arb_joint_get_position(w, ids[8]) < 3.02f);
}

// Sensors and breakable joints from the scene file: every ball crosses the goal (one begin
// and one end each), the crate breaks the lamp's weak joint (one break event), the sign's
// strong joint holds the rock.
static void test_scene_triggers_file(void** state) {
  st_scene_world* sw = *state;
  arb_world* w = sw->w;
  arb_body_id goal = {3, 1}, lamp = {8, 1};  // bodies[2] and bodies[7]
  assert_true(arb_body_get_shape(w, goal)->sensor);
  assert_false(arb_body_get_shape(w, lamp)->sensor);
  int begins = 0, ends = 0, breaks = 0;
  for (int i = 0; i < 600; ++i) {
    arb_world_step(w, 1.0f / 60.0f);
    const arb_sensor_event* ev;
    int nb = arb_world_get_sensor_begin_events(w, &ev);
    for (int k = 0; k < nb; ++k) assert_true(arb_body_id_equals(ev[k].sensor, goal));
    begins += nb;
    ends += arb_world_get_sensor_end_events(w, NULL);
    const arb_joint_break_event* be;
    int n = arb_world_get_joint_break_events(w, &be);
    for (int k = 0; k < n; ++k) {
      assert_int_equal(be[k].joint.index1, 1);
      assert_true(arb_body_id_equals(be[k].body_b, lamp));
      assert_true(be[k].force > 400.0f);
    }
    breaks += n;
  }
  assert_int_equal(begins, 3);
  assert_int_equal(ends, 3);
  assert_int_equal(breaks, 1);
  assert_int_equal(arb_world_get_joint_count(w), 1);
}

static void test_game_vehicle_avatar(void** state) {
  (void)state;
  arb_scene* scene = st_load("extras.json");
  arb_game* g = NULL;
  arb_game* h = NULL;
  assert_int_equal(arb_game_create(scene, 7, &g), ARB_OK);
  assert_int_equal(arb_game_create(scene, 7, &h), ARB_OK);
  uint32_t e1, e2;
  assert_int_equal(arb_game_join(g, 1, ARB_AVATAR_DEFAULT, &e1), ARB_OK);  // the scene's: vehicle
  assert_int_equal(arb_game_join(g, 2, ARB_AVATAR_FORCE, &e2), ARB_OK);
  assert_int_equal(arb_game_join(h, 1, ARB_AVATAR_VEHICLE, &e1), ARB_OK);
  assert_int_equal(arb_game_join(h, 2, ARB_AVATAR_FORCE, &e2), ARB_OK);
  arb_world* w = arb_game_get_world(g);
  int vehicles = arb_world_get_vehicles(w, NULL, 0);
  assert_int_equal(vehicles, 3);  // two in the scene, one avatar
  arb_entity a;
  assert_int_equal(arb_game_get_avatar(g, 1, &a), ARB_OK);
  assert_int_equal(a.kind,
                   ARB_AVATAR_VEHICLE);  // "scene default" resolved, as snapshots describe it
  arb_entity b;
  assert_int_equal(arb_game_get_avatar(g, 2, &b), ARB_OK);
  assert_int_equal(b.kind, ARB_AVATAR_FORCE);
  assert_int_equal(arb_game_find_entity(g, 1, &b), ARB_OK);  // a scene body
  assert_int_equal(b.kind, ARB_AVATAR_DEFAULT);
  arb_vec2 start = arb_body_get_position(w, a.body);
  arb_controls c;
  memset(&c, 0, sizeof c);
  c.throttle = 1.0f;
  c.steer = 0.05f;
  arb_game_set_controls(g, 1, &c);
  arb_game_set_controls(h, 1, &c);
  uint8_t* img = NULL;
  int size = 0;
  uint64_t mid = 0;
  for (int t = 0; t < 240; ++t) {
    arb_game_step(g);
    arb_game_step(h);
    assert_true(arb_game_hash(g) == arb_game_hash(h));
    if (t == 119) {
      size = arb_game_save(g, NULL, 0);
      assert_true(size > 0);
      img = malloc((size_t)size);
      assert_int_equal(arb_game_save(g, img, size), size);
      mid = arb_game_hash(g);
    }
  }
  float moved = arb_distance(arb_body_get_position(w, a.body), start);
  printf("vehicle avatar drove %.2f m in 4 s at full throttle\n", (double)moved);
  assert_true(moved > 10.0f);
  uint64_t end = arb_game_hash(g);
  // Restore the checkpoint into the other game and replay the same inputs.
  assert_int_equal(arb_game_restore(h, img, size), ARB_OK);
  assert_true(arb_game_hash(h) == mid);
  for (int t = 120; t < 240; ++t) arb_game_step(h);
  assert_true(arb_game_hash(h) == end);
  // Leaving removes the avatar's vehicle with its chassis.
  assert_int_equal(arb_game_leave(g, 1), ARB_OK);
  assert_int_equal(arb_world_get_vehicles(w, NULL, 0), vehicles - 1);
  assert_int_equal(arb_game_leave(g, 2), ARB_OK);
  free(img);
  arb_game_destroy(g);
  arb_game_destroy(h);
  arb_scene_destroy(scene);
}

ARB_TEST_MAIN(cmocka_unit_test(test_scene_extras_load_and_build),
              cmocka_unit_test(test_scene_extras_bad_input),
              ST_WORLD_TEST(test_scene_extras_file, "extras.json"),
              ST_WORLD_TEST(test_scene_joints_file, "joints.json"),
              ST_WORLD_TEST(test_scene_triggers_file, "triggers.json"),
              cmocka_unit_test(test_game_vehicle_avatar))
