// World and body lifecycle: ids (create/destroy, stale ids rejected, slot reuse bumps the
// generation), definition validation, memory accounting (allocator hooks see every byte
// returned; no allocation growth across steps after warm-up), contacts and events.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

static void test_ids_create_destroy_stale(void** state) {
  arb_world* w = *state;
  arb_body_id a = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 0.5f, 0.5f);
  arb_body_id b = wt_circle(w, ARB_BODY_DYNAMIC, 3.0f, 0.0f, 0.5f);
  assert_false(arb_body_id_is_null(a));
  assert_false(arb_body_id_is_null(b));
  assert_false(arb_body_id_equals(a, b));
  assert_true(arb_body_is_valid(w, a));
  assert_int_equal(arb_world_get_body_count(w), 2);
  assert_int_equal(arb_body_destroy(w, a), 0);
  assert_false(arb_body_is_valid(w, a));
  // A stale id is a programmer error (an assert in debug builds, counted here); after it
  // the call fails softly: stale ids read as zero and writes through them do nothing.
  wt_soft_asserts();
  assert_int_equal(arb_body_destroy(w, a), ARB_E_STALE_ID);
  assert_int_equal(arb_world_get_body_count(w), 1);
  arb_body_set_linear_velocity(w, a, arb_v2(5.0f, 0.0f));
  assert_true(arb_body_get_linear_velocity(w, a).x == 0.0f);
  assert_true(arb_body_get_mass(w, a) == 0.0f);
  wt_expect_asserts(4);
  // The slot is reused with a new generation: the old id stays stale.
  arb_body_id c = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 5.0f, 0.5f, 0.5f);
  assert_int_equal(c.index1, a.index1);
  assert_true(c.generation != a.generation);
  assert_false(arb_body_is_valid(w, a));
  assert_true(arb_body_is_valid(w, c));
  assert_false(arb_body_is_valid(w, arb_null_body_id));
  arb_body_id bogus = {999, 1};
  assert_false(arb_body_is_valid(w, bogus));
  arb_body_id list[4];
  assert_int_equal(arb_world_get_bodies(w, list, 4), 2);
  assert_true(arb_body_id_equals(list[0], c));  // slot order
  assert_true(arb_body_id_equals(list[1], b));
}

// arb_body_get_motion gives what the single getters give, bit for bit, and refuses a stale
// id without touching its output (and without the stale-id assert: it is a validity check).
static void test_body_motion(void** state) {
  arb_world* w = *state;
  arb_body_id ground = wt_ground(w, 20.0f);
  arb_body_id box = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 2.0f, 0.5f, 0.5f);
  arb_body_set_angular_velocity(w, box, 3.0f);
  arb_body_set_linear_velocity(w, box, arb_v2(1.5f, 0.0f));
  for (int i = 0; i < 20; ++i) arb_world_step(w, DT);
  arb_body_motion m;
  assert_true(arb_body_get_motion(w, box, &m));
  assert_int_equal(m.type, ARB_BODY_DYNAMIC);
  arb_transform xf = arb_body_get_transform(w, box);
  arb_vec2 v = arb_body_get_linear_velocity(w, box);
  float av = arb_body_get_angular_velocity(w, box);
  assert_memory_equal(&m.xf, &xf, sizeof xf);
  assert_memory_equal(&m.v, &v, sizeof v);
  assert_memory_equal(&m.w, &av, sizeof av);
  assert_true(m.v.x != 0.0f && m.w != 0.0f);  // it moved: the bits compared are not zeros
  assert_true(arb_body_get_motion(w, ground, &m));
  assert_int_equal(m.type, ARB_BODY_STATIC);
  assert_int_equal(arb_body_destroy(w, box), 0);
  arb_body_motion untouched;
  memset(&untouched, 0xAB, sizeof untouched);
  m = untouched;
  assert_false(arb_body_get_motion(w, box, &m));
  assert_false(arb_body_get_motion(w, arb_null_body_id, &m));
  assert_memory_equal(&m, &untouched, sizeof m);
}

