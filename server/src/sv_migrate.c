// Moving a running match to another server (see sv_migrate.h).
#include "sv_migrate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sv_admin.h"
#include "sv_migrate_image.h"
#include "sv_migrate_settle.h"
#include "sv_server.h"

_Static_assert(SV_MIG_MATCH_READY == SV_MATCH_READY && SV_MIG_MATCH_DRAINING == SV_MATCH_DRAINING,
               "the image's match states are sv_match_state's");

#define WIRE_HEADER 8
#define WIRE_MAX_CREDENTIAL 512
#define WIRE_PREFIX_MAX (WIRE_HEADER + 2 + WIRE_MAX_CREDENTIAL + 4)

static uint64_t ms_ns(uint64_t ms) {
  return ms * 1000000u;
}

// "a.b.c.d:port" into a socket address; false when it is not one.
static bool parse_target(const char* text, struct sockaddr_in* out) {
  char host[32];
  const char* colon = strrchr(text, ':');
  if (colon == NULL || colon - text >= (long)sizeof host) return false;
  memcpy(host, text, (size_t)(colon - text));
  host[colon - text] = '\0';
  char* end = NULL;
  long port = strtol(colon + 1, &end, 10);
  if (*end != '\0' || port < 1 || port > 65535) return false;
  memset(out, 0, sizeof *out);
  out->sin_family = AF_INET;
  out->sin_port = htons((uint16_t)port);
  return inet_pton(AF_INET, host, &out->sin_addr) == 1;
}

// ---- sending (the worker thread: blocking I/O with deadlines, nothing of the server) ----

static int wait_fd(int fd, short events, uint64_t deadline_ns) {
  uint64_t now = uv_hrtime();
  if (now >= deadline_ns) return 0;
  struct pollfd p = {fd, events, 0};
  int ms = (int)((deadline_ns - now) / 1000000u) + 1;
  int rc;
  do rc = poll(&p, 1, ms);
  while (rc < 0 && errno == EINTR);
  return rc;
}

static void send_work(uv_work_t* w) {
  sv_migrate* m = &((sv_server*)w->data)->mig;
  uint64_t deadline = uv_hrtime() + ms_ns(SV_MIG_CONFIRM_MS);
  struct sockaddr_in addr;
  m->answered_ok = false;
  if (!parse_target(m->target, &addr)) {
    snprintf(m->answer, sizeof m->answer, "bad target address");
    return;
  }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    snprintf(m->answer, sizeof m->answer, "socket: %s", strerror(errno));
    return;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  const char* failed = NULL;
  if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0 && errno != EINPROGRESS) {
    failed = "connect";
  } else if (wait_fd(fd, POLLOUT, deadline) <= 0) {
    failed = "connect (no answer in time)";
  } else {
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
    if (soerr != 0) {
      errno = soerr;
      failed = "connect";
    }
  }
  for (size_t done = 0; failed == NULL && done < m->image_len;) {
    ssize_t n = send(fd, m->image + done, m->image_len - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += (size_t)n;
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (wait_fd(fd, POLLOUT, deadline) <= 0) failed = "send (receiver too slow)";
    } else {
      failed = "send";
    }
  }
  size_t got = 0;
  while (failed == NULL && got + 1 < sizeof m->answer && memchr(m->answer, '\n', got) == NULL) {
    if (wait_fd(fd, POLLIN, deadline) <= 0) {
      failed = "no confirmation in time";
      break;
    }
    ssize_t n = recv(fd, m->answer + got, sizeof m->answer - 1 - got, 0);
    if (n > 0)
      got += (size_t)n;
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
      failed = "connection closed before a confirmation";
  }
  if (failed != NULL) {
    int e = errno;
    snprintf(m->answer, sizeof m->answer, "%s: %s", failed, strerror(e));
  } else {
    m->answer[strcspn(m->answer, "\n")] = '\0';
    m->answered_ok = strncmp(m->answer, "ok ", 3) == 0;
  }
  // The connection stays open while the move settles (the receiver reports the first
  // arrival on it).
  if (m->answered_ok)
    m->fd = fd;
  else
    close(fd);
}

static void send_moved(sv_server* s) {
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state != SV_SESSION_ACTIVE) continue;
    arb_proto_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ARB_PROTO_EVENT_MOVED;
    ev.tick = (uint32_t)s->mig.tick;
    ev.client_id = ss->client_id;
    ev.entity_id = ss->entity_id;
    // A WebSocket client goes to a URL; without one it is told the UDP address it cannot
    // follow (and reconnects to its own URL when this server is gone).
    bool ws = ss->link.kind == SV_LINK_WS && s->mig.ws_url[0] != '\0';
    snprintf(ev.text, sizeof ev.text, "%s", ws ? s->mig.ws_url : s->mig.client_addr);
    int n = arb_proto_encode_event(&ev, s->msg_buf, s->msg_buf_cap);
    if (n > 0 && (size_t)n <= s->msg_buf_cap) sv_session_send_control(s, ss, s->msg_buf, (size_t)n);
  }
  sv_net_flush(&s->net);
}

