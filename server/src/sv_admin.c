// Operator endpoints (see sv_admin.h).
#include "sv_admin.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_lifecycle.h"
#include "sv_names.h"
#include "sv_server.h"

#define TOKEN_MIN 16
#define TOKEN_MAX 512
#define SV_ADMIN_MAX_BAN_S 604800  // a week
#define SV_ADMIN_MAX_BAN_TEXT "604800"

int sv_admin_load_token(const char* path, char* out, size_t cap, char* err, size_t err_cap) {
  out[0] = '\0';
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(err, err_cap, "--admin-token: cannot open \"%s\": %s", path, strerror(errno));
    return -1;
  }
  char buf[TOKEN_MAX + 3];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  size_t len = strcspn(buf, "\r\n");
  buf[len] = '\0';
  if (len < TOKEN_MIN || len > TOKEN_MAX || len + 1 > cap) {
    snprintf(err, err_cap,
             "--admin-token: the token in \"%s\" must be %d..%d characters on the first line "
             "(found %zu)",
             path, TOKEN_MIN, TOKEN_MAX, len);
    return -1;
  }
  for (size_t i = 0; i < len; ++i) {
    if (buf[i] <= ' ' || buf[i] > '~') {
      snprintf(err, err_cap,
               "--admin-token: the token in \"%s\" has a space or a non-printable character at %zu",
               path, i + 1);
      return -1;
    }
  }
  memcpy(out, buf, len + 1);
  return 0;
}

bool sv_admin_authorized(const char* token, const char* authorization) {
  static const char scheme[] = "Bearer ";
  if (token[0] == '\0' || strncmp(authorization, scheme, sizeof scheme - 1) != 0) return false;
  const char* given = authorization + sizeof scheme - 1;
  size_t n = strlen(token);
  if (strlen(given) != n) return false;
  // Every byte is compared whatever the first difference, so timing says nothing about it.
  unsigned char diff = 0;
  for (size_t i = 0; i < n; ++i) diff |= (unsigned char)(token[i] ^ given[i]);
  return diff == 0;
}

static void text(sv_http_reply* reply, int status, const char* body) {
  reply->status = status;
  reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "%s", body);
}

// Appends to a JSON reply body; false once it is full (the caller stops adding).
typedef struct json_out {
  sv_http_reply* reply;
  size_t len;
  bool full;
} json_out;

static void put(json_out* o, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(json_out* o, const char* fmt, ...) {
  if (o->full) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->reply->body + o->len, SV_HTTP_MAX_BODY - o->len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= SV_HTTP_MAX_BODY - o->len)
    o->full = true;
  else
    o->len += (size_t)n;
}

// Player names come from the network: quotes, backslashes and control bytes escaped.
static void put_string(json_out* o, const char* v) {
  put(o, "\"");
  for (const unsigned char* c = (const unsigned char*)v; *c; ++c) {
    if (*c == '"' || *c == '\\')
      put(o, "\\%c", *c);
    else if (*c < 0x20)
      put(o, "\\u%04x", *c);
    else
      put(o, "%c", *c);
  }
  put(o, "\"");
}

static const char* session_state_name(sv_session_state st) {
  SV_RETURN_NAME(st, SV_SESSION_CLOSING + 1, "free", "await_hello", "joining", "active", "closing");
}

// GET /admin/sessions: every connection with a session, and the avatars held for a rejoin.
static void list_sessions(sv_server* s, sv_http_reply* reply) {
  json_out o = {reply, 0, false};
  uint64_t now = uv_hrtime();
  put(&o, "{\"tick\":%llu,\"sessions\":[", (unsigned long long)s->metrics.tick);
  int listed = 0;
  for (int i = 0; i < s->session_count && !o.full; ++i) {
    const sv_session* ss = &s->sessions[i];
    if (ss->state == SV_SESSION_FREE) continue;
    put(&o, "%s{\"client\":%u,\"entity\":%u,\"name\":", listed++ ? "," : "", ss->client_id,
        ss->entity_id);
    put_string(&o, ss->name);
    put(&o,
        ",\"addr\":\"%s\",\"transport\":\"%s\",\"state\":\"%s\",\"spectator\":%s,"
        "\"connected_s\":%.1f,\"rtt_ms\":%u,\"snapshots_sent\":%llu",
        ss->addr, sv_link_kind_name(&ss->link), session_state_name(ss->state),
        ss->spectator ? "true" : "false", (double)(now - ss->connected_ns) / 1e9,
        (unsigned)sv_link_rtt_ms(&ss->link), (unsigned long long)ss->snapshots_sent);
    // The camera box the client reported (the `view` message), or null.
    if (ss->has_view)
      put(&o, ",\"view\":[%.2f,%.2f,%.2f,%.2f]}", (double)ss->view.lower.x,
          (double)ss->view.lower.y, (double)ss->view.upper.x, (double)ss->view.upper.y);
    else
      put(&o, ",\"view\":null}");
  }
  put(&o, "],\"rejoin_holds\":[");
  listed = 0;
  for (int i = 0; i < s->cfg.max_clients && !o.full; ++i) {
    const sv_rejoin* r = &s->rejoins[i];
    if (!r->used) continue;
    put(&o, "%s{\"client\":%u,\"entity\":%u,\"name\":", listed++ ? "," : "", r->client_id,
        r->entity_id);
    put_string(&o, r->name);
    put(&o, ",\"expires_in_s\":%.1f}",
        r->expires_ns > now ? (double)(r->expires_ns - now) / 1e9 : 0.0);
  }
  put(&o, "]}\n");
  if (o.full) {
    text(reply, 500, "too many sessions for one answer\n");
    return;
  }
  reply->status = 200;
  reply->content_type = "application/json";
  reply->body_len = o.len;
}

