// GET /healthz and /metrics answer, /metrics parses as Prometheus text (exposition format
// 0.0.4) with every metric the server documents, anything else is 404, and oversize or
// slow requests are cut off. A stalled process (SIGSTOP) comes back lagging: 503 and
// skipped ticks counted, then healthy again.
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_server_attack.h"

// ---- a strict-enough Prometheus text parser ------------------------------------------

#define MAX_FAMILIES 96

typedef struct family {
  char name[96];
  char type[16];
} family;

static bool name_ok(const char* s, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':')) return false;
  for (size_t i = 1; i < n; ++i)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':')) return false;
  return true;
}

static bool value_ok(const char* s) {
  if (strcmp(s, "+Inf") == 0 || strcmp(s, "-Inf") == 0 || strcmp(s, "NaN") == 0) return true;
  char* end;
  strtod(s, &end);
  return end != s && *end == '\0';
}

// Returns the number of samples, or -(line number) of the first bad line.
static int parse_prometheus(char* text, family* fams, int* fam_count) {
  int samples = 0, lineno = 0;
  *fam_count = 0;
  for (char* line = text; line && *line;) {
    char* nl = strchr(line, '\n');
    if (nl == NULL) return -(lineno + 1);  // every line ends with \n
    *nl = '\0';
    lineno++;
    if (strncmp(line, "# HELP ", 7) == 0) {
      // name, then free text
    } else if (strncmp(line, "# TYPE ", 7) == 0) {
      char name[96], type[16];
      if (sscanf(line + 7, "%95s %15s", name, type) != 2 || !name_ok(name, strlen(name)))
        return -lineno;
      if (strcmp(type, "counter") && strcmp(type, "gauge") && strcmp(type, "histogram") &&
          strcmp(type, "summary") && strcmp(type, "untyped"))
        return -lineno;
      if (*fam_count >= MAX_FAMILIES) return -lineno;
      snprintf(fams[*fam_count].name, sizeof fams[0].name, "%s", name);
      snprintf(fams[*fam_count].type, sizeof fams[0].type, "%s", type);
      (*fam_count)++;
    } else if (line[0] == '#') {
      // other comments are allowed
    } else {
      size_t n = strcspn(line, "{ ");
      if (!name_ok(line, n)) return -lineno;
      char* p = line + n;
      if (*p == '{') {
        p++;
        while (*p != '}') {
          size_t ln = strcspn(p, "=");
          if (!name_ok(p, ln) || p[ln] != '=' || p[ln + 1] != '"') return -lineno;
          p += ln + 2;
          while (*p && *p != '"') p += (*p == '\\' && p[1]) ? 2 : 1;
          if (*p != '"') return -lineno;
          p++;
          if (*p == ',')
            p++;
          else if (*p != '}')
            return -lineno;
        }
        p++;
      }
      if (*p != ' ') return -lineno;
      p++;
      char* sp = strchr(p, ' ');  // optional timestamp
      if (sp) *sp = '\0';
      if (!value_ok(p)) return -lineno;
      // The sample must belong to a declared family (histograms: _bucket/_sum/_count).
      bool known = false;
      for (int f = 0; f < *fam_count && !known; ++f) {
        size_t fl = strlen(fams[f].name);
        if (strncmp(line, fams[f].name, fl) != 0) continue;
        const char* rest = line + fl;
        if (rest == line + n)
          known = true;
        else if (strcmp(fams[f].type, "histogram") == 0 &&
                 (strncmp(rest, "_bucket", 7) == 0 || strncmp(rest, "_sum", 4) == 0 ||
                  strncmp(rest, "_count", 6) == 0))
          known = true;
      }
      if (!known) return -lineno;
      samples++;
    }
    line = nl + 1;
  }
  return samples;
}

static void check_histogram(const char* text, const char* name) {
  // Buckets are cumulative (non-decreasing) and the +Inf bucket equals _count.
  char key[160];
  double prev = -1, inf = NAN;
  for (const char* line = text; line && *line;) {
    snprintf(key, sizeof key, "%s_bucket{le=\"", name);
    if (strncmp(line, key, strlen(key)) == 0) {
      const char* v = strchr(line, ' ');
      double x = strtod(v + 1, NULL);
      assert_true(x >= prev);
      prev = x;
      if (strncmp(line + strlen(key), "+Inf", 4) == 0) inf = x;
    }
    line = strchr(line, '\n');
    if (line) line++;
  }
  snprintf(key, sizeof key, "%s_count", name);
  assert_true(inf == tc_metric(text, key));
}

