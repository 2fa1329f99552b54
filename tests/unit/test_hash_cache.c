// The per-tick hash takes the slot of a static or sleeping body as the digest of its
// bytes, and reuses the digest while the body is unchanged (shared/src/hash_cache.c).
// Over random worlds and random steps, with every kind of change a body at rest can see
// (teleports, velocities, damping and gravity scale set on a sleeping body, forces,
// destruction and slot reuse, sleep switched off and on, restore of an older image into
// the same world), the hash of a world hashed every tick equals the hash of a fresh copy
// of it (restored from its save image, so nothing is cached yet): the full canonical
// encoding. A restore of other shapes under the same slots and generations is not taken
// for the cached bodies. The two builds of XXH3's streaming update the hash chooses
// between (portable and AVX2) give XXH3's one-shot hash for any cutting of the input.
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
#include "world.h"  // shared/src: arb__hash_bytes
#include "world_test_util.h"
#include "xxh3_update.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

// The hash of a fresh world restored from w's image: every slot encoded, nothing reused.
static uint64_t full_hash(const arb_world* w) {
  arb_world* fresh = wt_restore_image_of(wt_world(arb_v2(0.0f, 0.0f)), w);
  uint64_t h = arb_world_hash(fresh);
  arb_world_destroy(fresh);
  return h;
}

static arb_body_id random_body(arb_world* w, uint32_t* rng) {
  arb_body_def bd = arb_default_body_def();
  bd.type = wt_rng_next(rng) % 6 == 0 ? ARB_BODY_STATIC : ARB_BODY_DYNAMIC;
  // A free grid cell (columns 2 m apart, rows 2.1 m apart): piles that settle quickly.
  static int next_cell;
  int cell = next_cell++ % 400;
  bd.position = arb_v2(-39.0f + 2.0f * (float)(cell % 40), 1.05f + 2.1f * (float)(cell / 40));
  bd.angle = wt_rng_range(rng, -1.0f, 1.0f);
  bd.is_awake = wt_rng_next(rng) % 3 != 0;
  if (wt_rng_next(rng) % 4 != 0) {  // boxes mostly: circles roll on and on
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(wt_rng_range(rng, 0.2f, 1.0f), wt_rng_range(rng, 0.2f, 1.0f));
  } else {
    bd.shape.type = ARB_SHAPE_CIRCLE;
    bd.shape.circle.radius = wt_rng_range(rng, 0.2f, 0.8f);
  }
  return arb_body_create(w, &bd);
}

// One random change to a random body (most of them at rest by now).
static void random_change(arb_world* w, wt_body_list* l, uint32_t* rng) {
  int i = wt_body_list_pick(l, rng);
  arb_body_id id = l->ids[i];
  switch (wt_rng_next(rng) % 10) {
    case 0: {
      arb_vec2 p = arb_body_get_position(w, id);
      arb_body_set_transform(w, id, arb_v2(p.x + wt_rng_range(rng, -0.3f, 0.3f), p.y),
                             arb_body_get_angle(w, id));
      break;
    }
    case 1:
      arb_body_set_linear_velocity(w, id, arb_v2(wt_rng_range(rng, -3.0f, 3.0f), 0.0f));
      break;
    case 2:
      arb_body_set_damping(w, id, wt_rng_range(rng, 0.0f, 1.0f), wt_rng_range(rng, 0.0f, 1.0f));
      break;
    case 3:
      arb_body_set_gravity_scale(w, id, wt_rng_range(rng, 0.5f, 1.5f));
      break;
    case 4:
      arb_body_apply_force_to_center(w, id, arb_v2(0.0f, wt_rng_range(rng, 0.0f, 50.0f)));
      break;
    case 5:
      arb_body_enable_sleep(w, id, wt_rng_next(rng) % 2 == 0);
      break;
    case 6:
      arb_body_set_user_data(w, id, wt_rng_next(rng));
      break;  // not hashed
    case 7:
      wt_body_list_destroy(w, l, i);
      wt_body_list_add(w, l, random_body(w, rng));  // likely the freed slot, with a new generation
      break;
    case 8:
      arb_world_enable_sleep(w, !arb_world_is_sleep_enabled(w) || wt_rng_next(rng) % 4 != 0);
      break;
    default:
      arb_body_set_angular_velocity(w, id, wt_rng_range(rng, -1.0f, 1.0f));
      break;
  }
}

