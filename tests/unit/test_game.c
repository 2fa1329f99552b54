// Game rules layer: joins/leaves, entity ids, controls, the force controller, spawn
// choice, hash, save/restore and determinism of the whole layer.
// cmocka needs these before it, in this order.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/test_main.h"
// clang-format on

#include <arbiter/game.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game_fixture.h"
#include "scene_test_util.h"

static arb_game* make_game(const arb_scene* scene, uint64_t seed) {
  arb_game* game = NULL;
  assert_int_equal(arb_game_create(scene, seed, &game), ARB_OK);
  return game;
}

// cmocka fixture: the built-in scene's game with seed 1 (a game_fixture) as *state.
static int default_game_setup(void** state) {
  static game_fixture f;
  f.scene = st_load(NULL);
  f.game = make_game(f.scene, 1);
  *state = &f;
  return 0;
}

static int default_game_teardown(void** state) {
  game_fixture_close(*state);
  return 0;
}

#define DEFAULT_GAME_TEST(test) \
  cmocka_unit_test_setup_teardown(test, default_game_setup, default_game_teardown)

static arb_vec2 avatar_pos(arb_game* game, uint32_t client) {
  arb_entity e;
  assert_int_equal(arb_game_get_avatar(game, client, &e), ARB_OK);
  return arb_body_get_position(arb_game_get_world(game), e.body);
}

static arb_vec2 avatar_vel(arb_game* game, uint32_t client) {
  arb_entity e;
  assert_int_equal(arb_game_get_avatar(game, client, &e), ARB_OK);
  return arb_body_get_linear_velocity(arb_game_get_world(game), e.body);
}

static void steps(arb_game* game, int n) {
  for (int i = 0; i < n; i++) arb_game_step(game);
}

static void test_game_join_leave(void** state) {
  game_fixture* fx = *state;
  arb_scene* scene = fx->scene;
  arb_game* game = fx->game;
  uint32_t nbodies = (uint32_t)arb_scene_get_body_count(scene);
  assert_true(arb_game_get_dt(game) == 1.0f / 60.0f);
  assert_int_equal(arb_game_get_tick(game), 0);
  assert_ptr_equal(arb_game_get_scene(game), scene);

  uint32_t id = 0;
  assert_int_equal(arb_game_join(game, 7, ARB_AVATAR_DEFAULT, &id), ARB_OK);
  assert_int_equal(id, nbodies + 1);
  assert_int_equal(arb_game_join(game, 7, ARB_AVATAR_DEFAULT, &id), ARB_E_STATE);
  assert_int_equal(arb_game_join(game, 0, ARB_AVATAR_DEFAULT, &id), ARB_E_INVAL);
  // (vehicle avatars join too: tests/unit/test_extras_scene.c)
  assert_int_equal(arb_game_join(game, 8, ARB_AVATAR_KIND_COUNT, &id), ARB_E_INVAL);
  assert_int_equal(arb_game_get_avatar_count(game), 1);
  assert_int_equal(arb_world_get_body_count(arb_game_get_world(game)), (int)nbodies + 1);

  arb_entity e;
  assert_int_equal(arb_game_get_avatar(game, 7, &e), ARB_OK);
  assert_int_equal(e.owner, 7);
  assert_int_equal(e.id, nbodies + 1);
  assert_true(arb_body_is_valid(arb_game_get_world(game), e.body));
  assert_int_equal(arb_body_get_user_data(arb_game_get_world(game), e.body), e.id);

  assert_int_equal(arb_game_leave(game, 7), ARB_OK);
  assert_false(arb_body_is_valid(arb_game_get_world(game), e.body));
  assert_int_equal(arb_game_leave(game, 7), ARB_E_NOT_FOUND);
  assert_int_equal(arb_game_get_avatar(game, 7, &e), ARB_E_NOT_FOUND);
  assert_int_equal(arb_game_get_avatar_count(game), 0);
  assert_int_equal(arb_world_get_body_count(arb_game_get_world(game)), (int)nbodies);
}

