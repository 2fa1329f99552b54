// A small protocol client for the server's integration tests and bench/server, written
// directly on ENet and the protocol library (the real client library is libarbiter_client).
// It connects, says hello, keeps the snapshot views it assembled (delta against its own
// baselines, exactly like a real client), sends inputs with redundancy and acks, and can
// also send arbitrary bytes for the malformed-traffic tests.
//
// Also: helpers to start an arbiter-server process, find its ports in its log, fetch
// HTTP pages and read whole files. Everything is bounded in time.
#pragma once

#include <arbiter/protocol.h>
#include <arbiter/snapshot.h>
#include <enet/enet.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tc_ws.h"

#define TC_MAX_ENTITIES 512
#define TC_VIEW_RING 16
#define TC_MAX_STATICS 512

typedef enum tc_state {
  TC_CONNECTING = 0,
  TC_CONNECTED,  ///< ENet connected, hello sent
  TC_WELCOMED,
  TC_REJECTED,      ///< got a reject (see reject)
  TC_DISCONNECTED,  ///< ENet disconnect (see disconnect_event when the server said why)
} tc_state;

typedef struct tc_client {
  ENetHost* host;
  ENetPeer* peer;
  tc_state state;
  char name[ARB_PROTO_MAX_NAME + 1];
  uint32_t hello_version;  ///< protocol version put in the hello
  char token[ARB_PROTO_MAX_TOKEN +
             1];         ///< connect token for the hello ("" = none); set before tc_start
  uint8_t avatar_kind;   ///< the hello's avatar kind (0 = the scene's default); set before tc_start
  uint32_t hello_flags;  ///< the hello's flags (ARB_PROTO_HELLO_*); set before tc_start
  int scenes_received;   ///< `scene` messages that decoded
  arb_proto_welcome welcome;
  arb_proto_static_body statics[TC_MAX_STATICS];
  arb_proto_reject reject;
  arb_proto_event disconnect_event;  ///< last DISCONNECT event, kind 0 if none
  arb_proto_event last_notice;       ///< last NOTICE event, kind 0 if none
  arb_proto_event last_left;         ///< last LEFT event (another player), kind 0 if none
  int events_received;
  int left_events;                            ///< events "left" (other clients' avatars gone)
  char rejoin_token[ARB_PROTO_MAX_TEXT + 1];  ///< from the last rejoin event, "" if none

  // Snapshot assembly: complete views by tick, plus the one being assembled.
  // Views hold origins (PROTOCOL.md §6.2): evaluate at the view's tick with its header.
  arb_snapshot_entity ring_items[TC_VIEW_RING][TC_MAX_ENTITIES];
  arb_snapshot_set ring[TC_VIEW_RING];
  arb_snapshot_header ring_h[TC_VIEW_RING];
  uint32_t ring_tick[TC_VIEW_RING];
  int ring_next;
  arb_snapshot_entity asm_items[TC_MAX_ENTITIES];
  arb_snapshot_set assembling;
  arb_snapshot_header asm_h;
  uint32_t asm_tick, asm_baseline;
  int asm_parts_needed, asm_parts_got;
  uint8_t asm_got[ARB_PROTO_MAX_PARTS];
  uint32_t latest_tick;           ///< newest complete snapshot
  int latest_slot;                ///< ring slot of latest_tick, -1 none
  uint32_t last_input_seq_acked;  ///< from the newest snapshot
  uint64_t snapshots_complete;    ///< complete snapshots assembled (ticks)
  uint64_t snapshot_packets;      ///< snapshot packets received
  uint64_t snapshot_bytes;
  uint64_t snapshot_errors;  ///< parts that did not decode or apply (missing baseline)
  uint64_t bytes_received;

  // WebSocket mode (tc_start_ws): the same session over PROTOCOL.md §1.2 instead of ENet.
  bool ws;                 ///< this client uses WebSocket
  int ws_fd;               ///< its TCP socket, -1 once closed
  tc_ws_reader ws_reader;  ///< messages from the server
  int ws_close_code;       ///< the server's close code, 0 = none yet
  int ws_rcvbuf;  ///< receive buffer to connect with (0 = the kernel's); set before tc_start_ws

  uint32_t input_seq;                                 ///< last seq sent
  uint32_t packet_seq;                                ///< last input packet sent
  arb_proto_input_cmd history[ARB_PROTO_MAX_INPUTS];  ///< newest first
  int history_count;
} tc_client;

