// DETERMINISM-CRITICAL: the wide float operations of the contact solver (`fw`) on an x86
// vector register, one definition for both widths: 4 lanes (SSE2, contact_solver.c) and 8
// lanes (AVX2, contact_solver_avx2.c). Each operation is the same IEEE operation per lane at
// either width, which is why the two solvers give the same bits (test_solver_lanes).
//
// Include once, with ARB__FW_LANES defined to 4 or 8 and the matching intrinsics header
// (<emmintrin.h> or <immintrin.h>) included.
#pragma once

#include <stdbool.h>

#if ARB__FW_LANES == 8
typedef __m256 fw;
#define ARB__FW(op) _mm256_##op
// Ordered comparisons, false for NaN: what _mm_cmpgt_ps and _mm_cmple_ps do at 4 lanes.
#define ARB__FW_GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define ARB__FW_LE(a, b) _mm256_cmp_ps(a, b, _CMP_LE_OQ)
#elif ARB__FW_LANES == 4
typedef __m128 fw;
#define ARB__FW(op) _mm_##op
#define ARB__FW_GT(a, b) _mm_cmpgt_ps(a, b)
#define ARB__FW_LE(a, b) _mm_cmple_ps(a, b)
#else
#error "ARB__FW_LANES must be 4 or 8"
#endif

static inline fw fw_set(float a) {
  return ARB__FW(set1_ps)(a);
}
static inline fw fw_zero(void) {
  return ARB__FW(setzero_ps)();
}
#define ARB__FW_OP(name, expr)        \
  static inline fw name(fw a, fw b) { \
    return (expr);                    \
  }
ARB__FW_OP(fw_add, ARB__FW(add_ps)(a, b))
ARB__FW_OP(fw_sub, ARB__FW(sub_ps)(a, b))
ARB__FW_OP(fw_mul, ARB__FW(mul_ps)(a, b))
ARB__FW_OP(fw_max, ARB__FW(max_ps)(a, b))  // a > b ? a : b per lane
ARB__FW_OP(fw_min, ARB__FW(min_ps)(a, b))  // a < b ? a : b per lane
ARB__FW_OP(fw_gt, ARB__FW_GT(a, b))
ARB__FW_OP(fw_le, ARB__FW_LE(a, b))
ARB__FW_OP(fw_and, ARB__FW(and_ps)(a, b))
/// mask ? a : b per lane.
static inline fw fw_select(fw mask, fw a, fw b) {
  return ARB__FW(or_ps)(ARB__FW(and_ps)(mask, a), ARB__FW(andnot_ps)(mask, b));
}
static inline bool fw_any(fw mask) {
  return ARB__FW(movemask_ps)(mask) != 0;
}
static inline float fw_lane(fw a, int i) {
  float t[ARB__FW_LANES];
  ARB__FW(storeu_ps)(t, a);
  return t[i];
}
