// Per-client snapshots (see sv_snapshot.h).
#include "sv_snapshot.h"

#include <arbiter/bits.h>
#include <arbiter/snapshot_drawn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && !defined(ARB_NO_SIMD)
#include <emmintrin.h>  // mark_within: four radius tests at a time
#define SV_SNAP_SSE2 1
#endif

int sv_snap_scratch_init(sv_snap_scratch* x, int max_entities) {
  memset(x, 0, sizeof *x);
  int rc = arb_snapshot_builder_create(ARB_PROTO_DEFAULT_PAYLOAD, 2 * max_entities, &x->builder);
  if (rc != 0) return rc;
  size_t n = (size_t)max_entities;
  x->picked = calloc(n, sizeof *x->picked);
  x->picked_bits = calloc((n + 63) / 64, sizeof *x->picked_bits);
  x->drawn_inserts = malloc(2 * n * sizeof *x->drawn_inserts);  // a sent view's items at most
  x->view.items = calloc(n, sizeof *x->view.items);
  x->prio = calloc(n, sizeof *x->prio);
  x->stale = calloc(n, sizeof *x->stale);
  if (!x->picked || !x->picked_bits || !x->drawn_inserts || !x->view.items || !x->prio ||
      !x->stale) {
    sv_snap_scratch_free(x);
    return ARB_E_NOMEM;
  }
  x->view.cap = max_entities;
  return 0;
}

void sv_snap_scratch_free(sv_snap_scratch* x) {
  if (x->builder) arb_snapshot_builder_destroy(x->builder);
  free(x->picked);
  free(x->picked_bits);
  free(x->drawn_inserts);
  free(x->view.items);
  free(x->prio);
  free(x->stale);
  memset(x, 0, sizeof *x);
}

int sv_snapshot_init(sv_snapshot* s, int max_entities) {
  memset(s, 0, sizeof *s);
  if (max_entities < 1 || max_entities > ARB_PROTO_MAX_ENTITIES / 2) return ARB_E_RANGE;
  s->cap = max_entities;
  int rc = sv_capture_init(&s->capture, max_entities);
  if (rc != 0) {
    sv_snapshot_free(s);
    return rc;
  }
  s->grid.start = calloc((size_t)SV_SNAP_GRID_SIDE * SV_SNAP_GRID_SIDE + 1, sizeof *s->grid.start);
  s->grid.items = calloc((size_t)max_entities, sizeof *s->grid.items);
  s->grid.at = calloc((size_t)max_entities, sizeof *s->grid.at);
  s->grid.cell_of = calloc((size_t)max_entities, sizeof *s->grid.cell_of);
  if (!s->grid.start || !s->grid.items || !s->grid.at || !s->grid.cell_of) {
    sv_snapshot_free(s);
    return ARB_E_NOMEM;
  }
  return 0;
}

void sv_snapshot_free(sv_snapshot* s) {
  sv_capture_free(&s->capture);
  free(s->grid.start);
  free(s->grid.items);
  free(s->grid.at);
  free(s->grid.cell_of);
  memset(s, 0, sizeof *s);
}

// Cell coordinate of v along an axis of n cells from x0 (NaN and outliers clamp).
static int cell_of(float v, float x0, float cell, int n) {
  float f = (v - x0) / cell;
  if (!(f >= 0.0f)) return 0;
  return f >= (float)(n - 1) ? n - 1 : (int)f;
}

