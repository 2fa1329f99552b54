// The WebSocket transport (PROTOCOL.md §1.2) against a real arbiter-server: the upgrade and
// every refusal with its HTTP status, the frame rules (text 1003, oversized 1009, unmasked
// 1002, fragments joined, pings answered), a whole session beside an ENet client in the
// same match, a kick (4007 after the event), a lost TCP connection held for a rejoin over
// WebSocket, --peers-per-address over both transports, and 1 000 idle connections while a
// client plays and /healthz answers.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test_server_common.h"

// ---- helpers ---------------------------------------------------------------------------

static void start_ws_server(tc_server* s, const char* const* extra) {
  const char* args[32] = {"--ws-port", "-1"};
  int n = 2;
  for (int i = 0; extra && extra[i] && n < 31; ++i) args[n++] = extra[i];
  args[n] = NULL;
  start_server(s, args);
  assert_true(s->ws_port > 0);
}

// Connect from `ip` and send `extra_headers` with the usual upgrade request: the status.
static int upgrade(const tc_server* s, const char* ip, const char* extra, int* fd_out, char* resp,
                   size_t cap) {
  int fd = tc_ws_connect(ip, (uint16_t)s->ws_port);
  assert_true(fd >= 0);
  char req[1024];
  tc_ws_request(req, sizeof req, (uint16_t)s->ws_port, extra);
  int status = tc_ws_handshake(fd, req, 3000, resp, cap);
  if (fd_out)
    *fd_out = fd;
  else
    close(fd);
  return status;
}

