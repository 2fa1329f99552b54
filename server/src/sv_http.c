// Minimal HTTP responder (see sv_http.h).
#define _XOPEN_SOURCE 700  // realpath
#include "sv_http.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sv_conn_list.h"
#include "sv_tcp.h"

typedef struct http_conn {
  struct http_conn *prev, *next;  ///< in sv_http.conn_list, so a stop can close them all
  uv_tcp_t tcp;
  uv_timer_t timer;
  uv_write_t write_req;
  sv_http* server;
  int handles_open;  ///< freed when both tcp and timer are closed
  bool responding;
  bool closing;
  uint32_t ip;           ///< peer IPv4 address (network order), 0 if unknown
  uint64_t accepted_ms;  ///< uv_now at accept: the header deadline counts from here
  size_t len;
  char req[SV_HTTP_MAX_REQUEST + 1];
  char* out;  ///< response bytes (malloc'd), freed on close
} http_conn;

static void on_handle_closed(uv_handle_t* handle) {
  http_conn* c = handle->data;
  if (--c->handles_open == 0) {
    sv_http* h = c->server;
    SV_CONN_LIST_REMOVE(h->conn_list, c);
    h->conns--;
    free(c->out);
    free(c);
  }
}

static void conn_close(http_conn* c) {
  c->closing = true;
  if (!uv_is_closing((uv_handle_t*)&c->tcp)) uv_close((uv_handle_t*)&c->tcp, on_handle_closed);
  if (!uv_is_closing((uv_handle_t*)&c->timer)) uv_close((uv_handle_t*)&c->timer, on_handle_closed);
}

static void on_timeout(uv_timer_t* timer) {
  http_conn* c = timer->data;
  if (!c->responding) c->server->timed_out++;
  conn_close(c);
}

// Re-armed on every read: whichever comes first of the idle and the header deadline.
static void arm_timer(http_conn* c) {
  uint64_t now = uv_now(c->tcp.loop);
  uint64_t header_left = c->accepted_ms + SV_HTTP_HEADER_TIMEOUT_MS > now
                             ? c->accepted_ms + SV_HTTP_HEADER_TIMEOUT_MS - now
                             : 0;
  uint64_t wait = header_left < SV_HTTP_IDLE_TIMEOUT_MS ? header_left : SV_HTTP_IDLE_TIMEOUT_MS;
  uv_timer_start(&c->timer, on_timeout, wait, 0);
}

static void on_written(uv_write_t* req, int status) {
  (void)status;
  conn_close(req->data);
}

const char* sv_http_reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 426:
      return "Upgrade Required";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

// extra: more header lines, each ending in \r\n ("" = none).
static void respond(http_conn* c, int status, const char* content_type, const char* body,
                    size_t body_len, bool head_only, const char* extra) {
  c->responding = true;
  uv_read_stop((uv_stream_t*)&c->tcp);
  char header[384];
  int hl = snprintf(header, sizeof header,
                    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: "
                    "close\r\n\r\n",
                    status, sv_http_reason_phrase(status), content_type, body_len, extra);
  size_t send_body = head_only ? 0 : body_len;
  c->out = malloc((size_t)hl + send_body);
  if (c->out == NULL) {
    conn_close(c);
    return;
  }
  memcpy(c->out, header, (size_t)hl);
  if (send_body) memcpy(c->out + hl, body, send_body);
  uv_buf_t buf = uv_buf_init(c->out, (unsigned)((size_t)hl + send_body));
  c->write_req.data = c;
  if (uv_write(&c->write_req, (uv_stream_t*)&c->tcp, &buf, 1, on_written) != 0) {
    conn_close(c);
    return;
  }
  // All of it is in the kernel already (libuv calls on_written only on the next loop
  // iteration): close now. A connection kept open until then still counts against its
  // address's limit, and a client asking one request after another on fresh connections
  // can bring the next ones in within the same iteration, past the limit, and be refused.
  if (uv_stream_get_write_queue_size((uv_stream_t*)&c->tcp) == 0) conn_close(c);
}

static void respond_text(http_conn* c, int status, const char* text) {
  respond(c, status, "text/plain; charset=utf-8", text, strlen(text), false, "");
}

