// The broad phase's AABB tree (shared/src/aabb_tree.c): after random insertions, moves,
// removals, small moves and rebuilds the tree is well formed (links, boxes, heights, leaf count),
// never taller than ARB__TREE_MAX_HEIGHT, and a query finds exactly the leaves a scan finds, also
// for degenerate inputs (boxes in a row inserted in order, all boxes alike) and for a tree built at
// once from unlinked leaves (as a restore builds it). The simulation does not depend on the tree's
// shape: a world whose trees are rebuilt before every step has the same hash after every step as
// one whose trees only grow.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
// clang-format on

#include "../common/test_main.h"
#include "world.h"  // shared/src: the tree itself
#include "world_test_util.h"

#define DT (1.0f / 60.0f)
#define MAX_LEAVES 4096

typedef struct tree_fixture {
  arb_world* w;
  arb__tree t;
  arb__body body;         // the shapes whose filter bits the tree records (one box)
  int proxy[MAX_LEAVES];  // leaf node per payload, ARB__NULL when not in the tree
  arb_aabb box[MAX_LEAVES];
} tree_fixture;

// cmocka setup and teardown: every tree test gets a fresh fixture in *state.
static int fixture_setup(void** state) {
  tree_fixture* f = calloc(1, sizeof *f);
  if (!f) return -1;
  f->w = wt_world(arb_v2(0.0f, 0.0f));
  arb__tree_init(&f->t);
  f->body.shape_count = 1;
  f->body.shape.category_bits = 1u;
  f->body.shape.mask_bits = 0xffffffffu;
  for (int i = 0; i < MAX_LEAVES; ++i) f->proxy[i] = ARB__NULL;
  *state = f;
  return 0;
}

static int fixture_teardown(void** state) {
  tree_fixture* f = *state;
  arb__tree_free(f->w, &f->t);
  arb_world_destroy(f->w);
  free(f);
  return 0;
}

static int enlarged_nodes;  // counted by check_node

// Checks node i's subtree; returns its leaf count. An internal node's box is its children's
// union, or holds it when it grew in place for a moved leaf (then its parent is flagged
// too, and the tree knows it has such nodes).
static int check_node(const arb__tree* t, int i, int parent) {
  const arb__tree_node* n = &t->nodes[i];
  assert_int_equal(n->parent, parent);
  if (n->height == 0) {
    assert_int_equal(n->flags & ARB__NODE_ENLARGED, 0);
    return 1;
  }
  const arb__tree_node* c1 = &t->nodes[n->child1];
  const arb__tree_node* c2 = &t->nodes[n->child2];
  assert_true(c1->height >= 0 && c2->height >= 0);
  assert_int_equal(n->height, 1 + (c1->height > c2->height ? c1->height : c2->height));
  arb_aabb u = arb_aabb_union(c1->aabb, c2->aabb);
  if (n->flags & ARB__NODE_ENLARGED) {
    enlarged_nodes += 1;
    assert_true(t->enlarged);
    assert_true(parent == ARB__NULL || (t->nodes[parent].flags & ARB__NODE_ENLARGED));
    assert_true(arb_aabb_contains(n->aabb, u));
  } else {
    assert_true(u.lower.x == n->aabb.lower.x && u.lower.y == n->aabb.lower.y &&
                u.upper.x == n->aabb.upper.x && u.upper.y == n->aabb.upper.y);
  }
  return check_node(t, n->child1, i) + check_node(t, n->child2, i);
}

static bool collect_leaf(void* ctx, int body) {
  uint8_t* seen = ctx;
  assert_int_equal(seen[body], 0);  // once
  seen[body] = 1;
  return true;
}

