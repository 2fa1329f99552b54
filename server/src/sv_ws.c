// The WebSocket transport on libuv (see sv_ws.h).
// struct tcp_info (the kernel's round-trip estimate) is a Linux extension of <netinet/tcp.h>.
#define _DEFAULT_SOURCE
#include "sv_ws.h"

#include <arbiter/protocol.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sv_conn_list.h"
#include "sv_tcp.h"

typedef enum ws_phase {
  WS_HANDSHAKE,  ///< reading the request head
  WS_REFUSING,   ///< writing an HTTP error, then closed
  WS_OPEN,       ///< frames
  WS_DRAINING,   ///< write side shut down; input dropped until the peer's end of stream
  WS_CLOSED,     ///< uv_close called
} ws_phase;

struct sv_ws_conn {
  sv_ws_conn *prev, *next;
  sv_ws* ws;
  uv_tcp_t tcp;
  uv_timer_t timer;  ///< the handshake deadline, then the drain deadline
  uv_write_t wreq;
  uv_shutdown_t sreq;
  int handles_open;
  ws_phase phase;
  int slot;       ///< -1 until open
  bool attached;  ///< the session layer is told of this connection (hooks)
  bool closing;   ///< a close frame was queued or received: the drain deadline runs
  bool writing;   ///< wbuf is in flight
  bool read_stopped;
  bool counted;    ///< its end is in ws_closes_total
  bool doomed;     ///< to be torn down from the timer (not inside a caller's send)
  sv_ws_buf wbuf;  ///< the bytes of the write in flight
  char* head;      ///< the request head being read (SV_WS_MAX_HEAD), freed when open
  size_t head_len;
  char refusal[512];  ///< the HTTP error response being written
  sv_ws_stream st;
  bool st_ready;
  uint32_t ip;    ///< network order; 0 when unknown
  char addr[32];  ///< "a.b.c.d:port" or "?" (sv_ws_addr)
  uint64_t last_heard_ms;
};

static uint64_t now_ms(const sv_ws* w) {
  return uv_now(w->loop);
}

// Refusals and protocol errors are logged at most SV_WS_LOG_PER_SECOND a second, so that
// a flood of bad connections cannot flood the log (each is counted in the metrics all
// the same). Returns whether this one may be logged; *suppressed is how many were not
// since the last one that was.
static bool log_allowed(sv_ws* w, uint64_t* suppressed) {
  uint64_t now = now_ms(w);
  if (now - w->log_window_ms >= 1000) {
    w->log_window_ms = now;
    w->log_count = 0;
  }
  if (w->log_count >= SV_WS_LOG_PER_SECOND) {
    w->log_suppressed++;
    return false;
  }
  w->log_count++;
  *suppressed = w->log_suppressed;
  w->log_suppressed = 0;
  return true;
}

static void settle(sv_ws_conn* c);

// ---- teardown --------------------------------------------------------------------------

static void on_handle_closed(uv_handle_t* h) {
  sv_ws_conn* c = h->data;
  if (--c->handles_open > 0) return;
  sv_ws* w = c->ws;
  SV_CONN_LIST_REMOVE(w->conns, c);
  if (c->slot >= 0) {
    // At shutdown libuv may run the listener's close callback (which frees the slot
    // table) before the connections' own.
    if (w->slots) w->slots[c->slot] = NULL;
    w->metrics->ws_connections--;
  }
  if (c->st_ready) sv_ws_stream_free(&c->st);
  free(c->wbuf.data);
  free(c->head);
  free(c);
}

static void count_end(sv_ws_conn* c, unsigned code) {
  if (c->counted || c->slot < 0) return;
  c->counted = true;
  c->ws->metrics->ws_closes_total[sv_ws_close_kind_of(code)]++;
}

// Tell the session layer (once) that the connection is over for it.
static void end_session(sv_ws_conn* c, uint32_t code) {
  if (!c->attached) return;
  c->attached = false;
  sv_ws* w = c->ws;
  w->hooks.on_closed(w->hooks.user, c, code);
}

