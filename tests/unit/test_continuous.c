// Continuous collision, behaviour: ordinary (non-bullet) fast bodies do not pass through
// thin static walls or segments at any speed the world allows, from several angles and
// step phases; two bullets flying head-on meet; a stack hit by a 200 m/s ball stops it
// and does not explode. Each scenario is also run with continuous off to show the test
// can fail (the same shot tunnels). The setting is carried by save/restore and set by
// the scene key `enable_continuous`. With sleeping: a bullet wakes the sleeping island it
// hits (and only that one) and does not pass through it; a body moving past a resting
// pile, inside its wide speculative margin but not towards it, lets the pile fall asleep.
// Against static bodies only (`continuous_dynamic` false, the scene's "static"): walls
// still stop every shot, bullets still meet, plain balls flying head-on may pass.
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

#include <arbiter/scene.h>

#include "../common/test_main.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

enum { CCD_OFF, CCD_ALL, CCD_STATIC };  // enable_continuous false; true; true, static only

static arb_world* world_ccd(int mode, arb_vec2 gravity) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = gravity;
  wd.enable_continuous = mode != CCD_OFF;
  wd.continuous_dynamic = mode != CCD_STATIC;  // off keeps the default: no extra record
  return arb_world_create(&wd);
}

static arb_body_id ball(arb_world* w, arb_vec2 p, arb_vec2 v, float radius, bool bullet) {
  arb_body_def bd = arb_default_body_def();
  bd.position = p;
  bd.linear_velocity = v;
  bd.bullet = bullet;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = radius;
  return arb_body_create(w, &bd);
}

// A 0.1 m ball shot at a static obstacle whose near face is at x = 4.9 (a 0.2 m box
// centred at x = 5) or at x = 5 (a segment). Returns the largest x the ball centre
// reached in 60 steps.
static float shoot(int mode, bool segment, float speed, float degrees, float phase) {
  arb_world* w = world_ccd(mode, arb_v2(0.0f, 0.0f));
  wt_tunnel_wall(w, segment);
  float a = degrees * (ARB_PI / 180.0f);
  arb_vec2 dir = arb_v2(arb_cos(a), arb_sin(a));
  return wt_shot_max_x(w, ball(w, arb_v2(-phase, 0.0f), arb_scale(speed, dir), 0.05f, false), DT);
}

static void test_fast_ball_never_passes_thin_wall_or_segment(void** state) {
  (void)state;
  const float speeds[] = {25.0f, 100.0f, 400.0f};
  const float angles[] = {-60.0f, -35.0f, -10.0f, 0.0f, 20.0f, 45.0f, 70.0f};
  int shots = 0, tunnelled_discrete = 0;
  float worst_depth = 0.0f;
  for (int obstacle = 0; obstacle < 2; ++obstacle) {
    bool segment = obstacle == 1;
    // The ball's centre never reaches the near face. (Head-on it stops a radius before
    // it; a glancing hit sinks in a few centimetres more: friction spins the ball up
    // within the step and the contact's rotated anchor under-reads the depth, the same
    // with continuous off. The soft contact pushes it back out.)
    float face = segment ? 5.0f : 4.9f;
    float limit = face;
    for (size_t si = 0; si < sizeof speeds / sizeof speeds[0]; ++si) {
      for (size_t ai = 0; ai < sizeof angles / sizeof angles[0]; ++ai) {
        for (int k = 0; k < 5; ++k) {  // different phases of the step against the obstacle
          float phase = 0.5f + 0.173f * (float)k * speeds[si] * DT;
          float max_x = shoot(CCD_ALL, segment, speeds[si], angles[ai], phase);
          float static_x = shoot(CCD_STATIC, segment, speeds[si], angles[ai], phase);
          if (!(max_x < limit) || !(static_x < limit)) {
            printf("passed: %s, %.0f m/s, %.0f deg, phase %d: x reached %.4f\n",
                   segment ? "segment" : "0.2 m wall", (double)speeds[si], (double)angles[ai], k,
                   (double)arb_maxf(max_x, static_x));
          }
          assert_true(max_x < limit);
          assert_true(static_x < limit);  // the static sweep alone stops it
          worst_depth = arb_maxf(worst_depth, max_x - (face - 0.05f));
          shots++;
          if (shoot(CCD_OFF, segment, speeds[si], angles[ai], phase) > limit + 0.2f)
            tunnelled_discrete++;
        }
      }
    }
  }
  printf(
      "0.1 m ball at 25/100/400 m/s, 7 angles, 5 phases: %d/%d stopped (deepest %.1f mm); "
      "with continuous off %d tunnelled\n",
      shots, shots, 1000.0 * (double)worst_depth, tunnelled_discrete);
  assert_true(tunnelled_discrete > 0);  // the scenario does tunnel without continuous
}

