// The server's per-client snapshot building (server/src/sv_snapshot.c through
// sv_snap_workers.c): with worker threads it sends the same bytes as on the tick thread
// alone, for every client and snapshot (clients acking late, not at all, under small
// budgets, with and without a view radius); and the relevant set a view radius picks from
// the capture's grid is exactly the captured entities within that radius of the avatar,
// plus those in the client's view box when it reported one (a spectator: only those).
// The schedule spreads the clients over the ticks: each gets a snapshot every K ticks,
// and each tick serves a 1/K share of the slots.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/scene.h>

#include "../common/test_main.h"
#include "snap_world.h"
#include "sv_snap_workers.h"

#define MAX_E 4096
#define PLAYERS 12
#define RATE 60
#define RADIUS 12.0f

static const char* scene_path;
static game_fixture world;
static uint32_t avatars[PLAYERS];
static sv_snapshot snap;

static int setup(void** state) {
  (void)state;
  return snap_world_open(&world, &snap, scene_path, PLAYERS, avatars, MAX_E);
}

static int teardown(void** state) {
  (void)state;
  snap_world_close(&world, &snap);
  return 0;
}

/* Player i's request: every other one sees everything, the rest a radius; they walk. */
static sv_snap_request request(int i, uint32_t tick) {
  sv_snap_request r = {tick, tick / 2, avatars[i], i % 2 ? RADIUS : 0.0f,       RATE, 30,
                       0.0f, 0.0f,     false,      {{0.0f, 0.0f}, {0.0f, 0.0f}}};
  return r;
}

/* Player i acknowledges the snapshot sent `lag` snapshots ago (player 0 never does). */
static uint32_t acked(int i, uint32_t tick) {
  uint32_t lag = (uint32_t)(i % 4) * 2;
  return i == 0 || tick <= lag + 2 ? 0 : tick - lag - 2;
}

static void threads_send_the_same_bytes(void** state) {
  (void)state;
  static sv_snap_client one[PLAYERS], many[PLAYERS];
  static sv_snap_job jobs_one[PLAYERS], jobs_many[PLAYERS];
  sv_snap_workers *w1, *w3;
  assert_int_equal(sv_snap_workers_create(0, MAX_E, &w1), 0);
  assert_int_equal(sv_snap_workers_create(3, MAX_E, &w3), 0);
  for (int i = 0; i < PLAYERS; ++i) {
    assert_int_equal(sv_snap_client_init(&one[i], MAX_E), 0);
    assert_int_equal(sv_snap_client_init(&many[i], MAX_E), 0);
    int kbps = i % 3 == 0 ? 64 : 1000;  // some under a budget that defers
    sv_snap_client_reset(&one[i], kbps);
    sv_snap_client_reset(&many[i], kbps);
  }
  long bytes = 0, deferred = 0, radius_views = 0;
  for (uint32_t tick = 1; tick <= 240; ++tick) {
    for (int i = 0; i < PLAYERS; ++i) {
      arb_controls c = {0};
      c.move_x = (float)((int)((tick / 40 + (uint32_t)i) % 3) - 1);
      c.move_y = (float)(i % 3 - 1);
      arb_game_set_controls(world.game, (uint32_t)i + 1, &c);
    }
    arb_game_step(world.game);
    if (tick % 2) continue;
    sv_snapshot_capture(&snap, world.game, RADIUS);
    for (int i = 0; i < PLAYERS; ++i) {
      sv_snap_client_ack(&one[i], acked(i, tick));
      sv_snap_client_ack(&many[i], acked(i, tick));
      jobs_one[i] = (sv_snap_job){.client = &one[i], .req = request(i, tick)};
      jobs_many[i] = (sv_snap_job){.client = &many[i], .req = request(i, tick)};
    }
    sv_snap_workers_run(w1, &snap, jobs_one, PLAYERS);
    sv_snap_workers_run(w3, &snap, jobs_many, PLAYERS);
    for (int i = 0; i < PLAYERS; ++i) {
      const arb_snapshot_build_result *a = &jobs_one[i].res, *b = &jobs_many[i].res;
      assert_int_equal(jobs_one[i].rc, 0);
      assert_int_equal(jobs_many[i].rc, 0);
      assert_int_equal(a->packet_count, b->packet_count);
      for (int p = 0; p < a->packet_count; ++p) {
        assert_int_equal(a->sizes[p], b->sizes[p]);
        assert_memory_equal(a->packets[p], b->packets[p], (size_t)a->sizes[p]);
      }
      bytes += a->bytes;
      deferred += a->deferred;
      radius_views += i % 2;
    }
  }
  // The run exercised what it claims: bytes sent, records deferred by the small budgets.
  assert_true(bytes > 0 && deferred > 0 && radius_views > 0);
  for (int i = 0; i < PLAYERS; ++i) {
    sv_snap_client_free(&one[i]);
    sv_snap_client_free(&many[i]);
  }
  sv_snap_workers_destroy(w1);
  sv_snap_workers_destroy(w3);
}

