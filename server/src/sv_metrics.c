// Prometheus text rendering of the server metrics (names listed in docs/SERVER.md).
#include "sv_metrics.h"

#include "sv_match.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Tick duration: 50 µs .. 100 ms; a 60 Hz tick has 16.7 ms to spend.
static const double tick_bounds[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004,
                                     0.008,   0.0167, 0.033,   0.05,   0.1};
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
  sv_histogram_init(&m->tick_seconds, tick_bounds, (int)(sizeof tick_bounds / sizeof tick_bounds[0]));
  sv_histogram_init(&m->snapshot_bytes, snapshot_bounds,
                    (int)(sizeof snapshot_bounds / sizeof snapshot_bounds[0]));
}

const char* sv_reject_reason_name(sv_reject_reason r) {
  static const char* const names[] = {"decode", "unexpected", "nonfinite", "version"};
  return (unsigned)r < SV_REJECT_REASON_COUNT ? names[r] : "unknown";
}

const char* sv_drop_reason_name(sv_drop_reason r) {
  static const char* const names[] = {"rate_packets", "rate_bytes", "stale"};
  return (unsigned)r < SV_DROP_REASON_COUNT ? names[r] : "unknown";
}

const char* sv_datagram_drop_name(sv_datagram_drop r) {
  static const char* const names[] = {"gate_malformed", "gate_cookie", "rate_limited", "not_admitted", "enet_malformed",
                                      "enet_fragment",  "enet_window", "enet_peer",    "stopping"};
  return (unsigned)r < SV_DGRAM_DROP_COUNT ? names[r] : "unknown";
}

