// Agones SDK REST client (see sv_agones.h).
#include "sv_agones.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#define CALL_TIMEOUT_MS 2000
#define RETRY_DELAY_MS 500
#define WATCH_RETRY_MS 1000
// The sidecar may come up after the game server: keep trying /ready for a minute.
#define READY_ATTEMPTS 120
#define CALL_ATTEMPTS 6

// ---- GameServer JSON ------------------------------------------------------------------------

static void copy_str(char* dst, size_t cap, const char* src) {
  snprintf(dst, cap, "%s", src ? src : "");
}

int sv_agones_parse_gameserver(const char* json, size_t len, sv_agones_gameserver* out, char* err,
                               size_t err_cap) {
  memset(out, 0, sizeof *out);
  json_error_t jerr;
  json_t* root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL) {
    snprintf(err, err_cap, "not JSON: %s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
    return -1;
  }
  int rc = -1;
  json_t* gs = root;
  if (!json_is_object(root)) {
    snprintf(err, err_cap, "not a JSON object");
    goto done;
  }
  // A watch line wraps the GameServer: {"result": {...}} or {"error": {...}}.
  json_t* error = json_object_get(root, "error");
  if (error) {
    json_t* msg = json_object_get(error, "message");
    snprintf(err, err_cap, "the SDK server reported an error: %s",
             json_is_string(msg) ? json_string_value(msg) : "?");
    goto done;
  }
  json_t* result = json_object_get(root, "result");
  if (result) gs = result;
  if (!json_is_object(gs)) {
    snprintf(err, err_cap, "\"result\" is not an object");
    goto done;
  }
  json_t* meta = json_object_get(gs, "object_meta");
  json_t* status = json_object_get(gs, "status");
  if ((meta && !json_is_object(meta)) || (status && !json_is_object(status))) {
    snprintf(err, err_cap, "object_meta or status is not an object");
    goto done;
  }
  json_t* name = meta ? json_object_get(meta, "name") : NULL;
  if (json_is_string(name)) copy_str(out->name, sizeof out->name, json_string_value(name));
  json_t* state = status ? json_object_get(status, "state") : NULL;
  if (state && !json_is_string(state)) {
    snprintf(err, err_cap, "status.state is not a string");
    goto done;
  }
  if (state) copy_str(out->state, sizeof out->state, json_string_value(state));
  json_t* ann = meta ? json_object_get(meta, "annotations") : NULL;
  if (json_is_object(ann)) {
    const char* key;
    json_t* value;
    json_object_foreach(ann, key, value) {
      static const char prefix[] = "arbiter.dev/";
      if (strncmp(key, prefix, sizeof prefix - 1) != 0 || !json_is_string(value)) continue;
      if (out->annotation_count >= SV_AGONES_MAX_ANNOTATIONS) break;
      const char* k = key + sizeof prefix - 1;
      const char* v = json_string_value(value);
      // Longer than we keep: ignore rather than act on a truncated value.
      if (strlen(k) >= sizeof out->annotations[0].key ||
          strlen(v) >= sizeof out->annotations[0].value)
        continue;
      copy_str(out->annotations[out->annotation_count].key, sizeof out->annotations[0].key, k);
      copy_str(out->annotations[out->annotation_count].value, sizeof out->annotations[0].value, v);
      out->annotation_count++;
    }
  }
  rc = 0;
done:
  json_decref(root);
  return rc;
}

