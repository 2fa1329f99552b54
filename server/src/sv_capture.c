// Snapshot capture (see sv_capture.h).
#include "sv_capture.h"

#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/vehicle.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sv_capture_init(sv_capture* c, int max_entities) {
  memset(c, 0, sizeof *c);
  if (max_entities < 1 || max_entities > ARB_PROTO_MAX_ENTITIES) return ARB_E_RANGE;
  size_t n = (size_t)max_entities;
  c->cap = max_entities;
  c->entities = calloc(n, sizeof *c->entities);
  c->items = calloc(n, sizeof *c->items);
  c->positions = calloc(n, sizeof *c->positions);
  c->speeds = calloc(n, sizeof *c->speeds);
  c->memo = calloc(n, sizeof *c->memo);
  c->changed = calloc(n, sizeof *c->changed);
  c->entered = calloc(n, sizeof *c->entered);
  c->left = calloc(n, sizeof *c->left);
  c->prev_items = calloc(n, sizeof *c->prev_items);
  c->prev_positions = calloc(n, sizeof *c->prev_positions);
  if (!c->entities || !c->items || !c->positions || !c->speeds || !c->memo || !c->changed ||
      !c->entered || !c->left || !c->prev_items || !c->prev_positions) {
    sv_capture_free(c);
    return ARB_E_NOMEM;
  }
  c->set.items = c->items;
  c->set.cap = max_entities;
  return 0;
}

void sv_capture_free(sv_capture* c) {
  free(c->entities);
  free(c->items);
  free(c->positions);
  free(c->speeds);
  free(c->memo);
  free(c->changed);
  free(c->entered);
  free(c->left);
  free(c->prev_items);
  free(c->prev_positions);
  memset(c, 0, sizeof *c);
}

static arb_snapshot_entity* add(sv_capture* c, uint32_t id, uint8_t cls, arb_vec2 where,
                                arb_vec2 vel) {
  if (c->set.count == c->cap) {
    c->truncated++;
    return NULL;
  }
  int i = c->set.count++;
  arb_snapshot_entity* e = &c->items[i];
  memset(e, 0, sizeof *e);
  e->id = id;
  e->cls = cls;
  c->positions[i] = where;
  c->speeds[i] = sqrtf(vel.x * vel.x + vel.y * vel.y);
  return e;
}

static int32_t gravity_q(float g) {
  int32_t q = arb_proto_quantize_vel(g);
  return q > ARB_SNAPSHOT_MAX_GRAVITY    ? ARB_SNAPSHOT_MAX_GRAVITY
         : q < -ARB_SNAPSHOT_MAX_GRAVITY ? -ARB_SNAPSHOT_MAX_GRAVITY
                                         : q;
}

// The captured state of body b from its motion m, from the memo when m is bit for bit the last one.
static const sv_capture_memo* body_state(sv_capture* c, arb_body_id b, const arb_body_motion* m) {
  sv_capture_memo* k = &c->memo[(uint32_t)b.index1 % (uint32_t)c->cap];
  if (k->index1 == (uint32_t)b.index1 && memcmp(&k->xf, &m->xf, sizeof m->xf) == 0 &&
      memcmp(&k->v, &m->v, sizeof m->v) == 0 && memcmp(&k->w, &m->w, sizeof m->w) == 0)
    return k;
  k->index1 = (uint32_t)b.index1;
  k->xf = m->xf;
  k->v = m->v;
  k->w = m->w;
  memset(&k->s, 0, sizeof k->s);
  k->s.x = arb_proto_quantize_pos(m->xf.p.x);
  k->s.y = arb_proto_quantize_pos(m->xf.p.y);
  k->s.angle = arb_proto_quantize_angle(arb_rot_angle(m->xf.q));
  k->s.vx = arb_proto_quantize_vel(m->v.x);
  k->s.vy = arb_proto_quantize_vel(m->v.y);
  k->s.w = arb_snapshot_quantize_angvel(m->w);
  k->speed = sqrtf(m->v.x * m->v.x + m->v.y * m->v.y);
  return k;
}

