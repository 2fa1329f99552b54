// Prometheus text rendering of the server metrics (names listed in docs/SERVER.md).
#include "sv_metrics.h"

#include "sv_match.h"
#include "sv_names.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Tick duration: 50 µs .. 100 ms; a 60 Hz tick has 16.7 ms to spend. Fine steps from 2 to
// 16.7 ms, where a loaded server's ticks lie: a p99 interpolated inside one wide bucket
// (8 to 16.7 ms) could not tell a tick tail within 8 ms from one twice as long.
static const double tick_bounds[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003,
                                     0.004,   0.005,  0.006,   0.007,  0.008, 0.010, 0.012,
                                     0.014,   0.0167, 0.025,   0.033,  0.05,  0.1};
// Snapshot payload bytes, up to the 1200-byte packet budget.
static const double snapshot_bounds[] = {32, 64, 128, 256, 384, 512, 768, 1024, 1200};

void sv_histogram_init(sv_histogram* h, const double* bounds, int bucket_count) {
  memset(h, 0, sizeof *h);
  h->bounds = bounds;
  h->bucket_count = bucket_count > SV_HIST_MAX_BUCKETS ? SV_HIST_MAX_BUCKETS : bucket_count;
}

void sv_histogram_observe(sv_histogram* h, double value) {
  int i = 0;
  while (i < h->bucket_count && value > h->bounds[i]) ++i;
  h->counts[i]++;
  h->sum += value;
  h->count++;
}

void sv_metrics_init(sv_metrics* m) {
  memset(m, 0, sizeof *m);
#define SV_METRIC(KIND, field, name, extra, help) SV_INIT_##KIND(field, extra)
#define SV_INIT_HISTOGRAM(field, bounds) \
  sv_histogram_init(&m->field, bounds, (int)(sizeof bounds / sizeof bounds[0]));
#define SV_INIT_COUNTER(field, extra)
#define SV_INIT_COUNTER_SECONDS(field, extra)
#define SV_INIT_GAUGE_INT(field, extra)
#define SV_INIT_GAUGE_UINT(field, extra)
#define SV_INIT_GAUGE_REAL(field, extra)
#define SV_INIT_COUNTER_BY_DROP(field, extra)
#define SV_INIT_COUNTER_BY_REJECT(field, extra)
#define SV_INIT_COUNTER_BY_ADMIN(field, extra)
#define SV_INIT_GAUGE_MATCH_STATE(field, extra)
#define SV_INIT_COUNTER_BY_TOKEN(field, extra)
#define SV_INIT_COUNTER_BY_DATAGRAM(field, extra)
#define SV_INIT_COUNTER_BY_ADMIN_ACTION(field, extra)
#define SV_INIT_COUNTER_BY_HTTP_CLOSE(field, extra)
#define SV_INIT_COUNTER_BY_WS_REFUSAL(field, extra)
#define SV_INIT_COUNTER_BY_WS_CLOSE(field, extra)
#include "sv_metrics.def"
#undef SV_METRIC
}

const char* sv_reject_reason_name(sv_reject_reason r) {
  SV_RETURN_NAME(r, SV_REJECT_REASON_COUNT, "decode", "unexpected", "nonfinite", "version");
}

const char* sv_drop_reason_name(sv_drop_reason r) {
  SV_RETURN_NAME(r, SV_DROP_REASON_COUNT, "rate_packets", "rate_bytes", "stale");
}

const char* sv_datagram_drop_name(sv_datagram_drop r) {
  SV_RETURN_NAME(r, SV_DGRAM_DROP_COUNT, "gate_malformed", "gate_cookie", "rate_limited",
                 "not_admitted", "enet_malformed", "enet_fragment", "enet_window", "enet_peer",
                 "stopping", "banned", "table_full", "fragment_budget", "challenge_budget",
                 "address_full");
}

const char* sv_http_closed_name(sv_http_closed r) {
  SV_RETURN_NAME(r, SV_HTTP_CLOSED_COUNT, "per_address", "evicted", "full", "timeout");
}

const char* sv_ws_refusal_name(sv_ws_refusal r) {
  SV_RETURN_NAME(r, SV_WS_REFUSED_COUNT, "400", "403", "408", "426", "431", "503");
}

const char* sv_ws_close_kind_name(sv_ws_close_kind k) {
  SV_RETURN_NAME(k, SV_WS_CLOSE_KIND_COUNT, "1000", "1002", "1003", "1007", "1009", "4xxx", "other",
                 "none");
}

sv_ws_close_kind sv_ws_close_kind_of(unsigned code) {
  switch (code) {
    case 0:
      return SV_WS_CLOSE_NONE;
    case 1000:
      return SV_WS_CLOSE_1000;
    case 1002:
      return SV_WS_CLOSE_1002;
    case 1003:
      return SV_WS_CLOSE_1003;
    case 1007:
      return SV_WS_CLOSE_1007;
    case 1009:
      return SV_WS_CLOSE_1009;
    default:
      return code >= 4000 && code <= 4999 ? SV_WS_CLOSE_SESSION : SV_WS_CLOSE_OTHER;
  }
}

typedef struct out_buf {
  char* p;
  size_t len, cap;
  int overflow;
} out_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
outf(out_buf* o, const char* fmt, ...) {
  if (o->overflow) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= o->cap - o->len) {
    o->overflow = 1;
    return;
  }
  o->len += (size_t)n;
}

