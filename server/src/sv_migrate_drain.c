// Moving the match on SIGTERM (see sv_migrate_drain.h).
#include "sv_migrate_drain.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "sv_server.h"

static const char* const stop_why = "SIGTERM";

// Give up moving: stop as SIGTERM does without a target.
static void stop_now(sv_server* s, const char* why) {
  SV_LOG(&s->log, SV_LOG_WARN, "migrate_on_drain_failed", SV_LS("why", why),
         SV_LS("detail", "stopping as without the move"));
  s->mig_drain.active = false;
  sv_server_stop(s, stop_why);
}

static void move_to(sv_server* s, const char* spec, const char* source) {
  char err[192];
  SV_LOG(&s->log, SV_LOG_INFO, "migrate_on_drain", SV_LS("target", spec), SV_LS("source", source));
  if (sv_migrate_begin(s, spec, err, sizeof err) != 0) {
    stop_now(s, err);
    return;
  }
  s->mig.stop_if_failed = stop_why;
}

static void allocator_done(sv_server* s) {
  sv_mig_drain* d = &s->mig_drain;
  d->call = NULL;
  d->resolving = false;
  uv_timer_stop(&d->deadline);
}

static void allocator_failed(sv_server* s, const char* why) {
  allocator_done(s);
  SV_LOG(&s->log, SV_LOG_WARN, "migrate_allocator_failed", SV_LS("url", s->cfg.migrate_allocator),
         SV_LS("why", why));
  if (s->cfg.migrate_on_drain[0] != '\0')
    move_to(s, s->cfg.migrate_on_drain, "--migrate-on-drain");
  else
    stop_now(s, "the allocator named no target and there is no --migrate-on-drain");
}

// The allocator's answer: {"migrate": "IP:PORT", "clients": "IP:PORT", "ws": "URL"}, the
// last two optional (sv_migrate_begin checks the values).
static void on_answer(void* user, int status, const char* body, size_t len) {
  sv_server* s = user;
  char why[160];
  if (status != 200) {
    if (status < 0)
      snprintf(why, sizeof why, "no answer: %s", uv_strerror(status));
    else
      snprintf(why, sizeof why, "HTTP %d: %.*s", status, (int)(len < 100 ? len : 100), body);
    allocator_failed(s, why);
    return;
  }
  json_error_t jerr;
  json_t* root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
  json_t* migrate = json_is_object(root) ? json_object_get(root, "migrate") : NULL;
  json_t* clients = json_is_object(root) ? json_object_get(root, "clients") : NULL;
  json_t* ws = json_is_object(root) ? json_object_get(root, "ws") : NULL;
  char spec[sizeof s->cfg.migrate_on_drain];
  if (!json_is_string(migrate) || (clients != NULL && !json_is_string(clients)) ||
      (ws != NULL && !json_is_string(ws)) || strlen(json_string_value(migrate)) > 63 ||
      (clients != NULL && strlen(json_string_value(clients)) > 63) ||
      (ws != NULL && strlen(json_string_value(ws)) > ARB_PROTO_MAX_TEXT)) {
    snprintf(why, sizeof why,
             "the answer is not {\"migrate\": \"IP:PORT\", \"clients\": \"IP:PORT\", "
             "\"ws\": \"URL\"}");
    json_decref(root);
    allocator_failed(s, why);
    return;
  }
  snprintf(spec, sizeof spec, "%s%s%s%s%s", json_string_value(migrate), clients ? "/" : "",
           clients ? json_string_value(clients) : "", ws ? "?ws=" : "",
           ws ? json_string_value(ws) : "");
  json_decref(root);
  allocator_done(s);
  move_to(s, spec, "allocator");
}

static void call_allocator(sv_server* s, const char* ip) {
  sv_mig_drain* d = &s->mig_drain;
  char hash[20], version[20];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)arb_scene_get_hash(s->scene));
  snprintf(version, sizeof version, "%016llx", (unsigned long long)arb_game_sim_version());
  json_t* req = json_pack(
      "{s:s, s:s, s:s, s:s, s:i, s:I, s:i}", "gameserver", s->life.gameserver_name, "scene",
      arb_scene_get_name(s->scene), "scene_hash", hash, "sim_version", version, "tick_rate",
      s->tick_rate, "tick", (json_int_t)arb_game_get_tick(s->game), "players", s->active_count);
  char* body = req ? json_dumps(req, JSON_COMPACT) : NULL;
  json_decref(req);
  sv_httpc_request r = {d->port, "POST",    d->path, body, SV_MIG_ALLOCATOR_MS,
                        NULL,    on_answer, s,       ip};
  d->call = body ? sv_httpc_start(s->loop, &r) : NULL;
  free(body);
  if (d->call == NULL) allocator_failed(s, "cannot start the request");
}

