// DETERMINISM-CRITICAL: the contact solver's wide part with 8 lanes (AVX2), chosen at run
// time where the CPU has AVX2 (arb__contact_lanes_select). Only this file is compiled
// with -mavx2 (shared/CMakeLists.txt, x86-64 only), which brings no fused multiply-add:
// each wide operation (lanes_x86.h, shared with contact_solver.c's 4 lanes) is lane for
// lane the same IEEE result at both widths, so both give the same bits (tested:
// test_solver_lanes).
#include "contact_lanes.h"

#if defined(ARB_AVX2_LANES) && !defined(ARB_NO_SIMD)

#include <immintrin.h>
#include <string.h>

#define ARB__FW_LANES 8
#include "lanes_x86.h"

// Four words of lanes i and i + 4 side by side: the 4x4 transposes run in both halves at once.
static inline __m256 arb__row_pair(const arb__body_state* st, const int32_t idx[8], int i,
                                   size_t offset) {
  __m128 lo = _mm_loadu_ps((const float*)((const char*)&st[idx[i]] + offset));
  __m128 hi = _mm_loadu_ps((const float*)((const char*)&st[idx[i + 4]] + offset));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

// 4x4 transposes of the two 128-bit halves (what _MM_TRANSPOSE4_PS does to one).
static inline void arb__transpose_halves(__m256* r0, __m256* r1, __m256* r2, __m256* r3) {
  __m256 t0 = _mm256_unpacklo_ps(*r0, *r1), t1 = _mm256_unpacklo_ps(*r2, *r3);
  __m256 t2 = _mm256_unpackhi_ps(*r0, *r1), t3 = _mm256_unpackhi_ps(*r2, *r3);
  *r0 = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
  *r1 = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
  *r2 = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
  *r3 = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

// Loads the four 32-bit words at byte `offset` of eight body states, transposed: out[k]
// holds word k of the eight lanes.
static inline void arb__gather_words(const arb__body_state* st, const int32_t idx[8], size_t offset,
                                     fw out[4]) {
  __m256 r0 = arb__row_pair(st, idx, 0, offset), r1 = arb__row_pair(st, idx, 1, offset);
  __m256 r2 = arb__row_pair(st, idx, 2, offset), r3 = arb__row_pair(st, idx, 3, offset);
  arb__transpose_halves(&r0, &r1, &r2, &r3);
  out[0] = r0;
  out[1] = r1;
  out[2] = r2;
  out[3] = r3;
}

// The inverse, skipping the lanes at the dummy.
static inline void arb__scatter_words(arb__body_state* st, const int32_t idx[8], size_t offset,
                                      const fw in[4], int dummy) {
  __m256 r[4] = {in[0], in[1], in[2], in[3]};
  arb__transpose_halves(&r[0], &r[1], &r[2], &r[3]);
  for (int i = 0; i < 4; ++i) {
    if (idx[i] != dummy)
      _mm_storeu_ps((float*)((char*)&st[idx[i]] + offset), _mm256_castps256_ps128(r[i]));
    if (idx[i + 4] != dummy)
      _mm_storeu_ps((float*)((char*)&st[idx[i + 4]] + offset), _mm256_extractf128_ps(r[i], 1));
  }
}

#define ARB__W 8
#define ARB__LANES_NAME arb__contact_lanes_8
#include "contact_lanes.inc"

#endif