static void test_invalid_defs_rejected(void** state) {
  (void)state;
  arb_world_def wd = arb_default_world_def();
  wd.substeps = 0;
  assert_null(arb_world_create(&wd));
  wd = arb_default_world_def();
  wd.gravity.x = NAN;
  assert_null(arb_world_create(&wd));
  arb_world_def raw;
  memset(&raw, 0, sizeof raw);  // not from arb_default_world_def: a programmer error
  wt_soft_asserts();
  assert_null(arb_world_create(&raw));
  wt_expect_asserts(1);

  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_def bd = arb_default_body_def();
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));  // no shape
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = -1.0f;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.shape.circle.radius = 1.0f;
  bd.position.x = INFINITY;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.position.x = 0.0f;
  bd.linear_damping = -1.0f;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.linear_damping = 0.0f;
  bd.type = (arb_body_type)7;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  // A dynamic segment has no mass: refused.
  bd = arb_default_body_def();
  bd.shape.type = ARB_SHAPE_SEGMENT;
  bd.shape.segment.a = arb_v2(0.0f, 0.0f);
  bd.shape.segment.b = arb_v2(1.0f, 0.0f);
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.type = ARB_BODY_STATIC;
  arb_body_id seg = arb_body_create(w, &bd);
  assert_false(arb_body_id_is_null(seg));
  assert_int_equal(arb_world_get_body_count(w), 1);
  // A dynamic body with no mass is refused, also when it would reuse a free slot, and
  // the free slot stays usable.
  arb_body_id t1 = wt_circle(w, ARB_BODY_DYNAMIC, 5.0f, 5.0f, 1.0f);
  arb_body_id t2 = wt_circle(w, ARB_BODY_DYNAMIC, 8.0f, 5.0f, 1.0f);
  assert_int_equal(arb_body_destroy(w, t1), 0);
  assert_int_equal(arb_body_destroy(w, t2), 0);  // free list: t2's slot, then t1's
  bd = arb_default_body_def();
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 1.0f;
  bd.shape.density = 0.0f;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  arb_body_id r2 = wt_circle(w, ARB_BODY_DYNAMIC, 5.0f, 5.0f, 1.0f);
  arb_body_id r1 = wt_circle(w, ARB_BODY_DYNAMIC, 8.0f, 5.0f, 1.0f);
  arb_body_id fresh = wt_circle(w, ARB_BODY_DYNAMIC, 11.0f, 5.0f, 1.0f);
  assert_int_equal(r2.index1, t2.index1);
  assert_int_equal(r1.index1, t1.index1);
  assert_true(fresh.index1 > t2.index1 && fresh.index1 > t1.index1);
  assert_int_equal(arb_world_get_body_count(w), 4);
  arb_world_destroy(w);
}

static void test_mass_properties(void** state) {
  arb_world* w = *state;
  arb_body_id box = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, 1.0f, 0.5f);  // 2 x 1, density 1
  assert_float_equal(arb_body_get_mass(w, box), 2.0f, 1e-5f);
  assert_float_equal(arb_body_get_rotational_inertia(w, box), 2.0f * (4.0f + 1.0f) / 12.0f, 1e-5f);
  assert_float_equal(arb_body_get_inverse_mass(w, box), 0.5f, 1e-6f);
  arb_body_def bd = arb_default_body_def();
  bd.mass = 8.0f;  // overrides density, inertia scales with it
  bd.position = arb_v2(10.0f, 0.0f);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(1.0f, 0.5f);
  arb_body_id heavy = arb_body_create(w, &bd);
  assert_float_equal(arb_body_get_mass(w, heavy), 8.0f, 1e-5f);
  assert_float_equal(arb_body_get_rotational_inertia(w, heavy), 8.0f * 5.0f / 12.0f, 1e-4f);
  arb_body_id ground = wt_box(w, ARB_BODY_STATIC, 0.0f, -5.0f, 10.0f, 1.0f);
  assert_true(arb_body_get_inverse_mass(w, ground) == 0.0f);
  arb_body_id kin = wt_box(w, ARB_BODY_KINEMATIC, -10.0f, 5.0f, 1.0f, 1.0f);
  assert_true(arb_body_get_inverse_mass(w, kin) == 0.0f);
  // Force at an offset point produces torque; point velocity includes rotation.
  arb_body_apply_force(w, box, arb_v2(0.0f, 12.0f), arb_v2(1.0f, 0.0f));
  arb_world_set_gravity(w, arb_v2(0.0f, 0.0f));
  arb_world_step(w, DT);
  float wv = arb_body_get_angular_velocity(w, box);
  assert_float_equal(wv, DT * 12.0f / arb_body_get_rotational_inertia(w, box), 1e-5f);
  assert_float_equal(arb_body_get_linear_velocity(w, box).y, DT * 12.0f / 2.0f, 1e-6f);
  arb_vec2 pv = arb_body_get_point_velocity(
      w, box, arb_add(arb_body_get_world_center(w, box), arb_v2(1.0f, 0.0f)));
  assert_float_equal(pv.y, arb_body_get_linear_velocity(w, box).y + wv, 1e-6f);
  // Accumulators are cleared by the step.
  arb_world_step(w, DT);
  assert_float_equal(arb_body_get_angular_velocity(w, box), wv, 1e-6f);
}

typedef struct counting_alloc {
  int64_t live;
  int64_t calls;
} counting_alloc;

static void* count_alloc(size_t size, void* user) {
  counting_alloc* c = user;
  void* p = malloc(size + 16);
  if (!p) return NULL;
  memcpy(p, &size, sizeof size);
  c->live += (int64_t)size;
  c->calls += 1;
  return (uint8_t*)p + 16;
}

static void count_free(void* ptr, void* user) {
  counting_alloc* c = user;
  uint8_t* p = (uint8_t*)ptr - 16;
  size_t size;
  memcpy(&size, p, sizeof size);
  c->live -= (int64_t)size;
  free(p);
}

