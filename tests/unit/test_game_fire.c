// Lag-compensated shots (game/src/game_fire.c), played the way the server plays them: every
// tick is a replay record (arb_replay_tick) applied through arb_game_apply_tick.
//  - A target runs across the shooter's line of fire at 5 m/s. The shooter, 100 ms round
//    trip and a 100 ms interpolation delay behind, sees it 12 ticks in the past and aims
//    at it there. The shot, made with that view time, hits (the target is pushed along the
//    ray, both players get the hit); the same shot without rewinding misses.
//  - The records, written and read back through the replay log codec, re-simulated in a
//    fresh game reproduce every tick's hash and the hit; a game restored from an image
//    taken mid-run (the pose ring is in it) continues with the same hashes and hit.
//  - A static wall across the line of fire stops the shot; a sensor there does not.
//  - Scenes without `fire` ignore the button: nothing is pushed, no hit, the image is the
//    one without a ring.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/test_main.h"

#include <arbiter/game.h>
#include <arbiter/replay_inputs.h>
#include <arbiter/replay_log.h>

#define SHOOTER 1u
#define TARGET 2u
#define VIEW_LAG_TICKS 12  // 100 ms round trip + 100 ms interpolation delay at 60 Hz
#define TICKS 120
#define SHOT_TICK 60  // the tick whose step applies the shot

static const char SCENE_FIRE[] =
    "{\"gravity\": [0, 0], \"spawn_points\": [[0, 0], [10, -3]],"
    " \"avatar\": {\"shape\": {\"circle\": {\"radius\": 0.5}},"
    "  \"controller\": {\"type\": \"force\", \"max_force\": 200, \"max_speed\": 5},"
    "  \"fire\": {\"range\": 30, \"impulse\": 4}}}";
// The same with a thin static wall across the line of fire (x = 5), or a sensor there.
#define SCENE_FIRE_WITH(body)                                                      \
  "{\"gravity\": [0, 0], \"spawn_points\": [[0, 0], [10, -3]],"                    \
  " \"bodies\": [{\"type\": \"static\", \"position\": [5, -1], " body              \
  "}],"                                                                            \
  " \"avatar\": {\"shape\": {\"circle\": {\"radius\": 0.5}},"                      \
  "  \"controller\": {\"type\": \"force\", \"max_force\": 200, \"max_speed\": 5}," \
  "  \"fire\": {\"range\": 30, \"impulse\": 4}}}"
static const char SCENE_FIRE_WALL[] =
    SCENE_FIRE_WITH("\"shape\": {\"box\": {\"half_width\": 0.1, \"half_height\": 3}}");
static const char SCENE_FIRE_SENSOR[] = SCENE_FIRE_WITH(
    "\"shape\": {\"box\": {\"half_width\": 0.1, \"half_height\": 3}},"
    " \"sensor\": true");
static const char SCENE_NO_FIRE[] =
    "{\"gravity\": [0, 0], \"spawn_points\": [[0, 0], [10, -3]],"
    " \"avatar\": {\"shape\": {\"circle\": {\"radius\": 0.5}},"
    "  \"controller\": {\"type\": \"force\", \"max_force\": 200, \"max_speed\": 5}}}";

typedef struct session {
  arb_scene* scene;
  arb_game* game;
  arb_replay_tick* recs;  ///< recs[t - 1] is tick t
  arb_replay_inputs* scratch;
  arb_vec2 target_at[TICKS + 1];  ///< the target's position after each tick
  uint32_t target_entity;
  uint64_t seed;  ///< the game seed that spawns the shooter at (0, 0)
  int hits;
  arb_game_hit hit;
} session;

static arb_replay_input input_of(uint32_t client, uint32_t tick, const arb_controls* c,
                                 uint64_t view_time) {
  arb_replay_input in = {client, tick, arb_proto_quantize_controls(c), view_time};
  return in;
}

// One tick as the server records and applies it; hits are counted.
static void server_tick(session* s, arb_replay_tick* rec) {
  arb_replay_inputs_from_tick(rec, s->scratch);
  arb_game_apply_tick(s->game, &s->scratch->inputs);
  arb_replay_tick_keep_applied(rec, s->scratch);
  rec->tick = arb_game_get_tick(s->game);
  rec->world_hash = arb_game_hash(s->game);
  const arb_game_hit* hits;
  int n = arb_game_get_hits(s->game, &hits);
  if (n > 0) s->hit = hits[0];
  s->hits += n;
}

static arb_vec2 position_of(arb_game* g, uint32_t client) {
  arb_entity e;
  assert_int_equal(arb_game_get_avatar(g, client, &e), ARB_OK);
  return arb_body_get_position(arb_game_get_world(g), e.body);
}