static void hard_close(sv_ws_conn* c) {
  if (c->phase == WS_CLOSED) return;
  if (c->phase == WS_HANDSHAKE || c->phase == WS_REFUSING) c->ws->pending--;
  c->phase = WS_CLOSED;
  count_end(c, c->st_ready ? sv_ws_stream_close_sent(&c->st) : 0);
  end_session(c, 0);
  uv_close((uv_handle_t*)&c->tcp, on_handle_closed);
  uv_close((uv_handle_t*)&c->timer, on_handle_closed);
}

static void on_timer(uv_timer_t* t);
static void refuse(sv_ws_conn* c, int status, sv_ws_refusal why_metric, const char* why);

// Torn down from the loop, not now: the caller may be the session layer in the middle of
// sending, which must not see its session freed under it by on_closed.
static void drop_soon(sv_ws_conn* c) {
  if (c->doomed || c->phase == WS_CLOSED) return;
  c->doomed = true;
  uv_read_stop((uv_stream_t*)&c->tcp);
  uv_timer_start(&c->timer, on_timer, 0, 0);
}

static void on_timer(uv_timer_t* t) {
  sv_ws_conn* c = t->data;
  if (c->doomed) {
    hard_close(c);
    return;
  }
  if (c->phase == WS_HANDSHAKE) {
    refuse(c, 408, SV_WS_REFUSED_408, "request head not complete in time");
    return;
  }
  if (c->phase != WS_CLOSED) {
    if (c->phase == WS_OPEN)
      SV_LOG(c->ws->log, SV_LOG_DEBUG, "ws_drain_timeout", SV_LS("addr", c->addr));
    hard_close(c);
  }
}

// The close handshake has begun (either side): it ends within SV_WS_DRAIN_MS.
static void start_drain_deadline(sv_ws_conn* c) {
  if (c->closing) return;
  c->closing = true;
  uv_timer_start(&c->timer, on_timer, SV_WS_DRAIN_MS, 0);
}

// ---- output ----------------------------------------------------------------------------

static void on_written(uv_write_t* req, int status);

// Hand what wslay produced to one uv_write (none when one is in flight).
static void flush(sv_ws_conn* c) {
  if (c->writing || c->phase != WS_OPEN || c->st.out.len == 0) return;
  sv_ws_buf t = c->wbuf;
  c->wbuf = c->st.out;
  c->st.out = t;
  c->st.out.len = 0;
  uv_buf_t b = uv_buf_init((char*)c->wbuf.data, (unsigned)c->wbuf.len);
  c->wreq.data = c;
  if (uv_write(&c->wreq, (uv_stream_t*)&c->tcp, &b, 1, on_written) != 0) {
    c->wbuf.len = 0;
    drop_soon(c);
    return;
  }
  c->writing = true;
  c->ws->metrics->ws_bytes_out_total += c->wbuf.len;
}

static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);

static void on_written(uv_write_t* req, int status) {
  sv_ws_conn* c = req->data;
  c->writing = false;
  c->wbuf.len = 0;
  if (c->phase == WS_CLOSED) return;
  if (status < 0) {  // the peer is gone: a lost connection
    hard_close(c);
    return;
  }
  // Input held back while the output was over its limit is read now (the socket may have
  // nothing more to say, so no read callback would come for it).
  if (c->st.in.len > c->st.in_pos) sv_ws_stream_pump(&c->st);
  if (c->phase == WS_OPEN && c->read_stopped && c->st.in.len - c->st.in_pos < SV_WS_IN_MAX) {
    c->read_stopped = false;
    uv_read_start((uv_stream_t*)&c->tcp, on_alloc, on_read);
  }
  settle(c);
}

// ---- frames ----------------------------------------------------------------------------

static void on_message(void* user, const uint8_t* data, size_t len) {
  sv_ws_conn* c = user;
  if (!c->attached) return;
  c->ws->hooks.on_message(c->ws->hooks.user, c, data, len);
}

static const char* close_why(uint16_t code) {
  switch (code) {
    case 1002:
      return "frame breaks RFC 6455";
    case 1003:
      return "text frame";
    case 1007:
      return "invalid UTF-8";
    case 1009:
      return "message over 4096 bytes";
    default:
      return "protocol error";
  }
}

