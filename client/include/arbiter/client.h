// arbiter — the thin client library (libarbiter_client).
//
// A game embeds one or more arb_client objects. The library has no threads and no global
// state: the application calls arb_client_update(client, now) from its own loop, and all
// network work (connect, handshake, receiving snapshots, sending inputs, reconnecting)
// happens inside that call without blocking. Several clients can live in one process.
//
//   arb_client_config cfg = arb_client_default_config();
//   cfg.host = "127.0.0.1"; cfg.port = 7777; cfg.name = "alice";
//   arb_client* c = NULL;
//   if (arb_client_create(&cfg, &c) != 0) ...
//   arb_client_connect(c);
//   for (;;) {
//     double now = seconds_since_any_fixed_origin();
//     arb_client_update(c, now);
//     arb_client_event ev;
//     while (arb_client_poll_event(c, &ev) > 0) { ... }
//     arb_client_set_controls(c, &my_controls);
//     int n = arb_client_sample(c, now, states, cap);   // interpolated world, own avatar predicted
//     draw(states, n);
//   }
//   arb_client_destroy(c);
//
// Time: every `now` / `render_time` argument is in seconds on one monotonic clock of the
// application's choosing (it must never go backwards). The library never reads a clock.
//
// Ownership: arb_client_create allocates through the config's allocator and copies every
// string of the config; arb_client_destroy frees everything. Pointers returned by getters
// stay valid until the next arb_client_update or arb_client_destroy unless stated.
// Errors: 0 or a negative ARB_E_* code (arb_strerror). Nothing here exits or prints; log
// lines go to the config's log hook.
#pragma once

#include <arbiter/base.h>
#include <arbiter/collision.h>
#include <arbiter/controls.h>
#include <arbiter/math.h>

ARB_C_BEGIN

typedef struct arb_client arb_client;

// ---- configuration ---------------------------------------------------------------------

typedef enum arb_client_log_level {
  ARB_CLIENT_LOG_DEBUG = 0,
  ARB_CLIENT_LOG_INFO,
  ARB_CLIENT_LOG_WARN,
  ARB_CLIENT_LOG_ERROR,
  ARB_CLIENT_LOG_OFF,
} arb_client_log_level;

/// Memory hooks; both NULL = malloc/free.
typedef void* arb_client_alloc_fn(size_t size, void* user);
typedef void arb_client_free_fn(void* ptr, void* user);
/// One log line (no trailing newline); `message` is valid during the call only.
typedef void arb_client_log_fn(void* user, arb_client_log_level level, const char* message);

/// Longest WebSocket URL the client accepts (arb_client_config.url).
#define ARB_CLIENT_MAX_URL 1023

/// Longest connect token the client accepts (the hello's token field, PROTOCOL.md §4.1).
#define ARB_CLIENT_MAX_TOKEN_TEXT 256