void sv_agones_label_value(const char* in, char out[64]) {
  size_t n = 0;
  for (const char* p = in; *p && n < 63; ++p) {
    char c = *p;
    out[n++] = (isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-') ? c : '-';
  }
  out[n] = '\0';
  // Must begin and end with an alphanumeric character.
  while (n > 0 && !isalnum((unsigned char)out[n - 1])) out[--n] = '\0';
  size_t start = 0;
  while (start < n && !isalnum((unsigned char)out[start])) ++start;
  memmove(out, out + start, n - start + 1);
}

// ---- the call queue ---------------------------------------------------------------------------

static void pump(sv_agones* a);
static void close_all(sv_agones* a);

static void close_timer(uv_timer_t* t) {
  if (!uv_is_closing((uv_handle_t*)t)) uv_close((uv_handle_t*)t, NULL);
}

static bool enqueue(sv_agones* a, const char* method, const char* path, const char* body) {
  if (a->closed) return false;
  if (a->count >= SV_AGONES_QUEUE) {
    a->metrics->agones_errors_total++;
    SV_LOG(a->log, SV_LOG_WARN, "agones_queue_full", SV_LS("path", path));
    return false;
  }
  sv_agones_call* c = &a->queue[(a->head + a->count) % SV_AGONES_QUEUE];
  memset(c, 0, sizeof *c);
  copy_str(c->method, sizeof c->method, method);
  copy_str(c->path, sizeof c->path, path);
  copy_str(c->body, sizeof c->body, body ? body : "{}");
  a->count++;
  pump(a);
  return true;
}

static void pop(sv_agones* a) {
  if (a->count == 0) return;
  if (strcmp(a->queue[a->head].path, "/health") == 0) a->health_queued = false;
  a->head = (a->head + 1) % SV_AGONES_QUEUE;
  a->count--;
}

static void on_retry(uv_timer_t* t) {
  sv_agones* a = t->data;
  a->retry_pending = false;
  pump(a);
}

// A GameServer document (a GET reply or a watch line) to on_gameserver; a malformed one
// is logged and dropped.
static void deliver_gameserver(sv_agones* a, const char* json, size_t len) {
  sv_agones_gameserver gs;
  char err[160];
  if (sv_agones_parse_gameserver(json, len, &gs, err, sizeof err) == 0)
    a->on_gameserver(a->user, &gs);
  else
    SV_LOG(a->log, SV_LOG_WARN, "agones_bad_gameserver", SV_LS("error", err));
}

static void call_done(void* user, int status, const char* body, size_t len) {
  sv_agones* a = user;
  a->in_flight = NULL;
  sv_agones_call* c = &a->queue[a->head];
  a->metrics->agones_calls_total++;
  if (status < 0) {
    // The sidecar is not up (yet), or did not answer in time: try again shortly.
    int limit = strcmp(c->path, "/ready") == 0 ? READY_ATTEMPTS : CALL_ATTEMPTS;
    if (++c->attempts < limit && !a->closed) {
      if (c->attempts == 1 || c->attempts % 20 == 0)
        SV_LOG(a->log, SV_LOG_WARN, "agones_unreachable", SV_LS("path", c->path),
               SV_LS("error", uv_strerror(status)), SV_LI("attempt", c->attempts),
               SV_LI("port", a->port));
      a->retry_pending = true;
      uv_timer_start(&a->retry_timer, on_retry, RETRY_DELAY_MS, 0);
      return;
    }
    a->metrics->agones_errors_total++;
    SV_LOG(a->log, SV_LOG_ERROR, "agones_call_failed", SV_LS("method", c->method),
           SV_LS("path", c->path), SV_LS("error", uv_strerror(status)),
           SV_LI("attempts", c->attempts));
  } else if (status != 200) {
    a->metrics->agones_errors_total++;
    char snippet[128];
    snprintf(snippet, sizeof snippet, "%.*s", (int)(len < 120 ? len : 120), body);
    SV_LOG(a->log, SV_LOG_WARN, "agones_call_rejected", SV_LS("method", c->method),
           SV_LS("path", c->path), SV_LI("status", status), SV_LS("body", snippet));
  } else {
    SV_LOG(a->log, SV_LOG_DEBUG, "agones_call", SV_LS("method", c->method), SV_LS("path", c->path));
    if (strcmp(c->path, "/gameserver") == 0) deliver_gameserver(a, body, len);
  }
  pop(a);
  pump(a);
}

static void pump(sv_agones* a) {
  if (a->closed) return;
  if (a->count == 0) {
    if (a->shutting_down) close_all(a);
    return;
  }
  if (a->in_flight || a->retry_pending) return;
  sv_agones_call* c = &a->queue[a->head];
  sv_httpc_request req = {a->port, c->method, c->path, c->body, CALL_TIMEOUT_MS,
                          NULL,    call_done, a,       NULL};
  a->in_flight = sv_httpc_start(a->loop, &req);
  if (a->in_flight == NULL) {
    a->metrics->agones_errors_total++;
    SV_LOG(a->log, SV_LOG_ERROR, "agones_call_failed", SV_LS("path", c->path),
           SV_LS("error", "cannot start"));
    pop(a);
    pump(a);
  }
}

// ---- the watch --------------------------------------------------------------------------------

static void start_watch(sv_agones* a);

static void on_watch_timer(uv_timer_t* t) {
  start_watch(t->data);
}

static void watch_line(void* user, const char* line, size_t len) {
  sv_agones* a = user;
  if (len > 0) deliver_gameserver(a, line, len);
}

static void watch_done(void* user, int status, const char* body, size_t len) {
  sv_agones* a = user;
  (void)body;
  (void)len;
  a->watch = NULL;
  if (!a->watching || a->closed) return;
  SV_LOG(a->log, SV_LOG_DEBUG, "agones_watch_ended", SV_LI("status", status));
  uv_timer_start(&a->watch_timer, on_watch_timer, WATCH_RETRY_MS, 0);
}

static void start_watch(sv_agones* a) {
  if (!a->watching || a->closed || a->watch) return;
  sv_httpc_request req = {a->port, "GET", "/watch/gameserver", NULL, 0, watch_line, watch_done,
                          a,       NULL};
  a->watch = sv_httpc_start(a->loop, &req);
  if (a->watch == NULL) uv_timer_start(&a->watch_timer, on_watch_timer, WATCH_RETRY_MS, 0);
}

// ---- public -----------------------------------------------------------------------------------

int sv_agones_init(sv_agones* a, uv_loop_t* loop, int port, uint32_t health_ms, sv_log* log,
                   sv_metrics* metrics, sv_agones_gameserver_fn* on_gameserver, void* user) {
  memset(a, 0, sizeof *a);
  a->loop = loop;
  a->port = port;
  a->health_period_ns = (uint64_t)health_ms * 1000000u;
  a->log = log;
  a->metrics = metrics;
  a->on_gameserver = on_gameserver;
  a->user = user;
  uv_timer_init(loop, &a->retry_timer);
  uv_timer_init(loop, &a->watch_timer);
  uv_timer_init(loop, &a->deadline_timer);
  a->retry_timer.data = a->watch_timer.data = a->deadline_timer.data = a;
  return 0;
}

void sv_agones_ready(sv_agones* a, const char* scene, const char* build) {
  enqueue(a, "POST", "/ready", "{}");
  char body[160], value[64];
  sv_agones_label_value(scene, value);
  snprintf(body, sizeof body, "{\"key\":\"scene\",\"value\":\"%s\"}", value);
  enqueue(a, "PUT", "/metadata/label", body);
  sv_agones_label_value(build, value);
  snprintf(body, sizeof body, "{\"key\":\"build\",\"value\":\"%s\"}", value);
  enqueue(a, "PUT", "/metadata/label", body);
  enqueue(a, "GET", "/gameserver", NULL);
  a->watching = true;
  start_watch(a);
}

void sv_agones_set_annotation(sv_agones* a, const char* key, const char* value) {
  char body[sizeof a->queue[0].body];
  size_t n = (size_t)snprintf(body, sizeof body, "{\"key\":\"%s\",\"value\":\"", key);
  const char* p = value;
  // Each character takes at most 6 bytes escaped; keep room for the closing "} and NUL.
  for (; *p && n + 6 + 3 <= sizeof body; ++p) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\')
      n += (size_t)snprintf(body + n, sizeof body - n, "\\%c", c);
    else if (c < 0x20)
      n += (size_t)snprintf(body + n, sizeof body - n, "\\u%04x", c);
    else
      body[n++] = (char)c;
  }
  if (*p != '\0') {  // only whole values
    SV_LOG(a->log, SV_LOG_WARN, "agones_annotation_skipped", SV_LS("key", key),
           SV_LS("why", "value too long"));
    return;
  }
  memcpy(body + n, "\"}", 3);
  enqueue(a, "PUT", "/metadata/annotation", body);
}

