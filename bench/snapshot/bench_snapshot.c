// bench-snapshot: what snapshots cost one client, and what the client then draws.
//
// For each generated scene (scenes.h) it simulates --seconds of game time at 60 Hz with one
// joined player, captures the world every 2nd tick (30 snapshots/s) and feeds several
// independent "clients" from the same capture:
//   exact         tolerances 0: the client draws the exact quantized state
//   default       default tolerances (arb_snapshot_default_tolerance), no budget
//                 (both straight from arb_snapshot_build, with a lossless model of what the
//                 client draws)
//   server N      the server's own path (sv_snapshot with --client-kbps N, the drawn-set
//                 model, error-weighted priorities, the rate controller)
// Every packet is decoded by the client library's snapshot receiver (cl_snapshots, what
// arb_client_sample interpolates between), which acknowledges its newest complete view;
// the acknowledgement reaches the server --rtt-ms later (no loss). Bandwidth counts the
// snapshot payloads, and "wire" adds 40 bytes per packet (IPv4 28 + ENet 12). The error is
// the distance between where the client draws each body at the snapshot's tick (the
// newest complete view's bodies) and the server's true float position at that tick, over
// all bodies (within --view-radius of the avatar when given) and over the 50 bodies nearest
// the avatar, counted from the first snapshot at which the client draws every one of them.
// Prints figures; never fails (benchmarks are not tests).
#include <arbiter/scene.h>
#include <arbiter/snapshot_drawn.h>
#include <arbiter/snapshot_priority.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_snapshot.h"
#include "scenes.h"
#include "sv_capture.h"
#include "sv_snapshot.h"

#define MAX_ENT 12000
#define RING 16
#define SNAP_EVERY 2
#define WIRE_OVERHEAD 40
#define MAX_CONFIGS 8

typedef struct samples {
  float* v;
  size_t n, cap;
} samples;

static void push(samples* s, float v) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4096;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    if (!s->v) exit(2);
  }
  s->v[s->n++] = v;
}

static int cmp_float(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return x < y ? -1 : x > y;
}

static float pct(samples* s, double p) {
  if (s->n == 0) return NAN;
  size_t i = (size_t)(p * (double)(s->n - 1) + 0.5);
  return s->v[i];
}

typedef struct client {
  const char* label;
  int kbps;                           ///< 0 = no budget
  int server_path;                    ///< through sv_snapshot (kbps = its ceiling)
  arb_snapshot_set drawn, drawn_tmp;  ///< direct builds: what the client draws (lossless)
  sv_snap_client sc;
  cl_snapshots rx;  ///< the client library's receiver
  arb_snapshot_tolerance tol;
  arb_snapshot_builder* builder;
  arb_snapshot_entity* storage;
  arb_snapshot_set ring[RING];
  uint32_t ring_tick[RING];
  int next;
  uint32_t acked;
  long long bytes, packets, deferred;
  int snapshots;
  double complete_at;  ///< seconds, < 0 until the client first holds every body
  samples err_all, err_near;
} client;

static void client_init(client* c, const char* label, int kbps, arb_snapshot_tolerance tol,
                        int server_path) {
  memset(c, 0, sizeof *c);
  c->label = label;
  c->kbps = kbps;
  c->tol = tol;
  c->server_path = server_path;
  c->complete_at = -1;
  static const cl_mem mem = {NULL, NULL, NULL};
  if (cl_snapshots_init(&c->rx, MAX_ENT, &mem) != 0) exit(2);
  if (server_path) {
    if (sv_snap_client_init(&c->sc, MAX_ENT) != 0) exit(2);
    sv_snap_client_reset(&c->sc, kbps);
  }
  if (arb_snapshot_builder_create(1200, MAX_ENT, &c->builder) != 0) exit(2);
  c->storage = calloc((size_t)RING * 2 * MAX_ENT, sizeof *c->storage);
  c->drawn = (arb_snapshot_set){calloc(3 * MAX_ENT, sizeof(arb_snapshot_entity)), 0, 3 * MAX_ENT};
  c->drawn_tmp =
      (arb_snapshot_set){calloc(3 * MAX_ENT, sizeof(arb_snapshot_entity)), 0, 3 * MAX_ENT};
  if (!c->storage || !c->drawn.items || !c->drawn_tmp.items) exit(2);
  for (int i = 0; i < RING; ++i)
    c->ring[i] = (arb_snapshot_set){c->storage + (size_t)i * 2 * MAX_ENT, 0, 2 * MAX_ENT};
}

