// bench-protocol: how fast and how big the input packet is: bytes with 1 and 8 redundant
// commands, encode and decode time. (What snapshots cost: bench-snapshot, bench-capacity.)
// Prints figures; never fails on a number (benchmarks are not tests).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arbiter/protocol.h>

#include "test_rng.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rs = 0x853c49e6748fea9bull;
static uint32_t rnd(void) {
  return (uint32_t)(xorshift64_next(&rs) >> 20);
}
static float frand(float lo, float hi) {
  return lo + (hi - lo) * (float)(rnd() % 100000) / 100000.0f;
}

int main(int argc, char** argv) {
  double min_time = 0.5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf(
          "usage: bench-protocol [--quick]\n"
          "Measures the input packet: its size with 1 and 8 redundant commands, encode and\n"
          "decode time. --quick measures for 0.05 s instead of 0.5 s per figure.\n");
      return 0;
    }
    if (!strcmp(argv[i], "--quick")) {
      min_time = 0.05;
    } else {
      fprintf(stderr, "bench-protocol: unknown argument '%s' (try --help)\n", argv[i]);
      return 2;
    }
  }
  // input packets
  arb_proto_input in;
  memset(&in, 0, sizeof in);
  in.packet_seq = 12345;
  in.ack_tick = 67890;
  for (int k = 0; k < ARB_PROTO_MAX_INPUTS; k++) {
    arb_controls c = {frand(-1, 1), 0.0f, frand(-3, 3), k % 3 == 0 ? ARB_BUTTON_JUMP : 0u,
                      0.0f,         0.0f, 0.0f};
    in.cmds[k].seq = 20000u - (uint32_t)k;
    in.cmds[k].controls = arb_proto_quantize_controls(&c);
  }
  uint8_t buf[512];
  in.count = 1;
  int one = arb_proto_encode_input(&in, buf, sizeof buf);
  in.count = ARB_PROTO_MAX_INPUTS;
  int eight = arb_proto_encode_input(&in, buf, sizeof buf);
  int iters = 0;
  double t0 = now();
  do {
    for (int k = 0; k < 1000; k++) arb_proto_encode_input(&in, buf, sizeof buf);
    iters += 1000;
  } while (now() - t0 < min_time);
  double enc_ns = (now() - t0) / iters * 1e9;
  arb_proto_input out;
  iters = 0;
  t0 = now();
  do {
    for (int k = 0; k < 1000; k++) arb_proto_decode_input(buf, (size_t)eight, &out, NULL);
    iters += 1000;
  } while (now() - t0 < min_time);
  double dec_ns = (now() - t0) / iters * 1e9;
  printf(
      "%-22s %7d B with 1 command, %d B with %d (redundant) commands; encode %.0f ns, decode %.0f "
      "ns\n",
      "input packet", one, eight, ARB_PROTO_MAX_INPUTS, enc_ns, dec_ns);
  return 0;
}