// Two bullets (and, second, two ordinary balls: speculative contacts alone) flying at each
// other: they meet and never swap sides.
static void head_on(int mode, bool bullets, float speed, int* crossed_out) {
  int crossed = 0;
  for (int k = 0; k < 8; ++k) {
    arb_world* w = world_ccd(mode, arb_v2(0.0f, 0.0f));
    float gap = 3.0f + 0.37f * (float)k;
    arb_body_id a = ball(w, arb_v2(-gap, 0.0f), arb_v2(speed, 0.0f), 0.05f, bullets);
    arb_body_id b = ball(w, arb_v2(gap, 0.0f), arb_v2(-speed, 0.0f), 0.05f, bullets);
    for (int s = 0; s < 30; ++s) {
      arb_world_step(w, DT);
      if (arb_body_get_position(w, a).x >= arb_body_get_position(w, b).x) crossed++;
    }
    // They collided: neither still flies at its launch speed towards the other.
    assert_true(arb_body_get_linear_velocity(w, a).x < 0.5f * speed);
    assert_true(arb_body_get_linear_velocity(w, b).x > -0.5f * speed);
    arb_world_destroy(w);
  }
  *crossed_out = crossed;
}

static void test_bullets_head_on_collide(void** state) {
  (void)state;
  int crossed = 0;
  head_on(CCD_ALL, true, 300.0f, &crossed);
  assert_int_equal(crossed, 0);
  head_on(CCD_OFF, true, 300.0f, &crossed);  // bullets are swept even with continuous off
  assert_int_equal(crossed, 0);
  head_on(CCD_STATIC, true, 300.0f, &crossed);  // and against static bodies only
  assert_int_equal(crossed, 0);
  // Ordinary bodies: the widened speculative margin, from their very first step.
  head_on(CCD_ALL, false, 400.0f, &crossed);
  assert_int_equal(crossed, 0);
  // Ordinary balls in a world without continuous between dynamic bodies pass through
  // each other: the scenario is one where the margin matters.
  int passed[2] = {0, 0};
  for (int m = 0; m < 2; ++m) {
    for (int k = 0; k < 8; ++k) {
      arb_world* w = world_ccd(m == 0 ? CCD_OFF : CCD_STATIC, arb_v2(0.0f, 0.0f));
      float gap = 3.0f + 0.37f * (float)k;
      arb_body_id a = ball(w, arb_v2(-gap, 0.0f), arb_v2(300.0f, 0.0f), 0.05f, false);
      arb_body_id b = ball(w, arb_v2(gap, 0.0f), arb_v2(-300.0f, 0.0f), 0.05f, false);
      for (int s = 0; s < 30; ++s) arb_world_step(w, DT);
      passed[m] += arb_body_get_position(w, a).x > arb_body_get_position(w, b).x;
      arb_world_destroy(w);
    }
  }
  printf(
      "head-on: bullets at 300 m/s and plain balls at 400 m/s crossed 0/8; plain balls at "
      "300 m/s passed %d/8 without continuous, %d/8 against static bodies only\n",
      passed[0], passed[1]);
  assert_true(passed[0] > 0);
  assert_true(passed[1] > 0);
}

// A column of ten 1 m boxes, settled, hit at mid height by a 0.1 m ball at 200 m/s.
static void stack_hit(bool continuous, float* max_speed, float* ball_max_x) {
  arb_world* w = world_ccd(continuous ? CCD_ALL : CCD_OFF, arb_v2(0.0f, -9.81f));
  wt_ground(w, 50.0f);
  arb_body_id boxes[10];
  for (int i = 0; i < 10; ++i)
    boxes[i] = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.5f + (float)i, 0.5f, 0.5f);
  for (int s = 0; s < 120; ++s) arb_world_step(w, DT);
  arb_body_id b = ball(w, arb_v2(-10.0f, 4.5f), arb_v2(200.0f, 0.0f), 0.1f, false);
  *max_speed = 0.0f;
  *ball_max_x = -100.0f;
  for (int s = 0; s < 180; ++s) {
    arb_world_step(w, DT);
    if (s < 3) continue;  // the impact itself
    for (int i = 0; i < 10; ++i) {
      *max_speed = arb_maxf(*max_speed, arb_length(arb_body_get_linear_velocity(w, boxes[i])));
    }
    *max_speed = arb_maxf(*max_speed, arb_length(arb_body_get_linear_velocity(w, b)));
    arb_vec2 p = arb_body_get_position(w, b);
    if (p.y < 10.0f) *ball_max_x = arb_maxf(*ball_max_x, p.x);
  }
  arb_world_destroy(w);
}

