// The arb_client object: config, state machine and glue (see cl_client.h).
#include "cl_client.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define CL_CONFIG_MAGIC 0x41524243  // "ARBC": arb_client_default_config was used
#define CL_MAX_LEAD 0.3             // s: commands are never stamped further ahead

// ---- config ----------------------------------------------------------------------------

arb_client_config arb_client_default_config(void) {
  // Unlisted fields (token, log callback, ...) are zero.
  arb_client_config c = {.host = "127.0.0.1",
                         .port = 7777,
                         .name = "player",
                         .avatar = ARB_AVATAR_DEFAULT,
                         .interp_delay_min = 0.010f,
                         .interp_delay_max = 0.500f,
                         .extrapolation_limit = 0.25f,
                         .blend_time = 0.2f,
                         .teleport_distance = 2.0f,
                         .interpolate = true,
                         .predict = true,
                         .predict_smoothing = 0.1f,
                         .predict_snap_distance = 2.0f,
                         .input_margin = 0.005f,
                         .connect_timeout = 5.0f,
                         .timeout = 3.0f,
                         .auto_reconnect = true,
                         .reconnect_delay_min = 0.25f,
                         .reconnect_delay_max = 4.0f,
                         .input_redundancy = ARB_PROTO_MAX_INPUTS,
                         .max_entities = 16384,
                         .log_level = ARB_CLIENT_LOG_INFO,
                         .internal_value = CL_CONFIG_MAGIC};
  return c;
}

static void cl_log(arb_client* c, arb_client_log_level level, const char* fmt, ...) {
  if (!c->cfg.log || level < c->cfg.log_level) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  c->cfg.log(c->cfg.log_user, level, line);
}

// vsnprintf: truncation is intended here (bounded texts), without the compiler's
// format-truncation warning that snprintf of long fields into short buffers triggers.
static void fmt(char* dst, size_t cap, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(dst, cap, format, ap);
  va_end(ap);
}

static bool positive(float x) {
  return isfinite(x) && x > 0.0f;
}

static int validate_config(const arb_client_config* cfg) {
  if (cfg->internal_value != CL_CONFIG_MAGIC) return ARB_E_INVAL;
  if (!cfg->host || !cfg->host[0] || strlen(cfg->host) >= 256) return ARB_E_INVAL;
  if (!cfg->name || !cfg->name[0] || strlen(cfg->name) > ARB_PROTO_MAX_NAME) return ARB_E_INVAL;
  if (cfg->url && strlen(cfg->url) > ARB_CLIENT_MAX_URL) return ARB_E_INVAL;
#ifdef ARB_CLIENT_WEBSOCKET
  if (!cfg->url || !cfg->url[0]) return ARB_E_INVAL;
#endif
  if (cfg->token && strlen(cfg->token) > ARB_PROTO_MAX_TOKEN) return ARB_E_INVAL;
  if ((int)cfg->avatar < 0 || cfg->avatar >= ARB_AVATAR_KIND_COUNT) return ARB_E_INVAL;
  if (!positive(cfg->interp_delay_max) || !isfinite(cfg->interp_delay_min) ||
      cfg->interp_delay_min < 0.0f || cfg->interp_delay_min > cfg->interp_delay_max)
    return ARB_E_INVAL;
  if (!isfinite(cfg->extrapolation_limit) || cfg->extrapolation_limit < 0.0f) return ARB_E_INVAL;
  if (!isfinite(cfg->blend_time) || cfg->blend_time < 0.0f) return ARB_E_INVAL;
  if (!positive(cfg->teleport_distance) || !positive(cfg->connect_timeout) ||
      !positive(cfg->timeout))
    return ARB_E_INVAL;
  if (!isfinite(cfg->predict_smoothing) || cfg->predict_smoothing < 0.0f ||
      !positive(cfg->predict_snap_distance) || !isfinite(cfg->input_margin) ||
      cfg->input_margin < 0.0f || cfg->input_margin > 1.0f)
    return ARB_E_INVAL;
  if (!positive(cfg->reconnect_delay_min) || cfg->reconnect_delay_max < cfg->reconnect_delay_min)
    return ARB_E_INVAL;
  if (cfg->input_redundancy < 1 || cfg->input_redundancy > ARB_PROTO_MAX_INPUTS) return ARB_E_INVAL;
  if (cfg->input_rate < 0 || cfg->input_rate > 10000) return ARB_E_INVAL;
  if (cfg->max_kbps < 0 || (uint32_t)cfg->max_kbps > ARB_PROTO_MAX_KBPS) return ARB_E_INVAL;
  if (cfg->max_entities < 1 || cfg->max_entities > ARB_PROTO_MAX_ENTITIES) return ARB_E_INVAL;
  if ((cfg->alloc == NULL) != (cfg->free == NULL)) return ARB_E_INVAL;
  return 0;
}

int arb_client_create(const arb_client_config* config, arb_client** out) {
  if (!out) return ARB_E_INVAL;
  *out = NULL;
  if (!config) return ARB_E_INVAL;
  int rc = validate_config(config);
  if (rc) return rc;
  cl_mem mem = {config->alloc, config->free, config->alloc_user};
  arb_client* c = (arb_client*)cl_calloc(&mem, sizeof *c);
  if (!c) return ARB_E_NOMEM;
  c->mem = mem;
  c->cfg = *config;
  fmt(c->host, sizeof c->host, "%s", config->host);
  fmt(c->url, sizeof c->url, "%s", config->url ? config->url : "");
  fmt(c->name, sizeof c->name, "%s", config->name);
  if (config->token) {
    c->token_len = (int)strlen(config->token);
    memcpy(c->token, config->token, (size_t)c->token_len);
  }
  c->cfg.host = c->host;
  c->cfg.url = c->url;
  c->cfg.name = c->name;
  c->cfg.token = NULL;
  c->backoff = config->reconnect_delay_min;

  cl_interp_params ip = cl_interp_params_of(config, 1.0f / 30.0f);
  cl_interp_init(&c->interp, &ip, &mem);
  cl_clock_reset(&c->clock);
  cl_input_init(&c->input, config->input_redundancy);
  cl_predict_params pp = {config->predict_smoothing, config->predict_snap_distance};
  cl_predict_init(&c->predict, &mem, &pp);
  cl_events_clear(&c->events);
  if ((rc = cl_snapshots_init(&c->snaps, config->max_entities, &mem)) != 0 ||
      (rc = cl_net_init(&c->net)) != 0) {
    arb_client_destroy(c);
    return rc;
  }
  *out = c;
  return 0;
}

void arb_client_destroy(arb_client* c) {
  if (!c) return;
  cl_net_deinit(&c->net);
  cl_snapshots_deinit(&c->snaps);
  cl_interp_deinit(&c->interp);
  cl_predict_stop(&c->predict);
  cl_free(&c->mem, c->statics);
  cl_mem mem = c->mem;
  cl_free(&mem, c);
}

// ---- connection state ------------------------------------------------------------------

