// Operator endpoints (see sv_admin.h).
#include "sv_admin.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sv_lifecycle.h"
#include "sv_server.h"

#define TOKEN_MIN 16
#define TOKEN_MAX 512

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
  if (strcmp(req->path, "/admin/drain") != 0) {
    text(reply, 404, "not found; operator endpoints: POST /admin/drain\n");
    return true;
  }
  if (strcmp(req->method, "POST") != 0) {
    text(reply, 405, "POST only\n");
    return true;
  }
  s->metrics.admin_requests_total[1]++;
  bool started = sv_lifecycle_drain(s, "http");
  SV_LOG(&s->log, SV_LOG_INFO, "admin_drain", SV_LI("started", started ? 1 : 0));
  reply->status = 202;
  reply->content_type = "application/json";
  reply->body_len = (size_t)snprintf(reply->body, SV_HTTP_MAX_BODY, "{\"state\":\"%s\"}\n",
                                     sv_match_state_name(s->life.match.state));
  return true;
}
