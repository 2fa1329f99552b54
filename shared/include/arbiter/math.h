// arbiter — 2D math: vectors, rotations, transforms, bounding boxes.
// Stand-alone (protocol/ and clients include it without the world API).
//
// DETERMINISM-CRITICAL: these inline functions are compiled into the server, the clients
// and the tools; every target builds with -ffp-contract=off (see docs/DETERMINISM.md).
// No libm transcendental functions: arb_sin/arb_cos/arb_atan2 are our own.
#pragma once

#include <float.h>
#include <math.h>

#include "base.h"

// Float expressions must be evaluated in float. x87 arithmetic (32-bit x86 without
// -msse2 -mfpmath=sse) keeps 80-bit intermediates (FLT_EVAL_METHOD 2) and computes other
// bits than SSE2, NEON and wasm32; the determinism matrix shows the divergence by defining
// ARB_ALLOW_EXCESS_PRECISION, which nothing else may do (docs/DETERMINISM.md).
#if FLT_EVAL_METHOD != 0 && !defined(ARB_ALLOW_EXCESS_PRECISION)
#error \
    "arbiter needs FLT_EVAL_METHOD == 0: on 32-bit x86 build with -msse2 -mfpmath=sse (x87 arithmetic breaks bit-exact replays)"
#endif

ARB_C_BEGIN

#define ARB_PI 3.14159265359f

typedef struct arb_vec2 {
  float x, y;
} arb_vec2;

/// A rotation stored as its cosine and sine (a unit complex number).
typedef struct arb_rot {
  float c, s;
} arb_rot;

/// A rigid transform: rotate by q, then translate by p.
typedef struct arb_transform {
  arb_vec2 p;
  arb_rot q;
} arb_transform;

/// Axis-aligned bounding box; lower <= upper on both axes.
typedef struct arb_aabb {
  arb_vec2 lower, upper;
} arb_aabb;

/// sin(x) for any finite x (radians). Max abs error vs the exact value: 3.0e-8 (half a
/// float ulp) for |x| <= 1e6; NaN/Inf give NaN; |x| > 1e15 gives 0. See docs/DETERMINISM.md.
ARB_API float arb_sin(float x);
/// cos(x) for any finite x (radians). Same error as arb_sin; |x| > 1e15 gives 1.
ARB_API float arb_cos(float x);
/// atan2(y, x) in [-pi, pi]; atan2(0, 0) = 0. Max abs error 1.2e-7 (half a float ulp of pi);
/// signed zeros and infinities as C99 Annex F.
ARB_API float arb_atan2(float y, float x);
/// A rotation of `radians` (normalized cos/sin pair computed with arb_cos/arb_sin).
ARB_API arb_rot arb_rot_from_angle(float radians);
/// sin and cos of x from one range reduction (same bits as arb_sin / arb_cos).
ARB_API void arb_sincos(float x, float* s, float* c);

static const arb_vec2 arb_vec2_zero = {0.0f, 0.0f};
static const arb_rot arb_rot_identity = {1.0f, 0.0f};
static const arb_transform arb_transform_identity = {{0.0f, 0.0f}, {1.0f, 0.0f}};

static inline bool arb_is_valid_float(float a) {
  return isfinite(a);
}
static inline bool arb_vec2_is_valid(arb_vec2 v) {
  return isfinite(v.x) && isfinite(v.y);
}