static double ticks_per_snapshot(const arb_client* c) {
  if (c->session.tick_rate > 0 && c->session.snapshot_rate > 0)
    return (double)c->session.tick_rate / c->session.snapshot_rate;
  return 2.0;
}

static void set_state(arb_client* c, arb_client_state s) {
  c->state = s;
  c->state_since = c->now;
}

// Everything learned from one connection goes; entities leave visibly.
static void forget_world(arb_client* c) {
  for (int i = 0; i < c->interp.count; i++)
    cl_events_push(&c->events, ARB_CLIENT_EVENT_ENTITY_LEFT, c->now,
                   cl_interp_at(&c->interp, i)->desc.id, 0, 0, false, NULL);
  cl_interp_reset(&c->interp);
  cl_predict_stop(&c->predict);
  cl_snapshots_reset(&c->snaps);
  cl_clock_reset(&c->clock);
  cl_loss_reset_connection(&c->loss, ticks_per_snapshot(c));
  memset(&c->session, 0, sizeof c->session);
  c->clock_tick = 0;
  c->last_input_seq = 0;
  c->acked_tick = 0;
  c->input_sent_at = 0.0;
}

static int start_connect(arb_client* c) {
  // The handshake gets the whole connect_timeout: on a lossy link ENet's first connect
  // retransmissions are 0.5 s, 1 s, 2 s apart.
  float t = c->cfg.connect_timeout > c->cfg.timeout ? c->cfg.connect_timeout : c->cfg.timeout;
  int rc = cl_net_connect(&c->net, c->host, c->cfg.port, c->url, (uint32_t)(t * 1000.0f));
  if (rc) {
    fmt(c->last_error, sizeof c->last_error, "connect: cannot resolve or reach '%s': %s",
        c->url[0] ? c->url : c->host, arb_strerror(rc));
    cl_log(c, ARB_CLIENT_LOG_WARN, "%s", c->last_error);
    return rc;
  }
  set_state(c, ARB_CLIENT_CONNECTING);
#ifdef ARB_CLIENT_WEBSOCKET
  cl_log(c, ARB_CLIENT_LOG_INFO, "connecting to %s as '%s'", c->url, c->name);
#else
  cl_log(c, ARB_CLIENT_LOG_INFO, "connecting to %s:%u as '%s'", c->host, (unsigned)c->cfg.port,
         c->name);
#endif
  return 0;
}

int arb_client_connect(arb_client* c) {
  if (!c) return ARB_E_INVAL;
  if (c->state == ARB_CLIENT_CONNECTING || c->state == ARB_CLIENT_CONNECTED) return ARB_E_STATE;
  c->backoff = c->cfg.reconnect_delay_min;
  c->rejoin[0] = '\0';  // a new session, not a rejoin
  c->moving = false;
  int rc = start_connect(c);
  // We do not know the time here (the application may not have called update for a
  // while): the connect timeout starts at the next update.
  if (rc == 0) c->state_since = -1.0;
  return rc;
}

static void move_back(arb_client* c, const char* why);

// The link is gone (for any reason but our own request). Decide whether to come back.
static void link_lost(arb_client* c, int code, const char* why, bool may_reconnect) {
  bool was_connected = c->state == ARB_CLIENT_CONNECTED;
  cl_net_drop(&c->net, 0);
  forget_world(c);
  bool again = may_reconnect && c->cfg.auto_reconnect;
  cl_events_push(&c->events, ARB_CLIENT_EVENT_DISCONNECTED, c->now, 0, 0, code, again, why);
  cl_log(c, ARB_CLIENT_LOG_WARN, "%s: %s%s", was_connected ? "disconnected" : "connect failed", why,
         again ? " (will reconnect)" : "");
  if (again) {
    set_state(c, ARB_CLIENT_RECONNECT_WAIT);
    c->reconnect_at = c->now + c->backoff;
    c->backoff *= 2.0f;
    if (c->backoff > c->cfg.reconnect_delay_max) c->backoff = c->cfg.reconnect_delay_max;
  } else {
    set_state(c, ARB_CLIENT_DISCONNECTED);
  }
}

int arb_client_disconnect(arb_client* c, const char* reason) {
  if (!c) return ARB_E_INVAL;
  if (c->state == ARB_CLIENT_DISCONNECTED) return ARB_E_STATE;
  cl_net_drop(&c->net, ARB_PROTO_REASON_OTHER);
  forget_world(c);
  c->moving = false;
  cl_events_push(&c->events, ARB_CLIENT_EVENT_DISCONNECTED, c->now, 0, 0, ARB_PROTO_REASON_NONE,
                 false, reason ? reason : "disconnected by the application");
  set_state(c, ARB_CLIENT_DISCONNECTED);
  return 0;
}

arb_client_state arb_client_get_state(const arb_client* c) {
  return c ? c->state : ARB_CLIENT_DISCONNECTED;
}

int arb_client_get_fd(const arb_client* c) {
  return c ? cl_net_fd(&c->net) : -1;
}

const arb_client_session* arb_client_get_session(const arb_client* c) {
  return &c->session;
}

// ---- messages --------------------------------------------------------------------------

static void count_error(arb_client* c, const arb_proto_error* e, const char* what) {
  c->decode_errors++;
  fmt(c->last_error, sizeof c->last_error, "%s", e && e->reason[0] ? e->reason : what);
  cl_log(c, ARB_CLIENT_LOG_DEBUG, "dropped packet: %s", c->last_error);
}

static void send_hello(arb_client* c) {
  arb_proto_hello h;
  memset(&h, 0, sizeof h);
  h.version = ARB_PROTO_VERSION;
  fmt(h.name, sizeof h.name, "%s", c->name);
  if (c->rejoin[0] != '\0' && strlen(c->rejoin) <= sizeof h.token) {
    // Reconnecting: ask for our own avatar back (PROTOCOL.md §4.6).
    h.token_len = (uint16_t)strlen(c->rejoin);
    memcpy(h.token, c->rejoin, h.token_len);
  } else {
    memcpy(h.token, c->token, (size_t)c->token_len);
    h.token_len = (uint16_t)c->token_len;
  }
  h.avatar_kind = c->cfg.spectate ? (uint8_t)ARB_PROTO_SPECTATOR : (uint8_t)c->cfg.avatar;
  h.max_kbps = c->cfg.max_kbps > 0 ? (uint32_t)c->cfg.max_kbps : 0;
  // The scene message is only for prediction (a spectator gets none anyway).
  if (!c->cfg.predict && !c->cfg.spectate) h.flags = ARB_PROTO_HELLO_NO_SCENE;
  int n = arb_proto_encode_hello(&h, c->buf, sizeof c->buf);
  if (n <= 0 || (size_t)n > sizeof c->buf) {
    fmt(c->last_error, sizeof c->last_error, "hello: cannot encode (%s)", arb_strerror(n));
    return;
  }
  cl_net_send(&c->net, ARB_PROTO_CHANNEL_CONTROL, c->buf, (size_t)n, true);
  cl_net_flush(&c->net);
}

