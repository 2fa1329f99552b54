// arbiter — the wire protocol: message structs, quantization and msgpack encode/decode
// (the snapshot stream and its builder: arbiter/snapshot.h). protocol/PROTOCOL.md is the
// specification; this header is its C binding. Knows nothing of sockets: callers hand
// packets to ENet themselves.
//
// Conventions
// - Encoders write into a caller buffer and return the number of bytes the message needs
//   (> 0). If that is more than `cap` (or buf is NULL) the buffer holds nothing usable:
//   call again with a bigger one. A message that breaks the spec (a field out of range,
//   NaN, a count over a limit) is not encoded: the encoder returns a negative ARB_E_*.
// - Decoders are total and bounded: any byte string gives ARB_OK and a filled struct, or a
//   negative ARB_E_* and, when `err` is not NULL, a reason such as
//   "welcome: statics[3] field 'x': expected float, got str". They never allocate, and the
//   output struct is only meaningful when they return ARB_OK.
// - Nothing here allocates.
#pragma once

#include <arbiter/base.h>
#include <arbiter/collision.h>
#include <arbiter/controls.h>
#include <arbiter/math.h>

ARB_C_BEGIN

// ---- constants (PROTOCOL.md, "Limits") --------------------------------------------------

#define ARB_PROTO_VERSION 2u

/// ENet channels. The server and clients create their hosts with ARB_PROTO_CHANNEL_COUNT.
/// Unsequenced = ENET_PACKET_FLAG_UNSEQUENCED: ENet's plain unreliable delivery drops a
/// packet older than one already received on the channel, which would lose parts of a
/// split snapshot that arrive out of order; ticks and sequence numbers order things instead.
#define ARB_PROTO_CHANNEL_CONTROL 0   ///< reliable: hello, welcome, reject, event, scene, view
#define ARB_PROTO_CHANNEL_INPUT 1     ///< unsequenced: input, ping (client), pong (server)
#define ARB_PROTO_CHANNEL_SNAPSHOT 2  ///< unsequenced: snapshot
#define ARB_PROTO_CHANNEL_COUNT 3

/// Largest snapshot packet the builder produces by default (bytes). ENet's largest
/// unfragmented payload at MTU 1400 is 1372.
#define ARB_PROTO_DEFAULT_PAYLOAD 1200
#define ARB_PROTO_MIN_PAYLOAD 256   ///< smallest payload limit the builder accepts
#define ARB_PROTO_MAX_PAYLOAD 4096  ///< largest unreliable packet (input, snapshot, ping, pong)
#define ARB_PROTO_MAX_RELIABLE (1024 * 1024)  ///< largest reliable message (welcome with geometry)

#define ARB_PROTO_MAX_NAME 32    ///< bytes of a client name (UTF-8, no control chars), without NUL
#define ARB_PROTO_MAX_TEXT 200   ///< bytes of a reject/notice/disconnect text, without NUL
#define ARB_PROTO_MAX_TOKEN 256  ///< bytes of an opaque connect token
#define ARB_PROTO_MAX_SCENE_NAME 64   ///< bytes of a scene name, without NUL
#define ARB_PROTO_MAX_INPUTS 8        ///< redundant inputs per input packet
#define ARB_PROTO_MAX_DEPTH 6         ///< msgpack nesting (arrays in arrays) any message may use
#define ARB_PROTO_MAX_STATIC 4096     ///< static bodies in a welcome
#define ARB_PROTO_MAX_ENTITIES 65536  ///< entities in one snapshot (all parts together)
#define ARB_PROTO_MAX_PARTS 255       ///< packets one snapshot may be split into
#define ARB_PROTO_MAX_CLIENTS \
  4096  ///< clients of one server (ENet: 4095 peers); also joins/leaves/inputs per replay tick
#define ARB_PROTO_MAX_COORD 1.0e6f       ///< |float| in shapes and static geometry, meters
#define ARB_PROTO_MAX_VIEW_SIDE 1000.0f  ///< largest side of a view box, meters
#define ARB_PROTO_MAX_BUTTONS 0xFFFFu    ///< buttons are 16 bits on the wire
/// Largest scene message accepted: a scene of 10 000 bodies is about 1.4 MB of JSON, more
/// than the other reliable messages may be, so the scene has its own limit.
#define ARB_PROTO_MAX_SCENE_MESSAGE (16 * 1024 * 1024)
#define ARB_PROTO_MAX_SCENE_TEXT \
  (ARB_PROTO_MAX_SCENE_MESSAGE - 256)  ///< bytes of scene text in a scene message
