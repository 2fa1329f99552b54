// Applying a part to a tick's work view (PROTOCOL.md §6.5). The view
// starts as a copy of the baseline (origins); each record then corrects (re-origins), adds
// or deletes one entity. All-or-nothing: every record is checked against
// the view before anything changes.
#include <stdio.h>
#include <string.h>

#include "mp.h"
#include "snapshot_internal.h"

static int fail(arb_proto_error* err, int code, int index, uint32_t id, const char* why) {
  if (err) {
    err->code = code;
    err->offset = 0;
    snprintf(err->reason, sizeof err->reason, "snapshot: record %d (entity %u): %s", index, id,
             why);
  }
  return code;
}

static int find_index(const arb_snapshot_set* set, uint32_t id) {
  const arb_snapshot_entity* e = arb_snapshot_set_find(set, id);
  return e ? (int)(e - set->items) : -1;
}

static int validate(const arb_snapshot_set* view, const arb_snapshot_part* part, int* added,
                    arb_proto_error* err) {
  int removed = 0;
  *added = 0;
  for (int i = 0; i < part->record_count; ++i) {
    const arb_snapshot_record* r = &part->records[i];
    int at = find_index(view, r->id);
    if (r->op == ARB_SNAPSHOT_ENTER) {
      if (at < 0) ++*added;
      continue;
    }
    if (at < 0)
      return fail(err, ARB_E_NOT_FOUND, i, r->id,
                  "not in the baseline (the part belongs to another one)");
    if (r->op == ARB_SNAPSHOT_REMOVE) {
      ++removed;
      continue;
    }
    if (r->mask & ~arb__snapshot_class_fields(view->items[at].cls))
      return fail(err, ARB_E_CORRUPT, i, r->id, "update of a field its class does not have");
  }
  if (view->count - removed + *added > view->cap)
    return fail(err, ARB_E_NOSPACE, -1, 0, "view capacity reached");
  return 0;
}

void arb__snapshot_apply_update(arb_snapshot_state* s, const arb_snapshot_record* r) {
  const arb_snapshot_state* d = &r->v;
  if (r->mask & ARB_SNAPSHOT_M_POS) {
    s->x = (int32_t)((uint32_t)s->x + (uint32_t)d->x);
    s->y = (int32_t)((uint32_t)s->y + (uint32_t)d->y);
  }
  if (r->mask & ARB_SNAPSHOT_M_ANGLE) s->angle = (uint16_t)((s->angle + d->angle) & 0xFFFFu);
  if (r->mask & ARB_SNAPSHOT_M_VEL) {
    s->vx = (int32_t)((uint32_t)s->vx + (uint32_t)d->vx);
    s->vy = (int32_t)((uint32_t)s->vy + (uint32_t)d->vy);
  }
  if (r->mask & ARB_SNAPSHOT_M_ANGVEL) s->w = (int32_t)((uint32_t)s->w + (uint32_t)d->w);
  if (r->mask & ARB_SNAPSHOT_M_AUX) s->aux = (uint16_t)((s->aux + d->aux) & 0xFFFFu);
  if (r->mask & ARB_SNAPSHOT_M_FLAGS) s->flags = d->flags;
}

static arb_snapshot_entity entered(const arb_snapshot_record* r, uint32_t tick) {
  arb_snapshot_entity e;
  memset(&e, 0, sizeof e);
  e.id = r->id;
  e.cls = r->cls;
  e.s = r->v;
  e.s.t0 = tick;
  return e;
}

int arb_snapshot_set_apply(arb_snapshot_set* view, const arb_snapshot_part* part,
                           arb_proto_error* err) {
  int added;
  ARB__TRY(validate(view, part, &added, err));
  // In place: corrections, replacements, removals (id 0 marks a hole), then compact.
  int removed = 0;
  for (int i = 0; i < part->record_count; ++i) {
    const arb_snapshot_record* r = &part->records[i];
    int at = find_index(view, r->id);
    if (at < 0) continue;
    arb_snapshot_entity* e = &view->items[at];
    if (r->op == ARB_SNAPSHOT_UPDATE) {
      e->s = arb_snapshot_eval(&e->s, e->cls, part->h.tick, &part->h);
      arb__snapshot_apply_update(&e->s, r);
    }
    if (r->op == ARB_SNAPSHOT_ENTER) *e = entered(r, part->h.tick);
    if (r->op == ARB_SNAPSHOT_REMOVE) {
      view->items[at].id = 0;
      ++removed;
    }
  }
  if (removed) {
    int k = 0;
    for (int i = 0; i < view->count; ++i)
      if (view->items[i].id != 0) view->items[k++] = view->items[i];
    view->count = k;
  }
  // New entities: merge from the back (records are in increasing id order).
  const int total_new = added;
  int i = view->count - 1, k = view->count + added - 1;
  for (int j = part->record_count - 1; j >= 0 && added > 0; --j) {
    const arb_snapshot_record* r = &part->records[j];
    if (r->op != ARB_SNAPSHOT_ENTER) continue;
    while (i >= 0 && view->items[i].id > r->id) view->items[k--] = view->items[i--];
    if (i >= 0 && view->items[i].id == r->id) continue;  // replaced above
    view->items[k--] = entered(r, part->h.tick);
    --added;
  }
  view->count += total_new;
  return 0;
}
