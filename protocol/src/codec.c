// Message codec: every message is one msgpack array [type, field, ...] (PROTOCOL.md,
// "Messages"). Encoders check the struct, then pack with msgpack-c into the caller's
// buffer; decoders read with the bounded reader in mp_read.c and check every field.
// Flat messages (reject, event, ping, pong: unsigned integers and texts only) are one
// field list each, which drives both their encoder and decoder (codec_flat.c).
//
//   hello    [1, version, name:str, token:bin, avatar_kind, max_kbps(, flags)]
//   welcome  [2, client_id, entity_id, tick_rate, snapshot_rate, server_tick,
//             scene_name:str, scene_hash, [[x, y, angle, shape], ...]]
//   reject   [3, reason, server_version, text:str]
//   input    [4, packet_seq, ack_tick, [[seq, mx, my, aim, buttons, steer, thr, brk(, view)], ...]]
//   event    [6, kind, tick, client_id, entity_id, code, text:str]
//   ping     [7, ping_id, client_time_us]
//   pong     [8, ping_id, client_time_us, server_tick, server_time_us]
//   scene    [9, tick, scene_hash, text:bin, [x, y, angle, vx, vy, w]]
//   view     [11, active, min_x, min_y, max_x, max_y]
//   shape    [kind, x0, y0, ... x(n-1), y(n-1)(, radius)]   (rows of shapes.def)
// Each array's element count is one constant in its message's section (<NAME>_LEN, type
// included), which its encoder packs and its decoder expects.
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <arbiter/collision.h>
#include <arbiter/world.h>

#include "codec.h"

// ---- shared pieces -----------------------------------------------------------------------

static bool coord_ok(float v) {
  return isfinite(v) && fabsf(v) <= ARB_PROTO_MAX_COORD;
}

int arb__check_shape(const arb_proto_shape* s) {
  const arb__shape_kind_row* row = arb__shape_row(s->kind);
  if (row == NULL || s->count < row->min_points || s->count > row->max_points) return ARB_E_INVAL;
  if (row->has_radius) {
    if (!isfinite(s->radius)) return ARB_E_NONFINITE;
    if (!(s->radius > 0.0f) || s->radius > ARB_PROTO_MAX_COORD) return ARB_E_RANGE;
  }
  for (int i = 0; i < s->count; i++) {
    if (!isfinite(s->points[i].x) || !isfinite(s->points[i].y)) return ARB_E_NONFINITE;
    if (!coord_ok(s->points[i].x) || !coord_ok(s->points[i].y)) return ARB_E_RANGE;
  }
  return 0;
}

// The controls on the wire, in this order: the one list that checks, packs and unpacks
// them, so a new control cannot be packed and forgotten in the decoder.
typedef struct controls_field {
  const char* name;
  size_t offset;     ///< in arb_proto_controls_q
  size_t size;       ///< 1 or 2 bytes
  int64_t min, max;  ///< min < 0: a signed field
} controls_field;

