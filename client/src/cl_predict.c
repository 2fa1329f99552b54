// Prediction of the own avatar (see cl_predict.h).
#include "cl_predict.h"

#include <math.h>
#include <stdio.h>

static cl_predict_tick* slot_of(cl_predict* p, uint32_t tick) {
  return &p->ring[tick % CL_PREDICT_HISTORY];
}

static cl_predict_tick* find_tick(cl_predict* p, uint32_t tick) {
  cl_predict_tick* s = slot_of(p, tick);
  return tick != 0 && s->tick == tick ? s : NULL;
}

void cl_predict_init(cl_predict* p, const cl_mem* mem, const cl_predict_params* params) {
  memset(p, 0, sizeof *p);
  p->mem = *mem;
  p->params = *params;
}

void cl_predict_stop(cl_predict* p) {
  for (int i = 0; i < CL_PREDICT_HISTORY; i++) cl_free(&p->mem, p->ring[i].image);
  arb_game_destroy(p->game);
  arb_scene_destroy(p->scene);
  cl_predict saved = *p;
  memset(p, 0, sizeof *p);
  p->mem = saved.mem;
  p->params = saved.params;
  p->stats = saved.stats;  // statistics survive a reconnect
  memcpy(p->checks, saved.checks, sizeof p->checks);
  memcpy(p->error, saved.error, sizeof p->error);
}

// Ticks the prediction steps by itself to catch up with a snapshot ahead of it (more: it
// takes the snapshot's state instead).
#define CL_PREDICT_CATCH_UP (CL_PREDICT_HISTORY / 2)

// Whether anything but the level touches the avatar now (its error is then not only ours).
static bool touches_dynamic(const arb_world* w, arb_body_id avatar) {
  arb_contact_data cd[8];
  int n = arb_body_get_contacts(w, avatar, cd, 8);
  for (int i = 0; i < n && i < 8; i++)
    if (arb_body_get_type(w, cd[i].other) != ARB_BODY_STATIC) return true;
  return n > 8;
}

// Keep the avatar's state and the whole game after `tick` (the rewind point of a correction).
static int record_tick(cl_predict* p, uint32_t tick, const arb_controls* controls,
                       bool has_command) {
  cl_predict_tick* s = slot_of(p, tick);
  const arb_world* w = arb_game_get_world(p->game);
  s->tick = 0;
  s->controls = *controls;
  s->has_command = has_command;
  s->position = arb_body_get_position(w, p->avatar);
  s->angle = arb_body_get_angle(w, p->avatar);
  s->velocity = arb_body_get_linear_velocity(w, p->avatar);
  s->angular_velocity = arb_body_get_angular_velocity(w, p->avatar);
  s->touching = touches_dynamic(w, p->avatar);
  int need = arb_game_save(p->game, s->image, s->image_cap);
  if (need < 0) return need;
  if (need > s->image_cap) {
    cl_free(&p->mem, s->image);
    s->image_cap = need + need / 4;
    s->image = (uint8_t*)cl_alloc(&p->mem, (size_t)s->image_cap);
    if (!s->image) {
      s->image_cap = 0;
      return ARB_E_NOMEM;
    }
    if (arb_game_save(p->game, s->image, s->image_cap) != need) return ARB_E_STATE;
  }
  s->image_len = need;
  s->tick = tick;
  return ARB_OK;
}

static void set_avatar(cl_predict* p, arb_vec2 pos, float angle, arb_vec2 v, float w) {
  arb_world* world = arb_game_get_world(p->game);
  arb_body_set_transform(world, p->avatar, pos, angle);
  arb_body_set_linear_velocity(world, p->avatar, v);
  arb_body_set_angular_velocity(world, p->avatar, w);
}

static int fail(cl_predict* p, int rc, const char* what) {
  char why[256];
  snprintf(why, sizeof why, "prediction off: %s (%s)", what, arb_strerror(rc));
  cl_predict_stop(p);
  memcpy(p->error, why, sizeof p->error);
  return rc;
}

