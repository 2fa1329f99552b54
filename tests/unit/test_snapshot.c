// Snapshots: the integer prediction, the bit-packed message round trip, the
// all-or-nothing apply, and the builder's core property: whatever packets and acks are
// lost, a client that completes tick T holds exactly the view the server recorded as sent
// for T, and that view is within the tolerances of the true quantized state.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arbiter/snapshot.h>
#include <arbiter/snapshot_priority.h>
#include <arbiter/snapshot_rate.h>

#include "priority_fixture.h"
#include "snapshot_tolerance.h"
#include "test_rng.h"

#include "snapshot_internal.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
  return (uint32_t)(xorshift64_next(&rng) >> 16);
}
static int chance(int percent) {
  return (int)(rnd() % 100) < percent;
}
static int32_t srnd(int32_t mag) {
  return (int32_t)(rnd() % (uint32_t)(2 * mag + 1)) - mag;
}

static int same_state(const arb_snapshot_state* a, const arb_snapshot_state* b);

static void prediction_formula(void** state) {
  (void)state;
  arb_snapshot_state s;
  memset(&s, 0, sizeof s);
  s.vx = 256;  // 1 m/s for 2 ticks at 60 Hz: 4.27 units of 1/128 m
  arb_snapshot_state p = arb_snapshot_predict(&s, ARB_SNAPSHOT_BODY, 2, 60, 0, -2511);
  assert_int_equal(p.x, 4);
  assert_int_equal(p.y, 0);  // not ballistic: gravity does not apply
  assert_int_equal(p.vy, 0);
  s.flags = ARB_SNAPSHOT_FLAG_BALLISTIC;
  p = arb_snapshot_predict(&s, ARB_SNAPSHOT_BODY, 2, 60, 0, -2511);
  assert_int_equal(p.y, -1);    // -9.81 m/s^2: -0.70 units, rounds half away from zero
  assert_int_equal(p.vy, -84);  // -83.7
  s.vx = -256;
  p = arb_snapshot_predict(&s, ARB_SNAPSHOT_BODY, 2, 60, 0, 0);
  assert_int_equal(p.x, -4);
  // One turn per second for 15 ticks at 60 Hz is a quarter turn; angles wrap.
  memset(&s, 0, sizeof s);
  s.w = 65536;
  s.angle = 60000;
  p = arb_snapshot_predict(&s, ARB_SNAPSHOT_WHEEL, 15, 60, 0, 0);
  assert_int_equal(p.angle, (60000 + 16384) & 0xFFFF);
  // Pinned particles and links never move.
  s.vx = 1000;
  s.flags = ARB_SNAPSHOT_FLAG_PINNED;
  assert_int_equal(arb_snapshot_predict(&s, ARB_SNAPSHOT_PARTICLE, 10, 60, 0, 0).x, 0);
  assert_int_equal(arb_snapshot_predict(&s, ARB_SNAPSHOT_LINK, 10, 60, 0, 0).angle, 60000);
  // Extreme values saturate instead of overflowing.
  memset(&s, 0, sizeof s);
  s.x = INT32_MAX - 1;
  s.vx = INT32_MAX;
  assert_int_equal(arb_snapshot_predict(&s, ARB_SNAPSHOT_BODY, ARB_SNAPSHOT_MAX_DT, 1, 0, 0).x,
                   INT32_MAX);
  assert_int_equal(arb_snapshot_quantize_angvel(6.283185307f), 65536);
}

/* PROTOCOL.md §6.3 as written there, in 128-bit-safe steps: position + (2 v t r + g t^2) /
 * 4r^2, velocity + g t / r, angle + w t / r, each rounded half away from zero, saturated
 * to int32 (the angle wraps). The implementation takes shortcuts (no gravity, a rate of 60
 * compiled apart, the ballistic velocity alone): they must give these integers. */
static int64_t spec_div(int64_t a, int64_t b) {
  return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}
static int32_t spec_sat(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}
static arb_snapshot_state spec_predict(const arb_snapshot_state* s, uint8_t cls, int64_t t,
                                       int64_t r, int64_t gx, int64_t gy) {
  arb_snapshot_state p = *s;
  int moves = cls == ARB_SNAPSHOT_BODY ||
              (cls == ARB_SNAPSHOT_PARTICLE && !(s->flags & ARB_SNAPSHOT_FLAG_PINNED));
  if (!(s->flags & ARB_SNAPSHOT_FLAG_BALLISTIC)) gx = gy = 0;
  if (moves) {
    p.x = spec_sat(s->x + spec_div(2 * (int64_t)s->vx * t * r + gx * t * t, 4 * r * r));
    p.y = spec_sat(s->y + spec_div(2 * (int64_t)s->vy * t * r + gy * t * t, 4 * r * r));
    p.vx = spec_sat(s->vx + spec_div(gx * t, r));
    p.vy = spec_sat(s->vy + spec_div(gy * t, r));
  }
  if (cls == ARB_SNAPSHOT_BODY || cls == ARB_SNAPSHOT_WHEEL)
    p.angle = (uint16_t)((uint64_t)((int64_t)s->angle + spec_div((int64_t)s->w * t, r)) & 0xFFFFu);
  return p;
}

static int32_t any_value(void) {
  switch (rnd() % 4u) {
    case 0:
      return srnd(300);
    case 1:
      return srnd(1 << 20);
    case 2:
      return (int32_t)(rnd() << 16 ^ rnd());
    default:
      return chance(50) ? INT32_MAX - srnd(3) - 3 : INT32_MIN + srnd(3) + 3;
  }
}