// After wslay read or wrote: report how the connection ends, send, and once the close
// exchange is done shut the write side down (then wait for the peer's end of stream).
static void settle(sv_ws_conn* c) {
  if (c->phase != WS_OPEN || c->doomed) return;
  sv_ws* w = c->ws;
  if (c->st.failed) {
    SV_LOG(w->log, SV_LOG_WARN, "ws_dropped", SV_LS("addr", c->addr),
           SV_LS("why", "out of memory"));
    drop_soon(c);
    return;
  }
  uint16_t got = 0;
  bool received = sv_ws_stream_close_received(&c->st, &got);
  uint16_t sent = sv_ws_stream_close_sent(&c->st);
  if (received || sent) start_drain_deadline(c);
  if (received && c->attached) {
    // The client left (PROTOCOL.md §1.2: like an ENet disconnect with reason other).
    SV_LOG(w->log, SV_LOG_DEBUG, "ws_client_closed", SV_LS("addr", c->addr), SV_LI("code", got));
    end_session(c, ARB_PROTO_REASON_OTHER);
  } else if (sent && c->attached && (sent < 4000 || sent > 4999)) {
    // wslay (or the text check) refused a frame: the client broke the transport's rules.
    uint64_t suppressed;
    if (log_allowed(w, &suppressed))
      SV_LOG(w->log, SV_LOG_WARN, "ws_protocol_error", SV_LS("addr", c->addr), SV_LI("code", sent),
             SV_LS("why", close_why(sent)), SV_LU("suppressed", suppressed));
    end_session(c, ARB_PROTO_REASON_MALFORMED);
  }
  flush(c);
  if (c->phase == WS_OPEN && !c->writing && c->st.out.len == 0 && sv_ws_stream_done(&c->st)) {
    count_end(c, sent);
    c->phase = WS_DRAINING;
    c->sreq.data = c;
    if (uv_shutdown(&c->sreq, (uv_stream_t*)&c->tcp, NULL) != 0) hard_close(c);
  }
}

// ---- input -----------------------------------------------------------------------------

static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf) {
  (void)h;
  (void)suggested;
  static char slab[65536];  // the loop is single-threaded and each read is consumed at once
  *buf = uv_buf_init(slab, sizeof slab);
}

static void refuse(sv_ws_conn* c, int status, sv_ws_refusal why_metric, const char* why) {
  sv_ws* w = c->ws;
  w->metrics->ws_refused_total[why_metric]++;
  uint64_t suppressed;
  if (log_allowed(w, &suppressed))
    SV_LOG(w->log, SV_LOG_INFO, "ws_refused", SV_LS("addr", c->addr), SV_LI("status", status),
           SV_LS("why", why), SV_LU("suppressed", suppressed));
  int n = sv_ws_response_error(status, why, c->refusal, sizeof c->refusal);
  c->phase = WS_REFUSING;
  uv_read_stop((uv_stream_t*)&c->tcp);
  uv_buf_t b = uv_buf_init(c->refusal, (unsigned)(n > 0 ? n : 0));
  c->wreq.data = c;
  if (n <= 0 || uv_write(&c->wreq, (uv_stream_t*)&c->tcp, &b, 1, NULL) != 0) {
    hard_close(c);
    return;
  }
  w->metrics->ws_bytes_out_total += (uint64_t)n;
  // Closed after a moment (the timer), not in the write callback: closing at once with
  // unread request bytes in the kernel would send a reset that can destroy the response.
  uv_shutdown(&c->sreq, (uv_stream_t*)&c->tcp, NULL);
  uv_timer_start(&c->timer, on_timer, 1000, 0);
}

static bool origin_allowed(const sv_ws* w, const sv_ws_request* req) {
  if (w->limits.origin_count == 0) return true;
  if (!req->has_origin || req->origin[0] == '\0') return false;
  for (int i = 0; i < w->limits.origin_count; ++i)
    if (strcmp(w->limits.origins[i], req->origin) == 0) return true;
  return false;
}

static int free_slot(const sv_ws* w) {
  for (int i = 0; i < w->limits.max; ++i)
    if (w->slots[i] == NULL) return i;
  return -1;
}