int cl_predict_start(cl_predict* p, const arb_proto_scene* msg, uint32_t client_id,
                     arb_avatar_kind kind, int tick_rate) {
  cl_predict_stop(p);
  p->error[0] = '\0';
  arb_scene_error serr;
  int rc = arb_scene_load_string(msg->text, msg->text_len, "server", &p->scene, &serr);
  if (rc != ARB_OK) {
    char text[160];
    arb_scene_error_format(&serr, text, sizeof text);
    cl_predict_stop(p);
    snprintf(p->error, sizeof p->error, "prediction off: the server's scene does not load: %s",
             text);
    return rc;
  }
  if (arb_scene_get_hash(p->scene) != msg->scene_hash)
    return fail(p, ARB_E_CORRUPT, "scene text and hash differ");
  if ((rc = arb_scene_set_tick_rate(p->scene, tick_rate)) != ARB_OK)
    return fail(p, rc, "tick rate");
  if ((rc = arb_game_create(p->scene, 0, &p->game)) != ARB_OK)
    return fail(p, rc, "cannot create the game");
  // The avatar joins through the tick applier like on the server; its spawn point and the
  // join's step do not matter: the exact state from the server replaces them.
  arb_tick_join join = {client_id, kind, 0, 0};
  arb_tick_inputs in = {&join, 1, NULL, 0, NULL, 0};
  arb_game_apply_tick(p->game, &in);
  arb_entity e;
  if (join.result != ARB_OK) return fail(p, join.result, "the avatar cannot join the local game");
  if ((rc = arb_game_find_entity(p->game, join.entity_id, &e)) != ARB_OK)
    return fail(p, rc, "avatar");
  p->client_id = client_id;
  p->avatar = e.body;
  set_avatar(p, msg->avatar_position, msg->avatar_angle, msg->avatar_velocity,
             msg->avatar_angular_velocity);
  memset(&p->held, 0, sizeof p->held);
  p->offset = arb_vec2_zero;
  p->angle_offset = 0.0f;
  if (msg->tick == 0) return fail(p, ARB_E_INVAL, "scene message for tick 0");
  if ((rc = record_tick(p, msg->tick, &p->held, false)) != ARB_OK) return fail(p, rc, "history");
  p->tick = msg->tick;
  return ARB_OK;
}

void cl_predict_note_change(cl_predict* p, double now) {
  p->change_tick = 0;  // set by the next simulated tick
  p->change_time = now;
  p->change_pending = true;
}

// One tick through the game's tick applier, with the avatar's controls for it.
static int step_tick(cl_predict* p, uint32_t tick, const arb_controls* controls, bool has_command) {
  cl_proxy_place(&p->proxies, arb_game_get_world(p->game), tick, arb_game_get_dt(p->game));
  arb_tick_control ctl = {p->client_id, *controls, 0, 0};
  arb_tick_inputs in = {NULL, 0, NULL, 0, &ctl, 1};
  int rc = arb_game_apply_tick(p->game, &in);
  if (rc != ARB_OK) return rc;
  return record_tick(p, tick, controls, has_command);
}

int cl_predict_advance(cl_predict* p, uint32_t tick, const arb_controls* cmd) {
  if (!cl_predict_active(p) || tick <= p->tick) return ARB_OK;
  // A clock jump further than the history: restart the timeline there (the next snapshot
  // corrects whatever this gets wrong).
  if (tick - p->tick > CL_PREDICT_HISTORY) p->tick = tick - CL_PREDICT_HISTORY;
  while (p->tick < tick) {
    uint32_t k = p->tick + 1;
    bool has = k == tick && cmd != NULL;
    if (has) p->held = *cmd;
    int rc = step_tick(p, k, &p->held, has);
    if (rc != ARB_OK) return fail(p, rc, "local step");
    p->tick = k;
    if (has && p->change_pending && p->change_tick == 0) p->change_tick = k;
  }
  return ARB_OK;
}

