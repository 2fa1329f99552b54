// Folds float32 results into one FNV-1a 64-bit value, byte by byte in little-endian order,
// for the bit-exact golden tests: one changed bit in any result changes the value checked.
#ifndef ARB_TEST_FNV_BITS_H
#define ARB_TEST_FNV_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint64_t fnv_bits(uint64_t h, float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  for (int i = 0; i < 4; ++i) {
    h ^= (u >> (8 * i)) & 0xffu;
    h *= 1099511628211ull;
  }
  return h;
}

#endif
