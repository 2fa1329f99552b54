// The snapshot builder: predict the client's baseline forward, find what left the
// prediction (beyond the tolerances), what entered and what left, pick by priority what
// fits the byte budget, and split it into self-contained parts. What does not fit is
// deferred: the sent view keeps the client's predicted state, so the next snapshot carries
// the correction.
#include <arbiter/array_block.h>
#include <arbiter/bits.h>
#include <arbiter/math.h>
#include <assert.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mp.h"
#include "snapshot_internal.h"

/* Small helpers collect() runs per entity of every client's view, inlined. */
#define PER_ENTITY static inline __attribute__((always_inline))

typedef struct cand {
  arb_snapshot_record rec;
  int pred;  ///< index in the predicted baseline, -1 when absent
  int cur;   ///< index in current, -1 when absent
  float prio;
  uint64_t key;           ///< order_candidates with a drawn model: its sort key, for spread_lists
  int drawn_ok;           ///< the client draws it within the tolerances (a chain refresh only)
  uint32_t desc_version;  ///< ENTER only: the entity's description version
  const arb_snapshot_entity* entering;  ///< ENTER only: its state, for rec.v (fixed_bits_of)
} cand;

/* A description kept across builds (arb_snapshot_build_args.stable_classes), in a table
 * indexed by the entity id's low bits: a miss only costs describing it again. 10.6 MB of
 * address space, touched as entities are described (648 bytes each: 6.6 MB once all of a
 * 10 000-body world has been); without it every entering entity of every client's snapshot
 * was described and encoded again, ~9 % of a build's instructions when budgets bind. */
#define DESC_CACHE_SLOTS 16384
typedef struct desc_entry {
  uint32_t id, desc_version;  ///< id 0: empty (a record's id is at least 1)
  uint8_t cls;
  int bytes;      ///< encoded size
  uint64_t hash;  ///< of the encoding (describe_enter)
  arb_snapshot_desc desc;
} desc_entry;

struct arb_snapshot_builder {
  int payload, max_entities;
  arb_snapshot_set pred;
  cand* cands;
  int* order;         ///< candidate indices by priority
  int* chosen;        ///< selected candidate indices, by id
  int* tmp;           ///< order_candidates scratch
  uint64_t* keys;     ///< order_candidates: a sort key per candidate, and as many spare
  uint8_t* selected;  ///< per candidate
  uint64_t* taken;    ///< try_take: a bit per candidate
  int* fixed_bits;    ///< per candidate: arb__snapshot_fixed_bits of its record, -1 = not yet
  arb_snapshot_desc* descs;  ///< per candidate, ENTER only
  int* desc_bytes;           ///< per candidate, ENTER only
  uint64_t* desc_hash;       ///< per candidate, ENTER only: of the encoded description
  arb_snapshot_part* part;   ///< scratch for encoding
  uint8_t* packet_mem;       ///< ARB_PROTO_MAX_PARTS * payload
  void* mem;                 ///< the one block the arrays above are carved from
  int full_diff;  ///< diff every entity, even one skip_unchanged() would skip; no fit_bound
  desc_entry* desc_cache;  ///< DESC_CACHE_SLOTS, allocated at the first stable build
  int enter_least[8];      ///< enter_least_bits of each class (0..7)
};

void arb__snapshot_builder_full_diff(arb_snapshot_builder* b, int on) {
  b->full_diff = on;
}

// Every array the builder owns; measures while blk has no base (see array_block.h).
static void carve_arrays(void* owner, arb_array_block* blk) {
  arb_snapshot_builder* b = owner;
  size_t n = (size_t)b->max_entities, c = 2 * n;
  b->pred.items = arb_array_block_take(blk, n, sizeof *b->pred.items);
  b->cands = arb_array_block_take(blk, c, sizeof *b->cands);
  b->order = arb_array_block_take(blk, c, sizeof *b->order);
  b->chosen = arb_array_block_take(blk, c, sizeof *b->chosen);
  b->tmp = arb_array_block_take(blk, c, sizeof *b->tmp);
  b->keys = arb_array_block_take(blk, 2 * c, sizeof *b->keys);
  b->selected = arb_array_block_take(blk, c, sizeof *b->selected);
  b->taken = arb_array_block_take(blk, (c + 63) / 64, sizeof *b->taken);
  b->fixed_bits = arb_array_block_take(blk, c, sizeof *b->fixed_bits);
  b->descs = arb_array_block_take(blk, c, sizeof *b->descs);
  b->desc_bytes = arb_array_block_take(blk, c, sizeof *b->desc_bytes);
  b->desc_hash = arb_array_block_take(blk, c, sizeof *b->desc_hash);
  b->part = arb_array_block_take(blk, 1, sizeof *b->part);
  b->packet_mem = arb_array_block_take(blk, ARB_PROTO_MAX_PARTS, (size_t)b->payload);
}

arb_snapshot_tolerance arb_snapshot_default_tolerance(void) {
  arb_snapshot_tolerance t = {1, 16, 1, 32};
  return t;
}

void arb_snapshot_builder_destroy(arb_snapshot_builder* b) {
  if (!b) return;
  free(b->desc_cache);
  free(b->mem);
  free(b);
}

/* The fewest fixed bits of an enter record of class cls: every field at zero, the first
 * bucket of each (a bound for fit_bound that needs no record sized). */
static int enter_least_bits(uint8_t cls) {
  arb_snapshot_record r;
  memset(&r, 0, sizeof r);
  r.op = ARB_SNAPSHOT_ENTER;
  r.cls = cls;
  return arb__snapshot_fixed_bits(&r);
}

int arb_snapshot_builder_create(int payload_limit, int max_entities, arb_snapshot_builder** out) {
  *out = NULL;
  if (payload_limit == 0) payload_limit = ARB_PROTO_DEFAULT_PAYLOAD;
  if (payload_limit < ARB_PROTO_MIN_PAYLOAD || payload_limit > ARB_PROTO_MAX_PAYLOAD)
    return ARB_E_RANGE;
  if (max_entities < 1 || max_entities > ARB_PROTO_MAX_ENTITIES) return ARB_E_RANGE;
  arb_snapshot_builder* b = calloc(1, sizeof *b);
  if (!b) return ARB_E_NOMEM;
  b->payload = payload_limit;
  b->max_entities = max_entities;
  for (int cls = 0; cls < 8; ++cls) b->enter_least[cls] = enter_least_bits((uint8_t)cls);
  b->pred.cap = max_entities;
  b->mem = arb_array_block_new(b, carve_arrays);
  if (!b->mem) {
    free(b);
    return ARB_E_NOMEM;
  }
  *out = b;
  return 0;
}