typedef struct arb_client_config {
  const char* host;  ///< server address or name (IPv4); default "127.0.0.1"; copied
  uint16_t port;     ///< UDP port; default 7777
  /// The WebSocket transport (the library compiled to WebAssembly, client/web): the
  /// server's ws:// or wss:// URL (its --ws-port, PROTOCOL.md §1.2), which replaces host
  /// and port; required there. Unused by the ENet transport of native builds. Copied.
  const char* url;
  const char* name;        ///< player name shown to others; default "player"; copied
  const char* token;       ///< connect token text from the game's backend (arbiter-token mint,
                           ///< at most ARB_CLIENT_MAX_TOKEN_TEXT bytes), NULL = none; copied
  arb_avatar_kind avatar;  ///< requested avatar kind; default ARB_AVATAR_DEFAULT
  bool spectate;           ///< watch without an avatar: the whole world, no commands sent
                           ///< (`avatar` and prediction unused); default false

  // Interpolation (seconds). The delay starts at 2 snapshot intervals and adapts to the
  // observed snapshot interval and arrival jitter within [min, max].
  float interp_delay_min;     ///< default 0.010
  float interp_delay_max;     ///< default 0.500
  float extrapolation_limit;  ///< at most this long past the newest snapshot; default 0.25
  float blend_time;           ///< a correction after a gap fades out over this; default 0.2
  float teleport_distance;    ///< meters; larger corrections snap; default 2
  /// Keep each entity's recent states for arb_client_sample; default true. false: a
  /// headless client (a bot, a recorder) that only decodes, acknowledges and reads the
  /// newest snapshot (arb_client_get_latest, ARB_CLIENT_AT_LATEST) skips the per-entity
  /// history work on every snapshot; arb_client_sample then returns 0.
  bool interpolate;

  // Prediction of the own avatar (docs/CLIENT.md, "Prediction"): a local copy of the
  // server's scene steps the avatar with each command the moment it is made.
  bool predict;                 ///< default true (needs the server's scene message)
  float predict_smoothing;      ///< s, time constant of the fade of a drawn correction; default 0.1
  float predict_snap_distance;  ///< m, corrections larger than this are drawn as a jump; default 2
  float input_margin;           ///< s, lead over rtt/2 + 2 rtt variance for commands; default 0.005

  // Connection.
  float connect_timeout;      ///< seconds to get welcomed; default 5
  float timeout;              ///< seconds of silence before the link counts as lost; default 3
  bool auto_reconnect;        ///< reconnect after a lost link (never after a reject); default true
  float reconnect_delay_min;  ///< first backoff delay, doubling each attempt; default 0.25
  float reconnect_delay_max;  ///< backoff cap; default 4
  int input_redundancy;       ///< inputs repeated per packet, 1..8; default 8
  /// Input packets per second at most, 0..10000; 0 = one per server tick (default). Below
  /// the tick rate a packet goes every k = ceil(tick_rate / input_rate) ticks (at most 8)
  /// with the k commands made since the last one, each still applied at its own tick:
  /// fewer datagrams for the server to read (like ioquake3's cl_maxpackets), for commands
  /// made k - 1 ticks further ahead (the lead grows by that much). Snapshot acks then ride
  /// the batches too (by default each completed snapshot is acknowledged at once).
  int input_rate;
  int max_kbps;  ///< snapshot kbit/s to ask the server for at most; 0 = its default (default)

  int max_entities;  ///< safety limit on tracked entities; default 16384

  arb_client_alloc_fn* alloc;
  arb_client_free_fn* free;
  void* alloc_user;
  arb_client_log_fn* log;  ///< NULL = silent
  void* log_user;
  arb_client_log_level log_level;  ///< lines below this level are not formatted; default INFO

  int internal_value;  ///< set by arb_client_default_config; DO NOT SET
} arb_client_config;

ARB_API arb_client_config arb_client_default_config(void);

/// Validate the config and allocate a client (not connected yet). *out = NULL on failure.
ARB_API int arb_client_create(const arb_client_config* config, arb_client** out);
/// Sends a disconnect if connected (best effort, no waiting) and frees everything.
ARB_API void arb_client_destroy(arb_client* client);

// ---- connection ------------------------------------------------------------------------

typedef enum arb_client_state {
  ARB_CLIENT_DISCONNECTED = 0,  ///< idle: never connected, disconnected on request, or rejected
  ARB_CLIENT_CONNECTING,        ///< ENet connect + hello sent, waiting for welcome
  ARB_CLIENT_CONNECTED,         ///< welcomed; snapshots flow
  ARB_CLIENT_RECONNECT_WAIT,    ///< lost the link; waiting for the backoff delay
} arb_client_state;

/// Start connecting (resolution of host happens here, non-blocking for numeric addresses).
/// ARB_E_STATE when already connecting or connected.
ARB_API int arb_client_connect(arb_client* client);
/// Disconnect now (no reconnect). The server is told at once with an ENet disconnect
/// (the protocol has no client-side reason text); `reason` (may be NULL) becomes the text
/// of the local ARB_CLIENT_EVENT_DISCONNECTED event (at most 127 bytes kept).
ARB_API int arb_client_disconnect(arb_client* client, const char* reason);
ARB_API arb_client_state arb_client_get_state(const arb_client* client);
/// Do all network work due at `now` (seconds, monotonic): receive, decode, ack, send
/// inputs at the tick rate, time out, reconnect. Never blocks. Returns 0 or ARB_E_*.
ARB_API int arb_client_update(arb_client* client, double now);

