// Interpolation and clock of the client library on synthetic snapshot streams: no ENet,
// no real clock. A 30 Hz stream (60 Hz ticks, every 2nd tick) of moving entities goes
// through a simulated network (latency, jitter, loss, duplicates, reordering, a 500 ms
// outage) into cl_clock + cl_interp, rendered at 144 frames/s, and we check:
//
//  - continuity: between two frames an entity moves at most
//        v_max * dT + EPS        while no correction is fading, and
//        2 * v_max * dT + EPS    while one is (a correction fades no faster than the body
//                                moves; v_max >= 1 m/s here)
//    where dT is the advance of the rendered server time, v_max the largest speed in the
//    stream and EPS = 0.02 m covers quantization (positions travel in 1/128 m) and the
//    5 mm corrections applied at once; likewise for angles with w_max and EPS_A = 0.006 rad;
//  - exactness: whenever the rendered time passes a snapshot time that had arrived, the
//    sampled position and angle at that time equal the snapshot's (dequantized) values
//    bit for bit;
//  - the delay starts at 2 intervals, converges to its target and keeps the render time
//    inside the buffer (rarely extrapolating) on a jittery stream.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arbiter/protocol.h>

#include "../common/test_main.h"
#include "cl_clock.h"
#include "cl_interp.h"
#include "cl_snapshot.h"
#include "test_rng.h"

#define TICK_RATE 60
#define SNAP_EVERY 2
#define NENT 4
#define EPS 0.02f
#define EPS_A 0.006f

// ---- deterministic random numbers ------------------------------------------------------

