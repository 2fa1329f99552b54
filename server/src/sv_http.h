// A deliberately tiny HTTP/1.x responder on libuv TCP for /healthz and /metrics, and the
// web page's static files (sv_http_start_web; docs/WEB.md).
//
// One request per connection (Connection: close). GET and HEAD, and POST for the operator
// endpoints (a request body is not read); the handler decides status and body. Built to keep
// answering /healthz while someone holds connections open (slowloris) — docs/SECURITY.md:
// - a request header larger than SV_HTTP_MAX_REQUEST bytes gets 431;
// - a connection is closed when its whole header has not arrived within
//   SV_HTTP_HEADER_TIMEOUT_MS, or when it sends nothing for SV_HTTP_IDLE_TIMEOUT_MS;
// - one IP address holds at most SV_HTTP_MAX_PER_ADDRESS connections (more are closed);
// - what a connection has sent is read as soon as it is accepted: a whole request (a
//   probe's usually is) is answered at once and never waits for a slot;
// - at most SV_HTTP_MAX_CONNS are open; connections still waiting for their header may
//   use all but SV_HTTP_RESERVED of them (so an answer always has a slot). When those are
//   used up, a new connection from an address holding fewer waiting connections than
//   the busiest address takes the place of one of that address's (one that has sent
//   nothing first, then the oldest; read once more first, and answered instead if its
//   request is whole by then); otherwise it is refused. A health probe from an address
//   that holds nothing always gets in, and is answered rather than evicted once its
//   request has arrived;
// - closed connections are freed at the end of a loop iteration; while more than
//   SV_HTTP_MAX_CLOSING wait for that, the next connection waits in the kernel's backlog
//   (for the next iteration) instead of being refused.
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "sv_log.h"

#define SV_HTTP_MAX_REQUEST 2048
#define SV_HTTP_HEADER_TIMEOUT_MS 2000
#define SV_HTTP_IDLE_TIMEOUT_MS 1000
#define SV_HTTP_MAX_CONNS 64
#define SV_HTTP_RESERVED 4
#define SV_HTTP_MAX_PER_ADDRESS 8
// Connections closed but not yet freed (libuv frees them at the end of a loop iteration):
// beyond this many, accepting waits for the next iteration.
#define SV_HTTP_MAX_CLOSING 256
/// Connections the kernel may hold accepted but not yet taken by the loop (uv_listen).
#define SV_HTTP_ACCEPT_BACKLOG 4096
// Room for GET /admin/sessions at the largest peer count (4095 sessions of up to ~510
// bytes each: escaped names, a view box); allocated per request, touched only as written.
#define SV_HTTP_MAX_BODY (4 * 1024 * 1024)

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
  char path[512];                        ///< query string removed
  char query[512];                       ///< what followed '?' in the target, "" if nothing
  bool head;                             ///< HEAD: answer without a body
  char authorization[SV_HTTP_MAX_AUTH];  ///< the Authorization header's value, "" if absent or too
                                         ///< long
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
  int port;                     ///< bound TCP port
  int conns;                    ///< open connections, closing ones included
  uv_prepare_t resume;          ///< started while accepting is paused at the hard cap
  bool paused;                  ///< a connection is left unaccepted until there is room
  struct http_conn* conn_list;  ///< the open connections (internal)
  sv_http_handler* handler;
  void* user;
  unsigned long long requests;
  unsigned long long refused_per_address;  ///< connections closed at once: address at its cap
  unsigned long long evicted;              ///< waiting connections closed to make room
  unsigned long long refused_full;  ///< new connections refused: no room, own address busiest
  unsigned long long timed_out;     ///< closed by the header or idle timeout
  char web_root[PATH_MAX];          ///< the page's files (resolved, no trailing '/'); "" = none
  int ws_port;                      ///< WebSocket port told to the page (/config.json); 0 = none
  unsigned long long web_files;     ///< static files served
} sv_http;

/// Listen on bind:port (port 0 = any free port). Returns 0 or -1 with a message in err.
int sv_http_init(sv_http* h, uv_loop_t* loop, const char* bind, int port, sv_http_handler* handler,
                 void* user, char* err, size_t err_cap);
/// Stop listening and close every open connection; the loop must run until they are closed.
void sv_http_close(sv_http* h);

// ---- the web page's static files (docs/WEB.md) ------------------------------------------
//
// GET and HEAD only, for any path that is not one of the server's own (/healthz, /metrics,
// /admin/...): "/" is index.html, "/config.json" tells the page the WebSocket port, and
// anything else is a regular file below the web root. A path is refused (404) unless
// every segment is made of letters, digits, '-', '_' and '.' and starts with neither '.'
// nor '-' ("..", hidden files and percent-escapes never reach the file system); the file's
// resolved path (symbolic links followed) must still lie below the root. Files are read
// whole, at most SV_HTTP_MAX_STATIC bytes (larger: 404), never written.

#define SV_HTTP_MAX_STATIC SV_HTTP_MAX_BODY

/// Serve the page from `root` ("" = the default: <dir of the executable>/../share/arbiter/
/// web, where both a build tree and an install keep the bundle; none there: no page,
/// logged at info). ws_port > 0: the page connects there, and its URL is logged.
/// Returns 0, or -1 with a message in err when an explicit root is not a directory.
int sv_http_start_web(sv_http* h, const char* root, int ws_port, const char* bind, sv_log* log,
                      char* err, size_t err_cap);

/// The reason phrase of an HTTP status the server answers with (this listener and the
/// WebSocket handshake); "Internal Server Error" for one it never sends.
const char* sv_http_reason_phrase(int status);

/// The content type served for a file name (by its extension).
const char* sv_http_mime_type(const char* name);

/// Map a request path onto a file below root (resolved, as sv_http_start_web keeps it):
/// 0 and the file's resolved path in out, or 404 when the path is refused or names no
/// regular file there.
int sv_http_static_path(const char* root, const char* path, char* out, size_t out_cap);
