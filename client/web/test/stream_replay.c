// web_stream_replay: the client library with its WebSocket transport, built natively, fed a
// WebSocket session recorded by test/live.test.js from the WebAssembly build (one line per
// step, in the order they happened):
//   U <seconds>   arb_client_update at that time        O       the socket opened
//   M <base64>    a binary message arrived              C <code> the socket closed
//   K <mx> <my> <aim> <buttons> <steer> <throttle> <brake>   arb_client_set_controls
//   S <seconds>   arb_client_sample at that time
// and prints every comparison of the prediction with the server as it is made
// (arb_client_get_predict_checks), one line each: tick agree touching, then the predicted
// and the server's quantized x y angle vx vy w. Equal lines from both builds: the module computes
// what the native library computes, bit for bit.
//   web_stream_replay STREAM
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/client.h>
#include <sodium.h>

#include "cl_net.h"

// The transport's imports, which JavaScript provides in the module.
static cl_net* g_net;
static int g_sockets;
int arb_js_ws_open(cl_net* net, const char* url);
int arb_js_ws_send(int socket, const uint8_t* data, size_t len);
void arb_js_ws_close(int socket, int code);
int arb_js_ws_open(cl_net* net, const char* url) {
  (void)url;
  g_net = net;
  return ++g_sockets;
}
int arb_js_ws_send(int socket, const uint8_t* data, size_t len) {
  (void)socket;
  (void)data;
  (void)len;
  return 0;
}
void arb_js_ws_close(int socket, int code) {
  (void)socket;
  (void)code;
}

// Prints the comparisons made since `printed` of them were; returns how many there are.
static uint64_t print_new_checks(const arb_client* c, uint64_t printed) {
  arb_client_stats st;
  arb_client_get_stats(c, &st);
  if (st.predict_checks == printed) return printed;
  arb_client_predict_check k[64];
  int n = arb_client_get_predict_checks(c, k, 64);
  uint64_t fresh = st.predict_checks - printed;
  for (int i = fresh < (uint64_t)n ? n - (int)fresh : 0; i < n && i < 64; i++) {
    printf("%u %d %d", k[i].tick, k[i].agree, k[i].touching);
    for (int j = 0; j < 6; j++) printf(" %d", k[i].predicted[j]);
    for (int j = 0; j < 6; j++) printf(" %d", k[i].server[j]);
    printf("\n");
  }
  return st.predict_checks;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: web_stream_replay STREAM\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  arb_client_config cfg = arb_client_default_config();
  cfg.url = "ws://replay/";
  arb_client* c = NULL;
  if (arb_client_create(&cfg, &c) != 0 || arb_client_connect(c) != 0) return 1;
  size_t cap = (size_t)32 << 20;
  char* line = malloc(cap);
  uint8_t* msg = malloc(cap);
  arb_client_entity_state* states = malloc(4096 * sizeof *states);
  if (!line || !msg || !states) return 1;
  uint64_t printed = 0;
  while (fgets(line, (int)cap, f)) {
    switch (line[0]) {
      case 'U':
        arb_client_update(c, strtod(line + 2, NULL));
        break;
      case 'S':
        arb_client_sample(c, strtod(line + 2, NULL), states, 4096);
        break;
      case 'K': {
        arb_controls k;
        unsigned buttons = 0;
        if (sscanf(line + 2, "%f %f %f %u %f %f %f", &k.move_x, &k.move_y, &k.aim, &buttons,
                   &k.steer, &k.throttle, &k.brake) != 7)
          return 2;
        k.buttons = buttons;
        arb_client_set_controls(c, &k);
        break;
      }
      case 'O':
        cl_net_ws_on_open(g_net);
        break;
      case 'M': {
        size_t n = 0;
        const char* text = line + 2;
        if (sodium_base642bin(msg, cap, text, strcspn(text, "\n"), NULL, &n, NULL,
                              sodium_base64_VARIANT_ORIGINAL) != 0)
          return 2;
        uint8_t* p = cl_net_ws_on_message(g_net, n);
        if (p) memcpy(p, msg, n);
        break;
      }
      case 'C':
        cl_net_ws_on_close(g_net, atoi(line + 2));
        break;
      default:
        break;
    }
    arb_client_event ev;
    while (arb_client_poll_event(c, &ev) > 0) {
    }
    printed = print_new_checks(c, printed);
  }
  arb_client_destroy(c);
  fclose(f);
  free(line);
  free(msg);
  free(states);
  return 0;
}