// The head is complete and valid: the remaining checks (PROTOCOL.md §1.2, in its order),
// then 101 and the frames that came with the request.
static void open_conn(sv_ws_conn* c, const sv_ws_request* req, const char* extra,
                      size_t extra_len) {
  sv_ws* w = c->ws;
  if (!origin_allowed(w, req)) {
    refuse(c, 403, SV_WS_REFUSED_403, req->has_origin ? "Origin not allowed" : "no Origin header");
    return;
  }
  int slot = free_slot(w);
  if (w->closed_to_new || slot < 0 || sv_ws_open_of(w, c->ip) >= w->limits.per_address ||
      !w->hooks.admit(w->hooks.user, c->ip)) {
    refuse(c, 503, SV_WS_REFUSED_503,
           w->closed_to_new ? "server stopping"
           : slot < 0       ? "too many WebSocket connections"
                            : "too many connections from this address");
    return;
  }
  char resp[256];
  int n = sv_ws_response_101(req, resp, sizeof resp);
  if (n < 0 || sv_ws_stream_init(&c->st, on_message, c) != 0) {
    hard_close(c);
    return;
  }
  c->st_ready = true;
  // The 101 goes out before any frame: it is the output buffer's first bytes.
  if (extra_len && sv_ws_stream_feed(&c->st, extra, extra_len) != 0) {
    hard_close(c);
    return;
  }
  sv_ws_buf* out = &c->st.out;
  out->data = malloc((size_t)n);
  if (out->data == NULL) {
    hard_close(c);
    return;
  }
  memcpy(out->data, resp, (size_t)n);
  out->len = out->cap = (size_t)n;
  free(c->head);
  c->head = NULL;
  w->pending--;
  c->phase = WS_OPEN;
  c->slot = slot;
  w->slots[slot] = c;
  w->metrics->ws_connections++;
  w->metrics->ws_handshakes_total++;
  uv_timer_stop(&c->timer);
  SV_LOG(w->log, SV_LOG_DEBUG, "ws_open", SV_LS("addr", c->addr), SV_LI("slot", slot),
         SV_LS("origin", req->origin));
  c->attached = true;
  w->hooks.on_open(w->hooks.user, c);
  if (c->phase == WS_OPEN && sv_ws_stream_pump(&c->st) != 0) c->st.failed = true;
  settle(c);
}

static void read_head(sv_ws_conn* c, const char* data, size_t len) {
  size_t room = SV_WS_MAX_HEAD - c->head_len;
  size_t take = len < room ? len : room;
  memcpy(c->head + c->head_len, data, take);
  c->head_len += take;
  sv_ws_request req;
  int rc = sv_ws_parse_request(c->head, c->head_len, &req);
  if (rc == 0) return;
  if (rc > 0) {
    size_t end = (size_t)rc;
    // Frames pipelined behind the request: the rest of the head buffer and of this read.
    char* extra = malloc(c->head_len - end + (len - take) + 1);
    if (extra == NULL) {
      hard_close(c);
      return;
    }
    size_t extra_len = c->head_len - end;
    memcpy(extra, c->head + end, extra_len);
    memcpy(extra + extra_len, data + take, len - take);
    extra_len += len - take;
    open_conn(c, &req, extra, extra_len);
    free(extra);
    return;
  }
  int status = -rc;
  sv_ws_refusal m = status == 431   ? SV_WS_REFUSED_431
                    : status == 426 ? SV_WS_REFUSED_426
                                    : SV_WS_REFUSED_400;
  refuse(c, status, m, req.why);
}

static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
  sv_ws_conn* c = s->data;
  if (nread == 0 || c->phase == WS_CLOSED) return;
  if (nread < 0) {  // end of stream or error: without a close frame this is a lost connection
    if (c->phase == WS_OPEN && c->attached)
      SV_LOG(c->ws->log, SV_LOG_INFO, "ws_lost", SV_LS("addr", c->addr),
             SV_LS("why", nread == UV_EOF ? "end of stream" : uv_strerror((int)nread)));
    hard_close(c);
    return;
  }
  c->ws->metrics->ws_bytes_in_total += (uint64_t)nread;
  c->last_heard_ms = now_ms(c->ws);
  switch (c->phase) {
    case WS_HANDSHAKE:
      read_head(c, buf->base, (size_t)nread);
      return;
    case WS_OPEN:
      if (sv_ws_stream_feed(&c->st, buf->base, (size_t)nread) != 0) c->st.failed = true;
      if (!c->st.failed) sv_ws_stream_pump(&c->st);
      // wslay holds input back while the output is over its limit: stop reading more.
      if (c->phase == WS_OPEN && c->st.in.len - c->st.in_pos >= SV_WS_IN_MAX) {
        uv_read_stop(s);
        c->read_stopped = true;
      }
      settle(c);
      return;
    case WS_REFUSING:
    case WS_DRAINING:
    case WS_CLOSED:
      return;  // dropped: only the end of stream matters now
  }
}