// A decimal number in [lo, hi] that is all of `text`; -1 otherwise.
static long long number(const char* text, long long lo, long long hi) {
  if (*text < '0' || *text > '9') return -1;
  char* end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return -1;
  return v;
}

// POST /admin/kick/<client>: the client is told "kicked" and its avatar leaves.
static void kick(sv_server* s, const char* arg, sv_http_reply* reply) {
  long long id = number(arg, 1, UINT32_MAX);
  sv_session* ss = id > 0 ? sv_session_by_client(s, (uint32_t)id) : NULL;
  if (ss == NULL) {
    text(reply, 404, "no such client: POST /admin/kick/<client id from /admin/sessions>\n");
    return;
  }
  s->metrics.admin_actions_total[SV_ADMIN_KICK]++;
  SV_LOG(&s->log, SV_LOG_INFO, "admin_kick", SV_LU("client", ss->client_id),
         SV_LS("addr", ss->addr));
  sv_session_kick(s, ss, ARB_PROTO_REASON_KICKED, "kicked by the operator");
  reply->status = 200;
  reply->content_type = "application/json";
  reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "{\"kicked\":%lld}\n", id);
}

// "<ipv4>/<seconds>" into ip (text, cap 16) and its network-order value; -1 if malformed.
static long long parse_ban(const char* arg, char* ip, uint32_t* ip_net) {
  const char* slash = strchr(arg, '/');
  if (slash == NULL || slash - arg >= 16) return -1;
  memcpy(ip, arg, (size_t)(slash - arg));
  ip[slash - arg] = '\0';
  struct in_addr in;
  if (inet_pton(AF_INET, ip, &in) != 1) return -1;  // dotted quads only
  *ip_net = in.s_addr;
  return number(slash + 1, 0, SV_ADMIN_MAX_BAN_S);
}

// POST /admin/ban/<ipv4>/<seconds>: nothing from the address reaches the server for that
// long and its connections are kicked; 0 seconds lifts the ban.
static void ban(sv_server* s, const char* arg, sv_http_reply* reply) {
  char ip[16];
  uint32_t ip_net = 0;
  long long seconds = parse_ban(arg, ip, &ip_net);
  if (seconds < 0) {
    text(reply, 400,
         "bad request: POST /admin/ban/<IPv4 address>/<seconds 0.." SV_ADMIN_MAX_BAN_TEXT ">\n");
    return;
  }
  s->metrics.admin_actions_total[SV_ADMIN_BAN]++;
  bool was = sv_net_ban(&s->net, ip_net, (uint64_t)seconds * 1000u);
  int kicked = 0;
  for (int i = 0; seconds > 0 && i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state == SV_SESSION_FREE || ss->state == SV_SESSION_CLOSING || ss->ip != ip_net)
      continue;
    sv_session_kick(s, ss, ARB_PROTO_REASON_KICKED, "address banned by the operator");
    ++kicked;
  }
  s->metrics.bans_active = sv_net_ban_count(&s->net);
  SV_LOG(&s->log, SV_LOG_INFO, "admin_ban", SV_LS("ip", ip), SV_LI("seconds", (int)seconds),
         SV_LI("was_banned", was ? 1 : 0), SV_LI("kicked", kicked));
  reply->status = 200;
  reply->content_type = "application/json";
  reply->body_len =
      (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY,
                       "{\"ip\":\"%s\",\"seconds\":%lld,\"was_banned\":%s,\"kicked\":%d}\n", ip,
                       seconds, was ? "true" : "false", kicked);
}

static void drain(sv_server* s, sv_http_reply* reply) {
  s->metrics.admin_actions_total[SV_ADMIN_DRAIN]++;
  bool started = sv_lifecycle_drain(s, "http");
  SV_LOG(&s->log, SV_LOG_INFO, "admin_drain", SV_LI("started", started ? 1 : 0));
  reply->status = 202;
  reply->content_type = "application/json";
  reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "{\"state\":\"%s\"}\n",
                                     sv_match_state_name(s->life.match.state));
}

