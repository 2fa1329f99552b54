// DETERMINISM-CRITICAL: the soft-constraint coefficients shared by the contact and joint
// solvers (soft step, as in Box2D v3).
//
// A constraint with stiffness `hertz` and damping ratio `zeta`, solved with substep `h`,
// behaves like a damped spring: the solver scales the position error by bias_rate, the
// effective mass by mass_scale and the accumulated impulse by impulse_scale. hertz = 0
// means rigid (no bias, full mass, no impulse decay).
#pragma once

#include "arbiter/math.h"

typedef struct arb__softness {
  float bias_rate, mass_scale, impulse_scale;
} arb__softness;

static inline arb__softness arb__make_softness(float hertz, float zeta, float h) {
  arb__softness s = {0.0f, 1.0f, 0.0f};
  if (hertz == 0.0f) return s;
  float omega = 2.0f * ARB_PI * hertz;
  float a1 = 2.0f * zeta + h * omega;
  float a2 = h * omega * a1;
  float a3 = 1.0f / (1.0f + a2);
  s.bias_rate = omega / a1;
  s.mass_scale = a2 * a3;
  s.impulse_scale = a3;
  return s;
}
