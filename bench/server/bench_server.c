// bench-server: runs an arbiter server in this process (own thread, own libuv loop) on the
// built-in scene, connects N protocol clients from the main thread, and measures, per N:
// tick wall time p50/p99/max, server-thread CPU per tick, and bytes the server sent per
// client per second. Prints figures; never fails (DESIGN.md, bench/).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_server.h"
#include "testclient.h"

#define MAX_SAMPLES 8192

typedef struct bench {
  uv_loop_t loop;
  sv_server server;
  uv_async_t stop_async;
  pthread_t thread;
  atomic_int measuring;
  atomic_int ready;
  int samples;
  uint64_t wall[MAX_SAMPLES], cpu[MAX_SAMPLES];
  // Server counters at the first and the last measured tick, read on the server thread.
  uint64_t bytes_out0, bytes_out1, snap0, snap1, cpu0, cpu1;
} bench;

static void on_tick_done(void* user, uint64_t tick, uint64_t wall_ns, uint64_t cpu_ns) {
  bench* b = user;
  (void)tick;
  if (!atomic_load(&b->measuring) || b->samples >= MAX_SAMPLES) return;
  const sv_server* s = &b->server;
  if (b->samples == 0) {
    b->bytes_out0 = s->metrics.bytes_out_total;
    b->snap0 = (uint64_t)s->metrics.snapshot_bytes.sum;
    b->cpu0 = s->tick_cpu_ns_total - cpu_ns;
  }
  b->bytes_out1 = s->metrics.bytes_out_total;
  b->snap1 = (uint64_t)s->metrics.snapshot_bytes.sum;
  b->cpu1 = s->tick_cpu_ns_total;
  b->wall[b->samples] = wall_ns;
  b->cpu[b->samples] = cpu_ns;
  b->samples++;
}

static void on_stop(uv_async_t* a) {
  bench* b = a->data;
  sv_server_stop(&b->server, "bench done");
  uv_close((uv_handle_t*)a, NULL);
}