static inline arb_vec2 arb_v2(float x, float y) {
  arb_vec2 v = {x, y};
  return v;
}
static inline arb_vec2 arb_add(arb_vec2 a, arb_vec2 b) {
  return arb_v2(a.x + b.x, a.y + b.y);
}
static inline arb_vec2 arb_sub(arb_vec2 a, arb_vec2 b) {
  return arb_v2(a.x - b.x, a.y - b.y);
}
static inline arb_vec2 arb_neg(arb_vec2 a) {
  return arb_v2(-a.x, -a.y);
}
/// s * v
static inline arb_vec2 arb_scale(float s, arb_vec2 v) {
  return arb_v2(s * v.x, s * v.y);
}
/// a + s * b
static inline arb_vec2 arb_mul_add(arb_vec2 a, float s, arb_vec2 b) {
  return arb_v2(a.x + s * b.x, a.y + s * b.y);
}
/// a - s * b
static inline arb_vec2 arb_mul_sub(arb_vec2 a, float s, arb_vec2 b) {
  return arb_v2(a.x - s * b.x, a.y - s * b.y);
}
static inline float arb_dot(arb_vec2 a, arb_vec2 b) {
  return a.x * b.x + a.y * b.y;
}
/// 2D cross product a x b (the z of the 3D cross product).
static inline float arb_cross(arb_vec2 a, arb_vec2 b) {
  return a.x * b.y - a.y * b.x;
}
/// v x s: vector crossed with a scalar (z axis), = (s*v.y, -s*v.x).
static inline arb_vec2 arb_cross_vs(arb_vec2 v, float s) {
  return arb_v2(s * v.y, -s * v.x);
}
/// s x v: scalar (z axis) crossed with a vector, = (-s*v.y, s*v.x).
static inline arb_vec2 arb_cross_sv(float s, arb_vec2 v) {
  return arb_v2(-s * v.y, s * v.x);
}
/// Counter-clockwise perpendicular (-y, x).
static inline arb_vec2 arb_left_perp(arb_vec2 v) {
  return arb_v2(-v.y, v.x);
}
/// Clockwise perpendicular (y, -x).
static inline arb_vec2 arb_right_perp(arb_vec2 v) {
  return arb_v2(v.y, -v.x);
}
static inline float arb_length_sq(arb_vec2 v) {
  return v.x * v.x + v.y * v.y;
}
static inline float arb_length(arb_vec2 v) {
  return sqrtf(v.x * v.x + v.y * v.y);
}
static inline float arb_distance(arb_vec2 a, arb_vec2 b) {
  return arb_length(arb_sub(b, a));
}
static inline float arb_distance_sq(arb_vec2 a, arb_vec2 b) {
  return arb_length_sq(arb_sub(b, a));
}
/// Unit vector along v, or the zero vector when v is (nearly) zero.
static inline arb_vec2 arb_normalize(arb_vec2 v) {
  float len = arb_length(v);
  if (len < 1.0e-9f) return arb_vec2_zero;
  float inv = 1.0f / len;
  return arb_v2(inv * v.x, inv * v.y);
}
/// Like arb_normalize, also returning the length.
static inline arb_vec2 arb_get_length_and_normalize(float* length, arb_vec2 v) {
  *length = arb_length(v);
  if (*length < 1.0e-9f) return arb_vec2_zero;
  float inv = 1.0f / *length;
  return arb_v2(inv * v.x, inv * v.y);
}
/// a + t * (b - a)
static inline arb_vec2 arb_lerp(arb_vec2 a, arb_vec2 b, float t) {
  return arb_v2((1.0f - t) * a.x + t * b.x, (1.0f - t) * a.y + t * b.y);
}
static inline arb_vec2 arb_vmin(arb_vec2 a, arb_vec2 b) {
  return arb_v2(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y);
}
static inline arb_vec2 arb_vmax(arb_vec2 a, arb_vec2 b) {
  return arb_v2(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y);
}
static inline float arb_minf(float a, float b) {
  return a < b ? a : b;
}
static inline float arb_maxf(float a, float b) {
  return a > b ? a : b;
}
static inline float arb_absf(float a) {
  return a < 0.0f ? -a : a;
}
static inline float arb_clampf(float a, float lo, float hi) {
  return a < lo ? lo : (a > hi ? hi : a);
}
static inline int arb_mini(int a, int b) {
  return a < b ? a : b;
}
static inline int arb_maxi(int a, int b) {
  return a > b ? a : b;
}

// ---- rotations -------------------------------------------------------------------------