static void send_done(uv_work_t* w, int status) {
  sv_server* s = w->data;
  sv_migrate* m = &s->mig;
  free(m->image);
  m->image = NULL;
  uint64_t now = uv_hrtime();
  unsigned port = 0, ws_port = 0;
  if (status == 0 && m->answered_ok &&
      sscanf(m->answer, "ok tick=%*u port=%u ws_port=%u", &port, &ws_port) >= 1 && port > 0 &&
      port <= 65535) {
    // Unless the operator named the clients' addresses, they go to the receiver's host (the
    // target's) at its UDP port, and at its WebSocket port when it has one.
    size_t host_len = strcspn(m->target, ":");
    if (m->client_addr[0] == '\0')
      snprintf(m->client_addr, sizeof m->client_addr, "%.*s:%u", (int)host_len, m->target, port);
    if (m->ws_url[0] == '\0' && ws_port > 0 && ws_port <= 65535)
      snprintf(m->ws_url, sizeof m->ws_url, "ws://%.*s:%u/", (int)host_len, m->target, ws_port);
    m->state = SV_MIG_MOVED;
    m->moved_ns = now;
    SV_LOG(&s->log, SV_LOG_INFO, "migrate_confirmed", SV_LS("target", m->target),
           SV_LS("clients_to", m->client_addr), SV_LS("ws_clients_to", m->ws_url),
           SV_LU("tick", m->tick), SV_LU("pause_ms", (now - m->pause_ns) / 1000000u));
    send_moved(s);
    sv_mig_settle_start(s);
    return;
  }
  if (m->fd >= 0) close(m->fd);
  m->fd = -1;
  SV_LOG(&s->log, SV_LOG_ERROR, "migrate_failed", SV_LS("target", m->target),
         SV_LS("why", status != 0 ? "the transfer could not run" : m->answer),
         SV_LU("tick", m->tick),
         SV_LS("detail",
               m->stop_if_failed ? "stopping as without the move" : "the match goes on here"));
  sv_mig_resume(s);
}

