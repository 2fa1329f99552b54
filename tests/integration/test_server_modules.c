// In-process checks of the server's building blocks (no sockets): input slot semantics
// (newest wins, duplicates and reordering are stale, held until replaced), the per-client
// rate buckets, flag/environment precedence, log line formats, the metrics text, the
// HTTP request-line parser (with a deterministic random-input run), and the UDP socket
// read between ticks no more often than the receive interval (a loopback socket).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/test_main.h"
#include "sv_config.h"
#include "sv_http.h"
#include "sv_input.h"
#include "sv_log.h"
#include "sv_metrics.h"
#include "sv_net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static arb_proto_input input_of(const uint32_t* seqs, int n) {
  arb_proto_input in;
  memset(&in, 0, sizeof in);
  in.count = n;
  for (int i = 0; i < n; ++i) {
    in.cmds[i].seq = seqs[i];
    in.cmds[i].controls.move_x = (int8_t)seqs[i];
  }
  return in;
}

// Limits loose enough that the ordering tests never meet them.
static const sv_input_limits loose_limits = {120, 16384};

static void test_server_input_newest_wins_and_dupes_are_stale(void** state) {
  (void)state;
  sv_input_state s;
  sv_input_init(&s, &loose_limits, 0);
  arb_proto_input_cmd cmd;
  assert_false(sv_input_take(&s, 1000, &cmd));  // nothing yet: the game holds its controls

  // Commands for ticks long past (a client counting from 1): all due, the newest wins.
  uint32_t a[] = {3, 2, 1};
  arb_proto_input in = input_of(a, 3);
  assert_true(sv_input_offer(&s, &in));
  assert_false(sv_input_offer(&s, &in));  // the same packet again (ENet duplicate)
  uint32_t b[] = {5, 4, 3};
  in = input_of(b, 3);
  assert_true(sv_input_offer(&s, &in));  // two newer before the tick: newest wins
  uint32_t c[] = {4, 3, 2};
  in = input_of(c, 3);
  assert_false(sv_input_offer(&s, &in));  // reordered older packet
  assert_true(sv_input_take(&s, 1000, &cmd));
  assert_int_equal(cmd.seq, 5);
  assert_int_equal(cmd.controls.move_x, 5);
  assert_int_equal(s.late, 5);                  // all five named ticks that had passed
  assert_false(sv_input_take(&s, 1001, &cmd));  // applied once; held afterwards
  in = input_of(b, 3);
  assert_false(sv_input_offer(&s, &in));  // already applied
  uint32_t d[] = {6};
  in = input_of(d, 1);
  assert_true(sv_input_offer(&s, &in));
  assert_true(sv_input_take(&s, 1002, &cmd));
  assert_int_equal(cmd.seq, 6);
  in.count = 0;
  assert_false(sv_input_offer(&s, &in));  // an empty input carries nothing
}

// Commands stamped with future ticks wait for them and are applied one per tick; a lost
// packet's commands come with the next one; one too far ahead is due at once.
static void test_server_input_waits_for_the_named_tick(void** state) {
  (void)state;
  sv_input_state s;
  sv_input_init(&s, &loose_limits, 0);
  arb_proto_input_cmd cmd;
  uint32_t a[] = {103, 102, 101};
  arb_proto_input in = input_of(a, 3);
  assert_true(sv_input_offer(&s, &in));
  assert_false(sv_input_take(&s, 100, &cmd));
  for (uint32_t t = 101; t <= 103; t++) {
    assert_true(sv_input_take(&s, t, &cmd));
    assert_int_equal(cmd.seq, t);
  }
  uint32_t lost[] = {104};
  (void)lost;  // the packet with 104 never arrives; the next one repeats it
  uint32_t b[] = {105, 104, 103};
  in = input_of(b, 3);
  assert_true(sv_input_offer(&s, &in));
  assert_true(sv_input_take(&s, 104, &cmd));
  assert_int_equal(cmd.seq, 104);
  assert_true(sv_input_take(&s, 105, &cmd));
  assert_int_equal(cmd.seq, 105);
  assert_int_equal(s.late, 0);
  // 107 arrives after its tick: applied at 108, counted late; 106 never came.
  assert_false(sv_input_take(&s, 106, &cmd));
  assert_false(sv_input_take(&s, 107, &cmd));
  uint32_t c[] = {107};
  in = input_of(c, 1);
  assert_true(sv_input_offer(&s, &in));
  assert_true(sv_input_take(&s, 108, &cmd));
  assert_int_equal(cmd.seq, 107);
  assert_int_equal(s.late, 1);
  uint32_t far[] = {108 + SV_INPUT_HORIZON + 2};
  in = input_of(far, 1);
  assert_true(sv_input_offer(&s, &in));
  assert_true(sv_input_take(&s, 109, &cmd));
  assert_int_equal(cmd.seq, far[0]);
}

