// Fuzz target: everything the server decodes from a WebSocket connection before the
// protocol decoder. The input is what a client sends: the upgrade request head
// (sv_ws_parse_request, as the listener reads it: at most SV_WS_MAX_HEAD bytes), then the
// bytes after the head through a connection's frame layer (sv_ws_stream: wslay with
// memory-backed callbacks), fed in two pieces split where the input's last byte says, so
// frames are cut at every place. An input whose head does not parse goes through the frame
// layer whole, so mutations reach both parts. Checks: a refusal is -400, -426 or -431 with
// a reason; an accepted head has a 24-character key and a 101 answer; no message is over
// 4096 bytes or delivered after a close; the close code sent is one PROTOCOL.md §1.2 lists.
// Built as fuzz-ws in the fuzz preset; otherwise the same function runs over the seed corpus
// (test_fuzz_ws_corpus, with corpus_main.c).
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_ws_handshake.h"
#include "sv_ws_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

typedef struct seen {
  sv_ws_stream* st;
  int messages;
} seen;

static void on_message(void* user, const uint8_t* msg, size_t len) {
  seen* s = user;
  if (len > SV_WS_MAX_MESSAGE) abort();
  uint16_t code;
  if (sv_ws_stream_close_received(s->st, &code) || sv_ws_stream_close_sent(s->st) != 0) abort();
  if (len > 0 && msg == NULL) abort();
  s->messages++;
  // Answer the way the server does (a reply from inside the pump), so sends interleave
  // with reads, close frames and pongs.
  uint8_t reply[8] = {0x93, 0x08, 0x01, 0x02};
  if (sv_ws_stream_send(s->st, reply, sizeof reply) != 0 && !s->st->failed) abort();
}

static void check_head(const uint8_t* data, size_t size, size_t* frames_at) {
  size_t head = size < SV_WS_MAX_HEAD ? size : SV_WS_MAX_HEAD;
  sv_ws_request req;
  int rc = sv_ws_parse_request((const char*)data, head, &req);
  *frames_at = 0;
  if (rc > 0) {
    if ((size_t)rc > head || strlen(req.key) != 24) abort();
    if (memchr(req.origin, '\0', sizeof req.origin) == NULL) abort();
    char resp[256];
    if (sv_ws_response_101(&req, resp, sizeof resp) <= 0) abort();
    *frames_at = (size_t)rc;
  } else if (rc < 0) {
    if ((rc != -400 && rc != -426 && rc != -431) || req.why == NULL || req.why[0] == '\0') abort();
    char resp[512];
    if (sv_ws_response_error(-rc, req.why, resp, sizeof resp) <= 0) abort();
  } else if (head >= SV_WS_MAX_HEAD) {
    abort();  // a full head buffer is never "need more"
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t at;
  check_head(data, size, &at);
  const uint8_t* frames = data + at;
  size_t n = size - at;
  sv_ws_stream st;
  seen s = {&st, 0};
  if (sv_ws_stream_init(&st, on_message, &s) != 0) return 0;
  size_t cut = n > 0 ? (size_t)data[size - 1] * n / 256u : 0;
  if (sv_ws_stream_feed(&st, frames, cut) == 0) sv_ws_stream_pump(&st);
  if (sv_ws_stream_feed(&st, frames + cut, n - cut) == 0) sv_ws_stream_pump(&st);
  // The server closes with a refusal code, or echoes the client's close (1005: it gave none).
  uint16_t sent = sv_ws_stream_close_sent(&st), got = 0;
  bool received = sv_ws_stream_close_received(&st, &got);
  bool refusal = sent == 1002 || sent == 1003 || sent == 1007 || sent == 1009;
  if (sent != 0 && !refusal && !(received && (sent == got || sent == 1005))) abort();
  sv_ws_stream_free(&st);
  return 0;
}
