// Test client and process helpers for the server integration tests (see testclient.h).
#include "testclient.h"
#include "../common/exit_status.h"
#include "../common/read_file.h"

#include <arbiter/gate.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t tc_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void tc_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

tc_client* tc_create(void) {
  tc_client* c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  for (int i = 0; i < TC_VIEW_RING; ++i) {
    c->ring[i].items = c->ring_items[i];
    c->ring[i].cap = TC_MAX_ENTITIES;
  }
  c->assembling.items = c->asm_items;
  c->assembling.cap = TC_MAX_ENTITIES;
  c->latest_slot = -1;
  return c;
}

void tc_destroy(tc_client* c) {
  if (c == NULL) return;
  if (c->host) enet_host_destroy(c->host);
  if (c->ws && c->ws_fd >= 0) close(c->ws_fd);
  tc_ws_reader_free(&c->ws_reader);
  free(c);
}

static int send_hello(tc_client* c, uint32_t version) {
  arb_proto_hello h;
  memset(&h, 0, sizeof h);
  h.version = version;
  snprintf(h.name, sizeof h.name, "%s", c->name);
  h.token_len = (uint16_t)strlen(c->token);
  memcpy(h.token, c->token, h.token_len);
  h.avatar_kind = c->avatar_kind;
  h.flags = c->hello_flags;
  uint8_t buf[1024];
  int n = arb_proto_encode_hello(&h, buf, sizeof buf);
  if (n <= 0 || (size_t)n > sizeof buf) return -1;
  return tc_send_raw(c, ARB_PROTO_CHANNEL_CONTROL, buf, (size_t)n, true);
}

int tc_gate(ENetHost* host, uint16_t port, int timeout_ms) {
  ENetAddress server;
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = port;
  arb_gate_client g;
  static uint64_t counter;
  arb_gate_client_start(&g, tc_now_ms() * 1000003u + (++counter) * 7919u + (uint64_t)getpid(),
                        ARB_PROTO_VERSION);
  uint64_t end = tc_now_ms() + (uint64_t)timeout_ms;
  while (g.state != ARB_GATE_CLIENT_ADMITTED && tc_now_ms() < end) {
    uint8_t buf[ARB_GATE_REQUEST_SIZE];
    int len = arb_gate_client_next(&g, tc_now_ms(), buf, sizeof buf);
    if (len > 0) {
      ENetBuffer out = {.data = buf, .dataLength = (size_t)len};
      enet_socket_send(host->socket, &server, &out, 1);
    }
    enet_uint32 cond = ENET_SOCKET_WAIT_RECEIVE;
    if (enet_socket_wait(host->socket, &cond, 10) != 0 || !(cond & ENET_SOCKET_WAIT_RECEIVE))
      continue;
    uint8_t in[256];
    ENetAddress from;
    ENetBuffer b = {.data = in, .dataLength = sizeof in};
    int got = enet_socket_receive(host->socket, &from, &b, 1);
    if (got > 0 && from.host == server.host && from.port == server.port)
      arb_gate_client_receive(&g, in, (size_t)got);
  }
  return g.state == ARB_GATE_CLIENT_ADMITTED ? 0 : -1;
}

int tc_start(tc_client* c, uint16_t port, const char* name, uint32_t version) {
  return tc_start_from(c, NULL, port, name, version);
}

int tc_start_from(tc_client* c, const char* local_ip, uint16_t port, const char* name,
                  uint32_t version) {
  snprintf(c->name, sizeof c->name, "%s", name);
  ENetAddress local = {.host = ENET_HOST_ANY, .port = 0};
  if (local_ip != NULL && enet_address_set_host_ip(&local, local_ip) != 0) return -1;
  c->host = enet_host_create(local_ip ? &local : NULL, 1, ARB_PROTO_CHANNEL_COUNT, 0, 0);
  if (c->host == NULL) return -1;
  if (tc_gate(c->host, port, 3000) != 0) return -1;
  ENetAddress addr;
  enet_address_set_host_ip(&addr, "127.0.0.1");
  addr.port = port;
  c->peer = enet_host_connect(c->host, &addr, ARB_PROTO_CHANNEL_COUNT, 0);
  if (c->peer == NULL) return -1;
  c->state = TC_CONNECTING;
  c->hello_version = version;  // the hello goes out when the connect completes (tc_service)
  return 0;
}

static int find_view(const tc_client* c, uint32_t tick) {
  for (int i = 0; i < TC_VIEW_RING; ++i)
    if (c->ring_tick[i] == tick && tick != 0) return i;
  return -1;
}

