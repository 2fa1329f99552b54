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
  int i = 0, j = 0, n = 0;
  while (i < drawn->count || j < view->count) {
    uint32_t did = i < drawn->count ? drawn->items[i].id : UINT32_MAX;
    uint32_t vid = j < view->count ? view->items[j].id : UINT32_MAX;
    if (vid <= did) {
      const arb_snap2_entity* v = &view->items[j];
      const arb_snap2_entity* d = did == vid ? &drawn->items[i] : NULL;
      out->items[n++] = d && d->cls == v->cls && d->s.t0 > v->s.t0 ? *d : *v;
      if (did == vid) ++i;
      ++j;
    } else {
      if (kept_alone(&drawn->items[i], baseline, baseline_tick)) out->items[n++] = drawn->items[i];
      ++i;
    }
  }
  out->count = n;
  return 0;
}
