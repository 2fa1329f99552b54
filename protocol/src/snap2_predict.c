/* DETERMINISM-CRITICAL: the v2 prediction must give the same integers on the server and
 * on every client (PROTOCOL.md, "v2 prediction"): integer arithmetic only, int64
 * intermediates, rounding half away from zero. */
#include <arbiter/snapshot_v2.h>
#include <math.h>
#include <string.h>

#include "snap2_internal.h"

/* Round half away from zero of a / b, b > 0. For odd b a half cannot occur. Zero needs
 * no division (most predicted entities are at rest: the server predicts every changed
 * one for every client). */
static int64_t rdiv(int64_t a, int64_t b) {
  if (a == 0) return 0;
  return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

static int32_t clamp32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* 32768 / pi as float64, the same literal as the angle quantization. */
#define TURN_STEPS_PER_RADIAN ARB_SNAP2_ANGVEL_SCALE

int32_t arb_snap2_quantize_angvel(float rps) {
  if (isnan(rps)) return 0;
  double d = (double)rps * TURN_STEPS_PER_RADIAN;
  if (d >= 2147483647.0) return INT32_MAX;
  if (d <= -2147483647.0) return -INT32_MAX;
  return (int32_t)(d >= 0.0 ? d + 0.5 : d - 0.5);
}

float arb_snap2_dequantize_angvel(int32_t q) {
  return (float)((double)q / TURN_STEPS_PER_RADIAN);
}

/* The prediction of base after dt ticks at r ticks/s, written to *p field by field. Inlined
 * into a copy with r = 60 (the usual rate), where the divisions by r and 4r^2 are by
 * constants and compile to multiplications: the same integers, a fraction of the cost (the
 * server evaluates every changed entity of every client's view). */
static inline __attribute__((always_inline)) void predict_at(arb_snap2_state* p,
                                                             const arb_snap2_state* base,
                                                             uint8_t cls, int64_t t, int64_t r,
                                                             int32_t gravity_x, int32_t gravity_y) {
  *p = *base;
  if (cls == ARB_SNAP2_BODY || cls == ARB_SNAP2_PARTICLE) {
    int64_t gx = 0, gy = 0;
    if (base->flags & ARB_SNAP2_FLAG_BALLISTIC) {
      gx = gravity_x;
      gy = gravity_y;
    }
    if (cls == ARB_SNAP2_PARTICLE && (base->flags & ARB_SNAP2_FLAG_PINNED)) return;
    /* position 1/128 m, velocity 1/256 m/s, gravity 1/256 m/s^2, dt/r seconds. */
    p->x = clamp32(base->x + rdiv(2 * (int64_t)base->vx * t * r + gx * t * t, 4 * r * r));
    p->y = clamp32(base->y + rdiv(2 * (int64_t)base->vy * t * r + gy * t * t, 4 * r * r));
    p->vx = clamp32(base->vx + rdiv(gx * t, r));
    p->vy = clamp32(base->vy + rdiv(gy * t, r));
  }
  if (cls == ARB_SNAP2_BODY || cls == ARB_SNAP2_WHEEL)
    p->angle = (uint16_t)((uint64_t)((int64_t)base->angle + rdiv(base->w * t, r)) & 0xFFFFu);
}

static void predict_into(arb_snap2_state* p, const arb_snap2_state* base, uint8_t cls, uint32_t dt,
                         uint16_t tick_rate, int32_t gravity_x, int32_t gravity_y) {
  if (tick_rate == 60)
    predict_at(p, base, cls, dt, 60, gravity_x, gravity_y);
  else
    predict_at(p, base, cls, dt, tick_rate ? tick_rate : 1, gravity_x, gravity_y);
}

arb_snap2_state arb_snap2_predict(const arb_snap2_state* base, uint8_t cls, uint32_t dt,
                                  uint16_t tick_rate, int32_t gravity_x, int32_t gravity_y) {
  arb_snap2_state p;
  predict_into(&p, base, cls, dt, tick_rate, gravity_x, gravity_y);
  return p;
}

const arb_snap2_entity* arb_snap2_set_find(const arb_snap2_set* set, uint32_t id) {
  int lo = 0, hi = set->count - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    uint32_t m = set->items[mid].id;
    if (m == id) return &set->items[mid];
    if (m < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

void arb__snap2_eval_into(arb_snap2_state* out, const arb_snap2_state* s, uint8_t cls,
                          uint32_t tick, const arb_snap2_header* h) {
  uint32_t age = tick - s->t0;
  if (age > ARB_SNAP2_MAX_AGE) age = tick < s->t0 ? 0 : ARB_SNAP2_MAX_AGE;
  predict_into(out, s, cls, age, h->tick_rate, h->gravity_x, h->gravity_y);
  out->t0 = tick;
}

arb_snap2_state arb_snap2_eval(const arb_snap2_state* s, uint8_t cls, uint32_t tick,
                               const arb_snap2_header* h) {
  arb_snap2_state e;
  arb__snap2_eval_into(&e, s, cls, tick, h);
  return e;
}

int arb_snap2_set_copy(arb_snap2_set* dst, const arb_snap2_set* src) {
  dst->count = 0;
  if (src == NULL) return 0;
  if (dst->cap < src->count) return ARB_E_NOSPACE;
  if (src->count > 0) memcpy(dst->items, src->items, (size_t)src->count * sizeof *dst->items);
  dst->count = src->count;
  return 0;
}
