// Sensor shapes: begin/end overlap events exactly once per overlap (a ball passing
// through, several visitors, a visitor or the sensor destroyed while inside), sensors never
// push anything (the same motion as without the sensor), what they see (not static bodies,
// not other sensors, the filter), the same events after save/restore mid-overlap, and
// rays passing through them.
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

#include <arbiter/query.h>

#include "../common/test_main.h"
#include "image_edit.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

static arb_body_id sensor_box(arb_world* w, arb_body_type type, float x, float y, float hw,
                              float hh) {
  arb_body_def bd = box_body_def(type, x, y, hw, hh);
  bd.shape.sensor = true;
  return arb_body_create(w, &bd);
}

static arb_body_id ball(arb_world* w, float x, float y, float vy) {
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(x, y);
  bd.linear_velocity = arb_v2(0.0f, vy);
  bd.gravity_scale = 0.0f;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.25f;
  return arb_body_create(w, &bd);
}

// Per-visitor tallies of the events of one step, checked for sensor and order.
typedef struct tally {
  int begins, ends;
  arb_body_id last_visitor;
} tally;

static void count_events(const arb_world* w, arb_body_id sensor, tally* t) {
  const arb_sensor_event* ev;
  int nb = arb_world_get_sensor_begin_events(w, &ev);
  for (int i = 0; i < nb; ++i) {
    assert_true(arb_body_id_equals(ev[i].sensor, sensor));
    if (i > 0) assert_true(ev[i - 1].visitor.index1 < ev[i].visitor.index1);  // id order
    t->begins += 1;
    t->last_visitor = ev[i].visitor;
  }
  int ne = arb_world_get_sensor_end_events(w, &ev);
  for (int i = 0; i < ne; ++i) {
    assert_true(arb_body_id_equals(ev[i].sensor, sensor));
    if (i > 0) assert_true(ev[i - 1].visitor.index1 < ev[i].visitor.index1);
    t->ends += 1;
    t->last_visitor = ev[i].visitor;
  }
}

// A ball crossing a static sensor box: one begin when it enters, one end when it leaves,
// and it moves exactly as it does in a world without the sensor.
static void test_ball_passes_through(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_world* ref = wt_world(arb_v2(0.0f, 0.0f));
  arb_body_id s = sensor_box(w, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f, 1.0f);
  arb_body_id b = ball(w, 0.0f, 3.0f, -6.0f);
  arb_body_id rb = ball(ref, 0.0f, 3.0f, -6.0f);
  int begin_tick = -1, end_tick = -1;
  tally t = {0, 0, {0, 0}};
  for (int tick = 0; tick < 120; ++tick) {
    arb_world_step(w, DT);
    arb_world_step(ref, DT);
    tally step = {0, 0, {0, 0}};
    count_events(w, s, &step);
    if (step.begins) begin_tick = tick;
    if (step.ends) end_tick = tick;
    if (step.begins || step.ends) assert_true(arb_body_id_equals(step.last_visitor, b));
    t.begins += step.begins;
    t.ends += step.ends;
    arb_vec2 p = arb_body_get_position(w, b), pr = arb_body_get_position(ref, rb);
    assert_true(p.x == pr.x && p.y == pr.y);  // never pushed, never slowed
    assert_int_equal(arb_body_get_contacts(w, b, NULL, 0), 0);
    float y = p.y;
    bool inside = y - 0.25f < 1.0f && y + 0.25f > -1.0f;
    assert_int_equal(arb_sensor_get_overlaps(w, s, NULL, 0), inside ? 1 : 0);
  }
  assert_int_equal(t.begins, 1);
  assert_int_equal(t.ends, 1);
  // Enters after (3 - 1.25) / 6 s (~17.5 ticks) and leaves after (3 + 1.25) / 6 s (~42.5).
  assert_in_range(begin_tick, 16, 18);
  assert_in_range(end_tick, 41, 43);
  arb_world_destroy(w);
  arb_world_destroy(ref);
}

