// Scene loader: every class of bad input is refused with the right code, JSON path and
// reason (never a crash); good scenes load with the documented defaults.
#define _POSIX_C_SOURCE 200809L
// cmocka needs these before it, in this order.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/read_file.h"
#include "../common/test_main.h"
#include "scene_test_util.h"
// clang-format on

#include <arbiter/scene.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ARB_TEST_SCENES_DIR
#error "ARB_TEST_SCENES_DIR must name tests/scenes"
#endif

typedef struct bad_case {
  const char* file;     ///< under tests/scenes/
  int code;             ///< expected ARB_E_*
  const char* path;     ///< expected JSON path, exact
  const char* message;  ///< expected substring of the message
} bad_case;

static const bad_case bad_cases[] = {
    {"bad_unknown_key.json", ARB_E_INVAL, "bodies[1].colour",
     "unknown key (expected one of: name, type, shape"},
    {"bad_wrong_type.json", ARB_E_INVAL, "bodies[0].position", "expected [x, y], got a string"},
    {"bad_negative_radius.json", ARB_E_RANGE, "bodies[3].shape.circle.radius",
     "must be > 0 and <= 10000, got -1"},
    {"bad_nonconvex.json", ARB_E_INVAL, "bodies[0].shape.polygon.points",
     "not a valid convex polygon: the polygon is not convex"},
    {"bad_too_many_vertices.json", ARB_E_TOO_BIG, "bodies[1].shape.polygon.points",
     "a polygon needs 3 to 8 points, got 9"},
    {"bad_duplicate_name.json", ARB_E_INVAL, "bodies[2].name",
     "duplicate name \"crate\" (first used by bodies[0])"},
    {"bad_missing_shape.json", ARB_E_INVAL, "bodies[2].shape", "missing (required)"},
    {"bad_missing_radius.json", ARB_E_INVAL, "bodies[0].shape.circle.radius", "missing (required)"},
    {"bad_two_shapes.json", ARB_E_INVAL, "bodies[0].shape",
     "exactly one shape kind (has 2) of: circle, box, polygon, capsule, segment, chain"},
    {"bad_chain_dynamic.json", ARB_E_INVAL, "bodies[0].shape.chain",
     "chains have no mass: only static or kinematic bodies may use them"},
    {"bad_chain_link.json", ARB_E_INVAL, "bodies[0].shape.chain.points[2]",
     "within 0.005 m of the point before"},
    {"bad_chain_sensor.json", ARB_E_INVAL, "bodies[0].sensor", "a chain cannot be a sensor"},
    {"bad_capsule_centers.json", ARB_E_INVAL, "bodies[0].shape.capsule.center2",
     "the centres coincide (closer than 0.005 m): use a circle"},
    {"bad_version.json", ARB_E_VERSION, "version", "unsupported scene version 2"},
    {"bad_not_object.json", ARB_E_INVAL, "", "a scene must be a JSON object, got an array"},
    {"bad_dynamic_segment.json", ARB_E_INVAL, "bodies[1].shape.segment",
     "only static or kinematic bodies"},
    {"bad_vehicle.json", ARB_E_RANGE, "avatar.controller.max_steer_angle",
     "must be between 0 and 1.2, got 3"},
    {"bad_spawn_points.json", ARB_E_INVAL, "spawn_points[1]",
     "expected [x, y], got an array of 1 elements"},
    {"bad_tick_rate.json", ARB_E_RANGE, "tick_rate", "must be between 1 and 1000, got 0"},
    {"bad_restitution.json", ARB_E_RANGE, "bodies[2].restitution",
     "must be between 0 and 1, got 2"},
    {"bad_body_type.json", ARB_E_INVAL, "bodies[0].type",
     "unknown value \"ghost\" (expected one of: \"dynamic\""},
    {"bad_filter.json", ARB_E_RANGE, "bodies[0].mask", "must be between 0 and 4294967295, got -1"},
    {"bad_sensor.json", ARB_E_INVAL, "bodies[1].sensor", "expected true or false, got a string"},
    {"bad_gravity.json", ARB_E_INVAL, "gravity", "expected [x, y], got an array of 1 elements"},
    {"bad_float_overflow.json", ARB_E_NONFINITE, "bodies[0].velocity[0]",
     "not a finite float32 number, got 1e+300"},
    {"bad_shapes_radius.json", ARB_E_RANGE, "bodies[3].shapes[2].circle.radius", "must be > 0"},
    {"bad_shapes_and_shape.json", ARB_E_INVAL, "bodies[0].shapes", "either shape or shapes"},
    {"bad_shapes_count.json", ARB_E_INVAL, "bodies[0].shapes", "9 shapes, expected 1 to 8"},
    {"bad_shapes_chain.json", ARB_E_INVAL, "bodies[0].shapes[1].chain",
     "a chain must be its body's only shape"},
    {"bad_shapes_material.json", ARB_E_RANGE, "bodies[0].shapes[1].friction",
     "must be between 0 and 100"},
    {"bad_nan_literal.json", ARB_E_CORRUPT, "", "invalid JSON:"},
    {"bad_syntax.json", ARB_E_CORRUPT, "", "invalid JSON:"},
    {"bad_duplicate_key.json", ARB_E_CORRUPT, "", "duplicate object key"},
    {"bad_empty.json", ARB_E_CORRUPT, "", "invalid JSON:"},
};