static void prediction_matches_the_formula(void** state) {
  (void)state;
  static const uint16_t rates[] = {1, 30, 60, 64, 144, 1000};
  for (int n = 0; n < 200000; ++n) {
    arb_snapshot_state s;
    memset(&s, 0, sizeof s);
    s.x = any_value();
    s.y = any_value();
    s.vx = any_value();
    s.vy = any_value();
    s.w = any_value();
    s.angle = (uint16_t)rnd();
    s.flags = (uint8_t)(rnd() % 8u);
    uint8_t cls = (uint8_t)(1 + rnd() % 4u);
    uint32_t dt = chance(50) ? rnd() % 8u : rnd() % (ARB_SNAPSHOT_MAX_DT + 1u);
    uint16_t rate = rates[rnd() % 6u];
    int32_t gx = chance(50) ? 0 : srnd(ARB_SNAPSHOT_MAX_GRAVITY);
    int32_t gy = chance(30) ? 0 : srnd(ARB_SNAPSHOT_MAX_GRAVITY);
    arb_snapshot_state want = spec_predict(&s, cls, dt, rate, gx, gy);
    arb_snapshot_state got = arb_snapshot_predict(&s, cls, dt, rate, gx, gy);
    assert_true(same_state(&got, &want));
    // The builder's ballistic check evaluates only the velocity (origin at t0 = 0).
    arb_snapshot_header h = {dt, 0, 0, 0, 1, rate, gx, gy};
    arb_snapshot_state ballistic = s;
    ballistic.flags = ARB_SNAPSHOT_FLAG_BALLISTIC;
    ballistic.t0 = 0;
    want = spec_predict(&ballistic, ARB_SNAPSHOT_BODY, dt, rate, gx, gy);
    int32_t vx, vy;
    arb__snapshot_gravity_velocity(&ballistic, dt, &h, &vx, &vy);
    assert_int_equal(vx, want.vx);
    assert_int_equal(vy, want.vy);
  }
}

static arb_snapshot_desc make_desc(uint8_t cls, uint32_t id) {
  arb_snapshot_desc d;
  memset(&d, 0, sizeof d);
  d.cls = cls;
  switch (cls) {
    case ARB_SNAPSHOT_BODY:
      d.shape_count = (uint8_t)(1 + id % 3);
      for (int i = 0; i < d.shape_count; ++i) {
        d.shapes[i].kind = 1;
        d.shapes[i].count = 1;
        d.shapes[i].points[0] = arb_v2(0.5f * (float)i, 0.0f);
        d.shapes[i].radius = 0.25f;
      }
      d.owner = id % 5 == 0 ? 3 : 0;
      d.avatar_kind = id % 5 == 0 ? 1 : 0;
      break;
    case ARB_SNAPSHOT_PARTICLE:
      d.radius = 0.05f;
      break;
    case ARB_SNAPSHOT_LINK:
      d.link_kind = (uint8_t)(1 + id % 3);
      d.a = 1;
      d.b = 2;
      d.anchor_a = arb_v2(0.5f, 0.0f);
      d.anchor_b = arb_v2(-0.5f, 0.25f);
      break;
    default:
      d.a = 1;
      d.anchor_a = arb_v2(1.0f, -0.5f);
      d.radius = 0.4f;
      break;
  }
  return d;
}

static arb_snapshot_part part1, part2;
static uint8_t buf1[ARB_PROTO_MAX_PAYLOAD], buf2[ARB_PROTO_MAX_PAYLOAD];

/* One part with every record kind and class, at the edges of the value ranges. */
static void fill_variety_part(void) {
  memset(&part1, 0, sizeof part1);
  arb_snapshot_header h = {1020, 1010, 499, 0, 1, 60, 0, -2511};
  part1.h = h;
  arb_snapshot_record* r = part1.records;
  for (int cls = ARB_SNAPSHOT_BODY; cls <= ARB_SNAPSHOT_WHEEL; ++cls) {
    arb_snapshot_record e;
    memset(&e, 0, sizeof e);
    e.id = (uint32_t)(10 * cls);
    e.op = ARB_SNAPSHOT_ENTER;
    e.cls = (uint8_t)cls;
    e.desc = (uint8_t)(cls - 1);
    if (cls == ARB_SNAPSHOT_BODY || cls == ARB_SNAPSHOT_PARTICLE) {
      e.v.x = -70000;
      e.v.y = 1 << 30;
      e.v.vx = 300;
      e.v.vy = -INT32_MAX;
    }
    if (cls == ARB_SNAPSHOT_BODY || cls == ARB_SNAPSHOT_WHEEL) {
      e.v.angle = 40000;
      e.v.w = -5;
    }
    if (cls == ARB_SNAPSHOT_WHEEL) e.v.aux = 1234;
    e.v.flags = (uint8_t)(cls & 7);
    r[part1.record_count++] = e;
    part1.descs[part1.desc_count++] = make_desc((uint8_t)cls, e.id);
  }
  arb_snapshot_record u;
  memset(&u, 0, sizeof u);
  u.id = 41;
  u.op = ARB_SNAPSHOT_UPDATE;
  u.mask = ARB_SNAPSHOT_M_ALL;
  u.v = (arb_snapshot_state){-1, 1, INT32_MIN, INT32_MAX, 7, 65535, 32768, 5, 0};
  r[part1.record_count++] = u;
  memset(&u, 0, sizeof u);  // a second body with the first one's description
  u.id = 45;
  u.op = ARB_SNAPSHOT_ENTER;
  u.cls = ARB_SNAPSHOT_BODY;
  u.desc = 0;
  r[part1.record_count++] = u;
  memset(&u, 0, sizeof u);
  u.id = 5000000;
  u.op = ARB_SNAPSHOT_REMOVE;
  r[part1.record_count++] = u;
}

