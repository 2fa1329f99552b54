// In-process checks of the lifecycle building blocks (no sockets, no clock): the match
// state machine with time passed in, the HTTP response parser of the Agones client (every
// framing, byte-at-a-time feeding, limits, and a deterministic random-input run), the
// GameServer JSON reader, the label sanitiser, the operator token check, and the session
// list of the largest server answered whole.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// cmocka needs these first.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/test_main.h"
#include "sv_admin.h"
#include "sv_agones.h"
#include "sv_http.h"
#include "sv_http_client.h"
#include "sv_match.h"
#include "sv_server.h"

#define S(x) ((uint64_t)(x)*1000000000u)

// ---- match ----------------------------------------------------------------------------------

static void test_match_first_join_allocates_and_empty_ends(void** state) {
  (void)state;
  sv_match_limits lim = {0, S(5), S(60)};
  sv_match m;
  sv_match_init(&m, &lim);
  assert_int_equal(m.state, SV_MATCH_STARTING);
  assert_false(sv_match_accepting(&m));
  sv_match_ready(&m, S(1));
  assert_int_equal(m.state, SV_MATCH_READY);
  assert_true(sv_match_accepting(&m));
  // A ready server with nobody waits forever: exit-when-empty counts from the allocation.
  assert_null(sv_match_check(&m, S(1000)));
  sv_match_set_players(&m, 2, S(1001));
  assert_int_equal(m.state, SV_MATCH_ALLOCATED);
  assert_true(m.allocated_ns == S(1001));
  sv_match_set_players(&m, 1, S(1002));
  assert_null(sv_match_check(&m, S(1100)));
  sv_match_set_players(&m, 0, S(1200));
  assert_null(sv_match_check(&m, S(1204)));
  sv_match_set_players(&m, 1, S(1204));  // someone came back: the clock restarts
  sv_match_set_players(&m, 0, S(1205));
  assert_null(sv_match_check(&m, S(1209)));
  assert_string_equal(sv_match_check(&m, S(1210)), "empty");
  assert_int_equal(m.state, SV_MATCH_DONE);
  assert_null(sv_match_check(&m, S(1300)));  // reported once
  assert_false(sv_match_accepting(&m));
}

static void test_match_allocated_nobody_joins(void** state) {
  (void)state;
  sv_match_limits lim = {0, S(30), S(60)};
  sv_match m;
  sv_match_init(&m, &lim);
  sv_match_ready(&m, 0);
  assert_true(sv_match_allocate(&m, S(10)));
  assert_false(sv_match_allocate(&m, S(11)));  // already
  assert_null(sv_match_check(&m, S(39)));
  assert_string_equal(sv_match_check(&m, S(40)), "empty");
}

static void test_match_max_duration(void** state) {
  (void)state;
  sv_match_limits lim = {S(100), 0, S(60)};
  sv_match m;
  sv_match_init(&m, &lim);
  sv_match_ready(&m, 0);
  sv_match_set_players(&m, 3, S(50));
  assert_null(sv_match_check(&m, S(149)));
  assert_string_equal(sv_match_check(&m, S(150)), "max_duration");
  // Limits from an allocation replace the flags' and keep the start point.
  sv_match_init(&m, &lim);
  sv_match_ready(&m, 0);
  sv_match_set_players(&m, 3, S(50));
  sv_match_limits shorter = {S(20), 0, S(60)};
  sv_match_set_limits(&m, &shorter);
  assert_string_equal(sv_match_check(&m, S(70)), "max_duration");
}