// Value of header `name` (case-insensitive) with surrounding blanks removed; "" when absent,
// repeated or longer than cap - 1 (a header we cannot hold whole is not acted on).
static void find_header(const char* header, const char* name, char* out, size_t cap) {
  out[0] = '\0';
  size_t name_len = strlen(name);
  int found = 0;
  const char* line = strchr(header, '\n');
  while (line != NULL) {
    ++line;
    if (*line == '\r' || *line == '\n' || *line == '\0') break;  // end of the header block
    const char* end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len > name_len && strncasecmp(line, name, name_len) == 0 && line[name_len] == ':') {
      const char* v = line + name_len + 1;
      const char* v_end = line + len;
      while (v < v_end && (*v == ' ' || *v == '\t')) ++v;
      while (v_end > v && (v_end[-1] == '\r' || v_end[-1] == ' ' || v_end[-1] == '\t')) --v_end;
      size_t n = (size_t)(v_end - v);
      if (++found > 1 || n >= cap) {
        out[0] = '\0';
        return;
      }
      memcpy(out, v, n);
      out[n] = '\0';
    }
    line = end;
  }
}

int sv_http_parse_request(const char* header, sv_http_request* out) {
  memset(out, 0, sizeof *out);
  // Request line: METHOD SP TARGET SP HTTP/x.y (widths bound every copy).
  char version[16];
  if (sscanf(header, "%7s %511s %15s", out->method, out->path, version) != 3 ||
      strncmp(version, "HTTP/1.", 7) != 0)
    return 400;
  out->head = strcmp(out->method, "HEAD") == 0;
  if (!out->head && strcmp(out->method, "GET") != 0 && strcmp(out->method, "POST") != 0) return 405;
  char* q = strchr(out->path, '?');
  if (q) {
    snprintf(out->query, sizeof out->query, "%s", q + 1);
    *q = '\0';
  }
  find_header(header, "Authorization", out->authorization, sizeof out->authorization);
  return 0;
}

static bool serve_web(http_conn* c, const sv_http_request* req, char* body);

static void handle_request(http_conn* c) {
  sv_http_request req;
  int bad = sv_http_parse_request(c->req, &req);
  if (bad == 400) {
    respond_text(c, 400, "bad request\n");
    return;
  }
  if (bad != 0) {
    respond_text(c, 405, "only GET, HEAD and POST\n");
    return;
  }
  char* body = malloc(SV_HTTP_MAX_BODY);
  if (body == NULL) {
    conn_close(c);
    return;
  }
  if (serve_web(c, &req, body)) {
    free(body);
    return;
  }
  sv_http_reply reply = {404, "text/plain; charset=utf-8", body, 0};
  c->server->handler(c->server->user, &req, &reply);
  if (reply.body_len > SV_HTTP_MAX_BODY) reply.body_len = SV_HTTP_MAX_BODY;
  c->server->requests++;
  respond(c, reply.status, reply.content_type, body, reply.body_len, req.head, "");
  free(body);
}

static void on_alloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf) {
  http_conn* c = handle->data;
  (void)suggested;
  size_t room = SV_HTTP_MAX_REQUEST - c->len;
  // One spare byte beyond the limit lets on_read tell "exactly full" from "too big".
  *buf = uv_buf_init(c->req + c->len, (unsigned)(room + 1));
}

// Bytes that arrived in c->req + c->len: answer once the header is whole.
static void took(http_conn* c, size_t n) {
  c->len += n;
  if (c->len > SV_HTTP_MAX_REQUEST) {
    c->len = SV_HTTP_MAX_REQUEST;
    c->req[c->len] = '\0';
    respond_text(c, 431, "request too large\n");
    return;
  }
  c->req[c->len] = '\0';
  if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
    handle_request(c);
  else
    arm_timer(c);
}

static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  http_conn* c = stream->data;
  (void)buf;
  if (c->responding) return;
  if (nread < 0) {
    conn_close(c);
    return;
  }
  took(c, (size_t)nread);
}

