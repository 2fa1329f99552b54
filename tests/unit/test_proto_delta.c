// Delta snapshots: the builder, splitting, priorities, and the client-side apply.
// The core property: whatever packets and acks are lost, a client that completes a
// snapshot of tick T holds exactly the quantized entity set of tick T, the same as a
// full snapshot of T gives.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "test_proto_fixtures.h"
#include "test_rng.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) { return (uint32_t)(xorshift64_next(&rng_state) >> 16); }
static int chance(int percent) { return (int)(rnd() % 100) < percent; }

#define MAX_E 600
#define RING 32

/* The "world": entity descriptions by id, so describe() and the client can be checked. */
typedef struct world {
  arb_proto_entity items[MAX_E];
  arb_proto_entity_set set;
  uint32_t next_id;
  arb_proto_entity_desc desc[MAX_E * 50];  // by id
} world;

static int describe(void* user, uint32_t id, arb_proto_entity_desc* d) {
  world* w = (world*)user;
  if (id >= MAX_E * 50) return ARB_E_NOT_FOUND;
  *d = w->desc[id];
  return 0;
}

static arb_proto_entity_desc random_desc(uint32_t id, uint32_t version) {
  arb_proto_entity_desc d;
  memset(&d, 0, sizeof d);
  d.body_type = (uint8_t)(rnd() % 3);
  d.avatar_kind = (uint8_t)(id % 7 == 0 ? ARB_AVATAR_FORCE : 0);
  d.owner = d.avatar_kind ? id : 0;
  switch (rnd() % 3) {
    case 0: d.shape = fx_circle(0, 0, 0.25f + (float)version); break;
    case 1: d.shape = fx_box(0.5f + (float)(rnd() % 8), 0.5f); break;
    default: d.shape = fx_segment(-1, 0, 1, (float)version); break;
  }
  if (d.shape.kind == 2 && chance(30)) {  // an octagon now and then: the largest entity
    d.shape.count = 8;
    for (int k = 4; k < 8; k++) d.shape.points[k] = arb_v2((float)k, -(float)k);
  }
  return d;
}

static int32_t random_i32(void) {
  switch (rnd() % 8) {
    case 0: return INT32_MAX;
    case 1: return INT32_MIN;
    case 2: return (int32_t)rnd();
    default: return (int32_t)(rnd() % 20000) - 10000;
  }
}

static void world_add(world* w) {
  if (w->set.count >= MAX_E) return;
  arb_proto_entity* e = &w->items[w->set.count++];
  e->id = w->next_id++;
  e->desc_version = 1;
  e->state.x = random_i32();
  e->state.y = random_i32();
  e->state.angle = (uint16_t)rnd();
  e->state.vx = random_i32();
  e->state.vy = 0;
  e->state.w = 0;
  w->desc[e->id] = random_desc(e->id, 1);
}

/* Positions wrap like the protocol's int32 arithmetic does (no signed overflow). */
static int32_t wrap_add(int32_t a, int32_t b) {
  uint32_t r = (uint32_t)a + (uint32_t)b;
  return r <= (uint32_t)INT32_MAX ? (int32_t)r : -(int32_t)(~r) - 1;
}

static void world_step(world* w) {
  // leave
  for (int i = 0; i < w->set.count; i++) {
    if (chance(2)) {
      memmove(&w->items[i], &w->items[i + 1], (size_t)(w->set.count - i - 1) * sizeof w->items[0]);
      w->set.count--;
      i--;
    }
  }
  // move: most entities a little, some a lot (wrapping), some not at all
  for (int i = 0; i < w->set.count; i++) {
    arb_proto_entity* e = &w->items[i];
    if (chance(40)) continue;
    if (chance(50)) e->state.x = wrap_add(e->state.x, (int32_t)(rnd() % 64) - 32);
    if (chance(50)) e->state.y = chance(5) ? random_i32() : wrap_add(e->state.y, (int32_t)(rnd() % 64) - 32);
    if (chance(30)) e->state.angle = (uint16_t)(e->state.angle + rnd() % 2000);
    if (chance(20)) e->state.vx = random_i32();
    if (chance(20)) e->state.vy = random_i32();
    if (chance(10)) e->state.w = random_i32();
    if (chance(1)) {  // description changes: re-sent as entered
      e->desc_version++;
      w->desc[e->id] = random_desc(e->id, e->desc_version);
    }
  }
  // enter (ids only grow, so the set stays sorted)
  int enter = chance(10) ? (int)(rnd() % 80) : (int)(rnd() % 4);
  for (int i = 0; i < enter; i++) world_add(w);
}