#define CONTROL(f, lo, hi) \
  { #f, offsetof(arb_proto_controls_q, f), sizeof(((arb_proto_controls_q*)0)->f), lo, hi }
static const controls_field controls_fields[] = {
    CONTROL(move_x, -127, 127), CONTROL(move_y, -127, 127),
    CONTROL(aim, 0, 65535),     CONTROL(buttons, 0, ARB_PROTO_MAX_BUTTONS),
    CONTROL(steer, -127, 127),  CONTROL(throttle, 0, 255),
    CONTROL(brake, 0, 255),
};
#undef CONTROL
#define CONTROLS_FIELD_COUNT ((int)(sizeof controls_fields / sizeof controls_fields[0]))

static int64_t control_get(const arb_proto_controls_q* c, const controls_field* f) {
  const uint8_t* p = (const uint8_t*)c + f->offset;
  if (f->size == 1) return f->min < 0 ? (int64_t)(int8_t)*p : (int64_t)*p;
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void control_set(arb_proto_controls_q* c, const controls_field* f, int64_t v) {
  uint8_t* p = (uint8_t*)c + f->offset;
  if (f->size == 1) {
    *p = (uint8_t)v;  // two's complement for the signed ones
    return;
  }
  uint16_t v16 = (uint16_t)v;
  memcpy(p, &v16, sizeof v16);
}

int arb__check_controls(const arb_proto_controls_q* c) {
  for (int i = 0; i < CONTROLS_FIELD_COUNT; i++) {
    int64_t v = control_get(c, &controls_fields[i]);
    if (v < controls_fields[i].min || v > controls_fields[i].max) return ARB_E_RANGE;
  }
  return 0;
}

void arb__pack_shape(msgpack_packer* pk, const arb_proto_shape* s) {
  int radius = arb__shape_row(s->kind)->has_radius;  // the caller checked the shape
  msgpack_pack_array(pk, (size_t)(1 + 2 * s->count + radius));
  msgpack_pack_uint8(pk, s->kind);
  for (int i = 0; i < s->count; i++) {
    msgpack_pack_float(pk, s->points[i].x);
    msgpack_pack_float(pk, s->points[i].y);
  }
  if (radius) msgpack_pack_float(pk, s->radius);
}

static const char* const point_field[2][ARB_MAX_POLYGON_VERTICES] = {
    {"shape.x0", "shape.x1", "shape.x2", "shape.x3", "shape.x4", "shape.x5", "shape.x6",
     "shape.x7"},
    {"shape.y0", "shape.y1", "shape.y2", "shape.y3", "shape.y4", "shape.y5", "shape.y6",
     "shape.y7"}};

// "4" for a fixed element count, "7, 9, ... 17" for a range (error messages).
static const char* element_counts(const arb__shape_kind_row* row, char* buf, size_t cap) {
  unsigned lo = 1u + 2u * (unsigned)row->min_points + (unsigned)row->has_radius;
  unsigned hi = 1u + 2u * (unsigned)row->max_points + (unsigned)row->has_radius;
  if (lo == hi)
    snprintf(buf, cap, "%u", lo);
  else
    snprintf(buf, cap, "%u, %u, ... %u", lo, lo + 2, hi);
  return buf;
}

int arb__unpack_shape(arb__dec* d, arb_proto_shape* s) {
  memset(s, 0, sizeof *s);
  size_t at = d->pos;
  uint32_t n;
  ARB__TRY(arb__dec_array(d, "shape", 1, 1 + 2 * ARB_MAX_POLYGON_VERTICES, &n));
  uint32_t kind;
  ARB__TRY(arb__dec_u32(d, "shape.kind", 1, ARB_PROTO_SHAPE_KIND_COUNT - 1, &kind));
  const arb__shape_kind_row* row = arb__shape_row((int)kind);
  uint32_t radius = (uint32_t)row->has_radius;
  uint32_t points = (n - 1 - (n > radius ? radius : 0)) / 2;
  if ((n - 1) % 2 != radius || points < (uint32_t)row->min_points ||
      points > (uint32_t)row->max_points) {
    char want[32];
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, "shape", "%s shape with %u elements, expected %s",
                         row->name, n, element_counts(row, want, sizeof want));
  }
  s->kind = (uint8_t)kind;
  s->count = (uint8_t)points;
  for (uint32_t i = 0; i < points; i++) {
    ARB__TRY(arb__dec_float(d, point_field[0][i], -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD,
                            &s->points[i].x));
    ARB__TRY(arb__dec_float(d, point_field[1][i], -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD,
                            &s->points[i].y));
  }
  if (radius) {
    size_t rat = d->pos;
    ARB__TRY(arb__dec_float(d, "shape.radius", 0.0, ARB_PROTO_MAX_COORD, &s->radius));
    if (!(s->radius > 0.0f)) {
      d->pos = rat;
      return arb__dec_fail(d, ARB_E_RANGE, "shape.radius", "must be > 0");
    }
  }
  return 0;
}

// msgpack_pack_int64 writes the smallest form of the value, the bytes the int8 / uint8 /
// uint16 packers write for it.
void arb__pack_controls(msgpack_packer* pk, const arb_proto_controls_q* c) {
  for (int i = 0; i < CONTROLS_FIELD_COUNT; i++)
    msgpack_pack_int64(pk, control_get(c, &controls_fields[i]));
}

int arb__unpack_controls(arb__dec* d, arb_proto_controls_q* c) {
  for (int i = 0; i < CONTROLS_FIELD_COUNT; i++) {
    const controls_field* f = &controls_fields[i];
    int64_t v;
    if (f->min < 0) {
      ARB__TRY(arb__dec_int(d, f->name, f->min, f->max, &v));
    } else {
      uint32_t u;
      ARB__TRY(arb__dec_u32(d, f->name, (uint32_t)f->min, (uint32_t)f->max, &u));
      v = u;
    }
    control_set(c, f, v);
  }
  return 0;
}

int arb__dec_header(arb__dec* d, arb_proto_msg_type type, uint32_t fields, size_t max_len) {
  if (d->len > max_len)
    return arb__dec_fail(d, ARB_E_TOO_BIG, NULL, "message of %zu bytes, at most %zu allowed",
                         d->len, max_len);
  uint32_t n;
  ARB__TRY(arb__dec_array(d, "message", 1, 255, &n));
  uint32_t t;
  size_t at = d->pos;
  ARB__TRY(arb__dec_u32(d, "type", 0, 255, &t));
  if (t != (uint32_t)type) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, "type", "message type %u (%s), expected %d (%s)", t,
                         arb_proto_msg_name((int)t), (int)type, arb_proto_msg_name(type));
  }
  if (n != fields) {
    d->pos = 0;
    return arb__dec_fail(d, ARB_E_CORRUPT, NULL, "array of %u elements, expected %u", n, fields);
  }
  return 0;
}

