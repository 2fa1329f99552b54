// Sample messages shared by the protocol tests, the golden vectors in PROTOCOL.md and the
// fuzz seed corpus. Changing a value here changes a golden vector: update PROTOCOL.md
// (test_proto_golden --print prints the blocks).
#pragma once

#include <stdbool.h>
#include <string.h>

#include <arbiter/collision.h>
#include <arbiter/protocol.h>
#include <arbiter/replay_log.h>
#include <arbiter/snapshot.h>
#include <arbiter/world.h>

#include <xxhash.h>

// Frames a replay record body as the log stores it (PROTOCOL.md, replay log): u32 LE body
// length, kind, three zero bytes, the body, then the XXH32 of all that before it (LE).
// Lets a test put any body, valid or not, behind a checksum the reader accepts.
// Returns the framed size (12 + blen).
static inline size_t fx_frame_record(uint8_t* out, const uint8_t* body, size_t blen, uint8_t kind) {
  out[0] = (uint8_t)blen;
  out[1] = (uint8_t)(blen >> 8);
  out[2] = (uint8_t)(blen >> 16);
  out[3] = (uint8_t)(blen >> 24);
  out[4] = kind;
  out[5] = out[6] = out[7] = 0;
  memcpy(out + 8, body, blen);
  uint32_t h = XXH32(out, 8 + blen, 0);
  for (int k = 0; k < 4; k++) out[8 + blen + (size_t)k] = (uint8_t)(h >> (8 * k));
  return 12 + blen;
}

static inline bool fx_is_kind(const char* name, const char* kind) {
  size_t k = strlen(kind);
  return !strncmp(name, kind, k) && (name[k] == '\0' || name[k] == '_');
}

// The storage a decoder takes from its caller: welcome's static bodies. Every other
// message decodes into its struct alone (the default).
static inline void fx_prepare_welcome(arb_proto_welcome* m) {
  static arb_proto_static_body statics[ARB_PROTO_MAX_STATIC];
  m->statics = statics;
  m->static_cap = ARB_PROTO_MAX_STATIC;
}
static inline void fx_prepare_nothing(void* m) {
  (void)m;
}
#define FX_PREPARE(m) \
  _Generic((m), arb_proto_welcome * : fx_prepare_welcome, default : fx_prepare_nothing)(m)

// Decodes n bytes as a message of type `type` with that row's decoder and re-encodes the
// result into out: one case per row of messages.def. True for a type the table lists,
// with the decode's status in *rc and, when it decoded, the re-encoded length in *again;
// false (nothing touched) for any other code.
static inline bool fx_reencode_type(int type, const uint8_t* b, size_t n, uint8_t* out, size_t cap,
                                    arb_proto_error* err, int* rc, int64_t* again) {
  switch (type) {
#define ARB_PROTO_MSG(NAME, name, code, channel, direction)       \
  case code: {                                                    \
    static arb_proto_##name m;                                    \
    memset(&m, 0, sizeof m);                                      \
    FX_PREPARE(&m);                                               \
    *rc = arb_proto_decode_##name(b, n, &m, err);                 \
    if (*rc == 0) *again = arb_proto_encode_##name(&m, out, cap); \
    return true;                                                  \
  }
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
    default:
      return false;
  }
}

// The messages the protocol tests decode on their own path, not through
// fx_reencode_plain: welcome (the tests give it their own storage) and the v1 snapshot
// (test_proto_malformed also applies what decodes). Names only: a row leaving messages.def
// needs no edit here.
static const char* const fx_own_path[] = {"welcome", "snapshot"};