static void test_memory_accounting(void** state) {
  (void)state;
  counting_alloc ca = {0, 0};
  arb_world_def wd = arb_default_world_def();
  wd.alloc = count_alloc;
  wd.free = count_free;
  wd.alloc_user = &ca;
  // Awake throughout: the steady state of the full solver path (sleeping has its own
  // no-allocation check in test_sleep.c).
  wd.enable_sleep = false;
  arb_world* w = arb_world_create(&wd);
  assert_non_null(w);
  int64_t empty = arb_world_get_byte_count(w);
  assert_true(empty > 0);
  wt_ground(w, 20.0f);
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10 - i; ++j) {
      wt_box(w, ARB_BODY_DYNAMIC, -5.0f + (float)j + 0.5f * (float)i, 0.5f + (float)i, 0.5f, 0.5f);
    }
  }
  for (int k = 0; k < 30; ++k)
    wt_circle(w, ARB_BODY_DYNAMIC, -7.0f + 0.5f * (float)k, 14.0f + (float)(k % 3), 0.2f);
  // Warm-up: the arena and the contact arrays reach their working size.
  for (int i = 0; i < 120; ++i) arb_world_step(w, DT);
  int64_t warm = arb_world_get_byte_count(w);
  int64_t calls = ca.calls;
  for (int i = 0; i < 120; ++i) {
    arb_world_step(w, DT);
    assert_int_equal(arb_world_get_byte_count(w), warm);
  }
  assert_int_equal(ca.calls, calls);  // not a single allocation in 120 steps
  // The hooks saw the same byte count as the world reports.
  assert_int_equal(ca.live, arb_world_get_byte_count(w));
  arb_body_id ids[128];
  int n = arb_world_get_bodies(w, ids, 128);
  for (int i = 0; i < n; ++i) assert_int_equal(arb_body_destroy(w, ids[i]), 0);
  assert_int_equal(arb_world_get_body_count(w), 0);
  arb_world_destroy(w);
  assert_int_equal(ca.live, 0);  // every byte returned
}

static void test_contacts_and_events(void** state) {
  arb_world* w = *state;
  arb_body_id ground = wt_ground(w, 10.0f);
  arb_body_id box = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 2.0f, 0.5f, 0.5f);
  arb_contact_event ev[4];
  assert_int_equal(wt_step_begin_touches(w, 120, DT, ev, 4), 1);
  assert_true((arb_body_id_equals(ev[0].a, ground) && arb_body_id_equals(ev[0].b, box)) ||
              (arb_body_id_equals(ev[0].b, ground) && arb_body_id_equals(ev[0].a, box)));
  arb_contact_data cd[4];
  assert_int_equal(arb_body_get_contacts(w, box, cd, 4), 1);
  assert_true(arb_body_id_equals(cd[0].other, ground));
  assert_int_equal(cd[0].point_count, 2);
  assert_float_equal(cd[0].normal.y, -1.0f, 1e-5f);  // from the box towards the ground
  assert_float_equal(cd[0].normal_impulses[0] + cd[0].normal_impulses[1], 10.0f * DT / 4.0f, 0.02f);
  assert_int_equal(arb_body_get_contacts(w, ground, cd, 4), 1);
  assert_float_equal(cd[0].normal.y, 1.0f, 1e-5f);
  arb_world_counters wc = arb_world_get_counters(w);
  assert_int_equal(wc.body_count, 2);
  assert_int_equal(wc.contact_count, 1);
  assert_int_equal(wc.touching_count, 1);
  assert_int_equal(wc.byte_count, arb_world_get_byte_count(w));
  assert_true(wc.arena_bytes > 0 && wc.arena_bytes < wc.byte_count);
  // Queries.
  arb_body_id hits[4];
  arb_aabb q = {{-0.1f, 0.1f}, {0.1f, 0.2f}};
  assert_int_equal(arb_world_query_aabb(w, q, hits, 4), 1);
  assert_true(arb_body_id_equals(hits[0], box));
  arb_ray_result rr = arb_world_cast_ray(w, arb_v2(0.0f, 5.0f), arb_v2(0.0f, -10.0f));
  assert_true(arb_body_id_equals(rr.body, box));
  assert_float_equal(rr.point.y, 1.0f, 0.02f);
  // Destroying the box ends the contact; the ground has none left.
  assert_int_equal(arb_body_destroy(w, box), 0);
  assert_int_equal(arb_body_get_contacts(w, ground, cd, 4), 0);
  arb_world_step(w, DT);
}

static void test_filtering(void** state) {
  arb_world* w = *state;
  wt_ground(w, 10.0f);
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(0.0f, 0.5f);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.5f, 0.5f);
  bd.shape.mask_bits = 0;  // collides with nothing: falls through the ground
  arb_body_id ghost = arb_body_create(w, &bd);
  for (int i = 0; i < 60; ++i) arb_world_step(w, DT);
  assert_true(arb_body_get_position(w, ghost).y < -3.0f);
}

ARB_TEST_MAIN(WT_GRAVITY_TEST(test_ids_create_destroy_stale), WT_GRAVITY_TEST(test_body_motion),
              cmocka_unit_test(test_invalid_defs_rejected), WT_GRAVITY_TEST(test_mass_properties),
              cmocka_unit_test(test_memory_accounting), WT_GRAVITY_TEST(test_contacts_and_events),
              WT_GRAVITY_TEST(test_filtering))
