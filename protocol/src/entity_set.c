// Entity sets (a client's view at one tick) and applying snapshot parts to them.
// Both sides run this code: the builder's `sent` view and the client's applied view
// must agree exactly, or the next delta would be computed against the wrong baseline.
#include <arbiter/lower_bound.h>
#include <stddef.h>
#include <string.h>

#include "mp.h"

static int lower_bound(const arb_proto_entity_set* s, uint32_t id) {
  return arb_lower_bound_u32(s->items, s->count, sizeof *s->items, offsetof(arb_proto_entity, id),
                             id);
}

const arb_proto_entity* arb_proto_entity_set_find(const arb_proto_entity_set* set, uint32_t id) {
  if (!set || set->count <= 0) return NULL;
  int i = lower_bound(set, id);
  return i < set->count && set->items[i].id == id ? &set->items[i] : NULL;
}

int arb_proto_entity_set_copy(arb_proto_entity_set* dst, const arb_proto_entity_set* src) {
  int n = src ? src->count : 0;
  if (n > dst->cap) return ARB_E_NOSPACE;
  if (n) memmove(dst->items, src->items, (size_t)n * sizeof *dst->items);
  dst->count = n;
  return 0;
}

/* Wrapping int32 addition without signed overflow. */
static int32_t wrap_add(int32_t a, int32_t b) {
  uint32_t r = (uint32_t)a + (uint32_t)b;
  return r <= (uint32_t)INT32_MAX ? (int32_t)r : -(int32_t)(~r) - 1;
}

void arb__apply_delta(arb_proto_entity_state* s, const arb_proto_changed* c);
void arb__apply_delta(arb_proto_entity_state* s, const arb_proto_changed* c) {
  if (c->mask & ARB_PROTO_FIELD_X) s->x = wrap_add(s->x, c->delta.x);
  if (c->mask & ARB_PROTO_FIELD_Y) s->y = wrap_add(s->y, c->delta.y);
  if (c->mask & ARB_PROTO_FIELD_ANGLE) s->angle = (uint16_t)(s->angle + c->delta.angle);
  if (c->mask & ARB_PROTO_FIELD_VX) s->vx = wrap_add(s->vx, c->delta.vx);
  if (c->mask & ARB_PROTO_FIELD_VY) s->vy = wrap_add(s->vy, c->delta.vy);
  if (c->mask & ARB_PROTO_FIELD_W) s->w = wrap_add(s->w, c->delta.w);
}

static int fail(arb_proto_error* err, int code, const char* what, uint32_t id) {
  if (err) {
    err->code = code;
    err->offset = 0;
    arb__dec d;
    arb__dec_init(&d, NULL, 0, err, "snapshot apply");
    arb__dec_fail(&d, code, NULL, what, id);
  }
  return code;
}

int arb_proto_entity_set_apply(arb_proto_entity_set* view, const arb_proto_snapshot* part, arb_proto_error* err) {
  if (!view || !part || view->count < 0 || view->count > view->cap) return fail(err, ARB_E_INVAL, "bad arguments%.0u", 0);
  if (part->baseline_tick == 0 && (part->changed_count || part->removed_count))
    return fail(err, ARB_E_CORRUPT, "full snapshot with changes or removals%.0u", 0);
  // Check everything first so a bad part leaves the view untouched.
  for (int i = 1; i < part->entered_count; i++)
    if (part->entered[i].id <= part->entered[i - 1].id)
      return fail(err, ARB_E_INVAL, "entered ids not strictly increasing at entity %u", part->entered[i].id);
  for (int i = 0; i < part->changed_count; i++)
    if (!arb_proto_entity_set_find(view, part->changed[i].id))
      return fail(err, ARB_E_NOT_FOUND, "changed entity %u is not in the baseline view", part->changed[i].id);
  for (int i = 0; i < part->removed_count; i++)
    if (!arb_proto_entity_set_find(view, part->removed[i]))
      return fail(err, ARB_E_NOT_FOUND, "removed entity %u is not in the baseline view", part->removed[i]);
  int fresh = 0;
  for (int i = 0; i < part->entered_count; i++)
    if (!arb_proto_entity_set_find(view, part->entered[i].id)) fresh++;
  if (view->count - part->removed_count + fresh > view->cap)
    return fail(err, ARB_E_NOSPACE, "view capacity exceeded%.0u", 0);

  for (int i = 0; i < part->changed_count; i++) {
    int k = lower_bound(view, part->changed[i].id);
    arb__apply_delta(&view->items[k].state, &part->changed[i]);
  }
  if (part->removed_count) {
    int w = 0, r = 0;
    for (int i = 0; i < view->count; i++) {
      if (r < part->removed_count && view->items[i].id == part->removed[r]) {
        r++;
        continue;
      }
      view->items[w++] = view->items[i];
    }
    view->count = w;
  }
  // Entered: replace in place, then merge the new ones in from the back (both sorted).
  for (int i = 0; i < part->entered_count; i++) {
    const arb_proto_entered* e = &part->entered[i];
    int k = lower_bound(view, e->id);
    if (k < view->count && view->items[k].id == e->id) {
      view->items[k].state = e->state;
      view->items[k].desc_version = 0;
    }
  }
  if (fresh) {
    int i = view->count - 1, j = part->entered_count - 1, k = view->count + fresh - 1;
    while (j >= 0) {
      const arb_proto_entered* e = &part->entered[j];
      if (i >= 0 && view->items[i].id == e->id) {  // already replaced above
        view->items[k--] = view->items[i--];
        j--;
      } else if (i >= 0 && view->items[i].id > e->id) {
        view->items[k--] = view->items[i--];
      } else {
        arb_proto_entity* it = &view->items[k--];
        it->id = e->id;
        it->desc_version = 0;
        it->state = e->state;
        j--;
      }
    }
    view->count += fresh;
  }
  return 0;
}
