// tests — a snapshot part built by hand: header fields of one part of `tick` against
// `baseline` (0 = full) at 60 Hz, everything else empty, then its records one by one.
// Shared by the client-side snapshot tests that feed the decoder parts a server would send.
#pragma once

#include <arbiter/snapshot.h>
#include <stdint.h>
#include <string.h>

static inline void snapshot_part_begin(arb_snapshot_part* p, uint32_t tick, uint32_t baseline,
                                       int part, int parts) {
  memset(p, 0, sizeof *p);
  p->h.tick = tick;
  p->h.baseline_tick = baseline;
  p->h.part_index = (uint8_t)part;
  p->h.part_count = (uint8_t)parts;
  p->h.tick_rate = 60;
}

// Appends a record of `id` (op, cls; every other field zero) for the caller to fill in.
static inline arb_snapshot_record* snapshot_part_record(arb_snapshot_part* p, uint32_t id,
                                                        uint8_t op, uint8_t cls) {
  arb_snapshot_record* r = &p->records[p->record_count++];
  memset(r, 0, sizeof *r);
  r->id = id;
  r->op = op;
  r->cls = cls;
  return r;
}

// Appends the entry of `id` (class cls) at state v with a new description of its own:
// zero but for its class, returned for the caller to fill in.
static inline arb_snapshot_desc* snapshot_part_enter(arb_snapshot_part* p, uint32_t id, uint8_t cls,
                                                     arb_snapshot_state v) {
  arb_snapshot_record* r = snapshot_part_record(p, id, ARB_SNAPSHOT_ENTER, cls);
  r->desc = (uint8_t)p->desc_count;
  r->v = v;
  arb_snapshot_desc* d = &p->descs[p->desc_count++];
  memset(d, 0, sizeof *d);
  d->cls = cls;
  return d;
}