// A counting sort of the captured positions into cells of about half the view radius
// (a radius query then reads at most 5 x 5 cells), larger when the world is wider than
// SV_SNAP_GRID_SIDE such cells. Items go in in capture order, so each cell's list is
// increasing. Their positions are copied beside them: every client's query reads a cell's
// positions in a row instead of looking each one up by capture index.
static void build_grid(sv_snap_grid* g, const sv_capture* c, float view_radius) {
  int n = c->set.count;
  float lo_x = 0.0f, lo_y = 0.0f, hi_x = 0.0f, hi_y = 0.0f;
  for (int i = 0; i < n; ++i) {
    arb_vec2 p = c->positions[i];
    if (i == 0 || p.x < lo_x) lo_x = p.x;
    if (i == 0 || p.y < lo_y) lo_y = p.y;
    if (i == 0 || p.x > hi_x) hi_x = p.x;
    if (i == 0 || p.y > hi_y) hi_y = p.y;
  }
  float span = hi_x - lo_x > hi_y - lo_y ? hi_x - lo_x : hi_y - lo_y;
  float cell = view_radius * 0.5f;
  if (span / cell > (float)(SV_SNAP_GRID_SIDE - 1)) cell = span / (float)(SV_SNAP_GRID_SIDE - 1);
  if (!(cell > 0.0f) || !(span < 1.0e30f)) cell = 1.0e30f;  // non-finite: one cell
  g->x0 = lo_x;
  g->y0 = lo_y;
  g->cell = cell;
  g->nx = cell_of(hi_x, lo_x, cell, SV_SNAP_GRID_SIDE) + 1;
  g->ny = cell_of(hi_y, lo_y, cell, SV_SNAP_GRID_SIDE) + 1;
  int cells = g->nx * g->ny;
  memset(g->start, 0, ((size_t)cells + 1) * sizeof *g->start);
  for (int i = 0; i < n; ++i) {
    arb_vec2 p = c->positions[i];
    int k = cell_of(p.y, lo_y, cell, g->ny) * g->nx + cell_of(p.x, lo_x, cell, g->nx);
    g->cell_of[i] = k;
    g->start[k + 1]++;
  }
  for (int k = 0; k < cells; ++k) g->start[k + 1] += g->start[k];
  for (int i = 0; i < n; ++i) {  // start[k] runs ahead while cell k fills, then is restored
    int j = g->start[g->cell_of[i]]++;
    g->items[j] = i;
    g->at[j] = c->positions[i];
  }
  for (int k = cells; k > 0; --k) g->start[k] = g->start[k - 1];
  g->start[0] = 0;
}

void sv_snapshot_capture(sv_snapshot* s, arb_game* game, float view_radius) {
  sv_capture_run(&s->capture, game);
  s->has_grid = view_radius > 0.0f;
  if (s->has_grid) build_grid(&s->grid, &s->capture, view_radius);
}

int sv_snap_client_init(sv_snap_client* c, int max_entities) {
  memset(c, 0, sizeof *c);
  // The builder wants room for current + baseline in a sent view. Not zeroed: a view's
  // items are written before they are counted, and zeroing 16 views per joining client
  // stalls the tick in page faults when hundreds join a 10 000-body world.
  c->cap = 2 * max_entities;
  c->storage = malloc((size_t)SV_SNAP_RING * (size_t)c->cap * sizeof *c->storage);
  // A drawn set holds a view plus entities entered in snapshots not yet acknowledged.
  int drawn_cap = c->cap + max_entities;
  c->drawn_storage = malloc((size_t)drawn_cap * sizeof *c->drawn_storage);
  c->drawn = (arb_snapshot_set){c->drawn_storage, 0, drawn_cap};
  if (c->storage == NULL || c->drawn_storage == NULL ||
      arb_snapshot_priority_init(&c->priority, max_entities) != 0) {
    sv_snap_client_free(c);
    return ARB_E_NOMEM;
  }
  for (int i = 0; i < SV_SNAP_RING; ++i) {
    c->ring[i].items = c->storage + (size_t)i * (size_t)c->cap;
    c->ring[i].cap = c->cap;
  }
  sv_snap_client_reset(c, ARB_SNAPSHOT_RATE_FLOOR_KBPS);
  return 0;
}

void sv_snap_client_reset(sv_snap_client* c, int ceiling_kbps) {
  memset(c->ring_tick, 0, sizeof c->ring_tick);
  for (int i = 0; i < SV_SNAP_RING; ++i) c->ring[i].count = 0;
  c->acked_tick = 0;
  memset(c->ring_base, 0, sizeof c->ring_base);
  memset(c->ring_acked, 0, sizeof c->ring_acked);
  memset(c->ring_settled, 0, sizeof c->ring_settled);
  c->drawn.count = 0;
  c->priority.count = 0;
  arb_snapshot_rate_init(&c->rate, ceiling_kbps);
  c->unacked_full_since = 0;
}

void sv_snap_client_free(sv_snap_client* c) {
  free(c->storage);
  free(c->drawn_storage);
  arb_snapshot_priority_free(&c->priority);
  memset(c, 0, sizeof *c);
}

