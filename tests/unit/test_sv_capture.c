// Snapshots from a real game (server/src/sv_capture.c + the protocol's builder): the
// extras scene's bodies, particles, ropes, springs, joints and vehicle wheels go server world ->
// wire -> client view, and what the client holds at each snapshot tick equals the server's
// quantized capture exactly (tolerances 0); and under a rate-controlled budget no second
// of snapshots exceeds its rate by more than one packet. A compound body (compound.json
// beside the scene) is described with every one of its shapes, in order.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arbiter/game.h>
#include <arbiter/scene.h>
#include <arbiter/snapshot_rate.h>
#include <arbiter/vehicle.h>

#include "../common/test_main.h"
#include "game_fixture.h"
#include "sv_capture.h"

#define MAX_E 4096
#define RATE 60

static const char* scene_path;
static sv_capture cap;
static arb_snapshot_entity ring_items[2][2 * MAX_E], client_items[2 * MAX_E];
static arb_snapshot_part part;

/* Per test: the scene's game with one player joined, a capture and a builder. */
static game_fixture world;
static arb_snapshot_builder* builder;

static int setup(void** state) {
  (void)state;
  if (game_fixture_open(&world, scene_path, 1, NULL) != 0 || sv_capture_init(&cap, MAX_E) != 0 ||
      arb_snapshot_builder_create(1200, MAX_E, &builder) != 0)
    return -1;
  return 0;
}

static int teardown(void** state) {
  (void)state;
  sv_capture_free(&cap);
  arb_snapshot_builder_destroy(builder);
  game_fixture_close(&world);
  return 0;
}

/* Steps to the next snapshot tick (every 2nd), captures, and returns build args against
 * `baseline` (of baseline_tick) writing `sent`. */
static arb_snapshot_build_args next_snapshot(uint32_t* tick, uint32_t baseline_tick,
                                             const arb_snapshot_set* baseline,
                                             arb_snapshot_set* sent) {
  do {
    arb_game_step(world.game);
  } while (++*tick % 2);
  sv_capture_run(&cap, world.game);
  arb_snapshot_build_args a;
  memset(&a, 0, sizeof a);
  a.h = (arb_snapshot_header){*tick, baseline_tick, 0, 0, 0, RATE, cap.gravity_x, cap.gravity_y};
  a.baseline = baseline;
  a.current = &cap.set;
  a.describe = sv_capture_describe;
  a.describe_user = &cap;
  a.sent = sent;
  return a;
}

static int count_class(const arb_snapshot_set* s, uint8_t cls) {
  int n = 0;
  for (int i = 0; i < s->count; ++i) n += s->items[i].cls == cls;
  return n;
}

/* Every captured entity is in the client's view with its class, and its state evaluated
 * at the tick is the captured quantized state (flags aside from the ballistic choice). */
static void check_exact(const arb_snapshot_set* client, const arb_snapshot_header* h) {
  assert_int_equal(client->count, cap.set.count);
  for (int i = 0; i < cap.set.count; ++i) {
    const arb_snapshot_entity* want = &cap.set.items[i];
    const arb_snapshot_entity* got = arb_snapshot_set_find(client, want->id);
    assert_non_null(got);
    assert_int_equal(got->cls, want->cls);
    arb_snapshot_state s = arb_snapshot_eval(&got->s, got->cls, h->tick, h);
    const arb_snapshot_state* w = &want->s;
    if (want->cls == ARB_SNAPSHOT_BODY || want->cls == ARB_SNAPSHOT_PARTICLE) {
      assert_int_equal(s.x, w->x);
      assert_int_equal(s.y, w->y);
      assert_int_equal(s.vx, w->vx);
      assert_int_equal(s.vy, w->vy);
    }
    if (want->cls == ARB_SNAPSHOT_BODY || want->cls == ARB_SNAPSHOT_WHEEL) {
      assert_int_equal(s.angle, w->angle);
      assert_int_equal(s.w, w->w);
    }
    if (want->cls == ARB_SNAPSHOT_WHEEL) assert_int_equal(s.aux, w->aux);
    assert_int_equal(s.flags & ~ARB_SNAPSHOT_FLAG_BALLISTIC, w->flags);
  }
}