static uint64_t rng_state;
static uint64_t rng_next(void) {
  return xorshift64_next(&rng_state);
}
static double rng_unit(void) {
  return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

// ---- the synthetic world ---------------------------------------------------------------

typedef struct truth {
  arb_vec2 p, v;
  float a, w;
} truth;

// Entity motions: a circle (3 m/s, turning 1 rad/s), a straight line (2.24 m/s), a fast
// spinner whose angle wraps (6 rad/s) and one at rest.
static truth world_at(int e, double t) {
  truth s;
  memset(&s, 0, sizeof s);
  switch (e) {
    case 0:
      s.p = arb_v2((float)(3.0 * cos(t)), (float)(3.0 * sin(t)));
      s.v = arb_v2((float)(-3.0 * sin(t)), (float)(3.0 * cos(t)));
      s.a = (float)t;
      s.w = 1.0f;
      break;
    case 1:
      s.p = arb_v2((float)(-10.0 + 2.0 * t), (float)(5.0 - 1.0 * t));
      s.v = arb_v2(2.0f, -1.0f);
      break;
    case 2:
      s.p = arb_v2(4.0f, -2.0f);
      s.a = (float)(6.0 * t);
      s.w = 6.0f;
      break;
    default:
      s.p = arb_v2(-1.0f, 1.0f);
      break;
  }
  return s;
}
static const float V_MAX = 3.0f;
static const float W_MAX = 6.0f;

// A snapshot as it travels: what the server sent (quantized) and when it arrives.
typedef struct packet {
  double send, arrive;
  uint32_t tick;
  cl_sample s[NENT];
} packet;

typedef struct netcfg {
  double duration;          // seconds of stream
  double latency;           // one way, seconds
  double jitter;            // extra delay uniform in [0, jitter)
  double loss;              // probability
  double dup;               // probability of a second copy
  double swap;              // probability to swap arrival times with the next packet
  double gap_from, gap_to;  // server times whose snapshots are all lost
} netcfg;

// A network that only delays: no loss, duplicates, swaps or outage.
static netcfg quiet_net(double duration, double latency, double jitter) {
  netcfg n = {
      .duration = duration, .latency = latency, .jitter = jitter, .gap_from = 1e9, .gap_to = 1e9};
  return n;
}

static int cmp_arrival(const void* a, const void* b) {
  const packet* x = (const packet*)a;
  const packet* y = (const packet*)b;
  return x->arrive < y->arrive ? -1 : (x->arrive > y->arrive ? 1 : 0);
}

static void quantize(int e, double t, cl_sample* out) {
  truth tr = world_at(e, t);
  arb_snapshot_state q;
  memset(&q, 0, sizeof q);
  q.x = arb_proto_quantize_pos(tr.p.x);
  q.y = arb_proto_quantize_pos(tr.p.y);
  q.angle = arb_proto_quantize_angle(tr.a);
  q.vx = arb_proto_quantize_vel(tr.v.x);
  q.vy = arb_proto_quantize_vel(tr.v.y);
  q.w = arb_snapshot_quantize_angvel(tr.w);
  cl_body b = cl_body_from_state(0, &q);  // what the client decodes from the wire
  *out = (cl_sample){t, b.position, b.angle, b.velocity, b.angular_velocity};
}

// Builds the arrival-ordered packet list; returns the count.
static int make_stream(const netcfg* n, packet* out, int cap) {
  int count = 0;
  int nsnap = (int)(n->duration * TICK_RATE / SNAP_EVERY);
  for (int k = 1; k <= nsnap && count < cap - 1; k++) {
    uint32_t tick = (uint32_t)(k * SNAP_EVERY);
    double send = (double)tick / TICK_RATE;
    if (send >= n->gap_from && send < n->gap_to) continue;
    if (rng_unit() < n->loss) continue;
    packet p;
    p.tick = tick;
    p.send = send;
    // The server's timer wakes up to ~2 ms late.
    p.arrive = send + 0.002 * rng_unit() + n->latency + n->jitter * rng_unit();
    for (int e = 0; e < NENT; e++) quantize(e, send, &p.s[e]);
    out[count++] = p;
    if (rng_unit() < n->dup && count < cap) {
      p.arrive += 0.015 * rng_unit();
      out[count++] = p;
    }
  }
  for (int i = 0; i + 1 < count; i++) {
    if (rng_unit() < n->swap) {
      double t = out[i].arrive;
      out[i].arrive = out[i + 1].arrive;
      out[i + 1].arrive = t;
    }
  }
  qsort(out, (size_t)count, sizeof(packet), cmp_arrival);
  return count;
}

typedef struct run_result {
  int frames;
  int stream_frames;        // frames from 1 s to the end of the stream
  int extrapolated_frames;  // of those, frames where the render time was past the newest snapshot
  int exact_checks;         // snapshot-time samples compared bit for bit
  int blending_frames;
  float max_step_ratio;  // max over frames of step / allowed step (<= 1 passes)
  float final_delay, final_target, start_delay;
  float delay_min_late, delay_max_late;    // delay range over the last 3 s
  float target_min_late, target_max_late;  // target range over the last 3 s
} run_result;

// The client's default interpolation (arb_client_default_config) for this stream.
static cl_interp_params default_params(void) {
  arb_client_config config = arb_client_default_config();
  config.max_entities = 64;
  return cl_interp_params_of(&config, (float)SNAP_EVERY / TICK_RATE);
}

// Plays the stream of network n (drawing from rng_state) into a client's interpolation
// at about 144 frames per second and measures what it drew.
static run_result run_stream(netcfg net) {
  const netcfg* n = &net;
  run_result result;
  run_result* r = &result;
  static packet pk[4096];
  int np = make_stream(n, pk, 4096);
  cl_mem mem = {NULL, NULL, NULL};
  cl_interp_params prm = default_params();
  cl_interp in;
  cl_clock clk;
  assert_int_equal(cl_interp_init(&in, &prm, &mem), 0);
  cl_clock_reset(&clk);
  for (int e = 0; e < NENT; e++) {
    arb_client_entity_desc d;
    memset(&d, 0, sizeof d);
    d.id = (uint32_t)(10 + e);
    assert_int_equal(cl_interp_add(&in, &d), 0);
  }
  memset(r, 0, sizeof *r);
  r->start_delay = in.delay;
  r->delay_min_late = r->target_min_late = 1e9f;

  arb_client_entity_state prev[NENT], cur[NENT], peek[NENT];
  bool have_prev = false;
  double prevT = -1e9;
  const double frame = 1.0 / 144.0;
  int next = 0;
  double end = n->duration + n->latency + n->jitter + 1.0;
  for (double now = 0.0; now < end; now += frame * (0.9 + 0.2 * rng_unit())) {
    while (next < np && pk[next].arrive <= now) {
      const packet* p = &pk[next++];
      cl_clock_sample(&clk, p->arrive, p->send, 2.0 * n->latency);
      for (int e = 0; e < NENT; e++)
        assert_int_equal(cl_interp_push(&in, (uint32_t)(10 + e), &p->s[e]), 0);
      cl_interp_on_snapshot(&in, p->send, cl_clock_server_time(&clk, p->arrive));
    }
    if (!clk.synced) continue;
    double est = cl_clock_server_time(&clk, now);
    double T = cl_interp_frame(&in, est, now);
    assert_true(T >= prevT);
    int count = cl_interp_sample(&in, T, cur, NENT, true);
    assert_int_equal(count, NENT);
    r->frames++;
    // Past the newest snapshot while the stream still flows (after a 1 s warm-up).
    if (now > 1.0 && now < n->duration) {
      r->stream_frames++;
      if (in.extrapolation > 0.0f) r->extrapolated_frames++;
    }
    if (now > n->duration - 3.0 && now < n->duration) {
      if (in.delay < r->delay_min_late) r->delay_min_late = in.delay;
      if (in.delay > r->delay_max_late) r->delay_max_late = in.delay;
      if (in.target < r->target_min_late) r->target_min_late = in.target;
      if (in.target > r->target_max_late) r->target_max_late = in.target;
    }
    bool any_blend = false;
    if (have_prev) {
      float dT = (float)(T - prevT);
      for (int e = 0; e < NENT; e++) {
        bool blend = ((cur[e].flags | prev[e].flags) & ARB_CLIENT_SAMPLE_BLENDING) != 0;
        any_blend |= blend;
        float k = blend ? 2.0f : 1.0f;
        float dx = cur[e].position.x - prev[e].position.x,
              dy = cur[e].position.y - prev[e].position.y;
        float step = sqrtf(dx * dx + dy * dy);
        float allowed = V_MAX * dT * k + EPS;
        if (step / allowed > r->max_step_ratio) r->max_step_ratio = step / allowed;
        float da = fabsf(remainderf(cur[e].angle - prev[e].angle, 6.2831853f));
        float allowed_a = W_MAX * dT * k + EPS_A;
        if (da / allowed_a > r->max_step_ratio) r->max_step_ratio = da / allowed_a;
        if (step > allowed || da > allowed_a)
          print_message(
              "entity %d at T=%.4f: step %.4f m (allowed %.4f), %.4f rad (allowed %.4f), flags "
              "%u\n",
              e, T, step, allowed, da, allowed_a, cur[e].flags);
      }
      // Exactness: every snapshot time the render passed in this frame, for entities
      // without a fading correction, samples to exactly the snapshot's values.
      for (int e = 0; e < NENT; e++) {
        const cl_entity* ent = cl_interp_find_const(&in, (uint32_t)(10 + e));
        if (ent->blending) continue;
        for (int h = 0; h < ent->count; h++) {
          const cl_sample* s = &ent->hist[h];
          if (!(s->t > prevT && s->t <= T)) continue;
          cl_interp_sample(&in, s->t, peek, NENT, false);
          assert_true(peek[e].position.x == s->p.x && peek[e].position.y == s->p.y);
          assert_true(peek[e].angle == s->a);
          r->exact_checks++;
        }
      }
    }
    if (any_blend) r->blending_frames++;
    memcpy(prev, cur, sizeof prev);
    prevT = T;
    have_prev = true;
  }
  r->final_delay = in.delay;
  r->final_target = in.target;
  cl_interp_deinit(&in);
  return result;
}

// ---- tests -----------------------------------------------------------------------------

// Jitter, 10 % loss, duplicates, reordering and a 500 ms outage: continuous and exact.
static void test_client_interp_continuous_and_exact(void** state) {
  (void)state;
  rng_state = 0x9E3779B97F4A7C15ull;
  netcfg n = {.duration = 12.0,
              .latency = 0.05,
              .jitter = 0.03,
              .loss = 0.10,
              .dup = 0.05,
              .swap = 0.05,
              .gap_from = 6.0,
              .gap_to = 6.5};
  run_result r = run_stream(n);
  print_message(
      "frames %d, exact checks %d, blending frames %d, extrapolating frames %d, worst step/allowed "
      "%.3f, delay %.4f\n",
      r.frames, r.exact_checks, r.blending_frames, r.extrapolated_frames, r.max_step_ratio,
      r.final_delay);
  assert_true(r.max_step_ratio <= 1.0f);
  // 4 entities x ~360 snapshots x 90 % arrive: most snapshot times are checked exactly.
  assert_true(r.exact_checks > NENT * 360 * 6 / 10);
  // The outage must have produced a correction to fade in (else the test missed its point).
  assert_true(r.blending_frames > 0);
}

// A clean stream: no correction is ever needed and every frame is exact interpolation.
static void test_client_interp_clean_stream_never_blends(void** state) {
  (void)state;
  rng_state = 12345;
  run_result r = run_stream(quiet_net(6.0, 0.02, 0.004));
  assert_true(r.max_step_ratio <= 1.0f);
  assert_int_equal(r.blending_frames, 0);
  assert_true(r.exact_checks > NENT * 170 * 9 / 10);
}

// The delay starts at 2 intervals, converges and keeps the render inside the buffer.
static void test_client_interp_delay_converges(void** state) {
  (void)state;
  rng_state = 777;
  run_result r = run_stream(quiet_net(10.0, 0.04, 0.012));
  const float interval = (float)SNAP_EVERY / TICK_RATE;
  print_message(
      "start %.4f final delay %.4f target %.4f, late delay [%.4f, %.4f] target [%.4f, %.4f], "
      "extrapolating %d/%d\n",
      r.start_delay, r.final_delay, r.final_target, r.delay_min_late, r.delay_max_late,
      r.target_min_late, r.target_max_late, r.extrapolated_frames, r.stream_frames);
  assert_true(fabsf(r.start_delay - 2.0f * interval) < 1e-6f);
  // Converged: over the last 3 s the delay stays within 3 ms of a target that itself
  // moves less than 6 ms.
  assert_true(r.delay_max_late - r.delay_min_late < 0.006f);
  assert_true(r.target_max_late - r.target_min_late < 0.006f);
  assert_true(fabsf(r.final_delay - r.final_target) < 0.003f);
  // Sensible: at least one interval (else every frame extrapolates), below 3 intervals
  // plus the jitter.
  assert_true(r.final_delay > interval);
  assert_true(r.final_delay < 3.0f * interval + 0.012f);
  // Doing its job: almost never past the newest snapshot.
  assert_true(r.extrapolated_frames * 50 < r.stream_frames);
}

// More jitter -> a longer delay (adapts upwards too).
static void test_client_interp_delay_adapts_to_jitter(void** state) {
  (void)state;
  rng_state = 4242;
  run_result a = run_stream(quiet_net(8.0, 0.04, 0.004));  // calm
  run_result b = run_stream(quiet_net(8.0, 0.04, 0.06));   // rough
  print_message("delay calm %.4f rough %.4f\n", a.final_delay, b.final_delay);
  assert_true(b.final_delay > a.final_delay + 0.02f);
  assert_true(b.extrapolated_frames * 20 < b.stream_frames);
}

// cmocka fixture: an interpolator with the default parameters and the default allocator,
// as *state (deinitialized after the test, whether it passed or failed).
static int interp_setup(void** state) {
  static cl_interp in;
  cl_mem mem = {NULL, NULL, NULL};
  cl_interp_params prm = default_params();
  if (cl_interp_init(&in, &prm, &mem) != 0) return -1;
  *state = &in;
  return 0;
}

static int interp_teardown(void** state) {
  cl_interp_deinit(*state);
  return 0;
}

// Tracks entity `id`, whose one sample so far is `first`.
static void track_one(cl_interp* in, uint32_t id, const cl_sample* first) {
  arb_client_entity_desc d;
  memset(&d, 0, sizeof d);
  d.id = id;
  assert_int_equal(cl_interp_add(in, &d), 0);
  assert_int_equal(cl_interp_push(in, id, first), 0);
}

// The one tracked entity at time t (extrapolated past its newest sample).
static arb_client_entity_state sample_one(cl_interp* in, double t) {
  arb_client_entity_state o;
  cl_interp_sample(in, t, &o, 1, true);
  return o;
}

// The entity table against a brute-force list over random adds and removes: found by id,
// in id order, each keeping its own history (a ring: more samples than it holds, some out
// of order, evaluate to exactly the newest CL_HISTORY of them).
static void test_client_interp_table_and_history(void** state) {
  (void)state;
  enum { IDS = 500 };
  cl_mem mem = {NULL, NULL, NULL};
  cl_interp_params prm = default_params();
  prm.max_entities = IDS;
  cl_interp in;
  assert_int_equal(cl_interp_init(&in, &prm, &mem), 0);
  static bool present[IDS + 1];
  memset(present, 0, sizeof present);
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  for (int step = 0; step < 20000; step++) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    uint32_t id = 1 + (uint32_t)(rng % IDS);
    if (rng >> 32 & 1) {
      arb_client_entity_desc d;
      memset(&d, 0, sizeof d);
      d.id = id;
      bool was = present[id];
      assert_int_equal(cl_interp_add(&in, &d), 0);
      present[id] = true;
      cl_entity* e = cl_interp_find(&in, id);
      assert_non_null(e);
      if (!was) {  // a new entity: its own samples, t = id + k / 64
        for (int k = 0; k < CL_HISTORY + 9; k++) {
          // Two out of order: one while the history fills, one once it is full.
          int kk = k == 20 ? 21 : k == 21 ? 20 : k == 35 ? 36 : k == 36 ? 35 : k;
          cl_sample smp = {(double)id + kk / 64.0, {(float)kk, (float)id}, 0.0f, {0, 0}, 0.0f};
          assert_int_equal(cl_interp_push(&in, id, &smp), 0);
        }
      }
    } else {
      assert_int_equal(cl_interp_remove(&in, id), present[id] ? 0 : ARB_E_NOT_FOUND);
      present[id] = false;
    }
  }
  int n = 0;
  for (uint32_t id = 1; id <= IDS; id++) {
    const cl_entity* e = cl_interp_find_const(&in, id);
    assert_true((e != NULL) == present[id]);
    if (!e) continue;
    assert_int_equal(cl_interp_at(&in, n)->desc.id, id);  // id order
    n++;
    assert_int_equal(e->count, CL_HISTORY);
    for (int k = 9; k < CL_HISTORY + 9; k++) {  // the newest CL_HISTORY, exactly
      arb_client_entity_state o;
      assert_int_equal(cl_interp_eval(&in, id, (double)id + k / 64.0, &o), 0);
      assert_true(o.position.x == (float)k && o.position.y == (float)id);
    }
  }
  assert_int_equal(n, in.count);
  cl_interp_deinit(&in);
}