void sv_agones_health(sv_agones* a, uint64_t now_ns) {
  if (a->closed || a->shutting_down || a->health_queued) return;
  if (a->last_health_ns != 0 && now_ns - a->last_health_ns < a->health_period_ns) return;
  a->last_health_ns = now_ns;
  // Set before the call: pump may answer it (and clear the flag) before enqueue returns.
  a->health_queued = true;
  if (!enqueue(a, "POST", "/health", "{}")) a->health_queued = false;
}

void sv_agones_ready_again(sv_agones* a) {
  if (!a->shutting_down) enqueue(a, "POST", "/ready", "{}");
}

void sv_agones_allocate(sv_agones* a) {
  if (!a->shutting_down) enqueue(a, "POST", "/allocate", "{}");
}

void sv_agones_player(sv_agones* a, bool connected, uint32_t client_id) {
  if (a->shutting_down) return;
  char body[64];
  snprintf(body, sizeof body, "{\"playerID\":\"%u\"}", client_id);
  enqueue(a, "POST", connected ? "/alpha/player/connect" : "/alpha/player/disconnect", body);
}

static void on_deadline(uv_timer_t* t) {
  sv_agones* a = t->data;
  SV_LOG(a->log, SV_LOG_WARN, "agones_shutdown_timeout", SV_LI("calls_left", a->count));
  close_all(a);
}

void sv_agones_shutdown(sv_agones* a, uint32_t deadline_ms) {
  if (a->shutting_down || a->closed) return;
  a->watching = false;
  if (a->watch) sv_httpc_cancel(a->watch);
  a->watch = NULL;
  uv_timer_stop(&a->watch_timer);
  enqueue(a, "POST", "/shutdown", "{}");
  a->shutting_down = true;
  uv_timer_start(&a->deadline_timer, on_deadline, deadline_ms, 0);
  pump(a);
}

static void close_all(sv_agones* a) {
  if (a->closed) return;
  a->closed = true;
  a->watching = false;
  if (a->in_flight) sv_httpc_cancel(a->in_flight);
  if (a->watch) sv_httpc_cancel(a->watch);
  a->in_flight = a->watch = NULL;
  close_timer(&a->retry_timer);
  close_timer(&a->watch_timer);
  close_timer(&a->deadline_timer);
}