void arb__pack_header(msgpack_packer* pk, arb__wbuf* w, uint8_t* buf, size_t cap,
                      arb_proto_msg_type type, uint32_t fields) {
  arb__packer_init(pk, w, buf, cap);
  msgpack_pack_array(pk, fields);
  msgpack_pack_uint8(pk, (uint8_t)type);
}

int arb__dec_message(arb__dec* d, const arb__msg_frame* m, const uint8_t* buf, size_t len,
                     arb_proto_error* err) {
  arb__dec_init(d, buf, len, err, m->name);
  return arb__dec_header(d, m->type, m->fields, m->max_len);
}

void arb__pack_message(msgpack_packer* pk, arb__wbuf* w, uint8_t* buf, size_t cap,
                       const arb__msg_frame* m) {
  arb__pack_header(pk, w, buf, cap, m->type, m->fields);
}

int arb__pack_message_result(const arb__wbuf* w, const arb__msg_frame* m) {
  return w->len > m->max_len ? ARB_E_TOO_BIG : arb__wbuf_result(w);
}

int arb_proto_peek_type(const uint8_t* buf, size_t len, arb_proto_msg_type* type) {
  arb__dec d;
  arb__dec_init(&d, buf, len, NULL, "message");
  uint32_t n, t;
  ARB__TRY(arb__dec_array(&d, "message", 1, 255, &n));
  ARB__TRY(arb__dec_u32(&d, "type", 1, ARB_PROTO_MSG_TYPE_COUNT - 1, &t));
  if (!arb__msg_code_known((int)t))
    return arb__dec_fail(&d, ARB_E_RANGE, "type", "message type %u is retired", t);
  if (type) *type = (arb_proto_msg_type)t;
  return 0;
}

// ---- hello -------------------------------------------------------------------------------

enum {
  HELLO_LEN = 6,        // [1, version, name, token, avatar_kind, max_kbps]
  HELLO_LEN_FLAGS = 7,  // ... and flags, only when one is set
};

int arb_proto_encode_hello(const arb_proto_hello* m, uint8_t* buf, size_t cap) {
  if (!m) return ARB_E_INVAL;
  size_t nl = arb__strnlen(m->name, sizeof m->name);
  if (nl == 0 || nl > ARB_PROTO_MAX_NAME || !arb__utf8_valid((const uint8_t*)m->name, nl, true))
    return ARB_E_INVAL;
  if (m->token_len > ARB_PROTO_MAX_TOKEN) return ARB_E_RANGE;
  if (m->avatar_kind >= ARB_AVATAR_KIND_COUNT && m->avatar_kind != ARB_PROTO_SPECTATOR)
    return ARB_E_RANGE;
  if (m->flags & ~ARB_PROTO_HELLO_FLAGS) return ARB_E_RANGE;
  msgpack_packer pk;
  arb__wbuf w;
  // The flags only when any is set: a hello without them keeps its HELLO_LEN elements.
  arb__pack_header(&pk, &w, buf, cap, ARB_PROTO_MSG_HELLO, m->flags ? HELLO_LEN_FLAGS : HELLO_LEN);
  msgpack_pack_uint32(&pk, m->version);
  msgpack_pack_str_with_body(&pk, m->name, nl);
  msgpack_pack_bin_with_body(&pk, m->token, m->token_len);
  msgpack_pack_uint8(&pk, m->avatar_kind);
  msgpack_pack_uint32(&pk, m->max_kbps);
  if (m->flags) msgpack_pack_uint32(&pk, m->flags);
  return arb__wbuf_result(&w);
}

