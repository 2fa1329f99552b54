// arbiter-view — replay re-simulation driver (see view_replay.h).
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include "view_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arbiter/game.h>
#include <arbiter/replay_inputs.h>
#include <arbiter/replay_log.h>

typedef struct checkpoint {
  uint64_t tick;
  arb_replay_reader reader;  // positioned right after this tick's record
  uint8_t* state;
  int len;
} checkpoint;

struct view_replay {
  uint8_t* data;  // the whole file; the reader and header point into it
  size_t len;
  arb_replay_reader reader;
  arb_scene* scene;
  arb_game* game;
  arb_replay_tick* rec;       // decode space (large: ~70 KB)
  arb_replay_inputs* inputs;  // the record as the game applies it (large)
  checkpoint* cps;
  int cp_count, cp_cap;
  uint64_t last_tick;  // last tick record in the file
  int tick_rate;
  bool paused;
  float speed;
  double acc;           // ticks owed to real time
  int64_t seek_target;  // -1 = none
  bool at_end;
  uint64_t max_checked;  // highest tick compared so far (re-simulating after a seek does not count
                         // twice)
  view_replay_check check;
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int add_checkpoint(view_replay* r) {
  uint64_t tick = arb_game_get_tick(r->game);
  if (r->cp_count && r->cps[r->cp_count - 1].tick >= tick) return 0;
  if (r->cp_count == r->cp_cap) {
    int cap = r->cp_cap ? r->cp_cap * 2 : 16;
    checkpoint* p = realloc(r->cps, (size_t)cap * sizeof *p);
    if (!p) return ARB_E_NOMEM;
    r->cps = p;
    r->cp_cap = cap;
  }
  int need = arb_game_save(r->game, NULL, 0);
  if (need <= 0) return need < 0 ? need : ARB_E_STATE;
  uint8_t* buf = malloc((size_t)need);
  if (!buf) return ARB_E_NOMEM;
  if (arb_game_save(r->game, buf, need) != need) {
    free(buf);
    return ARB_E_STATE;
  }
  checkpoint* c = &r->cps[r->cp_count++];
  c->tick = tick;
  c->reader = r->reader;
  c->state = buf;
  c->len = need;
  return 0;
}

static void fail(view_replay* r, const char* fmt, uint64_t tick, const char* detail) {
  snprintf(r->check.error, sizeof r->check.error, fmt, (unsigned long long)tick, detail);
  r->paused = true;
  r->seek_target = -1;
}

// Apply the next tick record and step once. Returns 1 stepped, 0 end of log or error.
static int advance_one(view_replay* r) {
  if (r->check.error[0]) return 0;
  arb_replay_record rec;
  for (;;) {
    if (!arb_replay_reader_next(&r->reader, &rec)) {
      r->at_end = true;
      return 0;
    }
    if (rec.kind == ARB_REPLAY_TICK) break;
  }
  arb_proto_error perr;
  memset(&perr, 0, sizeof perr);
  if (arb_replay_decode_tick(&rec, r->rec, &perr) != 0) {
    fail(r, "tick %llu: %s", rec.tick, perr.reason);
    return 0;
  }
  const arb_replay_tick* t = r->rec;
  uint64_t expect = arb_game_get_tick(r->game) + 1;
  if (t->tick != expect) {
    char why[64];
    snprintf(why, sizeof why, "expected tick %llu next", (unsigned long long)expect);
    fail(r, "tick %llu: %s", t->tick, why);
    return 0;
  }
  arb_replay_inputs_from_tick(t, r->inputs);
  arb_game_apply_tick(r->game, &r->inputs->inputs);
  char why[200];
  if (arb_replay_inputs_check_joins(t, r->inputs, why, sizeof why) != 0) {
    fail(r, "tick %llu: %s", t->tick, why);
    return 0;
  }
  uint64_t h = arb_game_hash(r->game);
  r->check.last_ok = h == t->world_hash;
  if (t->tick > r->max_checked) {
    r->max_checked = t->tick;
    r->check.checked++;
    if (!r->check.last_ok) {
      r->check.mismatches++;
      if (!r->check.first_mismatch) r->check.first_mismatch = t->tick;
    }
  }
  if (t->tick % VIEW_REPLAY_CHECKPOINT_EVERY == 0) add_checkpoint(r);
  return 1;
}

int view_replay_open(const char* path, view_replay** out, char* err, size_t cap) {
  *out = NULL;
  view_replay* r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, cap, "out of memory");
    return ARB_E_NOMEM;
  }
  r->speed = 1.0f;
  r->seek_target = -1;
  int rc = arb_replay_read_file(path, &r->data, &r->len, err, cap);
  if (rc != 0) goto fail;
  arb_proto_error perr;
  memset(&perr, 0, sizeof perr);
  rc = arb_replay_reader_open(&r->reader, r->data, r->len, &perr);
  if (rc != 0) {
    snprintf(err, cap, "%s: not a readable replay log: %s", path, perr.reason);
    goto fail;
  }
  arb_scene_error serr;
  memset(&serr, 0, sizeof serr);
  rc = arb_scene_load_string(r->reader.header.scene_text, r->reader.header.scene_len, path,
                             &r->scene, &serr);
  if (rc != 0) {
    char msg[800];
    arb_scene_error_format(&serr, msg, sizeof msg);
    snprintf(err, cap, "%s: the recorded scene does not load: %s", path, msg);
    goto fail;
  }
  // The recorded rate wins over the scene text's (a server's --tick-rate override).
  rc = arb_scene_set_tick_rate(r->scene, r->reader.header.tick_rate);
  if (rc == 0) rc = arb_game_create(r->scene, r->reader.header.seed, &r->game);
  if (rc != 0) {
    snprintf(err, cap, "%s: cannot create the game: %s", path, arb_strerror(rc));
    goto fail;
  }
  r->tick_rate =
      r->reader.header.tick_rate ? r->reader.header.tick_rate : arb_scene_get_tick_rate(r->scene);
  r->rec = malloc(sizeof *r->rec);
  r->inputs = malloc(sizeof *r->inputs);
  if (!r->rec || !r->inputs) {
    rc = ARB_E_NOMEM;
    snprintf(err, cap, "out of memory");
    goto fail;
  }
  // Index pass on a copy of the reader: how long the log is and how it ends.
  arb_replay_reader scan = r->reader;
  arb_replay_record rec;
  while (arb_replay_reader_next(&scan, &rec)) {
  }
  r->last_tick = scan.last_tick;
  if (scan.stop == ARB_REPLAY_STOP_CLEAN)
    snprintf(r->check.log_end, sizeof r->check.log_end, "log complete");
  else
    arb_replay_reader_describe(&scan, r->check.log_end, sizeof r->check.log_end);
  rc = add_checkpoint(r);  // tick 0
  if (rc != 0) {
    snprintf(err, cap, "%s: cannot save the initial game state: %s", path, arb_strerror(rc));
    goto fail;
  }
  *out = r;
  return 0;
