// Lag-compensated shots (scene avatar `fire`), the way Source resolves them: a player sees
// the other avatars interpolated, one round trip and an interpolation delay in the past,
// and aims at what it sees. The game keeps the avatars' poses of the last second (one
// ring slot per tick, part of the game's state: saved, restored and hashed), and a shot
// made with the time the player saw (`view_time`, bounded to one second back like
// sv_maxunlag) is cast against the other avatars at their poses of that time, interpolated
// between the two ticks around it. The shooter fires from where it is now. The avatar hit
// first gets `impulse` along the ray (at its centre, now), and the hit is listed for the
// tick (arb_game_get_hits). Static bodies stop the ray (walls do not move, so they are
// tested where they are); sensors and the other bodies (crates, kinematic platforms) do not.
//
// DETERMINISM: shots are resolved in the order of the tick's controls, avatars in entity
// order; the rewound poses come from the ring, which replays rebuild (or restore from a
// checkpoint) exactly.
#include <arbiter/lower_bound.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/query.h"
#include "game_internal.h"

int arb__fire_init(arb_game* g) {
  const arb_fire_def* fire = &arb_scene_get_avatar(g->scene)->fire;
  if (!fire->enabled) return ARB_OK;
  g->ring_len = (uint32_t)arb_scene_get_tick_rate(g->scene) + 2u;
  g->ring = calloc(g->ring_len, sizeof *g->ring);
  return g->ring ? ARB_OK : ARB_E_NOMEM;
}

void arb__fire_free_ring(arb_pose_tick* ring, uint32_t len) {
  for (uint32_t i = 0; ring && i < len; i++) free(ring[i].poses);
  free(ring);
}

int arb__fire_record(arb_game* g) {
  if (!g->ring_len) return ARB_OK;
  arb_pose_tick* slot = &g->ring[g->tick % g->ring_len];
  slot->tick = g->tick;
  slot->count = 0;
  if ((uint32_t)g->avatar_count > slot->cap) {
    arb_pose* p = realloc(slot->poses, (size_t)g->avatar_count * sizeof *p);
    if (!p) return ARB_E_NOMEM;
    slot->poses = p;
    slot->cap = (uint32_t)g->avatar_count;
  }
  for (int i = 0; i < g->avatar_count; i++) {  // DET: entity id order
    const arb_avatar* a = &g->avatars[i];
    slot->poses[i] = (arb_pose){a->entity_id, arb_body_get_position(g->world, a->body),
                                arb_body_get_angle(g->world, a->body)};
  }
  slot->count = (uint32_t)g->avatar_count;
  return ARB_OK;
}

static const arb_pose* pose_at(const arb_game* g, uint64_t tick, uint32_t entity_id) {
  const arb_pose_tick* slot = &g->ring[tick % g->ring_len];
  if (slot->tick != tick) return NULL;
  // Poses are in entity id order.
  int n = (int)slot->count;
  int i = arb_lower_bound_u32(slot->poses, n, sizeof *slot->poses, offsetof(arb_pose, entity_id),
                              entity_id);
  return i < n && slot->poses[i].entity_id == entity_id ? &slot->poses[i] : NULL;
}

// Where `entity_id` was at `time` (1/256 ticks): between the poses of the ticks around it.
static bool rewound_pose(const arb_game* g, uint64_t time, uint32_t entity_id, arb_pose* out) {
  uint64_t tick = time >> 8;
  const arb_pose* a = pose_at(g, tick, entity_id);
  const arb_pose* b = (time & 255u) ? pose_at(g, tick + 1, entity_id) : NULL;
  if (!a && !b) return false;
  if (!a || !b) {
    *out = a ? *a : *b;
    return true;
  }
  float t = (float)(time & 255u) * (1.0f / 256.0f);
  *out = (arb_pose){entity_id, arb_lerp(a->position, b->position, t),
                    a->angle + t * (b->angle - a->angle)};
  return true;
}

