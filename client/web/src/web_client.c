// The C side of the npm package (client/web/lib/arbiter.js): flat entry points over
// libarbiter_client for JavaScript, which can pass numbers and pointers only. Every
// variable-length answer is written as 32-bit words (integers, or float32 bit patterns)
// into a buffer this file owns per client, and JavaScript reads it through HEAPU32 /
// HEAPF32 before the next call. Each layout is described where it is written and read
// back the same way in lib/arbiter.js.
#include <emscripten/emscripten.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/client.h>

// Imported from JavaScript (src/arbiter_ws.js): one log line of client `id`.
extern void arb_js_log(int id, int level, const char* message);

typedef struct web_client {
  arb_client* client;
  int id;  ///< JavaScript's handle of this client (for log lines)
  uint32_t* words;
  size_t count, cap;  ///< words written / allocated
  arb_client_entity_state* states;
  int states_cap;
  arb_client_event event;
  double doubles[64];  ///< stats(), session()
  char text[80];       ///< session(): scene name, then hash
  /// put_shape's points
  arb_vec2 outline[ARB_MAX_OUTLINE_POINTS];
} web_client;

// ---- the word buffer --------------------------------------------------------------------

static bool reserve(web_client* w, size_t more) {
  if (w->count + more <= w->cap) return true;
  size_t cap = w->cap ? w->cap : 4096;
  while (cap < w->count + more) cap *= 2;
  uint32_t* p = (uint32_t*)realloc(w->words, cap * sizeof *p);
  if (!p) return false;
  w->words = p;
  w->cap = cap;
  return true;
}

// Callers reserve first; these never fail.
static void put_u(web_client* w, uint32_t v) {
  w->words[w->count++] = v;
}
static void put_f(web_client* w, float f) {
  uint32_t v;
  memcpy(&v, &f, sizeof v);
  w->words[w->count++] = v;
}
static void put_v(web_client* w, arb_vec2 v) {
  put_f(w, v.x);
  put_f(w, v.y);
}

// A shape as its outline (arb_compute_shape_outline), the same words for every kind:
//   kind (arb_shape_type; its name: arb_web_shape_kind_name), flags (1 closed, 2 has_area,
//   4 one_sided), radius, count, then count points (x y).
static bool put_shape(web_client* w, const arb_shape_geometry* s) {
  arb_shape_outline o;
  int n = arb_compute_shape_outline(s, &o, w->outline, ARB_MAX_OUTLINE_POINTS);
  if (!reserve(w, 4 + 2 * (size_t)n)) return false;
  put_u(w, (uint32_t)s->type);
  put_u(w, (o.closed ? 1u : 0u) | (o.has_area ? 2u : 0u) | (o.one_sided ? 4u : 0u));
  put_f(w, o.radius);
  put_u(w, (uint32_t)n);
  for (int i = 0; i < n; i++) put_v(w, w->outline[i]);
  return true;
}

/// The name of shape kind `type` (arb_shape_type), "none" for none or an unknown value.
EMSCRIPTEN_KEEPALIVE const char* arb_web_shape_kind_name(uint32_t type) {
  return arb_shape_type_name((arb_shape_type)type);
}

/// How many shape kinds there are, ARB_SHAPE_NONE included (names 0..count-1).
EMSCRIPTEN_KEEPALIVE int arb_web_shape_kind_count(void) {
  return ARB_SHAPE_TYPE_COUNT;
}

// ---- lifetime ---------------------------------------------------------------------------

static void on_log(void* user, arb_client_log_level level, const char* message) {
  arb_js_log(((web_client*)user)->id, (int)level, message);
}

/// A client (not connected yet), or NULL when the options are invalid (see client.h).
/// avatar: arb_avatar_kind; log_level: ARB_CLIENT_LOG_* (OFF = no log lines); timeouts in
/// seconds, 0 = the default.
EMSCRIPTEN_KEEPALIVE web_client* arb_web_create(int id, const char* url, const char* name,
                                                const char* token, int avatar, int spectate,
                                                int rejoin, int predict, int interpolate,
                                                float connect_timeout, float timeout,
                                                int input_rate, int max_kbps, int log_level) {
  web_client* w = (web_client*)calloc(1, sizeof *w);
  if (!w) return NULL;
  w->id = id;
  arb_client_config cfg = arb_client_default_config();
  cfg.url = url;
  if (name && name[0]) cfg.name = name;
  cfg.token = token && token[0] ? token : NULL;
  cfg.avatar = (arb_avatar_kind)avatar;
  cfg.spectate = spectate != 0;
  cfg.auto_reconnect = rejoin != 0;
  cfg.predict = predict != 0;
  cfg.interpolate = interpolate != 0;
  if (connect_timeout > 0.0f) cfg.connect_timeout = connect_timeout;
  if (timeout > 0.0f) cfg.timeout = timeout;
  cfg.input_rate = input_rate;
  cfg.max_kbps = max_kbps;
  if (log_level >= ARB_CLIENT_LOG_DEBUG && log_level < ARB_CLIENT_LOG_OFF) {
    cfg.log = on_log;
    cfg.log_user = w;
    cfg.log_level = (arb_client_log_level)log_level;
  }
  if (arb_client_create(&cfg, &w->client) != 0) {
    free(w);
    return NULL;
  }
  return w;
}

