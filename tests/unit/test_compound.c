// Compound bodies (several shapes per body): mass, centre of mass and rotational inertia
// against hand-computed values (two boxes; a box and an offset circle; a sensor shape adds
// no mass); a table standing on two legs with an off-centre weight stays level, with a
// contact under each leg; one icy and one rough foot slide as each foot's friction says
// (both icy: it slides on); a sensor shape reports a falling ball once (begin, end) and
// does not stop it, the solid shape does; queries see every shape; continuous collision
// sweeps every shape; save/restore continues bit for bit; bad definitions are refused.
// clang-format off
#include <math.h>
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

#include "world_test_util.h"

#define DT (1.0f / 60.0f)

static arb_shape_def box_shape(float hw, float hh, float cx, float cy) {
  arb_shape_def s = arb_default_shape_def();
  s.type = ARB_SHAPE_POLYGON;
  s.polygon = arb_make_offset_box(hw, hh, arb_v2(cx, cy), arb_rot_identity);
  return s;
}

static arb_shape_def circle_shape(float r, float cx, float cy) {
  arb_shape_def s = arb_default_shape_def();
  s.type = ARB_SHAPE_CIRCLE;
  s.circle.center = arb_v2(cx, cy);
  s.circle.radius = r;
  return s;
}

static arb_body_id compound(arb_world* w, arb_body_type type, float x, float y,
                            const arb_shape_def* shapes, int n) {
  arb_body_def bd = arb_default_body_def();
  bd.type = type;
  bd.position = arb_v2(x, y);
  bd.shapes = shapes;
  bd.shape_count = n;
  return arb_body_create(w, &bd);
}

static void expect_near(double got, double want, double tol, const char* what) {
  if (fabs(got - want) > tol) fail_msg("%s: %.7g, expected %.7g", what, got, want);
}

static void test_mass_two_boxes(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  // A 2 x 1 box at the origin (mass 2) and a 1 x 1 box centred at (2, 0) (mass 1).
  arb_shape_def s[2] = {box_shape(1.0f, 0.5f, 0.0f, 0.0f), box_shape(0.5f, 0.5f, 2.0f, 0.0f)};
  arb_body_id id = compound(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, s, 2);
  assert_false(arb_body_id_is_null(id));
  assert_int_equal(arb_body_get_shape_count(w, id), 2);
  // Centre of mass x = (2*0 + 1*2) / 3; inertia = sum of m(w^2+h^2)/12 + m d^2.
  double cx = 2.0 / 3.0;
  double inertia = 2.0 * (4.0 + 1.0) / 12.0 + 1.0 * (1.0 + 1.0) / 12.0 + 2.0 * cx * cx +
                   1.0 * (2.0 - cx) * (2.0 - cx);
  expect_near(arb_body_get_mass(w, id), 3.0, 1e-5, "mass");
  expect_near(arb_body_get_world_center(w, id).x, cx, 1e-5, "centre x");
  expect_near(arb_body_get_world_center(w, id).y, 0.0, 1e-6, "centre y");
  expect_near(arb_body_get_rotational_inertia(w, id), inertia, 1e-4, "inertia");
  // The body box covers both shapes.
  arb_aabb box = arb_body_get_aabb(w, id);
  expect_near(box.lower.x, -1.0, 1e-5, "aabb lower x");
  expect_near(box.upper.x, 2.5, 1e-5, "aabb upper x");
  arb_world_destroy(w);
}

