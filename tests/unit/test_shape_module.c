// The shape module (shared/src/shape.c) and the contact order read from contact.c's
// collide table:
// - which body a contact puts first is part of the state (the contact's body_a), so the
//   order the table gives is pinned here as it was before the table decided it (segment
//   and chain, then polygon, capsule, circle), and two different kinds are registered
//   one way only;
// - the public any-kind functions give exactly the per-kind functions' results;
// - a kind outside the enum is refused by validation and answered harmlessly elsewhere.
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
#include "world.h"  // shared/src: arb__contact_kind_order, shape.h

// The order of the rank list the table replaced (lower goes first).
static int legacy_rank(arb_shape_type t) {
  switch (t) {
    case ARB_SHAPE_SEGMENT:
    case ARB_SHAPE_CHAIN:
      return 0;
    case ARB_SHAPE_POLYGON:
      return 1;
    case ARB_SHAPE_CAPSULE:
      return 2;
    case ARB_SHAPE_CIRCLE:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return 3;
}

static void test_contact_order_from_the_table(void** state) {
  (void)state;
  for (int a = ARB_SHAPE_NONE + 1; a < ARB_SHAPE_TYPE_COUNT; ++a) {
    for (int b = ARB_SHAPE_NONE + 1; b < ARB_SHAPE_TYPE_COUNT; ++b) {
      arb_shape_type ta = (arb_shape_type)a, tb = (arb_shape_type)b;
      int ab = arb__contact_kind_order(ta, tb), ba = arb__contact_kind_order(tb, ta);
      assert_int_equal(ab, -ba);
      assert_int_equal(arb__contact_has_collider(ta, tb), arb__contact_has_collider(tb, ta));
      if (a == b || !arb__contact_has_collider(ta, tb)) {
        assert_int_equal(ab, 0);
        continue;
      }
      int ra = legacy_rank(ta), rb = legacy_rank(tb);
      assert_int_not_equal(ra, rb);
      assert_int_equal(ab, ra < rb ? -1 : 1);
    }
  }
}

static arb_shape_geometry geometry(arb_shape_type t) {
  static const arb_vec2 chain_points[4] = {
      {-2.0f, 0.0f}, {-1.0f, 0.2f}, {1.0f, -0.1f}, {2.0f, 0.3f}};
  arb_shape_geometry g;
  memset(&g, 0, sizeof g);
  g.type = t;
  switch (t) {
    case ARB_SHAPE_CIRCLE:
      g.circle = (arb_circle){{0.3f, -0.2f}, 0.7f};
      break;
    case ARB_SHAPE_POLYGON:
      g.polygon = arb_make_offset_box(0.5f, 0.25f, arb_v2(0.1f, 0.2f), arb_rot_from_angle(0.3f));
      break;
    case ARB_SHAPE_SEGMENT:
      g.segment = (arb_segment){{-1.0f, 0.5f}, {1.5f, -0.25f}};
      break;
    case ARB_SHAPE_CAPSULE:
      g.capsule = (arb_capsule){{-0.5f, 0.0f}, {0.5f, 0.1f}, 0.3f};
      break;
    case ARB_SHAPE_CHAIN:
      g.chain = (arb_chain){chain_points, 4, false};
      break;
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return g;
}

static bool same_aabb(arb_aabb x, arb_aabb y) {
  return memcmp(&x, &y, sizeof x) == 0;
}

static void test_any_kind_functions_match_the_kinds(void** state) {
  (void)state;
  arb_transform xf = {{1.5f, -0.75f}, arb_rot_from_angle(0.6f)};
  arb_ray_input ray = {{-3.0f, 0.05f}, {6.0f, 0.02f}, 1.0f};
  int hits = 0;
  for (int k = ARB_SHAPE_NONE + 1; k < ARB_SHAPE_TYPE_COUNT; ++k) {
    arb_shape_geometry g = geometry((arb_shape_type)k);
    arb_aabb box;
    arb_cast_output hit;
    // Each kind's own functions, named by the kinds list (a new row is tested here too).
#define KIND_CASE(NAME, name, has_area)           \
  case ARB_SHAPE_##NAME:                          \
    box = arb_compute_##name##_aabb(&g.name, xf); \
    hit = arb_ray_cast_##name(&ray, &g.name);     \
    break;
    switch (g.type) {
      ARB_SHAPE_KINDS(KIND_CASE)
      case ARB_SHAPE_NONE:
      case ARB_SHAPE_TYPE_COUNT:
        fail();
        return;
    }
    assert_true(same_aabb(arb_compute_shape_aabb(&g, xf), box));
    arb_cast_output any = arb_ray_cast_shape(&ray, &g);
    assert_int_equal(any.hit, hit.hit);
    hits += hit.hit;
    if (hit.hit) {  // field by field: the struct has padding after `hit`
      assert_memory_equal(&any.normal, &hit.normal, sizeof hit.normal);
      assert_memory_equal(&any.point, &hit.point, sizeof hit.point);
      assert_memory_equal(&any.fraction, &hit.fraction, sizeof hit.fraction);
    }
    // The extent reaches every corner of the box about the body origin, and no further
    // than the box's far corner.
    arb_aabb local = arb_compute_shape_aabb(&g, arb_transform_identity);
    float e = arb_compute_shape_extent(&g, arb_vec2_zero);
    float far = arb_length(
        arb_v2(arb_maxf(-local.lower.x, local.upper.x), arb_maxf(-local.lower.y, local.upper.y)));
    assert_true(e > 0.0f && e <= far * 1.0001f);
  }
  assert_true(hits >= 4);  // the ray crosses every kind but one-sided links from behind
}

// The outline covers exactly the shape's box: its points grown by its radius reach the
// box's sides and no further; the name is the kinds list's; a short buffer gets a prefix.
static void test_outline_of_every_kind(void** state) {
  (void)state;
  static const char* const names[] = {"none",
#define KIND_NAME(NAME, name, has_area) #name,
                                      ARB_SHAPE_KINDS(KIND_NAME)
#undef KIND_NAME
  };
  for (int k = ARB_SHAPE_NONE + 1; k < ARB_SHAPE_TYPE_COUNT; ++k) {
    arb_shape_geometry g = geometry((arb_shape_type)k);
    arb_vec2 points[ARB_MAX_OUTLINE_POINTS];
    arb_shape_outline o;
    int n = arb_compute_shape_outline(&g, &o, points, ARB_MAX_OUTLINE_POINTS);
    assert_string_equal(o.kind, names[k]);
    assert_string_equal(arb_shape_type_name(g.type), names[k]);
    assert_int_equal(n, o.count);
    assert_true(n >= 1 && o.radius >= 0.0f);
    assert_int_equal(o.has_area, arb_shape_has_area(g.type));
    arb_aabb box = {{3.4e38f, 3.4e38f}, {-3.4e38f, -3.4e38f}};
    for (int i = 0; i < n; ++i) {
      arb_vec2 r = {o.radius, o.radius};
      box.lower = arb_vmin(box.lower, arb_sub(points[i], r));
      box.upper = arb_vmax(box.upper, arb_add(points[i], r));
    }
    arb_aabb want = arb_compute_shape_aabb(&g, arb_transform_identity);
    assert_float_equal(box.lower.x, want.lower.x, 1e-5f);
    assert_float_equal(box.lower.y, want.lower.y, 1e-5f);
    assert_float_equal(box.upper.x, want.upper.x, 1e-5f);
    assert_float_equal(box.upper.y, want.upper.y, 1e-5f);
    // The count alone, and a buffer of one point: only that one written.
    arb_shape_outline c;
    assert_int_equal(arb_compute_shape_outline(&g, &c, NULL, 0), n);
    arb_vec2 two[2] = {{-9.0f, -9.0f}, {-9.0f, -9.0f}};
    assert_int_equal(arb_compute_shape_outline(&g, &c, two, 1), n);
    assert_memory_equal(&two[0], &points[0], sizeof two[0]);
    assert_true(two[1].x == -9.0f && two[1].y == -9.0f);
  }
}

static void test_unknown_kinds(void** state) {
  (void)state;
  const int bad[] = {ARB_SHAPE_NONE, ARB_SHAPE_TYPE_COUNT, ARB_SHAPE_TYPE_COUNT + 7, 0x7f};
  arb_transform xf = {{2.0f, 3.0f}, arb_rot_identity};
  arb_ray_input ray = {{-3.0f, 0.0f}, {6.0f, 0.0f}, 1.0f};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    arb_shape_def d = arb_default_body_def().shape;
    d.type = (arb_shape_type)bad[i];
    const char* why = NULL;
    assert_false(arb__validate_shape(&d, &why));
    assert_string_equal(why, "unknown shape type");
    arb_shape_geometry g = arb_shape_def_geometry(&d);
    arb_aabb box = arb_compute_shape_aabb(&g, xf);
    assert_true(box.lower.x == 2.0f && box.upper.y == 3.0f);
    assert_false(arb_ray_cast_shape(&ray, &g).hit);
    assert_true(arb_compute_shape_extent(&g, arb_vec2_zero) == 0.0f);
    assert_false(arb__shape_contains_point(&d, arb_vec2_zero));
    assert_true(arb__shape_mass(&d).mass == 0.0f);
    assert_int_equal(arb__contact_kind_order(d.type, ARB_SHAPE_CIRCLE), 0);
    assert_false(arb__contact_has_collider(d.type, ARB_SHAPE_CIRCLE));
    arb_shape_outline o;
    arb_vec2 p[1];
    assert_int_equal(arb_compute_shape_outline(&g, &o, p, 1), 0);
    assert_string_equal(o.kind, "none");
    assert_false(o.has_area);
  }
}

ARB_TEST_MAIN(cmocka_unit_test(test_contact_order_from_the_table),
              cmocka_unit_test(test_any_kind_functions_match_the_kinds),
              cmocka_unit_test(test_outline_of_every_kind), cmocka_unit_test(test_unknown_kinds))