static void assert_same_states(const arb_proto_entity_set* a, const arb_proto_entity_set* b) {
  assert_int_equal(a->count, b->count);
  for (int i = 0; i < a->count; i++) {
    assert_int_equal(a->items[i].id, b->items[i].id);
    assert_memory_equal(&a->items[i].state, &b->items[i].state, sizeof a->items[i].state);
  }
}

typedef struct view_slot {
  uint32_t tick;  // 0 = empty
  arb_proto_entity items[MAX_E];
  arb_proto_entity_set set;
} view_slot;

static view_slot* slot_for(view_slot* ring, uint32_t tick) {
  view_slot* s = &ring[tick % RING];
  return s->tick == tick ? s : NULL;
}

static void test_proto_delta_random_loss(void** state) {
  (void)state;
  static world w;
  static view_slot server_ring[RING], client_ring[RING];
  static arb_proto_entity full_items[MAX_E], work_items[MAX_E];
  static arb_proto_entity_desc client_desc[MAX_E * 50];
  static arb_proto_snapshot part;
  memset(&w, 0, sizeof w);
  w.set.items = w.items;
  w.set.cap = MAX_E;
  w.next_id = 1;
  for (int i = 0; i < 150; i++) world_add(&w);
  for (int i = 0; i < RING; i++) {
    server_ring[i].tick = client_ring[i].tick = 0;
    server_ring[i].set = (arb_proto_entity_set){server_ring[i].items, 0, MAX_E};
    client_ring[i].set = (arb_proto_entity_set){client_ring[i].items, 0, MAX_E};
  }
  arb_proto_builder_def def = {500, MAX_E};  // small packets: most snapshots split
  arb_proto_snapshot_builder *b, *bfull;
  assert_int_equal(arb_proto_snapshot_builder_create(&def, &b), 0);
  assert_int_equal(arb_proto_snapshot_builder_create(&def, &bfull), 0);

  uint32_t acked = 0;  // newest tick the server knows the client completed
  int completed = 0, deltas = 0, fulls = 0, split = 0;
  for (uint32_t tick = 1; tick <= 1000; tick++) {
    world_step(&w);
    // server: delta against the acked view if it is still in the ring, else full
    view_slot* base = acked ? slot_for(server_ring, acked) : NULL;
    view_slot* sent = &server_ring[tick % RING];
    sent->tick = 0;
    arb_proto_build_args a;
    memset(&a, 0, sizeof a);
    a.tick = tick;
    a.baseline_tick = base ? acked : 0;
    a.last_input_seq = tick * 2;
    a.baseline = base ? &base->set : NULL;
    a.current = &w.set;
    a.describe = describe;
    a.describe_user = &w;
    static arb_proto_entity sent_tmp[2 * MAX_E];
    arb_proto_entity_set sent_set = {sent_tmp, 0, 2 * MAX_E};
    a.sent = &sent_set;
    arb_proto_build_result r;
    assert_int_equal(arb_proto_snapshot_build(b, &a, &r), 0);
    assert_int_equal(r.deferred, 0);
    assert_same_states(&sent_set, &w.set);  // nothing deferred: the sent view is the world
    assert_int_equal(arb_proto_entity_set_copy(&sent->set, &sent_set), 0);
    sent->tick = tick;
    if (r.packet_count > 1) split++;
    if (a.baseline_tick) deltas++; else fulls++;

    // the truth, as a full snapshot gives it
    arb_proto_build_args fa = a;
    fa.baseline_tick = 0;
    fa.baseline = NULL;
    static arb_proto_entity fsent[2 * MAX_E];
    arb_proto_entity_set fsent_set = {fsent, 0, 2 * MAX_E};
    fa.sent = &fsent_set;
    arb_proto_build_result fr;
    assert_int_equal(arb_proto_snapshot_build(bfull, &fa, &fr), 0);
    arb_proto_entity_set full_view = {full_items, 0, MAX_E};
    for (int p = 0; p < fr.packet_count; p++) {
      assert_true(fr.sizes[p] <= 500);
      assert_int_equal(arb_proto_decode_snapshot(fr.packets[p], (size_t)fr.sizes[p], &part, NULL), 0);
      assert_int_equal(part.baseline_tick, 0);
      assert_int_equal(arb_proto_entity_set_apply(&full_view, &part, NULL), 0);
    }
    assert_same_states(&full_view, &w.set);

    // network: each packet is lost with 4 %; parts may arrive in any order
    int order[ARB_PROTO_MAX_PARTS];
    for (int p = 0; p < r.packet_count; p++) order[p] = p;
    for (int p = r.packet_count - 1; p > 0; p--) {
      int q = (int)(rnd() % (uint32_t)(p + 1));
      int t = order[p];
      order[p] = order[q];
      order[q] = t;
    }
    arb_proto_entity_set work = {work_items, 0, MAX_E};
    int got = 0, have_base = 1;
    for (int k = 0; k < r.packet_count; k++) {
      int p = order[k];
      assert_true(r.sizes[p] <= 500);
      if (chance(4)) continue;
      arb_proto_error err;
      assert_int_equal(arb_proto_decode_snapshot(r.packets[p], (size_t)r.sizes[p], &part, &err), 0);
      assert_int_equal(part.tick, tick);
      assert_int_equal(part.part_count, r.packet_count);
      if (got == 0) {
        // each part is usable on its own: start from the baseline view
        view_slot* cb = part.baseline_tick ? slot_for(client_ring, part.baseline_tick) : NULL;
        if (part.baseline_tick && !cb) {
          have_base = 0;  // must not happen: the server only deltas against acked ticks
          break;
        }
        if (cb)
          assert_int_equal(arb_proto_entity_set_copy(&work, &cb->set), 0);
        else
          work.count = 0;
      }
      assert_int_equal(arb_proto_entity_set_apply(&work, &part, &err), 0);
      for (int i = 0; i < part.entered_count; i++) client_desc[part.entered[i].id] = part.entered[i].desc;
      got++;
    }
    assert_true(have_base);
    if (got == r.packet_count) {
      // complete: exactly what the full snapshot gives, descriptions included
      assert_same_states(&work, &full_view);
      for (int i = 0; i < work.count; i++)
        assert_memory_equal(&client_desc[work.items[i].id], &w.desc[work.items[i].id], sizeof client_desc[0]);
      view_slot* cs = &client_ring[tick % RING];
      assert_int_equal(arb_proto_entity_set_copy(&cs->set, &work), 0);
      cs->tick = tick;
      completed++;
      // The ack itself is lost 30 % of the time, and all of them in 50-tick blackouts
      // (longer than the server's 32-tick history: it must fall back to full snapshots).
      if (!chance(30) && tick % 300 < 250) acked = tick;
    }
  }
  // the run exercised what it claims to
  print_message("completed %d of 1000, deltas %d, fulls %d, split %d\n", completed, deltas, fulls, split);
  assert_true(completed > 300);
  assert_true(deltas > 300);
  assert_true(fulls >= 3);
  assert_true(split > 100);
  arb_proto_snapshot_builder_destroy(b);
  arb_proto_snapshot_builder_destroy(bfull);
}

