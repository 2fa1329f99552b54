// Other avatars as reset-each-tick bodies of the predicted world (see cl_predict_proxy.h).
#include "cl_predict_proxy.h"

#include <stdlib.h>
#include <string.h>

// User data of a proxy body: this mark in the high half, the entity id in the low half.
// Scene bodies and avatars of the local game never carry it (their user data is theirs).
#define PROXY_MARK 0x5052585900000000ull  // "PRXY"

static uint64_t mark_of(uint32_t entity) {
  return PROXY_MARK | entity;
}

// Field by field: the struct has padding.
static bool same_shape(const arb_proto_shape* a, const arb_proto_shape* b) {
  if (a->kind != b->kind || a->count != b->count || a->radius != b->radius) return false;
  for (int i = 0; i < a->count && i < 8; i++)
    if (a->points[i].x != b->points[i].x || a->points[i].y != b->points[i].y) return false;
  return true;
}

static cl_proxy* find(cl_proxies* px, uint32_t entity) {
  for (int i = 0; i < px->count; i++)
    if (px->items[i].entity == entity) return &px->items[i];
  return NULL;
}

void cl_proxy_take(cl_proxies* px, uint32_t tick, const cl_body_set* view, uint32_t own_entity,
                   arb_vec2 center, cl_proxy_desc_fn* desc_of, const void* ctx) {
  cl_proxies next = {.count = 0};
  float dist[CL_PROXY_MAX];
  for (int i = 0; i < view->count; i++) {
    const cl_body* e = &view->items[i];
    const cl_body_desc* d = e->id == own_entity ? NULL : desc_of(ctx, e->id);
    if (!d || d->avatar_kind == 0 || d->body_type != ARB_BODY_DYNAMIC) continue;
    cl_proxy p = {.entity = e->id,
                  .shape = d->shape,
                  .tick = tick,
                  .position = e->position,
                  .velocity = e->velocity,
                  .angle = e->angle,
                  .angular_velocity = e->angular_velocity};
    float r = arb_length(arb_sub(p.position, center));
    if (!(r <= CL_PROXY_RADIUS)) continue;
    // Nearest first: insertion into the sorted table, the farthest falls off a full one.
    int k = next.count < CL_PROXY_MAX ? next.count++ : CL_PROXY_MAX;
    while (k > 0 && dist[k - 1] > r) {
      if (k < CL_PROXY_MAX) {
        next.items[k] = next.items[k - 1];
        dist[k] = dist[k - 1];
      }
      k--;
    }
    if (k >= CL_PROXY_MAX) continue;
    const cl_proxy* old = find(px, e->id);
    p.body = old && same_shape(&old->shape, &p.shape) ? old->body : arb_null_body_id;
    next.items[k] = p;
    dist[k] = r;
  }
  *px = next;
}

// The body for an avatar of `shape`: the own avatar's material and mass when the shapes
// are the same (the scene's avatar template), the wire geometry with default material else.
static arb_body_id create_body(arb_world* world, const cl_proxy* p, arb_body_id like) {
  arb_body_def def = arb_default_body_def();
  def.position = p->position;
  def.angle = p->angle;
  def.enable_sleep = false;  // put back every tick; sleeping would only hide it
  def.user_data = mark_of(p->entity);
  const arb_shape_def* own =
      arb_body_is_valid(world, like) ? arb_body_get_shape(world, like) : NULL;
  arb_proto_shape own_wire;
  arb_shape_geometry g;
  if (own) {
    arb_shape_geometry og = arb_shape_def_geometry(own);
    if (arb_proto_shape_from_geometry(&og, &own_wire) == ARB_OK &&
        same_shape(&own_wire, &p->shape)) {
      def.shape = *own;
      def.mass = arb_body_get_mass(world, like);
      def.fixed_rotation = arb_body_get_rotational_inertia(world, like) == 0.0f;
      return arb_body_create(world, &def);
    }
  }
  if (arb_proto_shape_to_geometry(&p->shape, &g) != ARB_OK) return arb_null_body_id;
  if (g.type == ARB_SHAPE_POLYGON) {
    arb_polygon core;
    if (arb_make_polygon(g.polygon.vertices, g.polygon.count, &core, NULL) != ARB_OK)
      return arb_null_body_id;
    g.polygon = arb_make_rounded_polygon(&core, g.polygon.radius);
  }
  // Segments are static geometry: a proxy body is dynamic.
  if (g.type == ARB_SHAPE_SEGMENT) return arb_null_body_id;
  def.shape.type = g.type;
  memcpy(&def.shape.polygon, &g.polygon, sizeof g.polygon);  // whichever member is in use
  return arb_body_create(world, &def);
}

// Marked bodies the table does not hold (an image from before a proxy was dropped).
static int destroy_strays(const cl_proxies* px, arb_world* world) {
  arb_body_id local[256];
  int n = arb_world_get_bodies(world, local, 256);
  arb_body_id* ids = local;
  if (n > 256) {
    ids = (arb_body_id*)malloc((size_t)n * sizeof *ids);
    if (!ids) return ARB_E_NOMEM;
    n = arb_world_get_bodies(world, ids, n);
  }
  for (int i = 0; i < n; i++) {
    uint64_t u = arb_body_get_user_data(world, ids[i]);
    if ((u & 0xFFFFFFFF00000000ull) != PROXY_MARK) continue;
    bool kept = false;
    for (int k = 0; k < px->count && !kept; k++)
      kept = px->items[k].entity == (uint32_t)u && arb_body_id_equals(px->items[k].body, ids[i]);
    if (!kept) arb_body_destroy(world, ids[i]);
  }
  if (ids != local) free(ids);
  return ARB_OK;
}

int cl_proxy_sync(cl_proxies* px, arb_world* world, arb_body_id like) {
  int rc = destroy_strays(px, world);
  if (rc != ARB_OK) return rc;
  for (int i = 0; i < px->count; i++) {
    cl_proxy* p = &px->items[i];
    if (arb_body_is_valid(world, p->body) &&
        arb_body_get_user_data(world, p->body) == mark_of(p->entity))
      continue;
    p->body = create_body(world, p, like);
    if (arb_body_id_is_null(p->body)) {  // a shape the local world cannot hold: leave it out
      px->items[i--] = px->items[--px->count];
    }
  }
  return ARB_OK;
}

void cl_proxy_place(const cl_proxies* px, arb_world* world, uint32_t tick, float dt) {
  for (int i = 0; i < px->count; i++) {
    const cl_proxy* p = &px->items[i];
    uint32_t ahead = tick > p->tick ? tick - p->tick - 1u : 0u;  // state after p->tick
    if (ahead > CL_PROXY_MAX_AHEAD) ahead = CL_PROXY_MAX_AHEAD;
    float t = (float)ahead * dt;
    arb_body_set_transform(world, p->body, arb_add(p->position, arb_scale(t, p->velocity)),
                           p->angle + t * p->angular_velocity);
    arb_body_set_linear_velocity(world, p->body, p->velocity);
    arb_body_set_angular_velocity(world, p->body, p->angular_velocity);
  }
}
