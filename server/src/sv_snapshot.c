// Per-client delta snapshots (see sv_snapshot.h).
#include "sv_snapshot.h"

#include <stdlib.h>
#include <string.h>

int sv_snapshot_init(sv_snapshot* s, int max_entities) {
  memset(s, 0, sizeof *s);
  if (max_entities < 1 || max_entities > ARB_PROTO_MAX_ENTITIES / 2) return ARB_E_RANGE;
  s->cap = max_entities;
  arb_proto_builder_def def = {ARB_PROTO_DEFAULT_PAYLOAD, 2 * max_entities};
  int rc = arb_proto_snapshot_builder_create(&def, &s->builder);
  if (rc != 0) return rc;
  size_t n = (size_t)max_entities;
  s->entities = calloc(n, sizeof *s->entities);
  s->all.items = calloc(n, sizeof *s->all.items);
  s->positions = calloc(n, sizeof *s->positions);
  s->owners = calloc(n, sizeof *s->owners);
  s->view.items = calloc(n, sizeof *s->view.items);
  s->priority = calloc(n, sizeof *s->priority);
  if (!s->entities || !s->all.items || !s->positions || !s->owners || !s->view.items || !s->priority) {
    sv_snapshot_free(s);
    return ARB_E_NOMEM;
  }
  s->all.cap = max_entities;
  s->view.cap = max_entities;
  return 0;
}

void sv_snapshot_free(sv_snapshot* s) {
  if (s->builder) arb_proto_snapshot_builder_destroy(s->builder);
  free(s->entities);
  free(s->all.items);
  free(s->positions);
  free(s->owners);
  free(s->view.items);
  free(s->priority);
  memset(s, 0, sizeof *s);
}

void sv_snapshot_capture(sv_snapshot* s, arb_game* game) {
  int total = arb_game_get_entities(game, s->entities, s->cap);
  int n = total < s->cap ? total : s->cap;
  const arb_world* world = arb_game_get_world(game);
  s->all.count = 0;
  s->truncated = 0;
  for (int i = 0; i < n; ++i) {
    const arb_entity* e = &s->entities[i];
    if (!arb_body_is_valid(world, e->body) || arb_body_get_type(world, e->body) == ARB_BODY_STATIC) continue;
    arb_vec2 p = arb_body_get_position(world, e->body);
    arb_proto_entity* out = &s->all.items[s->all.count];
    out->id = e->id;
    out->desc_version = 0;  // descriptions never change after creation
    out->state = arb_proto_quantize_state(p, arb_body_get_angle(world, e->body),
                                          arb_body_get_linear_velocity(world, e->body),
                                          arb_body_get_angular_velocity(world, e->body));
    s->positions[s->all.count] = p;
    s->owners[s->all.count] = e->owner;
    s->all.count++;
  }
  if (total > s->cap) s->truncated = total - s->cap;
}

int sv_snap_client_init(sv_snap_client* c, int max_entities) {
  memset(c, 0, sizeof *c);
  // The builder wants room for current + baseline in a sent view.
  c->cap = 2 * max_entities;
  c->storage = calloc((size_t)SV_SNAP_RING * (size_t)c->cap, sizeof *c->storage);
  if (c->storage == NULL) return ARB_E_NOMEM;
  for (int i = 0; i < SV_SNAP_RING; ++i) {
    c->ring[i].items = c->storage + (size_t)i * (size_t)c->cap;
    c->ring[i].cap = c->cap;
  }
  return 0;
}

void sv_snap_client_free(sv_snap_client* c) {
  free(c->storage);
  memset(c, 0, sizeof *c);
}

static int find_slot(const sv_snap_client* c, uint32_t tick) {
  if (tick == 0) return -1;
  for (int i = 0; i < SV_SNAP_RING; ++i)
    if (c->ring_tick[i] == tick) return i;
  return -1;
}

void sv_snap_client_ack(sv_snap_client* c, uint32_t tick) {
  if (tick > c->acked_tick && find_slot(c, tick) >= 0) c->acked_tick = tick;
}

int sv_snapshot_build(sv_snapshot* s, sv_snap_client* c, const sv_snap_request* req, arb_proto_build_result* out) {
  // Interest: the avatar's position decides what this client sees and what goes first.
  int avatar = -1;
  if (req->avatar_entity != 0) {
    for (int i = 0; i < s->all.count; ++i)
      if (s->all.items[i].id == req->avatar_entity) avatar = i;
  }
  const arb_proto_entity_set* current = &s->all;
  const uint32_t* priority = NULL;
  if (avatar >= 0) {
    arb_vec2 center = s->positions[avatar];
    float r2 = req->view_radius * req->view_radius;
    s->view.count = 0;
    for (int i = 0; i < s->all.count; ++i) {
      float d2 = arb_distance_sq(center, s->positions[i]);
      if (req->view_radius > 0.0f && i != avatar && d2 > r2) continue;
      s->view.items[s->view.count] = s->all.items[i];
      // Own avatar first, then nearer entities: what matters most survives a full budget.
      s->priority[s->view.count] = i == avatar ? UINT32_MAX : (uint32_t)(1.0e6f / (1.0f + d2));
      s->view.count++;
    }
    current = &s->view;
    priority = s->priority;
  }

  int write = c->next_slot;
  int base = find_slot(c, c->acked_tick);
  if (base == write) base = -1;  // about to be overwritten: fall back to a full snapshot
  static const arb_proto_entity_set empty = {NULL, 0, 0};
  arb_proto_build_args args;
  memset(&args, 0, sizeof args);
  args.tick = req->tick;
  args.baseline_tick = base >= 0 ? c->ring_tick[base] : 0;
  args.last_input_seq = req->last_input_seq;
  args.baseline = base >= 0 ? &c->ring[base] : &empty;
  args.current = current;
  args.priority = priority;
  args.describe = req->describe;
  args.describe_user = req->describe_user;
  args.max_parts = 0;
  args.sent = &c->ring[write];
  c->ring_tick[write] = 0;  // invalid until the build succeeds
  int rc = arb_proto_snapshot_build(s->builder, &args, out);
  if (rc != 0) return rc;
  c->ring_tick[write] = req->tick;
  c->next_slot = (write + 1) % SV_SNAP_RING;
  return 0;
}
