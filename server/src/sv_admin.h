// Operator endpoints on the HTTP port, behind a bearer token read from --admin-token FILE:
//
//   GET  /admin/sessions                 -> 200 JSON: sessions and rejoin holds
//   POST /admin/kick/<client>            -> 200 {"kicked":id}, 404 unknown client
//   POST /admin/ban/<ipv4>/<seconds>     -> 200 JSON; 0 seconds lifts the ban
//   POST /admin/drain                    -> 202 {"state":"draining"}
//
// each with Authorization: Bearer <token>; every action is logged and counted
// (arbiter_admin_actions_total).
// Without --admin-token every /admin/ path answers 404 (the endpoints do not exist); a
// missing or wrong token answers 401 and is counted (arbiter_admin_requests_total).
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "sv_http.h"

struct sv_server;

/// Read the token: the file's first line, 16..512 visible ASCII characters. Returns 0, or
/// -1 with a message in err.
int sv_admin_load_token(const char* path, char* out, size_t cap, char* err, size_t err_cap);
/// True when `authorization` is exactly "Bearer <token>" (compared in constant time).
bool sv_admin_authorized(const char* token, const char* authorization);
/// Answer req if its path is under /admin/; returns false (reply untouched) otherwise.
bool sv_admin_handle(struct sv_server* s, const sv_http_request* req, sv_http_reply* reply);
