// arb_world_overlap_aabb answers from the broad-phase trees: over random worlds (bodies
// created, destroyed, stepped, some asleep, restored from a save image), random boxes,
// filters and output capacities, it returns exactly what a slot-order scan of every body
// returns (same total, same ids in the same order).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arbiter/query.h>

#include "../common/test_main.h"
#include "world_test_util.h"

#define MAX_OUT 512

static int by_slot(const void* a, const void* b) {
  return ((const arb_body_id*)a)->index1 - ((const arb_body_id*)b)->index1;
}

// The reference: every live body in slot order, the query's own test (body type and shape
// filter, then the tight AABB).
static int scan_overlap(const arb_world* w, const wt_body_list* live, arb_aabb box,
                        arb_query_filter f, arb_body_id* out, int cap) {
  arb_body_id sorted[WT_MAX_BODIES];
  memcpy(sorted, live->ids, (size_t)live->n * sizeof *sorted);
  qsort(sorted, (size_t)live->n, sizeof *sorted, by_slot);
  int n = 0;
  for (int i = 0; i < live->n; ++i) {
    arb_body_id id = sorted[i];
    assert_true(arb_body_is_valid(w, id));
    if (f.body_types != 0u && !(f.body_types & ARB_QUERY_TYPE(arb_body_get_type(w, id)))) continue;
    if (!arb_query_filter_accepts(f, arb_body_get_shape(w, id))) continue;
    if (!arb_aabb_overlaps(arb_body_get_aabb(w, id), box)) continue;
    if (n < cap) out[n] = id;
    n += 1;
  }
  return n;
}

// Boxes and circles, mostly dynamic, some static or kinematic, some with filter bits.
static arb_body_id random_body(arb_world* w, uint32_t* rng) {
  arb_body_def bd = arb_default_body_def();
  bd.type = wt_rng_next(rng) % 5 == 0 ? ARB_BODY_STATIC : ARB_BODY_DYNAMIC;
  if (wt_rng_next(rng) % 11 == 0) bd.type = ARB_BODY_KINEMATIC;
  bd.position = arb_v2(wt_rng_range(rng, -40.0f, 40.0f), wt_rng_range(rng, 0.0f, 30.0f));
  if (wt_rng_next(rng) % 2) {
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(wt_rng_range(rng, 0.2f, 2.0f), wt_rng_range(rng, 0.2f, 2.0f));
  } else {
    bd.shape.type = ARB_SHAPE_CIRCLE;
    bd.shape.circle.radius = wt_rng_range(rng, 0.2f, 1.5f);
  }
  if (wt_rng_next(rng) % 4 == 0) {
    bd.shape.category_bits = 1u << (wt_rng_next(rng) % 3);
    bd.shape.group = (int32_t)(wt_rng_next(rng) % 3) - 1;
  }
  return arb_body_create(w, &bd);
}

static arb_query_filter random_filter(uint32_t* rng) {
  arb_query_filter f = arb_default_query_filter();
  if (wt_rng_next(rng) % 3 == 0) f.mask_bits = wt_rng_next(rng) % 4;  // sees nothing or some
  if (wt_rng_next(rng) % 5 == 0) f.group = (int32_t)(wt_rng_next(rng) % 3) - 1;
  if (wt_rng_next(rng) % 4 == 0) f.body_types = wt_rng_next(rng) % 8;  // 0 = all types
  return f;
}

static void check_queries(const arb_world* w, const wt_body_list* live, uint32_t* rng) {
  static arb_body_id got[MAX_OUT], want[MAX_OUT];
  for (int q = 0; q < 40; ++q) {
    float x = wt_rng_range(rng, -50.0f, 50.0f), y = wt_rng_range(rng, -10.0f, 40.0f);
    float hw = wt_rng_range(rng, 0.0f, q % 10 == 0 ? 60.0f : 8.0f);
    float hh = wt_rng_range(rng, 0.0f, q % 10 == 0 ? 40.0f : 8.0f);
    arb_aabb box = {{x - hw, y - hh}, {x + hw, y + hh}};
    arb_query_filter f = random_filter(rng);
    int cap = (int)(wt_rng_next(rng) % 4 == 0 ? wt_rng_next(rng) % 8 : MAX_OUT);
    memset(got, 0, sizeof got);
    memset(want, 0, sizeof want);
    int n_want = scan_overlap(w, live, box, f, want, cap);
    int n_got = arb_world_overlap_aabb(w, box, f, got, cap);
    assert_int_equal(n_got, n_want);
    int kept = n_want < cap ? n_want : cap;
    for (int i = 0; i < kept; ++i) assert_true(arb_body_id_equals(got[i], want[i]));
    assert_int_equal(arb_world_overlap_aabb(w, box, f, NULL, 0), n_want);
  }
}

static void test_overlap_matches_scan(void** state) {
  (void)state;
  static wt_body_list live;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    uint32_t rng = seed * 2654435761u;
    arb_world* w = wt_random_world(&live, 60.0f, 50, 300, random_body, &rng);
    check_queries(w, &live, &rng);
    for (int round = 0; round < 6; ++round) {
      // Destroy some (slots are reused LIFO), create some, step: proxies move, bodies
      // fall asleep on the ground.
      for (int k = 0; k < 20 && live.n > 1; ++k)
        wt_body_list_destroy(w, &live, wt_body_list_pick(&live, &rng));
      for (int k = 0; k < 25 && live.n < WT_MAX_BODIES; ++k)
        wt_body_list_add(w, &live, random_body(w, &rng));
      int steps = 10 + (int)(wt_rng_next(&rng) % (round == 5 ? 400 : 80));
      for (int s = 0; s < steps; ++s) arb_world_step(w, 1.0f / 60.0f);
      check_queries(w, &live, &rng);
    }
    // A restored world rebuilds its trees in another shape: same answers.
    arb_world* r = wt_restore_image_of(wt_world(arb_v2(0.0f, 0.0f)), w);
    check_queries(r, &live, &rng);
    arb_world_destroy(r);
    arb_world_destroy(w);
  }
}

ARB_TEST_MAIN(cmocka_unit_test(test_overlap_matches_scan))
