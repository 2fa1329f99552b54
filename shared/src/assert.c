// The assert handler behind ARB_ASSERT (arbiter/base.h). Only programmer errors reach it,
// and only in builds with asserts; the abort here is what makes such a bug loud in the
// debug build instead of a silently returned default.
#include <stdio.h>
#include <stdlib.h>

#include <arbiter/base.h>

static bool arb__default_assert(const char* condition, const char* file, int line) {
  fprintf(stderr, "%s:%d: assert failed: %s\n", file, line, condition);
  return true;
}

static arb_assert_fn* arb__assert_handler = arb__default_assert;

void arb_set_assert_handler(arb_assert_fn* handler) {
  arb__assert_handler = handler ? handler : arb__default_assert;
}

void arb__assert_failed(const char* condition, const char* file, int line) {
  if (arb__assert_handler(condition, file, line)) abort();
}
