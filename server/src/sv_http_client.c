// HTTP/1.1 client: response parser + one libuv TCP connection per request (see sv_http_client.h).
#include "sv_http_client.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// ---- response parser ---------------------------------------------------------------------

int sv_httpc_response_init(sv_httpc_response* r, sv_httpc_line_fn* on_line, void* user) {
  memset(r, 0, sizeof *r);
  r->content_length = -1;
  r->on_line = on_line;
  r->user = user;
  r->body = malloc(SV_HTTPC_MAX_BODY + 1);
  if (r->body == NULL) return -1;
  r->body[0] = '\0';
  return 0;
}

void sv_httpc_response_free(sv_httpc_response* r) {
  free(r->body);
  r->body = NULL;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
fail(sv_httpc_response* r, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->error, sizeof r->error, fmt, ap);
  va_end(ap);
  r->state = SV_HTTPC_ERROR;
  return -1;
}

// Body bytes: appended to the body, or split into lines for a streaming request.
static int body_bytes(sv_httpc_response* r, const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (r->on_line && p[i] == '\n') {
      size_t len = r->body_len;
      if (len > 0 && r->body[len - 1] == '\r') --len;
      r->body[len] = '\0';
      r->on_line(r->user, r->body, len);
      r->body_len = 0;
      continue;
    }
    if (r->body_len >= SV_HTTPC_MAX_BODY)
      return fail(
          r,
          r->on_line ? "a streamed line is longer than %d bytes" : "body is longer than %d bytes",
          SV_HTTPC_MAX_BODY);
    r->body[r->body_len++] = p[i];
  }
  r->body[r->body_len] = '\0';
  return 0;
}

static int parse_status_line(sv_httpc_response* r, const char* line) {
  // HTTP/1.x SP 3DIGIT SP reason (the reason may be empty).
  if (strncmp(line, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)line[7]) || line[8] != ' ')
    return fail(r, "not an HTTP/1.x status line");
  const char* d = line + 9;
  if (!isdigit((unsigned char)d[0]) || !isdigit((unsigned char)d[1]) ||
      !isdigit((unsigned char)d[2]) || (d[3] != ' ' && d[3] != '\0'))
    return fail(r, "bad status code");
  r->status = (d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0');
  if (r->status < 100) return fail(r, "status code %d out of range", r->status);
  r->state = SV_HTTPC_HEADERS;
  return 0;
}

static bool is_token_value(const char* v, const char* token) {
  while (*v == ' ' || *v == '\t') ++v;
  size_t n = strlen(token);
  if (strncasecmp(v, token, n) != 0) return false;
  v += n;
  while (*v == ' ' || *v == '\t') ++v;
  return *v == '\0';
}

// The end of the header block decides how the body is framed (RFC 9112 section 6.3).
static int headers_done(sv_httpc_response* r) {
  if (r->status / 100 == 1) return fail(r, "1xx responses are not supported");
  if (r->status == 204 || r->status == 304) {
    r->state = SV_HTTPC_DONE;
    return 1;
  }
  if (r->chunked) {
    r->state = SV_HTTPC_CHUNK_SIZE;
  } else if (r->content_length >= 0) {
    if ((uint64_t)r->content_length > SV_HTTPC_MAX_BODY && r->on_line == NULL)
      return fail(r, "Content-Length %lld is over the %d-byte limit", (long long)r->content_length,
                  SV_HTTPC_MAX_BODY);
    r->remaining = (uint64_t)r->content_length;
    r->state = r->remaining == 0 ? SV_HTTPC_DONE : SV_HTTPC_BODY_LENGTH;
  } else {
    r->state = SV_HTTPC_BODY_EOF;
  }
  return r->state == SV_HTTPC_DONE ? 1 : 0;
}

