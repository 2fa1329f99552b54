// Protocol codec: round trips with boundary values, quantization, float encodings,
// reason strings.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "test_proto_fixtures.h"
#include "test_proto_msgpack.h"

static uint8_t buf[2 * 1024 * 1024];

// Encode m into buf, decode it into out and expect the same bytes back. A macro because
// each message has its own struct and encode/decode pair (and cmocka then names the
// caller's line).
#define ASSERT_ROUNDTRIP(kind, m, out)                                                \
  do {                                                                                \
    arb_proto_error rt_err;                                                           \
    int rt_n = arb_proto_encode_##kind(&(m), buf, sizeof buf);                        \
    assert_true(rt_n > 0);                                                            \
    assert_int_equal(arb_proto_decode_##kind(buf, (size_t)rt_n, &(out), &rt_err), 0); \
    assert_memory_equal(&(m), &(out), sizeof(m));                                     \
  } while (0)

// ---- quantization ------------------------------------------------------------------------

static void test_proto_quantize_pos(void** state) {
  (void)state;
  assert_int_equal(arb_proto_quantize_pos(0.0f), 0);
  assert_int_equal(arb_proto_quantize_pos(1.0f), 128);
  assert_int_equal(arb_proto_quantize_pos(1.0f / 256.0f), 1);  // half rounds away from zero
  assert_int_equal(arb_proto_quantize_pos(-1.0f / 256.0f), -1);
  assert_int_equal(arb_proto_quantize_pos(0.99f / 256.0f), 0);
  assert_int_equal(arb_proto_quantize_pos(NAN), 0);
  assert_int_equal(arb_proto_quantize_pos(INFINITY), INT32_MAX);
  assert_int_equal(arb_proto_quantize_pos(-INFINITY), -INT32_MAX);
  assert_int_equal(arb_proto_quantize_pos(1e9f), INT32_MAX);
  assert_int_equal(arb_proto_quantize_pos(-1e6f), -128000000);
  assert_true(arb_proto_dequantize_pos(128) == 1.0f);
  assert_true(arb_proto_dequantize_pos(-1) == -1.0f / 128.0f);
  assert_int_equal(arb_proto_quantize_vel(1.0f), 256);
  assert_true(arb_proto_dequantize_vel(-256) == -1.0f);
  // Error is at most half a step over the scene's range.
  for (float v = -1.0e6f; v <= 1.0e6f; v += 12345.678f) {
    float back = arb_proto_dequantize_pos(arb_proto_quantize_pos(v));
    assert_true(fabsf(back - v) <= 1.0f / 256.0f + fabsf(v) * 1.2e-7f);
  }
}

static void test_proto_quantize_angle(void** state) {
  (void)state;
  assert_int_equal(arb_proto_quantize_angle(0.0f), 0);
  assert_int_equal(arb_proto_quantize_angle(ARB_PI / 2), 16384);
  assert_int_equal(arb_proto_quantize_angle(-ARB_PI / 2), 49152);
  assert_int_equal(arb_proto_quantize_angle(ARB_PI), 32768);
  assert_int_equal(arb_proto_quantize_angle(-ARB_PI), 32768);
  assert_int_equal(arb_proto_quantize_angle(2 * ARB_PI), 0);
  assert_int_equal(arb_proto_quantize_angle(NAN), 0);
  assert_int_equal(arb_proto_quantize_angle(INFINITY), 0);
  assert_int_equal(arb_proto_quantize_angle(1e30f), arb_proto_quantize_angle(1e30f));
  assert_true(arb_proto_dequantize_angle(0) == 0.0f);
  assert_true(arb_proto_dequantize_angle(16384) == (float)(ARB_PI / 2));
  assert_true(arb_proto_dequantize_angle(32768) == -3.14159274101257324f);
  for (uint32_t q = 0; q < 65536; q++) {
    float a = arb_proto_dequantize_angle((uint16_t)q);
    assert_true(a >= -3.1415927f && a < 3.1415927f);
    assert_int_equal(arb_proto_quantize_angle(a), q);
  }
}

static void controls_equal(const arb_proto_controls_q* a, const arb_proto_controls_q* b) {
  assert_int_equal(a->move_x, b->move_x);
  assert_int_equal(a->move_y, b->move_y);
  assert_int_equal(a->aim, b->aim);
  assert_int_equal(a->buttons, b->buttons);
  assert_int_equal(a->steer, b->steer);
  assert_int_equal(a->throttle, b->throttle);
  assert_int_equal(a->brake, b->brake);
}

static void test_proto_quantize_controls(void** state) {
  (void)state;
  // quantize(dequantize(q)) == q for every value of every field.
  for (int v = -127; v <= 127; v++) {
    arb_proto_controls_q q;
    memset(&q, 0, sizeof q);
    q.move_x = (int8_t)v;
    q.move_y = (int8_t)-v;
    q.steer = (int8_t)v;
    q.throttle = (uint8_t)(v + 127);
    q.brake = (uint8_t)(v + 128);
    q.aim = (uint16_t)(v * 300 + 40000);
    q.buttons = (uint16_t)(v * 250 + 32768);
    arb_controls c = arb_proto_dequantize_controls(&q);
    arb_proto_controls_q back = arb_proto_quantize_controls(&c);
    controls_equal(&q, &back);
    assert_true(c.move_x >= -1.0f && c.move_x <= 1.0f);
    // PROTOCOL.md promises float32(q / 127) both as float64-then-round and as a float32
    // division, so any language gets the same value.
    assert_true(c.move_x == (float)v / 127.0f);
    assert_true(c.throttle == (float)(v + 127) / 255.0f);
  }
  arb_controls c = {2.0f, -5.0f, 100.0f, 0xFFFFFFFFu, NAN, -1.0f, 7.0f};
  arb_proto_controls_q q = arb_proto_quantize_controls(&c);
  assert_int_equal(q.move_x, 127);
  assert_int_equal(q.move_y, -127);
  assert_int_equal(q.buttons, 0xFFFF);
  assert_int_equal(q.steer, 0);
  assert_int_equal(q.throttle, 0);
  assert_int_equal(q.brake, 255);
  arb_controls s1 = arb_proto_snap_controls(&c);
  arb_controls s2 = arb_proto_snap_controls(&s1);
  assert_memory_equal(&s1, &s2, sizeof s1);
  // Out-of-range int8 -128 (never produced) still dequantizes inside [-1, 1].
  q.move_x = -128;
  assert_true(arb_proto_dequantize_controls(&q).move_x == -1.0f);
}

// ---- round trips -------------------------------------------------------------------------

static void test_proto_hello_roundtrip(void** state) {
  (void)state;
  arb_proto_hello m = fx_hello(), out;
  arb_proto_error err;
  ASSERT_ROUNDTRIP(hello, m, out);
  // Boundaries: 32-byte name with multi-byte UTF-8, full token, last avatar kind.
  memset(&m, 0, sizeof m);
  m.version = ARB_PROTO_VERSION;
  strcpy(m.name, "\xc3\xa9t\xc3\xa9\xe2\x82\xac-01234567890123456789012");  // 32 bytes
  assert_int_equal(strlen(m.name), 32);
  m.token_len = ARB_PROTO_MAX_TOKEN;
  for (int i = 0; i < ARB_PROTO_MAX_TOKEN; i++) m.token[i] = (uint8_t)i;
  m.avatar_kind = ARB_AVATAR_KIND_COUNT - 1;
  int n = arb_proto_encode_hello(&m, buf, sizeof buf);
  assert_true(n > 0);
  assert_int_equal(arb_proto_decode_hello(buf, (size_t)n, &out, &err), 0);
  assert_memory_equal(&m, &out, sizeof m);
  // A spectator's hello (kind 255) round-trips; the kinds between are refused both ways.
  m.avatar_kind = ARB_PROTO_SPECTATOR;
  int sn = arb_proto_encode_hello(&m, buf, sizeof buf);
  assert_true(sn > 0);
  assert_int_equal(arb_proto_decode_hello(buf, (size_t)sn, &out, &err), 0);
  assert_int_equal(out.avatar_kind, ARB_PROTO_SPECTATOR);
  m.avatar_kind = ARB_AVATAR_KIND_COUNT;
  assert_int_equal(arb_proto_encode_hello(&m, buf, sizeof buf), ARB_E_RANGE);
  m.avatar_kind = ARB_PROTO_SPECTATOR;
  arb_proto_encode_hello(&m, buf, sizeof buf);
  assert_int_equal(buf[sn - 2], 0xff);  // ... cc ff 00: the kind, then max_kbps 0
  buf[sn - 2] = 0xfe;                   // kind 254
  assert_int_equal(arb_proto_decode_hello(buf, (size_t)sn, &out, &err), ARB_E_RANGE);
  assert_non_null(strstr(err.reason, "avatar_kind"));
  m.avatar_kind = ARB_AVATAR_KIND_COUNT - 1;
  // Flags: the 7th element only when set, round-trips; an unknown bit is refused both ways,
  // and so is an 8th element.
  int plain = arb_proto_encode_hello(&m, buf, sizeof buf);
  assert_int_equal(buf[0], 0x96);
  m.flags = ARB_PROTO_HELLO_NO_SCENE;
  int fn = arb_proto_encode_hello(&m, buf, sizeof buf);
  assert_int_equal(fn, plain + 1);
  assert_int_equal(buf[0], 0x97);
  assert_int_equal(arb_proto_decode_hello(buf, (size_t)fn, &out, &err), 0);
  assert_memory_equal(&m, &out, sizeof m);
  buf[fn - 1] = 0x02;  // flags bit 1: not defined
  assert_int_equal(arb_proto_decode_hello(buf, (size_t)fn, &out, &err), ARB_E_RANGE);
  assert_non_null(strstr(err.reason, "flags"));
  buf[fn - 1] = 0x01;
  buf[0] = 0x98;  // an 8th element
  buf[fn] = 0x00;
  assert_int_equal(arb_proto_decode_hello(buf, (size_t)fn + 1, &out, &err), ARB_E_CORRUPT);
  assert_non_null(strstr(err.reason, "expected 6 or 7"));
  m.flags = 2;
  assert_int_equal(arb_proto_encode_hello(&m, buf, sizeof buf), ARB_E_RANGE);
  m.flags = 0;
  // Too small a buffer: the size is reported, nothing claimed.
  assert_int_equal(arb_proto_encode_hello(&m, buf, 3), n);
  assert_int_equal(arb_proto_encode_hello(&m, NULL, 0), n);
  // Invalid messages are not encoded.
  m.name[0] = '\0';
  assert_true(arb_proto_encode_hello(&m, buf, sizeof buf) < 0);
  strcpy(m.name, "bad\x01name");
  assert_true(arb_proto_encode_hello(&m, buf, sizeof buf) < 0);
  strcpy(m.name, "\xff");
  assert_true(arb_proto_encode_hello(&m, buf, sizeof buf) < 0);
}

static void test_proto_hello_version(void** state) {
  (void)state;
  // A future client's hello with more fields: we must still see its version.
  tmp_buf t;
  tmp_message(&t, 7, ARB_PROTO_MSG_HELLO);
  msgpack_pack_uint32(&t.pk, 99);
  tmp_str(&t, "x");
  msgpack_pack_nil(&t.pk);
  msgpack_pack_nil(&t.pk);
  msgpack_pack_nil(&t.pk);
  msgpack_pack_nil(&t.pk);
  arb_proto_hello out;
  arb_proto_error err;
  assert_int_equal(arb_proto_decode_hello((const uint8_t*)t.sb.data, t.sb.size, &out, &err),
                   ARB_E_VERSION);
  assert_int_equal(out.version, 99);
  assert_string_equal(err.reason,
                      "hello: field 'version': protocol version 99, this side speaks 2");
  tmp_free(&t);
}

static void test_proto_welcome_roundtrip(void** state) {
  (void)state;
  arb_proto_welcome m = fx_welcome(), out;
  arb_proto_static_body got[ARB_PROTO_MAX_STATIC];
  arb_proto_error err;
  int n = arb_proto_encode_welcome(&m, buf, sizeof buf);
  assert_true(n > 0);
  memset(&out, 0, sizeof out);
  out.statics = got;
  out.static_cap = ARB_PROTO_MAX_STATIC;
  assert_int_equal(arb_proto_decode_welcome(buf, (size_t)n, &out, &err), 0);
  assert_int_equal(out.static_count, 2);
  assert_memory_equal(got, fx_statics, 2 * sizeof got[0]);
  assert_string_equal(out.scene_name, "arena");
  // Caller room is respected.
  out.statics = got;
  out.static_cap = 1;
  assert_int_equal(arb_proto_decode_welcome(buf, (size_t)n, &out, &err), ARB_E_TOO_BIG);
  // A spectator's welcome: entity 0 (no avatar); client id 0 stays invalid.
  arb_proto_welcome spec = fx_welcome();
  spec.entity_id = 0;
  n = arb_proto_encode_welcome(&spec, buf, sizeof buf);
  assert_true(n > 0);
  out.statics = got;
  out.static_cap = ARB_PROTO_MAX_STATIC;
  assert_int_equal(arb_proto_decode_welcome(buf, (size_t)n, &out, &err), 0);
  assert_int_equal(out.entity_id, 0);
  spec.client_id = 0;
  assert_int_equal(arb_proto_encode_welcome(&spec, buf, sizeof buf), ARB_E_INVAL);
  // Boundaries: max ids, rates, hash, 64-byte scene name, 4096 statics of 8-gons at the range
  // limit.
  static arb_proto_static_body many[ARB_PROTO_MAX_STATIC];
  memset(many, 0, sizeof many);
  for (int i = 0; i < ARB_PROTO_MAX_STATIC; i++) {
    many[i].position = arb_v2(i % 2 ? ARB_PROTO_MAX_COORD : -ARB_PROTO_MAX_COORD, (float)i);
    many[i].angle = -ARB_PROTO_MAX_COORD;
    many[i].shape.kind = (uint8_t)(1 + i % 3);
    many[i].shape.count = many[i].shape.kind == 1 ? 1 : many[i].shape.kind == 3 ? 2 : 8;
    for (int k = 0; k < many[i].shape.count; k++)
      many[i].shape.points[k] = arb_v2((float)k, -ARB_PROTO_MAX_COORD);
    if (many[i].shape.kind == 1) many[i].shape.radius = i % 2 ? 1e-30f : ARB_PROTO_MAX_COORD;
  }
  memset(&m, 0, sizeof m);
  m.client_id = UINT32_MAX;
  m.entity_id = UINT32_MAX;
  m.tick_rate = 1000;
  m.snapshot_rate = 1000;
  m.server_tick = UINT32_MAX;
  memset(m.scene_name, 'n', ARB_PROTO_MAX_SCENE_NAME);
  m.scene_hash = UINT64_MAX;
  m.statics = many;
  m.static_count = ARB_PROTO_MAX_STATIC;
  n = arb_proto_encode_welcome(&m, buf, sizeof buf);
  assert_true(n > 0 && n <= ARB_PROTO_MAX_RELIABLE);
  memset(&out, 0, sizeof out);
  out.statics = got;
  out.static_cap = ARB_PROTO_MAX_STATIC;
  assert_int_equal(arb_proto_decode_welcome(buf, (size_t)n, &out, &err), 0);
  assert_int_equal(out.client_id, UINT32_MAX);
  assert_true(out.scene_hash == UINT64_MAX);
  assert_int_equal(strlen(out.scene_name), ARB_PROTO_MAX_SCENE_NAME);
  assert_memory_equal(got, many, sizeof many);
  // Invalid: NaN coordinate, snapshot rate above tick rate, one static too many.
  many[5].position.x = NAN;
  assert_int_equal(arb_proto_encode_welcome(&m, buf, sizeof buf), ARB_E_NONFINITE);
  many[5].position.x = 0;
  m.static_count = ARB_PROTO_MAX_STATIC + 1;
  assert_int_equal(arb_proto_encode_welcome(&m, buf, sizeof buf), ARB_E_TOO_BIG);
  m.static_count = 1;
  m.snapshot_rate = 1001;
  assert_true(arb_proto_encode_welcome(&m, buf, sizeof buf) < 0);
}

/* The scene message has its own limit, above the other reliable messages': a 10 000-body
 * scene (about 1.4 MB) and the largest text allowed go through; one byte more does not. */
static void test_proto_large_scene(void** state) {
  (void)state;
  size_t cap = ARB_PROTO_MAX_SCENE_MESSAGE;
  uint8_t* msg = malloc(cap);
  char* text = malloc(ARB_PROTO_MAX_SCENE_TEXT + 1);
  assert_non_null(msg);
  assert_non_null(text);
  for (size_t i = 0; i <= ARB_PROTO_MAX_SCENE_TEXT; i++) text[i] = (char)('a' + i % 26);
  arb_proto_error err;
  const uint32_t sizes[] = {1400000, ARB_PROTO_MAX_SCENE_TEXT};
  for (int k = 0; k < 2; k++) {
    arb_proto_scene m = fx_scene(), out;
    m.text = text;
    m.text_len = sizes[k];
    int n = arb_proto_encode_scene(&m, msg, cap);
    assert_true(n > ARB_PROTO_MAX_RELIABLE && n <= ARB_PROTO_MAX_SCENE_MESSAGE);
    assert_int_equal(arb_proto_decode_scene(msg, (size_t)n, &out, &err), 0);
    assert_int_equal(out.text_len, sizes[k]);
    assert_memory_equal(out.text, text, sizes[k]);
  }
  arb_proto_scene m = fx_scene();
  m.text = text;
  m.text_len = ARB_PROTO_MAX_SCENE_TEXT + 1;
  assert_int_equal(arb_proto_encode_scene(&m, msg, cap), ARB_E_TOO_BIG);
  free(text);
  free(msg);
}

static void test_proto_reject_event_roundtrip(void** state) {
  (void)state;
  for (int r = 1; r < ARB_PROTO_REASON_COUNT; r++) {
    arb_proto_reject m, out;
    memset(&m, 0, sizeof m);
    m.reason = (uint8_t)r;
    m.server_version = r == 1 ? UINT32_MAX : 0;
    memset(m.text, 'a' + r, r == 2 ? ARB_PROTO_MAX_TEXT : (size_t)r);
    ASSERT_ROUNDTRIP(reject, m, out);
  }
  arb_proto_reject bad;
  memset(&bad, 0, sizeof bad);
  assert_true(arb_proto_encode_reject(&bad, buf, sizeof buf) < 0);  // reason 0
  for (int k = 1; k < ARB_PROTO_EVENT_KIND_COUNT; k++) {
    arb_proto_event m, out;
    memset(&m, 0, sizeof m);
    m.kind = (uint8_t)k;
    m.tick = UINT32_MAX;
    m.client_id = (uint32_t)k;
    m.entity_id = UINT32_MAX - (uint32_t)k;
    m.code = (uint8_t)(ARB_PROTO_REASON_COUNT - 1);
    memset(m.text, 'z', k == 3 ? ARB_PROTO_MAX_TEXT : 0);
    ASSERT_ROUNDTRIP(event, m, out);
  }
}

static void test_proto_input_roundtrip(void** state) {
  (void)state;
  arb_proto_error err;
  arb_proto_input m = fx_input(), out;
  memset(&out, 0, sizeof out);
  ASSERT_ROUNDTRIP(input, m, out);
  // 8 inputs at the extremes.
  memset(&m, 0, sizeof m);
  m.packet_seq = UINT32_MAX;
  m.ack_tick = UINT32_MAX;
  m.count = ARB_PROTO_MAX_INPUTS;
  for (int i = 0; i < m.count; i++) {
    m.cmds[i].seq = UINT32_MAX - (uint32_t)i;
    m.cmds[i].controls.move_x = i % 2 ? 127 : -127;
    m.cmds[i].controls.move_y = i % 2 ? -127 : 127;
    m.cmds[i].controls.aim = i % 2 ? 65535 : 0;
    m.cmds[i].controls.buttons = 0xFFFF;
    m.cmds[i].controls.steer = -127;
    m.cmds[i].controls.throttle = 255;
    m.cmds[i].controls.brake = 255;
  }
  ASSERT_ROUNDTRIP(input, m, out);
  // Empty input (ack only).
  m.count = 0;
  int n = arb_proto_encode_input(&m, buf, sizeof buf);
  assert_int_equal(arb_proto_decode_input(buf, (size_t)n, &out, &err), 0);
  assert_int_equal(out.count, 0);
  // Order must be newest first; more than 8 is refused.
  m.count = 2;
  m.cmds[0].seq = 5;
  m.cmds[1].seq = 6;
  assert_int_equal(arb_proto_encode_input(&m, buf, sizeof buf), ARB_E_INVAL);
  m.count = 9;
  assert_int_equal(arb_proto_encode_input(&m, buf, sizeof buf), ARB_E_TOO_BIG);
}

static void test_proto_ping_pong_roundtrip(void** state) {
  (void)state;
  arb_proto_error err;
  arb_proto_ping p, po;
  memset(&p, 0, sizeof p);
  memset(&po, 0, sizeof po);
  p.ping_id = UINT32_MAX;
  p.client_time_us = UINT64_MAX;
  int n = arb_proto_encode_ping(&p, buf, sizeof buf);
  assert_int_equal(arb_proto_decode_ping(buf, (size_t)n, &po, &err), 0);
  assert_memory_equal(&p, &po, sizeof p);
  arb_proto_pong q, qo;
  memset(&q, 0, sizeof q);
  memset(&qo, 0, sizeof qo);
  q.client_time_us = UINT64_MAX;
  q.server_tick = UINT32_MAX;
  q.server_time_us = UINT64_MAX;
  n = arb_proto_encode_pong(&q, buf, sizeof buf);
  assert_int_equal(arb_proto_decode_pong(buf, (size_t)n, &qo, &err), 0);
  assert_memory_equal(&q, &qo, sizeof q);
  arb_proto_msg_type t;
  assert_int_equal(arb_proto_peek_type(buf, (size_t)n, &t), 0);
  assert_int_equal(t, ARB_PROTO_MSG_PONG);
  // A pong is not a ping.
  assert_int_equal(arb_proto_decode_ping(buf, (size_t)n, &po, &err), ARB_E_CORRUPT);
  assert_string_equal(err.reason, "ping: field 'type': message type 8 (pong), expected 7 (ping)");
}

// A view message with raw field values (encoded here, not by the codec under test).
static size_t raw_view(unsigned active, float x0, float y0, float x1, float y1) {
  uint8_t* p = buf;
  *p++ = 0x96;  // array of 6
  *p++ = (uint8_t)ARB_PROTO_MSG_VIEW;
  *p++ = (uint8_t)active;  // positive fixint
  const float v[4] = {x0, y0, x1, y1};
  for (int i = 0; i < 4; i++) {
    uint32_t bits;
    memcpy(&bits, &v[i], 4);
    *p++ = 0xca;
    for (int k = 3; k >= 0; k--) *p++ = (uint8_t)(bits >> (8 * k));
  }
  return (size_t)(p - buf);
}

static void test_proto_view_roundtrip(void** state) {
  (void)state;
  arb_proto_error err;
  arb_proto_view v = {true, arb_v2(-500.0f, 10.0f), arb_v2(500.0f, 10.0f)}, o;
  int n = arb_proto_encode_view(&v, buf, sizeof buf);
  assert_int_equal(n, 1 + 1 + 1 + 4 * 5);
  assert_int_equal(arb_proto_decode_view(buf, (size_t)n, &o, &err), 0);
  assert_true(o.active);
  assert_true(o.min.x == -500.0f && o.min.y == 10.0f && o.max.x == 500.0f && o.max.y == 10.0f);
  arb_proto_msg_type t;
  assert_int_equal(arb_proto_peek_type(buf, (size_t)n, &t), 0);
  assert_int_equal(t, ARB_PROTO_MSG_VIEW);
  assert_int_equal(arb_proto_msg_channel(ARB_PROTO_MSG_VIEW), ARB_PROTO_CHANNEL_CONTROL);
  arb_proto_view clear;
  memset(&clear, 0, sizeof clear);
  n = arb_proto_encode_view(&clear, buf, sizeof buf);
  assert_int_equal(arb_proto_decode_view(buf, (size_t)n, &o, &err), 0);
  assert_false(o.active);

  // The encoder refuses what the decoder refuses.
  v.max.x = v.min.x + ARB_PROTO_MAX_VIEW_SIDE + 1.0f;
  assert_int_equal(arb_proto_encode_view(&v, buf, sizeof buf), ARB_E_RANGE);
  v.max.x = v.min.x - 1.0f;
  assert_int_equal(arb_proto_encode_view(&v, buf, sizeof buf), ARB_E_RANGE);
  v.max.x = NAN;
  assert_int_equal(arb_proto_encode_view(&v, buf, sizeof buf), ARB_E_NONFINITE);
  clear.min.x = 1.0f;
  assert_int_equal(arb_proto_encode_view(&clear, buf, sizeof buf), ARB_E_RANGE);
}

static void test_proto_view_malformed(void** state) {
  (void)state;
  arb_proto_error err;
  arb_proto_view o;
  size_t n = raw_view(1, 0.0f, 0.0f, 1000.0f, 1000.0f);  // the largest box
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), 0);
  n = raw_view(1, 0.0f, 0.0f, 1000.5f, 10.0f);
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), ARB_E_RANGE);
  assert_string_equal(
      err.reason,
      "view: field 'box': a side longer than the view box limit (sides at most 1000 m)");
  n = raw_view(1, 5.0f, 0.0f, 4.0f, 10.0f);
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), ARB_E_RANGE);
  assert_string_equal(err.reason, "view: field 'box': min above max (sides at most 1000 m)");
  n = raw_view(1, 0.0f, NAN, 4.0f, 10.0f);
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), ARB_E_NONFINITE);
  assert_non_null(strstr(err.reason, "field 'min_y'"));
  n = raw_view(1, 0.0f, 0.0f, INFINITY, 10.0f);
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), ARB_E_NONFINITE);
  n = raw_view(1, -2.0e6f, 0.0f, 0.0f, 10.0f);
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), ARB_E_RANGE);
  n = raw_view(2, 0.0f, 0.0f, 1.0f, 1.0f);
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), ARB_E_RANGE);
  assert_non_null(strstr(err.reason, "field 'active'"));
  n = raw_view(0, 0.0f, 0.0f, 1.0f, 1.0f);  // cleared, yet with a box
  assert_int_equal(arb_proto_decode_view(buf, n, &o, &err), ARB_E_RANGE);
  n = raw_view(1, 0.0f, 0.0f, 1.0f, 1.0f);
  assert_int_equal(arb_proto_decode_view(buf, n - 1, &o, &err), ARB_E_TRUNCATED);
  buf[0] = 0x95;  // five elements
  assert_int_equal(arb_proto_decode_view(buf, n - 5, &o, &err), ARB_E_CORRUPT);
}

