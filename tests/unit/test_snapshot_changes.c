// The builder's work from what changed: an entity held at rest, exactly, by the baseline,
// by what the client draws and by the world is skipped without a diff, and priorities are
// computed only for the entities the builder asks about (arb_snapshot_build_args.rank),
// descriptions are kept from one build to the next (stable_classes), and where the budget
// binds only the candidates that can fit are ordered. None may change
// anything: in random worlds (most bodies asleep, some moving as predicted,
// some pushed off their prediction, falling asleep and waking, re-described, entering and
// leaving a moving view), with random acks, lost snapshots, budgets, gravity and camera
// boxes, for two clients whose normal builds share one builder (one of them shown some
// entities a unit off), every packet, sent view and up-to-date flag of the normal build
// equals that of a build that diffs every entity and takes its priorities from
// arb_snapshot_priority_update, and describes every entering entity again instead of keeping
// descriptions.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../common/test_main.h"
// clang-format on

#include <arbiter/snapshot.h>
#include <arbiter/snapshot_drawn.h>
#include <arbiter/snapshot_priority.h>

#include "priority_fixture.h"
#include "test_rng.h"

#include "snapshot_internal.h"

#define N 300    // entities in the world
#define W 120    // entities in the client's view at most
#define RING 6   // views each side keeps
#define RATE 60  // ticks per second
#define EVERY 2  // ticks per snapshot

static uint64_t rng_state;
static uint32_t rnd(void) {
  return (uint32_t)(xorshift64_next(&rng_state) >> 16);
}
static int chance(int percent) {
  return (int)(rnd() % 100u) < percent;
}

typedef struct world {
  arb_snapshot_entity e[N];
  uint8_t asleep[N];
  int32_t gx, gy;
} world;

static void world_init(world* w, int gravity) {
  memset(w, 0, sizeof *w);
  uint32_t id = 0;
  w->gy = gravity ? -2511 : 0;
  for (int i = 0; i < N; ++i) {
    arb_snapshot_entity* e = &w->e[i];
    id += 1u + rnd() % 5u;
    e->id = id;
    uint32_t k = rnd() % 20u;
    e->cls = k < 16   ? ARB_SNAPSHOT_BODY
             : k < 18 ? ARB_SNAPSHOT_PARTICLE
             : k < 19 ? ARB_SNAPSHOT_LINK
                      : ARB_SNAPSHOT_WHEEL;
    e->desc_version = 1;
    if (e->cls == ARB_SNAPSHOT_BODY || e->cls == ARB_SNAPSHOT_PARTICLE) {
      e->s.x = (int32_t)(rnd() % 20000u) - 10000;
      e->s.y = (int32_t)(rnd() % 20000u) - 10000;
    }
    if (e->cls == ARB_SNAPSHOT_BODY || e->cls == ARB_SNAPSHOT_WHEEL) e->s.angle = (uint16_t)rnd();
    if (e->cls == ARB_SNAPSHOT_PARTICLE && chance(30)) e->s.flags = ARB_SNAPSHOT_FLAG_PINNED;
    w->asleep[i] = (uint8_t)chance(70);
  }
}

/* One snapshot interval: sleeping entities keep their state exactly; awake ones move as
 * predicted, some get pushed; some fall asleep (at rest), some wake, a few re-described. */
