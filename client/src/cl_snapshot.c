// Snapshot assembly and baselines (design notes in cl_snapshot.h).
#include "cl_snapshot.h"

#include <stdio.h>

int cl_snapshots_init(cl_snapshots* s, int max_entities, const cl_mem* mem) {
  memset(s, 0, sizeof *s);
  s->mem = *mem;
  s->max_entities = max_entities > 0 ? max_entities : 16384;
  if (s->max_entities > ARB_PROTO_MAX_ENTITIES) s->max_entities = ARB_PROTO_MAX_ENTITIES;
  s->part = (arb_proto_snapshot*)cl_alloc(&s->mem, sizeof(arb_proto_snapshot));
  return s->part ? 0 : ARB_E_NOMEM;
}

void cl_snapshots_deinit(cl_snapshots* s) {
  for (int i = 0; i < CL_SLOTS; i++) cl_free(&s->mem, s->slots[i].set.items);
  cl_free(&s->mem, s->descs);
  cl_free(&s->mem, s->part);
  memset(s, 0, sizeof *s);
}

void cl_snapshots_reset(cl_snapshots* s) {
  for (int i = 0; i < CL_SLOTS; i++) {
    s->slots[i].used = false;
    s->slots[i].complete = false;
    s->slots[i].set.count = 0;
  }
  s->newest_complete = 0;
  s->ndescs = 0;
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

static int ensure_cap(cl_snapshots* s, arb_proto_entity_set* set, int need) {
  if (need <= set->cap) return 0;
  if (need > s->max_entities + ARB_PROTO_MAX_PART_ENTERED) return ARB_E_TOO_BIG;
  int cap = set->cap;
  void* items = set->items;
  int rc = cl_grow(&s->mem, &items, &cap, need, sizeof(arb_proto_entity));
  if (rc) return rc;
  set->items = (arb_proto_entity*)items;
  set->cap = cap;
  return 0;
}

// ---- descriptions ----------------------------------------------------------------------

static int desc_lower_bound(const cl_snapshots* s, uint32_t id) {
  int lo = 0, hi = s->ndescs;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (s->descs[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const arb_proto_entity_desc* cl_snapshots_desc(const cl_snapshots* s, uint32_t id) {
  int i = desc_lower_bound(s, id);
  return (i < s->ndescs && s->descs[i].id == id) ? &s->descs[i].desc : NULL;
}

static bool in_any_view(const cl_snapshots* s, uint32_t id) {
  for (int i = 0; i < CL_SLOTS; i++) {
    if (!s->slots[i].used) continue;
    if (arb_proto_entity_set_find(&s->slots[i].set, id)) return true;
  }
  return false;
}

// Entities leave views without a trace in the description table: sweep it when it holds
// more than twice the entities of all views (+ slack). Runs after every packet, not only
// when a tick completes: parts of ticks that never complete (a hostile or broken server)
// used to grow the table without bound. After a sweep the table is at most the views'
// total, so sweeps are amortised over at least as many new descriptions.
static void prune_descs(cl_snapshots* s) {
  long held = 0;
  for (int i = 0; i < CL_SLOTS; i++)
    if (s->slots[i].used) held += s->slots[i].set.count;
  if (s->ndescs <= 2 * held + 256) return;
  int w = 0;
  for (int r = 0; r < s->ndescs; r++)
    if (in_any_view(s, s->descs[r].id)) s->descs[w++] = s->descs[r];
  s->ndescs = w;
}

static int put_desc(cl_snapshots* s, uint32_t id, const arb_proto_entity_desc* d) {
  int i = desc_lower_bound(s, id);
  if (i < s->ndescs && s->descs[i].id == id) {
    s->descs[i].desc = *d;
    return 0;
  }
  int rc = cl_grow(&s->mem, (void**)&s->descs, &s->desc_cap, s->ndescs + 1, sizeof(cl_desc_entry));
  if (rc) return rc;
  memmove(&s->descs[i + 1], &s->descs[i], (size_t)(s->ndescs - i) * sizeof(cl_desc_entry));
  s->descs[i].id = id;
  s->descs[i].desc = *d;
  s->ndescs++;
  return 0;
}

// ---- receive ---------------------------------------------------------------------------

static int fail(cl_snapshots* s, arb_proto_error* err, int code, const char* fmt, uint32_t a, uint32_t b) {
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

static int receive_part(cl_snapshots* s, const uint8_t* buf, size_t len, cl_snap_result* res,
                        arb_proto_error* err) {
  arb_proto_snapshot* p = s->part;
  arb_proto_error perr;
  int rc = arb_proto_decode_snapshot(buf, len, p, &perr);
  if (rc != ARB_OK) {
    s->errors++;
    if (err) *err = perr;
    return rc;
  }
  if (p->tick == 0 || p->part_count == 0 || p->part_index >= p->part_count ||
      (p->baseline_tick != 0 && p->baseline_tick >= p->tick))
    return fail(s, err, ARB_E_CORRUPT, "snapshot %u: inconsistent header (baseline %u)", p->tick, p->baseline_tick);

  cl_slot* sl = find_slot(s, p->tick);
  bool fresh = false;
  if (sl) {
    if (sl->complete) {
      s->duplicates++;
      return 0;
    }
    if (sl->baseline != p->baseline_tick || sl->part_count != p->part_count)
      return fail(s, err, ARB_E_CORRUPT, "snapshot %u: part disagrees with earlier parts (baseline %u)",
                  p->tick, p->baseline_tick);
    if (sl->seen[p->part_index >> 3] & (1u << (p->part_index & 7))) {
      s->duplicates++;
      return 0;
    }
  } else {
    const cl_slot* base = NULL;
    if (p->baseline_tick != 0) {
      base = cl_snapshots_get(s, p->baseline_tick);
      if (!base) {
        s->baseline_missing++;
        if (err) {
          err->code = ARB_E_NOT_FOUND;
          err->offset = 0;
          snprintf(err->reason, sizeof err->reason, "snapshot %u: baseline %u not held", p->tick, p->baseline_tick);
        }
        return ARB_E_NOT_FOUND;
      }
    }
    sl = claim_slot(s, p->tick, p->baseline_tick);
    if (!sl) {
      s->late++;
      return 0;
    }
    sl->used = false;  // until the copy succeeded
    sl->complete = false;
    sl->set.count = 0;
    if (base) {
      rc = ensure_cap(s, &sl->set, base->set.count);
      if (rc) return fail(s, err, rc, "snapshot %u: baseline view of %u entities too large", p->tick, (uint32_t)base->set.count);
      rc = arb_proto_entity_set_copy(&sl->set, &base->set);
      if (rc) return fail(s, err, rc, "snapshot %u: cannot copy baseline %u", p->tick, p->baseline_tick);
    }
    sl->tick = p->tick;
    sl->baseline = p->baseline_tick;
    sl->part_count = p->part_count;
    sl->parts_seen = 0;
    memset(sl->seen, 0, sizeof sl->seen);
    sl->used = true;
    fresh = true;
  }

  rc = ensure_cap(s, &sl->set, sl->set.count + p->entered_count);
  if (rc == ARB_OK) rc = arb_proto_entity_set_apply(&sl->set, p, &perr);
  else snprintf(perr.reason, sizeof perr.reason, "snapshot %u: view over %d entities", p->tick, s->max_entities);
  if (rc != ARB_OK) {
    if (fresh) sl->used = false;
    s->errors++;
    if (err) {
      *err = perr;
      err->code = rc;
    }
    return rc;
  }
  for (int i = 0; i < p->entered_count; i++) {
    rc = put_desc(s, p->entered[i].id, &p->entered[i].desc);
    if (rc) return fail(s, err, rc, "snapshot %u: out of memory for entity %u", p->tick, p->entered[i].id);
  }
  sl->seen[p->part_index >> 3] |= (uint8_t)(1u << (p->part_index & 7));
  sl->parts_seen++;
  s->parts++;
  if (p->tick < s->newest_complete) s->late++;

  res->tick = p->tick;
  res->completed = false;
  res->newest = false;
  res->slot = sl;
  res->part = p;
  if (sl->parts_seen == sl->part_count) {
    sl->complete = true;
    s->completed++;
    res->completed = true;
    if (p->tick > s->newest_complete) {
      s->newest_complete = p->tick;
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