// ---- floats: int, float32, float64; NaN and infinity ------------------------------------

static int welcome_with_x(int how, double v, arb_proto_static_body* got, arb_proto_error* err) {
  tmp_buf t;
  tmp_message(&t, 9, ARB_PROTO_MSG_WELCOME);
  msgpack_pack_uint8(&t.pk, 1);
  msgpack_pack_uint8(&t.pk, 1);
  msgpack_pack_uint8(&t.pk, 60);
  msgpack_pack_uint8(&t.pk, 20);
  msgpack_pack_uint8(&t.pk, 0);
  tmp_str(&t, "s");
  msgpack_pack_uint8(&t.pk, 0);
  msgpack_pack_array(&t.pk, 1);
  msgpack_pack_array(&t.pk, 4);
  if (how == 0) msgpack_pack_int64(&t.pk, (int64_t)v);
  if (how == 1) msgpack_pack_float(&t.pk, (float)v);
  if (how == 2) msgpack_pack_double(&t.pk, v);
  if (how == 3) msgpack_pack_uint64(&t.pk, UINT64_MAX);
  msgpack_pack_float(&t.pk, 0);
  msgpack_pack_int8(&t.pk, -3);  // angle as a negative int
  msgpack_pack_array(&t.pk, 4);
  msgpack_pack_uint8(&t.pk, 1);
  msgpack_pack_uint8(&t.pk, 0);
  msgpack_pack_double(&t.pk, 0.5);
  msgpack_pack_uint8(&t.pk, 2);  // radius as an int
  arb_proto_welcome out;
  memset(&out, 0, sizeof out);
  out.statics = got;
  out.static_cap = 1;
  int rc = arb_proto_decode_welcome((const uint8_t*)t.sb.data, t.sb.size, &out, err);
  tmp_free(&t);
  return rc;
}

