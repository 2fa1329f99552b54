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
