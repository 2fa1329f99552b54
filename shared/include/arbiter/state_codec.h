// arbiter — the canonical state codec: one field list per record drives save, hash and
// restore, so a field cannot be hashed and forgotten in restore (or the other way round).
//
// A record kind (a body, a contact, an avatar, ...) is described once, by a visitor that
// names its fields in their order in the bytes:
//
//   static void spring_fields(arb_codec* c, arb__spring* s) {
//     arb_codec_id(c, &s->body_a);
//     arb_codec_vec2(c, &s->local_a);
//     arb_codec_f32(c, &s->rest_length);
//     ARB_CODEC_CHECK(c, s->rest_length >= 0.0f);   // restore only: untrusted input
//   }
//
// The same visitor writes the fields into a buffer (save), feeds them to XXH3 (hash),
// only counts them (the size pass of a save) or reads them back (restore), depending on
// how the codec was initialised. Every value is little-endian, floats are IEEE binary32,
// never a raw struct (no padding bytes). Reading is bounded and total: a short input or a
// non-finite float sets a sticky error (ARB_E_TRUNCATED, ARB_E_NONFINITE), a failed
// ARB_CODEC_CHECK sets ARB_E_CORRUPT; later reads then return zeros, so a visitor needs no
// error checks of its own between fields. Writing through a visitor never stores into the
// visited object (the const of a saved world is cast away for the visit only).
//
// Adding a field to a record kind (e.g. a new body field: arb__body_fields in
// shared/src/world_codec.c):
//   1. one arb_codec_* call in the record's visitor, at the place it goes in the bytes;
//   2. its range, when it has one, as an ARB_CODEC_CHECK right after it (restore must
//      refuse what the simulation could never produce);
//   3. the documentation of the bytes: the layout comment and the layout string of the
//      world image (shared/src/snapshot.c; the string's hash is in every image, so old
//      images are refused with ARB_E_VERSION) or game_state.c's comment;
//   4. nothing else: save, hash and restore all run that visitor.
// The new bytes change the hash of every state, so the golden hashes and the committed
// replay logs are updated in the same change (scripts/record-replays.sh). A field that
// must leave existing states untouched goes in an optional tagged record written only
// when it differs from its default (as the ITER record in world_codec.c). A field that
// is not simulated (user data) is skipped in the hash with `if (!arb_codec_hashing(c))`
// around it, as body user data is.
#pragma once

#include <string.h>

#include "base.h"
#include "id.h"
#include "math.h"

ARB_C_BEGIN

// The field operations run once per field of every hashed body and contact each tick:
// forced inline, or the call overhead dominates the hash.
#if defined(__GNUC__)
#define ARB_CODEC_INLINE static inline __attribute__((always_inline))
#else
#define ARB_CODEC_INLINE static inline
#endif

typedef enum arb_codec_mode {
  ARB_CODEC_COUNT = 0,  ///< count the bytes only (size pass)
  ARB_CODEC_HASH,       ///< feed the bytes to an XXH3-64 state
  ARB_CODEC_WRITE,      ///< write into a caller buffer
  ARB_CODEC_READ,       ///< read from a caller buffer (restore)
} arb_codec_mode;

/// Caller-allocated codec state. Fields are readable; set them through the functions.
typedef struct arb_codec {
  arb_codec_mode mode;
  uint8_t* base;  ///< start of the staging chunk (count, hash) or of the buffer (write)
  uint8_t* cur;   ///< next byte to write
  uint8_t* end;
  const uint8_t* in;  ///< read: the input
  size_t in_len, in_pos;
  size_t flushed;    ///< bytes already handed on (count, hash)
  void* hash_state;  ///< XXH3_state_t* (hash)
  /// Feeds bytes to hash_state: XXH3's portable or AVX2 build, chosen by
  /// arb_codec_init_hash (the same hash either way).
  void (*hash_update)(void* xxh3_state, const void* bytes, size_t n);
  int err;  ///< sticky: 0 or the first ARB_E_* met
  uint8_t chunk[4096];
} arb_codec;

