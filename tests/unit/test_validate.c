// The validation walkers (shared/src/world_validate.c): silent on a world the library
// made, and each kind of broken invariant (island lists, sleeping count, awake lists,
// contact briefs, edge lists, pair map, tree links and boxes, the step's arena) makes
// them assert. Counted with a soft handler, so the test runs in every build; without
// asserts (release) the walker checks nothing and every count is 0.
// cmocka.h needs these first
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
// clang-format on

#include <arbiter/joint.h>

#include "../common/test_main.h"
#include "world.h"
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

// A ground, a column of boxes that falls asleep, and a box still falling beside it.
static arb_world* scene(void) {
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 20.0f, 0.5f);
  for (int i = 0; i < 4; ++i) wt_box(w, ARB_BODY_DYNAMIC, 0.0f, 0.5f + (float)i, 0.5f, 0.5f);
  for (int t = 0; t < 240; ++t) arb_world_step(w, DT);
  arb_body_id a = wt_box(w, ARB_BODY_DYNAMIC, 5.0f, 30.0f, 0.5f, 0.5f);
  arb_body_id b = wt_box(w, ARB_BODY_DYNAMIC, 7.0f, 30.0f, 0.5f, 0.5f);
  arb_joint_def jd = arb_default_joint_def();
  jd.type = ARB_JOINT_DISTANCE;
  jd.body_a = a;
  jd.body_b = b;
  assert_false(arb_extra_id_is_null(arb_joint_create(w, &jd)));
  for (int t = 0; t < 5; ++t) arb_world_step(w, DT);
  return w;
}

// Asserts the walker makes on w now.
static int walk(const arb_world* w) {
  wt_soft_asserts();
  arb__world_validate(w);
  int n = wt_assert_count;
  arb_set_assert_handler(NULL);
  return n;
}

static void test_walker_is_silent_on_a_real_world(void** state) {
  (void)state;
  arb_world* w = scene();
  assert_true(w->sleeping_count > 0);  // the column sleeps: the awake lists are in use
  assert_true(w->contact_count > 0);
  assert_int_equal(walk(w), 0);
  arb_world_destroy(w);
}

static void test_walker_finds_broken_invariants(void** state) {
  (void)state;
  arb_world* w = scene();
  int expect = ARB_ASSERT_ENABLED ? 1 : 0;
#define BROKEN(stmt, undo)          \
  do {                              \
    stmt;                           \
    assert_true(walk(w) >= expect); \
    undo;                           \
    assert_int_equal(walk(w), 0);   \
  } while (0)
  // Sleeping: the count, and an island list that skips a body.
  BROKEN(w->sleeping_count += 1, w->sleeping_count -= 1);
  int sleeper = -1;
  for (int i = 0; i < w->body_slots && sleeper < 0; ++i) {
    if (w->bodies[i].sleeping && w->bodies[i].island_next != ARB__NULL) sleeper = i;
  }
  assert_true(sleeper >= 0);
  int32_t next = w->bodies[sleeper].island_next;
  BROKEN(w->bodies[sleeper].island_next = ARB__NULL, w->bodies[sleeper].island_next = next);
  // The awake body list, out of order.
  assert_true(w->awake_count >= 2 && !w->awake_dirty);
  int32_t first = w->awake_bodies[0];
  BROKEN(w->awake_bodies[0] = w->awake_bodies[1], w->awake_bodies[0] = first);
  // A contact's brief, its touching flag against its manifold, its edge list.
  int touching = -1;
  for (int i = 0; i < w->contact_count && touching < 0; ++i) {
    if (w->contacts[i].flags & ARB__CONTACT_TOUCHING) touching = i;
  }
  assert_true(touching >= 0);
  BROKEN(w->contact_briefs[touching].point_count ^= 1,
         w->contact_briefs[touching].point_count ^= 1);
  BROKEN(w->contacts[touching].flags &= ~ARB__CONTACT_TOUCHING,
         w->contacts[touching].flags |= ARB__CONTACT_TOUCHING);
  int32_t prev = w->contacts[touching].prev[0];
  BROKEN(w->contacts[touching].prev[0] = touching * 2 + 1, w->contacts[touching].prev[0] = prev);
  // The pair map: one entry too many.
  BROKEN(w->pair_map.count += 1, w->pair_map.count -= 1);
  // A tree: a node's box that no longer holds a child, a wrong height, a leaf's body.
  arb__tree* t = &w->dynamic_tree;
  arb__tree_node* root = &t->nodes[t->root];
  assert_true(root->height > 0);
  arb_aabb box = root->aabb;
  BROKEN(root->aabb.upper.y = root->aabb.lower.y, root->aabb = box);
  BROKEN(root->height += 1, root->height -= 1);
  int body = 1;  // the first box of the column
  int leaf = w->bodies[body].proxy;
  BROKEN(t->nodes[leaf].body = 2, t->nodes[leaf].body = body);
  // A moved body that is not on the moved list.
  BROKEN(w->bodies[body].moved = 1, w->bodies[body].moved = 0);
  // An arena block the step did not give back.
  BROKEN(w->stack.count += 1, w->stack.count -= 1);
#undef BROKEN
  arb_world_destroy(w);
}

// The walker runs inside arb_world_step in ARB_VALIDATE builds: a broken world stops at
// the next step (a soft handler lets the step finish).
static void test_step_runs_the_walker_where_configured(void** state) {
  (void)state;
  arb_world* w = scene();
  w->sleeping_count += 1;
  wt_soft_asserts();
  arb_world_step(w, DT);
  int fired = wt_assert_count;
  arb_set_assert_handler(NULL);
#if defined(ARB_VALIDATE_TESTS) && !defined(NDEBUG)
  assert_true(fired > 0);
#else
  (void)fired;
#endif
  w->sleeping_count -= 1;
  arb_world_destroy(w);
}

ARB_TEST_MAIN(cmocka_unit_test(test_walker_is_silent_on_a_real_world),
              cmocka_unit_test(test_walker_finds_broken_invariants),
              cmocka_unit_test(test_step_runs_the_walker_where_configured))