static int parse_header(sv_httpc_response* r, char* line) {
  if (line[0] == '\0') return headers_done(r);
  char* colon = strchr(line, ':');
  if (colon == NULL || colon == line) return fail(r, "header line without a name");
  *colon = '\0';
  const char* value = colon + 1;
  if (strcasecmp(line, "Content-Length") == 0) {
    while (*value == ' ' || *value == '\t') ++value;
    char* end = NULL;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    while (end && (*end == ' ' || *end == '\t')) ++end;
    if (!isdigit((unsigned char)*value) || errno != 0 || end == NULL || *end != '\0' || v < 0)
      return fail(r, "bad Content-Length");
    if (r->content_length >= 0 && r->content_length != v)
      return fail(r, "conflicting Content-Length headers");
    r->content_length = v;
  } else if (strcasecmp(line, "Transfer-Encoding") == 0) {
    if (!is_token_value(value, "chunked")) return fail(r, "unsupported Transfer-Encoding");
    r->chunked = true;
  }
  return 0;
}

static int parse_chunk_size(sv_httpc_response* r, const char* line) {
  uint64_t v = 0;
  int digits = 0;
  const char* p = line;
  for (; isxdigit((unsigned char)*p); ++p, ++digits) {
    if (digits >= 8) return fail(r, "chunk size too large");
    int d = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
    v = v * 16 + (uint64_t)d;
  }
  if (digits == 0 || (*p != '\0' && *p != ';' && *p != ' ' && *p != '\t'))
    return fail(r, "bad chunk size line");
  r->remaining = v;
  r->state = v == 0 ? SV_HTTPC_TRAILERS : SV_HTTPC_CHUNK_DATA;
  return 0;
}

// One complete CRLF- (or LF-) terminated line in a line-oriented state.
static int on_line(sv_httpc_response* r) {
  if (r->line_len > 0 && r->line[r->line_len - 1] == '\r') r->line_len--;
  r->line[r->line_len] = '\0';
  r->line_len = 0;
  for (const char* p = r->line; *p; ++p)
    if ((unsigned char)*p < 0x20 && *p != '\t')
      return fail(r, "control character in a header line");
  switch (r->state) {
    case SV_HTTPC_STATUS:
      return parse_status_line(r, r->line);
    case SV_HTTPC_HEADERS:
      return parse_header(r, r->line);
    case SV_HTTPC_CHUNK_SIZE:
      return parse_chunk_size(r, r->line);
    case SV_HTTPC_CHUNK_END:
      if (r->line[0] != '\0') return fail(r, "chunk data longer than its size");
      r->state = SV_HTTPC_CHUNK_SIZE;
      return 0;
    case SV_HTTPC_TRAILERS:
      if (r->line[0] == '\0') {
        // A streamed body's last line may lack its newline.
        if (r->on_line && r->body_len > 0) body_bytes(r, "\n", 1);
        r->state = SV_HTTPC_DONE;
        return 1;
      }
      return 0;
    default:
      return fail(r, "internal: line in state %d", (int)r->state);
  }
}

static bool line_state(sv_httpc_parse_state s) {
  return s == SV_HTTPC_STATUS || s == SV_HTTPC_HEADERS || s == SV_HTTPC_CHUNK_SIZE ||
         s == SV_HTTPC_CHUNK_END || s == SV_HTTPC_TRAILERS;
}

int sv_httpc_response_feed(sv_httpc_response* r, const char* data, size_t len) {
  size_t i = 0;
  while (i < len) {
    if (r->state == SV_HTTPC_DONE) return 1;
    if (r->state == SV_HTTPC_ERROR) return -1;
    if (line_state(r->state)) {
      char c = data[i++];
      if (r->state == SV_HTTPC_STATUS || r->state == SV_HTTPC_HEADERS) {
        if (++r->header_bytes > SV_HTTPC_MAX_HEADER_BYTES)
          return fail(r, "response header is longer than %d bytes", SV_HTTPC_MAX_HEADER_BYTES);
      }
      if (c == '\n') {
        int rc = on_line(r);
        if (rc != 0) return rc;
        continue;
      }
      if (c == '\0') return fail(r, "NUL byte in a header line");
      if (r->line_len >= SV_HTTPC_MAX_LINE)
        return fail(r, "a header line is longer than %d bytes", SV_HTTPC_MAX_LINE);
      r->line[r->line_len++] = c;
      continue;
    }
    size_t n = len - i;
    if (r->state != SV_HTTPC_BODY_EOF && n > r->remaining) n = (size_t)r->remaining;
    if (body_bytes(r, data + i, n) != 0) return -1;
    i += n;
    if (r->state == SV_HTTPC_BODY_EOF) continue;
    r->remaining -= n;
    if (r->remaining == 0) {
      if (r->state == SV_HTTPC_CHUNK_DATA) {
        r->state = SV_HTTPC_CHUNK_END;
      } else {
        if (r->on_line && r->body_len > 0) body_bytes(r, "\n", 1);
        r->state = SV_HTTPC_DONE;
      }
    }
  }
  return r->state == SV_HTTPC_DONE ? 1 : (r->state == SV_HTTPC_ERROR ? -1 : 0);
}