static void test_scene_bad_files_give_path_and_reason(void** state) {
  (void)state;
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
    const bad_case* c = &bad_cases[i];
    char path[512];
    st_path(path, sizeof path, c->file);
    arb_scene* scene = (arb_scene*)0x1;
    arb_scene_error err;
    int rc = arb_scene_load_file(path, &scene, &err);
    if (rc != c->code || strcmp(err.path, c->path) != 0 || !strstr(err.message, c->message)) {
      print_error("%s: got %s path \"%s\" message \"%s\"\n", c->file, arb_err_name(rc), err.path,
                  err.message);
    }
    assert_int_equal(rc, c->code);
    assert_null(scene);
    assert_string_equal(err.path, c->path);
    assert_non_null(strstr(err.message, c->message));
    assert_string_equal(err.file, path);
    char line[1024];
    arb_scene_error_format(&err, line, sizeof line);
    assert_int_equal(strncmp(line, path, strlen(path)), 0);
    assert_null(strchr(line, '\n'));
  }
}

static void test_scene_every_bad_file_is_in_the_table(void** state) {
  (void)state;
  // A bad_*.json added without an expectation would only be checked by arbiter-sim's exit
  // status; keep the table complete.
  DIR* dir = opendir(ARB_TEST_SCENES_DIR);
  assert_non_null(dir);
  int n = 0;
  struct dirent* e;
  while ((e = readdir(dir)) != NULL) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "bad_", 4) != 0 || len < 5 || strcmp(e->d_name + len - 5, ".json") != 0)
      continue;
    bool listed = false;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
      listed |= strcmp(bad_cases[i].file, e->d_name) == 0;
    if (!listed) print_error("%s has no entry in bad_cases\n", e->d_name);
    n++;
  }
  closedir(dir);
  assert_int_equal(n, (int)(sizeof bad_cases / sizeof bad_cases[0]));
}

static void test_scene_syntax_error_has_line_and_column(void** state) {
  (void)state;
  char path[512];
  st_path(path, sizeof path, "bad_syntax.json");
  arb_scene* scene = NULL;
  arb_scene_error err;
  assert_int_equal(arb_scene_load_file(path, &scene, &err), ARB_E_CORRUPT);
  assert_int_equal(err.line, 4);
  assert_true(err.column > 0);
  char line[1024], want[600];
  arb_scene_error_format(&err, line, sizeof line);
  snprintf(want, sizeof want, "%s:4:", path);
  assert_int_equal(strncmp(line, want, strlen(want)), 0);
}

