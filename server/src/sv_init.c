// Server init and deinit (see sv_server.h). Init runs in stages; a stage that fails undoes
// its own part, and sv_server_init undoes the stages before it (libuv style), so a failed
// init leaves nothing allocated and nothing open: only handles already closing, which the
// loop finishes on its next run. Every failure is one ARB_E_* code plus one message.
#include <arbiter/particles.h>
#include <arbiter/vehicle.h>
#include <arbiter/world.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sv_server.h"

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

#define SV_PEER_MARGIN 32  // extra ENet peers that can be told "server full"
#define FREE_NULL(p) (free(p), (p) = NULL)

static void init_basics(sv_server* s, uv_loop_t* loop, const sv_config* cfg) {
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->loop = loop;
  sv_log_init(&s->log, stderr, cfg->log_level, cfg->log_format);
  sv_metrics_init(&s->metrics);
  s->metrics.start_unix_seconds = (uint64_t)time(NULL);
  s->next_client_id = 1;
  s->limits.packets_per_second = cfg->input_rate_limit;
  s->limits.bytes_per_second = cfg->byte_rate_limit;
  s->peer_capacity = cfg->max_clients + cfg->max_spectators + SV_PEER_MARGIN;
  if (s->peer_capacity > 4095) s->peer_capacity = 4095;
  s->session_count = s->peer_capacity + (cfg->ws_port != 0 ? cfg->ws_max : 0);
}

static int load_scene(sv_server* s, char* err, size_t err_cap) {
  const sv_config* cfg = &s->cfg;
  arb_scene_error serr;
  memset(&serr, 0, sizeof serr);
  int rc = cfg->scene[0] ? arb_scene_load_file(cfg->scene, &s->scene, &serr)
                         : arb_scene_load_default(&s->scene, &serr);
  if (rc != 0) {
    char msg[900];
    arb_scene_error_format(&serr, msg, sizeof msg);
    snprintf(err, err_cap, "scene: %s", msg);
    return ARB_E_INVAL;
  }
  // --tick-rate overrides the scene's step length; the log header records the rate used
  // and every re-simulation applies it the same way.
  if (cfg->tick_rate != 0) arb_scene_set_tick_rate(s->scene, cfg->tick_rate);
  s->tick_rate = arb_scene_get_tick_rate(s->scene);
  s->cfg.view_radius = sv_view_radius_for(cfg->view_radius, arb_scene_get_body_count(s->scene));
  arb_scene_set_worker_count(s->scene, cfg->physics_threads);  // same results for any count
  if (cfg->snapshot_rate > s->tick_rate) {
    snprintf(err, err_cap, "--snapshot-rate %d is higher than the tick rate %d", cfg->snapshot_rate,
             s->tick_rate);
    return ARB_E_INVAL;
  }
  s->snapshot_every = (s->tick_rate + cfg->snapshot_rate / 2) / cfg->snapshot_rate;
  if (s->snapshot_every < 1) s->snapshot_every = 1;
  s->metrics.tick_rate_hz = s->tick_rate;
  return 0;
}

static int create_game(sv_server* s, char* err, size_t err_cap) {
  int rc = arb_game_create(s->scene, s->cfg.seed, &s->game);
  if (rc != 0) {
    snprintf(err, err_cap, "cannot create the game: %s", arb_strerror(rc));
    return rc;
  }
  rc = sv_build_statics(s, err, err_cap);
  if (rc != 0) return rc;
  // Everything a snapshot may carry: the scene's bodies, one avatar per client (a vehicle
  // with its wheels at most), spawned extras, particles and their constraints.
  const arb_world* world = arb_game_get_world(s->game);
  s->max_entities = arb_scene_get_body_count(s->scene) +
                    s->cfg.max_clients * (1 + SV_WHEELS_PER_VEHICLE) + 64 +
                    arb_world_get_particle_count(world) + arb_world_get_constraint_count(world) +
                    arb_world_get_vehicles(world, NULL, 0) * SV_WHEELS_PER_VEHICLE;
  if (sv_snapshot_init(&s->snapshot, s->max_entities) != 0 ||
      sv_snap_workers_create(s->cfg.snapshot_threads, s->max_entities, &s->snap_workers) != 0) {
    snprintf(err, err_cap, "cannot create the snapshot builder for %d entities", s->max_entities);
    return ARB_E_NOMEM;
  }
  return 0;
}