// A ball inside for a single step (1 m per step through a 0.4 m sensor): still one begin
// and, in the next step, one end.
static void test_inside_for_one_step(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_body_id s = sensor_box(w, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f, 0.2f);
  ball(w, 0.0f, 1.0f, -60.0f);
  int begins[4] = {0}, ends[4] = {0};
  for (int tick = 0; tick < 4; ++tick) {
    arb_world_step(w, DT);
    begins[tick] = arb_world_get_sensor_begin_events(w, NULL);
    ends[tick] = arb_world_get_sensor_end_events(w, NULL);
  }
  assert_int_equal(begins[0], 1);
  assert_int_equal(ends[0], 0);
  assert_int_equal(begins[1] + begins[2] + begins[3], 0);
  assert_int_equal(ends[1], 1);
  assert_int_equal(ends[2] + ends[3], 0);
  assert_int_equal(arb_sensor_get_overlaps(w, s, NULL, 0), 0);
  arb_world_destroy(w);
}

// Three balls entering and leaving at different times, and two at once: every one gets
// exactly one begin and one end; simultaneous ones come in visitor id order (checked in
// count_events).
static void test_several_visitors(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_body_id s = sensor_box(w, ARB_BODY_STATIC, 0.0f, 0.0f, 3.0f, 1.0f);
  arb_body_id v[4] = {ball(w, -2.0f, 3.0f, -6.0f), ball(w, 0.0f, 5.0f, -6.0f),
                      ball(w, 2.0f, 3.0f, -6.0f), ball(w, 1.0f, -3.0f, 3.0f)};
  tally per[4] = {{0, 0, {0, 0}}};
  for (int tick = 0; tick < 200; ++tick) {
    arb_world_step(w, DT);
    tally step = {0, 0, {0, 0}};
    count_events(w, s, &step);
    const arb_sensor_event* ev;
    for (int k = 0; k < 4; ++k) {
      int nb = arb_world_get_sensor_begin_events(w, &ev);
      for (int i = 0; i < nb; ++i) per[k].begins += arb_body_id_equals(ev[i].visitor, v[k]);
      int ne = arb_world_get_sensor_end_events(w, &ev);
      for (int i = 0; i < ne; ++i) per[k].ends += arb_body_id_equals(ev[i].visitor, v[k]);
    }
    // The two balls at y = 3 enter in the same step: two begins, lower id first.
    if (tick == 17) assert_int_equal(step.begins, 2);
  }
  for (int k = 0; k < 4; ++k) {
    assert_int_equal(per[k].begins, 1);
    assert_int_equal(per[k].ends, 1);
  }
  arb_world_destroy(w);
}

// A visitor destroyed while inside ends its overlap in the next step (its stale id), once;
// a sensor destroyed with visitors inside ends all of them.
static void test_destroyed_while_inside(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_body_id s = sensor_box(w, ARB_BODY_STATIC, 0.0f, 0.0f, 2.0f, 2.0f);
  arb_body_id a = ball(w, -1.0f, 0.0f, 0.0f);
  arb_body_id b = ball(w, 1.0f, 0.0f, 0.0f);
  arb_world_step(w, DT);
  tally t = {0, 0, {0, 0}};
  count_events(w, s, &t);
  assert_int_equal(t.begins, 2);
  arb_body_destroy(w, a);
  arb_body_id c = ball(w, 0.0f, 0.5f, 0.0f);  // reuses a's slot, new generation
  assert_int_equal(c.index1, a.index1);
  arb_world_step(w, DT);
  const arb_sensor_event* ev;
  assert_int_equal(arb_world_get_sensor_end_events(w, &ev), 1);
  assert_true(arb_body_id_equals(ev[0].visitor, a));  // the stale id
  assert_int_equal(arb_world_get_sensor_begin_events(w, &ev), 1);
  assert_true(arb_body_id_equals(ev[0].visitor, c));
  arb_world_step(w, DT);
  assert_int_equal(arb_world_get_sensor_end_events(w, NULL), 0);
  assert_int_equal(arb_world_get_sensor_begin_events(w, NULL), 0);
  // The sensor goes: b and c end in the next step, and nothing after.
  arb_body_destroy(w, s);
  arb_world_step(w, DT);
  assert_int_equal(arb_world_get_sensor_end_events(w, &ev), 2);
  assert_true(arb_body_id_equals(ev[0].sensor, s) &&
              arb_body_id_equals(ev[0].visitor, c));  // id order
  assert_true(arb_body_id_equals(ev[1].sensor, s) && arb_body_id_equals(ev[1].visitor, b));
  arb_world_step(w, DT);
  assert_int_equal(arb_world_get_sensor_end_events(w, NULL), 0);
  arb_world_destroy(w);
}

