// The WebSocket transport's pieces in-process (no sockets): the golden vectors of
// PROTOCOL.md §1.2 against the code (upgrade request -> exact 101 answer, the server's
// frame of the golden pong, a masked client frame of the golden ping), the upgrade
// parser's refusals, and the frame rules over memory buffers (sv_ws_stream).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arbiter/protocol.h>

#include "../common/read_file.h"
#include "../common/test_main.h"
#include "sv_ws_handshake.h"
#include "sv_ws_stream.h"

static const char* g_protocol_md;

// The body of PROTOCOL.md's fenced block opened by "```<opener>\n" (malloc'd), or fails.
static char* block(const char* opener) {
  char* text = arb_test_read_file(g_protocol_md, NULL);
  if (text == NULL) fail_msg("cannot read %s", g_protocol_md);
  char tag[64];
  snprintf(tag, sizeof tag, "```%s\n", opener);
  const char* p = strstr(text, tag);
  if (p == NULL) fail_msg("PROTOCOL.md: no block %s", opener);
  p += strlen(tag);
  const char* end = strstr(p, "```");
  char* out = strndup(p, (size_t)(end - p));
  free(text);
  return out;
}

// A hex block's bytes.
static size_t hex(const char* opener, uint8_t* out, size_t cap) {
  char* b = block(opener);
  size_t n = 0;
  for (const char* p = b; *p;) {
    unsigned v;
    int used = 0;
    if (sscanf(p, "%2x%n", &v, &used) == 1 && used == 2 && n < cap) {
      out[n++] = (uint8_t)v;
      p += 2;
    } else {
      p++;
    }
  }
  free(b);
  return n;
}

// An http block with its line ends as CR LF.
static char* http(const char* opener) {
  char* b = block(opener);
  char* out = malloc(strlen(b) * 2 + 1);
  size_t n = 0;
  for (const char* p = b; *p; ++p) {
    if (*p == '\n') out[n++] = '\r';
    out[n++] = *p;
  }
  out[n] = '\0';
  free(b);
  return out;
}

static void test_golden_handshake(void** state) {
  (void)state;
  char* req = http("http ws=request");
  char* want = http("http ws=response");
  sv_ws_request r;
  assert_int_equal(sv_ws_parse_request(req, strlen(req), &r), (int)strlen(req));
  assert_string_equal(r.key, "dGhlIHNhbXBsZSBub25jZQ==");
  assert_true(r.offers_arbiter);
  char resp[256];
  int n = sv_ws_response_101(&r, resp, sizeof resp);
  assert_int_equal(n, (int)strlen(want));
  assert_memory_equal(resp, want, (size_t)n);
  // Every prefix of the request is "more bytes needed", never a refusal.
  for (size_t cut = 0; cut < strlen(req); ++cut)
    assert_int_equal(sv_ws_parse_request(req, cut, &r), 0);
  free(req);
  free(want);
}

typedef struct got {
  uint8_t data[8192];
  size_t len;
  int count;
} got;

static void on_msg(void* user, const uint8_t* data, size_t len) {
  got* g = user;
  assert_true(len <= sizeof g->data);
  memcpy(g->data, data, len);
  g->len = len;
  g->count++;
}

static void test_golden_frames(void** state) {
  (void)state;
  uint8_t pong[64], ping[64], frame[64];
  size_t pong_n = hex("hex golden=pong", pong, sizeof pong);
  size_t ping_n = hex("hex golden=ping", ping, sizeof ping);
  sv_ws_stream st;
  got g = {{0}, 0, 0};
  assert_int_equal(sv_ws_stream_init(&st, on_msg, &g), 0);
  // The server's frame of the golden pong.
  assert_int_equal(sv_ws_stream_send(&st, pong, pong_n), 0);
  size_t fn = hex("hex ws=server_pong", frame, sizeof frame);
  assert_int_equal(st.out.len, fn);
  assert_memory_equal(st.out.data, frame, fn);
  // The client's masked frame of the golden ping decodes to the ping.
  fn = hex("hex ws=client_ping", frame, sizeof frame);
  assert_int_equal(sv_ws_stream_feed(&st, frame, fn), 0);
  assert_int_equal(sv_ws_stream_pump(&st), 0);
  assert_int_equal(g.count, 1);
  assert_int_equal(g.len, ping_n);
  assert_memory_equal(g.data, ping, ping_n);
  sv_ws_stream_free(&st);
}