/// The UDP socket's file descriptor (-1 if none), for applications that want to sleep
/// until data arrives (poll, epoll, uv_poll) instead of calling arb_client_update on a
/// timer. Watch it for readability only; never read from or close it.
ARB_API int arb_client_get_fd(const arb_client* client);

/// What the server said in its welcome (valid while connected; zeroed otherwise).
typedef struct arb_client_session {
  uint32_t client_id;      ///< our client id on the server
  uint32_t avatar_entity;  ///< our avatar's entity id (0 = none)
  int tick_rate;           ///< server ticks per second
  int snapshot_rate;       ///< snapshots per second
  uint64_t welcome_tick;   ///< server tick when the welcome was sent
  char scene_name[64];
  uint64_t scene_hash;
} arb_client_session;

ARB_API const arb_client_session* arb_client_get_session(const arb_client* client);

// ---- events ----------------------------------------------------------------------------

typedef enum arb_client_event_type {
  ARB_CLIENT_EVENT_NONE = 0,
  ARB_CLIENT_EVENT_CONNECTED,       ///< welcomed (client_id = ours, entity_id = our avatar, text =
                                    ///< scene)
  ARB_CLIENT_EVENT_REJECTED,        ///< code = server reject code, text = server's reason
  ARB_CLIENT_EVENT_DISCONNECTED,    ///< text = reason (server's, ours, or a timeout); see
                                    ///< will_reconnect
  ARB_CLIENT_EVENT_ENTITY_ENTERED,  ///< entity_id is now known (description available); client_id =
                                    ///< owner
  ARB_CLIENT_EVENT_ENTITY_LEFT,     ///< entity_id is gone
  ARB_CLIENT_EVENT_NOTICE,          ///< text = server notice
  ARB_CLIENT_EVENT_PLAYER_JOINED,   ///< client_id, entity_id (their avatar), text = name
  ARB_CLIENT_EVENT_PLAYER_LEFT,     ///< client_id, text = name or reason
  ARB_CLIENT_EVENT_HIT,  ///< a shot hit (to the shooter and the one hit): client_id = shooter,
                         ///< entity_id = avatar hit
} arb_client_event_type;

typedef struct arb_client_event {
  arb_client_event_type type;
  uint32_t entity_id;   ///< ENTITY_*, PLAYER_JOINED, CONNECTED
  uint32_t client_id;   ///< PLAYER_*, CONNECTED, ENTITY_ENTERED (owner)
  int code;             ///< REJECTED / DISCONNECTED / PLAYER_LEFT: arb_proto_reason code
  bool will_reconnect;  ///< DISCONNECTED: the library retries after its backoff delay
  double time;          ///< `now` of the update that produced it
  char text[128];       ///< reason, notice or name; NUL-terminated
} arb_client_event;

/// Pop the oldest event into *out: 1 = got one, 0 = queue empty. The queue is bounded
/// (1024 events); when it overflows the oldest events are dropped and counted in stats.
ARB_API int arb_client_poll_event(arb_client* client, arb_client_event* out);
/// Human readable name of an event type ("connected", ...).
ARB_API const char* arb_client_event_name(arb_client_event_type type);

// ---- input -----------------------------------------------------------------------------

/// Set the controls to send from now on (held until replaced). They are quantized exactly
/// as the server will quantize them; arb_client_get_controls returns the quantized values
/// (what the server will apply). Non-finite values are rejected with ARB_E_NONFINITE.
ARB_API int arb_client_set_controls(arb_client* client, const arb_controls* controls);
ARB_API arb_controls arb_client_get_controls(const arb_client* client);
/// Report the camera rectangle (world meters, min <= max, each side at most
/// 1000 m, ARB_PROTO_MAX_VIEW_SIDE): with the server's --view-radius, what lies in it is
/// sent as well as what is near the avatar, and a spectator gets what is in it. Sent
/// reliably when changed, kept across reconnects and sent again after each welcome.
/// ARB_E_NONFINITE / ARB_E_RANGE for a box outside those limits (the box is unchanged).
ARB_API int arb_client_set_view_box(arb_client* client, arb_vec2 min, arb_vec2 max);
/// Stop reporting a camera box: back to the avatar's surroundings only.
ARB_API int arb_client_clear_view_box(arb_client* client);
/// Sequence number of the newest input sent (0 = none yet).
ARB_API uint32_t arb_client_get_input_sequence(const arb_client* client);