static void test_cached_hash_equals_full_hash(void** state) {
  (void)state;
  static wt_body_list l, old_list;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    uint32_t rng = seed * 0x9E3779B9u;
    arb_world* w = wt_random_world(&l, 40.0f, 60, 200, random_body, &rng);
    uint8_t* old_image = NULL;
    int old_size = 0;
    int sleeping_seen = 0;
    for (int step = 0; step < 600; ++step) {
      if (wt_rng_next(&rng) % 12 == 0) random_change(w, &l, &rng);
      arb_world_step(w, 1.0f / 60.0f);
      uint64_t h = arb_world_hash(w);  // every tick, as the server does
      if (step % 25 == 0 || wt_rng_next(&rng) % 40 == 0) assert_true(h == full_hash(w));
      if (step == 200) {
        old_image = wt_save(w, &old_size);
        old_list = l;
      }
      if (step == 400) {
        // Back to an older state in the same world: the cached digests are of other states.
        assert_int_equal(arb_world_restore(w, old_image, old_size), 0);
        l = old_list;
        assert_true(arb_world_hash(w) == full_hash(w));
      }
      int asleep = arb_world_get_counters(w).sleeping_body_count;
      if (asleep > sleeping_seen) sleeping_seen = asleep;
    }
    assert_true(arb_world_hash(w) == full_hash(w));
    print_message("seed %u: %d bodies, at most %d asleep\n", seed, l.n, sleeping_seen);
    assert_true(sleeping_seen >= 40);  // the cache had dozens of sleeping bodies to reuse
    free(old_image);
    arb_world_destroy(w);
  }
}

// The cache does not compare a body's shape: within one world a slot's generation stands
// for it. A restore can put another shape under the same slot and generation (here two
// worlds built alike but for their shapes), so it must empty the cache.
static void test_restore_of_other_shapes_under_the_same_ids(void** state) {
  (void)state;
  arb_world* boxes = wt_world(arb_v2(0.0f, -10.0f));
  arb_world* circles = wt_world(arb_v2(0.0f, -10.0f));
  for (int k = 0; k < 20; ++k) {
    float x = -20.0f + 2.0f * (float)k;
    wt_box(boxes, ARB_BODY_STATIC, x, 0.0f, 0.5f, 0.5f);
    wt_circle(circles, ARB_BODY_STATIC, x, 0.0f, 0.5f);
  }
  uint64_t box_hash = arb_world_hash(boxes);  // fills the cache with the boxes' digests
  assert_true(arb_world_hash(boxes) == box_hash);
  wt_restore_image_of(boxes, circles);
  assert_true(arb_world_hash(boxes) == arb_world_hash(circles));
  assert_true(arb_world_hash(boxes) != box_hash);
  arb_world_destroy(boxes);
  arb_world_destroy(circles);
}

// A static chain of ARB_MAX_CHAIN_POINTS points (a slot of 4.2 KB, more than the
// codec's staging chunk: its digest is streamed, not taken in one piece) and compound
// bodies that fall asleep on it: the digests of both kinds are cached and reused, and
// equal the ones taken afresh; a chain that differs in its last point only, or a compound
// body in one shape's friction only, hashes differently.
static arb_world* chain_world(float last_y, float last_friction) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  static arb_vec2 pts[ARB_MAX_CHAIN_POINTS];
  for (int k = 0; k < ARB_MAX_CHAIN_POINTS; ++k) pts[k] = arb_v2(-35.0f + 0.14f * (float)k, 0.0f);
  pts[ARB_MAX_CHAIN_POINTS - 1].y = last_y;
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_CHAIN;
  bd.shape.chain.points = pts;
  bd.shape.chain.count = ARB_MAX_CHAIN_POINTS;
  assert_true(arb_body_is_valid(w, arb_body_create(w, &bd)));
  for (int k = 0; k < 6; ++k) {
    arb_shape_def shapes[3];
    for (int j = 0; j < 3; ++j) {
      shapes[j] = arb_default_body_def().shape;
      shapes[j].type = ARB_SHAPE_CIRCLE;
      shapes[j].circle.center = arb_v2(0.6f * (float)(j - 1), 0.0f);
      shapes[j].circle.radius = 0.3f;
      if (j == 2) shapes[j].friction = last_friction;
    }
    arb_body_def cd = arb_default_body_def();
    cd.type = ARB_BODY_DYNAMIC;
    cd.position = arb_v2(-20.0f + 5.0f * (float)k, 0.5f);
    cd.shapes = shapes;
    cd.shape_count = 3;
    assert_true(arb_body_is_valid(w, arb_body_create(w, &cd)));
  }
  return w;
}

