// Particles, links (ropes, springs, joints) and vehicle wheels through a real server and
// the client library, checked against the truth of the server's own replay log:
//
//  1. round trip: the extras scene (ropes, cloth, a jointed chain, a spring, two cars, a
//     vehicle avatar driven by the test) plus a ball on a breakable tether that snaps at
//     tick 177 (about 3 s in), recorded by arbiter-server; at a dozen moments the
//     client's newest complete snapshot (tick T: bodies, particles, links, wheels as the
//     library returns them) is kept; after the session `arbiter-replay dump` re-simulates
//     the log and every entity's state at T, quantized as the protocol specifies, must
//     match what the client held within the sender's tolerances (PROTOCOL.md §6.7: 1/128 m,
//     16/65536 turn, 1/256 m/s, 32/65536 turn/s; exact for flags, steering and the own
//     avatar), and every entity must be there; the snapped tether is gone from the
//     client's links as it is from the server's joints;
//  2. the same through arbiter-netem (loss, duplication and reordering both ways): the
//     delta chains must converge to the same exact answer at every checkpoint tick;
//  3. budget: a spectator of a server run with --client-kbps 16 and one of a server with
//     the default budget; for the first, no window of one second of snapshot ticks holds
//     more than 16 kbit plus one packet of received bytes, while the second receives well
//     over 16 kbit/s (the scene needs more than the budget, so the limit did something).
// argv: arbiter-server arbiter-netem arbiter-replay SCENE.json
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arbiter/protocol.h>
#include <arbiter/snapshot.h>

#include "../common/test_main.h"
#include "test_client_util.h"

static const char* g_server;
static const char* g_netem;
static const char* g_replay;
static const char* g_scene;

#define CP_MAX 256   // entities of one kind per checkpoint
#define CP_COUNT 12  // checkpoints per session

typedef struct checkpoint {
  uint32_t tick, own;
  int nb, np, nl, nw;
  arb_client_entity_state bodies[CP_MAX];
  arb_client_particle particles[CP_MAX];
  arb_client_link links[CP_MAX];
  arb_client_wheel wheels[CP_MAX];
} checkpoint;

static checkpoint g_cps[CP_COUNT];

// ---- the session ----------------------------------------------------------------------

static bool has_snapshot(void* user) {
  return arb_client_get_snapshot_tick((arb_client*)user) > 0;
}

// What the client holds at its newest complete snapshot, all from one instant.
static void take_checkpoint(arb_client* c, checkpoint* cp) {
  cp->tick = (uint32_t)arb_client_get_snapshot_tick(c);
  cp->own = arb_client_get_session(c)->avatar_entity;
  cp->nb = arb_client_get_latest(c, cp->bodies, CP_MAX);
  cp->np = arb_client_get_particles(c, ARB_CLIENT_AT_LATEST, cp->particles, CP_MAX);
  cp->nl = arb_client_get_links(c, ARB_CLIENT_AT_LATEST, cp->links, CP_MAX);
  cp->nw = arb_client_get_wheels(c, ARB_CLIENT_AT_LATEST, cp->wheels, CP_MAX);
  assert_true(cp->nb <= CP_MAX && cp->np <= CP_MAX && cp->nl <= CP_MAX && cp->nw <= CP_MAX);
}

// Draw-time sampling as an application does it, every frame: the interpolated extras are
// there, as many as the newest snapshot holds, and finite.
static void sample_frame(arb_client* c, double now) {
  static arb_client_entity_state states[CP_MAX];
  static arb_client_particle p[CP_MAX];
  static arb_client_link l[CP_MAX];
  static arb_client_wheel w[CP_MAX];
  if (arb_client_sample(c, now, states, CP_MAX) <= 0) return;
  int np = arb_client_get_particles(c, ARB_CLIENT_AT_SAMPLE, p, CP_MAX);
  int nl = arb_client_get_links(c, ARB_CLIENT_AT_SAMPLE, l, CP_MAX);
  int nw = arb_client_get_wheels(c, ARB_CLIENT_AT_SAMPLE, w, CP_MAX);
  assert_int_equal(np, arb_client_get_particles(c, ARB_CLIENT_AT_LATEST, NULL, 0));
  for (int i = 0; i < np && i < CP_MAX; i++) assert_true(p[i].position.x == p[i].position.x);
  for (int i = 0; i < nl && i < CP_MAX; i++) assert_true(l[i].anchor_a.y == l[i].anchor_a.y);
  for (int i = 0; i < nw && i < CP_MAX; i++)
    assert_true(w[i].spin == w[i].spin && w[i].radius > 0.0f);
}