static void test_server_input_rate_buckets(void** state) {
  (void)state;
  sv_input_limits lim = {100, 1000};
  sv_input_state s;
  sv_input_init(&s, &lim, 0);
  // Burst of half a second: 50 packets, then refused without refill.
  int ok = 0;
  for (int i = 0; i < 200; ++i) ok += sv_input_admit(&s, &lim, 1, 0) == SV_ADMIT_OK;
  assert_int_equal(ok, 50);
  assert_int_equal(sv_input_admit(&s, &lim, 1, 0), SV_ADMIT_OVER_PACKETS);
  // 100 ms later: 10 more packets.
  ok = 0;
  for (int i = 0; i < 200; ++i) ok += sv_input_admit(&s, &lim, 1, 100000000u) == SV_ADMIT_OK;
  assert_int_equal(ok, 10);
  // Bytes: 500-byte burst; a 600-byte packet never fits, a refused packet costs nothing.
  sv_input_init(&s, &lim, 0);
  assert_int_equal(sv_input_admit(&s, &lim, 600, 0), SV_ADMIT_OVER_BYTES);
  assert_int_equal(sv_input_admit(&s, &lim, 400, 0), SV_ADMIT_OK);
  assert_int_equal(sv_input_admit(&s, &lim, 200, 0), SV_ADMIT_OVER_BYTES);
  assert_int_equal(sv_input_admit(&s, &lim, 100, 0), SV_ADMIT_OK);
}

static void test_server_config_precedence_in_process(void** state) {
  (void)state;
  char err[256];
  FILE* out = fopen("/dev/null", "w");
  setenv("ARBITER_PORT", "1234", 1);
  setenv("ARBITER_SNAPSHOT_RATE", "20", 1);
  sv_config c = sv_default_config();
  char* argv1[] = {"arbiter-server", "--port=4321", "--log-format", "json", NULL};
  assert_int_equal(sv_config_parse(&c, 4, argv1, err, sizeof err, out), 0);
  assert_int_equal(c.port, 4321);         // flag beats variable
  assert_int_equal(c.snapshot_rate, 20);  // variable beats default
  assert_int_equal(c.log_format, SV_LOG_JSON);
  assert_int_equal(c.max_clients, 64);
  unsetenv("ARBITER_PORT");
  unsetenv("ARBITER_SNAPSHOT_RATE");
  c = sv_default_config();
  char* argv2[] = {"arbiter-server", "--max-clients", "1025", NULL};
  assert_int_equal(sv_config_parse(&c, 3, argv2, err, sizeof err, out), -1);
  assert_non_null(strstr(err, "--max-clients"));
  c = sv_default_config();
  char* argv3[] = {"arbiter-server", "--help", NULL};
  assert_int_equal(sv_config_parse(&c, 2, argv3, err, sizeof err, out), 1);
  fclose(out);
}

static void test_server_log_lines(void** state) {
  (void)state;
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  sv_log log;
  sv_log_init(&log, f, SV_LOG_INFO, SV_LOG_JSON);
  SV_LOG(&log, SV_LOG_INFO, "client_joined", SV_LU("client", 3),
         SV_LS("name", "a \"quoted\"\nname"), SV_LX("hash", 0x0123456789abcdefull),
         SV_LD("x", 1.5));
  SV_LOG(&log, SV_LOG_DEBUG, "hidden", SV_LI("n", 1));  // above the level: skipped
  log.format = SV_LOG_TEXT;
  SV_LOG(&log, SV_LOG_WARN, "tick_lag", SV_LU("skipped_ticks", 7), SV_LS("why", "two words"));
  fclose(f);
  char* nl = strchr(text, '\n');
  assert_non_null(nl);
  ARB_ASSERT_HAS(text, "\"level\":\"info\",\"event\":\"client_joined\",\"client\":3,",
                 "\"name\":\"a \\\"quoted\\\"\\nname\"", "\"hash\":\"0123456789abcdef\"");
  assert_null(strstr(text, "hidden"));
  assert_non_null(strstr(nl + 1, "warn  tick_lag skipped_ticks=7 why=\"two words\"\n"));
  assert_null(strchr(strchr(nl + 1, '\n') + 1, '\n'));  // exactly two lines
  free(text);
}