// ---- world state -----------------------------------------------------------------------

/// Geometry of one shape, in its body's frame, as the server sent it. Polygons carry
/// vertices and count only (normals and centroid are zero).
typedef arb_shape_geometry arb_client_shape;

/// Everything needed to draw an entity (from its "entered" record).
typedef struct arb_client_entity_desc {
  uint32_t id;             ///< entity id, > 0
  int body_type;           ///< arb_body_type of the body (dynamic, static, kinematic)
  uint32_t owner;          ///< client id of the avatar's player, 0 = world
  int avatar_kind;         ///< arb_avatar_kind of a player's avatar; 0 = not an avatar
  arb_client_shape shape;  ///< the first shape
  int shape_count;         ///< 1..8: a compound body has several (arb_client_get_entity_shape)
} arb_client_entity_desc;

/// Known entities' descriptions, in id order. Writes up to cap, returns the total count.
ARB_API int arb_client_get_entities(const arb_client* client, arb_client_entity_desc* out, int cap);
/// ARB_E_NOT_FOUND if the entity is not known.
ARB_API int arb_client_get_entity(const arb_client* client, uint32_t entity_id,
                                  arb_client_entity_desc* out);

/// Shape i (0..shape_count-1) of a known entity, in its body frame. ARB_E_NOT_FOUND for an
/// unknown entity or shape. A chain arrives only as static geometry (drawn unknown here).
ARB_API int arb_client_get_entity_shape(const arb_client* client, uint32_t entity_id, int i,
                                        arb_client_shape* out);

/// Static geometry sent in the welcome (the level), placed in the world.
typedef struct arb_client_static_body {
  arb_vec2 position;         ///< meters
  float angle;               ///< radians
  arb_client_shape shape;    ///< a chain arrives in pieces of up to 8 points, one body each
  arb_vec2 chain_points[8];  ///< a chain piece's points (shape.chain.points points here)
} arb_client_static_body;

/// The welcome's static geometry; *count receives the number of bodies. Valid until the
/// next welcome (reconnect) or destroy. NULL with *count = 0 before the first welcome.
ARB_API const arb_client_static_body* arb_client_get_static_geometry(const arb_client* client,
                                                                     int* count);

#define ARB_CLIENT_SAMPLE_INTERPOLATED 0u  ///< between two snapshots
#define ARB_CLIENT_SAMPLE_EXTRAPOLATED 1u  ///< past the newest snapshot (<= extrapolation_limit)
#define ARB_CLIENT_SAMPLE_HELD 2u          ///< past the extrapolation limit: holding still
#define ARB_CLIENT_SAMPLE_BLENDING 4u      ///< a correction after a gap is fading out
#define ARB_CLIENT_SAMPLE_PREDICTED 8u     ///< the own avatar, predicted (not interpolated)

/// One entity's state at the sampled time.
typedef struct arb_client_entity_state {
  uint32_t id;
  uint32_t owner;     ///< as in the description
  arb_vec2 position;  ///< meters
  float angle;        ///< radians, (-pi, pi]
  arb_rot rotation;   ///< same as angle
  /// m/s of the motion as sampled: the chord between the two bracketing snapshots, the
  /// newest snapshot's velocity while extrapolating, 0 while held, plus the rate of a
  /// fading correction. (The server's own velocity is in the snapshots: the chord is
  /// what makes position(t + dt) ~= position(t) + velocity * dt hold for drawing.)
  arb_vec2 linear_velocity;
  float angular_velocity;  ///< rad/s, same rules
  uint32_t flags;          ///< ARB_CLIENT_SAMPLE_*
} arb_client_entity_state;

/// Every known entity's position and rotation interpolated at (estimated server time at
/// render_time − interpolation delay), in id order. While predicting, the own avatar is
/// the predicted one instead (flag PREDICTED): ahead of the server by the input lead. Writes up to
/// max, returns the total number of entities (may exceed max). render_time must not go backwards
/// between calls (an earlier time is treated as the previous one). 0 before the first snapshot.
ARB_API int arb_client_sample(arb_client* client, double render_time, arb_client_entity_state* out,
                              int max);