static void capture_bodies(sv_capture* c, const arb_world* world) {
  int total = arb_game_get_entities(c->game, c->entities, c->cap);
  int n = total < c->cap ? total : c->cap;
  c->truncated += total - n;
  c->entity_count = n;
  for (int i = 0; i < n; ++i) {
    arb_body_id b = c->entities[i].body;
    arb_body_motion m;
    if (!arb_body_get_motion(world, b, &m) || m.type == ARB_BODY_STATIC) continue;
    if (c->set.count == c->cap) {
      c->truncated++;
      return;
    }
    const sv_capture_memo* k = body_state(c, b, &m);
    int j = c->set.count++;
    arb_snapshot_entity* e = &c->items[j];
    memset(e, 0, sizeof *e);
    e->id = c->entities[i].id;
    e->cls = ARB_SNAPSHOT_BODY;
    e->s = k->s;
    c->positions[j] = m.xf.p;
    c->speeds[j] = k->speed;
  }
}

static void capture_particles(sv_capture* c, const arb_world* world) {
  int n = arb_world_get_particle_count(world);
  for (int i = 0; i < n; ++i) {
    arb_vec2 p = arb_particle_get_position(world, i), v = arb_particle_get_velocity(world, i);
    arb_snapshot_entity* e = add(c, SV_ID_PARTICLE + (uint32_t)i, ARB_SNAPSHOT_PARTICLE, p, v);
    if (!e) return;
    e->s.x = arb_proto_quantize_pos(p.x);
    e->s.y = arb_proto_quantize_pos(p.y);
    e->s.vx = arb_proto_quantize_vel(v.x);
    e->s.vy = arb_proto_quantize_vel(v.y);
    if (arb_particle_is_pinned(world, i)) e->s.flags = ARB_SNAPSHOT_FLAG_PINNED;
  }
  int m = arb_world_get_constraint_count(world);
  for (int i = 0; i < m; ++i) {
    int a, b;
    float rest;
    if (arb_constraint_get(world, i, &a, &b, &rest) != 0) continue;
    if (!add(c, SV_ID_ROPE + (uint32_t)i, ARB_SNAPSHOT_LINK, arb_particle_get_position(world, a),
             arb_v2(0, 0)))
      return;
  }
}

static void capture_wheels(sv_capture* c, const arb_world* world) {
  arb_extra_id ids[256];
  int n = arb_world_get_vehicles(world, ids, 256);
  for (int v = 0; v < n && v < 256; ++v) {
    arb_body_id chassis = arb_vehicle_get_chassis(world, ids[v]);
    int wheels = arb_vehicle_get_wheel_count(world, ids[v]);
    for (int w = 0; w < wheels && w < SV_WHEELS_PER_VEHICLE; ++w) {
      uint32_t id =
          SV_ID_WHEEL + (uint32_t)(ids[v].index1 - 1) * SV_WHEELS_PER_VEHICLE + (uint32_t)w;
      arb_snapshot_entity* e =
          add(c, id, ARB_SNAPSHOT_WHEEL, arb_body_get_position(world, chassis), arb_v2(0, 0));
      if (!e) return;
      e->s.angle = arb_proto_quantize_angle(arb_vehicle_get_wheel_spin(world, ids[v], w));
      e->s.aux = arb_proto_quantize_angle(arb_vehicle_get_steer_angle(world, ids[v], w));
      if (arb_vehicle_is_wheel_skidding(world, ids[v], w)) e->s.flags = ARB_SNAPSHOT_FLAG_SKID;
      // Rolling without slip: the spin rate the client predicts the spin angle with.
      float r = arb_vehicle_get_wheel_radius(world, ids[v], w);
      if (r > 0.0f)
        e->s.w = arb_snapshot_quantize_angvel(-arb_vehicle_get_forward_speed(world, ids[v]) / r);
    }
  }
}

// Springs and joints: links without state. A slot reused by a new object gets a new
// description version, so a client sees it leave and enter again.
static void capture_links(sv_capture* c, const arb_world* world) {
  arb_extra_id ids[256];
  for (int kind = 0; kind < 2; ++kind) {
    int n =
        kind == 0 ? arb_world_get_springs(world, ids, 256) : arb_world_get_joints(world, ids, 256);
    for (int i = 0; i < n && i < 256; ++i) {
      arb_vec2 a, b;
      if (kind == 0)
        arb_spring_get_anchors(world, ids[i], &a, &b);
      else
        arb_joint_get_anchors(world, ids[i], &a, &b);
      uint32_t base = kind == 0 ? SV_ID_SPRING : SV_ID_JOINT;
      arb_snapshot_entity* e =
          add(c, base + (uint32_t)(ids[i].index1 - 1), ARB_SNAPSHOT_LINK, a, arb_v2(0, 0));
      if (!e) return;
      e->desc_version = ids[i].generation;
    }
  }
}