static void test_game_entity_ids_stable_never_reused(void** state) {
  game_fixture* fx = *state;
  arb_scene* scene = fx->scene;
  arb_game* game = fx->game;
  uint32_t n = (uint32_t)arb_scene_get_body_count(scene);
  uint32_t id1, id2, id3, id4, id2b;
  assert_int_equal(arb_game_join(game, 30, 0, &id1), ARB_OK);
  assert_int_equal(arb_game_join(game, 10, 0, &id2), ARB_OK);
  assert_int_equal(arb_game_join(game, 20, 0, &id3), ARB_OK);
  assert_int_equal(id1, n + 1);
  assert_int_equal(id2, n + 2);
  assert_int_equal(id3, n + 3);
  steps(game, 5);
  assert_int_equal(arb_game_leave(game, 10), ARB_OK);
  assert_int_equal(arb_game_join(game, 40, 0, &id4), ARB_OK);
  assert_int_equal(arb_game_join(game, 10, 0, &id2b), ARB_OK);
  assert_int_equal(id4, n + 4);
  assert_int_equal(id2b, n + 5);

  arb_entity list[64];
  int total = arb_game_get_entities(game, list, 64);
  assert_int_equal(total, (int)n + 4);
  for (int i = 0; i < total; i++) {
    if (i > 0) assert_true(list[i].id > list[i - 1].id);
    if ((uint32_t)i < n) {
      assert_int_equal(list[i].id, (uint32_t)i + 1);
      assert_int_equal(list[i].owner, 0);
    }
    arb_entity f;
    assert_int_equal(arb_game_find_entity(game, list[i].id, &f), ARB_OK);
    assert_true(arb_body_id_equals(f.body, list[i].body));
    assert_int_equal(f.owner, list[i].owner);
  }
  assert_int_equal(list[n].owner, 30);
  assert_int_equal(list[n + 1].owner, 20);
  assert_int_equal(list[n + 2].owner, 40);
  assert_int_equal(list[n + 3].owner, 10);
  assert_int_equal(arb_game_find_entity(game, id2, NULL), ARB_E_NOT_FOUND);
  assert_int_equal(arb_game_find_entity(game, 0, NULL), ARB_E_NOT_FOUND);
  assert_int_equal(arb_game_find_entity(game, n + 99, NULL), ARB_E_NOT_FOUND);
  // Fewer slots than entities: writes cap, returns the total.
  assert_int_equal(arb_game_get_entities(game, list, 2), total);
}

static void test_game_controls_clamped_and_held(void** state) {
  game_fixture* fx = *state;
  arb_game* game = fx->game;
  assert_int_equal(arb_game_join(game, 1, 0, NULL), ARB_OK);
  arb_controls c = {5.0f, -3.0f, 10.0f, ARB_BUTTON_FIRE, -2.0f, 7.0f, -1.0f};
  assert_int_equal(arb_game_set_controls(game, 1, &c), ARB_OK);
  arb_controls got;
  assert_int_equal(arb_game_get_controls(game, 1, &got), ARB_OK);
  assert_true(got.move_x == 1.0f && got.move_y == -1.0f && got.aim == ARB_PI);
  assert_true(got.steer == -1.0f && got.throttle == 1.0f && got.brake == 0.0f);
  assert_int_equal(got.buttons, ARB_BUTTON_FIRE);

  uint64_t before = arb_game_hash(game);
  arb_controls bad = got;
  bad.move_x = NAN;
  assert_int_equal(arb_game_set_controls(game, 1, &bad), ARB_E_NONFINITE);
  bad.move_x = 0.0f;
  bad.aim = INFINITY;
  assert_int_equal(arb_game_set_controls(game, 1, &bad), ARB_E_NONFINITE);
  assert_int_equal(arb_game_hash(game), before);  // refused controls change nothing
  assert_int_equal(arb_game_set_controls(game, 2, &c), ARB_E_NOT_FOUND);

  steps(game, 30);
  assert_int_equal(arb_game_get_controls(game, 1, &got), ARB_OK);  // held across ticks
  assert_true(got.move_x == 1.0f);
  arb_controls other = got;
  other.move_x = 0.5f;
  before = arb_game_hash(game);
  assert_int_equal(arb_game_set_controls(game, 1, &other), ARB_OK);
  assert_int_not_equal(arb_game_hash(game), before);  // controls are game state
}