static void on_snapshot(tc_client* c, const uint8_t* data, size_t len) {
  static arb_snapshot_part snap;  // large; tests are single-threaded
  arb_proto_error err;
  c->snapshot_packets++;
  c->snapshot_bytes += len;
  if (arb_proto_decode_snapshot(data, len, &snap, &err) != 0) {
    c->snapshot_errors++;
    return;
  }
  const arb_snapshot_header* h = &snap.h;
  if (h->tick <= c->latest_tick) return;  // old
  if (h->tick != c->asm_tick) {
    // A new tick starts: set up its view from the baseline it was built against.
    c->asm_tick = h->tick;
    c->asm_baseline = h->baseline_tick;
    c->asm_h = *h;
    c->asm_parts_needed = h->part_count;
    c->asm_parts_got = 0;
    memset(c->asm_got, 0, sizeof c->asm_got);
    c->assembling.count = 0;
    if (h->baseline_tick != 0) {
      int b = find_view(c, h->baseline_tick);
      if (b < 0 || arb_snapshot_set_copy(&c->assembling, &c->ring[b]) != 0) {
        c->snapshot_errors++;
        c->asm_tick = 0;
        return;
      }
    }
  }
  if (h->part_index >= c->asm_parts_needed || c->asm_got[h->part_index]) return;
  if (arb_snapshot_set_apply(&c->assembling, &snap, &err) != 0) {
    c->snapshot_errors++;
    c->asm_tick = 0;
    return;
  }
  c->asm_got[h->part_index] = 1;
  if (++c->asm_parts_got < c->asm_parts_needed) return;
  int slot = c->ring_next;
  c->ring_next = (c->ring_next + 1) % TC_VIEW_RING;
  arb_snapshot_set_copy(&c->ring[slot], &c->assembling);
  c->ring_tick[slot] = h->tick;
  c->ring_h[slot] = c->asm_h;
  c->latest_tick = h->tick;
  c->latest_slot = slot;
  c->last_input_seq_acked = h->last_input_seq;
  c->snapshots_complete++;
  c->asm_tick = 0;
}

static void on_control(tc_client* c, const uint8_t* data, size_t len) {
  arb_proto_msg_type type;
  arb_proto_error err;
  if (arb_proto_peek_type(data, len, &type) != 0) return;
  if (type == ARB_PROTO_MSG_WELCOME) {
    c->welcome.statics = c->statics;
    c->welcome.static_cap = TC_MAX_STATICS;
    if (arb_proto_decode_welcome(data, len, &c->welcome, &err) == 0) c->state = TC_WELCOMED;
  } else if (type == ARB_PROTO_MSG_REJECT) {
    if (arb_proto_decode_reject(data, len, &c->reject, &err) == 0) c->state = TC_REJECTED;
  } else if (type == ARB_PROTO_MSG_EVENT) {
    arb_proto_event ev;
    if (arb_proto_decode_event(data, len, &ev, &err) == 0) {
      c->events_received++;
      if (ev.kind == ARB_PROTO_EVENT_DISCONNECT) c->disconnect_event = ev;
      if (ev.kind == ARB_PROTO_EVENT_NOTICE) c->last_notice = ev;
      if (ev.kind == ARB_PROTO_EVENT_LEFT) {
        c->last_left = ev;
        c->left_events++;
      }
      if (ev.kind == ARB_PROTO_EVENT_REJOIN)
        snprintf(c->rejoin_token, sizeof c->rejoin_token, "%s", ev.text);
    }
  } else if (type == ARB_PROTO_MSG_SNAPSHOT) {
    on_snapshot(c, data, len);
  } else if (type == ARB_PROTO_MSG_SCENE) {
    arb_proto_scene m;
    if (arb_proto_decode_scene(data, len, &m, &err) == 0) c->scenes_received++;
  }
}

int tc_start_ws(tc_client* c, const char* local_ip, uint16_t ws_port, const char* name,
                uint32_t version) {
  snprintf(c->name, sizeof c->name, "%s", name);
  c->ws = true;
  c->ws_fd = tc_ws_connect_buf(local_ip, ws_port, c->ws_rcvbuf);
  if (c->ws_fd < 0 || tc_ws_reader_init(&c->ws_reader) != 0) return -1;
  char req[512], resp[1024];
  tc_ws_request(req, sizeof req, ws_port, "Sec-WebSocket-Protocol: arbiter\r\n");
  if (tc_ws_handshake(c->ws_fd, req, 3000, resp, sizeof resp) != 101) {
    close(c->ws_fd);
    c->ws_fd = -1;
    return -1;
  }
  c->state = TC_CONNECTED;
  c->hello_version = version;
  return version != 0 ? send_hello(c, version) : 0;
}

