// The HTTP endpoints: /healthz (200 while ticking on time and recording works, 503
// "degraded" with its reasons or "stopping", with the match state), /metrics (Prometheus
// text) and the operator's /admin/ paths (sv_admin.c). docs/SERVER.md describes them.
#include <stdio.h>
#include <string.h>

#include "sv_admin.h"
#include "sv_server.h"

#define SV_HEALTH_WINDOW_NS 2000000000u

// /healthz: 200 {"status":"ok",...} while ticking normally and recording (if asked to)
// works; 503 "degraded" with the reasons, or "stopping". `state` is the match state.
// JSON so probes and people can tell why.
static void healthz(sv_server* s, sv_http_reply* reply) {
  const char* reasons[4];
  int n_reasons = 0;
  if (!sv_ticker_healthy(&s->ticker, SV_HEALTH_WINDOW_NS)) reasons[n_reasons++] = "tick_lag";
  if (s->cfg.record[0] && (!s->recording || s->record.error != 0))
    reasons[n_reasons++] = "recording_failed";
  const char* status = s->stopping ? "stopping" : (n_reasons > 0 ? "degraded" : "ok");
  reply->status = strcmp(status, "ok") == 0 ? 200 : 503;
  reply->content_type = "application/json";
  int n =
      snprintf(reply->body, SV_HTTP_MAX_BODY,
               "{\"status\":\"%s\",\"state\":\"%s\",\"tick\":%llu,\"clients\":%lld,\"reasons\":[",
               status, sv_match_state_name(s->life.match.state),
               (unsigned long long)s->metrics.tick, (long long)s->metrics.clients_connected);
  for (int i = 0; i < n_reasons; ++i)
    n += snprintf(reply->body + n, SV_HTTP_MAX_BODY - (size_t)n, "%s\"%s\"", i ? "," : "",
                  reasons[i]);
  n += snprintf(reply->body + n, SV_HTTP_MAX_BODY - (size_t)n, "]}\n");
  reply->body_len = (size_t)n;
}

void sv_status_on_http(void* user, const sv_http_request* req, sv_http_reply* reply) {
  sv_server* s = user;
  sv_metrics* m = &s->metrics;
  m->http_requests_total++;
  m->http_connections = s->http.conns;
  m->bans_active = sv_net_ban_count(&s->net);
  m->http_connections_closed_total[SV_HTTP_CLOSED_PER_ADDRESS] = s->http.refused_per_address;
  m->http_connections_closed_total[SV_HTTP_CLOSED_EVICTED] = s->http.evicted;
  m->http_connections_closed_total[SV_HTTP_CLOSED_FULL] = s->http.refused_full;
  m->http_connections_closed_total[SV_HTTP_CLOSED_TIMEOUT] = s->http.timed_out;
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
    reply->body_len =
        (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "not found; try /healthz or /metrics\n");
  }
}