int arb_proto_decode_hello(const uint8_t* buf, size_t len, arb_proto_hello* out,
                           arb_proto_error* err) {
  arb__dec d;
  arb__dec_init(&d, buf, len, err, "hello");
  if (len > ARB_PROTO_MAX_PAYLOAD)
    return arb__dec_fail(&d, ARB_E_TOO_BIG, NULL, "message of %zu bytes, at most %d allowed", len,
                         ARB_PROTO_MAX_PAYLOAD);
  // [1, version] is frozen across protocol versions: check the version before the rest,
  // so a client of another version gets a clear "version" reject.
  uint32_t n, t;
  ARB__TRY(arb__dec_array(&d, "message", 2, 255, &n));
  size_t at = d.pos;
  ARB__TRY(arb__dec_u32(&d, "type", 0, 255, &t));
  if (t != ARB_PROTO_MSG_HELLO) {
    d.pos = at;
    return arb__dec_fail(&d, ARB_E_CORRUPT, "type", "message type %u (%s), expected 1 (hello)", t,
                         arb_proto_msg_name((int)t));
  }
  memset(out, 0, sizeof *out);
  at = d.pos;
  ARB__TRY(arb__dec_u32(&d, "version", 0, UINT32_MAX, &out->version));
  if (out->version != ARB_PROTO_VERSION) {
    d.pos = at;
    return arb__dec_fail(&d, ARB_E_VERSION, "version", "protocol version %u, this side speaks %u",
                         out->version, ARB_PROTO_VERSION);
  }
  if (n != HELLO_LEN && n != HELLO_LEN_FLAGS) {
    d.pos = 0;
    return arb__dec_fail(&d, ARB_E_CORRUPT, NULL, "array of %u elements, expected %d or %d", n,
                         HELLO_LEN, HELLO_LEN_FLAGS);
  }
  ARB__TRY(arb__dec_text(&d, "name", 1, ARB_PROTO_MAX_NAME, true, out->name));
  const uint8_t* tok;
  uint32_t tl;
  ARB__TRY(arb__dec_bin(&d, "token", ARB_PROTO_MAX_TOKEN, &tok, &tl));
  memcpy(out->token, tok, tl);
  out->token_len = (uint16_t)tl;
  uint32_t k;
  size_t kind_at = d.pos;
  ARB__TRY(arb__dec_u32(&d, "avatar_kind", 0, ARB_PROTO_SPECTATOR, &k));
  if (k >= ARB_AVATAR_KIND_COUNT && k != ARB_PROTO_SPECTATOR) {
    d.pos = kind_at;
    return arb__dec_fail(&d, ARB_E_RANGE, "avatar_kind",
                         "avatar kind %u, expected 0..%d or %u (spectator)", k,
                         ARB_AVATAR_KIND_COUNT - 1, ARB_PROTO_SPECTATOR);
  }
  out->avatar_kind = (uint8_t)k;
  ARB__TRY(arb__dec_u32(&d, "max_kbps", 0, ARB_PROTO_MAX_KBPS, &out->max_kbps));
  if (n == HELLO_LEN_FLAGS)
    ARB__TRY(arb__dec_u32(&d, "flags", 0, ARB_PROTO_HELLO_FLAGS, &out->flags));
  return arb__dec_end(&d);
}

// ---- welcome -----------------------------------------------------------------------------

enum {
  WELCOME_LEN = 9,      // [2, client_id, ... scene_hash, statics]
  STATIC_BODY_LEN = 4,  // [x, y, angle, shape]
};
static const arb__msg_frame welcome_msg = {ARB_PROTO_MSG_WELCOME, "welcome", WELCOME_LEN,
                                           ARB_PROTO_MAX_RELIABLE};

static int check_static(const arb_proto_static_body* b) {
  if (!isfinite(b->position.x) || !isfinite(b->position.y) || !isfinite(b->angle))
    return ARB_E_NONFINITE;
  if (!coord_ok(b->position.x) || !coord_ok(b->position.y) || !coord_ok(b->angle))
    return ARB_E_RANGE;
  return arb__check_shape(&b->shape);
}

