// Chain shapes in a world: a box, a circle and a capsule sliding along a flat chain of
// many links keep their speed across the inner vertices (the same points as separate
// segment bodies catch the box: the test can fail); a ball and a box pass through a chain
// from behind and a ball rests on its front; a ball and a box rest in a V (a concave
// corner); a rising kinematic chain lifts a box; a 0.1 m ball at 25, 100 and 400 m/s never passes
// through a chain wall (several angles, aimed at a link and at a joint); rays are one-sided;
// save/restore continues bit for bit; bad chains and chains on dynamic bodies or as
// sensors are refused; the world keeps its own copy of the points and frees it; the link
// tree of a world's chain finds exactly the links a scan finds, in link order, after
// creation and after a restore, and a chain's manifold is the same with and without it.
// cmocka.h needs these first
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

#include "chain.h"     // shared/src: the link tree
#include "manifold.h"  // shared/src: the manifold with a link tree
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

// A flat ground chain at y = 0 from x = -30 to 30, one link per metre, listed left to
// right (front up).
static arb_vec2 ground[61];

static arb_body_def chain_def(const arb_vec2* points, int count, bool loop) {
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_CHAIN;
  bd.shape.chain.points = points;
  bd.shape.chain.count = count;
  bd.shape.chain.loop = loop;
  bd.shape.friction = 0.0f;
  return bd;
}

static arb_body_id make_ground(arb_world* w, bool as_segments) {
  for (int i = 0; i < 61; ++i) ground[i] = arb_v2((float)(i - 30), 0.0f);
  if (!as_segments) {
    arb_body_def bd = chain_def(ground, 61, false);
    return arb_body_create(w, &bd);
  }
  arb_body_id id = arb_null_body_id;
  for (int i = 0; i < 60; ++i) {
    id = wt_segment(w, ground[i].x, ground[i].y, ground[i + 1].x, ground[i + 1].y);
  }
  return id;
}

enum { SLIDE_BOX, SLIDE_CIRCLE, SLIDE_CAPSULE };

// A frictionless body sliding right at 4 m/s over the ground for 3 s: the slowest
// horizontal speed it had after the first step.
static float slide(int kind, bool as_segments) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  make_ground(w, as_segments);
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(-20.3f, 0.25f);
  bd.linear_velocity = arb_v2(4.0f, 0.0f);
  bd.fixed_rotation = kind != SLIDE_CIRCLE;
  bd.shape.friction = 0.0f;
  if (kind == SLIDE_BOX) {
    bd.shape.type = ARB_SHAPE_POLYGON;
    bd.shape.polygon = arb_make_box(0.25f, 0.25f);
  } else if (kind == SLIDE_CIRCLE) {
    bd.shape.type = ARB_SHAPE_CIRCLE;
    bd.shape.circle.radius = 0.25f;
  } else {
    bd.shape.type = ARB_SHAPE_CAPSULE;
    bd.shape.capsule = (arb_capsule){{-0.3f, 0.0f}, {0.3f, 0.0f}, 0.25f};
  }
  arb_body_id id = arb_body_create(w, &bd);
  assert_false(arb_body_id_is_null(id));
  float slowest = 1e9f;
  for (int s = 0; s < 180; ++s) {
    arb_world_step(w, DT);
    if (s > 0) slowest = fminf(slowest, arb_body_get_linear_velocity(w, id).x);
  }
  assert_true(arb_body_get_position(w, id).y > 0.2f);  // still on top
  arb_world_destroy(w);
  return slowest;
}

static void test_slides_without_catching(void** state) {
  (void)state;
  for (int kind = SLIDE_BOX; kind <= SLIDE_CAPSULE; ++kind) {
    float v = slide(kind, false);
    print_message("shape %d on the chain: slowest %g m/s\n", kind, (double)v);
    if (v < 3.99f) fail_msg("shape %d slowed to %g m/s on the chain", kind, (double)v);
  }
  // The same points as separate two-sided segments: the box catches on the vertices.
  float v = slide(SLIDE_BOX, true);
  print_message("box on separate segments: slowest %g m/s\n", (double)v);
  if (v > 3.5f) fail_msg("the box did not catch on separate segments (slowest %g)", (double)v);
}