static void test_game_force_controller_moves_own_avatar_only(void** state) {
  game_fixture* fx = *state;
  arb_scene* scene = fx->scene;
  const arb_force_controller_def* fc = &arb_scene_get_avatar(scene)->force;
  arb_game* game = fx->game;
  assert_int_equal(arb_game_join(game, 1, 0, NULL), ARB_OK);
  assert_int_equal(arb_game_join(game, 2, 0, NULL), ARB_OK);
  steps(game, 60);  // land on the ground
  arb_vec2 a0 = avatar_pos(game, 1), b0 = avatar_pos(game, 2);
  assert_true(arb_distance(a0, b0) > 1.0f);

  // Walk client 1 towards +x for one second (away from client 2 if it is to the left;
  // the spawn points are on a line, 2 m apart, so pick the direction away from 2).
  float dir = a0.x > b0.x ? 1.0f : -1.0f;
  arb_controls c = {0};
  c.move_x = dir;
  assert_int_equal(arb_game_set_controls(game, 1, &c), ARB_OK);
  float top_speed = 0.0f;
  for (int i = 0; i < 60; i++) {
    arb_game_step(game);
    float s = arb_absf(avatar_vel(game, 1).x);
    top_speed = arb_maxf(top_speed, s);
  }
  arb_vec2 a1 = avatar_pos(game, 1), b1 = avatar_pos(game, 2);
  // Tolerances: the walk covers > 2 m in 1 s with max_speed 6 m/s (most of it at top
  // speed); the controller never accelerates beyond max_speed (float slack 1e-3).
  assert_true((a1.x - a0.x) * dir > 2.0f);
  assert_true(top_speed <= fc->max_speed + 1e-3f);
  assert_true(top_speed > 0.9f * fc->max_speed);
  assert_true(arb_distance(b0, b1) < 0.01f);  // the other avatar did not move

  // Release: the controller brakes on the ground.
  c.move_x = 0.0f;
  assert_int_equal(arb_game_set_controls(game, 1, &c), ARB_OK);
  steps(game, 30);
  assert_true(arb_absf(avatar_vel(game, 1).x) < 0.05f);

  // Jump: only when grounded, with the scene's impulse (dv = J / m upwards).
  arb_entity e;
  assert_int_equal(arb_game_get_avatar(game, 1, &e), ARB_OK);
  float m = arb_body_get_mass(arb_game_get_world(game), e.body);
  c.buttons = ARB_BUTTON_JUMP;
  assert_int_equal(arb_game_set_controls(game, 1, &c), ARB_OK);
  arb_game_step(game);
  float vy = avatar_vel(game, 1).y;
  float expect = fc->jump_impulse / m - 9.81f / 60.0f;
  assert_true(arb_absf(vy - expect) < 0.05f * expect);
  // Holding jump in the air does nothing more: the velocity only decreases (gravity).
  float peak_y = avatar_pos(game, 1).y;
  for (int i = 0; i < 20; i++) {
    arb_game_step(game);
    float v = avatar_vel(game, 1).y;
    assert_true(v <= vy + 1e-4f);
    vy = v;
    peak_y = arb_maxf(peak_y, avatar_pos(game, 1).y);
  }
  assert_true(peak_y > a1.y + 1.0f);
  assert_true(arb_distance(b0, avatar_pos(game, 2)) < 0.01f);
}

