// ARB_ASSERT: programmer errors (stale or null ids) stop a build with asserts (debug,
// asan) in its tracks, while release keeps the documented soft failure; data from a file
// or the network never asserts. The death test forks: the child makes the mistake with
// the default handler, the parent checks how it ended.
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <arbiter/vehicle.h>

#include "../common/test_main.h"
#include "world_test_util.h"

// Child: use a destroyed body's id with the default handler. Exit code 0 = no abort.
static void stale_body_read_in_child(void) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_id a = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 0.5f, 0.5f);
  if (arb_body_destroy(w, a) != 0) _exit(2);
  arb_body_type t = arb_body_get_type(w, a);  // the bug: a stale id
  _exit(t == ARB_BODY_STATIC ? 0 : 3);        // release: the soft failure's default
}

static void test_stale_body_id_aborts_when_asserts_are_on(void** state) {
  (void)state;
  arb_set_assert_handler(NULL);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) stale_body_read_in_child();
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (ARB_ASSERT_ENABLED) {
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
  } else {
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
  }
}

static void test_every_id_check_asserts_then_fails_softly(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_id a = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 0.5f, 0.5f);
  arb_body_id keep = wt_box(w, ARB_BODY_DYNAMIC, 3.0f, 0.0f, 0.5f, 0.5f);
  arb_vehicle_def vd = arb_default_vehicle_def();
  vd.chassis = keep;
  arb_extra_id car = arb_vehicle_create(w, &vd);
  assert_false(arb_extra_id_is_null(car));
  assert_int_equal(arb_vehicle_destroy(w, car), 0);
  assert_int_equal(arb_body_destroy(w, a), 0);
  wt_soft_asserts();
  // Asking is not a mistake: validity queries never assert.
  assert_false(arb_body_is_valid(w, a));
  assert_false(arb_body_is_valid(w, arb_null_body_id));
  assert_int_equal(wt_assert_count, 0);
  // Each of these is one programmer error, then the documented default.
  assert_int_equal(arb_body_get_type(w, a), ARB_BODY_STATIC);
  assert_true(arb_body_get_position(w, arb_null_body_id).x == 0.0f);
  arb_body_apply_force_to_center(w, a, arb_v2(1.0f, 0.0f));
  assert_int_equal(arb_body_destroy(w, a), ARB_E_STALE_ID);
  assert_int_equal(arb_vehicle_set_input(w, car, 0.0f, 1.0f, 0.0f), ARB_E_STALE_ID);
  assert_int_equal(wt_assert_count, WT_ASSERTS(5));
  // A live body is untouched by all that.
  assert_true(arb_body_is_valid(w, keep));
  wt_expect_asserts(5);
  arb_world_destroy(w);
}

// Untrusted bytes are data, not programmer errors: a damaged image is refused with an
// error code and no assert, whatever byte is damaged.
static void test_untrusted_image_never_asserts(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 1.0f, 0.5f, 0.5f);
  wt_segment(w, -5.0f, 0.0f, 5.0f, 0.0f);
  for (int i = 0; i < 30; ++i) arb_world_step(w, 1.0f / 60.0f);
  int len = arb_world_save(w, NULL, 0);
  assert_true(len > 0);
  uint8_t* image = malloc((size_t)len);
  assert_non_null(image);
  assert_int_equal(arb_world_save(w, image, len), len);
  wt_soft_asserts();
  for (int i = 0; i < len; ++i) {
    image[i] ^= 0x5a;
    assert_true(arb_world_restore(w, image, len) < 0);
    image[i] ^= 0x5a;
    assert_true(arb_world_restore(w, image, i) < 0);  // cut short
  }
  assert_int_equal(arb_world_restore(w, image, len), 0);
  assert_int_equal(wt_assert_count, 0);
  arb_set_assert_handler(NULL);
  free(image);
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_stale_body_id_aborts_when_asserts_are_on),
              cmocka_unit_test(test_every_id_check_asserts_then_fails_softly),
              cmocka_unit_test(test_untrusted_image_never_asserts))