/// Renormalize a rotation that drifted from unit length.
static inline arb_rot arb_rot_normalize(arb_rot q) {
  float mag = sqrtf(q.s * q.s + q.c * q.c);
  float inv = mag > 0.0f ? 1.0f / mag : 0.0f;
  arb_rot r = {q.c * inv, q.s * inv};
  return mag > 0.0f ? r : arb_rot_identity;
}
/// Angle of q in radians, in [-pi, pi].
static inline float arb_rot_angle(arb_rot q) {
  return arb_atan2(q.s, q.c);
}
/// Compose: rotate by r first, then by q (q * r as complex numbers).
static inline arb_rot arb_rot_mul(arb_rot q, arb_rot r) {
  arb_rot qr = {q.c * r.c - q.s * r.s, q.s * r.c + q.c * r.s};
  return qr;
}
/// inverse(q) * r: the rotation from q to r.
static inline arb_rot arb_rot_inv_mul(arb_rot q, arb_rot r) {
  arb_rot qr = {q.c * r.c + q.s * r.s, q.c * r.s - q.s * r.c};
  return qr;
}
/// Relative angle from a to b in radians, in [-pi, pi].
static inline float arb_rot_relative_angle(arb_rot a, arb_rot b) {
  return arb_rot_angle(arb_rot_inv_mul(a, b));
}
/// Rotate v by q (complex multiplication).
static inline arb_vec2 arb_rotate(arb_rot q, arb_vec2 v) {
  return arb_v2(q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y);
}
/// Rotate v by the inverse of q.
static inline arb_vec2 arb_inv_rotate(arb_rot q, arb_vec2 v) {
  return arb_v2(q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y);
}
/// Normalized linear interpolation between rotations, t in [0, 1].
static inline arb_rot arb_rot_nlerp(arb_rot q1, arb_rot q2, float t) {
  float omt = 1.0f - t;
  arb_rot q = {omt * q1.c + t * q2.c, omt * q1.s + t * q2.s};
  return arb_rot_normalize(q);
}
/// Advance q by a small angle (radians) and renormalize: the integrator's rotation update.
static inline arb_rot arb_rot_integrate(arb_rot q, float delta_angle) {
  arb_rot q2 = {q.c - delta_angle * q.s, q.s + delta_angle * q.c};
  return arb_rot_normalize(q2);
}
/// Turn `from` towards `to` by at most max_angle radians (>= 0).
ARB_API arb_rot arb_rot_towards(arb_rot from, arb_rot to, float max_angle);

// ---- transforms ------------------------------------------------------------------------

static inline arb_vec2 arb_transform_point(arb_transform t, arb_vec2 p) {
  return arb_add(arb_rotate(t.q, p), t.p);
}
static inline arb_vec2 arb_inv_transform_point(arb_transform t, arb_vec2 p) {
  return arb_inv_rotate(t.q, arb_sub(p, t.p));
}
/// a * b: apply b, then a.
static inline arb_transform arb_transform_mul(arb_transform a, arb_transform b) {
  arb_transform c;
  c.q = arb_rot_mul(a.q, b.q);
  c.p = arb_add(arb_rotate(a.q, b.p), a.p);
  return c;
}
/// inverse(a) * b.
static inline arb_transform arb_inv_transform_mul(arb_transform a, arb_transform b) {
  arb_transform c;
  c.q = arb_rot_inv_mul(a.q, b.q);
  c.p = arb_inv_rotate(a.q, arb_sub(b.p, a.p));
  return c;
}

// ---- bounding boxes --------------------------------------------------------------------

static inline bool arb_aabb_overlaps(arb_aabb a, arb_aabb b) {
  return !(b.lower.x > a.upper.x || b.lower.y > a.upper.y || a.lower.x > b.upper.x ||
           a.lower.y > b.upper.y);
}
/// True when a fully contains b.
static inline bool arb_aabb_contains(arb_aabb a, arb_aabb b) {
  return a.lower.x <= b.lower.x && a.lower.y <= b.lower.y && b.upper.x <= a.upper.x &&
         b.upper.y <= a.upper.y;
}
static inline bool arb_aabb_contains_point(arb_aabb a, arb_vec2 p) {
  return a.lower.x <= p.x && p.x <= a.upper.x && a.lower.y <= p.y && p.y <= a.upper.y;
}
static inline arb_aabb arb_aabb_union(arb_aabb a, arb_aabb b) {
  arb_aabb c = {arb_vmin(a.lower, b.lower), arb_vmax(a.upper, b.upper)};
  return c;
}
static inline arb_vec2 arb_aabb_center(arb_aabb a) {
  return arb_v2(0.5f * (a.lower.x + a.upper.x), 0.5f * (a.lower.y + a.upper.y));
}
static inline arb_vec2 arb_aabb_extents(arb_aabb a) {
  return arb_v2(0.5f * (a.upper.x - a.lower.x), 0.5f * (a.upper.y - a.lower.y));
}
static inline float arb_aabb_perimeter(arb_aabb a) {
  return 2.0f * ((a.upper.x - a.lower.x) + (a.upper.y - a.lower.y));
}

ARB_C_END
