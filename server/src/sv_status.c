// The HTTP endpoints: /healthz (200 while ticking on time, 503 when lagging or stopping,
// with the match state), /metrics (Prometheus text) and the operator's /admin/ paths
// (sv_admin.c). docs/SERVER.md describes them.
#include <stdio.h>
#include <string.h>

#include "sv_admin.h"
#include "sv_server.h"

#define SV_HEALTH_WINDOW_NS 2000000000u

void sv_status_on_http(void* user, const sv_http_request* req, sv_http_reply* reply) {
  sv_server* s = user;
  s->metrics.http_requests_total++;
  if (sv_admin_handle(s, req, reply)) return;
  if (strcmp(req->method, "POST") == 0) {
    reply->status = 405;
    reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "only GET and HEAD here\n");
    return;
  }
  const char* path = req->path;
  if (strcmp(path, "/healthz") == 0) {
    bool ok = !s->stopping && sv_ticker_healthy(&s->ticker, SV_HEALTH_WINDOW_NS);
    reply->status = ok ? 200 : 503;
    reply->content_type = "application/json";
    reply->body_len = (size_t)snprintf(
        reply->body, SV_HTTP_MAX_BODY,
        "{\"status\":\"%s\",\"state\":\"%s\",\"tick\":%llu,\"clients\":%lld}\n",
        s->stopping ? "stopping" : (ok ? "ok" : "lagging"),
        sv_match_state_name(s->life.match.state), (unsigned long long)s->metrics.tick,
        (long long)s->metrics.clients_connected);
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
