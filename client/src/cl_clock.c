// Server clock estimate (design notes in cl_clock.h).
#include "cl_clock.h"

#include <string.h>

// Upward corrections mean we under-estimated (a packet arrived with less delay than any
// before): follow fast. Downward ones are mostly jitter: follow slowly.
#define CL_CLOCK_UP_GAIN 0.25
#define CL_CLOCK_DOWN_GAIN 0.02
// The offset in use moves at most this many seconds per second of local time (5 %), so
// the rendered timeline speeds up or slows down smoothly instead of jumping.
#define CL_CLOCK_SLEW_RATE 0.05
// A target this far from the offset is a real discontinuity (first contact, suspended
// process): jump instead of slewing for minutes.
#define CL_CLOCK_SNAP 0.5

void cl_clock_reset(cl_clock* c) {
  memset(c, 0, sizeof *c);
}

static void slew(cl_clock* c, double now) {
  double dt = now - c->last_local;
  if (dt < 0.0) dt = 0.0;
  double diff = c->target - c->offset;
  double max_step = CL_CLOCK_SLEW_RATE * dt;
  if (diff > CL_CLOCK_SNAP || diff < -CL_CLOCK_SNAP) {
    c->offset = c->target;
  } else if (diff > max_step) {
    c->offset += max_step;
  } else if (diff < -max_step) {
    c->offset -= max_step;
  } else {
    c->offset = c->target;
  }
  if (now > c->last_local) c->last_local = now;
}

void cl_clock_sample(cl_clock* c, double arrival, double send_time, double rtt) {
  if (!(rtt >= 0.0) || rtt > 10.0) rtt = 0.0;
  double s = send_time + 0.5 * rtt - arrival;
  if (!c->synced) {
    c->synced = true;
    c->target = c->offset = s;
    c->last_local = arrival;
    c->last_out = arrival + s;
    c->samples = 1;
    return;
  }
  slew(c, arrival);
  double err = s - c->target;
  c->target += err * (err > 0.0 ? CL_CLOCK_UP_GAIN : CL_CLOCK_DOWN_GAIN);
  // Large errors (a paused process, a server that jumped) are not jitter: take them.
  if (err > CL_CLOCK_SNAP || err < -CL_CLOCK_SNAP) c->target = s;
  c->samples++;
}

double cl_clock_server_time(cl_clock* c, double now) {
  if (!c->synced) return 0.0;
  slew(c, now);
  double t = now + c->offset;
  if (t < c->last_out) t = c->last_out;
  c->last_out = t;
  return t;
}
