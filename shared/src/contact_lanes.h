// The contact solver's wide part, built for two lane widths from one source
// (contact_lanes.inc): 4 lanes (SSE2, or portable C) everywhere, 8 lanes (AVX2) on x86-64
// where the CPU has it. Both give the same bits; arb__contact_lanes_select picks one.
#pragma once

#include <arbiter/worker_pool.h>

#include "softness.h"
#include "world.h"

// Graph colouring (arb__color_contacts, contact_solver.c, for every width): constraints of
// one colour share no moving body, so the lanes of a wide constraint never touch the same
// body. Greedy in contact order, colours in order, overflow last (one constraint per wide
// entry): a pure function of the contact array. Static bodies never change in the solver,
// so they do not constrain colouring.
#define ARB__COLOR_COUNT 31
#define ARB__OVERFLOW ARB__COLOR_COUNT

typedef enum { ARB__WARM_START, ARB__SOLVE, ARB__RELAX, ARB__RESTITUTION } arb__pass;

typedef struct arb__solver {
  const int32_t* list;  // the candidate contacts (awake_contacts), or NULL: all
  int ncontacts;        // candidates
  int32_t* lane_of;     // per candidate: width * wide entry + lane, or -1 (no points);
                        // arena block under `wides_block`
  void* wides;          // the wide constraints of the lane width, aligned for its vectors
  void* wides_block;    // the arena block holding them
  int count;
  int offsets[ARB__COLOR_COUNT + 2];  // first wide entry of each colour (overflow last)
  int dummy;                          // index of the dummy body state
  int substeps;
  float h, inv_h;  // the substep and its inverse
  float dt;
  arb_vec2 gravity;  // the world's gravity (bodies scale it by their gravity_scale)
  float max_push;
  float restitution_threshold;
} arb__solver;

// One lane width's solver: pack the coloured contacts (returns the wide entry count), one
// pass over every wide constraint, and the impulses (and hit events) back to the contacts.
typedef struct arb__contact_lanes {
  int width;
  int (*pack)(arb_world* w, arb__solver* sv, const int per_color[ARB__COLOR_COUNT + 1],
              arb__softness soft, arb__softness static_soft);
  void (*run_pass)(arb_pool* pool, arb__body_state* st, arb__solver* sv, arb__pass pass);
  void (*store_impulses)(arb_world* w, const arb__solver* sv);
} arb__contact_lanes;

// Sorts the step's hit events into contact order (contact_of: each event's contact).
void arb__sort_hits(arb_world* w, const int32_t* contact_of);

extern const arb__contact_lanes arb__contact_lanes_4;
#if defined(ARB_AVX2_LANES) && !defined(ARB_NO_SIMD)
extern const arb__contact_lanes arb__contact_lanes_8;
#endif

// The widest lanes this CPU runs, unless the environment variable ARBITER_SIMD=sse2 asks
// for 4 lanes.
const arb__contact_lanes* arb__contact_lanes_select(void);
// Tests: force 4 or 8 lanes (8 only where available; returns the width in use), 0 = auto.
int arb__contact_lanes_force(int width);
