// The delta-snapshot builder (server side). Quake 3 style: the server diffs what a client
// should see now against the view it sent for the tick the client last acknowledged,
// and splits the difference into packets of at most payload_limit bytes.
//
//   baseline (sent view of the acked tick) ─┐
//                                          merge by id ─▶ items: removed / entered /
//   current (what the client should see) ──┘               changed (+mask) / unchanged
//   order: removed first, then by priority (desc), then id
//   pack greedily into parts (byte bound + per-list count caps), up to max_parts;
//   what does not fit is deferred: left out of `sent`, so the next diff includes it
//   encode each part with its lists in id order; write `sent`
//
// All memory is allocated by _create (sized from the def); builds never allocate.
#include <arbiter/array_block.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"

enum { K_UNCHANGED = 0, K_REMOVED, K_ENTERED, K_CHANGED };

/* Bytes a snapshot packet needs besides its items, at most: fixarray(9) + type + three
 * uint32 (5 each) + part index/count (2 each) + three array16 headers. */
#define HEADER_BOUND 30

typedef struct item {
  uint32_t id;
  uint8_t kind;
  uint8_t mask;
  uint16_t size;  ///< encoded bytes of this item
  int cur;        ///< index in current, -1 if absent
  int base;       ///< index in baseline, -1 if absent
  int part;       ///< assigned part, -1 = deferred / not sent
  int desc;       ///< index into descs for entered items
  uint32_t prio;
} item;

struct arb_proto_snapshot_builder {
  int payload_limit;
  int max_entities;
  item* items;            ///< merged, id order; cap 2 * max_entities
  int* order;             ///< indices into items, send order
  int* by_part;           ///< indices into items, (part, id) order
  arb_proto_entity_desc* descs;
  uint8_t* out;           ///< ARB_PROTO_MAX_PARTS * payload_limit
  arb_proto_snapshot part;
  void* mem;              ///< the one block the arrays above are carved from
};

// Every array the builder owns; measures while blk has no base (see array_block.h).
static void carve_arrays(void* owner, arb_array_block* blk) {
  arb_proto_snapshot_builder* b = owner;
  size_t n = 2 * (size_t)b->max_entities;
  b->items = arb_array_block_take(blk, n, sizeof *b->items);
  b->order = arb_array_block_take(blk, n, sizeof *b->order);
  b->by_part = arb_array_block_take(blk, n, sizeof *b->by_part);
  b->descs = arb_array_block_take(blk, (size_t)b->max_entities, sizeof *b->descs);
  b->out = arb_array_block_take(blk, ARB_PROTO_MAX_PARTS, (size_t)b->payload_limit);
}

int arb_proto_snapshot_builder_create(const arb_proto_builder_def* def, arb_proto_snapshot_builder** out) {
  if (!out) return ARB_E_INVAL;
  *out = NULL;
  int payload = def && def->payload_limit ? def->payload_limit : ARB_PROTO_DEFAULT_PAYLOAD;
  int maxe = def && def->max_entities ? def->max_entities : 4096;
  if (payload < ARB_PROTO_MIN_PAYLOAD || payload > ARB_PROTO_MAX_PAYLOAD) return ARB_E_RANGE;
  if (maxe < 1 || maxe > ARB_PROTO_MAX_ENTITIES) return ARB_E_RANGE;
  arb_proto_snapshot_builder* b = calloc(1, sizeof *b);
  if (!b) return ARB_E_NOMEM;
  b->payload_limit = payload;
  b->max_entities = maxe;
  b->mem = arb_array_block_new(b, carve_arrays);
  if (!b->mem) {
    free(b);
    return ARB_E_NOMEM;
  }
  *out = b;
  return 0;
}

void arb_proto_snapshot_builder_destroy(arb_proto_snapshot_builder* b) {
  if (!b) return;
  free(b->mem);
  free(b);
}

static int32_t wrap_sub(int32_t a, int32_t b) {
  uint32_t r = (uint32_t)a - (uint32_t)b;
  return r <= (uint32_t)INT32_MAX ? (int32_t)r : -(int32_t)(~r) - 1;
}