// Past the newest snapshot: extrapolate with its velocity for at most the limit, then hold.
static void test_client_interp_extrapolation_bounded(void** state) {
  cl_sample s = {1.0, {0.0f, 0.0f}, 0.0f, {2.0f, 0.0f}, 0.0f};
  cl_interp* in = *state;
  track_one(in, 1, &s);
  arb_client_entity_state o = sample_one(in, 1.1);
  assert_true(o.flags & ARB_CLIENT_SAMPLE_EXTRAPOLATED);
  assert_true(fabsf(o.position.x - 0.2f) < 1e-5f);
  o = sample_one(in, 1.25);
  assert_true(fabsf(o.position.x - 0.5f) < 1e-5f);
  o = sample_one(in, 3.0);
  assert_true(o.flags & ARB_CLIENT_SAMPLE_HELD);
  assert_true(fabsf(o.position.x - 0.5f) < 1e-5f);  // 0.25 s at 2 m/s, then still
  // Duplicates and non-finite samples are refused without harm.
  assert_int_equal(cl_interp_push(in, 1, &s), 0);
  assert_int_equal(cl_interp_ent(in, 0)->count, 1);
  cl_sample bad = s;
  bad.t = 2.0;
  bad.p.x = NAN;
  assert_int_equal(cl_interp_push(in, 1, &bad), ARB_E_NONFINITE);
  assert_int_equal(cl_interp_push(in, 99, &s), ARB_E_NOT_FOUND);
}

