// cl_stats — rates over one-second windows and the snapshot loss estimate.
//
// A rate is (counter now - counter at window start) / window length, recomputed whenever
// a window of at least one second has passed; the last finished window is reported, so a
// figure is stable for a second instead of flickering per frame.
// Loss: each server snapshot tick that falls between the first and the newest complete
// snapshot is expected; expected - received is lost (late arrivals still count as
// received). The recent figure uses the last finished window.
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct cl_rate {
  bool started;
  double t0;    ///< window start (application seconds)
  uint64_t v0;  ///< counter at window start
  float rate;   ///< per second, last finished window
} cl_rate;

void cl_rate_reset(cl_rate* r);
void cl_rate_update(cl_rate* r, double now, uint64_t value);

typedef struct cl_loss {
  bool started;
  uint32_t first_tick;  ///< first complete snapshot tick of the connection
  uint32_t newest_tick;
  uint64_t received;     ///< distinct complete snapshots of this connection
  uint64_t lost_before;  ///< lost in earlier connections
  // window
  double t0;
  double expected0, received0;
  float recent;  ///< [0,1], last finished window
} cl_loss;

/// A connection ended: its losses move into lost_before and counting restarts.
void cl_loss_reset_connection(cl_loss* l, double ticks_per_snapshot);
/// A distinct snapshot tick completed.
void cl_loss_on_snapshot(cl_loss* l, uint32_t tick);
/// Expected snapshots so far for ticks_per_snapshot (> 0).
double cl_loss_expected(const cl_loss* l, double ticks_per_snapshot);
uint64_t cl_loss_lost(const cl_loss* l, double ticks_per_snapshot);
void cl_loss_update(cl_loss* l, double now, double ticks_per_snapshot);