/* An end of a spring or joint: a body the client has, or 0 (the world). */
static bool body_or_world(const arb_snapshot_set* client, uint32_t id) {
  const arb_snapshot_entity* e = arb_snapshot_set_find(client, id);
  return id == 0 || (e && e->cls == ARB_SNAPSHOT_BODY);
}

/* Descriptions that arrived name entities the client has (ropes: two particles; springs
 * and joints: bodies or the world; wheels: their chassis body). */
static void check_desc(const arb_snapshot_desc* d, const arb_snapshot_set* client) {
  if (d->cls == ARB_SNAPSHOT_LINK && d->link_kind == ARB_SNAPSHOT_LINK_ROPE) {
    const arb_snapshot_entity* a = arb_snapshot_set_find(client, d->a);
    const arb_snapshot_entity* b = arb_snapshot_set_find(client, d->b);
    assert_true(a && b && a->cls == ARB_SNAPSHOT_PARTICLE && b->cls == ARB_SNAPSHOT_PARTICLE);
  } else if (d->cls == ARB_SNAPSHOT_LINK) {
    assert_true(body_or_world(client, d->a) && body_or_world(client, d->b) && (d->a | d->b) != 0);
    assert_true(d->link_kind == ARB_SNAPSHOT_LINK_SPRING ? d->joint_type == 0 : d->joint_type > 0);
  }
  if (d->cls == ARB_SNAPSHOT_WHEEL) {
    const arb_snapshot_entity* chassis = arb_snapshot_set_find(client, d->a);
    assert_true(chassis && chassis->cls == ARB_SNAPSHOT_BODY && d->radius > 0.0f);
    // The mount point is a wheel's defined offset to the bit (PROTOCOL.md §6.6), not
    // the chassis frame's view of where the wheel is now.
    const arb_world* w = arb_game_get_world(world.game);
    arb_extra_id vehicles[64];
    int n = arb_world_get_vehicles(w, vehicles, 64);
    bool found = false;
    for (int v = 0; v < n && !found; ++v) {
      for (int k = 0; k < arb_vehicle_get_wheel_count(w, vehicles[v]); ++k) {
        arb_vec2 o = arb_vehicle_get_wheel_offset(w, vehicles[v], k);
        if (memcmp(&o, &d->anchor_a, sizeof o) == 0) found = true;
      }
    }
    assert_true(found);
  }
}

static void extras_reach_the_client_exactly(void** state) {
  (void)state;
  arb_snapshot_set sent[2] = {{ring_items[0], 0, 2 * MAX_E}, {ring_items[1], 0, 2 * MAX_E}};
  arb_snapshot_set client = {client_items, 0, 2 * MAX_E};
  uint32_t acked = 0;
  int descs = 0;
  for (uint32_t tick = 0, n = 0; n < 120; ++n) {
    arb_snapshot_build_args a = next_snapshot(&tick, acked, &sent[(n + 1) % 2], &sent[n % 2]);
    arb_snapshot_build_result r;
    assert_int_equal(arb_snapshot_build(builder, &a, &r), 0);
    assert_int_equal(r.deferred, 0);
    // The client: baseline copy, every part decoded and applied.
    for (int p = 0; p < r.packet_count; ++p) {
      arb_proto_error err;
      assert_int_equal(arb_proto_decode_snapshot(r.packets[p], (size_t)r.sizes[p], &part, &err), 0);
      assert_int_equal(arb_snapshot_set_apply(&client, &part, &err), 0);
      for (int d = 0; d < part.desc_count; ++d) check_desc(&part.descs[d], &client), ++descs;
    }
    check_exact(&client, &a.h);
    acked = tick;  // lossless and immediate: the next delta is against this tick
  }
  assert_true(count_class(&cap.set, ARB_SNAPSHOT_PARTICLE) == 56);
  assert_true(count_class(&cap.set, ARB_SNAPSHOT_LINK) == 81 + 1 + 7);  // ropes, the spring, joints
  assert_true(count_class(&cap.set, ARB_SNAPSHOT_WHEEL) >= 4);
  assert_true(descs >= 4);  // one per distinct thing at least (identical ones share)
}