EMSCRIPTEN_KEEPALIVE int arb_web_connect(web_client* w) {
  return arb_client_connect(w->client);
}

/// Leave (the transport closes with 1000) and free everything.
EMSCRIPTEN_KEEPALIVE void arb_web_destroy(web_client* w) {
  if (!w) return;
  arb_client_disconnect(w->client, "closed by the application");
  arb_client_destroy(w->client);
  free(w->words);
  free(w->states);
  free(w);
}

EMSCRIPTEN_KEEPALIVE int arb_web_update(web_client* w, double now) {
  return arb_client_update(w->client, now);
}

EMSCRIPTEN_KEEPALIVE int arb_web_state(web_client* w) {
  return (int)arb_client_get_state(w->client);
}

EMSCRIPTEN_KEEPALIVE const char* arb_web_last_error(web_client* w) {
  return arb_client_get_last_error(w->client);
}

// ---- input ------------------------------------------------------------------------------

EMSCRIPTEN_KEEPALIVE int arb_web_set_controls(web_client* w, float move_x, float move_y, float aim,
                                              uint32_t buttons, float steer, float throttle,
                                              float brake) {
  arb_controls c = {move_x, move_y, aim, buttons, steer, throttle, brake};
  return arb_client_set_controls(w->client, &c);
}

/// The quantized controls: words move_x move_y aim buttons(u32) steer throttle brake.
EMSCRIPTEN_KEEPALIVE const uint32_t* arb_web_get_controls(web_client* w) {
  arb_controls c = arb_client_get_controls(w->client);
  w->count = 0;
  if (!reserve(w, 7)) return NULL;
  put_f(w, c.move_x);
  put_f(w, c.move_y);
  put_f(w, c.aim);
  put_u(w, c.buttons);
  put_f(w, c.steer);
  put_f(w, c.throttle);
  put_f(w, c.brake);
  return w->words;
}

EMSCRIPTEN_KEEPALIVE int arb_web_set_view_box(web_client* w, int active, float min_x, float min_y,
                                              float max_x, float max_y) {
  if (!active) return arb_client_clear_view_box(w->client);
  return arb_client_set_view_box(w->client, (arb_vec2){min_x, min_y}, (arb_vec2){max_x, max_y});
}

// ---- events -----------------------------------------------------------------------------

/// The oldest event, or NULL: time (f64 at byte 0), then u32 words at byte 8: type,
/// entity_id, client_id, code (i32), will_reconnect; the text (NUL-terminated) at byte 28.
EMSCRIPTEN_KEEPALIVE const void* arb_web_poll_event(web_client* w) {
  arb_client_event ev;
  if (arb_client_poll_event(w->client, &ev) <= 0) return NULL;
  w->doubles[0] = ev.time;
  uint32_t* u = (uint32_t*)&w->doubles[1];
  u[0] = (uint32_t)ev.type;
  u[1] = ev.entity_id;
  u[2] = ev.client_id;
  u[3] = (uint32_t)ev.code;
  u[4] = ev.will_reconnect ? 1u : 0u;
  memcpy(&u[5], ev.text, sizeof ev.text);
  return w->doubles;
}

// ---- world ------------------------------------------------------------------------------

/// One entity's description: body_type owner avatar_kind shape_count, then its shapes
/// (put_shape). NULL when the entity is unknown.
EMSCRIPTEN_KEEPALIVE const uint32_t* arb_web_entity(web_client* w, uint32_t id) {
  arb_client_entity_desc d;
  if (arb_client_get_entity(w->client, id, &d) != 0) return NULL;
  w->count = 0;
  if (!reserve(w, 4)) return NULL;
  put_u(w, (uint32_t)d.body_type);
  put_u(w, d.owner);
  put_u(w, (uint32_t)d.avatar_kind);
  put_u(w, (uint32_t)d.shape_count);
  for (int i = 0; i < d.shape_count; i++) {
    arb_client_shape s;
    if (arb_client_get_entity_shape(w->client, id, i, &s) != 0) memset(&s, 0, sizeof s);
    if (!put_shape(w, &s)) return NULL;
  }
  return w->words;
}

