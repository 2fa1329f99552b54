// The WebSocket transport (PROTOCOL.md §1.2): a TCP listener on the libuv loop, the HTTP/1.1
// upgrade (sv_ws_handshake.h), then frames (sv_ws_stream.h). It knows nothing of sessions:
// the session layer is told of an opened connection, each binary message and the end of
// the connection through sv_ws_hooks, and sends and closes through the functions below
// (normally by way of sv_link.h).
//
// Connection life: accepted -> handshake (bounded: SV_WS_MAX_HEAD bytes, SV_WS_HANDSHAKE_MS)
// -> refused with an HTTP status, or 101 and open (a slot 0..max-1, on_open) -> closing:
// a close frame is sent or received, the output is flushed, the write side is shut down
// (FIN) and input is read and dropped until the peer's end of stream, so that the peer
// gets our close frame instead of a reset; SV_WS_DRAIN_MS bounds all of it.
//
// Output: every send is copied into the connection's output buffer and one uv_write is in
// flight at a time (libuv has no "writable" event to retry a partial write on). The bytes
// not yet written are the backlog (sv_ws_backlog): the snapshot sender skips a client over
// SV_WS_SNAPSHOT_BACKLOG, and a connection whose backlog would pass SV_WS_OUT_MAX is dropped.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "sv_log.h"
#include "sv_metrics.h"
#include "sv_ws_handshake.h"
#include "sv_ws_stream.h"

/// The request head must be complete this long after the TCP accept (408 otherwise).
#define SV_WS_HANDSHAKE_MS 5000
/// A closing connection is torn down this long after its close began, finished or not.
#define SV_WS_DRAIN_MS 2000
/// No snapshot is sent to a client while more than this is unsent (PROTOCOL.md §1.2).
#define SV_WS_SNAPSHOT_BACKLOG (64u * 1024u)
/// Unsent bytes the kernel may hold for a connection (TCP_NOTSENT_LOWAT), beyond those in
/// flight: the rest waits in the connection's own output, where the backlog is measured.
#define SV_WS_KERNEL_UNSENT (16 * 1024)
/// Unsent bytes a connection may hold: the largest message (a 16 MiB scene) and more.
#define SV_WS_OUT_MAX (24u * 1024u * 1024u)
/// Unread input over this stops reading from the socket until wslay has taken it.
#define SV_WS_IN_MAX (64u * 1024u)
/// Connections still in their handshake, all addresses together (the per-address limit
/// applies to them as well).
#define SV_WS_MAX_PENDING 256
/// Refusal and protocol-error log lines a second, at most (the rest are counted only).
#define SV_WS_LOG_PER_SECOND 20
/// --ws-origin values kept; each at most SV_WS_MAX_ORIGIN - 1 bytes.
#define SV_WS_MAX_ORIGINS 16

typedef struct sv_ws_conn sv_ws_conn;

typedef struct sv_ws_hooks {
  /// The upgrade is acceptable so far: may `ip` (network order) hold one more connection?
  /// (The session layer's per-address budget over both transports.) false = 503.
  bool (*admit)(void* user, uint32_t ip);
  /// A connection is open (101 sent); sv_ws_slot gives its slot.
  void (*on_open)(void* user, sv_ws_conn* c);
  /// One whole binary message (valid during the call).
  void (*on_message)(void* user, sv_ws_conn* c, const uint8_t* data, size_t len);
  /// The connection ended for the session: `code` is what an ENet DISCONNECT's data would
  /// be (0 = lost, a rejoin may follow; otherwise an arb_proto_reason). No hook follows.
  void (*on_closed)(void* user, sv_ws_conn* c, uint32_t code);
  void* user;
} sv_ws_hooks;

typedef struct sv_ws_limits {
  int per_address;   ///< connections (handshaking or open) one IPv4 address may hold
  int max;           ///< open connections in total (the session slots for WebSocket)
  int origin_count;  ///< 0 = any Origin is accepted
  char origins[SV_WS_MAX_ORIGINS][SV_WS_MAX_ORIGIN];
} sv_ws_limits;

typedef struct sv_ws {
  uv_loop_t* loop;
  uv_tcp_t listener;
  bool listening;
  bool closed_to_new;
  uint16_t port;  ///< the bound port (useful with port 0)
  sv_ws_limits limits;
  sv_ws_hooks hooks;
  sv_metrics* metrics;      ///< not owned
  sv_log* log;              ///< not owned
  sv_ws_conn* conns;        ///< every connection (a list: stop closes them all)
  sv_ws_conn** slots;       ///< limits.max entries: the open connection holding each slot
  int pending;              ///< connections in their handshake
  uint64_t log_window_ms;   ///< start of the second the log limit counts in
  int log_count;            ///< refusal/error lines logged in it
  uint64_t log_suppressed;  ///< lines not logged since the last one that was
} sv_ws;

/// Bind and listen. 0, or -1 with a message in err.
int sv_ws_init(sv_ws* w, uv_loop_t* loop, const char* bind, int port, const sv_ws_limits* limits,
               const sv_ws_hooks* hooks, sv_metrics* metrics, sv_log* log, char* err,
               size_t err_cap);
/// Refuse new connections from now on (503); open ones are unaffected.
void sv_ws_close_to_new(sv_ws* w);
/// Close the listener and every connection at once (the shutdown's last step); the
/// memory goes when the loop has run the closes. Safe to call twice.
void sv_ws_close(sv_ws* w);

/// Send one binary message (copied). 0, or -1 when the connection is closing, or its
/// backlog would pass SV_WS_OUT_MAX (the connection is then dropped: on_closed with 0).
int sv_ws_send(sv_ws_conn* c, const void* data, size_t len);
/// Begin the close handshake with this status code and reason text.
void sv_ws_close_conn(sv_ws_conn* c, uint16_t code, const char* reason);
/// The session is gone: no hooks any more. A close frame with `code` is sent if none was,
/// and the connection is torn down within SV_WS_DRAIN_MS.
void sv_ws_abandon(sv_ws_conn* c, uint16_t code, const char* reason);

/// 0 .. limits.max - 1 for an open connection.
int sv_ws_slot(const sv_ws_conn* c);
uint32_t sv_ws_ip(const sv_ws_conn* c);  ///< network order
/// The client's address as logs show it: "a.b.c.d:port", or "?" when unknown.
const char* sv_ws_addr(const sv_ws_conn* c);
/// Milliseconds since bytes last arrived on the connection.
uint64_t sv_ws_silent_ms(const sv_ws_conn* c);
/// Bytes sent but not yet written to the socket.
size_t sv_ws_backlog(const sv_ws_conn* c);
/// The kernel's smoothed TCP round trip (TCP_INFO), ms; 0 when unknown.
uint32_t sv_ws_rtt_ms(const sv_ws_conn* c);
/// Open connections of an address (network order), closing ones included.
int sv_ws_open_of(const sv_ws* w, uint32_t ip);