static int32_t iabs32(int64_t v) {
  return (int32_t)(v < 0 ? (-v > INT32_MAX ? INT32_MAX : -v) : (v > INT32_MAX ? INT32_MAX : v));
}
static int32_t wrap_diff(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a - (uint32_t)b);
}
static uint16_t angle_diff(uint16_t a, uint16_t b) {
  return (uint16_t)((a - b) & 0xFFFFu);
}
static int32_t angle_mag(uint16_t d) {
  return d >= 32768u ? 65536 - (int32_t)d : (int32_t)d;
}

/* Ballistic when the velocity changed since the baseline's origin the way gravity changes it. */
PER_ENTITY uint8_t choose_flags(const arb_snapshot_state* cur, const arb_snapshot_state* base,
                                const arb_snapshot_header* h, uint8_t cls) {
  uint8_t f = (uint8_t)(cur->flags & ~ARB_SNAPSHOT_FLAG_BALLISTIC);
  if ((cls != ARB_SNAPSHOT_BODY && cls != ARB_SNAPSHOT_PARTICLE) ||
      (h->gravity_x == 0 && h->gravity_y == 0))
    return f;
  int32_t gvx, gvy;  // base's velocity predicted as if ballistic
  arb__snapshot_gravity_velocity(base, h->tick, h, &gvx, &gvy);
  int64_t eg = (int64_t)iabs32((int64_t)cur->vx - gvx) + iabs32((int64_t)cur->vy - gvy);
  int64_t e0 = (int64_t)iabs32((int64_t)cur->vx - base->vx) + iabs32((int64_t)cur->vy - base->vy);
  return eg < e0 ? (uint8_t)(f | ARB_SNAPSHOT_FLAG_BALLISTIC) : f;
}

/* *r = an update record for the groups where cur left the prediction; mask 0 = nothing to
 * send. The residuals are kept in registers and each field of *r is stored once: a record
 * built on the stack and then copied whole stalls on the copy (the wide loads cannot take
 * their bytes from the narrow stores still in flight), and this runs for every changed
 * entity of every client's view. */
static void diff(const arb_snapshot_entity* cur, const arb_snapshot_state* p,
                 const arb_snapshot_entity* base, const arb_snapshot_build_args* a,
                 arb_snapshot_record* r) {
  const arb_snapshot_state* c = &cur->s;
  unsigned f = arb__snapshot_class_fields(cur->cls);
  int32_t dx = wrap_diff(c->x, p->x), dy = wrap_diff(c->y, p->y);
  int32_t dvx = wrap_diff(c->vx, p->vx), dvy = wrap_diff(c->vy, p->vy);
  int32_t dw = wrap_diff(c->w, p->w);
  uint16_t dangle = angle_diff(c->angle, p->angle), daux = angle_diff(c->aux, p->aux);
  static const arb_snapshot_tolerance exact = {0, 0, 0, 0};
  const arb_snapshot_tolerance* tol = a->exact_id != 0 && cur->id == a->exact_id ? &exact : &a->tol;
  uint8_t mask = 0;
  if ((f & ARB_SNAPSHOT_M_POS) && (iabs32(dx) > tol->pos || iabs32(dy) > tol->pos))
    mask |= ARB_SNAPSHOT_M_POS;
  if ((f & ARB_SNAPSHOT_M_ANGLE) && angle_mag(dangle) > tol->angle) mask |= ARB_SNAPSHOT_M_ANGLE;
  if ((f & ARB_SNAPSHOT_M_VEL) && (iabs32(dvx) > tol->vel || iabs32(dvy) > tol->vel))
    mask |= ARB_SNAPSHOT_M_VEL;
  if ((f & ARB_SNAPSHOT_M_ANGVEL) && iabs32(dw) > tol->angvel) mask |= ARB_SNAPSHOT_M_ANGVEL;
  if ((f & ARB_SNAPSHOT_M_AUX) && daux != 0) mask |= ARB_SNAPSHOT_M_AUX;
  uint8_t flags = choose_flags(c, &base->s, &a->h, cur->cls);
  if (flags != p->flags) mask |= ARB_SNAPSHOT_M_FLAGS;
  // An origin older than the longest prediction the spec evaluates is renewed.
  if (a->h.tick - base->s.t0 > ARB_SNAPSHOT_MAX_DT) mask |= ARB_SNAPSHOT_M_FLAGS;
  r->id = cur->id;
  r->op = ARB_SNAPSHOT_UPDATE;
  r->cls = cur->cls;
  r->mask = mask;
  r->desc = 0;
  r->v.x = mask & ARB_SNAPSHOT_M_POS ? dx : 0;
  r->v.y = mask & ARB_SNAPSHOT_M_POS ? dy : 0;
  r->v.vx = mask & ARB_SNAPSHOT_M_VEL ? dvx : 0;
  r->v.vy = mask & ARB_SNAPSHOT_M_VEL ? dvy : 0;
  r->v.w = mask & ARB_SNAPSHOT_M_ANGVEL ? dw : 0;
  r->v.angle = mask & ARB_SNAPSHOT_M_ANGLE ? dangle : 0;
  r->v.aux = mask & ARB_SNAPSHOT_M_AUX ? daux : 0;
  r->v.flags = mask & ARB_SNAPSHOT_M_FLAGS ? flags : 0;
  r->v.t0 = 0;
}

/* *now = the origin `from` evaluated at the tick, and *r = cur's update record against it. */
PER_ENTITY void predict_diff(const arb_snapshot_build_args* a, const arb_snapshot_entity* cur,
                             const arb_snapshot_entity* from, arb_snapshot_state* now,
                             arb_snapshot_record* r) {
  arb__snapshot_eval_into(now, &from->s, from->cls, a->h.tick, &a->h);
  diff(cur, now, from, a, r);
}

/* An entering entity's candidate. Its description is asked for only when a split reaches
 * it (describe_enter), and its record's state is written when it is first sized
 * (fixed_bits_of): while the budget binds, most entering entities wait, and asking for
 * and encoding every one of their descriptions again on every snapshot would cost more
 * than the rest of the build. */