static void test_match_drain(void** state) {
  (void)state;
  sv_match_limits lim = {0, 0, S(60)};
  sv_match m;
  // No match yet: done at once.
  sv_match_init(&m, &lim);
  sv_match_ready(&m, 0);
  assert_true(sv_match_drain(&m, S(5)));
  assert_int_equal(m.state, SV_MATCH_DONE);
  assert_string_equal(sv_match_check(&m, S(5)), "drained");
  assert_null(sv_match_check(&m, S(6)));
  assert_false(sv_match_drain(&m, S(7)));
  // A match: draining until the players leave...
  sv_match_init(&m, &lim);
  sv_match_ready(&m, 0);
  sv_match_set_players(&m, 2, S(1));
  assert_true(sv_match_drain(&m, S(10)));
  assert_false(sv_match_drain(&m, S(11)));
  assert_int_equal(m.state, SV_MATCH_DRAINING);
  assert_false(sv_match_accepting(&m));
  assert_null(sv_match_check(&m, S(20)));
  sv_match_set_players(&m, 0, S(21));
  assert_string_equal(sv_match_check(&m, S(21)), "drained");
  // ... or the drain timeout passes.
  sv_match_init(&m, &lim);
  sv_match_ready(&m, 0);
  sv_match_set_players(&m, 2, S(1));
  sv_match_drain(&m, S(10));
  assert_null(sv_match_check(&m, S(69)));
  assert_string_equal(sv_match_check(&m, S(70)), "drain_timeout");
  // Ended from outside (an allocation for another scene): reported once by the next check.
  sv_match_init(&m, &lim);
  sv_match_ready(&m, 0);
  sv_match_allocate(&m, S(1));
  sv_match_end(&m, "scene_mismatch");
  assert_false(sv_match_accepting(&m));
  assert_false(sv_match_allocate(&m, S(2)));
  assert_string_equal(sv_match_check(&m, S(2)), "scene_mismatch");
  assert_null(sv_match_check(&m, S(3)));
  assert_string_equal(sv_match_state_name(SV_MATCH_DRAINING), "draining");
  assert_string_equal(sv_match_state_name((sv_match_state)99), "unknown");
}

// ---- HTTP response parser ---------------------------------------------------------------------

typedef struct lines {
  char text[8][256];
  int count;
} lines;

static void collect(void* user, const char* line, size_t len) {
  lines* l = user;
  if (l->count < 8) snprintf(l->text[l->count++], sizeof l->text[0], "%.*s", (int)len, line);
}

typedef struct result {
  int rc;
  int status;
  char body[256];
  char error[128];
} result;

// Parse `raw` fed whole, then fed one byte at a time: both must give the same result.
static result parse(const char* raw, bool stream, bool eof, lines* got) {
  result res[2];
  for (int pass = 0; pass < 2; ++pass) {
    memset(got, 0, sizeof *got);
    sv_httpc_response r;
    assert_int_equal(sv_httpc_response_init(&r, stream ? collect : NULL, got), 0);
    size_t n = strlen(raw);
    int rc = 0;
    if (pass == 0)
      rc = sv_httpc_response_feed(&r, raw, n);
    else
      for (size_t i = 0; i < n && rc == 0; ++i) rc = sv_httpc_response_feed(&r, raw + i, 1);
    if (rc == 0 && eof) rc = sv_httpc_response_eof(&r);
    res[pass].rc = rc;
    res[pass].status = r.status;
    snprintf(res[pass].body, sizeof res[pass].body, "%s", r.body);
    snprintf(res[pass].error, sizeof res[pass].error, "%s", r.error);
    sv_httpc_response_free(&r);
  }
  assert_int_equal(res[0].rc, res[1].rc);
  assert_int_equal(res[0].status, res[1].status);
  assert_string_equal(res[0].body, res[1].body);
  return res[1];
}

static void test_http_response_framings(void** state) {
  (void)state;
  lines l;
  result r =
      parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
            false, false, &l);
  assert_int_equal(r.rc, 1);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "{}");
  // Chunked, with an extension and a trailer.
  r = parse(
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3;x=y\r\n{\"a\r\n2\r\n\":\r\n1\r\n1\r\n"
      "1\r\n}\r\n0\r\nX-T: 1\r\n\r\n",
      false, false, &l);
  assert_int_equal(r.rc, 1);
  assert_string_equal(r.body, "{\"a\":1}");
  // Close-delimited.
  r = parse("HTTP/1.0 404 Not Found\r\n\r\nnope", false, true, &l);
  assert_int_equal(r.rc, 1);
  assert_int_equal(r.status, 404);
  assert_string_equal(r.body, "nope");
  // 204 has no body.
  assert_int_equal(parse("HTTP/1.1 204 No Content\r\n\r\n", false, false, &l).rc, 1);
  // Streamed lines across chunk boundaries, CRLF or LF, the last without a newline.
  r = parse(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n6\r\n1}\n{\"b\r\n"
      "9\r\n\":2}\r\n{}\r\n0\r\n\r\n",
      true, false, &l);
  assert_int_equal(r.rc, 1);
  assert_int_equal(l.count, 3);
  assert_string_equal(l.text[0], "{\"a\":1}");
  assert_string_equal(l.text[1], "{\"b\":2}");
  assert_string_equal(l.text[2], "{}");
}