// A recorded session with the vehicle avatar driven in alternating turns; fills g_cps.
// Returns the number of checkpoints taken.
static int run_session(const char* log, bool impaired) {
  cu_proc srv, net;
  const char* extra[] = {"--scene", g_scene, "--record", log, "--peer-timeout-ms", "10000", NULL};
  int port = cu_server_up(&srv, g_server, extra);
  int cport = port;
  if (impaired) {
    const char* impair[] = {"--down-loss", "15",        "--up-loss", "10",        "--dup",
                            "5",           "--reorder", "10",        "--latency", "20",
                            "--jitter",    "10",        "--seed",    "13",        NULL};
    cport = cu_netem_start(&net, g_netem, port, impair);
    assert_true(cport > 0);
  }
  arb_client_config cfg = arb_client_default_config();
  cfg.port = (uint16_t)cport;
  cfg.name = "extras";
  cfg.connect_timeout = 10.0f;
  arb_client* c = NULL;
  assert_int_equal(arb_client_create(&cfg, &c), 0);
  assert_int_equal(arb_client_connect(c), 0);
  assert_true(cu_pump(&c, 1, 20.0, has_snapshot, c));
  int taken = 0;
  for (int k = 0; k < CP_COUNT; k++) {
    arb_controls ctl = {0};
    ctl.throttle = 1.0f;
    ctl.steer = k % 2 ? 0.8f : -0.8f;
    arb_client_set_controls(c, &ctl);
    double end = cu_now() + 0.4;
    for (double now = cu_now(); now < end; now = cu_now()) {
      arb_client_update(c, now);
      sample_frame(c, now);
      cu_sleep(0.004);
    }
    if (arb_client_get_state(c) != ARB_CLIENT_CONNECTED || arb_client_get_snapshot_tick(c) == 0)
      continue;
    take_checkpoint(c, &g_cps[taken++]);
  }
  arb_client_stats st;
  arb_client_get_stats(c, &st);
  print_message(
      "%s: %d checkpoints, %llu snapshots, %llu lost, %llu duplicate parts, %llu baselines "
      "missing\n",
      impaired ? "through netem" : "direct", taken, (unsigned long long)st.snapshots_received,
      (unsigned long long)st.snapshots_lost, (unsigned long long)st.snapshots_duplicate,
      (unsigned long long)st.baseline_missing);
  arb_client_disconnect(c, "done");
  arb_client_destroy(c);
  if (impaired) assert_int_equal(cu_stop(&net, SIGTERM), 0);
  assert_int_equal(cu_stop(&srv, SIGTERM), 0);
  return taken;
}

// ---- the truth ------------------------------------------------------------------------

static float jf(const json_t* a, size_t i) {
  return (float)json_number_value(json_array_get(a, i));
}
static arb_vec2 jv(const json_t* o, const char* key) {
  const json_t* a = json_object_get(o, key);
  assert_true(json_is_array(a) && json_array_size(a) == 2);
  return arb_v2(jf(a, 0), jf(a, 1));
}
static float jnum(const json_t* o, const char* key) {
  const json_t* v = json_object_get(o, key);
  assert_true(json_is_number(v));
  return (float)json_number_value(v);
}

static int32_t qpos_diff(float a, float b) {
  int64_t d = (int64_t)arb_proto_quantize_pos(a) - arb_proto_quantize_pos(b);
  return (int32_t)(d < 0 ? -d : d);
}
static int32_t qvel_diff(float a, float b) {
  int64_t d = (int64_t)arb_proto_quantize_vel(a) - arb_proto_quantize_vel(b);
  return (int32_t)(d < 0 ? -d : d);
}
static int qangle_diff(float a, float b) {
  int d = (int16_t)(uint16_t)(arb_proto_quantize_angle(a) - arb_proto_quantize_angle(b));
  return d < 0 ? -d : d;
}
static int32_t qangvel_diff(float a, float b) {
  int64_t d = (int64_t)arb_snapshot_quantize_angvel(a) - arb_snapshot_quantize_angvel(b);
  return (int32_t)(d < 0 ? -d : d);
}