static void client_free(client* c) {
  cl_snapshots_deinit(&c->rx);
  if (c->server_path) sv_snap_client_free(&c->sc);
  arb_snapshot_builder_destroy(c->builder);
  free(c->storage);
  free(c->drawn.items);
  free(c->drawn_tmp.items);
  free(c->err_all.v);
  free(c->err_near.v);
}

static int find_slot(const client* c, uint32_t tick) {
  for (int i = 0; tick && i < RING; ++i)
    if (c->ring_tick[i] == tick) return i;
  return -1;
}

typedef struct world_now {
  sv_capture* cap;
  uint32_t tick;
  arb_snapshot_interest interest;
  const int* near;  ///< indices into cap->set of the 50 bodies nearest the avatar
  int near_count;
  double t;             ///< seconds of game time
  float view_radius;    ///< 0 = every body counts
  sv_snapshot* server;  ///< the server path's capture of this tick
  sv_snap_scratch* scratch;
} world_now;

static bool counted(const world_now* w, int i) {
  if (w->cap->set.items[i].cls != ARB_SNAPSHOT_BODY) return false;
  if (w->view_radius <= 0.0f) return true;
  return arb_length(arb_sub(w->cap->positions[i], w->interest.avatar)) <= w->view_radius;
}

/* What the client draws at the tick: its newest complete view's bodies, dequantized. */
static void measure(client* c, const world_now* w) {
  const cl_slot* sl = cl_snapshots_get(&c->rx, c->rx.newest_complete);
  if (!sl || sl->tick != w->tick) return;  // this tick did not complete (not measured)
  const arb_snapshot_set* cur = &w->cap->set;
  int missing = 0;
  for (int i = 0; i < cur->count; ++i)
    if (counted(w, i) && !cl_body_set_find(&sl->bodies, cur->items[i].id)) ++missing;
  if (c->complete_at < 0 && missing == 0) c->complete_at = w->t;
  if (c->complete_at < 0) return;
  for (int i = 0; i < cur->count; ++i) {
    if (!counted(w, i)) continue;
    const cl_body* e = cl_body_set_find(&sl->bodies, cur->items[i].id);
    if (!e) continue;  // left and re-entering: not drawn at all
    float err = arb_length(arb_sub(e->position, w->cap->positions[i]));
    push(&c->err_all, err);
    for (int k = 0; k < w->near_count; ++k)
      if (w->near[k] == i) push(&c->err_near, err);
  }
}

static void receive(client* c, const arb_snapshot_build_result* r) {
  for (int p = 0; p < r->packet_count; ++p) {
    cl_snap_result res;
    arb_proto_error err;
    if (cl_snapshots_receive(&c->rx, r->packets[p], (size_t)r->sizes[p], &res, &err) < 0) {
      fprintf(stderr, "bench-snapshot: %s: the client refused a part: %s\n", c->label, err.reason);
      exit(2);
    }
  }
}

static void direct_build(client* c, const world_now* w, uint32_t acked,
                         arb_snapshot_build_result* r) {
  if (find_slot(c, acked) >= 0) c->acked = acked;
  int base = find_slot(c, c->acked), write = c->next;
  if (base == write) base = -1;
  sv_capture* cap = w->cap;
  arb_snapshot_build_args a;
  memset(&a, 0, sizeof a);
  a.h = (arb_snapshot_header){
      w->tick, base >= 0 ? c->ring_tick[base] : 0, 0, 0, 0, 60, cap->gravity_x, cap->gravity_y};
  a.baseline = base >= 0 ? &c->ring[base] : NULL;
  a.current = &cap->set;
  a.describe = sv_capture_describe;
  a.describe_user = cap;
  a.tol = c->tol;
  a.packet_overhead = WIRE_OVERHEAD;
  a.sent = &c->ring[write];
  a.drawn = &c->drawn;
  int rc = arb_snapshot_build(c->builder, &a, r);
  if (rc != 0) {
    fprintf(stderr, "bench-snapshot: build failed: %s\n", arb_strerror(rc));
    exit(2);
  }
  c->ring_tick[write] = w->tick;
  c->next = (write + 1) % RING;
  if (arb_snapshot_drawn_apply(&c->drawn, &c->ring[write], a.baseline, a.h.baseline_tick,
                               &c->drawn_tmp) != 0)
    exit(2);
  arb_snapshot_set t = c->drawn;
  c->drawn = c->drawn_tmp;
  c->drawn_tmp = t;
}

