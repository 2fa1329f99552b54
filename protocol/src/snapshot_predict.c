/* DETERMINISM-CRITICAL: the snapshot prediction must give the same integers on the server and
 * on every client (PROTOCOL.md §6.3): integer arithmetic only, int64
 * intermediates, rounding half away from zero. */
#include <arbiter/snapshot.h>
#include <math.h>
#include <string.h>

#include "snapshot_internal.h"

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
#define TURN_STEPS_PER_RADIAN ARB_SNAPSHOT_ANGVEL_SCALE

int32_t arb_snapshot_quantize_angvel(float rps) {
  if (isnan(rps)) return 0;
  double d = (double)rps * TURN_STEPS_PER_RADIAN;
  if (d >= 2147483647.0) return INT32_MAX;
  if (d <= -2147483647.0) return -INT32_MAX;
  return (int32_t)(d >= 0.0 ? d + 0.5 : d - 0.5);
}

float arb_snapshot_dequantize_angvel(int32_t q) {
  return (float)((double)q / TURN_STEPS_PER_RADIAN);
}

/* The prediction of base after dt ticks at r ticks/s, written to *p field by field. Inlined
 * into a copy with r = 60 (the usual rate), where the divisions by r and 4r^2 are by
 * constants and compile to multiplications: the same integers, a fraction of the cost (the
 * server evaluates every changed entity of every client's view). */
static inline __attribute__((always_inline)) void predict_at(arb_snapshot_state* p,
                                                             const arb_snapshot_state* base,
                                                             uint8_t cls, int64_t t, int64_t r,
                                                             int32_t gravity_x, int32_t gravity_y) {
  *p = *base;
  if (cls == ARB_SNAPSHOT_BODY || cls == ARB_SNAPSHOT_PARTICLE) {
    int64_t gx = 0, gy = 0;
    if (base->flags & ARB_SNAPSHOT_FLAG_BALLISTIC) {
      gx = gravity_x;
      gy = gravity_y;
    }
    if (cls == ARB_SNAPSHOT_PARTICLE && (base->flags & ARB_SNAPSHOT_FLAG_PINNED)) return;
    /* position 1/128 m, velocity 1/256 m/s, gravity 1/256 m/s^2, dt/r seconds. */
    if ((gx | gy) == 0) {
      // (2 v t r) / (4 r^2) with numerator and divisor over 2r: the same quotient, the same
      // rounding (both sides of rdiv's division are scaled alike), by a smaller constant;
      // the velocity stays.
      p->x = clamp32(base->x + rdiv((int64_t)base->vx * t, 2 * r));
      p->y = clamp32(base->y + rdiv((int64_t)base->vy * t, 2 * r));
    } else {
      p->x = clamp32(base->x + rdiv(2 * (int64_t)base->vx * t * r + gx * t * t, 4 * r * r));
      p->y = clamp32(base->y + rdiv(2 * (int64_t)base->vy * t * r + gy * t * t, 4 * r * r));
      p->vx = clamp32(base->vx + rdiv(gx * t, r));
      p->vy = clamp32(base->vy + rdiv(gy * t, r));
    }
  }
  if (cls == ARB_SNAPSHOT_BODY || cls == ARB_SNAPSHOT_WHEEL)
    p->angle = (uint16_t)((uint64_t)((int64_t)base->angle + rdiv(base->w * t, r)) & 0xFFFFu);
}

static void predict_into(arb_snapshot_state* p, const arb_snapshot_state* base, uint8_t cls,
                         uint32_t dt, uint16_t tick_rate, int32_t gravity_x, int32_t gravity_y) {
  if (tick_rate == 60)
    predict_at(p, base, cls, dt, 60, gravity_x, gravity_y);
  else
    predict_at(p, base, cls, dt, tick_rate ? tick_rate : 1, gravity_x, gravity_y);
}

arb_snapshot_state arb_snapshot_predict(const arb_snapshot_state* base, uint8_t cls, uint32_t dt,
                                        uint16_t tick_rate, int32_t gravity_x, int32_t gravity_y) {
  arb_snapshot_state p;
  predict_into(&p, base, cls, dt, tick_rate, gravity_x, gravity_y);
  return p;
}

const arb_snapshot_entity* arb_snapshot_set_find(const arb_snapshot_set* set, uint32_t id) {
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

/* Ticks from the origin s to `tick`, clamped to [0, ARB_SNAPSHOT_MAX_AGE]. */
static uint32_t age_at(const arb_snapshot_state* s, uint32_t tick) {
  uint32_t age = tick - s->t0;
  return age > ARB_SNAPSHOT_MAX_AGE ? (tick < s->t0 ? 0 : ARB_SNAPSHOT_MAX_AGE) : age;
}

void arb__snapshot_eval_into(arb_snapshot_state* out, const arb_snapshot_state* s, uint8_t cls,
                             uint32_t tick, const arb_snapshot_header* h) {
  predict_into(out, s, cls, age_at(s, tick), h->tick_rate, h->gravity_x, h->gravity_y);
  out->t0 = tick;
}

void arb__snapshot_gravity_velocity(const arb_snapshot_state* s, uint32_t tick,
                                    const arb_snapshot_header* h, int32_t* vx, int32_t* vy) {
  int64_t r = h->tick_rate ? h->tick_rate : 1, t = age_at(s, tick);
  *vx = clamp32(s->vx + rdiv((int64_t)h->gravity_x * t, r));
  *vy = clamp32(s->vy + rdiv((int64_t)h->gravity_y * t, r));
}

arb_snapshot_state arb_snapshot_eval(const arb_snapshot_state* s, uint8_t cls, uint32_t tick,
                                     const arb_snapshot_header* h) {
  arb_snapshot_state e;
  arb__snapshot_eval_into(&e, s, cls, tick, h);
  return e;
}

int arb_snapshot_set_copy(arb_snapshot_set* dst, const arb_snapshot_set* src) {
  dst->count = 0;
  if (src == NULL) return 0;
  if (dst->cap < src->count) return ARB_E_NOSPACE;
  if (src->count > 0) memcpy(dst->items, src->items, (size_t)src->count * sizeof *dst->items);
  dst->count = src->count;
  return 0;
}