static int encode_transfer(sv_server* s, char* err, size_t err_cap) {
  sv_migrate* m = &s->mig;
  int game_len = arb_game_save(s->game, NULL, 0);
  if (game_len <= 0) {
    snprintf(err, err_cap, "cannot save the game: %s", arb_strerror(game_len));
    return -1;
  }
  uint8_t* game = malloc((size_t)game_len);
  sv_mig_player* players = calloc((size_t)s->cfg.max_clients + 1, sizeof *players);
  if (game == NULL || players == NULL || arb_game_save(s->game, game, game_len) != game_len) {
    free(game);
    free(players);
    snprintf(err, err_cap, "out of memory saving the game");
    return -1;
  }
  sv_mig_image img;
  memset(&img, 0, sizeof img);
  img.sim_version = arb_game_sim_version();
  img.scene_hash = arb_scene_get_hash(s->scene);
  img.seed = s->cfg.seed;
  img.tick = arb_game_get_tick(s->game);
  img.game_hash = arb_game_hash(s->game);
  if (!strcmp(s->cfg.test_migrate_fault, "version")) img.sim_version ^= 1;
  if (!strcmp(s->cfg.test_migrate_fault, "hash")) img.game_hash ^= 1;
  img.tick_rate = (uint16_t)s->tick_rate;
  img.next_client_id = s->next_client_id;
  // The match's lifecycle travels with it: its state, how long it has run (and drained),
  // and the limits it runs under (from the command line or the allocation).
  const sv_match* mt = &s->life.match;
  uint64_t now = uv_hrtime();
  img.match_state = mt->state == SV_MATCH_ALLOCATED || mt->state == SV_MATCH_DRAINING
                        ? (uint8_t)mt->state
                        : (uint8_t)SV_MATCH_READY;
  img.match_age_ns = img.match_state >= SV_MATCH_ALLOCATED ? now - mt->allocated_ns : 0;
  img.drain_age_ns = img.match_state == SV_MATCH_DRAINING ? now - mt->drain_ns : 0;
  img.max_duration_ns = mt->limits.max_duration_ns;
  img.exit_when_empty_ns = mt->limits.exit_when_empty_ns;
  img.drain_timeout_ns = mt->limits.drain_timeout_ns;
  // The predecessor log is named by path; a longer path than the image holds is left out.
  if (s->recording && strlen(s->record.path) <= SV_MIG_MAX_PATH)
    memcpy(img.record_path, s->record.path, strlen(s->record.path) + 1);
  // Playing sessions and avatars held for a rejoin: each keeps its avatar and its token.
  int n = 0;
  for (int i = 0; i < s->session_count && n < s->cfg.max_clients; ++i) {
    const sv_session* ss = &s->sessions[i];
    if (ss->state != SV_SESSION_ACTIVE || ss->spectator || ss->rejoin_token[0] == '\0') continue;
    players[n++] = (sv_mig_player){
        ss->client_id, ss->entity_id, ss->avatar_kind, ss->has_token, ss->token_client_id, "", ""};
    snprintf(players[n - 1].name, sizeof players[n - 1].name, "%s", ss->name);
    snprintf(players[n - 1].rejoin_token, sizeof players[n - 1].rejoin_token, "%s",
             ss->rejoin_token);
  }
  for (int i = 0; i < s->cfg.max_clients && n < s->cfg.max_clients; ++i) {
    const sv_rejoin* r = &s->rejoins[i];
    if (!r->used) continue;
    players[n++] = (sv_mig_player){
        r->client_id, r->entity_id, r->avatar_kind, r->has_token, r->token_client_id, "", ""};
    snprintf(players[n - 1].name, sizeof players[n - 1].name, "%s", r->name);
    snprintf(players[n - 1].rejoin_token, sizeof players[n - 1].rejoin_token, "%s", r->token);
  }
  img.players = players;
  img.player_count = n;
  img.game = game;
  img.game_len = (size_t)game_len;
  size_t len = sv_mig_image_size(&img);
  size_t cred = strlen(s->life.admin_token);
  m->image = len ? malloc(WIRE_HEADER + 2 + cred + 4 + len) : NULL;
  size_t pos = 0;
  if (m->image != NULL) {
    memcpy(m->image, SV_MIG_WIRE_MAGIC, WIRE_HEADER);
    pos = WIRE_HEADER;
    m->image[pos++] = (uint8_t)cred;
    m->image[pos++] = (uint8_t)(cred >> 8);
    memcpy(m->image + pos, s->life.admin_token, cred);
    pos += cred;
    for (int b = 0; b < 4; ++b) m->image[pos++] = (uint8_t)(len >> (8 * b));
    if (sv_mig_image_encode(&img, m->image + pos, len) != len) {
      free(m->image);
      m->image = NULL;
    }
  }
  free(game);
  free(players);
  if (m->image == NULL) {
    snprintf(err, err_cap, "cannot encode the state image");
    return -1;
  }
  m->image_len = pos + len;
  m->tick = img.tick;
  SV_LOG(&s->log, SV_LOG_INFO, "migrate_started", SV_LS("target", m->target),
         SV_LU("tick", img.tick), SV_LI("players", n), SV_LU("image_bytes", len),
         SV_LX("hash", img.game_hash));
  return 0;
}

// A WebSocket URL for the clients' `moved` event: ws:// or wss://, printable ASCII, fits.
static bool valid_ws_url(const char* url, char* out, size_t cap) {
  size_t n = strlen(url);
  if (n >= cap || (strncmp(url, "ws://", 5) != 0 && strncmp(url, "wss://", 6) != 0)) return false;
  for (size_t i = 0; i < n; i++)
    if (url[i] <= ' ' || url[i] > '~') return false;
  memcpy(out, url, n + 1);
  return true;
}

// "<migrate address>[/<clients' address>][?ws=<WebSocket clients' URL>]", the addresses
// "ipv4:port", into its parts (ws_url "" when not given); false with the reason in err.
static bool split_spec(const char* spec, char target[24], char clients[64],
                       char ws_url[ARB_PROTO_MAX_TEXT + 1], char* err, size_t err_cap) {
  struct sockaddr_in addr;
  const char* query = strstr(spec, "?ws=");
  size_t sl = query ? (size_t)(query - spec) : strlen(spec);
  ws_url[0] = '\0';
  if (query && !valid_ws_url(query + 4, ws_url, ARB_PROTO_MAX_TEXT + 1)) {
    snprintf(err, err_cap, "?ws= needs a ws:// or wss:// URL of at most %d printable bytes",
             ARB_PROTO_MAX_TEXT);
    return false;
  }
  const char* slash = memchr(spec, '/', sl);
  size_t tl = slash ? (size_t)(slash - spec) : sl;
  if (tl < 24 && (!slash || (size_t)(spec + sl - slash - 1) < 64)) {
    memcpy(target, spec, tl);
    target[tl] = '\0';
    snprintf(clients, 64, "%.*s", slash ? (int)(spec + sl - slash - 1) : 0, slash ? slash + 1 : "");
    if (parse_target(target, &addr) && (clients[0] == '\0' || parse_target(clients, &addr)))
      return true;
  }
  snprintf(err, err_cap, "the target must be <IPv4 address>:<migrate port>[/<ip>:<port>]");
  return false;
}

