// DETERMINISM-CRITICAL (output only): the per-tick state hash reuses the encoded bytes of
// bodies at rest. A static or sleeping body's slot encodes to the same bytes tick after
// tick, so the hash keeps them with a copy of the fields they were made from, and uses
// them again when those fields are still byte-for-byte the same. The check compares the
// inputs, not a "changed" flag, so no setter or step phase can make a stale entry be
// used: equal inputs give equal bytes (the encoding is a function of them), and anything
// else re-encodes. The hash is thus exactly arb__slot_fields over every slot.
//
// One input is not compared: the body's first shape, most of the slot (an 8-vertex
// polygon is 150 bytes). A body's shapes never change after its creation, and a slot's
// generation changes with every body created in it, so within one world the generation
// stands for the shape. A restore is the one way to put another body under the same
// generation: it empties the cache (arb__hash_cache_clear).
//
// The cache is not state: it is never saved or hashed, a restore empties it, and it only
// changes how fast arb_world_hash runs. It is mutable scratch behind a const world, like
// the stack arena: arb_world_hash must not run on one world from two threads at once.
#include "world.h"

// Largest encoded slot: the fixed body fields (93 bytes) and an 8-vertex polygon shape
// (162 bytes); a slot that does not fit (none can) is simply not cached.
#define ARB__HASH_ENTRY_MAX 288

// The fields of an arb__body from xf to user data (xf ... inertia; max_extent among them,
// which the generation fixes like the shape).
#define ARB__HEAD_START offsetof(arb__body, xf)
#define ARB__HEAD_BYTES (offsetof(arb__body, user_data) - ARB__HEAD_START)
_Static_assert(offsetof(arb__body, shape) >= offsetof(arb__body, user_data),
               "the first shape is not in the block");

typedef struct arb__hash_entry {
  uint8_t head[ARB__HEAD_BYTES];
  uint32_t generation;
  uint8_t flags[4];  // in_use, fixed_rotation, bullet, moved (adjacent in arb__body)
  arb__body_sim sim;
  arb_vec2 v;
  float w;
  uint8_t bytes[ARB__HASH_ENTRY_MAX];
} arb__hash_entry;

// The lengths apart from the entries: a new cache clears only them, and an entry's memory
// is first touched when a body at rest fills it.
struct arb__hash_cache {
  arb__hash_entry* entries;
  uint16_t* lengths;  // 0: entry empty
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
    uint16_t* len = arb__alloc(w, (size_t)cap * sizeof *len);
    if (!e || !len) {
      arb__free(w, e);
      arb__free(w, len);
      return NULL;
    }
    memset(len, 0, (size_t)cap * sizeof *len);
    arb__free(w, hc->entries);
    arb__free(w, hc->lengths);
    hc->entries = e;
    hc->lengths = len;
    hc->capacity = cap;
  }
  return hc;
}

void arb__hash_cache_clear(arb_world* w) {
  arb__hash_cache* hc = w->hash_cache;
  if (hc) memset(hc->lengths, 0, (size_t)hc->capacity * sizeof *hc->lengths);
}

void arb__hash_cache_free(arb_world* w) {
  if (!w->hash_cache) return;
  arb__free(w, w->hash_cache->entries);
  arb__free(w, w->hash_cache->lengths);
  arb__free(w, w->hash_cache);
  w->hash_cache = NULL;
}

static bool arb__entry_matches(const arb__hash_entry* e, const arb__body* b, const arb__body_sim* sim,
                               const arb__body_state* st) {
  return e->generation == b->generation && memcmp(e->flags, &b->in_use, 4) == 0 &&
         memcmp(&e->sim, sim, sizeof *sim) == 0 && memcmp(&e->v, &st->v, sizeof e->v) == 0 &&
         memcmp(&e->w, &st->w, sizeof e->w) == 0 &&
         memcmp(e->head, (const uint8_t*)b + ARB__HEAD_START, ARB__HEAD_BYTES) == 0;
}

void arb__hash_slot(arb_codec* c, arb__world_image* img, int i) {
  const arb__body* b = &img->bodies[i];
  bool at_rest = b->in_use && (img->sims[i].type == ARB_BODY_STATIC || b->sleeping);
  // A compound body's other shapes are not among the inputs an entry keeps: encoded anew.
  if (!at_rest || b->shape_count > 1 || !img->hash_cache || i >= img->hash_cache->capacity) {
    arb__slot_fields(c, img, i);
    return;
  }
  // Room for a whole slot in the staging chunk, so its bytes stay in one piece (flushing
  // earlier than needed does not change an XXH3 stream).
  if ((size_t)(c->end - c->cur) < ARB__HASH_ENTRY_MAX) arb_codec_flush(c);
  arb__hash_entry* e = &img->hash_cache->entries[i];
  uint16_t* e_len = &img->hash_cache->lengths[i];
  const arb__body_sim* sim = &img->sims[i];
  const arb__body_state* st = &img->states[i];
  if (*e_len != 0 && arb__entry_matches(e, b, sim, st)) {
    memcpy(c->cur, e->bytes, *e_len);
    c->cur += *e_len;
    return;
  }
  uint8_t* start = c->cur;
  size_t flushed = c->flushed;
  arb__slot_fields(c, img, i);
  size_t len = (size_t)(c->cur - start);
  *e_len = 0;
  if (c->flushed != flushed || len > ARB__HASH_ENTRY_MAX) return;
  memcpy(e->head, (const uint8_t*)b + ARB__HEAD_START, ARB__HEAD_BYTES);
  e->generation = b->generation;
  memcpy(e->flags, &b->in_use, 4);
  e->sim = *sim;
  e->v = st->v;
  e->w = st->w;
  memcpy(e->bytes, start, len);
  *e_len = (uint16_t)len;
}
