// The seeded pseudo-random streams that tests and benches draw generated inputs from.
// Callers keep their own state (and seed), so each file's sequence is fixed by its seed
// alone and never by what other files draw.
#ifndef ARB_TEST_RNG_H
#define ARB_TEST_RNG_H

#include <stdint.h>

// xorshift64 (Marsaglia 13/7/17): advances *state one step and returns the new state
// (never 0 for a nonzero seed).
static inline uint64_t xorshift64_next(uint64_t* state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

// The Numerical Recipes LCG: advances *state one step and maps its top 24 bits to a float
// in [lo, hi).
static inline float lcg_uniform(uint32_t* state, float lo, float hi) {
  *state = *state * 1664525u + 1013904223u;
  return lo + (hi - lo) * (float)(*state >> 8) / 16777216.0f;
}

// A file's own stream: `rng_state` seeded with `seed` and rnd(lo, hi) drawing from it with
// lcg_uniform. One use per file, at file scope.
#define TEST_LCG_STREAM(seed)               \
  static uint32_t rng_state = (seed);       \
  static float rnd(float lo, float hi) {    \
    return lcg_uniform(&rng_state, lo, hi); \
  }

#endif
