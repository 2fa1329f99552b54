// DETERMINISM-CRITICAL: body slots in the per-tick state hash (hash.c). A static or
// sleeping body's slot encodes to the same bytes tick after tick, so the hash takes such a
// slot as the 8-byte XXH3-64 digest of its bytes, and keeps the digest with a copy of the
// fields it was made from, to use it again when those fields are still byte-for-byte the
// same. Every other slot (an awake body, a free slot) goes in as its bytes: it changes
// most steps, and streaming its bytes costs less than a digest of them.
//
// The check compares the inputs, not a "changed" flag, so no setter or step phase can
// make a stale entry be used: equal inputs give equal bytes (the encoding is a function
// of them), and anything else is encoded and digested again. The hash is thus exactly
// the digest of arb__slot_fields for every slot at rest.
//
// One input is not compared: the body's shapes, most of the slot (an 8-vertex polygon is
// 150 bytes). A body's shapes never change after its creation, and a slot's generation
// changes with every body created in it, so within one world the generation stands for
// the shapes. A restore is the one way to put another body under the same generation: it
// empties the cache (arb__hash_cache_clear).
//
// The cache is not state: it is never saved or hashed, a restore empties it, and it only
// changes how fast arb_world_hash runs. It is mutable scratch behind a const world, like
// the stack arena: arb_world_hash must not run on one world from two threads at once.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "world.h"

// The fields of an arb__body from xf to user data (xf ... inertia; max_extent among them,
// which the generation fixes like the shapes).
#define ARB__HEAD_START offsetof(arb__body, xf)
#define ARB__HEAD_BYTES (offsetof(arb__body, user_data) - ARB__HEAD_START)
_Static_assert(offsetof(arb__body, shape) >= offsetof(arb__body, user_data),
               "the first shape is not in the block");

// 128 bytes: what the digest was made from, and the digest.
typedef struct arb__hash_entry {
  uint8_t head[ARB__HEAD_BYTES];
  uint32_t generation;
  uint8_t flags[4];  // in_use, fixed_rotation, bullet, moved (adjacent in arb__body)
  arb__body_sim sim;
  arb_vec2 v;
  float w;
  uint64_t digest;
} arb__hash_entry;

// Which entries hold a digest, apart from the entries: a new cache clears only this, and
// an entry's memory is first touched when a body at rest fills it.
struct arb__hash_cache {
  arb__hash_entry* entries;
  uint8_t* filled;
  int32_t capacity;
};

_Static_assert(offsetof(arb__body, bullet) == offsetof(arb__body, in_use) + 2 &&
                   offsetof(arb__body, moved) == offsetof(arb__body, in_use) + 3,
               "the cached flags must be adjacent");

arb__hash_cache* arb__hash_cache_get(const arb_world* cw) {
  arb_world* w = (arb_world*)cw;  // scratch, not state (see the top of this file)
  arb__hash_cache* hc = w->hash_cache;
  if (!hc) {
    hc = arb__alloc(w, sizeof *hc);
    if (!hc) return NULL;
    memset(hc, 0, sizeof *hc);
    w->hash_cache = hc;
  }
  if (hc->capacity < w->body_slots) {
    int cap = w->body_capacity > w->body_slots ? w->body_capacity : w->body_slots;
    arb__hash_entry* e = arb__alloc(w, (size_t)cap * sizeof *e);
    uint8_t* filled = arb__alloc(w, (size_t)cap);
    if (!e || !filled) {
      arb__free(w, e);
      arb__free(w, filled);
      return NULL;
    }
    memset(filled, 0, (size_t)cap);
    arb__free(w, hc->entries);
    arb__free(w, hc->filled);
    hc->entries = e;
    hc->filled = filled;
    hc->capacity = cap;
  }
  return hc;
}

void arb__hash_cache_clear(arb_world* w) {
  arb__hash_cache* hc = w->hash_cache;
  if (hc) memset(hc->filled, 0, (size_t)hc->capacity);
}

void arb__hash_cache_free(arb_world* w) {
  if (!w->hash_cache) return;
  arb__free(w, w->hash_cache->entries);
  arb__free(w, w->hash_cache->filled);
  arb__free(w, w->hash_cache);
  w->hash_cache = NULL;
}

// Whether n bytes (a multiple of 4) are equal: a fixed-size loop of word compares that
// gcc unrolls, where memcmp is a library call per field.
static inline bool arb__same_bytes(const void* a, const void* b, size_t n) {
  const uint8_t *p = a, *q = b;
  uint64_t diff = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    memcpy(&x, p + i, 8);
    memcpy(&y, q + i, 8);
    diff |= x ^ y;
  }
  if (i < n) {
    uint32_t x, y;
    memcpy(&x, p + i, 4);
    memcpy(&y, q + i, 4);
    diff |= x ^ y;
  }
  return diff == 0;
}

static bool arb__entry_matches(const arb__hash_entry* e, const arb__body* b,
                               const arb__body_sim* sim, const arb__body_state* st) {
  _Static_assert(ARB__HEAD_BYTES % 4 == 0 && sizeof *sim % 4 == 0, "compared in words");
  return e->generation == b->generation && arb__same_bytes(e->flags, &b->in_use, 4) &&
         arb__same_bytes(&e->sim, sim, sizeof *sim) &&
         arb__same_bytes(&e->v, &st->v, sizeof e->v) &&
         arb__same_bytes(&e->w, &st->w, sizeof e->w) &&
         arb__same_bytes(e->head, (const uint8_t*)b + ARB__HEAD_START, ARB__HEAD_BYTES);
}

// XXH3-64 of slot i's bytes as the hash encodes them.
static uint64_t arb__slot_digest(arb__world_image* img, int i) {
  arb_codec c;
  arb_codec_init_hash_staged(&c);  // most slots: 60-300 bytes, in one piece in c.chunk
  arb__slot_fields(&c, img, i);
  if (c.flushed == 0) return XXH3_64bits(c.base, (size_t)(c.cur - c.base));
  XXH3_state_t state;  // a long chain: the same digest, streamed (XXH3 defines them equal)
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  arb_codec_init_hash(&c, &state);
  arb__slot_fields(&c, img, i);
  arb_codec_flush(&c);
  return XXH3_64bits_digest(&state);
}

void arb__hash_slot(arb_codec* c, arb__world_image* img, int i) {
  const arb__body* b = &img->bodies[i];
  arb__hash_cache* hc = img->hash_cache;
  bool at_rest = b->in_use && (img->sims[i].type == ARB_BODY_STATIC || b->sleeping);
  if (!at_rest) {  // changes most steps: its bytes, streamed (cheaper than a digest)
    arb__slot_fields(c, img, i);
    return;
  }
  uint64_t digest;
  if (!hc || i >= hc->capacity) {
    digest = arb__slot_digest(img, i);
  } else {
    arb__hash_entry* e = &hc->entries[i];
    const arb__body_sim* sim = &img->sims[i];
    const arb__body_state* st = &img->states[i];
    if (hc->filled[i] && arb__entry_matches(e, b, sim, st)) {
      digest = e->digest;
    } else {
      digest = arb__slot_digest(img, i);
      memcpy(e->head, (const uint8_t*)b + ARB__HEAD_START, ARB__HEAD_BYTES);
      e->generation = b->generation;
      memcpy(e->flags, &b->in_use, 4);
      e->sim = *sim;
      e->v = st->v;
      e->w = st->w;
      e->digest = digest;
      hc->filled[i] = 1;
    }
  }
  arb_codec_u64(c, &digest);
}
