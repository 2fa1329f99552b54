// Capsules and rounded polygons in a world: a capsule lying on its side on a box, on a
// segment and on another capsule stays put (no jitter beyond a small bound, no drift,
// even with sleeping off), and so does a rounded box; standing on its end with a slight
// lean a capsule falls over onto its side; a fast capsule does not pass through a thin
// wall or a segment (continuous collision; with it off the same shot passes, so the test
// can fail); the body's mass and inertia are the shape's; a world ray finds it;
// save/restore continues bit for bit; the wire form round-trips (a sharp polygon keeps
// code 2); scene files describe both and refuse bad ones with FILE: JSON.PATH: REASON.
// cmocka.h needs these first
// clang-format off
#include <math.h>
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
#include <arbiter/snapshot.h>

#include "world_test_util.h"

#define DT (1.0f / 60.0f)

static arb_body_def capsule_def(float x, float y, float angle, float half_length, float radius) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.angle = angle;
  bd.shape.type = ARB_SHAPE_CAPSULE;
  bd.shape.capsule = (arb_capsule){{-half_length, 0.0f}, {half_length, 0.0f}, radius};
  return bd;
}

// Settle for a second, then for three more seconds the capsule may move no more than
// `bound` from where it settled (position and angle) and must end where it started.
static void expect_rests(arb_world* w, arb_body_id id, float bound) {
  for (int s = 0; s < 60; ++s) arb_world_step(w, DT);
  arb_vec2 p0 = arb_body_get_position(w, id);
  float a0 = arb_body_get_angle(w, id);
  float worst = 0.0f;
  for (int s = 0; s < 180; ++s) {
    arb_world_step(w, DT);
    arb_vec2 p = arb_body_get_position(w, id);
    float a = arb_body_get_angle(w, id);
    worst = fmaxf(worst, fmaxf(arb_distance(p, p0), fabsf(a - a0)));
  }
  if (worst > bound)
    fail_msg("moved %g from its resting pose (bound %g)", (double)worst, (double)bound);
  assert_true(fabsf(a0) < 0.01f);  // on its side, not tipped
}

static void test_rests_on_box_and_segment(void** state) {
  (void)state;
  for (int ground = 0; ground < 2; ++ground) {
    for (int sleep = 0; sleep < 2; ++sleep) {
      arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
      arb_world_enable_sleep(w, sleep != 0);
      if (ground == 0) {
        wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 10.0f, 0.5f);
      } else {
        wt_segment(w, -10.0f, 0.0f, 10.0f, 0.0f);
      }
      arb_body_def bd = capsule_def(1.0f, 0.26f, 0.0f, 0.75f, 0.25f);
      arb_body_id id = arb_body_create(w, &bd);
      expect_rests(w, id, 1e-3f);
      // It rests on its radius (the solver leaves about a linear slop of overlap).
      arb_vec2 p = arb_body_get_position(w, id);
      assert_true(p.y > 0.25f - 2.0f * ARB_LINEAR_SLOP && p.y < 0.25f + ARB_LINEAR_SLOP);
      assert_true(fabsf(p.x - 1.0f) < 1e-3f);
      arb_world_destroy(w);
    }
  }
}

// Two capsules crossed and one lying along another: a small stack at rest.
static void test_rests_on_capsule(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_world_enable_sleep(w, false);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 10.0f, 0.5f);
  arb_body_def bd = capsule_def(0.0f, 0.3f, 0.0f, 1.0f, 0.3f);
  bd.type = ARB_BODY_STATIC;
  arb_body_create(w, &bd);
  bd = capsule_def(0.2f, 0.91f, 0.0f, 0.6f, 0.3f);
  arb_body_id along = arb_body_create(w, &bd);
  expect_rests(w, along, 2e-3f);
  assert_true(fabsf(arb_body_get_position(w, along).y - 0.9f) < 0.01f);
  arb_world_destroy(w);
}

// On its end with a lean of 0.05 rad it tips over and lies on its side (angle a
// quarter turn, centre at its radius).
static void test_falls_over_from_end(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 10.0f, 0.5f);
  arb_body_def bd = capsule_def(0.0f, 1.0f, ARB_PI / 2.0f + 0.05f, 0.75f, 0.25f);
  arb_body_id id = arb_body_create(w, &bd);
  for (int s = 0; s < 240; ++s) arb_world_step(w, DT);
  float a = arb_body_get_angle(w, id);
  float off = fabsf(fabsf(a) - ARB_PI);  // lying: angle 0 or pi, here it went over
  float flat = fminf(fabsf(a), off);
  if (flat > 0.02f) fail_msg("still standing or leaning: angle %g", (double)a);
  assert_true(fabsf(arb_body_get_position(w, id).y - 0.25f) < 0.01f);
  arb_world_destroy(w);
}