static void test_stack_hit_by_fast_ball_does_not_explode(void** state) {
  (void)state;
  float max_speed, ball_max_x;
  stack_hit(true, &max_speed, &ball_max_x);
  printf("stack hit at 200 m/s: fastest body after the impact %.2f m/s, ball max x %.3f\n",
         (double)max_speed, (double)ball_max_x);
  // The ball's momentum (0.031 kg * 200 m/s) can give a 1 kg box about 12 m/s at most.
  assert_true(max_speed < 15.0f);
  assert_true(ball_max_x < 0.5f);  // it never got through the column (far face x = 0.5)
  stack_hit(false, &max_speed, &ball_max_x);
  printf("same without continuous: ball max x below the top %.1f\n", (double)ball_max_x);
  assert_true(ball_max_x > 0.5f);  // it tunnels through without continuous
}

static void test_setting_is_saved_and_restored(void** state) {
  (void)state;
  assert_true(arb_default_world_def().enable_continuous);
  arb_world* on = world_ccd(CCD_ALL, arb_v2(0.0f, -9.81f));
  arb_world* off = world_ccd(CCD_OFF, arb_v2(0.0f, -9.81f));
  for (int i = 0; i < 2; ++i) {
    arb_world* w = i == 0 ? on : off;
    wt_box(w, ARB_BODY_STATIC, 5.0f, 0.0f, 0.1f, 5.0f);
    ball(w, arb_v2(0.0f, 0.0f), arb_v2(100.0f, 0.0f), 0.05f, false);
  }
  // The image of a continuous world carries no record; a discrete one a 4-byte tag.
  int n_on = arb_world_save(on, NULL, 0), n_off = arb_world_save(off, NULL, 0);
  assert_int_equal(n_off, n_on + 4);
  uint8_t* img = malloc((size_t)n_off);
  assert_non_null(img);
  assert_int_equal(arb_world_save(off, img, n_off), n_off);
  arb_world* restored = world_ccd(CCD_ALL, arb_v2(0.0f, -9.81f));  // takes "off" from the image
  assert_int_equal(arb_world_restore(restored, img, n_off), 0);
  assert_true(arb_world_hash(restored) == arb_world_hash(off));
  assert_true(arb_world_hash(on) != arb_world_hash(off));
  for (int s = 0; s < 20; ++s) {
    arb_world_step(off, DT);
    arb_world_step(restored, DT);
    arb_world_step(on, DT);
  }
  assert_true(arb_world_hash(restored) == arb_world_hash(off));
  // And they really differ in behaviour: the ball went through the wall only without.
  arb_body_id ids[2];
  assert_int_equal(arb_world_get_bodies(off, ids, 2), 2);
  assert_true(arb_body_get_position(off, ids[1]).x > 5.1f);
  assert_int_equal(arb_world_get_bodies(on, ids, 2), 2);
  assert_true(arb_body_get_position(on, ids[1]).x < 4.9f);
  free(img);
  arb_world_destroy(on);
  arb_world_destroy(off);
  arb_world_destroy(restored);

  // Against static bodies only: a 4-byte tag of its own, taken from the image.
  arb_world* full = world_ccd(CCD_ALL, arb_v2(0.0f, -9.81f));
  arb_world* only = world_ccd(CCD_STATIC, arb_v2(0.0f, -9.81f));
  int n_full = arb_world_save(full, NULL, 0), n_only = arb_world_save(only, NULL, 0);
  assert_int_equal(n_only, n_full + 4);
  img = malloc((size_t)n_only);
  assert_non_null(img);
  assert_int_equal(arb_world_save(only, img, n_only), n_only);
  restored = world_ccd(CCD_ALL, arb_v2(0.0f, -9.81f));
  assert_int_equal(arb_world_restore(restored, img, n_only), 0);
  assert_true(arb_world_hash(restored) == arb_world_hash(only));
  assert_true(arb_world_hash(full) != arb_world_hash(only));
  assert_int_equal(arb_world_save(restored, NULL, 0), n_only);
  free(img);
  arb_world_destroy(full);
  arb_world_destroy(only);
  arb_world_destroy(restored);
}

