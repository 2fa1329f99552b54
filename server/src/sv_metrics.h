// Server metrics: plain counters, gauges and fixed-bucket histograms in one struct owned
// by the server, rendered as Prometheus text (exposition format 0.0.4) for GET /metrics.
// Updating a metric is a field increment: nothing here allocates or locks.
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SV_HIST_MAX_BUCKETS 16

typedef struct sv_histogram {
  const double* bounds;  ///< upper bounds, ascending, not owned (static tables)
  int bucket_count;      ///< number of finite bounds (<= SV_HIST_MAX_BUCKETS)
  uint64_t counts[SV_HIST_MAX_BUCKETS + 1];  ///< per bucket (not cumulative); last = +Inf
  double sum;
  uint64_t count;
} sv_histogram;

void sv_histogram_init(sv_histogram* h, const double* bounds, int bucket_count);
void sv_histogram_observe(sv_histogram* h, double value);

/// Why a client message was rejected (label values of arbiter_messages_rejected_total).
typedef enum sv_reject_reason {
  SV_REJECT_DECODE = 0,   ///< bytes that do not decode as a protocol message
  SV_REJECT_UNEXPECTED,   ///< a valid message that is not allowed in the session's state
  SV_REJECT_NONFINITE,    ///< NaN or infinite values in an input
  SV_REJECT_VERSION,      ///< hello with an unsupported protocol version
  SV_REJECT_REASON_COUNT
} sv_reject_reason;

/// Why an input was dropped (label values of arbiter_inputs_dropped_total).
typedef enum sv_drop_reason {
  SV_DROP_RATE_PACKETS = 0,  ///< over the per-client packets/s limit
  SV_DROP_RATE_BYTES,        ///< over the per-client bytes/s limit
  SV_DROP_STALE,             ///< older than or equal to an input already applied (duplicates)
  SV_DROP_REASON_COUNT
} sv_drop_reason;

// One member per row of sv_metrics.def.
#define SV_FIELD_COUNTER(field) uint64_t field;
#define SV_FIELD_GAUGE_INT(field) int64_t field;
#define SV_FIELD_GAUGE_UINT(field) uint64_t field;
#define SV_FIELD_GAUGE_REAL(field) double field;
#define SV_FIELD_HISTOGRAM(field) sv_histogram field;
#define SV_FIELD_COUNTER_BY_DROP(field) uint64_t field[SV_DROP_REASON_COUNT];
#define SV_FIELD_COUNTER_BY_REJECT(field) uint64_t field[SV_REJECT_REASON_COUNT];
#define SV_FIELD_COUNTER_BY_ADMIN(field) uint64_t field[2];  /* [0] refused (token), [1] accepted */
#define SV_FIELD_GAUGE_MATCH_STATE(field) int field;         /* sv_match_state */

typedef struct sv_metrics {
#define SV_METRIC(KIND, field, name, extra, help) SV_FIELD_##KIND(field)
#include "sv_metrics.def"
#undef SV_METRIC
} sv_metrics;

void sv_metrics_init(sv_metrics* m);

/// Render everything as Prometheus text into buf. Returns the length written (without NUL)
/// or -1 when cap is too small (16 KiB is plenty).
int sv_metrics_render(const sv_metrics* m, char* buf, size_t cap);

const char* sv_reject_reason_name(sv_reject_reason r);
const char* sv_drop_reason_name(sv_drop_reason r);
