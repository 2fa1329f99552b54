// A deliberately tiny HTTP/1.x responder on libuv TCP for /healthz and /metrics.
//
// One request per connection (Connection: close). Requests are cut off when the header
// exceeds SV_HTTP_MAX_REQUEST bytes (431) or does not arrive within SV_HTTP_TIMEOUT_MS
// (connection closed); at most SV_HTTP_MAX_CONNS connections are open at once (more are
// closed on accept). GET and HEAD, and POST for the operator endpoints (a request body is
// not read); the handler decides status and body.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#define SV_HTTP_MAX_REQUEST 2048
#define SV_HTTP_TIMEOUT_MS 2000
#define SV_HTTP_MAX_CONNS 32
#define SV_HTTP_MAX_BODY (32 * 1024)

typedef struct sv_http_reply {
  int status;                ///< 200, 404, 503, ...
  const char* content_type;  ///< static string
  char* body;                ///< buffer of SV_HTTP_MAX_BODY bytes provided by sv_http
  size_t body_len;
} sv_http_reply;

#define SV_HTTP_MAX_AUTH 512

/// The parts of a request the server uses.
typedef struct sv_http_request {
  char method[8];
  char path[512];  ///< query string removed
  bool head;       ///< HEAD: answer without a body
  char authorization[SV_HTTP_MAX_AUTH];  ///< the Authorization header's value, "" if absent or too long
} sv_http_request;

/// Parse the request line and the headers the server uses from a NUL-terminated request
/// header (untrusted bytes). Returns 0, or the HTTP status to answer with: 400 (not
/// "METHOD TARGET HTTP/1.x"), 405 (not GET/HEAD/POST).
int sv_http_parse_request(const char* header, sv_http_request* out);

/// Fill reply for a request. Runs on the loop thread.
typedef void sv_http_handler(void* user, const sv_http_request* req, sv_http_reply* reply);

typedef struct sv_http {
  uv_tcp_t listener;
  bool open;
  int port;        ///< bound TCP port
  int conns;       ///< open connections
  struct http_conn* conn_list;  ///< the open connections (internal)
  sv_http_handler* handler;
  void* user;
  unsigned long long requests;
} sv_http;

/// Listen on bind:port (port 0 = any free port). Returns 0 or -1 with a message in err.
int sv_http_init(sv_http* h, uv_loop_t* loop, const char* bind, int port, sv_http_handler* handler, void* user,
                 char* err, size_t err_cap);
/// Stop listening and close every open connection; the loop must run until they are closed.
void sv_http_close(sv_http* h);