static void desc_from_proto(uint32_t id, const cl_body_desc* d, arb_client_entity_desc* o) {
  memset(o, 0, sizeof *o);
  o->id = id;
  o->body_type = d->body_type;
  o->owner = d->owner;
  o->avatar_kind = d->avatar_kind;
  arb_proto_shape_to_geometry(&d->shape, &o->shape);  // decoded shapes always convert
  // Chains are level geometry (welcome statics): a description has no room for their
  // points, and the geometry would point into the message. Drawn as an unknown shape.
  if (o->shape.type == ARB_SHAPE_CHAIN) memset(&o->shape, 0, sizeof o->shape);
}

// The camera box (or its clearing) to the server, reliably; only while welcomed (the
// welcome sends it again, so a box set earlier is not lost).
static int send_view(arb_client* c) {
  if (c->state != ARB_CLIENT_CONNECTED) return 0;
  int n = arb_proto_encode_view(&c->view, c->buf, sizeof c->buf);
  if (n <= 0 || (size_t)n > sizeof c->buf) return n < 0 ? n : ARB_E_NOSPACE;
  cl_net_send(&c->net, ARB_PROTO_CHANNEL_CONTROL, c->buf, (size_t)n, true);
  return 0;
}

int arb_client_set_view_box(arb_client* c, arb_vec2 min, arb_vec2 max) {
  if (!c) return ARB_E_INVAL;
  arb_proto_view v = {true, min, max};
  uint8_t probe[64];  // the codec's checks, so a box the server would strike never leaves
  int n = arb_proto_encode_view(&v, probe, sizeof probe);
  if (n < 0) return n;
  if (c->view.active && c->view.min.x == min.x && c->view.min.y == min.y &&
      c->view.max.x == max.x && c->view.max.y == max.y)
    return 0;  // unchanged
  c->view = v;
  return send_view(c);
}

int arb_client_clear_view_box(arb_client* c) {
  if (!c) return ARB_E_INVAL;
  if (!c->view.active) return 0;
  memset(&c->view, 0, sizeof c->view);
  return send_view(c);
}

static void on_welcome(arb_client* c, const uint8_t* data, size_t len) {
  if (c->state != ARB_CLIENT_CONNECTING) {
    count_error(c, NULL, "welcome while not connecting");
    return;
  }
  arb_proto_welcome w;
  memset(&w, 0, sizeof w);
  // Temporary room for the largest allowed level; kept at its real size afterwards.
  w.static_cap = ARB_PROTO_MAX_STATIC;
  w.statics = (arb_proto_static_body*)cl_alloc(
      &c->mem, sizeof(arb_proto_static_body) * ARB_PROTO_MAX_STATIC);
  if (!w.statics) {
    link_lost(c, ARB_PROTO_REASON_OTHER, "out of memory for the welcome", true);
    return;
  }
  arb_proto_error err;
  int rc = arb_proto_decode_welcome(data, len, &w, &err);
  if (rc != ARB_OK) {
    cl_free(&c->mem, w.statics);
    count_error(c, &err, "welcome: malformed");
    link_lost(c, ARB_PROTO_REASON_MALFORMED, c->last_error, true);
    return;
  }
  cl_free(&c->mem, c->statics);
  c->statics = NULL;
  c->static_count = 0;
  if (w.static_count > 0) {
    c->statics = (arb_client_static_body*)cl_alloc(
        &c->mem, sizeof(arb_client_static_body) * (size_t)w.static_count);
    if (c->statics) {
      for (int i = 0; i < w.static_count; i++) {
        c->statics[i].position = w.statics[i].position;
        c->statics[i].angle = w.statics[i].angle;
        arb_client_static_body* sb = &c->statics[i];
        arb_proto_shape_to_geometry(&w.statics[i].shape, &sb->shape);
        if (sb->shape.type == ARB_SHAPE_CHAIN) {  // keep the points: w goes away
          memcpy(sb->chain_points, w.statics[i].shape.points, sizeof sb->chain_points);
          sb->shape.chain.points = sb->chain_points;
        }
      }
      c->static_count = w.static_count;
    }
  }
  cl_free(&c->mem, w.statics);

  if (c->moving && w.client_id != c->moved_client_id) {
    // Welcomed as someone new: the new server no longer held our avatar (the move was
    // called off there), so the match goes on where it was.
    cl_net_drop(&c->net, ARB_PROTO_REASON_OTHER);
    move_back(c, "welcomed as a new player");
    return;
  }
  c->moving = false;
  forget_world(c);
  c->session.client_id = w.client_id;
  c->session.avatar_entity = w.entity_id;
  c->session.tick_rate = w.tick_rate;
  c->session.snapshot_rate = w.snapshot_rate;
  c->session.welcome_tick = w.server_tick;
  fmt(c->session.scene_name, sizeof c->session.scene_name, "%s", w.scene_name);
  c->session.scene_hash = w.scene_hash;
  cl_interp_set_nominal_interval(&c->interp, 1.0f / (float)w.snapshot_rate);
  cl_input_restart(&c->input);
  c->welcome_time = c->now;
  c->lead = 0.0;
  c->lead_time = 0.0;
  c->lead_extra_ticks = 0;
  c->lead_calm_since = c->now;
  c->backoff = c->cfg.reconnect_delay_min;
  c->connects++;
  double timeout_ms = (double)c->cfg.timeout * 1000.0;  // any positive float: clamp, then convert
  cl_net_set_timeout(&c->net, timeout_ms < 4.0e9 ? (uint32_t)timeout_ms : 4000000000u);
  set_state(c, ARB_CLIENT_CONNECTED);
  if (c->view.active) send_view(c);
  cl_events_push(&c->events, ARB_CLIENT_EVENT_CONNECTED, c->now, w.entity_id, w.client_id, 0, false,
                 w.scene_name);
  cl_log(c, ARB_CLIENT_LOG_INFO,
         "welcomed: client %u, avatar entity %u, %d Hz ticks, %d snapshots/s, scene '%s'",
         w.client_id, w.entity_id, w.tick_rate, w.snapshot_rate, w.scene_name);
}

// The scene the server runs: the predicting client builds its local game from it.
static void on_scene(arb_client* c, const uint8_t* data, size_t len) {
  if (c->state != ARB_CLIENT_CONNECTED) {
    count_error(c, NULL, "scene while not connected");
    return;
  }
  arb_proto_scene m;
  arb_proto_error err;
  if (arb_proto_decode_scene(data, len, &m, &err) != ARB_OK) {
    count_error(c, &err, "scene: malformed");
    return;
  }
  if (!c->cfg.predict || c->session.avatar_entity == 0) return;
  if (m.scene_hash != c->session.scene_hash) {
    count_error(c, NULL, "scene: hash differs from the welcome's");
    return;
  }
  if (cl_predict_start(&c->predict, &m, c->session.client_id, c->cfg.avatar,
                       c->session.tick_rate) != ARB_OK) {
    fmt(c->last_error, sizeof c->last_error, "%s", c->predict.error);
    cl_log(c, ARB_CLIENT_LOG_WARN, "%s", c->predict.error);
    return;
  }
  // Commands already made (the welcome came first) are simulated at once.
  for (int i = c->input.recent_count - 1; i >= 0; i--) {
    arb_controls ctl = arb_proto_dequantize_controls(&c->input.recent[i].controls);
    cl_predict_advance(&c->predict, c->input.recent[i].seq, &ctl);
  }
  cl_log(c, ARB_CLIENT_LOG_INFO, "predicting the own avatar from tick %u", m.tick);
}