// Reads what the kernel already holds for c without waiting for the loop to report it
// (libuv has no try-read for TCP; its own reads then see EAGAIN, which they handle). A
// probe's request is usually there by the time it is accepted, or by the time its
// connection would be evicted: answered at once, it never waits in a slot. Returns true
// while c is still waiting for its header.
static bool read_now(http_conn* c) {
  uv_os_fd_t fd;
  if (c->closing || c->responding || uv_fileno((uv_handle_t*)&c->tcp, &fd) != 0)
    return !c->closing && !c->responding;
  ssize_t n;
  do {
    n = recv(fd, c->req + c->len, SV_HTTP_MAX_REQUEST - c->len + 1, MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
    conn_close(c);
  else if (n > 0)
    took(c, (size_t)n);
  return !c->closing && !c->responding;
}

static int from_address(const sv_http* h, uint32_t ip, const http_conn* skip) {
  int n = 0;
  for (const http_conn* c = h->conn_list; c; c = c->next)
    if (c != skip && !c->closing && c->ip == ip) n++;
  return n;
}

static int waiting_from(const sv_http* h, uint32_t ip, const http_conn* skip) {
  int n = 0;
  for (const http_conn* c = h->conn_list; c; c = c->next)
    if (c != skip && !c->closing && !c->responding && c->ip == ip) n++;
  return n;
}

// Room among the connections still waiting for their header, for a newcomer that is
// waiting too (see sv_http.h). When that room is used up, the address holding the most
// waiting connections gives one up: one that has sent nothing before one that has sent
// part of a header, the oldest first; unless the newcomer's own address already holds as
// many: then the newcomer is refused. Before a connection is given up, what it has sent
// is read: a request that is whole by then is answered instead. So one address, or many
// addresses each holding a few, cannot keep a new address (a health probe) out, and a
// probe's connection is never closed for another while its request is in.
static bool admit_waiting(sv_http* h, http_conn* fresh) {
  for (;;) {
    int waiting = 0;
    for (http_conn* c = h->conn_list; c; c = c->next)
      if (c != fresh && !c->closing && !c->responding) waiting++;
    if (waiting < SV_HTTP_MAX_CONNS - SV_HTTP_RESERVED) return true;
    http_conn* victim = NULL;
    int victim_count = 0;
    for (http_conn* c = h->conn_list; c; c = c->next) {
      if (c == fresh || c->closing || c->responding) continue;
      int n = waiting_from(h, c->ip, fresh);
      bool better = n > victim_count;
      if (!better && n == victim_count && victim != NULL) {
        if ((c->len == 0) != (victim->len == 0))
          better = c->len == 0;
        else
          better = c->accepted_ms < victim->accepted_ms;
      }
      if (better) {
        victim = c;
        victim_count = n;
      }
    }
    if (victim == NULL || waiting_from(h, fresh->ip, fresh) >= victim_count) {
      h->refused_full++;
      return false;
    }
    if (read_now(victim)) {
      h->evicted++;
      conn_close(victim);
    }
  }
}

static uint32_t peer_ip(uv_tcp_t* tcp) {
  struct sockaddr_storage ss;
  int len = (int)sizeof ss;
  if (uv_tcp_getpeername(tcp, (struct sockaddr*)&ss, &len) != 0 || ss.ss_family != AF_INET)
    return 0;
  return ((struct sockaddr_in*)&ss)->sin_addr.s_addr;
}

static void on_resume(uv_prepare_t* prepare);

static void on_connection(uv_stream_t* listener, int status) {
  sv_http* h = listener->data;
  if (status < 0) return;
  // Closed connections count in conns until libuv's close callbacks run (end of the loop
  // iteration, after a whole backlog of accepts). At the hard cap the connection is left
  // unaccepted: libuv then stops watching the listener until uv_accept, which on_resume
  // calls once there is room again (usually the next iteration). Refusing it instead
  // would refuse a probe that arrives after a burst of evicted connections.
  // (Out of memory: the same, tried again before the next poll.)
  http_conn* c = NULL;
  if (h->conns >= SV_HTTP_MAX_CONNS + SV_HTTP_MAX_CLOSING || (c = calloc(1, sizeof *c)) == NULL) {
    if (!h->paused) uv_prepare_start(&h->resume, on_resume);
    h->paused = true;
    return;
  }
  c->server = h;
  uv_tcp_init(listener->loop, &c->tcp);
  uv_timer_init(listener->loop, &c->timer);
  c->tcp.data = c;
  c->timer.data = c;
  c->handles_open = 2;
  SV_CONN_LIST_PUSH(h->conn_list, c);
  h->conns++;
  if (uv_accept(listener, (uv_stream_t*)&c->tcp) != 0) {
    conn_close(c);
    return;
  }
  c->ip = peer_ip(&c->tcp);
  c->accepted_ms = uv_now(listener->loop);
  if (from_address(h, c->ip, c) >= SV_HTTP_MAX_PER_ADDRESS) {
    h->refused_per_address++;
    conn_close(c);
    return;
  }
  arm_timer(c);  // also bounds how long an answer may take to be written
  // A request already whole is answered without taking a waiting slot.
  if (!read_now(c)) return;
  if (!admit_waiting(h, c)) {
    conn_close(c);
    return;
  }
  uv_read_start((uv_stream_t*)&c->tcp, on_alloc, on_read);
}

// Runs before each poll while accepting is paused: accepts the connection left waiting,
// which makes libuv watch the listener again.
static void on_resume(uv_prepare_t* prepare) {
  sv_http* h = prepare->data;
  if (h->conns >= SV_HTTP_MAX_CONNS + SV_HTTP_MAX_CLOSING || !h->open) return;
  h->paused = false;
  uv_prepare_stop(&h->resume);
  on_connection((uv_stream_t*)&h->listener, 0);
}

int sv_http_init(sv_http* h, uv_loop_t* loop, const char* bind, int port, sv_http_handler* handler,
                 void* user, char* err, size_t err_cap) {
  memset(h, 0, sizeof *h);
  h->handler = handler;
  h->user = user;
  struct sockaddr_in addr;
  int rc = uv_ip4_addr(bind, port, &addr);
  if (rc != 0) {
    snprintf(err, err_cap, "--http-bind: \"%s\": %s", bind, uv_strerror(rc));
    return -1;
  }
  uv_tcp_init(loop, &h->listener);
  h->listener.data = h;
  uv_prepare_init(loop, &h->resume);
  h->resume.data = h;
  h->open = true;
  rc = uv_tcp_bind(&h->listener, (const struct sockaddr*)&addr, 0);
  // A deep accept queue (the kernel caps it at net.core.somaxconn): under a flood of
  // connections a full queue drops the SYN of a /healthz probe, whose retry comes a whole
  // second later (TCP's first retransmission timeout); with 256 a many-address slowloris
  // at ~20 000 connections/s filled it between two loop turns and probes took 1.02-1.06 s.
  if (rc == 0) rc = uv_listen((uv_stream_t*)&h->listener, SV_HTTP_ACCEPT_BACKLOG, on_connection);
  if (rc != 0) {
    snprintf(err, err_cap, "cannot listen on TCP %s:%d: %s", bind, port, uv_strerror(rc));
    sv_http_close(h);
    return -1;
  }
  h->port = sv_tcp_bound_port(&h->listener);
  return 0;
}

void sv_http_close(sv_http* h) {
  if (h->open && !uv_is_closing((uv_handle_t*)&h->listener)) {
    uv_close((uv_handle_t*)&h->listener, NULL);
    uv_close((uv_handle_t*)&h->resume, NULL);
  }
  h->open = false;
  // A slow client must not hold the shutdown for its header timeout.
  for (http_conn* c = h->conn_list; c; c = c->next) conn_close(c);
}

// ---- the web page's static files (see sv_http.h) ---------------------------------------

const char* sv_http_mime_type(const char* name) {
  static const struct {
    const char* ext;
    const char* type;
  } types[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".wasm", "application/wasm"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".ts", "text/plain; charset=utf-8"},
      {".txt", "text/plain; charset=utf-8"},
      {".md", "text/plain; charset=utf-8"},
      {".png", "image/png"},
      {".svg", "image/svg+xml"},
      {".ico", "image/x-icon"},
  };
  const char* dot = strrchr(name, '.');
  const char* slash = strrchr(name, '/');
  if (dot && (!slash || dot > slash)) {
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
      if (strcasecmp(dot, types[i].ext) == 0) return types[i].type;
  }
  return "application/octet-stream";
}

// Every segment: [A-Za-z0-9._-]+, not starting with '.' or '-'; no empty segment but a
// trailing one (a directory: its index.html).
static bool safe_path(const char* path) {
  if (path[0] != '/') return false;
  const char* seg = path + 1;
  for (const char* p = seg;; p++) {
    char ch = *p;
    if (ch == '/' || ch == '\0') {
      if (p == seg) return ch == '\0';  // "//" is refused; a trailing '/' is a directory
      if (seg[0] == '.' || seg[0] == '-') return false;
      if (ch == '\0') return true;
      seg = p + 1;
      continue;
    }
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-';
    if (!ok) return false;
  }
}

int sv_http_static_path(const char* root, const char* path, char* out, size_t out_cap) {
  if (!root[0] || !safe_path(path)) return 404;
  char joined[PATH_MAX];
  size_t n = strlen(path);
  int len =
      snprintf(joined, sizeof joined, "%s%s%s", root, path, path[n - 1] == '/' ? "index.html" : "");
  if (len < 0 || (size_t)len >= sizeof joined) return 404;
  char resolved[PATH_MAX];
  if (!realpath(joined, resolved)) return 404;
  size_t rl = strlen(root);
  // Below the root even after symbolic links are followed.
  if (strncmp(resolved, root, rl) != 0 || resolved[rl] != '/') return 404;
  struct stat st;
  if (stat(resolved, &st) != 0 || !S_ISREG(st.st_mode)) return 404;
  if (strlen(resolved) >= out_cap) return 404;
  memcpy(out, resolved, strlen(resolved) + 1);
  return 0;
}

// Whole file into body (SV_HTTP_MAX_STATIC bytes of room): its length, or -1.
static long read_file(const char* path, char* body) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  struct stat st;
  long total = -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= SV_HTTP_MAX_STATIC) {
    total = 0;
    while (total < (long)st.st_size) {
      ssize_t r = read(fd, body + total, (size_t)st.st_size - (size_t)total);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        total = -1;
        break;
      }
      total += (long)r;
    }
  }
  close(fd);
  return total;
}

