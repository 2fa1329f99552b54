// Contact events (begin/end touch, hit) as outputs of the step: the same events in the
// same order in every run, after save/restore and in every build (a golden fold of the
// whole event stream, checked by the release, debug and asan passes of `make test`);
// every begin has exactly one end, also when a touching body is destroyed; hit events
// report impacts faster than the threshold and only those; and reading them or changing
// the threshold never changes the simulation (the world hash).
// cmocka.h needs these first
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
// clang-format on

#include "../common/test_main.h"
#include "fnv_bits.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)
#define TICKS 400
#define MAX_BODIES 256

// A walled pit with a pile of boxes, circles raining in (some fast, one bullet), and
// bodies destroyed on ticks 150..250 (churn): every kind of begin, end and hit.
static arb_world* make_scene(float hit_threshold) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, -10.0f);
  wd.hit_event_threshold = hit_threshold;
  arb_world* w = arb_world_create(&wd);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 12.0f, 0.5f);
  wt_box(w, ARB_BODY_STATIC, -12.5f, 8.0f, 0.5f, 9.0f);
  wt_box(w, ARB_BODY_STATIC, 12.5f, 8.0f, 0.5f, 9.0f);
  for (int i = 0; i < 12; ++i)
    wt_box(w, ARB_BODY_DYNAMIC, -3.0f + 0.5f * (float)(i % 3), 0.5f + (float)i, 0.5f, 0.5f);
  return w;
}

static void rain(arb_world* w, int tick) {
  if (tick % 6 != 0 || tick > 240) return;
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(-10.0f + (float)((tick * 7) % 20), 14.0f);
  bd.linear_velocity = arb_v2(0.0f, tick % 30 == 0 ? -60.0f : -2.0f);  // some fast
  bd.bullet = tick == 120;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.2f + 0.05f * (float)(tick % 4);
  bd.shape.restitution = tick % 12 == 0 ? 0.5f : 0.0f;
  arb_body_create(w, &bd);
}

// Destroys the lowest-slot dynamic body that touches something (a touching pair ends).
static void churn(arb_world* w, int tick) {
  if (tick < 150 || tick > 250 || tick % 10 != 0) return;
  arb_body_id ids[MAX_BODIES];
  int n = arb_world_get_bodies(w, ids, MAX_BODIES);
  for (int i = 0; i < n && i < MAX_BODIES; ++i) {
    if (arb_body_get_type(w, ids[i]) != ARB_BODY_DYNAMIC) continue;
    if (arb_body_get_contacts(w, ids[i], NULL, 0) == 0) continue;
    arb_body_destroy(w, ids[i]);
    return;
  }
}

static uint64_t fold_u32(uint64_t h, uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return fnv_bits(h, f);
}

static uint64_t fold_id(uint64_t h, arb_body_id id) {
  return fold_u32(fold_u32(h, (uint32_t)id.index1), id.generation);
}

// The whole event stream of the last step folded into h (kind, ids, hit values' bits).
static uint64_t fold_events(const arb_world* w, uint64_t h, int* count) {
  const arb_contact_event* ev;
  const arb_contact_hit_event* hit;
  int nb = arb_world_get_begin_touch_events(w, &ev);
  for (int i = 0; i < nb; ++i) h = fold_id(fold_id(fold_u32(h, 1), ev[i].a), ev[i].b);
  int ne = arb_world_get_end_touch_events(w, &ev);
  for (int i = 0; i < ne; ++i) h = fold_id(fold_id(fold_u32(h, 2), ev[i].a), ev[i].b);
  int nh = arb_world_get_hit_events(w, &hit);
  for (int i = 0; i < nh; ++i) {
    h = fold_id(fold_id(fold_u32(h, 3), hit[i].a), hit[i].b);
    h = fnv_bits(fnv_bits(h, hit[i].point.x), hit[i].point.y);
    h = fnv_bits(fnv_bits(fnv_bits(h, hit[i].normal.x), hit[i].normal.y), hit[i].approach_speed);
  }
  *count += nb + ne + nh;
  return h;
}

