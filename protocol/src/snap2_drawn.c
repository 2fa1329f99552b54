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
  arb_snap2_entity* d = drawn->items;
  const arb_snap2_entity* v = view->items;
  int i = 0, j = 0, o = 0, added = 0;
  while (i < drawn->count && j < view->count) {
    if (d[i].id == v[j].id) {
      if (!(d[i].cls == v[j].cls && d[i].s.t0 > v[j].s.t0))
        d[o] = v[j];
      else if (o != i)
        d[o] = d[i];
      ++o;
      ++i;
      ++j;
    } else if (v[j].id < d[i].id) {
      inserts[added++] = j++;
    } else {
      if (kept_alone(&d[i], baseline, baseline_tick)) d[o++] = d[i];
      ++i;
    }
  }
  for (; i < drawn->count; ++i)
    if (kept_alone(&d[i], baseline, baseline_tick)) d[o++] = d[i];
  while (j < view->count) inserts[added++] = j++;
  int total = o + added;
  for (int w = total - 1, k = o - 1, a = added - 1; a >= 0; --w) {
    if (k >= 0 && d[k].id > v[inserts[a]].id)
      d[w] = d[k--];
    else
      d[w] = v[inserts[a--]];
  }
  drawn->count = total;
  return 0;
}
