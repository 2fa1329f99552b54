// Test helper: build msgpack bytes by hand with msgpack-c's sbuffer (to craft messages
// our encoders would refuse: wrong types, other float encodings, bad values).
#pragma once

#include <arbiter/protocol.h>
#include <msgpack.h>
#include <string.h>

typedef struct tmp_buf {
  msgpack_sbuffer sb;
  msgpack_packer pk;
} tmp_buf;

static inline void tmp_init(tmp_buf* t) {
  msgpack_sbuffer_init(&t->sb);
  msgpack_packer_init(&t->pk, &t->sb, msgpack_sbuffer_write);
}
static inline void tmp_free(tmp_buf* t) {
  msgpack_sbuffer_destroy(&t->sb);
}
static inline void tmp_str(tmp_buf* t, const char* s) {
  msgpack_pack_str_with_body(&t->pk, s, strlen(s));
}
// Starts a hand-built message: an array of `fields` elements, the first of them its type
// (element 0 of every message).
static inline void tmp_message(tmp_buf* t, uint32_t fields, arb_proto_msg_type type) {
  tmp_init(t);
  msgpack_pack_array(&t->pk, fields);
  msgpack_pack_uint8(&t->pk, (uint8_t)type);
}
