// The connection-gate datagrams (PROTOCOL.md §1.1): the example blocks in PROTOCOL.md
// equal what the code encodes and decode back; any size, magic, version, kind or padding
// byte that breaks the layout is refused; the client's exchange runs to "admitted"
// against a simulated server and ignores replies with another nonce.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/read_file.h"
#include "../common/test_main.h"
// clang-format on

#include <arbiter/gate.h>

static const char* g_protocol_md;

// The bytes of the "```hex gate=<name>" block of `text`; returns its length or -1.
static int hex_block(const char* text, const char* name, uint8_t* out, size_t cap) {
  char tag[64];
  snprintf(tag, sizeof tag, "```hex gate=%s\n", name);
  const char* p = strstr(text, tag);
  if (p == NULL) return -1;
  p += strlen(tag);
  const char* end = strstr(p, "```");
  size_t len = 0;
  while (p < end) {
    unsigned v;
    int used;
    if (sscanf(p, "%2x%n", &v, &used) == 1 && used == 2) {
      if (len >= cap) return -1;
      out[len++] = (uint8_t)v;
      p += 2;
    } else {
      p++;
    }
  }
  return (int)len;
}

// The bytes of the "```hex gate=<name>" block of PROTOCOL.md; returns its length or -1.
static int read_block(const char* name, uint8_t* out, size_t cap) {
  char* text = arb_test_read_file(g_protocol_md, NULL);
  int len = text ? hex_block(text, name, out, cap) : -1;
  free(text);
  return len;
}

static arb_gate_msg example(arb_gate_kind kind) {
  arb_gate_msg m;
  memset(&m, 0, sizeof m);
  m.kind = kind;
  m.nonce = 0x0123456789abcdefull;
  if (kind == ARB_GATE_REQUEST) m.proto_version = 1;
  if (kind == ARB_GATE_CHALLENGE || kind == ARB_GATE_RESPONSE)
    for (int i = 0; i < ARB_GATE_COOKIE_SIZE; ++i) m.cookie[i] = (uint8_t)i;
  return m;
}

static void test_gate_examples_match_protocol_md(void** state) {
  (void)state;
  const char* names[] = {"request", "challenge", "response", "admitted"};
  for (int k = 1; k <= 4; ++k) {
    uint8_t doc[128], code[128];
    int dn = read_block(names[k - 1], doc, sizeof doc);
    if (dn < 0) fail_msg("PROTOCOL.md: gate block '%s' missing", names[k - 1]);
    arb_gate_msg m = example((arb_gate_kind)k);
    int cn = arb_gate_encode(&m, code, sizeof code);
    assert_int_equal(cn, dn);
    assert_memory_equal(code, doc, (size_t)cn);
    arb_gate_msg back;
    assert_int_equal(arb_gate_decode(doc, (size_t)dn, &back), 0);
    assert_memory_equal(&back, &m, sizeof m);
    assert_true(arb_gate_is_gate(doc, (size_t)dn));
  }
  // Replies are never larger than what caused them.
  assert_true(ARB_GATE_CHALLENGE_SIZE <= ARB_GATE_REQUEST_SIZE);
  assert_true(ARB_GATE_ADMITTED_SIZE <= ARB_GATE_RESPONSE_SIZE);
}