static void world_step(world* w, uint32_t tick) {
  for (int i = 0; i < N; ++i) {
    arb_snapshot_entity* e = &w->e[i];
    if (chance(1)) e->desc_version++;
    if (e->cls == ARB_SNAPSHOT_LINK) continue;
    if (w->asleep[i]) {
      if (chance(3)) w->asleep[i] = 0;
      continue;
    }
    if (chance(8)) {
      w->asleep[i] = 1;
      e->s.vx = e->s.vy = e->s.w = 0;
      continue;
    }
    arb_snapshot_state s = e->s;
    s.flags = (uint8_t)(s.flags | (w->gy != 0 && chance(50) ? ARB_SNAPSHOT_FLAG_BALLISTIC : 0));
    s = arb_snapshot_predict(&s, e->cls, EVERY, RATE, w->gx, w->gy);
    s.flags = e->s.flags;
    if (chance(30)) {
      s.vx += (int32_t)(rnd() % 401u) - 200;
      s.vy += (int32_t)(rnd() % 401u) - 200;
      s.w += (int32_t)(rnd() % 4001u) - 2000;
    }
    if (chance(10)) s.x += (int32_t)(rnd() % 7u) - 3;
    if (e->cls == ARB_SNAPSHOT_WHEEL) {
      s.vx = s.vy = 0;
      if (chance(20)) s.aux = (uint16_t)(s.aux + rnd() % 64u);
      s.flags = chance(10) ? ARB_SNAPSHOT_FLAG_SKID : 0;
    }
    if (e->cls == ARB_SNAPSHOT_PARTICLE) s.w = 0;
    if (e->cls == ARB_SNAPSHOT_PARTICLE && (e->s.flags & ARB_SNAPSHOT_FLAG_PINNED)) s = e->s;
    e->s = s;
    e->s.t0 = tick;
  }
}

static int describe(void* user, uint32_t id, arb_snapshot_desc* d) {
  const world* w = user;
  const arb_snapshot_entity* e = NULL;
  for (int i = 0; i < N && !e; ++i)
    if (w->e[i].id == id) e = &w->e[i];
  if (!e) return ARB_E_INVAL;
  memset(d, 0, sizeof *d);
  d->cls = e->cls;
  switch (e->cls) {
    case ARB_SNAPSHOT_BODY:
      d->shape_count = 1;
      d->shapes[0].kind = 1;
      d->shapes[0].count = 1;
      d->shapes[0].radius = 0.25f + 0.25f * (float)(e->desc_version % 3u);
      break;
    case ARB_SNAPSHOT_PARTICLE:
      d->radius = 0.1f;
      break;
    case ARB_SNAPSHOT_LINK:
      d->link_kind = ARB_SNAPSHOT_LINK_ROPE;
      d->a = 1;
      d->b = 2;
      break;
    default:
      d->a = 1;
      d->radius = 0.4f;
      break;
  }
  return 0;
}

/* One server-side client state with one way of building: a ring of sent views, the model
 * of what the client draws, priority accumulators. */
typedef struct side {
  arb_snapshot_builder* b;
  int lazy;  ///< 1: the normal build (skips, rank callback); 0: full diff, priority arrays
  arb_snapshot_entity ring_items[RING][2 * W];
  arb_snapshot_set ring[RING];
  uint32_t ring_tick[RING], ring_base[RING];
  arb_snapshot_entity drawn_items[2][3 * W];
  arb_snapshot_set drawn, drawn_tmp;
  arb_snapshot_priority prio;
  float acc[W], weight[W];
  uint8_t up[W];
  int stale[W];
} side;

static void side_init(side* s, int lazy) {
  memset(s, 0, sizeof *s);
  s->lazy = lazy;
  assert_int_equal(arb_snapshot_builder_create(0, 2 * W, &s->b), 0);
  arb__snapshot_builder_full_diff(s->b, !lazy);
  for (int i = 0; i < RING; ++i) s->ring[i] = (arb_snapshot_set){s->ring_items[i], 0, 2 * W};
  s->drawn = (arb_snapshot_set){s->drawn_items[0], 0, 3 * W};
  s->drawn_tmp = (arb_snapshot_set){s->drawn_items[1], 0, 3 * W};
  assert_int_equal(arb_snapshot_priority_init(&s->prio, W), 0);
}

static void side_free(side* s) {
  arb_snapshot_builder_destroy(s->b);
  arb_snapshot_priority_free(&s->prio);
}

static int slot_of(const side* s, uint32_t tick) {
  for (int i = 0; tick && i < RING; ++i)
    if (s->ring_tick[i] == tick) return i;
  return -1;
}

/* What one snapshot of the client needs, the same for both sides. */
typedef struct snap_in {
  arb_snapshot_set view;
  arb_vec2 pos[W];
  float speed[W];
  arb_snapshot_interest in;
  uint32_t tick, acked;
  int budget, max_parts, use_drawn;
  world* w;
} snap_in;

typedef struct rank_ctx {
  side* s;
  const snap_in* q;
} rank_ctx;