static void test_server_http_healthz_and_metrics(void** state) {
  (void)state;
  tc_server s;
  start_server(&s, NULL);
  assert_true(s.http_port > 0);
  tc_client* cs[1] = {tc_create()};
  connect_all(cs, 1, (uint16_t)s.port, "http");
  // A second of play: about 60 ticks, twice what the checks below need, so a stalled tick
  // on a loaded machine (the suite runs two tests at a time) does not fail them.
  drive(cs, 1, NULL, 1000);

  // 200 while ticking normally (a shared machine can stall a tick now and then: allow a
  // few tries before calling it a failure).
  char* body = NULL;
  int hs = 0;
  for (int i = 0; i < 30 && hs != 200; ++i) {
    if (i > 0) tc_sleep_ms(100);
    free(body);
    hs = tc_http_get(s.http_port, "/healthz", &body);
  }
  assert_int_equal(hs, 200);
  assert_non_null(body);
  assert_non_null(strstr(body, "\"status\":\"ok\""));
  assert_non_null(strstr(body, "\"state\":\"allocated\""));  // the client joined: a match is on
  assert_non_null(strstr(body, "\"reasons\":[]"));
  free(body);

  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  assert_non_null(body);
  char* copy = strdup(body);
  family fams[MAX_FAMILIES];
  int nfam = 0;
  int samples = parse_prometheus(copy, fams, &nfam);
  if (samples <= 0) print_error("metrics line %d is not Prometheus text:\n%s\n", -samples, body);
  assert_true(samples > 30);
  free(copy);
  const char* required[] = {"arbiter_ticks_total",
                            "arbiter_tick_duration_seconds",
                            "arbiter_tick_overruns_total",
                            "arbiter_clients_connected",
                            "arbiter_bytes_in_total",
                            "arbiter_bytes_out_total",
                            "arbiter_packets_in_total",
                            "arbiter_packets_out_total",
                            "arbiter_snapshot_bytes",
                            "arbiter_inputs_dropped_total",
                            "arbiter_messages_rejected_total",
                            "arbiter_recording_bytes_total"};
  for (size_t r = 0; r < sizeof required / sizeof required[0]; ++r) {
    bool found = false;
    for (int f = 0; f < nfam; ++f) found |= strcmp(fams[f].name, required[r]) == 0;
    if (!found) print_error("missing metric %s\n", required[r]);
    assert_true(found);
  }
  check_histogram(body, "arbiter_tick_duration_seconds");
  check_histogram(body, "arbiter_snapshot_bytes");
  assert_true(tc_metric(body, "arbiter_ticks_total") > 30);
  assert_true(tc_metric(body, "arbiter_clients_connected") == 1.0);
  assert_true(tc_metric(body, "arbiter_snapshots_sent_total") > 5);
  assert_true(tc_metric(body, "arbiter_bytes_out_total") > 1000);
  free(body);

  // Neither one of the server's paths nor a file of the web page (docs/WEB.md).
  assert_int_equal(tc_http_get(s.http_port, "/no-such-page", &body), 404);
  free(body);
  assert_int_equal(tc_http_get(s.http_port, "/metrics/../etc/passwd", &body), 404);
  free(body);

  char resp[4096];
  const char post[] = "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n";
  tc_http_raw(s.http_port, post, sizeof post - 1, 3000, resp, sizeof resp);
  assert_true(strncmp(resp, "HTTP/1.1 405", 12) == 0);
  const char garbage[] = "\x01\x02\x03 nonsense\r\n\r\n";
  tc_http_raw(s.http_port, garbage, sizeof garbage - 1, 3000, resp, sizeof resp);
  assert_true(strncmp(resp, "HTTP/1.1 400", 12) == 0);

  // Oversize: a header that never ends.
  size_t big_len = 8000;
  char* big = malloc(big_len);
  memcpy(big, "GET /metrics HTTP/1.1\r\nX-Pad: ", 30);
  memset(big + 30, 'a', big_len - 30);
  tc_http_raw(s.http_port, big, big_len, 3000, resp, sizeof resp);
  free(big);
  assert_true(strncmp(resp, "HTTP/1.1 431", 12) == 0);

  // Slow: half a request line, then silence. The server hangs up (after its 2 s limit);
  // the answer is empty, and we never wait more than 6 s.
  uint64_t t0 = tc_now_ms();
  int got = tc_http_raw(s.http_port, "GET /hea", 8, 6000, resp, sizeof resp);
  assert_int_equal(got, 0);
  assert_true(tc_now_ms() - t0 < 5900);  // closed by the server, not by our own timeout

  // The server still answers afterwards.
  assert_true(tc_http_get(s.http_port, "/healthz", &body) > 0);
  free(body);

  // Stall the whole process for 0.5 s: it wakes up behind, drops the lag, says 503.
  kill(s.pid, SIGSTOP);
  tc_sleep_ms(500);
  kill(s.pid, SIGCONT);
  tc_sleep_ms(100);
  assert_int_equal(tc_http_get(s.http_port, "/healthz", &body), 503);
  ARB_ASSERT_HAS(body, "\"status\":\"degraded\"", "\"tick_lag\"");
  free(body);
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  assert_true(tc_metric(body, "arbiter_ticks_skipped_total") > 0);
  free(body);
  // Healthy again once it has ticked normally for a while.
  int status = 0;
  for (int i = 0; i < 40 && status != 200; ++i) {
    tc_sleep_ms(100);
    status = tc_http_get(s.http_port, "/healthz", &body);
    free(body);
  }
  assert_int_equal(status, 200);

  tc_close(cs[0]);
  tc_destroy(cs[0]);
  stop_server(&s);
}