static void test_mass_box_and_circle(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  // A 2 x 2 box (density 1, mass 4) and a circle of radius 0.5 at (3, 1), density 2.
  arb_shape_def s[3] = {box_shape(1.0f, 1.0f, 0.0f, 0.0f), circle_shape(0.5f, 3.0f, 1.0f),
                        circle_shape(2.0f, -5.0f, 0.0f)};
  s[1].density = 2.0f;
  s[2].sensor = true;  // a sensor adds no mass
  s[2].density = 10.0f;
  arb_body_id id = compound(w, ARB_BODY_DYNAMIC, 1.0f, 2.0f, s, 3);
  assert_false(arb_body_id_is_null(id));
  const double pi = 3.14159265358979;
  double mb = 4.0, mc = 2.0 * pi * 0.25, m = mb + mc;
  double cx = mc * 3.0 / m, cy = mc * 1.0 / m;
  double ib = mb * (4.0 + 4.0) / 12.0, ic = 0.5 * mc * 0.25;
  double inertia =
      ib + mb * (cx * cx + cy * cy) + ic + mc * ((3.0 - cx) * (3.0 - cx) + (1.0 - cy) * (1.0 - cy));
  expect_near(arb_body_get_mass(w, id), m, 1e-4, "mass");
  expect_near(arb_body_get_world_center(w, id).x, 1.0 + cx, 1e-5, "centre x");
  expect_near(arb_body_get_world_center(w, id).y, 2.0 + cy, 1e-5, "centre y");
  expect_near(arb_body_get_rotational_inertia(w, id), inertia, 1e-3, "inertia");
  // Every shape, in order, with its own material.
  assert_int_equal(arb_body_get_shape_count(w, id), 3);
  assert_true(arb_body_get_shape_at(w, id, 1)->density == 2.0f);
  assert_true(arb_body_get_shape_at(w, id, 2)->sensor);
  assert_null(arb_body_get_shape_at(w, id, 3));
  assert_true(arb_body_get_shape(w, id) == arb_body_get_shape_at(w, id, 0));
  arb_world_destroy(w);
}

static void test_refuses_bad_defs(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_shape_def s[9];
  for (int i = 0; i < 9; ++i) s[i] = box_shape(0.5f, 0.5f, (float)i, 0.0f);
  assert_true(arb_body_id_is_null(compound(w, ARB_BODY_DYNAMIC, 0, 0, s, 9)));  // too many
  assert_false(arb_body_id_is_null(compound(w, ARB_BODY_DYNAMIC, 0, 0, s, 8)));
  arb_body_def bd = arb_default_body_def();
  bd.shape_count = 2;  // no array
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  // A segment on a dynamic body, a chain with another shape, a bad shape among good ones.
  arb_shape_def bad[2] = {box_shape(0.5f, 0.5f, 0, 0), arb_default_shape_def()};
  bad[1].type = ARB_SHAPE_SEGMENT;
  bad[1].segment = (arb_segment){{0, 0}, {1, 0}};
  assert_true(arb_body_id_is_null(compound(w, ARB_BODY_DYNAMIC, 0, 0, bad, 2)));
  assert_false(arb_body_id_is_null(compound(w, ARB_BODY_STATIC, 0, 0, bad, 2)));
  arb_vec2 pts[3] = {{0, 0}, {1, 0}, {2, 1}};
  bad[1].type = ARB_SHAPE_CHAIN;
  bad[1].chain = (arb_chain){pts, 3, false};
  assert_true(arb_body_id_is_null(compound(w, ARB_BODY_STATIC, 0, 0, bad, 2)));
  bad[1] = circle_shape(-1.0f, 0, 0);
  assert_true(arb_body_id_is_null(compound(w, ARB_BODY_STATIC, 0, 0, bad, 2)));
  arb_world_destroy(w);
}

// A table: a top, two legs and a heavy block on the right of the top (centre of mass off
// the middle but between the legs).
static arb_body_id table(arb_world* w, float x, float y) {
  arb_shape_def s[4] = {box_shape(2.0f, 0.25f, 0.0f, 1.25f), box_shape(0.25f, 0.5f, -1.75f, 0.5f),
                        box_shape(0.25f, 0.5f, 1.75f, 0.5f), box_shape(0.4f, 0.4f, 1.0f, 1.9f)};
  s[3].density = 5.0f;
  return compound(w, ARB_BODY_DYNAMIC, x, y, s, 4);
}

static void test_table_stands_on_two_legs(void** state) {
  (void)state;
  for (int sleep = 0; sleep < 2; ++sleep) {
    arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
    arb_world_enable_sleep(w, sleep != 0);
    wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
    arb_body_id t = table(w, 0.0f, 0.02f);
    assert_false(arb_body_id_is_null(t));
    for (int i = 0; i < 180; ++i) arb_world_step(w, DT);
    float angle = arb_body_get_angle(w, t);
    if (fabsf(angle) > 0.005f) fail_msg("table tilted by %g rad", (double)angle);
    expect_near(arb_body_get_position(w, t).y, 0.0, 0.02, "table height");
    expect_near(arb_body_get_position(w, t).x, 0.0, 0.01, "table drift");
    arb_contact_data cd[8];
    int n = arb_body_get_contacts(w, t, cd, 8);
    assert_int_equal(n, 2);  // one under each leg
    int legs = 0;
    for (int k = 0; k < n; ++k) {
      assert_int_equal(cd[k].point_count, 2);
      legs |= 1 << cd[k].shape;
      assert_int_equal(cd[k].other_shape, 0);
      // Normal points from the table down into the ground.
      assert_true(cd[k].normal.y < -0.99f);
    }
    assert_int_equal(legs, (1 << 1) | (1 << 2));
    arb_world_destroy(w);
  }
}