static void rank(void* user, int j, float* priority, float* weight) {
  rank_ctx* r = user;
  r->s->acc[j] = arb_snapshot_priority_next(&r->s->prio, r->q->view.items[j].id, r->q->pos[j],
                                            r->q->speed[j], weight);
  *priority = r->s->acc[j];
}

static int build(side* s, const snap_in* q, arb_snapshot_build_result* out) {
  int write = 0;  // the oldest slot: never the baseline (the newest acked one)
  for (int i = 1; i < RING; ++i)
    if (s->ring_tick[i] < s->ring_tick[write]) write = i;
  int base = slot_of(s, q->acked);
  if (base == write) base = -1;
  static const arb_snapshot_set empty = {NULL, 0, 0};
  arb_snapshot_build_args a;
  memset(&a, 0, sizeof a);
  a.h = (arb_snapshot_header){q->tick, base >= 0 ? s->ring_tick[base] : 0, 7, 0, 0, RATE, q->w->gx,
                              q->w->gy};
  a.baseline = base >= 0 ? &s->ring[base] : &empty;
  a.current = &q->view;
  rank_ctx rc = {s, q};
  if (s->lazy) {
    arb_snapshot_priority_begin(&s->prio, &q->in, 1.0f / 30.0f);
    a.rank = rank;
    a.rank_user = &rc;
  } else {
    arb_snapshot_priority_update(&s->prio, &q->view, q->pos, q->speed, &q->in, 1.0f / 30.0f, s->acc,
                                 s->weight);
    a.priority = s->acc;
    a.weight = s->weight;
  }
  a.describe = describe;
  a.describe_user = q->w;
  // The normal build keeps descriptions across builds (a re-described entity has a new
  // version, as the contract asks); the full one asks for every one.
  a.stable_classes = s->lazy ? ~0u : 0u;
  a.tol = arb_snapshot_default_tolerance();
  a.drawn = q->use_drawn ? &s->drawn : NULL;
  a.exact_id = q->in.avatar_id;
  a.byte_budget = q->budget;
  a.packet_overhead = 40;
  a.max_parts = q->max_parts;
  a.sent = &s->ring[write];
  a.up_to_date = s->up;
  a.stale = s->lazy ? s->stale : NULL;
  s->ring_tick[write] = 0;
  int rc_build = arb_snapshot_build(s->b, &a, out);
  if (rc_build != 0) return rc_build;
  if (s->lazy) {
    // The stale list is the items whose up-to-date flag is 0, in order.
    int k = 0;
    for (int j = 0; j < q->view.count; ++j)
      if (!s->up[j]) {
        assert_true(k < out->stale_count);
        assert_int_equal(s->stale[k++], j);
      }
    assert_int_equal(k, out->stale_count);
    arb_snapshot_priority_keep_stale(&s->prio, &q->view, s->acc, s->stale, out->stale_count);
  } else
    arb_snapshot_priority_sent(&s->prio, s->up);
  s->ring_tick[write] = q->tick;
  s->ring_base[write] = a.h.baseline_tick;
  int bs = slot_of(s, a.h.baseline_tick);
  assert_int_equal(
      arb_snapshot_drawn_apply(&s->drawn, &s->ring[write], bs >= 0 ? &s->ring[bs] : NULL,
                               a.h.baseline_tick, &s->drawn_tmp),
      0);
  arb_snapshot_set t = s->drawn;
  s->drawn = s->drawn_tmp;
  s->drawn_tmp = t;
  return 0;
}

/* The client's view: a window of the world that wanders, with holes that come and go. */
static void make_view(snap_in* q, world* w, int lo, int snapshot) {
  q->view.count = 0;
  for (int i = lo; i < lo + W && i < N; ++i) {
    if ((uint32_t)(i * 2654435761u + (uint32_t)(snapshot / 8) * 40503u) % 9u == 0) continue;
    int j = q->view.count++;
    q->view.items[j] = w->e[i];
    q->pos[j] = arb_v2((float)w->e[i].s.x / 128.0f, (float)w->e[i].s.y / 128.0f);
    q->speed[j] = (float)(abs(w->e[i].s.vx) + abs(w->e[i].s.vy)) / 256.0f;
  }
  memset(&q->in, 0, sizeof q->in);
  q->in.near_radius = 10.0f;
  if (q->view.count > 0 && chance(90)) {
    int k = q->view.count / 2;
    q->in.avatar_id = q->view.items[k].id;
    q->in.avatar = q->pos[k];
  }
  q->in.has_view = chance(30);
  q->in.view = (arb_aabb){{-20.0f, -20.0f}, {30.0f, 25.0f}};
}