static uint8_t diff_mask(const arb_proto_entity_state* a, const arb_proto_entity_state* b) {
  uint8_t m = 0;
  if (a->x != b->x) m |= ARB_PROTO_FIELD_X;
  if (a->y != b->y) m |= ARB_PROTO_FIELD_Y;
  if (a->angle != b->angle) m |= ARB_PROTO_FIELD_ANGLE;
  if (a->vx != b->vx) m |= ARB_PROTO_FIELD_VX;
  if (a->vy != b->vy) m |= ARB_PROTO_FIELD_VY;
  if (a->w != b->w) m |= ARB_PROTO_FIELD_W;
  return m;
}

static void make_changed(const arb_proto_entity* cur, const arb_proto_entity* base, uint8_t mask, arb_proto_changed* c) {
  c->id = cur->id;
  c->mask = mask;
  c->delta.x = wrap_sub(cur->state.x, base->state.x);
  c->delta.y = wrap_sub(cur->state.y, base->state.y);
  c->delta.angle = (uint16_t)(cur->state.angle - base->state.angle);
  c->delta.vx = wrap_sub(cur->state.vx, base->state.vx);
  c->delta.vy = wrap_sub(cur->state.vy, base->state.vy);
  c->delta.w = wrap_sub(cur->state.w, base->state.w);
}

static int sorted_set(const arb_proto_entity_set* s, int max) {
  if (s->count < 0 || s->count > max || (s->count && !s->items)) return 0;
  for (int i = 0; i < s->count; i++)
    if (s->items[i].id == 0 || (i && s->items[i].id <= s->items[i - 1].id)) return 0;
  return 1;
}

/* Bottom-up merge sort of send-order indices by (priority desc, id asc), with by_part as
 * scratch: no allocation, no global state (qsort has no user pointer), a total order. */
static void sort_order(int* a, int n, int* tmp, const item* items) {
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n;
      int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const item* x = &items[a[i]];
        const item* y = &items[a[j]];
        int take_right = y->prio > x->prio || (y->prio == x->prio && y->id < x->id);
        tmp[k++] = take_right ? a[j++] : a[i++];
      }
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    memcpy(a, tmp, (size_t)n * sizeof *a);
  }
}

static size_t uint_size(uint32_t v) { return v < 128 ? 1 : v < 256 ? 2 : v < 65536 ? 3 : 5; }

// One build in progress: the inputs, and what each step leaves for the next.
typedef struct build {
  arb_proto_snapshot_builder* b;
  const arb_proto_build_args* a;
  const arb_proto_entity_set* base;  ///< the baseline, or an empty set for a full snapshot
  const arb_proto_entity_set* cur;
  uint32_t baseline_tick;            ///< 0 = full snapshot
  int max_parts;
  int n;      ///< merged items
  int nsend;  ///< items in b->order
  int ndesc;
  int parts;
  int deferred;
  int start[ARB_PROTO_MAX_PARTS + 1];  ///< by_part[start[p] .. start[p+1]) are part p's items
} build;

static const arb_proto_entity_set no_entities = {NULL, 0, 0};

static int check_args(build* bd) {
  const arb_proto_build_args* a = bd->a;
  if (!a->current || !a->sent || a->tick == 0 || a->baseline_tick >= a->tick) return ARB_E_INVAL;
  bool delta = a->baseline_tick && a->baseline;
  bd->base = delta ? a->baseline : &no_entities;
  bd->baseline_tick = delta ? a->baseline_tick : 0;
  bd->cur = a->current;
  if (!sorted_set(bd->cur, bd->b->max_entities) || !sorted_set(bd->base, bd->b->max_entities)) return ARB_E_INVAL;
  bd->max_parts = a->max_parts ? a->max_parts : ARB_PROTO_MAX_PARTS;
  if (bd->max_parts < 1 || bd->max_parts > ARB_PROTO_MAX_PARTS) return ARB_E_RANGE;
  if (a->sent->cap < bd->cur->count + bd->base->count || (a->sent->cap && !a->sent->items) || a->sent == bd->cur ||
      a->sent == bd->base)
    return ARB_E_NOSPACE;
  return 0;
}