static void add_enter(arb_snapshot_builder* b, int ci, const arb_snapshot_entity* cur) {
  cand* c = &b->cands[ci];
  memset(&c->rec, 0, sizeof c->rec);
  c->rec.id = cur->id;
  c->rec.op = ARB_SNAPSHOT_ENTER;
  c->rec.cls = cur->cls;
  c->entering = cur;
  c->desc_version = cur->desc_version;
  b->desc_bytes[ci] = -1;  // not described yet
}

/* The slot that keeps the description of record rec's entity, or NULL (not kept). */
static desc_entry* desc_slot(arb_snapshot_builder* b, const arb_snapshot_build_args* a,
                             const arb_snapshot_record* rec) {
  if (rec->cls >= 32 || !(a->stable_classes & (1u << rec->cls))) return NULL;
  if (!b->desc_cache) b->desc_cache = calloc(DESC_CACHE_SLOTS, sizeof *b->desc_cache);
  if (!b->desc_cache) return NULL;  // out of memory: described every time
  return &b->desc_cache[rec->id & (DESC_CACHE_SLOTS - 1)];
}

/* Describes enter candidate ci once per build (or once while it stays kept, for a stable
 * class): its description, encoded size and hash. */
static int describe_enter(arb_snapshot_builder* b, const arb_snapshot_build_args* a, int ci) {
  if (b->desc_bytes[ci] >= 0) return 0;
  const cand* c = &b->cands[ci];
  uint32_t version = c->desc_version;
  desc_entry* kept = desc_slot(b, a, &c->rec);
  if (kept && kept->id == c->rec.id && kept->cls == c->rec.cls && kept->desc_version == version) {
    b->descs[ci] = kept->desc;
    b->desc_bytes[ci] = kept->bytes;
    b->desc_hash[ci] = kept->hash;
    return 0;
  }
  memset(&b->descs[ci], 0, sizeof b->descs[ci]);
  int rc = a->describe(a->describe_user, c->rec.id, &b->descs[ci]);
  if (rc < 0) return rc;
  if (b->descs[ci].cls != c->rec.cls) return ARB_E_INVAL;
  uint8_t enc[ARB_PROTO_MAX_PAYLOAD];
  int n = arb__snapshot_desc_encode(&b->descs[ci], enc, sizeof enc);
  if (n < 0) return n;
  if (n > (int)sizeof enc) return ARB_E_TOO_BIG;
  b->desc_bytes[ci] = n;
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a: finds identical descriptions to share
  for (int i = 0; i < n; ++i) h = (h ^ enc[i]) * 0x100000001b3ull;
  b->desc_hash[ci] = h;
  if (kept) {
    kept->id = c->rec.id;
    kept->desc_version = version;
    kept->cls = c->rec.cls;
    kept->bytes = n;
    kept->hash = h;
    kept->desc = b->descs[ci];
  }
  return 0;
}

/* The client's drawn origin of cur (a->drawn, walked in id order from *k), or NULL when it
 * draws nothing usable: absent, another class or description, or -- when the baseline
 * lacks it -- set before the baseline (the client drops it on this snapshot). */
PER_ENTITY const arb_snapshot_entity* drawn_of(const arb_snapshot_build_args* a,
                                               const arb_snapshot_entity* cur, int in_baseline,
                                               int* k) {
  const arb_snapshot_set* d = a->drawn;
  while (*k < d->count && d->items[*k].id < cur->id) ++*k;
  if (*k == d->count || d->items[*k].id != cur->id) return NULL;
  const arb_snapshot_entity* e = &d->items[*k];
  if (e->cls != cur->cls || e->desc_version != cur->desc_version) return NULL;
  if (!in_baseline && (a->h.baseline_tick == 0 || e->s.t0 <= a->h.baseline_tick)) return NULL;
  return e;
}

/* The client's drawn origin of an entity evaluated at the tick, and cur diffed against it
 * (written to the candidate's record, which update_of keeps when the baseline's origin is
 * the drawn one). */
typedef struct drawn_diff {
  const arb_snapshot_entity* drawn;  ///< NULL: the client draws nothing usable
  arb_snapshot_state now;
  arb_snapshot_record* rec;
} drawn_diff;

/* How wrong the client draws cur (meters, position only; only when not *ok) and whether
 * that is within the tolerances in every group it carries (*ok). */
static float drawn_error(const arb_snapshot_build_args* a, const arb_snapshot_entity* cur,
                         drawn_diff* dd, int* ok) {
  *ok = 0;
  if (!dd->drawn) return ARB_SNAPSHOT_ABSENT_ERROR;
  const arb_snapshot_state* now = &dd->now;
  predict_diff(a, cur, dd->drawn, &dd->now, dd->rec);
  const uint8_t shown = ARB_SNAPSHOT_FLAG_PINNED | ARB_SNAPSHOT_FLAG_SKID;
  *ok = (dd->rec->mask & ~ARB_SNAPSHOT_M_FLAGS) == 0 &&
        (cur->s.flags & shown) == (now->flags & shown);
  if (*ok) return 0.0f;  // the caller orders it by weight alone
  if (!(arb__snapshot_class_fields(cur->cls) & ARB_SNAPSHOT_M_POS)) return 0.05f;
  float dx = (float)((int64_t)cur->s.x - now->x), dy = (float)((int64_t)cur->s.y - now->y);
  return arb_length(arb_v2(dx, dy)) / 128.0f;
}

/* A candidate's ordering key: its priority, or with a drawn model the weighted error plus
 * the age term. *drawn_ok: the client draws it within the tolerances; then a record only
 * refreshes the baseline chain (smaller deltas later, and a lost snapshot repaired at once)
 * and is ordered after every entity drawn wrong, so it goes only where the budget has room.
 * dd: what the client draws and the diff against it (drawn NULL without a drawn model). */
