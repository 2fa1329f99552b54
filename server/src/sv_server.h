// The server context: one world (through the game rules layer), one libuv loop, one ENet
// host, sessions, recorder, metrics and the HTTP endpoint. Everything hangs off sv_server,
// so a test or a benchmark can run a server inside its own process.
//
// Life cycle: sv_server_init (config in, everything bound and ready) -> uv_run(loop) until
// sv_server_stop has finished its shutdown -> sv_server_deinit.
//
// One tick (sv_tick in sv_tick.c):
//   service ENet (acks, timeouts) -> the tick's record built from the sessions (joins,
//   leaves, inputs, in the replay log's order) -> its description applied by the game's
//   tick applier (arb_replay_inputs_from_tick + arb_game_apply_tick, which steps) ->
//   sessions follow the results -> hash -> tick record (sv_record.c) -> left events and
//   welcomes -> every K ticks: capture + per-client delta snapshots -> enet_host_flush.
//
// Files: sv_init.c (init/deinit), sv_tick.c (the tick), sv_record.c (the replay log),
// sv_session.c (sessions), sv_stop.c (signals, shutdown), sv_status.c (HTTP endpoints),
// sv_server.c (shapes told to clients); the others are self-contained modules.
#pragma once

#include <arbiter/game.h>
#include <arbiter/protocol.h>
#include <arbiter/replay_inputs.h>
#include <arbiter/replay_log.h>
#include <arbiter/scene.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "sv_auth.h"
#include "sv_config.h"
#include "sv_http.h"
#include "sv_input.h"
#include "sv_lifecycle.h"
#include "sv_link.h"
#include "sv_log.h"
#include "sv_metrics.h"
#include "sv_migrate.h"
#include "sv_migrate_drain.h"
#include "sv_net.h"
#include "sv_record.h"
#include "sv_snap_workers.h"
#include "sv_snapshot.h"
#include "sv_ticker.h"
#include "sv_ws.h"

typedef enum sv_session_state {
  SV_SESSION_FREE = 0,
  SV_SESSION_AWAIT_HELLO,  ///< connected, no valid hello yet (bounded by hello_timeout_ms)
  SV_SESSION_JOINING,      ///< hello accepted; avatar spawns at the next tick boundary
  SV_SESSION_ACTIVE,       ///< welcomed, has an avatar
  SV_SESSION_CLOSING,  ///< rejected or kicked: ENet's graceful disconnect, for SV_CLOSE_GRACE_MS
} sv_session_state;

/// A closing session's ENet peer is reset (its slot freed) this long after the kick or
/// reject, whether or not the client acknowledged the goodbye: a peer that never
/// acknowledges anything would otherwise hold its slot until ENet's own timeout (minutes
/// to an hour, SV_ENET_TIMEOUT_* in sv_session.c). On loopback the goodbye is acknowledged
/// in about a millisecond, over the internet in one round trip, with a retransmission or
/// two to spare at 20 % loss; the reset itself still sends one DISCONNECT with the reason.
#define SV_CLOSE_GRACE_MS 1000

typedef struct sv_session {
  sv_session_state state;
  sv_link link;         ///< the client's connection (ENet peer or WebSocket), sv_link.h
  uint32_t client_id;   ///< > 0 once the hello is accepted; never reused
  uint32_t entity_id;   ///< the avatar, once ACTIVE
  uint8_t avatar_kind;  ///< as requested in the hello
  bool spectator;       ///< watches without an avatar (hello avatar kind ARB_PROTO_SPECTATOR)
  char name[ARB_PROTO_MAX_NAME + 1];
  char addr[32];           ///< "a.b.c.d:port"
  uint32_t ip;             ///< the client's IPv4 address (network order), for per-address budgets
  uint32_t played_ticks;   ///< ticks at which one of its inputs was applied (SV_REJOIN_MIN_PLAY_MS)
  uint64_t connected_ns;   ///< uv_hrtime at connect
  uint64_t last_heard_ns;  ///< uv_hrtime of the last packet from the client (silence timeout)
  sv_input_state input;
  sv_snap_client snap;
  bool has_view;    ///< the client's camera box (the `view` message) is set
  arb_aabb view;    ///< that box, world coordinates
  bool snap_ready;  ///< snap allocated
  uint64_t snapshots_sent;
  uint64_t bytes_sent;
  uint8_t scene_state;       ///< SV_SCENE_*: the scene message's progress
  uint64_t scene_sent_ns;    ///< uv_hrtime when it was queued (SV_SCENE_SENDING)
  bool no_scene;             ///< the hello asked for no scene message (ARB_PROTO_HELLO_NO_SCENE)
  uint32_t scene_tick;       ///< the welcome's tick: the avatar state below is from it
  float scene_avatar[6];     ///< x, y, angle, vx, vy, w at scene_tick
  char rejoin_token[40];     ///< the token sent in the rejoin event ("" before the welcome)
  uint64_t closing_ns;       ///< uv_hrtime when it became CLOSING (SV_CLOSE_GRACE_MS from it)
  uint8_t close_reason;      ///< the arb_proto_reason it was kicked or rejected with
  bool has_token;            ///< the hello carried a valid connect token (--auth-key)
  uint64_t token_client_id;  ///< the backend's player id from that token
} sv_session;

