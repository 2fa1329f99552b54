// Stopping: SIGINT/SIGTERM or sv_server_stop tell every client, finish the replay log,
// then keep servicing ENet for up to SV_GRACE_MS so the goodbyes are delivered, and close
// every handle so uv_run returns.
#include <stdio.h>
#include <string.h>

#include "sv_server.h"

#define SV_GRACE_MS 200

static void on_signal(uv_signal_t* handle, int signum) {
  sv_server* s = handle->data;
  // A node drain (SIGTERM) with somewhere to move the match moves it first.
  if (signum == SIGTERM && sv_migrate_drain(s)) return;
  sv_server_stop(s, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

void sv_server_watch_signals(sv_server* s) {
  uv_signal_init(s->loop, &s->sig_int);
  uv_signal_init(s->loop, &s->sig_term);
  s->sig_int.data = s->sig_term.data = s;
  uv_signal_start(&s->sig_int, on_signal, SIGINT);
  uv_signal_start(&s->sig_term, on_signal, SIGTERM);
}

static void close_handle(uv_handle_t* h) {
  if (!uv_is_closing(h)) uv_close(h, NULL);
}

static void on_grace_tick(uv_timer_t* t) {
  sv_server* s = t->data;
  // Retransmits and the disconnect handshakes only happen inside service calls.
  sv_net_service(&s->net);
  sv_net_flush(&s->net);
  // WebSocket connections flush and close on the loop by themselves.
  if ((s->metrics.peers_connected > 0 || s->metrics.ws_connections > 0) &&
      uv_hrtime() - s->grace_start_ns < (uint64_t)SV_GRACE_MS * 1000000u)
    return;
  uv_timer_stop(t);
  sv_net_close(&s->net);
  if (s->ws_on) sv_ws_close(&s->ws);
  s->ws_on = false;
  if (s->http_on) sv_http_close(&s->http);
  sv_migrate_close(s);
  sv_migrate_drain_close(s);
  sv_ticker_close(&s->ticker);
  close_handle((uv_handle_t*)&s->sig_int);
  close_handle((uv_handle_t*)&s->sig_term);
  close_handle((uv_handle_t*)&s->grace_timer);
  s->stopped = true;
}

// The end record, then close; a failed close makes the exit status 1.
static void finish_recording(sv_server* s) {
  if (sv_record_finish(&s->record) != 0) {
    SV_LOG(&s->log, SV_LOG_ERROR, "recording_close_failed", SV_LS("path", s->record.path),
           SV_LS("error", strerror(s->record.error)));
    s->exit_code = 1;
  } else {
    SV_LOG(&s->log, SV_LOG_INFO, "recording_closed", SV_LS("path", s->record.path),
           SV_LU("ticks", s->record.ticks), SV_LU("last_tick", s->record.last_tick),
           SV_LU("bytes", s->record.bytes_total));
  }
  s->recording = false;
}

void sv_server_stop(sv_server* s, const char* why) {
  if (s->stopping) return;
  s->stopping = true;
  sv_net_close_to_new(&s->net);
  if (s->ws_on) sv_ws_close_to_new(&s->ws);
  // Signals arrive between ticks, so the last tick is complete here.
  sv_ticker_stop(&s->ticker);
  sv_lifecycle_stop(s);
  SV_LOG(&s->log, SV_LOG_INFO, "server_stopping", SV_LS("why", why), SV_LU("tick", s->metrics.tick),
         SV_LI("clients", s->metrics.clients_connected));
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state == SV_SESSION_AWAIT_HELLO || ss->state == SV_SESSION_JOINING ||
        ss->state == SV_SESSION_ACTIVE)
      sv_session_kick(s, ss, ARB_PROTO_REASON_SHUTDOWN, "server shutting down");
  }
  sv_net_flush(&s->net);
  if (s->recording) finish_recording(s);
  SV_LOG(&s->log, SV_LOG_INFO, "server_stopped", SV_LU("tick", s->metrics.tick),
         SV_LX("hash", s->last_hash), SV_LU("ticks_total", s->metrics.ticks_total),
         SV_LD("tick_cpu_ms_total", (double)s->tick_cpu_ns_total * 1e-6));
  // Keep servicing ENet until every peer has gone or SV_GRACE_MS passed, so the goodbyes
  // are delivered.
  uv_timer_init(s->loop, &s->grace_timer);
  s->grace_open = true;
  s->grace_timer.data = s;
  s->grace_start_ns = uv_hrtime();
  uv_timer_start(&s->grace_timer, on_grace_tick, 5, 5);
}