static void drawn_key(const arb_snapshot_build_args* a, int j, int in_baseline, int* k, float* key,
                      int* drawn_ok, drawn_diff* dd) {
  const arb_snapshot_entity* cur = &a->current->items[j];
  float prio = a->priority ? a->priority[j] : 0.0f, weight = a->weight ? a->weight[j] : 1.0f;
  if (a->rank) a->rank(a->rank_user, j, &prio, &weight);
  *key = prio;
  *drawn_ok = 0;
  dd->drawn = NULL;
  if (!a->drawn) return;
  dd->drawn = drawn_of(a, cur, in_baseline, k);
  float err = drawn_error(a, cur, dd, drawn_ok);
  if (a->exact_id != 0 && cur->id == a->exact_id) return;  // held exactly, first by priority
  *key = *drawn_ok ? weight * 1.0e-3f - 1.0e3f : weight * err + ARB_SNAPSHOT_AGE_RATE * prio;
}

static int same_origin(const arb_snapshot_state* x, const arb_snapshot_state* y) {
  return x->x == y->x && x->y == y->y && x->vx == y->vx && x->vy == y->vy && x->w == y->w &&
         x->angle == y->angle && x->aux == y->aux && x->flags == y->flags && x->t0 == y->t0;
}

/* An entity's leading 40 bytes -- id, class, description version, x..aux, flags and the
 * padding between them, all but the origin's tick -- compared as five words. Equal words
 * mean equal fields; unequal padding only sends an entity down the full path (the
 * server's entities have it zero: the capture clears each one, and copies keep it). */
_Static_assert(offsetof(arb_snapshot_entity, s) + offsetof(arb_snapshot_state, t0) == 40 &&
                   offsetof(arb_snapshot_entity, s) + offsetof(arb_snapshot_state, flags) < 40,
               "the fields but t0 are the leading 40 bytes of an entity");
PER_ENTITY int same_head(const arb_snapshot_entity* x, const arb_snapshot_entity* y) {
#if defined(__SSE2__)
  const char *p = (const char*)x, *q = (const char*)y;
  __m128i e0 =
      _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)p), _mm_loadu_si128((const __m128i*)q));
  __m128i e1 = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(p + 16)),
                              _mm_loadu_si128((const __m128i*)(q + 16)));
  __m128i e2 = _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i*)(p + 32)),
                              _mm_loadl_epi64((const __m128i*)(q + 32)));
  return _mm_movemask_epi8(_mm_and_si128(_mm_and_si128(e0, e1), e2)) == 0xFFFF;
#else
  uint64_t u[5], v[5];
  memcpy(u, x, sizeof u);
  memcpy(v, y, sizeof v);
  return ((u[0] ^ v[0]) | (u[1] ^ v[1]) | (u[2] ^ v[2]) | (u[3] ^ v[3]) | (u[4] ^ v[4])) == 0;
#endif
}

/* same_head(x, c) && same_head(y, c), reading c once. */
PER_ENTITY int same_heads(const arb_snapshot_entity* x, const arb_snapshot_entity* y,
                          const arb_snapshot_entity* c) {
#if defined(__SSE2__)
  const char *p = (const char*)x, *q = (const char*)y, *r = (const char*)c;
  __m128i c0 = _mm_loadu_si128((const __m128i*)r), c1 = _mm_loadu_si128((const __m128i*)(r + 16));
  __m128i c2 = _mm_loadl_epi64((const __m128i*)(r + 32));
  __m128i ex =
      _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)p), c0),
                                  _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(p + 16)), c1)),
                    _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i*)(p + 32)), c2));
  __m128i ey =
      _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)q), c0),
                                  _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(q + 16)), c1)),
                    _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i*)(q + 32)), c2));
  return _mm_movemask_epi8(_mm_and_si128(ex, ey)) == 0xFFFF;
#else
  return same_head(x, c) && same_head(y, c);
#endif
}

/* The common case of a world mostly asleep: cur, the baseline's origin of it and the
 * client's drawn origin all hold the same values at rest (a body asleep since before the
 * baseline). Then diff() finds nothing against either, so cur is no candidate and up to
 * date: the same outcome as the full comparison, without predicting or diffing anything
 * (an origin equal to cur in every field but its tick, with no velocity and no gravity,
 * evaluates to cur's values at any tick, so nothing differs in any group). Skips the run of such
 * entities from *pi (baseline) and *pj (current), walking the drawn model from *pk as drawn_of()
 * does; stops at the first candidate or the end of a set. What it reads is kept in
 * locals: this loop runs for most of every client's view. */
static void skip_unchanged(const arb_snapshot_build_args* a, const arb_snapshot_set* base, int* pi,
                           int* pj, int* pk) {
  const arb_snapshot_entity *bi = base->items, *ci = a->current->items;
  const int bn = base->count, cn = a->current->count;
  const arb_snapshot_entity* di = a->drawn ? a->drawn->items : NULL;
  const int dn = a->drawn ? a->drawn->count : 0;
  const uint32_t tick = a->h.tick;
  int i = *pi, j = *pj, k = *pk;
  for (; i < bn && j < cn; ++i, ++j) {
    const arb_snapshot_entity *b = &bi[i], *c = &ci[j];
    if ((c->s.vx | c->s.vy | c->s.w) != 0 || (c->s.flags & ARB_SNAPSHOT_FLAG_BALLISTIC) ||
        tick - b->s.t0 > ARB_SNAPSHOT_MAX_DT)
      break;
    if (!di) {
      if (!same_head(b, c)) break;
      continue;
    }
    while (k < dn && di[k].id < c->id) ++k;
    if (k == dn || !same_heads(b, &di[k], c)) break;
    ++k;  // the next entity's id is larger: its drawn entry, if any, is after this one
  }
  *pi = i;
  *pj = j;
  *pk = k;
}

/* *r = the update record of cur against the baseline's item i predicted to the tick, which
 * stays in pred for make_sent. When the client draws the baseline's own origin (the usual
 * case) that is what drawn_key already evaluated and diffed into *r. */
static void update_of(arb_snapshot_builder* b, const arb_snapshot_build_args* a,
                      const arb_snapshot_set* base, int i, const arb_snapshot_entity* cur,
                      const drawn_diff* dd, arb_snapshot_record* r) {
  arb_snapshot_entity* p = &b->pred.items[i];
  *p = base->items[i];
  if (dd->drawn && same_origin(&dd->drawn->s, &p->s)) {  // same class: drawn_of checked it
    p->s = dd->now;
    return;
  }
  predict_diff(a, cur, &base->items[i], &p->s, r);
}

/* Merge the baseline (predicted to the tick) with current into candidate records; returns
 * the count or ARB_E_*. Entities that need nothing are not candidates. */