// 1. Merge baseline and current by id into items: removed / entered / changed / unchanged.
static void merge_items(build* bd) {
  const arb_proto_entity_set* base = bd->base;
  const arb_proto_entity_set* cur = bd->cur;
  int n = 0, i = 0, j = 0;
  while (i < base->count || j < cur->count) {
    item* it = &bd->b->items[n++];
    it->part = -1;
    it->mask = 0;
    it->prio = UINT32_MAX;
    if (j >= cur->count || (i < base->count && base->items[i].id < cur->items[j].id)) {
      it->id = base->items[i].id;
      it->kind = K_REMOVED;
      it->base = i++;
      it->cur = -1;
    } else if (i >= base->count || cur->items[j].id < base->items[i].id) {
      it->id = cur->items[j].id;
      it->kind = K_ENTERED;
      it->base = -1;
      it->cur = j++;
    } else {
      const arb_proto_entity* be = &base->items[i];
      const arb_proto_entity* ce = &cur->items[j];
      it->id = ce->id;
      it->base = i++;
      it->cur = j++;
      it->mask = be->desc_version != ce->desc_version ? 0 : diff_mask(&ce->state, &be->state);
      it->kind = be->desc_version != ce->desc_version ? K_ENTERED : it->mask ? K_CHANGED : K_UNCHANGED;
    }
    if (it->cur >= 0 && it->kind != K_UNCHANGED) it->prio = bd->a->priority ? bd->a->priority[it->cur] : 0;
  }
  bd->n = n;
}

// 2. Send order: removals (id order), then the rest by priority.
static void order_items(build* bd) {
  arb_proto_snapshot_builder* b = bd->b;
  int nrem = 0, nsend;
  for (int k = 0; k < bd->n; k++)
    if (b->items[k].kind == K_REMOVED) b->order[nrem++] = k;
  nsend = nrem;
  for (int k = 0; k < bd->n; k++)
    if (b->items[k].kind == K_ENTERED || b->items[k].kind == K_CHANGED) b->order[nsend++] = k;
  if (bd->a->priority) sort_order(b->order + nrem, nsend - nrem, b->by_part, b->items);
  bd->nsend = nsend;
}

// Encoded size of one item; an entered item gets its description here (once per build).
static int measure_item(build* bd, item* it, size_t* size) {
  if (it->kind == K_REMOVED) {
    *size = uint_size(it->id);
    return 0;
  }
  msgpack_packer pk;
  arb__wbuf w;
  arb__packer_init(&pk, &w, NULL, 0);
  if (it->kind == K_ENTERED) {
    arb_proto_entered e;
    e.id = it->id;
    memset(&e.desc, 0, sizeof e.desc);
    if (!bd->a->describe) return ARB_E_INVAL;
    ARB__TRY(bd->a->describe(bd->a->describe_user, it->id, &e.desc));
    ARB__TRY(arb__check_desc(&e.desc));
    it->desc = bd->ndesc;
    bd->b->descs[bd->ndesc++] = e.desc;
    e.state = bd->cur->items[it->cur].state;
    arb__pack_entered(&pk, &e);
  } else {
    arb_proto_changed c;
    make_changed(&bd->cur->items[it->cur], &bd->base->items[it->base], it->mask, &c);
    arb__pack_changed(&pk, &c);
  }
  *size = w.len;
  return 0;
}

// 3. Measure and assign parts greedily, in send order, up to max_parts.
static int assign_parts(build* bd) {
  int parts = 1, ne = 0, nc = 0, nr = 0;
  size_t bytes = HEADER_BOUND;
  bd->deferred = 0;
  for (int k = 0; k < bd->nsend; k++) {
    item* it = &bd->b->items[bd->b->order[k]];
    size_t sz;
    ARB__TRY(measure_item(bd, it, &sz));
    it->size = (uint16_t)sz;
    int full = bytes + sz > (size_t)bd->b->payload_limit || (it->kind == K_REMOVED && nr >= ARB_PROTO_MAX_PART_REMOVED) ||
               (it->kind == K_ENTERED && ne >= ARB_PROTO_MAX_PART_ENTERED) ||
               (it->kind == K_CHANGED && nc >= ARB_PROTO_MAX_PART_CHANGED);
    if (full && parts == bd->max_parts) {
      // Strict priority: once the budget is spent, everything after waits its turn
      // (no smaller, less important item jumps the queue).
      bd->deferred = bd->nsend - k;
      break;
    }
    if (full) {
      parts++;
      ne = nc = nr = 0;
      bytes = HEADER_BOUND;
    }
    it->part = parts - 1;
    bytes += sz;
    if (it->kind == K_REMOVED) nr++;
    if (it->kind == K_ENTERED) ne++;
    if (it->kind == K_CHANGED) nc++;
  }
  bd->parts = parts;
  return 0;
}

