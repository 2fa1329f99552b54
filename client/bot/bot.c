// Bot behaviours and per-bot measurements (see bot.h).
#include "bot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double bot_rand(bot* b) {
  uint64_t x = b->rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  b->rng = x;
  return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

const char* bot_behaviour_name(bot_behaviour k) {
  switch (k) {
    case BOT_IDLE:
      return "idle";
    case BOT_RANDOM:
      return "random";
    case BOT_CIRCLE:
      return "circle";
    case BOT_SEEK:
      return "seek";
    case BOT_TOGGLE:
      return "toggle";
  }
  return "?";
}

int bot_parse_behaviour(const char* s, bot_behaviour* out) {
  static const bot_behaviour all[] = {BOT_IDLE, BOT_RANDOM, BOT_CIRCLE, BOT_SEEK, BOT_TOGGLE};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    if (strcmp(s, bot_behaviour_name(all[i])) == 0) {
      *out = all[i];
      return 0;
    }
  }
  return -1;
}

static const arb_client_entity_state* find_state(const arb_client_entity_state* s, int n,
                                                 uint32_t id) {
  int lo = 0, hi = n;  // samples come in id order
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (s[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < n && s[lo].id == id) ? &s[lo] : NULL;
}

// The tick of the client's newest prediction check (0 = none yet).
static uint32_t newest_check_tick(const arb_client* client) {
  arb_client_predict_check k[64];
  int n = arb_client_get_predict_checks(client, k, 64);
  return n > 0 ? k[n - 1].tick : 0u;
}

void bot_behave(bot* b, double now) {
  arb_controls* c = &b->controls;
  switch (b->behaviour) {
    case BOT_IDLE:
      memset(c, 0, sizeof *c);
      break;
    case BOT_RANDOM:
      if (now >= b->next_change) {
        double a = bot_rand(b) * 6.283185307179586;
        memset(c, 0, sizeof *c);
        c->move_x = (float)cos(a);
        c->move_y = (float)sin(a);
        c->aim = (float)(a - 3.141592653589793);
        c->buttons = bot_rand(b) < 0.2 ? ARB_BUTTON_JUMP : 0u;
        c->steer = (float)(2.0 * bot_rand(b) - 1.0);
        c->throttle = (float)bot_rand(b);
        b->next_change = now + 0.5 + bot_rand(b);
      }
      break;
    case BOT_TOGGLE:
      // Right 1 s, stand 1 s, left 1 s, stand 1 s: the avatar stays near where it started
      // (always right would pin it to a wall, where no move shows).
      if (now >= b->next_change) {
        static const float dirs[4] = {1.0f, 0.0f, -1.0f, 0.0f};
        b->toggle_dir = dirs[b->toggle_step++ % 4u];
        memset(c, 0, sizeof *c);
        c->move_x = b->toggle_dir;
        b->next_change = now + 1.0;
        b->move_since = b->toggle_dir != 0.0f ? now : 0.0;
        b->move_after_tick = newest_check_tick(b->client);
      }
      break;
    case BOT_CIRCLE: {
      double a = b->phase + now;
      memset(c, 0, sizeof *c);
      c->move_x = (float)cos(a);
      c->move_y = (float)sin(a);
      c->aim = (float)remainder(a, 6.283185307179586);
      c->steer = 0.5f;
      c->throttle = 0.6f;
      break;
    }
    case BOT_SEEK: {
      memset(c, 0, sizeof *c);
      const arb_client_session* s = arb_client_get_session(b->client);
      const arb_client_entity_state* me = find_state(b->states, b->count, s->avatar_entity);
      if (!me) break;
      // Nearest other dynamic entity (avatars of others included).
      const arb_client_entity_state* best = NULL;
      float best_d2 = 0.0f;
      for (int i = 0; i < b->count; i++) {
        const arb_client_entity_state* e = &b->states[i];
        if (e->id == me->id) continue;
        arb_client_entity_desc d;
        if (arb_client_get_entity(b->client, e->id, &d) != 0 || d.body_type != 0) continue;
        float dx = e->position.x - me->position.x, dy = e->position.y - me->position.y;
        float d2 = dx * dx + dy * dy;
        if (!best || d2 < best_d2) {
          best = e;
          best_d2 = d2;
        }
      }
      if (!best || best_d2 < 1e-6f) break;
      float len = sqrtf(best_d2);
      c->move_x = (best->position.x - me->position.x) / len;
      c->move_y = (best->position.y - me->position.y) / len;
      c->aim = atan2f(c->move_y, c->move_x);
      c->throttle = 1.0f;
      break;
    }
  }
  arb_client_set_controls(b->client, c);
}

// Continuity of what a game would draw: between two frames an entity may move by what
// its sampled velocities explain (twice that, for acceleration within the frame and the
// fade-in of a correction after a gap) plus 10 cm. A snap to a corrected position would
// exceed it; a correction fading in over the blend time does not. The predicted own
// avatar also moves by the fade of its drawn correction (arb_client_get_correction),
// which removes at most the fraction dT / predict_smoothing of the larger of the offsets
// at the two frames: a few millimetres at 60 frames/s, but the whole offset when a
// starved process samples only every 100-200 ms.
//
// The check holds for frames no longer than a snapshot interval: two such frames lie on
// the same or adjacent interpolated segments, whose velocities are the sampled ones. A
// longer frame (a process starved of CPU) can skip a whole segment, a bounce or a burst
// of speed neither end shows; it is counted in long_frames and not checked.
// The own avatar's step across a reconnect, allowed as a frame as long as the server time
// between the two samples (B continues A's ticks, so that is the simulated time between).
static void check_across(bot* b, double T, float correction) {
  uint32_t avatar = arb_client_get_session(b->client)->avatar_entity;
  const arb_client_entity_state* cur = find_state(b->states, b->count, avatar);
  if (!cur || cur->id != b->across_from.id) return;
  const arb_client_entity_state* old = &b->across_from;
  b->across_pending = false;
  float dT = (float)(T - b->across_T);
  if (dT < 0.0f) dT = 0.0f;
  float v0 = sqrtf(old->linear_velocity.x * old->linear_velocity.x +
                   old->linear_velocity.y * old->linear_velocity.y);
  float v1 = sqrtf(cur->linear_velocity.x * cur->linear_velocity.x +
                   cur->linear_velocity.y * cur->linear_velocity.y);
  float dx = cur->position.x - old->position.x, dy = cur->position.y - old->position.y;
  float step = sqrtf(dx * dx + dy * dy);
  float ratio = step / (2.0f * (v0 > v1 ? v0 : v1) * dT + 0.1f + correction);
  b->rejoin_checks++;
  if (step > b->rejoin_jump_m) b->rejoin_jump_m = step;
  if (ratio > b->rejoin_jump_ratio) b->rejoin_jump_ratio = ratio;
}

void bot_sample(bot* b, double now) {
  // A reconnect on loopback can complete between two frames: the counter tells.
  arb_client_stats stats;
  arb_client_get_stats(b->client, &stats);
  bool connected = arb_client_get_state(b->client) == ARB_CLIENT_CONNECTED;
  if (!connected || stats.reconnects != b->sampled_reconnects) {
    b->sampled_reconnects = stats.reconnects;
    if (b->prev_T >= 0.0 && b->prev_count > 0) {
      uint32_t avatar = arb_client_get_session(b->client)->avatar_entity;
      const arb_client_entity_state* own = find_state(b->prev, b->prev_count, avatar);
      if (own) {
        b->across_from = *own;
        b->across_T = b->prev_T;
        b->across_pending = true;
      }
    }
    b->prev_T = -1.0;
    b->prev_count = 0;
    if (!connected) return;
  }
  int n = arb_client_sample(b->client, now, b->states, b->cap);
  bot_observe_prediction(b);
  if (n > b->cap) {
    int cap = n + n / 2 + 16;
    arb_client_entity_state* s =
        (arb_client_entity_state*)realloc(b->states, sizeof *s * (size_t)cap);
    arb_client_entity_state* p =
        (arb_client_entity_state*)realloc(b->prev, sizeof *p * (size_t)cap);
    if (s) b->states = s;
    if (p) b->prev = p;
    if (!s || !p) return;
    b->cap = cap;
    b->prev_count = 0;  // the retry below resamples at the same time: no continuity step
    n = arb_client_sample(b->client, now, b->states, b->cap);
  }
  b->count = n < b->cap ? n : b->cap;
  double T = arb_client_get_sample_time(b->client);
  arb_vec2 offset = {0.0f, 0.0f};
  float correction = arb_client_get_correction(b->client, &offset)
                         ? sqrtf(offset.x * offset.x + offset.y * offset.y)
                         : 0.0f;
  double interval = b->snapshot_rate > 0 ? 1.0 / b->snapshot_rate : 0.0;
  bool long_frame = interval > 0.0 && T - b->prev_T > interval;
  if (b->across_pending && b->count > 0) check_across(b, T, correction);
  if (b->prev_T >= 0.0 && b->prev_count > 0) {
    b->frames++;
    if (long_frame) b->long_frames++;
  }
  if (b->prev_T >= 0.0 && b->prev_count > 0 && !long_frame) {
    float dT = (float)(T - b->prev_T);
    float fade_share = b->smoothing > 0.0f && dT < b->smoothing ? dT / b->smoothing : 1.0f;
    float fade = fade_share * (correction > b->prev_correction ? correction : b->prev_correction);
    for (int i = 0; i < b->count; i++) {
      const arb_client_entity_state* cur = &b->states[i];
      const arb_client_entity_state* old = find_state(b->prev, b->prev_count, cur->id);
      if (!old) continue;
      float v0 = sqrtf(old->linear_velocity.x * old->linear_velocity.x +
                       old->linear_velocity.y * old->linear_velocity.y);
      float v1 = sqrtf(cur->linear_velocity.x * cur->linear_velocity.x +
                       cur->linear_velocity.y * cur->linear_velocity.y);
      float vmax = v0 > v1 ? v0 : v1;
      float dx = cur->position.x - old->position.x, dy = cur->position.y - old->position.y;
      float step = sqrtf(dx * dx + dy * dy);
      float allowed =
          2.0f * vmax * dT + 0.1f + ((cur->flags & ARB_CLIENT_SAMPLE_PREDICTED) ? fade : 0.0f);
      float ratio = step / allowed;
      if (ratio > b->worst_step) b->worst_step = ratio;
      if (ratio > 1.0f) b->discontinuities++;
      if (ratio > 1.0f && getenv("ARBITER_BOT_TRACE_JUMPS"))
        fprintf(stderr,
                "arbiter-bot: jump: client %d id %u gap %.4f T %.4f dT %.4f step %.3f allowed %.3f "
                "v %.2f/%.2f flags %u->%u pos (%.2f,%.2f)->(%.2f,%.2f)\n",
                b->index, cur->id, now - b->prev_now, T, dT, step, allowed, v0, v1, old->flags,
                cur->flags, old->position.x, old->position.y, cur->position.x, cur->position.y);
      b->samples++;
    }
  }
  for (int k = 0; k < b->seen_count; k++) {
    bot_seen_player* p = &b->seen[k];
    const arb_client_entity_state* st = p->left ? NULL : find_state(b->states, b->count, p->avatar);
    if (!st) continue;
    if (!p->placed) {
      p->first = st->position;
      p->placed = true;
    }
    float dx = st->position.x - p->first.x, dy = st->position.y - p->first.y;
    float d = sqrtf(dx * dx + dy * dy);
    if (d > p->moved) p->moved = d;
  }
  if (b->count > 0) memcpy(b->prev, b->states, sizeof *b->states * (size_t)b->count);
  b->prev_count = b->count;
  b->prev_T = T;
  b->prev_now = now;
  b->prev_correction = correction;
}

void bot_note_player(bot* b, const arb_client_event* ev) {
  if (ev->type == ARB_CLIENT_EVENT_PLAYER_JOINED && b->seen_count < BOT_MAX_SEEN) {
    bot_seen_player* p = &b->seen[b->seen_count++];
    memset(p, 0, sizeof *p);
    p->client_id = ev->client_id;
    p->avatar = ev->entity_id;
    snprintf(p->name, sizeof p->name, "%.*s", (int)sizeof p->name - 1, ev->text);
  } else if (ev->type == ARB_CLIENT_EVENT_PLAYER_LEFT) {
    for (int k = 0; k < b->seen_count; k++)
      if (b->seen[k].client_id == ev->client_id) b->seen[k].left = true;
  }
}

void bot_samples_push(bot_samples* s, float x) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 256;
    float* v = (float*)realloc(s->v, sizeof *v * (size_t)cap);
    if (!v) return;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = x;
}

