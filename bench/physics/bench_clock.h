// The two clocks of the physics benchmark, in milliseconds. Thread CPU time is the figure
// that matters on a shared machine: unlike wall time it does not count the time other
// processes held the core (cache and memory contention still show).
#ifndef ARB_BENCH_CLOCK_H
#define ARB_BENCH_CLOCK_H

#include <time.h>

static inline double bench_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static inline double bench_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

#endif
