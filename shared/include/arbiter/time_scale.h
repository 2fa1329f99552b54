// arbiter — running a world at a time scale (slow motion / fast forward) without ever
// changing the fixed dt (physics extras).
//
// Determinism decides the design: the world is always stepped by exactly the fixed dt, so
// a replay at 0.25x or 8x computes bit-for-bit the same states as the live run, only
// spaced differently in wall time. The clock below turns elapsed real (wall) time into a
// number of fixed steps to run: steps accumulate real_seconds * scale in integer
// nanoseconds (no float drift), bounded by max_steps per call (a stalled viewer catches
// up in bounded bursts; the excess is dropped, never squeezed into a larger dt). The
// leftover fraction gives an interpolation alpha for drawing between the last two states.
// Nothing here is simulated state: it is not hashed or saved.
#pragma once

#include "base.h"

ARB_C_BEGIN

#define ARB_TIME_SCALE_MIN 0.0f  ///< 0 = paused
#define ARB_TIME_SCALE_MAX 64.0f

typedef struct arb_step_clock {
  int64_t step_ns;   ///< fixed step in nanoseconds (from dt)
  int64_t acc_ns;    ///< scaled time not yet stepped, [0, step_ns)
  float scale;       ///< current time scale
  int max_steps;     ///< most steps one advance may return (bounded catch-up)
  uint64_t dropped;  ///< steps dropped by the catch-up bound (for stats)
} arb_step_clock;

/// dt: the world's fixed step (s, > 0). scale in [ARB_TIME_SCALE_MIN, ARB_TIME_SCALE_MAX].
/// max_steps >= 1. Returns 0 or ARB_E_INVAL.
ARB_API int arb_step_clock_init(arb_step_clock* clock, float dt, float scale, int max_steps);
/// Change the scale; the accumulated fraction is kept (no jump). Returns 0 or ARB_E_INVAL.
ARB_API int arb_step_clock_set_scale(arb_step_clock* clock, float scale);
/// Account real_ns of wall time; returns how many fixed steps to run now (0..max_steps).
ARB_API int arb_step_clock_advance(arb_step_clock* clock, int64_t real_ns);
/// Fraction of the next step already elapsed, [0, 1): interpolation alpha for drawing.
ARB_API float arb_step_clock_alpha(const arb_step_clock* clock);

ARB_C_END
