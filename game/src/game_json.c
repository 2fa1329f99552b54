// The physics extras in the JSON lines of arb_game_write_json (arbiter-sim, arbiter-replay
// dump; docs/SCENES.md): particles, vehicles with their wheels, springs and joints. Each
// key is written only when the world has such things, so the lines of worlds without them
// are what they always were. Floats with 9 significant digits: float32 round-trips.
#include <stdio.h>
#include <string.h>

#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/vehicle.h>

#include "game_internal.h"

#define JSON_MAX_EXTRAS 256  // vehicles, springs and joints listed per kind

static void put(arb_write_fn* write, void* user, const char* s) {
  write(s, strlen(s), user);
}

static void put_particles(const arb_world* w, arb_write_fn* write, void* user) {
  int n = arb_world_get_particle_count(w);
  if (n <= 0) return;
  put(write, user, ",\"particles\":[");
  for (int i = 0; i < n; i++) {
    arb_vec2 p = arb_particle_get_position(w, i), v = arb_particle_get_velocity(w, i);
    char buf[160];
    snprintf(buf, sizeof buf, "%s{\"p\":[%.9g,%.9g],\"v\":[%.9g,%.9g],\"pinned\":%s}", i ? "," : "",
             (double)p.x, (double)p.y, (double)v.x, (double)v.y,
             arb_particle_is_pinned(w, i) ? "true" : "false");
    put(write, user, buf);
  }
  put(write, user, "]");
}

// The entity id of a body (scene bodies and avatars), 0 when it is none.
static uint32_t entity_of(const arb_game* g, arb_body_id body) {
  for (int i = 0; i < g->scene_body_count; i++)
    if (arb_body_id_equals(g->scene_bodies[i], body)) return (uint32_t)i + 1;
  for (int i = 0; i < g->avatar_count; i++)
    if (arb_body_id_equals(g->avatars[i].body, body)) return g->avatars[i].entity_id;
  return 0;
}

static void put_vehicles(const arb_game* g, arb_write_fn* write, void* user) {
  arb_extra_id ids[JSON_MAX_EXTRAS];
  int n = arb_world_get_vehicles(g->world, ids, JSON_MAX_EXTRAS);
  if (n <= 0) return;
  if (n > JSON_MAX_EXTRAS) n = JSON_MAX_EXTRAS;
  put(write, user, ",\"vehicles\":[");
  for (int v = 0; v < n; v++) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s{\"chassis\":%u,\"speed\":%.9g,\"wheels\":[", v ? "," : "",
             entity_of(g, arb_vehicle_get_chassis(g->world, ids[v])),
             (double)arb_vehicle_get_forward_speed(g->world, ids[v]));
    put(write, user, buf);
    int nw = arb_vehicle_get_wheel_count(g->world, ids[v]);
    for (int k = 0; k < nw; k++) {
      arb_vec2 p = arb_vehicle_get_wheel_transform(g->world, ids[v], k).p;
      snprintf(buf, sizeof buf, "%s{\"p\":[%.9g,%.9g],\"steer\":%.9g,\"spin\":%.9g,\"skid\":%s}",
               k ? "," : "", (double)p.x, (double)p.y,
               (double)arb_vehicle_get_steer_angle(g->world, ids[v], k),
               (double)arb_vehicle_get_wheel_spin(g->world, ids[v], k),
               arb_vehicle_is_wheel_skidding(g->world, ids[v], k) ? "true" : "false");
      put(write, user, buf);
    }
    put(write, user, "]}");
  }
  put(write, user, "]");
}

// Springs (joints = false) or joints: the world positions of both anchors (and the type).
static void put_links(const arb_world* w, bool joints, arb_write_fn* write, void* user) {
  arb_extra_id ids[JSON_MAX_EXTRAS];
  int n = joints ? arb_world_get_joints(w, ids, JSON_MAX_EXTRAS)
                 : arb_world_get_springs(w, ids, JSON_MAX_EXTRAS);
  if (n <= 0) return;
  if (n > JSON_MAX_EXTRAS) n = JSON_MAX_EXTRAS;
  put(write, user, joints ? ",\"joints\":[" : ",\"springs\":[");
  for (int i = 0; i < n; i++) {
    arb_vec2 a, b;
    char type[32] = "";
    if (joints) {
      arb_joint_get_anchors(w, ids[i], &a, &b);
      snprintf(type, sizeof type, "\"type\":%d,", (int)arb_joint_get_type(w, ids[i]));
    } else {
      arb_spring_get_anchors(w, ids[i], &a, &b);
    }
    char buf[192];
    snprintf(buf, sizeof buf, "%s{%s\"a\":[%.9g,%.9g],\"b\":[%.9g,%.9g]}", i ? "," : "", type,
             (double)a.x, (double)a.y, (double)b.x, (double)b.y);
    put(write, user, buf);
  }
  put(write, user, "]");
}

void arb__game_write_extras_json(const arb_game* game, arb_write_fn* write, void* user) {
  put_particles(game->world, write, user);
  put_vehicles(game, write, user);
  put_links(game->world, false, write, user);
  put_links(game->world, true, write, user);
}