// Everything the tick reuses, allocated once.
static int alloc_tick_state(sv_server* s, char* err, size_t err_cap) {
  s->sessions = calloc((size_t)s->session_count, sizeof *s->sessions);
  s->join_queue = calloc((size_t)s->session_count, sizeof *s->join_queue);
  s->leave_queue = calloc((size_t)s->session_count, sizeof *s->leave_queue);
  s->leave_reason = calloc((size_t)s->session_count, sizeof *s->leave_reason);
  s->leave_name = calloc((size_t)s->session_count, sizeof *s->leave_name);
  s->tick_rec = calloc(1, sizeof *s->tick_rec);
  s->tick_inputs = calloc(1, sizeof *s->tick_inputs);
  s->rejoins = calloc((size_t)s->cfg.max_clients, sizeof *s->rejoins);
  s->snap_jobs = calloc((size_t)s->session_count, sizeof *s->snap_jobs);
  s->msg_buf_cap = ARB_PROTO_MAX_RELIABLE;
  s->msg_buf = malloc(s->msg_buf_cap);
  // The scene message is the scene text and 52 bytes around it; a text over the limit is
  // never sent (sv_session.c).
  size_t scene_len = 0;
  arb_scene_get_text(s->scene, &scene_len);
  s->scene_buf_cap = scene_len <= ARB_PROTO_MAX_SCENE_TEXT ? scene_len + 256 : 0;
  s->scene_buf = s->scene_buf_cap ? malloc(s->scene_buf_cap) : NULL;
  if (s->scene_buf_cap && !s->scene_buf) {
    snprintf(err, err_cap, "out of memory");
    return ARB_E_NOMEM;
  }
  if (!s->sessions || !s->snap_jobs || !s->join_queue || !s->leave_queue || !s->leave_reason ||
      !s->leave_name || !s->tick_rec || !s->tick_inputs || !s->rejoins || !s->msg_buf) {
    snprintf(err, err_cap, "out of memory");
    return ARB_E_NOMEM;
  }
  return 0;
}

static int start_recording(sv_server* s, char* err, size_t err_cap) {
  if (!s->cfg.record[0]) return 0;
  arb_replay_header h;
  memset(&h, 0, sizeof h);
  h.format_version = ARB_REPLAY_FORMAT_VERSION;
  h.build_id = ARB_BUILD_ID;
  h.build_id_len = strlen(ARB_BUILD_ID);
  if (h.build_id_len > ARB_REPLAY_MAX_BUILD_ID) h.build_id_len = ARB_REPLAY_MAX_BUILD_ID;
  h.scene_text = arb_scene_get_text(s->scene, &h.scene_len);
  h.scene_hash = arb_scene_get_hash(s->scene);
  h.tick_rate = (uint16_t)s->tick_rate;
  h.seed = s->cfg.seed;
  h.sim_version = arb_game_sim_version();
  sv_record_def def = {s->cfg.record,
                       &h,
                       s->peer_capacity,
                       sv_record_state_estimate(s->scene, s->cfg.seed, s->game, s->cfg.max_clients),
                       s->cfg.checkpoint_every,
                       &s->log,
                       &s->metrics,
                       s->cfg.record_max_bytes,
                       0,
                       NULL,
                       NULL};
  int rc = sv_record_open(&s->record, &def, uv_hrtime(), err, err_cap);
  if (rc == 0) s->recording = true;
  return rc;
}

// The connect-token key (--auth-key); nothing to undo on failure (free_state frees it).
static int start_auth(sv_server* s, char* err, size_t err_cap) {
  const sv_config* cfg = &s->cfg;
  if (sv_auth_init(&s->auth, cfg->auth_key, cfg->public_address, cfg->bind, err, err_cap) != 0)
    return ARB_E_INVAL;
  return 0;
}

// The --ws-origin list (comma-separated) into the transport's limits.
static int parse_origins(const char* list, sv_ws_limits* l, char* err, size_t err_cap) {
  l->origin_count = 0;
  for (const char* p = list; *p;) {
    const char* end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == 0 || n >= SV_WS_MAX_ORIGIN || l->origin_count == SV_WS_MAX_ORIGINS) {
      snprintf(err, err_cap, "--ws-origin: at most %d origins of 1..%d characters each",
               SV_WS_MAX_ORIGINS, SV_WS_MAX_ORIGIN - 1);
      return -1;
    }
    memcpy(l->origins[l->origin_count], p, n);
    l->origins[l->origin_count++][n] = '\0';
    p = end ? end + 1 : p + n;
  }
  return 0;
}