// A large correction snaps (teleport); a small one fades in over blend_time.
static void test_client_interp_teleport_snaps_small_error_blends(void** state) {
  cl_sample s0 = {1.0, {0.0f, 0.0f}, 0.0f, {1.0f, 0.0f}, 0.0f};
  cl_interp* in = *state;
  track_one(in, 7, &s0);
  arb_client_entity_state o = sample_one(in, 1.5);  // held at 0.25
  assert_true(fabsf(o.position.x - 0.25f) < 1e-5f);
  // The truth arrives: at 1.5 the body was at x = 0.5 (0.25 off): blend from 0.25.
  cl_sample s1 = {1.5, {0.5f, 0.0f}, 0.0f, {1.0f, 0.0f}, 0.0f};
  cl_interp_push(in, 7, &s1);
  o = sample_one(in, 1.5);
  assert_true(fabsf(o.position.x - 0.25f) < 1e-5f);  // no jump at the moment of arrival
  assert_true(o.flags & ARB_CLIENT_SAMPLE_BLENDING);
  // The body moves at 1 m/s, so the 0.25 m correction fades over 0.25 s (never faster
  // than the body): at 1.6, 40 % of it is gone: 0.6 - 0.25 * 0.6.
  o = sample_one(in, 1.6);
  assert_true(fabsf(o.position.x - 0.45f) < 1e-4f);
  o = sample_one(in, 1.75);  // blend over: exactly the curve
  assert_false(o.flags & ARB_CLIENT_SAMPLE_BLENDING);
  assert_true(fabsf(o.position.x - 0.75f) < 1e-5f);
  // A teleport: 50 m away at the next snapshot: no sliding, no blend.
  cl_sample s2 = {2.0, {50.0f, 0.0f}, 0.0f, {0.0f, 0.0f}, 0.0f};
  cl_interp_push(in, 7, &s2);
  o = sample_one(in, 1.9);
  assert_true(o.position.x < 1.5f);  // still near the old place, not half-way to 50
  o = sample_one(in, 2.0);
  assert_true(o.position.x == 50.0f);
}