// A ball moving up through the ground from below passes; dropped on it, it rests.
static void test_one_sided(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, 0.0f));
  make_ground(w, false);
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(0.5f, -1.0f);
  bd.linear_velocity = arb_v2(0.0f, 5.0f);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.2f;
  arb_body_id up = arb_body_create(w, &bd);
  arb_body_def box = box_body_def(ARB_BODY_DYNAMIC, 3.5f, -1.0f, 0.3f, 0.3f);
  box.linear_velocity = arb_v2(0.0f, 5.0f);
  arb_body_id box_up = arb_body_create(w, &box);
  for (int s = 0; s < 60; ++s) arb_world_step(w, DT);
  assert_true(arb_body_get_position(w, up).y > 3.0f);
  assert_true(arb_body_get_position(w, box_up).y > 3.0f);
  arb_world_destroy(w);

  w = wt_world(arb_v2(0.0f, -10.0f));
  make_ground(w, false);
  bd.position = arb_v2(0.0f, 2.0f);  // right above an inner vertex
  bd.linear_velocity = arb_v2(0.0f, 0.0f);
  arb_body_id down = arb_body_create(w, &bd);
  for (int s = 0; s < 120; ++s) arb_world_step(w, DT);
  arb_vec2 p = arb_body_get_position(w, down);
  assert_true(fabsf(p.y - 0.2f) < 0.01f && fabsf(p.x) < 1e-3f);
  arb_world_destroy(w);
}

// A wall at x = 5 from y = -40 to 40, one link per 2 m, listed bottom to top so its
// front faces -x. A 0.1 m ball shot at it from x = 0: the largest x its centre reached.
static float shoot(float speed, float angle, float aim_y, bool continuous) {
  arb_world* w = wt_world_continuous(continuous, arb_v2(0.0f, 0.0f));
  arb_vec2 wall[41];
  for (int i = 0; i < 41; ++i) wall[i] = arb_v2(5.0f, (float)(2 * i - 40));
  arb_body_def cd = chain_def(wall, 41, false);
  arb_body_create(w, &cd);
  arb_body_def bd = arb_default_body_def();
  bd.position = arb_v2(0.0f, aim_y - 5.0f * tanf(angle));
  bd.linear_velocity = arb_v2(speed * cosf(angle), speed * sinf(angle));
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.05f;
  return wt_shot_max_x(w, arb_body_create(w, &bd), DT);
}

static void test_fast_ball_does_not_tunnel(void** state) {
  (void)state;
  const float speeds[3] = {25.0f, 100.0f, 400.0f};
  const float angles[4] = {0.0f, 0.3f, -0.6f, 1.0f};
  const float aims[2] = {1.0f, 2.0f};  // the middle of a link, a joint of two links
  for (int s = 0; s < 3; ++s) {
    for (int a = 0; a < 4; ++a) {
      for (int k = 0; k < 2; ++k) {
        float x = shoot(speeds[s], angles[a], aims[k], true);
        if (x > 5.0f) {
          fail_msg("%g m/s at %g rad reached x = %g (wall at 5)", (double)speeds[s],
                   (double)angles[a], (double)x);
        }
      }
    }
  }
  // Without continuous collision the same shot passes: the test can fail.
  assert_true(shoot(400.0f, 0.0f, 1.0f, false) > 5.0f);
}

// A ball, and in another world a box, dropped into a right-angled V (two links, a concave
// corner) come to rest in it touching both sides: the ball's centre on the axis at
// r * sqrt(2) above the corner; the box wedged on the axis between corner down (h *
// sqrt(2)) and flat bottom (2 h) (friction on both walls holds it at some angle between).
static void test_rests_in_v(void** state) {
  (void)state;
  static const arb_vec2 v[3] = {{-3.0f, 3.0f}, {0.0f, 0.0f}, {3.0f, 3.0f}};
  for (int kind = 0; kind < 2; ++kind) {
    arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
    arb_world_enable_sleep(w, false);
    arb_body_def cd = chain_def(v, 3, false);
    cd.shape.friction = 0.6f;
    arb_body_create(w, &cd);
    arb_body_id id = kind == 0 ? wt_circle(w, ARB_BODY_DYNAMIC, 0.7f, 3.0f, 0.3f)
                               : wt_box(w, ARB_BODY_DYNAMIC, -0.3f, 3.0f, 0.2f, 0.2f);
    for (int s = 0; s < 300; ++s) arb_world_step(w, DT);
    float worst = 0.0f;
    for (int s = 0; s < 120; ++s) {
      arb_world_step(w, DT);
      worst = fmaxf(worst, arb_length(arb_body_get_linear_velocity(w, id)));
    }
    arb_vec2 p = arb_body_get_position(w, id);
    float expect = (kind == 0 ? 0.3f : 0.2f) * sqrtf(2.0f);
    print_message("in the V (%s): (%g, %g) angle %g, fastest %g m/s\n", kind == 0 ? "ball" : "box",
                  (double)p.x, (double)p.y, (double)arb_body_get_angle(w, id), (double)worst);
    if (worst > 0.01f) fail_msg("still moving in the V: %g m/s", (double)worst);
    assert_true(fabsf(p.x) < 0.01f);
    if (kind == 0) assert_true(fabsf(p.y - expect) < 0.005f);
    if (kind == 1) assert_true(p.y > expect - 0.005f && p.y < 0.4f + 0.005f);
    arb_world_destroy(w);
  }
}

