// Per-client snapshots (see sv_snapshot.h).
#include "sv_snapshot.h"

#include <arbiter/bits.h>
#include <arbiter/snapshot_drawn.h>
#include <stdlib.h>
#include <string.h>

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
  s->grid.cell_of = calloc((size_t)max_entities, sizeof *s->grid.cell_of);
  if (!s->grid.start || !s->grid.items || !s->grid.cell_of) {
    sv_snapshot_free(s);
    return ARB_E_NOMEM;
  }
  return 0;
}

void sv_snapshot_free(sv_snapshot* s) {
  sv_capture_free(&s->capture);
  free(s->grid.start);
  free(s->grid.items);
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
// increasing.
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
  for (int i = 0; i < n; ++i)  // start[k] runs ahead while cell k fills, then is restored
    g->items[g->start[g->cell_of[i]]++] = i;
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

// Capture indexes (>= 0, below the capture's cap) in increasing order; returns how many.
// A bit each, then the bits read back word by word from the lowest to the highest: a
// client's view is a few hundred items over a few thousand indexes, so this reads a few
// dozen words where a sort moved every item several times. Leaves the bits zero.
static int sort_items(int* v, uint64_t* bits, int n) {
  if (n == 0) return 0;
  int lo = v[0], hi = v[0];
  for (int i = 0; i < n; ++i) {
    bits[v[i] >> 6] |= (uint64_t)1 << (v[i] & 63);
    lo = v[i] < lo ? v[i] : lo;
    hi = v[i] > hi ? v[i] : hi;
  }
  int k = 0;
  for (int wi = lo >> 6; wi <= hi >> 6; ++wi) {
    for (uint64_t word = bits[wi]; word != 0; word &= word - 1)
      v[k++] = wi * 64 + arb_lowest_bit(word);
    bits[wi] = 0;
  }
  return k;  // n: pick_relevant picks no index twice
}

static bool within(arb_vec2 p, arb_vec2 center, float r) {
  return arb_distance_sq(p, center) <= r * r;
}

static bool in_box(arb_vec2 p, const arb_aabb* b) {
  return p.x >= b->lower.x && p.x <= b->upper.x && p.y >= b->lower.y && p.y <= b->upper.y;
}

typedef struct pick_query {
  int avatar;       ///< capture index, -1 = none
  arb_vec2 center;  ///< the avatar's position
  float r;
  const arb_aabb* box;  ///< NULL = none
} pick_query;

// Within r of the avatar, or else in the box (each item once; the avatar is added apart).
static bool picks(const sv_capture* c, const pick_query* q, int item, bool box_pass) {
  if (item == q->avatar) return false;
  bool near = q->avatar >= 0 && within(c->positions[item], q->center, q->r);
  return box_pass ? !near && in_box(c->positions[item], q->box) : near;
}

enum { CELL_MIXED, CELL_INSIDE, CELL_OUTSIDE };

// Where grid cell (cx, cy) lies against the radius: wholly inside it (every item within r
// by within()'s float arithmetic), wholly outside, or mixed. Only cells off the grid's
// border are classified: a border cell also holds the items clamped into it (outliers,
// NaN). The cell's bounds are widened by a thousandth of a cell and r narrowed by 1e-4,
// far beyond the float rounding of cell_of() and within(), so the answer is never wrong.
static int classify_cell(const sv_snap_grid* g, int cx, int cy, const pick_query* q) {
  if (cx == 0 || cy == 0 || cx == g->nx - 1 || cy == g->ny - 1) return CELL_MIXED;
  double slack = 1.0e-3 * g->cell, r = q->r;
  double lx = g->x0 + (double)cx * g->cell - slack - q->center.x;
  double hx = g->x0 + (double)(cx + 1) * g->cell + slack - q->center.x;
  double ly = g->y0 + (double)cy * g->cell - slack - q->center.y;
  double hy = g->y0 + (double)(cy + 1) * g->cell + slack - q->center.y;
  double fx = -lx > hx ? -lx : hx, fy = -ly > hy ? -ly : hy;  // farthest corner
  double nx = lx > 0.0 ? lx : hx < 0.0 ? -hx : 0.0, ny = ly > 0.0 ? ly : hy < 0.0 ? -hy : 0.0;
  if (fx * fx + fy * fy <= r * r * (1.0 - 1.0e-4)) return CELL_INSIDE;
  if (nx * nx + ny * ny >= r * r * (1.0 + 1.0e-4)) return CELL_OUTSIDE;
  return CELL_MIXED;
}

// Appends to x->picked (from n) the capture indexes in the grid cells the rectangle
// [lo, hi] touches that picks() takes in this pass; returns the new count. In the radius
// pass a cell wholly inside the radius is taken without a test per item, one wholly
// outside is skipped.
static int pick_cells(const sv_snapshot* s, sv_snap_scratch* x, int n, arb_vec2 lo, arb_vec2 hi,
                      const pick_query* q, bool box_pass) {
  const sv_snap_grid* g = &s->grid;
  int x0 = cell_of(lo.x, g->x0, g->cell, g->nx), x1 = cell_of(hi.x, g->x0, g->cell, g->nx);
  int y0 = cell_of(lo.y, g->y0, g->cell, g->ny), y1 = cell_of(hi.y, g->y0, g->cell, g->ny);
  int own = cell_of(q->center.y, g->y0, g->cell, g->ny) * g->nx +
            cell_of(q->center.x, g->x0, g->cell, g->nx);  // holds the avatar, added apart
  for (int cy = y0; cy <= y1; ++cy) {
    for (int cx = x0; cx <= x1; ++cx) {
      int k = cy * g->nx + cx, where = box_pass ? CELL_MIXED : classify_cell(g, cx, cy, q);
      if (where == CELL_OUTSIDE) continue;
      if (where == CELL_INSIDE && k != own) {  // the whole cell, as it is
        int m = g->start[k + 1] - g->start[k];
        memcpy(x->picked + n, g->items + g->start[k], (size_t)m * sizeof *x->picked);
        n += m;
        continue;
      }
      for (int j = g->start[k]; j < g->start[k + 1]; ++j) {
        int item = g->items[j];
        if (where == CELL_INSIDE ? item != q->avatar : picks(&s->capture, q, item, box_pass))
          x->picked[n++] = item;
      }
    }
  }
  return n;
}

// The captured entities within r of the avatar and those in the view box (every class:
// bodies, particles, ropes at their first particle, wheels at their chassis) from the grid
// cells the radius and the box touch, copied to x->view in id (= capture) order; x->picked[j]
// is view item j's capture index. An item in both is taken by the radius pass only, so none
// is picked twice.
static void pick_relevant(const sv_snapshot* s, sv_snap_scratch* x, int avatar, float r,
                          const arb_aabb* box) {
  const sv_capture* c = &s->capture;
  pick_query q = {avatar, avatar >= 0 ? c->positions[avatar] : (arb_vec2){0.0f, 0.0f}, r, box};
  int n = 0;
  if (avatar >= 0) {
    arb_vec2 lo = {q.center.x - r, q.center.y - r}, hi = {q.center.x + r, q.center.y + r};
    n = pick_cells(s, x, n, lo, hi, &q, false);
  }
  if (box != NULL) n = pick_cells(s, x, n, box->lower, box->upper, &q, true);
  if (avatar >= 0) x->picked[n++] = avatar;
  n = sort_items(x->picked, x->picked_bits, n);
  for (int i = 0; i < n; ++i) x->view.items[i] = c->items[x->picked[i]];
  x->view.count = n;
}

static int find_avatar(const sv_capture* c, uint32_t id) {
  if (id == 0) return -1;
  const arb_snapshot_entity* e = arb_snapshot_set_find(&c->set, id);
  return e ? (int)(e - c->items) : -1;
}

// What the builder's rank callback needs: priorities are computed only for the entities
// that changed in the client's view (the builder asks in increasing id order).
typedef struct sv_rank_ctx {
  arb_snapshot_priority* priority;
  const arb_snapshot_interest* in;
  const arb_snapshot_set* current;
  const sv_capture* capture;  ///< positions and speeds, by capture index
  const int* index;           ///< capture index of each current item, NULL = the same
  float dt;
  float* acc;  ///< per current item, kept for arb_snapshot_priority_keep_stale
} sv_rank_ctx;

static void rank_item(void* user, int j, float* priority, float* weight) {
  sv_rank_ctx* r = user;
  int item = r->index ? r->index[j] : j;
  r->acc[j] = arb_snapshot_priority_next(r->priority, r->in, r->current->items[j].id,
                                         r->capture->positions[item], r->capture->speeds[item],
                                         r->dt, weight);
  *priority = r->acc[j];
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
  arb_snapshot_priority_begin(&c->priority);
  sv_rank_ctx rank = {&c->priority, &in, current, cap, index, dt, x->prio};
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