/* 10 s at 64 kbit/s with a loss signal switching on and off: the bytes (payload + 40 per
 * packet) of any 30 consecutive snapshots stay within 64 kbit/s plus one packet. */
static void budget_holds_over_every_second(void** state) {
  (void)state;
  arb_snapshot_set sent[4];
  static arb_snapshot_entity items[4][2 * MAX_E];
  uint32_t sent_tick[4] = {0};
  for (int i = 0; i < 4; ++i) sent[i] = (arb_snapshot_set){items[i], 0, 2 * MAX_E};
  arb_snapshot_rate rate;
  arb_snapshot_rate_init(&rate, 64);
  static long bytes[300];
  int n = 0, deferred = 0;
  for (uint32_t tick = 0; n < 300;) {
    int slot = n % 4, base = (n + 1) % 4;  // the ack of 3 snapshots ago (100 ms)
    arb_snapshot_build_args a = next_snapshot(&tick, sent_tick[base], &sent[base], &sent[slot]);
    a.tol = arb_snapshot_default_tolerance();
    a.packet_overhead = 40;
    a.byte_budget = arb_snapshot_rate_budget(&rate, 30);
    arb_snapshot_build_result r;
    assert_int_equal(arb_snapshot_build(builder, &a, &r), 0);
    sent_tick[slot] = tick;
    bytes[n++] = r.bytes + 40L * r.packet_count;
    deferred += r.deferred;
    arb_snapshot_rate_update(&rate, (n / 45) % 2 ? 0.1f : 0.0f, 60.0f, 1.0f / 30.0f);
  }
  assert_true(deferred > 0);  // the budget was short at times
  for (int start = 0; start + 30 <= n; ++start) {
    long sum = 0;
    for (int k = start; k < start + 30; ++k) sum += bytes[k];
    assert_true(sum <= 64000 / 8 + 1240);
  }
}

static void compound_bodies_describe_every_shape(void** state) {
  (void)state;
  char path[1024];
  const char* slash = strrchr(scene_path, '/');
  snprintf(path, sizeof path, "%.*scompound.json", slash ? (int)(slash - scene_path + 1) : 0,
           scene_path);
  arb_scene* sc = NULL;
  arb_game* g = NULL;
  arb_scene_error err;
  assert_int_equal(arb_scene_load_file(path, &sc, &err), 0);
  assert_int_equal(arb_game_create(sc, 1, &g), 0);
  sv_capture c;
  assert_int_equal(sv_capture_init(&c, MAX_E), 0);
  arb_game_step(g);
  sv_capture_run(&c, g);
  arb_entity ents[64];
  int n = arb_game_get_entities(g, ents, 64);
  const arb_world* w = arb_game_get_world(g);
  int compound = 0;
  for (int i = 0; i < n; ++i) {
    int count = arb_body_get_shape_count(w, ents[i].body);
    arb_snapshot_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(sv_capture_describe(&c, ents[i].id, &d), 0);
    assert_int_equal(d.shape_count, count);
    for (int k = 0; k < count; ++k) {
      arb_shape_geometry geo = arb_shape_def_geometry(arb_body_get_shape_at(w, ents[i].body, k));
      arb_proto_shape want;
      assert_int_equal(arb_proto_shape_from_geometry(&geo, &want), 0);
      assert_int_equal(d.shapes[k].kind, want.kind);
      assert_int_equal(d.shapes[k].count, want.count);
      assert_true(d.shapes[k].radius == want.radius);
      assert_memory_equal(d.shapes[k].points, want.points, want.count * sizeof want.points[0]);
    }
    compound += count > 1;
  }
  // Every body is an entity: the L platform, table, car, hammer and detector are compound.
  assert_int_equal(compound, 5);
  sv_capture_free(&c);
  arb_game_destroy(g);
  arb_scene_destroy(sc);
}