// The server's own paths are never files.
static bool own_path(const char* path) {
  return strcmp(path, "/healthz") == 0 || strcmp(path, "/metrics") == 0 ||
         strcmp(path, "/admin") == 0 || strncmp(path, "/admin/", 7) == 0;
}

// Answers a GET or HEAD for the page's files; false: not one (the handler answers).
static bool serve_web(http_conn* c, const sv_http_request* req, char* body) {
  sv_http* h = c->server;
  if (!h->web_root[0] || strcmp(req->method, "POST") == 0 || own_path(req->path)) return false;
  static const char nosniff[] = "X-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\n";
  h->requests++;
  if (strcmp(req->path, "/config.json") == 0) {
    int n = snprintf(body, SV_HTTP_MAX_BODY, "{\"wsPort\":%d,\"wsPath\":\"/\"}\n", h->ws_port);
    respond(c, 200, "application/json", body, (size_t)n, req->head, nosniff);
    return true;
  }
  char file[PATH_MAX];
  long len = -1;
  if (sv_http_static_path(h->web_root, req->path, file, sizeof file) == 0)
    len = read_file(file, body);
  if (len < 0) {
    static const char nf[] = "not found\n";
    respond(c, 404, "text/plain; charset=utf-8", nf, sizeof nf - 1, req->head, nosniff);
    return true;
  }
  h->web_files++;
  respond(c, 200, sv_http_mime_type(file), body, (size_t)len, req->head, nosniff);
  return true;
}

