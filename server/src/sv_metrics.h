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

/// Why a UDP datagram was dropped before ENet saw it (arbiter_datagrams_dropped_total).
typedef enum sv_datagram_drop {
  SV_DGRAM_GATE_MALFORMED = 0,  ///< a gate datagram that does not decode, or a reply kind
  SV_DGRAM_GATE_COOKIE,         ///< a gate response whose cookie does not verify (spoofed, expired)
  SV_DGRAM_RATE_LIMITED,        ///< over the per-address connection-attempt rate
  SV_DGRAM_NOT_ADMITTED,        ///< an ENet CONNECT from an address that has not passed the gate
  SV_DGRAM_ENET_MALFORMED,      ///< not a well-formed ENet datagram
  SV_DGRAM_ENET_FRAGMENT,       ///< fragment count/length beyond the packet limit
  SV_DGRAM_ENET_WINDOW,         ///< sequence number far ahead (would be buffered)
  SV_DGRAM_ENET_PEER,           ///< for a free peer slot or one of another address
  SV_DGRAM_STOPPING,            ///< a connection attempt while the server stops
  SV_DGRAM_DROP_COUNT
} sv_datagram_drop;

typedef struct sv_metrics {
  uint64_t ticks_total;
  uint64_t tick_overruns_total;     ///< ticks that took longer than the tick period
  uint64_t ticks_skipped_total;     ///< due ticks dropped by the catch-up limit
  sv_histogram tick_seconds;        ///< wall time of one tick (sim + snapshots)
  int64_t clients_connected;        ///< welcomed sessions
  int64_t peers_connected;          ///< ENet peers, including ones not yet welcomed
  uint64_t clients_joined_total;
  uint64_t clients_left_total;
  uint64_t clients_rejected_total;  ///< reject messages sent (full, version, ...)
  uint64_t clients_kicked_total;    ///< disconnected by the server (strikes, hello timeout)
  uint64_t clients_timed_out_total; ///< dropped after --peer-timeout-ms of silence
  uint64_t rejoins_total;           ///< clients that got their avatar back with a rejoin token
  int64_t rejoins_pending;          ///< avatars waiting for their lost client
  uint64_t bytes_in_total, bytes_out_total;      ///< UDP payload bytes, as ENet counts them
  uint64_t packets_in_total, packets_out_total;  ///< application packets (ENet receive events / sends)
  uint64_t snapshots_sent_total;
  sv_histogram snapshot_bytes;      ///< encoded snapshot payload size
  uint64_t inputs_applied_total;    ///< input messages accepted into a client's slot
  uint64_t inputs_dropped_total[SV_DROP_REASON_COUNT];
  uint64_t messages_rejected_total[SV_REJECT_REASON_COUNT];
  uint64_t tokens_accepted_total;   ///< hellos with a valid connect token
  uint64_t tokens_rejected_total[8];  ///< by sv_auth_result (index 1..6), see sv_auth.h
  uint64_t gate_challenges_total;   ///< challenges sent (valid gate requests)
  uint64_t gate_admitted_total;     ///< addresses that proved themselves
  uint64_t datagrams_dropped_total[SV_DGRAM_DROP_COUNT];
  int64_t half_open_peers;          ///< ENet peers whose handshake has not completed
  uint64_t half_open_expired_total; ///< half-open peers reset after the half-open timeout
  uint64_t recording_bytes_total;   ///< bytes appended to the replay log
  uint64_t recording_errors_total;
  uint64_t http_requests_total;
  int match_state;                  ///< sv_match_state
  uint64_t agones_calls_total;      ///< Agones SDK calls answered (any status) or given up
  uint64_t agones_errors_total;     ///< Agones SDK calls that failed for good or were refused
  uint64_t admin_requests_total[2]; ///< operator requests: [0] refused (token), [1] accepted
  int64_t http_connections;               ///< open HTTP connections
  uint64_t http_refused_per_address_total;  ///< closed at accept: the address is at its cap
  uint64_t http_evicted_total;            ///< waiting connections closed to make room for a new one
  uint64_t http_refused_full_total;       ///< new connections refused: no room, own address the busiest
  uint64_t http_timed_out_total;          ///< closed by the header or idle timeout
  double tick_rate_hz;              ///< configured
  uint64_t tick;                    ///< current simulation tick
  uint64_t start_unix_seconds;
} sv_metrics;

void sv_metrics_init(sv_metrics* m);

/// Render everything as Prometheus text into buf. Returns the length written (without NUL)
/// or -1 when cap is too small (16 KiB is plenty).
int sv_metrics_render(const sv_metrics* m, char* buf, size_t cap);

const char* sv_reject_reason_name(sv_reject_reason r);
const char* sv_drop_reason_name(sv_drop_reason r);
const char* sv_datagram_drop_name(sv_datagram_drop r);