// A kinematic chain rising at 1 m/s lifts the box resting on it (and the box keeps its
// place along it).
static void test_kinematic_chain_lifts(void** state) {
  (void)state;
  static const arb_vec2 lift[4] = {{-3.0f, 0.0f}, {-1.0f, 0.0f}, {1.0f, 0.0f}, {3.0f, 0.0f}};
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_def cd = chain_def(lift, 4, false);
  cd.type = ARB_BODY_KINEMATIC;
  cd.linear_velocity = arb_v2(0.0f, 1.0f);
  arb_body_id platform = arb_body_create(w, &cd);
  arb_body_id box = wt_box(w, ARB_BODY_DYNAMIC, -1.0f, 0.3f, 0.3f, 0.3f);
  for (int s = 0; s < 120; ++s) arb_world_step(w, DT);
  float top = arb_body_get_position(w, platform).y;
  arb_vec2 p = arb_body_get_position(w, box);
  assert_true(fabsf(top - 2.0f) < 1e-3f);
  assert_true(fabsf(p.y - (top + 0.3f)) < 0.02f && fabsf(p.x + 1.0f) < 0.01f);
  arb_world_destroy(w);
}

// Rays hit the front and pass through from behind.
static void test_ray_one_sided(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_id g = make_ground(w, false);
  arb_ray_result r = arb_world_cast_ray(w, arb_v2(0.5f, 2.0f), arb_v2(0.0f, -4.0f));
  assert_true(arb_body_id_equals(r.body, g));
  assert_true(fabsf(r.fraction - 0.5f) < 1e-5f && r.normal.y > 0.99f);
  r = arb_world_cast_ray(w, arb_v2(0.5f, -2.0f), arb_v2(0.0f, 4.0f));
  assert_true(arb_body_id_is_null(r.body));
  arb_world_destroy(w);
}

// A valley of three links with boxes and balls rolling in it, and a closed loop (listed
// clockwise: solid inside) with a ball resting on top: save after 30 steps, restore, and
// the next 90 steps give the same hashes as the uninterrupted run, in the same world and
// in a fresh one.
static arb_world* valley_world(void) {
  static const arb_vec2 valley[4] = {{-6.0f, 4.0f}, {-2.0f, 0.0f}, {2.0f, 0.0f}, {6.0f, 4.0f}};
  static const arb_vec2 rock[4] = {{10.0f, 0.0f}, {10.0f, 2.0f}, {12.0f, 2.0f}, {12.0f, 0.0f}};
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_def cd = chain_def(valley, 4, false);
  cd.shape.friction = 0.6f;
  arb_body_create(w, &cd);
  cd = chain_def(rock, 4, true);
  arb_body_create(w, &cd);
  for (int i = 0; i < 4; ++i) {
    wt_box(w, ARB_BODY_DYNAMIC, -4.0f + 0.7f * (float)i, 5.0f + (float)i, 0.25f, 0.25f);
    wt_circle(w, ARB_BODY_DYNAMIC, 3.0f - 0.9f * (float)i, 6.0f + (float)i, 0.2f);
  }
  wt_circle(w, ARB_BODY_DYNAMIC, 11.0f, 3.0f, 0.3f);
  return w;
}

