// The client's snapshot assembler (client/src/cl_snapshot.c) on hand-made packets:
// split snapshots complete only when every part arrived (in any order), duplicates and
// late parts are recognised, deltas apply against the baseline they name, a baseline the
// client no longer has is reported, contradicting parts are refused, the ring keeps the
// newest complete view as ticks roll by, and descriptions follow the entities (of each
// class: an id may change class between ticks; thousands of them in any id order, swept
// once their entities left); a compound body keeps every shape; a view
// completing late reads the fresher origins drawn from its siblings.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/snapshot_part.h"
#include "../common/test_main.h"
#include "cl_snapshot.h"

static arb_snapshot_part g_snap;
static uint8_t g_buf[ARB_PROTO_MAX_PAYLOAD];
static size_t g_len;

static void begin(uint32_t tick, uint32_t baseline, int part, int parts) {
  snapshot_part_begin(&g_snap, tick, baseline, part, parts);
}

/* A body at rest entering at x (its own description: a circle owned by id * 10). */
static void enter(uint32_t id, int32_t x) {
  arb_snapshot_desc* d =
      snapshot_part_enter(&g_snap, id, ARB_SNAPSHOT_BODY, (arb_snapshot_state){.x = x});
  d->owner = id * 10;
  d->shape_count = 1;
  d->shapes[0].kind = ARB_PROTO_SHAPE_CIRCLE;
  d->shapes[0].count = 1;
  d->shapes[0].radius = 0.5f;
}

/* A particle entering at x (particles have no shape in their description). */
static void enter_particle(uint32_t id, int32_t x) {
  arb_snapshot_desc* d =
      snapshot_part_enter(&g_snap, id, ARB_SNAPSHOT_PARTICLE, (arb_snapshot_state){.x = x});
  d->radius = 0.25f;
}

static void change(uint32_t id, int32_t dx) {
  arb_snapshot_record* r =
      snapshot_part_record(&g_snap, id, ARB_SNAPSHOT_UPDATE, ARB_SNAPSHOT_BODY);
  r->mask = ARB_SNAPSHOT_M_POS;
  r->v.x = dx;
}

static void encode(void) {
  int n = arb_proto_encode_snapshot(&g_snap, g_buf, sizeof g_buf);
  assert_true(n > 0 && (size_t)n <= sizeof g_buf);
  g_len = (size_t)n;
}

// The bytes in g_buf, received by s.
static int receive_bytes(cl_snapshots* s, cl_snap_result* res) {
  arb_proto_error err;
  memset(&err, 0, sizeof err);
  int rc = cl_snapshots_receive(s, g_buf, g_len, res, &err);
  if (rc < 0) assert_true(err.reason[0] != '\0');  // every refusal says why
  return rc;
}

// The part built so far, encoded as a server sends it, received by s.
static int receive(cl_snapshots* s, cl_snap_result* res) {
  encode();
  return receive_bytes(s, res);
}

// A one-part full snapshot of `tick` in which body `id` enters at x: s must take it.
static void take_full(cl_snapshots* s, cl_snap_result* res, uint32_t tick, uint32_t id, int32_t x) {
  begin(tick, 0, 0, 1);
  enter(id, x);
  assert_int_equal(receive(s, res), 1);
}

// A one-part delta of `tick` against `baseline` that moves body `id` by dx: s must take it.
static void take_delta(cl_snapshots* s, cl_snap_result* res, uint32_t tick, uint32_t baseline,
                       uint32_t id, int32_t dx) {
  begin(tick, baseline, 0, 1);
  change(id, dx);
  assert_int_equal(receive(s, res), 1);
}

static int32_t x_of(const cl_slot* sl, uint32_t id) {
  const cl_body* e = cl_body_set_find(&sl->bodies, id);
  assert_non_null(e);
  return e->q.x;
}