/* Every captured body's state (position, angle, velocities) and speed are what its motion
 * gives now, though the capture reuses the state of a motion it has seen bit for bit
 * (sv_capture.memo): over 600 ticks with bodies turned and moved, and others pushed, by hand
 * (awake or not) every 5th tick, and with a capture of 8 memo slots, so several bodies share a slot
 * and evict each other. */
static int check_capture(sv_capture* c, arb_game* game) {
  arb_world* w = arb_game_get_world(game);
  sv_capture_run(c, game);
  int checked = 0;
  for (int i = 0; i < c->set.count; ++i) {
    const arb_snapshot_entity* e = &c->items[i];
    if (e->cls != ARB_SNAPSHOT_BODY) continue;
    arb_entity ent;
    assert_int_equal(arb_game_find_entity(game, e->id, &ent), 0);
    arb_vec2 p = arb_body_get_position(w, ent.body), v = arb_body_get_linear_velocity(w, ent.body);
    assert_int_equal(e->s.angle, arb_proto_quantize_angle(arb_body_get_angle(w, ent.body)));
    assert_int_equal(e->s.x, arb_proto_quantize_pos(p.x));
    assert_int_equal(e->s.y, arb_proto_quantize_pos(p.y));
    assert_int_equal(e->s.vx, arb_proto_quantize_vel(v.x));
    assert_int_equal(e->s.vy, arb_proto_quantize_vel(v.y));
    assert_int_equal(e->s.w,
                     arb_snapshot_quantize_angvel(arb_body_get_angular_velocity(w, ent.body)));
    assert_true(c->speeds[i] == sqrtf(v.x * v.x + v.y * v.y));
    assert_true(c->positions[i].x == p.x && c->positions[i].y == p.y);
    ++checked;
  }
  return checked;
}

static void body_states_follow_their_motion(void** state) {
  (void)state;
  arb_world* w = arb_game_get_world(world.game);
  sv_capture small;
  assert_int_equal(sv_capture_init(&small, 8), 0);
  arb_entity ents[MAX_E];
  int checked = 0, changed = 0;
  for (int tick = 1; tick <= 600; ++tick) {
    arb_game_step(world.game);
    checked += check_capture(&cap, world.game) + check_capture(&small, world.game);
    int n = arb_game_get_entities(world.game, ents, MAX_E);
    if (tick % 5 != 0 || n == 0) continue;
    // Between two captures of one tick: one body turned and moved, another only pushed
    // (its transform the same bits as in the capture just made).
    arb_body_id b = ents[(tick / 5) % n].body, pushed = ents[(tick / 5 + 1) % n].body;
    if (arb_body_get_type(w, b) != ARB_BODY_STATIC) {
      float d = 0.25f * (float)(tick % 3 + 1);
      arb_vec2 p = arb_body_get_position(w, b);
      if (tick % 2) p.x += d;
      arb_body_set_transform(w, b, p, arb_body_get_angle(w, b) + d);
      ++changed;
    }
    if (arb_body_get_type(w, pushed) != ARB_BODY_STATIC) {
      arb_vec2 v = arb_body_get_linear_velocity(w, pushed);
      if (tick % 10 == 0)  // one input at a time: the memo must compare each of them
        arb_body_set_linear_velocity(w, pushed, arb_v2(v.x + 0.5f, v.y));
      else
        arb_body_set_angular_velocity(w, pushed, arb_body_get_angular_velocity(w, pushed) + 1.0f);
      ++changed;
    }
    checked += check_capture(&cap, world.game) + check_capture(&small, world.game);
  }
  assert_true(changed > 100);
  assert_true(checked > 1000);
  sv_capture_free(&small);
}

/* The change set of cap's last capture against `was` (the capture before, copied), found
 * the slow way: every id of both, field by field. */