// Structure, height bound, and queries against a scan of the payloads in the tree.
static void check_tree(tree_fixture* f, uint32_t* rng) {
  int live = 0;
  for (int i = 0; i < MAX_LEAVES; ++i) {
    if (f->proxy[i] == ARB__NULL) continue;
    live += 1;
    const arb__tree_node* leaf = &f->t.nodes[f->proxy[i]];
    assert_int_equal(leaf->height, 0);
    assert_int_equal(leaf->body, i);
  }
  assert_int_equal(f->t.leaf_count, live);
  if (live == 0) {
    assert_int_equal(f->t.root, ARB__NULL);
    return;
  }
  enlarged_nodes = 0;
  assert_int_equal(check_node(&f->t, f->t.root, ARB__NULL), live);
  assert_int_equal(f->t.count, 2 * live - 1);
  assert_true(f->t.nodes[f->t.root].height <= ARB__TREE_MAX_HEIGHT);
  static uint8_t seen[MAX_LEAVES];
  for (int q = 0; q < 20; ++q) {
    arb_vec2 c = arb_v2(wt_rng_range(rng, -60.0f, 60.0f), wt_rng_range(rng, -60.0f, 60.0f));
    arb_vec2 h = arb_v2(wt_rng_range(rng, 0.0f, 15.0f), wt_rng_range(rng, 0.0f, 15.0f));
    arb_aabb box = {arb_sub(c, h), arb_add(c, h)};
    memset(seen, 0, sizeof seen);
    assert_true(arb__tree_query(&f->t, box, collect_leaf, seen));
    for (int i = 0; i < MAX_LEAVES; ++i) {
      bool expect = f->proxy[i] != ARB__NULL && arb_aabb_overlaps(f->box[i], box);
      assert_int_equal(seen[i], expect);
    }
  }
}

static arb_aabb random_box(uint32_t* rng) {
  arb_vec2 c = arb_v2(wt_rng_range(rng, -50.0f, 50.0f), wt_rng_range(rng, -50.0f, 50.0f));
  arb_vec2 h = arb_v2(wt_rng_range(rng, 0.05f, 2.0f), wt_rng_range(rng, 0.05f, 2.0f));
  if (wt_rng_next(rng) % 50 == 0) h.x = 30.0f;  // a long bar now and then
  arb_aabb b = {arb_sub(c, h), arb_add(c, h)};
  return b;
}

static void put(tree_fixture* f, int i, arb_aabb box) {
  f->box[i] = box;
  if (f->proxy[i] == ARB__NULL) {
    f->proxy[i] = arb__tree_insert(f->w, &f->t, box, i, &f->body, true);
    assert_true(f->proxy[i] != ARB__NULL);
  } else {
    int before = f->proxy[i];
    arb__tree_move(&f->t, f->proxy[i], box, &f->body);
    assert_int_equal(f->proxy[i], before);
  }
}

static void test_random_operations(void** state) {
  tree_fixture* f = *state;
  uint32_t rng = 0x5eed1234u;
  for (int round = 0; round < 60; ++round) {
    int ops = 1 + (int)(wt_rng_next(&rng) % 300);
    for (int k = 0; k < ops; ++k) {
      int i = (int)(wt_rng_next(&rng) % 1500);
      uint32_t what = wt_rng_next(&rng) % 10;
      if (what < 2 && f->proxy[i] != ARB__NULL) {
        arb__tree_remove(&f->t, f->proxy[i]);
        f->proxy[i] = ARB__NULL;
      } else {
        put(f, i, random_box(&rng));
      }
    }
    if (round % 7 == 3) arb__tree_rebuild(&f->t);
    if (round % 5 == 1) arb__tree_settle(&f->t);
    check_tree(f, &rng);
  }
  for (int i = 0; i < MAX_LEAVES; ++i) {  // empty again, then reused
    if (f->proxy[i] != ARB__NULL) arb__tree_remove(&f->t, f->proxy[i]);
    f->proxy[i] = ARB__NULL;
  }
  check_tree(f, &rng);
  put(f, 7, random_box(&rng));
  check_tree(f, &rng);
}

// Small moves: a leaf moved a little inside its sibling's box (three leaves), then many
// small moves inside a crowd (a resting pile's proxies), the tree checked after each
// round without a settle (grown boxes must still hold every leaf).
static void test_small_moves(void** state) {
  tree_fixture* f = *state;
  uint32_t rng = 31337u;
  arb_aabb big = {arb_v2(0.0f, 0.0f), arb_v2(10.0f, 10.0f)};
  arb_aabb far = {arb_v2(40.0f, 40.0f), arb_v2(41.0f, 41.0f)};
  arb_aabb inside = {arb_v2(2.0f, 2.0f), arb_v2(3.0f, 3.0f)};
  put(f, 0, big);
  put(f, 1, far);
  put(f, 2, inside);
  check_tree(f, &rng);
  arb_aabb moved = {arb_v2(2.5f, 2.0f), arb_v2(3.5f, 3.0f)};
  put(f, 2, moved);
  check_tree(f, &rng);
  for (int i = 3; i < 800; ++i) put(f, i, random_box(&rng));
  for (int round = 0; round < 40; ++round) {
    for (int k = 0; k < 200; ++k) {
      int i = (int)(wt_rng_next(&rng) % 800);
      arb_vec2 d = arb_v2(wt_rng_range(&rng, -0.05f, 0.05f), wt_rng_range(&rng, -0.05f, 0.05f));
      arb_aabb b = {arb_add(f->box[i].lower, d), arb_add(f->box[i].upper, d)};
      put(f, i, b);
    }
    check_tree(f, &rng);
  }
}