/* A one-record part entering link 7 with these ends; returns the encoder's result and,
 * when it encoded, checks that the ends decode unchanged. */
static int encode_link(uint8_t kind, uint32_t a, uint32_t b) {
  memset(&part1, 0, sizeof part1);
  part1.h = (arb_snapshot_header){20, 0, 0, 0, 1, 60, 0, 0};
  part1.records[0] =
      (arb_snapshot_record){.id = 7, .op = ARB_SNAPSHOT_ENTER, .cls = ARB_SNAPSHOT_LINK};
  part1.record_count = 1;
  part1.descs[0] = make_desc(ARB_SNAPSHOT_LINK, 7);
  part1.descs[0].link_kind = kind;
  part1.descs[0].joint_type = kind == ARB_SNAPSHOT_LINK_JOINT ? 2 : 0;
  part1.descs[0].a = a;
  part1.descs[0].b = b;
  part1.desc_count = 1;
  int n = arb_proto_encode_snapshot(&part1, buf1, sizeof buf1);
  if (n <= 0) return n;
  arb_proto_error err;
  assert_int_equal(arb_proto_decode_snapshot(buf1, (size_t)n, &part2, &err), 0);
  assert_int_equal(part2.descs[0].a, a);
  assert_int_equal(part2.descs[0].b, b);
  assert_int_equal(part2.descs[0].link_kind, kind);
  return n;
}

/* A spring or joint end may be the world (0), one end at most; rope ends are particles. */
static void link_ends(void** state) {
  (void)state;
  assert_true(encode_link(ARB_SNAPSHOT_LINK_JOINT, 0, 4) > 0);
  assert_true(encode_link(ARB_SNAPSHOT_LINK_SPRING, 3, 0) > 0);
  assert_true(encode_link(ARB_SNAPSHOT_LINK_ROPE, 3, 4) > 0);
  assert_true(encode_link(ARB_SNAPSHOT_LINK_JOINT, 0, 0) < 0);
  assert_true(encode_link(ARB_SNAPSHOT_LINK_ROPE, 0, 4) < 0);
  // The decoder refuses the same: a valid spring's end rewritten to 0 (uint 3 -> 0).
  int n = encode_link(ARB_SNAPSHOT_LINK_ROPE, 3, 4);
  static const uint8_t desc[] = {0x99, 0x03, 0x01, 0x00, 0x03, 0x04};  // [3, rope, 0, a 3, b 4, ...
  uint8_t* at = NULL;
  for (int i = 0; i + (int)sizeof desc <= n && !at; ++i)
    if (memcmp(buf1 + i, desc, sizeof desc) == 0) at = buf1 + i;
  assert_non_null(at);
  at[4] = 0x00;
  arb_proto_error err;
  assert_int_not_equal(arb_proto_decode_snapshot(buf1, (size_t)n, &part2, &err), 0);
  assert_non_null(strstr(err.reason, "rope"));
}

static void message_round_trip(void** state) {
  (void)state;
  fill_variety_part();
  int n = arb_proto_encode_snapshot(&part1, buf1, sizeof buf1);
  assert_true(n > 0);
  arb_proto_error err;
  memset(&part2, 0xAB, sizeof part2);
  assert_int_equal(arb_proto_decode_snapshot(buf1, (size_t)n, &part2, &err), 0);
  assert_int_equal(part2.record_count, part1.record_count);
  assert_int_equal(part2.desc_count, 4);
  for (int i = 0; i < part1.record_count; ++i) {
    assert_int_equal(part2.records[i].id, part1.records[i].id);
    assert_int_equal(part2.records[i].op, part1.records[i].op);
    assert_int_equal(part2.records[i].desc, part1.records[i].desc);
    assert_true(same_state(&part2.records[i].v, &part1.records[i].v));
  }
  assert_int_equal(part2.descs[0].shape_count, part1.descs[0].shape_count);
  assert_int_equal(arb_proto_encode_snapshot(&part2, buf2, sizeof buf2), n);
  assert_memory_equal(buf1, buf2, (size_t)n);
  // Every truncation fails with a reason; so do a trailing byte and a nonzero padding bit.
  for (int cut = 0; cut < n; ++cut) {
    err.reason[0] = 0;
    assert_true(arb_proto_decode_snapshot(buf1, (size_t)cut, &part2, &err) < 0);
    assert_true(err.reason[0] != 0);
  }
  memcpy(buf2, buf1, (size_t)n);
  buf2[n] = 0;
  assert_true(arb_proto_decode_snapshot(buf2, (size_t)n + 1, &part2, &err) < 0);
  // An empty part's stream is the 7-bit count 0 and one padding bit, the last bit sent.
  part2 = part1;
  part2.record_count = part2.desc_count = 0;
  int e = arb_proto_encode_snapshot(&part2, buf2, sizeof buf2);
  assert_int_equal(buf2[e - 3], 0xc4);  // bin 8
  assert_int_equal(buf2[e - 2], 1);     // of one byte
  assert_int_equal(buf2[e - 1], 0);
  assert_int_equal(arb_proto_decode_snapshot(buf2, (size_t)e, &part2, &err), 0);
  buf2[e - 1] |= 0x80;
  assert_int_equal(arb_proto_decode_snapshot(buf2, (size_t)e, &part2, &err), ARB_E_CORRUPT);
  // Invalid parts are refused by the encoder: enter without its description, ids out of order.
  part1.desc_count = 3;
  assert_true(arb_proto_encode_snapshot(&part1, buf2, sizeof buf2) < 0);
  part1.desc_count = 4;
  part1.records[5].desc = 4;  // names a description the part does not have
  assert_true(arb_proto_encode_snapshot(&part1, buf2, sizeof buf2) < 0);
  part1.records[5].desc = 0;
  part1.records[6].id = 41;
  assert_true(arb_proto_encode_snapshot(&part1, buf2, sizeof buf2) < 0);
}

