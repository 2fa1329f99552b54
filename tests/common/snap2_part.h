// tests — a snapshot2 part built by hand: header fields of one part of `tick` against
// `baseline` (0 = full) at 60 Hz, everything else empty. Shared by the client-side
// snapshot tests that feed the decoder parts a server would send.
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
