// WebSocket upgrade request parsing and the handshake responses (see sv_ws_handshake.h).
#include "sv_ws_handshake.h"

#include <nettle/base64.h>
#include <nettle/sha1.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sv_http.h"

#define SV_WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

static int refuse(sv_ws_request* req, int status, const char* why) {
  req->why = why;
  return -status;
}

// The end of the head (the index after "\r\n\r\n"), or 0 when it is not in buf[0, len).
static size_t head_end(const char* buf, size_t len) {
  for (size_t i = 3; i < len; ++i)
    if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r')
      return i + 1;
  return 0;
}

// True when the comma-separated list v[0, n) holds `token` (case-insensitive, blanks
// around items ignored).
static bool list_has(const char* v, size_t n, const char* token) {
  size_t tl = strlen(token);
  size_t i = 0;
  while (i < n) {
    while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) ++i;
    size_t start = i;
    while (i < n && v[i] != ',') ++i;
    size_t end = i;
    while (end > start && (v[end - 1] == ' ' || v[end - 1] == '\t')) --end;
    if (end - start == tl && strncasecmp(v + start, token, tl) == 0) return true;
  }
  return false;
}

static bool name_is(const char* name, size_t n, const char* want) {
  return strlen(want) == n && strncasecmp(name, want, n) == 0;
}

// A key is base64 of exactly 16 bytes: 22 characters of the alphabet and "==".
static bool key_valid(const char* v, size_t n) {
  if (n != 24 || v[22] != '=' || v[23] != '=') return false;
  struct base64_decode_ctx ctx;
  base64_decode_init(&ctx);
  uint8_t raw[BASE64_DECODE_LENGTH(24)];
  size_t raw_len = sizeof raw;
  if (!base64_decode_update(&ctx, &raw_len, raw, 24, v) || !base64_decode_final(&ctx)) return false;
  return raw_len == 16;
}

typedef struct seen {
  bool upgrade, connection, key, version_13;
  int versions, keys;
} seen;

// One header line (without its CRLF). Returns 0, or a status for a malformed line.
static int header(sv_ws_request* req, seen* h, const char* line, size_t n) {
  const char* colon = memchr(line, ':', n);
  if (colon == NULL || colon == line) return refuse(req, 400, "header line without a name");
  if (line[0] == ' ' || line[0] == '\t') return refuse(req, 400, "folded header line");
  size_t name_len = (size_t)(colon - line);
  for (size_t i = 0; i < name_len; ++i)
    if (line[i] <= ' ' || line[i] >= 127) return refuse(req, 400, "bad header name");
  const char* v = colon + 1;
  size_t vn = n - name_len - 1;
  while (vn > 0 && (*v == ' ' || *v == '\t')) ++v, --vn;
  while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t')) --vn;
  if (name_is(line, name_len, "Upgrade")) {
    h->upgrade = h->upgrade || list_has(v, vn, "websocket");
  } else if (name_is(line, name_len, "Connection")) {
    h->connection = h->connection || list_has(v, vn, "upgrade");
  } else if (name_is(line, name_len, "Sec-WebSocket-Key")) {
    h->keys++;
    if (key_valid(v, vn)) {
      memcpy(req->key, v, 24);
      req->key[24] = '\0';
      h->key = true;
    }
  } else if (name_is(line, name_len, "Sec-WebSocket-Version")) {
    h->versions++;
    h->version_13 = vn == 2 && memcmp(v, "13", 2) == 0;
  } else if (name_is(line, name_len, "Origin")) {
    if (req->has_origin) return refuse(req, 400, "more than one Origin header");
    req->has_origin = true;
    if (vn < sizeof req->origin) {
      memcpy(req->origin, v, vn);
      req->origin[vn] = '\0';
    }
  } else if (name_is(line, name_len, "Sec-WebSocket-Protocol")) {
    req->offers_arbiter = req->offers_arbiter || list_has(v, vn, "arbiter");
  }
  return 0;
}