// Two feet 3 m apart sliding at 3 m/s on a rough floor: how far it goes in 4 s.
static float slide(float friction_left, float friction_right) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_world_enable_sleep(w, false);
  arb_body_id floor = wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 50.0f, 0.5f);
  (void)floor;
  arb_shape_def s[3] = {box_shape(0.25f, 0.25f, -1.5f, 0.25f), box_shape(0.25f, 0.25f, 1.5f, 0.25f),
                        box_shape(1.5f, 0.1f, 0.0f, 0.6f)};
  s[0].friction = friction_left;
  s[1].friction = friction_right;
  arb_body_id b = compound(w, ARB_BODY_DYNAMIC, 0.0f, 0.0f, s, 3);
  for (int i = 0; i < 10; ++i) arb_world_step(w, DT);
  arb_body_set_linear_velocity(w, b, arb_v2(3.0f, 0.0f));
  float x0 = arb_body_get_position(w, b).x;
  for (int i = 0; i < 240; ++i) arb_world_step(w, DT);
  float d = arb_body_get_position(w, b).x - x0;
  arb_world_destroy(w);
  return d;
}

static void test_friction_per_shape(void** state) {
  (void)state;
  // Rough (1) under both feet: mu*g = 10 m/s^2 stops it in v^2/(2*10) = 0.45 m (the soft
  // contacts let it slide a little further). One icy foot (0) carries about half the
  // weight without friction: about twice as far (the front foot carries more while it
  // brakes). Both icy: 3 m/s for 4 s, 12 m. One friction for the whole body would give
  // either the rough or the icy distance.
  float both = slide(1.0f, 1.0f), left_icy = slide(0.0f, 1.0f), right_icy = slide(1.0f, 0.0f);
  float none = slide(0.0f, 0.0f);
  printf("slide: rough %.3f, left icy %.3f, right icy %.3f, icy %.3f m\n", (double)both,
         (double)left_icy, (double)right_icy, (double)none);
  assert_true(both > 0.4f && both < 0.7f);
  assert_true(left_icy > 1.5f * both && left_icy < 3.0f * both);
  assert_true(right_icy > 1.5f * both && right_icy < 3.0f * both);
  expect_near(none, 12.0, 0.2, "both icy");
}

static void test_sensor_shape(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_world_enable_sleep(w, false);
  // A static pedestal (box, top at y = 0.5) with a sensor ring of radius 0.8 at y = 3.
  arb_shape_def s[2] = {box_shape(1.0f, 0.5f, 0.0f, 0.0f), circle_shape(0.8f, 0.0f, 3.0f)};
  s[1].sensor = true;
  arb_body_id ped = compound(w, ARB_BODY_STATIC, 0.0f, 0.0f, s, 2);
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(0.0f, 5.0f);
  bd.shape = circle_shape(0.25f, 0.0f, 0.0f);
  arb_body_id ball = arb_body_create(w, &bd);
  int begins = 0, ends = 0, inside_steps = 0;
  for (int i = 0; i < 180; ++i) {
    arb_world_step(w, DT);
    const arb_sensor_event* ev;
    int nb = arb_world_get_sensor_begin_events(w, &ev);
    for (int k = 0; k < nb; ++k) {
      assert_true(arb_body_id_equals(ev[k].sensor, ped) && arb_body_id_equals(ev[k].visitor, ball));
      begins += 1;
    }
    int ne = arb_world_get_sensor_end_events(w, &ev);
    for (int k = 0; k < ne; ++k) ends += 1;
    arb_body_id seen[2];
    if (arb_sensor_get_overlaps(w, ped, seen, 2) == 1) {
      inside_steps += 1;
      // Passing through the sensor: falling freely (no contact slows it).
      assert_true(arb_body_get_linear_velocity(w, ball).y < -3.0f);
      assert_int_equal(arb_body_get_contacts(w, ball, NULL, 0), 0);
    }
  }
  assert_int_equal(begins, 1);
  assert_int_equal(ends, 1);
  assert_true(inside_steps > 3);
  // It rests on the solid shape.
  expect_near(arb_body_get_position(w, ball).y, 0.75, 0.02, "ball on the pedestal");
  arb_contact_data cd[2];
  assert_int_equal(arb_body_get_contacts(w, ball, cd, 2), 1);
  assert_int_equal(cd[0].other_shape, 0);
  arb_world_destroy(w);
}