#define ARB_PROTO_MAX_KBPS 1000000u    ///< largest snapshot rate a hello may ask for (kbit/s)

/// Message type codes: element 0 of every message array (rows of arbiter/messages.def).
typedef enum arb_proto_msg_type {
  ARB_PROTO_MSG_NONE = 0,  ///< never sent
#define ARB_PROTO_MSG(NAME, name, code, channel, direction) ARB_PROTO_MSG_##NAME = code,
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
  ARB_PROTO_MSG_TYPE_COUNT
} arb_proto_msg_type;

/// Who sends a message.
typedef enum arb_proto_direction {
  ARB_PROTO_TO_SERVER = 1,  ///< sent by clients
  ARB_PROTO_TO_CLIENT = 2,  ///< sent by the server
} arb_proto_direction;

/// Why a hello was refused (reject.reason) or a client is disconnected (event.code).
typedef enum arb_proto_reason {
  ARB_PROTO_REASON_NONE = 0,
  ARB_PROTO_REASON_VERSION = 1,    ///< protocol version mismatch
  ARB_PROTO_REASON_FULL = 2,       ///< server full
  ARB_PROTO_REASON_BAD_TOKEN = 3,  ///< connect token missing or invalid
  ARB_PROTO_REASON_MALFORMED = 4,  ///< a message from the client did not decode
  ARB_PROTO_REASON_BAD_NAME = 5,   ///< name empty, too long, or not allowed
  ARB_PROTO_REASON_SHUTDOWN = 6,   ///< server is shutting down
  ARB_PROTO_REASON_KICKED = 7,     ///< removed by the operator
  ARB_PROTO_REASON_TIMEOUT = 8,    ///< no traffic from the client
  ARB_PROTO_REASON_OTHER = 9,      ///< see the text
  ARB_PROTO_REASON_COUNT
} arb_proto_reason;

/// ARB_BUILD_ID of this build (CMake: "arbiter-<version>-<git describe>"), for replay headers.
ARB_API const char* arb_proto_build_id(void);

/// Short name of a reason ("version", "full", ...), "unknown" when out of range.
ARB_API const char* arb_proto_reason_name(int reason);
/// Name of a message type ("hello", ...), "unknown" when out of range.
ARB_API const char* arb_proto_msg_name(int type);
/// Who sends a message type; 0 when out of range.
ARB_API int arb_proto_msg_direction(int type);
/// The ENet channel a message type travels on; -1 when out of range.
ARB_API int arb_proto_msg_channel(int type);

/// Where and why a decode failed.
typedef struct arb_proto_error {
  int code;          ///< the ARB_E_* the decoder returned
  size_t offset;     ///< byte offset in the input where the problem was found
  char reason[192];  ///< "<message>: <field path>: <why>", NUL-terminated
} arb_proto_error;

// ---- quantization (PROTOCOL.md, "Quantization"; bit-exact on every side) --------------

/// Positions: int32 units of 1/128 m. Velocities: int32 units of 1/256 m/s. Angles: uint16
/// of a full turn. (Angular velocity: arbiter/snapshot.h.)
#define ARB_PROTO_POS_SCALE 128.0f
#define ARB_PROTO_VEL_SCALE 256.0f
#define ARB_PROTO_ANGLE_STEPS 65536

/// Quantize: round to nearest (halves away from zero), clamp to int32; NaN -> 0.
ARB_API int32_t arb_proto_quantize_pos(float meters);
ARB_API float arb_proto_dequantize_pos(int32_t q);
ARB_API int32_t arb_proto_quantize_vel(float meters_per_second);
ARB_API float arb_proto_dequantize_vel(int32_t q);
/// Any finite angle -> turn fraction in [0, 65535] (wraps); NaN/Inf -> 0.
ARB_API uint16_t arb_proto_quantize_angle(float radians);
/// -> [-pi, pi): values >= 32768 are read as negative.
ARB_API float arb_proto_dequantize_angle(uint16_t q);