// ---- a server world, a lossy network and a client ------------------------------------------

#define MAX_E 700
#define RING 32
#define RATE 60
#define GRAVITY_Y (-2511)

typedef struct viewslot {
  uint32_t tick;
  arb_snapshot_entity items[2 * MAX_E];
  arb_snapshot_set set;
} viewslot;

static arb_snapshot_entity truth_items[MAX_E];
static arb_snapshot_set truth = {truth_items, 0, MAX_E};
static uint32_t next_id = 1;
static viewslot server_ring[RING], client_ring[RING], work[4];
static uint32_t work_parts[4][8];  // bitmask of applied parts
static float prio[MAX_E];
static uint8_t fresh[MAX_E];

static int describe(void* user, uint32_t id, arb_snapshot_desc* d) {
  (void)user;
  const arb_snapshot_entity* e = arb_snapshot_set_find(&truth, id);
  if (!e) return ARB_E_NOT_FOUND;
  *d = make_desc(e->cls, id);
  return 0;
}

static void spawn(void) {
  if (truth.count == MAX_E) return;
  arb_snapshot_entity* e = &truth.items[truth.count++];
  memset(e, 0, sizeof *e);
  e->id = next_id++;
  uint32_t k = rnd() % 20;
  e->cls = k < 14   ? ARB_SNAPSHOT_BODY
           : k < 17 ? ARB_SNAPSHOT_PARTICLE
           : k < 19 ? ARB_SNAPSHOT_WHEEL
                    : ARB_SNAPSHOT_LINK;
  e->s.x = srnd(20000);
  e->s.y = srnd(20000);
  e->s.vx = chance(50) ? srnd(3000) : 0;
  e->s.vy = chance(50) ? srnd(3000) : 0;
  e->s.w = srnd(100000);
  e->s.angle = (uint16_t)rnd();
  if (e->cls == ARB_SNAPSHOT_PARTICLE && chance(20)) e->s.flags = ARB_SNAPSHOT_FLAG_PINNED;
}

/* One tick of "physics": steady motion with rounding drift, falls, kicks, stops. */
static void step_world(void) {
  for (int i = 0; i < truth.count; ++i) {
    arb_snapshot_entity* e = &truth.items[i];
    arb_snapshot_state* s = &e->s;
    if (e->cls == ARB_SNAPSHOT_LINK) continue;
    if (chance(2)) s->vx = srnd(4000), s->vy = srnd(4000), s->w = srnd(200000);
    if (chance(1)) s->vx = s->vy = s->w = 0;
    if (s->vy != 0 && i % 3 == 0) s->vy += GRAVITY_Y / RATE;  // some bodies fall
    if (!(s->flags & ARB_SNAPSHOT_FLAG_PINNED)) {
      s->x += s->vx / (2 * RATE) + (chance(30) ? srnd(1) : 0);
      s->y += s->vy / (2 * RATE);
    }
    s->angle = (uint16_t)(s->angle + s->w / RATE);
    if (e->cls == ARB_SNAPSHOT_WHEEL && chance(10))
      s->aux = (uint16_t)(s->aux + srnd(300)), s->flags ^= ARB_SNAPSHOT_FLAG_SKID;
    if (chance(1)) e->desc_version++;
  }
  if (chance(20)) spawn();
  if (chance(15) && truth.count > 0) {
    int victim = (int)(rnd() % (uint32_t)truth.count);
    memmove(&truth.items[victim], &truth.items[victim + 1],
            (size_t)(truth.count - victim - 1) * sizeof truth.items[0]);
    truth.count--;
  }
}

static viewslot* ring_find(viewslot* ring, uint32_t tick) {
  for (int i = 0; i < RING; ++i)
    if (tick && ring[i].tick == tick) return &ring[i];
  return NULL;
}

/* What the client draws at the tick (its origins evaluated there) is within the tolerances. */
static void check_within_tolerance(const arb_snapshot_set* sent, const arb_snapshot_tolerance* tol,
                                   const arb_snapshot_header* h) {
  for (int i = 0; i < truth.count; ++i) {
    const arb_snapshot_entity* t = &truth.items[i];
    const arb_snapshot_entity* held = arb_snapshot_set_find(sent, t->id);
    assert_non_null(held);
    arb_snapshot_state now = arb_snapshot_eval(&held->s, held->cls, h->tick, h);
    assert_true(snapshot_within_tolerance(&now, t, tol));
    assert_false(t->s.flags & ARB_SNAPSHOT_FLAG_BALLISTIC);  // the truth is never ballistic
  }
}