int sv_ws_parse_request(const char* buf, size_t len, sv_ws_request* req) {
  memset(req, 0, sizeof *req);
  size_t scan = len < SV_WS_MAX_HEAD ? len : SV_WS_MAX_HEAD;
  size_t end = head_end(buf, scan);
  if (end == 0) return len >= SV_WS_MAX_HEAD ? refuse(req, 431, "request head over 8192 bytes") : 0;
  if (memchr(buf, '\0', end) != NULL) return refuse(req, 400, "NUL byte in the request head");
  // Request line: GET <target> HTTP/1.1
  const char* line_end = memchr(buf, '\r', end);
  size_t n = (size_t)(line_end - buf);
  const char* sp1 = memchr(buf, ' ', n);
  if (sp1 == NULL || sp1 - buf != 3 || memcmp(buf, "GET", 3) != 0)
    return refuse(req, 400, "method is not GET");
  const char* target = sp1 + 1;
  const char* sp2 = memchr(target, ' ', (size_t)(line_end - target));
  if (sp2 == NULL || sp2 == target || target[0] != '/')
    return refuse(req, 400, "bad request target");
  if ((size_t)(line_end - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.1", 8) != 0)
    return refuse(req, 400, "version is not HTTP/1.1");
  seen h;
  memset(&h, 0, sizeof h);
  const char* p = line_end + 2;
  while ((size_t)(p - buf) < end - 2) {  // up to the blank line
    const char* e = memchr(p, '\r', end - (size_t)(p - buf));
    if (e == NULL || e[1] != '\n') return refuse(req, 400, "header line not ended by CRLF");
    if (memchr(p, '\n', (size_t)(e - p)) != NULL) return refuse(req, 400, "bare LF in a header");
    int rc = header(req, &h, p, (size_t)(e - p));
    if (rc != 0) return rc;  // already negative
    p = e + 2;
  }
  if (!h.upgrade) return refuse(req, 400, "no Upgrade: websocket");
  if (!h.connection) return refuse(req, 400, "Connection does not contain upgrade");
  if (h.versions == 0) return refuse(req, 400, "no Sec-WebSocket-Version");
  if (h.versions > 1 || !h.version_13) return refuse(req, 426, "Sec-WebSocket-Version is not 13");
  if (h.keys != 1 || !h.key) return refuse(req, 400, "Sec-WebSocket-Key missing or not 16 bytes");
  return (int)end;
}

void sv_ws_accept_key(const char* key, char out[SV_WS_ACCEPT_LEN + 1]) {
  struct sha1_ctx ctx;
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_init(&ctx);
  sha1_update(&ctx, strlen(key), (const uint8_t*)key);
  sha1_update(&ctx, strlen(SV_WS_GUID), (const uint8_t*)SV_WS_GUID);
  sha1_digest(&ctx, sizeof digest, digest);
  base64_encode_raw(out, sizeof digest, digest);  // exactly 28 characters, no NUL
  out[SV_WS_ACCEPT_LEN] = '\0';
}

int sv_ws_response_101(const sv_ws_request* req, char* buf, size_t cap) {
  char accept[SV_WS_ACCEPT_LEN + 1];
  sv_ws_accept_key(req->key, accept);
  int n = snprintf(buf, cap,
                   "HTTP/1.1 101 Switching Protocols\r\n"
                   "Upgrade: websocket\r\n"
                   "Connection: Upgrade\r\n"
                   "Sec-WebSocket-Accept: %s\r\n"
                   "%s"
                   "\r\n",
                   accept, req->offers_arbiter ? "Sec-WebSocket-Protocol: arbiter\r\n" : "");
  return n > 0 && (size_t)n < cap ? n : -1;
}

int sv_ws_response_error(int status, const char* why, char* buf, size_t cap) {
  int n = snprintf(buf, cap,
                   "HTTP/1.1 %d %s\r\n"
                   "Content-Type: text/plain; charset=utf-8\r\n"
                   "Content-Length: %zu\r\n"
                   "%s"
                   "Connection: close\r\n"
                   "\r\n"
                   "%s\n",
                   status, sv_http_reason_phrase(status), strlen(why) + 1,
                   status == 426 ? "Sec-WebSocket-Version: 13\r\n" : "", why);
  return n > 0 && (size_t)n < cap ? n : -1;
}