// The predicted avatar quantized as the server quantizes its bodies for the snapshot
// stream equals the server's state (every field, the angular velocity at the wire's
// 1/65536 turn per second).
static arb_snapshot_state quantized(const cl_predict_tick* s) {
  arb_snapshot_state q;
  memset(&q, 0, sizeof q);
  q.x = arb_proto_quantize_pos(s->position.x);
  q.y = arb_proto_quantize_pos(s->position.y);
  q.angle = arb_proto_quantize_angle(s->angle);
  q.vx = arb_proto_quantize_vel(s->velocity.x);
  q.vy = arb_proto_quantize_vel(s->velocity.y);
  q.w = arb_snapshot_quantize_angvel(s->angular_velocity);
  return q;
}

static bool same_quantized(const arb_snapshot_state* a, const arb_snapshot_state* q) {
  return a->x == q->x && a->y == q->y && a->angle == q->angle && a->vx == q->vx && a->vy == q->vy &&
         a->w == q->w;
}

// `mine` moved into the quantization cell of `q` (value q / scale, rounded half away from
// zero): unchanged when it is inside, else to just inside the nearer edge.
static float into_cell(float mine, int32_t q, double scale) {
  float lo = (float)(((double)q - 0.49) / scale), hi = (float)(((double)q + 0.49) / scale);
  return mine < lo ? lo : mine > hi ? hi : mine;
}

// The world's other dynamic bodies as the snapshot has them (quantized): they are only
// obstacles for the avatar, but stale ones would be obstacles in the wrong places.
static void place(arb_world* world, arb_body_id body, const cl_body* b) {
  arb_body_set_transform(world, body, b->position, b->angle);
  arb_body_set_linear_velocity(world, body, b->velocity);
  arb_body_set_angular_velocity(world, body, b->angular_velocity);
}

static void take_world(cl_predict* p, const cl_body_set* view, uint32_t avatar_entity) {
  arb_world* world = arb_game_get_world(p->game);
  int scene_bodies = arb_scene_get_body_count(p->scene);
  for (int i = 0; i < view->count; i++) {
    const cl_body* e = &view->items[i];
    if (e->id == avatar_entity || e->id > (uint32_t)scene_bodies) continue;
    arb_entity local;
    if (arb_game_find_entity(p->game, e->id, &local) != ARB_OK) continue;
    if (arb_body_get_type(world, local.body) != ARB_BODY_DYNAMIC) continue;
    place(world, local.body, e);
  }
}

// Rewind to `tick`, take the server's world (and its avatar when `avatar` is not NULL),
// replay the commands kept for the ticks after.
static int resimulate(cl_predict* p, uint32_t tick, const cl_body_set* view, uint32_t avatar_entity,
                      const cl_body* avatar) {
  cl_predict_tick* s = find_tick(p, tick);
  int rc = arb_game_restore(p->game, s->image, s->image_len);
  if (rc != ARB_OK) return rc;
  take_world(p, view, avatar_entity);
  if ((rc = cl_proxy_sync(&p->proxies, arb_game_get_world(p->game), p->avatar)) != ARB_OK)
    return rc;
  if (avatar) {
    // The nearest state the server's quantized one allows: each field moves only as far
    // as into the server's cell, so the next snapshots are not corrections again merely
    // because the cell's centre is not where the server really is.
    const arb_snapshot_state* q = &avatar->q;
    arb_vec2 pos = {into_cell(s->position.x, q->x, ARB_PROTO_POS_SCALE),
                    into_cell(s->position.y, q->y, ARB_PROTO_POS_SCALE)};
    arb_vec2 vel = {into_cell(s->velocity.x, q->vx, ARB_PROTO_VEL_SCALE),
                    into_cell(s->velocity.y, q->vy, ARB_PROTO_VEL_SCALE)};
    float w = into_cell(s->angular_velocity, q->w, ARB_SNAPSHOT_ANGVEL_SCALE);
    float angle = arb_proto_quantize_angle(s->angle) == q->angle ? s->angle : avatar->angle;
    set_avatar(p, pos, angle, vel, w);
  }
  arb_controls controls = s->controls;
  if ((rc = record_tick(p, tick, &controls, s->has_command)) != ARB_OK) return rc;
  for (uint32_t k = tick + 1; k <= p->tick; k++) {
    cl_predict_tick* t = find_tick(p, k);
    arb_controls c = t ? t->controls : p->held;
    bool has = t ? t->has_command : false;
    if ((rc = step_tick(p, k, &c, has)) != ARB_OK) return rc;
  }
  return ARB_OK;
}