int arb_proto_encode_welcome(const arb_proto_welcome* m, uint8_t* buf, size_t cap) {
  if (!m || m->client_id == 0) return ARB_E_INVAL;  // entity_id 0: a spectator
  if (m->tick_rate < 1 || m->tick_rate > 1000 || m->snapshot_rate < 1 ||
      m->snapshot_rate > m->tick_rate)
    return ARB_E_RANGE;
  size_t sl = arb__strnlen(m->scene_name, sizeof m->scene_name);
  if (sl > ARB_PROTO_MAX_SCENE_NAME || !arb__utf8_valid((const uint8_t*)m->scene_name, sl, false))
    return ARB_E_INVAL;
  if (m->static_count < 0 || m->static_count > ARB_PROTO_MAX_STATIC) return ARB_E_TOO_BIG;
  if (m->static_count > 0 && !m->statics) return ARB_E_INVAL;
  for (int i = 0; i < m->static_count; i++) ARB__TRY(check_static(&m->statics[i]));
  msgpack_packer pk;
  arb__wbuf w;
  arb__pack_message(&pk, &w, buf, cap, &welcome_msg);
  msgpack_pack_uint32(&pk, m->client_id);
  msgpack_pack_uint32(&pk, m->entity_id);
  msgpack_pack_uint16(&pk, m->tick_rate);
  msgpack_pack_uint16(&pk, m->snapshot_rate);
  msgpack_pack_uint32(&pk, m->server_tick);
  msgpack_pack_str_with_body(&pk, m->scene_name, sl);
  msgpack_pack_uint64(&pk, m->scene_hash);
  msgpack_pack_array(&pk, (size_t)m->static_count);
  for (int i = 0; i < m->static_count; i++) {
    const arb_proto_static_body* b = &m->statics[i];
    msgpack_pack_array(&pk, STATIC_BODY_LEN);
    msgpack_pack_float(&pk, b->position.x);
    msgpack_pack_float(&pk, b->position.y);
    msgpack_pack_float(&pk, b->angle);
    arb__pack_shape(&pk, &b->shape);
  }
  return arb__pack_message_result(&w, &welcome_msg);
}

int arb_proto_decode_welcome(const uint8_t* buf, size_t len, arb_proto_welcome* out,
                             arb_proto_error* err) {
  arb__dec d;
  ARB__TRY(arb__dec_message(&d, &welcome_msg, buf, len, err));
  arb_proto_static_body* statics = out->statics;
  int cap = out->static_cap;
  if (cap < 0 || (cap > 0 && !statics))
    return arb__dec_fail(&d, ARB_E_INVAL, NULL, "static_cap %d without storage", cap);
  memset(out, 0, sizeof *out);
  out->statics = statics;
  out->static_cap = cap;
  uint32_t u;
  ARB__TRY(arb__dec_u32(&d, "client_id", 1, UINT32_MAX, &out->client_id));
  ARB__TRY(arb__dec_u32(&d, "entity_id", 0, UINT32_MAX, &out->entity_id));  // 0: a spectator
  ARB__TRY(arb__dec_u32(&d, "tick_rate", 1, 1000, &u));
  out->tick_rate = (uint16_t)u;
  ARB__TRY(arb__dec_u32(&d, "snapshot_rate", 1, out->tick_rate, &u));
  out->snapshot_rate = (uint16_t)u;
  ARB__TRY(arb__dec_u32(&d, "server_tick", 0, UINT32_MAX, &out->server_tick));
  ARB__TRY(arb__dec_text(&d, "scene_name", 0, ARB_PROTO_MAX_SCENE_NAME, false, out->scene_name));
  ARB__TRY(arb__dec_uint(&d, "scene_hash", 0, UINT64_MAX, &out->scene_hash));
  uint32_t n;
  ARB__TRY(arb__dec_array(&d, "statics", 0, ARB_PROTO_MAX_STATIC, &n));
  if ((int)n > cap)
    return arb__dec_fail(&d, ARB_E_TOO_BIG, "statics",
                         "%u static bodies, the caller has room for %d", n, cap);
  d.list = "statics";
  d.id_label = "body";
  for (uint32_t i = 0; i < n; i++) {
    arb_proto_static_body* b = &statics[i];
    d.index = (int)i;
    uint32_t k;
    ARB__TRY(arb__dec_array(&d, NULL, STATIC_BODY_LEN, STATIC_BODY_LEN, &k));
    ARB__TRY(arb__dec_float(&d, "x", -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD, &b->position.x));
    ARB__TRY(arb__dec_float(&d, "y", -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD, &b->position.y));
    ARB__TRY(arb__dec_float(&d, "angle", -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD, &b->angle));
    ARB__TRY(arb__unpack_shape(&d, &b->shape));
  }
  out->static_count = (int)n;
  return arb__dec_end(&d);
}

// ---- reject ------------------------------------------------------------------------------

static const arb__flat_field reject_fields[] = {
    ARB__FLAT_UINT(arb_proto_reject, reason, 1, ARB_PROTO_REASON_COUNT - 1),
    ARB__FLAT_UINT(arb_proto_reject, server_version, 0, UINT32_MAX),
    ARB__FLAT_TEXT(arb_proto_reject, text, ARB_PROTO_MAX_TEXT),
};
static const arb__flat_msg reject_msg = ARB__FLAT_MSG(
    ARB_PROTO_MSG_REJECT, "reject", ARB_PROTO_MAX_RELIABLE, arb_proto_reject, reject_fields);

