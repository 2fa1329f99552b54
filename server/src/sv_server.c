// The server context: init/shutdown, the tick, recording, snapshots, HTTP handler.
#include "sv_server.h"

#include "sv_admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

#define SV_PEER_MARGIN 32            // extra ENet peers that can be told "server full"
#define SV_FLUSH_INTERVAL_NS 500000000u  // replay log write() at least this often
#define SV_STATS_INTERVAL_NS 10000000000u
#define SV_HEALTH_WINDOW_NS 2000000000u
#define SV_GRACE_MS 200

static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t unix_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// ---- shapes for the welcome and for entity descriptions ----------------------------------

static void shape_to_proto(const arb_shape_def* sd, arb_proto_shape* out) {
  memset(out, 0, sizeof *out);
  out->kind = (uint8_t)sd->type;
  switch (sd->type) {
    case ARB_SHAPE_CIRCLE:
      out->count = 1;
      out->radius = sd->circle.radius;
      out->points[0] = sd->circle.center;
      break;
    case ARB_SHAPE_POLYGON:
      out->count = (uint8_t)sd->polygon.count;
      for (int i = 0; i < sd->polygon.count && i < 8; ++i) out->points[i] = sd->polygon.vertices[i];
      break;
    case ARB_SHAPE_SEGMENT:
      out->count = 2;
      out->points[0] = sd->segment.a;
      out->points[1] = sd->segment.b;
      break;
    default: break;
  }
}

static int build_statics(sv_server* s) {
  arb_world* world = arb_game_get_world(s->game);
  int n = arb_world_get_body_count(world);
  arb_body_id* ids = calloc((size_t)(n > 0 ? n : 1), sizeof *ids);
  if (ids == NULL) return ARB_E_NOMEM;
  n = arb_world_get_bodies(world, ids, n);
  s->statics = calloc((size_t)(n > 0 ? n : 1), sizeof *s->statics);
  if (s->statics == NULL) {
    free(ids);
    return ARB_E_NOMEM;
  }
  s->static_count = 0;
  for (int i = 0; i < n && s->static_count < ARB_PROTO_MAX_STATIC; ++i) {
    if (arb_body_get_type(world, ids[i]) != ARB_BODY_STATIC) continue;
    arb_proto_static_body* sb = &s->statics[s->static_count++];
    sb->position = arb_body_get_position(world, ids[i]);
    sb->angle = arb_body_get_angle(world, ids[i]);
    shape_to_proto(arb_body_get_shape(world, ids[i]), &sb->shape);
  }
  free(ids);
  return 0;
}

// Description of an entity entering a client's view (snapshot builder callback).
static int describe_entity(void* user, uint32_t entity_id, arb_proto_entity_desc* desc) {
  sv_server* s = user;
  arb_entity e;
  if (arb_game_find_entity(s->game, entity_id, &e) != 0) return ARB_E_NOT_FOUND;
  const arb_world* world = arb_game_get_world(s->game);
  memset(desc, 0, sizeof *desc);
  desc->body_type = (uint8_t)arb_body_get_type(world, e.body);
  desc->owner = e.owner;
  if (e.owner != 0) desc->avatar_kind = (uint8_t)e.kind;
  shape_to_proto(arb_body_get_shape(world, e.body), &desc->shape);
  return 0;
}

// ---- recording -----------------------------------------------------------------------

static int record_bytes(sv_server* s, int64_t (*enc)(const void*, uint8_t*, size_t), const void* rec) {
  int64_t n = enc(rec, s->rec_buf, s->rec_buf_cap);
  if (n > (int64_t)s->rec_buf_cap) {
    uint8_t* bigger = realloc(s->rec_buf, (size_t)n);
    if (bigger == NULL) return ARB_E_NOMEM;
    s->rec_buf = bigger;
    s->rec_buf_cap = (size_t)n;
    n = enc(rec, s->rec_buf, s->rec_buf_cap);
  }
  if (n <= 0) return n < 0 ? (int)n : ARB_E_INVAL;
  if (sv_record_append(&s->record, s->rec_buf, (size_t)n) != 0) {
    s->metrics.recording_errors_total++;
    return ARB_E_IO;
  }
  s->metrics.recording_bytes_total += (uint64_t)n;
  return 0;
}