static void test_http_response_errors(void** state) {
  (void)state;
  lines l;
  static const char* bad[] = {
      "HTTP/2 200 OK\r\n\r\n",
      "HTTP/1.1 2x0 OK\r\n\r\n",
      "HTTP/1.1 099 Low\r\n\r\n",
      "HTTP/1.1 100 Continue\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
      "HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n123456789\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
      "HTTP/1.1 200 OK\r\nX: a\x01b\r\n\r\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    result r = parse(bad[i], false, false, &l);
    if (r.rc != -1) fail_msg("accepted bad response %zu: %s", i, bad[i]);
    assert_true(r.error[0] != '\0');
  }
  // Cut short: an error at EOF.
  assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", false, true, &l).rc, -1);
  // A header block over the limit.
  char* big = malloc(SV_HTTPC_MAX_HEADER_BYTES + 64);
  strcpy(big, "HTTP/1.1 200 OK\r\n");
  for (size_t n = strlen(big); n < SV_HTTPC_MAX_HEADER_BYTES + 32; n = strlen(big))
    strcat(big, "X-Pad: aaaa\r\n");
  assert_int_equal(parse(big, false, false, &l).rc, -1);
  free(big);
  // A streamed line over the limit.
  const char* head = "HTTP/1.1 200 OK\r\n\r\n";
  size_t n = SV_HTTPC_MAX_BODY + 100;
  char* line = malloc(strlen(head) + n + 1);
  strcpy(line, head);
  memset(line + strlen(head), 'a', n);
  line[strlen(head) + n] = '\0';
  assert_int_equal(parse(line, true, true, &l).rc, -1);
  free(line);
}

// Random and mutated responses: the parser must stay inside its buffers (ASan) and end in a
// definite state; deterministic (xorshift).
static void test_http_response_random(void** state) {
  (void)state;
  static const char* seeds[] = {
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{}\n\n\r\n0\r\n\r\n",
      "HTTP/1.0 500 Err\r\n\r\n{\"code\":2}",
  };
  char buf[512];
  uint32_t x = 0x9e3779b9u;
  lines l;
  for (int iter = 0; iter < 20000; ++iter) {
    const char* seed = seeds[iter % 3];
    size_t len = strlen(seed);
    memcpy(buf, seed, len);
    for (int k = 0; k < 4; ++k) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      buf[x % len] = (char)(x >> 8);
    }
    sv_httpc_response r;
    assert_int_equal(sv_httpc_response_init(&r, (iter & 1) ? collect : NULL, &l), 0);
    memset(&l, 0, sizeof l);
    size_t pos = 0;
    int rc = 0;
    while (pos < len && rc == 0) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      size_t step = 1 + x % 7;
      if (step > len - pos) step = len - pos;
      rc = sv_httpc_response_feed(&r, buf + pos, step);
      pos += step;
    }
    if (rc == 0) rc = sv_httpc_response_eof(&r);
    assert_true(rc == 1 || rc == -1);
    assert_true(r.body_len <= SV_HTTPC_MAX_BODY);
    sv_httpc_response_free(&r);
  }
}

// ---- GameServer JSON, labels, token
// ----------------------------------------------------------------

