// Fuzz target: the client's snapshot assembler and v2 decode (client/src/cl_snapshot.c)
// on untrusted server bytes. The input is a sequence of packets, so the fuzzer can build multi-part
// snapshots, deltas against baselines it sent earlier, duplicates and late parts:
//
//   u8 config   bits 0-1: max_entities (8, 64, 512, 16384); bit 2: reset the assembler
//               (new connection) half-way through the packets
//   then packets: u16 little-endian length, that many bytes (a length past the end takes
//   the rest)
//
// After every packet the assembler's invariants must hold: a refusal says why; views are
// sorted by id, within the entity limit and within their part counts; the newest complete
// tick is retrievable; a view that completes holds the bodies of the drawn set (the newest)
// or its own origins' bodies, a fresher drawn origin where it is not after its tick (one
// completing late); every entity in a view has a description of its class (an id may
// change class between ticks); the description table stays bounded by the views (see
// cl_snapshot.h); the bytes held stay within a bound computed from the limits. Any
// violation aborts.
// Built as a libFuzzer target (fuzz-client_snapshot) in the fuzz preset, and otherwise as
// a plain program that runs the seed corpus (test_fuzz_client_snapshot_corpus).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Allocation hooks that count the bytes held (a size header in front of each block).
typedef struct fz_heap {
  size_t live, peak;
} fz_heap;

static void* fz_alloc(size_t size, void* user) {
  fz_heap* h = (fz_heap*)user;
  size_t* p = (size_t*)malloc(sizeof(size_t) * 2 + size);
  if (!p) return NULL;
  p[0] = size;
  h->live += size;
  if (h->live > h->peak) h->peak = h->live;
  return p + 2;
}

static void fz_free(void* ptr, void* user) {
  fz_heap* h = (fz_heap*)user;
  size_t* p = (size_t*)ptr - 2;
  h->live -= p[0];
  free(p);
}

#define CHECK(cond)                                                                               \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      fprintf(stderr, "fuzz_client_snapshot: invariant failed: %s (line %d)\n", #cond, __LINE__); \
      abort();                                                                                    \
    }                                                                                             \
  } while (0)

static bool same_state(const arb_snapshot_state* a, const arb_snapshot_state* b) {
  return a->x == b->x && a->y == b->y && a->angle == b->angle && a->vx == b->vx && a->vy == b->vy &&
         a->w == b->w && a->t0 == b->t0;
}

// The body `id` of the drawn set evaluated at the slot's tick, as a view's body.
static bool drawn_body_at(const cl_snapshots* s, const cl_slot* sl, uint32_t id, cl_body* out) {
  cl_slot as_drawn = *sl;
  as_drawn.origins = s->drawn;
  return cl_snapshots_body_at(&as_drawn, id, out);
}

// A view that just completed. The newest is the drawn set's bodies at its tick. One
// completing late (older than the newest) holds its own bodies, each from its own origin,
// or from the drawn set's when that origin is fresher and not after the view's tick; a
// body whose drawn origin is after the tick is left out unless this view wrote it.
static void check_completed(const cl_snapshots* s, const cl_slot* sl, bool newest) {
  const arb_snapshot_set* from = newest ? &s->drawn : &sl->origins;
  int k = 0;
  for (int i = 0; i < from->count; i++) {
    const arb_snapshot_entity* e = &from->items[i];
    if (e->cls != ARB_SNAPSHOT_BODY) continue;
    const arb_snapshot_entity* d = newest ? e : arb_snapshot_set_find(&s->drawn, e->id);
    bool fresher = d && d->cls == ARB_SNAPSHOT_BODY && d->s.t0 > e->s.t0;
    cl_body want;
    if (newest || (fresher && d->s.t0 <= sl->tick)) {
      CHECK(drawn_body_at(s, sl, e->id, &want));
    } else if (fresher && e->s.t0 != sl->tick) {
      continue;  // left out
    } else {
      CHECK(cl_snapshots_body_at(sl, e->id, &want));
    }
    CHECK(k < sl->bodies.count && sl->bodies.items[k].id == e->id);
    CHECK(same_state(&sl->bodies.items[k].q, &want.q));
    k++;
  }
  CHECK(k == sl->bodies.count);
}