static void client_snapshot(client* c, const world_now* w, uint32_t acked, int rtt_ms) {
  arb_snapshot_build_result r;
  if (c->server_path) {
    sv_snap_client_ack(&c->sc, acked);
    sv_snap_request req = {
        w->tick, 0,    w->interest.avatar_id, w->view_radius, 60,
        30,      0.0f, (float)rtt_ms,         false,          {{0.0f, 0.0f}, {0.0f, 0.0f}}};
    if (sv_snapshot_build(w->server, w->scratch, &c->sc, &req, &r) != 0) exit(2);
  } else {
    direct_build(c, w, acked, &r);
  }
  c->bytes += r.bytes;
  c->packets += r.packet_count;
  c->deferred += r.deferred;
  c->snapshots++;
  receive(c, &r);
  measure(c, w);
}

static const arb_vec2* sort_pos;
static arb_vec2 sort_center;
static int by_distance(const void* a, const void* b) {
  float da = arb_length_sq(arb_sub(sort_pos[*(const int*)a], sort_center));
  float db = arb_length_sq(arb_sub(sort_pos[*(const int*)b], sort_center));
  return da < db ? -1 : da > db;
}

/* The 50 bodies nearest the avatar (the avatar itself excluded). */
static int nearest(const sv_capture* cap, uint32_t avatar, arb_vec2 center, int* scratch,
                   int* out) {
  int n = 0;
  for (int i = 0; i < cap->set.count; ++i)
    if (cap->set.items[i].cls == ARB_SNAPSHOT_BODY && cap->set.items[i].id != avatar)
      scratch[n++] = i;
  sort_pos = cap->positions;
  sort_center = center;
  qsort(scratch, (size_t)n, sizeof *scratch, by_distance);
  int k = n < 50 ? n : 50;
  memcpy(out, scratch, (size_t)k * sizeof *out);
  return k;
}

static void print_row(const char* label, long long bytes, long long packets, double seconds,
                      client* c) {
  double kbps = (double)bytes * 8.0 / seconds / 1000.0;
  double wire = (double)(bytes + packets * WIRE_OVERHEAD) * 8.0 / seconds / 1000.0;
  printf("  %-16s %9.1f %9.1f %8.1f", label, kbps, wire, (double)packets / seconds);
  qsort(c->err_all.v, c->err_all.n, sizeof(float), cmp_float);
  qsort(c->err_near.v, c->err_near.n, sizeof(float), cmp_float);
  if (c->complete_at < 0) {
    printf("   never held every body\n");
    return;
  }
  printf("  %5.1f  %6.1f %6.1f %7.1f  %6.1f %6.1f %7.1f\n", c->complete_at,
         1000 * pct(&c->err_all, 0.5), 1000 * pct(&c->err_all, 0.95), 1000 * pct(&c->err_all, 1.0),
         1000 * pct(&c->err_near, 0.5), 1000 * pct(&c->err_near, 0.95),
         1000 * pct(&c->err_near, 1.0));
}

typedef struct options {
  double seconds;
  float view_radius;
  int rtt_ms;
  int scene;  ///< -1 = all
} options;

static arb_game* load(bench_scene s, arb_scene** scene) {
  size_t len = 0;
  char* json = bench_scene_json(s, &len);
  arb_scene_error err;
  arb_game* game = NULL;
  if (!json || arb_scene_load_string(json, len, "bench", scene, &err) != 0 ||
      arb_game_create(*scene, 1, &game) != 0) {
    char msg[256];
    arb_scene_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "bench-snapshot: scene %d: %s\n", (int)s, msg);
    exit(2);
  }
  free(json);
  return game;
}