void cl_predict_on_snapshot(cl_predict* p, uint32_t tick, uint32_t last_input_seq,
                            uint32_t avatar_entity, const cl_body_set* view,
                            cl_proxy_desc_fn* desc_of, const void* ctx, double now) {
  if (!cl_predict_active(p) || tick == 0) return;
  const cl_body* me = cl_body_set_find(view, avatar_entity);
  if (!me) return;
  arb_vec2 spos = me->position, svel = me->velocity;
  float sangle = me->angle, sw = me->angular_velocity;
  if (desc_of) {
    cl_proxy_take(&p->proxies, tick, view, avatar_entity, spos, desc_of, ctx);
    // A proxy new in this snapshot gets its body now: every later step places every proxy,
    // whichever path below (or the next clock tick) steps first.
    if (cl_proxy_sync(&p->proxies, arb_game_get_world(p->game), p->avatar) != ARB_OK) {
      fail(p, ARB_E_NOMEM, "other avatars");
      return;
    }
  }
  cl_predict_tick* s = find_tick(p, tick);
  if (!s && tick > p->tick && tick - p->tick <= CL_PREDICT_CATCH_UP) {
    // The server is a few ticks ahead of the prediction (our clock started late, as when
    // the round trip is not known yet, or the application's loop stalled): simulate up to
    // its tick holding the controls, as the server does for ticks without a command, and
    // compare there. The state stays the server's exactly; taking the snapshot's instead
    // would start the prediction from quantized values it then never leaves.
    if (cl_predict_advance(p, tick, NULL) != ARB_OK) return;
    s = find_tick(p, tick);
  }
  if (!s) {
    if (tick > p->tick) {
      // The server is far ahead of the prediction: move the timeline forward to the
      // server's tick and its state; the drawing fades over.
      cl_predict_tick* newest = find_tick(p, p->tick);
      arb_vec2 before = newest ? newest->position : spos;
      take_world(p, view, avatar_entity);
      set_avatar(p, spos, sangle, svel, sw);
      if (cl_proxy_sync(&p->proxies, arb_game_get_world(p->game), p->avatar) != ARB_OK) {
        fail(p, ARB_E_NOMEM, "other avatars");
        return;
      }
      p->tick = tick;
      if (record_tick(p, tick, &p->held, false) != ARB_OK)
        fail(p, ARB_E_NOMEM, "history");
      else if (p->drawn)
        p->offset = arb_add(p->offset, arb_sub(before, spos));
    }
    return;
  }
  // A command made for this tick that the server had not applied by then arrived late.
  if (s->has_command && last_input_seq != tick) p->stats.late_commands++;
  arb_snapshot_state mine = quantized(s);
  bool agrees = same_quantized(&mine, &me->q);
  cl_predict_check* check = &p->checks[p->stats.checks % CL_PREDICT_CHECKS];
  *check = (cl_predict_check){tick, agrees, s->touching, mine, me->q};
  p->stats.checks++;
  float err = arb_length(arb_sub(s->position, spos));
  p->stats.last_error = err;
  p->stats.last_error_free = !s->touching;
  if (err > p->stats.max_error) p->stats.max_error = err;

  cl_predict_tick* newest = find_tick(p, p->tick);
  arb_vec2 before = newest->position;
  float before_angle = newest->angle;
  int rc = resimulate(p, tick, view, avatar_entity, agrees ? NULL : me);
  if (rc != ARB_OK) {
    fail(p, rc, "re-simulation");
    return;
  }
  newest = find_tick(p, p->tick);
  if (!agrees) {
    p->stats.corrections++;
    float jump = arb_length(arb_sub(before, newest->position));
    if (jump > p->stats.max_correction) p->stats.max_correction = jump;
  }
  // The drawn avatar does not jump now: the difference fades out while it plays on.
  cl_predict_sample(p, (double)p->tick, now, NULL, NULL);  // fade the old offset up to now first
  p->offset = arb_add(p->offset, arb_sub(before, newest->position));
  p->angle_offset += before_angle - newest->angle;
  if (arb_length(p->offset) > p->params.snap_distance) {
    p->offset = arb_vec2_zero;
    p->angle_offset = 0.0f;
    p->stats.snaps++;
  }
}