static void test_scene_bad_inline(void** state) {
  (void)state;
  static const st_refused cases[] = {
      {"{\"bodies\":[{\"shape\":{\"circle\":{\"radius\":0.001}}}]}", ARB_E_RANGE,
       "bodies[0].shape.circle.radius", "must be at least 0.005"},
      {"{\"bodies\":[{\"shape\":{\"box\":{\"half_width\":1}}}]}", ARB_E_INVAL,
       "bodies[0].shape.box.half_height", "missing (required)"},
      {"{\"bodies\":[{\"shape\":{\"polygon\":{\"points\":[[0,0],[1,0]]}}}]}", ARB_E_INVAL,
       "bodies[0].shape.polygon.points", "a polygon needs 3 to 8 points, got 2"},
      {"{\"bodies\":[{\"shape\":{\"polygon\":{\"points\":[[0,0],[1,0],[2,0]]}}}]}", ARB_E_INVAL,
       "bodies[0].shape.polygon.points", "collinear"},
      {"{\"bodies\":[{\"shape\":{\"polygon\":{\"points\":[[0,0],[1,0],[1,\"a\"]]}}}]}", ARB_E_INVAL,
       "bodies[0].shape.polygon.points[2][1]", "expected a number, got a string"},
      {"{\"bodies\":[{\"type\":\"static\",\"shape\":{\"segment\":{\"a\":[1,1],\"b\":[1,1]}}}]}",
       ARB_E_INVAL, "bodies[0].shape.segment.b", "coincide"},
      {"{\"bodies\":[{\"shape\":{}}]}", ARB_E_INVAL, "bodies[0].shape", "has 0"},
      {"{\"bodies\":[{\"shape\":{\"circle\":5}}]}", ARB_E_INVAL, "bodies[0].shape.circle",
       "expected an object, got an integer"},
      {"{\"bodies\":[{\"name\":\"\",\"shape\":{\"circle\":{\"radius\":1}}}]}", ARB_E_INVAL,
       "bodies[0].name", "must not be empty"},
      {"{\"bodies\":[{\"name\":\"a\\nb\",\"shape\":{\"circle\":{\"radius\":1}}}]}", ARB_E_INVAL,
       "bodies[0].name", "control character"},
      {"{\"bodies\":[{\"name\":"
       "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"shape\":{"
       "\"circle\":"
       "{\"radius\":1}}}]}",
       ARB_E_TOO_BIG, "bodies[0].name", "longer than 64 bytes"},
      {"{\"bodies\":[{\"shape\":{\"circle\":{\"radius\":1}},\"density\":0}]}", ARB_E_RANGE,
       "bodies[0].density", "must be > 0"},
      {"{\"bodies\":[{\"shape\":{\"circle\":{\"radius\":1}},\"density\":1e39}]}", ARB_E_NONFINITE,
       "bodies[0].density", "not a finite float32"},
      {"{\"bodies\":[{\"shape\":{\"circle\":{\"radius\":1}},\"fixed_rotation\":1}]}", ARB_E_INVAL,
       "bodies[0].fixed_rotation", "expected true or false, got an integer"},
      {"{\"bodies\":[{\"shape\":{\"circle\":{\"radius\":1}},\"position\":[2e6,0]}]}", ARB_E_RANGE,
       "bodies[0].position[0]", "must be between -1000000 and 1000000"},
      {"{\"bodies\":{}}", ARB_E_INVAL, "bodies", "expected an array of bodies, got an object"},
      {"{\"bodies\":[7]}", ARB_E_INVAL, "bodies[0]", "expected an object, got an integer"},
      {"{\"seed\":-1}", ARB_E_INVAL, "seed", "non-negative integer"},
      {"{\"substeps\":65}", ARB_E_RANGE, "substeps", "between 1 and 64"},
      {"{\"name\":5}", ARB_E_INVAL, "name", "expected a string"},
      {"{\"spawn_points\":[]}", ARB_E_INVAL, "spawn_points", "needs 1 to 1024 points, got 0"},
      {"{\"avatar\":{\"shape\":{\"segment\":{\"a\":[0,0],\"b\":[1,0]}}}}", ARB_E_INVAL,
       "avatar.shape.segment", "only static or kinematic"},
      {"{\"avatar\":{\"controller\":{\"air_control\":1.5}}}", ARB_E_RANGE,
       "avatar.controller.air_control", "between 0 and 1"},
      {"{\"avatar\":{\"controller\":{\"mode\":\"sideways\"}}}", ARB_E_INVAL,
       "avatar.controller.mode", "unknown value"},
      {"{\"avatar\":{\"wings\":2}}", ARB_E_INVAL, "avatar.wings", "unknown key"},
      {"{\"wheels\":[]}", ARB_E_INVAL, "wheels",
       "unknown key (expected one of: version, name, seed"},
      {"{\"gravity\":[0,-9.81]} x", ARB_E_CORRUPT, "", "invalid JSON"},
      {"{\"a\":\"\\u0000\"}", ARB_E_CORRUPT, "", "invalid JSON"},
      {"{\"gravity\":[0,1e25]}", ARB_E_RANGE, "gravity[1]", "between -1000 and 1000"},
      {"{\"tick_rate\":99999999999999999999999999}", ARB_E_CORRUPT, "", "too big integer"},
      {"{\"bodies\":[{\"shape\":{\"box\":{\"half_width\":5000,\"half_height\":1,\"center\":[9000,0]"
       "}}}]}",
       ARB_E_RANGE, "bodies[0].shape.box", "reaches farther than 10000 m"},
      {"\"just a string\"", ARB_E_CORRUPT, "", "expected near"},
  };
  st_expect_refused(cases, sizeof cases / sizeof cases[0], "inline");
}