/// One tick of controls as sent and recorded. move/steer: q/127 in [-1, 1];
/// throttle/brake: q/255 in [0, 1]; aim: the angle quantization above.
typedef struct arb_proto_controls_q {
  int8_t move_x, move_y;  ///< [-127, 127]
  uint16_t aim;           ///< turn fraction
  uint16_t buttons;       ///< ARB_BUTTON_* bits (only the low 16 bits travel)
  int8_t steer;           ///< [-127, 127]
  uint8_t throttle;       ///< [0, 255]
  uint8_t brake;          ///< [0, 255]
} arb_proto_controls_q;

/// Clamp to range (NaN -> 0) and quantize.
ARB_API arb_proto_controls_q arb_proto_quantize_controls(const arb_controls* c);
/// The exact floats the game applies; identical in client, server and replay.
ARB_API arb_controls arb_proto_dequantize_controls(const arb_proto_controls_q* q);
/// quantize(dequantize(q)) == q for every valid q; this snaps a client's own controls to
/// what the server will apply (for prediction).
ARB_API arb_controls arb_proto_snap_controls(const arb_controls* c);

// ---- shapes and entity descriptions -----------------------------------------------------

/// Wire codes of shape kinds (rows of arbiter/shapes.def); not arb_shape_type values.
typedef enum arb_proto_shape_kind {
  ARB_PROTO_SHAPE_NONE = 0,  ///< never sent
#define ARB_PROTO_SHAPE(NAME, name, code, type, min_points, max_points, has_radius) \
  ARB_PROTO_SHAPE_##NAME = code,
#include <arbiter/shapes.def>
#undef ARB_PROTO_SHAPE
  ARB_PROTO_SHAPE_KIND_COUNT
} arb_proto_shape_kind;

/// A shape in its body's local frame, as the wire carries it: points and, for kinds that
/// have one, a radius. One body's shapes are each one of these.
typedef struct arb_proto_shape {
  uint8_t kind;        ///< arb_proto_shape_kind
  uint8_t count;       ///< points used: circle 1 (center), segment 2, polygon 3..8, capsule 2,
                       ///< chain piece 2..8
  float radius;        ///< circle, capsule or rounded polygon radius, meters,
                       ///< (0, ARB_PROTO_MAX_COORD]; 0 otherwise
  arb_vec2 points[8];  ///< meters, |coord| <= ARB_PROTO_MAX_COORD
} arb_proto_shape;

/// The wire form of a shape's geometry (the server's side). ARB_E_INVAL for a kind
/// shapes.def does not list; the result still has to pass the encoder's range checks.
ARB_API int arb_proto_shape_from_geometry(const arb_shape_geometry* g, arb_proto_shape* out);
/// A decoded wire shape as shared's geometry (the client's side). Polygons get their
/// vertices, count and radius only: normals and centroid are not sent and are left zero.
/// A chain piece's geometry points at `s->points` (valid while *s is). ARB_E_INVAL for an
/// unknown kind or a point count outside the kind's range.
ARB_API int arb_proto_shape_to_geometry(const arb_proto_shape* s, arb_shape_geometry* out);
/// Points of one chain piece on the wire (7 links).
#define ARB_PROTO_CHAIN_PIECE_POINTS 8
/// A chain as the wire carries it: open pieces of up to ARB_PROTO_CHAIN_PIECE_POINTS
/// points in chain order, each ending where the next begins (a loop's last piece ends at
/// point 0), each kind ARB_PROTO_SHAPE_CHAIN. With out == NULL returns how many pieces it
/// takes; else writes them (ARB_E_NOSPACE when more than cap) and returns the count.
/// ARB_E_INVAL for a chain without points or links.
ARB_API int arb_proto_chain_pieces(const arb_chain* chain, arb_proto_shape* out, int cap);
/// Name of a wire shape kind ("circle", ...), "unknown" when out of range.
ARB_API const char* arb_proto_shape_kind_name(int kind);

/// A static body of the level, exact floats (welcome message).
typedef struct arb_proto_static_body {
  arb_vec2 position;  ///< meters, world frame
  float angle;        ///< radians, finite
  arb_proto_shape shape;
} arb_proto_static_body;

// ---- messages ---------------------------------------------------------------------------