// The WebSocket listener (--ws-port), its sessions after the ENet peers' (sv_session.c).
static int start_ws(sv_server* s, char* err, size_t err_cap) {
  const sv_config* cfg = &s->cfg;
  sv_ws_limits limits;
  memset(&limits, 0, sizeof limits);
  limits.per_address = cfg->ws_per_address;
  limits.max = cfg->ws_max;
  if (parse_origins(cfg->ws_origin, &limits, err, err_cap) != 0) return -1;
  sv_ws_hooks hooks = sv_session_ws_hooks;
  hooks.user = s;
  if (sv_ws_init(&s->ws, s->loop, cfg->ws_bind[0] ? cfg->ws_bind : cfg->bind,
                 cfg->ws_port < 0 ? 0 : cfg->ws_port, &limits, &hooks, &s->metrics, &s->log, err,
                 err_cap) != 0)
    return -1;
  s->ws_on = true;
  return 0;
}

// UDP, HTTP, the ticker and the signal handlers; on failure the ones already open are closed.
static int start_io(sv_server* s, char* err, size_t err_cap) {
  const sv_config* cfg = &s->cfg;
  sv_net_limits net_limits = {cfg->peers_per_address, cfg->connect_rate, cfg->half_open_timeout_ms};
  if (sv_net_init(&s->net, s->loop, cfg->bind, cfg->port, s->peer_capacity, &net_limits,
                  sv_session_on_net_event, s, &s->metrics, err, err_cap) != 0)
    return ARB_E_IO;
  sv_net_set_receive_interval(&s->net, cfg->receive_interval_ms);
  sv_net_set_budget_hook(&s->net, sv_session_on_connect_budget);
  if (cfg->ws_port != 0) {
    if (start_ws(s, err, err_cap) != 0) {
      sv_net_close(&s->net);
      return ARB_E_IO;
    }
    sv_net_set_other_count(&s->net, sv_session_ws_count);
  }
  sv_auth_set_port(&s->auth, s->net.port);
  if (!s->auth.enabled)
    SV_LOG(&s->log, SV_LOG_WARN, "auth_disabled",
           SV_LS("detail", "no --auth-key: anyone who reaches the port can play"));
  if (cfg->http_port != 0) {
    if (sv_http_init(&s->http, s->loop, cfg->http_bind, cfg->http_port < 0 ? 0 : cfg->http_port,
                     sv_status_on_http, s, err, err_cap) != 0) {
      sv_net_close(&s->net);
      if (s->ws_on) sv_ws_close(&s->ws);
      s->ws_on = false;
      return ARB_E_IO;
    }
    s->http_on = true;
    // The web page; it learns the WebSocket port from /config.json (0: none).
    if (sv_http_start_web(&s->http, cfg->web_root, s->ws_on ? s->ws.port : 0, cfg->http_bind,
                          &s->log, err, err_cap) != 0) {
      sv_net_close(&s->net);
      if (s->ws_on) sv_ws_close(&s->ws);
      s->ws_on = false;
      sv_http_close(&s->http);
      s->http_on = false;
      return ARB_E_INVAL;
    }
  }
  uint64_t period = 1000000000u / (uint64_t)s->tick_rate;
  if (sv_ticker_init(&s->ticker, s->loop, period, cfg->max_catchup_ticks, sv_tick, sv_tick_on_lag,
                     s) != 0) {
    snprintf(err, err_cap, "cannot create the tick timer");
    sv_net_close(&s->net);
    if (s->ws_on) sv_ws_close(&s->ws);
    s->ws_on = false;
    if (s->http_on) sv_http_close(&s->http);
    s->http_on = false;
    return ARB_E_IO;
  }
  sv_server_watch_signals(s);
  return 0;
}

// What start_io opened, closed again (the loop finishes the closes on its next run).
static void close_io(sv_server* s) {
  sv_net_close(&s->net);
  if (s->ws_on) sv_ws_close(&s->ws);
  s->ws_on = false;
  if (s->http_on) sv_http_close(&s->http);
  s->http_on = false;
  sv_ticker_close(&s->ticker);
  uv_close((uv_handle_t*)&s->sig_int, NULL);
  uv_close((uv_handle_t*)&s->sig_term, NULL);
}

// The match (ready), the Agones client and SIGUSR1; fails only on an unusable --admin-token
// file, before it opens anything.
static int start_lifecycle(sv_server* s, char* err, size_t err_cap) {
  if (sv_lifecycle_start(s, err, err_cap) == 0) return 0;
  close_io(s);
  return ARB_E_INVAL;
}