static void* server_main(void* arg) {
  bench* b = arg;
  uv_run(&b->loop, UV_RUN_DEFAULT);
  return NULL;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static double pct(uint64_t* v, int n, double p) {
  if (n == 0) return 0;
  int i = (int)(p * (n - 1) + 0.5);
  return (double)v[i];
}

static void run(int clients, int seconds) {
  bench* b = calloc(1, sizeof *b);
  uv_loop_init(&b->loop);
  sv_config cfg = sv_default_config();
  cfg.port = 0;
  cfg.http_port = 0;
  cfg.max_clients = 64;
  cfg.log_level = SV_LOG_WARN;
  char err[512];
  if (sv_server_init(&b->server, &b->loop, &cfg, err, sizeof err) != 0) {
    fprintf(stderr, "bench-server: %s\n", err);
    exit(1);
  }
  b->server.on_tick_done = on_tick_done;
  b->server.on_tick_user = b;
  uv_async_init(&b->loop, &b->stop_async, on_stop);
  b->stop_async.data = b;
  pthread_create(&b->thread, NULL, server_main, b);

  tc_client** cs = calloc((size_t)(clients > 0 ? clients : 1), sizeof *cs);
  int welcomed = 0;
  for (int i = 0; i < clients; ++i) {
    cs[i] = tc_create();
    char name[32];
    snprintf(name, sizeof name, "bench-%d", i);
    tc_start(cs[i], b->server.net.port, name, ARB_PROTO_VERSION);
  }
  if (clients > 0) welcomed = tc_wait_settled(cs, clients, 15000);

  // Warm up 1 s, then measure. Clients walk back and forth and jump now and then, so
  // snapshots carry real deltas.
  uint64_t start = tc_now_ms(), measure_at = start + 1000,
           end = measure_at + (uint64_t)seconds * 1000u;
  uint64_t next_input = 0, recv0 = 0;
  int step = 0;
  bool started = false;
  for (;;) {
    uint64_t now = tc_now_ms();
    if (!started && now >= measure_at) {
      for (int i = 0; i < clients; ++i) recv0 += cs[i]->bytes_received;
      atomic_store(&b->measuring, 1);
      started = true;
    }
    if (now >= end) break;
    if (now >= next_input) {
      for (int i = 0; i < clients; ++i) {
        arb_controls c;
        memset(&c, 0, sizeof c);
        c.move_x = ((step + i * 7) / 90) % 2 ? -1.0f : 1.0f;
        c.buttons = ((step + i * 13) % 80) < 2 ? ARB_BUTTON_JUMP : 0;
        if (cs[i]->state == TC_WELCOMED) tc_send_input(cs[i], &c);
      }
      step++;
      next_input = now + 16;
    }
    for (int i = 0; i < clients; ++i) tc_service(cs[i], 0);
    tc_sleep_ms(1);
  }
  atomic_store(&b->measuring, 0);
  double secs = (double)seconds;
  uint64_t recv = 0;
  for (int i = 0; i < clients; ++i) recv += cs[i]->bytes_received;
  recv -= recv0;

  uv_async_send(&b->stop_async);
  pthread_join(b->thread, NULL);
  int n = b->samples;
  uint64_t bytes_out = b->bytes_out1 - b->bytes_out0;
  uint64_t snap_bytes = b->snap1 - b->snap0;
  uint64_t cpu_total = b->cpu1 - b->cpu0;
  qsort(b->wall, (size_t)n, sizeof b->wall[0], cmp_u64);
  qsort(b->cpu, (size_t)n, sizeof b->cpu[0], cmp_u64);
  double per_client = clients > 0 ? 1.0 / clients : 0.0;
  printf("%7d %8d %6d %12.1f %12.1f %12.1f %12.1f %12.1f %14.0f %14.0f %14.0f\n", clients, welcomed,
         n, pct(b->wall, n, 0.50) / 1000.0, pct(b->wall, n, 0.99) / 1000.0,
         n ? (double)b->wall[n - 1] / 1000.0 : 0.0, n ? (double)cpu_total / n / 1000.0 : 0.0,
         pct(b->cpu, n, 0.99) / 1000.0, (double)bytes_out / secs * per_client,
         (double)snap_bytes / secs * per_client, (double)recv / secs * per_client);
  fflush(stdout);

  for (int i = 0; i < clients; ++i) {
    tc_close(cs[i]);
    tc_destroy(cs[i]);
  }
  free(cs);
  sv_server_deinit(&b->server);
  uv_loop_close(&b->loop);
  free(b);
}

int main(int argc, char** argv) {
  int seconds = 5;
  const char* list = "0,16,64";
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
      seconds = atoi(argv[++i]);
    else if (strcmp(argv[i], "--clients") == 0 && i + 1 < argc)
      list = argv[++i];
    else {
      printf(
          "Usage: %s [--seconds N] [--clients 0,16,64]\n"
          "Runs an in-process arbiter server on the built-in scene (60 Hz ticks, 30 Hz\n"
          "snapshots) with N connected clients walking and jumping, for N settings in the\n"
          "list, and prints tick wall time, server CPU per tick and bytes per client per second.\n",
          argv[0]);
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  if (seconds < 1) seconds = 1;
  enet_initialize();
  printf(
      "bench-server: built-in scene, 60 Hz ticks, 30 Hz snapshots, %d s measured per row after 1 s "
      "warm-up\n",
      seconds);
  printf("%7s %8s %6s %12s %12s %12s %12s %12s %14s %14s %14s\n", "clients", "welcomed", "ticks",
         "tick_p50_us", "tick_p99_us", "tick_max_us", "cpu_mean_us", "cpu_p99_us", "out_B/s/cli",
         "snap_B/s/cli", "recv_B/s/cli");
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    int n = atoi(tok);
    if (n < 0 || n > 64) continue;
    run(n, seconds);
  }
  enet_deinitialize();
  return 0;
}