// Equal in every field a client is sent or that decides what it is sent (id, class,
// description version, state) and in position. Fields, not bytes: the padding of an
// arb_snapshot_entity is not part of what it says.
static bool same_entity(const arb_snapshot_entity* x, arb_vec2 px, const arb_snapshot_entity* y,
                        arb_vec2 py) {
  const arb_snapshot_state *a = &x->s, *b = &y->s;
  return x->id == y->id && x->cls == y->cls && x->desc_version == y->desc_version && a->x == b->x &&
         a->y == b->y && a->vx == b->vx && a->vy == b->vy && a->w == b->w && a->angle == b->angle &&
         a->aux == b->aux && a->flags == b->flags && a->t0 == b->t0 &&
         memcmp(&px, &py, sizeof px) == 0;
}

// A merge of the two id-ordered sets, once per capture whatever the number of clients.
void sv_capture_find_changes(sv_capture* c) {
  const arb_snapshot_entity *now = c->items, *was = c->prev_items;
  int n = c->set.count, m = c->prev_count, i = 0, j = 0;
  c->changed_count = c->entered_count = c->left_count = 0;
  while (i < n || j < m) {
    uint32_t a = i < n ? now[i].id : UINT32_MAX, b = j < m ? was[j].id : UINT32_MAX;
    if (a == b) {
      if (!same_entity(&now[i], c->positions[i], &was[j], c->prev_positions[j]))
        c->changed[c->changed_count++] = i;
      ++i;
      ++j;
    } else if (a < b) {
      c->entered[c->entered_count++] = i++;
    } else {
      c->left[c->left_count++] = was[j++].id;
    }
  }
}

void sv_capture_run(sv_capture* c, arb_game* game) {
  const arb_world* world = arb_game_get_world(game);
  c->game = game;
  // The last capture becomes the previous one; this one is written over the older buffers.
  arb_snapshot_entity* items = c->prev_items;
  arb_vec2* positions = c->prev_positions;
  c->prev_items = c->items;
  c->prev_positions = c->positions;
  c->prev_count = c->set.count;
  c->items = c->set.items = items;
  c->positions = positions;
  c->set.count = 0;
  c->truncated = 0;
  arb_vec2 g = arb_world_get_gravity(world);
  c->gravity_x = gravity_q(g.x);
  c->gravity_y = gravity_q(g.y);
  capture_bodies(c, world);
  capture_particles(c, world);
  capture_wheels(c, world);
  capture_links(c, world);
}

// ---- descriptions -------------------------------------------------------------------------

static int describe_body(sv_capture* c, uint32_t id, arb_snapshot_desc* d) {
  arb_entity e;
  if (arb_game_find_entity(c->game, id, &e) != 0) return ARB_E_NOT_FOUND;
  const arb_world* world = arb_game_get_world(c->game);
  d->cls = ARB_SNAPSHOT_BODY;
  d->body_type = (uint8_t)arb_body_get_type(world, e.body);
  d->owner = e.owner;
  if (e.owner != 0) d->avatar_kind = (uint8_t)e.kind;
  // Every shape of a compound body (the description holds as many as a body can carry).
  d->shape_count = (uint8_t)arb_body_get_shape_count(world, e.body);
  for (int i = 0; i < d->shape_count; ++i) {
    arb_shape_geometry g = arb_shape_def_geometry(arb_body_get_shape_at(world, e.body, i));
    int rc = arb_proto_shape_from_geometry(&g, &d->shapes[i]);
    if (rc != 0) return rc;
  }
  return 0;
}

static uint32_t entity_of_body(const sv_capture* c, arb_body_id body) {
  for (int i = 0; i < c->entity_count; ++i)
    if (arb_body_id_equals(c->entities[i].body, body)) return c->entities[i].id;
  return 0;
}

