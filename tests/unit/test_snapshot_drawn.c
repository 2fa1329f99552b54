// What a client draws (arbiter/snapshot_drawn.h) and the builder's ordering by it: the
// freshest origin of every entity is kept across sibling views, an entity the client
// draws within the tolerances costs nothing even when the baseline's prediction is off,
// the worst-drawn (by weight x error) entity goes first, under a 64 kbit/s rate the
// bytes of any second of snapshots stay within the rate plus one packet, and the update
// in place gives the same set as the merge into a second one.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../common/test_main.h"
// clang-format on

#include <arbiter/snapshot.h>
#include <arbiter/snapshot_drawn.h>
#include <arbiter/snapshot_rate.h>

static arb_snapshot_entity ent(uint32_t id, uint32_t t0, int32_t x) {
  arb_snapshot_entity e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.cls = ARB_SNAPSHOT_BODY;
  e.s.x = x;
  e.s.t0 = t0;
  return e;
}

static void drawn_keeps_the_freshest_origin(void** state) {
  (void)state;
  arb_snapshot_entity d[] = {ent(1, 10, 100), ent(2, 4, 200), ent(4, 12, 400), ent(5, 12, 500),
                             ent(6, 7, 600)};
  arb_snapshot_entity v[] = {ent(1, 6, 101), ent(2, 14, 201), ent(3, 14, 301)};
  arb_snapshot_entity b[] = {ent(1, 6, 101), ent(2, 4, 200), ent(4, 2, 400)};
  arb_snapshot_entity o[16];
  arb_snapshot_set drawn = {d, 5, 5}, view = {v, 3, 3}, base = {b, 3, 3}, out = {o, 0, 16};
  assert_int_equal(arb_snapshot_drawn_apply(&drawn, &view, &base, 8, &out), 0);
  // 1: a sibling's later correction wins over the view's older origin; 2, 3: the view's;
  // 4: in the baseline, gone from the view (removed); 5: entered by a sibling after the
  // baseline, kept; 6: set before the baseline and absent from it, dropped.
  assert_int_equal(out.count, 4);
  assert_int_equal(out.items[0].id, 1);
  assert_int_equal(out.items[0].s.x, 100);
  assert_int_equal(out.items[1].s.x, 201);
  assert_int_equal(out.items[2].id, 3);
  assert_int_equal(out.items[3].id, 5);
  // A full snapshot (baseline 0) is everything that is drawn.
  assert_int_equal(arb_snapshot_drawn_apply(&drawn, &view, NULL, 0, &out), 0);
  assert_int_equal(out.count, 3);
  assert_int_equal(out.items[0].s.x, 100);
  // Without the baseline's view an entity only in drawn counts as removed.
  assert_int_equal(arb_snapshot_drawn_apply(&drawn, &view, NULL, 8, &out), 0);
  assert_int_equal(out.count, 3);
  out.cap = 7;
  assert_int_equal(arb_snapshot_drawn_apply(&drawn, &view, &base, 8, &out), ARB_E_NOSPACE);
  assert_int_equal(out.count, 0);
}

static int describe(void* user, uint32_t id, arb_snapshot_desc* d) {
  (void)user, (void)id;
  memset(d, 0, sizeof d[0]);
  d->cls = ARB_SNAPSHOT_BODY;
  d->shape_count = 1;
  d->shapes[0].kind = 1;
  d->shapes[0].count = 1;
  d->shapes[0].radius = 0.3f;
  return 0;
}

#define N 12
static arb_snapshot_entity base_items[N], cur_items[N], drawn_items[N], sent_items[2 * N];

/* N bodies at rest at the origin tick 10; at tick 20 body i has moved i units in x
 * (body 0 not at all). */
static arb_snapshot_build_args moved_world(arb_snapshot_set* base, arb_snapshot_set* cur,
                                           arb_snapshot_set* drawn, arb_snapshot_set* sent) {
  for (int i = 0; i < N; ++i) {
    base_items[i] = ent((uint32_t)(i + 1), 10, 1000 * i);
    cur_items[i] = ent((uint32_t)(i + 1), 10, 1000 * i + i * 3);
    drawn_items[i] = base_items[i];
  }
  *base = (arb_snapshot_set){base_items, N, N};
  *cur = (arb_snapshot_set){cur_items, N, N};
  *drawn = (arb_snapshot_set){drawn_items, N, N};
  *sent = (arb_snapshot_set){sent_items, 0, 2 * N};
  arb_snapshot_build_args a;
  memset(&a, 0, sizeof a);
  a.h = (arb_snapshot_header){20, 10, 0, 0, 0, 60, 0, 0};
  a.baseline = base;
  a.current = cur;
  a.drawn = drawn;
  a.describe = describe;
  a.tol = arb_snapshot_default_tolerance();
  a.sent = sent;
  return a;
}

static uint32_t written(const arb_snapshot_set* sent, uint32_t tick, uint32_t* ids) {
  uint32_t n = 0;
  for (int i = 0; i < sent->count; ++i)
    if (sent->items[i].s.t0 == tick) ids[n++] = sent->items[i].id;
  return n;
}

