// The game rules layer: a scene's world plus the players' avatars (see game.h).
//
// DETERMINISM: avatars are stepped in client-id order; spawn choice uses the game's own
// PCG32 generator, seeded from the scene and the caller's seed and advanced only by joins.
// The hash and the save image are in game_state.c.
#include <arbiter/lower_bound.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller_vehicle.h"
#include "game_internal.h"

// ---- random numbers (PCG32, O'Neill) --------------------------------------------------

#define PCG_MULT 6364136223846793005ull
#define PCG_INC 1442695040888963407ull

static uint32_t pcg32_next(uint64_t* state) {
  uint64_t old = *state;
  *state = old * PCG_MULT + PCG_INC;
  uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
  uint32_t rot = (uint32_t)(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// ---- lifetime -------------------------------------------------------------------------

static float bounding_radius(const arb_shape_def* s) {
  arb_shape_geometry g = arb_shape_def_geometry(s);
  return arb_compute_shape_extent(&g, arb_vec2_zero);
}

int arb_game_create(const arb_scene* scene, uint64_t seed, arb_game** out) {
  if (!scene || !out) return ARB_E_INVAL;
  *out = NULL;
  arb_game* g = calloc(1, sizeof *g);
  if (!g) return ARB_E_NOMEM;
  g->scene = scene;
  g->dt = 1.0f / (float)arb_scene_get_tick_rate(scene);
  g->rng = splitmix64(arb_scene_get_seed(scene)) ^ splitmix64(seed ^ 0x6172626974657221ull);
  g->scene_body_count = arb_scene_get_body_count(scene);
  g->next_entity_id = (uint32_t)g->scene_body_count + 1;
  g->spawn_clearance = 2.0f * bounding_radius(&arb_scene_get_avatar(scene)->body.shape);
  if (g->scene_body_count > 0) {
    g->scene_bodies = calloc((size_t)g->scene_body_count, sizeof *g->scene_bodies);
    if (!g->scene_bodies) {
      free(g);
      return ARB_E_NOMEM;
    }
  }
  int rc = arb_scene_create_world(scene, &g->world, g->scene_bodies, g->scene_body_count);
  if (rc != ARB_OK) {
    free(g->scene_bodies);
    free(g);
    return rc;
  }
  for (int i = 0; i < g->scene_body_count; i++)
    arb_body_set_user_data(g->world, g->scene_bodies[i], (uint64_t)i + 1);
  if ((rc = arb__fire_init(g)) != ARB_OK) {
    arb_game_destroy(g);
    return rc;
  }
  *out = g;
  return ARB_OK;
}

void arb_game_destroy(arb_game* game) {
  if (!game) return;
  arb_world_destroy(game->world);
  free(game->scene_bodies);
  free(game->avatars);
  free(game->by_client);
  arb__fire_free_ring(game->ring, game->ring_len);
  free(game->hits);
  free(game);
}

arb_world* arb_game_get_world(arb_game* game) {
  return game->world;
}
const arb_scene* arb_game_get_scene(const arb_game* game) {
  return game->scene;
}
uint64_t arb_game_get_tick(const arb_game* game) {
  return game->tick;
}
float arb_game_get_dt(const arb_game* game) {
  return game->dt;
}
int arb_game_get_avatar_count(const arb_game* game) {
  return game->avatar_count;
}

// ---- avatars --------------------------------------------------------------------------

// Position in by_client where client_id is or would be inserted.
static int client_slot(const arb_game* g, uint32_t client_id, bool* found) {
  int lo = 0, hi = g->avatar_count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    uint32_t c = g->avatars[g->by_client[mid]].client_id;
    if (c < client_id)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = lo < g->avatar_count && g->avatars[g->by_client[lo]].client_id == client_id;
  return lo;
}

static arb_avatar* find_avatar(const arb_game* g, uint32_t client_id) {
  bool found;
  int slot = client_slot(g, client_id, &found);
  return found ? &g->avatars[g->by_client[slot]] : NULL;
}

static int reserve_avatars(arb_game* g, int n) {
  if (n <= g->avatar_cap) return ARB_OK;
  int cap = g->avatar_cap ? g->avatar_cap : 16;
  while (cap < n) cap *= 2;
  arb_avatar* a = realloc(g->avatars, (size_t)cap * sizeof *a);
  if (!a) return ARB_E_NOMEM;
  g->avatars = a;
  int* b = realloc(g->by_client, (size_t)cap * sizeof *b);
  if (!b) return ARB_E_NOMEM;
  g->by_client = b;
  g->avatar_cap = cap;
  return ARB_OK;
}

// Start at a random spawn point and take the first one (cyclically) with no avatar
// within the clearance; when all are taken, the random one. One rng draw per join.
static arb_vec2 choose_spawn(arb_game* g) {
  int count = arb_scene_get_spawn_point_count(g->scene);
  int start = (int)(pcg32_next(&g->rng) % (uint32_t)count);
  float clear_sq = g->spawn_clearance * g->spawn_clearance;
  for (int k = 0; k < count; k++) {
    arb_vec2 p = arb_scene_get_spawn_point(g->scene, (start + k) % count);
    bool taken = false;
    for (int i = 0; i < g->avatar_count && !taken; i++) {  // DET: join order
      taken = arb_distance_sq(p, arb_body_get_position(g->world, g->avatars[i].body)) < clear_sq;
    }
    if (!taken) return p;
  }
  return arb_scene_get_spawn_point(g->scene, start);
}

// The entity view of an avatar; its kind is what "scene default" resolved to at join.
static arb_entity avatar_entity(const arb_avatar* a) {
  arb_entity e = {a->entity_id, a->body, a->client_id,
                  a->controller == ARB_CONTROLLER_VEHICLE ? ARB_AVATAR_VEHICLE : ARB_AVATAR_FORCE};
  return e;
}

static int controller_for_kind(const arb_game* g, arb_avatar_kind kind, arb_controller_type* out) {
  switch (kind) {
    case ARB_AVATAR_DEFAULT:
      *out = arb_scene_get_avatar(g->scene)->controller;
      break;
    case ARB_AVATAR_FORCE:
      *out = ARB_CONTROLLER_FORCE;
      break;
    case ARB_AVATAR_VEHICLE:
      *out = ARB_CONTROLLER_VEHICLE;
      break;
    default:
      return ARB_E_INVAL;
  }
  return *out == ARB_CONTROLLER_FORCE || *out == ARB_CONTROLLER_VEHICLE ? ARB_OK : ARB_E_NOT_FOUND;
}

int arb_game_join(arb_game* game, uint32_t client_id, arb_avatar_kind kind, uint32_t* entity_id) {
  if (!game || client_id == 0) return ARB_E_INVAL;
  arb_controller_type controller;
  int rc = controller_for_kind(game, kind, &controller);
  if (rc != ARB_OK) return rc;
  bool found;
  int slot = client_slot(game, client_id, &found);
  if (found) return ARB_E_STATE;
  if (game->avatar_count >= ARB_GAME_MAX_AVATARS || game->next_entity_id == UINT32_MAX)
    return ARB_E_FULL;
  rc = reserve_avatars(game, game->avatar_count + 1);
  if (rc != ARB_OK) return rc;

  const arb_scene_avatar* tpl = arb_scene_get_avatar(game->scene);
  arb_body_def def = controller == ARB_CONTROLLER_VEHICLE ? tpl->vehicle_body : tpl->body;
  def.position = choose_spawn(game);
  def.user_data = game->next_entity_id;
  arb_body_id body = arb_body_create(game->world, &def);
  if (arb_body_id_is_null(body)) return ARB_E_NOMEM;  // the template was validated at load
  if (controller == ARB_CONTROLLER_VEHICLE &&
      arb__controller_vehicle_attach(game->world, tpl, body) != ARB_OK) {
    arb_body_destroy(game->world, body);
    return ARB_E_NOMEM;  // the vehicle template was validated at load
  }

  arb_avatar* a = &game->avatars[game->avatar_count];
  memset(a, 0, sizeof *a);
  a->client_id = client_id;
  a->entity_id = game->next_entity_id++;
  a->body = body;
  a->controller = controller;
  memmove(&game->by_client[slot + 1], &game->by_client[slot],
          (size_t)(game->avatar_count - slot) * sizeof(int));
  game->by_client[slot] = game->avatar_count;
  game->avatar_count++;
  game->join_count++;
  if (entity_id) *entity_id = a->entity_id;
  return ARB_OK;
}

int arb_game_leave(arb_game* game, uint32_t client_id) {
  if (!game) return ARB_E_INVAL;
  bool found;
  int slot = client_slot(game, client_id, &found);
  if (!found) return ARB_E_NOT_FOUND;
  int index = game->by_client[slot];
  if (game->avatars[index].controller == ARB_CONTROLLER_VEHICLE) {
    arb__controller_vehicle_detach(game->world, game->avatars[index].body);
  }
  arb_body_destroy(game->world, game->avatars[index].body);
  memmove(&game->avatars[index], &game->avatars[index + 1],
          (size_t)(game->avatar_count - index - 1) * sizeof(arb_avatar));
  memmove(&game->by_client[slot], &game->by_client[slot + 1],
          (size_t)(game->avatar_count - slot - 1) * sizeof(int));
  game->avatar_count--;
  for (int i = 0; i < game->avatar_count; i++) {
    if (game->by_client[i] > index) game->by_client[i]--;
  }
  return ARB_OK;
}

// Adding +0 turns -0 into +0: controls that act the same are stored (and hashed) the same.
static float clamp_axis(float v, float lo, float hi) {
  return arb_clampf(v, lo, hi) + 0.0f;
}

static bool controls_finite(const arb_controls* c) {
  return arb_is_valid_float(c->move_x) && arb_is_valid_float(c->move_y) &&
         arb_is_valid_float(c->aim) && arb_is_valid_float(c->steer) &&
         arb_is_valid_float(c->throttle) && arb_is_valid_float(c->brake);
}

int arb_game_set_controls(arb_game* game, uint32_t client_id, const arb_controls* controls) {
  if (!game || !controls) return ARB_E_INVAL;
  if (!controls_finite(controls)) return ARB_E_NONFINITE;
  arb_avatar* a = find_avatar(game, client_id);
  if (!a) return ARB_E_NOT_FOUND;
  arb_controls c = *controls;
  c.move_x = clamp_axis(c.move_x, -1.0f, 1.0f);
  c.move_y = clamp_axis(c.move_y, -1.0f, 1.0f);
  c.aim = clamp_axis(c.aim, -ARB_PI, ARB_PI);
  c.steer = clamp_axis(c.steer, -1.0f, 1.0f);
  c.throttle = clamp_axis(c.throttle, 0.0f, 1.0f);
  c.brake = clamp_axis(c.brake, 0.0f, 1.0f);
  a->controls = c;
  return ARB_OK;
}

int arb_game_get_controls(const arb_game* game, uint32_t client_id, arb_controls* out) {
  arb_avatar* a = find_avatar(game, client_id);
  if (!a) return ARB_E_NOT_FOUND;
  if (out) *out = a->controls;
  return ARB_OK;
}

void arb_game_step(arb_game* game) {
  const arb_scene_avatar* tpl = arb_scene_get_avatar(game->scene);
  arb_vec2 gravity = arb_world_get_gravity(game->world);
  for (int i = 0; i < game->avatar_count; i++) {  // DET: client-id order
    arb_avatar* a = &game->avatars[game->by_client[i]];
    switch (a->controller) {
      case ARB_CONTROLLER_FORCE:
        arb__controller_force_apply(game->world, &tpl->force, gravity, game->dt, a);
        break;
      case ARB_CONTROLLER_VEHICLE:
        arb__controller_vehicle_apply(game->world, a);
        break;
      default:
        break;  // join refuses kinds without a controller
    }
  }
  arb_world_step(game->world, game->dt);
  game->tick++;
  arb__fire_record(game);  // out of memory: that tick's poses are missing, shots miss them
}

// ---- entities -------------------------------------------------------------------------

int arb_game_get_entities(const arb_game* game, arb_entity* out, int cap) {
  int total = game->scene_body_count + game->avatar_count;
  int k = 0;
  for (int i = 0; i < game->scene_body_count && k < cap; i++, k++) {
    out[k] = (arb_entity){(uint32_t)i + 1, game->scene_bodies[i], 0, ARB_AVATAR_DEFAULT};
  }
  for (int i = 0; i < game->avatar_count && k < cap; i++, k++) {
    out[k] = avatar_entity(&game->avatars[i]);
  }
  return total;
}

int arb_game_find_entity(const arb_game* game, uint32_t entity_id, arb_entity* out) {
  if (entity_id == 0) return ARB_E_NOT_FOUND;
  if (entity_id <= (uint32_t)game->scene_body_count) {
    if (out)
      *out = (arb_entity){entity_id, game->scene_bodies[entity_id - 1], 0, ARB_AVATAR_DEFAULT};
    return ARB_OK;
  }
  int lo = arb_lower_bound_u32(game->avatars, game->avatar_count, sizeof *game->avatars,
                               offsetof(arb_avatar, entity_id), entity_id);
  if (lo < game->avatar_count && game->avatars[lo].entity_id == entity_id) {
    const arb_avatar* a = &game->avatars[lo];
    if (out) *out = avatar_entity(a);
    return ARB_OK;
  }
  return ARB_E_NOT_FOUND;
}

int arb_game_get_avatar(const arb_game* game, uint32_t client_id, arb_entity* out) {
  const arb_avatar* a = find_avatar(game, client_id);
  if (!a) return ARB_E_NOT_FOUND;
  if (out) *out = avatar_entity(a);
  return ARB_OK;
}

// ---- JSON lines (arbiter-sim, arbiter-replay dump) ------------------------------------------

static void write_str(arb_write_fn* write, void* user, const char* s) {
  write(s, strlen(s), user);
}

// Names never hold control characters (the loader refuses them); quote and backslash remain.
static void write_json_string(arb_write_fn* write, void* user, const char* s) {
  write("\"", 1, user);
  const char* run = s;
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') {
      if (s > run) write(run, (size_t)(s - run), user);
      char esc[2] = {'\\', *s};
      write(esc, 2, user);
      run = s + 1;
    }
  }
  if (s > run) write(run, (size_t)(s - run), user);
  write("\"", 1, user);
}