static int same_state(const arb_snapshot_state* a, const arb_snapshot_state* b) {
  return a->x == b->x && a->y == b->y && a->vx == b->vx && a->vy == b->vy && a->w == b->w &&
         a->angle == b->angle && a->aux == b->aux && a->flags == b->flags;
}

static void assert_same_view(const arb_snapshot_set* a, const arb_snapshot_set* b) {
  assert_int_equal(a->count, b->count);
  for (int i = 0; i < a->count; ++i) {
    assert_int_equal(a->items[i].id, b->items[i].id);
    assert_int_equal(a->items[i].cls, b->items[i].cls);
    if (!same_state(&a->items[i].s, &b->items[i].s)) {
      const arb_snapshot_state *x = &a->items[i].s, *y = &b->items[i].s;
      fprintf(stderr,
              "id %u cls %d: x %d/%d y %d/%d vx %d/%d vy %d/%d w %d/%d a %d/%d aux %d/%d f %d/%d\n",
              a->items[i].id, a->items[i].cls, x->x, y->x, x->y, y->y, x->vx, y->vx, x->vy, y->vy,
              x->w, y->w, x->angle, y->angle, x->aux, y->aux, x->flags, y->flags);
    }
    assert_true(same_state(&a->items[i].s, &b->items[i].s));
  }
}

typedef struct packet {
  int len;
  uint8_t data[1200];
} packet;
static packet in_flight[600];
static int in_flight_count;
static arb_snapshot_part rx;
static uint32_t client_newest, server_acked, session_tick;

/* The client algorithm of the spec: predict the baseline into a work view on a tick's
 * first part, apply parts once each, keep the view when every part arrived. */
static void client_receive(const uint8_t* data, int len) {
  arb_proto_error err;
  assert_int_equal(arb_proto_decode_snapshot(data, (size_t)len, &rx, &err), 0);
  if (rx.h.tick <= client_newest) return;
  viewslot* base = ring_find(client_ring, rx.h.baseline_tick);
  if (rx.h.baseline_tick && !base) return;
  int slot = (int)(rx.h.tick % 4);
  viewslot* w = &work[slot];
  if (w->tick != rx.h.tick) {
    w->tick = rx.h.tick;
    w->set = (arb_snapshot_set){w->items, 0, 2 * MAX_E};
    memset(work_parts[slot], 0, sizeof work_parts[slot]);
    assert_int_equal(arb_snapshot_set_copy(&w->set, base ? &base->set : NULL), 0);
  }
  uint32_t bit = 1u << (rx.h.part_index % 32);
  if (work_parts[slot][rx.h.part_index / 32] & bit) return;
  assert_int_equal(arb_snapshot_set_apply(&w->set, &rx, &err), 0);
  work_parts[slot][rx.h.part_index / 32] |= bit;
  int have = 0;
  for (int i = 0; i < 8; ++i) have += __builtin_popcount(work_parts[slot][i]);
  if (have < rx.h.part_count) return;
  viewslot* keep = &client_ring[rx.h.tick / 2 % RING];
  keep->tick = rx.h.tick;
  keep->set = (arb_snapshot_set){keep->items, 0, 2 * MAX_E};
  keep->set.count = w->set.count;
  memcpy(keep->items, w->items, (size_t)w->set.count * sizeof w->items[0]);
  w->tick = 0;
  client_newest = rx.h.tick;
  assert_same_view(&keep->set, &ring_find(server_ring, rx.h.tick)->set);
  if (!chance(30) && ring_find(server_ring, rx.h.tick))
    server_acked = rx.h.tick;  // the ack may be lost
}

static const char* corpus_dir;
static int deferred_total;
static void write_seed(const uint8_t* data, int len) {
  static int seq;
  char path[512];
  snprintf(path, sizeof path, "%s/seed_%02d", corpus_dir, seq++);
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(data, 1, (size_t)len, f) != (size_t)len) abort();
  fclose(f);
}

static int run_session(arb_snapshot_builder* b, int loss, int budget, arb_snapshot_tolerance tol,
                       int ticks) {
  int completed = 0;
  for (uint32_t end = session_tick + (uint32_t)ticks; session_tick < end;) {
    uint32_t tick = ++session_tick;
    step_world();
    if (tick % 2) continue;
    viewslot* base = ring_find(server_ring, server_acked);
    viewslot* out = &server_ring[tick / 2 % RING];
    if (out == base) base = NULL;
    out->tick = 0;
    out->set = (arb_snapshot_set){out->items, 0, 2 * MAX_E};
    for (int i = 0; i < truth.count; ++i) prio[i] = (float)(rnd() % 1000);
    arb_snapshot_build_args a;
    memset(&a, 0, sizeof a);
    a.h = (arb_snapshot_header){tick, base ? base->tick : 0, tick / 2, 0, 0, RATE, 0, GRAVITY_Y};
    a.baseline = base ? &base->set : NULL;
    a.current = &truth;
    a.priority = prio;
    a.describe = describe;
    a.tol = tol;
    a.byte_budget = budget;
    a.sent = &out->set;
    a.up_to_date = fresh;
    arb_snapshot_build_result r;
    assert_int_equal(arb_snapshot_build(b, &a, &r), 0);
    out->tick = tick;
    if (budget == 0) {
      assert_int_equal(r.deferred, 0);
      check_within_tolerance(&out->set, &tol, &a.h);
    } else if (r.packet_count > 1) {
      assert_true(r.bytes <= budget);
    }
    deferred_total += r.deferred;
    for (int p = 0; p < r.packet_count; ++p) {
      assert_true(r.sizes[p] <= 1200);
      if (corpus_dir && tick <= 8) write_seed(r.packets[p], r.sizes[p]);
      if (chance(loss)) continue;
      int copies = chance(5) ? 2 : 1;
      for (int c = 0; c < copies && in_flight_count < 600; ++c) {
        in_flight[in_flight_count].len = r.sizes[p];
        memcpy(in_flight[in_flight_count++].data, r.packets[p], (size_t)r.sizes[p]);
      }
    }
    // Deliver most of what is in flight, in random order; a few packets wait a round.
    for (int i = in_flight_count - 1; i > 0; --i) {
      int j = (int)(rnd() % (uint32_t)(i + 1));
      packet t = in_flight[i];
      in_flight[i] = in_flight[j];
      in_flight[j] = t;
    }
    int kept = 0;
    uint32_t before = client_newest;
    for (int i = 0; i < in_flight_count; ++i) {
      if (chance(10))
        in_flight[kept++] = in_flight[i];
      else
        client_receive(in_flight[i].data, in_flight[i].len);
    }
    in_flight_count = kept;
    completed += client_newest != before;
  }
  return completed;
}

