// The tick pipeline (see "One tick" in sv_server.h): network in, the tick's inputs applied
// through the game's tick applier, recording, events and welcomes, snapshots, network out.
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sv_server.h"

#define SV_STATS_INTERVAL_NS 10000000000u

static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// ---- the tick's inputs ------------------------------------------------------------------

// Describe the tick as its record, in the replay log's order: the queued joins (hello
// order), the queued leaves, then the newest input of every session in slot order. A
// session joining now plays from this tick on, so its input is taken too; should its join
// fail, the game refuses the input as well.
static void describe_tick(sv_server* s, arb_replay_tick* rec) {
  rec->join_count = rec->leave_count = rec->input_count = 0;
  for (int q = 0; q < s->join_count && rec->join_count < ARB_PROTO_MAX_CLIENTS; ++q) {
    const sv_session* ss = &s->sessions[s->join_queue[q]];
    arb_replay_join* j = &rec->joins[rec->join_count++];
    j->client_id = ss->client_id;
    j->avatar_kind = ss->avatar_kind;
    j->entity_id = 0;  // the game's answer, filled in after applying
    snprintf(j->name, sizeof j->name, "%s", ss->name);
  }
  for (int q = 0; q < s->leave_count && rec->leave_count < ARB_PROTO_MAX_CLIENTS; ++q)
    rec->leaves[rec->leave_count++] = s->leave_queue[q];
  uint32_t tick = (uint32_t)(arb_game_get_tick(s->game) + 1);  // the tick this step reaches
  bool fire = arb_scene_get_avatar(arb_game_get_scene(s->game))->fire.enabled;
  for (int i = 0; i < s->session_count && rec->input_count < ARB_PROTO_MAX_CLIENTS; ++i) {
    sv_session* ss = &s->sessions[i];
    if ((ss->state != SV_SESSION_ACTIVE && ss->state != SV_SESSION_JOINING) || ss->spectator)
      continue;
    arb_proto_input_cmd cmd;
    uint64_t late = ss->input.late;
    bool got = sv_input_take(&ss->input, tick, &cmd);
    s->metrics.inputs_late_total += ss->input.late - late;
    if (!got) continue;  // the game holds the previous controls
    ss->played_ticks++;
    // The view time matters (and is recorded) only where the fire button shoots.
    uint64_t view = fire ? cmd.view_time : 0;
    rec->inputs[rec->input_count++] =
        (arb_replay_input){ss->client_id, cmd.seq, cmd.controls, view};
  }
}

static void refuse_join(sv_server* s, sv_session* ss, int rc) {
  SV_LOG(&s->log, SV_LOG_WARN, "join_failed", SV_LU("client", ss->client_id),
         SV_LS("error", arb_strerror(rc)));
  // Not in the game, so no leave will be needed: release the slot before the kick.
  ss->state = SV_SESSION_AWAIT_HELLO;
  s->active_count--;
  char text[96];
  if (rc == ARB_E_FULL)
    snprintf(text, sizeof text, "server full");
  else
    snprintf(text, sizeof text, "cannot spawn avatar kind %u: %s", ss->avatar_kind,
             arb_strerror(rc));
  sv_session_kick(s, ss, rc == ARB_E_FULL ? ARB_PROTO_REASON_FULL : ARB_PROTO_REASON_OTHER, text);
}

// Sessions follow what the game did: a join it accepted makes its session active (kept in
// the join queue until welcomed after the step), a refused one is kicked.
static void settle_sessions(sv_server* s, const arb_tick_inputs* in) {
  int kept = 0;
  for (int q = 0; q < in->join_count; ++q) {
    sv_session* ss = &s->sessions[s->join_queue[q]];
    if (in->joins[q].result != ARB_OK) {
      refuse_join(s, ss, in->joins[q].result);
      continue;
    }
    ss->entity_id = in->joins[q].entity_id;
    ss->state = SV_SESSION_ACTIVE;
    s->metrics.clients_connected++;
    s->metrics.clients_joined_total++;
    s->join_queue[kept++] = s->join_queue[q];
  }
  s->join_count = kept;
  for (int q = 0; q < in->leave_count; ++q)
    if (in->leaves[q].result != ARB_OK)
      SV_LOG(&s->log, SV_LOG_WARN, "leave_failed", SV_LU("client", in->leaves[q].client_id),
             SV_LS("error", arb_strerror(in->leaves[q].result)));
}

// The record is built first and the game applies its description (the same two calls
// every re-simulation makes); then the record keeps only what the game accepted.
static uint64_t apply_tick(sv_server* s) {
  arb_replay_tick* rec = s->tick_rec;
  describe_tick(s, rec);
  arb_replay_inputs_from_tick(rec, s->tick_inputs);
  arb_game_apply_tick(s->game, &s->tick_inputs->inputs);
  settle_sessions(s, &s->tick_inputs->inputs);
  arb_replay_tick_keep_applied(rec, s->tick_inputs);
  uint64_t tick = arb_game_get_tick(s->game);
  s->last_hash = arb_game_hash(s->game);
  rec->tick = tick;
  rec->world_hash = s->last_hash;
  s->metrics.ticks_total++;
  s->metrics.tick = tick;
  return tick;
}