ARB__FLAT_CODEC(reject, ARB_E_RANGE)

// ---- input -------------------------------------------------------------------------------

enum {
  INPUT_LEN = 4,           // [4, packet_seq, ack_tick, cmds]
  INPUT_CMD_LEN = 8,       // [seq, the controls]
  INPUT_CMD_LEN_VIEW = 9,  // ... and view_time, only when it is set
};
_Static_assert(INPUT_CMD_LEN == 1 + CONTROLS_FIELD_COUNT,
               "an input command is its seq and the controls");
static const arb__msg_frame input_msg = {ARB_PROTO_MSG_INPUT, "input", INPUT_LEN,
                                         ARB_PROTO_MAX_PAYLOAD};

int arb_proto_encode_input(const arb_proto_input* m, uint8_t* buf, size_t cap) {
  if (!m || m->count < 0 || m->count > ARB_PROTO_MAX_INPUTS) return ARB_E_TOO_BIG;
  for (int i = 0; i < m->count; i++) {
    if (m->cmds[i].seq == 0 || (i > 0 && m->cmds[i].seq >= m->cmds[i - 1].seq)) return ARB_E_INVAL;
    ARB__TRY(arb__check_controls(&m->cmds[i].controls));
  }
  msgpack_packer pk;
  arb__wbuf w;
  arb__pack_message(&pk, &w, buf, cap, &input_msg);
  msgpack_pack_uint32(&pk, m->packet_seq);
  msgpack_pack_uint32(&pk, m->ack_tick);
  msgpack_pack_array(&pk, (size_t)m->count);
  for (int i = 0; i < m->count; i++) {
    bool view = m->cmds[i].view_time != 0;
    msgpack_pack_array(&pk, view ? INPUT_CMD_LEN_VIEW : INPUT_CMD_LEN);
    msgpack_pack_uint32(&pk, m->cmds[i].seq);
    arb__pack_controls(&pk, &m->cmds[i].controls);
    if (view) msgpack_pack_uint64(&pk, m->cmds[i].view_time);
  }
  return arb__pack_message_result(&w, &input_msg);
}

int arb_proto_decode_input(const uint8_t* buf, size_t len, arb_proto_input* out,
                           arb_proto_error* err) {
  arb__dec d;
  ARB__TRY(arb__dec_message(&d, &input_msg, buf, len, err));
  out->count = 0;
  ARB__TRY(arb__dec_u32(&d, "packet_seq", 0, UINT32_MAX, &out->packet_seq));
  ARB__TRY(arb__dec_u32(&d, "ack_tick", 0, UINT32_MAX, &out->ack_tick));
  uint32_t n;
  ARB__TRY(arb__dec_array(&d, "inputs", 0, ARB_PROTO_MAX_INPUTS, &n));
  d.list = "inputs";
  d.id_label = "seq";
  for (uint32_t i = 0; i < n; i++) {
    arb_proto_input_cmd* c = &out->cmds[i];
    d.index = (int)i;
    d.id = 0;
    uint32_t k;
    ARB__TRY(arb__dec_array(&d, NULL, INPUT_CMD_LEN, INPUT_CMD_LEN_VIEW, &k));
    size_t at = d.pos;
    ARB__TRY(arb__dec_u32(&d, "seq", 1, UINT32_MAX, &c->seq));
    if (i > 0 && c->seq >= out->cmds[i - 1].seq) {
      d.pos = at;
      return arb__dec_fail(&d, ARB_E_CORRUPT, "seq", "%u after %u: inputs must be newest first",
                           c->seq, out->cmds[i - 1].seq);
    }
    d.id = c->seq;
    ARB__TRY(arb__unpack_controls(&d, &c->controls));
    c->view_time = 0;
    if (k == INPUT_CMD_LEN_VIEW)
      ARB__TRY(arb__dec_uint(&d, "view_time", 1, UINT64_MAX, &c->view_time));
  }
  out->count = (int)n;
  return arb__dec_end(&d);
}

// ---- event -------------------------------------------------------------------------------

static const arb__flat_field event_fields[] = {
    ARB__FLAT_UINT(arb_proto_event, kind, 1, ARB_PROTO_EVENT_KIND_COUNT - 1),
    ARB__FLAT_UINT(arb_proto_event, tick, 0, UINT32_MAX),
    ARB__FLAT_UINT(arb_proto_event, client_id, 0, UINT32_MAX),
    ARB__FLAT_UINT(arb_proto_event, entity_id, 0, UINT32_MAX),
    ARB__FLAT_UINT(arb_proto_event, code, 0, ARB_PROTO_REASON_COUNT - 1),
    ARB__FLAT_TEXT(arb_proto_event, text, ARB_PROTO_MAX_TEXT),
};
static const arb__flat_msg event_msg = ARB__FLAT_MSG(
    ARB_PROTO_MSG_EVENT, "event", ARB_PROTO_MAX_RELIABLE, arb_proto_event, event_fields);