static void on_connection(uv_stream_t* server, int status) {
  sv_ws* w = server->data;
  if (status < 0) return;
  sv_ws_conn* c = calloc(1, sizeof *c);
  if (c == NULL) return;
  c->ws = w;
  c->slot = -1;
  uv_tcp_init(w->loop, &c->tcp);
  uv_timer_init(w->loop, &c->timer);
  c->tcp.data = c->timer.data = c;
  c->handles_open = 2;
  SV_CONN_LIST_PUSH(w->conns, c);
  w->pending++;
  c->phase = WS_HANDSHAKE;
  if (uv_accept(server, (uv_stream_t*)&c->tcp) != 0) {
    hard_close(c);
    return;
  }
  struct sockaddr_storage ss;
  int len = sizeof ss;
  snprintf(c->addr, sizeof c->addr, "?");
  if (uv_tcp_getpeername(&c->tcp, (struct sockaddr*)&ss, &len) == 0 && ss.ss_family == AF_INET) {
    const struct sockaddr_in* sin = (const struct sockaddr_in*)&ss;
    c->ip = sin->sin_addr.s_addr;
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof ip);
    snprintf(c->addr, sizeof c->addr, "%s:%u", ip, (unsigned)ntohs(sin->sin_port));
  }
  uv_tcp_nodelay(&c->tcp, 1);  // snapshots are small and late ones are worthless
  // The kernel keeps at most this much unsent (beyond what is in flight): otherwise it
  // takes megabytes (tcp_wmem autotuning) from a client that does not read, seconds of
  // stale snapshots, before the backlog the snapshot sender looks at grows at all.
  uv_os_fd_t fd;
  int lowat = SV_WS_KERNEL_UNSENT;
  if (uv_fileno((const uv_handle_t*)&c->tcp, &fd) == 0)
    setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat);
  c->last_heard_ms = now_ms(w);
  c->head = malloc(SV_WS_MAX_HEAD);
  if (c->head == NULL) {
    hard_close(c);
    return;
  }
  uv_timer_start(&c->timer, on_timer, SV_WS_HANDSHAKE_MS, 0);
  uv_read_start((uv_stream_t*)&c->tcp, on_alloc, on_read);
  // Handshakes hold memory before anything is proven about them: bounded per address and
  // in total (the request is not read; it gets the 503 at once). A refused connection
  // waiting out its last second is counted in the total only, so that a client whose
  // request was refused may retry at once.
  int same = 0;
  for (const sv_ws_conn* o = w->conns; o; o = o->next)
    if (o->ip == c->ip && o->phase != WS_CLOSED && o->phase != WS_REFUSING) same++;
  if (w->closed_to_new)
    refuse(c, 503, SV_WS_REFUSED_503, "server stopping");
  else if (w->pending > SV_WS_MAX_PENDING)
    refuse(c, 503, SV_WS_REFUSED_503, "too many WebSocket handshakes in progress");
  else if (same > w->limits.per_address)
    refuse(c, 503, SV_WS_REFUSED_503, "too many connections from this address");
}

// ---- public ----------------------------------------------------------------------------