/* One client at 1000 kbit/s and a building thread's scratch. */
static void one_client(sv_snap_client* c, sv_snap_scratch* x) {
  assert_int_equal(sv_snap_client_init(c, MAX_E), 0);
  assert_int_equal(sv_snap_scratch_init(x, MAX_E), 0);
  sv_snap_client_reset(c, 1000);
}

static void view_radius_picks_exactly_what_is_near(void** state) {
  (void)state;
  static sv_snap_client c;
  static sv_snap_scratch x;
  one_client(&c, &x);
  int checked = 0, partial = 0;
  for (uint32_t tick = 1; tick <= 120; ++tick) {
    arb_game_step(world.game);
    if (tick % 10) continue;
    for (float r = 3.0f; r <= 40.0f; r *= 2.0f) {
      sv_snapshot_capture(&snap, world.game, r);
      const sv_capture* cap = &snap.capture;
      for (int i = 0; i < PLAYERS; ++i) {
        sv_snap_request req = {tick, 0,    avatars[i], r,     RATE,
                               30,   0.0f, 0.0f,       false, {{0.0f, 0.0f}, {0.0f, 0.0f}}};
        arb_snapshot_build_result res;
        assert_int_equal(sv_snapshot_build(&snap, &x, &c, &req, &res), 0);
        const arb_snapshot_entity* me = arb_snapshot_set_find(&cap->set, avatars[i]);
        assert_non_null(me);
        arb_vec2 center = cap->positions[me - cap->items];
        int want = 0;
        for (int k = 0; k < cap->set.count; ++k) {  // the scan the grid replaces
          arb_vec2 p = cap->positions[k];
          if (cap->items[k].id != avatars[i] && arb_distance_sq(p, center) > r * r) continue;
          assert_true(want < x.view.count);
          assert_int_equal(x.view.items[want].id, cap->items[k].id);
          want++;
        }
        assert_int_equal(x.view.count, want);
        checked++;
        partial += want < cap->set.count;
      }
    }
  }
  assert_true(checked > 0 && partial > 0);
  sv_snap_scratch_free(&x);
  sv_snap_client_free(&c);
}

static bool in_box(arb_vec2 p, arb_aabb b) {
  return p.x >= b.lower.x && p.x <= b.upper.x && p.y >= b.lower.y && p.y <= b.upper.y;
}

/* Build a snapshot for `avatar` (0 = spectator) with radius r and optionally a box, and
 * check its relevant set against a scan of the capture: near the avatar, or in the box.
 * Returns how many of them only the box brought in. */
static int check_view_box(sv_snap_scratch* x, sv_snap_client* c, uint32_t tick, uint32_t avatar,
                          float r, const arb_aabb* box) {
  const sv_capture* cap = &snap.capture;
  sv_snap_request req = {tick, 0,    avatar, r,           RATE,
                         30,   0.0f, 0.0f,   box != NULL, {{0.0f, 0.0f}, {0.0f, 0.0f}}};
  if (box) req.view = *box;
  arb_snapshot_build_result res;
  assert_int_equal(sv_snapshot_build(&snap, x, c, &req, &res), 0);
  const arb_snapshot_entity* me = avatar ? arb_snapshot_set_find(&cap->set, avatar) : NULL;
  arb_vec2 center = me ? cap->positions[me - cap->items] : arb_v2(0.0f, 0.0f);
  int want = 0, box_only = 0;
  for (int k = 0; k < cap->set.count; ++k) {
    arb_vec2 p = cap->positions[k];
    bool near = me && (cap->items[k].id == avatar || arb_distance_sq(p, center) <= r * r);
    bool boxed = box && in_box(p, *box);
    if (!near && !boxed) continue;
    assert_true(want < x->view.count);
    assert_int_equal(x->view.items[want].id, cap->items[k].id);
    want++;
    box_only += !near;
  }
  assert_int_equal(x->view.count, want);
  return box_only;
}

/* A box of half side h around capture item k. */
static arb_aabb box_around(int k, float h) {
  arb_vec2 p = snap.capture.positions[k];
  return (arb_aabb){{p.x - h, p.y - h}, {p.x + h, p.y + h}};
}

