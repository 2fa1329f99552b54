// Internal: pieces of the message codec shared by the message encoders/decoders, the
// snapshot builder (which measures single entities) and the replay log.
#pragma once

#include "mp.h"

/// Check a message struct field by field before encoding (encoders never write an
/// invalid message). Each returns 0 or a negative ARB_E_*.
int arb__check_shape(const arb_proto_shape* s);
int arb__check_desc(const arb_proto_entity_desc* d);
int arb__check_controls(const arb_proto_controls_q* c);

/// One row of shapes.def with the conversion of its points (shape_wire.c).
typedef struct arb__shape_kind_row {
  const char* name;
  arb_shape_type type;
  int min_points, max_points;
  int has_radius;
  int (*count)(const arb_shape_geometry* g);                 ///< points the geometry has
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

void arb__pack_entered(msgpack_packer* pk, const arb_proto_entered* e);
void arb__pack_changed(msgpack_packer* pk, const arb_proto_changed* c);

/// Message header: checks element 0 is `type` and the array has exactly `fields`
/// elements (type included), and that the input is not larger than `max_len`.
int arb__dec_header(arb__dec* d, arb_proto_msg_type type, uint32_t fields, size_t max_len);

static inline int arb__popcount6(unsigned m) {
  int n = 0;
  for (int i = 0; i < 6; i++) n += (int)((m >> i) & 1u);
  return n;
}