static void assert_same(const side* x, const side* y, const arb_snapshot_build_result* rx,
                        const arb_snapshot_build_result* ry, int count) {
  assert_int_equal(rx->packet_count, ry->packet_count);
  for (int p = 0; p < rx->packet_count; ++p) {
    assert_int_equal(rx->sizes[p], ry->sizes[p]);
    assert_memory_equal(rx->packets[p], ry->packets[p], (size_t)rx->sizes[p]);
  }
  assert_int_equal(rx->deferred, ry->deferred);
  assert_memory_equal(x->up, y->up, (size_t)count);
  for (int i = 0; i < RING; ++i) {
    assert_int_equal(x->ring_tick[i], y->ring_tick[i]);
    assert_int_equal(x->ring[i].count, y->ring[i].count);
    for (int k = 0; k < x->ring[i].count; ++k) {
      const arb_snapshot_entity *a = &x->ring[i].items[k], *b = &y->ring[i].items[k];
      assert_int_equal(a->id, b->id);
      assert_int_equal(a->desc_version, b->desc_version);
      assert_true(a->s.x == b->s.x && a->s.y == b->s.y && a->s.vx == b->s.vx &&
                  a->s.vy == b->s.vy && a->s.w == b->s.w && a->s.angle == b->s.angle &&
                  a->s.aux == b->s.aux && a->s.flags == b->s.flags && a->s.t0 == b->s.t0);
    }
  }
}

/* One client of the world: its normal build and the reference build of the same
 * snapshots, and its acknowledgements. */
typedef struct client {
  side full, lazy;
  snap_in q;
  arb_snapshot_entity view_items[W];
  uint32_t acked, pending[RING];
  int skipped;  ///< entities in view the normal build never diffed
} client;

/* One snapshot of client c, both builds, compared. perturb: some of the view's awake
 * entities are shown to this client a unit off (a server may show clients different
 * states of one entity at one tick; the builder must not mix them up). */
static void client_snapshot(client* c, const snap_in* shared, int perturb) {
  snap_in* q = &c->q;
  arb_snapshot_entity* items = c->view_items;
  *q = *shared;
  q->view.items = items;
  memcpy(items, shared->view.items, (size_t)shared->view.count * sizeof *items);
  for (int j = 0; perturb && j < q->view.count; ++j)
    if (items[j].cls == ARB_SNAPSHOT_BODY && (items[j].s.vx != 0 || items[j].s.vy != 0) &&
        chance(30))
      items[j].s.x += 1 + (int32_t)(rnd() % 3u);
  // Acks: each snapshot arrives with 80 %, acknowledged 1..3 snapshots later.
  for (int k = 0; k < RING; ++k)
    if (c->pending[k] && c->pending[k] + (uint32_t)(EVERY * (1 + (int)(rnd() % 3u))) <= q->tick) {
      if (chance(80) && c->pending[k] > c->acked) c->acked = c->pending[k];
      c->pending[k] = 0;
    }
  q->acked = c->acked;
  uint32_t b = rnd() % 10u;
  q->budget = b < 3 ? 0 : b < 4 ? 70 + (int)(rnd() % 40u) : b < 6 ? 250 : b < 8 ? 700 : 2400;
  q->max_parts = chance(10) ? 1 : 0;
  q->use_drawn = !chance(10);
  arb_snapshot_build_result rf, rl;
  int ef = build(&c->full, q, &rf), el = build(&c->lazy, q, &rl);
  assert_int_equal(ef, 0);
  assert_int_equal(el, 0);
  assert_same(&c->full, &c->lazy, &rf, &rl, q->view.count);
  assert_int_equal(c->full.drawn.count, c->lazy.drawn.count);
  for (int k = 0; k < RING; ++k)
    if (!c->pending[k]) {
      c->pending[k] = q->tick;
      break;
    }
  for (int j = 0; j < q->view.count; ++j) c->skipped += c->lazy.up[j];
}