/// Count-only codec (the size pass of a save).
ARB_API void arb_codec_init_count(arb_codec* c);
/// Hash codec: bytes go to `xxh3_state` (an XXH3_state_t the caller has reset), in chunks.
ARB_API void arb_codec_init_hash(arb_codec* c, void* xxh3_state);
/// Hash codec without an XXH3 state: the bytes stay in the staging chunk, to be digested
/// as one piece (one record as the hash encodes it). A record longer than the chunk is
/// dropped when the chunk fills (c->flushed is then non-zero): hash it streamed instead.
ARB_API void arb_codec_init_hash_staged(arb_codec* c);
/// Write codec into buf[0..cap): running out of room sets ARB_E_NOSPACE.
ARB_API void arb_codec_init_write(arb_codec* c, uint8_t* buf, size_t cap);
/// Read codec over buf[0..len) (untrusted).
ARB_API void arb_codec_init_read(arb_codec* c, const uint8_t* buf, size_t len);
/// Hand staged bytes on (hash). Call once after the last field before using the digest.
ARB_API void arb_codec_flush(arb_codec* c);

/// Bytes written, counted or hashed so far; for a reader, bytes read.
static inline size_t arb_codec_pos(const arb_codec* c) {
  if (c->mode == ARB_CODEC_READ) return c->in_pos;
  return c->flushed + (size_t)(c->cur - c->base);
}
static inline bool arb_codec_reading(const arb_codec* c) {
  return c->mode == ARB_CODEC_READ;
}
static inline bool arb_codec_hashing(const arb_codec* c) {
  return c->mode == ARB_CODEC_HASH;
}
/// Bytes left to read (0 when not reading or after an error).
static inline size_t arb_codec_left(const arb_codec* c) {
  return c->mode == ARB_CODEC_READ && !c->err ? c->in_len - c->in_pos : 0;
}
/// Set the sticky error (the first one stays). Afterwards a reader has no bytes left and a
/// writer no room, so every later field operation takes the slow path and does nothing.
static inline void arb_codec_fail(arb_codec* c, int err) {
  if (c->err) return;
  c->err = err;
  if (c->mode == ARB_CODEC_READ) c->in_len = c->in_pos;
  if (c->mode == ARB_CODEC_WRITE) c->end = c->cur;
}
/// Restore only: a failed check marks the input corrupt. Not evaluated when writing.
#define ARB_CODEC_CHECK(c, cond) \
  ((void)(arb_codec_reading(c) && !(cond) ? arb_codec_fail((c), ARB_E_CORRUPT) : (void)0))

// ---- little-endian stores and loads (also for framing outside the codec) -------------