static int find_slot(const sv_snap_client* c, uint32_t tick) {
  if (tick == 0) return -1;
  for (int i = 0; i < SV_SNAP_RING; ++i)
    if (c->ring_tick[i] == tick) return i;
  return -1;
}

// The most recently written view the client has acked past (the warmest in the cache),
// else an empty slot, else the oldest view.
static int slot_to_write(const sv_snap_client* c) {
  int obsolete = -1, empty = -1, oldest = 0;
  for (int i = 0; i < SV_SNAP_RING; ++i) {
    uint32_t t = c->ring_tick[i];
    if (t == 0) {
      if (empty < 0) empty = i;
    } else if (t < c->acked_tick) {
      if (obsolete < 0 || t > c->ring_tick[obsolete]) obsolete = i;
    }
    if (t < c->ring_tick[oldest]) oldest = i;  // matters only when no slot is empty
  }
  return obsolete >= 0 ? obsolete : empty >= 0 ? empty : oldest;
}

void sv_snap_client_ack(sv_snap_client* c, uint32_t tick) {
  int slot = find_slot(c, tick);
  if (slot < 0) return;
  c->ring_acked[slot] = 1;
  c->unacked_full_since = 0;
  if (tick > c->acked_tick) c->acked_tick = tick;
}

// drawn = what the client draws after the view of `slot` (sent) arrives, updated in place
// (inserts: x's scratch). On no room: the view alone (less than the client draws, so the
// server only sends more).
static void drawn_apply(sv_snap_client* c, int slot, int* inserts) {
  int b = find_slot(c, c->ring_base[slot]);
  const arb_snapshot_set* base = b >= 0 ? &c->ring[b] : NULL;
  if (arb_snapshot_drawn_apply_in_place(&c->drawn, &c->ring[slot], base, c->ring_base[slot],
                                        inserts) != 0)
    arb_snapshot_set_copy(&c->drawn, &c->ring[slot]);
}

// A snapshot at or before the newest ack that was never acknowledged is taken as lost:
// the model restarts from the acknowledged view and replays the ones still in flight.
// Runs before the slot to write is chosen (slots acked past are reused first).
static void drawn_settle(sv_snap_client* c, int* inserts) {
  int lost = 0;
  for (int i = 0; i < SV_SNAP_RING; ++i) {
    if (c->ring_tick[i] == 0 || c->ring_tick[i] > c->acked_tick || c->ring_settled[i]) continue;
    c->ring_settled[i] = 1;
    lost |= !c->ring_acked[i];
  }
  if (!lost) return;
  int a = find_slot(c, c->acked_tick);
  c->drawn.count = 0;
  if (a >= 0) arb_snapshot_set_copy(&c->drawn, &c->ring[a]);
  for (uint32_t after = c->acked_tick;;) {  // in flight, oldest first
    int next = -1;
    for (int i = 0; i < SV_SNAP_RING; ++i)
      if (c->ring_tick[i] > after && (next < 0 || c->ring_tick[i] < c->ring_tick[next])) next = i;
    if (next < 0) break;
    drawn_apply(c, next, inserts);
    after = c->ring_tick[next];
  }
}

// A client's relevant set is gathered as a bit per capture index (x->picked_bits, all zero
// between builds): the radius and the box mark what they take, an item both take (or the
// avatar, taken apart too) is simply marked twice, and the bits read back word by word are
// the view in id (= capture) order. A view is a few hundred items over a few thousand
// indexes, so the read-back visits a few dozen words where a sort moved every item
// several times, and no list of picks is written and read again before it.
typedef struct pick_marks {
  uint64_t* bits;
  int lo, hi;  ///< every marked index lies in [lo, hi]; lo > hi: none marked
} pick_marks;

static void mark(uint64_t* bits, int item) {
  bits[item >> 6] |= (uint64_t)1 << (item & 63);
}

// Widens the marks' bounds to grid cell k's items (each cell's list is increasing: its
// first and last are its bounds), once per cell instead of once per mark.
static inline void cover_cell(pick_marks* m, const sv_snap_grid* g, int k) {
  int first = g->items[g->start[k]], last = g->items[g->start[k + 1] - 1];
  m->lo = first < m->lo ? first : m->lo;
  m->hi = last > m->hi ? last : m->hi;
}