// A moved leaf keeps its place while its ancestors grow to hold it; the settle before the
// pair update rebuilds what grew, and leaves every box tight again.
static void test_moves_grow_in_place_until_settled(void** state) {
  tree_fixture* f = *state;
  uint32_t rng = 2718u;
  for (int i = 0; i < 1000; ++i) put(f, i, random_box(&rng));
  arb__tree_rebuild(&f->t);
  check_tree(f, &rng);
  assert_int_equal(enlarged_nodes, 0);
  for (int round = 0; round < 10; ++round) {
    int parent_before[100];
    for (int i = 0; i < 100; ++i) parent_before[i] = f->t.nodes[f->proxy[i * 7]].parent;
    for (int i = 0; i < 100; ++i) {  // far moves and small ones
      arb_aabb b = random_box(&rng);
      if (i % 2) {
        arb_vec2 d = arb_v2(0.3f, -0.2f);
        b = (arb_aabb){arb_add(f->box[i * 7].lower, d), arb_add(f->box[i * 7].upper, d)};
      }
      put(f, i * 7, b);
    }
    for (int i = 0; i < 100; ++i)
      assert_int_equal(f->t.nodes[f->proxy[i * 7]].parent, parent_before[i]);
    check_tree(f, &rng);
    assert_true(enlarged_nodes > 0);
    if (round % 3 == 2) {  // a removal and an insertion under grown nodes, before the settle
      arb__tree_remove(&f->t, f->proxy[round]);
      f->proxy[round] = ARB__NULL;
      put(f, 1000 + round, random_box(&rng));
      check_tree(f, &rng);
    }
    arb__tree_settle(&f->t);
    assert_false(f->t.enlarged);
    check_tree(f, &rng);
    assert_int_equal(enlarged_nodes, 0);
  }
}

// Boxes in a row, inserted left to right (the worst order for incremental insertion),
// then all of them moved onto one spot (centres that coincide).
static void test_degenerate_inputs(void** state) {
  tree_fixture* f = *state;
  uint32_t rng = 99u;
  for (int i = 0; i < MAX_LEAVES; ++i) {
    arb_aabb b = {arb_v2(-60.0f + 0.025f * (float)i, 0.0f),
                  arb_v2(-59.9f + 0.025f * (float)i, 0.1f)};
    put(f, i, b);
  }
  check_tree(f, &rng);
  for (int i = 0; i < MAX_LEAVES; ++i) {
    arb_aabb b = {arb_v2(1.0f, 1.0f), arb_v2(2.0f, 2.0f)};
    put(f, i, b);
  }
  check_tree(f, &rng);
  arb__tree_rebuild(&f->t);
  check_tree(f, &rng);
}

// Leaves added unlinked (as a restore adds them), then one rebuild; then used as usual.
static void test_bulk_build(void** state) {
  tree_fixture* f = *state;
  uint32_t rng = 4242u;
  for (int count = 0; count <= 3; ++count) {  // tiny trees: empty, one leaf, two, three
    arb__tree_init(&f->t);
    for (int i = 0; i < count; ++i) {
      f->box[i] = random_box(&rng);
      f->proxy[i] = arb__tree_add_leaf(f->w, &f->t, f->box[i], i, &f->body, true);
    }
    arb__tree_rebuild(&f->t);
    check_tree(f, &rng);
    for (int i = 0; i < count; ++i) f->proxy[i] = ARB__NULL;
    arb__tree_free(f->w, &f->t);
  }
  for (int i = 0; i < 3000; ++i) {
    f->box[i] = random_box(&rng);
    f->proxy[i] = arb__tree_add_leaf(f->w, &f->t, f->box[i], i, &f->body, i % 3 != 0);
    assert_true(f->proxy[i] != ARB__NULL);
  }
  arb__tree_rebuild(&f->t);
  check_tree(f, &rng);
  for (int i = 0; i < 3000; i += 2) put(f, i, random_box(&rng));
  check_tree(f, &rng);
}