int sv_migrate_begin(sv_server* s, const char* spec, char* err, size_t err_cap) {
  sv_migrate* m = &s->mig;
  char target[sizeof m->target], clients[sizeof m->client_addr], ws_url[sizeof m->ws_url];
  if (m->state != SV_MIG_IDLE || s->stopping) {
    snprintf(err, err_cap, "a hand-off is already under way or the server is stopping");
    return -1;
  }
  m->stop_if_failed = NULL;
  if (!split_spec(spec, target, clients, ws_url, err, err_cap)) return -1;
  snprintf(m->client_addr, sizeof m->client_addr, "%s", clients);
  memcpy(m->ws_url, ws_url, sizeof ws_url);
  if (s->life.admin_token[0] == '\0') {
    snprintf(err, err_cap,
             "moving a match needs --admin-token (the credential both servers share)");
    return -1;
  }
  memcpy(m->target, target, strlen(target) + 1);  // fits: checked above
  // Between ticks: the last tick is complete, the next one waits for the answer.
  if (encode_transfer(s, err, err_cap) != 0) return -1;
  m->state = SV_MIG_SENDING;
  m->pause_ns = uv_hrtime();
  m->work.data = s;
  if (uv_queue_work(s->loop, &m->work, send_work, send_done) != 0) {
    free(m->image);
    m->image = NULL;
    m->state = SV_MIG_IDLE;
    snprintf(err, err_cap, "cannot start the transfer");
    return -1;
  }
  return 0;
}

static bool any_active(const sv_server* s) {
  for (int i = 0; i < s->session_count; ++i)
    if (s->sessions[i].state == SV_SESSION_ACTIVE) return true;
  return false;
}

bool sv_migrate_paused(sv_server* s, uint64_t now_ns) {
  sv_migrate* m = &s->mig;
  if (m->state == SV_MIG_IDLE) return false;
  sv_net_service(&s->net);
  sv_net_flush(&s->net);
  if (m->state == SV_MIG_COMMITTED && !s->stopping &&
      (!any_active(s) || now_ns - m->commit_ns > ms_ns(SV_MIG_LINGER_MS)))
    sv_server_stop(s, "migrated");
  return true;
}

// ---- receiving ------------------------------------------------------------------------

static void answer(sv_server* s, const char* line);
static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);
static void on_conn_timeout(uv_timer_t* t);

static void conn_closed(uv_handle_t* h) {
  sv_server* s = h->data;
  free(s->mig.in);
  s->mig.in = NULL;
  s->mig.in_len = s->mig.in_cap = 0;
  s->mig.conn_open = false;
}

static void drop_conn(sv_server* s, const char* why) {
  sv_migrate* m = &s->mig;
  if (!m->conn_open || uv_is_closing((uv_handle_t*)&m->conn)) return;
  if (why != NULL)
    SV_LOG(&s->log, SV_LOG_WARN, "migrate_transfer_dropped", SV_LS("why", why),
           SV_LU("bytes", m->in_len));
  uv_timer_stop(&m->conn_timer);
  uv_read_stop((uv_stream_t*)&m->conn);
  uv_close((uv_handle_t*)&m->conn, conn_closed);
}

typedef struct answer_req {
  uv_write_t req;
  bool keep_open;
  char line[256];
} answer_req;

static void answer_written(uv_write_t* req, int status) {
  sv_server* s = req->data;
  bool keep = ((answer_req*)req)->keep_open && status == 0;
  free(req);
  if (!keep) drop_conn(s, NULL);
}

static void write_line(sv_server* s, const char* line, bool keep_open) {
  sv_migrate* m = &s->mig;
  if (!m->conn_open || uv_is_closing((uv_handle_t*)&m->conn)) return;
  answer_req* a = malloc(sizeof *a);
  if (a == NULL) {
    drop_conn(s, "out of memory");
    return;
  }
  snprintf(a->line, sizeof a->line, "%s\n", line);
  a->req.data = s;
  a->keep_open = keep_open;
  if (!keep_open) uv_read_stop((uv_stream_t*)&m->conn);
  uv_buf_t b = uv_buf_init(a->line, (unsigned)strlen(a->line));
  if (uv_write(&a->req, (uv_stream_t*)&m->conn, &b, 1, answer_written) != 0) {
    free(a);
    drop_conn(s, "cannot answer");
  }
}

// The last line on the connection: it closes once written.
static void answer(sv_server* s, const char* line) {
  write_line(s, line, false);
}

