// The drawn set (see arbiter/snapshot_drawn.h): a merge by id of two sorted sets.
#include <arbiter/snapshot_drawn.h>

static int kept_alone(const arb_snap2_entity* d, const arb_snap2_set* baseline,
                      uint32_t baseline_tick) {
  if (baseline_tick == 0 || d->s.t0 <= baseline_tick) return 0;
  return baseline != NULL && arb_snap2_set_find(baseline, d->id) == NULL;
}

int arb_snap2_drawn_apply(const arb_snap2_set* drawn, const arb_snap2_set* view,
                          const arb_snap2_set* baseline, uint32_t baseline_tick,
                          arb_snap2_set* out) {
  out->count = 0;
  if (out->cap < drawn->count + view->count) return ARB_E_NOSPACE;
  const arb_snap2_entity *d = drawn->items, *d_end = d + drawn->count;
  const arb_snap2_entity *v = view->items, *v_end = v + view->count;
  arb_snap2_entity* o = out->items;
  while (d < d_end && v < v_end) {  // by id; the same id in both is the usual case
    if (d->id == v->id) {
      *o++ = d->cls == v->cls && d->s.t0 > v->s.t0 ? *d : *v;
      ++d;
      ++v;
    } else if (v->id < d->id) {
      *o++ = *v++;
    } else {
      if (kept_alone(d, baseline, baseline_tick)) *o++ = *d;
      ++d;
    }
  }
  for (; d < d_end; ++d)
    if (kept_alone(d, baseline, baseline_tick)) *o++ = *d;
  while (v < v_end) *o++ = *v++;
  out->count = (int)(o - out->items);
  return 0;
}

/* Two passes over drawn's own items. Forward: matched ids and drawn-only ones that stay are
 * written in place, at or before where they were read (nothing is written ahead of the
 * reading), and view-only ids are noted. Backward: the noted ones are merged in from the
 * end, each kept item moving up by the number of insertions after it. */
int arb_snap2_drawn_apply_in_place(arb_snap2_set* drawn, const arb_snap2_set* view,
                                   const arb_snap2_set* baseline, uint32_t baseline_tick,
                                   int* inserts) {
  if (drawn->cap < drawn->count + view->count) return ARB_E_NOSPACE;
  arb_snap2_entity *d = drawn->items, *d_end = d + drawn->count, *o = d;
  const arb_snap2_entity *v = view->items, *v_end = v + view->count;
  int* added = inserts;
  while (d < d_end && v < v_end) {  // by id; the same id in both is the usual case
    if (d->id == v->id) {
      if (!(d->cls == v->cls && d->s.t0 > v->s.t0))
        *o = *v;
      else if (o != d)
        *o = *d;
      ++o;
      ++d;
      ++v;
    } else if (v->id < d->id) {
      *added++ = (int)(v++ - view->items);
    } else {
      if (kept_alone(d, baseline, baseline_tick)) *o++ = *d;
      ++d;
    }
  }
  for (; d < d_end; ++d)
    if (kept_alone(d, baseline, baseline_tick)) *o++ = *d;
  for (; v < v_end; ++v) *added++ = (int)(v - view->items);
  int kept = (int)(o - drawn->items), n = (int)(added - inserts);
  arb_snap2_entity* items = drawn->items;
  for (int w = kept + n - 1, k = kept - 1, a = n - 1; a >= 0; --w) {
    if (k >= 0 && items[k].id > view->items[inserts[a]].id)
      items[w] = items[k--];
    else
      items[w] = view->items[inserts[a--]];
  }
  drawn->count = kept + n;
  return 0;
}