int sv_httpc_response_eof(sv_httpc_response* r) {
  if (r->state == SV_HTTPC_DONE) return 1;
  if (r->state == SV_HTTPC_BODY_EOF) {
    if (r->on_line && r->body_len > 0) body_bytes(r, "\n", 1);
    r->state = SV_HTTPC_DONE;
    return 1;
  }
  if (r->state != SV_HTTPC_ERROR) fail(r, "connection closed before the response was complete");
  return -1;
}

// ---- one request on its own connection -----------------------------------------------------

struct sv_httpc {
  uv_tcp_t tcp;
  uv_timer_t timer;
  uv_connect_t connect_req;
  uv_write_t write_req;
  int handles_open;  ///< freed when both handles are closed
  bool finished;     ///< on_done called (or cancelled)
  sv_httpc_done_fn* on_done;
  void* user;
  uint32_t timeout_ms;
  sv_httpc_response resp;
  char* out;  ///< the request bytes
  char in[4096];
};

static void on_closed(uv_handle_t* h) {
  sv_httpc* c = h->data;
  if (--c->handles_open == 0) {
    sv_httpc_response_free(&c->resp);
    free(c->out);
    free(c);
  }
}

static void close_all(sv_httpc* c) {
  if (!uv_is_closing((uv_handle_t*)&c->tcp)) uv_close((uv_handle_t*)&c->tcp, on_closed);
  if (!uv_is_closing((uv_handle_t*)&c->timer)) uv_close((uv_handle_t*)&c->timer, on_closed);
}

static void finish(sv_httpc* c, int status) {
  if (c->finished) return;
  c->finished = true;
  uv_read_stop((uv_stream_t*)&c->tcp);
  uv_timer_stop(&c->timer);
  if (c->on_done) {
    bool ok = status >= 100 && c->resp.on_line == NULL;
    c->on_done(c->user, status, ok ? c->resp.body : "", ok ? c->resp.body_len : 0);
  }
  close_all(c);
}

static void on_timeout(uv_timer_t* t) {
  finish(t->data, UV_ETIMEDOUT);
}

static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf) {
  sv_httpc* c = h->data;
  (void)suggested;
  *buf = uv_buf_init(c->in, sizeof c->in);
}

static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
  sv_httpc* c = s->data;
  if (c->finished) return;
  int rc = 0;
  if (nread > 0)
    rc = sv_httpc_response_feed(&c->resp, buf->base, (size_t)nread);
  else if (nread == UV_EOF)
    rc = sv_httpc_response_eof(&c->resp);
  else if (nread < 0) {
    finish(c, (int)nread);
    return;
  }
  if (rc == 1)
    finish(c, c->resp.status);
  else if (rc < 0)
    finish(c, UV_EPROTO);
}

static void on_written(uv_write_t* w, int status) {
  sv_httpc* c = w->data;
  if (status < 0) finish(c, status);
}

static void on_connected(uv_connect_t* req, int status) {
  sv_httpc* c = req->data;
  if (c->finished) return;
  if (status < 0) {
    finish(c, status);
    return;
  }
  uv_buf_t buf = uv_buf_init(c->out, (unsigned)strlen(c->out));
  c->write_req.data = c;
  int rc = uv_write(&c->write_req, (uv_stream_t*)&c->tcp, &buf, 1, on_written);
  if (rc == 0) rc = uv_read_start((uv_stream_t*)&c->tcp, on_alloc, on_read);
  if (rc != 0) finish(c, rc);
}