static void test_scene_key(void** state) {
  (void)state;
  const char* texts[] = {"{\"version\": 1}", "{\"version\": 1, \"enable_continuous\": true}",
                         "{\"version\": 1, \"enable_continuous\": false}",
                         "{\"version\": 1, \"enable_continuous\": \"static\"}"};
  const bool expect[] = {true, true, false, true}, dynamic[] = {true, true, true, false};
  for (int i = 0; i < 4; ++i) {
    arb_scene* scene = NULL;
    arb_scene_error err;
    assert_int_equal(arb_scene_load_string(texts[i], strlen(texts[i]), "t", &scene, &err), 0);
    assert_true(arb_scene_get_world_def(scene).enable_continuous == expect[i]);
    assert_true(arb_scene_get_world_def(scene).continuous_dynamic == dynamic[i]);
    arb_scene_destroy(scene);
  }
  const char* bad[] = {"{\"version\": 1, \"enable_continuous\": 1}",
                       "{\"version\": 1, \"enable_continuous\": \"Static\"}"};
  for (int i = 0; i < 2; ++i) {
    arb_scene* scene = NULL;
    arb_scene_error err;
    assert_int_equal(arb_scene_load_string(bad[i], strlen(bad[i]), "t", &scene, &err), ARB_E_INVAL);
    assert_null(scene);
    assert_string_equal(err.path, "enable_continuous");
    printf("bad key: %s\n", err.message);
  }
}

#define PILE 5

// A pile of PILE 1 m boxes standing on the ground at x; ids into out.
static void pile(arb_world* w, float x, arb_body_id* out) {
  for (int i = 0; i < PILE; ++i) {
    out[i] = wt_box(w, ARB_BODY_DYNAMIC, x, 0.5f + (float)i, 0.5f, 0.5f);
  }
}

static bool step_until_asleep(arb_world* w, const arb_body_id* ids, int n, int max) {
  for (int s = 0; s < max; ++s) {
    arb_world_step(w, DT);
    if (wt_awake_count(w, ids, n) == 0) return true;
  }
  return false;
}

// Continuous on: the bullet's speculative contact wakes the pile in the narrow phase.
// Off: only the bullet sweep finds the sleeping box, and its hit wakes the island.
static void test_bullet_wakes_the_sleeping_island_it_hits(void** state) {
  (void)state;
  for (int continuous = 1; continuous >= 0; --continuous) {
    arb_world* w = world_ccd(continuous != 0 ? CCD_ALL : CCD_OFF, arb_v2(0.0f, -10.0f));
    wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 60.0f, 0.5f);
    arb_body_id a[PILE], b[PILE];
    pile(w, 0.0f, a);
    pile(w, 30.0f, b);
    assert_true(step_until_asleep(w, a, PILE, 300));
    assert_int_equal(wt_awake_count(w, b, PILE), 0);
    arb_body_id shot = ball(w, arb_v2(-20.0f, 2.5f), arb_v2(300.0f, 0.0f), 0.1f, true);
    arb_body_id target = a[2];
    bool woke = false;
    for (int s = 0; s < 30; ++s) {
      arb_world_step(w, DT);
      int awake = wt_awake_count(w, a, PILE);
      assert_true(awake == 0 || awake == PILE);  // one island: all or nothing
      woke = woke || awake == PILE;
      assert_int_equal(wt_awake_count(w, b, PILE), 0);  // the other pile sleeps on
      // The bullet stays on the near side of the box it hits.
      assert_true(arb_body_get_position(w, shot).x < arb_body_get_position(w, target).x);
    }
    assert_true(woke);
    assert_true(arb_body_get_position(w, target).x > 0.5f);  // and pushed it
    arb_world_destroy(w);
  }
}

// A kinematic slab slides up 3 cm beside a pile at 1 m/s: inside the pile's widened
// speculative margin (2 cm + 1 m/s * dt), never approaching it. The pile falls asleep and
// stays asleep (its points there are dropped: they would wake it every step).
static void test_passing_body_does_not_keep_pile_awake(void** state) {
  (void)state;
  arb_world* w = world_ccd(CCD_ALL, arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  arb_body_id a[PILE];
  pile(w, 0.0f, a);
  arb_body_id slab = wt_box(w, ARB_BODY_KINEMATIC, 0.5f + 0.03f + 0.25f, 10.0f, 0.25f, 10.0f);
  arb_body_set_linear_velocity(w, slab, arb_v2(0.0f, 1.0f));
  assert_true(step_until_asleep(w, a, PILE, 120));
  for (int s = 0; s < 60; ++s) {
    arb_world_step(w, DT);
    assert_int_equal(wt_awake_count(w, a, PILE), 0);
  }
  assert_true(arb_body_is_awake(w, slab));
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_fast_ball_never_passes_thin_wall_or_segment),
              cmocka_unit_test(test_bullets_head_on_collide),
              cmocka_unit_test(test_stack_hit_by_fast_ball_does_not_explode),
              cmocka_unit_test(test_setting_is_saved_and_restored),
              cmocka_unit_test(test_scene_key),
              cmocka_unit_test(test_bullet_wakes_the_sleeping_island_it_hits),
              cmocka_unit_test(test_passing_body_does_not_keep_pile_awake))