static int collect(arb_snapshot_builder* b, const arb_snapshot_build_args* a,
                   const arb_snapshot_set* base) {
  const arb_snapshot_set* cur = a->current;
  const arb_snapshot_entity *bi = base->items, *ci = cur->items;
  const int bn = base->count, cn = cur->count;
  int i = 0, j = 0, n = 0, k = 0;
  for (;;) {
    if (!b->full_diff) skip_unchanged(a, base, &i, &j, &k);
    if (i >= bn && j >= cn) break;
    uint32_t pid = i < bn ? bi[i].id : UINT32_MAX;
    uint32_t cid = j < cn ? ci[j].id : UINT32_MAX;
    cand* c = &b->cands[n];
    c->pred = pid <= cid ? i : -1;
    c->cur = cid <= pid ? j : -1;
    c->drawn_ok = 0;
    drawn_diff dd;
    dd.drawn = NULL;
    dd.rec = &c->rec;
    if (c->cur >= 0) drawn_key(a, j, c->pred >= 0, &k, &c->prio, &c->drawn_ok, &dd);
    if (c->cur < 0) {  // left the view
      memset(&c->rec, 0, sizeof c->rec);
      c->rec.id = pid;
      c->rec.op = ARB_SNAPSHOT_REMOVE;
      c->prio = 3.0e38f;
      ++n;
    } else if (c->pred < 0 || base->items[i].cls != cur->items[j].cls ||
               base->items[i].desc_version != cur->items[j].desc_version) {
      add_enter(b, n, &cur->items[j]);
      ++n;
    } else {
      update_of(b, a, base, i, &cur->items[j], &dd, &c->rec);
      if (!c->rec.mask && a->drawn && !c->drawn_ok) {
        // The baseline predicts it right but the client draws a sibling's worse origin:
        // renew the origin at this tick (the flags alone).
        c->rec.mask = ARB_SNAPSHOT_M_FLAGS;
        c->rec.v.flags =
            choose_flags(&cur->items[j].s, &base->items[i].s, &a->h, cur->items[j].cls);
      }
      if (c->rec.mask) ++n;
    }
    if (pid <= cid) ++i;
    if (cid <= pid) ++j;
  }
  return n;
}

/* The order of the candidates: removals first, then (without a drawn model) entities the
 * client lacks, then corrections; by priority within, highest first, and by id on a tie.
 * With a drawn model enters and corrections share one key (the client's error).
 *
 * It is a sort of one 64-bit key per candidate: the class (2 bits), the priority's bits
 * made to sort as unsigned integers (32), the candidate index (30; candidates are in id
 * order, so this is the id tie-break). A radix sort of the keys costs no comparisons,
 * where a merge sort through a comparison function took a large share of a client's
 * build whenever the byte budget binds. */
#define KEY_INDEX_BITS 30

/* The priority's bits, larger for a higher priority as unsigned integers; -0 counts as +0
 * and NaN as the lowest priority of all. */
static uint32_t priority_bits(float f) {
  if (f != f) return 0;
  if (f == 0.0f) f = 0.0f;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u & 0x80000000u ? ~u : u | 0x80000000u;
}

/* A candidate's sort key: removals first, then (without a drawn model) entities the
 * client lacks, then corrections; by priority within, highest first; by index on a tie. */
static uint64_t cand_key(const arb_snapshot_builder* b, int ci, int drawn_model) {
  const cand* c = &b->cands[ci];
  uint64_t cls = c->rec.op == ARB_SNAPSHOT_REMOVE                 ? 0
                 : drawn_model || c->rec.op == ARB_SNAPSHOT_ENTER ? 1
                                                                  : 2;
  return cls << 62 | (uint64_t)(0xFFFFFFFFu - priority_bits(c->prio)) << KEY_INDEX_BITS |
         (uint64_t)ci;
}

/* The first p of keys[0..n) in order, written as candidate indices to out[0..p) (tmp: p
 * more keys). Only these are sorted: where the budget binds, a snapshot takes a few dozen
 * of several hundred candidates. */
static void smallest_in_order(uint64_t* keys, uint64_t* tmp, int n, int p, int* out) {
  if (p < n) arb__snapshot_select_smallest(keys, n, p);
  arb__snapshot_sort_keys(keys, tmp, p);
  for (int k = 0; k < p; ++k) out[k] = (int)(keys[k] & ((1u << KEY_INDEX_BITS) - 1));
}

/* Candidate ci's arb__snapshot_fixed_bits, sized when first asked (an enter record's state is
 * written then: its class's fields of the entity, never ballistic). Where the budget
 * binds, most candidates are entering entities that wait, and neither the search for
 * what fits nor the split ever sizes them. Every record split() takes, and so every one
 * encoded or applied by make_sent, has been sized. */
static int fixed_bits_of(arb_snapshot_builder* b, int ci) {
  if (b->fixed_bits[ci] < 0) {
    cand* c = &b->cands[ci];
    if (c->rec.op == ARB_SNAPSHOT_ENTER) {
      c->rec.v = arb__snapshot_class_state(&c->entering->s, c->rec.cls);
      c->rec.v.flags &= (uint8_t)~ARB_SNAPSHOT_FLAG_BALLISTIC;
    }
    b->fixed_bits[ci] = arb__snapshot_fixed_bits(&c->rec);
  }
  return b->fixed_bits[ci];
}

/* Bits a candidate costs, roughly, for sharing the budget (a description is mostly shared
 * with identical ones, so it counts a little; which one an enter refers to is not known
 * before the split, so it counts as a new one). */
static int rough_bits(arb_snapshot_builder* b, int ci) {
  const arb_snapshot_record* r = &b->cands[ci].rec;
  int n = arb__snapshot_gap_bits(r->id, r->id > 64 ? r->id - 64 : 0) + fixed_bits_of(b, ci);
  return r->op == ARB_SNAPSHOT_ENTER ? n + 1 + 16 : n;  // as the part's next new description
}

/* Bits of candidate ci's record after the record with id prev, when `named` descriptions
 * came before it in the part (arb__snapshot_record_bits, from the part that depends on
 * neither, sized once per build: the search for what fits sizes a record many times). */