static void test_long_and_compound_slots(void** state) {
  (void)state;
  arb_world* w = chain_world(0.0f, 0.6f);
  arb_world* other_chain = chain_world(0.001f, 0.6f);
  arb_world* other_shape = chain_world(0.0f, 0.5f);  // mass and centre the same
  assert_true(arb_world_hash(w) != arb_world_hash(other_chain));
  assert_true(arb_world_hash(w) != arb_world_hash(other_shape));
  int steps = 0;
  while (arb_world_get_counters(w).sleeping_body_count < 6 && steps < 600) {
    arb_world_step(w, 1.0f / 60.0f);
    assert_true(arb_world_hash(w) == full_hash(w));
    ++steps;
  }
  assert_int_equal(arb_world_get_counters(w).sleeping_body_count, 6);
  uint64_t asleep = arb_world_hash(w);
  for (int k = 0; k < 10; ++k) {  // reused: nothing at rest changes
    arb_world_step(w, 1.0f / 60.0f);
    assert_true(arb_world_hash(w) == full_hash(w));
  }
  assert_true(arb_world_hash(w) != asleep);  // the step count moved on
  arb_world_destroy(w);
  arb_world_destroy(other_chain);
  arb_world_destroy(other_shape);
}

// Random bytes cut into random pieces (empty, one byte, across XXH3's 64-byte stripes and
// 1 KB blocks, whole chunks of the codec's 4 KB) through each update build.
static void test_xxh3_builds_agree(void** state) {
  (void)state;
  static uint8_t bytes[70000];
  uint32_t rng = 0x5eed0003u;
  for (size_t i = 0; i < sizeof bytes; ++i) bytes[i] = (uint8_t)(wt_rng_next(&rng) >> 7);
  arb__xxh3_update_fn* builds[2] = {arb__xxh3_update_portable, arb__xxh3_update_select()};
  if (builds[1] == arb__xxh3_update_portable)
    printf(
        "note: the AVX2 update is not chosen on this CPU or build; the portable one is "
        "checked alone\n");
  for (int round = 0; round < 300; ++round) {
    size_t n = round < 8 ? (size_t)round * 9 : wt_rng_next(&rng) % sizeof bytes;
    uint64_t want = arb__hash_bytes(bytes, n);
    for (int b = 0; b < 2; ++b) {
      XXH3_state_t st;
      XXH3_64bits_reset(&st);
      for (size_t at = 0; at < n;) {
        uint32_t kind = wt_rng_next(&rng) % 4;
        size_t piece = kind == 0   ? 4096
                       : kind == 1 ? wt_rng_next(&rng) % 3
                                   : wt_rng_next(&rng) % 2500;
        if (piece > n - at) piece = n - at;
        builds[b](&st, bytes + at, piece);
        at += piece;
      }
      assert_true(XXH3_64bits_digest(&st) == want);
    }
  }
}

ARB_TEST_MAIN(cmocka_unit_test(test_cached_hash_equals_full_hash),
              cmocka_unit_test(test_long_and_compound_slots),
              cmocka_unit_test(test_xxh3_builds_agree),
              cmocka_unit_test(test_restore_of_other_shapes_under_the_same_ids))