// A pile stirred by a kinematic bar: once stepped as is, once with both trees rebuilt
// (another shape, other node indices) before every step. Same hash after every step.
static arb_world* stirred_pile(void) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_ground(w, 30.0f);
  wt_box(w, ARB_BODY_STATIC, -30.0f, 10.0f, 1.0f, 10.0f);
  wt_box(w, ARB_BODY_STATIC, 30.0f, 10.0f, 1.0f, 10.0f);
  for (int k = 0; k < 300; ++k) {
    float x = -25.0f + (float)(k % 25) * 2.0f, y = 1.0f + (float)(k / 25) * 1.1f;
    if (k % 2) {
      wt_box(w, ARB_BODY_DYNAMIC, x, y, 0.4f, 0.4f);
    } else {
      wt_circle(w, ARB_BODY_DYNAMIC, x, y, 0.45f);
    }
  }
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_KINEMATIC;
  bd.position = arb_v2(0.0f, 4.0f);
  bd.angular_velocity = 2.0f;
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(8.0f, 0.3f);
  arb_body_create(w, &bd);
  return w;
}

static void test_results_do_not_depend_on_tree_shape(void** state) {
  (void)state;
  arb_world* pile[2] = {stirred_pile(), stirred_pile()};  // [1]: its trees rebuilt
  for (int s = 0; s < 300; ++s) {
    arb__tree_rebuild(&pile[1]->static_tree);
    arb__tree_rebuild(&pile[1]->dynamic_tree);
    wt_step_alike(pile[0], pile[1], 1, DT);
  }
  for (int k = 0; k < 2; ++k) arb_world_destroy(pile[k]);
}

// ---- pairs known without the pair map ---------------------------------------------------
//
// The pair update passes over an overlap whose two boxes already overlapped at the last
// pair update (w->paired_aabbs: that pair has its contact). Twin worlds, one of which looks
// every pair up in the pair map (pairs_incomplete), must have the same hash after every
// step, through fast throws, teleports, destruction and creation in freed slots, and a
// restore of an older state.

static arb_body_id random_pair_body(arb_world* w, uint32_t* rng) {
  arb_body_def bd = arb_default_body_def();
  bd.type = wt_rng_next(rng) % 10 == 0 ? ARB_BODY_STATIC : ARB_BODY_DYNAMIC;
  bd.position = arb_v2(wt_rng_range(rng, -18.0f, 18.0f), wt_rng_range(rng, 0.5f, 14.0f));
  bd.angle = wt_rng_range(rng, -3.0f, 3.0f);
  bd.linear_velocity = arb_v2(wt_rng_range(rng, -3.0f, 3.0f), wt_rng_range(rng, -3.0f, 3.0f));
  arb_shape_def parts[2] = {arb_default_shape_def(), arb_default_shape_def()};
  switch (wt_rng_next(rng) % 4) {
    case 0:
      bd.shape.type = ARB_SHAPE_POLYGON;
      bd.shape.polygon = arb_make_box(wt_rng_range(rng, 0.1f, 0.6f), wt_rng_range(rng, 0.1f, 0.6f));
      break;
    case 1:
      bd.shape.type = ARB_SHAPE_CIRCLE;
      bd.shape.circle.radius = wt_rng_range(rng, 0.1f, 0.5f);
      break;
    case 2:
      bd.shape.type = ARB_SHAPE_CAPSULE;
      bd.shape.capsule = (arb_capsule){{-0.3f, 0.0f}, {0.3f, 0.0f}, wt_rng_range(rng, 0.1f, 0.3f)};
      break;
    default:  // a compound body: two shapes, each pairing on its own
      parts[0].type = ARB_SHAPE_POLYGON;
      parts[0].polygon = arb_make_offset_box(0.3f, 0.2f, arb_v2(-0.3f, 0.0f), arb_rot_identity);
      parts[1].type = ARB_SHAPE_CIRCLE;
      parts[1].circle = (arb_circle){{0.4f, 0.0f}, 0.25f};
      bd.shapes = parts;
      bd.shape_count = 2;
      break;
  }
  return arb_body_create(w, &bd);
}