// Non-static bodies of the scene file: with the avatars, what a client is sent.
static int scene_dynamic_bodies(int* ropes) {
  json_error_t err;
  json_t* s = json_load_file(g_scene, 0, &err);
  assert_non_null(s);
  int n = 0;
  json_t* b;
  size_t i;
  json_array_foreach(json_object_get(s, "bodies"), i, b) {
    const char* type = json_string_value(json_object_get(b, "type"));
    n += !type || strcmp(type, "static") != 0;
  }
  *ropes = (int)json_array_size(json_object_get(s, "constraints"));
  json_decref(s);
  return n;
}

static void check_bodies(const checkpoint* cp, const json_t* line, int dynamic) {
  const json_t* bodies = json_object_get(line, "bodies");
  int avatars = 0, found = 0;
  json_t* b;
  size_t i;
  json_array_foreach(bodies, i, b) {
    uint32_t id = (uint32_t)json_integer_value(json_object_get(b, "id"));
    avatars += json_object_get(b, "owner") != NULL;
    for (int k = 0; k < cp->nb; k++) {
      const arb_client_entity_state* s = &cp->bodies[k];
      if (s->id != id) continue;
      found++;
      bool own = id == cp->own;  // held exactly (zero tolerance)
      arb_vec2 p = jv(b, "p"), v = jv(b, "v");
      if (qpos_diff(s->position.x, p.x) > !own || qpos_diff(s->position.y, p.y) > !own ||
          qangle_diff(s->angle, jnum(b, "a")) > (own ? 0 : 16) ||
          qvel_diff(s->linear_velocity.x, v.x) > !own ||
          qvel_diff(s->linear_velocity.y, v.y) > !own)
        fail_msg(
            "tick %u body %u: client (%.4f %.4f a %.4f v %.3f %.3f) server (%.4f %.4f a %.4f v "
            "%.3f %.3f)",
            cp->tick, id, (double)s->position.x, (double)s->position.y, (double)s->angle,
            (double)s->linear_velocity.x, (double)s->linear_velocity.y, (double)p.x, (double)p.y,
            (double)jnum(b, "a"), (double)v.x, (double)v.y);
      // The library reports the v1 unit (coarser than the wire's): 0.01 rad/s.
      float dw = s->angular_velocity - jnum(b, "w");
      if (dw > 0.01f || dw < -0.01f)
        fail_msg("tick %u body %u: angular velocity %.4f, server %.4f", cp->tick, id,
                 (double)s->angular_velocity, (double)jnum(b, "w"));
    }
  }
  assert_int_equal(cp->nb, dynamic + avatars);  // everything is in view (no --view-radius)
  assert_int_equal(found, cp->nb);
}

static void check_particles(const checkpoint* cp, const json_t* line) {
  const json_t* ps = json_object_get(line, "particles");
  assert_int_equal(cp->np, (int)json_array_size(ps));
  for (int i = 0; i < cp->np; i++) {  // ids in particle order
    const arb_client_particle* c = &cp->particles[i];
    const json_t* t = json_array_get(ps, (size_t)i);
    arb_vec2 p = jv(t, "p"), v = jv(t, "v");
    if (qpos_diff(c->position.x, p.x) > 1 || qpos_diff(c->position.y, p.y) > 1 ||
        qvel_diff(c->velocity.x, v.x) > 1 || qvel_diff(c->velocity.y, v.y) > 1 ||
        c->pinned != json_is_true(json_object_get(t, "pinned")))
      fail_msg(
          "tick %u particle %d: client (%.4f %.4f v %.3f %.3f pinned %d) server (%.4f %.4f v %.3f "
          "%.3f)",
          cp->tick, i, (double)c->position.x, (double)c->position.y, (double)c->velocity.x,
          (double)c->velocity.y, c->pinned, (double)p.x, (double)p.y, (double)v.x, (double)v.y);
  }
}

static const arb_client_particle* particle(const checkpoint* cp, uint32_t id) {
  for (int i = 0; i < cp->np; i++)
    if (cp->particles[i].id == id) return &cp->particles[i];
  return NULL;
}

// Anchors placed by the client on quantized bodies: within 2.5/128 m and the angle
// tolerance times an arm of at most 2 m of the server's anchors.
static bool near(arb_vec2 a, arb_vec2 b) {
  return arb_distance(a, b) <= 2.5f / 128.0f + 0.004f;
}

