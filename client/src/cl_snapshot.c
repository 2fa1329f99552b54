// Snapshot assembly and baselines (design notes in cl_snapshot.h).
#include "cl_snapshot.h"

#include <arbiter/snapshot_drawn.h>
#include <stdio.h>

int cl_snapshots_init(cl_snapshots* s, int max_entities, const cl_mem* mem) {
  memset(s, 0, sizeof *s);
  s->mem = *mem;
  s->max_entities = max_entities > 0 ? max_entities : 16384;
  if (s->max_entities > ARB_PROTO_MAX_ENTITIES) s->max_entities = ARB_PROTO_MAX_ENTITIES;
  s->part = (arb_snapshot_part*)cl_alloc(&s->mem, sizeof(arb_snapshot_part));
  return s->part ? 0 : ARB_E_NOMEM;
}

void cl_snapshots_deinit(cl_snapshots* s) {
  for (int i = 0; i < CL_SLOTS; i++) {
    cl_free(&s->mem, s->slots[i].bodies.items);
    cl_free(&s->mem, s->slots[i].origins.items);
  }
  cl_free(&s->mem, s->spare_bodies.items);
  cl_free(&s->mem, s->drawn.items);
  cl_free(&s->mem, s->drawn_tmp.items);
  cl_blocks_free(&s->mem, &s->descs);
  cl_free(&s->mem, s->desc_index);
  cl_free(&s->mem, s->part);
  memset(s, 0, sizeof *s);
}

void cl_snapshots_reset(cl_snapshots* s) {
  for (int i = 0; i < CL_SLOTS; i++) {
    s->slots[i].used = false;
    s->slots[i].complete = false;
    s->slots[i].bodies.count = 0;
    s->slots[i].origins.count = 0;
  }
  s->newest_complete = 0;
  s->drawn.count = 0;
  s->ndescs = 0;
  if (s->desc_index) memset(s->desc_index, 0, (size_t)s->desc_index_cap * sizeof *s->desc_index);
}

static cl_slot* find_slot(cl_snapshots* s, uint32_t tick) {
  for (int i = 0; i < CL_SLOTS; i++)
    if (s->slots[i].used && s->slots[i].tick == tick) return &s->slots[i];
  return NULL;
}

const cl_slot* cl_snapshots_get(const cl_snapshots* s, uint32_t tick) {
  for (int i = 0; i < CL_SLOTS; i++)
    if (s->slots[i].used && s->slots[i].complete && s->slots[i].tick == tick) return &s->slots[i];
  return NULL;
}

// Room for `need` items of `elem` bytes in a set's array, at most `most`: 0, ARB_E_TOO_BIG
// or ARB_E_NOMEM (the array kept).
static int set_room(cl_snapshots* s, void** items, int* cap, int need, int most, size_t elem) {
  if (need <= *cap) return 0;
  if (need > most) return ARB_E_TOO_BIG;
  return cl_grow(&s->mem, items, cap, need, elem);
}

static int ensure_cap(cl_snapshots* s, cl_body_set* set, int need) {
  void* items = set->items;
  int rc = set_room(s, &items, &set->cap, need, s->max_entities, sizeof(cl_body));
  set->items = (cl_body*)items;
  return rc;
}

static int ensure_origins(cl_snapshots* s, arb_snapshot_set* set, int need) {
  void* items = set->items;
  int most = s->max_entities + ARB_SNAPSHOT_MAX_PART_RECORDS;
  int rc = set_room(s, &items, &set->cap, need, most, sizeof(arb_snapshot_entity));
  set->items = (arb_snapshot_entity*)items;
  return rc;
}