// ---- after the step -----------------------------------------------------------------------

// Everyone is told who left (id and name) and why (a reason code, 0 when the player
// disconnected itself); then the leave queue is done with.
static void send_left_events(sv_server* s, const arb_replay_tick* rec) {
  for (int l = 0; l < rec->leave_count; ++l) {
    arb_proto_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ARB_PROTO_EVENT_LEFT;
    ev.tick = (uint32_t)rec->tick;
    ev.client_id = rec->leaves[l];
    for (int q = 0; q < s->leave_count; ++q) {
      if (s->leave_queue[q] != ev.client_id) continue;
      ev.code = s->leave_reason[q];
      snprintf(ev.text, sizeof ev.text, "%s", s->leave_name[q]);
    }
    int n = arb_proto_encode_event(&ev, s->msg_buf, s->msg_buf_cap);
    if (n <= 0 || (size_t)n > s->msg_buf_cap) continue;
    for (int i = 0; i < s->session_count; ++i)
      if (s->sessions[i].state == SV_SESSION_ACTIVE)
        sv_session_send_control(s, &s->sessions[i], s->msg_buf, (size_t)n);
  }
  s->leave_count = 0;
}

// A shot that hit: the shooter and the one hit are told (the same event, once each).
static void send_hit_events(sv_server* s) {
  const arb_game_hit* hits;
  int n = arb_game_get_hits(s->game, &hits);
  for (int h = 0; h < n; ++h) {
    arb_proto_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ARB_PROTO_EVENT_HIT;
    ev.tick = (uint32_t)hits[h].tick;
    ev.client_id = hits[h].shooter;
    ev.entity_id = hits[h].target_entity;
    int len = arb_proto_encode_event(&ev, s->msg_buf, s->msg_buf_cap);
    if (len <= 0 || (size_t)len > s->msg_buf_cap) continue;
    uint32_t to[2] = {hits[h].shooter, hits[h].target_owner};
    for (int k = 0; k < 2; ++k) {
      sv_session* ss = k == 1 && to[1] == to[0] ? NULL : sv_session_by_client(s, to[k]);
      if (ss && ss->state == SV_SESSION_ACTIVE)
        sv_session_send_control(s, ss, s->msg_buf, (size_t)len);
    }
  }
}

static void welcome_joined(sv_server* s, uint64_t tick) {
  for (int q = 0; q < s->join_count; ++q) {
    sv_session* ss = &s->sessions[s->join_queue[q]];
    if (ss->state != SV_SESSION_ACTIVE) continue;
    sv_session_send_welcome(s, ss, (uint32_t)tick);
    SV_LOG(&s->log, SV_LOG_INFO, "client_joined", SV_LU("client", ss->client_id),
           SV_LU("entity", ss->entity_id), SV_LS("addr", ss->addr), SV_LS("name", ss->name),
           SV_LU("tick", tick));
  }
  s->join_count = 0;
}

// The active sessions whose snapshot is due this tick (sv_snapshot_due: slots spread over
// the snapshot_every phases).
static bool snapshot_due(const sv_server* s, int i, uint32_t tick) {
  return s->sessions[i].state == SV_SESSION_ACTIVE && sv_snapshot_due(tick, s->snapshot_every, i);
}

// A WebSocket client that has not taken what was sent before gets no snapshot now (none is
// built): a queue of stale snapshots would only delay the fresh ones (PROTOCOL.md §1.2).
// Its deltas stay against its acknowledged baseline, so the next one it gets is complete.
static bool backlogged(const sv_session* ss) {
  return sv_link_backlog(&ss->link) > SV_WS_SNAPSHOT_BACKLOG;
}

// Capture once, build the snapshot of every active client due this tick (on the tick
// thread and the --snapshot-threads workers), then send them in session order from the
// tick thread.
static void send_snapshots(sv_server* s, uint32_t tick) {
  if (s->active_count == 0 && s->spectator_count == 0) return;  // nobody to send to
  int snapshot_rate = (s->tick_rate + s->snapshot_every / 2) / s->snapshot_every;
  int n = 0;
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if (!snapshot_due(s, i, tick)) continue;
    if (backlogged(ss)) {
      s->metrics.ws_snapshots_skipped_total++;
      continue;
    }
    // The link's loss and RTT estimates (ENet's own; TCP's round trip) drive the client's
    // congestion response.
    sv_snap_job* j = &s->snap_jobs[n++];
    j->client = &ss->snap;
    j->req = (sv_snap_request){tick,
                               ss->input.applied_seq,
                               ss->entity_id,
                               s->cfg.view_radius,
                               (uint16_t)s->tick_rate,
                               snapshot_rate,
                               sv_link_loss(&ss->link),
                               (float)sv_link_rtt_ms(&ss->link),
                               ss->has_view,
                               ss->view};
  }
  if (n == 0) return;  // nobody due: skip the capture too
  sv_snapshot_capture(&s->snapshot, s->game, s->cfg.view_radius);
  sv_snap_workers_run(s->snap_workers, &s->snapshot, s->snap_jobs, n);
  n = 0;
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if (!snapshot_due(s, i, tick) || backlogged(ss)) continue;
    const sv_snap_job* j = &s->snap_jobs[n++];
    if (j->rc != 0) {
      SV_LOG(&s->log, SV_LOG_WARN, "snapshot_build_failed", SV_LU("client", ss->client_id),
             SV_LS("error", arb_strerror(j->rc)));
      continue;
    }
    if (j->res.packet_count == 0) {  // paying back a whole view (sv_snapshot_build)
      s->metrics.snapshots_repaid_total++;
      continue;
    }
    for (int p = 0; p < j->res.packet_count; ++p) {
      if (sv_link_send(&ss->link, ARB_PROTO_CHANNEL_SNAPSHOT, j->res.packets[p],
                       (size_t)j->res.sizes[p]) == 0) {
        s->metrics.snapshots_sent_total++;
        sv_histogram_observe(&s->metrics.snapshot_bytes, j->res.sizes[p]);
        ss->bytes_sent += (uint64_t)j->res.sizes[p];
      }
    }
    ss->snapshots_sent++;
  }
}