static void test_scene_limits(void** state) {
  (void)state;
  arb_scene* scene = NULL;
  arb_scene_error err;
  // Nesting: refused before a tree is built.
  size_t depth = ARB_SCENE_MAX_DEPTH + 1;
  char* deep = malloc(2 * depth + 16);
  assert_non_null(deep);
  size_t n = 0;
  n += (size_t)sprintf(deep, "{\"a\":");
  for (size_t i = 0; i < depth; i++) deep[n++] = '[';
  for (size_t i = 0; i < depth; i++) deep[n++] = ']';
  deep[n++] = '}';
  assert_int_equal(arb_scene_load_string(deep, n, "deep", &scene, &err), ARB_E_TOO_BIG);
  assert_non_null(strstr(err.message, "nested deeper than 64"));
  free(deep);

  // Body count: over the limit is refused with the path of the array.
  size_t count = ARB_SCENE_MAX_BODIES + 1;
  char* many = malloc(2 * count + 32);
  assert_non_null(many);
  n = (size_t)sprintf(many, "{\"bodies\":[");
  for (size_t i = 0; i < count; i++) {
    many[n++] = '0';
    many[n++] = ',';
  }
  many[n - 1] = ']';
  many[n++] = '}';
  assert_int_equal(arb_scene_load_string(many, n, "many", &scene, &err), ARB_E_TOO_BIG);
  assert_string_equal(err.path, "bodies");
  assert_non_null(strstr(err.message, "100001 bodies, the limit is 100000"));
  free(many);

  // File size: a sparse file just over the limit.
  char tmp[] = "/tmp/arb_scene_big_XXXXXX";
  int fd = mkstemp(tmp);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)ARB_SCENE_MAX_FILE_SIZE + 1), 0);
  close(fd);
  assert_int_equal(arb_scene_load_file(tmp, &scene, &err), ARB_E_TOO_BIG);
  assert_non_null(strstr(err.message, "larger than the limit"));
  unlink(tmp);

  assert_int_equal(arb_scene_load_file("/nonexistent/scene.json", &scene, &err), ARB_E_IO);
  assert_string_equal(err.file, "/nonexistent/scene.json");
  assert_non_null(strstr(err.message, "cannot open"));
  assert_null(scene);
}