static int parse(const char* text) {
  sv_ws_request r;
  return sv_ws_parse_request(text, strlen(text), &r);
}

#define UPGRADE_HEADERS                                                          \
  "Upgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Key: " \
  "dGhlIHNhbXBsZSBub25jZQ==\r\n"

static void test_parser_refusals(void** state) {
  (void)state;
  assert_true(
      parse("GET /any/path HTTP/1.1\r\n" UPGRADE_HEADERS "Sec-WebSocket-Version: 13\r\n\r\n") > 0);
  assert_int_equal(parse("GET / HTTP/1.1\r\n" UPGRADE_HEADERS "Sec-WebSocket-Version: 12\r\n\r\n"),
                   -426);
  assert_int_equal(parse("GET / HTTP/1.1\r\n" UPGRADE_HEADERS "\r\n"), -400);  // no version
  assert_int_equal(parse("PUT / HTTP/1.1\r\n" UPGRADE_HEADERS "Sec-WebSocket-Version: 13\r\n\r\n"),
                   -400);
  assert_int_equal(parse("GET / HTTP/1.0\r\n" UPGRADE_HEADERS "Sec-WebSocket-Version: 13\r\n\r\n"),
                   -400);
  assert_int_equal(
      parse(
          "GET / HTTP/1.1\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
          "Sec-WebSocket-Version: 13\r\n\r\n"),
      -400);  // no Upgrade
  assert_int_equal(
      parse(
          "GET / HTTP/1.1\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
          "Sec-WebSocket-Version: 13\r\n\r\n"),
      -400);  // no Connection: upgrade
  assert_int_equal(parse("GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ\r\n"
                         "Sec-WebSocket-Version: 13\r\n\r\n"),
                   -400);  // a key of 15 bytes' worth
  assert_int_equal(parse("GET / HTTP/1.1\r\n" UPGRADE_HEADERS UPGRADE_HEADERS
                         "Sec-WebSocket-Version: 13\r\n\r\n"),
                   -400);  // two keys
  assert_int_equal(parse("GET / HTTP/1.1\r\n" UPGRADE_HEADERS "Sec-WebSocket-Version: 13\r\n"
                         " folded\r\n\r\n"),
                   -400);
  assert_int_equal(parse("GET / HTTP/1.1\r\n" UPGRADE_HEADERS "Origin: a\r\nOrigin: b\r\n"
                         "Sec-WebSocket-Version: 13\r\n\r\n"),
                   -400);
  // 8192 bytes without the blank line: 431; a complete head of exactly 8192 is parsed.
  static char big[SV_WS_MAX_HEAD + 16];
  const char* start = "GET / HTTP/1.1\r\n" UPGRADE_HEADERS "Sec-WebSocket-Version: 13\r\nX: ";
  size_t sl = strlen(start);
  memcpy(big, start, sl);
  memset(big + sl, 'a', SV_WS_MAX_HEAD - sl - 4);
  memcpy(big + SV_WS_MAX_HEAD - 4, "\r\n\r\n", 4);
  sv_ws_request r;
  assert_int_equal(sv_ws_parse_request(big, SV_WS_MAX_HEAD, &r), SV_WS_MAX_HEAD);
  big[SV_WS_MAX_HEAD - 2] = 'a';
  assert_int_equal(sv_ws_parse_request(big, SV_WS_MAX_HEAD, &r), -431);
  // An Origin too long to keep matches nothing, and is reported as present.
  char origin[600];
  snprintf(origin, sizeof origin,
           "GET / HTTP/1.1\r\n" UPGRADE_HEADERS
           "Sec-WebSocket-Version: 13\r\nOrigin: https://%0300d\r\n\r\n",
           0);
  assert_true(sv_ws_parse_request(origin, strlen(origin), &r) > 0);
  assert_true(r.has_origin);
  assert_string_equal(r.origin, "");
  // Refusal responses carry their status, and 426 names the version.
  char resp[512];
  assert_true(sv_ws_response_error(426, "why", resp, sizeof resp) > 0);
  assert_non_null(strstr(resp, "HTTP/1.1 426 Upgrade Required\r\n"));
  assert_non_null(strstr(resp, "Sec-WebSocket-Version: 13\r\n"));
}

static const uint8_t k_mask[4] = {1, 2, 3, 4};