static int describe_wheel(sv_capture* c, uint32_t id, arb_snapshot_desc* d) {
  const arb_world* world = arb_game_get_world(c->game);
  uint32_t slot = (id - SV_ID_WHEEL) / SV_WHEELS_PER_VEHICLE;
  int w = (int)((id - SV_ID_WHEEL) % SV_WHEELS_PER_VEHICLE);
  arb_extra_id ids[256];
  int n = arb_world_get_vehicles(world, ids, 256);
  for (int v = 0; v < n && v < 256; ++v) {
    if ((uint32_t)(ids[v].index1 - 1) != slot) continue;
    arb_body_id chassis = arb_vehicle_get_chassis(world, ids[v]);
    d->cls = ARB_SNAPSHOT_WHEEL;
    d->a = entity_of_body(c, chassis);
    // The mount point as the vehicle defines it: the same floats whenever a client is
    // told, not the chassis' inverse transform of the wheel's world position (float noise
    // that changed with the pose at which the wheel was described).
    d->anchor_a = arb_vehicle_get_wheel_offset(world, ids[v], w);
    d->radius = arb_vehicle_get_wheel_radius(world, ids[v], w);
    return d->a != 0 && d->radius > 0.0f ? 0 : ARB_E_NOT_FOUND;
  }
  return ARB_E_NOT_FOUND;
}

// One end of a spring or joint: the body's entity and the anchor in its frame, or entity 0
// and the anchor in world coordinates (a static body, which is no entity, or the world).
static void link_end(const sv_capture* c, const arb_world* world, arb_body_id body, arb_vec2 local,
                     uint32_t* entity, arb_vec2* anchor) {
  *entity = 0;
  *anchor = local;
  if (arb_body_id_is_null(body) || !arb_body_is_valid(world, body)) return;
  if (arb_body_get_type(world, body) != ARB_BODY_STATIC) *entity = entity_of_body(c, body);
  if (*entity == 0) *anchor = arb_transform_point(arb_body_get_transform(world, body), local);
}

static int describe_link(sv_capture* c, uint32_t id, arb_snapshot_desc* d) {
  const arb_world* world = arb_game_get_world(c->game);
  bool spring = id < SV_ID_JOINT;
  arb_extra_id ids[256];
  int n = spring ? arb_world_get_springs(world, ids, 256) : arb_world_get_joints(world, ids, 256);
  uint32_t slot = id - (spring ? SV_ID_SPRING : SV_ID_JOINT);
  for (int i = 0; i < n && i < 256; ++i) {
    if ((uint32_t)(ids[i].index1 - 1) != slot) continue;
    arb_body_id ba, bb;
    arb_vec2 la, lb;
    int rc = spring ? arb_spring_get_bodies(world, ids[i], &ba, &bb, &la, &lb)
                    : arb_joint_get_bodies(world, ids[i], &ba, &bb, &la, &lb);
    if (rc != 0) return rc;
    d->cls = ARB_SNAPSHOT_LINK;
    d->link_kind = spring ? ARB_SNAPSHOT_LINK_SPRING : ARB_SNAPSHOT_LINK_JOINT;
    d->joint_type = spring ? 0 : (uint8_t)arb_joint_get_type(world, ids[i]);
    link_end(c, world, ba, la, &d->a, &d->anchor_a);
    link_end(c, world, bb, lb, &d->b, &d->anchor_b);
    return 0;
  }
  return ARB_E_NOT_FOUND;
}

int sv_capture_describe(void* user, uint32_t id, arb_snapshot_desc* d) {
  sv_capture* c = user;
  memset(d, 0, sizeof *d);
  if (id < SV_ID_PARTICLE) return describe_body(c, id, d);
  if (id < SV_ID_ROPE) {
    d->cls = ARB_SNAPSHOT_PARTICLE;  // particles have no radius getter: drawn as points
    return 0;
  }
  if (id < SV_ID_WHEEL) {
    int a, b;
    float rest;
    if (arb_constraint_get(arb_game_get_world(c->game), (int)(id - SV_ID_ROPE), &a, &b, &rest) != 0)
      return ARB_E_NOT_FOUND;
    d->cls = ARB_SNAPSHOT_LINK;
    d->link_kind = ARB_SNAPSHOT_LINK_ROPE;
    d->a = SV_ID_PARTICLE + (uint32_t)a;
    d->b = SV_ID_PARTICLE + (uint32_t)b;
    return 0;
  }
  if (id < SV_ID_SPRING) return describe_wheel(c, id, d);
  return describe_link(c, id, d);
}