sv_httpc* sv_httpc_start(uv_loop_t* loop, const sv_httpc_request* req) {
  if (req->port <= 0 || req->port > 65535 || req->method == NULL || req->path == NULL) return NULL;
  sv_httpc* c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  size_t body_len = req->body ? strlen(req->body) : 0;
  size_t cap = strlen(req->method) + strlen(req->path) + body_len + 256 +
               (req->host ? strlen(req->host) : 0);
  c->out = malloc(cap);
  if (c->out == NULL || sv_httpc_response_init(&c->resp, req->on_line, req->user) != 0) {
    free(c->out);
    sv_httpc_response_free(&c->resp);
    free(c);
    return NULL;
  }
  snprintf(c->out, cap,
           "%s %s HTTP/1.1\r\nHost: %s:%d\r\nAccept: application/json\r\n"
           "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
           req->method, req->path, req->host ? req->host : "localhost", req->port, body_len,
           req->body ? req->body : "");
  c->on_done = req->on_done;
  c->user = req->user;
  c->timeout_ms = req->timeout_ms;
  uv_tcp_init(loop, &c->tcp);
  uv_timer_init(loop, &c->timer);
  c->tcp.data = c->timer.data = c->connect_req.data = c;
  c->handles_open = 2;
  struct sockaddr_in addr;
  int rc = uv_ip4_addr(req->host ? req->host : "127.0.0.1", req->port, &addr);
  if (rc == 0)
    rc = uv_tcp_connect(&c->connect_req, &c->tcp, (const struct sockaddr*)&addr, on_connected);
  if (rc != 0) {
    c->finished = true;
    close_all(c);
    return NULL;
  }
  if (req->timeout_ms > 0) uv_timer_start(&c->timer, on_timeout, req->timeout_ms, 0);
  return c;
}

void sv_httpc_cancel(sv_httpc* c) {
  if (c == NULL) return;
  c->finished = true;
  uv_read_stop((uv_stream_t*)&c->tcp);
  uv_timer_stop(&c->timer);
  close_all(c);
}

int sv_httpc_parse_url(const char* url, char* host, size_t host_cap, int* port, char* path,
                       size_t path_cap, char* err, size_t err_cap) {
  static const char scheme[] = "http://";
  if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
    snprintf(err, err_cap, "'%s' is not an http:// URL", url);
    return -1;
  }
  const char* h = url + sizeof scheme - 1;
  size_t hl = strcspn(h, ":/");
  if (hl == 0 || hl >= host_cap || memchr(h, '@', strcspn(h, "/")) != NULL) {
    snprintf(err, err_cap, "'%s': no host, a host too long, or user info", url);
    return -1;
  }
  for (size_t i = 0; i < hl; ++i)
    if (!isalnum((unsigned char)h[i]) && h[i] != '-' && h[i] != '.') {
      snprintf(err, err_cap, "'%s': the host is not a name or an IPv4 address", url);
      return -1;
    }
  memcpy(host, h, hl);
  host[hl] = '\0';
  const char* p = h + hl;
  *port = 80;
  if (*p == ':') {
    char* end = NULL;
    long v = strtol(p + 1, &end, 10);
    if (end == p + 1 || v < 1 || v > 65535 || (*end != '\0' && *end != '/')) {
      snprintf(err, err_cap, "'%s': the port is not in [1, 65535]", url);
      return -1;
    }
    *port = (int)v;
    p = end;
  }
  const char* rest = *p ? p : "/";
  if (strlen(rest) >= path_cap) {
    snprintf(err, err_cap, "'%s': the path is too long", url);
    return -1;
  }
  for (const char* q = rest; *q; ++q)
    if ((unsigned char)*q <= ' ' || *q == 0x7f) {
      snprintf(err, err_cap, "'%s': a space or control character in the path", url);
      return -1;
    }
  snprintf(path, path_cap, "%s", rest);
  return 0;
}