static void on_reject(arb_client* c, const uint8_t* data, size_t len) {
  arb_proto_reject r;
  arb_proto_error err;
  if (arb_proto_decode_reject(data, len, &r, &err) != ARB_OK) {
    count_error(c, &err, "reject: malformed");
    return;
  }
  char text[128];
  fmt(text, sizeof text, "%s%s%s", arb_proto_reason_name(r.reason), r.text[0] ? ": " : "", r.text);
  cl_net_drop(&c->net, 0);
  forget_world(c);
  if (c->moving) {
    move_back(c, text);
    return;
  }
  if (c->rejoin[0] != '\0' && r.reason == ARB_PROTO_REASON_BAD_TOKEN) {
    // Our rejoin token had expired: come back with the connect token instead.
    c->rejoin[0] = '\0';
    cl_log(c, ARB_CLIENT_LOG_WARN, "rejoin refused (%s); connecting anew", text);
    set_state(c, ARB_CLIENT_RECONNECT_WAIT);
    c->reconnect_at = c->now;
    return;
  }
  cl_events_push(&c->events, ARB_CLIENT_EVENT_REJECTED, c->now, 0, 0, r.reason, false, text);
  cl_log(c, ARB_CLIENT_LOG_WARN, "rejected by the server: %s", text);
  set_state(c, ARB_CLIENT_DISCONNECTED);
}

static bool reason_allows_reconnect(int code) {
  return !(code == ARB_PROTO_REASON_VERSION || code == ARB_PROTO_REASON_BAD_TOKEN ||
           code == ARB_PROTO_REASON_BAD_NAME || code == ARB_PROTO_REASON_KICKED ||
           code == ARB_PROTO_REASON_FULL);
}

// After `moved`, a client not welcomed back by the new server within this many seconds
// returns to the old one, which resumes the match when nobody reached the new one
// (docs/SCALING.md, "Moving a match": the old server decides within 1.5 s and holds the
// avatars for its rejoin window).
#define CL_MOVE_FALLBACK_S 3.0

// The new server could not be reached, or no longer held our avatar: back to the server
// the match came from, with the same rejoin token.
static void move_back(arb_client* c, const char* why) {
#ifdef ARB_CLIENT_WEBSOCKET
  cl_log(c, ARB_CLIENT_LOG_WARN, "could not rejoin at %s (%s): back to %s", c->url, why,
         c->moved_from_url);
#else
  cl_log(c, ARB_CLIENT_LOG_WARN, "could not rejoin at %s:%u (%s): back to %s:%u", c->host,
         (unsigned)c->cfg.port, why, c->moved_from_host, (unsigned)c->moved_from_port);
#endif
  fmt(c->host, sizeof c->host, "%s", c->moved_from_host);
  c->cfg.port = c->moved_from_port;
  fmt(c->url, sizeof c->url, "%s", c->moved_from_url);
  c->moving = false;
  set_state(c, ARB_CLIENT_RECONNECT_WAIT);
  c->backoff = c->cfg.reconnect_delay_min;
  c->reconnect_at = c->now;
}

// The match moved to another server (PROTOCOL.md §4.5, event `moved`): go there at once
// with the rejoin token, which the new server holds our avatar for. An ENet client is told
// the new server's "ip:port", a WebSocket client its ws:// or wss:// URL.
static void moved(arb_client* c, const char* where) {
  if (c->rejoin[0] == '\0') {
    count_error(c, NULL, "event moved: no rejoin token");
    return;
  }
#ifdef ARB_CLIENT_WEBSOCKET
  if ((strncmp(where, "ws://", 5) != 0 && strncmp(where, "wss://", 6) != 0) ||
      strlen(where) >= sizeof c->url) {
    count_error(c, NULL, "event moved: not a ws:// or wss:// URL (the new server has none)");
    return;
  }
#else
  const char* colon = strrchr(where, ':');
  char* end = NULL;
  long port = colon ? strtol(colon + 1, &end, 10) : 0;
  if (colon == NULL || colon == where || *end != '\0' || port < 1 || port > 65535 ||
      (size_t)(colon - where) >= sizeof c->host) {
    count_error(c, NULL, "event moved: bad address");
    return;
  }
#endif
  c->moving = true;
  fmt(c->moved_from_host, sizeof c->moved_from_host, "%s", c->host);
  c->moved_from_port = c->cfg.port;
  fmt(c->moved_from_url, sizeof c->moved_from_url, "%s", c->url);
  c->moved_at = c->now;
  c->moved_client_id = c->session.client_id;
#ifdef ARB_CLIENT_WEBSOCKET
  fmt(c->url, sizeof c->url, "%s", where);
#else
  fmt(c->host, sizeof c->host, "%.*s", (int)(colon - where), where);
  c->cfg.port = (uint16_t)port;
#endif
  cl_log(c, ARB_CLIENT_LOG_INFO, "the match moved to %s: rejoining there", where);
  cl_net_drop(&c->net, 0);
  cl_events_push(&c->events, ARB_CLIENT_EVENT_DISCONNECTED, c->now, 0, 0, ARB_PROTO_REASON_NONE,
                 true, "the match moved to another server");
  set_state(c, ARB_CLIENT_RECONNECT_WAIT);
  c->backoff = c->cfg.reconnect_delay_min;
  c->reconnect_at = c->now;
}

static void on_event(arb_client* c, const uint8_t* data, size_t len) {
  arb_proto_event e;
  arb_proto_error err;
  if (arb_proto_decode_event(data, len, &e, &err) != ARB_OK) {
    count_error(c, &err, "event: malformed");
    return;
  }
  switch (e.kind) {
    case ARB_PROTO_EVENT_JOINED:
      cl_events_push(&c->events, ARB_CLIENT_EVENT_PLAYER_JOINED, c->now, e.entity_id, e.client_id,
                     0, false, e.text);
      break;
    case ARB_PROTO_EVENT_LEFT:
      cl_events_push(&c->events, ARB_CLIENT_EVENT_PLAYER_LEFT, c->now, 0, e.client_id, e.code,
                     false, e.text);
      break;
    case ARB_PROTO_EVENT_HIT:
      cl_events_push(&c->events, ARB_CLIENT_EVENT_HIT, c->now, e.entity_id, e.client_id, 0, false,
                     e.text);
      break;
    case ARB_PROTO_EVENT_NOTICE:
      cl_events_push(&c->events, ARB_CLIENT_EVENT_NOTICE, c->now, 0, 0, 0, false, e.text);
      break;
    case ARB_PROTO_EVENT_REJOIN:
      fmt(c->rejoin, sizeof c->rejoin, "%s", e.text);
      break;
    case ARB_PROTO_EVENT_MOVED:
      moved(c, e.text);
      break;
    case ARB_PROTO_EVENT_DISCONNECT: {
      char text[128];
      fmt(text, sizeof text, "%s%s%s", arb_proto_reason_name(e.code), e.text[0] ? ": " : "",
          e.text);
      link_lost(c, e.code, text, reason_allows_reconnect(e.code));
      break;
    }
    default:
      count_error(c, NULL, "event: unknown kind");
  }
}

