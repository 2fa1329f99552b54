// XXH3-64's streaming update compiled with -mavx2 (only this file is; see
// xxh3_update.h): the per-tick state hash feeds megabytes through it, and its 32-byte
// stripes take half the instructions of the 16-byte SSE2 ones. Without the AVX2 build
// (another architecture or compiler) it is the portable update under this name, never
// chosen.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "xxh3_update.h"

void arb__xxh3_update_avx2(void* xxh3_state, const void* bytes, size_t n) {
  XXH3_64bits_update((XXH3_state_t*)xxh3_state, bytes, n);
}
