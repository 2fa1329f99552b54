// The drawn set (see arbiter/snapshot_drawn.h): a merge by id of two sorted sets.
#include <arbiter/snapshot_drawn.h>

static int kept_alone(const arb_snapshot_entity* d, const arb_snapshot_set* baseline,
                      uint32_t baseline_tick) {
  if (baseline_tick == 0 || d->s.t0 <= baseline_tick) return 0;
  return baseline != NULL && arb_snapshot_set_find(baseline, d->id) == NULL;
}

// One past a set's last item; an empty set may have no items at all (NULL + 0 is undefined).
static arb_snapshot_entity* set_end(const arb_snapshot_set* s) {
  return s->count > 0 ? s->items + s->count : s->items;
}

/* The merge of drawn items [d, d_end) with the view, written from o on; returns the end of
 * what it wrote. An entity only in the view is written in its place, or, with `inserts`,
 * only noted there (its view index) and left out: then nothing is written ahead of the
 * reading, so o may be d itself (an item kept where it is is not copied). */
static arb_snapshot_entity* merge(const arb_snapshot_entity* d, const arb_snapshot_entity* d_end,
                                  const arb_snapshot_set* view, const arb_snapshot_set* baseline,
                                  uint32_t baseline_tick, arb_snapshot_entity* o, int** inserts) {
  const arb_snapshot_entity *v = view->items, *v_end = set_end(view);
  while (d < d_end && v < v_end) {  // by id; the same id in both is the usual case
    if (d->id == v->id) {
      const arb_snapshot_entity* keep = d->cls == v->cls && d->s.t0 > v->s.t0 ? d : v;
      if (o != keep) *o = *keep;
      ++o;
      ++d;
      ++v;
    } else if (v->id < d->id) {
      if (inserts)
        *(*inserts)++ = (int)(v++ - view->items);
      else
        *o++ = *v++;
    } else {
      if (kept_alone(d, baseline, baseline_tick)) {
        if (o != d) *o = *d;
        ++o;
      }
      ++d;
    }
  }
  for (; d < d_end; ++d) {
    if (!kept_alone(d, baseline, baseline_tick)) continue;
    if (o != d) *o = *d;
    ++o;
  }
  for (; v < v_end; ++v) {
    if (inserts)
      *(*inserts)++ = (int)(v - view->items);
    else
      *o++ = *v;
  }
  return o;
}

int arb_snapshot_drawn_apply(const arb_snapshot_set* drawn, const arb_snapshot_set* view,
                             const arb_snapshot_set* baseline, uint32_t baseline_tick,
                             arb_snapshot_set* out) {
  out->count = 0;
  if (out->cap < drawn->count + view->count) return ARB_E_NOSPACE;
  arb_snapshot_entity* end =
      merge(drawn->items, set_end(drawn), view, baseline, baseline_tick, out->items, NULL);
  out->count = (int)(end - out->items);
  return 0;
}

/* Two passes over drawn's own items. Forward: matched ids and drawn-only ones that stay are
 * written in place, at or before where they were read, and view-only ids are noted.
 * Backward: the noted ones are merged in from the end, each kept item moving up by the
 * number of insertions after it. */
int arb_snapshot_drawn_apply_in_place(arb_snapshot_set* drawn, const arb_snapshot_set* view,
                                      const arb_snapshot_set* baseline, uint32_t baseline_tick,
                                      int* inserts) {
  if (drawn->cap < drawn->count + view->count) return ARB_E_NOSPACE;
  arb_snapshot_entity* items = drawn->items;
  int* noted = inserts;
  int kept =
      (int)(merge(items, set_end(drawn), view, baseline, baseline_tick, items, &noted) - items);
  int n = (int)(noted - inserts);
  for (int w = kept + n - 1, k = kept - 1, a = n - 1; a >= 0; --w) {
    if (k >= 0 && items[k].id > view->items[inserts[a]].id)
      items[w] = items[k--];
    else
      items[w] = view->items[inserts[a--]];
  }
  drawn->count = kept + n;
  return 0;
}