static void refuse(sv_server* s, const char* why) {
  SV_LOG(&s->log, SV_LOG_WARN, "migrate_refused", SV_LS("why", why));
  char line[256];
  snprintf(line, sizeof line, "refused %s", why);
  answer(s, line);
}

// Every check passed: the match is this server's from the next tick on.
static void take_over(sv_server* s, const sv_mig_image* img, uint64_t hash) {
  uint64_t now = uv_hrtime();
  int window = s->cfg.rejoin_window_ms > 0 ? s->cfg.rejoin_window_ms : 10000;
  for (int p = 0, i = 0; p < img->player_count; ++p) {
    while (s->rejoins[i].used) ++i;  // the table is empty: checked before
    const sv_mig_player* pl = &img->players[p];
    sv_rejoin_fill(&s->rejoins[i], pl->rejoin_token, pl->client_id, pl->entity_id, pl->avatar_kind,
                   pl->name, pl->has_token, pl->token_client_id, now + ms_ns((uint64_t)window));
    s->active_count++;
    s->metrics.rejoins_pending++;
  }
  if (img->next_client_id > s->next_client_id) s->next_client_id = img->next_client_id;
  // The match goes on under the sender's lifecycle: the same state, age and limits.
  sv_match* mt = &s->life.match;
  sv_match_limits limits = {img->max_duration_ns, img->exit_when_empty_ns, img->drain_timeout_ns};
  sv_match_set_limits(mt, &limits);
  if (img->match_state >= SV_MATCH_ALLOCATED) {
    sv_match_allocate(mt, now);
    mt->allocated_ns = now - img->match_age_ns;
  }
  if (img->match_state == SV_MATCH_DRAINING) {
    sv_match_drain(mt, now);
    mt->drain_ns = now - img->drain_age_ns;
  }
  if (mt->state == SV_MATCH_ALLOCATED || mt->state == SV_MATCH_DRAINING)
    sv_lifecycle_moved_in(s, true);
  s->last_hash = hash;
  s->metrics.tick = img->tick;
  s->mig.adopted = true;
  if (s->recording) sv_record_restart(&s->record, s->game, img->seed, img->record_path, now);
  SV_LOG(&s->log, SV_LOG_INFO, "migrate_adopted", SV_LU("tick", img->tick),
         SV_LI("players", img->player_count), SV_LX("hash", hash),
         SV_LS("match", sv_match_state_name(mt->state)),
         SV_LU("match_age_ms", img->match_age_ns / 1000000u),
         SV_LS("predecessor_log", img->record_path));
}

// The sender cancelled the move, or went away, before any player arrived: this server
// goes back to its own game, empty, ready for a match (a moved one too). Its log of the
// abandoned continuation is closed; a new file starts from its own game.
static void drop_adopted(sv_server* s, const char* why) {
  sv_migrate* m = &s->mig;
  if (!m->provisional) return;
  m->provisional = false;
  m->adopted = false;
  for (int i = 0; i < s->cfg.max_clients; ++i) {  // every hold is the moved match's
    if (!s->rejoins[i].used) continue;
    s->rejoins[i].used = false;
    s->active_count--;
    s->metrics.rejoins_pending--;
  }
  int rc = arb_game_restore(s->game, m->before, m->before_len);
  free(m->before);
  m->before = NULL;
  sv_lifecycle_reset_match(s);
  sv_lifecycle_moved_in(s, false);
  s->last_hash = arb_game_hash(s->game);
  s->metrics.tick = arb_game_get_tick(s->game);
  uint64_t now = uv_hrtime();
  if (s->recording) sv_record_restart(&s->record, s->game, s->cfg.seed, "", now);
  SV_LOG(&s->log, rc == 0 ? SV_LOG_WARN : SV_LOG_ERROR, "migrate_dropped", SV_LS("why", why),
         SV_LU("tick", s->metrics.tick), SV_LS("restore", rc == 0 ? "ok" : arb_strerror(rc)),
         SV_LS("detail", "the moved match is discarded; this server is empty again"));
}

static void keep_match(sv_server* s, const char* by);