static void run_scene(bench_scene s, const options* o) {
  arb_scene* scene;
  arb_game* game = load(s, &scene);
  uint32_t avatar = 0;
  if (arb_game_join(game, 1, ARB_AVATAR_DEFAULT, &avatar) != 0) exit(2);
  static sv_capture cap;
  static client cl[MAX_CONFIGS];
  static const int budgets[] = {64, 128, 256, 1000};
  static char labels[4][32];
  const arb_snapshot_tolerance exact = {0, 0, 0, 0};
  static sv_snapshot server;
  static sv_snap_scratch scratch_server;
  if (sv_capture_init(&cap, MAX_ENT) != 0 || sv_snapshot_init(&server, MAX_ENT) != 0 ||
      sv_snap_scratch_init(&scratch_server, MAX_ENT) != 0)
    exit(2);
  int nc = 0;
  client_init(&cl[nc++], "exact", 0, exact, 0);
  client_init(&cl[nc++], "default", 0, arb_snapshot_default_tolerance(), 0);
  for (int b = 0; b < 4; ++b) {
    snprintf(labels[b], sizeof labels[b], "server %d", budgets[b]);
    client_init(&cl[nc++], labels[b], budgets[b], arb_snapshot_default_tolerance(), 1);
  }
  static int scratch[MAX_ENT], near[50];
  uint32_t sent_ticks[4096];
  int sent_count = 0, rtt_ticks = (o->rtt_ms * 60 + 999) / 1000;
  int ticks = (int)(o->seconds * 60.0);
  for (int t = 1; t <= ticks; ++t) {
    arb_game_step(game);
    if (t % SNAP_EVERY) continue;
    uint32_t acked = 0;
    for (int i = 0; i < sent_count; ++i)
      if ((int)sent_ticks[i] <= t - rtt_ticks) acked = sent_ticks[i];
    sv_capture_run(&cap, game);
    sv_snapshot_capture(&server, game, o->view_radius);
    world_now w = {&cap,     (uint32_t)t,    {0},     near,           0,
                   t / 60.0, o->view_radius, &server, &scratch_server};
    w.interest.avatar_id = avatar;
    w.interest.near_radius = 10.0f;
    const arb_snapshot_entity* me = arb_snapshot_set_find(&cap.set, avatar);
    if (me) w.interest.avatar = cap.positions[me - cap.set.items];
    w.near_count = nearest(&cap, avatar, w.interest.avatar, scratch, near);
    for (int c = 0; c < nc; ++c) client_snapshot(&cl[c], &w, acked, o->rtt_ms);
    if (sent_count < 4096) sent_ticks[sent_count++] = (uint32_t)t;
  }
  printf("\n%s: %d entities, %.0f s at 30 snapshots/s, RTT %d ms, view radius %g m\n",
         bench_scene_name(s), cap.set.count, o->seconds, o->rtt_ms, (double)o->view_radius);
  printf("  %-16s %9s %9s %8s  %5s  %-22s  %-22s\n", "format", "kbit/s", "wire", "pkt/s", "full",
         "error all p50/p95/max", "error 50 nearest");
  printf("  %-16s %9s %9s %8s  %5s  %-22s  %-22s\n", "", "payload", "kbit/s", "", "at s", "mm",
         "mm");
  for (int c = 0; c < nc; ++c) {
    print_row(cl[c].label, cl[c].bytes, cl[c].packets, o->seconds, &cl[c]);
    client_free(&cl[c]);
  }
  sv_capture_free(&cap);
  sv_snapshot_free(&server);
  sv_snap_scratch_free(&scratch_server);
  arb_game_destroy(game);
  arb_scene_destroy(scene);
}

static void usage(FILE* f) {
  fprintf(f,
          "usage: bench-snapshot [--seconds S] [--rtt-ms MS] [--view-radius M] [--scene 0|1|2]\n"
          "Snapshot bandwidth per client (with and without a byte budget)\n"
          "and the position error of what the client library draws, on three generated scenes:\n"
          "  0  1000 elastic circles, top-down, never at rest\n"
          "  1  1000 bodies dropped into a bin, settling\n"
          "  2  10 000 bodies, 1000 of them moving\n"
          "  --seconds S   game seconds per scene (default 20)\n"
          "  --rtt-ms MS   acknowledgement delay (default 100)\n"
          "  --view-radius M  the server's --view-radius; errors over the bodies within it\n"
          "                (default 0: everything, every body counts)\n"
          "  --scene N     only this scene (default: all)\n");
}

int main(int argc, char** argv) {
  options o = {20.0, 0.0f, 100, -1};
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      o.seconds = atof(argv[++i]);
    } else if (strcmp(argv[i], "--rtt-ms") == 0 && i + 1 < argc) {
      o.rtt_ms = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--view-radius") == 0 && i + 1 < argc) {
      o.view_radius = (float)atof(argv[++i]);
    } else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      o.scene = atoi(argv[++i]);
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (!(o.seconds > 0 && o.seconds <= 120) || o.rtt_ms < 0 || o.rtt_ms > 2000 ||
      !(o.view_radius >= 0.0f) || o.scene < -1 || o.scene >= SCENE_COUNT) {
    usage(stderr);
    return 2;
  }
  for (int s = 0; s < SCENE_COUNT; ++s)
    if (o.scene < 0 || o.scene == s) run_scene((bench_scene)s, &o);
  return 0;
}