static void check_changes(const sv_capture* c, const arb_snapshot_entity* was,
                          const arb_vec2* was_at, int was_count) {
  int changed = 0, entered = 0, left = 0;
  for (int i = 0; i < c->set.count; ++i) {
    const arb_snapshot_entity* e = &c->items[i];
    int j = 0;
    while (j < was_count && was[j].id != e->id) ++j;
    if (j == was_count) {
      assert_true(entered < c->entered_count);
      assert_int_equal(c->entered[entered++], i);
      continue;
    }
    const arb_snapshot_entity* o = &was[j];
    int same = o->cls == e->cls && o->desc_version == e->desc_version && o->s.x == e->s.x &&
               o->s.y == e->s.y && o->s.vx == e->s.vx && o->s.vy == e->s.vy && o->s.w == e->s.w &&
               o->s.angle == e->s.angle && o->s.aux == e->s.aux && o->s.flags == e->s.flags &&
               was_at[j].x == c->positions[i].x && was_at[j].y == c->positions[i].y;
    if (!same) {
      assert_true(changed < c->changed_count);
      assert_int_equal(c->changed[changed++], i);
    }
  }
  for (int j = 0; j < was_count; ++j) {
    if (arb_snapshot_set_find(&c->set, was[j].id)) continue;
    assert_true(left < c->left_count);
    assert_int_equal(c->left[left++], was[j].id);
  }
  assert_int_equal(changed, c->changed_count);
  assert_int_equal(entered, c->entered_count);
  assert_int_equal(left, c->left_count);
}

/* Over random players joining, walking and leaving, captured every 1-4 ticks: each
 * capture's change set equals the brute-force comparison with the capture before, and a
 * world at rest changes nothing. */
static void change_set_equals_brute_force(void** state) {
  (void)state;
  static arb_snapshot_entity was[MAX_E];
  static arb_vec2 was_at[MAX_E];
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  int joined[8] = {0}, captures = 0, moved = 0, came = 0, went = 0;
  sv_capture_run(&cap, world.game);
  for (int tick = 1; tick <= 1200; ++tick) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int who = (int)(rng % 8);
    if ((rng >> 8) % 16 == 0) {
      uint32_t id;
      if (!joined[who] &&
          arb_game_join(world.game, 100u + (uint32_t)who, ARB_AVATAR_DEFAULT, &id) == 0)
        joined[who] = 1;
      else if (joined[who] && arb_game_leave(world.game, 100u + (uint32_t)who) == 0)
        joined[who] = 0;
    }
    if (joined[who]) {
      arb_controls ctl = {0};
      ctl.move_x = (float)((int)(rng >> 20 & 255) - 128) / 128.0f;
      ctl.move_y = (float)((int)(rng >> 28 & 255) - 128) / 128.0f;
      arb_game_set_controls(world.game, 100u + (uint32_t)who, &ctl);
    }
    arb_game_step(world.game);
    if (rng >> 40 & 3) continue;  // captured every 1-4 ticks on average
    int n = cap.set.count;
    memcpy(was, cap.items, (size_t)n * sizeof *was);
    memcpy(was_at, cap.positions, (size_t)n * sizeof *was_at);
    sv_capture_run(&cap, world.game);
    sv_capture_find_changes(&cap);
    check_changes(&cap, was, was_at, n);
    moved += cap.changed_count > 0;
    came += cap.entered_count;
    went += cap.left_count;
    ++captures;
  }
  assert_true(captures > 200);
  assert_true(moved > 50);
  assert_true(came > 0 && went > 0);
  // Two captures of one state: nothing changed.
  sv_capture_run(&cap, world.game);
  sv_capture_find_changes(&cap);
  assert_int_equal(cap.changed_count + cap.entered_count + cap.left_count, 0);
}

ARB_TEST_MAIN_ARG("SCENE.json (tests/scenes/extras.json)", scene_path,
                  cmocka_unit_test_setup_teardown(extras_reach_the_client_exactly, setup, teardown),
                  cmocka_unit_test_setup_teardown(budget_holds_over_every_second, setup, teardown),
                  cmocka_unit_test(compound_bodies_describe_every_shape),
                  cmocka_unit_test_setup_teardown(body_states_follow_their_motion, setup, teardown),
                  cmocka_unit_test_setup_teardown(change_set_equals_brute_force, setup, teardown))