// The server's close frame: answered, then the socket is closed (the server ended it).
static void ws_closed(tc_client* c) {
  if (c->ws_fd >= 0) {
    if (c->ws_reader.close_code != 0) {
      static const uint8_t mask[4] = {1, 2, 3, 4};
      uint8_t f[16],
          code[2] = {(uint8_t)(c->ws_reader.close_code >> 8), (uint8_t)c->ws_reader.close_code};
      size_t n = tc_ws_frame(f, sizeof f, 8, true, mask, code, 2);
      tc_ws_send_all(c->ws_fd, f, n);
      uint8_t drain[256];
      struct pollfd p = {c->ws_fd, POLLIN, 0};
      while (poll(&p, 1, 200) > 0 && recv(c->ws_fd, drain, sizeof drain, 0) > 0) {
      }
    }
    close(c->ws_fd);
    c->ws_fd = -1;
  }
  c->ws_close_code = c->ws_reader.close_code;
  if (c->state != TC_REJECTED) c->state = TC_DISCONNECTED;
}

static void ws_service(tc_client* c, int timeout_ms) {
  if (c->ws_fd < 0) return;
  for (int wait = timeout_ms;; wait = 0) {
    const uint8_t* d;
    size_t n;
    int op = tc_ws_read(&c->ws_reader, c->ws_fd, wait, &d, &n);
    if (op == 0) return;
    if (op < 0 || op == 8) {
      ws_closed(c);
      return;
    }
    if (op == 2) {
      c->bytes_received += n;
      on_control(c, d, n);  // every message type, snapshots included
    }
  }
}

void tc_service(tc_client* c, int timeout_ms) {
  if (c->ws) {
    ws_service(c, timeout_ms);
    return;
  }
  if (c->host == NULL) return;
  ENetEvent ev;
  int rc = enet_host_service(c->host, &ev, (enet_uint32)timeout_ms);
  while (rc > 0) {
    switch (ev.type) {
      case ENET_EVENT_TYPE_CONNECT:
        c->state = TC_CONNECTED;
        if (c->hello_version != 0) send_hello(c, c->hello_version);
        break;
      case ENET_EVENT_TYPE_RECEIVE:
        c->bytes_received += ev.packet->dataLength;
        if (ev.channelID == ARB_PROTO_CHANNEL_SNAPSHOT) {
          arb_proto_msg_type type;
          if (arb_proto_peek_type(ev.packet->data, ev.packet->dataLength, &type) == 0 &&
              type == ARB_PROTO_MSG_SNAPSHOT)
            on_snapshot(c, ev.packet->data, ev.packet->dataLength);
        } else {
          on_control(c, ev.packet->data, ev.packet->dataLength);
        }
        enet_packet_destroy(ev.packet);
        break;
      case ENET_EVENT_TYPE_DISCONNECT:
        if (c->state != TC_REJECTED) c->state = TC_DISCONNECTED;
        c->peer = NULL;
        break;
      default:
        break;
    }
    rc = enet_host_check_events(c->host, &ev);
  }
}

void tc_pump(tc_client** cs, int n, int duration_ms) {
  uint64_t end = tc_now_ms() + (uint64_t)duration_ms;
  do {
    for (int i = 0; i < n; ++i) tc_service(cs[i], 0);
    tc_sleep_ms(1);
  } while (tc_now_ms() < end);
}

int tc_wait_settled(tc_client** cs, int n, int timeout_ms) {
  uint64_t end = tc_now_ms() + (uint64_t)timeout_ms;
  for (;;) {
    int pending = 0, welcomed = 0;
    for (int i = 0; i < n; ++i) {
      tc_service(cs[i], 0);
      if (cs[i]->state == TC_CONNECTING || cs[i]->state == TC_CONNECTED) pending++;
      if (cs[i]->state == TC_WELCOMED) welcomed++;
    }
    if (pending == 0 || tc_now_ms() >= end) return welcomed;
    tc_sleep_ms(1);
  }
}