// A directory holding index.html, resolved into out (PATH_MAX bytes); false otherwise.
static bool web_dir(const char* dir, char* out) {
  char index[PATH_MAX];
  struct stat st;
  if (!realpath(dir, out)) return false;
  if (snprintf(index, sizeof index, "%s/index.html", out) >= (int)sizeof index) return false;
  return stat(index, &st) == 0 && S_ISREG(st.st_mode);
}

int sv_http_start_web(sv_http* h, const char* root, int ws_port, const char* bind, sv_log* log,
                      char* err, size_t err_cap) {
  h->ws_port = ws_port > 0 ? ws_port : 0;
  h->web_root[0] = '\0';
  if (root && root[0]) {
    struct stat st;
    if (!realpath(root, h->web_root) || stat(h->web_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
      h->web_root[0] = '\0';
      snprintf(err, err_cap, "--web-root: \"%s\" is not a directory", root);
      return -1;
    }
    if (strcmp(h->web_root, "/") == 0) {
      h->web_root[0] = '\0';
      snprintf(err, err_cap, "--web-root: \"%s\" is the whole file system", root);
      return -1;
    }
  } else {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
      exe[n] = '\0';
      char* slash = strrchr(exe, '/');
      if (slash) *slash = '\0';
      static const char* const rel[] = {"/../share/arbiter/web"};
      char dir[PATH_MAX];
      for (size_t i = 0; i < sizeof rel / sizeof rel[0] && !h->web_root[0]; i++) {
        if (snprintf(dir, sizeof dir, "%s%s", exe, rel[i]) < (int)sizeof dir &&
            !web_dir(dir, h->web_root))
          h->web_root[0] = '\0';
      }
    }
  }
  if (!h->web_root[0]) {
    SV_LOG(log, SV_LOG_INFO, "web_page_off",
           SV_LS("detail", "no web page bundle found next to the executable (--web-root DIR)"));
    return 0;
  }
  char url[128];
  const char* host = strcmp(bind, "0.0.0.0") == 0 ? "127.0.0.1" : bind;
  snprintf(url, sizeof url, "http://%s:%d/", host, h->port);
  if (h->ws_port > 0)
    SV_LOG(log, SV_LOG_INFO, "web_page", SV_LS("url", url), SV_LS("root", h->web_root),
           SV_LI("ws_port", h->ws_port));
  else
    SV_LOG(log, SV_LOG_INFO, "web_page", SV_LS("url", url), SV_LS("root", h->web_root),
           SV_LS("detail", "replay only: no --ws-port, so the page cannot play"));
  return 0;
}