/// The raw states of the newest complete snapshot (dequantized, not interpolated; flags
/// 0, velocities as the server sent them), in id order: for debug views that draw the
/// latest authoritative state next to the interpolated one ("ghosts"). Writes up to max,
/// returns the total count; 0 before the first complete snapshot.
ARB_API int arb_client_get_latest(const arb_client* client, arb_client_entity_state* out, int max);
/// While predicting: the correction still being faded out of the drawn own avatar (drawn =
/// simulated + offset, docs/CLIENT.md "Prediction"), for debug views; false (offset zeroed)
/// when not predicting.
ARB_API bool arb_client_get_correction(const arb_client* client, arb_vec2* offset);
/// The server time (seconds, tick * dt) the last arb_client_sample rendered.
ARB_API double arb_client_get_sample_time(const arb_client* client);
/// Estimated current server time in seconds at `now` (smoothed, never goes backwards);
/// 0 before the first snapshot. The server tick is floor(time * tick_rate).
ARB_API double arb_client_get_server_time(arb_client* client, double now);
/// Tick of the newest snapshot received (0 = none).
ARB_API uint64_t arb_client_get_snapshot_tick(const arb_client* client);

// ---- particles, links and wheels ------------------------------------------------------
//
// What the server simulates besides bodies (docs/CLIENT.md, "Particles, links and
// wheels"). Each getter writes up to max items in id order and returns how many there are
// (may exceed max); 0 before the first snapshot. Links and wheels whose bodies are not
// known (out of view) are left out.

/// Which moment the getters describe.
typedef enum arb_client_when {
  /// The server time of the last arb_client_sample: positions interpolated between
  /// snapshots like the bodies', ends and wheels placed on the bodies as sampled (the own
  /// avatar predicted), so they draw together with that call's bodies.
  ARB_CLIENT_AT_SAMPLE = 0,
  /// The newest complete snapshot, not interpolated (as arb_client_get_latest).
  ARB_CLIENT_AT_LATEST = 1,
} arb_client_when;

/// A Verlet particle (ropes, cloth, soft bodies are made of them).
typedef struct arb_client_particle {
  uint32_t id;
  arb_vec2 position;  ///< meters
  arb_vec2 velocity;  ///< m/s
  float radius;       ///< meters; 0 = a point
  bool pinned;        ///< held in place by the simulation
} arb_client_particle;

typedef enum arb_client_link_kind {
  ARB_CLIENT_LINK_ROPE = 1,    ///< a particle constraint: a and b are particles
  ARB_CLIENT_LINK_SPRING = 2,  ///< a spring between two bodies
  ARB_CLIENT_LINK_JOINT = 3,   ///< a joint between two bodies, see joint_type
} arb_client_link_kind;

/// A rope segment, spring or joint, drawn between its two ends. A link that is broken or
/// destroyed on the server is no longer listed.
typedef struct arb_client_link {
  uint32_t id;
  arb_client_link_kind kind;
  int joint_type;  ///< ARB_CLIENT_LINK_JOINT: the arb_joint_type (arbiter/joint.h)
  uint32_t a, b;   ///< the entities joined; 0 = the world (a static body or a fixed point)
  arb_vec2 anchor_a, anchor_b;  ///< meters, the two ends in world coordinates
} arb_client_link;

/// A vehicle wheel seen from above.
typedef struct arb_client_wheel {
  uint32_t id;
  uint32_t vehicle;   ///< the chassis entity
  arb_vec2 position;  ///< meters, the wheel's centre
  arb_rot rotation;   ///< chassis rotation turned by the steering angle (x: rolling direction)
  float radius;       ///< meters
  float steer;        ///< radians, steering angle relative to the chassis
  float spin;         ///< radians (-pi, pi], rolling angle
  float spin_rate;    ///< rad/s
  bool skid;          ///< the tyre slides
} arb_client_wheel;

ARB_API int arb_client_get_particles(const arb_client* client, arb_client_when when,
                                     arb_client_particle* out, int max);
ARB_API int arb_client_get_links(const arb_client* client, arb_client_when when,
                                 arb_client_link* out, int max);
ARB_API int arb_client_get_wheels(const arb_client* client, arb_client_when when,
                                  arb_client_wheel* out, int max);