// Decodes n bytes as the message `name` (a row of messages.def; a name may add a variant
// after an underscore: "input_fire" is an input) and re-encodes the result into out, as
// fx_reencode_type, for every message except those in fx_own_path. True for such a name,
// with *rc and *again as there; false (nothing touched) for any other name.
static inline bool fx_reencode_plain(const char* name, const uint8_t* b, size_t n, uint8_t* out,
                                     size_t cap, arb_proto_error* err, int* rc, int64_t* again) {
  for (size_t i = 0; i < sizeof fx_own_path / sizeof fx_own_path[0]; i++)
    if (fx_is_kind(name, fx_own_path[i])) return false;
#define ARB_PROTO_MSG(NAME, name_, code, channel, direction) \
  if (fx_is_kind(name, #name_)) return fx_reencode_type(code, b, n, out, cap, err, rc, again);
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
  return false;
}

static inline arb_proto_shape fx_box(float hw, float hh) {
  arb_proto_shape s;
  memset(&s, 0, sizeof s);
  s.kind = ARB_PROTO_SHAPE_POLYGON;
  s.count = 4;
  s.points[0] = arb_v2(-hw, -hh);
  s.points[1] = arb_v2(hw, -hh);
  s.points[2] = arb_v2(hw, hh);
  s.points[3] = arb_v2(-hw, hh);
  return s;
}

static inline arb_proto_shape fx_circle(float cx, float cy, float r) {
  arb_proto_shape s;
  memset(&s, 0, sizeof s);
  s.kind = ARB_PROTO_SHAPE_CIRCLE;
  s.count = 1;
  s.points[0] = arb_v2(cx, cy);
  s.radius = r;
  return s;
}

static inline arb_proto_shape fx_segment(float ax, float ay, float bx, float by) {
  arb_proto_shape s;
  memset(&s, 0, sizeof s);
  s.kind = ARB_PROTO_SHAPE_SEGMENT;
  s.count = 2;
  s.points[0] = arb_v2(ax, ay);
  s.points[1] = arb_v2(bx, by);
  return s;
}

static inline arb_proto_shape fx_capsule(float ax, float ay, float bx, float by, float r) {
  arb_proto_shape s = fx_segment(ax, ay, bx, by);
  s.kind = ARB_PROTO_SHAPE_CAPSULE;
  s.radius = r;
  return s;
}

static inline arb_proto_hello fx_hello(void) {
  arb_proto_hello m;
  memset(&m, 0, sizeof m);
  m.version = ARB_PROTO_VERSION;
  strcpy(m.name, "ada");
  m.token_len = 2;
  m.token[0] = 0xbe;
  m.token[1] = 0xef;
  m.avatar_kind = ARB_AVATAR_FORCE;
  m.max_kbps = 256;
  return m;
}

static arb_proto_static_body fx_statics[2];

static inline arb_proto_welcome fx_welcome(void) {
  arb_proto_welcome m;
  memset(&m, 0, sizeof m);
  m.client_id = 7;
  m.entity_id = 300;
  m.tick_rate = 60;
  m.snapshot_rate = 20;
  m.server_tick = 1000;
  strcpy(m.scene_name, "arena");
  m.scene_hash = 0x0123456789abcdefull;
  memset(fx_statics, 0, sizeof fx_statics);
  fx_statics[0].position = arb_v2(0.0f, 0.0f);
  fx_statics[0].angle = 0.0f;
  fx_statics[0].shape = fx_segment(-20.0f, 0.0f, 20.0f, 0.0f);
  fx_statics[1].position = arb_v2(5.0f, 2.5f);
  fx_statics[1].angle = 0.5f;
  fx_statics[1].shape = fx_box(1.0f, 0.5f);
  m.statics = fx_statics;
  m.static_count = 2;
  m.static_cap = 2;
  return m;
}

static inline arb_proto_reject fx_reject(void) {
  arb_proto_reject m;
  memset(&m, 0, sizeof m);
  m.reason = ARB_PROTO_REASON_FULL;
  m.server_version = ARB_PROTO_VERSION;
  strcpy(m.text, "server full");
  return m;
}

static inline arb_proto_input fx_input(void) {
  arb_proto_input m;
  memset(&m, 0, sizeof m);
  m.packet_seq = 500;
  m.ack_tick = 990;
  m.count = 2;
  m.cmds[0].seq = 501;
  m.cmds[0].controls.move_x = 127;
  m.cmds[0].controls.move_y = -127;
  m.cmds[0].controls.aim = 16384;
  m.cmds[0].controls.buttons = ARB_BUTTON_JUMP | ARB_BUTTON_FIRE;
  m.cmds[0].controls.steer = -64;
  m.cmds[0].controls.throttle = 255;
  m.cmds[0].controls.brake = 0;
  m.cmds[1].seq = 500;
  m.cmds[1].controls.move_x = 0;
  m.cmds[1].controls.move_y = 0;
  m.cmds[1].controls.aim = 65535;
  return m;
}

static inline arb_proto_event fx_event(void) {
  arb_proto_event m;
  memset(&m, 0, sizeof m);
  m.kind = ARB_PROTO_EVENT_JOINED;
  m.tick = 1000;
  m.client_id = 7;
  m.entity_id = 300;
  strcpy(m.text, "ada");
  return m;
}

static inline arb_proto_ping fx_ping(void) {
  arb_proto_ping m;
  memset(&m, 0, sizeof m);
  m.ping_id = 42;
  m.client_time_us = 1234567890123ull;
  return m;
}

static inline arb_proto_pong fx_pong(void) {
  arb_proto_pong m;
  memset(&m, 0, sizeof m);
  m.ping_id = 42;
  m.client_time_us = 1234567890123ull;
  m.server_tick = 1000;
  m.server_time_us = 16666000ull;
  return m;
}

/* A 40 m x 22.5 m camera box centred on (100, -20). */
static inline arb_proto_view fx_view(void) {
  arb_proto_view m;
  memset(&m, 0, sizeof m);
  m.active = true;
  m.min = arb_v2(80.0f, -31.25f);
  m.max = arb_v2(120.0f, -8.75f);
  return m;
}

static const char fx_scene_text[] = "{\"version\":1}";

/* A header of the current format for a session of scene_text (its hash as given), 60 Hz,
   seed 42. */
static inline arb_replay_header fx_replay_header_for_scene(const char* scene_text,
                                                           uint64_t scene_hash) {
  arb_replay_header h;
  memset(&h, 0, sizeof h);
  h.format_version = ARB_REPLAY_FORMAT_VERSION;
  h.build_id = "arbiter-0.1.0-test";
  h.build_id_len = strlen(h.build_id);
  h.scene_text = scene_text;
  h.scene_len = strlen(scene_text);
  h.scene_hash = scene_hash;
  h.tick_rate = 60;
  h.seed = 42;
  h.start_time_ms = 1763700000000ll;
  h.sim_version = 0x0102030405060708ull;
  return h;
}

static inline arb_replay_header fx_replay_header(void) {
  arb_replay_header h = fx_replay_header_for_scene(fx_scene_text, 0x1122334455667788ull);
  h.predecessor = "a.arbrec";  // a log that continues a.arbrec's match
  h.predecessor_len = strlen(h.predecessor);
  return h;
}

/* Fills a tick record (heap-allocated by the caller: it is large). */
static inline void fx_replay_tick(arb_replay_tick* t, uint64_t tick) {
  t->tick = tick;
  t->join_count = 1;
  t->joins[0].client_id = 7;
  t->joins[0].avatar_kind = ARB_AVATAR_FORCE;
  t->joins[0].entity_id = 300;
  strcpy(t->joins[0].name, "ada");
  t->leave_count = 1;
  t->leaves[0] = 3;
  t->input_count = 1;
  t->inputs[0].client_id = 7;
  t->inputs[0].seq = 501;
  memset(&t->inputs[0].controls, 0, sizeof t->inputs[0].controls);
  t->inputs[0].controls.move_x = 127;
  t->inputs[0].controls.aim = 16384;
  t->inputs[0].controls.buttons = ARB_BUTTON_JUMP;
  t->world_hash = 0xfedcba9876543210ull;
}

static const char fx_scene_body[] = "{\"version\":1,\"name\":\"arena\"}";

static inline arb_proto_scene fx_scene(void) {
  arb_proto_scene m;
  memset(&m, 0, sizeof m);
  m.tick = 1000;
  m.scene_hash = 0x0123456789abcdefull;
  m.text = fx_scene_body;
  m.text_len = (uint32_t)strlen(fx_scene_body);
  m.avatar_position = (arb_vec2){-4.0f, 2.5f};
  m.avatar_angle = 0.0f;
  m.avatar_velocity = (arb_vec2){0.0f, -0.1640625f};
  m.avatar_angular_velocity = 0.0f;
  return m;
}

static const uint8_t fx_checkpoint_state[] = {1, 2, 3, 4};

static inline arb_replay_checkpoint fx_replay_checkpoint(uint64_t tick) {
  arb_replay_checkpoint c = {tick, 0xfedcba9876543210ull, fx_checkpoint_state,
                             sizeof fx_checkpoint_state};
  return c;
}

static inline arb_replay_end fx_replay_end(uint64_t last_tick, uint64_t count) {
  arb_replay_end e = {last_tick, count, 1763700060000ll};
  return e;
}

// ---- the golden vectors: one per message kind and replay record kind --------------------

/* A snapshot part (PROTOCOL.md §6): tick 1020 against 1010 at 60 Hz
 * under gravity -9.81 m/s^2; entity 12 corrected after a contact, entity 40 removed,
 * entity 301 (a circle body) entering. */
static inline void fx_snapshot_delta(arb_snapshot_part* p) {
  memset(p, 0, sizeof *p);
  p->h = (arb_snapshot_header){1020, 1010, 499, 0, 1, 60, 0, -2511};
  arb_snapshot_record* r = p->records;
  r[0].id = 12;
  r[0].op = ARB_SNAPSHOT_UPDATE;
  r[0].mask = ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_VEL;
  r[0].v.x = -3;
  r[0].v.y = 1;
  r[0].v.vx = 40;
  r[0].v.vy = -84;
  r[1].id = 40;
  r[1].op = ARB_SNAPSHOT_REMOVE;
  r[2].id = 301;
  r[2].op = ARB_SNAPSHOT_ENTER;
  r[2].cls = ARB_SNAPSHOT_BODY;
  r[2].v.x = 640;
  r[2].v.y = -128;
  r[2].v.angle = 8192;
  r[2].v.vx = 256;
  r[2].v.w = -10430;
  p->record_count = 3;
  arb_snapshot_desc* d = &p->descs[0];
  d->cls = ARB_SNAPSHOT_BODY;
  d->shape_count = 1;
  d->shapes[0].kind = ARB_SHAPE_CIRCLE;
  d->shapes[0].count = 1;
  d->shapes[0].radius = 0.25f;
  p->desc_count = 1;
}

/* The same part with entity 301 a capsule body (1 m between centres, radius 0.25 m). */
static inline void fx_snapshot_capsule(arb_snapshot_part* p) {
  fx_snapshot_delta(p);
  p->descs[0].shapes[0] = fx_capsule(-0.5f, 0.0f, 0.5f, 0.0f, 0.25f);
}

/* The same part with entity 301 a compound body: two circles of radius 0.25 m at (-0.5, 0)
   and (0.5, 0) (a dumbbell). */
static inline void fx_snapshot_compound(arb_snapshot_part* p) {
  fx_snapshot_delta(p);
  arb_snapshot_desc* d = &p->descs[0];
  d->shape_count = 2;
  d->shapes[0].points[0] = arb_v2(-0.5f, 0.0f);
  d->shapes[1] = d->shapes[0];
  d->shapes[1].points[0] = arb_v2(0.5f, 0.0f);
}

/* A welcome whose level is one chain of 9 points (8 links), listed left to right: two
   pieces of kind 6, the second starting where the first ends. */
static inline arb_proto_welcome fx_welcome_chain(void) {
  static const arb_vec2 pts[9] = {{-8, 2}, {-6, 1},   {-4, 0.5f}, {-2, 0}, {0, 0},
                                  {2, 0},  {4, 0.5f}, {6, 1},     {8, 2}};
  static arb_proto_static_body statics[2];
  static arb_proto_shape pieces[2];
  arb_proto_welcome m = fx_welcome();
  arb_chain chain = {pts, 9, false};
  int n = arb_proto_chain_pieces(&chain, pieces, 2);
  memset(statics, 0, sizeof statics);
  for (int k = 0; k < n && k < 2; k++) {
    statics[k].position = arb_v2(0.0f, -1.0f);
    statics[k].shape = pieces[k];
  }
  m.statics = statics;
  m.static_count = n == 2 ? 2 : 0;
  m.static_cap = 2;
  return m;
}

/* Golden vectors: one encoder each, listed in fx_golden (the order is the vectors' index).
   A message's own fixture encoded as it is makes a plain vector. */
typedef int64_t fx_golden_fn(uint8_t* buf, size_t cap);
#define FX_PLAIN_GOLDEN(name)                                        \
  static inline int64_t fx_golden_##name(uint8_t* buf, size_t cap) { \
    arb_proto_##name m = fx_##name();                                \
    return arb_proto_encode_##name(&m, buf, cap);                    \
  }
FX_PLAIN_GOLDEN(hello)
FX_PLAIN_GOLDEN(welcome)
FX_PLAIN_GOLDEN(reject)
FX_PLAIN_GOLDEN(input)
FX_PLAIN_GOLDEN(event)
FX_PLAIN_GOLDEN(ping)
FX_PLAIN_GOLDEN(pong)
FX_PLAIN_GOLDEN(scene)
FX_PLAIN_GOLDEN(view)
static inline int64_t fx_golden_replay_header(uint8_t* buf, size_t cap) {
  arb_replay_header h = fx_replay_header();
  return arb_replay_encode_header(&h, buf, cap);
}
static inline int64_t fx_golden_replay_tick(uint8_t* buf, size_t cap) {
  static arb_replay_tick tick;
  memset(&tick, 0, sizeof tick);
  fx_replay_tick(&tick, 1001);
  return arb_replay_encode_tick(&tick, buf, cap);
}
static inline int64_t fx_golden_replay_checkpoint(uint8_t* buf, size_t cap) {
  arb_replay_checkpoint c = fx_replay_checkpoint(1001);
  return arb_replay_encode_checkpoint(&c, buf, cap);
}
static inline int64_t fx_golden_replay_end(uint8_t* buf, size_t cap) {
  arb_replay_end e = fx_replay_end(1001, 1);
  return arb_replay_encode_end(&e, buf, cap);
}
/* A snapshot part made by fill (fx_snapshot_delta, _capsule, _compound). */
static inline int64_t fx_golden_part(void (*fill)(arb_snapshot_part*), uint8_t* buf, size_t cap) {
  static arb_snapshot_part part;
  fill(&part);
  return arb_proto_encode_snapshot(&part, buf, cap);
}
static inline int64_t fx_golden_snapshot_delta(uint8_t* buf, size_t cap) {
  return fx_golden_part(fx_snapshot_delta, buf, cap);
}
static inline int64_t fx_golden_snapshot_capsule(uint8_t* buf, size_t cap) {
  return fx_golden_part(fx_snapshot_capsule, buf, cap);
}
static inline int64_t fx_golden_snapshot_compound(uint8_t* buf, size_t cap) {
  return fx_golden_part(fx_snapshot_compound, buf, cap);
}
/* A shot at tick 501 by a player who saw tick 489 and a half. */
static inline int64_t fx_golden_input_fire(uint8_t* buf, size_t cap) {
  arb_proto_input m = fx_input();
  m.cmds[0].view_time = 489 * 256 + 128;
  return arb_proto_encode_input(&m, buf, cap);
}
static inline int64_t fx_golden_event_hit(uint8_t* buf, size_t cap) {
  arb_proto_event m = fx_event();
  m.kind = ARB_PROTO_EVENT_HIT;
  m.entity_id = 301;
  memset(m.text, 0, sizeof m.text);  // a hit names no one
  return arb_proto_encode_event(&m, buf, cap);
}
static inline int64_t fx_golden_replay_tick_fire(uint8_t* buf, size_t cap) {
  static arb_replay_tick tick;
  memset(&tick, 0, sizeof tick);
  fx_replay_tick(&tick, 1001);
  tick.inputs[0].controls.buttons = ARB_BUTTON_FIRE;
  tick.inputs[0].view_time = 489 * 256 + 128;
  return arb_replay_encode_tick(&tick, buf, cap);
}
/* Watch without an avatar. */
static inline int64_t fx_golden_hello_spectate(uint8_t* buf, size_t cap) {
  arb_proto_hello m = fx_hello();
  m.token_len = 0;
  m.avatar_kind = ARB_PROTO_SPECTATOR;
  m.max_kbps = 0;
  return arb_proto_encode_hello(&m, buf, cap);
}
static inline int64_t fx_golden_view_clear(uint8_t* buf, size_t cap) {
  arb_proto_view m;
  memset(&m, 0, sizeof m);
  return arb_proto_encode_view(&m, buf, cap);
}
static inline int64_t fx_golden_welcome_chain(uint8_t* buf, size_t cap) {
  arb_proto_welcome m = fx_welcome_chain();
  return arb_proto_encode_welcome(&m, buf, cap);
}
/* A player that does not predict: no scene message. */
static inline int64_t fx_golden_hello_no_scene(uint8_t* buf, size_t cap) {
  arb_proto_hello m = fx_hello();
  m.flags = ARB_PROTO_HELLO_NO_SCENE;
  return arb_proto_encode_hello(&m, buf, cap);
}
/* The match moved after tick 1000: client 7 (avatar 301) is told where it went. */
static inline int64_t fx_event_moved(const char* where, uint8_t* buf, size_t cap) {
  arb_proto_event m;
  memset(&m, 0, sizeof m);
  m.kind = ARB_PROTO_EVENT_MOVED;
  m.tick = 1000;
  m.client_id = 7;
  m.entity_id = 301;
  snprintf(m.text, sizeof m.text, "%s", where);
  return arb_proto_encode_event(&m, buf, cap);
}
/* ... an ENet client: B's UDP address. */
static inline int64_t fx_golden_event_moved(uint8_t* buf, size_t cap) {
  return fx_event_moved("203.0.113.9:7777", buf, cap);
}
/* ... a WebSocket client: B's URL. */
static inline int64_t fx_golden_event_moved_ws(uint8_t* buf, size_t cap) {
  return fx_event_moved("wss://b.example.com/play", buf, cap);
}

#define FX_GOLDEN(name) \
  { #name, fx_golden_##name }
static const struct {
  const char* name;
  fx_golden_fn* encode;
} fx_golden[] = {
    FX_GOLDEN(hello),          FX_GOLDEN(welcome),
    FX_GOLDEN(reject),         FX_GOLDEN(input),
    FX_GOLDEN(event),          FX_GOLDEN(ping),
    FX_GOLDEN(pong),           FX_GOLDEN(replay_header),
    FX_GOLDEN(replay_tick),    FX_GOLDEN(replay_checkpoint),
    FX_GOLDEN(replay_end),     FX_GOLDEN(snapshot_delta),
    FX_GOLDEN(scene),          FX_GOLDEN(input_fire),
    FX_GOLDEN(event_hit),      FX_GOLDEN(replay_tick_fire),
    FX_GOLDEN(hello_spectate), FX_GOLDEN(snapshot_capsule),
    FX_GOLDEN(view),           FX_GOLDEN(view_clear),
    FX_GOLDEN(welcome_chain),  FX_GOLDEN(snapshot_compound),
    FX_GOLDEN(hello_no_scene), FX_GOLDEN(event_moved),
    FX_GOLDEN(event_moved_ws),
};
#define FX_GOLDEN_COUNT ((int)(sizeof fx_golden / sizeof fx_golden[0]))

/* Encode golden vector i into buf; returns bytes needed or a negative ARB_E_*. */
static inline int64_t fx_golden_encode(int i, uint8_t* buf, size_t cap) {
  return i >= 0 && i < FX_GOLDEN_COUNT ? fx_golden[i].encode(buf, cap) : ARB_E_INVAL;
}