// A 0.5 m capsule (radius 0.05) shot along x at a 0.2 m wall whose face is at x = 4.9
// (or a segment at x = 5): the largest x its centre reached in one second.
static float shoot(bool continuous, bool segment, float speed, float angle) {
  arb_world* w = wt_world_continuous(continuous, arb_v2(0.0f, 0.0f));
  wt_tunnel_wall(w, segment);
  arb_body_def bd = capsule_def(0.0f, 0.0f, angle, 0.2f, 0.05f);
  bd.linear_velocity = arb_v2(speed, 0.0f);
  return wt_shot_max_x(w, arb_body_create(w, &bd), DT);
}

static void test_fast_capsule_does_not_tunnel(void** state) {
  (void)state;
  const float speeds[] = {25.0f, 100.0f, 400.0f};
  const float angles[] = {0.0f, 0.7f, ARB_PI / 2.0f};
  for (int segment = 0; segment < 2; ++segment) {
    float face = segment ? 5.0f : 4.9f;
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < 3; ++k) {
        float x = shoot(true, segment != 0, speeds[i], angles[k]);
        if (x > face) {
          fail_msg("%s: %g m/s at %g rad reached x = %g", segment ? "segment" : "wall",
                   (double)speeds[i], (double)angles[k], (double)x);
        }
      }
    }
  }
  // Without continuous collision the fastest shot passes: the check above can fail.
  assert_true(shoot(false, false, 400.0f, ARB_PI / 2.0f) > 5.0f);
}

static void test_mass_ray_and_restore(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 10.0f, 0.5f);
  arb_body_def bd = capsule_def(-2.0f, 2.0f, 0.3f, 0.5f, 0.25f);
  bd.shape.density = 2.0f;
  arb_body_id id = arb_body_create(w, &bd);
  arb_mass_data md = arb_compute_capsule_mass(&bd.shape.capsule, 2.0f);
  assert_true(arb_body_get_mass(w, id) == md.mass);
  assert_true(arb_body_get_rotational_inertia(w, id) == md.rotational_inertia);
  // A ray straight down through the capsule's centre meets its top.
  arb_ray_result r = arb_world_cast_ray(w, arb_v2(-2.0f, 5.0f), arb_v2(0.0f, -10.0f));
  assert_true(arb_body_id_equals(r.body, id));
  assert_true(r.point.y < 2.0f + 0.26f / cosf(0.3f) && r.point.y > 2.25f);
  for (int s = 0; s < 20; ++s) arb_world_step(w, DT);
  arb_world* copy = wt_restore_image_of(wt_world(arb_v2(0.0f, -10.0f)), w);
  assert_true(arb_world_hash(copy) == arb_world_hash(w));
  wt_step_alike(w, copy, 60, DT);
  // The restored shape is the one defined.
  const arb_shape_def* sd = arb_body_get_shape(copy, id);
  assert_int_equal(sd->type, ARB_SHAPE_CAPSULE);
  assert_true(sd->capsule.radius == 0.25f && sd->capsule.center2.x == 0.5f);
  arb_world_destroy(copy);
  arb_world_destroy(w);
}

// Invalid capsule definitions are refused by arb_body_create.
static void test_invalid_defs(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_def bd = capsule_def(0.0f, 0.0f, 0.0f, 0.5f, 0.0f);
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd = capsule_def(0.0f, 0.0f, 0.0f, 0.001f, 0.25f);  // centres 2 mm apart
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd = capsule_def(0.0f, 0.0f, 0.0f, 0.5f, 0.25f);
  bd.shape.capsule.center1.x = NAN;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  arb_world_destroy(w);
}

