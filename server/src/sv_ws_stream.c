// wslay on memory buffers (see sv_ws_stream.h). Pitfalls of wslay's event API this follows
// (docs/SERVER.md, "WebSocket"): a recv callback's "no data now" is WOULDBLOCK, never 0
// (0 is not end of stream; the socket layer reports that); one wslay_event_recv drains
// everything fed; wslay copies a queued message, so the caller's buffer is free at once.
#include "sv_ws_stream.h"

#include <stdlib.h>
#include <string.h>

static int buf_append(sv_ws_buf* b, const void* data, size_t len) {
  if (len == 0) return 0;  // also: no arithmetic on a buffer not allocated yet
  if (len > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < len) {
      if (cap > SIZE_MAX / 2) return -1;
      cap *= 2;
    }
    uint8_t* p = realloc(b->data, cap);
    if (p == NULL) return -1;
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  return 0;
}

static ssize_t recv_cb(wslay_event_context_ptr ctx, uint8_t* buf, size_t len, int flags,
                       void* user) {
  (void)flags;
  sv_ws_stream* st = user;
  size_t avail = st->in.len - st->in_pos;
  if (avail == 0 || sv_ws_stream_backlog(st) > SV_WS_RECV_OUT_LIMIT) {
    wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
    return -1;
  }
  size_t n = avail < len ? avail : len;
  memcpy(buf, st->in.data + st->in_pos, n);
  st->in_pos += n;
  return (ssize_t)n;
}

static ssize_t send_cb(wslay_event_context_ptr ctx, const uint8_t* data, size_t len, int flags,
                       void* user) {
  (void)flags;
  sv_ws_stream* st = user;
  if (buf_append(&st->out, data, len) != 0) {
    st->failed = true;  // the only way a callback of ours fails
    wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    return -1;
  }
  return (ssize_t)len;
}

// A text message is refused when its first frame starts, before wslay buffers (or checks
// the UTF-8 of) any of it.
static void on_frame_start(wslay_event_context_ptr ctx,
                           const struct wslay_event_on_frame_recv_start_arg* arg, void* user) {
  sv_ws_stream* st = user;
  if (arg->opcode == WSLAY_TEXT_FRAME && st->refused == 0) {
    st->refused = WSLAY_CODE_UNSUPPORTED_DATA;
    wslay_event_queue_close(ctx, WSLAY_CODE_UNSUPPORTED_DATA, (const uint8_t*)"text frame", 10);
  }
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg* arg,
                   void* user) {
  sv_ws_stream* st = user;
  // Control frames (ping, pong, close) are wslay's; nothing is taken from a connection
  // that is closing.
  if (arg->opcode != WSLAY_BINARY_FRAME || st->refused != 0 || wslay_event_get_close_sent(ctx) ||
      wslay_event_get_close_received(ctx))
    return;
  st->on_message(st->user, arg->msg, arg->msg_length);
}

int sv_ws_stream_init(sv_ws_stream* st, sv_ws_message_fn* on_message, void* user) {
  memset(st, 0, sizeof *st);
  st->on_message = on_message;
  st->user = user;
  struct wslay_event_callbacks cb = {recv_cb, send_cb, NULL, on_frame_start, NULL, NULL, on_msg};
  if (wslay_event_context_server_init(&st->ctx, &cb, st) != 0) return -1;
  // Checked against the whole message, fragments summed: over it wslay queues close 1009.
  wslay_event_config_set_max_recv_msg_length(st->ctx, SV_WS_MAX_MESSAGE);
  return 0;
}

void sv_ws_stream_free(sv_ws_stream* st) {
  if (st->ctx) wslay_event_context_free(st->ctx);
  free(st->in.data);
  free(st->out.data);
  memset(st, 0, sizeof *st);
}

