// The step clock for time-scaled playback (see time_scale.h). Not simulation code: it
// only decides how many fixed steps to run; the world never sees a scaled dt.
#include "arbiter/time_scale.h"

#include "arbiter/math.h"

static bool arb__scale_ok(float s) {
  return arb_is_valid_float(s) && s >= ARB_TIME_SCALE_MIN && s <= ARB_TIME_SCALE_MAX;
}

int arb_step_clock_init(arb_step_clock* c, float dt, float scale, int max_steps) {
  if (!c || !arb_is_valid_float(dt) || dt <= 0.0f || dt > 10.0f || !arb__scale_ok(scale) ||
      max_steps < 1)
    return ARB_E_INVAL;
  c->step_ns = (int64_t)((double)dt * 1e9 + 0.5);
  if (c->step_ns < 1) return ARB_E_INVAL;
  c->acc_ns = 0;
  c->scale = scale;
  c->max_steps = max_steps;
  c->dropped = 0;
  return 0;
}

int arb_step_clock_set_scale(arb_step_clock* c, float scale) {
  if (!c || !arb__scale_ok(scale)) return ARB_E_INVAL;
  c->scale = scale;
  return 0;
}

int arb_step_clock_advance(arb_step_clock* c, int64_t real_ns) {
  if (!c || c->step_ns <= 0 || real_ns <= 0) return 0;
  // Scale in double: exact for any realistic frame time, and not simulation state.
  double scaled = (double)real_ns * (double)c->scale;
  double limit = (double)c->step_ns * ((double)c->max_steps + 1.0);
  if (scaled > limit) scaled = limit;
  c->acc_ns += (int64_t)scaled;
  int64_t steps = c->acc_ns / c->step_ns;
  c->acc_ns -= steps * c->step_ns;
  if (steps > c->max_steps) {
    c->dropped += (uint64_t)(steps - c->max_steps);
    steps = c->max_steps;
  }
  return (int)steps;
}

float arb_step_clock_alpha(const arb_step_clock* c) {
  if (!c || c->step_ns <= 0) return 0.0f;
  return (float)((double)c->acc_ns / (double)c->step_ns);
}