// cmocka fixture: a ring of 100 snapshots with the default allocator, as *state.
static int ring_setup(void** state) {
  static cl_mem mem = {NULL, NULL, NULL};
  cl_snapshots* s = calloc(1, sizeof *s);
  if (!s || cl_snapshots_init(s, 100, &mem) != 0) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int ring_teardown(void** state) {
  cl_snapshots_deinit(*state);
  free(*state);
  return 0;
}

static void test_client_snapshot_parts_any_order(void** state) {
  cl_snapshots* s = *state;
  cl_snap_result res;
  // A full snapshot of tick 10 in 3 parts, arriving 2, 0, (0 again), 1.
  begin(10, 0, 2, 3);
  enter(5, 500);
  assert_int_equal(receive(s, &res), 1);
  assert_false(res.completed);
  assert_int_equal(s->newest_complete, 0u);
  begin(10, 0, 0, 3);
  enter(1, 100);
  enter(2, 200);
  assert_int_equal(receive(s, &res), 1);
  assert_false(res.completed);
  assert_int_equal(receive_bytes(s, &res), 0);  // the same part again
  assert_int_equal(s->duplicates, 1u);
  begin(10, 0, 1, 3);
  enter(3, 300);
  assert_int_equal(receive(s, &res), 1);
  assert_true(res.completed && res.newest);
  assert_int_equal(s->newest_complete, 10u);
  assert_int_equal(res.slot->bodies.count, 4);
  assert_int_equal(x_of(res.slot, 5), 500);
  assert_int_equal(cl_snapshots_desc(s, 2)->owner, 20u);
  assert_int_equal(receive_bytes(s, &res), 0);  // a part of a complete tick
  assert_int_equal(s->duplicates, 2u);

  // Deltas of 12 and 14 against 10; 14 arrives first, 12 is still used (late, complete).
  take_delta(s, &res, 14, 10, 1, 40);
  assert_true(res.completed && res.newest);
  assert_int_equal(x_of(res.slot, 1), 140);
  assert_int_equal(x_of(res.slot, 2), 200);  // unchanged: from the baseline
  take_delta(s, &res, 12, 10, 1, 20);
  assert_true(res.completed);
  assert_false(res.newest);
  assert_int_equal(x_of(res.slot, 1), 120);
  assert_int_equal(s->newest_complete, 14u);
  assert_int_equal(s->late, 1u);

  // A delta against a baseline never held; one for an id the baseline lacks; parts
  // that disagree about their snapshot.
  begin(20, 11, 0, 1);
  change(1, 1);
  assert_int_equal(receive(s, &res), ARB_E_NOT_FOUND);
  assert_int_equal(s->baseline_missing, 1u);
  begin(21, 14, 0, 1);
  change(99, 1);
  assert_true(receive(s, &res) < 0);
  begin(22, 14, 0, 2);
  change(1, 1);
  assert_int_equal(receive(s, &res), 1);
  begin(22, 12, 1, 2);  // same tick, other baseline
  change(2, 1);
  assert_int_equal(receive(s, &res), ARB_E_CORRUPT);
  begin(22, 14, 1, 3);  // same tick, other part count
  assert_int_equal(receive(s, &res), ARB_E_CORRUPT);
  assert_true(s->errors >= 3);
  // Nothing of that touched the good views.
  assert_int_equal(x_of(cl_snapshots_get(s, 14), 1), 140);
  assert_int_equal(s->newest_complete, 14u);
}

// Body arrays held by views (and the spare one).
static int body_arrays(const cl_snapshots* s) {
  int n = s->spare_bodies.items != NULL;
  for (int i = 0; i < CL_SLOTS; i++) n += s->slots[i].bodies.items != NULL;
  return n;
}

// 200 ticks of deltas, each against the previous: the ring recycles its slots, the
// newest complete view is always there and right (and only it and the view completing
// hold body arrays, one more kept spare: never more than three), and a part for a
// long-gone tick is dropped as late.
static void test_client_snapshot_ring_rolls(void** state) {
  cl_snapshots* s = *state;
  cl_snap_result res;
  take_full(s, &res, 2, 7, 0);
  for (uint32_t t = 4; t <= 400; t += 2) {
    take_delta(s, &res, t, t - 2, 7, 1);
    assert_true(res.completed && res.newest);
    assert_true(body_arrays(s) <= 3);
  }
  const cl_slot* last = cl_snapshots_get(s, 400);
  assert_non_null(last);
  assert_int_equal(x_of(last, 7), 199);
  assert_null(cl_snapshots_get(s, 4));  // long recycled
  begin(6, 0, 0, 1);                    // a straggler from the distant past
  enter(8, 0);
  assert_int_equal(receive(s, &res), 0);
  assert_int_equal(s->late, 1u);
  assert_int_equal(s->newest_complete, 400u);
  // Random bytes are an error with a reason, never a crash.
  for (size_t i = 0; i < sizeof g_buf; i++) g_buf[i] = (uint8_t)(i * 37u + 11u);
  g_len = 100;
  assert_true(receive_bytes(s, &res) < 0);
  cl_snapshots_reset(s);
  assert_int_equal(s->newest_complete, 0u);
  assert_null(cl_snapshots_get(s, 400));
}

// An id that is a body in one tick's view and a particle in the next (a server that reused
// the id, or a hostile one): both views keep a description of their own class.
static void test_client_snapshot_id_changes_class(void** state) {
  cl_snapshots* s = *state;
  cl_snap_result res;
  take_full(s, &res, 10, 7, 100);
  begin(11, 0, 0, 1);
  enter_particle(7, 200);
  assert_int_equal(receive(s, &res), 1);
  assert_true(res.completed && res.newest);
  const cl_slot* older = cl_snapshots_get(s, 10);
  assert_non_null(older);
  cl_body b;  // an older view keeps its origins (its body array goes to a newer one)
  assert_true(cl_snapshots_body_at(older, 7, &b));
  assert_int_equal(b.q.x, 100);
  assert_non_null(cl_snapshots_desc(s, 7));  // tick 10 still draws body 7
  assert_int_equal(cl_snapshots_desc(s, 7)->owner, 70u);
  const cl_extra_desc* p = cl_snapshots_extra(s, 7, ARB_SNAPSHOT_PARTICLE);
  assert_non_null(p);
  assert_true(p->radius == 0.25f);
  assert_null(cl_snapshots_extra(s, 7, ARB_SNAPSHOT_LINK));
  // Once no view holds the body any more, the sweep may drop its description, never the
  // particle's.
  for (uint32_t t = 12; t < 12 + 4 * CL_SLOTS; t++) {
    begin(t, t - 1, 0, 1);
    assert_int_equal(receive(s, &res), 1);
  }
  assert_null(cl_snapshots_get(s, 10));
  assert_non_null(cl_snapshots_extra(s, 7, ARB_SNAPSHOT_PARTICLE));
}

// Thousands of descriptions arriving in no particular id order (a client joining a large
// world) are each found; once their entities left every view the sweep drops them and
// keeps those still drawn.
static void test_client_snapshot_many_descriptions(void** state) {
  (void)state;
  static cl_mem mem = {NULL, NULL, NULL};
  static cl_snapshots big;
  enum { N = 3000, PER = 30 };
  assert_int_equal(cl_snapshots_init(&big, N, &mem), 0);
  cl_snap_result res;
  uint32_t tick = 1;
  for (int k = 0; k < N / PER; k++, tick++) {
    begin(tick, k == 0 ? 0 : tick - 1, 0, 1);
    // Snapshot k enters ids k+1, k+1+100, k+1+200, ...: every snapshot spans the range.
    for (int j = 0; j < PER; j++) enter((uint32_t)(k + 1 + j * (N / PER)), j);
    assert_int_equal(receive(&big, &res), 1);
    assert_true(res.completed);
  }
  for (uint32_t id = 1; id <= N; id++) {
    const cl_body_desc* d = cl_snapshots_desc(&big, id);
    assert_non_null(d);
    assert_int_equal(d->owner, id * 10);
  }
  assert_null(cl_snapshots_desc(&big, N + 1));
  // All but the first 100 leave, 100 a snapshot; then the ring rolls past every view that
  // held them.
  for (uint32_t id = 101; id <= N; tick++) {
    begin(tick, tick - 1, 0, 1);
    for (int j = 0; j < 100 && id <= N; j++, id++)
      snapshot_part_record(&g_snap, id, ARB_SNAPSHOT_REMOVE, 0);
    assert_int_equal(receive(&big, &res), 1);
  }
  for (int k = 0; k < 2 * CL_SLOTS; k++, tick++) {
    begin(tick, tick - 1, 0, 1);
    assert_int_equal(receive(&big, &res), 1);
  }
  assert_true(big.ndescs <= 2 * 100 * (CL_SLOTS + 1) + 256);
  for (uint32_t id = 1; id <= 100; id++) assert_non_null(cl_snapshots_desc(&big, id));
  cl_snapshots_deinit(&big);
}

// A view completing late (older than the newest) is evaluated against what is drawn: a
// body takes a sibling's fresher origin when it is not after the view's tick, and one
// whose drawn origin is after the tick is left out unless the view wrote it itself.
static void test_client_snapshot_late_view_reads_the_drawn_set(void** state) {
  cl_snapshots* s = *state;
  cl_snap_result res;
  begin(10, 0, 0, 1);
  enter(1, 100);
  enter(2, 200);
  enter(3, 300);
  assert_int_equal(receive(s, &res), 1);
  take_delta(s, &res, 13, 10, 1, 30);  // corrects 1
  begin(15, 10, 0, 1);                 // corrects 2 and 3
  change(2, 50);
  change(3, 50);
  assert_int_equal(receive(s, &res), 1);
  assert_true(res.newest);
  assert_int_equal(x_of(res.slot, 1), 130);  // drawn from 13's origin
  take_delta(s, &res, 14, 10, 3, 40);        // late; corrects 3 only
  assert_true(res.completed);
  assert_false(res.newest);
  assert_int_equal(res.slot->bodies.count, 2);
  assert_int_equal(x_of(res.slot, 1), 130);             // 13's origin: fresher than 10's, before 14
  assert_null(cl_body_set_find(&res.slot->bodies, 2));  // 15 gave its history
  assert_int_equal(x_of(res.slot, 3), 340);             // its own correction
  assert_int_equal(res.slot->origins.count, 3);         // deltas still apply to its own view
}

// A compound body (a box and two circles) keeps all three shapes, in order; a one-shape
// body has none beside its first.
static void test_client_snapshot_compound_keeps_every_shape(void** state) {
  cl_snapshots* s = *state;
  cl_snap_result res;
  begin(10, 0, 0, 1);
  enter(1, 100);
  arb_snapshot_desc* d =
      snapshot_part_enter(&g_snap, 2, ARB_SNAPSHOT_BODY, (arb_snapshot_state){.x = 300});
  d->shape_count = 3;
  d->shapes[0].kind = ARB_PROTO_SHAPE_POLYGON;
  d->shapes[0].count = 4;
  const arb_vec2 box[4] = {{-1, -0.5f}, {1, -0.5f}, {1, 0.5f}, {-1, 0.5f}};
  memcpy(d->shapes[0].points, box, sizeof box);
  for (int k = 1; k < 3; ++k) {
    d->shapes[k].kind = ARB_PROTO_SHAPE_CIRCLE;
    d->shapes[k].count = 1;
    d->shapes[k].radius = 0.25f * (float)k;
    d->shapes[k].points[0] = (arb_vec2){k == 1 ? -1.0f : 1.0f, -0.75f};
  }
  assert_int_equal(receive(s, &res), 1);
  const arb_proto_shape* more = NULL;
  assert_int_equal(cl_snapshots_more_shapes(s, 1, &more), 0);
  assert_int_equal(cl_snapshots_more_shapes(s, 2, &more), 2);
  assert_int_equal(cl_snapshots_desc(s, 2)->shape.kind, ARB_PROTO_SHAPE_POLYGON);
  assert_int_equal(more[0].kind, ARB_PROTO_SHAPE_CIRCLE);
  assert_true(more[0].radius == 0.25f && more[0].points[0].x == -1.0f);
  assert_true(more[1].radius == 0.5f && more[1].points[0].x == 1.0f);
  assert_int_equal(cl_snapshots_more_shapes(s, 99, NULL), 0);
}

// A full view over max_entities (100) entities is refused when its bodies are evaluated:
// the newest view, whose body array stays its own meanwhile, keeps drawing.
static void test_client_snapshot_refused_view_keeps_the_newest(void** state) {
  cl_snapshots* s = *state;
  cl_snap_result res;
  take_full(s, &res, 2, 7, 0);
  take_delta(s, &res, 4, 2, 7, 5);
  begin(6, 0, 0, 1);
  for (uint32_t id = 1000; id < 1120; id++) enter_particle(id, 0);
  assert_int_equal(receive(s, &res), ARB_E_TOO_BIG);
  assert_int_equal(s->newest_complete, 4u);
  assert_int_equal(x_of(cl_snapshots_get(s, 4), 7), 5);
}

ARB_TEST_MAIN(cmocka_unit_test_setup_teardown(test_client_snapshot_parts_any_order, ring_setup,
                                              ring_teardown),
              cmocka_unit_test_setup_teardown(test_client_snapshot_id_changes_class, ring_setup,
                                              ring_teardown),
              cmocka_unit_test_setup_teardown(test_client_snapshot_ring_rolls, ring_setup,
                                              ring_teardown),
              cmocka_unit_test_setup_teardown(test_client_snapshot_late_view_reads_the_drawn_set,
                                              ring_setup, ring_teardown),
              cmocka_unit_test_setup_teardown(test_client_snapshot_compound_keeps_every_shape,
                                              ring_setup, ring_teardown),
              cmocka_unit_test_setup_teardown(test_client_snapshot_refused_view_keeps_the_newest,
                                              ring_setup, ring_teardown),
              cmocka_unit_test(test_client_snapshot_many_descriptions))