static void test_server_metrics_text(void** state) {
  (void)state;
  sv_metrics m;
  sv_metrics_init(&m);
  m.ticks_total = 42;
  m.inputs_dropped_total[SV_DROP_RATE_PACKETS] = 5;
  m.tick_step_cpu_ns = 2000000042;  // kept in nanoseconds, shown in seconds
  sv_histogram_observe(&m.tick_seconds, 0.0003);
  sv_histogram_observe(&m.tick_seconds, 0.2);  // beyond the last bound: +Inf only
  static char buf[32768];
  int n = sv_metrics_render(&m, buf, sizeof buf);
  assert_true(n > 0 && (size_t)n < sizeof buf);
  ARB_ASSERT_HAS(buf, "# TYPE arbiter_ticks_total counter\narbiter_ticks_total 42\n",
                 "arbiter_inputs_dropped_total{reason=\"rate_packets\"} 5\n",
                 "# TYPE arbiter_tick_step_cpu_seconds_total counter\n"
                 "arbiter_tick_step_cpu_seconds_total 2.000000042\n",
                 "arbiter_tick_snapshot_cpu_seconds_total 0.000000000\n",
                 "arbiter_tick_duration_seconds_bucket{le=\"0.00025\"} 0\n",
                 "arbiter_tick_duration_seconds_bucket{le=\"0.0005\"} 1\n",
                 "arbiter_tick_duration_seconds_bucket{le=\"0.1\"} 1\n",
                 "arbiter_tick_duration_seconds_bucket{le=\"+Inf\"} 2\n",
                 "arbiter_tick_duration_seconds_count 2\n");
  assert_int_equal(sv_metrics_render(&m, buf, 100), -1);  // too small: refused, not cut
}

// The HTTP request-line parser takes untrusted bytes: known cases, then 200 000 random
// and mutated headers (a deterministic mini-fuzz; ASan checks every access).
static void test_server_http_request_parser(void** state) {
  (void)state;
  sv_http_request r;
  assert_int_equal(sv_http_parse_request("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", &r), 0);
  assert_string_equal(r.path, "/metrics");
  assert_false(r.head);
  assert_int_equal(sv_http_parse_request("HEAD /healthz HTTP/1.0\r\n\r\n", &r), 0);
  assert_true(r.head);
  assert_int_equal(sv_http_parse_request("PUT / HTTP/1.1\r\n\r\n", &r), 405);
  assert_int_equal(sv_http_parse_request("POST /admin/drain HTTP/1.1\r\n\r\n", &r), 0);
  assert_int_equal(sv_http_parse_request("GET /\r\n\r\n", &r), 400);
  assert_int_equal(sv_http_parse_request("GET / SPDY/3\r\n\r\n", &r), 400);
  assert_int_equal(sv_http_parse_request("", &r), 400);
  assert_int_equal(sv_http_parse_request("GETTINGLONGMETHOD / HTTP/1.1\r\n", &r), 400);

  static const char* seeds[] = {"GET /healthz HTTP/1.1\r\n\r\n",
                                "HEAD /metrics?a=b HTTP/1.0\r\n\r\n",
                                "GET / HTTP/1.1\r\nX: y\r\n\r\n"};
  char buf[SV_HTTP_MAX_REQUEST + 1];
  uint32_t x = 2463534242u;
  for (int iter = 0; iter < 200000; ++iter) {
    size_t len;
    if (iter % 2 == 0) {  // pure random bytes, random length up to the server's limit
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      len = x % (SV_HTTP_MAX_REQUEST + 1);
      for (size_t i = 0; i < len; ++i) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        buf[i] = (char)(x & 0xff);
        if (buf[i] == 0) buf[i] = ' ';
      }
    } else {  // a valid request with a few bytes flipped, inserted or cut
      const char* seed = seeds[iter % 3];
      len = strlen(seed);
      memcpy(buf, seed, len);
      for (int k = 0; k < 3; ++k) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        buf[x % len] = (char)((x >> 8) & 0xff ? (x >> 8) & 0xff : 'a');
      }
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      if (x % 4 == 0) len = x % (len + 1);
      if (x % 4 == 1) {  // a long token
        size_t extra = x % 1500;
        memset(buf + len, 'A', extra);
        len += extra;
      }
    }
    buf[len] = '\0';
    int rc = sv_http_parse_request(buf, &r);
    assert_true(rc == 0 || rc == 400 || rc == 405);
    assert_true(strlen(r.method) < sizeof r.method && strlen(r.path) < sizeof r.path);
    if (rc == 0) assert_true(strcmp(r.method, "GET") == 0 || strcmp(r.method, "HEAD") == 0);
  }
}