static void test_scene_keys(void** state) {
  (void)state;
  const char* good =
      "{\"version\":1,\"bodies\":[{\"shape\":{\"capsule\":{\"center1\":[0,-0.5],\"center2\":[0,0.5]"
      ","
      "\"radius\":0.3}},\"position\":[1,2]}]}";
  arb_scene* scene = NULL;
  arb_scene_error err;
  assert_int_equal(arb_scene_load_string(good, strlen(good), "t.json", &scene, &err), 0);
  const arb_body_def* bd = arb_scene_get_body_def(scene, 0);
  assert_int_equal(bd->shape.type, ARB_SHAPE_CAPSULE);
  assert_true(bd->shape.capsule.center1.y == -0.5f && bd->shape.capsule.center2.y == 0.5f);
  assert_true(bd->shape.capsule.radius == 0.3f);
  arb_scene_destroy(scene);
  const char* rounded =
      "{\"version\":1,\"bodies\":[{\"shape\":{\"box\":{\"half_width\":1,\"half_height\":0.5,"
      "\"radius\":0.1}}},{\"shape\":{\"polygon\":{\"points\":[[0,0],[1,0],[0,1]],\"radius\":0.2}}},"
      "{\"shape\":{\"box\":{\"half_width\":1,\"half_height\":0.5}}}]}";
  assert_int_equal(arb_scene_load_string(rounded, strlen(rounded), "t.json", &scene, &err), 0);
  assert_true(arb_scene_get_body_def(scene, 0)->shape.polygon.radius == 0.1f);
  assert_true(arb_scene_get_body_def(scene, 1)->shape.polygon.radius == 0.2f);
  assert_true(arb_scene_get_body_def(scene, 2)->shape.polygon.radius == 0.0f);
  arb_scene_destroy(scene);
  struct {
    const char* shape;
    const char* expect;
  } bad[] = {
      {"{\"box\":{\"half_width\":1,\"half_height\":1,\"radius\":-0.1}}",
       "t.json: bodies[0].shape.box.radius: "},
      {"{\"polygon\":{\"points\":[[0,0],[1,0],[0,1]],\"radius\":2000}}",
       "t.json: bodies[0].shape.polygon.radius: "},
      {"{\"capsule\":{\"center1\":[0,0],\"center2\":[1,0]}}",
       "t.json: bodies[0].shape.capsule.radius: "},
      {"{\"capsule\":{\"center1\":[0,0],\"center2\":[1,0],\"radius\":-1}}",
       "t.json: bodies[0].shape.capsule.radius: "},
      {"{\"capsule\":{\"center1\":[0,0],\"center2\":[0,0.001],\"radius\":1}}",
       "t.json: bodies[0].shape.capsule.center2: the centres coincide"},
      {"{\"capsule\":{\"center2\":[1,0],\"radius\":1}}",
       "t.json: bodies[0].shape.capsule.center1: "},
      {"{\"capsule\":{\"center1\":[0,0],\"center2\":[1,0],\"radius\":1,\"length\":2}}",
       "t.json: bodies[0].shape.capsule"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char text[512], msg[512];
    snprintf(text, sizeof text, "{\"version\":1,\"bodies\":[{\"shape\":%s}]}", bad[i].shape);
    scene = NULL;
    assert_int_not_equal(arb_scene_load_string(text, strlen(text), "t.json", &scene, &err), 0);
    arb_scene_error_format(&err, msg, sizeof msg);
    if (strncmp(msg, bad[i].expect, strlen(bad[i].expect)) != 0) {
      fail_msg("%s: got '%s', want '%s...'", bad[i].shape, msg, bad[i].expect);
    }
  }
}

// A rounded box (1 m, round corners of 0.1 m) dropped flat on the ground rests on two
// points, and a rounded box world saves and restores bit for bit.
static void test_rounded_box_rests_and_restores(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_world_enable_sleep(w, false);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 10.0f, 0.5f);
  arb_body_def bd = box_body_def(ARB_BODY_DYNAMIC, 2.0f, 0.52f, 0.4f, 0.4f);
  bd.shape.polygon = arb_make_rounded_polygon(&bd.shape.polygon, 0.1f);
  arb_body_id id = arb_body_create(w, &bd);
  expect_rests(w, id, 1e-3f);
  assert_true(fabsf(arb_body_get_position(w, id).y - 0.5f) < 2.0f * ARB_LINEAR_SLOP);
  arb_mass_data md = arb_compute_polygon_mass(&bd.shape.polygon, 1.0f);
  assert_true(arb_body_get_mass(w, id) == md.mass);
  arb_world* copy = wt_restore_image_of(wt_world(arb_v2(0.0f, -10.0f)), w);
  assert_true(arb_body_get_shape(copy, id)->polygon.radius == 0.1f);
  wt_step_alike(w, copy, 30, DT);
  arb_world_destroy(copy);
  arb_world_destroy(w);
}