static int64_t enc_header(const void* r, uint8_t* b, size_t c) { return arb_replay_encode_header(r, b, c); }
static int64_t enc_tick(const void* r, uint8_t* b, size_t c) { return arb_replay_encode_tick(r, b, c); }
static int64_t enc_end(const void* r, uint8_t* b, size_t c) { return arb_replay_encode_end(r, b, c); }
static int64_t enc_checkpoint(const void* r, uint8_t* b, size_t c) { return arb_replay_encode_checkpoint(r, b, c); }

static void record_error_once(sv_server* s, const char* what, int rc) {
  if (s->metrics.recording_errors_total <= 1)
    SV_LOG(&s->log, SV_LOG_ERROR, "recording_failed", SV_LS("what", what), SV_LS("error", arb_strerror(rc)),
           SV_LS("path", s->record.path));
}

// A whole-game checkpoint every --checkpoint-every ticks lets arbiter-replay seek and
// localise a divergence to bodies and fields. The scratch buffer only grows.
static void record_checkpoint(sv_server* s, uint64_t tick) {
  int need = arb_game_save(s->game, NULL, 0);
  int rc = need > 0 ? 0 : (need < 0 ? need : ARB_E_STATE);
  if (rc == 0 && (size_t)need > s->cp_buf_cap) {
    uint8_t* bigger = realloc(s->cp_buf, (size_t)need);
    if (bigger == NULL) rc = ARB_E_NOMEM;
    else {
      s->cp_buf = bigger;
      s->cp_buf_cap = (size_t)need;
    }
  }
  if (rc == 0 && arb_game_save(s->game, s->cp_buf, need) != need) rc = ARB_E_STATE;
  if (rc == 0) {
    arb_replay_checkpoint cp = {tick, s->last_hash, s->cp_buf, (size_t)need};
    rc = record_bytes(s, enc_checkpoint, &cp);
  } else {
    s->metrics.recording_errors_total++;
  }
  if (rc != 0) record_error_once(s, "checkpoint", rc);
}

// ---- the tick --------------------------------------------------------------------------

static void send_left_event(sv_server* s, uint32_t client_id, uint32_t tick) {
  arb_proto_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ARB_PROTO_EVENT_LEFT;
  ev.tick = tick;
  ev.client_id = client_id;
  int n = arb_proto_encode_event(&ev, s->msg_buf, s->msg_buf_cap);
  if (n <= 0 || (size_t)n > s->msg_buf_cap) return;
  for (int i = 0; i < s->peer_capacity; ++i)
    if (s->sessions[i].state == SV_SESSION_ACTIVE) sv_session_send_control(s, &s->sessions[i], s->msg_buf, (size_t)n);
}

static void send_snapshots(sv_server* s, uint32_t tick) {
  sv_snapshot_capture(&s->snapshot, s->game);
  for (int i = 0; i < s->peer_capacity; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state != SV_SESSION_ACTIVE) continue;
    sv_snap_request req = {tick, ss->input.applied_seq, ss->entity_id, s->cfg.view_radius, describe_entity, s};
    arb_proto_build_result res;
    int rc = sv_snapshot_build(&s->snapshot, &ss->snap, &req, &res);
    if (rc != 0) {
      SV_LOG(&s->log, SV_LOG_WARN, "snapshot_build_failed", SV_LU("client", ss->client_id),
             SV_LS("error", arb_strerror(rc)));
      continue;
    }
    // Unsequenced, not ENet's plain unreliable mode: that one drops any packet older than
    // one already received on the channel, which would lose reordered parts of a split
    // snapshot (PROTOCOL.md, "Channels").
    for (int p = 0; p < res.packet_count; ++p) {
      if (sv_net_send(&s->net, ss->peer, ARB_PROTO_CHANNEL_SNAPSHOT, res.packets[p], (size_t)res.sizes[p],
                      ENET_PACKET_FLAG_UNSEQUENCED) == 0) {
        s->metrics.snapshots_sent_total++;
        sv_histogram_observe(&s->metrics.snapshot_bytes, res.sizes[p]);
        ss->bytes_sent += (uint64_t)res.sizes[p];
      }
    }
    ss->snapshots_sent++;
  }
}

