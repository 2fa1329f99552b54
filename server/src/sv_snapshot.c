// Per-client v2 snapshots (see sv_snapshot.h).
#include "sv_snapshot.h"

#include <arbiter/query.h>
#include <arbiter/snapshot_drawn.h>
#include <stdlib.h>
#include <string.h>

int sv_snapshot_init(sv_snapshot* s, int max_entities) {
  memset(s, 0, sizeof *s);
  if (max_entities < 1 || max_entities > ARB_PROTO_MAX_ENTITIES / 2) return ARB_E_RANGE;
  s->cap = max_entities;
  int rc = arb_snap2_builder_create(ARB_PROTO_DEFAULT_PAYLOAD, 2 * max_entities, &s->builder);
  if (rc == 0) rc = sv_capture2_init(&s->capture, max_entities);
  if (rc != 0) {
    sv_snapshot_free(s);
    return rc;
  }
  size_t n = (size_t)max_entities;
  s->bodies = calloc(n, sizeof *s->bodies);
  s->hits = calloc(n, sizeof *s->hits);
  s->picked = calloc(n, sizeof *s->picked);
  s->view.items = calloc(n, sizeof *s->view.items);
  s->view_pos = calloc(n, sizeof *s->view_pos);
  s->view_speed = calloc(n, sizeof *s->view_speed);
  s->prio = calloc(n, sizeof *s->prio);
  s->weight = calloc(n, sizeof *s->weight);
  s->up_to_date = calloc(n, sizeof *s->up_to_date);
  if (!s->bodies || !s->hits || !s->picked || !s->view.items || !s->view_pos ||
      !s->view_speed || !s->prio || !s->weight || !s->up_to_date) {
    sv_snapshot_free(s);
    return ARB_E_NOMEM;
  }
  s->view.cap = max_entities;
  return 0;
}

void sv_snapshot_free(sv_snapshot* s) {
  if (s->builder) arb_snap2_builder_destroy(s->builder);
  sv_capture2_free(&s->capture);
  free(s->bodies);
  free(s->hits);
  free(s->picked);
  free(s->view.items);
  free(s->view_pos);
  free(s->view_speed);
  free(s->prio);
  free(s->weight);
  free(s->up_to_date);
  memset(s, 0, sizeof *s);
}

static int by_index1(const void* a, const void* b) {
  int32_t x = ((const sv_body_slot*)a)->index1, y = ((const sv_body_slot*)b)->index1;
  return (x > y) - (x < y);
}

// Capture once, then a body-slot -> capture-index table so the broad phase's answers
// (body ids) map to captured entities by binary search.
void sv_snapshot_capture(sv_snapshot* s, arb_game* game) {
  sv_capture2_run(&s->capture, game);
  const arb_world* world = arb_game_get_world(game);
  sv_body_slot* slots = s->bodies;
  int n = 0;
  const sv_capture2* c = &s->capture;
  for (int i = 0, k = 0; i < c->set.count && k < c->entity_count; ++i) {
    if (c->items[i].cls != ARB_SNAP2_BODY) continue;
    while (k < c->entity_count && c->entities[k].id != c->items[i].id) ++k;
    if (k == c->entity_count) break;
    arb_body_id b = c->entities[k].body;
    if (arb_body_is_valid(world, b)) slots[n++] = (sv_body_slot){b.index1, i};
  }
  qsort(slots, (size_t)n, sizeof *slots, by_index1);
  s->body_count = n;
}

static int item_of_body(const sv_snapshot* s, arb_body_id b) {
  const sv_body_slot* slots = s->bodies;
  int lo = 0, hi = s->body_count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (slots[mid].index1 < b.index1) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->body_count && slots[lo].index1 == b.index1 ? slots[lo].item : -1;
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
  c->drawn_storage = malloc(2 * (size_t)drawn_cap * sizeof *c->drawn_storage);
  c->drawn = (arb_snap2_set){c->drawn_storage, 0, drawn_cap};
  c->drawn_tmp = (arb_snap2_set){c->drawn_storage + drawn_cap, 0, drawn_cap};
  if (c->storage == NULL || c->drawn_storage == NULL ||
      arb_snap2_priority_init(&c->priority, max_entities) != 0) {
    sv_snap_client_free(c);
    return ARB_E_NOMEM;
  }
  for (int i = 0; i < SV_SNAP_RING; ++i) {
    c->ring[i].items = c->storage + (size_t)i * (size_t)c->cap;
    c->ring[i].cap = c->cap;
  }
  sv_snap_client_reset(c, ARB_SNAP2_RATE_FLOOR_KBPS);
  return 0;
}