// Geometry -> wire -> geometry for each new form; a sharp polygon keeps code 2 and
// carries no radius; a description with a capsule encodes and decodes as itself.
static void test_wire_round_trip(void** state) {
  (void)state;
  arb_shape_geometry g, back;
  arb_proto_shape w;
  g.type = ARB_SHAPE_CAPSULE;
  g.capsule = (arb_capsule){{-0.5f, 0.25f}, {0.5f, -0.25f}, 0.3f};
  assert_int_equal(arb_proto_shape_from_geometry(&g, &w), ARB_OK);
  assert_int_equal(w.kind, ARB_PROTO_SHAPE_CAPSULE);
  assert_int_equal(w.count, 2);
  assert_int_equal(arb_proto_shape_to_geometry(&w, &back), ARB_OK);
  assert_int_equal(back.type, ARB_SHAPE_CAPSULE);
  assert_memory_equal(&back.capsule, &g.capsule, sizeof g.capsule);
  assert_string_equal(arb_proto_shape_kind_name(w.kind), "capsule");

  memset(&g, 0, sizeof g);
  g.type = ARB_SHAPE_POLYGON;
  arb_polygon core = arb_make_box(0.4f, 0.3f);
  g.polygon = arb_make_rounded_polygon(&core, 0.05f);
  assert_int_equal(arb_proto_shape_from_geometry(&g, &w), ARB_OK);
  assert_int_equal(w.kind, ARB_PROTO_SHAPE_ROUNDED_POLYGON);
  assert_int_equal(w.count, 4);
  assert_true(w.radius == 0.05f);
  assert_int_equal(arb_proto_shape_to_geometry(&w, &back), ARB_OK);
  assert_int_equal(back.type, ARB_SHAPE_POLYGON);
  assert_true(back.polygon.radius == 0.05f && back.polygon.count == 4);
  assert_memory_equal(back.polygon.vertices, core.vertices, 4 * sizeof core.vertices[0]);

  g.polygon = core;
  assert_int_equal(arb_proto_shape_from_geometry(&g, &w), ARB_OK);
  assert_int_equal(w.kind, ARB_PROTO_SHAPE_POLYGON);
  assert_true(w.radius == 0.0f);

  // A whole entity description through the snapshot codec.
  static arb_snapshot_part part, got;
  memset(&part, 0, sizeof part);
  part.h = (arb_snapshot_header){5, 0, 0, 0, 1, 60, 0, 0};
  part.record_count = 1;
  part.records[0].id = 9;
  part.records[0].op = ARB_SNAPSHOT_ENTER;
  part.records[0].cls = ARB_SNAPSHOT_BODY;
  part.desc_count = 1;
  part.descs[0].cls = ARB_SNAPSHOT_BODY;
  part.descs[0].shape_count = 1;
  assert_int_equal(arb_proto_shape_from_geometry(&g, &part.descs[0].shapes[0]), ARB_OK);
  g.type = ARB_SHAPE_CAPSULE;
  g.capsule = (arb_capsule){{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.2f};
  assert_int_equal(arb_proto_shape_from_geometry(&g, &part.descs[0].shapes[0]), ARB_OK);
  uint8_t buf[512];
  int64_t n = arb_proto_encode_snapshot(&part, buf, sizeof buf);
  assert_true(n > 0);
  arb_proto_error err;
  assert_int_equal(arb_proto_decode_snapshot(buf, (size_t)n, &got, &err), 0);
  assert_memory_equal(&got.descs[0].shapes[0], &part.descs[0].shapes[0], sizeof(arb_proto_shape));
  // A capsule without its radius (5 elements) is refused.
  part.descs[0].shapes[0].radius = 0.0f;
  assert_true(arb_proto_encode_snapshot(&part, buf, sizeof buf) < 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rests_on_box_and_segment),
      cmocka_unit_test(test_rests_on_capsule),
      cmocka_unit_test(test_falls_over_from_end),
      cmocka_unit_test(test_fast_capsule_does_not_tunnel),
      cmocka_unit_test(test_mass_ray_and_restore),
      cmocka_unit_test(test_invalid_defs),
      cmocka_unit_test(test_scene_keys),
      cmocka_unit_test(test_rounded_box_rests_and_restores),
      cmocka_unit_test(test_wire_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
