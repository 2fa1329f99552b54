// Match lifecycle glue (see sv_lifecycle.h).
#include "sv_lifecycle.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_admin.h"
#include "sv_server.h"

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

#define SV_AGONES_SHUTDOWN_DEADLINE_MS 3000

static uint64_t seconds_ns(int s) {
  return (uint64_t)s * 1000000000u;
}

static void note_state(sv_server* s) {
  s->metrics.match_state = (int)s->life.match.state;
}

// Text to every player in the game (event NOTICE).
static void notify_all(sv_server* s, const char* text) {
  arb_proto_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ARB_PROTO_EVENT_NOTICE;
  ev.tick = (uint32_t)arb_game_get_tick(s->game);
  snprintf(ev.text, sizeof ev.text, "%s", text);
  int n = arb_proto_encode_event(&ev, s->msg_buf, s->msg_buf_cap);
  if (n <= 0 || (size_t)n > s->msg_buf_cap) return;
  for (int i = 0; i < s->session_count; ++i)
    if (s->sessions[i].state == SV_SESSION_ACTIVE)
      sv_session_send_control(s, &s->sessions[i], s->msg_buf, (size_t)n);
  sv_net_flush(&s->net);
}

// ---- Agones: the GameServer as the watch reports it --------------------------------------------

static bool parse_seconds(const char* text, int* out) {
  char* end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0 || v < 0 || v > 604800) return false;
  *out = (int)v;
  return true;
}

// Match parameters an allocation passes as annotations (GameServerAllocation
// spec.metadata.annotations): arbiter.dev/match-max-duration, arbiter.dev/exit-when-empty.
// arbiter.dev/scene names the scene the match expects: the world is loaded before the
// server is ready, so a different one ends the match at once rather than let players into
// the wrong world (a fleet per scene, selected by the agones.dev/sdk-scene label, avoids it).
static void apply_annotations(sv_server* s, const sv_agones_gameserver* gs) {
  sv_match_limits limits = s->life.match.limits;
  for (int i = 0; i < gs->annotation_count; ++i) {
    const char* key = gs->annotations[i].key;
    const char* value = gs->annotations[i].value;
    if (strcmp(key, "scene") == 0 && strcmp(value, arb_scene_get_name(s->scene)) != 0 &&
        s->life.match.state != SV_MATCH_DONE) {
      SV_LOG(&s->log, SV_LOG_ERROR, "scene_mismatch", SV_LS("wanted", value),
             SV_LS("loaded", arb_scene_get_name(s->scene)));
      sv_match_end(&s->life.match, "scene_mismatch");
      continue;
    }
    uint64_t* field = strcmp(key, "match-max-duration") == 0 ? &limits.max_duration_ns
                      : strcmp(key, "exit-when-empty") == 0  ? &limits.exit_when_empty_ns
                                                             : NULL;
    if (field == NULL) continue;
    int secs;
    if (!parse_seconds(value, &secs)) {
      SV_LOG(&s->log, SV_LOG_WARN, "match_parameter_ignored", SV_LS("annotation", key),
             SV_LS("value", value), SV_LS("why", "not a number of seconds in [0, 604800]"));
      continue;
    }
    *field = seconds_ns(secs);
  }
  if (memcmp(&limits, &s->life.match.limits, sizeof limits) != 0) {
    sv_match_set_limits(&s->life.match, &limits);
    SV_LOG(&s->log, SV_LOG_INFO, "match_parameters",
           SV_LU("max_duration_s", limits.max_duration_ns / 1000000000u),
           SV_LU("exit_when_empty_s", limits.exit_when_empty_ns / 1000000000u),
           SV_LS("source", "agones"));
  }
}

static void on_gameserver(void* user, const sv_agones_gameserver* gs) {
  sv_server* s = user;
  if (strcmp(gs->state, s->life.gameserver_state) != 0) {
    SV_LOG(&s->log, SV_LOG_INFO, "agones_gameserver", SV_LS("name", gs->name),
           SV_LS("state", gs->state));
    snprintf(s->life.gameserver_state, sizeof s->life.gameserver_state, "%s", gs->state);
  }
  if (gs->name[0] != '\0')
    snprintf(s->life.gameserver_name, sizeof s->life.gameserver_name, "%s", gs->name);
  apply_annotations(s, gs);
  if (strcmp(gs->state, "Allocated") == 0 && sv_match_allocate(&s->life.match, uv_hrtime())) {
    note_state(s);
    SV_LOG(&s->log, SV_LOG_INFO, "match_allocated", SV_LS("source", "agones"),
           SV_LS("gameserver", gs->name));
  }
}

// ---- signals ---------------------------------------------------------------------------------

static void on_sigusr1(uv_signal_t* h, int signum) {
  (void)signum;
  sv_lifecycle_drain(h->data, "SIGUSR1");
}

// ---- hooks -----------------------------------------------------------------------------------

void sv_lifecycle_reset_match(sv_server* s) {
  sv_match_limits limits = {seconds_ns(s->cfg.match_max_duration_s),
                            seconds_ns(s->cfg.exit_when_empty_s),
                            seconds_ns(s->cfg.drain_timeout_s)};
  sv_match_init(&s->life.match, &limits);
  sv_match_ready(&s->life.match, uv_hrtime());
  note_state(s);
}

void sv_lifecycle_moved_in(sv_server* s, bool allocated) {
  note_state(s);
  if (!s->life.agones_on) return;
  if (allocated)
    sv_agones_allocate(&s->life.agones);
  else
    sv_agones_ready_again(&s->life.agones);
}