static void push_entity(arb_client* c, const cl_body* b, double t) {
  if (!c->cfg.interpolate) return;  // headless: no history to keep
  cl_sample s = {t, b->position, b->angle, b->velocity, b->angular_velocity};
  int rc = cl_interp_push(&c->interp, b->id, &s);
  (void)rc;  // unknown ids (not in the newest view) are skipped on purpose
}

// `tick`: the snapshot that lists the entity. Known entities keep their history.
static void add_entity(arb_client* c, uint32_t id, const cl_body_desc* d, uint32_t tick) {
  bool known = cl_interp_find(&c->interp, id) != NULL;
  arb_client_entity_desc desc;
  desc_from_proto(id, d, &desc);
  desc.shape_count = 1 + cl_snapshots_more_shapes(&c->snaps, id, NULL);
  int rc = cl_interp_add(&c->interp, &desc);
  if (rc) {
    fmt(c->last_error, sizeof c->last_error, "entity %u: %s (max_entities %d)", id,
        arb_strerror(rc), c->cfg.max_entities);
    return;
  }
  cl_entity* e = cl_interp_find(&c->interp, id);
  if (e && tick > e->tag) e->tag = tick;
  if (!known)
    cl_events_push(&c->events, ARB_CLIENT_EVENT_ENTITY_ENTERED, c->now, id, d->owner, 0, false,
                   NULL);
}

// Removed as of `tick` -- unless a newer snapshot (parts arrive in any order) lists it.
static void remove_entity(arb_client* c, uint32_t id, uint32_t tick) {
  cl_entity* e = cl_interp_find(&c->interp, id);
  if (!e || e->tag > tick) return;
  cl_interp_remove(&c->interp, id);
  cl_events_push(&c->events, ARB_CLIENT_EVENT_ENTITY_LEFT, c->now, id, 0, 0, false, NULL);
}

// The newest complete view decides who exists; older parts only add history. Both lists
// are in id order and are merged (a search per entity cost a client of a large world
// more than decoding its snapshot): from the end for removals, which leave the positions
// before them as they were, then from the start, where an entity added at the cursor
// sits before every later body's id.
static void reconcile(arb_client* c, const cl_slot* sl) {
  int j = sl->bodies.count - 1;
  for (int i = c->interp.count - 1; i >= 0; i--) {
    uint32_t id = cl_interp_at(&c->interp, i)->desc.id;
    while (j >= 0 && sl->bodies.items[j].id > id) j--;
    if (j < 0 || sl->bodies.items[j].id != id) remove_entity(c, id, sl->tick);
  }
  int k = 0;
  for (int i = 0; i < sl->bodies.count; i++) {
    uint32_t id = sl->bodies.items[i].id;
    while (k < c->interp.count && cl_interp_at(&c->interp, k)->desc.id < id) k++;
    if (k < c->interp.count && cl_interp_at(&c->interp, k)->desc.id == id) {
      cl_entity* e = cl_interp_at(&c->interp, k);
      if (sl->tick > e->tag) e->tag = sl->tick;
      continue;
    }
    const cl_body_desc* d = cl_snapshots_desc(&c->snaps, id);
    if (d)
      add_entity(c, id, d, sl->tick);
    else
      count_error(c, NULL, "snapshot: entity without a description");
  }
}

// Commands that arrived late push the lead up a tick; 5 s without one take a tick back.
static void adapt_lead(arb_client* c) {
  if (c->predict.stats.late_commands > c->late_seen) {
    c->late_seen = c->predict.stats.late_commands;
    if (c->lead_extra_ticks < 8) c->lead_extra_ticks++;
    c->lead_calm_since = c->now;
  } else if (c->lead_extra_ticks > 0 && c->now - c->lead_calm_since > 5.0) {
    c->lead_extra_ticks--;
    c->lead_calm_since = c->now;
  }
}

static const cl_body_desc* snapshot_desc(const void* snaps, uint32_t entity) {
  return cl_snapshots_desc((const cl_snapshots*)snaps, entity);
}

static void predict_on_snapshot(arb_client* c, uint32_t tick, uint32_t last_input_seq,
                                const cl_slot* slot) {
  if (!cl_predict_active(&c->predict)) return;
  cl_predict_on_snapshot(&c->predict, tick, last_input_seq, c->session.avatar_entity, &slot->bodies,
                         snapshot_desc, &c->snaps, c->now);
  adapt_lead(c);
  if (!cl_predict_active(&c->predict) && c->predict.error[0])
    cl_log(c, ARB_CLIENT_LOG_WARN, "%s", c->predict.error);
}

// What one part says about the entity table: enters and leaves when it is the newest
// tick, and history for every body it wrote.
static void take_records(arb_client* c, const cl_snap_result* res, bool newest, double t) {
  const arb_snapshot_part* p = res->part;
  for (int i = 0; i < p->record_count; i++) {
    const arb_snapshot_record* r = &p->records[i];
    if (newest && r->op == ARB_SNAPSHOT_REMOVE) remove_entity(c, r->id, res->tick);
    if (r->op == ARB_SNAPSHOT_REMOVE || r->cls != ARB_SNAPSHOT_BODY) continue;
    if (newest && r->op == ARB_SNAPSHOT_ENTER) {
      const cl_body_desc* d = cl_snapshots_desc(&c->snaps, r->id);
      if (d) add_entity(c, r->id, d, res->tick);
    }
    cl_body b;
    if (cl_snapshots_body_at(res->slot, r->id, &b)) push_entity(c, &b, t);
  }
}

static void on_snapshot(arb_client* c, const uint8_t* data, size_t len) {
  if (c->state != ARB_CLIENT_CONNECTED) return;
  uint32_t newest_before = c->snaps.newest_complete;
  cl_snap_result res;
  arb_proto_error err;
  int rc = cl_snapshots_receive(&c->snaps, data, len, &res, &err);
  if (rc < 0) {
    fmt(c->last_error, sizeof c->last_error, "%s", err.reason);
    cl_log(c, ARB_CLIENT_LOG_DEBUG, "dropped snapshot: %s", c->last_error);
    return;
  }
  if (rc == 0) return;
  uint32_t last_input_seq = res.part->h.last_input_seq;
  double tick_dt = 1.0 / (double)c->session.tick_rate;
  double t = (double)res.tick * tick_dt;
  if (last_input_seq > c->last_input_seq) c->last_input_seq = last_input_seq;

  if (res.tick > c->clock_tick) {
    float rtt, var;
    cl_net_rtt(&c->net, &rtt, &var);
    cl_clock_sample(&c->clock, c->now, t, rtt);
    c->clock_tick = res.tick;
  }
  // Newer than anything complete: this part's enters and leaves are current.
  take_records(c, &res, res.tick > newest_before, t);
  if (res.completed) {
    cl_loss_on_snapshot(&c->loss, res.tick);
    if (res.newest) {
      reconcile(c, res.slot);
      predict_on_snapshot(c, res.tick, last_input_seq, res.slot);
    }
    for (int i = 0; i < res.slot->bodies.count; i++) push_entity(c, &res.slot->bodies.items[i], t);
    cl_interp_on_snapshot(&c->interp, t, cl_clock_server_time(&c->clock, c->now));
  }
}