/// The level: count, then per static body: x y angle and its shape (put_shape).
EMSCRIPTEN_KEEPALIVE const uint32_t* arb_web_statics(web_client* w) {
  int n = 0;
  const arb_client_static_body* b = arb_client_get_static_geometry(w->client, &n);
  w->count = 0;
  if (!reserve(w, 1)) return NULL;
  put_u(w, (uint32_t)n);
  for (int i = 0; i < n; i++) {
    if (!reserve(w, 3)) return NULL;
    put_v(w, b[i].position);
    put_f(w, b[i].angle);
    if (!put_shape(w, &b[i].shape)) return NULL;
  }
  return w->words;
}

/// The world at `now` (seconds): counts of bodies, particles, links, wheels; then a word
/// that is 1 with a correction (its x y follow) or 0 (two zero words follow); then
///   bodies:    id owner flags x y angle vx vy w
///   particles: id x y vx vy radius pinned
///   links:     id kind joint_type a b ax ay bx by
///   wheels:    id vehicle x y cos sin radius steer spin spin_rate skid
EMSCRIPTEN_KEEPALIVE const uint32_t* arb_web_sample(web_client* w, double now) {
  arb_client* c = w->client;
  int n = arb_client_sample(c, now, w->states, w->states_cap);
  if (n > w->states_cap) {
    arb_client_entity_state* s =
        (arb_client_entity_state*)realloc(w->states, (size_t)n * sizeof *s);
    if (!s) return NULL;
    w->states = s;
    w->states_cap = n;
    n = arb_client_sample(c, now, w->states, w->states_cap);
  }
  int np = arb_client_get_particles(c, ARB_CLIENT_AT_SAMPLE, NULL, 0);
  int nl = arb_client_get_links(c, ARB_CLIENT_AT_SAMPLE, NULL, 0);
  int nw = arb_client_get_wheels(c, ARB_CLIENT_AT_SAMPLE, NULL, 0);
  w->count = 0;
  if (!reserve(w, 7 + 9 * (size_t)n + 7 * (size_t)np + 9 * (size_t)nl + 11 * (size_t)nw))
    return NULL;
  size_t head = w->count;
  w->count += 4;  // the counts, written below
  arb_vec2 off;
  bool corr = arb_client_get_correction(c, &off);
  put_u(w, corr ? 1u : 0u);
  put_v(w, corr ? off : arb_vec2_zero);
  for (int i = 0; i < n; i++) {
    const arb_client_entity_state* s = &w->states[i];
    put_u(w, s->id);
    put_u(w, s->owner);
    put_u(w, s->flags);
    put_v(w, s->position);
    put_f(w, s->angle);
    put_v(w, s->linear_velocity);
    put_f(w, s->angular_velocity);
  }
  // Each list is copied out once at the count asked for above (a count that grew since
  // is cut to it: the words were reserved for that many).
  int got_p = 0, got_l = 0, got_w = 0;
  if (np > 0) {
    arb_client_particle* all = (arb_client_particle*)malloc((size_t)np * sizeof *all);
    if (all) {
      int k = arb_client_get_particles(c, ARB_CLIENT_AT_SAMPLE, all, np);
      if (k > np) k = np;
      for (int i = 0; i < k; i++) {
        put_u(w, all[i].id);
        put_v(w, all[i].position);
        put_v(w, all[i].velocity);
        put_f(w, all[i].radius);
        put_u(w, all[i].pinned ? 1u : 0u);
      }
      free(all);
      got_p = k;
    }
  }
  if (nl > 0) {
    arb_client_link* all = (arb_client_link*)malloc((size_t)nl * sizeof *all);
    if (all) {
      int k = arb_client_get_links(c, ARB_CLIENT_AT_SAMPLE, all, nl);
      if (k > nl) k = nl;
      for (int i = 0; i < k; i++) {
        put_u(w, all[i].id);
        put_u(w, (uint32_t)all[i].kind);
        put_u(w, (uint32_t)all[i].joint_type);
        put_u(w, all[i].a);
        put_u(w, all[i].b);
        put_v(w, all[i].anchor_a);
        put_v(w, all[i].anchor_b);
      }
      free(all);
      got_l = k;
    }
  }
  if (nw > 0) {
    arb_client_wheel* all = (arb_client_wheel*)malloc((size_t)nw * sizeof *all);
    if (all) {
      int k = arb_client_get_wheels(c, ARB_CLIENT_AT_SAMPLE, all, nw);
      if (k > nw) k = nw;
      for (int i = 0; i < k; i++) {
        put_u(w, all[i].id);
        put_u(w, all[i].vehicle);
        put_v(w, all[i].position);
        put_f(w, all[i].rotation.c);
        put_f(w, all[i].rotation.s);
        put_f(w, all[i].radius);
        put_f(w, all[i].steer);
        put_f(w, all[i].spin);
        put_f(w, all[i].spin_rate);
        put_u(w, all[i].skid ? 1u : 0u);
      }
      free(all);
      got_w = k;
    }
  }
  w->words[head + 0] = (uint32_t)(n < w->states_cap ? n : w->states_cap);
  w->words[head + 1] = (uint32_t)got_p;
  w->words[head + 2] = (uint32_t)got_l;
  w->words[head + 3] = (uint32_t)got_w;
  return w->words;
}