/// The hello's avatar kind that asks to watch without an avatar (PROTOCOL.md §4.1).
#define ARB_PROTO_SPECTATOR 255u
/// hello flags (element 6, optional; PROTOCOL.md §4.1): the client does not predict, so
/// the server sends it no `scene` message (a large world's scene is megabytes).
#define ARB_PROTO_HELLO_NO_SCENE 1u
/// Every hello flag this version defines; a hello with another bit set is refused.
#define ARB_PROTO_HELLO_FLAGS ARB_PROTO_HELLO_NO_SCENE

/// Client -> server, first message after the ENet connect.
typedef struct arb_proto_hello {
  uint32_t version;                    ///< ARB_PROTO_VERSION
  char name[ARB_PROTO_MAX_NAME + 1];   ///< 1..32 bytes UTF-8, no control characters
  uint8_t token[ARB_PROTO_MAX_TOKEN];  ///< opaque connect token
  uint16_t token_len;                  ///< 0 = no token
  uint8_t avatar_kind;  ///< requested arb_avatar_kind (0 = scene default), or ARB_PROTO_SPECTATOR
  uint32_t max_kbps;    ///< most snapshot kbit/s the client wants, 0 = the server's default
  uint32_t flags;       ///< ARB_PROTO_HELLO_* bits; 0 (the default) is encoded as 6 elements
} arb_proto_hello;

/// Server -> client: accepted. The static geometry is referenced, not copied: the encoder
/// reads `statics[0..static_count)`, the decoder writes up to `static_cap` bodies into the
/// caller's `statics` array (ARB_E_TOO_BIG when the message holds more).
typedef struct arb_proto_welcome {
  uint32_t client_id;      ///< > 0
  uint32_t entity_id;      ///< the client's avatar entity; 0 = a spectator (no avatar)
  uint16_t tick_rate;      ///< simulation ticks per second, 1..1000
  uint16_t snapshot_rate;  ///< snapshots per second, 1..tick_rate
  uint32_t server_tick;    ///< tick at the time of the welcome
  char scene_name[ARB_PROTO_MAX_SCENE_NAME + 1];
  uint64_t scene_hash;  ///< XXH3-64 of the scene text
  arb_proto_static_body* statics;
  int static_count;  ///< 0..ARB_PROTO_MAX_STATIC
  int static_cap;    ///< decoder only: capacity of statics
} arb_proto_welcome;

/// Server -> client: refused; the server disconnects right after.
typedef struct arb_proto_reject {
  uint8_t reason;                     ///< arb_proto_reason
  uint32_t server_version;            ///< the server's ARB_PROTO_VERSION
  char text[ARB_PROTO_MAX_TEXT + 1];  ///< human readable detail, may be empty
} arb_proto_reject;

/// One tick of input with its sequence number.
typedef struct arb_proto_input_cmd {
  uint32_t seq;  ///< the server tick it is meant for (PROTOCOL.md, input: command ticks)
  arb_proto_controls_q controls;
  /// The server time the player saw when making it (its interpolation time), in 1/256
  /// ticks, for a lag-compensated shot; 0 = not sent (the element is left out).
  uint64_t view_time;
} arb_proto_input_cmd;

/// Client -> server, every client tick, unsequenced. Carries the newest inputs so a lost
/// packet costs nothing.
typedef struct arb_proto_input {
  uint32_t packet_seq;  ///< per client, starts at 1, +1 per input packet (loss/duplicate stats)
  uint32_t ack_tick;    ///< newest snapshot tick the client received completely; 0 = none
  int count;            ///< 0..ARB_PROTO_MAX_INPUTS
  arb_proto_input_cmd cmds[ARB_PROTO_MAX_INPUTS];  ///< newest first, seq strictly decreasing
} arb_proto_input;

typedef enum arb_proto_event_kind {
  ARB_PROTO_EVENT_NONE = 0,
  ARB_PROTO_EVENT_JOINED = 1,      ///< client_id, entity_id, text = name
  ARB_PROTO_EVENT_LEFT = 2,        ///< client_id, code = arb_proto_reason, text = name
  ARB_PROTO_EVENT_NOTICE = 3,      ///< text from the server operator
  ARB_PROTO_EVENT_DISCONNECT = 4,  ///< to the client being dropped: code, text
  ARB_PROTO_EVENT_HIT =
      5,  ///< to the shooter and to the one hit: client_id = shooter, entity_id = avatar hit
  ARB_PROTO_EVENT_REJOIN = 6,  ///< to a welcomed client: client_id, entity_id, text = rejoin token
  ARB_PROTO_EVENT_MOVED = 7,   ///< the match moved: text = "ipv4:port" to rejoin at, tick = last
                               ///< tick simulated here
  ARB_PROTO_EVENT_KIND_COUNT
} arb_proto_event_kind;

