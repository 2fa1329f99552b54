// One WebSocket connection's frames after the handshake, without a socket: a wslay server
// context (RFC 6455 framing, masking, fragments, ping and close replies) fed from an input
// buffer and writing into an output buffer. sv_ws.c moves bytes between these buffers and
// libuv; the fuzz target moves them from memory. PROTOCOL.md §1.2 gives the rules enforced:
// one binary message per protocol message, at most ARB_PROTO_MAX_PAYLOAD bytes (1009),
// text refused (1003), frames that break RFC 6455 refused (1002, by wslay).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wslay/wslay.h>

/// Largest client message (ARB_PROTO_MAX_PAYLOAD); a longer one gets close 1009.
#define SV_WS_MAX_MESSAGE 4096
/// wslay is not asked to read while more output than this is waiting: a client that sends
/// pings (each answered by a pong) but reads nothing cannot grow the server's memory
/// without bound. It is above the largest server message (a 16 MiB scene), so a client
/// downloading its scene still has its inputs read.
#define SV_WS_RECV_OUT_LIMIT (17u * 1024u * 1024u)

/// A client message: a whole binary message (valid only during the call).
typedef void sv_ws_message_fn(void* user, const uint8_t* data, size_t len);

typedef struct sv_ws_buf {
  uint8_t* data;
  size_t len, cap;
} sv_ws_buf;

typedef struct sv_ws_stream {
  wslay_event_context_ptr ctx;
  sv_ws_buf in;  ///< received bytes; in.data[in_pos, in.len) not yet given to wslay
  size_t in_pos;
  sv_ws_buf out;  ///< frames wslay produced, not yet handed to the socket
  sv_ws_message_fn* on_message;
  void* user;
  uint16_t refused;  ///< the close code queued for a text frame (1003), 0 = none
  bool frame_error;  ///< a frame header wslay's frame layer refused: 1002 written, done
  bool failed;       ///< wslay reported an error other than a protocol close (memory)
  bool in_pump;      ///< inside sv_ws_stream_pump: sends wait for its own send step
} sv_ws_stream;

/// 0, or -1 when out of memory.
int sv_ws_stream_init(sv_ws_stream* st, sv_ws_message_fn* on_message, void* user);
void sv_ws_stream_free(sv_ws_stream* st);
/// Append received bytes. 0, or -1 when out of memory.
int sv_ws_stream_feed(sv_ws_stream* st, const void* data, size_t len);
/// Let wslay read what was fed (messages are delivered to on_message) and write what it
/// has queued into `out`. 0, or -1 when the connection can only be dropped (st->failed).
int sv_ws_stream_pump(sv_ws_stream* st);
/// Queue one binary message (copied). 0, or -1 when the connection is closing or out of
/// memory.
int sv_ws_stream_send(sv_ws_stream* st, const void* data, size_t len);
/// Queue a close frame with this status code and reason text (at most 123 bytes).
void sv_ws_stream_close(sv_ws_stream* st, uint16_t code, const char* reason);
/// The close exchange is over (or reading and writing both stopped): nothing more to do
/// but send what is in `out`.
bool sv_ws_stream_done(const sv_ws_stream* st);
/// True when the peer sent a close frame; *code is its status (1005 when it gave none).
bool sv_ws_stream_close_received(const sv_ws_stream* st, uint16_t* code);
/// The status code of the close frame this side sent, 0 when none was sent yet.
uint16_t sv_ws_stream_close_sent(const sv_ws_stream* st);
/// Bytes waiting to go out: queued in wslay plus those in `out`.
size_t sv_ws_stream_backlog(const sv_ws_stream* st);