static void worst_drawn_goes_first(void** state) {
  (void)state;
  arb_snapshot_builder* b;
  assert_int_equal(arb_snapshot_builder_create(1200, 2 * N, &b), 0);
  arb_snapshot_set base, cur, drawn, sent;
  arb_snapshot_build_args a = moved_world(&base, &cur, &drawn, &sent);
  arb_snapshot_build_result r;
  uint32_t ids[2 * N];
  // Room for a few small records: the bodies drawn furthest off (body i is 3(i-1) units
  // off), and only those.
  a.byte_budget = 50;
  assert_int_equal(arb_snapshot_build(b, &a, &r), 0);
  uint32_t k = written(&sent, 20, ids);
  assert_true(k >= 1 && k < N - 2 && (int)k == r.updated);
  for (uint32_t i = 0; i < k; ++i) assert_true(ids[i] > N - k);
  // Weighted: body 3 is 6 units off but 100 times as relevant as the rest: it goes first.
  float weight[N];
  for (int i = 0; i < N; ++i) weight[i] = 1.0f;
  weight[2] = 100.0f;
  a.weight = weight;
  assert_int_equal(arb_snapshot_build(b, &a, &r), 0);
  assert_int_equal(written(&sent, 20, ids), k);
  assert_int_equal(ids[0], 3);
  for (uint32_t i = 1; i < k; ++i) assert_true(ids[i] > N - (k - 1));
  // No budget: every body off by more than the tolerance (1 unit) gets a record, body 1
  // (at rest) does not.
  a.byte_budget = 0;
  a.weight = NULL;
  assert_int_equal(arb_snapshot_build(b, &a, &r), 0);
  assert_int_equal(r.updated, N - 1);
  // The client already draws bodies 5.. right (a sibling snapshot corrected them): they
  // count as up to date, and the three drawn wrong go before them although the baseline's
  // prediction of the others is further off (those only refresh the baseline chain).
  for (int i = 4; i < N; ++i) drawn_items[i] = cur_items[i], drawn_items[i].s.t0 = 16;
  uint8_t fresh[N];
  a.up_to_date = fresh;
  a.byte_budget = 50;
  assert_int_equal(arb_snapshot_build(b, &a, &r), 0);
  assert_true(written(&sent, 20, ids) >= 3);
  for (uint32_t i = 0; i < 3; ++i) assert_int_equal(ids[i], i + 2);
  for (int i = 0; i < N; ++i) assert_int_equal(fresh[i], i == 0 || i >= 4);
  arb_snapshot_builder_destroy(b);
}

/* 300 bodies whose velocities change at random (collisions) under a 64 kbit/s rate with
 * the drawn model and an ack 100 ms late: any 30 consecutive snapshots stay within the
 * rate plus one packet, and once the budget is lifted the client draws every body within
 * the tolerances. */