static void check_links(const checkpoint* cp, const json_t* line, int ropes) {
  const json_t* springs = json_object_get(line, "springs");
  const json_t* joints = json_object_get(line, "joints");
  int nr = 0, ns = 0, nj = 0;
  for (int i = 0; i < cp->nl; i++) {
    const arb_client_link* l = &cp->links[i];
    if (l->kind == ARB_CLIENT_LINK_ROPE) {  // between its particles, as the client has them
      const arb_client_particle *a = particle(cp, l->a), *b = particle(cp, l->b);
      assert_true(a && b);
      assert_true(a->position.x == l->anchor_a.x && b->position.y == l->anchor_b.y);
      nr++;
      continue;
    }
    const json_t* t = json_array_get(l->kind == ARB_CLIENT_LINK_SPRING ? springs : joints,
                                     (size_t)(l->kind == ARB_CLIENT_LINK_SPRING ? ns++ : nj++));
    assert_non_null(t);
    if (l->kind == ARB_CLIENT_LINK_JOINT) assert_int_equal(l->joint_type, (int)jnum(t, "type"));
    arb_vec2 a = jv(t, "a"), b = jv(t, "b");
    if (!near(l->anchor_a, a) || !near(l->anchor_b, b))
      fail_msg(
          "tick %u link %x (kind %d, ends %u %u): client (%.4f %.4f)-(%.4f %.4f) server (%.4f "
          "%.4f)-(%.4f %.4f)",
          cp->tick, l->id, l->kind, l->a, l->b, (double)l->anchor_a.x, (double)l->anchor_a.y,
          (double)l->anchor_b.x, (double)l->anchor_b.y, (double)a.x, (double)a.y, (double)b.x,
          (double)b.y);
  }
  assert_int_equal(nr, ropes);
  assert_int_equal(ns, (int)json_array_size(springs));
  assert_int_equal(nj, (int)json_array_size(joints));
}

static void check_wheels(const checkpoint* cp, const json_t* line) {
  const json_t* vehicles = json_object_get(line, "vehicles");
  int n = 0;
  json_t* v;
  size_t i;
  json_array_foreach(vehicles, i, v) {  // wheel ids follow vehicle slots, then wheel order
    json_t* t;
    size_t k;
    json_array_foreach(json_object_get(v, "wheels"), k, t) {
      assert_true(n < cp->nw);
      const arb_client_wheel* w = &cp->wheels[n++];
      assert_int_equal(w->vehicle, (uint32_t)jnum(v, "chassis"));
      float rate = -jnum(v, "speed") / w->radius;  // rolling without slip (the server's rule)
      if (qangle_diff(w->steer, jnum(t, "steer")) != 0 ||
          qangle_diff(w->spin, jnum(t, "spin")) > 16 || qangvel_diff(w->spin_rate, rate) > 32 ||
          w->skid != json_is_true(json_object_get(t, "skid")) || !near(w->position, jv(t, "p")))
        fail_msg(
            "tick %u wheel %x: client steer %.4f spin %.4f rate %.3f skid %d at (%.3f %.3f); "
            "server steer %.4f "
            "spin %.4f rate %.3f skid %d",
            cp->tick, w->id, (double)w->steer, (double)w->spin, (double)w->spin_rate, w->skid,
            (double)w->position.x, (double)w->position.y, (double)jnum(t, "steer"),
            (double)jnum(t, "spin"), (double)rate, json_is_true(json_object_get(t, "skid")));
    }
  }
  assert_int_equal(n, cp->nw);
}

// Re-simulate the log and compare every checkpoint with the state of its tick.
static void check_against_log(const char* log, int taken) {
  assert_true(taken >= CP_COUNT / 2);
  uint32_t lo = g_cps[0].tick, hi = g_cps[taken - 1].tick;
  char from[16], to[16];
  snprintf(from, sizeof from, "%u", lo);
  snprintf(to, sizeof to, "%u", hi);
  char* argv[] = {(char*)g_replay, "dump", (char*)log, "--from", from, "--to", to, NULL};
  cu_proc p;
  assert_int_equal(cu_spawn(&p, "dump", argv), 0);
  assert_int_equal(cu_wait(&p, 120.0), 0);
  int ropes = 0, dynamic = scene_dynamic_bodies(&ropes);
  FILE* f = fopen(p.out, "r");
  assert_non_null(f);
  char* buf = NULL;
  size_t cap = 0;
  int checked = 0, wheels = 0, steering = 0;
  while (getline(&buf, &cap, f) > 0) {
    json_error_t err;
    json_t* line = json_loads(buf, 0, &err);
    assert_non_null(line);
    uint32_t tick = (uint32_t)json_integer_value(json_object_get(line, "tick"));
    for (int k = 0; k < taken; k++) {
      const checkpoint* cp = &g_cps[k];
      if (cp->tick != tick) continue;
      check_bodies(cp, line, dynamic);
      check_particles(cp, line);
      check_links(cp, line, ropes);
      check_wheels(cp, line);
      for (int w = 0; w < cp->nw; w++) steering += cp->wheels[w].steer != 0.0f;
      wheels += cp->nw;
      checked++;
    }
    json_decref(line);
  }
  free(buf);
  fclose(f);
  print_message(
      "%d checkpoints (ticks %u..%u) equal the log's quantized state: %d bodies, %d particles, %d "
      "links, "
      "%d wheels each at the last; %d of %d wheels seen steering\n",
      checked, lo, hi, g_cps[taken - 1].nb, g_cps[taken - 1].np, g_cps[taken - 1].nl,
      g_cps[taken - 1].nw, steering, wheels);
  assert_int_equal(checked, taken);
  assert_true(g_cps[taken - 1].np > 0 && g_cps[taken - 1].nl > ropes && g_cps[taken - 1].nw >= 8);
  assert_true(steering > 0);  // the avatar's front wheels turned
}