// --migrate-port and SIGUSR2, after the lifecycle has read the admin token they rely on.
static int start_migrate(sv_server* s, char* err, size_t err_cap) {
  if (sv_migrate_start(s, err, err_cap) == 0) return 0;
  sv_migrate_close(s);
  sv_lifecycle_stop(s);
  close_io(s);
  return ARB_E_INVAL;
}

static void log_started(sv_server* s) {
  const sv_config* cfg = &s->cfg;
  // What a browser connects to ("" when the WebSocket transport is off).
  char ws_url[96] = "";
  if (s->ws_on)
    snprintf(ws_url, sizeof ws_url, "ws://%s:%u/", cfg->ws_bind[0] ? cfg->ws_bind : cfg->bind,
             (unsigned)s->ws.port);
  SV_LOG(&s->log, SV_LOG_INFO, "server_started", SV_LS("build", ARB_BUILD_ID),
         SV_LS("bind", cfg->bind), SV_LI("port", s->net.port),
         SV_LI("http_port", s->http_on ? s->http.port : 0),
         SV_LI("ws_port", s->ws_on ? s->ws.port : 0), SV_LS("ws_url", ws_url),
         SV_LI("migrate_port", s->mig.listening ? s->mig.port : 0),
         SV_LS("scene", arb_scene_get_name(s->scene)),
         SV_LX("scene_hash", arb_scene_get_hash(s->scene)), SV_LI("tick_rate", s->tick_rate),
         SV_LI("physics_threads", cfg->physics_threads),
         SV_LI("solver_lanes", arb_contact_solver_lanes()),
         SV_LI("snapshot_threads", cfg->snapshot_threads),
         SV_LI("snapshot_every", s->snapshot_every), SV_LI("max_clients", cfg->max_clients),
         SV_LD("view_radius", cfg->view_radius),
         SV_LS("record", s->recording ? s->record.path : ""), SV_LU("seed", cfg->seed));
}

// Frees what the stages allocated; handles are not touched (closed by stop or start_io).
static void free_state(sv_server* s) {
  if (s->recording) sv_record_close(&s->record);
  s->recording = false;
  if (s->sessions) {
    for (int i = 0; i < s->session_count; ++i)
      if (s->sessions[i].snap_ready) sv_snap_client_free(&s->sessions[i].snap);
  }
  sv_snap_workers_destroy(s->snap_workers);
  s->snap_workers = NULL;
  sv_snapshot_free(&s->snapshot);
  if (s->game) arb_game_destroy(s->game);
  if (s->scene) arb_scene_destroy(s->scene);
  // NULL after freeing: a deinit after a failed init is harmless.
  s->game = NULL;
  s->scene = NULL;
  FREE_NULL(s->statics);
  FREE_NULL(s->sessions);
  FREE_NULL(s->snap_jobs);
  FREE_NULL(s->join_queue);
  FREE_NULL(s->leave_queue);
  FREE_NULL(s->leave_reason);
  FREE_NULL(s->leave_name);
  FREE_NULL(s->tick_rec);
  FREE_NULL(s->tick_inputs);
  FREE_NULL(s->rejoins);
  sv_auth_free(&s->auth);
  FREE_NULL(s->msg_buf);
  FREE_NULL(s->scene_buf);
}

int sv_server_init(sv_server* s, uv_loop_t* loop, const sv_config* cfg, char* err, size_t err_cap) {
  init_basics(s, loop, cfg);
  int rc = load_scene(s, err, err_cap);
  if (rc == 0) rc = create_game(s, err, err_cap);
  if (rc == 0) rc = alloc_tick_state(s, err, err_cap);
  if (rc == 0) rc = start_recording(s, err, err_cap);
  if (rc == 0) rc = start_auth(s, err, err_cap);
  if (rc == 0) rc = start_io(s, err, err_cap);
  if (rc == 0) rc = start_lifecycle(s, err, err_cap);
  if (rc == 0) rc = start_migrate(s, err, err_cap);
  if (rc != 0) {
    free_state(s);
    return rc;
  }
  s->last_stats_ns = uv_hrtime();
  sv_ticker_start(&s->ticker);
  log_started(s);
  return 0;
}

void sv_server_deinit(sv_server* s) {
  free_state(s);
  memset(s, 0, sizeof *s);
}