// Sensors see dynamic and kinematic bodies that pass the filter; not static bodies, not
// other sensors. A kinematic sensor sweeping over sleeping bodies still reports them.
static void test_what_sensors_see(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);  // ground: overlapped, not seen
  arb_body_def kd = box_body_def(ARB_BODY_KINEMATIC, -12.0f, 0.5f, 1.0f, 1.0f);
  kd.shape.sensor = true;
  kd.linear_velocity = arb_v2(4.0f, 0.0f);
  arb_body_id s = arb_body_create(w, &kd);
  arb_body_id other_sensor =
      sensor_box(w, ARB_BODY_STATIC, -3.0f, 0.5f, 0.5f, 0.5f);  // on its path
  arb_body_id boxes[3];
  for (int k = 0; k < 3; ++k)
    boxes[k] = wt_box(w, ARB_BODY_DYNAMIC, -6.0f + 6.0f * (float)k, 0.5f, 0.4f, 0.4f);
  arb_body_def hidden = box_body_def(ARB_BODY_DYNAMIC, 3.0f, 0.5f, 0.4f, 0.4f);
  hidden.shape.category_bits = 2u;
  hidden.shape.mask_bits = ~1u;  // does not collide with (or show to) category 1
  arb_body_id h = arb_body_create(w, &hidden);
  int begins[3] = {0, 0, 0}, ends[3] = {0, 0, 0};
  bool slept = false;
  for (int tick = 0; tick < 420; ++tick) {
    arb_world_step(w, DT);
    slept = slept || !arb_body_is_awake(w, boxes[2]);
    const arb_sensor_event* ev;
    int nb = arb_world_get_sensor_begin_events(w, &ev);
    for (int i = 0; i < nb; ++i) {
      assert_true(arb_body_id_equals(ev[i].sensor, s));  // the static sensor sees nothing
      assert_false(arb_body_id_equals(ev[i].visitor, other_sensor));
      assert_false(arb_body_id_equals(ev[i].visitor, h));
      for (int k = 0; k < 3; ++k) begins[k] += arb_body_id_equals(ev[i].visitor, boxes[k]);
    }
    int ne = arb_world_get_sensor_end_events(w, &ev);
    for (int i = 0; i < ne; ++i) {
      for (int k = 0; k < 3; ++k) ends[k] += arb_body_id_equals(ev[i].visitor, boxes[k]);
    }
  }
  assert_true(slept);  // the last box was asleep before the sensor reached it
  for (int k = 0; k < 3; ++k) {
    assert_int_equal(begins[k], 1);
    assert_int_equal(ends[k], 1);
  }
  // It pushed nothing: the boxes are where they settled.
  for (int k = 0; k < 3; ++k)
    assert_float_equal(arb_body_get_position(w, boxes[k]).x, -6.0f + 6.0f * (float)k, 1e-3f);
  arb_world_destroy(w);
}

// ---- save/restore ------------------------------------------------------------------------

static uint64_t fold(uint64_t h, uint64_t v) {
  return (h ^ v) * 1099511628211ull;
}