// ---- statistics ------------------------------------------------------------------------

typedef struct arb_client_stats {
  float rtt;                   ///< seconds, smoothed round-trip time (ping/pong, PROTOCOL.md
                               ///< §4.7; ENet's estimate until the first pong)
  float rtt_variance;          ///< seconds
  float packet_loss;           ///< [0,1] fraction of snapshots that never arrived (recent)
  float snapshots_per_second;  ///< complete snapshots received, last second
  float bytes_in_per_second;   ///< UDP payload + ENet headers, last second
  float bytes_out_per_second;
  float interp_delay;                ///< seconds, current interpolation delay
  float interp_delay_target;         ///< seconds, what the delay is converging to
  float snapshot_interval;           ///< seconds, smoothed interval between received snapshots
  float jitter;                      ///< seconds, smoothed arrival jitter
  int buffer_depth;                  ///< snapshots newer than the sampled time
  float extrapolation_time;          ///< seconds past the newest snapshot at the last sample (0 =
                                     ///< interpolating)
  uint64_t bytes_in, bytes_out;      ///< totals since create
  uint64_t packets_in, packets_out;  ///< totals since create
  uint64_t snapshots_received;       ///< complete snapshots accepted
  uint64_t snapshot_parts;           ///< snapshot packets accepted
  uint64_t snapshots_duplicate;      ///< parts for a snapshot already complete
  uint64_t snapshots_late;    ///< older than the newest complete one (still used for interpolation)
  uint64_t snapshots_lost;    ///< expected snapshots never completed
  uint64_t baseline_missing;  ///< deltas against a baseline we no longer have
  uint64_t decode_errors;     ///< packets that failed to decode (all kinds)
  uint64_t inputs_sent;       ///< input packets
  uint64_t events_dropped;    ///< event queue overflows
  uint32_t connects;          ///< times welcomed
  uint32_t reconnects;        ///< reconnect attempts after a lost link
  int entity_count;           ///< known entities
  // prediction (docs/CLIENT.md, "Prediction")
  bool predicting;          ///< the own avatar is predicted now
  float input_lead;         ///< s, how far ahead of the estimated server time commands are made
  uint64_t predict_checks;  ///< snapshots compared with the predicted avatar
  uint64_t predict_corrections;  ///< ... that differed: re-simulated from the server's state
  uint64_t predict_snaps;        ///< corrections drawn as a jump (over predict_snap_distance)
  uint64_t inputs_late;          ///< commands the server had not applied at their tick (snapshot's
                                 ///< last_input_seq)
  float predict_error;           ///< m, predicted vs server avatar position at the last check
  float predict_error_max;       ///< m, largest since create
  bool predict_error_free;       ///< the last check's avatar touched nothing but static bodies
  float predict_correction_max;  ///< m, largest move of the predicted avatar by one correction
  float predict_offset;          ///< m, drawn correction still fading out
  uint64_t input_to_motion_count;  ///< control changes drawn so far
  float input_to_motion;           ///< s, the last: from arb_client_set_controls (time of the
                                   ///< update before it) to the first sample drawing its effect
} arb_client_stats;

ARB_API void arb_client_get_stats(const arb_client* client, arb_client_stats* out);

/// One comparison of the predicted own avatar with the server's state of the same tick,
/// as prediction makes it for each complete snapshot: both quantized exactly as on the
/// wire (PROTOCOL.md §5), so `agree` means the same integers, not a tolerance.
typedef struct arb_client_predict_check {
  uint32_t tick;
  bool agree;     ///< every field equal: no correction
  bool touching;  ///< the predicted avatar touched a non-static body (predicted approximately)
  /// x, y, angle, vx, vy, angular velocity: the predicted avatar's and the server's
  int32_t predicted[6], server[6];
} arb_client_predict_check;

/// The most recent comparisons (at most 64 are kept, across reconnects), oldest first.
/// Writes up to max, returns how many are kept.
ARB_API int arb_client_get_predict_checks(const arb_client* client, arb_client_predict_check* out,
                                          int max);

/// The reason of the last decode error ("snapshot: entity 12 field 'x': ..."), or "".
ARB_API const char* arb_client_get_last_error(const arb_client* client);

ARB_C_END