static void write_entity(const arb_game* game, const arb_entity* e, bool first, arb_write_fn* write,
                         void* user) {
  char buf[320];
  snprintf(buf, sizeof buf, "%s{\"id\":%u,\"name\":", first ? "" : ",", e->id);
  write_str(write, user, buf);
  const char* name = e->owner ? "avatar" : arb_scene_get_body_name(game->scene, (int)e->id - 1);
  write_json_string(write, user, name ? name : "");
  arb_vec2 p = arb_body_get_position(game->world, e->body);
  arb_vec2 v = arb_body_get_linear_velocity(game->world, e->body);
  float a = arb_body_get_angle(game->world, e->body);
  float w = arb_body_get_angular_velocity(game->world, e->body);
  int n = 0;
  if (e->owner) n = snprintf(buf, sizeof buf, ",\"owner\":%u", e->owner);
  snprintf(buf + n, sizeof buf - (size_t)n,
           ",\"p\":[%.9g,%.9g],\"a\":%.9g,\"v\":[%.9g,%.9g],\"w\":%.9g}", (double)p.x, (double)p.y,
           (double)a, (double)v.x, (double)v.y, (double)w);
  write_str(write, user, buf);
}

void arb_game_write_json(const arb_game* game, bool with_bodies, arb_write_fn* write, void* user) {
  char buf[96];
  snprintf(buf, sizeof buf, "{\"tick\":%llu,\"hash\":\"%016llx\"", (unsigned long long)game->tick,
           (unsigned long long)arb_world_hash(game->world));
  write_str(write, user, buf);
  if (with_bodies) {
    write_str(write, user, ",\"bodies\":[");
    bool first = true;
    for (int i = 0; i < game->scene_body_count; i++) {  // DET: entity id order
      arb_entity e = {(uint32_t)i + 1, game->scene_bodies[i], 0, ARB_AVATAR_DEFAULT};
      write_entity(game, &e, first, write, user);
      first = false;
    }
    for (int i = 0; i < game->avatar_count; i++) {
      const arb_avatar* av = &game->avatars[i];
      arb_entity e = avatar_entity(av);
      write_entity(game, &e, first, write, user);
      first = false;
    }
    write_str(write, user, "]");
    arb__game_write_extras_json(game, write, user);
  }
  write_str(write, user, "}\n");
}
