// bench-capacity: the server's tick without the network, so the figures are CPU time the
// server's own code spends (the network's share is bench/capacity/capacity.sh's).
//
// It loads a scene (bench/capacity/make_scene.py writes the capacity one), joins --clients
// players that walk in random directions (a new one every 2 s, a fixed-seed generator),
// and runs --seconds of game time at the scene's tick rate through the server's own code:
// every tick the game step and the state hash (as sv_tick), then the capture and the
// snapshot of each client due that tick (sv_snapshot_due: every --snapshot-every ticks,
// client i in the server's slot i; sv_snapshot + sv_snap_workers with --snapshot-threads,
// exactly what send_snapshots runs before handing packets to ENet). Each client
// acknowledges the snapshot sent --ack-lag snapshots earlier. The first 2 s (the joins'
// full snapshots) are not measured.
//
// Printed: CPU per tick of the tick thread (mean, p99, max; CLOCK_THREAD_CPUTIME_ID), split
// into step + hash (and the hash alone) and snapshots (and the capture alone); the
// snapshots' CPU of all threads and their wall time; the CPU per client snapshot (without
// snapshot threads: the builds' CPU over the snapshots built); bytes and records per client. With
// --digest, a digest of every packet and one of every tick's state hash (a change that
// must not alter either is checked by running it before and after). A benchmark: it
// measures, it never passes or fails.
#define _POSIX_C_SOURCE 200809L
#include <arbiter/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sv_snap_workers.h"

typedef struct options {
  const char* scene;
  int clients, threads, snapshot_every, ack_lag, kbps;
  double seconds;
  float radius;
  int digest;
} options;

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

/* mean / p99 / max of n samples in ms (sorts v). */
static void summary(const char* what, uint64_t* v, int n) {
  if (n == 0) return;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += (double)v[i];
  qsort(v, (size_t)n, sizeof *v, cmp_u64);
  printf("  %-34s mean %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%d samples)\n", what, sum / n * 1e-6,
         (double)v[(int)(0.99 * (n - 1) + 0.5)] * 1e-6, (double)v[n - 1] * 1e-6, n);
}

static void usage(FILE* f) {
  fprintf(f,
          "usage: bench-capacity SCENE.json [--clients N] [--seconds S] [--view-radius M]\n"
          "                      [--snapshot-threads N] [--snapshot-every K] [--ack-lag K]\n"
          "                      [--client-kbps N] [--digest]\n"
          "  The server's per-tick CPU (game step, hash, snapshot capture and per-client\n"
          "  builds) for N walking players, without the network. Defaults: --clients 256\n"
          "  --seconds 10 --view-radius 30 --snapshot-threads 0 --snapshot-every 2\n"
          "  --ack-lag 2 --client-kbps 1000. Also printed: the world's size per measured tick\n"
          "  (bodies awake, touching contacts, contacts collided). --digest also prints an\n"
          "  FNV-1a digest of every packet of every client (warm-up included) and one of\n"
          "  every tick's state hash, to show two builds send the same bytes and simulate\n"
          "  the same state.\n");
}

static int parse(int argc, char** argv, options* o) {
  *o = (options){NULL, 256, 0, 2, 2, 1000, 10.0, 30.0f, 0};
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--digest")) {
      o->digest = 1;
      continue;
    } else if (a[0] != '-') {
      o->scene = a;
      continue;
    } else if (!v) {
      return -1;
    } else if (!strcmp(a, "--clients")) {
      o->clients = atoi(v);
    } else if (!strcmp(a, "--seconds")) {
      o->seconds = atof(v);
    } else if (!strcmp(a, "--view-radius")) {
      o->radius = (float)atof(v);
    } else if (!strcmp(a, "--snapshot-threads")) {
      o->threads = atoi(v);
    } else if (!strcmp(a, "--snapshot-every")) {
      o->snapshot_every = atoi(v);
    } else if (!strcmp(a, "--ack-lag")) {
      o->ack_lag = atoi(v);
    } else if (!strcmp(a, "--client-kbps")) {
      o->kbps = atoi(v);
    } else {
      return -1;
    }
    ++i;
  }
  return o->scene && o->clients > 0 && o->seconds > 2.0 && o->threads >= 0 &&
                 o->snapshot_every > 0 && o->ack_lag >= 0 && o->kbps > 0
             ? 0
             : -1;
}