// The round trip the clock, the input lead and the statistics read. ENet measures it only
// from acknowledged reliable commands, and a connected client sends almost none (inputs
// are unsequenced), so its figure would stay what the connect left; keeping it fresh with
// ENet's reliable pings cost a reliable command every interval, each one a chance (at 20 %
// loss each way, about 0.36^8) to exhaust ENet's retransmissions and drop the connection.
// An unsequenced ping that is lost is simply not counted.
#define CL_PING_INTERVAL 0.5
#define CL_PING_MAX_RTT 10.0  // a pong older than this is not a round trip worth counting

static void send_ping(arb_client* c) {
  if (c->now < c->next_ping) return;
  c->next_ping = c->now + CL_PING_INTERVAL;
  arb_proto_ping p = {++c->ping_id, (uint64_t)((c->now - c->ping_epoch) * 1e6)};
  int n = arb_proto_encode_ping(&p, c->buf, sizeof c->buf);
  if (n > 0 && (size_t)n <= sizeof c->buf)
    cl_net_send(&c->net, ARB_PROTO_CHANNEL_INPUT, c->buf, (size_t)n, false);
}

static void on_pong(arb_client* c, const uint8_t* data, size_t len) {
  arb_proto_pong p;
  arb_proto_error perr;
  if (arb_proto_decode_pong(data, len, &p, &perr) != 0) {
    count_error(c, &perr, "pong");
    return;
  }
  // Only an answer to one of our recent pings (ids count up on each connection).
  if (p.ping_id == 0 || p.ping_id > c->ping_id || c->ping_id - p.ping_id > 64) return;
  double rtt = (c->now - c->ping_epoch) - (double)p.client_time_us * 1e-6;
  if (rtt >= 0.0 && rtt <= CL_PING_MAX_RTT) cl_net_rtt_sample(&c->net, (float)rtt);
}

// The handler of every message the server sends, generated from messages.def: a new
// server -> client message does not compile until its on_<name> exists.
typedef void cl_msg_handler(arb_client* c, const uint8_t* data, size_t len);
#define CL_HANDLER_TO_CLIENT(name, code) [code] = on_##name,
#define CL_HANDLER_TO_SERVER(name, code)
static cl_msg_handler* const handlers[ARB_PROTO_MSG_TYPE_COUNT] = {
#define ARB_PROTO_MSG(NAME, name, code, channel, direction) CL_HANDLER_##direction(name, code)
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
};

static void on_packet(arb_client* c, const cl_net_event* ev) {
  c->last_receive = c->now;
  arb_proto_msg_type type;
  if (arb_proto_peek_type(ev->data, ev->len, &type) != ARB_OK) {
    count_error(c, NULL, "packet: not a protocol message");
    return;
  }
  if (handlers[type] == NULL) {
    count_error(c, NULL, "packet: message type a server does not send");
    return;
  }
  handlers[type](c, ev->data, ev->len);
}

// Estimated server time at local `now`: from the snapshots once they flow, from the
// welcome before.
static double server_time_at(arb_client* c, double now) {
  if (c->clock.synced) return cl_clock_server_time(&c->clock, now);
  float rtt, var;
  cl_net_rtt(&c->net, &rtt, &var);
  return (double)c->session.welcome_tick / c->session.tick_rate + (now - c->welcome_time) +
         rtt * 0.5;
}

// Server ticks per input packet: 1, or with config.input_rate below the tick rate the
// fewest that keep the packets at or under it (at most a packet's worth of commands).
static int ticks_per_packet(const arb_client* c) {
  int rate = c->cfg.input_rate, ticks = c->session.tick_rate;
  if (rate <= 0 || ticks <= rate) return 1;
  int k = (ticks + rate - 1) / rate;
  return k < ARB_PROTO_MAX_INPUTS ? k : ARB_PROTO_MAX_INPUTS;
}

// Commands are stamped with the tick they should be applied at: far enough ahead of the
// server that they arrive before it (rtt/2 + jitter + margin + ticks added after late ones,
// + the ticks a command waits for its packet). The lead in use slews by at most 10 % of the
// elapsed time towards that target, so the predicted timeline (and the avatar drawn on it)
// never jumps.
static void update_lead(arb_client* c) {
  float rtt, var;
  cl_net_rtt(&c->net, &rtt, &var);
  double target = rtt * 0.5 + 2.0 * var + c->cfg.input_margin +
                  (double)(c->lead_extra_ticks + ticks_per_packet(c) - 1) / c->session.tick_rate;
  // ENet starts from a 500 ms round trip guess: do not run far ahead on it.
  if (target > CL_MAX_LEAD) target = CL_MAX_LEAD;
  double step = 0.1 * (c->now - c->lead_time);
  if (c->lead_time <= 0.0 || c->lead <= 0.0) step = 1e9;  // the first one of a connection
  c->lead += target > c->lead ? fmin(target - c->lead, step) : -fmin(c->lead - target, step);
  c->lead_time = c->now;
}

// Fractional server tick of the prediction's timeline at local `now`; the command for
// tick floor(ft) + 1 is the newest one made.
static double predicted_tick(arb_client* c, double now) {
  return (server_time_at(c, now) + c->lead) * c->session.tick_rate;
}