static void test_queries_see_every_shape(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_shape_def s[3] = {box_shape(0.5f, 0.5f, 0.0f, 0.0f), circle_shape(0.5f, 4.0f, 0.0f),
                        circle_shape(0.5f, 2.0f, 0.0f)};
  s[2].sensor = true;
  s[1].category_bits = 2u;
  arb_body_id id = compound(w, ARB_BODY_STATIC, 0.0f, 0.0f, s, 3);
  // A ray along x from the right hits the circle (shape 1), not the box behind it.
  arb_ray_result r = arb_world_cast_ray(w, arb_v2(10.0f, 0.0f), arb_v2(-20.0f, 0.0f));
  assert_true(arb_body_id_equals(r.body, id));
  expect_near(r.point.x, 4.5, 1e-4, "ray hits the circle");
  // Rays pass through the sensor shape: from x = 3 leftwards the box is hit.
  r = arb_world_cast_ray(w, arb_v2(3.0f, 0.0f), arb_v2(-10.0f, 0.0f));
  expect_near(r.point.x, 0.5, 1e-4, "ray passes the sensor");
  // A filter that does not see category 2 misses the circle and hits the box.
  arb_query_filter f = arb_default_query_filter();
  f.mask_bits = 1u;
  arb_ray_hit hit;
  assert_true(arb_world_ray_cast_closest(w, arb_v2(10.0f, 0.0f), arb_v2(-20.0f, 0.0f), f, &hit));
  expect_near(hit.point.x, 0.5, 1e-4, "filtered ray hits the box");
  // Point queries see every solid shape.
  arb_body_id out[2];
  assert_int_equal(arb_world_query_point(w, arb_v2(4.1f, 0.1f), arb_default_query_filter(), out, 2),
                   1);
  assert_int_equal(arb_world_query_point(w, arb_v2(2.9f, 0.0f), arb_default_query_filter(), out, 2),
                   0);
  arb_world_destroy(w);
}

// A fast compound body whose second shape alone meets a thin wall (its first passes above
// the wall's end): continuous collision sweeps every shape, so it stops at the wall; with
// continuous collision off the same shot passes through (the test can fail).
static float shot_through_wall(bool continuous) {
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, 0.0f);
  wd.enable_continuous = continuous;
  arb_world* w = arb_world_create(&wd);
  wt_box(w, ARB_BODY_STATIC, 10.0f, 0.0f, 0.05f, 0.5f);
  arb_shape_def s[2] = {box_shape(0.2f, 0.2f, -1.0f, 3.0f), circle_shape(0.2f, 1.0f, 0.0f)};
  arb_body_def bd = arb_default_body_def();
  bd.shapes = s;
  bd.shape_count = 2;
  bd.linear_velocity = arb_v2(300.0f, 0.0f);
  bd.fixed_rotation = true;  // hit off its centre of mass, it would turn round the wall's end
  arb_body_id id = arb_body_create(w, &bd);
  for (int i = 0; i < 30; ++i) arb_world_step(w, DT);
  float x = arb_body_get_position(w, id).x;
  arb_world_destroy(w);
  return x;
}

static void test_continuous_sweeps_every_shape(void** state) {
  (void)state;
  float stopped = shot_through_wall(true), passed = shot_through_wall(false);
  printf("shot: continuous %.3f m, discrete %.3f m\n", (double)stopped, (double)passed);
  // The circle (at body x + 1) ends on the near side of the wall (x = 9.95).
  assert_true(stopped + 1.0f < 9.95f);
  assert_true(passed > 20.0f);
}