/* Two clients see the same world. Their normal builds share one builder, as the clients
 * of a server's snapshot thread do, so what it keeps from one client's build for the
 * next (descriptions) is used across clients with different baselines, budgets and
 * drawn models, and nothing of one client's build may leak into the other's. */
static void one_world(uint64_t seed, int gravity, int snapshots) {
  rng_state = seed;
  static world w;
  static client cl[2];
  static snap_in q;
  static arb_snapshot_entity view_items[W];
  world_init(&w, gravity);
  memset(cl, 0, sizeof cl);
  for (int i = 0; i < 2; ++i) {
    side_init(&cl[i].full, 0);
    side_init(&cl[i].lazy, 1);
  }
  arb_snapshot_builder_destroy(cl[1].lazy.b);
  cl[1].lazy.b = cl[0].lazy.b;
  q.view = (arb_snapshot_set){view_items, 0, W};
  q.w = &w;
  int lo = N / 3;
  for (int n = 1; n <= snapshots; ++n) {
    uint32_t tick = (uint32_t)(n * EVERY);
    world_step(&w, tick);
    lo += (int)(rnd() % 9u) - 4;
    lo = lo < 0 ? 0 : lo > N - W ? N - W : lo;
    make_view(&q, &w, lo, n);
    q.tick = tick;
    client_snapshot(&cl[0], &q, 0);
    client_snapshot(&cl[1], &q, n % 4 == 0);
  }
  for (int i = 0; i < 2; ++i)
    assert_true(cl[i].skipped > snapshots * 20);  // most of the view is at rest: skipped
  cl[1].lazy.b = NULL;                            // shared: destroyed with client 0's
  for (int i = 0; i < 2; ++i) {
    side_free(&cl[i].full);
    side_free(&cl[i].lazy);
  }
}

// The builder sizes a record from three parts while it searches for what fits the budget
// (arb__snapshot_gap_bits + arb__snapshot_fixed_bits + arb__snapshot_desc_ref_bits); their sum must
// be arb__snapshot_record_bits, the writer's own count, for every kind of record.
static void record_bits_in_parts(void** state) {
  (void)state;
  rng_state = 0x5eed0001u;
  static const int32_t scales[] = {0, 3, 40, 700, 90000, 2000000000};
  for (int t = 0; t < 20000; ++t) {
    arb_snapshot_record r;
    memset(&r, 0, sizeof r);
    r.id = 1u + rnd() % (chance(10) ? 4000000000u : 5000u);
    r.op = (uint8_t)(rnd() % 3u);
    r.cls = (uint8_t)(1u + rnd() % 4u);
    r.mask = (uint8_t)(1u + rnd() % ARB_SNAPSHOT_M_ALL);
    int32_t s = scales[rnd() % 6u];
    r.v.x = s ? (int32_t)(rnd() % (uint32_t)s) - s / 2 : 0;
    r.v.y = s ? (int32_t)(rnd() % (uint32_t)s) - s / 2 : 0;
    r.v.vx = s ? (int32_t)(rnd() % (uint32_t)s) - s / 2 : 0;
    r.v.vy = (int32_t)(rnd() % 64u) - 32;
    r.v.w = s ? (int32_t)(rnd() % (uint32_t)s) : 0;
    r.v.angle = (uint16_t)rnd();
    r.v.aux = (uint16_t)rnd();
    r.v.flags = (uint8_t)(rnd() % (ARB_SNAPSHOT_FLAGS_ALL + 1u));
    r.desc = (uint8_t)(rnd() % ARB_SNAPSHOT_MAX_PART_ENTERED);
    int named = r.desc + (int)(rnd() % 3u) - 1;
    named = named < 0 ? 0 : named;
    uint32_t prev = chance(20) ? 0 : r.id - 1u - rnd() % (chance(50) ? r.id : 8u);
    assert_int_equal(arb__snapshot_record_bits(&r, prev, named),
                     arb__snapshot_gap_bits(r.id, prev) + arb__snapshot_fixed_bits(&r) +
                         arb__snapshot_desc_ref_bits(&r, named));
  }
}