/* FNV-1a over every packet of every client, in client order (a length before each). */
static uint64_t digest_packets(uint64_t h, const sv_snap_job* jobs, int n) {
  for (int i = 0; i < n; ++i) {
    const arb_snapshot_build_result* r = &jobs[i].res;
    for (int p = 0; p < r->packet_count; ++p) {
      uint32_t len = (uint32_t)r->sizes[p];
      for (int k = 0; k < 4; ++k) h = (h ^ (len >> (8 * k) & 0xFFu)) * 0x100000001b3ull;
      for (uint32_t k = 0; k < len; ++k) h = (h ^ r->packets[p][k]) * 0x100000001b3ull;
    }
  }
  return h;
}

/* Player i's walk: a new random direction every 2 s. */
static void walk(arb_game* game, int players, uint64_t tick, int rate) {
  for (int i = 0; i < players; ++i) {
    uint64_t h = (tick / (uint64_t)(2 * rate) + 1) * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)(i + 1) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    arb_controls c = {0};
    c.move_x = (float)((int)(h & 1023) - 512) / 512.0f;
    c.move_y = (float)((int)(h >> 10 & 1023) - 512) / 512.0f;
    arb_game_set_controls(game, (uint32_t)i + 1, &c);
  }
}

int main(int argc, char** argv) {
  options o;
  if (parse(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  arb_scene* scene;
  arb_scene_error err;
  arb_game* game;
  if (arb_scene_load_file(o.scene, &scene, &err) != 0 || arb_game_create(scene, 1, &game) != 0) {
    fprintf(stderr, "bench-capacity: cannot load %s\n", o.scene);
    return 2;
  }
  uint32_t* avatars = calloc((size_t)o.clients, sizeof *avatars);
  for (int i = 0; i < o.clients; ++i)
    if (arb_game_join(game, (uint32_t)i + 1, ARB_AVATAR_DEFAULT, &avatars[i]) != 0) return 2;
  int max_entities = arb_scene_get_body_count(scene) + o.clients + 64;
  static sv_snapshot snap;
  sv_snap_workers* workers;
  sv_snap_client* clients = calloc((size_t)o.clients, sizeof *clients);
  sv_snap_job* jobs = calloc((size_t)o.clients, sizeof *jobs);
  if (!avatars || !clients || !jobs || sv_snapshot_init(&snap, max_entities) != 0 ||
      sv_snap_workers_create(o.threads, max_entities, &workers) != 0)
    return 2;
  for (int i = 0; i < o.clients; ++i) {
    if (sv_snap_client_init(&clients[i], max_entities) != 0) return 2;
    sv_snap_client_reset(&clients[i], o.kbps);
  }
  int rate = arb_scene_get_tick_rate(scene);
  int ticks = (int)(o.seconds * rate), warm = 2 * rate;
  uint64_t* tick_cpu = calloc((size_t)ticks, sizeof *tick_cpu);
  uint64_t* step_cpu = calloc((size_t)ticks, sizeof *step_cpu);
  uint64_t* hash_cpu = calloc((size_t)ticks, sizeof *hash_cpu);
  uint64_t* snap_cpu = calloc((size_t)ticks, sizeof *snap_cpu);
  uint64_t* capture_cpu = calloc((size_t)ticks, sizeof *capture_cpu);
  uint64_t* snap_all = calloc((size_t)ticks, sizeof *snap_all);
  uint64_t* snap_wall = calloc((size_t)ticks, sizeof *snap_wall);
  int nt = 0, ns = 0;
  long long bytes = 0, records = 0, built = 0, awake = 0, touching = 0, collided = 0;
  uint64_t build_cpu = 0;  // the tick thread's CPU in the client builds (capture excluded)
  uint64_t digest = 0xcbf29ce484222325ull, hashes = 0xcbf29ce484222325ull;
  for (int t = 1; t <= ticks; ++t) {
    walk(game, o.clients, (uint64_t)t, rate);
    uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    arb_game_step(game);
    uint64_t ch = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    hashes = (hashes ^ arb_game_hash(game)) * 0x100000001b3ull;
    uint64_t c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID), c2 = c1;
    // The clients whose snapshot is due this tick, as the server spreads them (the jobs
    // first, then the capture only if there are any: send_snapshots' order).
    uint32_t lag = (uint32_t)(o.ack_lag * o.snapshot_every);
    int n = 0;
    for (int i = 0; i < o.clients; ++i) {
      if (!sv_snapshot_due((uint64_t)t, o.snapshot_every, i)) continue;
      if ((uint32_t)t > lag) sv_snap_client_ack(&clients[i], (uint32_t)t - lag);
      jobs[n].client = &clients[i];
      jobs[n++].req = (sv_snap_request){(uint32_t)t,    0,
                                        avatars[i],     o.radius,
                                        (uint16_t)rate, rate / o.snapshot_every,
                                        0.0f,           0.0f,
                                        false,          {{0.0f, 0.0f}, {0.0f, 0.0f}}};
    }
    if (n > 0) {
      uint64_t p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), w1 = clock_ns(CLOCK_MONOTONIC);
      sv_snapshot_capture(&snap, game, o.radius);
      uint64_t cc = clock_ns(CLOCK_THREAD_CPUTIME_ID);
      sv_snap_workers_run(workers, &snap, jobs, n);
      c2 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
      if (o.digest) digest = digest_packets(digest, jobs, n);
      if (t > warm) {
        snap_all[ns] = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p1;
        snap_wall[ns] = clock_ns(CLOCK_MONOTONIC) - w1;
        capture_cpu[ns] = cc - c1;
        build_cpu += c2 - cc;
        snap_cpu[ns++] = c2 - c1;
        for (int i = 0; i < n; ++i) {
          if (jobs[i].rc != 0) return 2;
          bytes += jobs[i].res.bytes;
          records += jobs[i].res.entered + jobs[i].res.updated + jobs[i].res.removed;
        }
        built += n;
      }
    }
    if (t > warm) {
      arb_world_counters wc = arb_world_get_counters(arb_game_get_world(game));
      awake += wc.awake_body_count;
      touching += wc.touching_count;
      collided += wc.step_collided_contacts;
      step_cpu[nt] = c1 - c0;
      hash_cpu[nt] = c1 - ch;
      tick_cpu[nt++] = c2 - c0;
    }
  }
  double measured = (double)nt / rate;
  printf(
      "bench-capacity: %s, %d clients, view radius %.0f m, %d snapshot threads, %d Hz ticks, "
      "a snapshot every %d ticks, acks %d snapshots late, %.0f s measured\n",
      o.scene, o.clients, (double)o.radius, o.threads, rate, o.snapshot_every, o.ack_lag, measured);
  if (nt > 0)
    printf("  world per tick: %.0f bodies awake, %.0f touching contacts, %.0f contacts collided\n",
           (double)awake / nt, (double)touching / nt, (double)collided / nt);
  summary("tick thread CPU per tick", tick_cpu, nt);
  summary("  step + hash", step_cpu, nt);
  summary("    of which the state hash", hash_cpu, nt);
  summary("  snapshots (per building tick)", snap_cpu, ns);
  summary("    of which the capture", capture_cpu, ns);
  summary("snapshots, CPU of all threads", snap_all, ns);
  summary("snapshots, wall time", snap_wall, ns);
  if (built > 0 && o.threads == 0)
    printf("  per client snapshot (the builds' CPU / snapshots built): %.2f us\n",
           (double)build_cpu * 1e-3 / (double)built);
  printf("  per client: %.0f B/s of snapshot payload, %.1f records per snapshot\n",
         (double)bytes / o.clients / measured, built ? (double)records / (double)built : 0.0);
  if (o.digest) {
    printf("  digest of every packet: %016llx\n", (unsigned long long)digest);
    printf("  digest of every tick's state hash: %016llx\n", (unsigned long long)hashes);
  }
  for (int i = 0; i < o.clients; ++i) sv_snap_client_free(&clients[i]);
  sv_snap_workers_destroy(workers);
  sv_snapshot_free(&snap);
  arb_game_destroy(game);
  arb_scene_destroy(scene);
  free(avatars);
  free(clients);
  free(jobs);
  free(tick_cpu);
  free(step_cpu);
  free(hash_cpu);
  free(snap_cpu);
  free(capture_cpu);
  free(snap_all);
  free(snap_wall);
  return 0;
}