// After "ok": the sender's "cancel" or "commit", or the end of the connection.
static void on_settle_read(uv_stream_t* st, ssize_t n, const uv_buf_t* buf) {
  (void)buf;
  sv_server* s = st->data;
  sv_migrate* m = &s->mig;
  if (n < 0) {
    drop_adopted(s, "the sender went away before a player arrived");
    drop_conn(s, NULL);
    return;
  }
  m->in_len += (size_t)n;
  if (memchr(m->in, '\n', m->in_len) == NULL) {
    if (m->in_len > 64) {
      drop_adopted(s, "an unreadable line from the sender");
      drop_conn(s, "an unreadable line from the sender");
    }
    return;
  }
  if (m->in_len == 7 && memcmp(m->in, "cancel\n", 7) == 0 && m->provisional) {
    drop_adopted(s, "the sender cancelled: no player arrived in time");
    answer(s, "cancelled");
  } else if (m->in_len == 7 && memcmp(m->in, "commit\n", 7) == 0 && m->provisional) {
    keep_match(s, "the sender stopping");
  } else if (!m->provisional) {
    // "arrived" is already on its way: the sender reads it before any answer to this.
    uv_read_stop(st);
  } else {
    drop_adopted(s, "an unknown line from the sender");
    drop_conn(s, NULL);
  }
}

// The moved match stays here: a player arrived, or the sender is stopping.
static void keep_match(sv_server* s, const char* by) {
  sv_migrate* m = &s->mig;
  if (!m->provisional) return;
  m->provisional = false;
  free(m->before);
  m->before = NULL;
  SV_LOG(&s->log, SV_LOG_INFO, "migrate_committed", SV_LS("by", by),
         SV_LU("tick", s->metrics.tick));
  if (m->conn_open) {
    uv_timer_stop(&m->conn_timer);
    answer(s, "arrived");
  }
}

void sv_migrate_player_arrived(sv_server* s) {
  keep_match(s, "first arrival");
}

static void adopt(sv_server* s, const uint8_t* data, size_t len) {
  sv_mig_image img;
  char err[192], why[256];
  int rc = sv_mig_image_decode(data, len, &img, err, sizeof err);
  if (rc != 0) {
    refuse(s, err);
    return;
  }
  arb_game* scratch = NULL;
  uint64_t here = arb_game_sim_version();
  why[0] = '\0';
  if (img.sim_version != here)
    snprintf(why, sizeof why,
             "simulation version differs: the sender runs %016llx, this server %016llx",
             (unsigned long long)img.sim_version, (unsigned long long)here);
  else if (img.scene_hash != arb_scene_get_hash(s->scene))
    snprintf(why, sizeof why, "a different scene (hash %016llx here %016llx)",
             (unsigned long long)img.scene_hash, (unsigned long long)arb_scene_get_hash(s->scene));
  else if (img.tick_rate != s->tick_rate)
    snprintf(why, sizeof why, "tick rate %u, this server runs %d", img.tick_rate, s->tick_rate);
  else if (s->mig.adopted || s->mig.state != SV_MIG_IDLE || s->stopping || s->active_count > 0)
    snprintf(why, sizeof why, "this server is not free (it has players or a match moved in)");
  else if (img.player_count > s->cfg.max_clients)
    snprintf(why, sizeof why, "%d players, this server takes %d", img.player_count,
             s->cfg.max_clients);
  else if (arb_game_create(s->scene, img.seed, &scratch) != 0)
    snprintf(why, sizeof why, "cannot create a game");
  else if ((rc = arb_game_restore(scratch, img.game, (int)img.game_len)) != 0)
    snprintf(why, sizeof why, "the game image does not restore: %s", arb_strerror(rc));
  else if (arb_game_hash(scratch) != img.game_hash || arb_game_get_tick(scratch) != img.tick)
    snprintf(why, sizeof why, "the restored game does not hash to what was sent");
  if (scratch) arb_game_destroy(scratch);
  // This server's own game, kept until a player arrives: a cancelled move restores it.
  free(s->mig.before);
  s->mig.before = NULL;
  int before_len = why[0] == '\0' ? arb_game_save(s->game, NULL, 0) : 0;
  if (before_len > 0) s->mig.before = malloc((size_t)before_len);
  if (why[0] == '\0' &&
      (s->mig.before == NULL || arb_game_save(s->game, s->mig.before, before_len) != before_len))
    snprintf(why, sizeof why, "cannot keep this server's own game");
  s->mig.before_len = before_len;
  // The scratch restore proved the image; the live game (which the snapshot capture
  // holds) takes the same bytes.
  if (why[0] == '\0' && (rc = arb_game_restore(s->game, img.game, (int)img.game_len)) != 0)
    snprintf(why, sizeof why, "restore failed: %s", arb_strerror(rc));
  if (why[0] != '\0') {
    free(s->mig.before);
    s->mig.before = NULL;
    sv_mig_image_free(&img);
    refuse(s, why);
    return;
  }
  take_over(s, &img, arb_game_hash(s->game));
  char line[96];
  int n = snprintf(line, sizeof line, "ok tick=%llu port=%d", (unsigned long long)img.tick,
                   s->net.port);
  if (s->ws_on && n > 0 && (size_t)n < sizeof line)
    snprintf(line + n, sizeof line - (size_t)n, " ws_port=%d", s->ws.port);
  sv_mig_image_free(&img);
  // The connection stays open until the move settles: the sender may still cancel it.
  sv_migrate* m = &s->mig;
  m->provisional = true;
  m->in_len = 0;
  uv_timer_start(&m->conn_timer, on_conn_timeout, SV_MIG_SETTLE_MS, 0);
  uv_read_stop((uv_stream_t*)&m->conn);
  uv_read_start((uv_stream_t*)&m->conn, on_alloc, on_settle_read);
  write_line(s, line, true);
}