static void test_proto_float_encodings(void** state) {
  (void)state;
  arb_proto_static_body got;
  arb_proto_error err;
  for (int how = 0; how < 3; how++) {
    assert_int_equal(welcome_with_x(how, -5.0, &got, &err), 0);
    assert_true(got.position.x == -5.0f);
    assert_true(got.angle == -3.0f);
    assert_true(got.shape.radius == 2.0f);
    assert_true(got.shape.points[0].y == 0.5f);
  }
  assert_int_equal(welcome_with_x(2, 0.1, &got, &err), 0);
  assert_true(got.position.x == 0.1f);  // float64 rounds to the nearest float32
  assert_int_equal(welcome_with_x(2, NAN, &got, &err), ARB_E_NONFINITE);
  assert_string_equal(err.reason, "welcome: statics[0] field 'x': NaN is not allowed");
  assert_int_equal(welcome_with_x(1, INFINITY, &got, &err), ARB_E_NONFINITE);
  assert_string_equal(err.reason, "welcome: statics[0] field 'x': infinity is not allowed");
  assert_int_equal(welcome_with_x(2, 2e6, &got, &err), ARB_E_RANGE);
  assert_int_equal(welcome_with_x(3, 0, &got, &err), ARB_E_RANGE);
}

// ---- reason strings ----------------------------------------------------------------------