static void reset_session(void) {
  memset(server_ring, 0, sizeof server_ring);
  memset(client_ring, 0, sizeof client_ring);
  memset(work, 0, sizeof work);
  truth.count = 0;
  next_id = 1;
  in_flight_count = 0;
  client_newest = server_acked = session_tick = 0;
  for (int i = 0; i < 400; ++i) spawn();
}

static void converges_under_loss(void** state) {
  (void)state;
  arb_snapshot_builder* b;
  assert_int_equal(arb_snapshot_builder_create(1200, 2 * MAX_E, &b), 0);
  const arb_snapshot_tolerance exact = {0, 0, 0, 0};
  reset_session();
  assert_true(run_session(b, 10, 0, arb_snapshot_default_tolerance(), 1200) > 100);
  reset_session();
  assert_true(run_session(b, 10, 0, exact, 600) > 50);
  arb_snapshot_builder_destroy(b);
}

/* Under a budget far below what the world needs, snapshots stay within it (an empty one
 * packet excepted), differences wait, and once the budget lifts everything converges. */
static void budget_defers_then_converges(void** state) {
  (void)state;
  arb_snapshot_builder* b;
  assert_int_equal(arb_snapshot_builder_create(1200, 2 * MAX_E, &b), 0);
  reset_session();
  deferred_total = 0;
  assert_true(run_session(b, 5, 600, arb_snapshot_default_tolerance(), 600) > 50);
  assert_true(deferred_total > 1000);  // the budget really was short
  assert_true(run_session(b, 0, 0, arb_snapshot_default_tolerance(), 200) > 50);
  arb_snapshot_builder_destroy(b);
}

static int describe_calls;
static uint32_t describe_fails_for;
static int counting_describe(void* user, uint32_t id, arb_snapshot_desc* d) {
  describe_calls++;
  return id == describe_fails_for ? ARB_E_NOT_FOUND : describe(user, id, d);
}

/* A full snapshot of 400 entities under a 300-byte budget asks for the descriptions of
 * the entities it sends (the split stops at the budget), not of the ~390 that wait: one
 * that could not be described, last in priority, does not fail the snapshot. */
static void small_budget_describes_only_what_it_sends(void** state) {
  (void)state;
  arb_snapshot_builder* b;
  assert_int_equal(arb_snapshot_builder_create(1200, 2 * MAX_E, &b), 0);
  reset_session();
  for (int i = 0; i < truth.count; ++i) prio[i] = (float)(truth.count - i);  // low ids first
  describe_calls = 0;
  describe_fails_for = truth.items[truth.count - 1].id;
  viewslot* out = &server_ring[0];
  out->set = (arb_snapshot_set){out->items, 0, 2 * MAX_E};
  arb_snapshot_build_args a;
  memset(&a, 0, sizeof a);
  a.h = (arb_snapshot_header){2, 0, 1, 0, 0, RATE, 0, GRAVITY_Y};
  a.current = &truth;
  a.priority = prio;
  a.describe = counting_describe;
  a.tol = arb_snapshot_default_tolerance();
  a.byte_budget = 300;
  a.sent = &out->set;
  arb_snapshot_build_result r;
  assert_int_equal(arb_snapshot_build(b, &a, &r), 0);
  assert_true(r.entered > 0 && r.bytes <= 300);
  assert_int_equal(r.deferred, truth.count - r.entered);
  assert_true(describe_calls <= r.entered + 2);
  // Without a budget every entity is described and the one that cannot be fails it.
  a.byte_budget = 0;
  assert_int_equal(arb_snapshot_build(b, &a, &r), ARB_E_NOT_FOUND);
  describe_fails_for = 0;
  arb_snapshot_builder_destroy(b);
}