static uint64_t fold_events(const arb_world* w, uint64_t h) {
  const arb_sensor_event* ev;
  int nb = arb_world_get_sensor_begin_events(w, &ev);
  for (int i = 0; i < nb; ++i) {
    h = fold(fold(fold(h, 1), (uint64_t)ev[i].sensor.index1 << 32 | ev[i].sensor.generation),
             (uint64_t)ev[i].visitor.index1 << 32 | ev[i].visitor.generation);
  }
  int ne = arb_world_get_sensor_end_events(w, &ev);
  for (int i = 0; i < ne; ++i) {
    h = fold(fold(fold(h, 2), (uint64_t)ev[i].sensor.index1 << 32 | ev[i].sensor.generation),
             (uint64_t)ev[i].visitor.index1 << 32 | ev[i].visitor.generation);
  }
  return h;
}

// Balls falling through two sensor strips onto a floor, one destroyed inside.
static arb_world* make_rain(void) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 10.0f, 0.5f);
  sensor_box(w, ARB_BODY_STATIC, 0.0f, 4.0f, 8.0f, 0.5f);
  sensor_box(w, ARB_BODY_STATIC, 0.0f, 0.5f, 8.0f, 0.5f);  // the balls come to rest inside
  for (int k = 0; k < 8; ++k)
    wt_circle(w, ARB_BODY_DYNAMIC, -7.0f + 2.0f * (float)k, 6.0f + 0.7f * (float)k, 0.3f);
  return w;
}

static void rain_step(arb_world* w, int tick) {
  if (tick == 70) arb_body_destroy(w, (arb_body_id){6, 1});  // the 3rd ball, inside a sensor
  arb_world_step(w, DT);
}

typedef struct run_out {
  uint64_t events;        // events of every tick
  uint64_t events_after;  // events of ticks > 60
  uint64_t hash;
  int count;
} run_out;

// One tick of the rain, its sensor events folded into the run_out `run`.
static void rain_tick(arb_world* w, int tick, void* run) {
  run_out* r = run;
  rain_step(w, tick);
  r->count += arb_world_get_sensor_begin_events(w, NULL) + arb_world_get_sensor_end_events(w, NULL);
  r->events = fold_events(w, r->events);
  if (tick > 60) r->events_after = fold_events(w, r->events_after);
}

// save_at > 0: save after that tick, step on 30 steps as a detour, restore, continue.
static run_out run_rain(int save_at) {
  arb_world* w = make_rain();
  run_out r = {14695981039346656037ull, 14695981039346656037ull, 0, 0};
  r.hash = wt_run_with_detour(w, 240, rain_tick, &r, save_at, 30, DT);
  return r;
}

static void test_same_events_after_restore(void** state) {
  (void)state;
  run_out a = run_rain(0);
  run_out b = run_rain(60);  // mid-overlap: balls are inside the upper strip
  // Each ball: a begin and an end in the upper strip, a begin in the lower one where it
  // comes to rest; the ball destroyed there ends once more.
  assert_int_equal(a.count, 8 * 3 + 1);
  // Every build (-O0, -O2, asan: the debug, release and asan passes of `make test`) reports
  // the same events in the same order.
  printf("golden sensor events 0x%016llxull\n", (unsigned long long)a.events);
  assert_int_equal(a.events, 0x4e1639569c45e9c3ull);
  assert_int_equal(a.events_after, b.events_after);
  assert_int_equal(a.hash, b.hash);
  // A fresh world restored from the mid-overlap image also resumes the same events.
  arb_world* w = make_rain();
  for (int tick = 1; tick <= 60; ++tick) rain_step(w, tick);
  static uint8_t image[1 << 16];
  int len = arb_world_save(w, image, (int)sizeof image);
  assert_true(len > 0);
  arb_world* fresh = wt_world(arb_v2(0.0f, -10.0f));
  assert_int_equal(arb_world_restore(fresh, image, len), 0);
  assert_int_equal(arb_world_hash(fresh), arb_world_hash(w));
  uint64_t h1 = 14695981039346656037ull, h2 = h1;
  for (int tick = 61; tick <= 240; ++tick) {
    rain_step(w, tick);
    rain_step(fresh, tick);
    h1 = fold_events(w, h1);
    h2 = fold_events(fresh, h2);
  }
  assert_int_equal(h1, a.events_after);
  assert_int_equal(h2, a.events_after);
  arb_world_destroy(w);
  arb_world_destroy(fresh);
}

