// A raw WebSocket client for the server's tests (RFC 6455 by hand, no library), so a test
// can send exactly the bytes it means: bad handshakes, unmasked or fragmented frames, text,
// oversized messages, a TCP reset. Blocking sockets with bounded waits.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The key of RFC 6455's example (its accept value is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=).
#define TC_WS_KEY "dGhlIHNhbXBsZSBub25jZQ=="

/// A TCP connection to 127.0.0.1:port from local_ip (NULL = any). fd, or -1.
int tc_ws_connect(const char* local_ip, uint16_t port);
/// The same with a receive buffer of rcvbuf bytes set before connecting (0 = the
/// kernel's): a small one makes a client that does not read push back on the server soon.
int tc_ws_connect_buf(const char* local_ip, uint16_t port, int rcvbuf);
/// The usual upgrade request with `extra` header lines (each ending in \r\n; NULL = none).
int tc_ws_request(char* out, size_t cap, uint16_t port, const char* extra);
/// Send bytes (all of them). 0 or -1.
int tc_ws_send_all(int fd, const void* data, size_t len);
/// Read the HTTP response head (up to the blank line; bytes after it stay in the socket
/// only if they came in a later read: the server sends nothing before the client speaks).
/// Returns the status code, or -1 (closed, timeout); the head is copied into out.
int tc_ws_read_status(int fd, int timeout_ms, char* out, size_t cap);
/// Send request (a whole HTTP request) and read the status. -1 on failure.
int tc_ws_handshake(int fd, const char* request, int timeout_ms, char* out, size_t cap);
/// One frame into out: opcode, FIN, masked with `mask` (NULL = unmasked). Returns its length.
size_t tc_ws_frame(uint8_t* out, size_t cap, int opcode, bool fin, const uint8_t mask[4],
                   const void* payload, size_t len);
/// Send one masked binary message as one frame. 0 or -1.
int tc_ws_send_binary(int fd, const void* data, size_t len);

/// Reads whole messages from a connection (the server never masks; fragments are joined).
typedef struct tc_ws_reader {
  uint8_t* buf;  ///< received bytes not yet parsed
  size_t len, cap;
  size_t drop;   ///< bytes of the control frame last returned (still in buf)
  uint8_t* msg;  ///< the message being assembled
  size_t msg_len, msg_cap;
  int msg_opcode;
  bool closed;     ///< end of stream or error
  int close_code;  ///< from the server's close frame, 0 = none yet, 1005 = none given
  char close_reason[128];
} tc_ws_reader;

int tc_ws_reader_init(tc_ws_reader* r);
void tc_ws_reader_free(tc_ws_reader* r);
/// Wait up to timeout_ms for one whole message. Returns its opcode (1 text, 2 binary,
/// 8 close, 9 ping, 10 pong) with *data/*len pointing into the reader until the next call,
/// 0 on timeout, -1 when the connection ended.
int tc_ws_read(tc_ws_reader* r, int fd, int timeout_ms, const uint8_t** data, size_t* len);
/// Read until the server's close frame (returned) or the end of the stream (-1), dropping
/// other messages; 0 on timeout.
int tc_ws_wait_close(tc_ws_reader* r, int fd, int timeout_ms);
/// Close the socket with a TCP reset (SO_LINGER 0): a lost connection, no close frame.
void tc_ws_reset(int fd);