static void apply_is_all_or_nothing(void** state) {
  (void)state;
  static arb_snapshot_entity items[4];
  arb_snapshot_set view = {items, 0, 4};
  memset(&part1, 0, sizeof part1);
  part1.h = (arb_snapshot_header){2, 1, 0, 0, 1, 60, 0, 0};
  arb_snapshot_record* r = part1.records;
  memset(r, 0, 3 * sizeof *r);
  r[0].id = 5, r[0].op = ARB_SNAPSHOT_ENTER, r[0].cls = ARB_SNAPSHOT_PARTICLE, r[0].v.x = 7;
  part1.descs[0] = make_desc(ARB_SNAPSHOT_PARTICLE, 5);
  part1.desc_count = 1;
  r[1].id = 9, r[1].op = ARB_SNAPSHOT_UPDATE, r[1].mask = ARB_SNAPSHOT_M_POS, r[1].v.x = 1;
  part1.record_count = 2;
  arb_proto_error err;
  assert_int_equal(arb_snapshot_set_apply(&view, &part1, &err), ARB_E_NOT_FOUND);
  assert_int_equal(view.count, 0);
  part1.record_count = 1;
  assert_int_equal(arb_snapshot_set_apply(&view, &part1, &err), 0);
  assert_int_equal(view.count, 1);
  // A particle has no angle: an angle update is refused and changes nothing.
  r[0] = r[1];
  r[0].id = 5;
  r[0].mask = ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_ANGLE;
  part1.desc_count = 0;
  assert_int_equal(arb_snapshot_set_apply(&view, &part1, &err), ARB_E_CORRUPT);
  assert_int_equal(view.items[0].s.x, 7);
  r[0].mask = ARB_SNAPSHOT_M_POS;
  assert_int_equal(arb_snapshot_set_apply(&view, &part1, &err), 0);
  assert_int_equal(view.items[0].s.x, 8);
}

/* --write-corpus DIR: fuzz seeds (a variety part and the first packets of a session). */
static int write_corpus(const char* dir) {
  corpus_dir = dir;
  fill_variety_part();
  int n = arb_proto_encode_snapshot(&part1, buf1, sizeof buf1);
  if (n <= 0) return 1;
  write_seed(buf1, n);
  arb_snapshot_builder* b;
  if (arb_snapshot_builder_create(400, 2 * MAX_E, &b) != 0) return 1;
  reset_session();
  truth.count = 20;
  run_session(b, 0, 0, arb_snapshot_default_tolerance(), 8);
  arb_snapshot_builder_destroy(b);
  return 0;
}

/* The accumulator: own avatar first, near before far, fast before slow, the camera box
 * counts, priorities grow while waiting and restart from zero once up to date. */
static void priority_accumulator(void** state) {
  (void)state;
  static priority_fixture f;
  priority_fixture_init(&f);
  arb_snapshot_interest in = f.interest;
  float out[4];
  arb_snapshot_priority p;
  assert_int_equal(arb_snapshot_priority_init(&p, 8), 0);
  arb_snapshot_priority_update(&p, &f.set, f.pos, f.speed, &in, 0.1f, out, NULL);
  assert_true(out[0] > out[3] && out[3] > out[2] && out[2] > out[1] && out[1] > 0.0f);
  float far_once = out[1];
  in.has_view = true;
  in.view = (arb_aabb){{40, -5}, {60, 5}};
  uint8_t done[4] = {1, 0, 1, 0};
  arb_snapshot_priority_sent(&p, done);
  arb_snapshot_priority_update(&p, &f.set, f.pos, f.speed, &in, 0.1f, out, NULL);
  assert_true(out[1] > 2.0f * far_once);  // waited, and now on the player's screen
  assert_true(out[2] < out[3]);           // restarted from zero
  // An entity that leaves the view loses its accumulator; coming back, it starts afresh.
  f.set.count = 1;
  arb_snapshot_priority_update(&p, &f.set, f.pos, f.speed, &in, 0.1f, out, NULL);
  f.set.count = 4;
  arb_snapshot_priority_update(&p, &f.set, f.pos, f.speed, &in, 0.1f, out, NULL);
  // At the box's centre it weighs 4 (on screen, as near as the avatar itself), however
  // far the avatar is: 4 x 0.1 s.
  assert_true(fabsf(out[1] - 0.4f) < 1e-6f);
  // In the box the weight is 4 x the larger of the avatar's nearness (1 / (1 + (d/r)^2))
  // and the box's (1 / (1 + (c/h)^2), h half the diagonal); at the box's corner (c = h)
  // the box's is 1/2.
  arb_snapshot_interest around = in;
  around.view = (arb_aabb){{-20, -20}, {20, 20}};  // around the avatar, at (0, 0)
  float c = 5.0f / (20.0f * sqrtf(2.0f));
  float near_avatar = arb_snapshot_weight(&around, 11, arb_v2(5, 0));
  assert_true(fabsf(near_avatar - 4.0f / (1.0f + c * c)) < 1e-5f);  // the box's: 0.97 > 0.8
  around.view = (arb_aabb){{-5, -100}, {195, 100}};                 // a wide box, off centre
  float avatar_side = arb_snapshot_weight(&around, 11, arb_v2(5, 0));
  assert_true(fabsf(avatar_side - 4.0f / (1.0f + 0.25f)) < 1e-5f);  // the avatar's: 0.8
  float corner = arb_snapshot_weight(&in, 11, arb_v2(60, 5));
  assert_true(fabsf(corner - 2.0f) < 1e-6f);
  assert_true(arb_snapshot_weight(&in, 11, arb_v2(61, 5)) < 0.05f);  // off screen, far
  // Against the formula with the distances themselves, over a spread of positions; a
  // camera box shrunk to a point weighs 4 there (its nearness is 1 at distance 0).
  for (int i = 0; i < 200; ++i) {
    arb_vec2 q = arb_v2(-30.0f + 0.37f * (float)i, 12.0f - 0.11f * (float)i);
    float d = arb_length(q) / around.near_radius, ref = 1.0f / (1.0f + d * d);
    arb_vec2 mid = arb_scale(0.5f, arb_add(around.view.lower, around.view.upper));
    float h = 0.5f * arb_length(arb_sub(around.view.upper, around.view.lower));
    float e = arb_distance(q, mid) / h;
    if (arb_aabb_contains_point(around.view, q)) ref = 4.0f * fmaxf(ref, 1.0f / (1.0f + e * e));
    assert_true(fabsf(arb_snapshot_weight(&around, 11, q) - ref) <= 1e-5f * ref);
  }
  arb_snapshot_interest point = around;
  point.view = (arb_aabb){{60, 0}, {60, 0}};
  assert_true(arb_snapshot_weight(&point, 11, arb_v2(60, 0)) == 4.0f);
  arb_snapshot_priority_free(&p);
}