// 4. Group by part, id order inside each part (stable counting sort of the id-ordered items).
static void group_by_part(build* bd) {
  const item* items = bd->b->items;
  memset(bd->start, 0, sizeof bd->start);
  for (int k = 0; k < bd->n; k++)
    if (items[k].part >= 0) bd->start[items[k].part + 1]++;
  for (int p = 0; p < bd->parts; p++) bd->start[p + 1] += bd->start[p];
  int fill[ARB_PROTO_MAX_PARTS];
  memcpy(fill, bd->start, sizeof fill);
  for (int k = 0; k < bd->n; k++)
    if (items[k].part >= 0) bd->b->by_part[fill[items[k].part]++] = k;
}

// Fill the snapshot message of part p from its items.
static void fill_part(build* bd, int p, arb_proto_snapshot* s) {
  s->tick = bd->a->tick;
  s->baseline_tick = bd->baseline_tick;
  s->last_input_seq = bd->a->last_input_seq;
  s->part_index = (uint8_t)p;
  s->part_count = (uint8_t)bd->parts;
  s->entered_count = s->changed_count = s->removed_count = 0;
  for (int k = bd->start[p]; k < bd->start[p + 1]; k++) {
    const item* it = &bd->b->items[bd->b->by_part[k]];
    if (it->kind == K_REMOVED) {
      s->removed[s->removed_count++] = it->id;
    } else if (it->kind == K_ENTERED) {
      arb_proto_entered* e = &s->entered[s->entered_count++];
      e->id = it->id;
      e->desc = bd->b->descs[it->desc];
      e->state = bd->cur->items[it->cur].state;
    } else {
      make_changed(&bd->cur->items[it->cur], &bd->base->items[it->base], it->mask, &s->changed[s->changed_count++]);
    }
  }
}

// 5. Encode every part into the builder's output buffer.
static int encode_parts(build* bd, arb_proto_build_result* r) {
  arb_proto_snapshot_builder* b = bd->b;
  memset(r, 0, sizeof *r);
  size_t off = 0;
  for (int p = 0; p < bd->parts; p++) {
    arb_proto_snapshot* s = &b->part;
    fill_part(bd, p, s);
    int len = arb_proto_encode_snapshot(s, b->out + off, (size_t)b->payload_limit);
    if (len < 0) return len;
    if (len > b->payload_limit) return ARB_E_STATE;  // the size bound above is wrong: a bug
    r->packets[p] = b->out + off;
    r->sizes[p] = len;
    r->bytes += len;
    r->entered += s->entered_count;
    r->changed += s->changed_count;
    r->removed += s->removed_count;
    off += (size_t)len;
  }
  r->packet_count = bd->parts;
  r->deferred = bd->deferred;
  return 0;
}

// 6. The view the client will have after applying every part: deferred items keep
// their baseline state.
static void write_sent(const build* bd) {
  const arb_proto_entity_set* base = bd->base;
  const arb_proto_entity_set* cur = bd->cur;
  arb_proto_entity_set* out = bd->a->sent;
  int m = 0;
  for (int k = 0; k < bd->n; k++) {
    const item* it = &bd->b->items[k];
    const arb_proto_entity* keep = NULL;
    switch (it->kind) {
      case K_UNCHANGED: keep = &cur->items[it->cur]; break;
      case K_REMOVED: keep = it->part < 0 ? &base->items[it->base] : NULL; break;
      case K_ENTERED:
        keep = it->part >= 0 ? &cur->items[it->cur] : (it->base >= 0 ? &base->items[it->base] : NULL);
        break;
      default: keep = it->part >= 0 ? &cur->items[it->cur] : &base->items[it->base]; break;
    }
    if (keep) out->items[m++] = *keep;
  }
  out->count = m;
}

int arb_proto_snapshot_build(arb_proto_snapshot_builder* b, const arb_proto_build_args* a, arb_proto_build_result* r) {
  if (!b || !a || !r) return ARB_E_INVAL;
  build bd;
  memset(&bd, 0, sizeof bd);
  bd.b = b;
  bd.a = a;
  ARB__TRY(check_args(&bd));
  merge_items(&bd);
  order_items(&bd);
  ARB__TRY(assign_parts(&bd));
  group_by_part(&bd);
  ARB__TRY(encode_parts(&bd, r));
  write_sent(&bd);
  return 0;
}