// The clock estimate never goes backwards, even when samples say it should.
static void test_client_clock_monotonic(void** state) {
  (void)state;
  cl_clock c;
  cl_clock_reset(&c);
  assert_true(cl_clock_server_time(&c, 0.0) == 0.0);
  cl_clock_sample(&c, 10.0, 100.0, 0.0);
  double t0 = cl_clock_server_time(&c, 10.0);
  assert_true(fabs(t0 - 100.0) < 1e-9);
  // The server "jumps back" by 2 s (e.g. a bogus packet): time pauses, never reverses.
  cl_clock_sample(&c, 10.1, 98.0, 0.0);
  double prev = t0;
  for (double now = 10.1; now < 14.0; now += 0.01) {
    double t = cl_clock_server_time(&c, now);
    assert_true(t >= prev);
    prev = t;
  }
  // Steady samples: the estimate tracks real time within a few ms.
  cl_clock_reset(&c);
  rng_state = 99;
  double worst = 0.0;
  for (int k = 0; k < 300; k++) {
    double send = k / 30.0;
    double arrive = send + 0.03 + 0.02 * rng_unit();
    cl_clock_sample(&c, arrive, send, 0.06);
    if (k > 60) {
      double err = fabs(cl_clock_server_time(&c, arrive) - (arrive));
      if (err > worst) worst = err;
    }
  }
  assert_true(worst < 0.03);
}

ARB_TEST_MAIN(cmocka_unit_test(test_client_interp_continuous_and_exact),
              cmocka_unit_test(test_client_interp_clean_stream_never_blends),
              cmocka_unit_test(test_client_interp_delay_converges),
              cmocka_unit_test(test_client_interp_delay_adapts_to_jitter),
              cmocka_unit_test_setup_teardown(test_client_interp_extrapolation_bounded,
                                              interp_setup, interp_teardown),
              cmocka_unit_test_setup_teardown(test_client_interp_teleport_snaps_small_error_blends,
                                              interp_setup, interp_teardown),
              cmocka_unit_test(test_client_clock_monotonic),
              cmocka_unit_test(test_client_interp_table_and_history))