// Reads the marks back in increasing order into x->picked (capture indexes) and x->view
// (their entities, copied as they are found), clearing them; returns how many.
static int gather(const sv_capture* c, sv_snap_scratch* x, pick_marks* m) {
  // Locals: an entity's copy may write any memory as far as the compiler knows, which
  // would reload every pointer once per entity.
  const arb_snapshot_entity* from = c->items;
  arb_snapshot_entity* to = x->view.items;
  int *picked = x->picked, n = 0;
  uint64_t* bits = m->bits;
  for (int wi = m->lo >> 6; m->lo <= m->hi && wi <= m->hi >> 6; ++wi) {
    for (uint64_t word = bits[wi]; word != 0; word &= word - 1) {
      int item = wi * 64 + arb_lowest_bit(word);
      picked[n] = item;
      to[n++] = from[item];
    }
    bits[wi] = 0;
  }
  return n;
}

static bool within(arb_vec2 p, arb_vec2 center, float r) {
  return arb_distance_sq(p, center) <= r * r;
}

// Marks the items of grid slots [j0, j1) within r of center. With SSE2, four at a time:
// within()'s operations per lane (center - p, squares, their sum, <= r * r, false for
// NaN), the same IEEE operations as one by one, so the same answers; the rest one by one.
// Most of what a client's view costs to pick is this test, for the cells the radius's
// edge crosses.
static void mark_within(const sv_snap_grid* g, int j0, int j1, arb_vec2 center, float r,
                        uint64_t* bits) {
  int j = j0;
#ifdef SV_SNAP_SSE2
  __m128 cx = _mm_set1_ps(center.x), cy = _mm_set1_ps(center.y), r_sq = _mm_set1_ps(r * r);
  for (; j + 4 <= j1; j += 4) {
    __m128 a = _mm_loadu_ps(&g->at[j].x), b = _mm_loadu_ps(&g->at[j + 2].x);  // x y x y
    __m128 dx = _mm_sub_ps(cx, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    __m128 dy = _mm_sub_ps(cy, _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    __m128 d_sq = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
    for (int hit = _mm_movemask_ps(_mm_cmple_ps(d_sq, r_sq)); hit != 0; hit &= hit - 1)
      mark(bits, g->items[j + arb_lowest_bit((uint64_t)hit)]);
  }
#endif
  for (; j < j1; ++j)
    if (within(g->at[j], center, r)) mark(bits, g->items[j]);
}

static bool in_box(arb_vec2 p, const arb_aabb* b) {
  return p.x >= b->lower.x && p.x <= b->upper.x && p.y >= b->lower.y && p.y <= b->upper.y;
}

// The grid cells the rectangle [lo, hi] touches: columns x0..x1, rows y0..y1.
typedef struct cell_span {
  int x0, x1, y0, y1;
} cell_span;

static cell_span cells_touched(const sv_snap_grid* g, arb_vec2 lo, arb_vec2 hi) {
  return (cell_span){cell_of(lo.x, g->x0, g->cell, g->nx), cell_of(hi.x, g->x0, g->cell, g->nx),
                     cell_of(lo.y, g->y0, g->cell, g->ny), cell_of(hi.y, g->y0, g->cell, g->ny)};
}

// How far along one axis the points of cell i (of n, from x0, side `cell`) lie from c, as
// squares: the farthest and the nearest (0 when c is within the cell's extent). The extent
// is widened by a thousandth of a cell, far beyond the float rounding of cell_of(). A
// border cell also holds the items clamped into it (outliers, NaN): no bound holds there.
typedef struct axis_reach {
  double far_sq, near_sq;
  bool border;
} axis_reach;

static axis_reach reach(float x0, float cell, int i, int n, float c) {
  double slack = 1.0e-3 * cell;
  double l = x0 + (double)i * cell - slack - c;
  double h = x0 + (double)(i + 1) * cell + slack - c;
  double f = -l > h ? -l : h, near = l > 0.0 ? l : h < 0.0 ? -h : 0.0;
  return (axis_reach){f * f, near * near, i == 0 || i == n - 1};
}

// Marks the captured items within r of center (by within()'s float arithmetic) from the
// grid cells the radius touches. A cell wholly inside the radius is taken without a test
// per item, one wholly outside is skipped; the others test each item. A cell's reach is
// its column's plus its row's, each computed once per client instead of once per cell;
// the radius is narrowed (for inside) and widened (for outside) by 1e-4, far beyond the
// rounding of within(), so a cell's answer is never wrong.
static void pick_radius(const sv_snap_grid* g, arb_vec2 center, float r, pick_marks* m) {
  cell_span s = cells_touched(g, (arb_vec2){center.x - r, center.y - r},
                              (arb_vec2){center.x + r, center.y + r});
  axis_reach col[SV_SNAP_GRID_SIDE];
  for (int cx = s.x0; cx <= s.x1; ++cx) col[cx - s.x0] = reach(g->x0, g->cell, cx, g->nx, center.x);
  double r_sq = (double)r * r, inside = r_sq * (1.0 - 1.0e-4), outside = r_sq * (1.0 + 1.0e-4);
  uint64_t* bits = m->bits;
  for (int cy = s.y0; cy <= s.y1; ++cy) {
    axis_reach row = reach(g->y0, g->cell, cy, g->ny, center.y);
    for (int cx = s.x0; cx <= s.x1; ++cx) {
      const axis_reach* c = &col[cx - s.x0];
      int k = cy * g->nx + cx, j0 = g->start[k], j1 = g->start[k + 1];
      if (j0 == j1) continue;
      bool whole = false;
      if (!row.border && !c->border) {
        if (c->near_sq + row.near_sq >= outside) continue;
        whole = c->far_sq + row.far_sq <= inside;
      }
      cover_cell(m, g, k);
      if (whole) {
        for (int j = j0; j < j1; ++j) mark(bits, g->items[j]);
      } else {
        mark_within(g, j0, j1, center, r, bits);
      }
    }
  }
}

// Marks the captured items in the box from the grid cells it touches.
static void pick_box(const sv_snap_grid* g, const arb_aabb* box, pick_marks* m) {
  cell_span s = cells_touched(g, box->lower, box->upper);
  for (int cy = s.y0; cy <= s.y1; ++cy) {
    for (int cx = s.x0; cx <= s.x1; ++cx) {
      int k = cy * g->nx + cx, j0 = g->start[k], j1 = g->start[k + 1];
      if (j0 == j1) continue;
      cover_cell(m, g, k);
      for (int j = j0; j < j1; ++j)
        if (in_box(g->at[j], box)) mark(m->bits, g->items[j]);
    }
  }
}

// The captured entities within r of the avatar (with one), those in the view box (with
// one) and the avatar itself (every class: bodies, particles, ropes at their first
// particle, wheels at their chassis), from the grid cells the radius and the box touch,
// copied to x->view in id (= capture) order; x->picked[j] is view item j's capture index.
static void pick_relevant(const sv_snapshot* s, sv_snap_scratch* x, int avatar, float r,
                          const arb_aabb* box) {
  const sv_capture* c = &s->capture;
  pick_marks m = {x->picked_bits, INT_MAX, -1};
  if (avatar >= 0) {
    pick_radius(&s->grid, c->positions[avatar], r, &m);
    mark(m.bits, avatar);
    m.lo = avatar < m.lo ? avatar : m.lo;
    m.hi = avatar > m.hi ? avatar : m.hi;
  }
  if (box != NULL) pick_box(&s->grid, box, &m);
  x->view.count = gather(c, x, &m);
}

static int find_avatar(const sv_capture* c, uint32_t id) {
  if (id == 0) return -1;
  const arb_snapshot_entity* e = arb_snapshot_set_find(&c->set, id);
  return e ? (int)(e - c->items) : -1;
}

// What the builder's rank callback needs: priorities are computed only for the entities
// that changed in the client's view (the builder asks in increasing id order); the
// client's interest and dt are in the accumulator (arb_snapshot_priority_begin).
typedef struct sv_rank_ctx {
  arb_snapshot_priority* priority;
  const arb_snapshot_entity* current;  ///< the view's items
  const arb_vec2* positions;           ///< by capture index
  const float* speeds;                 ///< by capture index
  const int* index;                    ///< capture index of each current item, NULL = the same
  float* acc;  ///< per current item, kept for arb_snapshot_priority_keep_stale
} sv_rank_ctx;

static void rank_item(void* user, int j, float* priority, float* weight) {
  sv_rank_ctx* r = user;
  int item = r->index ? r->index[j] : j;
  *priority = r->acc[j] = arb_snapshot_priority_next(r->priority, r->current[j].id,
                                                     r->positions[item], r->speeds[item], weight);
}

int sv_snapshot_build(const sv_snapshot* s, sv_snap_scratch* x, sv_snap_client* c,
                      const sv_snap_request* req, arb_snapshot_build_result* out) {
  const sv_capture* cap = &s->capture;
  int avatar = find_avatar(cap, req->avatar_entity);
  const arb_snapshot_set* current = &cap->set;
  const int* index = NULL;
  const arb_aabb* box = req->has_view ? &req->view : NULL;
  if ((avatar >= 0 || box != NULL) && req->view_radius > 0.0f && s->has_grid) {
    pick_relevant(s, x, avatar, req->view_radius, box);
    current = &x->view;
    index = x->picked;
  }
  float dt = 1.0f / (float)(req->snapshot_rate > 0 ? req->snapshot_rate : 1);
  arb_snapshot_rate_update(&c->rate, req->loss, req->rtt_ms, dt);
  int budget = arb_snapshot_rate_take(&c->rate, req->snapshot_rate);
  if (budget == 0) {  // this snapshot's bytes pay back a whole view sent before
    memset(out, 0, sizeof *out);
    return 0;
  }
  arb_snapshot_interest in = {0};
  in.avatar_id = avatar >= 0 ? req->avatar_entity : 0;
  if (avatar >= 0) in.avatar = cap->positions[avatar];
  in.has_view = req->has_view;
  in.view = req->view;
  in.near_radius = req->view_radius > 0.0f ? req->view_radius * 0.25f : 10.0f;
  arb_snapshot_priority_begin(&c->priority, &in, dt);
  sv_rank_ctx rank = {&c->priority, current->items, cap->positions, cap->speeds, index, x->prio};
  drawn_settle(c, x->drawn_inserts);

  int write = slot_to_write(c);
  int base = find_slot(c, c->acked_tick);
  if (base == write) base = -1;  // about to be overwritten: fall back to a full snapshot
  static const arb_snapshot_set empty = {NULL, 0, 0};
  arb_snapshot_build_args a;
  memset(&a, 0, sizeof a);
  a.h = (arb_snapshot_header){req->tick,
                              base >= 0 ? c->ring_tick[base] : 0,
                              req->last_input_seq,
                              0,
                              0,
                              req->tick_rate,
                              cap->gravity_x,
                              cap->gravity_y};
  a.baseline = base >= 0 ? &c->ring[base] : &empty;
  a.current = current;
  a.rank = rank_item;
  a.rank_user = &rank;
  a.drawn = &c->drawn;
  a.describe = sv_capture_describe;
  a.describe_user = (void*)&s->capture;  // describing only reads the game
  // A body's description (type, owner, shapes) and a particle's never change in a
  // server's game: a body's shapes are fixed at its creation and entity ids are not
  // reused. Wheels and links are asked again: their ids follow vehicle, joint and spring
  // slots, which a new vehicle, joint or spring may take over.
  a.stable_classes = 1u << ARB_SNAPSHOT_BODY | 1u << ARB_SNAPSHOT_PARTICLE;
  a.tol = arb_snapshot_default_tolerance();
  a.exact_id = in.avatar_id;
  if (base < 0 && c->unacked_full_since == 0) c->unacked_full_since = req->tick;
  bool whole_view = base < 0 && req->tick - c->unacked_full_since >= req->tick_rate;
  a.byte_budget = whole_view ? 0 : budget;
  a.packet_overhead = SV_SNAP_PACKET_OVERHEAD;
  a.sent = &c->ring[write];
  a.stale = x->stale;
  c->ring_tick[write] = 0;  // invalid until the build succeeds
  int rc = arb_snapshot_build(x->builder, &a, out);
  if (rc != 0) return rc;
  if (whole_view)  // the one snapshot allowed over its budget: owed to the rate
    arb_snapshot_rate_spent(&c->rate, budget,
                            out->bytes + (long)out->packet_count * SV_SNAP_PACKET_OVERHEAD);
  arb_snapshot_priority_keep_stale(&c->priority, current, x->prio, x->stale, out->stale_count);
  c->ring_tick[write] = req->tick;
  c->ring_base[write] = a.h.baseline_tick;
  c->ring_acked[write] = 0;
  c->ring_settled[write] = 0;
  drawn_apply(c, write, x->drawn_inserts);
  return 0;
}