const cl_body* cl_body_set_find(const cl_body_set* set, uint32_t id) {
  int lo = 0, hi = set->count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (set->items[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < set->count && set->items[lo].id == id ? &set->items[lo] : NULL;
}

cl_body cl_body_from_state(uint32_t id, const arb_snapshot_state* q) {
  cl_body b;
  b.id = id;
  b.q = *q;
  b.position = arb_v2(arb_proto_dequantize_pos(q->x), arb_proto_dequantize_pos(q->y));
  b.angle = arb_proto_dequantize_angle(q->angle);
  b.velocity = arb_v2(arb_proto_dequantize_vel(q->vx), arb_proto_dequantize_vel(q->vy));
  b.angular_velocity = arb_snapshot_dequantize_angvel(q->w);
  return b;
}

// A body's origin evaluated at the slot's tick.
static cl_body body_at(const cl_slot* sl, const arb_snapshot_entity* e) {
  arb_snapshot_state v = arb_snapshot_eval(&e->s, e->cls, sl->tick, &sl->h);
  return cl_body_from_state(e->id, &v);
}

bool cl_snapshots_body_at(const cl_slot* sl, uint32_t id, cl_body* out) {
  const arb_snapshot_entity* e = arb_snapshot_set_find(&sl->origins, id);
  if (!e || e->cls != ARB_SNAPSHOT_BODY) return false;
  *out = body_at(sl, e);
  return true;
}

// Bodies are read from the newest complete view (the entity table, prediction, the latest
// state) and from a view as it completes (the interpolation's history); never from an older
// one. So only those two hold a body array: the others give theirs to the view completing,
// and one more is kept spare. A client of a 10 000-body world holds at most three arrays
// of 0.6 MB instead of one per view, and stops touching fresh pages once they have grown.
static void collect_bodies(cl_snapshots* s, cl_slot* sl, const cl_slot* keep) {
  for (int i = 0; i < CL_SLOTS; i++) {
    cl_slot* o = &s->slots[i];
    if (o == sl || o == keep || o->bodies.items == NULL) continue;
    cl_body_set* to = sl->bodies.items == NULL        ? &sl->bodies
                      : s->spare_bodies.items == NULL ? &s->spare_bodies
                                                      : NULL;
    if (to)
      *to = o->bodies;
    else
      cl_free(&s->mem, o->bodies.items);
    o->bodies = (cl_body_set){NULL, 0, 0};
  }
  if (sl->bodies.items == NULL) {
    sl->bodies = s->spare_bodies;
    s->spare_bodies = (cl_body_set){NULL, 0, 0};
  }
  sl->bodies.count = 0;
}

// A complete view's bodies at its tick: what interpolation and prediction read. The newest
// view's come from the drawn set. A view completing late (older than the newest) may lack
// corrections its siblings carried: a body is taken from the drawn set when that origin is
// fresher and not after the view's tick; when the drawn one is after it, the view's own is
// kept only if this view wrote it (else newer views already gave its history).
static int evaluate_view(cl_snapshots* s, cl_slot* sl, bool newest) {
  const arb_snapshot_set* from = newest ? &s->drawn : &sl->origins;
  // The newest keeps its array even when this view is about to replace it: if this one
  // fails (a view over max_entities), the newest is still what the client draws.
  collect_bodies(s, sl, cl_snapshots_get(s, s->newest_complete));
  int rc = ensure_cap(s, &sl->bodies, from->count);
  if (rc) return rc;
  sl->bodies.count = 0;
  for (int i = 0; i < from->count; i++) {
    const arb_snapshot_entity* e = &from->items[i];
    if (e->cls != ARB_SNAPSHOT_BODY) continue;
    const arb_snapshot_entity* d = newest ? NULL : arb_snapshot_set_find(&s->drawn, e->id);
    if (d && d->cls == e->cls && d->s.t0 > e->s.t0) {
      if (d->s.t0 <= sl->tick)
        e = d;
      else if (e->s.t0 != sl->tick)
        continue;
    }
    sl->bodies.items[sl->bodies.count++] = body_at(sl, e);
  }
  return 0;
}

// The newest complete view updates the drawn set (arbiter/snapshot_drawn.h): every entity
// from the freshest origin any view gave it, so a correction a sibling snapshot carried is
// kept although this view (built on an older baseline) lacks it.
static int update_drawn(cl_snapshots* s, const cl_slot* sl) {
  int need = s->drawn.count + sl->origins.count;
  if (need > 2 * (s->max_entities + ARB_SNAPSHOT_MAX_PART_RECORDS)) return ARB_E_TOO_BIG;
  if (need > s->drawn_tmp.cap) {
    int cap = s->drawn_tmp.cap;
    void* items = s->drawn_tmp.items;
    int rc = cl_grow(&s->mem, &items, &cap, need, sizeof(arb_snapshot_entity));
    if (rc) return rc;
    s->drawn_tmp.items = (arb_snapshot_entity*)items;
    s->drawn_tmp.cap = cap;
  }
  const cl_slot* base = sl->baseline ? cl_snapshots_get(s, sl->baseline) : NULL;
  int rc = arb_snapshot_drawn_apply(&s->drawn, &sl->origins, base ? &base->origins : NULL,
                                    sl->baseline, &s->drawn_tmp);
  if (rc) return rc;
  arb_snapshot_set t = s->drawn;
  s->drawn = s->drawn_tmp;
  s->drawn_tmp = t;
  return 0;
}

// ---- descriptions ----------------------------------------------------------------------

static uint32_t desc_hash(uint32_t id, uint8_t cls) {
  uint32_t h = id * 0x9E3779B1u ^ (uint32_t)cls * 0x85EBCA6Bu;
  return h ^ h >> 15;
}

// The index slot of (id, cls): the one naming its entry, or the empty one where it goes.
// -1 without an index. Ends: the index is at most half full.
static int desc_slot(const cl_snapshots* s, uint32_t id, uint8_t cls) {
  if (s->desc_index_cap == 0) return -1;
  uint32_t mask = (uint32_t)s->desc_index_cap - 1;
  for (uint32_t i = desc_hash(id, cls) & mask;; i = (i + 1) & mask) {
    int v = s->desc_index[i];
    if (v == 0) return (int)i;
    const cl_desc_entry* e = cl_desc_at(s, v - 1);
    if (e->id == id && e->extra.cls == cls) return (int)i;
  }
}

static const cl_desc_entry* find_desc(const cl_snapshots* s, uint32_t id, uint8_t cls) {
  int i = desc_slot(s, id, cls);
  return i >= 0 && s->desc_index[i] != 0 ? cl_desc_at(s, s->desc_index[i] - 1) : NULL;
}

// Indexes descs[0..ndescs) (distinct keys) in an index of `cap` slots; 0 or ARB_E_NOMEM
// (the old index kept).
static int reindex_descs(cl_snapshots* s, int cap) {
  if (cap != s->desc_index_cap) {
    int* t = (int*)cl_alloc(&s->mem, (size_t)cap * sizeof *t);
    if (!t) return ARB_E_NOMEM;
    cl_free(&s->mem, s->desc_index);
    s->desc_index = t;
    s->desc_index_cap = cap;
  }
  memset(s->desc_index, 0, (size_t)cap * sizeof *s->desc_index);
  for (int k = 0; k < s->ndescs; k++) {
    const cl_desc_entry* e = cl_desc_at(s, k);
    s->desc_index[desc_slot(s, e->id, e->extra.cls)] = k + 1;
  }
  return 0;
}

const cl_body_desc* cl_snapshots_desc(const cl_snapshots* s, uint32_t id) {
  const cl_desc_entry* e = find_desc(s, id, ARB_SNAPSHOT_BODY);
  return e ? &e->desc : NULL;
}

int cl_snapshots_more_shapes(const cl_snapshots* s, uint32_t id, const arb_proto_shape** more) {
  const cl_desc_entry* e = find_desc(s, id, ARB_SNAPSHOT_BODY);
  if (more) *more = e ? e->more : NULL;
  return e ? e->more_count : 0;
}

const cl_extra_desc* cl_snapshots_extra(const cl_snapshots* s, uint32_t id, uint8_t cls) {
  const cl_desc_entry* e = cls != ARB_SNAPSHOT_BODY ? find_desc(s, id, cls) : NULL;
  return e ? &e->extra : NULL;
}

static bool holds(const arb_snapshot_set* set, uint32_t id, uint8_t cls) {
  const arb_snapshot_entity* e = arb_snapshot_set_find(set, id);
  return e && e->cls == cls;
}

static bool in_any_view(const cl_snapshots* s, uint32_t id, uint8_t cls) {
  if (holds(&s->drawn, id, cls)) return true;
  for (int i = 0; i < CL_SLOTS; i++)
    if (s->slots[i].used && holds(&s->slots[i].origins, id, cls)) return true;
  return false;
}

// Entities leave views without a trace in the description table: sweep it when it holds
// more than twice the entities of all views (+ slack). Runs after every packet, not only
// when a tick completes: parts of ticks that never complete (a hostile or broken server)
// used to grow the table without bound. After a sweep the table is at most the views'
// total, so sweeps are amortised over at least as many new descriptions.
static void prune_descs(cl_snapshots* s) {
  long held = s->drawn.count;
  for (int i = 0; i < CL_SLOTS; i++)
    if (s->slots[i].used) held += s->slots[i].origins.count;
  if (s->ndescs <= 2 * held + 256) return;
  int w = 0;
  for (int r = 0; r < s->ndescs; r++) {
    const cl_desc_entry* e = cl_desc_at(s, r);
    if (in_any_view(s, e->id, e->extra.cls)) *cl_desc_at(s, w++) = *e;
  }
  s->ndescs = w;
  reindex_descs(s, s->desc_index_cap);  // the same size: never fails
}

static int put_desc(cl_snapshots* s, const cl_desc_entry* e) {
  int i = desc_slot(s, e->id, e->extra.cls);
  if (i >= 0 && s->desc_index[i] != 0) {
    *cl_desc_at(s, s->desc_index[i] - 1) = *e;
    return 0;
  }
  int rc = cl_blocks_room(&s->mem, &s->descs, s->ndescs + 1, sizeof(cl_desc_entry));
  if (rc) return rc;
  if (2 * (s->ndescs + 1) > s->desc_index_cap) {
    int cap = s->desc_index_cap > 0 ? s->desc_index_cap : 64;
    while (2 * (s->ndescs + 1) > cap) cap *= 2;
    if ((rc = reindex_descs(s, cap)) != 0) return rc;
    i = desc_slot(s, e->id, e->extra.cls);
  }
  *cl_desc_at(s, s->ndescs++) = *e;
  s->desc_index[i] = s->ndescs;
  return 0;
}

// ---- receive ---------------------------------------------------------------------------

static int fail(cl_snapshots* s, arb_proto_error* err, int code, const char* fmt, uint32_t a,
                uint32_t b) {
  s->errors++;
  if (err) {
    err->code = code;
    err->offset = 0;
    snprintf(err->reason, sizeof err->reason, fmt, a, b);
  }
  return code;
}

// A slot for a new tick: a free one, else the oldest that is neither the baseline we are
// about to copy nor the newest complete view. NULL when the new tick is older than all.
static cl_slot* claim_slot(cl_snapshots* s, uint32_t tick, uint32_t keep) {
  cl_slot* victim = NULL;
  for (int i = 0; i < CL_SLOTS; i++) {
    cl_slot* sl = &s->slots[i];
    if (!sl->used) return sl;
    if (sl->tick == keep || sl->tick == s->newest_complete) continue;
    if (!victim || sl->tick < victim->tick) victim = sl;
  }
  if (!victim || victim->tick > tick) return NULL;
  return victim;
}

static bool same_tick_header(const arb_snapshot_header* a, const arb_snapshot_header* b) {
  return a->baseline_tick == b->baseline_tick && a->part_count == b->part_count &&
         a->last_input_seq == b->last_input_seq && a->tick_rate == b->tick_rate &&
         a->gravity_x == b->gravity_x && a->gravity_y == b->gravity_y;
}

// The slot of a part's tick: the one being assembled, or a new one holding a copy of the
// baseline's view. *slot NULL with 0: a duplicate or too late (counted).
static int open_slot(cl_snapshots* s, const arb_snapshot_header* h, cl_slot** slot, bool* fresh,
                     arb_proto_error* err) {
  *slot = NULL;
  *fresh = false;
  cl_slot* sl = find_slot(s, h->tick);
  if (sl) {
    if (sl->complete || (sl->seen[h->part_index >> 3] & (1u << (h->part_index & 7)))) {
      s->duplicates++;
      return 0;
    }
    if (!same_tick_header(&sl->h, h))
      return fail(s, err, ARB_E_CORRUPT,
                  "snapshot %u: part disagrees with earlier parts (baseline %u)", h->tick,
                  h->baseline_tick);
    *slot = sl;
    return 0;
  }
  const cl_slot* base = NULL;
  if (h->baseline_tick != 0) {
    base = cl_snapshots_get(s, h->baseline_tick);
    if (!base) {
      s->baseline_missing++;
      if (err) {
        err->code = ARB_E_NOT_FOUND;
        err->offset = 0;
        snprintf(err->reason, sizeof err->reason, "snapshot %u: baseline %u not held", h->tick,
                 h->baseline_tick);
      }
      return ARB_E_NOT_FOUND;
    }
  }
  sl = claim_slot(s, h->tick, h->baseline_tick);
  if (!sl) {
    s->late++;
    return 0;
  }
  sl->used = false;  // until the copy succeeded
  sl->complete = false;
  sl->origins.count = 0;
  sl->bodies.count = 0;
  if (base) {
    int rc = ensure_origins(s, &sl->origins, base->origins.count);
    if (rc == 0) rc = arb_snapshot_set_copy(&sl->origins, &base->origins);
    if (rc)
      return fail(s, err, rc, "snapshot %u: cannot copy the baseline view of %u entities", h->tick,
                  (uint32_t)base->origins.count);
  }
  sl->tick = h->tick;
  sl->baseline = h->baseline_tick;
  sl->part_count = h->part_count;
  sl->h = *h;
  sl->parts_seen = 0;
  memset(sl->seen, 0, sizeof sl->seen);
  sl->used = true;
  *slot = sl;
  *fresh = true;
  return 0;
}

// Bodies' descriptions in the form the client's entity table uses (the first shape), with
// a compound body's other shapes beside it; the others' in the form cl_extras.c draws
// from.
static int keep_descs(cl_snapshots* s, const arb_snapshot_part* p, arb_proto_error* err) {
  for (int i = 0; i < p->record_count; i++) {
    const arb_snapshot_record* r = &p->records[i];
    if (r->op != ARB_SNAPSHOT_ENTER) continue;
    const arb_snapshot_desc* d = &p->descs[r->desc];
    cl_desc_entry e;
    memset(&e, 0, sizeof e);
    e.id = r->id;
    e.extra.cls = r->cls;
    if (r->cls == ARB_SNAPSHOT_BODY) {
      e.desc.body_type = d->body_type;
      e.desc.avatar_kind = d->avatar_kind;
      e.desc.owner = d->owner;
      e.desc.shape = d->shapes[0];
      e.more_count = (uint8_t)(d->shape_count - 1);
      for (int k = 1; k < d->shape_count; ++k) e.more[k - 1] = d->shapes[k];
    } else {
      e.extra.link_kind = d->link_kind;
      e.extra.joint_type = d->joint_type;
      e.extra.a = d->a;
      e.extra.b = d->b;
      e.extra.anchor_a = d->anchor_a;
      e.extra.anchor_b = d->anchor_b;
      e.extra.radius = d->radius;
    }
    int rc = put_desc(s, &e);
    if (rc) return fail(s, err, rc, "snapshot %u: out of memory for entity %u", p->h.tick, r->id);
  }
  return 0;
}

static int receive_part(cl_snapshots* s, const uint8_t* buf, size_t len, cl_snap_result* res,
                        arb_proto_error* err) {
  arb_snapshot_part* p = s->part;
  arb_proto_error perr;
  int rc = arb_proto_decode_snapshot(buf, len, p, &perr);
  if (rc != ARB_OK) {
    s->errors++;
    if (err) *err = perr;
    return rc;
  }
  cl_slot* sl;
  bool fresh;
  rc = open_slot(s, &p->h, &sl, &fresh, err);
  if (rc || !sl) return rc;
  int entering = 0;
  for (int i = 0; i < p->record_count; i++) entering += p->records[i].op == ARB_SNAPSHOT_ENTER;
  rc = ensure_origins(s, &sl->origins, sl->origins.count + entering);
  if (rc == ARB_OK)
    rc = arb_snapshot_set_apply(&sl->origins, p, &perr);
  else
    snprintf(perr.reason, sizeof perr.reason, "snapshot %u: view over %d entities", p->h.tick,
             s->max_entities);
  if (rc != ARB_OK) {
    if (fresh) sl->used = false;
    s->errors++;
    if (err) {
      *err = perr;
      err->code = rc;
    }
    return rc;
  }
  if ((rc = keep_descs(s, p, err)) != 0) return rc;
  sl->seen[p->h.part_index >> 3] |= (uint8_t)(1u << (p->h.part_index & 7));
  sl->parts_seen++;
  s->parts++;
  if (p->h.tick < s->newest_complete) s->late++;

  res->tick = p->h.tick;
  res->completed = false;
  res->newest = false;
  res->slot = sl;
  res->part = p;
  if (sl->parts_seen == sl->part_count) {
    bool newest = p->h.tick > s->newest_complete;
    rc = newest ? update_drawn(s, sl) : 0;
    if (rc == 0) rc = evaluate_view(s, sl, newest);
    if (rc) {
      sl->used = false;
      return fail(s, err, rc, "snapshot %u: view of %u entities too large", p->h.tick,
                  (uint32_t)sl->origins.count);
    }
    sl->complete = true;
    s->completed++;
    res->completed = true;
    if (p->h.tick > s->newest_complete) {
      s->newest_complete = p->h.tick;
      res->newest = true;
    }
  }
  return 1;
}

int cl_snapshots_receive(cl_snapshots* s, const uint8_t* buf, size_t len, cl_snap_result* res,
                         arb_proto_error* err) {
  int rc = receive_part(s, buf, len, res, err);
  prune_descs(s);  // every path: a refused part may still have evicted a view
  return rc;
}
