// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
// See docs/DETERMINISM.md ("Trigonometry").
//
// Our own sin/cos/atan2. libm's versions differ between C libraries and versions, which
// would let two builds of the same simulation drift apart. These use only IEEE-754 double
// +, -, *, / and comparisons (no fused multiply-add: the build sets -ffp-contract=off), so
// every conforming platform computes the same bits. Working in double and rounding once
// to float at the end keeps the result within about one float ulp of the true value.
#include <arbiter/math.h>

#include <string.h>

// pi/2 split in two doubles (Cody-Waite): HI has its low 20 bits zero, so q * HI is
// exact for |q| < 2^20, and the reduced argument keeps ~80 bits of pi/2.
#define ARB__PIO2_HI 1.57079632673412561417e+00
#define ARB__PIO2_LO 6.07710050650619224932e-11
#define ARB__2_OVER_PI 6.36619772367581382433e-01
#define ARB__PI_D 3.14159265358979323846
// Inputs beyond this are reduced with a growing error (q no longer fits the exact
// product); beyond ARB__TRIG_GIVE_UP the float's spacing exceeds 2 pi anyway.
#define ARB__TRIG_GIVE_UP 1.0e15

// Taylor series on |r| <= pi/4: the first omitted terms are below 1e-11 (sin, r^13/13!)
// and 5e-13 (cos, r^14/14!), far under float resolution.
static double arb__sin_poly(double r) {
  double r2 = r * r;
  double p = -1.0 / 39916800.0;  // -1/11!
  p = p * r2 + 1.0 / 362880.0;   // 1/9!
  p = p * r2 - 1.0 / 5040.0;     // -1/7!
  p = p * r2 + 1.0 / 120.0;      // 1/5!
  p = p * r2 - 1.0 / 6.0;        // -1/3!
  return r + r * r2 * p;
}

static double arb__cos_poly(double r) {
  double r2 = r * r;
  double p = 1.0 / 479001600.0;  // 1/12!
  p = p * r2 - 1.0 / 3628800.0;  // -1/10!
  p = p * r2 + 1.0 / 40320.0;    // 1/8!
  p = p * r2 - 1.0 / 720.0;      // -1/6!
  p = p * r2 + 1.0 / 24.0;       // 1/4!
  p = p * r2 - 0.5;              // -1/2!
  return 1.0 + r2 * p;
}

// sin and cos of x from one range reduction: x = q * pi/2 + r, |r| <= pi/4.
static void arb__sincos(float x, float* s, float* c) {
  if (!isfinite(x)) {
    float nan = x - x;  // NaN for NaN and +-Inf, without calling libm
    *s = nan;
    *c = nan;
    return;
  }
  double xd = (double)x;
  double ax = xd < 0.0 ? -xd : xd;
  if (ax > ARB__TRIG_GIVE_UP) {
    // A float this large is a multiple of 2^26: no angle information is left. Stay
    // deterministic and on the unit circle.
    *s = 0.0f;
    *c = 1.0f;
    return;
  }
  double t = xd * ARB__2_OVER_PI;
  int64_t q = (int64_t)(t < 0.0 ? t - 0.5 : t + 0.5);  // round half away from zero
  double qd = (double)q;
  double r = (xd - qd * ARB__PIO2_HI) - qd * ARB__PIO2_LO;
  double sr = arb__sin_poly(r);
  double cr = arb__cos_poly(r);
  double sv, cv;
  switch ((int)(q & 3)) {  // two's complement: q & 3 is q mod 4 for negative q too
    case 0:
      sv = sr;
      cv = cr;
      break;
    case 1:
      sv = cr;
      cv = -sr;
      break;
    case 2:
      sv = -sr;
      cv = -cr;
      break;
    default:
      sv = -cr;
      cv = sr;
      break;
  }
  *s = (float)sv;
  *c = (float)cv;
}

float arb_sin(float x) {
  float s, c;
  arb__sincos(x, &s, &c);
  return s;
}

float arb_cos(float x) {
  float s, c;
  arb__sincos(x, &s, &c);
  return c;
}

void arb_sincos(float x, float* s, float* c) {
  arb__sincos(x, s, c);
}

// atan(u) for |u| <= tan(pi/8) ~ 0.4142: odd Taylor series up to u^25; the first omitted
// term is below 2e-12.
static double arb__atan_poly(double u) {
  double u2 = u * u;
  double p = 1.0 / 25.0;
  p = p * u2 - 1.0 / 23.0;
  p = p * u2 + 1.0 / 21.0;
  p = p * u2 - 1.0 / 19.0;
  p = p * u2 + 1.0 / 17.0;
  p = p * u2 - 1.0 / 15.0;
  p = p * u2 + 1.0 / 13.0;
  p = p * u2 - 1.0 / 11.0;
  p = p * u2 + 1.0 / 9.0;
  p = p * u2 - 1.0 / 7.0;
  p = p * u2 + 1.0 / 5.0;
  p = p * u2 - 1.0 / 3.0;
  return u + u * u2 * p;
}

float arb_atan2(float y, float x) {
  if (isnan(x) || isnan(y)) return x + y;
  double xd = (double)x, yd = (double)y;
  double ax = xd < 0.0 ? -xd : xd;
  double ay = yd < 0.0 ? -yd : yd;
  if (ax == 0.0 && ay == 0.0) return 0.0f;
  // Infinite components: treat as the limit direction (the ratio below would be NaN).
  if (isinf(x) || isinf(y)) {
    ax = isinf(x) ? 1.0 : 0.0;
    ay = isinf(y) ? 1.0 : 0.0;
  }
  // a = atan(min/max) in [0, pi/4].
  bool swap = ay > ax;
  double t = swap ? ax / ay : ay / ax;
  double a;
  if (t > 0.41421356237309503) {
    // atan(t) = pi/4 + atan((t - 1) / (t + 1)), and |(t-1)/(t+1)| <= tan(pi/8).
    a = 0.25 * ARB__PI_D + arb__atan_poly((t - 1.0) / (t + 1.0));
  } else {
    a = arb__atan_poly(t);
  }
  if (swap) a = 0.5 * ARB__PI_D - a;
  if (xd < 0.0) a = ARB__PI_D - a;
  // The sign bit, not y < 0: atan2(-0, -1) = -pi as in C99 Annex F.
  uint32_t ybits;
  memcpy(&ybits, &y, sizeof ybits);
  if (ybits >> 31) a = -a;
  return (float)a;
}

arb_rot arb_rot_from_angle(float radians) {
  // sincos(+-0) is (+0, 1): the identity, without the range reduction and both series
  // (a sweep at t = 0 or of a body that did not turn asks for it; test_math checks it).
  if (radians == 0.0f) return arb_rot_identity;
  arb_rot q;
  arb__sincos(radians, &q.s, &q.c);
  // Each component is within one float ulp; renormalizing keeps |q| = 1 to float
  // precision so repeated use does not scale vectors.
  return arb_rot_normalize(q);
}

arb_rot arb_rot_towards(arb_rot from, arb_rot to, float max_angle) {
  if (!(max_angle > 0.0f)) return from;  // also catches NaN
  float rel = arb_rot_relative_angle(from, to);
  if (arb_absf(rel) <= max_angle) return to;
  float step = rel > 0.0f ? max_angle : -max_angle;
  return arb_rot_normalize(arb_rot_mul(arb_rot_from_angle(step), from));
}