void sv_snap_client_reset(sv_snap_client* c, int ceiling_kbps) {
  memset(c->ring_tick, 0, sizeof c->ring_tick);
  for (int i = 0; i < SV_SNAP_RING; ++i) c->ring[i].count = 0;
  c->next_slot = 0;
  c->acked_tick = 0;
  memset(c->ring_base, 0, sizeof c->ring_base);
  memset(c->ring_acked, 0, sizeof c->ring_acked);
  memset(c->ring_settled, 0, sizeof c->ring_settled);
  c->drawn.count = 0;
  c->priority.count = 0;
  arb_snap2_rate_init(&c->rate, ceiling_kbps);
}

void sv_snap_client_free(sv_snap_client* c) {
  free(c->storage);
  free(c->drawn_storage);
  arb_snap2_priority_free(&c->priority);
  memset(c, 0, sizeof *c);
}

static int find_slot(const sv_snap_client* c, uint32_t tick) {
  if (tick == 0) return -1;
  for (int i = 0; i < SV_SNAP_RING; ++i)
    if (c->ring_tick[i] == tick) return i;
  return -1;
}

void sv_snap_client_ack(sv_snap_client* c, uint32_t tick) {
  int slot = find_slot(c, tick);
  if (slot < 0) return;
  c->ring_acked[slot] = 1;
  if (tick > c->acked_tick) c->acked_tick = tick;
}

// drawn = what the client draws after `view` (a sent slot) arrives. On no room: the view
// alone (less than the client draws, so the server only sends more).
static void drawn_apply(sv_snap_client* c, int slot) {
  int b = find_slot(c, c->ring_base[slot]);
  const arb_snap2_set* base = b >= 0 ? &c->ring[b] : NULL;
  if (arb_snap2_drawn_apply(&c->drawn, &c->ring[slot], base, c->ring_base[slot], &c->drawn_tmp) ==
      0) {
    arb_snap2_set t = c->drawn;
    c->drawn = c->drawn_tmp;
    c->drawn_tmp = t;
  } else {
    arb_snap2_set_copy(&c->drawn, &c->ring[slot]);
  }
}

// A snapshot at or before the newest ack that was never acknowledged is taken as lost:
// the model restarts from the acknowledged view and replays the ones still in flight.
static void drawn_settle(sv_snap_client* c) {
  int lost = 0;
  for (int i = 0; i < SV_SNAP_RING; ++i) {
    if (c->ring_tick[i] == 0 || c->ring_tick[i] > c->acked_tick || c->ring_settled[i]) continue;
    c->ring_settled[i] = 1;
    lost |= !c->ring_acked[i];
  }
  if (!lost) return;
  int a = find_slot(c, c->acked_tick);
  c->drawn.count = 0;
  if (a >= 0) arb_snap2_set_copy(&c->drawn, &c->ring[a]);
  for (uint32_t after = c->acked_tick;;) {  // in flight, oldest first
    int next = -1;
    for (int i = 0; i < SV_SNAP_RING; ++i)
      if (c->ring_tick[i] > after && (next < 0 || c->ring_tick[i] < c->ring_tick[next])) next = i;
    if (next < 0) break;
    drawn_apply(c, next);
    after = c->ring_tick[next];
  }
}