static void test_save_restore_bit_exact(void** state) {
  (void)state;
  arb_world* w = valley_world();
  for (int s = 0; s < 30; ++s) arb_world_step(w, DT);
  int size = 0;
  uint8_t* image = wt_save(w, &size);
  uint64_t hashes[90];
  for (int s = 0; s < 90; ++s) {
    arb_world_step(w, DT);
    hashes[s] = arb_world_hash(w);
  }
  for (int run = 0; run < 2; ++run) {
    arb_world* r = run == 0 ? w : wt_world(arb_v2(0.0f, -10.0f));
    assert_int_equal(arb_world_restore(r, image, size), 0);
    for (int s = 0; s < 90; ++s) {
      arb_world_step(r, DT);
      assert_true(arb_world_hash(r) == hashes[s]);
    }
    if (r != w) arb_world_destroy(r);
  }
  // The ball on the loop rests on its top, and nothing fell through the valley.
  arb_body_id ids[16];
  int n = arb_world_get_bodies(w, ids, 16);
  for (int i = 0; i < n; ++i) {
    if (arb_body_get_type(w, ids[i]) != ARB_BODY_DYNAMIC) continue;
    arb_vec2 p = arb_body_get_position(w, ids[i]);
    assert_true(p.y > -0.01f);
    if (p.x > 9.0f) assert_true(fabsf(p.y - 2.3f) < 0.02f);
  }
  // A cut image is refused (the chain's points are bounded by the bytes present).
  assert_true(arb_world_restore(w, image, size - 9) != 0);
  free(image);
  arb_world_destroy(w);
}