// ENet measures a peer's round trip only from acknowledged reliable commands, and pings a
// peer only when no acknowledgement has come from it for the ping interval (30 s here):
// once the reliable messages of a client's join are acknowledged its round trip stays
// whatever that burst made it for that long. The snapshot rate control
// (arb_snapshot_rate_update) reads it as a delay signal, and a stale high value held every
// client at the rate floor. So the server pings each active peer every SV_RTT_PING_MS
// itself, the sessions spread over the ticks (each ping is a reliable command: see
// SV_ENET_TIMEOUT_* in sv_session.c for why that needs ENet's generous limits).
#define SV_RTT_PING_MS 500
static void ping_peers(sv_server* s, uint64_t tick) {
  uint64_t every = (uint64_t)s->tick_rate * SV_RTT_PING_MS / 1000;
  if (every < 1) every = 1;
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state == SV_SESSION_ACTIVE && (tick + (uint64_t)i) % every == 0)
      sv_link_refresh_rtt(&ss->link);
  }
}

// Tick duration, overruns, the periodic stats line and the observer. Returns the end time.
static uint64_t account_tick(sv_server* s, uint64_t tick, uint64_t t0, uint64_t c0) {
  uint64_t t1 = uv_hrtime();
  uint64_t cpu = thread_cpu_ns() - c0;
  s->tick_cpu_ns_total += cpu;
  sv_histogram_observe(&s->metrics.tick_seconds, (double)(t1 - t0) * 1e-9);
  sv_histogram_observe(&s->metrics.tick_cpu_seconds, (double)cpu * 1e-9);
  if (t1 - t0 > s->ticker.period_ns) {
    s->metrics.tick_overruns_total++;
    // One tick a little over its period is absorbed by the next wake-up; a tick that took
    // two periods means clients saw a hitch: report lagging (/healthz 503) for a while.
    if (t1 - t0 > 2 * s->ticker.period_ns) sv_ticker_note_lag(&s->ticker);
  }
  if (t1 - s->last_stats_ns >= SV_STATS_INTERVAL_NS) {
    s->last_stats_ns = t1;
    SV_LOG(&s->log, SV_LOG_INFO, "stats", SV_LU("tick", tick),
           SV_LI("clients", s->metrics.clients_connected),
           SV_LU("bytes_out", s->metrics.bytes_out_total),
           SV_LU("bytes_in", s->metrics.bytes_in_total),
           SV_LU("overruns", s->metrics.tick_overruns_total), SV_LX("hash", s->last_hash));
  }
  if (s->on_tick_done) s->on_tick_done(s->on_tick_user, tick, t1 - t0, cpu);
  return t1;
}

void sv_tick(void* user) {
  sv_server* s = user;
  uint64_t t0 = uv_hrtime();
  uint64_t c0 = thread_cpu_ns();
  if (sv_migrate_paused(s, t0)) return;  // the match is on its way to another server
  sv_net_service(&s->net);
  sv_session_check_timeouts(s, t0);

  uint64_t c1 = thread_cpu_ns();
  uint64_t tick = apply_tick(s);
  uint64_t c2 = thread_cpu_ns();
  s->metrics.tick_step_cpu_ns += c2 - c1;
  if (s->recording) sv_record_tick(&s->record, s->tick_rec, s->game, t0);
  send_left_events(s, s->tick_rec);
  send_hit_events(s);
  welcome_joined(s, tick);
  sv_session_send_scenes(s);
  uint64_t c3 = thread_cpu_ns();
  send_snapshots(s, (uint32_t)tick);
  s->metrics.tick_snapshot_cpu_ns += thread_cpu_ns() - c3;
  ping_peers(s, tick);
  sv_net_flush(&s->net);
  uint64_t t1 = account_tick(s, tick, t0, c0);
  // The match lifecycle sees the tick's accepted joins and leaves (the record's).
  sv_lifecycle_after_tick(s, s->tick_rec, t1);
}

// Logged once per lag episode (at most every 5 s while it lasts); every skipped tick is counted.
void sv_tick_on_lag(void* user, uint64_t skipped) {
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