// Both join at tick 1; the target runs up (+y) from tick 2 on; at SHOT_TICK the shooter
// presses fire, aiming where it sees the target (VIEW_LAG_TICKS back), with `view_time`
// (rewind) or 0 (no rewind).
static void play(session* s, const char* scene_text, bool rewind) {
  memset(s, 0, sizeof *s);
  assert_int_equal(arb_scene_load_string(scene_text, strlen(scene_text), "fire", &s->scene, NULL),
                   ARB_OK);
  s->recs = calloc(TICKS, sizeof *s->recs);
  s->scratch = calloc(1, sizeof *s->scratch);
  assert_non_null(s->recs);
  assert_non_null(s->scratch);
  // Game seeds are tried until the spawn choice puts the shooter at (0, 0).
  for (s->seed = 1;; s->seed++) {
    assert_true(s->seed < 100);
    assert_int_equal(arb_game_create(s->scene, s->seed, &s->game), ARB_OK);
    arb_replay_tick* rec = &s->recs[0];
    memset(rec, 0, sizeof *rec);
    rec->join_count = 2;
    rec->joins[0] = (arb_replay_join){SHOOTER, 0, 0, "shooter"};
    rec->joins[1] = (arb_replay_join){TARGET, 0, 0, "target"};
    server_tick(s, rec);
    if (arb_length(position_of(s->game, SHOOTER)) < 0.1f) break;
    arb_game_destroy(s->game);
  }
  s->target_entity = s->recs[0].joins[1].entity_id;
  s->target_at[1] = position_of(s->game, TARGET);
  for (uint32_t t = 2; t <= TICKS; t++) {
    arb_replay_tick* rec = &s->recs[t - 1];
    {
      arb_controls run = {0};
      run.move_y = 1.0f;
      rec->inputs[rec->input_count++] = input_of(TARGET, t, &run, 0);
    }
    if (t == SHOT_TICK) {
      // The shooter's screen: the target as it was VIEW_LAG_TICKS before the tick the
      // game is at when the shot is applied (the state after tick SHOT_TICK - 1).
      uint32_t seen = SHOT_TICK - 1 - VIEW_LAG_TICKS;
      arb_vec2 from = position_of(s->game, SHOOTER);
      arb_vec2 d = arb_sub(s->target_at[seen], from);
      arb_controls fire = {0};
      fire.aim = arb_atan2(d.y, d.x);
      fire.buttons = ARB_BUTTON_FIRE;
      rec->inputs[rec->input_count++] =
          input_of(SHOOTER, t, &fire, rewind ? (uint64_t)seen << 8 : 0);
    }
    server_tick(s, rec);
    s->target_at[t] = position_of(s->game, TARGET);
  }
}

// Hits compared field by field (the struct has padding).
static void assert_same_hit(const arb_game_hit* a, const arb_game_hit* b) {
  assert_int_equal(a->tick, b->tick);
  assert_int_equal(a->shooter, b->shooter);
  assert_int_equal(a->target_entity, b->target_entity);
  assert_int_equal(a->target_owner, b->target_owner);
  assert_true(a->point.x == b->point.x && a->point.y == b->point.y);
  assert_int_equal(a->view_time, b->view_time);
}

static void finish(session* s) {
  arb_game_destroy(s->game);
  arb_scene_destroy(s->scene);
  free(s->recs);
  free(s->scratch);
}

// The sessions the tests look at: a scene, and whether the shot carries its view time.
typedef struct played {
  const char* scene_text;
  bool rewind;
} played;
static played fire_rewound = {SCENE_FIRE, true};
static played fire_not_rewound = {SCENE_FIRE, false};
static played no_fire_key = {SCENE_NO_FIRE, true};

// cmocka fixture: the session of the `played` given as the test's initial state, played
// before the test and finished after it; *state is the session.
static int played_setup(void** state) {
  const played* how = *state;
  session* s = malloc(sizeof *s);
  assert_non_null(s);
  play(s, how->scene_text, how->rewind);
  *state = s;
  return 0;
}

static int played_teardown(void** state) {
  finish(*state);
  free(*state);
  return 0;
}

#define PLAYED_TEST(test, how) \
  cmocka_unit_test_prestate_setup_teardown(test, played_setup, played_teardown, &(how))

static void test_game_fire_rewound_shot_hits(void** state) {
  session* s = *state;
  // The spawn choice put the target 10 m to the right, 3 m down, running up across the line.
  assert_true(s->target_at[1].x > 9.0f);
  assert_int_equal(s->hits, 1);
  assert_int_equal(s->hit.shooter, SHOOTER);
  assert_int_equal(s->hit.target_owner, TARGET);
  assert_int_equal(s->hit.target_entity, s->target_entity);
  assert_int_equal(s->hit.tick, SHOT_TICK);
  // Pushed along the ray (mostly +x) by 4 N*s: the target runs up only, so any x speed is it.
  arb_entity e;
  assert_int_equal(arb_game_get_avatar(s->game, TARGET, &e), ARB_OK);
  assert_true(s->target_at[SHOT_TICK].x - s->target_at[SHOT_TICK - 1].x > 0.005f);
}