static void test_gate_refuses_every_broken_layout(void** state) {
  (void)state;
  for (int k = 1; k <= 4; ++k) {
    arb_gate_msg m = example((arb_gate_kind)k), out;
    uint8_t buf[128];
    int n = arb_gate_encode(&m, buf, sizeof buf);
    assert_true(n > 0);
    assert_int_equal(arb_gate_encode(&m, buf, (size_t)n - 1), ARB_E_NOSPACE);
    // Every other length.
    for (size_t len = 0; len <= sizeof buf; ++len)
      if (len != (size_t)n) assert_int_equal(arb_gate_decode(buf, len, &out), ARB_E_CORRUPT);
    // Every header byte, and every byte that must be zero, changed.
    for (int i = 0; i < n; ++i) {
      bool field = (i == 6) || (k == 1 && ((i >= 8 && i < 12) || (i >= 16 && i < 24))) ||
                   (k != 1 && i >= 8 && i < (k == 2 || k == 3 ? 40 : 16));
      if (field) continue;
      uint8_t copy[128];
      memcpy(copy, buf, (size_t)n);
      copy[i] ^= 0x01;
      if (arb_gate_decode(copy, (size_t)n, &out) == 0)
        fail_msg("kind %d: byte %d flipped still decodes", k, i);
    }
  }
  uint8_t buf[64] = {0x7f, 0xff, 'A', 'R', 'B', 1, 9, 0};
  arb_gate_msg out;
  assert_int_equal(arb_gate_decode(buf, 16, &out), ARB_E_CORRUPT);  // unknown kind
  arb_gate_msg bad;
  memset(&bad, 0, sizeof bad);
  bad.kind = (arb_gate_kind)7;
  assert_int_equal(arb_gate_encode(&bad, buf, sizeof buf), ARB_E_INVAL);
  // Ordinary ENet traffic is never taken for the gate's.
  uint8_t enet_connect[4] = {0x8f, 0xff, 0x00, 0x00};
  assert_false(arb_gate_is_gate(enet_connect, sizeof enet_connect));
}

static void test_gate_client_exchange(void** state) {
  (void)state;
  arb_gate_client c;
  arb_gate_client_start(&c, 77, 1);
  uint8_t out[64];
  arb_gate_msg m;
  int n = arb_gate_client_next(&c, 1000, out, sizeof out);
  assert_int_equal(n, ARB_GATE_REQUEST_SIZE);
  assert_int_equal(arb_gate_decode(out, (size_t)n, &m), 0);
  assert_int_equal(m.kind, ARB_GATE_REQUEST);
  assert_int_equal(m.nonce, 77);
  assert_int_equal(arb_gate_client_next(&c, 1100, out, sizeof out), 0);  // too soon
  assert_int_equal(arb_gate_client_next(&c, 1000 + ARB_GATE_RETRY_MS, out, sizeof out),
                   ARB_GATE_REQUEST_SIZE);

  // A challenge for someone else is ignored; ours moves on and is echoed at once.
  arb_gate_msg ch = example(ARB_GATE_CHALLENGE);
  uint8_t in[64];
  int in_n = arb_gate_encode(&ch, in, sizeof in);
  assert_int_equal(arb_gate_client_receive(&c, in, (size_t)in_n), 0);
  ch.nonce = 77;
  in_n = arb_gate_encode(&ch, in, sizeof in);
  assert_int_equal(arb_gate_client_receive(&c, in, (size_t)in_n), 1);
  assert_int_equal(c.state, ARB_GATE_CLIENT_RESPONDING);
  n = arb_gate_client_next(&c, 1300, out, sizeof out);
  assert_int_equal(n, ARB_GATE_RESPONSE_SIZE);
  assert_int_equal(arb_gate_decode(out, (size_t)n, &m), 0);
  assert_int_equal(m.kind, ARB_GATE_RESPONSE);
  assert_memory_equal(m.cookie, ch.cookie, ARB_GATE_COOKIE_SIZE);

  arb_gate_msg ad = example(ARB_GATE_ADMITTED);
  ad.nonce = 77;
  in_n = arb_gate_encode(&ad, in, sizeof in);
  assert_int_equal(arb_gate_client_receive(&c, in, (size_t)in_n), 1);
  assert_int_equal(c.state, ARB_GATE_CLIENT_ADMITTED);
  assert_int_equal(arb_gate_client_next(&c, 5000, out, sizeof out), 0);
}

ARB_TEST_MAIN_ARG("PROTOCOL.md", g_protocol_md,
                  cmocka_unit_test(test_gate_examples_match_protocol_md),
                  cmocka_unit_test(test_gate_refuses_every_broken_layout),
                  cmocka_unit_test(test_gate_client_exchange))