void bot_samples_free(bot_samples* s) {
  free(s->v);
  memset(s, 0, sizeof *s);
}

void bot_observe_prediction(bot* b) {
  arb_client_stats st;
  arb_client_get_stats(b->client, &st);
  if (st.input_to_motion_count != b->seen_motion) {
    b->seen_motion = st.input_to_motion_count;
    bot_samples_push(&b->motion_ms, st.input_to_motion * 1000.0f);
  }
  if (st.predict_checks != b->seen_checks) {
    b->seen_checks = st.predict_checks;
    bot_samples_push(&b->error_m, st.predict_error);
    if (st.predict_error_free) bot_samples_push(&b->error_free_m, st.predict_error);
  }
}

void bot_observe_link(bot* b, double now) {
  arb_client_stats st;
  arb_client_get_stats(b->client, &st);
  if (st.snapshots_received != b->seen_snapshots) {
    if (b->last_snapshot_time > 0.0) {
      float gap = (float)((now - b->last_snapshot_time) * 1000.0);
      if (gap > b->worst_stall_ms) b->worst_stall_ms = gap;
    }
    b->seen_snapshots = st.snapshots_received;
    b->last_snapshot_time = now;
  }
  if (b->move_since <= 0.0) return;
  // Every prediction check carries the server's avatar state of its snapshot.
  arb_client_predict_check k[64];
  int n = arb_client_get_predict_checks(b->client, k, 64);
  for (int i = 0; i < n; i++) {
    if (k[i].tick > b->move_after_tick && (float)k[i].server[3] * b->toggle_dir > 0.0f) {
      bot_samples_push(&b->confirm_ms, (float)((now - b->move_since) * 1000.0));
      b->move_since = 0.0;
      return;
    }
  }
}