static int describe_box(void* user, uint32_t id, arb_proto_entity_desc* d) {
  (void)user;
  memset(d, 0, sizeof *d);
  d->shape = fx_box(1.0f, (float)(id % 5 + 1));
  return 0;
}

static void test_proto_delta_budget_and_priority(void** state) {
  (void)state;
  static arb_proto_entity cur_items[1000], sent_items[2000], view_items[2000];
  static arb_proto_snapshot part;
  arb_proto_entity_set cur = {cur_items, 1000, 1000};
  static uint32_t prio[1000];
  for (int i = 0; i < 1000; i++) {
    memset(&cur_items[i], 0, sizeof cur_items[i]);
    cur_items[i].id = (uint32_t)(i + 1);
    cur_items[i].state.x = i * 1000;
    prio[i] = (uint32_t)(i % 10);  // 100 entities of priority 9, ...
  }
  arb_proto_snapshot_builder* b;
  assert_int_equal(arb_proto_snapshot_builder_create(NULL, &b), 0);
  arb_proto_entity_set sent = {sent_items, 0, 2000};
  arb_proto_build_args a;
  memset(&a, 0, sizeof a);
  a.tick = 5;
  a.current = &cur;
  a.priority = prio;
  a.describe = describe_box;
  a.max_parts = 2;
  a.sent = &sent;
  arb_proto_build_result r;
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), 0);
  assert_int_equal(r.packet_count, 2);
  assert_true(r.deferred > 0);
  assert_int_equal(r.entered + r.deferred, 1000);
  assert_int_equal(sent.count, r.entered);
  // priority: every sent entity has a priority >= every deferred one
  uint32_t min_sent = 99, max_deferred = 0;
  for (int i = 0; i < 1000; i++) {
    int in = arb_proto_entity_set_find(&sent, (uint32_t)(i + 1)) != NULL;
    if (in && prio[i] < min_sent) min_sent = prio[i];
    if (!in && prio[i] > max_deferred) max_deferred = prio[i];
  }
  assert_true(min_sent >= max_deferred);
  // the client view equals `sent`
  arb_proto_entity_set view = {view_items, 0, 2000};
  for (int p = 0; p < r.packet_count; p++) {
    assert_true(r.sizes[p] <= ARB_PROTO_DEFAULT_PAYLOAD);
    assert_int_equal(arb_proto_decode_snapshot(r.packets[p], (size_t)r.sizes[p], &part, NULL), 0);
    assert_int_equal(arb_proto_entity_set_apply(&view, &part, NULL), 0);
  }
  assert_same_states(&view, &sent);
  // Deltas against what was sent converge: nothing is dropped, only delayed.
  static arb_proto_entity base_items[2000];
  arb_proto_entity_set base = {base_items, 0, 2000};
  int rounds = 0;
  while (r.deferred > 0 && rounds < 100) {
    assert_int_equal(arb_proto_entity_set_copy(&base, &sent), 0);
    a.tick++;
    a.baseline_tick = a.tick - 1;
    a.baseline = &base;
    assert_int_equal(arb_proto_snapshot_build(b, &a, &r), 0);
    for (int p = 0; p < r.packet_count; p++) {
      assert_int_equal(arb_proto_decode_snapshot(r.packets[p], (size_t)r.sizes[p], &part, NULL), 0);
      assert_int_equal(arb_proto_entity_set_apply(&view, &part, NULL), 0);
    }
    assert_same_states(&view, &sent);
    rounds++;
  }
  assert_int_equal(r.deferred, 0);
  assert_true(rounds >= 2);
  assert_same_states(&view, &cur);
  // An unchanged world gives one empty packet.
  assert_int_equal(arb_proto_entity_set_copy(&base, &sent), 0);
  a.tick++;
  a.baseline_tick = a.tick - 1;
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), 0);
  assert_int_equal(r.packet_count, 1);
  assert_int_equal(r.entered + r.changed + r.removed, 0);
  arb_proto_snapshot_builder_destroy(b);
}

