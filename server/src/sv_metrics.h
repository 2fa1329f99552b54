// Server metrics: plain counters, gauges and fixed-bucket histograms in one struct owned
// by the server, rendered as Prometheus text (exposition format 0.0.4) for GET /metrics.
// Updating a metric is a field increment: nothing here allocates or locks.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "sv_auth.h"

#define SV_HIST_MAX_BUCKETS 24

typedef struct sv_histogram {
  const double* bounds;                      ///< upper bounds, ascending, not owned (static tables)
  int bucket_count;                          ///< number of finite bounds (<= SV_HIST_MAX_BUCKETS)
  uint64_t counts[SV_HIST_MAX_BUCKETS + 1];  ///< per bucket (not cumulative); last = +Inf
  double sum;
  uint64_t count;
} sv_histogram;

void sv_histogram_init(sv_histogram* h, const double* bounds, int bucket_count);
void sv_histogram_observe(sv_histogram* h, double value);

/// Why a client message was rejected (label values of arbiter_messages_rejected_total).
typedef enum sv_reject_reason {
  SV_REJECT_DECODE = 0,  ///< bytes that do not decode as a protocol message
  SV_REJECT_UNEXPECTED,  ///< a valid message that is not allowed in the session's state
  SV_REJECT_NONFINITE,   ///< NaN or infinite values in an input
  SV_REJECT_VERSION,     ///< hello with an unsupported protocol version
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
  SV_DGRAM_RATE_LIMITED,        ///< a verified gate response over its address's connection rate
  SV_DGRAM_NOT_ADMITTED,        ///< an ENet CONNECT from an address that has not passed the gate
  SV_DGRAM_ENET_MALFORMED,      ///< not a well-formed ENet datagram
  SV_DGRAM_ENET_FRAGMENT,       ///< fragment count/length beyond the packet limit
  SV_DGRAM_ENET_WINDOW,         ///< sequence number far ahead (would be buffered)
  SV_DGRAM_ENET_PEER,           ///< for a free peer slot or one of another address
  SV_DGRAM_STOPPING,            ///< a connection attempt while the server stops
  SV_DGRAM_BANNED,              ///< from an address the operator banned (POST /admin/ban)
  SV_DGRAM_TABLE_FULL,          ///< a CONNECT to a full table that no busier address makes room for
  SV_DGRAM_FRAGMENT_BUDGET,     ///< a fragment starting a packet over the peer's or server's budget
  SV_DGRAM_CHALLENGE_BUDGET,    ///< a gate request beyond the server-wide challenge budget
  SV_DGRAM_ADDRESS_FULL,  ///< a CONNECT from an address whose ENet and WebSocket connections fill
                          ///< its budget
  SV_DGRAM_DROP_COUNT
} sv_datagram_drop;

/// What an authorized operator request did (arbiter_admin_actions_total).
typedef enum sv_admin_action {
  SV_ADMIN_SESSIONS = 0,  ///< GET /admin/sessions
  SV_ADMIN_KICK,          ///< POST /admin/kick/<client>
  SV_ADMIN_BAN,           ///< POST /admin/ban/<ip>/<seconds>
  SV_ADMIN_DRAIN,         ///< POST /admin/drain
  SV_ADMIN_ACTION_COUNT
} sv_admin_action;

/// Why the HTTP server closed a connection itself (arbiter_http_connections_closed_total).
typedef enum sv_http_closed {
  SV_HTTP_CLOSED_PER_ADDRESS = 0,  ///< at accept: the address is at its cap
  SV_HTTP_CLOSED_EVICTED,          ///< a waiting connection closed to make room for a new one
  SV_HTTP_CLOSED_FULL,             ///< refused: no room, its own address the busiest
  SV_HTTP_CLOSED_TIMEOUT,          ///< the header or idle timeout
  SV_HTTP_CLOSED_COUNT
} sv_http_closed;

