// The drawn set (see arbiter/snapshot_drawn.h): a merge by id of two sorted sets.
#include <arbiter/snapshot_drawn.h>
#include <string.h>

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
  while (d < d_end && v < v_end) {  // by id
    // The same id in both is the usual case, in long runs: walked with one end test (the
    // shorter remainder's), keeping the view's item unless drawn's is a fresher origin of
    // the same class (o never points into the view: that copy is always made).
    const arb_snapshot_entity* run_end = d_end - d < v_end - v ? d_end : d + (v_end - v);
    for (; d < run_end && d->id == v->id; ++d, ++v, ++o) {
      if (d->cls != v->cls || d->s.t0 <= v->s.t0)
        *o = *v;
      else if (o != d)
        *o = *d;
    }
    if (d == run_end) break;
    if (v->id < d->id) {
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

// How many of items[0 .. n) (by increasing id) have an id below `id`.
static int count_below(const arb_snapshot_entity* items, int n, uint32_t id) {
  int lo = 0;
  while (n > 0) {
    int half = n / 2;
    if (items[lo + half].id < id) {
      lo += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return lo;
}

/* Two passes over drawn's own items. Forward: matched ids and drawn-only ones that stay are
 * written in place, at or before where they were read, and view-only ids are noted.
 * Backward: the noted ones are merged in from the end, each kept item moving up by the
 * number of insertions after it: a view-only id is a few entities entering the view among
 * hundreds, so each one's place is found by bisection and the kept run above it moves in
 * one block, instead of comparing every kept item above the lowest insertion. */
int arb_snapshot_drawn_apply_in_place(arb_snapshot_set* drawn, const arb_snapshot_set* view,
                                      const arb_snapshot_set* baseline, uint32_t baseline_tick,
                                      int* inserts) {
  if (drawn->cap < drawn->count + view->count) return ARB_E_NOSPACE;
  arb_snapshot_entity* items = drawn->items;
  int* noted = inserts;
  int kept =
      (int)(merge(items, set_end(drawn), view, baseline, baseline_tick, items, &noted) - items);
  int n = (int)(noted - inserts);
  for (int a = n - 1, unmoved = kept; a >= 0; --a) {  // items[0 .. unmoved) are still in place
    const arb_snapshot_entity* e = &view->items[inserts[a]];
    int at = count_below(items, unmoved, e->id);
    memmove(items + at + a + 1, items + at, (size_t)(unmoved - at) * sizeof *items);
    items[at + a] = *e;
    unmoved = at;
  }
  drawn->count = kept + n;
  return 0;
}