// The prefix (magic, credential, length) once whole: -1 refused (answered), 0 wait for
// more, or the total length of the transfer.
static long long check_prefix(sv_server* s) {
  sv_migrate* m = &s->mig;
  if (m->in_len < WIRE_HEADER + 2) return 0;
  if (memcmp(m->in, SV_MIG_WIRE_MAGIC, WIRE_HEADER) != 0) {
    refuse(s, "not a match transfer");
    return -1;
  }
  size_t cred = (size_t)m->in[8] | (size_t)m->in[9] << 8;
  if (cred > WIRE_MAX_CREDENTIAL) {
    refuse(s, "credential too long");
    return -1;
  }
  if (m->in_len < WIRE_HEADER + 2 + cred + 4) return 0;
  char given[WIRE_MAX_CREDENTIAL + 16];
  snprintf(given, sizeof given, "Bearer %.*s", (int)cred, (const char*)m->in + 10);
  if (memchr(m->in + 10, '\0', cred) != NULL || !sv_admin_authorized(s->life.admin_token, given)) {
    s->metrics.admin_requests_total[0]++;
    refuse(s, "wrong credentials");
    return -1;
  }
  const uint8_t* l = m->in + 10 + cred;
  size_t len = (size_t)l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
  if (len > SV_MIG_MAX_IMAGE) {
    refuse(s, "state image larger than the limit");
    return -1;
  }
  return (long long)(WIRE_HEADER + 2 + cred + 4 + len);
}

static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf) {
  (void)suggested;
  sv_server* s = h->data;
  sv_migrate* m = &s->mig;
  if (m->in_cap - m->in_len < 65536) {
    size_t cap = m->in_cap ? 2 * m->in_cap : 262144;
    if (cap > WIRE_PREFIX_MAX + SV_MIG_MAX_IMAGE + 65536)
      cap = WIRE_PREFIX_MAX + SV_MIG_MAX_IMAGE + 65536;
    uint8_t* grown = cap > m->in_cap ? realloc(m->in, cap) : NULL;
    if (grown != NULL) {
      m->in = grown;
      m->in_cap = cap;
    }
  }
  *buf = uv_buf_init((char*)m->in + m->in_len, (unsigned)(m->in_cap - m->in_len));
}

static void on_read(uv_stream_t* st, ssize_t n, const uv_buf_t* buf) {
  (void)buf;
  sv_server* s = st->data;
  sv_migrate* m = &s->mig;
  if (n < 0) {
    drop_conn(s, "the sender went away before the whole image arrived");
    return;
  }
  m->in_len += (size_t)n;
  long long total = check_prefix(s);
  if (total <= 0) {
    if (total == 0 && m->in_len == m->in_cap) drop_conn(s, "no room");
    return;
  }
  if (m->in_len > (size_t)total) {
    refuse(s, "bytes after the state image");
    return;
  }
  if (m->in_len < (size_t)total) return;
  size_t prefix = WIRE_HEADER + 2 + ((size_t)m->in[8] | (size_t)m->in[9] << 8) + 4;
  uv_timer_stop(&m->conn_timer);
  adopt(s, m->in + prefix, (size_t)total - prefix);
}

static void on_conn_timeout(uv_timer_t* t) {
  sv_server* s = t->data;
  if (s->mig.provisional) {
    drop_adopted(s, "no player arrived and the sender did not settle the move in time");
    drop_conn(s, NULL);
    return;
  }
  drop_conn(s, "the transfer did not finish in time");
}

static void on_connection(uv_stream_t* listener, int status) {
  sv_server* s = listener->data;
  sv_migrate* m = &s->mig;
  if (status != 0) return;
  uv_tcp_t* c = &m->conn;
  if (m->conn_open) {  // one transfer at a time: the other is accepted and closed at once
    uv_tcp_t* extra = malloc(sizeof *extra);
    if (extra == NULL) return;
    uv_tcp_init(s->loop, extra);
    if (uv_accept(listener, (uv_stream_t*)extra) == 0)
      SV_LOG(&s->log, SV_LOG_WARN, "migrate_refused", SV_LS("why", "a transfer is under way"));
    uv_close((uv_handle_t*)extra, (uv_close_cb)free);
    return;
  }
  uv_tcp_init(s->loop, c);
  c->data = s;
  m->conn_open = true;
  if (uv_accept(listener, (uv_stream_t*)c) != 0) {
    uv_close((uv_handle_t*)c, conn_closed);
    return;
  }
  m->in_len = 0;
  uv_timer_start(&m->conn_timer, on_conn_timeout, SV_MIG_RECEIVE_MS, 0);
  uv_read_start((uv_stream_t*)c, on_alloc, on_read);
}