static int cand_bits(arb_snapshot_builder* b, int ci, uint32_t prev, int named) {
  const arb_snapshot_record* r = &b->cands[ci].rec;
  return arb__snapshot_gap_bits(r->id, prev) + fixed_bits_of(b, ci) +
         arb__snapshot_desc_ref_bits(r, named);
}

/* out[0..count) = the enters and the others (each list in key order) interleaved so that,
 * while corrections of entities drawn wrong wait, entering entities take at most half of
 * the bits in any prefix: a crowd entering the view arrives over a few snapshots, nearest
 * first, instead of stalling every correction behind it. The first `count` of each list
 * are enough (a list given shorter is taken to end there). */
static void spread_lists(arb_snapshot_builder* b, const int* enters, int ne, const int* others,
                         int no, int* out, int count) {
  int e = 0, u = 0, k = 0;
  long enter_bits = 0, other_bits = 0;
  while (k < count && (e < ne || u < no)) {
    int take_enter;
    if (e == ne)
      take_enter = 0;
    else if (u == no)
      take_enter = 1;
    else if (b->cands[others[u]].drawn_ok)
      take_enter = 1;  // only refreshes wait
    else if (enter_bits > other_bits)
      take_enter = 0;  // over half: corrections first
    else
      take_enter = b->cands[enters[e]].key < b->cands[others[u]].key;  // the higher priority
    int ci = take_enter ? enters[e++] : others[u++];
    out[k++] = ci;
    if (take_enter)
      enter_bits += rough_bits(b, ci);
    else
      other_bits += rough_bits(b, ci);
  }
}

/* order[0..want) = the first `want` candidate indices in the order above, and with a
 * drawn model spread: entering entities interleaved with the rest (spread_lists). The
 * binary search for what fits reads no further than the most candidates that can fit
 * (fit_bound), so only that many are ordered: the few dozen smallest keys of each list
 * are selected and sorted, not all. (Past ARB__SNAPSHOT_KEY_MERGE_MAX keys they are sorted
 * whole: the radix sort keeps index order among equal priorities only from the order
 * given.) */
static void order_candidates(arb_snapshot_builder* b, int n, int want, int drawn_model) {
  uint64_t* keys = b->keys;  // n keys, then n of scratch
  if (want >= n || want > ARB__SNAPSHOT_KEY_MERGE_MAX) want = n;
  if (!drawn_model) {
    for (int ci = 0; ci < n; ++ci) keys[ci] = cand_key(b, ci, 0);
    smallest_in_order(keys, keys + n, n, want, b->order);
    return;
  }
  // The entering entities' keys, then the others', each in index order (as the radix
  // sort needs them).
  int ne = 0, no = 0;
  for (int ci = 0; ci < n; ++ci) ne += b->cands[ci].rec.op == ARB_SNAPSHOT_ENTER;
  for (int ci = 0, e = 0; ci < n; ++ci) {
    if (b->cands[ci].rec.op == ARB_SNAPSHOT_ENTER)
      keys[e++] = b->cands[ci].key = cand_key(b, ci, 1);
    else
      keys[ne + no++] = b->cands[ci].key = cand_key(b, ci, 1);
  }
  int pe = ne < want ? ne : want, po = no < want ? no : want;
  int *enters = b->tmp, *others = b->tmp + pe;  // tmp: room for n indices
  smallest_in_order(keys, keys + n, ne, pe, enters);
  smallest_in_order(keys + ne, keys + n, no, po, others);
  spread_lists(b, enters, pe, others, po, b->order, want);
}

/* Largest msgpack overhead of a part around its descriptions and stream: the 9 header
 * fields with their array (34), the descs array header (3) and the bin header (3). */
#define PART_FIXED_BYTES 40
#define COUNT_BITS_MAX 13

/* How many candidates can fit the budget at most: the most whose least sizes sum to no more
 * than the bits it leaves for records. A record takes at least a bit of gap (and an enter a
 * bit of description reference) besides its fixed bits, and split() counts at least one
 * part, its fixed bytes and packet overhead and the record count's bits besides the
 * records', so any larger set -- the first t of any order -- is over budget. The sizes are
 * counted in a histogram; those of SIZE_BINS - 1 bits or more count as that many, which
 * only raises the bound. */
#define SIZE_BINS 512
static int fit_bound(arb_snapshot_builder* b, int n, long budget, int overhead) {
  if (budget >= LONG_MAX / 16) return n;
  int hist[SIZE_BINS];
  memset(hist, 0, sizeof hist);
  for (int ci = 0; ci < n; ++ci) {
    const arb_snapshot_record* r = &b->cands[ci].rec;
    int least =
        r->op == ARB_SNAPSHOT_ENTER ? b->enter_least[r->cls & 7] + 2 : fixed_bits_of(b, ci) + 1;
    hist[least < SIZE_BINS ? least : SIZE_BINS - 1]++;
  }
  long room = 8 * (budget - PART_FIXED_BYTES - overhead) - COUNT_BITS_MAX;
  if (room < 0) return 0;
  int count = 0;
  for (int bits = 1; bits < SIZE_BINS; ++bits) {
    long k = room / bits < hist[bits] ? room / bits : hist[bits];
    count += (int)k;
    room -= k * bits;
    if (k < hist[bits]) break;
  }
  return count;
}

/* Equal in every byte the encoding reads: the fields before the shapes (the shape count
 * among them), the shapes used, the fields after them. */
static int same_fields(const arb_snapshot_desc* x, const arb_snapshot_desc* y) {
  size_t head = offsetof(arb_snapshot_desc, shapes), tail = offsetof(arb_snapshot_desc, radius);
  if (memcmp(x, y, head) != 0) return 0;
  size_t n = x->shape_count < ARB_SNAPSHOT_MAX_SHAPES ? x->shape_count : ARB_SNAPSHOT_MAX_SHAPES;
  return memcmp(x->shapes, y->shapes, n * sizeof *x->shapes) == 0 &&
         memcmp((const char*)x + tail, (const char*)y + tail, sizeof *x - tail) == 0;
}

/* Same description (equal hash, then equal encoding)? Equal fields (the structs were
 * zeroed before they were filled, so their padding is equal too) encode the same, without
 * encoding them. */