static void send_inputs(arb_client* c) {
  arb_proto_input msg;
  update_lead(c);
  double ft = predicted_tick(c, c->now);
  // A shot is resolved at what the player saw: the time of the last sampled frame.
  double seen = c->sample_time * c->session.tick_rate * 256.0;
  c->input.view_time = seen >= 1.0 && seen < 1.8e19 ? (uint64_t)(seen + 0.5) : 0;
  // A spectator controls nothing: it only acknowledges snapshots.
  const bool commanding = !c->cfg.spectate && ft >= 0.0 && ft < 4.0e9;
  int made = commanding ? cl_input_make(&c->input, (uint32_t)ft + 1) : 0;
  for (int i = made - 1; i >= 0; i--) {  // oldest first, the moment each is made
    arb_controls ctl = arb_proto_dequantize_controls(&c->input.recent[i].controls);
    cl_predict_advance(&c->predict, c->input.recent[i].seq, &ctl);
  }
  if (c->input.unsent > 0 && c->input.unsent >= ticks_per_packet(c)) {
    cl_input_packet(&c->input, c->snaps.newest_complete, &msg);
  } else {
    // No packet of commands due, but maybe a snapshot to acknowledge: the ack goes alone
    // at once (the server's next delta can use it), except from a client that batches
    // its commands (input_rate), whose ack rides the next batch unless none went out for
    // 1.5 packet intervals: fewer datagrams is what it asked for.
    if (c->snaps.newest_complete == c->acked_tick) return;
    int per_packet = ticks_per_packet(c);
    double interval = per_packet / (double)c->session.tick_rate;
    if (commanding && per_packet > 1 && c->now - c->input_sent_at < 1.5 * interval) return;
    memset(&msg, 0, sizeof msg);
    msg.packet_seq = ++c->input.packet_seq;
    msg.ack_tick = c->snaps.newest_complete;
  }
  int n = arb_proto_encode_input(&msg, c->buf, sizeof c->buf);
  if (n <= 0 || (size_t)n > sizeof c->buf) {
    fmt(c->last_error, sizeof c->last_error, "input: cannot encode (%s)", arb_strerror(n));
    return;
  }
  if (cl_net_send(&c->net, ARB_PROTO_CHANNEL_INPUT, c->buf, (size_t)n, false) == 0) {
    c->inputs_sent++;
    c->acked_tick = msg.ack_tick;
    c->input_sent_at = c->now;
  }
}

int arb_client_update(arb_client* c, double now) {
  if (!c || !isfinite(now)) return ARB_E_INVAL;
  if (!c->have_now || now > c->now) c->now = now;
  if (!c->have_now) {
    c->have_now = true;
    c->state_since = now;
    c->last_receive = now;
  }

  if (c->state_since < 0.0) c->state_since = c->now;
  if (c->moving && c->state != ARB_CLIENT_CONNECTED && c->now - c->moved_at > CL_MOVE_FALLBACK_S) {
    cl_net_drop(&c->net, 0);
    move_back(c, "not welcomed in time");
  }
  if (c->state == ARB_CLIENT_RECONNECT_WAIT && c->now >= c->reconnect_at) {
    c->reconnects++;
    if (start_connect(c) != 0) link_lost(c, ARB_PROTO_REASON_OTHER, c->last_error, true);
  }

  // Drain everything ENet has; events may change the state as we go.
  for (int guard = 0; guard < 100000; guard++) {
    cl_net_event ev;
    int rc = cl_net_poll(&c->net, &ev);
    if (rc <= 0) break;
    if (c->state == ARB_CLIENT_DISCONNECTED || c->state == ARB_CLIENT_RECONNECT_WAIT) continue;
    if (ev.type == CL_NET_CONNECTED) {
      // A transport without a round-trip estimate of its own (WebSocket: none before the
      // first pong) starts from the handshake, two round trips (TCP's, then the HTTP
      // upgrade): the commands' lead is then right from the first one.
      float rtt, var;
      cl_net_rtt(&c->net, &rtt, &var);
      if (rtt <= 0.0f && c->state_since >= 0.0 && c->now > c->state_since)
        cl_net_rtt_sample(&c->net, (float)(0.5 * (c->now - c->state_since)));
      c->last_receive = c->now;
      c->ping_epoch = c->next_ping = c->now;
      c->ping_id = 0;
      send_hello(c);
    } else if (ev.type == CL_NET_RECEIVED) {
      on_packet(c, &ev);
    } else if (ev.type == CL_NET_DISCONNECTED) {
      link_lost(c, ARB_PROTO_REASON_TIMEOUT,
                c->state == ARB_CLIENT_CONNECTING ? "no answer from the server" : "connection lost",
                true);
    }
  }

  if (c->state == ARB_CLIENT_CONNECTING && c->now - c->state_since > c->cfg.connect_timeout) {
    link_lost(c, ARB_PROTO_REASON_TIMEOUT, "connect timed out", true);
  } else if (c->state == ARB_CLIENT_CONNECTED) {
    if (c->now - c->last_receive > c->cfg.timeout) {
      link_lost(c, ARB_PROTO_REASON_TIMEOUT, "timed out: nothing from the server", true);
    } else {
      send_inputs(c);
      send_ping(c);
    }
  }
  cl_net_flush(&c->net);
  cl_net_account(&c->net);
  cl_rate_update(&c->snap_rate, c->now, c->snaps.completed);
  cl_rate_update(&c->in_rate, c->now, c->net.bytes_in);
  cl_rate_update(&c->out_rate, c->now, c->net.bytes_out);
  cl_loss_update(&c->loss, c->now, ticks_per_snapshot(c));
  return 0;
}

// ---- events, input, state --------------------------------------------------------------

int arb_client_poll_event(arb_client* c, arb_client_event* out) {
  if (!c || !out) return 0;
  return cl_events_pop(&c->events, out);
}

const char* arb_client_event_name(arb_client_event_type type) {
  switch (type) {
    case ARB_CLIENT_EVENT_NONE:
      return "none";
    case ARB_CLIENT_EVENT_CONNECTED:
      return "connected";
    case ARB_CLIENT_EVENT_REJECTED:
      return "rejected";
    case ARB_CLIENT_EVENT_DISCONNECTED:
      return "disconnected";
    case ARB_CLIENT_EVENT_ENTITY_ENTERED:
      return "entity_entered";
    case ARB_CLIENT_EVENT_ENTITY_LEFT:
      return "entity_left";
    case ARB_CLIENT_EVENT_NOTICE:
      return "notice";
    case ARB_CLIENT_EVENT_PLAYER_JOINED:
      return "player_joined";
    case ARB_CLIENT_EVENT_PLAYER_LEFT:
      return "player_left";
    case ARB_CLIENT_EVENT_HIT:
      return "hit";
  }
  return "unknown";
}

int arb_client_set_controls(arb_client* c, const arb_controls* controls) {
  if (!c || !controls) return ARB_E_INVAL;
  arb_proto_controls_q a = c->input.current;
  int rc = cl_input_set(&c->input, controls);
  const arb_proto_controls_q* b = &c->input.current;
  // Field by field: the struct's padding is not part of the value.
  bool same = a.move_x == b->move_x && a.move_y == b->move_y && a.aim == b->aim &&
              a.buttons == b->buttons && a.steer == b->steer && a.throttle == b->throttle &&
              a.brake == b->brake;
  if (rc == 0 && !same) cl_predict_note_change(&c->predict, c->now);
  return rc;
}

arb_controls arb_client_get_controls(const arb_client* c) {
  return c->input.snapped;
}

uint32_t arb_client_get_input_sequence(const arb_client* c) {
  return c->input.seq;
}

int arb_client_get_entities(const arb_client* c, arb_client_entity_desc* out, int cap) {
  if (!c) return 0;
  for (int i = 0; out && i < c->interp.count && i < cap; i++)
    out[i] = cl_interp_at(&c->interp, i)->desc;
  return c->interp.count;
}

int arb_client_get_entity(const arb_client* c, uint32_t id, arb_client_entity_desc* out) {
  const cl_entity* e = c ? cl_interp_find_const(&c->interp, id) : NULL;
  if (!e) return ARB_E_NOT_FOUND;
  if (out) *out = e->desc;
  return 0;
}

