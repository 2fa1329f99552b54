// Physics extras, determinism: for a scene of each feature (springs, joints, particles,
// vehicles, bullets, all of them mixed with destruction, and every joint type with its
// limit, motor and spring), two identical runs give the same per-tick hashes, save at
// tick 300 + restore into a fresh world replays bit for bit, and the final hash is a
// golden value that -O0, -O2 and ASan builds must all reproduce
// (a change means the simulation changed: update deliberately, with the reason).
// Also: the extras section of a world image is checked like the rest (every mutated or
// truncated image is refused or restores to a world that steps), restoring an image
// without extras clears them, and a warmed-up world allocates nothing per step.
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
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../common/particle_cloth.h"
#include "determinism_check.h"
#include "extras_test_util.h"
#include "joint_kinds_world.h"

#define TICKS 900
#define SAVE_AT 300

// ---- scenes -----------------------------------------------------------------------------

static arb_world* scene_springs(void) {
  arb_world* w = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  arb_body_id prev = arb_null_body_id;
  for (int i = 0; i < 8; ++i) {
    arb_body_id b =
        wt_box(w, ARB_BODY_DYNAMIC, -4.0f + (float)i, 6.0f + 0.1f * (float)i, 0.2f, 0.2f);
    arb_spring_def sd = arb_default_spring_def();
    sd.body_a = b;
    sd.local_anchor_a = arb_v2(0.1f, 0.2f);
    if (arb_body_id_is_null(prev)) {
      sd.local_anchor_b = arb_v2(-5.0f, 9.0f);
    } else {
      sd.body_b = prev;
      sd.local_anchor_b = arb_v2(-0.1f, 0.0f);
    }
    sd.rest_length = 0.6f;
    sd.stiffness = 80.0f + 10.0f * (float)i;
    sd.damping = 0.5f * (float)(i % 3);
    arb_spring_create(w, &sd);
    prev = b;
  }
  return w;
}

static arb_world* scene_joints(void) {
  arb_world* w = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  for (int i = 0; i < 4; ++i) wt_box(w, ARB_BODY_DYNAMIC, 3.0f, 0.5f + (float)i, 0.5f, 0.5f);
  arb_body_id prev = arb_null_body_id;
  for (int i = 0; i < 8; ++i) {  // chain from (0, 8) to the right, falls onto the stack
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(0.25f + 0.5f * (float)i, 8.0f);
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(0.25f, 0.06f);
    bd.shape.group = -2;
    arb_body_id b = arb_body_create(w, &bd);
    arb_joint_def jd = arb_default_joint_def();
    jd.body_a = b;
    jd.local_anchor_a = arb_v2(-0.25f, 0.0f);
    if (i == 0) {
      jd.local_anchor_b = arb_v2(0.0f, 8.0f);
    } else {
      jd.body_b = prev;
      jd.local_anchor_b = arb_v2(0.25f, 0.0f);
    }
    arb_joint_create(w, &jd);
    prev = b;
  }
  // A soft distance joint (bungee) and a rigid rod between two free bodies.
  arb_body_id c1 = wt_circle(w, ARB_BODY_DYNAMIC, -4.0f, 6.0f, 0.3f);
  arb_body_id c2 = wt_circle(w, ARB_BODY_DYNAMIC, -3.0f, 7.0f, 0.2f);
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_DISTANCE;
  jd.body_a = c1;
  jd.local_anchor_b = arb_v2(-4.0f, 9.0f);
  jd.length = 1.5f;
  jd.hertz = 3.0f;
  jd.damping_ratio = 0.2f;
  arb_joint_create(w, &jd);
  jd.body_b = c1;
  jd.body_a = c2;
  jd.local_anchor_b = arb_v2(0.0f, 0.0f);
  jd.length = -1.0f;
  jd.hertz = 0.0f;
  arb_joint_create(w, &jd);
  return w;
}