static void test_refused(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_vec2 pts[ARB_MAX_CHAIN_POINTS + 1];
  for (int i = 0; i <= ARB_MAX_CHAIN_POINTS; ++i) pts[i] = arb_v2((float)i, 0.0f);
  arb_body_def bd = chain_def(pts, 3, false);
  const char* why = NULL;
  assert_true(arb_validate_chain(&bd.shape.chain, &why));
  bd.type = ARB_BODY_DYNAMIC;  // no area, no mass
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.type = ARB_BODY_KINEMATIC;
  assert_false(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.shape.sensor = true;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.shape.sensor = false;
  bd.shape.chain.count = ARB_MAX_CHAIN_POINTS + 1;
  assert_false(arb_validate_chain(&bd.shape.chain, &why));
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.shape.chain.count = 1;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.shape.chain.count = 2;
  bd.shape.chain.loop = true;  // a loop needs three points
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.shape.chain.loop = false;
  pts[1] = pts[0];  // a zero-length link
  assert_false(arb_validate_chain(&bd.shape.chain, &why));
  assert_non_null(why);
  pts[1] = arb_v2(NAN, 0.0f);
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  bd.shape.chain.points = NULL;
  assert_true(arb_body_id_is_null(arb_body_create(w, &bd)));
  arb_world_destroy(w);
}

// The world copies the points (the caller's array may change or go away) and frees them
// with the body.
static void test_points_owned_by_world(void** state) {
  (void)state;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_vec2 pts[3] = {{-1.0f, 0.0f}, {0.0f, 0.0f}, {1.0f, 0.0f}};
  arb_body_def bd = chain_def(pts, 3, false);
  arb_body_id id = arb_body_create(w, &bd);
  pts[1] = arb_v2(0.0f, 5.0f);
  const arb_shape_def* s = arb_body_get_shape(w, id);
  assert_true(s->type == ARB_SHAPE_CHAIN && s->chain.count == 3);
  assert_true(s->chain.points != pts && s->chain.points[1].y == 0.0f);
  int64_t created = arb_world_get_byte_count(w);
  arb_body_destroy(w, id);
  int64_t destroyed = arb_world_get_byte_count(w);
  assert_true(created - destroyed >= (int64_t)sizeof pts);  // the copy (and its header)
  for (int k = 0; k < 3; ++k) {  // the same again: nothing else grows or stays behind
    id = arb_body_create(w, &bd);
    assert_true(arb_world_get_byte_count(w) == created);
    arb_body_destroy(w, id);
    assert_true(arb_world_get_byte_count(w) == destroyed);
  }
  arb_world_destroy(w);
}

static uint32_t rng_state = 12345u;
static float rnd(float lo, float hi) {  // xorshift32: the same numbers on every machine
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return lo + (hi - lo) * (float)(rng_state >> 8) / 16777216.0f;
}

// A random chain: a walk of count points with steps of 0.2-3 m (a loop too).
static void random_chain(arb_vec2* pts, int count) {
  arb_vec2 p = arb_v2(rnd(-20.0f, 20.0f), rnd(-20.0f, 20.0f));
  float heading = rnd(0.0f, 6.28f);
  for (int i = 0; i < count; ++i) {
    pts[i] = p;
    heading += rnd(-0.6f, 0.6f);
    float step = rnd(0.2f, 3.0f);
    p = arb_add(p, arb_v2(step * cosf(heading), step * sinf(heading)));
  }
}

// The links near a box with the chain's tree, against the scan of every link: the same
// links in the same order (a fresh box per query, from a point to most of the chain).
static void expect_links_match(const arb_chain* c, const arb_aabb* tree, int queries) {
  int with[ARB_MAX_CHAIN_POINTS], scan[ARB_MAX_CHAIN_POINTS];
  arb_aabb all = arb_compute_chain_aabb(c, arb_transform_identity);
  int found = 0;
  for (int q = 0; q < queries; ++q) {
    arb_vec2 centre = arb_v2(rnd(all.lower.x - 2.0f, all.upper.x + 2.0f),
                             rnd(all.lower.y - 2.0f, all.upper.y + 2.0f));
    float hw = q % 4 == 0 ? 0.0f : rnd(0.0f, q % 4 == 3 ? 40.0f : 2.0f);
    arb_aabb box = {arb_sub(centre, arb_v2(hw, hw)), arb_add(centre, arb_v2(hw, hw))};
    if (q % 7 == 0) box.lower = box.upper = c->points[q % c->count];  // a vertex exactly
    int n = arb__chain_links_near(c, tree, box, with);
    int m = arb__chain_links_near(c, NULL, box, scan);
    assert_int_equal(n, m);
    for (int k = 0; k < n; ++k) assert_int_equal(with[k], scan[k]);
    found += n;
  }
  assert_true(found > 0);  // the queries do reach links
}

static void test_link_tree_finds_what_a_scan_finds(void** state) {
  (void)state;
  static arb_vec2 pts[ARB_MAX_CHAIN_POINTS];
  const int counts[] = {2, 3, 4, 5, 8, 9, 17, 100, 255, 256, 257, 360, ARB_MAX_CHAIN_POINTS};
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
    for (int loop = 0; loop < 2; ++loop) {
      int count = counts[i];
      if (loop && count < 3) continue;
      random_chain(pts, count);
      arb_chain c = {pts, count, loop != 0};
      // A tree of its own, sized and built as a world does it.
      arb_vec2* copy = malloc(arb__chain_points_size(count, c.loop));
      assert_non_null(copy);
      memcpy(copy, pts, (size_t)count * sizeof *pts);
      arb__chain_build_tree(copy, count, c.loop);
      arb_chain own = {copy, count, c.loop};
      expect_links_match(&own, arb__chain_tree(&own), 200);
      free(copy);
      // The world's copy (a walk may cross itself: the chain is still valid geometry).
      arb_body_def bd = chain_def(pts, count, c.loop);
      arb_body_id id = arb_body_create(w, &bd);
      if (arb_body_is_valid(w, id)) {
        const arb_shape_def* s = arb_body_get_shape(w, id);
        expect_links_match(&s->chain, arb__chain_tree(&s->chain), 200);
      }
    }
  }
  // After a restore: the tree is rebuilt from the image's points.
  int size = 0;
  uint8_t* image = wt_save(w, &size);
  arb_world* r = wt_world(arb_v2(0.0f, -10.0f));
  assert_int_equal(arb_world_restore(r, image, size), 0);
  arb_body_id ids[64];
  int n = arb_world_get_bodies(r, ids, 64);
  assert_true(n > 20);
  for (int i = 0; i < n; ++i) {
    const arb_shape_def* s = arb_body_get_shape(r, ids[i]);
    expect_links_match(&s->chain, arb__chain_tree(&s->chain), 50);
  }
  free(image);
  arb_world_destroy(r);
  arb_world_destroy(w);
}