static int joints_held(const checkpoint* cp) {
  int n = 0;
  for (int i = 0; i < cp->nl; i++) n += cp->links[i].kind == ARB_CLIENT_LINK_JOINT;
  return n;
}

static void test_client_extras_round_trip(void** state) {
  (void)state;
  char log[600];
  snprintf(log, sizeof log, "%s/direct.arbrec", cu_tmpdir());
  int taken = run_session(log, false);
  check_against_log(log, taken);
  // The tether broke during the session (tick 177; checkpoints from about tick 30 on).
  assert_true(g_cps[0].tick < 177 && g_cps[taken - 1].tick > 177);
  assert_int_equal(joints_held(&g_cps[0]) - 1, joints_held(&g_cps[taken - 1]));
}

static void test_client_extras_converge_through_netem(void** state) {
  (void)state;
  char log[600];
  snprintf(log, sizeof log, "%s/netem.arbrec", cu_tmpdir());
  check_against_log(log, run_session(log, true));
}

// ---- budget ---------------------------------------------------------------------------

#define MAX_RECORDS 8192

typedef struct byte_log {
  int n;
  uint32_t tick[MAX_RECORDS];
  uint64_t bytes[MAX_RECORDS];
} byte_log;

static byte_log g_logs[2];

// Bytes received up to each new snapshot tick.
static void log_bytes(arb_client* c, byte_log* b) {
  uint32_t tick = (uint32_t)arb_client_get_snapshot_tick(c);
  if (tick == 0 || (b->n > 0 && b->tick[b->n - 1] == tick) || b->n == MAX_RECORDS) return;
  arb_client_stats st;
  arb_client_get_stats(c, &st);
  b->tick[b->n] = tick;
  b->bytes[b->n] = st.bytes_in;
  b->n++;
}

// Most bytes received over snapshot ticks (t, t + window]: between two records whose
// ticks are at most `window` apart.
static uint64_t worst_window(const byte_log* b, uint32_t window) {
  uint64_t worst = 0;
  for (int i = 0; i < b->n; i++)
    for (int j = i + 1; j < b->n && b->tick[j] - b->tick[i] <= window; j++)
      if (b->bytes[j] - b->bytes[i] > worst) worst = b->bytes[j] - b->bytes[i];
  return worst;
}