typedef struct run_result {
  uint64_t events;        // fold of every tick's events
  uint64_t events_after;  // fold of the events of ticks > 200
  uint64_t world_hash;    // after the last tick
  int count;
} run_result;

// One tick of the scene, its events folded into the run_result `run`.
static void run_tick(arb_world* w, int tick, void* run) {
  run_result* r = run;
  rain(w, tick);
  churn(w, tick);
  arb_world_step(w, DT);
  int c = 0;
  r->events = fold_events(w, r->events, &c);
  if (tick > 200) r->events_after = fold_events(w, r->events_after, &c);
  r->count += c;
}

// restore_at > 0: save after that tick, step on 20 steps as a detour, restore, continue.
static run_result run(float hit_threshold, int restore_at) {
  arb_world* w = make_scene(hit_threshold);
  run_result r = {1469598103934665603ull, 1469598103934665603ull, 0, 0};
  r.world_hash = wt_run_with_detour(w, TICKS, run_tick, &r, restore_at, 20, DT);
  return r;
}

static void test_same_events_every_run(void** state) {
  (void)state;
  run_result a = run(1.0f, 0);
  run_result b = run(1.0f, 0);
  assert_true(a.count > 100);
  assert_int_equal(a.events, b.events);
  assert_int_equal(a.world_hash, b.world_hash);
  // Saved and restored after tick 200: the events of ticks 201.. are the same.
  run_result c = run(1.0f, 200);
  assert_int_equal(a.events_after, c.events_after);
  assert_int_equal(a.world_hash, c.world_hash);
  // Every build (-O0, -O2, asan) folds the same stream.
  printf("golden events 0x%016llxull (%d events)\n", (unsigned long long)a.events, a.count);
  assert_int_equal(a.events, 0xa86dc3ada56bc39bull);
}

// Events are outputs: the threshold (even 0: a hit for every push) changes nothing else.
static void test_events_do_not_change_the_simulation(void** state) {
  (void)state;
  run_result a = run(1.0f, 0);
  run_result zero = run(0.0f, 0);
  run_result none = run(1e30f, 0);
  assert_int_equal(a.world_hash, zero.world_hash);
  assert_int_equal(a.world_hash, none.world_hash);
  assert_true(zero.count > a.count);
  assert_true(none.count < a.count);
}

// Tracks the touching pairs through begins and ends: a begin of a pair already touching
// or an end of a pair not touching fails; each step the set equals the touching contacts.
typedef struct pair_set {
  uint64_t keys[4096];
  int n;
} pair_set;

static uint64_t pair_key(arb_contact_event e) {
  uint64_t a = ((uint64_t)e.a.index1 << 32) | e.a.generation;
  uint64_t b = ((uint64_t)e.b.index1 << 32) | e.b.generation;
  return a * 1000003ull ^ b;
}

static int find(const pair_set* s, uint64_t k) {
  for (int i = 0; i < s->n; ++i) {
    if (s->keys[i] == k) return i;
  }
  return -1;
}

static int touching_pairs(arb_world* w) {
  arb_body_id ids[MAX_BODIES];
  int n = arb_world_get_bodies(w, ids, MAX_BODIES), total = 0;
  for (int i = 0; i < n && i < MAX_BODIES; ++i) total += arb_body_get_contacts(w, ids[i], NULL, 0);
  return total;  // each pair counted twice (from both sides)
}

