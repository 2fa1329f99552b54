// WebSocket transport (see cl_net.h), for the library compiled to WebAssembly. The
// JavaScript host owns the socket (the browser's WebSocket, or the `ws` package in Node):
// this file imports three functions from it (client/web/src/arbiter_ws.js) and exports
// the socket's events, which arrive between two arb_client_update calls and wait in a
// queue until cl_net_poll hands them out, as ENet's would.
#include "cl_net.h"

#include <emscripten/emscripten.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/base.h>
#include <arbiter/protocol.h>

// Imported from JavaScript. open: a new socket for `net` (its events come back through
// the exports below, tagged with `net`), its id > 0, or 0 when it cannot be created.
// send: one binary message (copied before it returns), 0 or < 0 when the socket is not
// open. close: 1000 (a leave) or 0 (abandoned: held for a rejoin), after which the socket
// reports nothing more.
extern int arb_js_ws_open(cl_net* net, const char* url);
extern int arb_js_ws_send(int socket, const uint8_t* data, size_t len);
extern void arb_js_ws_close(int socket, int code);

// Received bytes waiting for arb_client_update: the scene (up to 16 MiB) and what a
// page that stopped calling update for a while has let pile up. Past this the link
// counts as lost instead of growing without bound.
#define CL_WS_MAX_QUEUED ((size_t)ARB_PROTO_MAX_SCENE_MESSAGE + ((size_t)4 << 20))

// RFC 6455 §5.2 frame header of one unfragmented binary message.
static uint64_t frame_overhead(size_t len, bool masked) {
  uint64_t h = len < 126 ? 2u : len < 65536 ? 4u : 10u;
  return h + (masked ? 4u : 0u);
}

static void clear_queue(cl_net* n) {
  free(n->last);
  n->last = NULL;
  while (n->head) {
    cl_ws_item* next = n->head->next;
    free(n->head);
    n->head = next;
  }
  n->tail = NULL;
  n->queued = 0;
}

static cl_ws_item* push(cl_net* n, cl_net_event_type type, uint32_t code, size_t len) {
  cl_ws_item* it = (cl_ws_item*)malloc(sizeof *it + len);
  if (!it) return NULL;
  it->next = NULL;
  it->type = type;
  it->code = code;
  it->len = len;
  if (n->tail)
    n->tail->next = it;
  else
    n->head = it;
  n->tail = it;
  n->queued += len;
  return it;
}

int cl_net_init(cl_net* n) {
  memset(n, 0, sizeof *n);
  return 0;
}

void cl_net_deinit(cl_net* n) {
  cl_net_drop(n, ARB_PROTO_REASON_OTHER);
  clear_queue(n);
  memset(n, 0, sizeof *n);
}

int cl_net_connect(cl_net* n, const char* host, uint16_t port, const char* url,
                   uint32_t timeout_ms) {
  (void)host;
  (void)port;
  (void)timeout_ms;
  if (!url || !url[0]) return ARB_E_INVAL;
  cl_net_drop(n, 0);
  n->rtt_samples = 0;
  n->socket = arb_js_ws_open(n, url);
  return n->socket > 0 ? 0 : ARB_E_IO;
}

void cl_net_set_timeout(cl_net* n, uint32_t timeout_ms) {
  (void)n;  // TCP has its own; the client's silence check ends a dead link
  (void)timeout_ms;
}

void cl_net_drop(cl_net* n, uint32_t code) {
  if (n->socket > 0) arb_js_ws_close(n->socket, code != 0 ? 1000 : 0);
  n->socket = 0;
  n->open = false;
  clear_queue(n);
}

int cl_net_poll(cl_net* n, cl_net_event* ev) {
  memset(ev, 0, sizeof *ev);
  free(n->last);
  n->last = NULL;
  cl_ws_item* it = n->head;
  if (!it) return 0;
  n->head = it->next;
  if (!n->head) n->tail = NULL;
  n->queued -= it->len;
  ev->type = it->type;
  ev->code = it->code;
  switch (it->type) {
    case CL_NET_CONNECTED:
      n->open = true;
      break;
    case CL_NET_RECEIVED:
      ev->channel = -1;  // implied by the message type (PROTOCOL.md §1.2)
      ev->data = (const uint8_t*)(it + 1);
      ev->len = it->len;
      break;
    case CL_NET_DISCONNECTED:
      n->socket = 0;  // the JavaScript side has forgotten it
      n->open = false;
      clear_queue(n);
      break;
    case CL_NET_NONE:
      break;
  }
  n->last = it;
  return 1;
}

int cl_net_send(cl_net* n, int channel, const uint8_t* data, size_t len, bool reliable) {
  (void)channel;  // one ordered, reliable stream carries every channel
  (void)reliable;
  if (n->socket <= 0 || !n->open) return ARB_E_STATE;
  if (arb_js_ws_send(n->socket, data, len) < 0) return ARB_E_IO;
  n->bytes_out += len + frame_overhead(len, true);
  n->packets_out++;
  return 0;
}

void cl_net_flush(cl_net* n) {
  (void)n;  // WebSocket.send sends at once
}

void cl_net_rtt(const cl_net* n, float* rtt, float* variance) {
  *rtt = n->open && n->rtt_samples > 0 ? n->rtt : 0.0f;
  *variance = n->open && n->rtt_samples > 0 ? n->rtt_var : 0.0f;
}

int cl_net_fd(const cl_net* n) {
  (void)n;
  return -1;
}

void cl_net_account(cl_net* n) {
  (void)n;  // counted as messages come and go
}

// ---- the socket's events, called by JavaScript ----------------------------------------

// The three exports (declared in cl_net.h).
EMSCRIPTEN_KEEPALIVE void cl_net_ws_on_open(cl_net* n) {
  if (!push(n, CL_NET_CONNECTED, 0, 0)) arb_js_ws_close(n->socket, 0);
}

EMSCRIPTEN_KEEPALIVE uint8_t* cl_net_ws_on_message(cl_net* n, size_t len) {
  n->bytes_in += len + frame_overhead(len, false);
  n->packets_in++;
  cl_ws_item* it = n->queued + len <= CL_WS_MAX_QUEUED ? push(n, CL_NET_RECEIVED, 0, len) : NULL;
  if (!it) {
    clear_queue(n);
    push(n, CL_NET_DISCONNECTED, 1009, 0);
    arb_js_ws_close(n->socket, 0);
    return NULL;
  }
  return (uint8_t*)(it + 1);
}

EMSCRIPTEN_KEEPALIVE void cl_net_ws_on_close(cl_net* n, int code) {
  push(n, CL_NET_DISCONNECTED, (uint32_t)code, 0);
}