// The default scene is playable: a run and one jump from the floor lands on the ledge
// (top at y = 2.5 m, x in [-13, -7]); the controller then stops the avatar there.
static void test_game_default_ledge_reachable(void** state) {
  game_fixture* fx = *state;
  arb_scene* scene = fx->scene;
  arb_game* game = fx->game;
  steps(game, 300);  // the loose balls have fallen and settled
  assert_int_equal(arb_game_join(game, 1, 0, NULL), ARB_OK);
  arb_entity e;
  assert_int_equal(arb_game_get_avatar(game, 1, &e), ARB_OK);
  arb_body_set_transform(arb_game_get_world(game), e.body, arb_v2(-19.0f, 0.41f), 0.0f);
  float radius = arb_scene_get_avatar(scene)->body.shape.circle.radius;
  bool jumped = false;
  float peak = 0.0f;
  for (int t = 0; t < 240; t++) {
    arb_vec2 p = avatar_pos(game, 1);
    peak = arb_maxf(peak, p.y);
    arb_controls c = {0};
    c.move_x = p.x < -11.0f ? 1.0f : 0.0f;  // run right, stop over the ledge
    if (!jumped && p.x > -16.5f) {          // one jump, from the floor, at full speed
      c.buttons = ARB_BUTTON_JUMP;
      jumped = true;
    }
    assert_int_equal(arb_game_set_controls(game, 1, &c), ARB_OK);
    arb_game_step(game);
  }
  arb_vec2 p = avatar_pos(game, 1);
  // Resting on the ledge: centre one radius above its top (2 cm contact slack), still.
  assert_true(peak > 2.5f + radius);
  assert_true(arb_absf(p.y - (2.5f + radius)) < 0.02f);
  assert_true(p.x > -13.0f && p.x < -7.0f);
  assert_true(arb_length(avatar_vel(game, 1)) < 0.05f);
}

static void test_game_force_controller_top_down(void** state) {
  (void)state;
  arb_scene* scene = st_load("topdown.json");
  arb_game* game = make_game(scene, 3);
  assert_int_equal(arb_game_join(game, 5, 0, NULL), ARB_OK);
  assert_int_equal(arb_game_join(game, 6, 0, NULL), ARB_OK);
  arb_vec2 p0 = avatar_pos(game, 5), q0 = avatar_pos(game, 6);
  arb_controls c = {0};
  c.move_x = 1.0f;
  c.move_y = 1.0f;              // diagonal: speed limited to max_speed, not sqrt(2) * max_speed
  c.buttons = ARB_BUTTON_JUMP;  // no jump in top-down mode
  assert_int_equal(arb_game_set_controls(game, 5, &c), ARB_OK);
  steps(game, 60);
  arb_vec2 v = avatar_vel(game, 5);
  float max_speed = arb_scene_get_avatar(scene)->force.max_speed;
  assert_true(arb_length(v) <= max_speed + 1e-3f);
  assert_true(arb_length(v) > 0.95f * max_speed);
  assert_true(arb_absf(v.x - v.y) < 1e-3f);
  arb_vec2 p1 = avatar_pos(game, 5);
  assert_true(p1.x - p0.x > 1.0f && p1.y - p0.y > 1.0f);
  assert_true(arb_distance(q0, avatar_pos(game, 6)) < 1e-6f);
  arb_game_destroy(game);
  arb_scene_destroy(scene);
}

static void test_game_spawn_choice_deterministic(void** state) {
  (void)state;
  arb_scene* scene = st_load(NULL);
  arb_vec2 first[2][8];
  for (int run = 0; run < 2; run++) {
    arb_game* game = make_game(scene, 99);
    for (uint32_t c = 1; c <= 8; c++) {
      assert_int_equal(arb_game_join(game, c, 0, NULL), ARB_OK);
      first[run][c - 1] = avatar_pos(game, c);
    }
    // 8 players, 8 spawn points: nobody spawns on top of another.
    for (int i = 0; i < 8; i++) {
      for (int k = 0; k < i; k++) assert_true(arb_distance(first[run][i], first[run][k]) > 1.0f);
    }
    arb_game_destroy(game);
  }
  assert_memory_equal(first[0], first[1], sizeof first[0]);
  // The seed takes part: over 16 seeds the first spawn is not always the same point.
  int differs = 0;
  for (uint64_t seed = 1; seed <= 16; seed++) {
    arb_game* game = make_game(scene, seed);
    assert_int_equal(arb_game_join(game, 1, 0, NULL), ARB_OK);
    arb_vec2 p = avatar_pos(game, 1);
    differs += p.x != first[0][0].x;
    arb_game_destroy(game);
  }
  assert_true(differs > 0);
  arb_scene_destroy(scene);
}