static int same_desc(const arb_snapshot_builder* b, int x, int y) {
  if (b->desc_hash[x] != b->desc_hash[y] || b->desc_bytes[x] != b->desc_bytes[y]) return 0;
  if (same_fields(&b->descs[x], &b->descs[y])) return 1;
  uint8_t ex[ARB_PROTO_MAX_PAYLOAD], ey[ARB_PROTO_MAX_PAYLOAD];
  int n = arb__snapshot_desc_encode(&b->descs[x], ex, sizeof ex);
  return n > 0 && arb__snapshot_desc_encode(&b->descs[y], ey, sizeof ey) == n &&
         memcmp(ex, ey, (size_t)n) == 0;
}

/* The description index of enter candidate ci in a part whose descriptions so far are
 * the candidates owner[0..named): an earlier identical one, or `named` (a new one). */
static int desc_index(const arb_snapshot_builder* b, int ci, const int* owner, int named) {
  for (int k = 0; k < named; ++k)
    if (same_desc(b, owner[k], ci)) return k;
  return named;
}

/* Splits chosen[0..take) (by id) into parts that fit the payload, and gives every enter
 * record its description index in its part. Returns the part count (starts in
 * part_start), 0 when more than max_parts would be needed or the bytes (an upper bound in
 * *bound, plus `overhead` per part) exceed `budget`, or a negative ARB_E_* (a description
 * failed). The bytes only grow record by record, so the split stops at the first record
 * past the budget: with a small budget it describes and sizes only the records that fit. */
static int split(arb_snapshot_builder* b, const arb_snapshot_build_args* a, int take, int max_parts,
                 long budget, int overhead, int* part_start, long* bound) {
  int parts = 0, bits = 0, dbytes = 0, named = 0, recs = 0;
  *bound = 0;
  int owner[ARB_SNAPSHOT_MAX_PART_ENTERED];
  uint32_t prev = 0;
  for (int k = 0; k < take; ++k) {
    int ci = b->chosen[k];
    cand* c = &b->cands[ci];
    int enter = c->rec.op == ARB_SNAPSHOT_ENTER;
    if (enter) ARB__TRY(describe_enter(b, a, ci));
    for (int pass = 0; pass < 2; ++pass) {  // pass 1: the record opens a new part
      if (enter) c->rec.desc = (uint8_t)desc_index(b, ci, owner, named);
      int fresh = enter && c->rec.desc == named;
      int db = fresh ? b->desc_bytes[ci] : 0;
      int rb = cand_bits(b, ci, prev, named);
      int fits =
          PART_FIXED_BYTES + dbytes + db + (COUNT_BITS_MAX + bits + rb + 7) / 8 <= b->payload &&
          named + fresh <= ARB_SNAPSHOT_MAX_PART_ENTERED && recs < ARB_SNAPSHOT_MAX_PART_RECORDS;
      if (k > 0 && pass == 0 && recs > 0 && fits) {
        bits += rb;
        dbytes += db;
        if (fresh) owner[named++] = ci;
        recs++;
        break;
      }
      if (pass == 0 && k > 0 && recs > 0) {  // does not fit: open a new part
        *bound += PART_FIXED_BYTES + dbytes + (COUNT_BITS_MAX + bits + 7) / 8;
        bits = dbytes = named = recs = 0;
        prev = 0;
        continue;
      }
      if (parts == max_parts) return 0;
      part_start[parts++] = k;
      if (enter) c->rec.desc = 0;
      bits = cand_bits(b, ci, 0, 0);
      dbytes = enter ? b->desc_bytes[ci] : 0;
      named = enter;
      if (enter) owner[0] = ci;
      recs = 1;
      break;
    }
    prev = c->rec.id;
    long so_far = *bound + PART_FIXED_BYTES + dbytes + (COUNT_BITS_MAX + bits + 7) / 8;
    if (so_far + (long)parts * overhead > budget) return 0;
  }
  *bound += PART_FIXED_BYTES + dbytes + (COUNT_BITS_MAX + bits + 7) / 8;
  if (parts == 0) part_start[parts++] = 0;  // an empty snapshot is one empty part
  part_start[parts] = take;
  return parts;
}

static int encode_parts(arb_snapshot_builder* b, const arb_snapshot_build_args* a, int parts,
                        const int* part_start, arb_snapshot_build_result* out) {
  out->packet_count = parts;
  out->bytes = 0;
  for (int p = 0; p < parts; ++p) {
    arb_snapshot_part* part = b->part;
    part->h = a->h;
    part->h.part_index = (uint8_t)p;
    part->h.part_count = (uint8_t)parts;
    part->desc_count = part->record_count = 0;
    for (int k = part_start[p]; k < part_start[p + 1]; ++k) {
      int ci = b->chosen[k];
      const arb_snapshot_record* r = &b->cands[ci].rec;
      part->records[part->record_count++] = *r;
      if (r->op == ARB_SNAPSHOT_ENTER && r->desc == part->desc_count)
        part->descs[part->desc_count++] = b->descs[ci];
    }
    uint8_t* buf = b->packet_mem + (size_t)p * (size_t)b->payload;
    int n = arb_proto_encode_snapshot(part, buf, (size_t)b->payload);
    if (n < 0) return n;
    if (n > b->payload) return ARB_E_TOO_BIG;  // the split's bound is wrong: never send it
    out->packets[p] = buf;
    out->sizes[p] = n;
    out->bytes += n;
  }
  return 0;
}

/* Selects the `take` highest-priority of the n candidates and splits them into parts: 1
 * when that fits the budget and max_parts (an upper bound of the bytes, with the packet
 * overhead), 0 when not, or a negative ARB_E_*. The candidates are in id order (collect),
 * so marking the chosen ones and reading the marks back in candidate order lists them by
 * id without sorting: each probe of the search for the largest take costs O(n). */
static int try_take(arb_snapshot_builder* b, const arb_snapshot_build_args* a, int n, int take,
                    int max_parts, long budget, int overhead, int* part_start, int* parts) {
  long bound;
  int words = (n + 63) / 64, m = 0;
  memset(b->taken, 0, (size_t)words * sizeof *b->taken);
  for (int k = 0; k < take; ++k) b->taken[b->order[k] >> 6] |= (uint64_t)1 << (b->order[k] & 63);
  for (int w = 0; w < words; ++w)
    for (uint64_t x = b->taken[w]; x != 0; x &= x - 1) b->chosen[m++] = w * 64 + arb_lowest_bit(x);
  *parts =
      split(b, a, take, max_parts, take == 0 ? LONG_MAX : budget, overhead, part_start, &bound);
  return *parts < 0 ? *parts : *parts > 0;
}