int sv_lifecycle_start(sv_server* s, char* err, size_t err_cap) {
  sv_lifecycle* l = &s->life;
  l->started_ns = uv_hrtime();
  if (s->cfg.admin_token[0] && sv_admin_load_token(s->cfg.admin_token, l->admin_token,
                                                   sizeof l->admin_token, err, err_cap) != 0)
    return -1;
  sv_lifecycle_reset_match(s);
  uv_signal_init(s->loop, &l->sig_usr1);
  l->sig_usr1.data = s;
  l->sig_usr1_open = true;
  uv_signal_start(&l->sig_usr1, on_sigusr1, SIGUSR1);
  if (s->cfg.agones) {
    sv_agones_init(&l->agones, s->loop, s->cfg.agones_sdk_port, (uint32_t)s->cfg.agones_health_ms,
                   &s->log, &s->metrics, on_gameserver, s);
    l->agones_on = true;
    sv_agones_ready(&l->agones, arb_scene_get_name(s->scene), ARB_BUILD_ID);
    // Which file holds this GameServer's match (the name only; the directory is the pod's).
    if (s->recording) {
      const char* slash = strrchr(s->record.path, '/');
      sv_agones_set_annotation(&l->agones, "recording", slash ? slash + 1 : s->record.path);
    }
  }
  SV_LOG(&s->log, SV_LOG_INFO, "match_ready", SV_LI("max_duration_s", s->cfg.match_max_duration_s),
         SV_LI("exit_when_empty_s", s->cfg.exit_when_empty_s),
         SV_LI("agones", s->cfg.agones ? 1 : 0),
         SV_LI("agones_sdk_port", s->cfg.agones ? s->cfg.agones_sdk_port : 0));
  return 0;
}

void sv_lifecycle_after_tick(sv_server* s, const arb_replay_tick* rec, uint64_t now_ns) {
  sv_lifecycle* l = &s->life;
  if (l->agones_on) {
    for (int i = 0; i < rec->join_count; ++i)
      sv_agones_player(&l->agones, true, rec->joins[i].client_id);
    for (int i = 0; i < rec->leave_count; ++i) sv_agones_player(&l->agones, false, rec->leaves[i]);
    sv_agones_health(&l->agones, now_ns);
  }
  sv_match_state before = l->match.state;
  sv_match_set_players(&l->match, (int)s->metrics.clients_connected, now_ns);
  if (before != l->match.state) {
    note_state(s);
    SV_LOG(&s->log, SV_LOG_INFO, "match_allocated", SV_LS("source", "first_join"),
           SV_LU("tick", rec->tick));
    // Without an allocator, the first join is the allocation: tell the fleet so it is not
    // handed to a second match.
    if (l->agones_on) sv_agones_allocate(&l->agones);
  }
  const char* why = sv_match_check(&l->match, now_ns);
  if (why) {
    note_state(s);
    uint64_t secs = l->match.allocated_ns ? (now_ns - l->match.allocated_ns) / 1000000000u : 0;
    SV_LOG(&s->log, SV_LOG_INFO, "match_over", SV_LS("why", why), SV_LU("tick", rec->tick),
           SV_LU("seconds", secs), SV_LI("players", l->match.players));
    char text[96];
    snprintf(text, sizeof text, "match over (%s)", why);
    notify_all(s, text);
    sv_server_stop(s, why);
    return;
  }
  if (s->cfg.test_stall_after_ms > 0 && !l->stalled &&
      now_ns - l->started_ns >= (uint64_t)s->cfg.test_stall_after_ms * 1000000u) {
    // Testing only: the ticks stop as if one never returned, while the loop (HTTP, the
    // Agones client) keeps running.
    l->stalled = true;
    SV_LOG(&s->log, SV_LOG_WARN, "tick_stalled_for_test", SV_LU("tick", rec->tick));
    sv_ticker_stop(&s->ticker);
  }
}

bool sv_lifecycle_accepting(const sv_server* s) {
  return sv_match_accepting(&s->life.match);
}

bool sv_lifecycle_drain(sv_server* s, const char* who) {
  sv_lifecycle* l = &s->life;
  if (s->stopping || !sv_match_drain(&l->match, uv_hrtime())) return false;
  note_state(s);
  SV_LOG(&s->log, SV_LOG_INFO, "match_draining", SV_LS("by", who),
         SV_LI("players", l->match.players),
         SV_LU("drain_timeout_s", l->match.limits.drain_timeout_ns / 1000000000u));
  if (l->match.state == SV_MATCH_DRAINING) {
    char text[128];
    snprintf(text, sizeof text, "server draining: no new players; the match ends within %llu s",
             (unsigned long long)(l->match.limits.drain_timeout_ns / 1000000000u));
    notify_all(s, text);
  }
  // A server with no match is done now; one with a match is checked at the next tick.
  if (l->match.state == SV_MATCH_DONE) {
    sv_match_check(&l->match, uv_hrtime());
    sv_server_stop(s, "drained");
  }
  return true;
}

void sv_lifecycle_stop(sv_server* s) {
  sv_lifecycle* l = &s->life;
  if (l->match.state != SV_MATCH_DONE) {
    l->match.state = SV_MATCH_DONE;
    note_state(s);
  }
  if (l->sig_usr1_open && !uv_is_closing((uv_handle_t*)&l->sig_usr1))
    uv_close((uv_handle_t*)&l->sig_usr1, NULL);
  if (l->agones_on) sv_agones_shutdown(&l->agones, SV_AGONES_SHUTDOWN_DEADLINE_MS);
}