int arb_client_get_entity_shape(const arb_client* c, uint32_t id, int i, arb_client_shape* out) {
  const cl_entity* e = c ? cl_interp_find_const(&c->interp, id) : NULL;
  if (!e || i < 0 || i >= e->desc.shape_count) return ARB_E_NOT_FOUND;
  arb_client_shape shape = e->desc.shape;
  if (i > 0) {
    const arb_proto_shape* more = NULL;
    if (cl_snapshots_more_shapes(&c->snaps, id, &more) < i) return ARB_E_NOT_FOUND;
    arb_proto_shape_to_geometry(&more[i - 1], &shape);  // decoded shapes always convert
    if (shape.type == ARB_SHAPE_CHAIN) memset(&shape, 0, sizeof shape);  // as desc_from_proto
  }
  if (out) *out = shape;
  return 0;
}

const arb_client_static_body* arb_client_get_static_geometry(const arb_client* c, int* count) {
  if (count) *count = c ? c->static_count : 0;
  return c ? c->statics : NULL;
}

int arb_client_sample(arb_client* c, double render_time, arb_client_entity_state* out, int max) {
  if (!c || !isfinite(render_time) || !c->clock.synced || !c->cfg.interpolate) return 0;
  double est = cl_clock_server_time(&c->clock, render_time);
  double T = cl_interp_frame(&c->interp, est, render_time);
  c->sample_time = T;
  int n = cl_interp_sample(&c->interp, T, out, max < 0 ? 0 : max, true);
  c->sampled_own = false;
  if (cl_predict_active(&c->predict)) {
    for (int i = 0; i < n && i < max; i++) {
      if (out[i].id != c->session.avatar_entity) continue;
      arb_client_entity_state me;
      if (!cl_predict_sample(&c->predict, predicted_tick(c, render_time), render_time,
                             &out[i].position, &me))
        break;
      me.id = out[i].id;
      me.owner = out[i].owner;
      out[i] = me;
      c->sampled_own = true;
      c->sampled_own_xf = (arb_transform){me.position, me.rotation};
      break;
    }
  }
  return n;
}

int arb_client_get_latest(const arb_client* c, arb_client_entity_state* out, int max) {
  if (!c || c->snaps.newest_complete == 0) return 0;
  const cl_slot* sl = cl_snapshots_get(&c->snaps, c->snaps.newest_complete);
  if (!sl) return 0;
  for (int i = 0; out && i < sl->bodies.count && i < max; i++) {
    const cl_body* b = &sl->bodies.items[i];
    arb_client_entity_state* o = &out[i];
    memset(o, 0, sizeof *o);
    o->id = b->id;
    const cl_body_desc* d = cl_snapshots_desc(&c->snaps, b->id);
    o->owner = d ? d->owner : 0;
    o->position = b->position;
    o->angle = b->angle;
    o->linear_velocity = b->velocity;
    o->angular_velocity = b->angular_velocity;
    o->rotation = arb_rot_from_angle(o->angle);
  }
  return sl->bodies.count;
}

double arb_client_get_sample_time(const arb_client* c) {
  return c->sample_time;
}

bool arb_client_get_correction(const arb_client* c, arb_vec2* offset) {
  bool on = c && cl_predict_active(&c->predict);
  if (offset) *offset = on ? c->predict.offset : arb_vec2_zero;
  return on;
}

double arb_client_get_server_time(arb_client* c, double now) {
  return c ? cl_clock_server_time(&c->clock, now) : 0.0;
}

uint64_t arb_client_get_snapshot_tick(const arb_client* c) {
  return c->snaps.newest_complete;
}

void arb_client_get_stats(const arb_client* c, arb_client_stats* o) {
  memset(o, 0, sizeof *o);
  if (!c) return;
  cl_net_rtt(&c->net, &o->rtt, &o->rtt_variance);
  o->packet_loss = c->loss.recent;
  o->snapshots_per_second = c->snap_rate.rate;
  o->bytes_in_per_second = c->in_rate.rate;
  o->bytes_out_per_second = c->out_rate.rate;
  o->interp_delay = c->interp.delay;
  o->interp_delay_target = c->interp.target;
  o->snapshot_interval = c->interp.interval;
  o->jitter = c->interp.need_dev;
  o->buffer_depth = cl_interp_buffer_depth(&c->interp, c->interp.T);
  o->extrapolation_time = c->interp.extrapolation;
  o->bytes_in = c->net.bytes_in;
  o->bytes_out = c->net.bytes_out;
  o->packets_in = c->net.packets_in;
  o->packets_out = c->net.packets_out;
  o->snapshots_received = c->snaps.completed;
  o->snapshot_parts = c->snaps.parts;
  o->snapshots_duplicate = c->snaps.duplicates;
  o->snapshots_late = c->snaps.late;
  o->snapshots_lost = cl_loss_lost(&c->loss, ticks_per_snapshot(c));
  o->baseline_missing = c->snaps.baseline_missing;
  o->decode_errors = c->snaps.errors + c->decode_errors;
  o->inputs_sent = c->inputs_sent;
  o->events_dropped = c->events.dropped;
  o->connects = c->connects;
  o->reconnects = c->reconnects;
  o->entity_count = c->interp.count;
  const cl_predict* p = &c->predict;
  o->predicting = cl_predict_active(p);
  o->input_lead = (float)c->lead;
  o->predict_checks = p->stats.checks;
  o->predict_corrections = p->stats.corrections;
  o->predict_snaps = p->stats.snaps;
  o->inputs_late = p->stats.late_commands;
  o->predict_error = p->stats.last_error;
  o->predict_error_max = p->stats.max_error;
  o->predict_error_free = p->stats.last_error_free;
  o->predict_correction_max = p->stats.max_correction;
  o->predict_offset = arb_length(p->offset);
  o->input_to_motion_count = p->stats.motion_count;
  o->input_to_motion = p->stats.motion_last;
}

static void check_fields(const arb_snapshot_state* q, int32_t out[6]) {
  out[0] = q->x;
  out[1] = q->y;
  out[2] = q->angle;
  out[3] = q->vx;
  out[4] = q->vy;
  out[5] = q->w;
}

int arb_client_get_predict_checks(const arb_client* c, arb_client_predict_check* out, int max) {
  if (!c) return 0;
  uint64_t total = c->predict.stats.checks;
  int kept = total < CL_PREDICT_CHECKS ? (int)total : CL_PREDICT_CHECKS;
  for (int i = 0; i < kept && i < max; i++) {
    const cl_predict_check* k =
        &c->predict.checks[(total - (uint64_t)kept + (uint64_t)i) % CL_PREDICT_CHECKS];
    out[i].tick = k->tick;
    out[i].agree = k->agree;
    out[i].touching = k->touching;
    check_fields(&k->predicted, out[i].predicted);
    check_fields(&k->server, out[i].server);
  }
  return kept;
}

const char* arb_client_get_last_error(const arb_client* c) {
  return c ? c->last_error : "";
}
