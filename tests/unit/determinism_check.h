// The determinism check shared by the golden-hash tests of the core and of the physics
// extras (cmocka; include after <cmocka.h>). For one scene it proves:
//   - the same scene built twice gives identical per-tick hashes;
//   - saving at tick save_at and restoring into a fresh world, then stepping, matches the
//     uninterrupted run tick by tick (restore + step == step), and saving the restored
//     world gives the same bytes;
//   - restoring over a world that already ran replays the same way;
//   - the final hash equals the golden value kept in the test.
#pragma once

#include <arbiter/world.h>
#include <stdio.h>
#include <stdlib.h>

#include "world_test_util.h"

typedef struct det_case {
  const char* name;
  arb_world* (*build)(void);
  void (*tick)(arb_world* w, int tick);  ///< called before each step, may be NULL
  uint64_t golden;                       ///< final hash after `ticks` steps
} det_case;

/// Optional extra comparison of the restored world with the original right after restore.
typedef void det_compare_fn(arb_world* restored, arb_world* original);

static inline void det_run(const det_case* c, arb_world* w, float dt, int from, int to,
                           uint64_t* hashes) {
  for (int t = from; t < to; ++t) {
    if (c->tick) c->tick(w, t);
    arb_world_step(w, dt);
    if (hashes) hashes[t] = arb_world_hash(w);
  }
}

/// Runs case c on w (just built) up to tick `ticks` and returns w's save image there (free
/// it); its length in *size. The image tests start from it.
static inline uint8_t* det_image_at(const det_case* c, arb_world* w, float dt, int ticks,
                                    int* size) {
  det_run(c, w, dt, 0, ticks, NULL);
  return wt_save(w, size);
}

static inline void det_check_case(const det_case* c, float dt, int ticks, int save_at,
                                  det_compare_fn* compare) {
  uint64_t* ha = calloc((size_t)ticks, sizeof *ha);
  uint64_t* hb = calloc((size_t)ticks, sizeof *hb);
  uint64_t* hc = calloc((size_t)ticks, sizeof *hc);
  arb_world* a = c->build();
  arb_world* b = c->build();
  assert_int_equal(arb_world_hash(a), arb_world_hash(b));
  det_run(c, a, dt, 0, ticks, ha);
  printf("golden %-9s 0x%016llxull\n", c->name, (unsigned long long)ha[ticks - 1]);
  // The world keeps changing: a hash that never changes would prove nothing.
  assert_true(ha[10] != ha[11]);

  det_run(c, b, dt, 0, save_at, hb);
  int size;
  uint8_t* img = wt_save(b, &size);
  arb_world_def wd = arb_default_world_def();
  arb_world* cw = arb_world_create(&wd);
  assert_int_equal(arb_world_restore(cw, img, size), 0);
  assert_int_equal(arb_world_hash(cw), arb_world_hash(b));
  assert_int_equal(arb_world_get_step_count(cw), save_at);
  assert_int_equal(arb_world_get_body_count(cw), arb_world_get_body_count(b));
  if (compare) compare(cw, b);
  uint8_t* img2 = malloc((size_t)size);
  assert_int_equal(arb_world_save(cw, img2, size), size);
  assert_memory_equal(img, img2, (size_t)size);
  det_run(c, b, dt, save_at, ticks, hb);
  det_run(c, cw, dt, save_at, ticks, hc);
  for (int t = 0; t < ticks; ++t) {
    if (ha[t] != hb[t]) fail_msg("%s: two identical runs differ at tick %d", c->name, t);
    if (t >= save_at && hc[t] != ha[t]) fail_msg("%s: restored run differs at tick %d", c->name, t);
  }
  assert_int_equal(arb_world_restore(a, img, size), 0);
  det_run(c, a, dt, save_at, ticks, NULL);
  assert_int_equal(arb_world_hash(a), ha[ticks - 1]);
  assert_true(c->golden != 0);
  if (ha[ticks - 1] != c->golden) {
    fail_msg("%s: final hash 0x%016llx, golden 0x%016llx", c->name,
             (unsigned long long)ha[ticks - 1], (unsigned long long)c->golden);
  }
  free(img);
  free(img2);
  free(ha);
  free(hb);
  free(hc);
  arb_world_destroy(a);
  arb_world_destroy(b);
  arb_world_destroy(cw);
}

/// Runs one cmocka test per case, named after it (`run` gets the case as `*state`), then
/// the `more` tests: the table of cases is the list of tests.
static inline int det_run_tests(const char* group, const det_case* cases, int n,
                                CMUnitTestFunction run, const struct CMUnitTest* more,
                                int more_count) {
  struct CMUnitTest tests[16];
  if (n + more_count > (int)(sizeof tests / sizeof tests[0])) {
    fprintf(stderr, "%s: %d tests, room for %zu\n", group, n + more_count,
            sizeof tests / sizeof tests[0]);
    return 1;
  }
  for (int i = 0; i < n; ++i)
    tests[i] = (struct CMUnitTest){cases[i].name, run, NULL, NULL, (void*)&cases[i]};
  for (int i = 0; i < more_count; ++i) tests[n + i] = more[i];
  return _cmocka_run_group_tests(group, tests, (size_t)(n + more_count), NULL, NULL);
}