static void sv_tick(void* user) {
  sv_server* s = user;
  uint64_t t0 = uv_hrtime();
  uint64_t c0 = thread_cpu_ns();

  sv_net_service(&s->net);
  sv_session_check_timeouts(s, t0);

  arb_replay_tick* rec = s->tick_rec;
  rec->join_count = rec->leave_count = rec->input_count = 0;

  // Tick boundary, in the replay log's order: joins, leaves, inputs, step.
  int joined[ARB_PROTO_MAX_CLIENTS];
  int joined_count = 0;
  for (int q = 0; q < s->join_count; ++q) {
    sv_session* ss = &s->sessions[s->join_queue[q]];
    uint32_t entity = 0;
    int rc = arb_game_join(s->game, ss->client_id, (arb_avatar_kind)ss->avatar_kind, &entity);
    if (rc != 0) {
      SV_LOG(&s->log, SV_LOG_WARN, "join_failed", SV_LU("client", ss->client_id), SV_LS("error", arb_strerror(rc)));
      // Not in the game, so no leave will be needed: release the slot before the kick.
      ss->state = SV_SESSION_AWAIT_HELLO;
      s->active_count--;
      char text[96];
      if (rc == ARB_E_FULL) snprintf(text, sizeof text, "server full");
      else snprintf(text, sizeof text, "cannot spawn avatar kind %u: %s", ss->avatar_kind, arb_strerror(rc));
      sv_session_kick(s, ss, rc == ARB_E_FULL ? ARB_PROTO_REASON_FULL : ARB_PROTO_REASON_OTHER, text);
      continue;
    }
    ss->entity_id = entity;
    ss->state = SV_SESSION_ACTIVE;
    s->metrics.clients_connected++;
    s->metrics.clients_joined_total++;
    if (rec->join_count < ARB_PROTO_MAX_CLIENTS) {
      arb_replay_join* j = &rec->joins[rec->join_count++];
      j->client_id = ss->client_id;
      j->avatar_kind = ss->avatar_kind;
      j->entity_id = entity;
      snprintf(j->name, sizeof j->name, "%s", ss->name);
    }
    if (joined_count < ARB_PROTO_MAX_CLIENTS) joined[joined_count++] = s->join_queue[q];
  }
  s->join_count = 0;

  for (int q = 0; q < s->leave_count; ++q) {
    int rc = arb_game_leave(s->game, s->leave_queue[q]);
    if (rc != 0) {
      SV_LOG(&s->log, SV_LOG_WARN, "leave_failed", SV_LU("client", s->leave_queue[q]), SV_LS("error", arb_strerror(rc)));
      continue;
    }
    if (rec->leave_count < ARB_PROTO_MAX_CLIENTS) rec->leaves[rec->leave_count++] = s->leave_queue[q];
  }
  int left_count = rec->leave_count;

  for (int i = 0; i < s->peer_capacity; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state != SV_SESSION_ACTIVE) continue;
    arb_proto_input_cmd cmd;
    if (!sv_input_take(&ss->input, &cmd)) continue;  // the game holds the previous controls
    // What the game applies and what is recorded are the same quantized values.
    arb_controls c = arb_proto_dequantize_controls(&cmd.controls);
    if (arb_game_set_controls(s->game, ss->client_id, &c) != 0) continue;
    if (rec->input_count < ARB_PROTO_MAX_CLIENTS) {
      arb_replay_input* in = &rec->inputs[rec->input_count++];
      in->client_id = ss->client_id;
      in->seq = cmd.seq;
      in->controls = cmd.controls;
    }
  }

  arb_game_step(s->game);
  uint64_t tick = arb_game_get_tick(s->game);
  s->last_hash = arb_game_hash(s->game);
  s->metrics.ticks_total++;
  s->metrics.tick = tick;

  if (s->recording) {
    rec->tick = tick;
    rec->world_hash = s->last_hash;
    int rc = record_bytes(s, enc_tick, rec);
    if (rc != 0) record_error_once(s, "tick", rc);
    else {
      s->ticks_recorded++;
      s->last_recorded_tick = tick;
      if (s->cfg.checkpoint_every > 0 && tick % (uint64_t)s->cfg.checkpoint_every == 0) record_checkpoint(s, tick);
    }
    if (t0 - s->last_flush_ns >= SV_FLUSH_INTERVAL_NS) {
      if (sv_record_flush(&s->record) != 0) record_error_once(s, "flush", ARB_E_IO);
      s->last_flush_ns = t0;
    }
  }

  for (int q = 0; q < left_count; ++q) send_left_event(s, rec->leaves[q], (uint32_t)tick);
  s->leave_count = 0;
  for (int q = 0; q < joined_count; ++q) {
    sv_session* ss = &s->sessions[joined[q]];
    if (ss->state != SV_SESSION_ACTIVE) continue;
    sv_session_send_welcome(s, ss, (uint32_t)tick);
    SV_LOG(&s->log, SV_LOG_INFO, "client_joined", SV_LU("client", ss->client_id), SV_LU("entity", ss->entity_id),
           SV_LS("addr", ss->addr), SV_LS("name", ss->name), SV_LU("tick", tick));
  }

  if (tick % (uint64_t)s->snapshot_every == 0) send_snapshots(s, (uint32_t)tick);
  sv_net_flush(&s->net);

  uint64_t t1 = uv_hrtime();
  uint64_t cpu = thread_cpu_ns() - c0;
  s->tick_cpu_ns_total += cpu;
  double secs = (double)(t1 - t0) * 1e-9;
  sv_histogram_observe(&s->metrics.tick_seconds, secs);
  if (t1 - t0 > s->ticker.period_ns) {
    s->metrics.tick_overruns_total++;
    // One tick a little over its period is absorbed by the next wake-up; a tick that took
    // two periods means clients saw a hitch: report lagging (/healthz 503) for a while.
    if (t1 - t0 > 2 * s->ticker.period_ns) sv_ticker_note_lag(&s->ticker);
  }
  if (t1 - s->last_stats_ns >= SV_STATS_INTERVAL_NS) {
    s->last_stats_ns = t1;
    SV_LOG(&s->log, SV_LOG_INFO, "stats", SV_LU("tick", tick), SV_LI("clients", s->metrics.clients_connected),
           SV_LU("bytes_out", s->metrics.bytes_out_total), SV_LU("bytes_in", s->metrics.bytes_in_total),
           SV_LU("overruns", s->metrics.tick_overruns_total), SV_LX("hash", s->last_hash));
  }
  if (s->on_tick_done) s->on_tick_done(s->on_tick_user, tick, t1 - t0, cpu);
  sv_lifecycle_after_tick(s, rec, t1);
}