fail:
  view_replay_close(r);
  return rc ? rc : ARB_E_INVAL;
}

void view_replay_close(view_replay* r) {
  if (!r) return;
  for (int i = 0; i < r->cp_count; i++) free(r->cps[i].state);
  free(r->cps);
  if (r->game) arb_game_destroy(r->game);
  if (r->scene) arb_scene_destroy(r->scene);
  free(r->rec);
  free(r->inputs);
  free(r->data);
  free(r);
}

void view_replay_seek(view_replay* r, int64_t tick) {
  if (tick < 0) tick = 0;
  if ((uint64_t)tick > r->last_tick) tick = (int64_t)r->last_tick;
  uint64_t cur = arb_game_get_tick(r->game);
  if ((uint64_t)tick < cur) {
    int best = 0;
    for (int i = 0; i < r->cp_count; i++)
      if (r->cps[i].tick <= (uint64_t)tick) best = i;
    const checkpoint* c = &r->cps[best];
    if (arb_game_restore(r->game, c->state, c->len) != 0) {
      fail(r, "seek to tick %llu: %s", (uint64_t)tick, "checkpoint restore failed");
      return;
    }
    r->reader = c->reader;
    r->at_end = false;
  }
  r->seek_target = tick;
  r->acc = 0.0;
}

void view_replay_update(view_replay* r, double wall_dt, double budget_ms) {
  double t0 = now_ms();
  if (r->seek_target >= 0) {
    while ((int64_t)arb_game_get_tick(r->game) < r->seek_target) {
      if (!advance_one(r)) {
        r->seek_target = -1;
        return;
      }
      if (now_ms() - t0 > budget_ms) return;  // continue next frame
    }
    r->seek_target = -1;
    return;
  }
  if (r->paused || r->at_end) return;
  r->acc += wall_dt * (double)r->speed * (double)r->tick_rate;
  while (r->acc >= 1.0) {
    if (!advance_one(r)) {
      r->acc = 0.0;
      return;
    }
    r->acc -= 1.0;
    if (now_ms() - t0 > budget_ms) {
      // Behind real time (slow machine or high speed): drop the backlog rather than
      // freezing the window to catch up.
      r->acc = 0.0;
      return;
    }
  }
}

void view_replay_set_paused(view_replay* r, bool paused) {
  r->paused = paused;
  r->acc = 0.0;
}
bool view_replay_paused(const view_replay* r) {
  return r->paused;
}
void view_replay_step(view_replay* r) {
  r->paused = true;
  r->seek_target = -1;
  advance_one(r);
}
void view_replay_set_speed(view_replay* r, float speed) {
  if (speed < VIEW_REPLAY_MIN_SPEED) speed = VIEW_REPLAY_MIN_SPEED;
  if (speed > VIEW_REPLAY_MAX_SPEED) speed = VIEW_REPLAY_MAX_SPEED;
  r->speed = speed;
}
float view_replay_speed(const view_replay* r) {
  return r->speed;
}
arb_game* view_replay_game(view_replay* r) {
  return r->game;
}
uint64_t view_replay_tick(const view_replay* r) {
  return arb_game_get_tick(r->game);
}
uint64_t view_replay_last_tick(const view_replay* r) {
  return r->last_tick;
}
int view_replay_tick_rate(const view_replay* r) {
  return r->tick_rate;
}
bool view_replay_seeking(const view_replay* r) {
  return r->seek_target >= 0;
}
const view_replay_check* view_replay_get_check(const view_replay* r) {
  return &r->check;
}