// ---- the receive interval (sv_net.c) ----------------------------------------------------

static void ignore_net_event(void* user, const ENetEvent* ev) {
  (void)user;
  (void)ev;
}

static void on_watchdog(uv_timer_t* t) {
  (void)t;
}

// One datagram to the server's port from a plain UDP socket. The gate drops it (no
// handshake), but reading it is a drain like any other.
static void send_datagram(int fd, uint16_t port) {
  struct sockaddr_in to;
  memset(&to, 0, sizeof to);
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  static const char junk[8] = "arbiter";
  ssize_t sent = sendto(fd, junk, sizeof junk, 0, (struct sockaddr*)&to, sizeof to);
  assert_int_equal(sent, (ssize_t)sizeof junk);
}

// Runs the loop until the poll has started `want` drains (or 5 s passed); the time of the last.
static uint64_t run_until_wakeups(uv_loop_t* loop, const sv_net* n, uint64_t want) {
  uint64_t start = uv_hrtime();
  while (n->wakeups < want && uv_hrtime() - start < 5000000000u) uv_run(loop, UV_RUN_ONCE);
  assert_int_equal(n->wakeups, want);
  return uv_hrtime();
}

// A datagram arriving right after a drain is read once the interval has passed, never
// before (the poll rests, a timer re-arms it); with interval 0 it is read at once. Only
// lower bounds on time are checked: a loaded machine makes the waits longer, not shorter.
static void test_server_net_receive_interval(void** state) {
  (void)state;
  for (int interval = 0; interval <= 60; interval += 60) {
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    uv_timer_t watchdog;  // wakes UV_RUN_ONCE should a datagram be lost
    uv_timer_init(&loop, &watchdog);
    uv_timer_start(&watchdog, on_watchdog, 100, 100);
    sv_metrics metrics;
    sv_metrics_init(&metrics);
    sv_net_limits limits = {16, 20, 1000};
    sv_net net;
    char err[256];
    assert_int_equal(sv_net_init(&net, &loop, "127.0.0.1", 0, 4, &limits, ignore_net_event, NULL,
                                 &metrics, err, sizeof err),
                     0);
    sv_net_set_receive_interval(&net, interval);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    send_datagram(fd, net.port);
    uint64_t first = run_until_wakeups(&loop, &net, 1);
    send_datagram(fd, net.port);
    uint64_t second = run_until_wakeups(&loop, &net, 2);
    if (interval > 0) {
      // libuv timers count from the loop's cached time (up to 1 ms early): 2 ms of slack.
      assert_true(second - first >= (uint64_t)(interval - 2) * 1000000u);
    }
    close(fd);
    sv_net_close(&net);
    uv_close((uv_handle_t*)&watchdog, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);  // the closes complete
    assert_int_equal(uv_loop_close(&loop), 0);
  }
}

ARB_TEST_MAIN(cmocka_unit_test(test_server_input_newest_wins_and_dupes_are_stale),
              cmocka_unit_test(test_server_input_waits_for_the_named_tick),
              cmocka_unit_test(test_server_input_rate_buckets),
              cmocka_unit_test(test_server_config_precedence_in_process),
              cmocka_unit_test(test_server_log_lines), cmocka_unit_test(test_server_metrics_text),
              cmocka_unit_test(test_server_http_request_parser),
              cmocka_unit_test(test_server_net_receive_interval))