static void test_proto_delta_bad_args(void** state) {
  (void)state;
  arb_proto_snapshot_builder* b;
  arb_proto_builder_def def = {100, 10};
  assert_int_equal(arb_proto_snapshot_builder_create(&def, &b), ARB_E_RANGE);
  def.payload_limit = ARB_PROTO_MIN_PAYLOAD;
  assert_int_equal(arb_proto_snapshot_builder_create(&def, &b), 0);
  arb_proto_entity items[3] = {{3, 0, {0}}, {2, 0, {0}}, {5, 0, {0}}};
  arb_proto_entity out[20];
  arb_proto_entity_set cur = {items, 3, 3}, sent = {out, 0, 20};
  arb_proto_build_args a;
  memset(&a, 0, sizeof a);
  a.tick = 1;
  a.current = &cur;
  a.describe = describe_box;
  a.sent = &sent;
  arb_proto_build_result r;
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), ARB_E_INVAL);  // not sorted
  items[1].id = 3;
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), ARB_E_INVAL);  // duplicate id
  items[0].id = 0;
  items[1].id = 4;
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), ARB_E_INVAL);  // id 0
  items[0].id = 1;
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), 0);
  sent.cap = 2;
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), ARB_E_NOSPACE);
  sent.cap = 20;
  cur.count = 11;  // over max_entities
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), ARB_E_INVAL);
  cur.count = 3;
  a.baseline_tick = 1;  // baseline must be older than the tick
  assert_int_equal(arb_proto_snapshot_build(b, &a, &r), ARB_E_INVAL);
  arb_proto_snapshot_builder_destroy(b);

  // apply refuses a part that does not fit the view's baseline, and leaves it untouched
  static arb_proto_snapshot part;
  memset(&part, 0, sizeof part);
  part.tick = 9;
  part.baseline_tick = 8;
  part.part_count = 1;
  part.changed_count = 1;
  part.changed[0].id = 77;
  part.changed[0].mask = 1;
  arb_proto_entity vitems[4] = {{1, 0, {0}}, {2, 0, {0}}};
  arb_proto_entity_set view = {vitems, 2, 4};
  arb_proto_error err;
  assert_int_equal(arb_proto_entity_set_apply(&view, &part, &err), ARB_E_NOT_FOUND);
  assert_string_equal(err.reason, "snapshot apply: changed entity 77 is not in the baseline view");
  assert_int_equal(view.count, 2);
}

ARB_TEST_MAIN(cmocka_unit_test(test_proto_delta_random_loss),
              cmocka_unit_test(test_proto_delta_budget_and_priority),
              cmocka_unit_test(test_proto_delta_bad_args))