// The flag and the overlaps are state: a sensor world hashes differently from the same
// world without the flag, and a corrupted overlap record is refused.
static void test_state(void** state) {
  (void)state;
  arb_world* a = wt_world(arb_v2(0.0f, 0.0f));
  arb_world* b = wt_world(arb_v2(0.0f, 0.0f));
  sensor_box(a, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f, 1.0f);
  wt_box(b, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f, 1.0f);
  assert_int_not_equal(arb_world_hash(a), arb_world_hash(b));
  ball(a, 0.0f, 0.0f, 0.0f);
  uint64_t before = arb_world_hash(a);
  arb_world_step(a, DT);
  assert_int_equal(arb_world_get_sensor_begin_events(a, NULL), 1);
  uint8_t image[4096];
  int len = arb_world_save(a, image, (int)sizeof image);
  assert_true(len > 0 && len <= (int)sizeof image);
  assert_int_not_equal(arb_world_hash(a), before);
  // The overlap record: tag 'SENS', i32 count, sensor id, visitor id. Restore refuses a
  // record the step could not have written.
  size_t tag_at = 0;
  while (tag_at + 4 <= (size_t)len - 28 && memcmp(image + 20 + tag_at, "SENS", 4) != 0) ++tag_at;
  assert_true(tag_at + 4 <= (size_t)len - 28);
  size_t pair_at = tag_at + 8;
  int32_t zero = 0, self = 1, far = 99;
  assert_int_equal(restore_edited(b, image, len, pair_at - 4, &zero, 4), ARB_E_CORRUPT);  // empty
  assert_int_equal(restore_edited(b, image, len, pair_at + 8, &self, 4), ARB_E_CORRUPT);  // itself
  assert_int_equal(restore_edited(b, image, len, pair_at + 8, &far, 4), ARB_E_CORRUPT);   // no slot
  assert_int_equal(restore_edited(b, image, len, pair_at + 12, &zero, 4), ARB_E_CORRUPT);  // gen 0
  assert_int_equal(arb_world_restore(b, image, len), 0);
  assert_int_equal(arb_world_hash(b), arb_world_hash(a));
  arb_world_destroy(a);
  arb_world_destroy(b);
}

static void test_rays_pass_through(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  sensor_box(w, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f, 1.0f);
  arb_body_id wall = wt_box(w, ARB_BODY_STATIC, 5.0f, 0.0f, 0.5f, 2.0f);
  arb_ray_result r = arb_world_cast_ray(w, arb_v2(-5.0f, 0.0f), arb_v2(20.0f, 0.0f));
  assert_true(arb_body_id_equals(r.body, wall));
  arb_ray_hit hit;
  assert_true(arb_world_ray_cast_closest(w, arb_v2(-5.0f, 0.0f), arb_v2(20.0f, 0.0f),
                                         arb_default_query_filter(), &hit));
  assert_true(arb_body_id_equals(hit.body, wall));
  assert_int_equal(arb_world_ray_cast_all(w, arb_v2(-5.0f, 0.0f), arb_v2(20.0f, 0.0f),
                                          arb_default_query_filter(), NULL, 0),
                   1);
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_ball_passes_through),
              cmocka_unit_test(test_inside_for_one_step), cmocka_unit_test(test_several_visitors),
              cmocka_unit_test(test_destroyed_while_inside),
              cmocka_unit_test(test_what_sensors_see),
              cmocka_unit_test(test_same_events_after_restore), cmocka_unit_test(test_state),
              cmocka_unit_test(test_rays_pass_through))