#define ENDPOINTS                                                        \
  "operator endpoints: GET /admin/sessions, POST /admin/kick/<client>, " \
  "POST /admin/ban/<ip>/<seconds>, POST /admin/drain, POST "             \
  "/admin/migrate/<ip>:<port>[/<ip>:<port>][?ws=<url>]\n"

// Percent-decodes the value of `name` in a query string into out; false when absent,
// malformed or too long.
static bool query_value(const char* query, const char* name, char* out, size_t cap) {
  size_t nl = strlen(name);
  for (const char* p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
    if (strncmp(p, name, nl) != 0 || p[nl] != '=') continue;
    size_t n = 0;
    for (const char* v = p + nl + 1; *v && *v != '&'; v++) {
      unsigned hex = 0;
      char c = *v;
      if (c == '%') {
        if (!isxdigit((unsigned char)v[1]) || !isxdigit((unsigned char)v[2]) ||
            sscanf(v + 1, "%2x", &hex) != 1)
          return false;
        c = (char)hex;
        v += 2;
      }
      if (n + 1 >= cap || c == '\0') return false;
      out[n++] = c;
    }
    out[n] = '\0';
    return true;
  }
  return false;
}

// POST /admin/migrate/<ip>:<port>[/<ip>:<port>][?ws=<url>]: the match moves to the server
// whose --migrate-port the first address is (the second: where its ENet clients reach it;
// ws: the ws:// or wss:// URL its WebSocket clients reach it at, percent-encoded or not).
// 202 once the transfer started; the outcome is logged (migrate_confirmed: the clients
// were told where to go and this server stops; migrate_failed: the match goes on here).
static void migrate(sv_server* s, const char* target, const char* query, sv_http_reply* reply) {
  char err[192], spec[sizeof s->cfg.migrate_to], ws[ARB_PROTO_MAX_TEXT + 1] = "";
  if (query[0] && !query_value(query, "ws", ws, sizeof ws)) {
    reply->status = 400;
    reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY,
                                       "cannot migrate: the query may only be ws=<url>, a "
                                       "ws:// or wss:// URL of at most %d bytes\n",
                                       ARB_PROTO_MAX_TEXT);
    return;
  }
  if ((size_t)snprintf(spec, sizeof spec, "%s%s%s", target, ws[0] ? "?ws=" : "", ws) >= sizeof spec)
    spec[0] = '\0';  // refused below as a malformed target
  if (sv_migrate_begin(s, spec, err, sizeof err) != 0) {
    reply->status = 409;
    reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "cannot migrate: %s\n", err);
    return;
  }
  SV_LOG(&s->log, SV_LOG_INFO, "admin_migrate", SV_LS("target", target));
  reply->status = 202;
  reply->content_type = "application/json";
  reply->body_len =
      (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "{\"state\":\"migrating\",\"tick\":%llu}\n",
                       (unsigned long long)s->mig.tick);
}

bool sv_admin_handle(sv_server* s, const sv_http_request* req, sv_http_reply* reply) {
  if (strncmp(req->path, "/admin/", 7) != 0) return false;
  if (s->life.admin_token[0] == '\0') {
    text(reply, 404, "not found: operator endpoints are off (start with --admin-token FILE)\n");
    return true;
  }
  if (!sv_admin_authorized(s->life.admin_token, req->authorization)) {
    s->metrics.admin_requests_total[0]++;
    SV_LOG(&s->log, SV_LOG_WARN, "admin_refused", SV_LS("path", req->path));
    text(reply, 401, "unauthorized: send Authorization: Bearer <token>\n");
    return true;
  }
  const char* what = req->path + 7;
  bool post = strcmp(req->method, "POST") == 0;
  bool get = strcmp(req->method, "GET") == 0 || req->head;
  bool known = !strcmp(what, "sessions") || !strcmp(what, "drain") || !strncmp(what, "kick/", 5) ||
               !strncmp(what, "ban/", 4) || !strncmp(what, "migrate/", 8);
  if (!known) {
    text(reply, 404, "not found; " ENDPOINTS);
    return true;
  }
  bool wants_get = !strcmp(what, "sessions");
  if (wants_get ? !get : !post) {
    text(reply, 405, wants_get ? "GET only\n" : "POST only\n");
    return true;
  }
  s->metrics.admin_requests_total[1]++;
  if (wants_get) {
    s->metrics.admin_actions_total[SV_ADMIN_SESSIONS]++;
    list_sessions(s, reply);
  } else if (!strcmp(what, "drain")) {
    drain(s, reply);
  } else if (!strncmp(what, "migrate/", 8)) {
    migrate(s, what + 8, req->query, reply);
  } else if (!strncmp(what, "kick/", 5)) {
    kick(s, what + 5, reply);
  } else {
    ban(s, what + 4, reply);
  }
  return true;
}