typedef struct out_buf {
  char* p;
  size_t len, cap;
  int overflow;
} out_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void outf(out_buf* o, const char* fmt, ...) {
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

int sv_metrics_render(const sv_metrics* m, char* buf, size_t cap) {
  out_buf o = {buf, 0, cap, 0};
  counter(&o, "arbiter_ticks_total", "Simulation ticks run.", m->ticks_total);
  gauge(&o, "arbiter_tick", "Current simulation tick.", (double)m->tick);
  gauge(&o, "arbiter_tick_rate_hz", "Configured tick rate.", m->tick_rate_hz);
  histogram(&o, "arbiter_tick_duration_seconds", "Wall time of one tick (simulation, recording, snapshots).",
            &m->tick_seconds);
  counter(&o, "arbiter_tick_overruns_total", "Ticks that took longer than the tick period.",
          m->tick_overruns_total);
  counter(&o, "arbiter_ticks_skipped_total", "Due ticks dropped by the catch-up limit (lag).",
          m->ticks_skipped_total);
  gauge(&o, "arbiter_clients_connected", "Clients in a session (welcomed).", (double)m->clients_connected);
  gauge(&o, "arbiter_peers_connected", "ENet peers connected, including handshakes in progress.",
        (double)m->peers_connected);
  counter(&o, "arbiter_clients_joined_total", "Clients welcomed.", m->clients_joined_total);
  counter(&o, "arbiter_clients_left_total", "Sessions ended (disconnect, timeout, kick).", m->clients_left_total);
  counter(&o, "arbiter_clients_rejected_total", "Connections refused with a reject message.",
          m->clients_rejected_total);
  counter(&o, "arbiter_clients_kicked_total", "Clients disconnected by the server (strikes, hello timeout).",
          m->clients_kicked_total);
  counter(&o, "arbiter_clients_timed_out_total", "Clients dropped after --peer-timeout-ms without a packet.",
          m->clients_timed_out_total);
  counter(&o, "arbiter_rejoins_total", "Clients that got their avatar back with a rejoin token.", m->rejoins_total);
  gauge(&o, "arbiter_rejoins_pending", "Avatars kept for a lost client within the rejoin window.",
        (double)m->rejoins_pending);
  counter(&o, "arbiter_bytes_in_total", "Application payload bytes received.", m->bytes_in_total);
  counter(&o, "arbiter_bytes_out_total", "Application payload bytes sent.", m->bytes_out_total);
  counter(&o, "arbiter_packets_in_total", "Application packets received.", m->packets_in_total);
  counter(&o, "arbiter_packets_out_total", "Application packets sent.", m->packets_out_total);
  counter(&o, "arbiter_snapshots_sent_total", "Snapshot packets sent.", m->snapshots_sent_total);
  histogram(&o, "arbiter_snapshot_bytes", "Encoded snapshot payload size in bytes.", &m->snapshot_bytes);
  counter(&o, "arbiter_inputs_applied_total", "Input messages accepted.", m->inputs_applied_total);
  outf(&o, "# HELP arbiter_inputs_dropped_total Input messages dropped, by reason.\n"
           "# TYPE arbiter_inputs_dropped_total counter\n");
  for (int i = 0; i < SV_DROP_REASON_COUNT; ++i)
    outf(&o, "arbiter_inputs_dropped_total{reason=\"%s\"} %" PRIu64 "\n", sv_drop_reason_name((sv_drop_reason)i),
         m->inputs_dropped_total[i]);
  outf(&o, "# HELP arbiter_messages_rejected_total Client messages rejected, by reason.\n"
           "# TYPE arbiter_messages_rejected_total counter\n");
  for (int i = 0; i < SV_REJECT_REASON_COUNT; ++i)
    outf(&o, "arbiter_messages_rejected_total{reason=\"%s\"} %" PRIu64 "\n",
         sv_reject_reason_name((sv_reject_reason)i), m->messages_rejected_total[i]);
  counter(&o, "arbiter_tokens_accepted_total", "Hellos with a valid connect token.", m->tokens_accepted_total);
  static const char* const token_reasons[] = {"", "missing", "invalid", "expired", "wrong_server", "reused", "busy"};
  outf(&o, "# HELP arbiter_tokens_rejected_total Hellos rejected with bad_token, by reason.\n"
           "# TYPE arbiter_tokens_rejected_total counter\n");
  for (int i = 1; i < 7; ++i)
    outf(&o, "arbiter_tokens_rejected_total{reason=\"%s\"} %" PRIu64 "\n", token_reasons[i], m->tokens_rejected_total[i]);
  counter(&o, "arbiter_gate_challenges_total", "Connection-gate challenges sent.", m->gate_challenges_total);
  counter(&o, "arbiter_gate_admitted_total", "Addresses admitted by the connection gate.", m->gate_admitted_total);
  outf(&o, "# HELP arbiter_datagrams_dropped_total UDP datagrams dropped before ENet, by reason.\n"
           "# TYPE arbiter_datagrams_dropped_total counter\n");
  for (int i = 0; i < SV_DGRAM_DROP_COUNT; ++i)
    outf(&o, "arbiter_datagrams_dropped_total{reason=\"%s\"} %" PRIu64 "\n",
         sv_datagram_drop_name((sv_datagram_drop)i), m->datagrams_dropped_total[i]);
  gauge(&o, "arbiter_half_open_peers", "ENet peers whose connection handshake has not completed.",
        (double)m->half_open_peers);
  counter(&o, "arbiter_half_open_expired_total", "Half-open ENet peers dropped by the half-open timeout.",
          m->half_open_expired_total);
  counter(&o, "arbiter_recording_bytes_total", "Bytes appended to the replay log.", m->recording_bytes_total);
  counter(&o, "arbiter_recording_errors_total", "Replay log write errors.", m->recording_errors_total);
  counter(&o, "arbiter_http_requests_total", "HTTP requests answered.", m->http_requests_total);
  outf(&o, "# HELP arbiter_match_state Match lifecycle state: 1 for the current one.\n"
           "# TYPE arbiter_match_state gauge\n");
  for (int i = 0; i < SV_MATCH_STATE_COUNT; ++i)
    outf(&o, "arbiter_match_state{state=\"%s\"} %d\n", sv_match_state_name((sv_match_state)i), m->match_state == i);
  counter(&o, "arbiter_agones_calls_total", "Agones SDK calls made.", m->agones_calls_total);
  counter(&o, "arbiter_agones_errors_total", "Agones SDK calls that failed or were refused.", m->agones_errors_total);
  outf(&o, "# HELP arbiter_admin_requests_total Operator (bearer token) requests, by result.\n"
           "# TYPE arbiter_admin_requests_total counter\n"
           "arbiter_admin_requests_total{result=\"refused\"} %" PRIu64 "\n"
           "arbiter_admin_requests_total{result=\"accepted\"} %" PRIu64 "\n",
       m->admin_requests_total[0], m->admin_requests_total[1]);
  gauge(&o, "arbiter_http_connections", "Open HTTP connections.", (double)m->http_connections);
  outf(&o, "# HELP arbiter_http_connections_closed_total HTTP connections closed by a limit, by reason.\n"
           "# TYPE arbiter_http_connections_closed_total counter\n");
  outf(&o, "arbiter_http_connections_closed_total{reason=\"per_address\"} %" PRIu64 "\n",
       m->http_refused_per_address_total);
  outf(&o, "arbiter_http_connections_closed_total{reason=\"evicted\"} %" PRIu64 "\n", m->http_evicted_total);
  outf(&o, "arbiter_http_connections_closed_total{reason=\"full\"} %" PRIu64 "\n", m->http_refused_full_total);
  outf(&o, "arbiter_http_connections_closed_total{reason=\"timeout\"} %" PRIu64 "\n", m->http_timed_out_total);
  gauge(&o, "arbiter_start_time_seconds", "Unix time the server started.", (double)m->start_unix_seconds);
  return o.overflow ? -1 : (int)o.len;
}
