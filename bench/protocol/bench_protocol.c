// bench-protocol: how fast and how big the wire format is.
//   - a 1000-entity snapshot, full and delta (10 % of entities changed): bytes per entity,
//     packets, build (diff + split + encode) and decode (+ apply) speed in MB/s of wire bytes
//   - bytes per input packet (1 and 8 redundant commands)
// Prints figures; never fails on a number (benchmarks are not tests).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arbiter/protocol.h>

#include "test_rng.h"

#define N 1000

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rs = 0x853c49e6748fea9bull;
static uint32_t rnd(void) { return (uint32_t)(xorshift64_next(&rs) >> 20); }
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() % 100000) / 100000.0f; }

static int describe(void* user, uint32_t id, arb_proto_entity_desc* d) {
  (void)user;
  memset(d, 0, sizeof *d);
  d->body_type = 0;
  if (id % 2) {
    d->shape.kind = 1;
    d->shape.count = 1;
    d->shape.radius = 0.25f + (float)(id % 4) * 0.25f;
  } else {
    float hw = 0.5f, hh = 0.25f + (float)(id % 3) * 0.25f;
    d->shape.kind = 2;
    d->shape.count = 4;
    d->shape.points[0] = arb_v2(-hw, -hh);
    d->shape.points[1] = arb_v2(hw, -hh);
    d->shape.points[2] = arb_v2(hw, hh);
    d->shape.points[3] = arb_v2(-hw, hh);
  }
  return 0;
}

typedef struct figures {
  int packets, bytes;
  double build_s, decode_s;
  int iters;
} figures;

static arb_proto_snapshot part;

static figures run(arb_proto_snapshot_builder* b, arb_proto_build_args* a, double min_time) {
  static arb_proto_entity view_items[N];
  static arb_proto_entity base_items[N];
  arb_proto_entity_set base_copy = {base_items, 0, N};
  if (a->baseline) arb_proto_entity_set_copy(&base_copy, a->baseline);
  figures f = {0, 0, 0, 0, 0};
  arb_proto_build_result r;
  double t0 = now();
  do {
    if (arb_proto_snapshot_build(b, a, &r) != 0) {
      fprintf(stderr, "bench-protocol: build failed\n");
      exit(1);
    }
    f.iters++;
  } while (now() - t0 < min_time);
  f.build_s = (now() - t0) / f.iters;
  f.packets = r.packet_count;
  f.bytes = r.bytes;
  int iters = 0;
  t0 = now();
  do {
    arb_proto_entity_set view = {view_items, 0, N};
    arb_proto_entity_set_copy(&view, &base_copy);
    for (int p = 0; p < r.packet_count; p++) {
      if (arb_proto_decode_snapshot(r.packets[p], (size_t)r.sizes[p], &part, NULL) != 0 ||
          arb_proto_entity_set_apply(&view, &part, NULL) != 0) {
        fprintf(stderr, "bench-protocol: decode failed\n");
        exit(1);
      }
    }
    iters++;
  } while (now() - t0 < min_time);
  f.decode_s = (now() - t0) / iters;
  return f;
}

static void print_row(const char* what, const figures* f, int entities_sent) {
  printf("%-22s %7d B %4d pkts %6.1f B/entity  build %7.1f us %6.1f MB/s  decode+apply %7.1f us %6.1f MB/s\n", what,
         f->bytes, f->packets, (double)f->bytes / entities_sent, f->build_s * 1e6, f->bytes / f->build_s / 1e6,
         f->decode_s * 1e6, f->bytes / f->decode_s / 1e6);
}

int main(int argc, char** argv) {
  double min_time = 0.5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: bench-protocol [--quick]\n"
             "Measures the arbiter wire format: a 1000-entity snapshot (full, and a delta with 10 %%\n"
             "of the entities changed) split into 1200-byte packets: bytes per entity, build\n"
             "(diff + split + encode) and decode (+ apply) time and MB/s of wire bytes; and the\n"
             "size of input packets. --quick measures for 0.05 s instead of 0.5 s per figure.\n");
      return 0;
    }
    if (!strcmp(argv[i], "--quick")) {
      min_time = 0.05;
    } else {
      fprintf(stderr, "bench-protocol: unknown argument '%s' (try --help)\n", argv[i]);
      return 2;
    }
  }
  static arb_proto_entity cur_items[N], sent_items[2 * N], base_items[N];
  arb_proto_entity_set cur = {cur_items, N, N};
  for (int i = 0; i < N; i++) {
    cur_items[i].id = (uint32_t)(i + 1);
    cur_items[i].desc_version = 1;
    cur_items[i].state = arb_proto_quantize_state(arb_v2(frand(-100, 100), frand(0, 50)), frand(-3.14f, 3.14f),
                                                  arb_v2(frand(-5, 5), frand(-10, 10)), frand(-2, 2));
  }
  arb_proto_snapshot_builder* b;
  if (arb_proto_snapshot_builder_create(NULL, &b) != 0) return 1;
  arb_proto_entity_set sent = {sent_items, 0, 2 * N};
  arb_proto_build_args a;
  memset(&a, 0, sizeof a);
  a.tick = 100;
  a.current = &cur;
  a.describe = describe;
  a.sent = &sent;

  printf("bench-protocol: %d entities, payload limit %d bytes\n", N, ARB_PROTO_DEFAULT_PAYLOAD);
  figures full = run(b, &a, min_time);
  print_row("full snapshot", &full, N);

  // delta: 10 % of the entities moved for one snapshot interval (3 ticks at 60 Hz)
  arb_proto_entity_set base = {base_items, 0, N};
  arb_proto_entity_set_copy(&base, &sent);
  for (int i = 0; i < N; i += 10) {
    arb_vec2 p, v;
    float ang, w;
    arb_proto_dequantize_state(&cur_items[i].state, &p, &ang, &v, &w);
    v.y -= 9.81f * 0.05f;
    p = arb_add(p, arb_scale(0.05f, v));
    ang += w * 0.05f;
    cur_items[i].state = arb_proto_quantize_state(p, ang, v, w);
  }
  a.tick = 103;
  a.baseline_tick = 100;
  a.baseline = &base;
  figures delta = run(b, &a, min_time);
  print_row("delta, 10 % changed", &delta, N);
  printf("%-22s %7.1f B per changed entity\n", "", (double)delta.bytes / (N / 10));

  // an unchanged world: the smallest snapshot
  arb_proto_entity_set_copy(&base, &sent);
  a.tick = 106;
  a.baseline_tick = 103;
  figures idle = run(b, &a, min_time);
  printf("%-22s %7d B %4d pkts\n", "delta, nothing changed", idle.bytes, idle.packets);

  // input packets
  arb_proto_input in;
  memset(&in, 0, sizeof in);
  in.packet_seq = 12345;
  in.ack_tick = 67890;
  for (int k = 0; k < ARB_PROTO_MAX_INPUTS; k++) {
    arb_controls c = {frand(-1, 1), 0.0f, frand(-3, 3), k % 3 == 0 ? ARB_BUTTON_JUMP : 0u, 0.0f, 0.0f, 0.0f};
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
  printf("%-22s %7d B with 1 command, %d B with %d (redundant) commands; encode %.0f ns, decode %.0f ns\n",
         "input packet", one, eight, ARB_PROTO_MAX_INPUTS, enc_ns, dec_ns);
  arb_proto_snapshot_builder_destroy(b);
  return 0;
}