// ---- slowloris --------------------------------------------------------------------------

#define LORIS 200
#define LORIS_MAX_CONNS 512  // the most connections one loris_hold keeps

static int loris_connect(const char* local_ip, int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, local_ip, &a.sin_addr);
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, (struct sockaddr*)&a, sizeof a) != 0 ||
      (connect(fd, (struct sockaddr*)&to, sizeof to) != 0 && errno != EINPROGRESS)) {
    close(fd);
    return -1;
  }
  return fd;
}

// How a loris holds its connections: which drip, what they send, how soon they come back.
typedef struct loris_style {
  int drip_stride;     // connections i with i % drip_stride == drip_stride - 1 drip bytes
  char drip_byte;      // sent every 400 ms by a dripping connection
  char reopen_byte;    // sent at once by a reopened connection, or 0: nothing
  uint64_t reopen_ms;  // how long after the server hangs up the connection is reopened
} loris_style;

// Holds `count` HTTP connections from ips[i] (fds: their storage) for `seconds`.
static void loris_hold(int port, int seconds, int count, const char (*ips)[24], int* fds,
                       loris_style style) {
  static uint64_t retry_at[LORIS_MAX_CONNS];
  if (count > LORIS_MAX_CONNS) count = LORIS_MAX_CONNS;
  for (int i = 0; i < count; ++i) {
    retry_at[i] = 0;
    fds[i] = loris_connect(ips[i], port);
  }
  uint64_t end = tc_now_ms() + (uint64_t)seconds * 1000u;
  uint64_t next_byte = 0;
  while (tc_now_ms() < end) {
    bool drip = tc_now_ms() >= next_byte;
    if (drip) next_byte = tc_now_ms() + 400;
    for (int i = 0; i < count; ++i) {
      char buf[256];
      ssize_t r = fds[i] >= 0 ? recv(fds[i], buf, sizeof buf, MSG_DONTWAIT) : 0;
      if (fds[i] < 0 || r == 0 ||
          (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)) {
        if (fds[i] >= 0) {
          close(fds[i]);
          fds[i] = -1;
          retry_at[i] = tc_now_ms() + style.reopen_ms;
        }
        if (tc_now_ms() < retry_at[i]) continue;
        fds[i] = loris_connect(ips[i], port);
        if (fds[i] >= 0 && style.reopen_byte != 0)
          send(fds[i], &style.reopen_byte, 1, MSG_NOSIGNAL);
        continue;
      }
      if (drip && i % style.drip_stride == style.drip_stride - 1)
        send(fds[i], &style.drip_byte, 1, MSG_NOSIGNAL);
    }
    tc_sleep_ms(5);
  }
  for (int i = 0; i < count; ++i)
    if (fds[i] >= 0) close(fds[i]);
}

// LORIS connections from 25 addresses (8 each) plus 50 more from one address, each
// sending a request header one byte every 400 ms and reconnecting 100 ms after the server
// hangs up, for `seconds`.
static void slowloris(int port, int seconds) {
  static int fds[LORIS + 50];
  static char ips[LORIS + 50][24];
  for (int i = 0; i < LORIS + 50; ++i)
    snprintf(ips[i], sizeof ips[i], i < LORIS ? "127.0.3.%d" : "127.0.4.1", 1 + i / 8);
  loris_style style = {.drip_stride = 1, .drip_byte = 'E', .reopen_byte = 'G', .reopen_ms = 100};
  loris_hold(port, seconds, LORIS + 50, (const char(*)[24])ips, fds, style);
}