static void test_game_full(void** state) {
  (void)state;
  arb_scene* scene = st_load("minimal.json");
  arb_game* game = make_game(scene, 1);
  for (uint32_t c = 1; c <= ARB_GAME_MAX_AVATARS; c++)
    assert_int_equal(arb_game_join(game, c, 0, NULL), ARB_OK);
  assert_int_equal(arb_game_join(game, ARB_GAME_MAX_AVATARS + 1, 0, NULL), ARB_E_FULL);
  assert_int_equal(arb_game_leave(game, 1), ARB_OK);
  assert_int_equal(arb_game_join(game, ARB_GAME_MAX_AVATARS + 1, 0, NULL), ARB_OK);
  arb_game_destroy(game);
  arb_scene_destroy(scene);
}

// A scripted session: joins, leaves and changing controls, a pure function of the tick.
static void drive(arb_game* game, int tick) {
  if (tick == 0) {
    for (uint32_t c = 1; c <= 4; c++) assert_int_equal(arb_game_join(game, c * 3, 0, NULL), ARB_OK);
  }
  if (tick == 100) assert_int_equal(arb_game_leave(game, 6), ARB_OK);
  if (tick == 150) assert_int_equal(arb_game_join(game, 100, 0, NULL), ARB_OK);
  if (tick % 20 == 0) {
    arb_entity list[64];
    int n = arb_game_get_entities(game, list, 64);
    for (int i = 0; i < n && i < 64; i++) {
      if (!list[i].owner) continue;
      arb_controls c = {0};
      c.move_x = (float)(((tick / 20) * 7 + (int)list[i].owner) % 5 - 2) * 0.5f;
      c.buttons = ((tick / 20 + list[i].owner) % 3 == 0) ? ARB_BUTTON_JUMP : 0;
      assert_int_equal(arb_game_set_controls(game, list[i].owner, &c), ARB_OK);
    }
  }
}

static void test_game_same_inputs_same_hashes(void** state) {
  (void)state;
  arb_scene* scene = st_load(NULL);
  enum { TICKS = 300 };
  static uint64_t hashes[2][TICKS];
  for (int run = 0; run < 2; run++) {
    arb_game* game = make_game(scene, 5);
    for (int t = 0; t < TICKS; t++) {
      drive(game, t);
      arb_game_step(game);
      hashes[run][t] = arb_game_hash(game);
    }
    assert_int_equal(arb_game_get_tick(game), TICKS);
    arb_game_destroy(game);
  }
  for (int t = 0; t < TICKS; t++) assert_int_equal(hashes[0][t], hashes[1][t]);
  // A different seed is a different game (the rng is in the hash from the start).
  arb_game* g1 = make_game(scene, 5);
  arb_game* g2 = make_game(scene, 6);
  assert_int_not_equal(arb_game_hash(g1), arb_game_hash(g2));
  arb_game_destroy(g1);
  arb_game_destroy(g2);
  arb_scene_destroy(scene);
}