static int cmp_u64(const void* x, const void* y) {
  uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
  return a < b ? -1 : a > b;
}

// The builder's key sort (a merge sort of insertion-sorted runs up to 1024 keys, a radix
// sort of the bytes above the candidate index above) against qsort: few distinct high
// parts (ties broken by the index) and many, short lists and long.
static void candidate_keys_sort(void** state) {
  (void)state;
  rng_state = 0x5eed0002u;
  static uint64_t keys[5000], tmp[5000], want[5000];
  static const int sizes[] = {0, 1, 2, 16, 17, 33, 64, 300, 1024, 1025, 5000};
  for (int round = 0; round < 220; ++round) {
    int n = sizes[round % 11];
    uint32_t spread = chance(50) ? 4u : 0xFFFFFFFFu;
    for (int k = 0; k < n; ++k) {
      uint64_t high = (uint64_t)(rnd() % 3u) << 62 | (uint64_t)(rnd() % spread) << 30;
      keys[k] = want[k] = high | (uint64_t)k;
    }
    qsort(want, (size_t)n, sizeof *want, cmp_u64);
    arb__snapshot_sort_keys(keys, tmp, n);
    if (n > 0) assert_memory_equal(keys, want, (size_t)n * sizeof *keys);
  }
}

static void same_packets_as_a_full_diff(void** state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 12; ++seed) one_world(seed * 0x9E3779B97F4A7C15ull, 0, 400);
}

static void same_packets_with_gravity(void** state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 6; ++seed) one_world(seed * 0xBF58476D1CE4E5B9ull, 1, 400);
}

/* Where every candidate costs exactly its least size -- consecutive ids, all moved alike,
 * equal keys so the first ones in id order go first, one part -- the most that can fit is
 * what does fit: a bound one bit too tight per record, or one byte short, takes fewer
 * records than the search over every size. */
static void fit_bound_is_exact_when_tight(void** state) {
  (void)state;
  enum { COUNT = 200 };
  _Static_assert(COUNT <= N, "the bodies fit a world");
  static arb_snapshot_entity cur_items[COUNT], sent_items[2][2][2 * COUNT];
  arb_snapshot_builder* builders[2];
  for (int s = 0; s < 2; ++s) {
    assert_int_equal(arb_snapshot_builder_create(0, 2 * COUNT, &builders[s]), 0);
    arb__snapshot_builder_full_diff(builders[s], s);
  }
  for (int i = 0; i < COUNT; ++i) {
    memset(&cur_items[i], 0, sizeof cur_items[i]);
    cur_items[i].id = (uint32_t)(i + 1);
    cur_items[i].cls = ARB_SNAPSHOT_BODY;
    cur_items[i].desc_version = 1;
    cur_items[i].s.x = 128 * i;
    cur_items[i].s.t0 = 2;
  }
  arb_snapshot_set cur = {cur_items, COUNT, COUNT};
  static world w;  // what describe() reads
  memset(&w, 0, sizeof w);
  memcpy(w.e, cur_items, sizeof cur_items);
  for (int budget = 100; budget <= 400; budget += 7) {
    arb_snapshot_build_result res[2];
    for (int s = 0; s < 2; ++s) {
      // Tick 2: everything enters (no budget). Tick 4: each body moved 5 units, acked and
      // drawn as sent at tick 2.
      arb_snapshot_set sent0 = {sent_items[s][0], 0, 2 * COUNT},
                       sent1 = {sent_items[s][1], 0, 2 * COUNT};
      arb_snapshot_build_args a;
      memset(&a, 0, sizeof a);
      a.h = (arb_snapshot_header){2, 0, 0, 0, 0, RATE, 0, 0};
      a.current = &cur;
      a.describe = describe;
      a.describe_user = &w;
      a.tol = arb_snapshot_default_tolerance();
      a.sent = &sent0;
      assert_int_equal(arb_snapshot_build(builders[s], &a, &res[s]), 0);
      assert_int_equal(res[s].entered, COUNT);
      for (int i = 0; i < COUNT; ++i) cur_items[i].s.x += 5, cur_items[i].s.t0 = 4;
      a.h.tick = 4;
      a.h.baseline_tick = 2;
      a.baseline = &sent0;
      a.drawn = &sent0;
      a.sent = &sent1;
      a.byte_budget = budget;
      a.packet_overhead = 40;
      assert_int_equal(arb_snapshot_build(builders[s], &a, &res[s]), 0);
      for (int i = 0; i < COUNT; ++i) cur_items[i].s.x -= 5, cur_items[i].s.t0 = 2;
    }
    assert_true(res[0].updated > 0);
    assert_int_equal(res[0].updated, res[1].updated);
    assert_int_equal(res[0].packet_count, res[1].packet_count);
    for (int p = 0; p < res[0].packet_count; ++p) {
      assert_int_equal(res[0].sizes[p], res[1].sizes[p]);
      assert_memory_equal(res[0].packets[p], res[1].packets[p], (size_t)res[0].sizes[p]);
    }
  }
  for (int s = 0; s < 2; ++s) arb_snapshot_builder_destroy(builders[s]);
}