static arb_world* scene_particles(void) {
  arb_world* w = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  wt_circle(w, ARB_BODY_STATIC, 0.0f, 2.0f, 1.0f);
  wt_box(w, ARB_BODY_DYNAMIC, 3.0f, 0.5f, 0.5f, 0.5f);
  arb_world_set_constraint_iterations(w, 6);
  // Cloth 10 x 10, top corners pinned (every 9th of the top row), falling over the circle.
  const particle_cloth cloth = {10, {-1.5f, 3.2f}, 0.3f, 0.05f, 0.1f, 9};
  particle_cloth_create(w, &cloth);
  xt_rope(w, 5.0f, 6.0f, 12, 0.15f, 0.04f);
  // Braced box landing on the dynamic box.
  int b0 = arb_world_get_particle_count(w);
  const arb_vec2 corners[4] = {{2.6f, 3.0f}, {3.4f, 3.1f}, {3.4f, 3.9f}, {2.6f, 3.8f}};
  for (int i = 0; i < 4; ++i) {
    arb_particle_def pd = arb_default_particle_def();
    pd.position = corners[i];
    pd.radius = 0.05f;
    arb_particle_create(w, &pd);
  }
  const int pairs[6][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}, {1, 3}};
  for (int i = 0; i < 6; ++i) {
    arb_constraint_def cd = {b0 + pairs[i][0], b0 + pairs[i][1], -1.0f, 0.9f};
    arb_constraint_create(w, &cd);
  }
  return w;
}

static arb_world* scene_vehicles(void) {
  arb_world* w = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  wt_segment(w, -40.0f, -40.0f, 40.0f, -40.0f);
  wt_segment(w, 40.0f, -40.0f, 40.0f, 40.0f);
  wt_segment(w, 40.0f, 40.0f, -40.0f, 40.0f);
  wt_segment(w, -40.0f, 40.0f, -40.0f, -40.0f);
  for (int i = 0; i < 3; ++i)
    xt_car(w, -10.0f + 8.0f * (float)i, 0.5f * (float)i, 0.3f * (float)i, NULL);
  wt_box(w, ARB_BODY_DYNAMIC, 20.0f, 0.0f, 1.0f, 1.0f);
  return w;
}

static void tick_vehicles(arb_world* w, int t) {
  arb_extra_id ids[8];
  int n = arb_world_get_vehicles(w, ids, 8);
  for (int i = 0; i < n; ++i) {
    float steer = (float)((t / 90 + i) % 5 - 2) * 0.4f;
    float throttle = (t / 60 + i) % 4 == 0 ? 0.0f : 1.0f;
    float brake = (t / 150 + i) % 5 == 4 ? 1.0f : 0.0f;
    arb_vehicle_set_input(w, ids[i], steer, throttle, brake);
  }
}

static arb_world* scene_bullets(void) {
  arb_world* w = xt_world(arb_v2(0.0f, -2.0f), 1000.0f);
  wt_box(w, ARB_BODY_STATIC, 8.0f, 0.0f, 0.05f, 5.0f);
  wt_box(w, ARB_BODY_STATIC, -8.0f, 0.0f, 0.05f, 5.0f);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -5.0f, 8.0f, 0.05f);
  wt_box(w, ARB_BODY_DYNAMIC, 2.0f, 0.0f, 0.05f, 1.0f);
  return w;
}

static void tick_bullets(arb_world* w, int t) {
  if (t % 40 != 0 || t > 600) return;
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(-6.0f, -3.0f + 0.4f * (float)(t / 40));
  bd.linear_velocity = arb_v2(300.0f + 10.0f * (float)(t / 40), 20.0f * (float)((t / 40) % 3 - 1));
  bd.bullet = true;
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.05f;
  bd.shape.restitution = 0.5f;
  arb_body_create(w, &bd);
}

static arb_world* scene_mixed(void) {
  arb_world* w = scene_joints();
  arb_body_id c = wt_box(w, ARB_BODY_DYNAMIC, -8.0f, 1.0f, 0.5f, 0.5f);
  arb_spring_def sd = arb_default_spring_def();
  sd.body_a = c;
  sd.local_anchor_b = arb_v2(-8.0f, 5.0f);
  sd.stiffness = 30.0f;
  sd.rest_length = 1.0f;
  arb_spring_create(w, &sd);
  xt_rope(w, -6.0f, 9.0f, 8, 0.2f, 0.05f);
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(10.0f, 2.0f);
  bd.mass = 500.0f;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(1.0f, 0.5f);
  bd.gravity_scale = 0.0f;
  arb_body_id chassis = arb_body_create(w, &bd);
  arb_vehicle_def vd = arb_default_vehicle_def();
  vd.chassis = chassis;
  arb_extra_id car = arb_vehicle_create(w, &vd);
  arb_vehicle_set_input(w, car, 0.5f, 0.7f, 0.0f);
  return w;
}

