// The WebSocket opening handshake (RFC 6455 §4.2, PROTOCOL.md §1.2): the client's HTTP/1.1
// upgrade request parsed by hand from untrusted bytes, and the server's answers. Pure
// functions over buffers (no sockets), so the fuzz target runs exactly what the server runs.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The request head (request line and headers, up to the blank line) is at most this long.
#define SV_WS_MAX_HEAD 8192
/// Sec-WebSocket-Accept: base64 of a 20-byte SHA-1, 28 characters.
#define SV_WS_ACCEPT_LEN 28
/// An Origin longer than this is not kept (and matches no allowed origin).
#define SV_WS_MAX_ORIGIN 256

typedef struct sv_ws_request {
  char key[25];  ///< Sec-WebSocket-Key: 24 base64 characters (16 bytes)
  bool has_origin;
  char origin[SV_WS_MAX_ORIGIN];  ///< the Origin header, "" when absent or too long
  bool offers_arbiter;            ///< Sec-WebSocket-Protocol lists "arbiter"
  const char* why;                ///< a refusal: what was wrong (static text), for the log
} sv_ws_request;

/// Parse `len` bytes received so far. Returns the length of the head (through the blank
/// line) when the request is complete and acceptable; the bytes after it are already
/// WebSocket frames. Returns 0 when more bytes are needed (and len < SV_WS_MAX_HEAD), or
/// minus the HTTP status to refuse it with (-400, -426, -431), with req->why set.
int sv_ws_parse_request(const char* buf, size_t len, sv_ws_request* req);

/// Sec-WebSocket-Accept for a key: base64(SHA-1(key + the RFC 6455 GUID)), NUL-terminated.
void sv_ws_accept_key(const char* key, char out[SV_WS_ACCEPT_LEN + 1]);

/// The 101 response for an accepted request into buf. Returns its length, or -1 when cap
/// is too small (256 bytes is enough).
int sv_ws_response_101(const sv_ws_request* req, char* buf, size_t cap);

/// A refusal: a plain HTTP response with the status and a one-line body, "Connection:
/// close" (and "Sec-WebSocket-Version: 13" for 426). Returns its length or -1.
int sv_ws_response_error(int status, const char* why, char* buf, size_t cap);
