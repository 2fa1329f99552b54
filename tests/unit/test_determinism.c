// Determinism of the world: identical runs give identical per-tick hashes, save/restore
// in the middle gives the straight-through result bit for bit, and the final hashes of
// four programmatic scenes (two of them again with contact recycling off) are golden
// values that -O0, -O2 and ASan builds must all reproduce (a change here means the
// simulation changed: update deliberately).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "determinism_check.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

// ---- scenes -----------------------------------------------------------------------------

// Pyramid of base 8 on a box ground, with a kinematic paddle sweeping through the side,
// bouncy circles and a rotated triangle.
static arb_world* pyramid_in(arb_world* w) {
  wt_ground(w, 30.0f);
  for (int i = 0; i < 8; ++i) {
    for (int j = i; j < 8; ++j) {
      wt_box(w, ARB_BODY_DYNAMIC, (float)i * 0.5f + (float)(j - i) - 4.0f, 0.5f + (float)i, 0.5f,
             0.5f);
    }
  }
  arb_body_def bd = box_body_def(ARB_BODY_KINEMATIC, -12.0f, 1.0f, 1.0f, 0.25f);
  bd.linear_velocity = arb_v2(1.5f, 0.0f);
  bd.angular_velocity = 0.3f;
  arb_body_create(w, &bd);
  for (int k = 0; k < 6; ++k) {
    arb_body_def cd = arb_default_body_def();
    cd.position = arb_v2(-3.0f + (float)k * 1.1f, 12.0f + (float)k);
    cd.shape.type = ARB_SHAPE_CIRCLE;
    cd.shape.circle.radius = 0.3f + 0.05f * (float)k;
    cd.shape.restitution = 0.6f;
    arb_body_create(w, &cd);
  }
  arb_vec2 tri[3] = {{-0.6f, -0.4f}, {0.6f, -0.4f}, {0.0f, 0.7f}};
  arb_body_def td = arb_default_body_def();
  td.position = arb_v2(6.0f, 4.0f);
  td.angle = 0.7f;
  td.angular_velocity = 2.0f;
  td.shape.type = ARB_SHAPE_POLYGON;
  assert_int_equal(arb_make_polygon(tri, 3, &td.shape.polygon, NULL), 0);
  arb_body_create(w, &td);
  return w;
}
static arb_world* scene_pyramid(void) {
  return pyramid_in(wt_world(arb_v2(0.0f, -10.0f)));
}

// Mixed shapes raining into a V of segments, with damping and gravity scale variety.
static arb_world* scene_rain(void) {
  arb_world* w = wt_world(arb_v2(0.0f, -9.81f));
  wt_segment(w, -15.0f, 10.0f, 0.0f, 0.0f);
  wt_segment(w, 0.0f, 0.0f, 15.0f, 10.0f);
  wt_segment(w, -15.0f, 10.0f, -15.0f, 30.0f);
  wt_segment(w, 15.0f, 10.0f, 15.0f, 30.0f);
  arb_vec2 hex[6];
  for (int i = 0; i < 6; ++i) {
    arb_rot q = arb_rot_from_angle((float)i * ARB_PI / 3.0f);
    hex[i] = arb_v2(0.4f * q.c, 0.4f * q.s);
  }
  for (int k = 0; k < 120; ++k) {
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(-10.0f + (float)(k % 20), 12.0f + 1.2f * (float)(k / 20));
    bd.angle = 0.1f * (float)k;
    bd.linear_damping = (k % 3 == 0) ? 0.2f : 0.0f;
    bd.angular_damping = (k % 4 == 0) ? 0.5f : 0.0f;
    bd.gravity_scale = (k % 5 == 0) ? 0.5f : 1.0f;
    bd.shape.friction = (k % 2) ? 0.2f : 0.8f;
    bd.shape.restitution = (k % 7 == 0) ? 0.4f : 0.0f;
    if (k % 3 == 0) {
      bd.shape.type = ARB_SHAPE_CIRCLE;
      bd.shape.circle.radius = 0.3f + 0.02f * (float)(k % 5);
    } else if (k % 3 == 1) {
      bd.shape.type = ARB_SHAPE_POLYGON;
      bd.shape.polygon = arb_make_box(0.35f, 0.25f);
    } else {
      bd.shape.type = ARB_SHAPE_POLYGON;
      assert_int_equal(arb_make_polygon(hex, 6, &bd.shape.polygon, NULL), 0);
    }
    arb_body_create(w, &bd);
  }
  return w;
}

// Boxes and circles on a ground where bodies are destroyed and created mid-simulation
// and pushed through the force accumulator; driven only by the tick number and the
// world's own body list, so a restored world receives exactly the same calls.
static arb_world* scene_churn(void) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  for (int k = 0; k < 40; ++k) {
    if (k % 2) {
      wt_circle(w, ARB_BODY_DYNAMIC, -10.0f + 0.5f * (float)k, 1.0f + (float)(k % 4), 0.4f);
    } else {
      wt_box(w, ARB_BODY_DYNAMIC, -10.0f + 0.5f * (float)k, 1.0f + (float)(k % 4), 0.3f, 0.3f);
    }
  }
  return w;
}