static void tick_mixed(arb_world* w, int t) {
  tick_bullets(w, t);
  if (t == 200) {  // destroy a chain link (its joints go inert) and the spring's body
    arb_body_id ids[64];
    int n = arb_world_get_bodies(w, ids, 64);
    if (n > 8) arb_body_destroy(w, ids[8]);
  }
  if (t == 450) {
    arb_joint_def jd = arb_default_joint_def();  // re-link: reuses the lowest free slot? (none)
    arb_body_id ids[64];
    arb_world_get_bodies(w, ids, 64);
    jd.body_a = ids[6];
    jd.local_anchor_b = arb_v2(1.0f, 6.0f);
    arb_joint_create(w, &jd);
  }
}

// Inputs between ticks: the mouse target moves and the motors reverse.
static void tick_joint_kinds(arb_world* w, int t) {
  if (t % 150 != 0) return;
  arb_extra_id ids[16];
  int n = arb_world_get_joints(w, ids, 16);
  float sign = (t / 150) % 2 ? -1.0f : 1.0f;
  for (int i = 0; i < n; ++i) {
    arb_joint_type type = arb_joint_get_type(w, ids[i]);
    if (type == ARB_JOINT_MOUSE) arb_joint_set_target(w, ids[i], arb_v2(13.0f + sign, 3.0f));
    if (type == ARB_JOINT_REVOLUTE || type == ARB_JOINT_PRISMATIC)
      arb_joint_set_motor_speed(w, ids[i], 2.0f * sign);
  }
}

static const det_case cases[] = {
    {"springs", scene_springs, NULL, 0x718e38e1bd8dea01ull},
    {"joints", scene_joints, NULL, 0x0b6b1270287d88d6ull},
    {"particles", scene_particles, NULL, 0x98cc24e7def30fdaull},
    {"vehicles", scene_vehicles, tick_vehicles, 0x526c283b444be4bcull},
    {"bullets", scene_bullets, tick_bullets, 0x9c2f1cfad230861bull},
    {"mixed", scene_mixed, tick_mixed, 0xbb1045cb96866600ull},
    {"joint_kinds", jk_world, tick_joint_kinds, 0xf324e18017aefec7ull},
};

// Beyond the hash: the restored world holds the same extras.
static void compare_extras(arb_world* restored, arb_world* original) {
  assert_int_equal(arb_world_get_particle_count(restored), arb_world_get_particle_count(original));
  assert_int_equal(arb_world_get_joint_count(restored), arb_world_get_joint_count(original));
  assert_int_equal(arb_world_get_vehicles(restored, NULL, 0),
                   arb_world_get_vehicles(original, NULL, 0));
}

static void check_case(void** state) {
  det_check_case(*state, XT_DT, TICKS, SAVE_AT, compare_extras);
}

// ---- images -----------------------------------------------------------------------------

// Rebuild an image around a new payload (header + payload + XXH3 checksum).
static uint8_t* repack(const uint8_t* img, const uint8_t* payload, size_t plen, int* out_len) {
  uint8_t* out = malloc(20 + plen + 8);
  memcpy(out, img, 16);
  uint32_t n = (uint32_t)plen;
  for (int i = 0; i < 4; ++i) out[16 + i] = (uint8_t)(n >> (8 * i));
  memcpy(out + 20, payload, plen);
  uint64_t h = XXH3_64bits(payload, plen);
  for (int i = 0; i < 8; ++i) out[20 + plen + (size_t)i] = (uint8_t)(h >> (8 * i));
  *out_len = (int)(20 + plen + 8);
  return out;
}