// Field by field, bit for bit (a memcmp of the structs would read their padding).
static bool same_bits(float x, float y) {
  return memcmp(&x, &y, sizeof x) == 0;
}
static bool same_vec(arb_vec2 u, arb_vec2 v) {
  return same_bits(u.x, v.x) && same_bits(u.y, v.y);
}
static bool same_manifold(arb_manifold a, arb_manifold b) {
  if (a.point_count != b.point_count || !same_vec(a.normal, b.normal)) return false;
  for (int k = 0; k < a.point_count; ++k) {
    const arb_manifold_point *p = &a.points[k], *q = &b.points[k];
    if (!same_vec(p->point, q->point) || !same_vec(p->anchor_a, q->anchor_a) ||
        !same_vec(p->anchor_b, q->anchor_b) || !same_bits(p->separation, q->separation) ||
        !same_bits(p->normal_impulse, q->normal_impulse) ||
        !same_bits(p->tangent_impulse, q->tangent_impulse) || p->id != q->id)
      return false;
  }
  return true;
}

// A circle, a box and a capsule at random places around a 360-point loop (the spinner's
// wall): the manifold with the world's tree is the one of the public function (every
// link scanned), to the bit.
static void test_manifold_same_with_tree(void** state) {
  (void)state;
  static arb_vec2 loop[360];
  for (int i = 0; i < 360; ++i) {
    float a = 6.2831853f * (float)i / 360.0f;  // anticlockwise: the front (left) faces in
    loop[i] = arb_v2(40.0f * cosf(a), 40.0f * sinf(a));
  }
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  arb_body_def bd = chain_def(loop, 360, true);
  arb_body_id id = arb_body_create(w, &bd);
  const arb_chain* c = &arb_body_get_shape(w, id)->chain;
  const arb_aabb* tree = arb__chain_tree(c);
  arb_transform xfa = {arb_v2(0.5f, 32.0f), arb_rot_from_angle(0.3f)};
  arb_circle circle = {arb_vec2_zero, 0.25f};
  arb_polygon box = arb_make_box(0.25f, 0.25f);
  arb_capsule capsule = {arb_v2(-0.25f, 0.0f), arb_v2(0.25f, 0.0f), 0.25f};
  int touching[3] = {0, 0, 0};
  for (int k = 0; k < 3000; ++k) {
    // Mostly near the wall (radius 38.5-41.5 m), some deep inside.
    float r = k % 5 == 0 ? rnd(0.0f, 38.0f) : rnd(38.5f, 41.5f), t = rnd(0.0f, 6.2831853f);
    arb_vec2 local = arb_v2(r * cosf(t), r * sinf(t));
    arb_transform xfb = {arb_transform_point(xfa, local), arb_rot_from_angle(rnd(-3.1f, 3.1f))};
    float margin = rnd(0.0f, 0.5f);
    arb_manifold m1 = arb__collide_chain_and_circle(c, tree, xfa, &circle, xfb, margin);
    assert_true(
        same_manifold(m1, arb__collide_chain_and_circle(c, NULL, xfa, &circle, xfb, margin)));
    arb_manifold m2 = arb__collide_chain_and_polygon(c, tree, xfa, &box, xfb, margin);
    assert_true(same_manifold(m2, arb__collide_chain_and_polygon(c, NULL, xfa, &box, xfb, margin)));
    arb_manifold m3 = arb__collide_chain_and_capsule(c, tree, xfa, &capsule, xfb, margin);
    assert_true(
        same_manifold(m3, arb__collide_chain_and_capsule(c, NULL, xfa, &capsule, xfb, margin)));
    touching[0] += m1.point_count > 0;
    touching[1] += m2.point_count > 0;
    touching[2] += m3.point_count > 0;
  }
  for (int k = 0; k < 3; ++k) assert_true(touching[k] > 300);  // the placements meet the wall
  arb_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slides_without_catching),
      cmocka_unit_test(test_one_sided),
      cmocka_unit_test(test_fast_ball_does_not_tunnel),
      cmocka_unit_test(test_rests_in_v),
      cmocka_unit_test(test_kinematic_chain_lifts),
      cmocka_unit_test(test_ray_one_sided),
      cmocka_unit_test(test_save_restore_bit_exact),
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_points_owned_by_world),
      cmocka_unit_test(test_link_tree_finds_what_a_scan_finds),
      cmocka_unit_test(test_manifold_same_with_tree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