static void churn_tick(arb_world* w, int tick) {
  arb_body_id ids[256];
  int n = arb_world_get_bodies(w, ids, 256);
  if (n > 256) n = 256;
  if (tick % 37 == 5 && n > 3) arb_body_destroy(w, ids[1 + tick % (n - 1)]);
  if (tick % 23 == 11) {
    if (tick % 2) {
      wt_circle(w, ARB_BODY_DYNAMIC, -5.0f + (float)(tick % 10), 8.0f, 0.35f);
    } else {
      wt_box(w, ARB_BODY_DYNAMIC, -5.0f + (float)(tick % 10), 8.0f, 0.4f, 0.2f);
    }
  }
  // The body destroyed above is still listed: skipping it is exactly what a stale id
  // does in release (nothing), without the programmer error.
  for (int i = 1; i < n; i += 5) {
    if (!arb_body_is_valid(w, ids[i])) continue;
    arb_vec2 p = arb_body_get_world_center(w, ids[i]);
    arb_body_apply_force(w, ids[i], arb_v2((tick % 60) < 30 ? 3.0f : -3.0f, 2.0f),
                         arb_add(p, arb_v2(0.1f, 0.1f)));
  }
  if (tick % 50 == 0 && n > 2 && arb_body_is_valid(w, ids[2]))
    arb_body_apply_linear_impulse(w, ids[2], arb_v2(0.0f, 4.0f),
                                  arb_body_get_world_center(w, ids[2]));
}

// Two pyramids that fall asleep; a ball thrown at tick 90 wakes the left one, an impulse at
// tick 500 wakes the right one, and at tick 700 a bottom box of the left one is destroyed
// (it wakes again and partly collapses). Exercises sleep, wake and the island lists across
// the save at tick 300 (one pile asleep, one awake).
static arb_world* sleep_in(arb_world* w) {
  wt_ground(w, 40.0f);
  for (int p = 0; p < 2; ++p) {
    float x0 = p == 0 ? -12.0f : 8.0f;
    for (int i = 0; i < 5; ++i) {
      for (int j = i; j < 5; ++j) {
        wt_box(w, ARB_BODY_DYNAMIC, x0 + 0.5f + (float)i * 0.5f + (float)(j - i), 0.5f + (float)i,
               0.5f, 0.5f);
      }
    }
  }
  return w;
}

static arb_world* scene_sleep(void) {
  return sleep_in(wt_world(arb_v2(0.0f, -10.0f)));
}

// The same scenes with contact recycling off: every contact collided every step, and no
// contact carries a recycling cache (the hashes a build without recycling computes).
static arb_world* world_without_recycling(void) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, -10.0f);
  wd.enable_contact_recycling = false;
  return arb_world_create(&wd);
}
static arb_world* scene_pyramid_collided(void) {
  return pyramid_in(world_without_recycling());
}
static arb_world* scene_sleep_collided(void) {
  return sleep_in(world_without_recycling());
}

static void sleep_tick(arb_world* w, int tick) {
  arb_body_id ids[64];
  int n = arb_world_get_bodies(w, ids, 64);
  if (tick == 90) {
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(-22.0f, 1.5f);
    bd.linear_velocity = arb_v2(18.0f, 3.0f);
    bd.shape.type = ARB_SHAPE_CIRCLE;
    bd.shape.circle.radius = 0.4f;
    bd.shape.density = 4.0f;
    arb_body_create(w, &bd);
  }
  if (tick == 500 && n > 30)
    arb_body_apply_linear_impulse(w, ids[30], arb_v2(1.5f, 0.0f),
                                  arb_body_get_world_center(w, ids[30]));
  if (tick == 700 && n > 2) arb_body_destroy(w, ids[2]);
}

static const det_case cases[] = {
    {"pyramid", scene_pyramid, NULL, 0x882d7e331635a9faull},
    {"rain", scene_rain, NULL, 0xf9e04c91bba8055dull},
    {"churn", scene_churn, churn_tick, 0x191a536fe4645cd3ull},
    {"sleep", scene_sleep, sleep_tick, 0xae0206c4b94a734full},
    {"pyramid-c", scene_pyramid_collided, NULL, 0x4414e06d5b6ea201ull},
    {"sleep-c", scene_sleep_collided, sleep_tick, 0x17f458b2517374d4ull},
};
#define TICKS 1000
#define SAVE_AT 300

// ---- tests ------------------------------------------------------------------------------

static void check_scene(void** state) {
  det_check_case(*state, DT, TICKS, SAVE_AT, NULL);
}

// The image is untrusted: every truncation and every single-byte corruption is refused
// with an error (never a crash), and a refused restore leaves the world untouched.
static void test_restore_rejects_bad_images(void** state) {
  (void)state;
  arb_world* a = scene_churn();
  int size;
  uint8_t* img = det_image_at(&cases[2], a, DT, 40, &size);
  assert_int_equal(arb_world_save(a, img, size - 1), size);  // too small: nothing written
  arb_world* b = wt_world(arb_v2(0.0f, -1.0f));
  wt_box(b, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 1.0f, 1.0f);
  uint64_t before = arb_world_hash(b);
  for (int len = 0; len < size; len += (len < 64 ? 1 : 7)) {
    assert_true(arb_world_restore(b, img, len) < 0);
  }
  uint8_t* bad = malloc((size_t)size);
  for (int k = 0; k < size; k += 3) {
    memcpy(bad, img, (size_t)size);
    bad[k] ^= 0x5a;
    assert_true(arb_world_restore(b, bad, size) < 0);
  }
  assert_int_equal(arb_world_hash(b), before);
  assert_int_equal(arb_world_restore(b, img, size), 0);
  assert_int_equal(arb_world_hash(b), arb_world_hash(a));
  free(bad);
  free(img);
  arb_world_destroy(a);
  arb_world_destroy(b);
}

int main(void) {
  const struct CMUnitTest more[] = {
      cmocka_unit_test(test_restore_rejects_bad_images),
  };
  return det_run_tests("test_determinism", cases, (int)(sizeof cases / sizeof cases[0]),
                       check_scene, more, (int)(sizeof more / sizeof more[0]));
}
