// arbiter — what a client draws from the snapshot views it received (PROTOCOL.md, "What a
// client draws"). A view (arbiter/snapshot.h) is the baseline plus the records of its
// own tick, so a correction sent in one snapshot is absent from sibling snapshots built on
// the same baseline. The drawn set keeps, for every entity, the freshest origin (largest
// t0) of all views received, so the server does not have to repeat a correction in every
// snapshot until one carrying it is acknowledged: it models this set for each client and
// sends only what the client draws wrong. Decoding is unchanged: deltas still apply to
// views.
#pragma once

#include <arbiter/snapshot.h>

ARB_C_BEGIN

/// out = the drawn set after receiving the complete view of a tick whose baseline was
/// `baseline_tick` (0 = a full snapshot) with view `baseline` (NULL when not held):
///   - an entity in `view` is drawn from the fresher origin (larger t0) of `view` and
///     `drawn` (the view's when equal, or when the classes differ);
///   - an entity only in `drawn` stays when it was set after the baseline (t0 >
///     baseline_tick > 0: entered in a sibling snapshot) and the baseline does not hold it
///     (else the view removed it); `baseline` NULL counts as holding it.
/// out must not alias drawn or view; out->cap >= drawn->count + view->count, else
/// ARB_E_NOSPACE and out is empty.
ARB_API int arb_snapshot_drawn_apply(const arb_snapshot_set* drawn, const arb_snapshot_set* view,
                                     const arb_snapshot_set* baseline, uint32_t baseline_tick,
                                     arb_snapshot_set* out);

/// The same result written over `drawn` itself (the server's model of each client: the
/// set it just read stays in the cache, and no second set is written). inserts: room for
/// view->count ints, scratch. ARB_E_NOSPACE, drawn unchanged, when drawn->cap <
/// drawn->count + view->count (the condition of arb_snapshot_drawn_apply).
ARB_API int arb_snapshot_drawn_apply_in_place(arb_snapshot_set* drawn, const arb_snapshot_set* view,
                                              const arb_snapshot_set* baseline,
                                              uint32_t baseline_tick, int* inserts);

ARB_C_END
