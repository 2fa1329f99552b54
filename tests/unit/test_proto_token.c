// Connect tokens (arbiter/token.h, PROTOCOL.md §3.1): the golden token in PROTOCOL.md is
// what the code mints from the documented inputs and opens back to them; the wrong key,
// any changed byte, any truncation, bad text and oversize input are refused; keys load
// only from 64 hex digits. `test_proto_token --print` prints the golden block.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

// clang-format on

#include <arbiter/token.h>

#include "../common/read_file.h"
#include "../common/test_main.h"

static const char* g_protocol_md;

// The documented inputs of the golden token.
static void golden_inputs(arb_token* t, uint8_t key[32], uint8_t nonce[24]) {
  memset(t, 0, sizeof *t);
  for (int i = 0; i < 32; ++i) key[i] = (uint8_t)i;
  for (int i = 0; i < 24; ++i) nonce[i] = (uint8_t)(0x40 + i);
  t->expires_at = 1893456000;  // 2030-01-01T00:00:00Z
  t->client_id = 42;
  for (int i = 0; i < 16; ++i) t->token_id[i] = (uint8_t)(0xA0 + i);
  t->address_count = 1;
  arb_token_parse_address("127.0.0.1:7777", &t->addresses[0]);
  t->user_data_len = 3;
  memcpy(t->user_data, "ada", 3);
}

// The line after "```text token=golden" in `text`; returns its length or -1.
static int golden_line(const char* text, char* out, size_t cap) {
  const char* tag = "```text token=golden\n";
  const char* p = strstr(text, tag);
  if (p == NULL) return -1;
  p += strlen(tag);
  size_t len = strcspn(p, "\n");
  if (len >= cap) return -1;
  memcpy(out, p, len);
  out[len] = '\0';
  return (int)len;
}

// The golden token's text as PROTOCOL.md shows it; returns its length or -1.
static int read_golden(char* out, size_t cap) {
  char* text = arb_test_read_file(g_protocol_md, NULL);
  int len = text ? golden_line(text, out, cap) : -1;
  free(text);
  return len;
}

static void test_token_golden(void** state) {
  (void)state;
  arb_token t, back;
  uint8_t key[32], nonce[24];
  golden_inputs(&t, key, nonce);
  char minted[300], doc[300];
  int n = arb_token_mint(&t, key, nonce, minted, sizeof minted);
  assert_true(n > 0 && n <= ARB_TOKEN_MAX_TEXT);
  assert_int_equal(read_golden(doc, sizeof doc), n);
  assert_string_equal(minted, doc);
  assert_int_equal(arb_token_open(doc, strlen(doc), key, &back), 0);
  assert_memory_equal(&back, &t, sizeof t);
}

static void test_token_refusals(void** state) {
  (void)state;
  arb_token t, back;
  uint8_t key[32], nonce[24];
  golden_inputs(&t, key, nonce);
  char text[300];
  int n = arb_token_mint(&t, key, nonce, text, sizeof text);
  // Another key.
  uint8_t other[32];
  memcpy(other, key, 32);
  other[31] ^= 1;
  assert_int_equal(arb_token_open(text, (size_t)n, other, &back), ARB_E_CHECKSUM);
  // Every character changed to another base64url character, every truncation.
  for (int i = 0; i < n; ++i) {
    char copy[300];
    memcpy(copy, text, (size_t)n + 1);
    copy[i] = copy[i] == 'A' ? 'B' : 'A';
    int rc = arb_token_open(copy, (size_t)n, key, &back);
    // The last character carries only some bits: a change there may not alter the bytes.
    if (rc == 0 && i != n - 1) fail_msg("changed character %d still opens", i);
  }
  for (int cut = 0; cut < n; ++cut)
    assert_int_not_equal(arb_token_open(text, (size_t)cut, key, &back), 0);
  assert_int_equal(arb_token_open("not a token!", 12, key, &back), ARB_E_CORRUPT);
  char big[400];
  memset(big, 'A', sizeof big);
  assert_int_equal(arb_token_open(big, sizeof big, key, &back), ARB_E_CORRUPT);
  // Fields out of range are not minted.
  t.address_count = 0;
  assert_int_equal(arb_token_mint(&t, key, nonce, text, sizeof text), ARB_E_INVAL);
  t.address_count = 5;
  assert_int_equal(arb_token_mint(&t, key, nonce, text, sizeof text), ARB_E_INVAL);
  t.address_count = 1;
  t.user_data_len = 33;
  assert_int_equal(arb_token_mint(&t, key, nonce, text, sizeof text), ARB_E_INVAL);
  t.user_data_len = 0;
  assert_int_equal(arb_token_mint(&t, key, nonce, text, 10), ARB_E_NOSPACE);
  // Random nonces: two mints of the same token differ, both open.
  char a[300], b[300];
  assert_true(arb_token_mint(&t, key, NULL, a, sizeof a) > 0);
  assert_true(arb_token_mint(&t, key, NULL, b, sizeof b) > 0);
  assert_string_not_equal(a, b);
  assert_int_equal(arb_token_open(b, strlen(b), key, &back), 0);
}

static void test_token_key_files_and_addresses(void** state) {
  (void)state;
  char path[] = "/tmp/arbiter-key-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char* good = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";
  assert_int_equal(write(fd, good, strlen(good)), (int)strlen(good));
  close(fd);
  uint8_t key[32];
  char err[300];
  assert_int_equal(arb_token_load_key(path, key, err, sizeof err), 0);
  for (int i = 0; i < 32; ++i) assert_int_equal(key[i], i);
  FILE* f = fopen(path, "w");
  fputs("0001020304", f);
  fclose(f);
  assert_int_equal(arb_token_load_key(path, key, err, sizeof err), -1);
  assert_non_null(strstr(err, "64 hex digits"));
  unlink(path);
  assert_int_equal(arb_token_load_key(path, key, err, sizeof err), -1);
  arb_token_address a;
  assert_int_equal(arb_token_parse_address("10.0.0.2:7777", &a), 0);
  assert_int_equal(a.ip[0], 10);
  assert_int_equal(a.port, 7777);
  assert_int_equal(arb_token_parse_address("10.0.0.2", &a), ARB_E_INVAL);
  assert_int_equal(arb_token_parse_address("10.0.0.256:1", &a), ARB_E_INVAL);
  assert_int_equal(arb_token_parse_address("10.0.0.1:0", &a), ARB_E_INVAL);
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--print") == 0) {
    arb_token t;
    uint8_t key[32], nonce[24];
    golden_inputs(&t, key, nonce);
    char text[300];
    if (arb_token_mint(&t, key, nonce, text, sizeof text) < 0) return 1;
    printf("```text token=golden\n%s\n```\n", text);
    return 0;
  }
  if (!arb_test_args(argc, argv, "PROTOCOL.md | --print", &g_protocol_md, NULL)) return 2;
  return ARB_RUN_TESTS(NULL, NULL, cmocka_unit_test(test_token_golden),
                       cmocka_unit_test(test_token_refusals),
                       cmocka_unit_test(test_token_key_files_and_addresses));
}
