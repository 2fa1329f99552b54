// What the step keeps beside the contact array, checked against it after every step of
// random worlds (and after a restore in the middle of each):
// - the awake-contact list (shared/src/island.c, arb__collect_awake_contacts): with bodies
//   asleep, the narrow phase and the solver run over the contacts that have an awake end,
//   in ascending contact order. The list is marked from whichever side has fewer bodies
//   (the awake bodies' edges, or the sleeping bodies' edges and the complement), so each
//   world is drawn with few bodies asleep and with most of them asleep;
// - the contact briefs (shared/src/world.h, arb__contact_brief): each contact's bodies,
//   point count and touching flag, which the island build and the solver's colouring read
//   instead of the contacts;
// - the bodies' edge lists (next links in the briefs, prev links in the contacts): each
//   body's list holds exactly the contacts that name it, through contact creation, the
//   moves of contacts that destruction makes, body destruction and restore.
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
#include "world.h"  // shared/src: the contact array and the awake list
#include "world_test_util.h"

#define DT (1.0f / 60.0f)

// A column of `height` boxes or balls at x, sometimes on a kinematic body. Awake, it stands
// on the ground; created asleep (each body its own island until touched), it floats 3 m
// above it, since a new pair with a static body wakes the other body, and falls when a
// push wakes it.
static void add_column(arb_world* w, uint32_t* rng, float x, int height, bool asleep) {
  for (int k = 0; k < height; ++k) {
    arb_body_def bd = box_body_def(ARB_BODY_DYNAMIC, x + wt_rng_range(rng, -0.1f, 0.1f),
                                   (asleep ? 3.5f : 0.5f) + (float)k * 0.98f, 0.5f, 0.5f);
    if (wt_rng_next(rng) % 3u == 0u) {
      bd.shape.type = ARB_SHAPE_CIRCLE;
      bd.shape.circle.radius = 0.5f;
    }
    if (k == 0 && wt_rng_next(rng) % 8u == 0u) bd.type = ARB_BODY_KINEMATIC;
    bd.is_awake = !asleep;
    assert_false(arb_body_id_is_null(arb_body_create(w, &bd)));
  }
}

// Whether contact c has an awake end (arb__body_awake: not static, not free, not asleep).
static bool has_awake_end(const arb_world* w, const arb__contact* c) {
  return arb__body_awake(w, c->body_a) || arb__body_awake(w, c->body_b);
}

static void check_briefs(const arb_world* w) {
  for (int c = 0; c < w->contact_count; ++c) {
    const arb__contact* ct = &w->contacts[c];
    const arb__contact_brief* b = &w->contact_briefs[c];
    assert_int_equal(b->body_a, ct->body_a);
    assert_int_equal(b->body_b, ct->body_b);
    assert_int_equal(b->point_count, ct->manifold.point_count);
    assert_int_equal(b->touching, (ct->flags & ARB__CONTACT_TOUCHING) ? 1 : 0);
  }
}

static void check_edges(const arb_world* w) {
  int edges = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    if (!w->bodies[i].in_use) continue;
    int prev = ARB__NULL;
    for (int e = w->bodies[i].contact_head; e != ARB__NULL; e = arb__next_edge(w, e)) {
      int c = e >> 1, side = e & 1;
      assert_true(c < w->contact_count);
      assert_int_equal(side == 0 ? w->contacts[c].body_a : w->contacts[c].body_b, i);
      assert_int_equal(w->contacts[c].prev[side], prev);
      prev = e;
      edges += 1;
    }
  }
  assert_int_equal(edges, 2 * w->contact_count);  // both edges of every contact, once
}

// Collects the list now and checks it against the contact array; returns its length.
static int check_list(arb_world* w) {
  arb__collect_awake_contacts(w);
  if (w->sleeping_count == 0) {
    assert_int_equal(w->awake_contact_count, 0);  // every contact: no list
    return w->contact_count;
  }
  int n = 0;
  for (int c = 0; c < w->contact_count; ++c) {
    if (!has_awake_end(w, &w->contacts[c])) continue;
    assert_true(n < w->awake_contact_count);
    assert_int_equal(w->awake_contacts[n], c);
    n += 1;
  }
  assert_int_equal(n, w->awake_contact_count);
  return n;
}

// A world of `columns` columns on a ground, `asleep_per_8` of every 8 created asleep, run
// for a second and a half with a few pushes; the list is checked after every step. Returns
// how many steps had bodies asleep with fewer of them than awake ones (the complement's
// side) and how many had more (the awake edges' side).
static void run_world(uint32_t seed, int columns, int asleep_per_8, int* few_asleep,
                      int* most_asleep) {
  uint32_t rng = seed;
  arb_world* w = wt_world(arb_v2(0.0f, -10.0f));
  assert_non_null(w);
  wt_box(w, ARB_BODY_STATIC, 0.0f, -0.5f, 200.0f, 0.5f);
  for (int i = 0; i < columns; ++i) {
    add_column(w, &rng, (float)i * 1.5f - (float)columns * 0.75f, 1 + (int)(wt_rng_next(&rng) % 5u),
               (int)(wt_rng_next(&rng) % 8u) < asleep_per_8);
  }
  for (int step = 0; step < 150; ++step) {
    if (step % 15 == 7) {  // wake a few by hand: a push on a random body
      for (int k = 0; k < 3; ++k) {
        int slot = 1 + (int)(wt_rng_next(&rng) % (uint32_t)(w->body_slots - 1));
        if (w->sims[slot].type != ARB_BODY_DYNAMIC) continue;
        arb_body_id id = {(int32_t)slot + 1, w->bodies[slot].generation};
        arb_body_apply_linear_impulse(w, id, arb_v2(wt_rng_range(&rng, -5.0f, 5.0f), 2.0f),
                                      arb_body_get_position(w, id));
      }
    }
    if (step % 15 == 11) {  // a body goes: its contacts go, others move into their places
      int slot = 1 + (int)(wt_rng_next(&rng) % (uint32_t)(w->body_slots - 1));
      if (w->bodies[slot].in_use && w->sims[slot].type == ARB_BODY_DYNAMIC)
        arb_body_destroy(w, (arb_body_id){(int32_t)slot + 1, w->bodies[slot].generation});
    }
    arb_world_step(w, DT);
    check_briefs(w);
    check_edges(w);
    check_list(w);
    if (step == 75) {  // the briefs are rebuilt from the image
      int size = 0;
      uint8_t* image = wt_save(w, &size);
      assert_int_equal(arb_world_restore(w, image, size), 0);
      free(image);
      check_briefs(w);
      check_edges(w);
    }
    if (w->sleeping_count > 0 && w->sleeping_count < w->awake_count) *few_asleep += 1;
    if (w->sleeping_count > 0 && w->sleeping_count >= w->awake_count) *most_asleep += 1;
  }
  arb_world_destroy(w);
}

static void test_lists_match_the_contacts(void** state) {
  (void)state;
  int few = 0, most = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    run_world(seed * 2654435761u, 40, 1, &few, &most);  // ~1 in 8 asleep
    run_world(seed * 40503u + 7u, 40, 7, &few, &most);  // ~7 in 8 asleep
  }
  // Both ways of marking ran, many times.
  assert_true(few > 100);
  assert_true(most > 100);
}

ARB_TEST_MAIN(cmocka_unit_test(test_lists_match_the_contacts))