int sv_ws_stream_feed(sv_ws_stream* st, const void* data, size_t len) {
  // Compact first: what wslay has read is gone, so the buffer holds only unread bytes.
  if (st->in_pos > 0) {
    memmove(st->in.data, st->in.data + st->in_pos, st->in.len - st->in_pos);
    st->in.len -= st->in_pos;
    st->in_pos = 0;
  }
  return buf_append(&st->in, data, len);
}

// wslay's frame layer refuses some headers (a control frame over 125 bytes or fragmented,
// a 64-bit length with its top bit set) by returning CALLBACK_FAILURE from
// wslay_event_recv with a close frame queued that has no status code. The client is owed
// 1002 (PROTOCOL.md §1.2): that close is never sent; ours is written instead and wslay is
// not used again (nothing more is read after a protocol error, RFC 6455 §7.1.7).
static void fail_frame(sv_ws_stream* st) {
  static const uint8_t close_1002[4] = {0x88, 0x02, 0x03, 0xea};
  st->frame_error = true;
  if (buf_append(&st->out, close_1002, sizeof close_1002) != 0) st->failed = true;
}

int sv_ws_stream_pump(sv_ws_stream* st) {
  if (st->frame_error || st->failed) return st->failed ? -1 : 0;
  st->in_pump = true;
  int rc = 0;
  if (wslay_event_want_read(st->ctx)) rc = wslay_event_recv(st->ctx);
  st->in_pump = false;
  // Other protocol errors make wslay queue its own close (1002, 1007, 1009) and return 0.
  if (rc == WSLAY_ERR_NOMEM) st->failed = true;
  if (rc == WSLAY_ERR_CALLBACK_FAILURE && !st->failed) {
    fail_frame(st);
    return 0;
  }
  if (!st->failed && wslay_event_want_write(st->ctx)) {
    int sr = wslay_event_send(st->ctx);
    if (sr == WSLAY_ERR_NOMEM || sr == WSLAY_ERR_CALLBACK_FAILURE) st->failed = true;
  }
  if (st->in_pos == st->in.len) st->in.len = st->in_pos = 0;
  return st->failed ? -1 : 0;
}

int sv_ws_stream_send(sv_ws_stream* st, const void* data, size_t len) {
  if (st->failed || st->frame_error || wslay_event_get_close_sent(st->ctx) || st->refused != 0)
    return -1;
  struct wslay_event_msg msg = {WSLAY_BINARY_FRAME, data, len};
  if (wslay_event_queue_msg(st->ctx, &msg) != 0) return -1;
  // Inside a pump (a reply from on_message) the pump's own send step writes it.
  if (!st->in_pump && wslay_event_send(st->ctx) != 0) {
    st->failed = true;
    return -1;
  }
  return 0;
}

void sv_ws_stream_close(sv_ws_stream* st, uint16_t code, const char* reason) {
  if (st->frame_error || st->failed) return;
  size_t n = reason ? strlen(reason) : 0;
  if (n > 123) n = 123;  // a control frame's payload is at most 125 bytes, the code included
  wslay_event_queue_close(st->ctx, code, (const uint8_t*)reason, n);
  if (!st->in_pump && wslay_event_send(st->ctx) != 0) st->failed = true;
}

bool sv_ws_stream_done(const sv_ws_stream* st) {
  return st->frame_error || (!wslay_event_want_read(st->ctx) && !wslay_event_want_write(st->ctx));
}

bool sv_ws_stream_close_received(const sv_ws_stream* st, uint16_t* code) {
  if (!wslay_event_get_close_received(st->ctx)) return false;
  *code = wslay_event_get_status_code_received(st->ctx);
  return true;
}

uint16_t sv_ws_stream_close_sent(const sv_ws_stream* st) {
  if (st->frame_error) return 1002;
  return wslay_event_get_close_sent(st->ctx) ? wslay_event_get_status_code_sent(st->ctx) : 0;
}

size_t sv_ws_stream_backlog(const sv_ws_stream* st) {
  return wslay_event_get_queued_msg_length(st->ctx) + st->out.len;
}