#define M 300
#define RING 8
static arb_snapshot_entity truth_items[M], ring_items[RING][2 * M], model_items[2][3 * M];
static uint32_t rng = 12345;
static uint32_t rnd(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

static void step(arb_snapshot_set* truth, const arb_snapshot_header* h) {
  for (int i = 0; i < truth->count; ++i) {
    arb_snapshot_state* s = &truth->items[i].s;
    *s = arb_snapshot_eval(s, ARB_SNAPSHOT_BODY, h->tick, h);
    if (rnd() % 40 == 0)
      s->vx = (int32_t)(rnd() % 1536) - 768, s->vy = (int32_t)(rnd() % 1536) - 768;
  }
}

static void budget_holds_with_the_drawn_model(void** state) {
  (void)state;
  arb_snapshot_builder* b;
  assert_int_equal(arb_snapshot_builder_create(1200, 2 * M, &b), 0);
  arb_snapshot_set truth = {truth_items, M, M}, ring[RING];
  uint32_t ring_tick[RING] = {0}, ring_base[RING] = {0};
  for (int i = 0; i < M; ++i) truth_items[i] = ent((uint32_t)(i + 1), 0, (int32_t)(rnd() % 8000));
  for (int i = 0; i < RING; ++i) ring[i] = (arb_snapshot_set){ring_items[i], 0, 2 * M};
  arb_snapshot_set model = {model_items[0], 0, 3 * M}, tmp = {model_items[1], 0, 3 * M};
  arb_snapshot_rate rate;
  arb_snapshot_rate_init(&rate, 64);
  static long bytes[400];
  int deferred = 0;
  for (int n = 0; n < 400; ++n) {
    uint32_t tick = 2u * (uint32_t)(n + 1);
    int slot = n % RING, base = n >= 3 ? (n - 3) % RING : -1;
    arb_snapshot_header h = {tick, base >= 0 ? ring_tick[base] : 0, 0, 0, 0, 60, 0, 0};
    step(&truth, &h);
    arb_snapshot_build_args a;
    memset(&a, 0, sizeof a);
    a.h = h;
    a.baseline = base >= 0 ? &ring[base] : NULL;
    a.current = &truth;
    a.drawn = &model;
    a.describe = describe;
    a.tol = arb_snapshot_default_tolerance();
    a.packet_overhead = 40;
    a.byte_budget = n < 300 ? arb_snapshot_rate_budget(&rate, 30) : 0;
    a.sent = &ring[slot];
    arb_snapshot_build_result r;
    assert_int_equal(arb_snapshot_build(b, &a, &r), 0);
    ring_tick[slot] = tick;
    ring_base[slot] = h.baseline_tick;
    bytes[n] = r.bytes + 40L * r.packet_count;
    if (n < 300) deferred += r.deferred;
    assert_int_equal(
        arb_snapshot_drawn_apply(&model, &ring[slot], a.baseline, ring_base[slot], &tmp), 0);
    arb_snapshot_set t = model;
    model = tmp;
    tmp = t;
    arb_snapshot_rate_update(&rate, 0.0f, 60.0f, 1.0f / 30.0f);
  }
  assert_true(deferred > 0);  // the budget was short
  for (int start = 0; start + 30 <= 300; ++start) {
    long sum = 0;
    for (int k = start; k < start + 30; ++k) sum += bytes[k];
    assert_true(sum <= 64000 / 8 + 1240);
  }
  // Unbudgeted for the last 100 snapshots: what the client draws is within tolerance.
  uint32_t tick = 800;
  arb_snapshot_header h = {tick, 0, 0, 0, 0, 60, 0, 0};
  assert_int_equal(model.count, M);
  for (int i = 0; i < M; ++i) {
    arb_snapshot_state d = arb_snapshot_eval(&model.items[i].s, ARB_SNAPSHOT_BODY, tick, &h);
    arb_snapshot_state t = arb_snapshot_eval(&truth.items[i].s, ARB_SNAPSHOT_BODY, tick, &h);
    assert_true(abs(d.x - t.x) <= 1 && abs(d.y - t.y) <= 1);
  }
  arb_snapshot_builder_destroy(b);
}

/* The in-place update equals the merge into a second set, over random drawn sets, views
 * and baselines: ids shared, only in one of them, or in neither; classes differing;
 * origins older, newer or as old; full snapshots and missing baselines; and no room. */
#define Q 64
static arb_snapshot_entity q_drawn[3 * Q], q_view[2 * Q], q_base[2 * Q], q_out[3 * Q];
static arb_snapshot_set random_set(arb_snapshot_entity* items, int cap) {
  arb_snapshot_set set = {items, 0, cap};
  for (uint32_t id = 1 + rnd() % 4u; set.count < cap && id < 4u * Q; id += 1u + rnd() % 4u) {
    if (rnd() % 3u == 0) continue;
    items[set.count] = ent(id, 1u + rnd() % 20u, (int32_t)(rnd() % 1000u));
    items[set.count].cls = rnd() % 8u == 0 ? ARB_SNAPSHOT_PARTICLE : ARB_SNAPSHOT_BODY;
    items[set.count].desc_version = rnd() % 2u;
    set.count++;
  }
  return set;
}

static void in_place_equals_the_merge(void** state) {
  (void)state;
  int inserts[2 * Q];
  for (int round = 0; round < 2000; ++round) {
    arb_snapshot_set drawn = random_set(q_drawn, 2 * Q), view = random_set(q_view, 2 * Q);
    arb_snapshot_set base = random_set(q_base, 2 * Q), out = {q_out, 0, 3 * Q};
    uint32_t baseline_tick = rnd() % 4u == 0 ? 0 : 1u + rnd() % 20u;
    const arb_snapshot_set* b = rnd() % 5u == 0 ? NULL : &base;
    drawn.cap = rnd() % 10u == 0 ? drawn.count + view.count - 1 : 3 * Q;
    out.cap = drawn.cap;  // the same room for both
    int want = arb_snapshot_drawn_apply(&drawn, &view, b, baseline_tick, &out);
    arb_snapshot_set before = drawn;
    int got = arb_snapshot_drawn_apply_in_place(&drawn, &view, b, baseline_tick, inserts);
    assert_int_equal(got, drawn.cap < before.count + view.count ? ARB_E_NOSPACE : 0);
    if (got != 0) {
      assert_int_equal(want, ARB_E_NOSPACE);
      assert_int_equal(drawn.count, before.count);
      continue;
    }
    assert_int_equal(want, 0);
    assert_int_equal(drawn.count, out.count);
    for (int i = 0; i < out.count; ++i) {
      assert_int_equal(drawn.items[i].id, out.items[i].id);
      assert_int_equal(drawn.items[i].cls, out.items[i].cls);
      assert_int_equal(drawn.items[i].desc_version, out.items[i].desc_version);
      assert_int_equal(drawn.items[i].s.x, out.items[i].s.x);
      assert_int_equal(drawn.items[i].s.t0, out.items[i].s.t0);
    }
  }
}

ARB_TEST_MAIN(cmocka_unit_test(drawn_keeps_the_freshest_origin),
              cmocka_unit_test(worst_drawn_goes_first),
              cmocka_unit_test(budget_holds_with_the_drawn_model),
              cmocka_unit_test(in_place_equals_the_merge))