// Lines of a file containing `needle`.
static int count_lines(const char* path, const char* needle) {
  char* text = NULL;
  if (tc_read_file(path, &text) < 0) return -1;
  int n = 0;
  for (const char* p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  free(text);
  return n;
}

// A raw connection past the upgrade, with its reader.
typedef struct raw_ws {
  int fd;
  tc_ws_reader r;
} raw_ws;

static void raw_open(raw_ws* w, const tc_server* s, const char* ip) {
  char resp[1024];
  assert_int_equal(upgrade(s, ip, NULL, &w->fd, resp, sizeof resp), 101);
  assert_int_equal(tc_ws_reader_init(&w->r), 0);
}

static void raw_close(raw_ws* w) {
  close(w->fd);
  tc_ws_reader_free(&w->r);
}

// A valid hello for `name` (version 2, no token, the default avatar).
static size_t hello_bytes(uint8_t* out, size_t cap, const char* name, const char* token) {
  arb_proto_hello h;
  memset(&h, 0, sizeof h);
  h.version = ARB_PROTO_VERSION;
  snprintf(h.name, sizeof h.name, "%s", name);
  h.token_len = (uint16_t)(token ? strlen(token) : 0);
  if (token) memcpy(h.token, token, h.token_len);
  int n = arb_proto_encode_hello(&h, out, cap);
  assert_true(n > 0);
  return (size_t)n;
}

// Read messages until one of `type` (returns its length, copied into out) or timeout (-1).
static int wait_message(raw_ws* w, arb_proto_msg_type type, uint8_t* out, size_t cap,
                        int timeout_ms) {
  uint64_t end = tc_now_ms() + (uint64_t)timeout_ms;
  while (tc_now_ms() < end) {
    const uint8_t* d;
    size_t n;
    int op = tc_ws_read(&w->r, w->fd, (int)(end - tc_now_ms()), &d, &n);
    if (op < 0) return -1;
    arb_proto_msg_type t;
    if (op == 2 && arb_proto_peek_type(d, n, &t) == 0 && t == type && n <= cap) {
      memcpy(out, d, n);
      return (int)n;
    }
  }
  return -1;
}

// ---- the upgrade ------------------------------------------------------------------------

static void test_ws_handshake_accepted(void** state) {
  (void)state;
  tc_server s;
  start_ws_server(&s, NULL);
  char resp[1024];
  assert_int_equal(
      upgrade(&s, NULL, "Sec-WebSocket-Protocol: chat, arbiter\r\n", NULL, resp, sizeof resp), 101);
  // RFC 6455's example key and its accept value; the offered subprotocol is selected.
  assert_non_null(strstr(resp, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"));
  assert_non_null(strstr(resp, "Sec-WebSocket-Protocol: arbiter\r\n"));
  assert_int_equal(upgrade(&s, NULL, NULL, NULL, resp, sizeof resp), 101);
  assert_null(strstr(resp, "Sec-WebSocket-Protocol"));  // none offered: none selected
  // The startup line names what a browser connects to.
  char url[96];
  assert_true(tc_log_find(s.log_path, "server_started", "ws_url", url, sizeof url));
  char want[64];
  snprintf(want, sizeof want, "ws://0.0.0.0:%d/", s.ws_port);
  assert_string_equal(url, want);
  tc_sleep_ms(100);
  assert_true(server_metric(&s, "arbiter_ws_handshakes_total") == 2.0);
  stop_server(&s);
}

static void test_ws_refusals(void** state) {
  (void)state;
  tc_server s;
  const char* args[] = {"--ws-origin",
                        "https://good.example",
                        "--ws-origin",
                        "https://other.example",
                        "--ws-per-address",
                        "2",
                        "--ws-max",
                        "3",
                        NULL};
  start_ws_server(&s, args);
  const char* good = "Origin: https://good.example\r\n";
  char resp[1024], req[16384];

  // Not a valid upgrade: 400; another version: 426 naming 13.
  int fd = tc_ws_connect(NULL, (uint16_t)s.ws_port);
  snprintf(req, sizeof req,
           "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: not-base64-of-16\r\nSec-WebSocket-Version: 13\r\n%s\r\n",
           good);
  assert_int_equal(tc_ws_handshake(fd, req, 3000, resp, sizeof resp), 400);
  close(fd);
  fd = tc_ws_connect(NULL, (uint16_t)s.ws_port);
  snprintf(req, sizeof req,
           "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: " TC_WS_KEY "\r\nSec-WebSocket-Version: 8\r\n%s\r\n",
           good);
  assert_int_equal(tc_ws_handshake(fd, req, 3000, resp, sizeof resp), 426);
  assert_non_null(strstr(resp, "Sec-WebSocket-Version: 13\r\n"));
  close(fd);
  fd = tc_ws_connect(NULL, (uint16_t)s.ws_port);
  assert_int_equal(
      tc_ws_handshake(fd, "POST / HTTP/1.1\r\nHost: x\r\n\r\n", 3000, resp, sizeof resp), 400);
  close(fd);

  // The Origin allow-list: none, another, a prefix of an allowed one: 403; exact: 101.
  assert_int_equal(upgrade(&s, NULL, NULL, NULL, resp, sizeof resp), 403);
  assert_int_equal(upgrade(&s, NULL, "Origin: https://evil.example\r\n", NULL, resp, sizeof resp),
                   403);
  assert_int_equal(upgrade(&s, NULL, "Origin: https://good.exampl\r\n", NULL, resp, sizeof resp),
                   403);
  assert_int_equal(upgrade(&s, NULL, "Origin: https://other.example\r\n", NULL, resp, sizeof resp),
                   101);

  // A head over 8192 bytes: 431.
  fd = tc_ws_connect(NULL, (uint16_t)s.ws_port);
  char pad[9000];
  memset(pad, 'a', sizeof pad - 1);
  pad[sizeof pad - 1] = '\0';
  snprintf(req, sizeof req, "GET / HTTP/1.1\r\nX-Pad: %s\r\n", pad);
  assert_int_equal(tc_ws_handshake(fd, req, 3000, resp, sizeof resp), 431);
  close(fd);

  // Per address (2) and in total (3): the third from one address and the fourth in all: 503.
  int held[3];
  assert_int_equal(upgrade(&s, "127.0.0.2", good, &held[0], resp, sizeof resp), 101);
  assert_int_equal(upgrade(&s, "127.0.0.2", good, &held[1], resp, sizeof resp), 101);
  assert_int_equal(upgrade(&s, "127.0.0.2", good, NULL, resp, sizeof resp), 503);
  assert_int_equal(upgrade(&s, "127.0.0.3", good, &held[2], resp, sizeof resp), 101);
  assert_int_equal(upgrade(&s, "127.0.0.4", good, NULL, resp, sizeof resp), 503);
  for (int i = 0; i < 3; ++i) close(held[i]);

  // A head not complete within 5 s: 408.
  fd = tc_ws_connect(NULL, (uint16_t)s.ws_port);
  assert_int_equal(tc_ws_send_all(fd, "GET / HTTP/1.1\r\n", 16), 0);
  uint64_t t0 = tc_now_ms();
  assert_int_equal(tc_ws_read_status(fd, 8000, resp, sizeof resp), 408);
  uint64_t waited = tc_now_ms() - t0;
  print_message("408 after %llu ms\n", (unsigned long long)waited);
  assert_true(waited >= 4500 && waited < 7000);
  close(fd);

  EXPECT_METRICS(&s, {"arbiter_ws_refused_total{status=\"400\"}", 2},
                 {"arbiter_ws_refused_total{status=\"426\"}", 1},
                 {"arbiter_ws_refused_total{status=\"403\"}", 3},
                 {"arbiter_ws_refused_total{status=\"431\"}", 1},
                 {"arbiter_ws_refused_total{status=\"503\"}", 2},
                 {"arbiter_ws_refused_total{status=\"408\"}", 1});
  // Each refusal is a log line with the address and why, at most 20 a second: a flood of
  // 60 bad requests logs at most two seconds' worth, and the next line says how many
  // were left out (all are counted).
  char why[128];
  assert_true(tc_log_find(s.log_path, "ws_refused", "why", why, sizeof why));
  int before = count_lines(s.log_path, "\"event\":\"ws_refused\"");
  for (int i = 0; i < 60; ++i)
    assert_int_equal(upgrade(&s, NULL, "X: y\r\n", NULL, resp, sizeof resp), 403);
  int flood = count_lines(s.log_path, "\"event\":\"ws_refused\"") - before;
  tc_sleep_ms(1100);
  assert_int_equal(upgrade(&s, NULL, NULL, NULL, resp, sizeof resp), 403);
  char suppressed[32];
  assert_true(tc_log_find(s.log_path, "ws_refused", "suppressed", suppressed, sizeof suppressed));
  print_message("60 refusals: %d log lines, then suppressed=%s\n", flood, suppressed);
  assert_true(flood <= 40);
  assert_true(atoi(suppressed) + flood >= 60);
  assert_true(server_metric(&s, "arbiter_ws_refused_total{status=\"403\"}") == 64.0);
  stop_server(&s);
}

// ---- frames -----------------------------------------------------------------------------

static const uint8_t k_mask[4] = {0x12, 0x34, 0x56, 0x78};

static void expect_close(const tc_server* s, const uint8_t* frame, size_t len, int code) {
  raw_ws w;
  raw_open(&w, s, NULL);
  assert_int_equal(tc_ws_send_all(w.fd, frame, len), 0);
  assert_int_equal(tc_ws_wait_close(&w.r, w.fd, 3000), 8);
  assert_int_equal(w.r.close_code, code);
  raw_close(&w);
}

static void test_ws_frames(void** state) {
  (void)state;
  tc_server s;
  start_ws_server(&s, NULL);
  uint8_t f[8192], payload[4200];
  memset(payload, 0x90, sizeof payload);

  // A text frame: 1003. A 4097-byte message: 1009 (one frame, and as fragments summing over).
  size_t n = tc_ws_frame(f, sizeof f, 1, true, k_mask, "hello", 5);
  expect_close(&s, f, n, 1003);
  n = tc_ws_frame(f, sizeof f, 2, true, k_mask, payload, 4097);
  expect_close(&s, f, n, 1009);
  n = tc_ws_frame(f, sizeof f, 2, false, k_mask, payload, 3000);
  n += tc_ws_frame(f + n, sizeof f - n, 0, true, k_mask, payload, 1097);
  expect_close(&s, f, n, 1009);
  // Unmasked (a server-style frame from a client) and a reserved bit: 1002.
  n = tc_ws_frame(f, sizeof f, 2, true, NULL, payload, 10);
  expect_close(&s, f, n, 1002);
  n = tc_ws_frame(f, sizeof f, 2, true, k_mask, payload, 10);
  f[0] |= 0x40;
  expect_close(&s, f, n, 1002);
  n = tc_ws_frame(f, sizeof f, 9, false, k_mask, payload, 4);  // a fragmented ping
  expect_close(&s, f, n, 1002);

  // A hello in three fragments (with a WebSocket ping between them) is one message:
  // welcomed. The ping gets its pong, and arbiter's ping gets its pong message.
  raw_ws w;
  raw_open(&w, &s, NULL);
  uint8_t hello[128];
  size_t hn = hello_bytes(hello, sizeof hello, "frag", NULL);
  n = tc_ws_frame(f, sizeof f, 2, false, k_mask, hello, 3);
  n += tc_ws_frame(f + n, sizeof f - n, 9, true, k_mask, "pi", 2);
  n += tc_ws_frame(f + n, sizeof f - n, 0, false, k_mask, hello + 3, 4);
  n += tc_ws_frame(f + n, sizeof f - n, 0, true, k_mask, hello + 7, hn - 7);
  assert_int_equal(tc_ws_send_all(w.fd, f, n), 0);
  const uint8_t* d;
  size_t dn;
  int op = tc_ws_read(&w.r, w.fd, 3000, &d, &dn);
  assert_int_equal(op, 10);  // the pong of the ping comes first
  assert_int_equal(dn, 2);
  assert_memory_equal(d, "pi", 2);
  uint8_t msg[65536];
  int wl = wait_message(&w, ARB_PROTO_MSG_WELCOME, msg, sizeof msg, 3000);
  assert_true(wl > 0);
  arb_proto_ping ping = {42, 123456789u};
  uint8_t pb[64];
  int pn = arb_proto_encode_ping(&ping, pb, sizeof pb);
  assert_int_equal(tc_ws_send_binary(w.fd, pb, (size_t)pn), 0);
  int pl = wait_message(&w, ARB_PROTO_MSG_PONG, msg, sizeof msg, 3000);
  assert_true(pl > 0);
  arb_proto_pong pong;
  arb_proto_error err;
  assert_int_equal(arb_proto_decode_pong(msg, (size_t)pl, &pong, &err), 0);
  assert_int_equal(pong.ping_id, 42);
  assert_true(pong.client_time_us == 123456789u);
  raw_close(&w);

  tc_sleep_ms(200);
  EXPECT_METRICS(&s, {"arbiter_ws_closes_total{code=\"1003\"}", 1},
                 {"arbiter_ws_closes_total{code=\"1009\"}", 2},
                 {"arbiter_ws_closes_total{code=\"1002\"}", 3});
  char code[16];
  assert_true(tc_log_find(s.log_path, "ws_protocol_error", "code", code, sizeof code));
  // The server is still serving.
  char* body = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/healthz", &body), 200);
  free(body);
  stop_server(&s);
}

// ---- sessions ----------------------------------------------------------------------------

// A WebSocket client and an ENet client in one match: welcome, scene, snapshots, each
// sees the other's avatar, the WebSocket client's inputs move its avatar.
static void test_ws_session_beside_enet(void** state) {
  (void)state;
  tc_server s;
  start_ws_server(&s, NULL);
  tc_client* cs[2] = {tc_create(), tc_create()};
  assert_int_equal(tc_start(cs[0], (uint16_t)s.port, "udp", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_start_ws(cs[1], NULL, (uint16_t)s.ws_port, "web", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(cs, 2, 10000), 2);
  tc_client *udp = cs[0], *web = cs[1];
  assert_int_equal(web->welcome.tick_rate, 60);
  assert_true(web->welcome.static_count > 0);
  assert_int_not_equal(web->welcome.entity_id, udp->welcome.entity_id);

  walk_away walk = settle_then_walk_away(cs, 1);  // the web client's avatar walks
  float wx = walk.x[1];
  const arb_controls* ctl = walk.ctl;
  uint64_t snaps0 = web->snapshots_complete;
  uint64_t t0 = tc_now_ms();
  drive(cs, 2, ctl, 3000);
  double rate = (double)(web->snapshots_complete - snaps0) * 1000.0 / (double)(tc_now_ms() - t0);
  arb_snapshot_state w1;
  assert_true(tc_entity(udp, web->welcome.entity_id, &w1));  // seen over ENet
  float dx = arb_proto_dequantize_pos(w1.x) - wx;
  print_message("web client: %.1f snapshots/s, %llu errors, moved %.2f m, scenes %d\n", rate,
                (unsigned long long)web->snapshot_errors, dx, web->scenes_received);
  assert_true(rate >= 27.0 && rate <= 33.0);
  assert_int_equal(web->snapshot_errors, 0);
  assert_int_equal(web->scenes_received, 1);
  assert_true(fabsf(dx) > 0.5f);
  assert_true((dx > 0) == (ctl[1].move_x > 0));
  assert_true(web->last_input_seq_acked > 0);

  // The WebSocket client leaves with 1000: a departure (left event to the other, no hold).
  int left0 = udp->left_events;
  tc_close(web);
  assert_int_equal(web->ws_reader.close_code, 1000);  // echoed
  uint64_t end = tc_now_ms() + 2000;
  while (udp->left_events == left0 && tc_now_ms() < end) tc_pump(&udp, 1, 20);
  assert_int_equal(udp->left_events, left0 + 1);
  assert_int_equal(udp->last_left.client_id, web->welcome.client_id);
  assert_true(server_metric(&s, "arbiter_rejoins_pending") == 0.0);
  close_all(cs, 2);
  stop_server(&s);
}

// --peers-per-address counts both transports: an ENet peer and a WebSocket connection fill
// a budget of 2, and a second WebSocket upgrade from that address gets 503.
static void test_ws_address_budget_both_transports(void** state) {
  (void)state;
  tc_server s;
  const char* args[] = {"--peers-per-address", "2", NULL};
  start_ws_server(&s, args);
  tc_client* cs[2] = {tc_create(), tc_create()};
  assert_int_equal(tc_start(cs[0], (uint16_t)s.port, "udp", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_start_ws(cs[1], NULL, (uint16_t)s.ws_port, "web", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(cs, 2, 10000), 2);
  char resp[1024];
  assert_int_equal(upgrade(&s, NULL, NULL, NULL, resp, sizeof resp), 503);
  assert_int_equal(upgrade(&s, "127.0.0.9", NULL, NULL, resp, sizeof resp), 101);  // another
  close_all(cs, 2);
  stop_server(&s);
}

static void test_ws_kick_closes_4007_after_event(void** state) {
  (void)state;
  char token_path[64];
  snprintf(token_path, sizeof token_path, "/tmp/arbiter-ws-token-%d", (int)getpid());
  FILE* tf = fopen(token_path, "w");
  assert_non_null(tf);
  fputs("ws-test-operator-token-0123456789\n", tf);
  fclose(tf);
  tc_server s;
  const char* args[] = {"--admin-token", token_path, NULL};
  start_ws_server(&s, args);
  tc_client* c = tc_create();
  assert_int_equal(tc_start_ws(c, NULL, (uint16_t)s.ws_port, "kickme", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&c, 1, 5000), 1);
  char req[256], resp[1024];
  int n = snprintf(req, sizeof req,
                   "POST /admin/kick/%u HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                   "ws-test-operator-token-0123456789\r\nContent-Length: 0\r\n\r\n",
                   c->welcome.client_id);
  assert_true(tc_http_raw(s.http_port, req, (size_t)n, 3000, resp, sizeof resp) > 0);
  assert_non_null(strstr(resp, "HTTP/1.1 200"));
  uint64_t end = tc_now_ms() + 3000;
  while (c->state == TC_WELCOMED && tc_now_ms() < end) tc_service(c, 20);
  assert_int_equal(c->state, TC_DISCONNECTED);
  assert_int_equal(c->disconnect_event.kind, ARB_PROTO_EVENT_DISCONNECT);  // the event came first
  assert_int_equal(c->disconnect_event.code, ARB_PROTO_REASON_KICKED);
  assert_int_equal(c->ws_close_code, 4007);
  assert_string_equal(c->ws_reader.close_reason, "kicked");
  tc_destroy(c);
  stop_server(&s);
  unlink(token_path);
}

// A TCP reset is a lost connection: the avatar is held, and a rejoin over WebSocket with the
// token gets it back.
static void test_ws_reset_held_and_rejoined(void** state) {
  (void)state;
  tc_server s;
  start_ws_server(&s, NULL);
  tc_client* c = tc_create();
  assert_int_equal(tc_start_ws(c, NULL, (uint16_t)s.ws_port, "lost", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&c, 1, 5000), 1);
  drive(&c, 1, NULL, 2600);  // past the 2 s of play a hold needs
  assert_true(c->rejoin_token[0] != '\0');
  uint32_t client_id = c->welcome.client_id, entity_id = c->welcome.entity_id;
  tc_ws_reset(c->ws_fd);
  c->ws_fd = -1;
  uint64_t end = tc_now_ms() + 3000;
  while (server_metric(&s, "arbiter_rejoins_pending") != 1.0 && tc_now_ms() < end) tc_sleep_ms(50);
  assert_true(server_metric(&s, "arbiter_rejoins_pending") == 1.0);
  char cause[32];
  assert_true(tc_log_find(s.log_path, "client_lost", "cause", cause, sizeof cause));
  assert_string_equal(cause, "ws");

  tc_client* again = tc_create();
  snprintf(again->token, sizeof again->token, "%s", c->rejoin_token);
  assert_int_equal(tc_start_ws(again, NULL, (uint16_t)s.ws_port, "lost", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&again, 1, 5000), 1);
  assert_int_equal(again->welcome.client_id, client_id);
  assert_int_equal(again->welcome.entity_id, entity_id);
  drive(&again, 1, NULL, 500);
  assert_true(again->snapshots_complete > 5);
  assert_true(server_metric(&s, "arbiter_rejoins_total") == 1.0);
  assert_true(server_metric(&s, "arbiter_ws_closes_total{code=\"none\"}") >= 1.0);
  tc_close(again);
  tc_destroy(again);
  tc_destroy(c);
  stop_server(&s);
}

// A client that stops reading (a slow link) gets no snapshots queued behind the 64 KiB of
// backlog: they are skipped and counted, the session stays, and once it reads again fresh
// snapshots arrive and apply (deltas against what it acknowledged). The scene has 204
// bodies in motion, so snapshots are kilobytes and the backlog builds within seconds.
static void test_ws_backlog_skips_snapshots(void** state) {
  (void)state;
  tc_server s;
  const char* args[] = {"--scene", ARB_SCENES_DIR "/bouncy.json", NULL};
  start_ws_server(&s, args);
  tc_client* c = tc_create();
  c->ws_rcvbuf = 4096;  // the kernel holds little on our side: the server's backlog builds
  assert_int_equal(tc_start_ws(c, NULL, (uint16_t)s.ws_port, "slow", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&c, 1, 5000), 1);
  drive(&c, 1, NULL, 500);
  arb_controls none;
  memset(&none, 0, sizeof none);
  double skipped = 0.0;
  uint64_t end = tc_now_ms() + 15000;
  while (skipped < 10.0 && tc_now_ms() < end) {  // inputs go out, nothing is read
    tc_send_input(c, &none);
    tc_sleep_ms(16);
    skipped = server_metric(&s, "arbiter_ws_snapshots_skipped_total");
  }
  print_message("skipped %.0f snapshots while the client did not read\n", skipped);
  assert_true(skipped >= 10.0);
  uint64_t snaps0 = c->snapshots_complete;
  drive(&c, 1, NULL, 3000);  // reading again
  print_message("then %llu snapshots in 3 s, %llu errors\n",
                (unsigned long long)(c->snapshots_complete - snaps0),
                (unsigned long long)c->snapshot_errors);
  assert_int_equal(c->state, TC_WELCOMED);
  assert_true(c->snapshots_complete - snaps0 >= 30);
  assert_int_equal(c->snapshot_errors, 0);
  tc_close(c);
  tc_destroy(c);
  stop_server(&s);
}

// 1 000 idle connections from 1 000 loopback addresses hold their slots while one client
// keeps getting its snapshots and /healthz answers.
#define IDLE_CONNECTIONS 1000
static void test_ws_thousand_idle_connections(void** state) {
  (void)state;
  tc_server s;
  const char* args[] = {"--ws-max", "1100", "--hello-timeout-ms", "60000", NULL};
  start_ws_server(&s, args);
  tc_client* player = tc_create();
  assert_int_equal(tc_start_ws(player, NULL, (uint16_t)s.ws_port, "player", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&player, 1, 5000), 1);
  static int fds[IDLE_CONNECTIONS];
  uint64_t t0 = tc_now_ms();
  for (int i = 0; i < IDLE_CONNECTIONS; ++i) {
    char ip[32], resp[512];
    snprintf(ip, sizeof ip, "127.%d.%d.%d", 10 + i / 62500, (i / 250) % 250, i % 250 + 1);
    int status = upgrade(&s, ip, NULL, &fds[i], resp, sizeof resp);
    if (status != 101) fail_msg("connection %d from %s: status %d", i, ip, status);
    if (i % 50 == 0) drive(&player, 1, NULL, 1);  // the player keeps playing meanwhile
  }
  print_message("%d idle connections open in %llu ms\n", IDLE_CONNECTIONS,
                (unsigned long long)(tc_now_ms() - t0));
  uint64_t snaps0 = player->snapshots_complete;
  uint64_t t1 = tc_now_ms();
  int healthy = 0;
  for (int k = 0; k < 4; ++k) {
    drive(&player, 1, NULL, 500);
    char* body = NULL;
    healthy += tc_http_get(s.http_port, "/healthz", &body) == 200;
    free(body);
  }
  double rate = (double)(player->snapshots_complete - snaps0) * 1000.0 / (double)(tc_now_ms() - t1);
  print_message("player: %.1f snapshots/s with %d idle connections\n", rate, IDLE_CONNECTIONS);
  assert_int_equal(healthy, 4);
  assert_true(rate >= 25.0);
  assert_true(server_metric(&s, "arbiter_ws_connections") == (double)(IDLE_CONNECTIONS + 1));
  for (int i = 0; i < IDLE_CONNECTIONS; ++i) close(fds[i]);
  tc_close(player);
  tc_destroy(player);
  stop_server(&s);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_ws_handshake_accepted), cmocka_unit_test(test_ws_refusals),
                 cmocka_unit_test(test_ws_frames), cmocka_unit_test(test_ws_session_beside_enet),
                 cmocka_unit_test(test_ws_address_budget_both_transports),
                 cmocka_unit_test(test_ws_kick_closes_4007_after_event),
                 cmocka_unit_test(test_ws_reset_held_and_rejoined),
                 cmocka_unit_test(test_ws_backlog_skips_snapshots),
                 cmocka_unit_test(test_ws_thousand_idle_connections))