static void check_invariants(const cl_snapshots* s, const fz_heap* heap) {
  const int view_limit = s->max_entities + ARB_SNAPSHOT_MAX_PART_RECORDS;
  long total = 0;
  for (int i = 0; i < CL_SLOTS; i++) {
    const cl_slot* sl = &s->slots[i];
    if (!sl->used) continue;
    CHECK(sl->tick > 0);
    CHECK(sl->part_count >= 1 && sl->parts_seen >= 1 && sl->parts_seen <= sl->part_count);
    CHECK(sl->complete == (sl->parts_seen == sl->part_count));
    const arb_snapshot_set* o = &sl->origins;
    CHECK(o->count >= 0 && o->count <= o->cap && o->count <= view_limit);
    for (int k = 0; k < o->count; k++) {
      const arb_snapshot_entity* e = &o->items[k];
      CHECK(e->id > 0);
      CHECK(k == 0 || o->items[k - 1].id < e->id);
      if (e->cls == ARB_SNAPSHOT_BODY)
        CHECK(cl_snapshots_desc(s, e->id) != NULL);
      else
        CHECK(cl_snapshots_extra(s, e->id, e->cls) != NULL);
    }
    if (sl->complete) {
      // Bodies in id order within the limit. Which origin each came from is checked when
      // the view completes (check_completed): the drawn set it read changes later.
      CHECK(sl->bodies.count >= 0 && sl->bodies.count <= s->max_entities);
      for (int k = 1; k < sl->bodies.count; k++)
        CHECK(sl->bodies.items[k - 1].id < sl->bodies.items[k].id);
    }
    for (int j = 0; j < i; j++) CHECK(!s->slots[j].used || s->slots[j].tick != sl->tick);
    total += o->count;
  }
  if (s->newest_complete != 0) CHECK(cl_snapshots_get(s, s->newest_complete) != NULL);
  // Every description is found by its key, as itself: the keys are distinct and the index
  // is consistent with the table.
  for (int k = 0; k < s->ndescs; k++) {
    const cl_desc_entry* a = cl_desc_at(s, k);
    CHECK(a->id > 0);
    if (a->extra.cls == ARB_SNAPSHOT_BODY)
      CHECK(cl_snapshots_desc(s, a->id) == &a->desc);
    else
      CHECK(cl_snapshots_extra(s, a->id, a->extra.cls) == &a->extra);
  }
  // Descriptions of entities no view holds any more are swept once the table is twice
  // the views (+ slack): the table cannot grow without bound.
  CHECK(s->ndescs <= 2 * total + 256);
  // Bytes: the decode scratch, each slot's views (doubling growth: at most twice the limit),
  // the description table (blocks of CL_BLOCK: at most one block over its bound) and its
  // index (a power of two
  // at most four times the table's entries, at least 64).
  size_t descs = (size_t)(2 * CL_SLOTS * view_limit + 256 + ARB_SNAPSHOT_MAX_PART_RECORDS + 16);
  size_t bound =
      sizeof(arb_snapshot_part) +
      (size_t)CL_SLOTS * 2u * (size_t)view_limit * (sizeof(arb_snapshot_entity) + sizeof(cl_body)) +
      2u * descs * sizeof(cl_desc_entry) + (4u * descs + 64u) * sizeof(int);
  CHECK(heap->live <= bound);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const int limits[4] = {8, 64, 512, 16384};
  const uint8_t config = data[0];
  fz_heap heap = {0, 0};
  cl_mem mem = {fz_alloc, fz_free, &heap};
  cl_snapshots s;
  if (cl_snapshots_init(&s, limits[config & 3], &mem) != 0) abort();
  // Packet boundaries first, so "half-way" is known for the reset.
  size_t npackets = 0;
  for (size_t pos = 1; pos < size;) {
    size_t n = size - pos >= 2 ? (size_t)data[pos] | (size_t)data[pos + 1] << 8 : 0;
    pos += size - pos >= 2 ? 2 : size - pos;
    if (n > size - pos) n = size - pos;
    pos += n;
    npackets++;
  }
  size_t index = 0;
  for (size_t pos = 1; pos < size; index++) {
    size_t n = size - pos >= 2 ? (size_t)data[pos] | (size_t)data[pos + 1] << 8 : 0;
    pos += size - pos >= 2 ? 2 : size - pos;
    if (n > size - pos) n = size - pos;
    const uint8_t* pkt = data + pos;
    pos += n;
    if ((config & 4) && index == npackets / 2) cl_snapshots_reset(&s);
    // A copy of exactly n bytes, so ASan sees any read past the packet.
    uint8_t* copy = (uint8_t*)malloc(n ? n : 1);
    if (!copy) abort();
    if (n) memcpy(copy, pkt, n);
    cl_snap_result res;
    arb_proto_error err;
    memset(&res, 0, sizeof res);
    memset(&err, 0, sizeof err);
    int rc = cl_snapshots_receive(&s, copy, n, &res, &err);
    free(copy);
    CHECK(rc == 0 || rc == 1 || rc < 0);
    if (rc < 0) CHECK(err.reason[0] != '\0' && err.code == rc);
    if (rc == 1) {
      CHECK(res.slot != NULL && res.slot->used && res.slot->tick == res.tick);
      CHECK(res.part != NULL && res.part->h.tick == res.tick);
      if (res.completed) {
        CHECK(cl_snapshots_get(&s, res.tick) == res.slot);
        check_completed(&s, res.slot, res.newest);
      }
      if (res.newest) CHECK(s.newest_complete == res.tick);
    }
    check_invariants(&s, &heap);
  }
  cl_snapshots_deinit(&s);
  CHECK(heap.live == 0);  // deinit frees everything
  return 0;
}