static arb_world* compound_scene(void) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  arb_shape_def ped[2] = {box_shape(1.0f, 0.5f, 0.0f, 0.0f), circle_shape(0.8f, 0.0f, 3.0f)};
  ped[1].sensor = true;
  compound(w, ARB_BODY_STATIC, 8.0f, 0.5f, ped, 2);
  for (int i = 0; i < 4; ++i) table(w, -8.0f + 4.5f * (float)i, 0.5f + 2.6f * (float)(i % 2));
  arb_shape_def hammer[2] = {box_shape(0.1f, 1.0f, 0.0f, 0.0f), box_shape(0.4f, 0.2f, 0.0f, 1.1f)};
  hammer[1].density = 4.0f;
  hammer[1].restitution = 0.3f;
  for (int i = 0; i < 3; ++i) {
    arb_body_def bd = arb_default_body_def();
    bd.position = arb_v2(-7.0f + 5.0f * (float)i, 6.0f);
    bd.angle = 0.3f * (float)i;
    bd.angular_velocity = 2.0f;
    bd.shapes = hammer;
    bd.shape_count = 2;
    arb_body_create(w, &bd);
  }
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(8.0f, 6.0f);
  bd.shape = circle_shape(0.25f, 0.0f, 0.0f);
  arb_body_create(w, &bd);
  return w;
}

static void test_save_restore_bit_exact(void** state) {
  (void)state;
  arb_world* a = compound_scene();
  for (int i = 0; i < 45; ++i) arb_world_step(a, DT);
  int size;
  uint8_t* image = wt_save(a, &size);
  for (int i = 0; i < 120; ++i) arb_world_step(a, DT);
  uint64_t want = arb_world_hash(a);
  // Restored into a fresh world and into the same one: the same steps, the same bits.
  arb_world* b = wt_world(arb_v2(0.0f, 0.0f));
  assert_int_equal(arb_world_restore(b, image, size), 0);
  int size_b;
  uint8_t* image_b = wt_save(b, &size_b);
  assert_int_equal(size_b, size);
  assert_memory_equal(image_b, image, (size_t)size);
  for (int i = 0; i < 120; ++i) arb_world_step(b, DT);
  assert_true(arb_world_hash(b) == want);
  assert_int_equal(arb_world_restore(a, image, size), 0);
  for (int i = 0; i < 120; ++i) arb_world_step(a, DT);
  assert_true(arb_world_hash(a) == want);
  // Every truncation of the image is refused, without leaks (asan) or crashes.
  for (int cut = 20; cut < size; cut += 7) assert_true(arb_world_restore(b, image, cut) != 0);
  free(image_b);
  free(image);
  arb_world_destroy(a);
  arb_world_destroy(b);
}

static void test_contact_events_name_shapes(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  arb_body_id t = table(w, 0.0f, 0.3f);
  arb_contact_event ev[16];
  int n = wt_step_begin_touches(w, 60, DT, ev, 16);
  int legs = 0;
  for (int k = 0; k < n; ++k) {
    bool table_a = arb_body_id_equals(ev[k].a, t);
    legs |= 1 << (table_a ? ev[k].shape_a : ev[k].shape_b);
  }
  assert_int_equal(legs, (1 << 1) | (1 << 2));
  arb_world_destroy(w);
}

// A static ring of eight walls around a box resting on the lowest one: the box pairs with
// the walls whose own boxes it comes near, not with every wall of the ring (one proxy
// holds the whole ring, so before shapes were paired by their own boxes it had 8).
static void test_far_shapes_have_no_contact(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_shape_def walls[8];
  for (int k = 0; k < 8; ++k) {
    float a = -0.5f * 3.14159265f + 0.78539816f * (float)k;  // k = 0: the floor
    walls[k] = arb_default_shape_def();
    walls[k].type = ARB_SHAPE_POLYGON;
    walls[k].polygon = arb_make_offset_box(0.3f, 3.2f, arb_v2(8.0f * cosf(a), 8.0f * sinf(a)),
                                           arb_rot_from_angle(a));
  }
  compound(w, ARB_BODY_STATIC, 0.0f, 0.0f, walls, 8);
  arb_body_id box = wt_box(w, ARB_BODY_DYNAMIC, 0.0f, -6.5f, 0.5f, 0.5f);
  for (int i = 0; i < 120; ++i) arb_world_step(w, DT);
  arb_world_counters c = arb_world_get_counters(w);
  printf("box on the floor of a ring of 8 walls: %d contacts, %d touching, y %.3f\n",
         c.contact_count, c.touching_count, (double)arb_body_get_position(w, box).y);
  assert_int_equal(c.touching_count, 1);
  assert_int_equal(c.contact_count, 1);
  expect_near(arb_body_get_position(w, box).y, -7.2, 0.02, "box rests on the floor");
  arb_world_destroy(w);
}