/// Server -> client, reliable.
typedef struct arb_proto_event {
  uint8_t kind;        ///< arb_proto_event_kind
  uint32_t tick;       ///< server tick it happened at
  uint32_t client_id;  ///< JOINED/LEFT: who; HIT: the shooter; else 0
  uint32_t entity_id;  ///< JOINED: the avatar; HIT: the avatar hit; else 0
  uint8_t code;        ///< LEFT/DISCONNECT: arb_proto_reason; else 0
  char text[ARB_PROTO_MAX_TEXT + 1];
} arb_proto_event;

/// Client -> server, optional clock sync (ENet's RTT is also fine).
typedef struct arb_proto_ping {
  uint32_t ping_id;
  uint64_t client_time_us;  ///< client clock, echoed back
} arb_proto_ping;

/// Client -> server, its camera rectangle in world coordinates: the server sends what lies
/// in it as well as what is near the avatar (PROTOCOL.md §4 "view"). active false clears
/// the box (min and max are then zero on the wire).
typedef struct arb_proto_view {
  bool active;
  arb_vec2 min, max;  ///< finite, |coord| <= ARB_PROTO_MAX_COORD, min <= max,
                      ///< max - min <= ARB_PROTO_MAX_VIEW_SIDE on both axes
} arb_proto_view;

/// Server -> client, answer to a ping.
typedef struct arb_proto_pong {
  uint32_t ping_id;
  uint64_t client_time_us;  ///< copied from the ping
  uint32_t server_tick;     ///< last completed tick when the pong was sent
  uint64_t server_time_us;  ///< server monotonic clock
} arb_proto_pong;

/// Server -> client, reliable, right after the welcome: the scene the client's own avatar
/// lives in, so a predicting client can build the same world (PROTOCOL.md, "scene"), and
/// the avatar's exact (unquantized) state at `tick`, the tick it joined at.
typedef struct arb_proto_scene {
  uint32_t tick;                  ///< the tick `avatar_*` is from (the welcome's server_tick)
  uint64_t scene_hash;            ///< XXH3-64 of text, as in the welcome
  const char* text;               ///< the scene file (JSON); the decoder points into its input
  uint32_t text_len;              ///< 1..ARB_PROTO_MAX_SCENE_TEXT bytes
  arb_vec2 avatar_position;       ///< meters, |v| <= ARB_PROTO_MAX_COORD
  float avatar_angle;             ///< radians, |v| <= ARB_PROTO_MAX_COORD
  arb_vec2 avatar_velocity;       ///< m/s, |v| <= ARB_PROTO_MAX_COORD
  float avatar_angular_velocity;  ///< rad/s, |v| <= ARB_PROTO_MAX_COORD
} arb_proto_scene;

// ---- encode / decode --------------------------------------------------------------------

/// The message type of a packet (reads element 0 only), to pick the decoder. A negative
/// ARB_E_* if the packet does not start with an array whose first element is a known type
/// code. The full decoder still checks everything.
ARB_API int arb_proto_peek_type(const uint8_t* buf, size_t len, arb_proto_msg_type* type);

/// The `snapshot` message (PROTOCOL.md §6) is one part of the snapshot stream; its struct and
/// the functions that work on it are in arbiter/snapshot.h.
typedef struct arb_snapshot_part arb_proto_snapshot;

/// arb_proto_encode_<name> and arb_proto_decode_<name> for every row of messages.def.
/// - decode_hello: a hello whose version differs from ARB_PROTO_VERSION returns
///   ARB_E_VERSION with out->version set (the first two elements of a hello are frozen
///   across versions), so the server can answer with a reject of reason VERSION.
/// - decode_welcome: set out->statics / out->static_cap before calling (statics may be
///   NULL with cap 0).
#define ARB_PROTO_MSG(NAME, name, code, channel, direction)                                  \
  ARB_API int arb_proto_encode_##name(const arb_proto_##name* m, uint8_t* buf, size_t cap);  \
  ARB_API int arb_proto_decode_##name(const uint8_t* buf, size_t len, arb_proto_##name* out, \
                                      arb_proto_error* err);
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG

ARB_C_END