// Logged once per lag episode (at most every 5 s while it lasts); every skipped tick is counted.
static void on_lag(void* user, uint64_t skipped) {
  sv_server* s = user;
  s->metrics.ticks_skipped_total += skipped;
  s->lag_unlogged += skipped;
  uint64_t now = uv_hrtime();
  if (s->lag_logged_ns != 0 && now - s->lag_logged_ns < 5000000000u) return;
  SV_LOG(&s->log, SV_LOG_WARN, "tick_lag", SV_LU("skipped_ticks", s->lag_unlogged),
         SV_LU("skipped_total", s->metrics.ticks_skipped_total), SV_LU("tick", s->metrics.tick),
         SV_LI("max_catchup_ticks", s->cfg.max_catchup_ticks));
  s->lag_logged_ns = now;
  s->lag_unlogged = 0;
}

// ---- HTTP ------------------------------------------------------------------------------

// /healthz: 200 {"status":"ok",...} while ticking normally and recording (if asked to)
// works; 503 "degraded" with the reasons, or "stopping". `state` is the match state.
// JSON so probes and people can tell why.
static void healthz(sv_server* s, sv_http_reply* reply) {
  const char* reasons[4];
  int n_reasons = 0;
  if (!sv_ticker_healthy(&s->ticker, SV_HEALTH_WINDOW_NS)) reasons[n_reasons++] = "tick_lag";
  if (s->cfg.record[0] && (!s->recording || s->record.error != 0)) reasons[n_reasons++] = "recording_failed";
  const char* status = s->stopping ? "stopping" : (n_reasons > 0 ? "degraded" : "ok");
  reply->status = strcmp(status, "ok") == 0 ? 200 : 503;
  reply->content_type = "application/json";
  int n = snprintf(reply->body, SV_HTTP_MAX_BODY, "{\"status\":\"%s\",\"state\":\"%s\",\"tick\":%llu,\"clients\":%lld,\"reasons\":[",
                   status, sv_match_state_name(s->life.match.state), (unsigned long long)s->metrics.tick,
                   (long long)s->metrics.clients_connected);
  for (int i = 0; i < n_reasons; ++i)
    n += snprintf(reply->body + n, SV_HTTP_MAX_BODY - (size_t)n, "%s\"%s\"", i ? "," : "", reasons[i]);
  n += snprintf(reply->body + n, SV_HTTP_MAX_BODY - (size_t)n, "]}\n");
  reply->body_len = (size_t)n;
}