static void view_box_adds_what_the_camera_sees(void** state) {
  (void)state;
  static sv_snap_client c;
  static sv_snap_scratch x;
  one_client(&c, &x);
  for (int t = 0; t < 30; ++t) arb_game_step(world.game);
  const float r = 3.0f, h = 4.0f;
  sv_snapshot_capture(&snap, world.game, r);
  const sv_capture* cap = &snap.capture;
  // Two far regions: around the entity farthest from player 0, then around the one
  // farthest from both player 0 and the first region.
  int me = (int)(arb_snapshot_set_find(&cap->set, avatars[0]) - cap->items);
  arb_vec2 a = cap->positions[me];
  int far1 = 0, far2 = 0;
  for (int k = 0; k < cap->set.count; ++k)
    if (arb_distance_sq(cap->positions[k], a) > arb_distance_sq(cap->positions[far1], a)) far1 = k;
  arb_aabb box1 = box_around(far1, h);
  float best = -1.0f;
  for (int k = 0; k < cap->set.count; ++k) {
    arb_vec2 p = cap->positions[k];
    float d1 = arb_distance_sq(p, a), d2 = arb_distance_sq(p, cap->positions[far1]);
    float d = d1 < d2 ? d1 : d2;
    if (d > best) best = d, far2 = k;
  }
  arb_aabb box2 = box_around(far2, h);
  assert_true(arb_distance_sq(cap->positions[far1], a) > (r + 2.0f * h) * (r + 2.0f * h));

  uint32_t tick = 2;
  // A player: without a box only its surroundings; with one, the far region too.
  assert_int_equal(check_view_box(&x, &c, tick++, avatars[0], r, NULL), 0);
  bool had_far1 = arb_snapshot_set_find(&x.view, cap->items[far1].id) != NULL;
  assert_false(had_far1);
  assert_true(check_view_box(&x, &c, tick++, avatars[0], r, &box1) > 0);
  assert_non_null(arb_snapshot_set_find(&x.view, cap->items[far1].id));
  // The box moves: what was only in the old box is no longer relevant.
  check_view_box(&x, &c, tick++, avatars[0], r, &box2);
  assert_non_null(arb_snapshot_set_find(&x.view, cap->items[far2].id));
  if (!in_box(cap->positions[far1], box2))
    assert_null(arb_snapshot_set_find(&x.view, cap->items[far1].id));
  // A box over the radius: what both take is in the view once.
  arb_aabb over = box_around(me, 1.5f * r);
  assert_true(check_view_box(&x, &c, tick++, avatars[0], r, &over) > 0);
  // Cleared: back to the surroundings alone.
  assert_int_equal(check_view_box(&x, &c, tick++, avatars[0], r, NULL), 0);

  // A spectator sees what is in its box, and follows the box when it moves.
  static sv_snap_client spec;
  assert_int_equal(sv_snap_client_init(&spec, MAX_E), 0);
  sv_snap_client_reset(&spec, 1000);
  int n1 = check_view_box(&x, &spec, tick++, 0, r, &box1);
  assert_true(n1 > 0 && n1 == x.view.count && n1 < cap->set.count);
  assert_non_null(arb_snapshot_set_find(&x.view, cap->items[far1].id));
  int n2 = check_view_box(&x, &spec, tick++, 0, r, &box2);
  assert_true(n2 > 0 && n2 == x.view.count);
  if (!in_box(cap->positions[far1], box2))
    assert_null(arb_snapshot_set_find(&x.view, cap->items[far1].id));
  sv_snap_client_free(&spec);
  sv_snap_scratch_free(&x);
  sv_snap_client_free(&c);
}

/* sv_snapshot_due: for K = 1..4 and slots 0..99, every slot is due exactly every K ticks
 * (and nowhere between), and every tick serves 100/K slots, rounded down or up. */
static void snapshots_spread_over_the_ticks(void** state) {
  (void)state;
  for (int k = 1; k <= 4; ++k) {
    uint64_t last[100] = {0};
    for (uint64_t tick = 1; tick <= 240; ++tick) {
      int due = 0;
      for (int slot = 0; slot < 100; ++slot) {
        if (!sv_snapshot_due(tick, k, slot)) continue;
        ++due;
        if (last[slot] != 0) assert_int_equal(tick - last[slot], k);
        last[slot] = tick;
      }
      assert_true(due == 100 / k || due == (100 + k - 1) / k);
    }
    for (int slot = 0; slot < 100; ++slot) assert_true(last[slot] > 240 - (uint64_t)k);
  }
}

ARB_TEST_MAIN_ARG("SCENE.json (tests/scenes/extras.json)", scene_path,
                  cmocka_unit_test_setup_teardown(threads_send_the_same_bytes, setup, teardown),
                  cmocka_unit_test_setup_teardown(view_radius_picks_exactly_what_is_near, setup,
                                                  teardown),
                  cmocka_unit_test_setup_teardown(view_box_adds_what_the_camera_sees, setup,
                                                  teardown),
                  cmocka_unit_test(snapshots_spread_over_the_ticks))
