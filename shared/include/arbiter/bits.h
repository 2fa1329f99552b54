// arbiter — bit scanning for sets kept as 64-bit words (a bit per index, read back in
// increasing order). Stand-alone, header-only, so every library may use it.
#pragma once

#include "base.h"

ARB_C_BEGIN

/// Index of the lowest set bit of x (x != 0).
static inline int arb_lowest_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll((unsigned long long)x);
#else
  int i = 0;
  for (; !(x & 1u); x >>= 1) ++i;
  return i;
#endif
}

ARB_C_END