/* try_take of every candidate: they are in id order already, so no sorting. */
static int try_all(arb_snapshot_builder* b, const arb_snapshot_build_args* a, int n, int max_parts,
                   long budget, int overhead, int* part_start, int* parts) {
  long bound;
  for (int k = 0; k < n; ++k) b->chosen[k] = k;
  *parts = split(b, a, n, max_parts, n == 0 ? LONG_MAX : budget, overhead, part_start, &bound);
  return *parts < 0 ? *parts : *parts > 0;
}

/* The client's view after all parts: the baseline's origins, re-origined where an update
 * was written; deferred records leave the baseline (or absence) in place. Candidates are
 * in id order, like the sets, and every entity between two of them is in both the baseline
 * and current and needs nothing (collect skipped it): those runs are copied whole. */
static int make_sent(arb_snapshot_builder* b, const arb_snapshot_build_args* a,
                     const arb_snapshot_set* base, int n, int* stale_count) {
  const arb_snapshot_set* cur = a->current;
  arb_snapshot_set* s = a->sent;
  int i = 0, j = 0;
  s->count = 0;
  for (int k = 0;; ++k) {
    const cand* c = k < n ? &b->cands[k] : NULL;
    int run = c == NULL ? base->count - i : c->pred >= 0 ? c->pred - i : c->cur - j;
    if (run > s->cap - s->count) return ARB_E_NOSPACE;
    if (run > 0) {  // an empty baseline has no items array
      memcpy(s->items + s->count, base->items + i, (size_t)run * sizeof *s->items);
      if (a->up_to_date) memset(a->up_to_date + j, 1, (size_t)run);
      s->count += run;
      i += run;
      j += run;
    }
    if (c == NULL) return 0;
    int sel = b->selected[k];
    if (c->cur >= 0 && a->up_to_date) a->up_to_date[j] = (uint8_t)c->drawn_ok;
    if (c->cur >= 0 && a->stale && !c->drawn_ok) a->stale[(*stale_count)++] = j;
    // Written in place: an entity assembled on the stack and then copied whole stalls on
    // the copy (see diff).
    int keep = !(sel && c->rec.op == ARB_SNAPSHOT_REMOVE) && (c->pred >= 0 || sel);
    if (keep && s->count == s->cap) return ARB_E_NOSPACE;
    arb_snapshot_entity* e = &s->items[s->count];
    if (!keep) {
      // removed, or entering and deferred
    } else if (sel && c->rec.op == ARB_SNAPSHOT_ENTER) {
      assert(b->fixed_bits[k] >= 0);  // split() sized it, so rec.v is written
      *e = cur->items[j];
      e->s = c->rec.v;
      e->s.t0 = a->h.tick;
    } else if (sel) {
      *e = b->pred.items[i];  // evaluated at the tick (by collect): the new origin
      arb__snapshot_apply_update(&e->s, &c->rec);
    } else {
      *e = base->items[i];
    }
    s->count += keep;
    if (c->pred >= 0) ++i;
    if (c->cur >= 0) ++j;
  }
}

static void count_records(const arb_snapshot_builder* b, int n, int take,
                          arb_snapshot_build_result* out) {
  out->entered = out->updated = out->removed = 0;
  for (int k = 0; k < take; ++k) {
    uint8_t op = b->cands[b->chosen[k]].rec.op;
    out->entered += op == ARB_SNAPSHOT_ENTER;
    out->updated += op == ARB_SNAPSHOT_UPDATE;
    out->removed += op == ARB_SNAPSHOT_REMOVE;
  }
  out->deferred = n - take;
}

int arb_snapshot_build(arb_snapshot_builder* b, const arb_snapshot_build_args* a,
                       arb_snapshot_build_result* out) {
  static const arb_snapshot_set empty = {NULL, 0, 0};
  memset(out, 0, sizeof *out);
  const arb_snapshot_set* base = a->h.baseline_tick && a->baseline ? a->baseline : &empty;
  if (!a->current || !a->sent || !a->describe || a->current->count > b->max_entities ||
      base->count > b->max_entities || a->max_parts < 0 || a->max_parts > ARB_PROTO_MAX_PARTS)
    return ARB_E_INVAL;
  if (a->h.baseline_tick && a->h.tick - a->h.baseline_tick > ARB_SNAPSHOT_MAX_DT)
    return ARB_E_RANGE;
  b->pred.count = base->count;  // filled by collect where it diffs
  int n = collect(b, a, base);
  if (n < 0) return n;
  for (int ci = 0; ci < n; ++ci) b->fixed_bits[ci] = -1;  // sized where asked (fixed_bits_of)
  long budget = a->byte_budget > 0 ? a->byte_budget : (long)ARB_PROTO_MAX_PARTS * b->payload;
  int max_parts = a->max_parts ? a->max_parts : ARB_PROTO_MAX_PARTS;
  int overhead = a->packet_overhead > 0 ? a->packet_overhead : 0;
  int part_start[ARB_PROTO_MAX_PARTS + 1], parts;
  // The most candidates, in priority order, that fit: everything (then the order does not
  // matter), or a binary search over the priority order.
  int take = n;
  int all = try_all(b, a, n, max_parts, budget, overhead, part_start, &parts);
  if (all < 0) return all;
  if (!all) {
    // Taking more than `most` candidates is over budget whichever they are: those probes
    // are answered without ordering or splitting anything.
    int most = b->full_diff ? n : fit_bound(b, n, budget, overhead);
    order_candidates(b, n, most, a->drawn != NULL);
    int lo = 0, hi = n;
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      int fits =
          mid > most ? 0 : try_take(b, a, n, mid, max_parts, budget, overhead, part_start, &parts);
      if (fits < 0) return fits;
      if (fits)
        lo = mid;
      else
        hi = mid;
    }
    take = lo;
    ARB__TRY(try_take(b, a, n, take, max_parts, budget, overhead, part_start, &parts));
  }
  ARB__TRY(encode_parts(b, a, parts, part_start, out));
  memset(b->selected, 0, (size_t)n);
  for (int k = 0; k < take; ++k) b->selected[b->chosen[k]] = 1;
  count_records(b, n, take, out);
  return make_sent(b, a, base, n, &out->stale_count);
}