int tc_send_raw(tc_client* c, uint8_t channel, const void* data, size_t len, bool reliable) {
  if (c->ws) return c->ws_fd >= 0 ? tc_ws_send_binary(c->ws_fd, data, len) : -1;
  if (c->peer == NULL) return -1;
  ENetPacket* p = enet_packet_create(
      data, len, reliable ? ENET_PACKET_FLAG_RELIABLE : ENET_PACKET_FLAG_UNSEQUENCED);
  if (p == NULL) return -1;
  if (enet_peer_send(c->peer, channel, p) != 0) {
    enet_packet_destroy(p);
    return -1;
  }
  enet_host_flush(c->host);
  return 0;
}

int tc_send_input(tc_client* c, const arb_controls* controls) {
  arb_proto_input_cmd cmd;
  cmd.seq = ++c->input_seq;
  cmd.controls = arb_proto_quantize_controls(controls);
  int keep =
      c->history_count < ARB_PROTO_MAX_INPUTS - 1 ? c->history_count : ARB_PROTO_MAX_INPUTS - 1;
  memmove(&c->history[1], &c->history[0], (size_t)keep * sizeof c->history[0]);
  c->history[0] = cmd;
  c->history_count = keep + 1;
  arb_proto_input in;
  memset(&in, 0, sizeof in);
  in.packet_seq = ++c->packet_seq;
  in.ack_tick = c->latest_tick;
  in.count = c->history_count < 3 ? c->history_count : 3;
  memcpy(in.cmds, c->history, (size_t)in.count * sizeof in.cmds[0]);
  uint8_t buf[256];
  int n = arb_proto_encode_input(&in, buf, sizeof buf);
  if (n <= 0 || (size_t)n > sizeof buf) return -1;
  return tc_send_raw(c, ARB_PROTO_CHANNEL_INPUT, buf, (size_t)n, false);
}

bool tc_entity(const tc_client* c, uint32_t entity_id, arb_snapshot_state* out) {
  if (c->latest_slot < 0) return false;
  const arb_snapshot_entity* e = arb_snapshot_set_find(&c->ring[c->latest_slot], entity_id);
  if (e == NULL) return false;
  *out = arb_snapshot_eval(&e->s, e->cls, c->latest_tick, &c->ring_h[c->latest_slot]);
  return true;
}

void tc_close(tc_client* c) {
  if (c->ws) {
    if (c->ws_fd < 0) return;
    static const uint8_t mask[4] = {9, 8, 7, 6};
    uint8_t f[16], code[2] = {0x03, 0xe8};  // 1000: leaving (reason other, no rejoin hold)
    size_t n = tc_ws_frame(f, sizeof f, 8, true, mask, code, 2);
    tc_ws_send_all(c->ws_fd, f, n);
    tc_ws_wait_close(&c->ws_reader, c->ws_fd, 300);
    close(c->ws_fd);
    c->ws_fd = -1;
    return;
  }
  if (c->host == NULL) return;
  if (c->peer) {
    enet_peer_disconnect(c->peer, ARB_PROTO_REASON_OTHER);  // non-zero: leaving, not lost
    uint64_t end = tc_now_ms() + 300;
    while (c->peer && tc_now_ms() < end) tc_service(c, 5);
    if (c->peer) enet_peer_reset(c->peer);
  }
  enet_host_destroy(c->host);
  c->host = NULL;
  c->peer = NULL;
}

// ---- processes -----------------------------------------------------------------------

long tc_read_file(const char* path, char** data) {
  size_t len = 0;
  *data = arb_test_read_file(path, &len);
  return *data ? (long)len : -1;
}