static void test_server_http_healthz_survives_slowloris(void** state) {
  (void)state;
  tc_server s;
  start_server(&s, NULL);
  pid_t child = start_attack(slowloris, s.http_port, 8);
  tc_sleep_ms(1000);  // the connections are up and dripping
  int answered = 0, ok = 0;
  for (int i = 0; i < 100; ++i) {
    char* body = NULL;
    int status = tc_http_get(s.http_port, "/healthz", &body);
    if (status == 200 || (status == 503 && body && strstr(body, "\"status\":"))) answered++;
    if (status == 200) ok++;
    if (status != 200 && status != 503)
      print_error("probe %d: status %d %s\n", i, status, body ? body : "(no body)");
    free(body);
    tc_sleep_ms(50);
  }
  char* body = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  double evicted = tc_metric(body, "arbiter_http_connections_closed_total{reason=\"evicted\"}");
  double per_addr =
      tc_metric(body, "arbiter_http_connections_closed_total{reason=\"per_address\"}");
  double timeouts = tc_metric(body, "arbiter_http_connections_closed_total{reason=\"timeout\"}");
  double full = tc_metric(body, "arbiter_http_connections_closed_total{reason=\"full\"}");
  free(body);
  print_message(
      "slowloris: %d/100 probes answered (%d with 200); closed: %.0f evicted, %.0f refused (full), "
      "%.0f per-address, %.0f timeouts\n",
      answered, ok, evicted, full, per_addr, timeouts);
  int status = 0;
  waitpid(child, &status, 0);
  assert_int_equal(answered, 100);
  assert_true(evicted + full > 0);
  stop_server(&s);
}

// W4 (docs/SECURITY.md): slowloris from many addresses holding few connections each. 200
// addresses (127.0.6.x) hold 2 connections each, one that sends nothing and one that sends
// a request header a byte every 400 ms, and reconnect as soon as the server hangs up: 400
// connections against 60 waiting slots, most addresses holding one, like the probe's. A
// probe whose request had not been read yet used to be evicted as the oldest unread
// connection (90-95 % answered). Now ~100 probes from 127.0.0.1 spread over the attack all
// get 200 within 1 s, while 4 honest game clients join (each within 1 s) and keep >= 99 %
// of their snapshots, no tick is skipped, and the server's RSS stays under twice idle.
#define W4_ADDRESSES 200
#define W4_CONNS (2 * W4_ADDRESSES)
#define W4_PROBE_EVERY_MS 60  // ~100 probes over the attack
#define W4_MIN_PROBES 60
#define W4_ATTACKED_MS 5500
#define W4_JOIN_LIMIT_MS 1000

static void slowloris_many_addresses(int port, int seconds) {
  static int fds[W4_CONNS];
  static char ips[W4_CONNS][24];
  for (int i = 0; i < W4_CONNS; ++i) snprintf(ips[i], sizeof ips[i], "127.0.6.%d", 1 + i / 2);
  // Every second connection drips; the others send nothing. Both come back at once.
  loris_style style = {.drip_stride = 2, .drip_byte = 'G', .reopen_byte = 0, .reopen_ms = 0};
  loris_hold(port, seconds, W4_CONNS, (const char(*)[24])ips, fds, style);
}