// A turning kinematic compound (a bar through its centre and a sensor disc that keeps its
// box the same as it turns) sweeps into a ball at rest: neither proxy moves, so only the
// compound's own query each step finds the pair. The ball is struck and carried round,
// never passed through.
static void test_turning_compound_finds_resting_ball(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_shape_def s[2] = {box_shape(4.5f, 0.2f, 0.0f, 0.0f), circle_shape(7.0f, 0.0f, 0.0f)};
  s[1].sensor = true;
  arb_body_id arm = compound(w, ARB_BODY_KINEMATIC, 0.0f, 0.0f, s, 2);
  arb_body_set_angular_velocity(w, arm, 1.0f);
  arb_body_id ball = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 3.0f, 0.3f);
  float closest = 1e9f;
  for (int i = 0; i < 150; ++i) {
    arb_world_step(w, DT);
    // The ball's centre in the bar's frame.
    float turn = arb_body_get_angle(w, arm);
    arb_vec2 origin = arb_body_get_position(w, arm);
    arb_vec2 p = arb_sub(arb_body_get_position(w, ball), origin);
    float along = p.x * cosf(turn) + p.y * sinf(turn);
    float across = -p.x * sinf(turn) + p.y * cosf(turn);
    if (fabsf(along) < 4.5f && fabsf(across) < closest) closest = fabsf(across);
  }
  arb_vec2 v = arb_body_get_linear_velocity(w, ball);
  printf("ball: closest to the bar's centre line %.3f m, speed %.3f m/s\n", (double)closest,
         (double)sqrtf(v.x * v.x + v.y * v.y));
  assert_true(closest > 0.2f + 0.3f - 0.02f);  // touched, never went into the bar
  assert_true(sqrtf(v.x * v.x + v.y * v.y) > 1.0f);
  arb_world_destroy(w);
}

// The step query of a turning compound goes shape by shape: each arm of a two-armed
// rotor (its shapes 1 and 2; shape 0 is a small hub that never reaches a ball) must find
// the ball resting in its path and knock it away. A sensor circle around it all keeps the
// rotor's proxy still, so only that query can find the arms' pairs.
static void test_each_arm_of_a_rotor_strikes(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  arb_shape_def s[4] = {circle_shape(0.3f, 0.0f, 0.0f), box_shape(2.5f, 0.2f, 3.0f, 0.0f),
                        box_shape(2.5f, 0.2f, -3.0f, 0.0f), circle_shape(6.0f, 0.0f, 0.0f)};
  s[3].sensor = true;
  arb_body_id rotor = compound(w, ARB_BODY_KINEMATIC, 0.0f, 0.0f, s, 4);
  arb_body_set_angular_velocity(w, rotor, 1.0f);
  arb_body_id up = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, 3.0f, 0.3f);
  arb_body_id down = wt_circle(w, ARB_BODY_DYNAMIC, 0.0f, -3.0f, 0.3f);
  for (int i = 0; i < 150; ++i) arb_world_step(w, DT);  // a quarter turn takes 94 steps
  arb_vec2 vu = arb_body_get_linear_velocity(w, up), vd = arb_body_get_linear_velocity(w, down);
  printf("struck by arm 1: %.3f m/s, by arm 2: %.3f m/s\n", (double)arb_length(vu),
         (double)arb_length(vd));
  assert_true(arb_length(vu) > 1.0f);
  assert_true(arb_length(vd) > 1.0f);
  arb_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mass_two_boxes),
      cmocka_unit_test(test_mass_box_and_circle),
      cmocka_unit_test(test_refuses_bad_defs),
      cmocka_unit_test(test_table_stands_on_two_legs),
      cmocka_unit_test(test_friction_per_shape),
      cmocka_unit_test(test_sensor_shape),
      cmocka_unit_test(test_queries_see_every_shape),
      cmocka_unit_test(test_continuous_sweeps_every_shape),
      cmocka_unit_test(test_save_restore_bit_exact),
      cmocka_unit_test(test_contact_events_name_shapes),
      cmocka_unit_test(test_far_shapes_have_no_contact),
      cmocka_unit_test(test_turning_compound_finds_resting_ball),
      cmocka_unit_test(test_each_arm_of_a_rotor_strikes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
