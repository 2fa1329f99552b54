// DETERMINISM-CRITICAL: the state hash, XXH3-64 over the canonical serialization of the
// simulated state (world_codec.c: the same visitors write the save image, minus user
// data, which is not simulated), in which the slot of a static or sleeping body stands as
// the 8-byte little-endian XXH3-64 of its own bytes (hash_cache.c): a body at rest costs
// its digest, which the cache keeps, instead of its bytes.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "world.h"

uint64_t arb_world_hash(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  if (!w) return 0;
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  arb_codec c;
  arb_codec_init_hash(&c, &state);
  arb__world_image img;
  arb__world_image_of(w, &img);
  img.hash_cache = arb__hash_cache_get(w);    // NULL (out of memory): every digest anew
  arb__world_codec(&c, (arb_world*)w, &img);  // writing: no allocation, no store
  arb_codec_flush(&c);
  return XXH3_64bits_digest(&state);
}

uint64_t arb__hash_bytes(const void* p, size_t n) {
  return XXH3_64bits(p, n);
}