// The ray against one avatar's shape at a pose; its fraction, or > 1 for a miss.
static float cast_at(const arb_shape_def* shape, const arb_pose* pose, arb_vec2 origin,
                     arb_vec2 translation) {
  arb_rot q = arb_rot_from_angle(pose->angle);
  arb_ray_input in = {arb_inv_rotate(q, arb_sub(origin, pose->position)),
                      arb_inv_rotate(q, translation), 1.0f};
  arb_shape_geometry g = arb_shape_def_geometry(shape);
  arb_cast_output out = arb_ray_cast_shape(&in, &g);
  return out.hit ? out.fraction : 2.0f;
}

static void add_hit(arb_game* g, const arb_game_hit* hit) {
  if (g->hit_count == g->hit_cap) {
    int cap = g->hit_cap ? 2 * g->hit_cap : 8;
    arb_game_hit* h = realloc(g->hits, (size_t)cap * sizeof *h);
    if (!h) return;  // the impulse was applied; only the report is lost
    g->hits = h;
    g->hit_cap = cap;
  }
  g->hits[g->hit_count++] = *hit;
}

void arb__fire_shoot(arb_game* g, uint32_t client_id, uint64_t view_time) {
  const arb_fire_def* fire = &arb_scene_get_avatar(g->scene)->fire;
  arb_entity shooter;
  arb_controls controls;
  if (!g->ring_len || arb_game_get_avatar(g, client_id, &shooter) != ARB_OK ||
      arb_game_get_controls(g, client_id, &controls) != ARB_OK)
    return;
  uint64_t now = g->tick << 8, oldest = now - ((uint64_t)(g->ring_len - 2u) << 8);
  if (g->tick < g->ring_len - 2u) oldest = 0;
  uint64_t time = view_time == 0 || view_time > now ? now : view_time;
  if (time < oldest) time = oldest;
  arb_rot aim = arb_rot_from_angle(controls.aim);
  arb_vec2 dir = {aim.c, aim.s};
  arb_vec2 origin = arb_body_get_position(g->world, shooter.body);
  arb_vec2 translation = arb_scale(fire->range, dir);
  // The nearest wall bounds the shot; an avatar exactly at the wall is behind it.
  arb_query_filter walls = arb_default_query_filter();
  walls.body_types = ARB_QUERY_TYPE(ARB_BODY_STATIC);
  arb_ray_hit wall;
  float reach = arb_world_ray_cast_closest(g->world, origin, translation, walls, &wall)
                    ? wall.fraction
                    : 2.0f;
  int best = -1;
  float best_fraction = 1.0f;
  for (int i = 0; i < g->avatar_count; i++) {  // DET: entity id order
    const arb_avatar* a = &g->avatars[i];
    arb_pose pose;
    if (a->client_id == client_id || !rewound_pose(g, time, a->entity_id, &pose)) continue;
    float f = cast_at(arb_body_get_shape(g->world, a->body), &pose, origin, translation);
    if (f <= 1.0f && f < reach && (best < 0 || f < best_fraction)) {
      best = i;
      best_fraction = f;
    }
  }
  if (best < 0) return;
  const arb_avatar* target = &g->avatars[best];
  arb_body_apply_linear_impulse(g->world, target->body, arb_scale(fire->impulse, dir),
                                arb_body_get_world_center(g->world, target->body));
  arb_game_hit hit;
  memset(&hit, 0, sizeof hit);  // padding too: hits are compared and copied as bytes
  hit.tick = g->tick + 1;
  hit.shooter = client_id;
  hit.target_entity = target->entity_id;
  hit.target_owner = target->client_id;
  hit.point = arb_mul_add(origin, best_fraction, translation);
  hit.view_time = time;
  add_hit(g, &hit);
}

int arb_game_get_hits(const arb_game* game, const arb_game_hit** out) {
  if (out) *out = game ? game->hits : NULL;
  return game ? game->hit_count : 0;
}