// --migrate-allocator: "http://HOST[:PORT][/PATH]" and every way it can be wrong.
static void test_http_url(void** state) {
  (void)state;
  char host[32], path[32], err[160];
  int port = 0;
  assert_int_equal(sv_httpc_parse_url("http://alloc.arbiter.svc:8080/move", host, sizeof host,
                                      &port, path, sizeof path, err, sizeof err),
                   0);
  assert_string_equal(host, "alloc.arbiter.svc");
  assert_int_equal(port, 8080);
  assert_string_equal(path, "/move");
  assert_int_equal(sv_httpc_parse_url("http://10.0.0.7", host, sizeof host, &port, path,
                                      sizeof path, err, sizeof err),
                   0);
  assert_string_equal(host, "10.0.0.7");
  assert_int_equal(port, 80);
  assert_string_equal(path, "/");
  static const char* const bad[] = {"https://a/x",
                                    "http://",
                                    "http://:80/x",
                                    "http://a:0/x",
                                    "http://a:65536",
                                    "http://a:8x/y",
                                    "http://u@a/x",
                                    "http://a b/x",
                                    "http://a/x y",
                                    "a:80/x",
                                    "http://[::1]/",
                                    "http://a:80/\x7f",
                                    "",
                                    "http://a/0123456789012345678901234567890"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    err[0] = '\0';
    assert_int_equal(
        sv_httpc_parse_url(bad[i], host, sizeof host, &port, path, sizeof path, err, sizeof err),
        -1);
    assert_true(err[0] != '\0');
  }
}

static void test_agones_gameserver_json(void** state) {
  (void)state;
  sv_agones_gameserver gs;
  char err[160];
  const char* watch_line =
      "{\"result\":{\"object_meta\":{\"name\":\"gs-1\",\"annotations\":{\"arbiter.dev/"
      "exit-when-empty\":\"30\","
      "\"agones.dev/last-allocated\":\"x\",\"arbiter.dev/"
      "n\":7}},\"status\":{\"state\":\"Allocated\"}}}";
  assert_int_equal(sv_agones_parse_gameserver(watch_line, strlen(watch_line), &gs, err, sizeof err),
                   0);
  assert_string_equal(gs.name, "gs-1");
  assert_string_equal(gs.state, "Allocated");
  assert_int_equal(gs.annotation_count, 1);  // only arbiter.dev/ strings
  assert_string_equal(gs.annotations[0].key, "exit-when-empty");
  assert_string_equal(gs.annotations[0].value, "30");
  const char* plain = "{\"object_meta\":{\"name\":\"local\"},\"status\":{\"state\":\"Ready\"}}";
  assert_int_equal(sv_agones_parse_gameserver(plain, strlen(plain), &gs, err, sizeof err), 0);
  assert_string_equal(gs.state, "Ready");
  static const char* bad[] = {"",
                              "[]",
                              "{\"error\":{\"message\":\"boom\"}}",
                              "{\"result\":3}",
                              "{\"status\":{\"state\":1}}",
                              "{\"status\":[]}",
                              "{\"a\":1,\"a\":2}",
                              "{"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    if (sv_agones_parse_gameserver(bad[i], strlen(bad[i]), &gs, err, sizeof err) != -1)
      fail_msg("accepted bad GameServer JSON: %s", bad[i]);
    assert_true(err[0] != '\0');
  }
}

static void test_agones_label_values(void** state) {
  (void)state;
  char out[64];
  sv_agones_label_value("default-arena", out);
  assert_string_equal(out, "default-arena");
  sv_agones_label_value("arbiter-0.1.0+g1234 (dirty)", out);
  assert_string_equal(out, "arbiter-0.1.0-g1234--dirty");
  sv_agones_label_value("--__..", out);
  assert_string_equal(out, "");
  char long_in[200];
  memset(long_in, 'a', sizeof long_in - 1);
  long_in[sizeof long_in - 1] = '\0';
  sv_agones_label_value(long_in, out);
  assert_int_equal(strlen(out), 63);
}

static void test_admin_token_and_auth_header(void** state) {
  (void)state;
  const char* token = "0123456789abcdef-token";
  assert_true(sv_admin_authorized(token, "Bearer 0123456789abcdef-token"));
  assert_false(sv_admin_authorized(token, "Bearer 0123456789abcdef-toke"));
  assert_false(sv_admin_authorized(token, "Bearer 0123456789abcdef-tokenx"));
  assert_false(sv_admin_authorized(token, "bearer 0123456789abcdef-token"));
  assert_false(sv_admin_authorized(token, ""));
  assert_false(sv_admin_authorized("", "Bearer "));
  sv_http_request r;
  assert_int_equal(
      sv_http_parse_request(
          "POST /admin/drain HTTP/1.1\r\nHost: x\r\nauthorization:  Bearer abc \r\n\r\n", &r),
      0);
  assert_string_equal(r.method, "POST");
  assert_string_equal(r.authorization, "Bearer abc");
  assert_int_equal(
      sv_http_parse_request("GET / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n", &r),
      0);
  assert_string_equal(r.authorization, "");  // repeated: not acted on
  assert_int_equal(sv_http_parse_request("GET / HTTP/1.1\r\n\r\nAuthorization: late\r\n", &r), 0);
  assert_string_equal(r.authorization, "");  // after the header block
  assert_int_equal(sv_http_parse_request("PUT / HTTP/1.1\r\n\r\n", &r), 405);
}