int sv_ws_init(sv_ws* w, uv_loop_t* loop, const char* bind, int port, const sv_ws_limits* limits,
               const sv_ws_hooks* hooks, sv_metrics* metrics, sv_log* log, char* err,
               size_t err_cap) {
  memset(w, 0, sizeof *w);
  w->loop = loop;
  w->limits = *limits;
  w->hooks = *hooks;
  w->metrics = metrics;
  w->log = log;
  w->slots = calloc((size_t)limits->max, sizeof *w->slots);
  if (w->slots == NULL) {
    snprintf(err, err_cap, "out of memory");
    return -1;
  }
  struct sockaddr_in addr;
  int rc = uv_ip4_addr(bind, port, &addr);
  if (rc == 0) rc = uv_tcp_init(loop, &w->listener);
  if (rc != 0) {
    snprintf(err, err_cap, "--ws-bind %s: %s", bind, uv_strerror(rc));
    free(w->slots);
    w->slots = NULL;
    return -1;
  }
  w->listener.data = w;
  w->listening = true;
  rc = uv_tcp_bind(&w->listener, (const struct sockaddr*)&addr, 0);
  if (rc == 0) rc = uv_listen((uv_stream_t*)&w->listener, 511, on_connection);
  if (rc != 0) {
    snprintf(err, err_cap, "cannot listen for WebSocket on %s:%d: %s", bind, port, uv_strerror(rc));
    sv_ws_close(w);
    return -1;
  }
  w->port = sv_tcp_bound_port(&w->listener);
  return 0;
}

void sv_ws_close_to_new(sv_ws* w) {
  w->closed_to_new = true;
}

static void on_listener_closed(uv_handle_t* h) {
  sv_ws* w = h->data;
  free(w->slots);
  w->slots = NULL;
}

void sv_ws_close(sv_ws* w) {
  for (sv_ws_conn* c = w->conns; c; c = c->next) hard_close(c);
  if (w->listening) {
    w->listening = false;
    // The slots are freed with the listener, after the connections' closes (queued first).
    uv_close((uv_handle_t*)&w->listener, on_listener_closed);
  }
}

int sv_ws_send(sv_ws_conn* c, const void* data, size_t len) {
  if (c->phase != WS_OPEN || c->doomed) return -1;
  if (sv_ws_backlog(c) + len > SV_WS_OUT_MAX) {
    SV_LOG(c->ws->log, SV_LOG_WARN, "ws_dropped", SV_LS("addr", c->addr),
           SV_LS("why", "unsent output over its cap (the client does not read)"),
           SV_LU("backlog", sv_ws_backlog(c)));
    drop_soon(c);
    return -1;
  }
  if (sv_ws_stream_send(&c->st, data, len) != 0) return -1;
  if (!c->st.in_pump) settle(c);
  return 0;
}

void sv_ws_close_conn(sv_ws_conn* c, uint16_t code, const char* reason) {
  if (c->phase != WS_OPEN || c->doomed) return;
  if (sv_ws_stream_close_sent(&c->st) == 0) sv_ws_stream_close(&c->st, code, reason);
  start_drain_deadline(c);
  if (!c->st.in_pump) settle(c);
}

void sv_ws_abandon(sv_ws_conn* c, uint16_t code, const char* reason) {
  c->attached = false;
  sv_ws_close_conn(c, code, reason);
}

int sv_ws_slot(const sv_ws_conn* c) {
  return c->slot;
}
uint32_t sv_ws_ip(const sv_ws_conn* c) {
  return c->ip;
}
const char* sv_ws_addr(const sv_ws_conn* c) {
  return c->addr;
}

uint64_t sv_ws_silent_ms(const sv_ws_conn* c) {
  uint64_t now = now_ms(c->ws);
  return now > c->last_heard_ms ? now - c->last_heard_ms : 0;
}

size_t sv_ws_backlog(const sv_ws_conn* c) {
  if (!c->st_ready) return 0;
  return sv_ws_stream_backlog(&c->st) + c->wbuf.len;
}

uint32_t sv_ws_rtt_ms(const sv_ws_conn* c) {
  uv_os_fd_t fd;
  if (c->phase == WS_CLOSED || uv_fileno((const uv_handle_t*)&c->tcp, &fd) != 0) return 0;
  struct tcp_info ti;
  socklen_t len = sizeof ti;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return 0;
  return ti.tcpi_rtt / 1000u;
}

int sv_ws_open_of(const sv_ws* w, uint32_t ip) {
  int n = 0;
  for (int i = 0; i < w->limits.max; ++i)
    if (w->slots[i] != NULL && w->slots[i]->ip == ip) n++;
  return n;
}
