// tests — scenes for the game-layer tests: a file of tests/scenes (or the built-in scene)
// loaded, and its world built, or the test fails with the loader's message.
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arbiter/scene.h>

#ifndef ARB_TEST_SCENES_DIR
#error "ARB_TEST_SCENES_DIR must name tests/scenes"
#endif

// The path of `file` of tests/scenes, into buf.
static inline void st_path(char* buf, size_t cap, const char* file) {
  snprintf(buf, cap, "%s/%s", ARB_TEST_SCENES_DIR, file);
}

// `file` of tests/scenes, or the built-in scene for NULL.
static inline arb_scene* st_load(const char* file) {
  arb_scene* scene = NULL;
  arb_scene_error err;
  int rc;
  if (!file) {
    rc = arb_scene_load_default(&scene, &err);
  } else {
    char path[512];
    st_path(path, sizeof path, file);
    rc = arb_scene_load_file(path, &scene, &err);
  }
  if (rc) print_error("%s: %s: %s\n", err.file, err.path, err.message);
  assert_int_equal(rc, ARB_OK);
  return scene;
}

// The scene's world (arb_world_destroy it).
static inline arb_world* st_world(const arb_scene* scene) {
  arb_world* w = NULL;
  assert_int_equal(arb_scene_create_world(scene, &w, NULL, 0), ARB_OK);
  return w;
}

// A test on the world of one file of tests/scenes, opened before the test and closed after
// it, also when it fails: ST_WORLD_TEST(test_fn, "file.json") in the test list; the
// test's *state is the st_scene_world.
typedef struct st_scene_world {
  arb_scene* scene;
  arb_world* w;
} st_scene_world;

static inline int st_setup_world(void** state) {
  st_scene_world* sw = calloc(1, sizeof *sw);
  assert_non_null(sw);
  sw->scene = st_load((const char*)*state);
  sw->w = st_world(sw->scene);
  *state = sw;
  return 0;
}

static inline int st_teardown_world(void** state) {
  st_scene_world* sw = *state;
  arb_world_destroy(sw->w);
  arb_scene_destroy(sw->scene);
  free(sw);
  return 0;
}

#define ST_WORLD_TEST(test, file) \
  cmocka_unit_test_prestate_setup_teardown(test, st_setup_world, st_teardown_world, (void*)(file))

// A scene text the loader must refuse: the error code, the JSON path of the error and a
// part of its message.
typedef struct st_refused {
  const char* text;
  int code;
  const char* path;
  const char* message;
} st_refused;

// Loads each case's text (named `file` in errors) and checks it is refused as listed,
// with no scene.
static inline void st_expect_refused(const st_refused* cases, size_t n, const char* file) {
  for (size_t i = 0; i < n; i++) {
    arb_scene* scene = NULL;
    arb_scene_error err;
    memset(&err, 0, sizeof err);
    int rc = arb_scene_load_string(cases[i].text, strlen(cases[i].text), file, &scene, &err);
    if (rc != cases[i].code || strcmp(err.path, cases[i].path) != 0 ||
        !strstr(err.message, cases[i].message)) {
      print_error("case %zu: got %s path \"%s\" message \"%s\"\n", i, arb_err_name(rc), err.path,
                  err.message);
    }
    assert_int_equal(rc, cases[i].code);
    assert_null(scene);
    assert_string_equal(err.path, cases[i].path);
    assert_non_null(strstr(err.message, cases[i].message));
    assert_string_equal(err.file, file);
  }
}
