// Contact recycling (shared/src/contact.c, arb_world_def.enable_contact_recycling): a
// resting pile keeps most manifolds instead of colliding its shapes again, and stays up; a
// recycled separation follows the bodies' motion as a fresh manifold would; a move past the
// recycle distance or turn collides again; with recycling off nothing is ever recycled; an
// image whose contacts carry the cache but whose world says recycling is off is refused.
// (Save/restore of the cache and the golden hashes with recycling on and off are in
// test_determinism.)
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
// clang-format on
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../common/test_main.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

static arb_world* world_with(bool recycling) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, -10.0f);
  wd.enable_sleep = false;  // every contact of the pile is visited every step
  wd.enable_contact_recycling = recycling;
  return arb_world_create(&wd);
}

// A pyramid of 6 rows on a static ground box; returns the top box.
static arb_body_id pyramid(arb_world* w) {
  wt_ground(w, 20.0f);
  arb_body_id top = {0, 0};
  for (int row = 0; row < 6; ++row) {
    for (int k = 0; k < 6 - row; ++k) {
      float x = -2.5f + (float)k + 0.5f * (float)row;
      top = wt_box(w, ARB_BODY_DYNAMIC, x, 0.5f + (float)row, 0.5f, 0.5f);
    }
  }
  return top;
}

static void test_resting_pile_recycles(void** state) {
  (void)state;
  for (int on = 0; on <= 1; ++on) {
    arb_world* w = world_with(on != 0);
    arb_body_id top = pyramid(w);
    int recycled = 0, collided = 0, touching = 0;
    for (int s = 0; s < 300; ++s) {
      arb_world_step(w, DT);
      arb_world_counters c = arb_world_get_counters(w);
      if (s < 200) continue;  // settled by then
      recycled += c.step_recycled_contacts;
      collided += c.step_collided_contacts;
      touching += c.touching_count;
    }
    if (on) {
      // At rest almost nothing is collided again (the counts are over 100 steps).
      assert_true(recycled > 0);
      assert_true(collided * 20 < recycled);
    } else {
      assert_int_equal(recycled, 0);
      assert_true(collided >= touching);
    }
    // The pile stands: the top box sank less than a few slops.
    assert_true(arb_body_get_position(w, top).y > 5.5f - 4.0f * ARB_LINEAR_SLOP);
    arb_world_destroy(w);
  }
}

static void sort2(float v[2]) {
  if (v[0] > v[1]) {
    float t = v[0];
    v[0] = v[1];
    v[1] = t;
  }
}

// The separations of the manifold the last step used for the box's contact with the
// ground (arb_body_get_contacts), ascending.
static void step_separations(const arb_world* w, arb_body_id box, float out[2]) {
  arb_contact_data cd[4];
  assert_int_equal(arb_body_get_contacts(w, box, cd, 4), 1);
  assert_int_equal(cd[0].point_count, 2);
  out[0] = cd[0].separations[0];
  out[1] = cd[0].separations[1];
  sort2(out);
}

// The separations of the box against the ground collided at their poses now, ascending.
static void fresh_separations(const arb_world* w, arb_body_id box, arb_body_id ground,
                              float out[2]) {
  arb_manifold m = arb_collide_polygons(
      &arb_body_get_shape(w, ground)->polygon, arb_body_get_transform(w, ground),
      &arb_body_get_shape(w, box)->polygon, arb_body_get_transform(w, box));
  assert_int_equal(m.point_count, 2);
  out[0] = m.points[0].separation;
  out[1] = m.points[1].separation;
  sort2(out);
}

// A box lifted by 1 cm (within the recycle distance) keeps its manifold, and the
// separations the step used grew by the lift, as a fresh manifold's would; lifted by 10
// cm, or turned by 15 degrees, it is collided again.
static void test_recycled_separation_follows_motion(void** state) {
  (void)state;
  arb_world* w = world_with(true);
  arb_body_id ground = wt_ground(w, 20.0f);
  arb_body_id box = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f);
  for (int s = 0; s < 120; ++s) arb_world_step(w, DT);
  assert_int_equal(arb_world_get_counters(w).step_recycled_contacts, 1);
  const float lifts[3] = {0.01f, 0.1f, 0.0f};
  const float turns[3] = {0.0f, 0.0f, 0.26f};
  for (int k = 0; k < 3; ++k) {
    arb_vec2 p = arb_body_get_position(w, box);
    arb_body_set_transform(w, box, arb_v2(p.x, p.y + lifts[k]), turns[k]);
    float before[2], used[2];
    if (k == 0) {
      step_separations(w, box, before);
      fresh_separations(w, box, ground, used);  // at the pose the step starts from
    }
    arb_world_step(w, DT);
    arb_world_counters c = arb_world_get_counters(w);
    assert_int_equal(c.step_recycled_contacts, k == 0 ? 1 : 0);
    assert_int_equal(c.step_collided_contacts, k == 0 ? 0 : 1);
    if (k == 0) {
      float got[2];
      step_separations(w, box, got);
      for (int j = 0; j < 2; ++j) {
        assert_float_equal(got[j], used[j], 1e-4f);
        assert_float_equal(got[j] - before[j], lifts[k], 1e-3f);
      }
    }
    for (int s = 0; s < 120; ++s) arb_world_step(w, DT);  // settles again
    assert_int_equal(arb_world_get_counters(w).step_recycled_contacts, 1);
  }
  arb_world_destroy(w);
}

// The image of a world with recycling on, its 'RCYC' record cut out (header length and
// checksum made right again, so only the field checks can refuse it): its contacts still
// carry the cache, which a world without recycling never has.
static void test_cache_without_recycling_refused(void** state) {
  (void)state;
  arb_world* w = world_with(true);
  pyramid(w);
  for (int s = 0; s < 30; ++s) arb_world_step(w, DT);
  int size;
  uint8_t* img = wt_save(w, &size);
  const uint8_t tag[4] = {'R', 'C', 'Y', 'C'};
  int at = -1;
  for (int i = 20; i + 4 <= size - 8; ++i) {
    if (memcmp(img + i, tag, 4) == 0) at = i;
  }
  assert_true(at > 20);
  uint8_t* cut = malloc((size_t)size);
  assert_non_null(cut);
  memcpy(cut, img, (size_t)at);
  memcpy(cut + at, img + at + 4, (size_t)(size - 8 - at - 4));
  int payload = size - 28 - 4;
  for (int k = 0; k < 4; ++k) cut[16 + k] = (uint8_t)((uint32_t)payload >> (8 * k));
  uint64_t h = XXH3_64bits(cut + 20, (size_t)payload);
  for (int k = 0; k < 8; ++k) cut[20 + payload + k] = (uint8_t)(h >> (8 * k));
  arb_world* r = world_with(false);
  assert_int_equal(arb_world_restore(r, cut, size - 4), ARB_E_CORRUPT);
  assert_int_equal(arb_world_restore(r, img, size), 0);  // the whole image is fine
  assert_int_equal(arb_world_hash(r), arb_world_hash(w));
  free(cut);
  free(img);
  arb_world_destroy(r);
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_resting_pile_recycles),
              cmocka_unit_test(test_recycled_separation_follows_motion),
              cmocka_unit_test(test_cache_without_recycling_refused))
