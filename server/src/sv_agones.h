// Client of the Agones SDK server (the sidecar in a game server's pod), over its REST
// gateway on http://localhost:$AGONES_SDK_HTTP_PORT (Agones' "REST Game Server Client API"):
//
//   POST /ready, /health, /allocate, /shutdown           body {}
//   PUT  /metadata/label, /metadata/annotation           {"key": K, "value": V}
//   GET  /gameserver, GET /watch/gameserver              GameServer JSON; the watch streams
//                                                        one {"result": GameServer} per line
//   POST /alpha/player/connect, /alpha/player/disconnect {"playerID": ID}  (player tracking)
//
// Calls go out one at a time, in the order they were made, so a player's connect always
// precedes its disconnect. A call that cannot reach the sidecar (it may start after the
// game server) is retried; an HTTP error is logged and counted. The watch runs on its own
// connection and reconnects when it drops. Health pings are not timer driven: the server
// calls sv_agones_health from its tick, so a tick that stops stops the pings and Agones
// marks the GameServer Unhealthy.
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "sv_http_client.h"
#include "sv_log.h"
#include "sv_metrics.h"

#define SV_AGONES_QUEUE 256          ///< calls waiting to be sent
#define SV_AGONES_MAX_ANNOTATIONS 8  ///< arbiter.dev/ annotations kept from a GameServer

/// The parts of a GameServer (as the SDK serialises it) the server acts on.
typedef struct sv_agones_gameserver {
  char name[64];
  char state[32];  ///< status.state: "Scheduled", "Ready", "Allocated", "Shutdown", ...
  int annotation_count;
  struct {
    char key[64];  ///< without the "arbiter.dev/" prefix
    char value[256];
  } annotations[SV_AGONES_MAX_ANNOTATIONS];
} sv_agones_gameserver;

/// Parse one GameServer JSON (the /gameserver body) or one watch line ({"result": ...}).
/// Returns 0, or -1 with a reason in err (untrusted input: bounded, never trusted).
int sv_agones_parse_gameserver(const char* json, size_t len, sv_agones_gameserver* out, char* err,
                               size_t err_cap);

/// Called for the current GameServer and for every change the watch reports.
typedef void sv_agones_gameserver_fn(void* user, const sv_agones_gameserver* gs);

typedef struct sv_agones_call {
  char method[8];
  char path[48];
  char body[160];
  int attempts;
} sv_agones_call;

typedef struct sv_agones {
  uv_loop_t* loop;
  int port;  ///< SDK server HTTP port on 127.0.0.1
  uint64_t health_period_ns;
  sv_log* log;          ///< not owned
  sv_metrics* metrics;  ///< not owned
  sv_agones_gameserver_fn* on_gameserver;
  void* user;

  sv_agones_call queue[SV_AGONES_QUEUE];  ///< ring
  int head, count;
  sv_httpc* in_flight;  ///< the call at queue[head], if sent
  bool health_queued;   ///< one ping at a time
  uint64_t last_health_ns;
  uv_timer_t retry_timer;  ///< back-off before resending a call that could not connect
  bool retry_pending;

  sv_httpc* watch;         ///< the open watch, NULL between attempts
  bool watching;           ///< keep a watch open
  uv_timer_t watch_timer;  ///< reconnect delay

  bool shutting_down;  ///< /shutdown queued: close once the queue is empty
  bool closed;
  uv_timer_t deadline_timer;  ///< bounds how long the shutdown may hold the loop
} sv_agones;

/// Prepare the client (no traffic yet). `port` is AGONES_SDK_HTTP_PORT.
int sv_agones_init(sv_agones* a, uv_loop_t* loop, int port, uint32_t health_ms, sv_log* log,
                   sv_metrics* metrics, sv_agones_gameserver_fn* on_gameserver, void* user);
/// The server is ready: POST /ready, set the labels, read the GameServer and start watching it.
void sv_agones_ready(sv_agones* a, const char* scene, const char* build);
/// PUT /metadata/annotation: Agones stores it as agones.dev/sdk-<key> on the GameServer.
/// Quotes, backslashes and control characters in the value are JSON-escaped; a value that
/// does not fit a call (about 100 bytes) is not sent.
void sv_agones_set_annotation(sv_agones* a, const char* key, const char* value);
/// From the tick: POST /health when the last ping is health_ms old.
void sv_agones_health(sv_agones* a, uint64_t now_ns);
/// POST /ready again: a GameServer that was Allocated for a match that did not happen here
/// (a moved-in match dropped) is Ready for another.
void sv_agones_ready_again(sv_agones* a);
/// POST /allocate: mark the GameServer Allocated ourselves (a player joined without a
/// GameServerAllocation, so a scale-down must not delete this server).
void sv_agones_allocate(sv_agones* a);
/// Player tracking (alpha): the player's id is its client id.
void sv_agones_player(sv_agones* a, bool connected, uint32_t client_id);
/// POST /shutdown after the calls already queued, then close every handle (at most
/// `deadline_ms` later, whatever the sidecar does).
void sv_agones_shutdown(sv_agones* a, uint32_t deadline_ms);

/// Turn free text into a valid Kubernetes label value: at most 63 characters from
/// [A-Za-z0-9._-], starting and ending alphanumeric ("" stays ""). out has 64 bytes.
void sv_agones_label_value(const char* in, char out[64]);
