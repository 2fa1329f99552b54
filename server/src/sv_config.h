// Server configuration: defaults, command-line flags and ARBITER_* environment variables.
// Precedence: flag > environment variable > default. Every option is listed once in the
// table in sv_config.c, which also generates --help.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sv_log.h"

/// The largest --ws-max: with 4095 ENet peers, GET /admin/sessions of a server this large
/// still fits its 4 MiB reply (test_admin_sessions_of_the_largest_server).
#define SV_CONFIG_WS_MAX 3500

/// --view-radius auto: every client sees the whole world of a scene of at most
/// SV_VIEW_AUTO_BODIES bodies, and SV_VIEW_AUTO_RADIUS meters around its avatar (plus its
/// camera box) in a larger one. A client's snapshot costs the server about what changes in
/// its view: in a 10 000-body world with a few thousand bodies moving, whole-world views
/// for a few hundred clients take several times a tick's budget (docs/BENCHMARKS.md,
/// "Capacity").
#define SV_VIEW_RADIUS_AUTO (-1.0f)
#define SV_VIEW_AUTO_BODIES 2000
#define SV_VIEW_AUTO_RADIUS 30.0f

/// The view radius a server with --view-radius `configured` uses for a scene of `bodies`
/// bodies.
static inline float sv_view_radius_for(float configured, int bodies) {
  if (configured >= 0.0f) return configured;
  return bodies > SV_VIEW_AUTO_BODIES ? SV_VIEW_AUTO_RADIUS : 0.0f;
}

typedef struct sv_config {
  char bind[64];    ///< IPv4 address to bind (ENet 1.3 is IPv4 only); default 0.0.0.0
  int port;         ///< UDP port, 0 = any free port (logged); default 7777
  int max_clients;  ///< sessions; 1..1024 (ARB_PROTO_MAX_CLIENTS: joins per replay tick); default
                    ///< 64
  int max_spectators;    ///< sessions watching without an avatar (not players); 0..1024; default 32
  int tick_rate;         ///< Hz; 0 = the scene's tick rate (default scene: 60)
  int physics_threads;   ///< threads stepping the world (1..64); default 1
  int snapshot_threads;  ///< worker threads building snapshots (0..64); default 0
  int snapshot_rate;     ///< Hz, divides into the tick rate as every K ticks; default 30
  char scene[1024];      ///< scene file; "" = built-in default scene
  char record[1024];     ///< replay log file or directory; "" = no recording
  int http_port;         ///< TCP port for /healthz and /metrics; 0 = off; -1 = any free port
  char http_bind[64];    ///< address for the HTTP listener; default 127.0.0.1
  float view_radius;     ///< meters; 0 = everything; SV_VIEW_RADIUS_AUTO (default) until
                         ///< the scene is loaded, then what sv_view_radius_for chose
  int client_kbps;       ///< snapshot kbit/s ceiling per client; default 1000
  sv_log_level log_level;  ///< default info
  sv_log_format log_format;
  uint64_t seed;          ///< game seed (recorded); default 1
  int hello_timeout_ms;   ///< connect -> hello deadline; default 5000 (a lossy link retransmits the
                          ///< hello)
  int peer_timeout_ms;    ///< ENet timeout for silent peers; default 3000
  int input_rate_limit;   ///< input packets per second per client; default 120
  int byte_rate_limit;    ///< bytes per second per client; default 16384
  int strike_limit;       ///< malformed messages before a kick; default 10
  int max_catchup_ticks;  ///< ticks run per wake before lag is dropped; default 5
  uint64_t record_max_bytes;  ///< start a new replay-log file before one passes this; 0 = no limit
  int checkpoint_every;       ///< ticks between replay-log checkpoints; 0 = none; default 600
  int match_max_duration_s;   ///< seconds from allocation to the end of the match; 0 = no limit
  int exit_when_empty_s;      ///< end an allocated match empty this long; 0 = never
  int drain_timeout_s;        ///< a drain ends the match after this even with players; default 60
  bool agones;                ///< talk to the Agones SDK server
  int agones_sdk_port;        ///< its REST port on localhost (AGONES_SDK_HTTP_PORT); default 9358
  int agones_health_ms;       ///< health ping period, from the tick; default 2000
  char admin_token[1024];   ///< file holding the operator bearer token; "" = operator endpoints off
  int test_stall_after_ms;  ///< testing only: stop ticking this long after start; 0 = off
  int peers_per_address;    ///< ENet peers one IP address may hold; default 16
  int connect_rate;         ///< connection-gate datagrams per second per IP address; default 20
  int half_open_timeout_ms;  ///< unfinished ENet handshakes are dropped after this; default 1000
  int receive_interval_ms;   ///< least ms between two reads of the socket between ticks; default 1
  int rejoin_window_ms;      ///< a dropped client may rejoin its avatar this long; 0 = off; default
                             ///< 10000
  char auth_key[1024];       ///< connect-token key file; "" = open server (a warning is logged)
  int migrate_port;          ///< TCP port taking a moved match; 0 = off; -1 = any free port
  char migrate_to[320];      ///< sv_migrate_begin's spec for SIGUSR2; "" = none
  char migrate_on_drain[320];   ///< sv_migrate_begin's spec SIGTERM moves the match to; "" = none
  char migrate_allocator[256];  ///< "http://HOST:PORT/PATH" SIGTERM asks for a target; "" = none
  char test_migrate_fault[16];  ///< testing: "version"/"hash" spoils the image sent
  char public_address[64];      ///< "IPV4:PORT" tokens must name; "" = --bind and the bound port
  // WebSocket transport (PROTOCOL.md §1.2)
  int ws_port;           ///< TCP port for WebSocket clients; 0 = off (default); -1 = any free port
  char ws_bind[64];      ///< address for it; "" = --bind
  char ws_origin[1024];  ///< allowed Origin values, comma-separated (--ws-origin repeats); "" = any
  int ws_per_address;    ///< WebSocket connections one IP address may hold; default 16
  int ws_max;            ///< WebSocket connections in total; default 256
  char web_root[1024];   ///< the web page's files (HTTP port); "" = the bundle found by default
} sv_config;

sv_config sv_default_config(void);

/// Apply ARBITER_* environment variables then argv flags onto *cfg.
/// Returns 0 to run, 1 when --help or --version was handled (text written to out),
/// or -1 with one clear message in err (the caller exits with status 2).
int sv_config_parse(sv_config* cfg, int argc, char** argv, char* err, size_t err_cap, FILE* out);

/// Print --help.
void sv_config_print_help(FILE* out, const char* prog);