static void test_game_save_restore_exact(void** state) {
  (void)state;
  arb_scene* scene = st_load(NULL);
  arb_game* straight = make_game(scene, 5);
  arb_game* resumed = make_game(scene, 0);  // the image carries the rng: the seed must not matter
  uint8_t* image = NULL;
  int image_len = 0;
  for (int t = 0; t < 400; t++) {
    if (t == 200) {
      image_len = arb_game_save(straight, NULL, 0);
      assert_true(image_len > 0);
      image = malloc((size_t)image_len);
      assert_non_null(image);
      assert_int_equal(arb_game_save(straight, image, image_len - 1),
                       image_len);  // too small: size only
      assert_int_equal(arb_game_save(straight, image, image_len), image_len);
      assert_int_equal(arb_game_restore(resumed, image, image_len), ARB_OK);
      assert_int_equal(arb_game_hash(resumed), arb_game_hash(straight));
      assert_int_equal(arb_game_get_tick(resumed), 200);
    }
    drive(straight, t);
    arb_game_step(straight);
    if (t >= 200) {
      drive(resumed, t);
      arb_game_step(resumed);
      assert_int_equal(arb_game_hash(resumed), arb_game_hash(straight));
    }
  }
  // Entity ids continue from the image, never reusing one.
  uint32_t a, b;
  assert_int_equal(arb_game_join(straight, 500, 0, &a), ARB_OK);
  assert_int_equal(arb_game_join(resumed, 500, 0, &b), ARB_OK);
  assert_int_equal(a, b);

  // Corrupt images are refused and leave the game exactly as it was.
  uint64_t h = arb_game_hash(resumed);
  for (int len = 0; len < image_len; len += (len < 256 ? 1 : 97)) {
    assert_true(arb_game_restore(resumed, image, len) < 0);
  }
  assert_int_equal(arb_game_hash(resumed), h);
  for (int i = 0; i < 200 && i < image_len; i++) {
    image[i] ^= 0x41;
    int rc = arb_game_restore(resumed, image, image_len);
    image[i] ^= 0x41;
    if (rc == ARB_OK) {  // a flip in a value field (a control, a position) is still a valid state
      assert_int_equal(arb_game_restore(resumed, image, image_len), ARB_OK);
      assert_int_equal(arb_game_restore(straight, image, image_len), ARB_OK);
    }
  }
  assert_int_equal(arb_game_restore(resumed, image, image_len), ARB_OK);
  assert_int_not_equal(arb_game_hash(resumed), h);  // the image is the state at tick 200
  assert_int_equal(arb_game_get_tick(resumed), 200);
  // An image from another scene is refused.
  arb_scene* other = st_load("stack.json");
  arb_game* g = make_game(other, 5);
  uint64_t gh = arb_game_hash(g);
  assert_int_equal(arb_game_restore(g, image, image_len), ARB_E_INVAL);
  assert_int_equal(arb_game_hash(g), gh);
  arb_game_destroy(g);
  arb_scene_destroy(other);
  free(image);
  arb_game_destroy(straight);
  arb_game_destroy(resumed);
  arb_scene_destroy(scene);
}

typedef struct sink {
  char buf[1 << 14];
  size_t len;
} sink;

static void sink_write(const char* data, size_t len, void* user) {
  sink* s = user;
  if (s->len + len < sizeof s->buf) memcpy(s->buf + s->len, data, len);
  s->len += len;
  s->buf[s->len < sizeof s->buf ? s->len : sizeof s->buf - 1] = '\0';
}

static void test_game_json_line(void** state) {
  (void)state;
  arb_scene* scene = st_load("stack.json");
  arb_game* game = make_game(scene, 1);
  assert_int_equal(arb_game_join(game, 9, 0, NULL), ARB_OK);
  arb_game_step(game);
  static sink s;
  s.len = 0;
  arb_game_write_json(game, false, sink_write, &s);
  char want[64];
  snprintf(want, sizeof want, "{\"tick\":1,\"hash\":\"%016llx\"}\n",
           (unsigned long long)arb_world_hash(arb_game_get_world(game)));
  assert_string_equal(s.buf, want);
  s.len = 0;
  arb_game_write_json(game, true, sink_write, &s);
  assert_non_null(strstr(
      s.buf,
      "\"bodies\":[{\"id\":1,\"name\":\"ground\",\"p\":[0,-1],\"a\":0,\"v\":[0,0],\"w\":0}"));
  assert_non_null(strstr(s.buf, "{\"id\":12,\"name\":\"avatar\",\"owner\":9,\"p\":["));
  assert_true(s.buf[s.len - 1] == '\n' && s.buf[s.len - 2] == '}');
  arb_game_destroy(game);
  arb_scene_destroy(scene);
}

ARB_TEST_MAIN(DEFAULT_GAME_TEST(test_game_join_leave),
              DEFAULT_GAME_TEST(test_game_entity_ids_stable_never_reused),
              DEFAULT_GAME_TEST(test_game_controls_clamped_and_held),
              DEFAULT_GAME_TEST(test_game_force_controller_moves_own_avatar_only),
              DEFAULT_GAME_TEST(test_game_default_ledge_reachable),
              cmocka_unit_test(test_game_force_controller_top_down),
              cmocka_unit_test(test_game_spawn_choice_deterministic),
              cmocka_unit_test(test_game_full), cmocka_unit_test(test_game_same_inputs_same_hashes),
              cmocka_unit_test(test_game_save_restore_exact), cmocka_unit_test(test_game_json_line))