static void test_proto_reason_strings(void** state) {
  (void)state;
  arb_proto_error err;
  tmp_buf t;

  // Truncated, trailing bytes, wrong message, empty input.
  arb_proto_ping p = fx_ping(), po;
  int n = arb_proto_encode_ping(&p, buf, sizeof buf);
  assert_int_equal(arb_proto_decode_ping(buf, (size_t)n - 1, &po, &err), ARB_E_TRUNCATED);
  assert_non_null(strstr(err.reason, "ping: field 'client_time_us': input ends early"));
  buf[n] = 0xc0;
  assert_int_equal(arb_proto_decode_ping(buf, (size_t)n + 1, &po, &err), ARB_E_CORRUPT);
  assert_string_equal(err.reason, "ping: 1 unexpected bytes after the message");
  assert_int_equal(arb_proto_decode_ping(buf, 0, &po, &err), ARB_E_TRUNCATED);
  assert_string_equal(err.reason, "ping: field 'message': expected array, got end of input");
  assert_int_equal(arb_proto_decode_ping(NULL, 0, &po, NULL), ARB_E_TRUNCATED);

  // An input packet with its commands out of order says which one.
  tmp_message(&t, 4, ARB_PROTO_MSG_INPUT);
  msgpack_pack_uint8(&t.pk, 1);
  msgpack_pack_uint8(&t.pk, 0);
  msgpack_pack_array(&t.pk, 2);
  for (int i = 0; i < 2; i++) {
    msgpack_pack_array(&t.pk, 8);
    msgpack_pack_uint8(&t.pk, (uint8_t)(5 + i));
    for (int k = 0; k < 7; k++) msgpack_pack_uint8(&t.pk, 0);
  }
  arb_proto_input in;
  assert_int_equal(arb_proto_decode_input((const uint8_t*)t.sb.data, t.sb.size, &in, &err),
                   ARB_E_CORRUPT);
  assert_string_equal(err.reason,
                      "input: inputs[1] field 'seq': 6 after 5: inputs must be newest first");
  tmp_free(&t);

  assert_string_equal(arb_proto_reason_name(ARB_PROTO_REASON_VERSION), "version");
  assert_string_equal(arb_proto_reason_name(99), "unknown");
  // Code 5 (the version-1 snapshot) is retired: no name, and not a message type.
  assert_string_equal(arb_proto_msg_name(5), "unknown");
  assert_int_equal(arb_proto_msg_direction(5), 0);
  assert_int_equal(arb_proto_msg_channel(5), -1);
  const uint8_t retired[] = {0x91, 0x05};
  arb_proto_msg_type type;
  assert_true(arb_proto_peek_type(retired, sizeof retired, &type) < 0);
  assert_non_null(arb_proto_build_id());
  assert_true(strncmp(arb_proto_build_id(), "arbiter-", 8) == 0);
}