// On a little-endian host (every platform the determinism matrix builds) a value's own
// bytes are its little-endian bytes: one copy. The byte-by-byte form gives the same bytes
// anywhere, but inlined into the codec gcc assembled each store from its bytes in a
// dozen instructions, a large share of the per-tick state hash.
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARB_LITTLE_ENDIAN_HOST 1
#endif
static inline void arb_store_le32(uint8_t* p, uint32_t v) {
#ifdef ARB_LITTLE_ENDIAN_HOST
  memcpy(p, &v, sizeof v);
#else
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
#endif
}
static inline uint32_t arb_load_le32(const uint8_t* p) {
#ifdef ARB_LITTLE_ENDIAN_HOST
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
#else
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}
static inline void arb_store_le64(uint8_t* p, uint64_t v) {
  arb_store_le32(p, (uint32_t)v);
  arb_store_le32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t arb_load_le64(const uint8_t* p) {
  return (uint64_t)arb_load_le32(p) | (uint64_t)arb_load_le32(p + 4) << 32;
}

// ---- the field operations: write *v, or read into *v ------------------------------------

/// Room for n more bytes (writers), or n bytes present (readers). Out-of-line slow paths.
ARB_API bool arb__codec_room(arb_codec* c, size_t n);

// Store n bytes (writers) or load them (readers; zeros once an error is set), n <= 64.
// The fast path is one comparison: an error leaves no room and no bytes (arb_codec_fail).
ARB_CODEC_INLINE void arb__codec_put(arb_codec* c, const void* v, size_t n) {
  if ((size_t)(c->end - c->cur) < n && !arb__codec_room(c, n)) return;
  memcpy(c->cur, v, n);
  c->cur += n;
}
ARB_CODEC_INLINE void arb__codec_get(arb_codec* c, void* v, size_t n) {
  if (c->in_len - c->in_pos < n && !arb__codec_room(c, n)) {
    memset(v, 0, n);
    return;
  }
  memcpy(v, c->in + c->in_pos, n);
  c->in_pos += n;
}
/// n raw bytes (n <= 64).
ARB_CODEC_INLINE void arb_codec_bytes(arb_codec* c, void* v, size_t n) {
  if (arb_codec_reading(c)) {
    arb__codec_get(c, v, n);
  } else {
    arb__codec_put(c, v, n);
  }
}
ARB_CODEC_INLINE void arb_codec_u8(arb_codec* c, uint8_t* v) {
  arb_codec_bytes(c, v, 1);
}
ARB_CODEC_INLINE void arb_codec_u16(arb_codec* c, uint16_t* v) {
  uint8_t b[2];
  if (arb_codec_reading(c)) {
    arb__codec_get(c, b, 2);
    *v = (uint16_t)(b[0] | b[1] << 8);
  } else {
    b[0] = (uint8_t)*v;
    b[1] = (uint8_t)(*v >> 8);
    arb__codec_put(c, b, 2);
  }
}
ARB_CODEC_INLINE void arb_codec_u32(arb_codec* c, uint32_t* v) {
  uint8_t b[4];
  if (arb_codec_reading(c)) {
    arb__codec_get(c, b, 4);
    *v = arb_load_le32(b);
  } else {
    arb_store_le32(b, *v);
    arb__codec_put(c, b, 4);
  }
}
ARB_CODEC_INLINE void arb_codec_i32(arb_codec* c, int32_t* v) {
  arb_codec_u32(c, (uint32_t*)(void*)v);
}
ARB_CODEC_INLINE void arb_codec_u64(arb_codec* c, uint64_t* v) {
  uint32_t lo = 0, hi = 0;
  if (!arb_codec_reading(c)) {
    lo = (uint32_t)*v;
    hi = (uint32_t)(*v >> 32);
  }
  arb_codec_u32(c, &lo);
  arb_codec_u32(c, &hi);
  if (arb_codec_reading(c)) *v = (uint64_t)hi << 32 | lo;
}
/// A float; reading refuses NaN and infinities (ARB_E_NONFINITE). A NaN written (it cannot
/// occur: inputs are validated) is one canonical pattern, so no hash depends on its payload.
ARB_CODEC_INLINE void arb_codec_f32(arb_codec* c, float* v) {
  uint32_t bits = 0;
  if (!arb_codec_reading(c)) {
    memcpy(&bits, v, 4);
    if (*v != *v) bits = 0x7fc00000u;
    arb_codec_u32(c, &bits);
    return;
  }
  arb_codec_u32(c, &bits);
  float f;
  memcpy(&f, &bits, 4);
  if (!arb_is_valid_float(f)) arb_codec_fail(c, ARB_E_NONFINITE);
  *v = c->err ? 0.0f : f;
}
/// Writers: stores *v at p as arb_codec_f32 would (the caller checked the room), so a
/// vec2 or a list of fields takes one room check: the same bytes.
ARB_CODEC_INLINE void arb__codec_store_f32(uint8_t* p, const float* v) {
  uint32_t bits;
  memcpy(&bits, v, 4);
  if (*v != *v) bits = 0x7fc00000u;
  arb_store_le32(p, bits);
}
ARB_CODEC_INLINE void arb_codec_vec2(arb_codec* c, arb_vec2* v) {
  if (!arb_codec_reading(c) && (size_t)(c->end - c->cur) >= 8) {  // one room check
    arb__codec_store_f32(c->cur, &v->x);
    arb__codec_store_f32(c->cur + 4, &v->y);
    c->cur += 8;
    return;
  }
  arb_codec_f32(c, &v->x);
  arb_codec_f32(c, &v->y);
}
/// Consecutive float (vec2) fields, in order: ARB_CODEC_F32S(c, &a, &b, &d) is
/// arb_codec_f32 on each (the macros take C compound literals; C only).
ARB_CODEC_INLINE void arb_codec_f32s(arb_codec* c, float* const* fields, size_t n) {
  if (!arb_codec_reading(c) && (size_t)(c->end - c->cur) >= 4 * n) {
    for (size_t i = 0; i < n; ++i) arb__codec_store_f32(c->cur + 4 * i, fields[i]);
    c->cur += 4 * n;
    return;
  }
  for (size_t i = 0; i < n; ++i) arb_codec_f32(c, fields[i]);
}
ARB_CODEC_INLINE void arb_codec_vec2s(arb_codec* c, arb_vec2* const* fields, size_t n) {
  if (!arb_codec_reading(c) && (size_t)(c->end - c->cur) >= 8 * n) {
    for (size_t i = 0; i < n; ++i) {
      arb__codec_store_f32(c->cur + 8 * i, &fields[i]->x);
      arb__codec_store_f32(c->cur + 8 * i + 4, &fields[i]->y);
    }
    c->cur += 8 * n;
    return;
  }
  for (size_t i = 0; i < n; ++i) arb_codec_vec2(c, fields[i]);
}
#define ARB_CODEC_F32S(c, ...)                       \
  arb_codec_f32s((c), (float* const[]){__VA_ARGS__}, \
                 sizeof((float* const[]){__VA_ARGS__}) / sizeof(float*))
#define ARB_CODEC_VEC2S(c, ...)                          \
  arb_codec_vec2s((c), (arb_vec2* const[]){__VA_ARGS__}, \
                  sizeof((arb_vec2* const[]){__VA_ARGS__}) / sizeof(arb_vec2*))
/// A body id as (i32 index1, u32 generation); reading refuses a negative index.
ARB_CODEC_INLINE void arb_codec_id(arb_codec* c, arb_body_id* id) {
  arb_codec_i32(c, &id->index1);
  arb_codec_u32(c, &id->generation);
  ARB_CODEC_CHECK(c, id->index1 >= 0);
}
/// A 0/1 byte kept in a uint8_t; reading refuses anything else.
ARB_CODEC_INLINE void arb_codec_flag(arb_codec* c, uint8_t* v) {
  arb_codec_u8(c, v);
  ARB_CODEC_CHECK(c, *v <= 1);
}
/// A bool stored as one 0/1 byte.
ARB_CODEC_INLINE void arb_codec_bool(arb_codec* c, bool* v) {
  uint8_t b = arb_codec_reading(c) ? 0 : (*v ? 1 : 0);
  arb_codec_flag(c, &b);
  if (arb_codec_reading(c)) *v = b == 1;
}
/// An int field stored as one byte (enums, small counts).
ARB_CODEC_INLINE void arb_codec_int_u8(arb_codec* c, int* v) {
  uint8_t b = arb_codec_reading(c) ? 0 : (uint8_t)*v;
  arb_codec_u8(c, &b);
  if (arb_codec_reading(c)) *v = b;
}
/// An element count stored as i32. Reading refuses n < 0, n > max and counts whose
/// elements (at least min_bytes each) cannot fit in the bytes left: ARB_E_TOO_BIG. This
/// bounds every allocation by the input size.
ARB_CODEC_INLINE void arb_codec_count(arb_codec* c, int32_t* n, int32_t max, size_t min_bytes) {
  arb_codec_i32(c, n);
  if (!arb_codec_reading(c) || c->err) return;
  if (*n < 0 || *n > max || (size_t)*n * min_bytes > arb_codec_left(c)) {
    arb_codec_fail(c, ARB_E_TOO_BIG);
    *n = 0;
  }
}
/// Reader only: the next u32 without consuming it (0 when fewer than 4 bytes are left).
ARB_CODEC_INLINE uint32_t arb_codec_peek_u32(const arb_codec* c) {
  return arb_codec_left(c) >= 4 ? arb_load_le32(c->in + c->in_pos) : 0;
}

ARB_C_END
