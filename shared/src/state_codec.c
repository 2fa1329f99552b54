// DETERMINISM-CRITICAL: the codec behind every canonical state serialization (the world,
// its extras, the game layer). The field operations are inline in arbiter/state_codec.h;
// this file holds the set-up and the slow paths (a full staging chunk, a short input).
#define XXH_INLINE_ALL
#include "arbiter/state_codec.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "xxh3_update.h"

void arb__xxh3_update_portable(void* xxh3_state, const void* bytes, size_t n) {
  XXH3_64bits_update((XXH3_state_t*)xxh3_state, bytes, n);
}

arb__xxh3_update_fn* arb__xxh3_update_select(void) {
#if defined(ARB_AVX2_LANES) && !defined(ARB_NO_SIMD)
  const char* env = getenv("ARBITER_SIMD");
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && !(env && strcmp(env, "sse2") == 0))
    return arb__xxh3_update_avx2;
#endif
  return arb__xxh3_update_portable;
}

static void arb__codec_zero(arb_codec* c, arb_codec_mode mode) {
  c->mode = mode;
  c->base = c->cur = c->end = NULL;
  c->in = NULL;
  c->in_len = c->in_pos = 0;
  c->flushed = 0;
  c->hash_state = NULL;
  c->hash_update = NULL;
  c->err = 0;
}

void arb_codec_init_count(arb_codec* c) {
  arb__codec_zero(c, ARB_CODEC_COUNT);
  c->base = c->cur = c->chunk;
  c->end = c->chunk + sizeof c->chunk;
}

void arb_codec_init_hash(arb_codec* c, void* xxh3_state) {
  arb_codec_init_count(c);
  c->mode = ARB_CODEC_HASH;
  c->hash_state = xxh3_state;
  c->hash_update = arb__xxh3_update_select();
}

void arb_codec_init_hash_staged(arb_codec* c) {
  arb_codec_init_count(c);
  c->mode = ARB_CODEC_HASH;  // hash_state NULL: a flush drops the chunk, as counting does
}

void arb_codec_init_write(arb_codec* c, uint8_t* buf, size_t cap) {
  arb__codec_zero(c, ARB_CODEC_WRITE);
  c->base = c->cur = buf;
  c->end = buf + cap;
}

void arb_codec_init_read(arb_codec* c, const uint8_t* buf, size_t len) {
  arb__codec_zero(c, ARB_CODEC_READ);
  c->in = buf;
  c->in_len = buf ? len : 0;
}

void arb_codec_flush(arb_codec* c) {
  if (c->mode != ARB_CODEC_COUNT && c->mode != ARB_CODEC_HASH) return;
  size_t n = (size_t)(c->cur - c->base);
  if (c->hash_state && n > 0) c->hash_update(c->hash_state, c->base, n);
  c->flushed += n;
  c->cur = c->base;
}

// The slow path of a field operation: a reader short of bytes, a writer out of room, a
// full staging chunk, or an error already set. Field operations move at most 8 bytes at
// a time, far below the staging chunk.
bool arb__codec_room(arb_codec* c, size_t n) {
  if (c->err) return false;
  if (c->mode == ARB_CODEC_READ) {
    if (c->in_len - c->in_pos >= n) return true;
    arb_codec_fail(c, ARB_E_TRUNCATED);
    return false;
  }
  if ((size_t)(c->end - c->cur) >= n) return true;
  if (c->mode == ARB_CODEC_WRITE) {
    arb_codec_fail(c, ARB_E_NOSPACE);
    return false;
  }
  arb_codec_flush(c);
  return true;
}
