// tests — a snapshot2 part built by hand: header fields of one part of `tick` against
// `baseline` (0 = full) at 60 Hz, everything else empty, then its records one by one.
// Shared by the client-side snapshot tests that feed the decoder parts a server would send.
#pragma once

#include <arbiter/snapshot_v2.h>
#include <stdint.h>
#include <string.h>

static inline void snap2_part_begin(arb_snap2_part* p, uint32_t tick, uint32_t baseline, int part,
                                    int parts) {
  memset(p, 0, sizeof *p);
  p->h.tick = tick;
  p->h.baseline_tick = baseline;
  p->h.part_index = (uint8_t)part;
  p->h.part_count = (uint8_t)parts;
  p->h.tick_rate = 60;
}

// Appends a record of `id` (op, cls; every other field zero) for the caller to fill in.
static inline arb_snap2_record* snap2_part_record(arb_snap2_part* p, uint32_t id, uint8_t op,
                                                  uint8_t cls) {
  arb_snap2_record* r = &p->records[p->record_count++];
  memset(r, 0, sizeof *r);
  r->id = id;
  r->op = op;
  r->cls = cls;
  return r;
}

// Appends the entry of `id` (class cls) at state v with a new description of its own:
// zero but for its class, returned for the caller to fill in.
static inline arb_snap2_desc* snap2_part_enter(arb_snap2_part* p, uint32_t id, uint8_t cls,
                                               arb_snap2_state v) {
  arb_snap2_record* r = snap2_part_record(p, id, ARB_SNAP2_ENTER, cls);
  r->desc = (uint8_t)p->desc_count;
  r->v = v;
  arb_snap2_desc* d = &p->descs[p->desc_count++];
  memset(d, 0, sizeof *d);
  d->cls = cls;
  return d;
}