static void test_server_http_healthz_survives_slowloris_many_addresses(void** state) {
  (void)state;
  // An honest game client plays; then the server's idle RSS, and the watch (probes of
  // /healthz from 127.0.0.1 every 60 ms, RSS) starts with the attack.
  tc_server s;
  honest h;
  watch w;
  start_played_server(&s, &h, &w, NULL, W4_JOIN_LIMIT_MS, W4_PROBE_EVERY_MS);
  pid_t child = start_attack(slowloris_many_addresses, s.http_port, 8);
  play_and_check_snapshots(&h, 1000);  // the connections are up
  char* body = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  double ticks0 = tc_metric(body, "arbiter_ticks_total");
  double skipped0 = tc_metric(body, "arbiter_ticks_skipped_total");
  free(body);
  uint64_t t0 = tc_now_ms();
  // The other honest clients join during the attack, each within 1 s, and all play on.
  while (h.joined < HONEST) {
    join_one(&h, &s, W4_JOIN_LIMIT_MS);
    play_and_check_snapshots(&h, 400);
  }
  while (tc_now_ms() - t0 < W4_ATTACKED_MS) play_and_check_snapshots(&h, 500);
  uint64_t elapsed = tc_now_ms() - t0;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  double ticks = tc_metric(body, "arbiter_ticks_total") - ticks0;
  double skipped = tc_metric(body, "arbiter_ticks_skipped_total") - skipped0;
  double evicted = tc_metric(body, "arbiter_http_connections_closed_total{reason=\"evicted\"}");
  double full = tc_metric(body, "arbiter_http_connections_closed_total{reason=\"full\"}");
  double timeouts = tc_metric(body, "arbiter_http_connections_closed_total{reason=\"timeout\"}");
  free(body);
  watch_stop(&w, "slowloris many addresses", W4_MIN_PROBES);
  print_message(
      "slowloris from %d addresses (%d connections): %.0f ticks in %llu ms, %.0f skipped; "
      "closed: %.0f evicted, %.0f refused (full), %.0f timeouts\n",
      W4_ADDRESSES, W4_CONNS, ticks, (unsigned long long)elapsed, skipped, evicted, full, timeouts);
  report_four("slowloris many addresses (W4)", &h, &w);
  int status = play_until_exit(&h, child);
  assert_true(WIFEXITED(status));
  assert_true(evicted + full > 0);  // the attack did fill the listener
  // The game kept ticking: at least half of 60 Hz over the attack, nothing skipped.
  assert_true(ticks >= 30.0 * (double)elapsed / 1000.0);
  assert_true(skipped == 0.0);
  close_all(h.c, HONEST);
  stop_server(&s);
}

// One address holds at most 8 connections; a connection that sends nothing is closed by
// the idle timeout (1 s), one that keeps dripping by the header timeout (2 s).
static void test_server_http_per_address_and_timeouts(void** state) {
  (void)state;
  tc_server s;
  start_server(&s, NULL);
  int fds[10];
  for (int i = 0; i < 10; ++i) assert_true((fds[i] = loris_connect("127.0.5.1", s.http_port)) >= 0);
  int drip = loris_connect("127.0.5.2", s.http_port);
  assert_true(drip >= 0);
  // After 300 ms: 2 of the 10 were closed at once. Then the idle ones go at ~1 s, while
  // the dripping one lives until its 2 s header deadline.
  uint64_t t0 = tc_now_ms();
  int closed_early = 0;
  uint64_t drip_closed_at = 0;
  bool idle_closed[10] = {false};
  while (tc_now_ms() - t0 < 3500) {
    for (int i = 0; i < 10; ++i) {
      char b[64];
      if (!idle_closed[i] && recv(fds[i], b, sizeof b, MSG_DONTWAIT) == 0) {
        idle_closed[i] = true;
        if (tc_now_ms() - t0 < 300) closed_early++;
      }
    }
    char b[64];
    if (drip_closed_at == 0) {
      if (recv(drip, b, sizeof b, MSG_DONTWAIT) == 0)
        drip_closed_at = tc_now_ms() - t0;
      else if ((tc_now_ms() - t0) % 300 < 10)
        send(drip, "G", 1, MSG_NOSIGNAL);
    }
    tc_sleep_ms(5);
  }
  int idle_closed_count = 0;
  for (int i = 0; i < 10; ++i) idle_closed_count += idle_closed[i];
  print_message("closed at once: %d, idle-closed: %d, dripping one closed after %llu ms\n",
                closed_early, idle_closed_count, (unsigned long long)drip_closed_at);
  assert_int_equal(closed_early, 2);
  assert_int_equal(idle_closed_count, 10);
  assert_true(drip_closed_at >= 1500 && drip_closed_at <= 3000);
  for (int i = 0; i < 10; ++i) close(fds[i]);
  close(drip);
  char* body = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  assert_true(tc_metric(body, "arbiter_http_connections_closed_total{reason=\"per_address\"}") ==
              2.0);
  assert_true(tc_metric(body, "arbiter_http_connections_closed_total{reason=\"timeout\"}") >= 9.0);
  free(body);
  stop_server(&s);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_http_healthz_and_metrics),
                 cmocka_unit_test(test_server_http_healthz_survives_slowloris),
                 cmocka_unit_test(test_server_http_healthz_survives_slowloris_many_addresses),
                 cmocka_unit_test(test_server_http_per_address_and_timeouts))