// GET /admin/sessions of a server at its largest session count (4095 ENet peers and the
// largest --ws-max), every session with the longest escaped name and a view box, and as
// many avatars held for a rejoin: answered whole (200), every session listed.
static void test_admin_sessions_of_the_largest_server(void** state) {
  (void)state;
  static sv_server s;
  memset(&s, 0, sizeof s);
  snprintf(s.life.admin_token, sizeof s.life.admin_token, "%s", "0123456789abcdef-token");
  s.peer_capacity = 4095;
  s.session_count = s.peer_capacity + SV_CONFIG_WS_MAX;
  s.cfg.max_clients = 1024;
  s.sessions = calloc((size_t)s.session_count, sizeof *s.sessions);
  s.rejoins = calloc((size_t)s.cfg.max_clients, sizeof *s.rejoins);
  ENetPeer* peers = calloc((size_t)s.session_count, sizeof *peers);
  assert_non_null(s.sessions);
  assert_non_null(s.rejoins);
  assert_non_null(peers);
  // Every link an ENet one: "enet" is the longer transport name, and a WebSocket link
  // would need a live connection for its round trip.
  for (int i = 0; i < s.session_count; ++i) {
    sv_session* ss = &s.sessions[i];
    ss->state = SV_SESSION_ACTIVE;
    ss->link = sv_link_enet(NULL, &peers[i]);
    peers[i].roundTripTime = 4000000000u;
    ss->client_id = 4000000000u + (uint32_t)i;
    ss->entity_id = 4000000000u;
    memset(ss->name, '\x01', ARB_PROTO_MAX_NAME);  // escaped as \u0001: 6 bytes each
    snprintf(ss->addr, sizeof ss->addr, "255.255.255.255:65535");
    ss->snapshots_sent = UINT64_MAX;
    ss->has_view = true;
    ss->view = (arb_aabb){{-1.0e6f, -1.0e6f}, {1.0e6f, 1.0e6f}};
  }
  for (int i = 0; i < s.cfg.max_clients; ++i) {
    s.rejoins[i].used = true;
    memset(s.rejoins[i].name, '\x01', ARB_PROTO_MAX_NAME);
  }
  sv_http_request req;
  memset(&req, 0, sizeof req);
  snprintf(req.method, sizeof req.method, "GET");
  snprintf(req.path, sizeof req.path, "/admin/sessions");
  snprintf(req.authorization, sizeof req.authorization, "Bearer 0123456789abcdef-token");
  char* body = malloc(SV_HTTP_MAX_BODY);
  assert_non_null(body);
  sv_http_reply reply = {404, "text/plain", body, 0};
  assert_true(sv_admin_handle(&s, &req, &reply));
  assert_int_equal(reply.status, 200);
  int listed = 0;
  for (const char* at = body; (at = strstr(at, "\"rtt_ms\":")) != NULL; ++at) ++listed;
  print_message("%d sessions in %zu bytes\n", listed, reply.body_len);
  assert_int_equal(listed, s.session_count);
  free(body);
  free(peers);
  free(s.sessions);
  free(s.rejoins);
}

ARB_TEST_MAIN(cmocka_unit_test(test_match_first_join_allocates_and_empty_ends),
              cmocka_unit_test(test_match_allocated_nobody_joins),
              cmocka_unit_test(test_match_max_duration), cmocka_unit_test(test_match_drain),
              cmocka_unit_test(test_http_response_framings),
              cmocka_unit_test(test_http_response_errors),
              cmocka_unit_test(test_http_response_random), cmocka_unit_test(test_http_url),
              cmocka_unit_test(test_agones_gameserver_json),
              cmocka_unit_test(test_agones_label_values),
              cmocka_unit_test(test_admin_token_and_auth_header),
              cmocka_unit_test(test_admin_sessions_of_the_largest_server))