ARB__FLAT_CODEC(event, ARB_E_RANGE)

// ---- ping / pong -------------------------------------------------------------------------

static const arb__flat_field ping_fields[] = {
    ARB__FLAT_UINT(arb_proto_ping, ping_id, 0, UINT32_MAX),
    ARB__FLAT_UINT(arb_proto_ping, client_time_us, 0, UINT64_MAX),
};
static const arb__flat_msg ping_msg =
    ARB__FLAT_MSG(ARB_PROTO_MSG_PING, "ping", ARB_PROTO_MAX_PAYLOAD, arb_proto_ping, ping_fields);

ARB__FLAT_CODEC(ping, ARB_E_INVAL)

static const arb__flat_field pong_fields[] = {
    ARB__FLAT_UINT(arb_proto_pong, ping_id, 0, UINT32_MAX),
    ARB__FLAT_UINT(arb_proto_pong, client_time_us, 0, UINT64_MAX),
    ARB__FLAT_UINT(arb_proto_pong, server_tick, 0, UINT32_MAX),
    ARB__FLAT_UINT(arb_proto_pong, server_time_us, 0, UINT64_MAX),
};
static const arb__flat_msg pong_msg =
    ARB__FLAT_MSG(ARB_PROTO_MSG_PONG, "pong", ARB_PROTO_MAX_PAYLOAD, arb_proto_pong, pong_fields);

ARB__FLAT_CODEC(pong, ARB_E_INVAL)

// ---- scene -------------------------------------------------------------------------------

enum {
  SCENE_LEN = 5,         // [9, tick, scene_hash, text, avatar]
  SCENE_AVATAR_LEN = 6,  // [x, y, angle, vx, vy, w]
};
static const char* const scene_avatar_field[SCENE_AVATAR_LEN] = {"x",  "y",  "angle",
                                                                 "vx", "vy", "w"};
static const arb__msg_frame scene_msg = {ARB_PROTO_MSG_SCENE, "scene", SCENE_LEN,
                                         ARB_PROTO_MAX_SCENE_MESSAGE};

int arb_proto_encode_scene(const arb_proto_scene* m, uint8_t* buf, size_t cap) {
  if (!m || !m->text || m->text_len == 0) return ARB_E_INVAL;
  if (m->text_len > ARB_PROTO_MAX_SCENE_TEXT) return ARB_E_TOO_BIG;
  const float v[SCENE_AVATAR_LEN] = {m->avatar_position.x, m->avatar_position.y,
                                     m->avatar_angle,      m->avatar_velocity.x,
                                     m->avatar_velocity.y, m->avatar_angular_velocity};
  for (int i = 0; i < SCENE_AVATAR_LEN; i++) {
    if (!isfinite(v[i])) return ARB_E_NONFINITE;
    if (!coord_ok(v[i])) return ARB_E_RANGE;
  }
  msgpack_packer pk;
  arb__wbuf w;
  arb__pack_message(&pk, &w, buf, cap, &scene_msg);
  msgpack_pack_uint32(&pk, m->tick);
  msgpack_pack_uint64(&pk, m->scene_hash);
  msgpack_pack_bin_with_body(&pk, m->text, m->text_len);
  msgpack_pack_array(&pk, SCENE_AVATAR_LEN);
  for (int i = 0; i < SCENE_AVATAR_LEN; i++) msgpack_pack_float(&pk, v[i]);
  return arb__pack_message_result(&w, &scene_msg);
}