// A client frame (masked unless mask is NULL).
static size_t frame(uint8_t* out, int first, const uint8_t* mask, const void* p, size_t len) {
  size_t n = 0;
  out[n++] = (uint8_t)first;
  if (len < 126) {
    out[n++] = (uint8_t)((mask ? 0x80 : 0) | len);
  } else {
    out[n++] = (uint8_t)((mask ? 0x80 : 0) | 126);
    out[n++] = (uint8_t)(len >> 8);
    out[n++] = (uint8_t)len;
  }
  if (mask) memcpy(out + n, mask, 4), n += 4;
  for (size_t i = 0; i < len; ++i)
    out[n + i] = (uint8_t)(((const uint8_t*)p)[i] ^ (mask ? mask[i % 4] : 0));
  return n + len;
}

// Feed one input to a fresh stream; returns the close code the server sent (0 = none) and
// the messages delivered in *g.
static int run(const uint8_t* in, size_t len, got* g) {
  sv_ws_stream st;
  memset(g, 0, sizeof *g);
  assert_int_equal(sv_ws_stream_init(&st, on_msg, g), 0);
  assert_int_equal(sv_ws_stream_feed(&st, in, len), 0);
  sv_ws_stream_pump(&st);
  int code = sv_ws_stream_close_sent(&st);
  sv_ws_stream_free(&st);
  return code;
}

static void test_frame_rules(void** state) {
  (void)state;
  static uint8_t in[16384], payload[5000];
  memset(payload, 0xa5, sizeof payload);
  got g;
  size_t n = frame(in, 0x81, k_mask, "hi", 2);
  assert_int_equal(run(in, n, &g), 1003);
  assert_int_equal(g.count, 0);
  n = frame(in, 0x82, k_mask, payload, 4096);
  assert_int_equal(run(in, n, &g), 0);
  assert_int_equal(g.count, 1);
  assert_int_equal(g.len, 4096);
  n = frame(in, 0x82, k_mask, payload, 4097);
  assert_int_equal(run(in, n, &g), 1009);
  assert_int_equal(g.count, 0);
  n = frame(in, 0x02, k_mask, payload, 2048);
  n += frame(in + n, 0x80, k_mask, payload, 2049);
  assert_int_equal(run(in, n, &g), 1009);
  assert_int_equal(g.count, 0);
  n = frame(in, 0x82, NULL, payload, 10);
  assert_int_equal(run(in, n, &g), 1002);
  n = frame(in, 0xc2, k_mask, payload, 10);  // RSV1 without an extension
  assert_int_equal(run(in, n, &g), 1002);
  n = frame(in, 0x89, k_mask, payload, 126);  // a control frame over 125 bytes
  assert_int_equal(run(in, n, &g), 1002);
  n = frame(in, 0x09, k_mask, payload, 4);  // a fragmented control frame
  assert_int_equal(run(in, n, &g), 1002);
  n = frame(in, 0x80, k_mask, payload, 4);  // a continuation with nothing to continue
  assert_int_equal(run(in, n, &g), 1002);
  static const uint8_t huge[] = {0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};  // 2^63
  assert_int_equal(run(huge, sizeof huge, &g), 1002);
  // Fragments with a ping between them: one message.
  n = frame(in, 0x02, k_mask, "ab", 2);
  n += frame(in + n, 0x89, k_mask, "p", 1);
  n += frame(in + n, 0x80, k_mask, "cd", 2);
  assert_int_equal(run(in, n, &g), 0);
  assert_int_equal(g.count, 1);
  assert_int_equal(g.len, 4);
  assert_memory_equal(g.data, "abcd", 4);
  // A close with a reason that is not UTF-8: 1007; a client close is echoed with its code.
  uint8_t bad_reason[4] = {0x03, 0xe8, 0xff, 0xfe};
  n = frame(in, 0x88, k_mask, bad_reason, 4);
  assert_int_equal(run(in, n, &g), 1007);
  uint8_t going_away[2] = {0x03, 0xe9};
  n = frame(in, 0x88, k_mask, going_away, 2);
  assert_int_equal(run(in, n, &g), 1001);
  // Nothing is delivered after a close: a message behind the close frame is dropped.
  n = frame(in, 0x88, k_mask, going_away, 2);
  n += frame(in + n, 0x82, k_mask, "x", 1);
  assert_int_equal(run(in, n, &g), 1001);
  assert_int_equal(g.count, 0);
}

ARB_TEST_MAIN_ARG("PATH-TO-PROTOCOL.md", g_protocol_md, cmocka_unit_test(test_golden_handshake),
                  cmocka_unit_test(test_golden_frames), cmocka_unit_test(test_parser_refusals),
                  cmocka_unit_test(test_frame_rules))