// ---- the operator's signal -------------------------------------------------------------

static void on_usr2(uv_signal_t* h, int signum) {
  (void)signum;
  sv_server* s = h->data;
  char err[160];
  if (s->cfg.migrate_to[0] == '\0') {
    SV_LOG(&s->log, SV_LOG_WARN, "migrate_failed", SV_LS("why", "SIGUSR2 without --migrate-to"));
    return;
  }
  if (sv_migrate_begin(s, s->cfg.migrate_to, err, sizeof err) != 0)
    SV_LOG(&s->log, SV_LOG_WARN, "migrate_failed", SV_LS("why", err));
}

int sv_migrate_start(sv_server* s, char* err, size_t err_cap) {
  sv_migrate* m = &s->mig;
  m->fd = -1;
  if (sv_migrate_drain_check(s, err, err_cap) != 0) return -1;
  char target[sizeof m->target], clients[sizeof m->client_addr], ws_url[sizeof m->ws_url];
  char why[160];
  const char* flag = NULL;
  if (s->cfg.migrate_to[0] &&
      !split_spec(s->cfg.migrate_to, target, clients, ws_url, why, sizeof why))
    flag = "--migrate-to";
  else if (s->cfg.migrate_on_drain[0] &&
           !split_spec(s->cfg.migrate_on_drain, target, clients, ws_url, why, sizeof why))
    flag = "--migrate-on-drain";
  if (flag != NULL) {
    snprintf(err, err_cap, "%s: %s", flag, why);
    return -1;
  }
  if ((s->cfg.migrate_on_drain[0] || s->cfg.migrate_allocator[0]) &&
      s->life.admin_token[0] == '\0') {
    snprintf(err, err_cap,
             "--migrate-on-drain and --migrate-allocator need --admin-token (the credential the "
             "receiving server checks)");
    return -1;
  }
  uv_signal_init(s->loop, &m->sig_usr2);
  m->sig_usr2.data = s;
  uv_signal_start(&m->sig_usr2, on_usr2, SIGUSR2);
  m->sig_on = true;
  uv_timer_init(s->loop, &m->conn_timer);
  m->conn_timer.data = s;
  uv_timer_init(s->loop, &m->settle_timer);
  m->settle_timer.data = s;
  if (s->cfg.migrate_port == 0) return 0;
  if (s->life.admin_token[0] == '\0') {
    snprintf(err, err_cap, "--migrate-port needs --admin-token (the credential senders present)");
    return -1;
  }
  struct sockaddr_in addr;
  uv_ip4_addr(s->cfg.http_bind[0] ? s->cfg.http_bind : "0.0.0.0",
              s->cfg.migrate_port < 0 ? 0 : s->cfg.migrate_port, &addr);
  uv_tcp_init(s->loop, &m->listener);
  m->listener.data = s;
  m->listening = true;
  int rc = uv_tcp_bind(&m->listener, (const struct sockaddr*)&addr, 0);
  if (rc == 0) rc = uv_listen((uv_stream_t*)&m->listener, 4, on_connection);
  if (rc != 0) {
    snprintf(err, err_cap, "--migrate-port: cannot listen: %s", uv_strerror(rc));
    return -1;
  }
  struct sockaddr_storage bound;
  int bl = sizeof bound;
  uv_tcp_getsockname(&m->listener, (struct sockaddr*)&bound, &bl);
  m->port = ntohs(((struct sockaddr_in*)&bound)->sin_port);
  return 0;
}

static void close_handle(uv_handle_t* h) {
  if (!uv_is_closing(h)) uv_close(h, NULL);
}

void sv_migrate_close(sv_server* s) {
  sv_migrate* m = &s->mig;
  if (m->listening) close_handle((uv_handle_t*)&m->listener);
  m->listening = false;
  drop_conn(s, NULL);
  if (m->sig_on) {
    sv_mig_settle_close(s);
    close_handle((uv_handle_t*)&m->sig_usr2);
    close_handle((uv_handle_t*)&m->conn_timer);
    close_handle((uv_handle_t*)&m->settle_timer);
  }
  free(m->before);
  m->before = NULL;
  m->sig_on = false;
}