/// The scene message of a session (sent after the welcome, a few sessions at a time).
enum { SV_SCENE_NONE, SV_SCENE_PENDING, SV_SCENE_SENDING };
/// Sessions whose scene message may be on the way at once: a large scene (1.4 MB for
/// 10 000 bodies) is a thousand ENet fragments per client, and ENet walks each peer's
/// queue on every flush, so hundreds of clients joining at once must not all get theirs
/// together.
#define SV_SCENES_IN_FLIGHT 4
/// A scene on the way for longer than this stops holding its slot (ENet goes on sending
/// it): at 1.4 MB, 30 s is a link under 400 kbit/s, or a client that never acknowledges.
#define SV_SCENE_SLOT_NS (30ull * 1000000000ull)

/// A client whose connection was lost: its avatar stays until `expires_ns` (rejoin window).
typedef struct sv_rejoin {
  bool used;
  char token[40];  ///< "rj1." + 22 base64url characters
  uint32_t client_id, entity_id;
  uint8_t avatar_kind;
  char name[ARB_PROTO_MAX_NAME + 1];
  bool has_token;
  uint64_t token_client_id;
  uint64_t expires_ns;
  uint32_t ip;  ///< the lost client's address: the hold counts against its peer budget
} sv_rejoin;

typedef struct sv_server {
  sv_config cfg;
  sv_log log;
  uv_loop_t* loop;  ///< not owned
  sv_metrics metrics;

  arb_scene* scene;
  arb_game* game;
  int tick_rate;                   ///< effective Hz
  int snapshot_every;              ///< K: a snapshot every K ticks
  arb_proto_static_body* statics;  ///< welcome geometry
  int static_count;

  sv_net net;
  sv_ws ws;  ///< the WebSocket transport (--ws-port)
  bool ws_on;
  sv_auth auth;  ///< connect tokens (--auth-key); disabled = open server
  sv_http http;
  bool http_on;
  sv_ticker ticker;
  sv_lifecycle life;       ///< match lifecycle, Agones, operator token (sv_lifecycle.h)
  sv_migrate mig;          ///< moving the match to another server (sv_migrate.h)
  sv_mig_drain mig_drain;  ///< SIGTERM moves the match first (sv_migrate_drain.h)
  uv_signal_t sig_int, sig_term;
  uv_timer_t grace_timer;  ///< shutdown: lets the goodbyes go out
  bool grace_open;
  uint64_t grace_start_ns;

  int peer_capacity;     ///< ENet peers (player slots + margin for "server full")
  int session_count;     ///< peer_capacity + WebSocket slots (--ws-max, when --ws-port is set)
  sv_session* sessions;  ///< session_count: ENet peer index i at i, WebSocket slot k at
                         ///< peer_capacity + k
  int active_count;      ///< JOINING + ACTIVE sessions + held rejoins (the player slots in use)
  int spectator_count;   ///< ACTIVE spectator sessions (not in active_count)
  sv_rejoin* rejoins;    ///< max_clients entries: avatars waiting for their client
  uint32_t next_client_id;
  int* join_queue;  ///< session indices in hello order
  int join_count;
  uint32_t* leave_queue;  ///< client ids whose avatars despawn at the next tick
  uint8_t* leave_reason;  ///< per leave_queue entry: arb_proto_reason (0 = left on its own)
  char (*leave_name)[ARB_PROTO_MAX_NAME + 1];  ///< per leave_queue entry: the player's name
  int leave_count;
  sv_input_limits limits;

  sv_snapshot snapshot;
  sv_snap_workers* snap_workers;  ///< builds the per-client snapshots (--snapshot-threads)
  sv_snap_job* snap_jobs;         ///< one per session slot, reused every snapshot tick
  int max_entities;

  arb_replay_tick* tick_rec;       ///< this tick's record, reused every tick (large)
  arb_replay_inputs* tick_inputs;  ///< its description for the game's tick applier (large)
  bool recording;
  sv_record record;

  uint8_t* msg_buf;  ///< encode scratch for control messages (welcome can be big)
  size_t msg_buf_cap;
  uint8_t* scene_buf;  ///< encode scratch for the scene message (the scene's size)
  size_t scene_buf_cap;

  bool stopping;  ///< SIGTERM/SIGINT seen: no new connections
  bool stopped;   ///< everything closed; uv_run returns
  int exit_code;
  uint64_t last_hash;
  uint64_t tick_cpu_ns_total;  ///< thread CPU time spent in ticks
  uint64_t last_stats_ns;
  uint64_t lag_logged_ns;  ///< last tick_lag log line, 0 = never
  uint64_t lag_unlogged;   ///< ticks skipped since that line

  // Optional observer, called after every tick with its wall duration (benchmarks).
  void (*on_tick_done)(void* user, uint64_t tick, uint64_t wall_ns, uint64_t cpu_ns);
  void* on_tick_user;
} sv_server;