static void test_scene_defaults_applied(void** state) {
  (void)state;
  arb_scene* scene = st_load("minimal.json");
  assert_string_equal(arb_scene_get_name(scene), "minimal");
  assert_int_equal(arb_scene_get_tick_rate(scene), 60);
  arb_vec2 g = arb_scene_get_gravity(scene);
  assert_true(g.x == 0.0f && g.y == -9.81f);
  assert_int_equal(arb_scene_get_substeps(scene), arb_default_world_def().substeps);
  assert_int_equal(arb_scene_get_seed(scene), 0);
  assert_int_equal(arb_scene_get_body_count(scene), 1);
  assert_null(arb_scene_get_body_name(scene, 0));
  assert_null(arb_scene_get_body_def(scene, 1));
  const arb_body_def* d = arb_scene_get_body_def(scene, 0);
  assert_int_equal(d->type, ARB_BODY_DYNAMIC);
  assert_int_equal(d->shape.type, ARB_SHAPE_CIRCLE);
  assert_true(d->shape.circle.radius == 0.5f);
  assert_true(d->shape.density == 1.0f);
  assert_true(d->shape.friction == 0.6f);
  assert_true(d->shape.restitution == 0.0f);
  assert_true(d->mass == 0.0f);
  assert_true(d->gravity_scale == 1.0f);
  assert_true(d->position.x == 0.0f && d->position.y == 0.0f);
  assert_int_equal(d->shape.category_bits, 1);
  assert_int_equal(d->shape.mask_bits, 0xFFFFFFFFu);
  // No avatar section and no spawn points: the documented defaults.
  const arb_scene_avatar* av = arb_scene_get_avatar(scene);
  assert_int_equal(av->controller, ARB_CONTROLLER_FORCE);
  assert_int_equal(av->force.mode, ARB_FORCE_MODE_AUTO);
  assert_int_equal(av->body.shape.type, ARB_SHAPE_CIRCLE);
  assert_true(av->body.shape.circle.radius == 0.5f);
  assert_true(av->body.fixed_rotation);
  assert_true(av->force.max_force == 20.0f && av->force.max_speed == 5.0f &&
              av->force.jump_impulse == 0.0f);
  assert_int_equal(arb_scene_get_spawn_point_count(scene), 1);
  size_t len = 0;
  assert_non_null(arb_scene_get_text(scene, &len));
  assert_true(len > 0);
  assert_true(arb_scene_get_hash(scene) != 0);
  arb_scene_destroy(scene);
}