bool tc_log_find(const char* log_path, const char* event, const char* key, char* out, size_t cap) {
  char* text;
  if (tc_read_file(log_path, &text) < 0) return false;
  char needle[128], keyneedle[128];
  snprintf(needle, sizeof needle, "\"event\":\"%s\"", event);
  snprintf(keyneedle, sizeof keyneedle, "\"%s\":", key);
  bool found = false;
  for (char* line = text; line && *line;) {
    char* nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (strstr(line, needle)) {
      char* k = strstr(line, keyneedle);
      if (k) {
        k += strlen(keyneedle);
        bool quoted = *k == '"';
        if (quoted) k++;
        size_t i = 0;
        while (k[i] && i + 1 < cap && (quoted ? k[i] != '"' : (k[i] != ',' && k[i] != '}'))) {
          out[i] = k[i];
          i++;
        }
        out[i] = '\0';
        found = true;
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  return found;
}

// Servers still running when the test process exits (a failed assertion jumps out of
// the test) are killed by an atexit handler.
static pid_t tracked[16];

static void kill_tracked(void) {
  for (int i = 0; i < 16; ++i) {
    if (tracked[i] > 0 && waitpid(tracked[i], NULL, WNOHANG) == 0) {
      kill(tracked[i], SIGKILL);
      waitpid(tracked[i], NULL, 0);
    }
    tracked[i] = 0;
  }
}

static void track(pid_t pid) {
  static bool registered;
  if (!registered) {
    atexit(kill_tracked);
    registered = true;
  }
  for (int i = 0; i < 16; ++i) {
    if (tracked[i] == 0) {
      tracked[i] = pid;
      return;
    }
  }
}

int tc_server_start(tc_server* s, const char* exe, const char* const* extra_args) {
  memset(s, 0, sizeof *s);
  snprintf(s->log_path, sizeof s->log_path, "/tmp/arbiter-test-%d-%u.log", (int)getpid(),
           (unsigned)(tc_now_ms() & 0xffffff));
  const char* argv[64];
  int n = 0;
  argv[n++] = exe;
  argv[n++] = "--port";
  argv[n++] = "0";
  argv[n++] = "--http-port";
  argv[n++] = "-1";
  argv[n++] = "--log-format";
  argv[n++] = "json";
  for (int i = 0; extra_args && extra_args[i] && n < 62; ++i) argv[n++] = extra_args[i];
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 2);
      close(fd);
    }
    // Not the test's stdout: a server left behind must not hold the test's pipe open.
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, 1);
      close(devnull);
    }
    execv(exe, (char* const*)argv);
    _exit(127);
  }
  s->pid = pid;
  track(pid);
  uint64_t end = tc_now_ms() + 10000;
  char value[64];
  while (tc_now_ms() < end) {
    if (tc_log_find(s->log_path, "server_started", "port", value, sizeof value)) {
      s->port = atoi(value);
      if (tc_log_find(s->log_path, "server_started", "http_port", value, sizeof value))
        s->http_port = atoi(value);
      if (tc_log_find(s->log_path, "server_started", "ws_port", value, sizeof value))
        s->ws_port = atoi(value);
      return 0;
    }
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      s->pid = 0;
      return -1;
    }
    tc_sleep_ms(10);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  s->pid = 0;
  return -1;
}

int tc_server_stop(tc_server* s, int sig, int timeout_ms) {
  if (s->pid <= 0) return -1;
  kill(s->pid, sig);
  uint64_t end = tc_now_ms() + (uint64_t)timeout_ms;
  int status;
  while (tc_now_ms() < end) {
    pid_t r = waitpid(s->pid, &status, WNOHANG);
    if (r == s->pid) {
      s->pid = 0;
      return exit_status_of(status);
    }
    tc_sleep_ms(5);
  }
  kill(s->pid, SIGKILL);
  waitpid(s->pid, NULL, 0);
  s->pid = 0;
  return -1;
}

int tc_http_raw(int port, const char* request, size_t len, int timeout_ms, char* out, size_t cap) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  size_t off = 0;
  while (off < len) {
    ssize_t w = send(fd, request + off, len - off, MSG_NOSIGNAL);
    if (w <= 0) break;
    off += (size_t)w;
  }
  size_t got = 0;
  uint64_t end = tc_now_ms() + (uint64_t)timeout_ms;
  while (got + 1 < cap) {
    int left = (int)(end - tc_now_ms());
    if (left <= 0) break;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left) <= 0) break;
    ssize_t r = recv(fd, out + got, cap - 1 - got, 0);
    if (r <= 0) break;
    got += (size_t)r;
  }
  out[got] = '\0';
  close(fd);
  return (int)got;
}

int tc_http_get(int port, const char* path, char** body) {
  char req[512];
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path);
  size_t cap = 64 * 1024;
  char* resp = malloc(cap);
  *body = NULL;
  int got = tc_http_raw(port, req, (size_t)n, 3000, resp, cap);
  int status = -1;
  if (got > 12 && sscanf(resp, "HTTP/1.1 %d", &status) == 1) {
    char* b = strstr(resp, "\r\n\r\n");
    if (b) *body = strdup(b + 4);
  }
  free(resp);
  return status;
}

double tc_metric(const char* text, const char* name) {
  size_t nl = strlen(name);
  for (const char* line = text; line && *line;) {
    if (strncmp(line, name, nl) == 0 && line[nl] == ' ') return strtod(line + nl + 1, NULL);
    line = strchr(line, '\n');
    if (line) line++;
  }
  return NAN;
}
