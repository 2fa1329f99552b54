// Rates and loss (see cl_stats.h).
#include "cl_stats.h"

#include <string.h>

void cl_rate_reset(cl_rate* r) {
  memset(r, 0, sizeof *r);
}

void cl_rate_update(cl_rate* r, double now, uint64_t value) {
  if (!r->started) {
    r->started = true;
    r->t0 = now;
    r->v0 = value;
    return;
  }
  double dt = now - r->t0;
  if (dt >= 1.0) {
    r->rate = (float)((double)(value - r->v0) / dt);
    r->t0 = now;
    r->v0 = value;
  }
}

void cl_loss_reset_connection(cl_loss* l, double ticks_per_snapshot) {
  uint64_t lost = cl_loss_lost(l, ticks_per_snapshot);
  memset(l, 0, sizeof *l);
  l->lost_before = lost;
}

void cl_loss_on_snapshot(cl_loss* l, uint32_t tick) {
  if (!l->started) {
    l->started = true;
    l->first_tick = tick;
    l->newest_tick = tick;
  }
  if (tick < l->first_tick) l->first_tick = tick;
  if (tick > l->newest_tick) l->newest_tick = tick;
  l->received++;
}

double cl_loss_expected(const cl_loss* l, double ticks_per_snapshot) {
  if (!l->started || !(ticks_per_snapshot > 0.0)) return 0.0;
  return (double)(l->newest_tick - l->first_tick) / ticks_per_snapshot + 1.0;
}

uint64_t cl_loss_lost(const cl_loss* l, double ticks_per_snapshot) {
  double e = cl_loss_expected(l, ticks_per_snapshot) + 0.5;
  uint64_t expected = (uint64_t)e;
  uint64_t now = expected > l->received ? expected - l->received : 0;
  return l->lost_before + now;
}

void cl_loss_update(cl_loss* l, double now, double ticks_per_snapshot) {
  if (!l->started) return;
  double expected = cl_loss_expected(l, ticks_per_snapshot);
  if (l->t0 == 0.0) {
    l->t0 = now;
    l->expected0 = expected;
    l->received0 = (double)l->received;
    return;
  }
  if (now - l->t0 >= 1.0) {
    double e = expected - l->expected0, r = (double)l->received - l->received0;
    float loss = e > 0.0 ? (float)(1.0 - r / e) : 0.0f;
    l->recent = loss < 0.0f ? 0.0f : (loss > 1.0f ? 1.0f : loss);
    l->t0 = now;
    l->expected0 = expected;
    l->received0 = (double)l->received;
  }
}
