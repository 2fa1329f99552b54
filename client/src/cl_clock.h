// cl_clock — estimate of the server's clock from snapshot arrivals.
//
// Each snapshot says when the server sent it (tick * dt). Arriving at local time t_a after
// a one-way trip of about rtt/2, it gives one offset sample
//
//     offset_sample = send_time + rtt/2 - t_a        (server_time ~= local_time + offset)
//
// Network delay only ever makes a packet late, never early, so samples scatter *below*
// the true offset: the filtered target follows samples upwards quickly and downwards
// slowly. The offset actually used slews towards the target at a bounded rate, and the
// time handed out never goes backwards (it pauses instead). Independent of ENet and of
// any real clock: every function takes the local time as an argument, so tests drive it
// with a manual clock.
#pragma once

#include <stdbool.h>

typedef struct cl_clock {
  bool synced;        ///< at least one sample seen
  double target;      ///< filtered offset, seconds
  double offset;      ///< slewed offset in use, seconds
  double last_local;  ///< local time of the last query or sample
  double last_out;    ///< last server time handed out (monotonic)
  int samples;        ///< samples seen since reset
} cl_clock;

/// Forget everything (new connection: the new server's clock is unrelated).
void cl_clock_reset(cl_clock* c);
/// One snapshot arrival: sent at server time `send_time`, received at local `arrival`.
void cl_clock_sample(cl_clock* c, double arrival, double send_time, double rtt);
/// Estimated server time at local `now` (0 before the first sample); never decreases.
double cl_clock_server_time(cl_clock* c, double now);