static void test_client_extras_budget_per_second(void** state) {
  (void)state;
  // Two servers of the same scene: one with --client-kbps 16, one with the default.
  cu_proc srv[2];
  const char* limited[] = {"--scene", g_scene, "--client-kbps", "16", NULL};
  const char* unlimited[] = {"--scene", g_scene, NULL};
  arb_client* cs[2];
  for (int i = 0; i < 2; i++) {
    int port = cu_server_up(&srv[i], g_server, i == 0 ? limited : unlimited);
    arb_client_config cfg = arb_client_default_config();
    cfg.port = (uint16_t)port;
    cfg.name = i == 0 ? "budget" : "unlimited";
    cfg.spectate = true;  // no avatar: nothing but snapshots after the welcome
    assert_int_equal(arb_client_create(&cfg, &cs[i]), 0);
    assert_int_equal(arb_client_connect(cs[i]), 0);
  }
  // Past the welcome and the scene message (reliable, not budgeted).
  assert_true(cu_pump(cs, 2, 20.0, has_snapshot, cs[0]));
  assert_true(cu_pump(cs, 2, 20.0, has_snapshot, cs[1]));
  cu_pump(cs, 2, 1.0, NULL, NULL);
  memset(g_logs, 0, sizeof g_logs);
  double end = cu_now() + 8.0;
  for (double now = cu_now(); now < end; now = cu_now()) {
    for (int i = 0; i < 2; i++) {
      arb_client_update(cs[i], now);
      log_bytes(cs[i], &g_logs[i]);
    }
    cu_sleep(0.002);
  }
  uint32_t rate = (uint32_t)arb_client_get_session(cs[0])->tick_rate;
  for (int i = 0; i < 2; i++) {
    assert_int_equal(arb_client_get_state(cs[i]), ARB_CLIENT_CONNECTED);
    arb_client_destroy(cs[i]);
  }
  for (int i = 0; i < 2; i++) assert_int_equal(cu_stop(&srv[i], SIGTERM), 0);
  assert_true(g_logs[0].n > 100 && g_logs[1].n > 100);
  // 16 kbit in a second, plus the one packet a snapshot always carries (payload + the
  // 40 bytes per packet the server counts; ENet's real headers are smaller).
  uint64_t limit = 16000 / 8 + ARB_PROTO_DEFAULT_PAYLOAD + 40;
  uint64_t worst = worst_window(&g_logs[0], rate);
  uint64_t free_worst = worst_window(&g_logs[1], rate);
  double kbps0 = (double)(g_logs[0].bytes[g_logs[0].n - 1] - g_logs[0].bytes[0]) * 8.0 /
                 ((double)(g_logs[0].tick[g_logs[0].n - 1] - g_logs[0].tick[0]) / rate) / 1000.0;
  double kbps1 = (double)(g_logs[1].bytes[g_logs[1].n - 1] - g_logs[1].bytes[0]) * 8.0 /
                 ((double)(g_logs[1].tick[g_logs[1].n - 1] - g_logs[1].tick[0]) / rate) / 1000.0;
  print_message(
      "16 kbit/s client: worst 1 s of snapshot ticks %llu bytes (limit %llu), mean %.1f kbit/s; "
      "unlimited "
      "client: worst %llu bytes, mean %.1f kbit/s\n",
      (unsigned long long)worst, (unsigned long long)limit, kbps0, (unsigned long long)free_worst,
      kbps1);
  assert_true(worst <= limit);
  assert_true(kbps1 > 1.25 * 16.0);  // the scene needs more: the budget was binding
}

// The scene plus a ball on a distance joint that breaks above 5 N: tethered to a post, it
// drifts into the top wall and the joint snaps at tick 177. Written to the temporary
// directory; returns its path.
static const char* breakable_scene(const char* path) {
  static char out[600];
  json_error_t err;
  json_t* s = json_load_file(path, 0, &err);
  assert_non_null(s);
  json_t* bodies = json_object_get(s, "bodies");
  json_array_append_new(
      bodies, json_pack("{s:s, s:s, s:{s:{s:f}}, s:[f,f]}", "name", "tether_post", "type", "static",
                        "shape", "circle", "radius", 0.2, "position", 15.0, 15.0));
  json_array_append_new(
      bodies, json_pack("{s:s, s:{s:{s:f}}, s:[f,f], s:[f,f]}", "name", "tethered", "shape",
                        "circle", "radius", 0.4, "position", 16.0, 15.0, "velocity", 1.0, 0.0));
  json_array_append_new(json_object_get(s, "joints"),
                        json_pack("{s:s, s:s, s:s, s:[f,f], s:f, s:f, s:f}", "type", "distance",
                                  "body_a", "tether_post", "body_b", "tethered", "anchor_a", 15.0,
                                  15.0, "min_length", 0.0, "max_length", 4.0, "break_force", 5.0));
  snprintf(out, sizeof out, "%s/extras_break.json", cu_tmpdir());
  assert_int_equal(json_dump_file(s, out, JSON_INDENT(1)), 0);
  json_decref(s);
  return out;
}

int main(int argc, char** argv) {
  if (!arb_test_args(argc, argv, "arbiter-server arbiter-netem arbiter-replay SCENE.json",
                     &g_server, &g_netem, &g_replay, &g_scene, NULL))
    return 2;
  g_scene = breakable_scene(g_scene);
  return ARB_RUN_TESTS(
      NULL, cu_group_teardown,
      cmocka_unit_test_teardown(test_client_extras_round_trip, cu_teardown),
      cmocka_unit_test_teardown(test_client_extras_converge_through_netem, cu_teardown),
      cmocka_unit_test_teardown(test_client_extras_budget_per_second, cu_teardown));
}