static void on_resolved(uv_getaddrinfo_t* req, int status, struct addrinfo* res) {
  sv_server* s = req->data;
  sv_mig_drain* d = &s->mig_drain;
  bool wanted = d->resolving;
  d->resolving = false;
  char ip[INET_ADDRSTRLEN] = "";
  if (status == 0 && res != NULL && res->ai_family == AF_INET)
    inet_ntop(AF_INET, &((struct sockaddr_in*)res->ai_addr)->sin_addr, ip, sizeof ip);
  if (res) uv_freeaddrinfo(res);
  if (!wanted || s->stopping) return;  // the deadline passed meanwhile
  if (ip[0] == '\0') {
    char why[192];
    snprintf(why, sizeof why, "cannot resolve '%s': %s", d->host,
             status ? uv_strerror(status) : "no IPv4 address");
    allocator_failed(s, why);
    return;
  }
  call_allocator(s, ip);
}

static void on_deadline(uv_timer_t* t) {
  sv_server* s = t->data;
  sv_mig_drain* d = &s->mig_drain;
  if (d->call) sv_httpc_cancel(d->call);
  d->call = NULL;
  if (d->resolving) uv_cancel((uv_req_t*)&d->resolve);  // its callback is then ignored
  d->resolving = false;
  char why[64];
  snprintf(why, sizeof why, "no answer within %d ms", SV_MIG_ALLOCATOR_MS);
  allocator_failed(s, why);
}

int sv_migrate_drain_check(const sv_server* s, char* err, size_t err_cap) {
  if (s->cfg.migrate_allocator[0] == '\0') return 0;
  char host[128], path[192], why[160];
  int port;
  if (sv_httpc_parse_url(s->cfg.migrate_allocator, host, sizeof host, &port, path, sizeof path, why,
                         sizeof why) != 0) {
    snprintf(err, err_cap, "--migrate-allocator: %s", why);
    return -1;
  }
  return 0;
}

bool sv_migrate_drain(sv_server* s) {
  sv_mig_drain* d = &s->mig_drain;
  if (s->stopping) return false;
  if (d->active || s->mig.state != SV_MIG_IDLE) {
    // A move already under way (this drain's, or an operator's) ends the server either way.
    if (s->mig.state != SV_MIG_IDLE) s->mig.stop_if_failed = stop_why;
    SV_LOG(&s->log, SV_LOG_INFO, "migrate_on_drain_busy",
           SV_LS("detail", "a move is under way; the server stops when it ends"));
    return true;
  }
  if (s->cfg.migrate_allocator[0] == '\0' && s->cfg.migrate_on_drain[0] == '\0') return false;
  if (s->active_count == 0) {
    SV_LOG(&s->log, SV_LOG_INFO, "migrate_on_drain_skipped", SV_LS("why", "no players"));
    return false;
  }
  d->active = true;
  if (s->cfg.migrate_allocator[0] == '\0') {
    move_to(s, s->cfg.migrate_on_drain, "--migrate-on-drain");
    return true;
  }
  char why[160];
  if (sv_httpc_parse_url(s->cfg.migrate_allocator, d->host, sizeof d->host, &d->port, d->path,
                         sizeof d->path, why, sizeof why) != 0) {
    allocator_failed(s, why);  // checked at start: not reached
    return true;
  }
  if (!d->deadline_open) {
    uv_timer_init(s->loop, &d->deadline);
    d->deadline.data = s;
    d->deadline_open = true;
  }
  uv_timer_start(&d->deadline, on_deadline, SV_MIG_ALLOCATOR_MS, 0);
  struct in_addr literal;
  if (inet_pton(AF_INET, d->host, &literal) == 1) {
    call_allocator(s, d->host);
    return true;
  }
  struct addrinfo hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  d->resolve.data = s;
  d->resolving = true;
  if (uv_getaddrinfo(s->loop, &d->resolve, on_resolved, d->host, NULL, &hints) != 0) {
    d->resolving = false;
    snprintf(why, sizeof why, "cannot resolve '%s'", d->host);
    allocator_failed(s, why);
  }
  return true;
}

void sv_migrate_drain_close(sv_server* s) {
  sv_mig_drain* d = &s->mig_drain;
  if (d->call) sv_httpc_cancel(d->call);
  d->call = NULL;
  if (d->deadline_open && !uv_is_closing((uv_handle_t*)&d->deadline))
    uv_close((uv_handle_t*)&d->deadline, NULL);
}
