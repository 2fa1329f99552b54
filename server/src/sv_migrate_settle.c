// The sender's side of a move while it settles (see sv_migrate_settle.h, sv_migrate.h).
#include "sv_migrate_settle.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sv_server.h"

// The socket is closed once libuv let go of it; m->fd is free for the next move at once.
static void settle_poll_closed(uv_handle_t* h) {
  close((int)(intptr_t)h->data);
}

static void settle_end(sv_server* s) {
  sv_migrate* m = &s->mig;
  uv_timer_stop(&m->settle_timer);
  if (m->settle_polling) {
    m->settle_polling = false;
    uv_poll_stop(&m->settle_poll);
    m->settle_poll.data = (void*)(intptr_t)m->fd;
    uv_close((uv_handle_t*)&m->settle_poll, settle_poll_closed);
  } else if (m->fd >= 0) {
    close(m->fd);
  }
  m->fd = -1;
}

void sv_mig_resume(sv_server* s) {
  s->mig.state = SV_MIG_IDLE;
  if (s->mig.stop_if_failed != NULL) sv_server_stop(s, s->mig.stop_if_failed);
}

static void commit(sv_server* s) {
  sv_migrate* m = &s->mig;
  settle_end(s);
  m->state = SV_MIG_COMMITTED;
  m->commit_ns = uv_hrtime();
  SV_LOG(&s->log, SV_LOG_INFO, "migrate_committed", SV_LS("target", m->target),
         SV_LU("tick", m->tick),
         SV_LU("first_arrival_ms", (m->commit_ns - m->moved_ns) / 1000000u));
}

static void cancelled(sv_server* s, const char* why) {
  sv_migrate* m = &s->mig;
  settle_end(s);
  SV_LOG(&s->log, SV_LOG_WARN, "migrate_cancelled", SV_LS("target", m->target), SV_LS("why", why),
         SV_LU("tick", m->tick),
         SV_LS("detail", m->stop_if_failed ? "stopping as without the move"
                                           : "the match goes on here; its clients come back"));
  sv_mig_resume(s);
}

static void on_settle_timer(uv_timer_t* t) {
  sv_server* s = t->data;
  sv_migrate* m = &s->mig;
  if (m->state != SV_MIG_MOVED) {
    cancelled(s, "the receiver did not answer the cancel in time");
    return;
  }
  if (send(m->fd, "cancel\n", 7, MSG_NOSIGNAL) != 7) {
    cancelled(s, "no player reached the receiver in time, and the cancel could not be sent");
    return;
  }
  m->state = SV_MIG_CANCELLING;
  SV_LOG(&s->log, SV_LOG_WARN, "migrate_cancelling", SV_LS("target", m->target),
         SV_LS("why", "no player reached the receiver in time"),
         SV_LI("arrive_ms", SV_MIG_ARRIVE_MS));
  uv_timer_start(&m->settle_timer, on_settle_timer, SV_MIG_CANCEL_MS, 0);
}

// A line from the receiver: "arrived" commits; "cancelled", the end of the connection or
// anything unreadable leaves the match here.
static void on_settle_readable(uv_poll_t* p, int status, int events) {
  (void)events;
  sv_server* s = p->data;
  sv_migrate* m = &s->mig;
  if (status < 0) {
    cancelled(s, "the connection to the receiver failed before a player arrived");
    return;
  }
  for (;;) {
    ssize_t n =
        recv(m->fd, m->settle_line + m->settle_len, sizeof m->settle_line - m->settle_len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      cancelled(s, "the receiver closed the connection before a player arrived");
      return;
    }
    m->settle_len += (size_t)n;
    char* nl = memchr(m->settle_line, '\n', m->settle_len);
    if (nl == NULL) {
      if (m->settle_len == sizeof m->settle_line)
        cancelled(s, "the receiver sent an unreadable line");
      continue;
    }
    *nl = '\0';
    if (strcmp(m->settle_line, "arrived") == 0)
      commit(s);
    else if (strcmp(m->settle_line, "cancelled") == 0)
      cancelled(s, m->state == SV_MIG_CANCELLING ? "no player reached the receiver in time"
                                                 : "the receiver dropped the match");
    else
      cancelled(s, "the receiver sent an unknown line");
    return;
  }
}

void sv_mig_settle_start(sv_server* s) {
  sv_migrate* m = &s->mig;
  m->settle_len = 0;
  if (uv_poll_init_socket(s->loop, &m->settle_poll, m->fd) != 0) {
    cancelled(s, "cannot watch the connection to the receiver");
    return;
  }
  m->settle_poll.data = s;
  m->settle_polling = true;
  uv_poll_start(&m->settle_poll, UV_READABLE | UV_DISCONNECT, on_settle_readable);
  uv_timer_start(&m->settle_timer, on_settle_timer, SV_MIG_ARRIVE_MS, 0);
}

void sv_mig_settle_close(sv_server* s) {
  sv_migrate* m = &s->mig;
  if (m->state == SV_MIG_MOVED && send(m->fd, "commit\n", 7, MSG_NOSIGNAL) == 7)
    SV_LOG(&s->log, SV_LOG_INFO, "migrate_committed", SV_LS("target", m->target),
           SV_LU("tick", m->tick), SV_LS("by", "this server stopping"));
  settle_end(s);
}