/* Rate control: full rate on a clear or randomly lossy link, backs off under heavy loss or
 * queueing delay (not
 * below the floor), recovers once clear; the per-snapshot budgets of any second add up to
 * at most that second's rate, and what a snapshot spends over its budget is taken back. */
static void rate_control(void** state) {
  (void)state;
  arb_snapshot_rate r;
  arb_snapshot_rate_init(&r, 256);
  const float dt = 1.0f / 30.0f;
  for (int i = 0; i < 90; ++i) arb_snapshot_rate_update(&r, 0.0f, 40.0f, dt);
  assert_true(r.kbps == 256.0f);
  assert_int_equal(arb_snapshot_rate_budget(&r, 30), 1066);
  for (int i = 0; i < 300; ++i)
    arb_snapshot_rate_update(&r, 0.10f, 40.0f, dt);  // 10 s of 10 % random loss
  assert_true(r.kbps == 256.0f);  // a steady round trip: loss alone is not congestion
  for (int i = 0; i < 30; ++i) arb_snapshot_rate_update(&r, 0.30f, 40.0f, dt);  // 1 s of 30 % loss
  assert_true(r.kbps < 256.0f * 0.75f * 0.75f * 0.75f + 0.01f &&
              r.kbps > 256.0f * 0.75f * 0.75f * 0.75f * 0.75f * 0.76f);
  for (int i = 0; i < 300; ++i)
    arb_snapshot_rate_update(&r, 0.5f, 40.0f, dt);  // 10 s of heavy loss
  assert_true(r.kbps == (float)ARB_SNAPSHOT_RATE_FLOOR_KBPS);
  float before = r.kbps;
  for (int i = 0; i < 25; ++i) arb_snapshot_rate_update(&r, 0.0f, 40.0f, dt);  // < 1 s clear: holds
  assert_true(r.kbps == before);
  for (int i = 0; i < 30 * 30; ++i) arb_snapshot_rate_update(&r, 0.0f, 40.0f, dt);  // 30 s clear
  assert_true(r.kbps == 256.0f);
  for (int i = 0; i < 30; ++i) arb_snapshot_rate_update(&r, 0.0f, 150.0f, dt);  // RTT 40 -> 150 ms
  assert_true(r.kbps < 256.0f * 0.75f);
  // Any second of budgets stays within the rate in force (the rate only drops within it).
  arb_snapshot_rate_init(&r, 64);
  long sum = 0;
  for (int i = 0; i < 30; ++i) {
    sum += arb_snapshot_rate_budget(&r, 30);
    arb_snapshot_rate_update(&r, i % 2 ? 0.05f : 0.0f, 40.0f, dt);
  }
  assert_true(sum * 8 <= 64 * 1000);
  arb_snapshot_rate_init(&r, 1);  // a ceiling below the floor is raised to it
  assert_true(r.ceiling_kbps == (float)ARB_SNAPSHOT_RATE_FLOOR_KBPS);
  // A snapshot over its budget is owed: whole budgets go to it (nothing sent), then the
  // rest comes off the next one; over those snapshots the rate holds.
  arb_snapshot_rate_init(&r, 64);
  int budget = arb_snapshot_rate_take(&r, 30);
  assert_int_equal(budget, 266);
  arb_snapshot_rate_spent(&r, budget, 266 + 600);
  assert_int_equal(arb_snapshot_rate_take(&r, 30), 0);
  assert_int_equal(arb_snapshot_rate_take(&r, 30), 0);
  assert_int_equal(arb_snapshot_rate_take(&r, 30), 266 - (600 - 2 * 266));
  assert_int_equal(arb_snapshot_rate_take(&r, 30), 266);
  arb_snapshot_rate_spent(&r, 266, 200);  // under budget: nothing owed
  assert_int_equal(arb_snapshot_rate_take(&r, 30), 266);
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0) return write_corpus(argv[2]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(prediction_formula),
      cmocka_unit_test(prediction_matches_the_formula),
      cmocka_unit_test(message_round_trip),
      cmocka_unit_test(apply_is_all_or_nothing),
      cmocka_unit_test(converges_under_loss),
      cmocka_unit_test(budget_defers_then_converges),
      cmocka_unit_test(small_budget_describes_only_what_it_sends),
      cmocka_unit_test(priority_accumulator),
      cmocka_unit_test(rate_control),
      cmocka_unit_test(link_ends),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