static float lerp_angle(float a, float b, float t) {
  float d = b - a;
  while (d > ARB_PI) d -= 2.0f * ARB_PI;
  while (d < -ARB_PI) d += 2.0f * ARB_PI;
  return a + t * d;
}

bool cl_predict_sample(cl_predict* p, double ft, double now, const arb_vec2* shown,
                       arb_client_entity_state* out) {
  if (!cl_predict_active(p)) return false;
  if (now > p->offset_time) {
    // Exponential fade, but never faster than the avatar itself moves (at least 1 m/s), so
    // the drawn motion stays continuous (the interpolator's rule for its corrections).
    float dt = (float)(now - p->offset_time);
    float k = p->params.smoothing > 0.0f ? (float)exp(-dt / p->params.smoothing) : 0.0f;
    float len = arb_length(p->offset);
    const cl_predict_tick* newest = find_tick(p, p->tick);
    float speed = newest ? arb_length(newest->velocity) : 0.0f;
    float max_step = (speed > 1.0f ? speed : 1.0f) * dt;
    if (len > 0.0f && len * (1.0f - k) > max_step) k = 1.0f - max_step / len;
    p->offset = arb_scale(k, p->offset);
    p->angle_offset *= k;
    if (arb_length(p->offset) < 1e-4f) p->offset = arb_vec2_zero;
    p->offset_time = now;
  }
  if (!out) return true;
  cl_predict_tick* b = find_tick(p, p->tick);
  cl_predict_tick* a = find_tick(p, p->tick - 1);
  float t = 1.0f;
  if (a) {
    double f = ft - (double)(p->tick - 1);
    t = f < 0.0 ? 0.0f : f > 1.0 ? 1.0f : (float)f;
  } else {
    a = b;
  }
  memset(out, 0, sizeof *out);
  arb_vec2 simulated = arb_lerp(a->position, b->position, t);
  if (!p->drawn) {
    // The interpolated avatar drawn so far is behind by the lead plus the interpolation
    // delay: start there and let the difference fade (speed-limited) unless it is huge.
    p->drawn = true;
    if (shown && arb_length(arb_sub(*shown, simulated)) < 4.0f * p->params.snap_distance)
      p->offset = arb_sub(*shown, simulated);
    p->offset_time = now;
  }
  out->position = arb_add(simulated, p->offset);
  out->angle = lerp_angle(a->angle, b->angle, t) + p->angle_offset;
  while (out->angle > ARB_PI) out->angle -= 2.0f * ARB_PI;
  while (out->angle <= -ARB_PI) out->angle += 2.0f * ARB_PI;
  out->rotation = arb_rot_from_angle(out->angle);
  out->linear_velocity = arb_lerp(a->velocity, b->velocity, t);
  out->angular_velocity = a->angular_velocity + t * (b->angular_velocity - a->angular_velocity);
  out->flags = ARB_CLIENT_SAMPLE_PREDICTED;
  // Input-to-motion: the first frame that draws a tick simulated with the new controls.
  bool drawn = p->tick > p->change_tick || (p->tick == p->change_tick && t > 0.0f);
  if (p->change_pending && p->change_tick != 0 && drawn) {
    p->stats.motion_last = (float)(now - p->change_time);
    p->stats.motion_count++;
    p->change_pending = false;
  }
  return true;
}