static void on_http(void* user, const sv_http_request* req, sv_http_reply* reply) {
  sv_server* s = user;
  s->metrics.http_requests_total++;
  s->metrics.http_connections = s->http.conns;
  s->metrics.http_refused_per_address_total = s->http.refused_per_address;
  s->metrics.http_evicted_total = s->http.evicted;
  s->metrics.http_refused_full_total = s->http.refused_full;
  s->metrics.http_timed_out_total = s->http.timed_out;
  if (sv_admin_handle(s, req, reply)) return;
  if (strcmp(req->method, "POST") == 0) {
    reply->status = 405;
    reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "only GET and HEAD here\n");
    return;
  }
  const char* path = req->path;
  if (strcmp(path, "/healthz") == 0) {
    healthz(s, reply);
  } else if (strcmp(path, "/metrics") == 0) {
    int n = sv_metrics_render(&s->metrics, reply->body, SV_HTTP_MAX_BODY);
    if (n < 0) {
      reply->status = 500;
      reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "metrics too large\n");
      return;
    }
    reply->status = 200;
    reply->content_type = "text/plain; version=0.0.4; charset=utf-8";
    reply->body_len = (size_t)n;
  } else {
    reply->status = 404;
    reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "not found; try /healthz or /metrics\n");
  }
}

// ---- signals and shutdown ----------------------------------------------------------------

