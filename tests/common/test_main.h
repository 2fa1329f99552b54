// tests — the one way a cmocka test program runs its tests, so no test file repeats
// the array-and-run boilerplate of main:
//
//   ARB_TEST_MAIN(cmocka_unit_test(test_a), cmocka_unit_test(test_b))
//
// A program that reads one argument first uses ARB_TEST_MAIN_ARG (below); one that reads
// more, or needs a group fixture, writes its own main:
//
//   int main(int argc, char** argv) {
//     if (!arb_test_args(argc, argv, "ARBITER-SERVER", &g_server, NULL)) return 2;
//     return ARB_RUN_TESTS(group_setup, group_teardown, cmocka_unit_test(test_a));
//   }
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

// Runs the listed tests (cmocka_unit_test... entries) as one group named "tests", with
// optional group fixtures (NULL = none). Evaluates to cmocka's exit status.
#define ARB_RUN_TESTS(group_setup, group_teardown, ...)                                          \
  _cmocka_run_group_tests(                                                                       \
      "tests", (const struct CMUnitTest[]){__VA_ARGS__},                                         \
      sizeof((const struct CMUnitTest[]){__VA_ARGS__}) / sizeof(struct CMUnitTest), group_setup, \
      group_teardown)

// A test program whose main only runs its tests.
#define ARB_TEST_MAIN(...)                         \
  int main(void) {                                 \
    return ARB_RUN_TESTS(NULL, NULL, __VA_ARGS__); \
  }

// A test program whose one command-line argument (described by `usage`, e.g. "PROTOCOL.md")
// goes into the const char* `arg` before it runs its tests:
//   ARB_TEST_MAIN_ARG("SCENE.json", scene_path, cmocka_unit_test(test_a), ...)
#define ARB_TEST_MAIN_ARG(usage, arg, ...)                           \
  int main(int argc, char** argv) {                                  \
    if (!arb_test_args(argc, argv, (usage), &(arg), NULL)) return 2; \
    return ARB_RUN_TESTS(NULL, NULL, __VA_ARGS__);                   \
  }

// A test `name` that only calls fn(args...): one check run with several arguments, each
// its own named test, e.g. ARB_TEST_CASE(test_weld_breaks, hanging_weight, ARB_JOINT_WELD).
#define ARB_TEST_CASE(name, fn, ...) \
  static void name(void** state) {   \
    (void)state;                     \
    fn(__VA_ARGS__);                 \
  }

// Fails the test unless `text` contains every one of the strings that follow, naming the
// first one missing and showing the text: ARB_ASSERT_HAS(out, "OK", "ticks/s").
#define ARB_ASSERT_HAS(text, ...) \
  arb_assert_has((text), __FILE__, __LINE__, __VA_ARGS__, (const char*)NULL)
static inline void arb_assert_has(const char* text, const char* file, int line, ...) {
  va_list ap;
  va_start(ap, line);
  for (const char* want; (want = va_arg(ap, const char*)) != NULL;) {
    if (!text || !strstr(text, want)) {
      va_end(ap);
      print_error("missing \"%s\" in:\n%s\n", want, text ? text : "(null)");
      _fail(file, line);
      return;
    }
  }
  va_end(ap);
}

// Points each target (a NULL-terminated list of `const char**`) at the next command-line
// argument, in order. With fewer arguments than targets, prints "usage: PROGRAM USAGE" to
// stderr and returns false (the caller exits with status 2, as for any bad usage).
static inline bool arb_test_args(int argc, char** argv, const char* usage, ...) {
  va_list ap;
  va_start(ap, usage);
  int i = 1;
  bool ok = true;
  for (const char** target; (target = va_arg(ap, const char**)) != NULL; ++i) {
    if (i >= argc) {
      ok = false;
      break;
    }
    *target = argv[i];
  }
  va_end(ap);
  if (!ok) fprintf(stderr, "usage: %s %s\n", argv[0], usage);
  return ok;
}