/* The lazy accumulators equal arb_snapshot_priority_update's: an entity asked about gets its
 * accumulator plus relevance × dt; one up to date starts again from zero; one not asked
 * (held exactly, so up to date) keeps nothing. */
static void lazy_priorities_match(void** state) {
  (void)state;
  static priority_fixture f;
  priority_fixture_init(&f);
  const arb_snapshot_interest in = f.interest;
  float eager[4], lazy[4], weight[4], w;
  arb_snapshot_priority p, q, r;  // r: q kept from stale lists
  assert_int_equal(arb_snapshot_priority_init(&p, 8), 0);
  assert_int_equal(arb_snapshot_priority_init(&q, 8), 0);
  assert_int_equal(arb_snapshot_priority_init(&r, 8), 0);
  uint8_t up[3][4] = {{1, 0, 1, 0}, {1, 0, 1, 0}, {0, 1, 1, 1}};
  for (int round = 0; round < 3; ++round) {
    arb_snapshot_priority_update(&p, &f.set, f.pos, f.speed, &in, 0.1f, eager, weight);
    arb_snapshot_priority_begin(&q, &in, 0.1f);
    arb_snapshot_priority_begin(&r, &in, 0.1f);
    int stale[4], stale_count = 0;
    for (int j = 0; j < 4; ++j) {
      if (!up[round][j]) stale[stale_count++] = j;
      if (round > 0 && up[round - 1][j] && up[round][j]) continue;  // at rest: never asked
      lazy[j] = arb_snapshot_priority_next(&q, f.items[j].id, f.pos[j], f.speed[j], &w);
      assert_true(lazy[j] == eager[j]);
      assert_true(w == weight[j]);
      assert_true(arb_snapshot_priority_next(&r, f.items[j].id, f.pos[j], f.speed[j], NULL) ==
                  lazy[j]);
    }
    arb_snapshot_priority_sent(&p, up[round]);
    arb_snapshot_priority_keep(&q, &f.set, lazy, up[round]);
    arb_snapshot_priority_keep_stale(&r, &f.set, lazy, stale, stale_count);
    assert_int_equal(r.count, q.count);
    for (int i = 0; i < q.count; ++i) {
      assert_int_equal(r.ids[i], q.ids[i]);
      assert_true(r.acc[i] == q.acc[i]);
    }
  }
  assert_int_equal(q.count, 1);  // only 10 waits
  assert_int_equal(q.ids[0], 10);
  assert_true(q.acc[0] == eager[0]);
  arb_snapshot_priority_free(&p);
  arb_snapshot_priority_free(&q);
  arb_snapshot_priority_free(&r);
}

ARB_TEST_MAIN(cmocka_unit_test(record_bits_in_parts), cmocka_unit_test(candidate_keys_sort),
              cmocka_unit_test(fit_bound_is_exact_when_tight),
              cmocka_unit_test(same_packets_as_a_full_diff),
              cmocka_unit_test(same_packets_with_gravity), cmocka_unit_test(lazy_priorities_match))
