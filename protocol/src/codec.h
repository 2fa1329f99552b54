// Internal: pieces of the message codec shared by the message encoders/decoders, the
// snapshot codec (shapes of descriptions) and the replay log.
#pragma once

#include <stddef.h>

#include "mp.h"

/// Check a message struct field by field before encoding (encoders never write an
/// invalid message). Each returns 0 or a negative ARB_E_*.
int arb__check_shape(const arb_proto_shape* s);
int arb__check_controls(const arb_proto_controls_q* c);

/// One row of shapes.def with the conversion of its points (shape_wire.c).
typedef struct arb__shape_kind_row {
  const char* name;
  arb_shape_type type;
  int min_points, max_points;
  int has_radius;
  int (*count)(const arb_shape_geometry* g);                     ///< points the geometry has
  void (*put)(const arb_shape_geometry* g, arb_proto_shape* s);  ///< points (+ radius) out
  void (*get)(const arb_proto_shape* s, arb_shape_geometry* g);  ///< points (+ radius) in
} arb__shape_kind_row;

/// The row of a wire shape kind; NULL for codes shapes.def does not list.
const arb__shape_kind_row* arb__shape_row(int kind);

void arb__pack_shape(msgpack_packer* pk, const arb_proto_shape* s);
int arb__unpack_shape(arb__dec* d, arb_proto_shape* s);

void arb__pack_controls(msgpack_packer* pk, const arb_proto_controls_q* c);
/// Reads the 7 control fields (not an array: the caller's array holds them inline).
int arb__unpack_controls(arb__dec* d, arb_proto_controls_q* c);

/// 1 when messages.def lists `type` (names.c), 0 for an unknown or retired code.
int arb__msg_code_known(int type);

/// Message header: checks element 0 is `type` and the array has exactly `fields`
/// elements (type included), and that the input is not larger than `max_len`.
int arb__dec_header(arb__dec* d, arb_proto_msg_type type, uint32_t fields, size_t max_len);
/// The encoder's side: starts a message in buf[0..cap) (pk writes through w) with its
/// array header of `fields` elements (type included) and its type.
void arb__pack_header(msgpack_packer* pk, arb__wbuf* w, uint8_t* buf, size_t cap,
                      arb_proto_msg_type type, uint32_t fields);

/// What a message's encoder and decoder agree on besides its fields, stated once.
typedef struct arb__msg_frame {
  arb_proto_msg_type type;
  const char* name;  ///< as in decode errors ("welcome")
  uint32_t fields;   ///< array elements, the type included
  size_t max_len;    ///< the largest encoding, in bytes
} arb__msg_frame;

/// Starts decoding message `m` from buf[0..len): arb__dec_init, then arb__dec_header.
int arb__dec_message(arb__dec* d, const arb__msg_frame* m, const uint8_t* buf, size_t len,
                     arb_proto_error* err);
/// Starts encoding message `m` (arb__pack_header with its type and element count).
void arb__pack_message(msgpack_packer* pk, arb__wbuf* w, uint8_t* buf, size_t cap,
                       const arb__msg_frame* m);
/// The encoder's result: the length of message `m`, or ARB_E_TOO_BIG past m->max_len.
int arb__pack_message_result(const arb__wbuf* w, const arb__msg_frame* m);

// ---- flat messages: [type, field, ...] of unsigned integers and texts ----------------------
// One field list per message drives both its encoder and its decoder (codec_flat.c), so a
// field cannot be written and forgotten when read.

typedef enum arb__flat_kind {
  ARB__FLAT_KIND_UINT,  ///< an unsigned member of 1, 2, 4 or 8 bytes, within [min, max]
  ARB__FLAT_KIND_TEXT,  ///< a char array member: UTF-8 without NUL, at most `max` bytes
} arb__flat_kind;

typedef struct arb__flat_field {
  const char* name;  ///< as in decode errors and PROTOCOL.md
  arb__flat_kind kind;
  size_t offset, size;  ///< the struct member
  uint64_t min, max;
} arb__flat_field;

typedef struct arb__flat_msg {
  arb__msg_frame frame;  ///< its fields: the type and one element per field
  size_t struct_size;    ///< sizeof the message struct
  int field_count;
  const arb__flat_field* fields;
} arb__flat_msg;

#define ARB__FLAT_UINT(type, member, lo, hi) \
  { #member, ARB__FLAT_KIND_UINT, offsetof(type, member), sizeof(((type*)0)->member), (lo), (hi) }
#define ARB__FLAT_TEXT(type, member, most) \
  { #member, ARB__FLAT_KIND_TEXT, offsetof(type, member), sizeof(((type*)0)->member), 0, (most) }

#define ARB__FLAT_COUNT(fields) (sizeof(fields) / sizeof((fields)[0]))
#define ARB__FLAT_MSG(type, name, max_len, msg_struct, fields)                              \
  {                                                                                         \
    {(type), (name), (uint32_t)ARB__FLAT_COUNT(fields) + 1, (max_len)}, sizeof(msg_struct), \
        (int)ARB__FLAT_COUNT(fields), (fields)                                              \
  }

/// Defines arb_proto_encode_<name> and arb_proto_decode_<name> over <name>_msg (an
/// ARB__FLAT_MSG); the encoder returns null_rc for a NULL message.
#define ARB__FLAT_CODEC(name, null_rc)                                               \
  int arb_proto_encode_##name(const arb_proto_##name* m, uint8_t* buf, size_t cap) { \
    return m ? arb__encode_flat(&name##_msg, m, buf, cap) : (null_rc);               \
  }                                                                                  \
  int arb_proto_decode_##name(const uint8_t* buf, size_t len, arb_proto_##name* out, \
                              arb_proto_error* err) {                                \
    return arb__decode_flat(&name##_msg, buf, len, out, err);                        \
  }

/// Encoder: ARB_E_RANGE for an integer out of its range, ARB_E_INVAL for a bad text, else
/// the bytes needed (as the other encoders).
int arb__encode_flat(const arb__flat_msg* f, const void* m, uint8_t* buf, size_t cap);
/// Decoder: *out zeroed, then every field read and checked in order.
int arb__decode_flat(const arb__flat_msg* f, const uint8_t* buf, size_t len, void* out,
                     arb_proto_error* err);