// Every row of messages.def has a golden vector in test_proto_fixtures.h (and so a
// PROTOCOL.md block, a fuzz seed and the truncation and mutation runs of
// test_proto_malformed), and every golden message decodes with its row's decoder to the
// same bytes. The rows come from the table: a new message without a vector fails here.
static void test_proto_every_message_has_a_golden_vector(void** state) {
  (void)state;
  static uint8_t again[8192];
  bool covered[ARB_PROTO_MSG_TYPE_COUNT] = {false};
  for (int i = 0; i < FX_GOLDEN_COUNT; i++) {
    int64_t n = fx_golden_encode(i, buf, sizeof buf);
    assert_true(n > 0);
    arb_proto_msg_type t;
    if (arb_proto_peek_type(buf, (size_t)n, &t) != 0) continue;  // a replay record
    arb_proto_error err;
    int rc = -1;
    int64_t m = -1;
    if (!fx_reencode_type(t, buf, (size_t)n, again, sizeof again, &err, &rc, &m))
      fail_msg("golden '%s': type %d is not a row of messages.def", fx_golden[i].name, (int)t);
    if (rc != 0)
      fail_msg("golden '%s' does not decode as %s: %s", fx_golden[i].name, arb_proto_msg_name(t),
               err.reason);
    assert_int_equal(m, n);
    assert_memory_equal(again, buf, (size_t)n);
    covered[t] = true;
  }
#define ARB_PROTO_MSG(NAME, name, code, channel, direction) \
  if (!covered[code])                                       \
    fail_msg("message %s (%d) has no golden vector in test_proto_fixtures.h", #name, code);
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
}

ARB_TEST_MAIN(
    cmocka_unit_test(test_proto_quantize_pos), cmocka_unit_test(test_proto_quantize_angle),
    cmocka_unit_test(test_proto_quantize_controls), cmocka_unit_test(test_proto_hello_roundtrip),
    cmocka_unit_test(test_proto_hello_version), cmocka_unit_test(test_proto_welcome_roundtrip),
    cmocka_unit_test(test_proto_large_scene), cmocka_unit_test(test_proto_reject_event_roundtrip),
    cmocka_unit_test(test_proto_input_roundtrip), cmocka_unit_test(test_proto_ping_pong_roundtrip),
    cmocka_unit_test(test_proto_float_encodings), cmocka_unit_test(test_proto_reason_strings),
    cmocka_unit_test(test_proto_view_roundtrip), cmocka_unit_test(test_proto_view_malformed),
    cmocka_unit_test(test_proto_every_message_has_a_golden_vector))