static void counter(out_buf* o, const char* name, const char* help, uint64_t v) {
  outf(o, "# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 "\n", name, help, name, name, v);
}

// A counter kept in nanoseconds, shown in seconds (Prometheus' base unit).
static void counter_seconds(out_buf* o, const char* name, const char* help, uint64_t ns) {
  outf(o, "# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 ".%09" PRIu64 "\n", name, help, name, name,
       ns / 1000000000u, ns % 1000000000u);
}

static void gauge(out_buf* o, const char* name, const char* help, double v) {
  outf(o, "# HELP %s %s\n# TYPE %s gauge\n%s %.17g\n", name, help, name, name, v);
}

static void histogram(out_buf* o, const char* name, const char* help, const sv_histogram* h) {
  outf(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
  uint64_t cum = 0;
  for (int i = 0; i < h->bucket_count; ++i) {
    cum += h->counts[i];
    outf(o, "%s_bucket{le=\"%g\"} %" PRIu64 "\n", name, h->bounds[i], cum);
  }
  cum += h->counts[h->bucket_count];
  outf(o, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", name, cum);
  outf(o, "%s_sum %.17g\n%s_count %" PRIu64 "\n", name, h->sum, name, h->count);
}

typedef const char* sv_label_name_fn(int reason);
static const char* drop_name(int r) {
  return sv_drop_reason_name((sv_drop_reason)r);
}
static const char* reject_name(int r) {
  return sv_reject_reason_name((sv_reject_reason)r);
}

static const char* admin_result_name(int r) {
  return r == 0 ? "refused" : "accepted";
}
static const char* admin_action_name(int a) {
  SV_RETURN_NAME(a, SV_ADMIN_ACTION_COUNT, "sessions", "kick", "ban", "drain");
}
static const char* match_state_name(int s) {
  return sv_match_state_name((sv_match_state)s);
}
// Token rejections skip SV_AUTH_OK (index 0): label i is result i + 1.
static const char* token_reject_name(int r) {
  return sv_auth_result_name((sv_auth_result)(r + 1));
}
static const char* datagram_name(int r) {
  return sv_datagram_drop_name((sv_datagram_drop)r);
}
static const char* http_close_name(int r) {
  return sv_http_closed_name((sv_http_closed)r);
}
static const char* ws_refusal_name(int r) {
  return sv_ws_refusal_name((sv_ws_refusal)r);
}
static const char* ws_close_name(int k) {
  return sv_ws_close_kind_name((sv_ws_close_kind)k);
}

// A counter with one line per value of a label.
static void by_label(out_buf* o, const char* name, const char* help, const char* key,
                     const uint64_t* v, int count, sv_label_name_fn* label) {
  outf(o, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
  for (int i = 0; i < count; ++i) outf(o, "%s{%s=\"%s\"} %" PRIu64 "\n", name, key, label(i), v[i]);
}

// A state as a gauge per possible state: 1 for the current one, 0 for the others.
static void one_hot(out_buf* o, const char* name, const char* help, int current) {
  outf(o, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
  for (int i = 0; i < SV_MATCH_STATE_COUNT; ++i)
    outf(o, "%s{state=\"%s\"} %d\n", name, match_state_name(i), current == i);
}

int sv_metrics_render(const sv_metrics* m, char* buf, size_t cap) {
  out_buf o = {buf, 0, cap, 0};
#define SV_METRIC(KIND, field, name, extra, help) SV_RENDER_##KIND(m->field, name, help);
#define SV_RENDER_COUNTER(v, name, help) counter(&o, name, help, v)
#define SV_RENDER_COUNTER_SECONDS(v, name, help) counter_seconds(&o, name, help, v)
#define SV_RENDER_GAUGE_INT(v, name, help) gauge(&o, name, help, (double)(v))
#define SV_RENDER_GAUGE_UINT(v, name, help) gauge(&o, name, help, (double)(v))
#define SV_RENDER_GAUGE_REAL(v, name, help) gauge(&o, name, help, v)
#define SV_RENDER_HISTOGRAM(v, name, help) histogram(&o, name, help, &(v))
#define SV_RENDER_COUNTER_BY_DROP(v, name, help) \
  by_label(&o, name, help, "reason", v, SV_DROP_REASON_COUNT, drop_name)
#define SV_RENDER_COUNTER_BY_REJECT(v, name, help) \
  by_label(&o, name, help, "reason", v, SV_REJECT_REASON_COUNT, reject_name)
#define SV_RENDER_COUNTER_BY_ADMIN(v, name, help) \
  by_label(&o, name, help, "result", v, 2, admin_result_name)
#define SV_RENDER_GAUGE_MATCH_STATE(v, name, help) one_hot(&o, name, help, v)
#define SV_RENDER_COUNTER_BY_TOKEN(v, name, help) \
  by_label(&o, name, help, "reason", (v) + 1, SV_AUTH_RESULT_COUNT - 1, token_reject_name)
#define SV_RENDER_COUNTER_BY_DATAGRAM(v, name, help) \
  by_label(&o, name, help, "reason", v, SV_DGRAM_DROP_COUNT, datagram_name)
#define SV_RENDER_COUNTER_BY_ADMIN_ACTION(v, name, help) \
  by_label(&o, name, help, "action", v, SV_ADMIN_ACTION_COUNT, admin_action_name)
#define SV_RENDER_COUNTER_BY_HTTP_CLOSE(v, name, help) \
  by_label(&o, name, help, "reason", v, SV_HTTP_CLOSED_COUNT, http_close_name)
#define SV_RENDER_COUNTER_BY_WS_REFUSAL(v, name, help) \
  by_label(&o, name, help, "status", v, SV_WS_REFUSED_COUNT, ws_refusal_name)
#define SV_RENDER_COUNTER_BY_WS_CLOSE(v, name, help) \
  by_label(&o, name, help, "code", v, SV_WS_CLOSE_KIND_COUNT, ws_close_name)
#include "sv_metrics.def"
#undef SV_METRIC
  return o.overflow ? -1 : (int)o.len;
}