static void test_scene_all_keys(void** state) {
  (void)state;
  arb_scene* scene = st_load("mixed.json");
  assert_string_equal(arb_scene_get_name(scene), "mixed");
  assert_int_equal(arb_scene_get_seed(scene), 42);
  assert_int_equal(arb_scene_get_tick_rate(scene), 120);
  assert_int_equal(arb_scene_get_substeps(scene), 2);
  assert_int_equal(arb_scene_get_world_def(scene).substeps, 2);
  int i = arb_scene_find_body(scene, "floor");
  assert_int_equal(i, 0);
  assert_int_equal(arb_scene_get_body_def(scene, i)->shape.type, ARB_SHAPE_SEGMENT);
  assert_int_equal(arb_scene_get_body_def(scene, i)->type, ARB_BODY_STATIC);
  const arb_body_def* sp = arb_scene_get_body_def(scene, arb_scene_find_body(scene, "spinner"));
  assert_int_equal(sp->type, ARB_BODY_KINEMATIC);
  assert_true(sp->angular_velocity == 1.5f);
  const arb_body_def* hex = arb_scene_get_body_def(scene, arb_scene_find_body(scene, "hexagon"));
  assert_int_equal(hex->shape.polygon.count, 6);
  assert_true(hex->angle == 0.3f && hex->shape.density == 2.0f && hex->shape.restitution == 0.2f);
  const arb_body_def* ball = arb_scene_get_body_def(scene, arb_scene_find_body(scene, "ball"));
  assert_true(ball->bullet && ball->linear_velocity.x == -2.0f &&
              ball->shape.circle.center.x == 0.1f);
  const arb_body_def* heavy = arb_scene_get_body_def(scene, arb_scene_find_body(scene, "heavy"));
  assert_true(heavy->mass == 10.0f && heavy->linear_damping == 0.5f &&
              heavy->angular_damping == 0.5f);
  const arb_body_def* ghost = arb_scene_get_body_def(scene, arb_scene_find_body(scene, "ghost"));
  assert_int_equal(ghost->shape.category_bits, 2);
  assert_int_equal(ghost->shape.mask_bits, 1);
  assert_int_equal(ghost->shape.group, -1);
  assert_true(arb_scene_get_body_def(scene, arb_scene_find_body(scene, "floaty"))->gravity_scale ==
              0.25f);
  assert_true(arb_scene_get_body_def(scene, arb_scene_find_body(scene, "upright"))->fixed_rotation);
  assert_int_equal(arb_scene_find_body(scene, "nobody"), -1);
  const arb_scene_avatar* av = arb_scene_get_avatar(scene);
  assert_int_equal(av->body.shape.type, ARB_SHAPE_POLYGON);
  assert_true(av->body.shape.density == 1.5f && av->force.max_force == 40.0f &&
              av->force.jump_impulse == 5.0f);
  assert_int_equal(arb_scene_get_spawn_point_count(scene), 2);
  assert_true(arb_scene_get_spawn_point(scene, 1).x == 2.0f);

  arb_world* world = NULL;
  arb_body_id ids[16];
  assert_int_equal(arb_scene_create_world(scene, &world, ids, 16), ARB_OK);
  assert_int_equal(arb_world_get_body_count(world), arb_scene_get_body_count(scene));
  assert_true(arb_body_get_mass(world, ids[arb_scene_find_body(scene, "heavy")]) == 10.0f);
  arb_world_destroy(world);
  arb_scene_destroy(scene);
}

static void test_scene_default_loads(void** state) {
  (void)state;
  arb_scene* scene = st_load(NULL);
  assert_string_equal(arb_scene_get_name(scene), "default-arena");
  assert_int_equal(arb_scene_get_spawn_point_count(scene), 8);
  assert_true(arb_scene_get_body_count(scene) > 20);
  assert_true(arb_scene_get_avatar(scene)->force.jump_impulse > 0.0f);
  size_t len = 0;
  const char* text = arb_scene_get_text(scene, &len);
  assert_int_equal(len, strlen(arb_scene_default_text()));
  assert_memory_equal(text, arb_scene_default_text(), len);
  // The default scene is the file in the source tree, byte for byte.
  size_t file_len = 0;
  char* buf = arb_test_read_file(ARB_DEFAULT_SCENE_FILE, &file_len);
  assert_non_null(buf);
  assert_int_equal(file_len, len);
  assert_memory_equal(buf, text, len);
  free(buf);
  arb_scene_destroy(scene);
}

static void test_scene_every_good_file_loads(void** state) {
  (void)state;
  static const char* const good[] = {"minimal.json", "stack.json", "pyramid.json", "mixed.json",
                                     "topdown.json"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) arb_scene_destroy(st_load(good[i]));
}

ARB_TEST_MAIN(cmocka_unit_test(test_scene_bad_files_give_path_and_reason),
              cmocka_unit_test(test_scene_every_bad_file_is_in_the_table),
              cmocka_unit_test(test_scene_syntax_error_has_line_and_column),
              cmocka_unit_test(test_scene_bad_inline), cmocka_unit_test(test_scene_limits),
              cmocka_unit_test(test_scene_defaults_applied), cmocka_unit_test(test_scene_all_keys),
              cmocka_unit_test(test_scene_default_loads),
              cmocka_unit_test(test_scene_every_good_file_loads))
