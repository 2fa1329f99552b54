// A small HTTP/1.1 client on libuv TCP, for talking to a local sidecar (the Agones SDK
// server on 127.0.0.1) or an IPv4 address given (the --migrate-allocator endpoint). One request per
// connection ("Connection: close"), a deadline per request, and a bounded response parser that
// accepts Content-Length, chunked and close-delimited bodies. A streaming request hands its body
// over line by line (newline delimited JSON, as the Agones watch endpoint sends) instead of
// collecting it.
//
// The parser is separate from the socket so it can be tested and fuzzed on its own: every
// byte the other side sends is untrusted (bounded lines, bounded body, strict framing).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define SV_HTTPC_MAX_LINE 1024          ///< status line, one header line or a chunk-size line
#define SV_HTTPC_MAX_HEADER_BYTES 8192  ///< status line + all headers
#define SV_HTTPC_MAX_BODY (64 * 1024)   ///< a whole body, or one line of a streamed body

/// One line of a streamed body, without its "\n" (and "\r"). Valid during the call only.
typedef void sv_httpc_line_fn(void* user, const char* line, size_t len);

typedef enum sv_httpc_parse_state {
  SV_HTTPC_STATUS = 0,
  SV_HTTPC_HEADERS,
  SV_HTTPC_BODY_LENGTH,  ///< Content-Length body
  SV_HTTPC_BODY_EOF,     ///< body delimited by the connection closing
  SV_HTTPC_CHUNK_SIZE,
  SV_HTTPC_CHUNK_DATA,
  SV_HTTPC_CHUNK_END,  ///< the CRLF after a chunk's data
  SV_HTTPC_TRAILERS,
  SV_HTTPC_DONE,
  SV_HTTPC_ERROR,
} sv_httpc_parse_state;

typedef struct sv_httpc_response {
  sv_httpc_parse_state state;
  int status;  ///< 100..599 once the status line is read
  bool chunked;
  int64_t content_length;  ///< -1 when absent
  uint64_t remaining;      ///< bytes left in the body or the current chunk
  size_t header_bytes;
  char line[SV_HTTPC_MAX_LINE + 1];  ///< the header/chunk-size line being read
  size_t line_len;
  char* body;  ///< SV_HTTPC_MAX_BODY + 1 bytes, NUL-terminated (owned)
  size_t body_len;
  sv_httpc_line_fn* on_line;  ///< NULL: collect the whole body; else stream lines
  void* user;
  char error[128];  ///< why, when state == SV_HTTPC_ERROR
} sv_httpc_response;

/// Returns 0, or -1 when out of memory. on_line may be NULL (collect the body).
int sv_httpc_response_init(sv_httpc_response* r, sv_httpc_line_fn* on_line, void* user);
void sv_httpc_response_free(sv_httpc_response* r);
/// Feed received bytes. Returns 1 when the response is complete, 0 when more is needed,
/// -1 on a protocol error (r->error says why). Bytes after a complete response are ignored.
int sv_httpc_response_feed(sv_httpc_response* r, const char* data, size_t len);
/// The connection closed. Returns 1 if that completes the response (close-delimited body,
/// or already complete), -1 if the response is cut short.
int sv_httpc_response_eof(sv_httpc_response* r);

/// A finished request: status is the HTTP status (>= 100), or a negative libuv error code
/// (UV_ECONNREFUSED, UV_ETIMEDOUT, UV_EPROTO for a malformed response, ...). body is the
/// collected body (empty for streaming requests); valid during the call only.
typedef void sv_httpc_done_fn(void* user, int status, const char* body, size_t len);

typedef struct sv_httpc sv_httpc;  ///< one request in flight (owned by the client module)

typedef struct sv_httpc_request {
  int port;            ///< on `host`
  const char* method;  ///< "GET", "POST", "PUT"
  const char* path;
  const char* body;           ///< JSON, or NULL for none
  uint32_t timeout_ms;        ///< whole request; 0 = none (long-lived streams)
  sv_httpc_line_fn* on_line;  ///< non-NULL: stream the body line by line
  sv_httpc_done_fn* on_done;  ///< called exactly once unless the request is cancelled
  void* user;
  const char* host;  ///< an IPv4 address; NULL = 127.0.0.1
} sv_httpc_request;

/// Split "http://HOST[:PORT][/PATH]" (HOST a name or an IPv4 address; PORT default 80,
/// PATH default "/"). 0, or -1 with why in err. No https, no user info, no IPv6.
int sv_httpc_parse_url(const char* url, char* host, size_t host_cap, int* port, char* path,
                       size_t path_cap, char* err, size_t err_cap);

/// Start a request. Returns the request (for sv_httpc_cancel) or NULL when it could not be
/// started (on_done is then never called).
sv_httpc* sv_httpc_start(uv_loop_t* loop, const sv_httpc_request* req);
/// Abort a request: close its connection; on_done is not called. The memory is released
/// when the loop runs the close callbacks.
void sv_httpc_cancel(sv_httpc* c);
