// Connect tokens against a real server (--auth-key; PROTOCOL.md §3.1): a valid token is
// welcomed; no token, a forged one, an expired one, one for another server and a reused
// one (also from another address) get reject bad_token; arbiter-token's keygen/mint make
// tokens the server accepts; /metrics counts each refusal by reason.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arbiter/token.h>

#include "test_server_common.h"

static const char* g_token_exe;

static void mint(const uint8_t key[32], uint16_t port, int64_t expires_in, uint64_t client_id,
                 char* out) {
  arb_token t;
  memset(&t, 0, sizeof t);
  t.expires_at = (uint64_t)((int64_t)time(NULL) + expires_in);
  t.client_id = client_id;
  for (int i = 0; i < 16; ++i) t.token_id[i] = (uint8_t)(rand() & 0xff);
  t.address_count = 1;
  arb_token_address a = {{127, 0, 0, 1}, port};
  t.addresses[0] = a;
  assert_true(arb_token_mint(&t, key, NULL, out, ARB_PROTO_MAX_TOKEN + 1) > 0);
}

// Start a client with this token (from local_ip) and wait until it is welcomed or refused.
static tc_client* try_join(uint16_t port, const char* local_ip, const char* token) {
  tc_client* c = tc_create();
  snprintf(c->token, sizeof c->token, "%s", token);
  assert_int_equal(tc_start_from(c, local_ip, port, "auth", ARB_PROTO_VERSION), 0);
  tc_wait_settled(&c, 1, 5000);
  tc_pump(&c, 1, 100);
  return c;
}

static void expect_bad_token(uint16_t port, const char* local_ip, const char* token,
                             const char* text) {
  tc_client* c = try_join(port, local_ip, token);
  if (c->state != TC_REJECTED)
    print_error("expected bad_token (%s), state %d\n", text, (int)c->state);
  assert_int_equal(c->state, TC_REJECTED);
  assert_int_equal(c->reject.reason, ARB_PROTO_REASON_BAD_TOKEN);
  assert_string_equal(c->reject.text, text);
  tc_destroy(c);
}

static void test_server_auth_tokens(void** state) {
  (void)state;
  char key_path[] = "/tmp/arbiter-auth-key-XXXXXX";
  int fd = mkstemp(key_path);
  assert_true(fd >= 0);
  close(fd);
  unlink(key_path);
  // The tool makes the key (and refuses to overwrite it).
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s keygen %s", g_token_exe, key_path);
  assert_int_equal(system(cmd), 0);
  assert_int_not_equal(system(cmd), 0);
  uint8_t key[32];
  char err[300];
  assert_int_equal(arb_token_load_key(key_path, key, err, sizeof err), 0);

  tc_server s;
  START_SERVER(&s, "--auth-key", key_path, "--bind", "127.0.0.1");
  uint16_t port = (uint16_t)s.port;
  char tok[ARB_PROTO_MAX_TOKEN + 1];

  // Valid.
  mint(key, port, 60, 7, tok);
  tc_client* ok = try_join(port, NULL, tok);
  assert_int_equal(ok->state, TC_WELCOMED);
  // The same token again: from the same machine, and from another address.
  expect_bad_token(port, NULL, tok, "connect token was already used");
  expect_bad_token(port, "127.0.0.77", tok, "connect token was already used");

  expect_bad_token(port, NULL, "", "this server requires a connect token");
  uint8_t other_key[32];
  memcpy(other_key, key, 32);
  other_key[0] ^= 0x80;
  mint(other_key, port, 60, 8, tok);
  expect_bad_token(port, NULL, tok, "connect token is not valid");
  mint(key, port, 60, 8, tok);
  tok[10] = tok[10] == 'A' ? 'B' : 'A';
  expect_bad_token(port, NULL, tok, "connect token is not valid");
  mint(key, port, -1, 9, tok);
  expect_bad_token(port, NULL, tok, "connect token has expired");
  mint(key, (uint16_t)(port + 1), 60, 10, tok);
  expect_bad_token(port, NULL, tok, "connect token is not for this server");

  // A token from the command-line tool.
  snprintf(cmd, sizeof cmd, "%s mint --key %s --client-id 99 --server 127.0.0.1:%u --expires-in 30",
           g_token_exe, key_path, (unsigned)port);
  FILE* p = popen(cmd, "r");
  assert_non_null(p);
  char line[400] = "";
  assert_non_null(fgets(line, sizeof line, p));
  assert_int_equal(pclose(p), 0);
  line[strcspn(line, "\n")] = '\0';
  tc_client* tool = try_join(port, NULL, line);
  assert_int_equal(tool->state, TC_WELCOMED);

  EXPECT_METRICS(&s, {"arbiter_tokens_accepted_total", 2},
                 {"arbiter_tokens_rejected_total{reason=\"reused\"}", 2},
                 {"arbiter_tokens_rejected_total{reason=\"invalid\"}", 2},
                 {"arbiter_tokens_rejected_total{reason=\"missing\"}", 1},
                 {"arbiter_tokens_rejected_total{reason=\"expired\"}", 1},
                 {"arbiter_tokens_rejected_total{reason=\"wrong_server\"}", 1});
  char value[64];
  assert_true(tc_log_find(s.log_path, "token_accepted", "token_client", value, sizeof value));
  assert_string_equal(value, "99");

  tc_close(ok);
  tc_destroy(ok);
  tc_close(tool);
  tc_destroy(tool);
  stop_server(&s);
  unlink(key_path);
}

// Without --auth-key the server is open and says so once.
static void test_server_auth_open_server_warns(void** state) {
  (void)state;
  tc_server s;
  start_server(&s, NULL);
  char value[128];
  assert_true(tc_log_find(s.log_path, "auth_disabled", "level", value, sizeof value));
  tc_client* c = try_join((uint16_t)s.port, NULL, "anything");
  assert_int_equal(c->state, TC_WELCOMED);
  tc_close(c);
  tc_destroy(c);
  stop_server(&s);
}

int main(int argc, char** argv) {
  if (!arb_test_args(argc, argv, "PATH-TO-arbiter-server PATH-TO-arbiter-token", &g_server_exe,
                     &g_token_exe, NULL))
    return 2;
  srand((unsigned)time(NULL));
  return ARB_RUN_TESTS(enet_group_setup, enet_group_teardown,
                       cmocka_unit_test(test_server_auth_tokens),
                       cmocka_unit_test(test_server_auth_open_server_warns));
}