static void on_signal(uv_signal_t* handle, int signum) {
  sv_server* s = handle->data;
  sv_server_stop(s, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static void close_handle(uv_handle_t* h) {
  if (!uv_is_closing(h)) uv_close(h, NULL);
}

static void on_grace_tick(uv_timer_t* t) {
  sv_server* s = t->data;
  // Retransmits and the disconnect handshakes only happen inside service calls.
  sv_net_service(&s->net);
  sv_net_flush(&s->net);
  if (s->metrics.peers_connected > 0 && uv_hrtime() - s->grace_start_ns < (uint64_t)SV_GRACE_MS * 1000000u) return;
  uv_timer_stop(t);
  sv_net_close(&s->net);
  if (s->http_on) sv_http_close(&s->http);
  sv_ticker_close(&s->ticker);
  close_handle((uv_handle_t*)&s->sig_int);
  close_handle((uv_handle_t*)&s->sig_term);
  close_handle((uv_handle_t*)&s->grace_timer);
  s->stopped = true;
}

void sv_server_stop(sv_server* s, const char* why) {
  if (s->stopping) return;
  s->stopping = true;
  sv_net_close_to_new(&s->net);
  // Signals arrive between ticks, so the last tick is complete here.
  sv_ticker_stop(&s->ticker);
  sv_lifecycle_stop(s);
  SV_LOG(&s->log, SV_LOG_INFO, "server_stopping", SV_LS("why", why), SV_LU("tick", s->metrics.tick),
         SV_LI("clients", s->metrics.clients_connected));
  for (int i = 0; i < s->peer_capacity; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state == SV_SESSION_AWAIT_HELLO || ss->state == SV_SESSION_JOINING || ss->state == SV_SESSION_ACTIVE)
      sv_session_kick(s, ss, ARB_PROTO_REASON_SHUTDOWN, "server shutting down");
  }
  sv_net_flush(&s->net);
  if (s->recording) {
    arb_replay_end end = {s->last_recorded_tick, s->ticks_recorded, unix_ms()};
    int rc = record_bytes(s, enc_end, &end);
    if (rc != 0) record_error_once(s, "end", rc);
    if (sv_record_close(&s->record) != 0) {
      SV_LOG(&s->log, SV_LOG_ERROR, "recording_close_failed", SV_LS("path", s->record.path),
             SV_LS("error", strerror(s->record.error)));
      s->exit_code = 1;
    } else {
      SV_LOG(&s->log, SV_LOG_INFO, "recording_closed", SV_LS("path", s->record.path),
             SV_LU("ticks", s->ticks_recorded), SV_LU("last_tick", s->last_recorded_tick),
             SV_LU("bytes", s->record.bytes_total));
    }
    s->recording = false;
  }
  SV_LOG(&s->log, SV_LOG_INFO, "server_stopped", SV_LU("tick", s->metrics.tick), SV_LX("hash", s->last_hash),
         SV_LU("ticks_total", s->metrics.ticks_total), SV_LD("tick_cpu_ms_total", (double)s->tick_cpu_ns_total * 1e-6));
  // Keep servicing ENet until every peer has gone or SV_GRACE_MS passed, so the goodbyes
  // are delivered.
  uv_timer_init(s->loop, &s->grace_timer);
  s->grace_open = true;
  s->grace_timer.data = s;
  s->grace_start_ns = uv_hrtime();
  uv_timer_start(&s->grace_timer, on_grace_tick, 5, 5);
}

// ---- init / deinit -----------------------------------------------------------------------

int sv_server_init(sv_server* s, uv_loop_t* loop, const sv_config* cfg, char* err, size_t err_cap) {
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->loop = loop;
  sv_log_init(&s->log, stderr, cfg->log_level, cfg->log_format);
  sv_metrics_init(&s->metrics);
  s->metrics.start_unix_seconds = (uint64_t)time(NULL);
  s->next_client_id = 1;
  s->limits.packets_per_second = cfg->input_rate_limit;
  s->limits.bytes_per_second = cfg->byte_rate_limit;

  arb_scene_error serr;
  memset(&serr, 0, sizeof serr);
  int rc = cfg->scene[0] ? arb_scene_load_file(cfg->scene, &s->scene, &serr) : arb_scene_load_default(&s->scene, &serr);
  if (rc != 0) {
    char msg[900];
    arb_scene_error_format(&serr, msg, sizeof msg);
    snprintf(err, err_cap, "scene: %s", msg);
    return SV_INIT_BAD_CONFIG;
  }
  // --tick-rate overrides the scene's step length; the log header records the rate used
  // and every re-simulation applies it the same way.
  if (cfg->tick_rate != 0) arb_scene_set_tick_rate(s->scene, cfg->tick_rate);
  s->tick_rate = arb_scene_get_tick_rate(s->scene);
  if (cfg->snapshot_rate > s->tick_rate) {
    snprintf(err, err_cap, "--snapshot-rate %d is higher than the tick rate %d", cfg->snapshot_rate, s->tick_rate);
    return SV_INIT_BAD_CONFIG;
  }
  s->snapshot_every = (s->tick_rate + cfg->snapshot_rate / 2) / cfg->snapshot_rate;
  if (s->snapshot_every < 1) s->snapshot_every = 1;
  s->metrics.tick_rate_hz = s->tick_rate;

  rc = arb_game_create(s->scene, cfg->seed, &s->game);
  if (rc != 0) {
    snprintf(err, err_cap, "cannot create the game: %s", arb_strerror(rc));
    return -1;
  }
  if (build_statics(s) != 0) {
    snprintf(err, err_cap, "out of memory");
    return -1;
  }
  s->max_entities = arb_scene_get_body_count(s->scene) + cfg->max_clients + 64;
  if (sv_snapshot_init(&s->snapshot, s->max_entities) != 0) {
    snprintf(err, err_cap, "cannot create the snapshot builder for %d entities", s->max_entities);
    return -1;
  }

  s->peer_capacity = cfg->max_clients + SV_PEER_MARGIN;
  if (s->peer_capacity > 4095) s->peer_capacity = 4095;
  s->sessions = calloc((size_t)s->peer_capacity, sizeof *s->sessions);
  s->join_queue = calloc((size_t)s->peer_capacity, sizeof *s->join_queue);
  s->leave_queue = calloc((size_t)s->peer_capacity, sizeof *s->leave_queue);
  s->rejoins = calloc((size_t)cfg->max_clients, sizeof *s->rejoins);
  s->tick_rec = calloc(1, sizeof *s->tick_rec);
  s->msg_buf_cap = ARB_PROTO_MAX_RELIABLE;
  s->msg_buf = malloc(s->msg_buf_cap);
  s->rec_buf_cap = 256 * 1024;
  s->rec_buf = malloc(s->rec_buf_cap);
  if (!s->sessions || !s->join_queue || !s->leave_queue || !s->rejoins || !s->tick_rec || !s->msg_buf || !s->rec_buf) {
    snprintf(err, err_cap, "out of memory");
    return -1;
  }

  if (cfg->record[0]) {
    if (sv_record_open(&s->record, cfg->record, err, err_cap) != 0) return SV_INIT_BAD_CONFIG;
    s->recording = true;
    size_t scene_len = 0;
    const char* scene_text = arb_scene_get_text(s->scene, &scene_len);
    arb_replay_header h;
    memset(&h, 0, sizeof h);
    h.format_version = ARB_REPLAY_FORMAT_VERSION;
    h.build_id = ARB_BUILD_ID;
    h.build_id_len = strlen(ARB_BUILD_ID);
    if (h.build_id_len > ARB_REPLAY_MAX_BUILD_ID) h.build_id_len = ARB_REPLAY_MAX_BUILD_ID;
    h.scene_text = scene_text;
    h.scene_len = scene_len;
    h.scene_hash = arb_scene_get_hash(s->scene);
    h.tick_rate = (uint16_t)s->tick_rate;
    h.seed = cfg->seed;
    h.start_time_ms = unix_ms();
    rc = record_bytes(s, enc_header, &h);
    if (rc != 0) {
      snprintf(err, err_cap, "--record: cannot write the header to \"%s\": %s", s->record.path, arb_strerror(rc));
      return -1;
    }
    sv_record_flush(&s->record);
    s->last_flush_ns = uv_hrtime();
  }

  if (sv_auth_init(&s->auth, cfg->auth_key, cfg->public_address, cfg->bind, err, err_cap) != 0)
    return SV_INIT_BAD_CONFIG;
  sv_net_limits net_limits = {cfg->peers_per_address, cfg->connect_rate, cfg->half_open_timeout_ms};
  if (sv_net_init(&s->net, loop, cfg->bind, cfg->port, s->peer_capacity, &net_limits, sv_session_on_net_event, s,
                  &s->metrics, err, err_cap) != 0)
    return -1;
  sv_auth_set_port(&s->auth, s->net.port);
  if (!s->auth.enabled)
    SV_LOG(&s->log, SV_LOG_WARN, "auth_disabled", SV_LS("detail", "no --auth-key: anyone who reaches the port can play"));
  if (cfg->http_port != 0) {
    if (sv_http_init(&s->http, loop, cfg->http_bind, cfg->http_port < 0 ? 0 : cfg->http_port, on_http, s, err,
                     err_cap) != 0)
      return -1;
    s->http_on = true;
  }

  uint64_t period = 1000000000u / (uint64_t)s->tick_rate;
  if (sv_ticker_init(&s->ticker, loop, period, cfg->max_catchup_ticks, sv_tick, on_lag, s) != 0) {
    snprintf(err, err_cap, "cannot create the tick timer");
    return -1;
  }
  uv_signal_init(loop, &s->sig_int);
  uv_signal_init(loop, &s->sig_term);
  s->sig_int.data = s->sig_term.data = s;
  uv_signal_start(&s->sig_int, on_signal, SIGINT);
  uv_signal_start(&s->sig_term, on_signal, SIGTERM);

  s->last_stats_ns = uv_hrtime();
  sv_ticker_start(&s->ticker);
  if (sv_lifecycle_start(s, err, err_cap) != 0) return SV_INIT_BAD_CONFIG;
  SV_LOG(&s->log, SV_LOG_INFO, "server_started", SV_LS("build", ARB_BUILD_ID), SV_LS("bind", cfg->bind),
         SV_LI("port", s->net.port), SV_LI("http_port", s->http_on ? s->http.port : 0),
         SV_LS("scene", arb_scene_get_name(s->scene)), SV_LX("scene_hash", arb_scene_get_hash(s->scene)),
         SV_LI("tick_rate", s->tick_rate), SV_LI("snapshot_every", s->snapshot_every),
         SV_LI("max_clients", cfg->max_clients), SV_LD("view_radius", cfg->view_radius),
         SV_LS("record", s->recording ? s->record.path : ""), SV_LU("seed", cfg->seed));
  return 0;
}

void sv_server_deinit(sv_server* s) {
  if (s->recording) sv_record_close(&s->record);
  if (s->sessions) {
    for (int i = 0; i < s->peer_capacity; ++i)
      if (s->sessions[i].snap_ready) sv_snap_client_free(&s->sessions[i].snap);
  }
  sv_snapshot_free(&s->snapshot);
  sv_auth_free(&s->auth);
  if (s->game) arb_game_destroy(s->game);
  if (s->scene) arb_scene_destroy(s->scene);
  free(s->statics);
  free(s->sessions);
  free(s->join_queue);
  free(s->leave_queue);
  free(s->rejoins);
  free(s->tick_rec);
  free(s->msg_buf);
  free(s->rec_buf);
  free(s->cp_buf);
  memset(s, 0, sizeof *s);
}