static void test_extras_image_mutations(void** state) {
  (void)state;
  arb_world* w = scene_mixed();
  int size;
  uint8_t* img = det_image_at(&cases[5], w, XT_DT, 120, &size);
  const uint8_t* payload = img + 20;
  size_t plen = (size_t)size - 28;
  size_t start = 0;
  for (size_t i = 0; i + 4 <= plen; ++i) {
    if (memcmp(payload + i, "XTRA", 4) == 0) start = i;  // the last tag: the section
  }
  assert_true(start > 0);
  uint8_t* mut = malloc(plen);
  arb_world_def wd = arb_default_world_def();
  arb_world* r = arb_world_create(&wd);
  int accepted = 0, refused = 0;
  const uint8_t flips[3] = {0x01, 0x80, 0xff};
  for (size_t i = start; i < plen; ++i) {
    for (int f = 0; f < 3; ++f) {
      memcpy(mut, payload, plen);
      mut[i] ^= flips[f];
      int len;
      uint8_t* im = repack(img, mut, plen, &len);
      int rc = arb_world_restore(r, im, len);
      if (rc == 0) {
        accepted++;
        for (int k = 0; k < 3; ++k) arb_world_step(r, XT_DT);  // must not crash or trip UBSan
      } else {
        refused++;
        assert_true(rc < 0);
      }
      free(im);
    }
  }
  // Every truncation of the section is refused.
  for (size_t cut = start + 1; cut < plen; cut += 7) {  // (cut == start: no section, valid)
    int len;
    uint8_t* im = repack(img, payload, cut, &len);
    assert_true(arb_world_restore(r, im, len) < 0);
    free(im);
  }
  printf("extras section: %zu bytes, %d mutations refused, %d accepted (and stepped)\n",
         plen - start, refused, accepted);
  assert_true(refused > 0);
  // The untouched image still restores and matches.
  assert_int_equal(arb_world_restore(r, img, size), 0);
  assert_int_equal(arb_world_hash(r), arb_world_hash(w));
  // An image of a world without extras clears them.
  arb_world* plain = xt_world(arb_v2(0.0f, -9.81f), 0.0f);
  wt_box(plain, ARB_BODY_STATIC, 0.0f, 0.0f, 1.0f, 1.0f);
  int psize;
  uint8_t* pimg = wt_save(plain, &psize);
  assert_int_equal(arb_world_restore(r, pimg, psize), 0);
  assert_int_equal(arb_world_get_particle_count(r), 0);
  assert_int_equal(arb_world_get_joint_count(r), 0);
  assert_int_equal(arb_world_get_spring_count(r), 0);
  assert_int_equal(arb_world_hash(r), arb_world_hash(plain));
  free(pimg);
  free(mut);
  free(img);
  arb_world_destroy(plain);
  arb_world_destroy(r);
  arb_world_destroy(w);
}

static void test_extras_hashed_and_no_step_allocation(void** state) {
  (void)state;
  // A world with a spring hashes differently from the same world without it.
  arb_world* a = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  arb_world* b = xt_world(arb_v2(0.0f, 0.0f), 0.0f);
  arb_body_id ba = wt_circle(a, ARB_BODY_DYNAMIC, 1.0f, 0.0f, 0.1f);
  wt_circle(b, ARB_BODY_DYNAMIC, 1.0f, 0.0f, 0.1f);
  assert_int_equal(arb_world_hash(a), arb_world_hash(b));
  arb_spring_def sd = arb_default_spring_def();
  sd.body_a = ba;
  arb_extra_id s = arb_spring_create(a, &sd);
  assert_true(arb_world_hash(a) != arb_world_hash(b));
  arb_spring_destroy(a, s);
  assert_true(arb_world_hash(a) != arb_world_hash(b));  // the freed slot is state too
  arb_world_destroy(a);
  arb_world_destroy(b);
  // Warmed up, a step with every feature allocates nothing.
  arb_world* w = scene_mixed();
  det_run(&cases[5], w, XT_DT, 0, 650, NULL);  // past the last bullet spawn and re-link
  int64_t before = arb_world_get_byte_count(w);
  det_run(&cases[5], w, XT_DT, 650, 700, NULL);
  assert_int_equal(arb_world_get_byte_count(w), before);
  arb_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest more[] = {
      cmocka_unit_test(test_extras_image_mutations),
      cmocka_unit_test(test_extras_hashed_and_no_step_allocation),
  };
  return det_run_tests("test_extras_determinism", cases, (int)(sizeof cases / sizeof cases[0]),
                       check_case, more, (int)(sizeof more / sizeof more[0]));
}