// The same random change to both twins: a throw fast enough for continuous collision to
// stretch the proxy, a teleport, a destruction, a creation (likely in the freed slot).
static void random_pair_change(arb_world* twin[2], wt_body_list l[2], uint32_t* rng) {
  int i = wt_body_list_pick(&l[0], rng);
  uint32_t kind = wt_rng_next(rng) % 4;
  arb_vec2 v = arb_v2(wt_rng_range(rng, -60.0f, 60.0f), wt_rng_range(rng, -60.0f, 60.0f));
  arb_vec2 p = arb_v2(wt_rng_range(rng, -18.0f, 18.0f), wt_rng_range(rng, 0.5f, 14.0f));
  uint32_t body_seed = wt_rng_next(rng);
  for (int k = 0; k < 2; ++k) {
    arb_body_id id = l[k].ids[i];
    if (kind == 0) {
      arb_body_set_linear_velocity(twin[k], id, v);
    } else if (kind == 1) {
      arb_body_set_transform(twin[k], id, p, 0.5f);
    } else if (kind == 2 && l[k].n > 40) {
      wt_body_list_destroy(twin[k], &l[k], i);
    } else {
      uint32_t r = body_seed;
      wt_body_list_add(twin[k], &l[k], random_pair_body(twin[k], &r));
    }
  }
}

static arb_world* pair_twin(wt_body_list* l, int workers, uint32_t seed) {
  uint32_t rng = seed;
  arb_world_def wd = arb_default_world_def();
  wd.gravity = arb_v2(0.0f, -10.0f);
  wd.enable_continuous = true;
  wd.worker_count = workers;
  arb_world* w = arb_world_create(&wd);
  l->n = 0;
  wt_body_list_add(w, l, wt_ground(w, 20.0f));
  wt_body_list_add(w, l, wt_box(w, ARB_BODY_STATIC, -21.0f, 10.0f, 1.0f, 12.0f));
  wt_body_list_add(w, l, wt_box(w, ARB_BODY_STATIC, 21.0f, 10.0f, 1.0f, 12.0f));
  arb_body_def bar = box_body_def(ARB_BODY_KINEMATIC, 0.0f, 3.0f, 7.0f, 0.3f);
  bar.angular_velocity = 3.0f;
  wt_body_list_add(w, l, arb_body_create(w, &bar));
  for (int k = 0; k < 220; ++k) wt_body_list_add(w, l, random_pair_body(w, &rng));
  return w;
}

static void test_known_pairs_match_the_pair_map(void** state) {
  (void)state;
  static wt_body_list l[2], old_list;
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    arb_world* twin[2] = {pair_twin(&l[0], 2, seed), pair_twin(&l[1], 1, seed)};
    uint32_t rng = seed * 0x9E3779B9u;
    long long known = 0;
    uint8_t* old_image = NULL;
    int old_size = 0;
    for (int step = 0; step < 400; ++step) {
      twin[1]->pairs_incomplete = true;  // looks every pair up
      if (wt_rng_next(&rng) % 3 == 0) random_pair_change(twin, l, &rng);
      if (step == 120) {
        old_image = wt_save(twin[0], &old_size);
        old_list = l[0];
      }
      if (step == 250) {  // back to the older state: its moved bodies' boxes are not known
        assert_int_equal(arb_world_restore(twin[0], old_image, old_size), 0);
        assert_int_equal(arb_world_restore(twin[1], old_image, old_size), 0);
        l[0] = l[1] = old_list;
      }
      wt_step_alike(twin[0], twin[1], 1, DT);
      assert_int_equal(twin[1]->stat_known_pairs, 0);
      known += twin[0]->stat_known_pairs;
    }
    assert_false(twin[0]->pairs_incomplete);
    print_message("seed %u: %lld overlaps known without the pair map, %d contacts at the end\n",
                  seed, known, arb_world_get_counters(twin[0]).contact_count);
    assert_true(known > 10000);  // the shortcut was taken, not only the map
    free(old_image);
    for (int k = 0; k < 2; ++k) arb_world_destroy(twin[k]);
  }
}

ARB_TEST_MAIN(cmocka_unit_test_setup_teardown(test_random_operations, fixture_setup,
                                              fixture_teardown),
              cmocka_unit_test_setup_teardown(test_small_moves, fixture_setup, fixture_teardown),
              cmocka_unit_test_setup_teardown(test_moves_grow_in_place_until_settled, fixture_setup,
                                              fixture_teardown),
              cmocka_unit_test_setup_teardown(test_degenerate_inputs, fixture_setup,
                                              fixture_teardown),
              cmocka_unit_test_setup_teardown(test_bulk_build, fixture_setup, fixture_teardown),
              cmocka_unit_test(test_results_do_not_depend_on_tree_shape),
              cmocka_unit_test(test_known_pairs_match_the_pair_map))