/// The server time (s) the last arb_web_sample rendered.
EMSCRIPTEN_KEEPALIVE double arb_web_sample_time(web_client* w) {
  return arb_client_get_sample_time(w->client);
}

EMSCRIPTEN_KEEPALIVE double arb_web_server_time(web_client* w, double now) {
  return arb_client_get_server_time(w->client, now);
}

EMSCRIPTEN_KEEPALIVE double arb_web_snapshot_tick(web_client* w) {
  return (double)arb_client_get_snapshot_tick(w->client);
}

// ---- session, statistics, prediction checks ---------------------------------------------

/// doubles: client_id avatar_entity tick_rate snapshot_rate welcome_tick; the scene name
/// at arb_web_session_text, its hash (16 hex digits) 64 bytes further.
EMSCRIPTEN_KEEPALIVE const double* arb_web_session(web_client* w) {
  const arb_client_session* s = arb_client_get_session(w->client);
  w->doubles[0] = s->client_id;
  w->doubles[1] = s->avatar_entity;
  w->doubles[2] = s->tick_rate;
  w->doubles[3] = s->snapshot_rate;
  w->doubles[4] = (double)s->welcome_tick;
  memset(w->text, 0, sizeof w->text);
  memcpy(w->text, s->scene_name, sizeof s->scene_name - 1);
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) w->text[64 + i] = hex[(s->scene_hash >> (60 - 4 * i)) & 15u];
  return w->doubles;
}

EMSCRIPTEN_KEEPALIVE const char* arb_web_session_text(web_client* w) {
  return w->text;
}

/// The statistics as doubles, in the order lib/arbiter.js lists them (STAT_FIELDS).
EMSCRIPTEN_KEEPALIVE const double* arb_web_stats(web_client* w) {
  arb_client_stats s;
  arb_client_get_stats(w->client, &s);
  const double v[] = {s.rtt,
                      s.rtt_variance,
                      s.packet_loss,
                      s.snapshots_per_second,
                      s.bytes_in_per_second * 8.0 / 1000.0,
                      s.bytes_out_per_second * 8.0 / 1000.0,
                      (double)s.bytes_in,
                      (double)s.bytes_out,
                      (double)s.packets_in,
                      (double)s.packets_out,
                      s.interp_delay,
                      s.snapshot_interval,
                      s.jitter,
                      s.buffer_depth,
                      s.extrapolation_time,
                      (double)s.snapshots_received,
                      (double)(s.snapshots_received + s.snapshots_lost),
                      (double)s.snapshots_lost,
                      (double)s.snapshots_late,
                      (double)s.baseline_missing,
                      (double)s.decode_errors,
                      (double)s.inputs_sent,
                      (double)s.events_dropped,
                      s.connects,
                      s.reconnects,
                      s.entity_count,
                      s.predicting ? 1.0 : 0.0,
                      s.input_lead,
                      (double)s.predict_checks,
                      (double)s.predict_corrections,
                      (double)s.predict_snaps,
                      (double)s.inputs_late,
                      s.predict_error,
                      s.predict_error_max,
                      s.predict_error_free ? 1.0 : 0.0,
                      s.predict_correction_max,
                      s.predict_offset,
                      s.input_to_motion,
                      (double)s.input_to_motion_count};
  _Static_assert(sizeof v <= sizeof w->doubles, "stats fit");
  memcpy(w->doubles, v, sizeof v);
  return w->doubles;
}

/// count, then per check: tick agree touching, predicted x y angle vx vy w, server the same.
EMSCRIPTEN_KEEPALIVE const uint32_t* arb_web_predict_checks(web_client* w) {
  arb_client_predict_check k[64];
  int n = arb_client_get_predict_checks(w->client, k, 64);
  if (n > 64) n = 64;
  w->count = 0;
  if (!reserve(w, 1 + 15 * (size_t)n)) return NULL;
  put_u(w, (uint32_t)n);
  for (int i = 0; i < n; i++) {
    put_u(w, k[i].tick);
    put_u(w, k[i].agree ? 1u : 0u);
    put_u(w, k[i].touching ? 1u : 0u);
    for (int f = 0; f < 6; f++) put_u(w, (uint32_t)k[i].predicted[f]);
    for (int f = 0; f < 6; f++) put_u(w, (uint32_t)k[i].server[f]);
  }
  return w->words;
}