/// Why a WebSocket upgrade was refused: the HTTP status it got (arbiter_ws_refused_total).
typedef enum sv_ws_refusal {
  SV_WS_REFUSED_400 = 0,  ///< not a valid WebSocket upgrade request
  SV_WS_REFUSED_403,      ///< Origin not in the --ws-origin list
  SV_WS_REFUSED_408,      ///< request head not complete within the handshake timeout
  SV_WS_REFUSED_426,      ///< Sec-WebSocket-Version other than 13
  SV_WS_REFUSED_431,      ///< request head over 8192 bytes
  SV_WS_REFUSED_503,      ///< a connection limit (address, total, stopping)
  SV_WS_REFUSED_COUNT
} sv_ws_refusal;

/// The close frame a WebSocket connection ended with (arbiter_ws_closes_total).
typedef enum sv_ws_close_kind {
  SV_WS_CLOSE_1000 = 0,  ///< the client closed; the server echoed
  SV_WS_CLOSE_1002,      ///< a frame that breaks RFC 6455
  SV_WS_CLOSE_1003,      ///< a text frame
  SV_WS_CLOSE_1007,      ///< invalid UTF-8 in a close reason
  SV_WS_CLOSE_1009,      ///< a client message over 4096 bytes
  SV_WS_CLOSE_SESSION,   ///< 4000 + a reason: the session ended (kick, reject, shutdown, ...)
  SV_WS_CLOSE_OTHER,     ///< any other code echoed back to the client
  SV_WS_CLOSE_NONE,      ///< no close frame was exchanged: reset, end of stream, or dropped
  SV_WS_CLOSE_KIND_COUNT
} sv_ws_close_kind;

// One member per row of sv_metrics.def.
#define SV_FIELD_COUNTER(field) uint64_t field;
#define SV_FIELD_COUNTER_SECONDS(field) uint64_t field;
#define SV_FIELD_GAUGE_INT(field) int64_t field;
#define SV_FIELD_GAUGE_UINT(field) uint64_t field;
#define SV_FIELD_GAUGE_REAL(field) double field;
#define SV_FIELD_HISTOGRAM(field) sv_histogram field;
#define SV_FIELD_COUNTER_BY_DROP(field) uint64_t field[SV_DROP_REASON_COUNT];
#define SV_FIELD_COUNTER_BY_REJECT(field) uint64_t field[SV_REJECT_REASON_COUNT];
#define SV_FIELD_COUNTER_BY_ADMIN(field)                                                  \
  uint64_t field[2];                                 /* [0] refused (token), [1] accepted \
                                                      */
#define SV_FIELD_GAUGE_MATCH_STATE(field) int field; /* sv_match_state */
#define SV_FIELD_COUNTER_BY_TOKEN(field) \
  uint64_t field[SV_AUTH_RESULT_COUNT]; /* by sv_auth_result */
#define SV_FIELD_COUNTER_BY_DATAGRAM(field) uint64_t field[SV_DGRAM_DROP_COUNT];
#define SV_FIELD_COUNTER_BY_ADMIN_ACTION(field) uint64_t field[SV_ADMIN_ACTION_COUNT];
#define SV_FIELD_COUNTER_BY_HTTP_CLOSE(field) uint64_t field[SV_HTTP_CLOSED_COUNT];
#define SV_FIELD_COUNTER_BY_WS_REFUSAL(field) uint64_t field[SV_WS_REFUSED_COUNT];
#define SV_FIELD_COUNTER_BY_WS_CLOSE(field) uint64_t field[SV_WS_CLOSE_KIND_COUNT];

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
const char* sv_datagram_drop_name(sv_datagram_drop r);
const char* sv_http_closed_name(sv_http_closed r);
const char* sv_ws_refusal_name(sv_ws_refusal r);
const char* sv_ws_close_kind_name(sv_ws_close_kind k);
/// The counter a close frame's status code (0 = none) belongs to.
sv_ws_close_kind sv_ws_close_kind_of(unsigned code);