/// Load the scene, create the game, allocate everything a tick needs, open the replay log,
/// bind UDP and HTTP, start the ticker and signal handlers on `loop`. Returns 0, or with
/// one clear message in err: ARB_E_INVAL when the configuration or the scene is invalid,
/// another ARB_E_* for a runtime failure (bind, memory, recording file). A failed init has
/// undone itself: run the loop once so the handles it closed finish closing; no deinit.
int sv_server_init(sv_server* s, uv_loop_t* loop, const sv_config* cfg, char* err, size_t err_cap);
/// Begin a clean shutdown (what SIGINT/SIGTERM do): tell clients, finish, close the log.
void sv_server_stop(sv_server* s, const char* why);
/// Free everything; the loop must have run until all handles closed.
void sv_server_deinit(sv_server* s);

// ---- internal, shared between the sv_*.c files of the server context ----
/// The tick (ticker callback, sv_tick.c) and the ticker's lag callback.
void sv_tick(void* user);
void sv_tick_on_lag(void* user, uint64_t skipped);
/// Start the SIGINT/SIGTERM handlers (closed by the shutdown, sv_stop.c).
void sv_server_watch_signals(sv_server* s);
/// HTTP handler for /healthz and /metrics (sv_status.c).
void sv_status_on_http(void* user, const sv_http_request* req, sv_http_reply* reply);
/// The welcome's static bodies into s->statics (sv_server.c): one entry per body, one per
/// piece of a chain. 0, or ARB_E_* with the reason (naming the body) in err.
int sv_build_statics(sv_server* s, char* err, size_t err_cap);
/// ENet events (sv_net's callback).
void sv_session_on_net_event(void* user, const ENetEvent* ev);
/// The WebSocket transport's hooks (sv_ws.h), with the server as their user pointer.
extern const sv_ws_hooks sv_session_ws_hooks;
/// sv_net's count of an address's WebSocket connections (--peers-per-address covers both).
int sv_session_ws_count(void* user, uint32_t ip);
/// Hello timeouts (called every tick).
void sv_session_check_timeouts(sv_server* s, uint64_t now_ns);
/// Queue a reliable message on the control channel.
int sv_session_send_control(sv_server* s, sv_session* ss, const uint8_t* data, size_t len);
/// Sends pending scene messages while fewer than SV_SCENES_IN_FLIGHT are on the way.
void sv_session_send_scenes(sv_server* s);
/// Disconnect a session with a reason (event DISCONNECT, then ENet disconnect). Queues the
/// avatar's despawn when it has one.
void sv_session_kick(sv_server* s, sv_session* ss, arb_proto_reason reason, const char* text);
/// sv_net's budget hook: an admitted CONNECT from `ip` (network order), whose address holds
/// `peers` peers now, is about to take a peer; avatars held for a rejoin from that address
/// are released, oldest first, until the newcomer fits in --peers-per-address.
void sv_session_on_connect_budget(void* user, uint32_t ip, int peers);
/// Welcome the queued joins after they were applied to the game.
void sv_session_send_welcome(sv_server* s, sv_session* ss, uint32_t tick);
sv_session* sv_session_by_client(sv_server* s, uint32_t client_id);
/// An avatar held for a rejoin: every field of r set (ip 0: counted against no address).
void sv_rejoin_fill(sv_rejoin* r, const char* token, uint32_t client_id, uint32_t entity_id,
                    uint8_t avatar_kind, const char* name, bool has_token, uint64_t token_client_id,
                    uint64_t expires_ns);