int arb_proto_decode_scene(const uint8_t* buf, size_t len, arb_proto_scene* out,
                           arb_proto_error* err) {
  arb__dec d;
  ARB__TRY(arb__dec_message(&d, &scene_msg, buf, len, err));
  memset(out, 0, sizeof *out);
  ARB__TRY(arb__dec_u32(&d, "tick", 0, UINT32_MAX, &out->tick));
  ARB__TRY(arb__dec_uint(&d, "scene_hash", 0, UINT64_MAX, &out->scene_hash));
  const uint8_t* text;
  uint32_t n;
  ARB__TRY(arb__dec_bin(&d, "text", ARB_PROTO_MAX_SCENE_TEXT, &text, &n));
  if (n == 0) return arb__dec_fail(&d, ARB_E_INVAL, "text", "empty scene text");
  out->text = (const char*)text;
  out->text_len = n;
  uint32_t k;
  ARB__TRY(arb__dec_array(&d, "avatar", SCENE_AVATAR_LEN, SCENE_AVATAR_LEN, &k));
  float v[SCENE_AVATAR_LEN];
  for (int i = 0; i < SCENE_AVATAR_LEN; i++)
    ARB__TRY(arb__dec_float(&d, scene_avatar_field[i], -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD,
                            &v[i]));
  out->avatar_position = (arb_vec2){v[0], v[1]};
  out->avatar_angle = v[2];
  out->avatar_velocity = (arb_vec2){v[3], v[4]};
  out->avatar_angular_velocity = v[5];
  return arb__dec_end(&d);
}

// ---- view --------------------------------------------------------------------------------

enum {
  VIEW_BOX_LEN = 4,             // min_x, min_y, max_x, max_y (inline, not an array)
  VIEW_LEN = 2 + VIEW_BOX_LEN,  // [11, active, the box]
};
static const char* const view_box_field[VIEW_BOX_LEN] = {"min_x", "min_y", "max_x", "max_y"};
static const arb__msg_frame view_msg = {ARB_PROTO_MSG_VIEW, "view", VIEW_LEN,
                                        ARB_PROTO_MAX_PAYLOAD};

// 0 or the ARB_E_* a view box breaks: finite corners within the coordinate range, min <=
// max, and no side longer than ARB_PROTO_MAX_VIEW_SIDE; a cleared box is all zeros.
static int check_view(const arb_proto_view* m, const char** why) {
  const float v[VIEW_BOX_LEN] = {m->min.x, m->min.y, m->max.x, m->max.y};
  for (int i = 0; i < VIEW_BOX_LEN; i++) {
    if (!isfinite(v[i])) return *why = "NaN or infinity", ARB_E_NONFINITE;
    if (!coord_ok(v[i])) return *why = "a coordinate beyond the world range", ARB_E_RANGE;
  }
  if (!m->active) {
    for (int i = 0; i < VIEW_BOX_LEN; i++)
      if (v[i] != 0.0f)
        return *why = "a cleared box (active 0) must have zero corners", ARB_E_RANGE;
    return 0;
  }
  if (!(m->min.x <= m->max.x) || !(m->min.y <= m->max.y))
    return *why = "min above max", ARB_E_RANGE;
  if (m->max.x - m->min.x > ARB_PROTO_MAX_VIEW_SIDE ||
      m->max.y - m->min.y > ARB_PROTO_MAX_VIEW_SIDE)
    return *why = "a side longer than the view box limit", ARB_E_RANGE;
  return 0;
}

int arb_proto_encode_view(const arb_proto_view* m, uint8_t* buf, size_t cap) {
  const char* why;
  if (!m) return ARB_E_INVAL;
  ARB__TRY(check_view(m, &why));
  msgpack_packer pk;
  arb__wbuf w;
  arb__pack_message(&pk, &w, buf, cap, &view_msg);
  msgpack_pack_uint8(&pk, m->active ? 1 : 0);
  msgpack_pack_float(&pk, m->min.x);
  msgpack_pack_float(&pk, m->min.y);
  msgpack_pack_float(&pk, m->max.x);
  msgpack_pack_float(&pk, m->max.y);
  return arb__pack_message_result(&w, &view_msg);
}

int arb_proto_decode_view(const uint8_t* buf, size_t len, arb_proto_view* out,
                          arb_proto_error* err) {
  arb__dec d;
  ARB__TRY(arb__dec_message(&d, &view_msg, buf, len, err));
  memset(out, 0, sizeof *out);
  uint32_t active;
  ARB__TRY(arb__dec_u32(&d, "active", 0, 1, &active));
  float v[VIEW_BOX_LEN];
  for (int i = 0; i < VIEW_BOX_LEN; i++)
    ARB__TRY(
        arb__dec_float(&d, view_box_field[i], -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD, &v[i]));
  out->active = active != 0;
  out->min = (arb_vec2){v[0], v[1]};
  out->max = (arb_vec2){v[2], v[3]};
  const char* why;
  int rc = check_view(out, &why);
  if (rc != 0) {
    memset(out, 0, sizeof *out);
    return arb__dec_fail(&d, rc, "box", "%s (sides at most %g m)", why,
                         (double)ARB_PROTO_MAX_VIEW_SIDE);
  }
  return arb__dec_end(&d);
}