static void test_game_fire_without_rewind_misses(void** state) {
  session* s = *state;
  assert_int_equal(s->hits, 0);
  // The target has run more than its diameter since the time the shooter saw.
  float moved = arb_length(
      arb_sub(s->target_at[SHOT_TICK - 1], s->target_at[SHOT_TICK - 1 - VIEW_LAG_TICKS]));
  assert_true(moved > 1.0f);
}

// A wall between the shooter and what it saw stops the shot; a sensor in the same place
// does not.
static void test_game_fire_wall_stops_shot(void** state) {
  (void)state;
  session s;
  play(&s, SCENE_FIRE_WALL, true);
  assert_true(s.target_at[1].x > 9.0f);
  assert_int_equal(s.hits, 0);
  assert_true(arb_absf(s.target_at[SHOT_TICK].x - s.target_at[SHOT_TICK - 1].x) < 1e-4f);
  finish(&s);
  play(&s, SCENE_FIRE_SENSOR, true);
  assert_int_equal(s.hits, 1);
  assert_int_equal(s.hit.target_owner, TARGET);
  finish(&s);
}

// Through the replay log's bytes into a fresh game: every hash, and the hit, again.
static void test_game_fire_replay_reproduces_hits(void** state) {
  session* live = *state;
  session again = {0};
  again.scene = live->scene;
  assert_int_equal(arb_game_create(live->scene, live->seed, &again.game), ARB_OK);
  again.scratch = calloc(1, sizeof *again.scratch);
  arb_replay_tick* rec = calloc(1, sizeof *rec);
  uint8_t* buf = malloc(1 << 16);
  uint8_t* image = NULL;
  int image_len = 0;
  for (uint32_t t = 1; t <= TICKS; t++) {
    int64_t n = arb_replay_encode_tick(&live->recs[t - 1], buf, 1 << 16);
    assert_true(n > 0);
    // A tick frame alone (u32 length, u8 kind, 3 zero bytes, body, u32 XXH32): its body
    // as the reader hands it over.
    arb_replay_record frame;
    frame.kind = ARB_REPLAY_TICK;
    frame.body = buf + 8;
    frame.body_len = (uint32_t)(n - ARB_REPLAY_FRAME_OVERHEAD);
    frame.tick = t;
    assert_int_equal(arb_replay_decode_tick(&frame, rec, NULL), ARB_OK);
    uint64_t want = rec->world_hash;
    server_tick(&again, rec);
    assert_int_equal(rec->world_hash, want);
    if (t == SHOT_TICK - 5) {  // an image with the pose ring in it
      image_len = arb_game_save(again.game, NULL, 0);
      image = malloc((size_t)image_len);
      assert_int_equal(arb_game_save(again.game, image, image_len), image_len);
    }
  }
  assert_int_equal(again.hits, 1);
  assert_same_hit(&again.hit, &live->hit);
  // Restored from the image, the rest of the run is the same, hit included.
  session restored = {0};
  restored.scene = live->scene;
  assert_int_equal(arb_game_create(live->scene, live->seed, &restored.game), ARB_OK);
  restored.scratch = again.scratch;
  assert_int_equal(arb_game_restore(restored.game, image, image_len), ARB_OK);
  for (uint32_t t = SHOT_TICK - 4; t <= TICKS; t++) {
    *rec = live->recs[t - 1];
    server_tick(&restored, rec);
    assert_int_equal(rec->world_hash, live->recs[t - 1].world_hash);
  }
  assert_int_equal(restored.hits, 1);
  arb_game_destroy(restored.game);
  arb_game_destroy(again.game);
  free(again.scratch);
  free(rec);
  free(buf);
  free(image);
}

static void test_game_fire_off_without_scene_key(void** state) {
  session* s = *state;
  assert_int_equal(s->hits, 0);
  assert_true(s->target_at[SHOT_TICK].x - s->target_at[SHOT_TICK - 1].x < 1e-4f);
}

ARB_TEST_MAIN(PLAYED_TEST(test_game_fire_rewound_shot_hits, fire_rewound),
              PLAYED_TEST(test_game_fire_without_rewind_misses, fire_not_rewound),
              cmocka_unit_test(test_game_fire_wall_stops_shot),
              PLAYED_TEST(test_game_fire_replay_reproduces_hits, fire_rewound),
              PLAYED_TEST(test_game_fire_off_without_scene_key, no_fire_key))
