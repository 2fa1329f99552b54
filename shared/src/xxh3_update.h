// The state hash's XXH3-64 streaming update in two builds: the portable one (SSE2 on
// x86-64) and one compiled for AVX2 (xxh3_update_avx2.c). XXH3 defines one result for
// every vector width, so both give the same hash; the AVX2 one is chosen at run time
// where the CPU has it, as the contact solver's 8 lanes are, and ARBITER_SIMD=sse2
// keeps the portable one.
#pragma once

#include <stddef.h>

/// Feeds n bytes to an XXH3_state_t.
typedef void arb__xxh3_update_fn(void* xxh3_state, const void* bytes, size_t n);

/// The portable build.
void arb__xxh3_update_portable(void* xxh3_state, const void* bytes, size_t n);
/// The AVX2 build; call only where arb__xxh3_update_select() would choose it.
void arb__xxh3_update_avx2(void* xxh3_state, const void* bytes, size_t n);
/// The AVX2 build when this build has it, the CPU runs it and ARBITER_SIMD is not "sse2";
/// else the portable one. Reads the environment: ask once per hash, not per chunk.
arb__xxh3_update_fn* arb__xxh3_update_select(void);