static int by_int(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

static bool within(arb_vec2 p, arb_vec2 center, float r) {
  return arb_distance_sq(p, center) <= r * r;
}

// The entities within view_radius of the avatar: bodies from the broad phase, particles,
// ropes and wheels (few, not in the broad phase) by distance; copied to s->view in id order.
static void pick_relevant(sv_snapshot* s, const arb_world* world, int avatar, float r) {
  const sv_capture2* c = &s->capture;
  arb_vec2 center = c->positions[avatar];
  arb_aabb box = {{center.x - r, center.y - r}, {center.x + r, center.y + r}};
  int hits = arb_world_overlap_aabb(world, box, arb_default_query_filter(), s->hits, s->cap);
  if (hits > s->cap) hits = s->cap;
  int n = 0;
  for (int i = 0; i < hits; ++i) {
    int item = item_of_body(s, s->hits[i]);
    if (item >= 0 && item != avatar && within(c->positions[item], center, r)) s->picked[n++] = item;
  }
  s->picked[n++] = avatar;
  for (int i = 0; i < c->set.count && n < s->cap; ++i)
    if (c->items[i].cls != ARB_SNAP2_BODY && within(c->positions[i], center, r)) s->picked[n++] = i;
  qsort(s->picked, (size_t)n, sizeof *s->picked, by_int);
  s->view.count = 0;
  for (int i = 0; i < n; ++i) {
    int item = s->picked[i];
    s->view.items[s->view.count] = c->items[item];
    s->view_pos[s->view.count] = c->positions[item];
    s->view_speed[s->view.count] = c->speeds[item];
    s->view.count++;
  }
}

static int find_avatar(const sv_capture2* c, uint32_t id) {
  if (id == 0) return -1;
  const arb_snap2_entity* e = arb_snap2_set_find(&c->set, id);
  return e ? (int)(e - c->items) : -1;
}

int sv_snapshot_build(sv_snapshot* s, sv_snap_client* c, const sv_snap_request* req,
                      arb_snap2_build_result* out) {
  const sv_capture2* cap = &s->capture;
  int avatar = find_avatar(cap, req->avatar_entity);
  const arb_snap2_set* current = &cap->set;
  const arb_vec2* pos = cap->positions;
  const float* speed = cap->speeds;
  if (avatar >= 0 && req->view_radius > 0.0f) {
    pick_relevant(s, arb_game_get_world(cap->game), avatar, req->view_radius);
    current = &s->view;
    pos = s->view_pos;
    speed = s->view_speed;
  }
  float dt = 1.0f / (float)(req->snapshot_rate > 0 ? req->snapshot_rate : 1);
  arb_snap2_interest in = {0};
  in.avatar_id = avatar >= 0 ? req->avatar_entity : 0;
  if (avatar >= 0) in.avatar = cap->positions[avatar];
  in.near_radius = req->view_radius > 0.0f ? req->view_radius * 0.25f : 10.0f;
  arb_snap2_priority_update(&c->priority, current, pos, speed, &in, dt, s->prio, s->weight);
  drawn_settle(c);
  arb_snap2_rate_update(&c->rate, req->loss, req->rtt_ms, dt);

  int write = c->next_slot;
  int base = find_slot(c, c->acked_tick);
  if (base == write) base = -1;  // about to be overwritten: fall back to a full snapshot
  static const arb_snap2_set empty = {NULL, 0, 0};
  arb_snap2_build_args a;
  memset(&a, 0, sizeof a);
  a.h = (arb_snap2_header){req->tick,      base >= 0 ? c->ring_tick[base] : 0,
                           req->last_input_seq, 0, 0, req->tick_rate, cap->gravity_x,
                           cap->gravity_y};
  a.baseline = base >= 0 ? &c->ring[base] : &empty;
  a.current = current;
  a.priority = s->prio;
  a.drawn = &c->drawn;
  a.weight = s->weight;
  a.describe = sv_capture2_describe;
  a.describe_user = &s->capture;
  a.tol = arb_snap2_default_tolerance();
  a.exact_id = in.avatar_id;
  a.byte_budget = arb_snap2_rate_budget(&c->rate, req->snapshot_rate);
  a.packet_overhead = SV_SNAP_PACKET_OVERHEAD;
  a.sent = &c->ring[write];
  a.up_to_date = s->up_to_date;
  c->ring_tick[write] = 0;  // invalid until the build succeeds
  int rc = arb_snap2_build(s->builder, &a, out);
  if (rc != 0) return rc;
  arb_snap2_priority_sent(&c->priority, s->up_to_date);
  c->ring_tick[write] = req->tick;
  c->ring_base[write] = a.h.baseline_tick;
  c->ring_acked[write] = 0;
  c->ring_settled[write] = 0;
  drawn_apply(c, write);
  c->next_slot = (write + 1) % SV_SNAP_RING;
  return 0;
}