static void test_each_begin_has_one_end(void** state) {
  (void)state;
  arb_world* w = make_scene(1.0f);
  static pair_set s;
  s.n = 0;
  int begins = 0, ends = 0;
  for (int tick = 1; tick <= TICKS + 1; ++tick) {
    rain(w, tick);
    churn(w, tick);
    if (tick == TICKS) {  // everything goes: every pair still touching must end
      arb_body_id ids[MAX_BODIES];
      int n = arb_world_get_bodies(w, ids, MAX_BODIES);
      for (int i = 0; i < n && i < MAX_BODIES; ++i) {
        if (arb_body_get_type(w, ids[i]) == ARB_BODY_DYNAMIC) arb_body_destroy(w, ids[i]);
      }
    }
    arb_world_step(w, DT);
    const arb_contact_event* ev;
    int ne = arb_world_get_end_touch_events(w, &ev);
    for (int i = 0; i < ne; ++i) {
      int at = find(&s, pair_key(ev[i]));
      assert_true(at >= 0);  // an end without its begin
      s.keys[at] = s.keys[--s.n];
    }
    int nb = arb_world_get_begin_touch_events(w, &ev);
    for (int i = 0; i < nb; ++i) {
      assert_true(find(&s, pair_key(ev[i])) < 0);  // a second begin
      assert_true(s.n < 4096);
      s.keys[s.n++] = pair_key(ev[i]);
    }
    begins += nb;
    ends += ne;
    assert_int_equal(2 * s.n, touching_pairs(w));
  }
  assert_int_equal(s.n, 0);
  assert_true(begins > 50);
  assert_int_equal(begins, ends);
  arb_world_destroy(w);
}

// A ball dropped from 5 m hits the ground at about 10 m/s: one hit, about that speed,
// point under the ball, normal along y. Threshold 11 m/s: no hit. A box set down gently:
// begins touching, no hit.
static void test_hit_reports_impacts_above_threshold(void** state) {
  (void)state;
  for (int high = 0; high < 2; ++high) {
    arb_world_def wd = arb_default_world_def();
    wd.gravity = arb_v2(0.0f, -10.0f);
    wd.hit_event_threshold = high ? 11.0f : 1.0f;
    arb_world* w = arb_world_create(&wd);
    arb_body_id ground = wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
    arb_body_id ball = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 5.25f, 0.25f);
    arb_body_id box = wt_box(w, ARB_BODY_DYNAMIC, 5.0f, 0.51f, 0.5f, 0.5f);
    int hits = 0, box_begins = 0;
    for (int tick = 0; tick < 90; ++tick) {
      arb_world_step(w, DT);
      const arb_contact_hit_event* hit;
      int n = arb_world_get_hit_events(w, &hit);
      for (int i = 0; i < n; ++i) {
        assert_true(hit[i].approach_speed > wd.hit_event_threshold);
        bool is_ball = hit[i].a.index1 == ball.index1 || hit[i].b.index1 == ball.index1;
        assert_true(is_ball);  // the gently placed box never hits
        assert_true(hit[i].a.index1 == ground.index1 || hit[i].b.index1 == ground.index1);
        if (hits == 0) {
          assert_true(hit[i].approach_speed > 9.0f && hit[i].approach_speed < 10.5f);
          assert_true(hit[i].point.x > -0.1f && hit[i].point.x < 0.1f);
          assert_true(hit[i].point.y > -0.1f && hit[i].point.y < 0.1f);
          assert_true(hit[i].normal.y > 0.99f || hit[i].normal.y < -0.99f);
        }
        hits += 1;
      }
      const arb_contact_event* ev;
      int nb = arb_world_get_begin_touch_events(w, &ev);
      for (int i = 0; i < nb; ++i)
        box_begins += ev[i].a.index1 == box.index1 || ev[i].b.index1 == box.index1;
    }
    assert_int_equal(hits, high ? 0 : 1);
    assert_int_equal(box_begins, 1);
    arb_world_destroy(w);
  }
}

ARB_TEST_MAIN(cmocka_unit_test(test_same_events_every_run),
              cmocka_unit_test(test_events_do_not_change_the_simulation),
              cmocka_unit_test(test_each_begin_has_one_end),
              cmocka_unit_test(test_hit_reports_impacts_above_threshold))