/// Allocate a client (large struct). Free with tc_destroy.
tc_client* tc_create(void);
void tc_destroy(tc_client* c);
/// Connect to 127.0.0.1:port and send hello (c->avatar_kind) with this protocol version
/// (0 = send no hello at all). Does not wait for the welcome.
int tc_start(tc_client* c, uint16_t port, const char* name, uint32_t version);
/// Like tc_start, but from a local IPv4 address (any of 127.0.0.0/8 on loopback), so a
/// test can play several "machines".
int tc_start_from(tc_client* c, const char* local_ip, uint16_t port, const char* name,
                  uint32_t version);
/// Connect over WebSocket to 127.0.0.1:ws_port from local_ip (NULL = any), complete the
/// upgrade and send hello (c->avatar_kind) with this version (0 = none). Then tc_service,
/// tc_send_input, tc_send_raw (channel ignored) and tc_close work as over ENet.
int tc_start_ws(tc_client* c, const char* local_ip, uint16_t ws_port, const char* name,
                uint32_t version);
/// Run the server's connection gate (PROTOCOL.md §1.1) on host's socket towards
/// 127.0.0.1:port; bounded by timeout_ms. 0 when admitted, -1 otherwise.
int tc_gate(ENetHost* host, uint16_t port, int timeout_ms);
/// Service the client's ENet host once with the given timeout, handling all events.
void tc_service(tc_client* c, int timeout_ms);
/// Service every client in turn for duration_ms (1 ms sleeps between rounds).
void tc_pump(tc_client** cs, int n, int duration_ms);
/// Pump until every client left TC_CONNECTING/TC_CONNECTED, or timeout. Returns how many welcomed.
int tc_wait_settled(tc_client** cs, int n, int timeout_ms);
/// Send one input with these controls (quantized by the protocol), the last few as
/// redundancy, acking the newest complete snapshot.
int tc_send_input(tc_client* c, const arb_controls* controls);
/// Send raw bytes (for malformed traffic).
int tc_send_raw(tc_client* c, uint8_t channel, const void* data, size_t len, bool reliable);
/// Entity state in the newest complete snapshot, evaluated at its tick; false when absent.
bool tc_entity(const tc_client* c, uint32_t entity_id, arb_snapshot_state* out);
/// Disconnect politely (bounded wait) and close the host.
void tc_close(tc_client* c);

// ---- process helpers -----------------------------------------------------------------

typedef struct tc_server {
  pid_t pid;
  char log_path[256];  ///< the server's stderr
  int port, http_port;
  int ws_port;  ///< the WebSocket port (server_started's ws_port), 0 = off
} tc_server;

/// Start `exe` with --port 0 --http-port -1 --log-format json plus extra args (NULL
/// terminated), stderr to a temp file; waits (<= 10 s) for the server_started line.
int tc_server_start(tc_server* s, const char* exe, const char* const* extra_args);
/// Send sig, wait up to timeout_ms; returns the exit status (or 128+signal, -1 on timeout
/// after which the process is killed).
int tc_server_stop(tc_server* s, int sig, int timeout_ms);
/// GET path from 127.0.0.1:port; returns the status code, body (malloc'd, NUL-terminated) in *body.
int tc_http_get(int port, const char* path, char** body);
/// Send raw bytes on a TCP connection and read the answer until close or timeout_ms.
int tc_http_raw(int port, const char* request, size_t len, int timeout_ms, char* out, size_t cap);
/// Read a whole file (malloc'd); returns length or -1.
long tc_read_file(const char* path, char** data);
/// Value of `"key":"...` or `"key":NUMBER` in the last log line that has "event":"<event>".
bool tc_log_find(const char* log_path, const char* event, const char* key, char* out, size_t cap);
/// Value of a Prometheus sample line `name value` (name may include labels); NaN if absent.
double tc_metric(const char* text, const char* name);
uint64_t tc_now_ms(void);
void tc_sleep_ms(int ms);
