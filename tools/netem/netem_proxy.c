// The libuv UDP proxy (see netem_proxy.h).
#include "netem_proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NETEM_IDLE_MS 60000

static double now_ms(void) {
  return (double)uv_hrtime() / 1e6;
}

static bool same_addr(const struct sockaddr_storage* a, const struct sockaddr* b) {
  if (a->ss_family != b->sa_family) return false;
  if (b->sa_family == AF_INET) {
    const struct sockaddr_in* x = (const struct sockaddr_in*)a;
    const struct sockaddr_in* y = (const struct sockaddr_in*)b;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  if (b->sa_family == AF_INET6) {
    const struct sockaddr_in6* x = (const struct sockaddr_in6*)a;
    const struct sockaddr_in6* y = (const struct sockaddr_in6*)b;
    return x->sin6_port == y->sin6_port &&
           memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0;
  }
  return false;
}

static size_t addr_len(const struct sockaddr* a) {
  return a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

static void alloc_cb(uv_handle_t* h, size_t suggested, uv_buf_t* buf) {
  (void)suggested;
  netem_proxy* p = (netem_proxy*)h->data;
  *buf = uv_buf_init((char*)p->buf, sizeof p->buf);
}

static void deliver_cb(uv_timer_t* t);

static void arm_timer(netem_proxy* p) {
  const netem_item* it = netem_queue_peek(&p->queue);
  if (!it || p->stopping) {
    uv_timer_stop(&p->timer);
    return;
  }
  double wait = it->due_ms - now_ms();
  uint64_t ms = wait <= 0.0 ? 0 : (uint64_t)(wait + 0.999);
  uv_timer_start(&p->timer, deliver_cb, ms, 0);
}

static void enqueue(netem_proxy* p, int session, int dir, const uint8_t* data, size_t len) {
  netem_dir* d = dir == 0 ? &p->up : &p->down;
  double times[2];
  double now = now_ms();
  int n = netem_dir_decide(d, now, len, times);
  for (int i = 0; i < n; i++)
    if (netem_queue_push(&p->queue, times[i], session, dir, data, len) != 0) d->c.send_errors++;
  arm_timer(p);
}

static void deliver_cb(uv_timer_t* t) {
  netem_proxy* p = (netem_proxy*)t->data;
  double now = now_ms();
  // Deliver everything due, plus what falls due within half a millisecond (the timer's
  // resolution is 1 ms; waking again for it would only add latency).
  for (;;) {
    const netem_item* top = netem_queue_peek(&p->queue);
    if (!top || top->due_ms > now + 0.5) break;
    netem_item it;
    netem_queue_pop(&p->queue, &it);
    netem_session* s = &p->sessions[it.session];
    netem_dir* d = it.dir == 0 ? &p->up : &p->down;
    if (s->used) {
      uv_buf_t b = uv_buf_init((char*)it.data, it.len);
      int rc;
      if (it.dir == 0)
        rc = uv_udp_try_send(&s->upstream, &b, 1, (const struct sockaddr*)&p->server);
      else
        rc = uv_udp_try_send(&p->listen, &b, 1, (const struct sockaddr*)&s->client);
      if (rc >= 0) {
        d->c.packets_out++;
        d->c.bytes_out += it.len;
      } else {
        d->c.send_errors++;
      }
    }
    free(it.data);
  }
  arm_timer(p);
}

static void upstream_recv_cb(uv_udp_t* h, ssize_t nread, const uv_buf_t* buf,
                             const struct sockaddr* addr, unsigned flags) {
  (void)buf;
  (void)flags;
  netem_session* s = (netem_session*)((char*)h - offsetof(netem_session, upstream));
  netem_proxy* p = s->proxy;
  if (nread <= 0 || !addr || p->stopping) return;
  if (!same_addr(&p->server, addr)) return;  // only the server may answer through a session
  s->last_active_ms = (uint64_t)now_ms();
  enqueue(p, s->index, 1, p->buf, (size_t)nread);
}

static void session_closed_cb(uv_handle_t* h) {
  netem_session* s = (netem_session*)((char*)h - offsetof(netem_session, upstream));
  s->proxy = NULL;  // the slot is reusable once libuv is done with the handle
}

static netem_session* open_session(netem_proxy* p, const struct sockaddr* client) {
  netem_session* s = NULL;
  for (int i = 0; i < NETEM_MAX_SESSIONS; i++) {
    if (!p->sessions[i].used && p->sessions[i].proxy == NULL) {
      s = &p->sessions[i];
      s->index = i;
      break;
    }
  }
  if (!s) {
    p->session_refused++;
    return NULL;
  }
  memset(&s->client, 0, sizeof s->client);
  memcpy(&s->client, client, addr_len(client));
  if (uv_udp_init(p->loop, &s->upstream) != 0) return NULL;
  s->upstream.data = p;
  s->proxy = p;
  struct sockaddr_storage any;
  memset(&any, 0, sizeof any);
  if (p->server.ss_family == AF_INET6)
    uv_ip6_addr("::", 0, (struct sockaddr_in6*)&any);
  else
    uv_ip4_addr("0.0.0.0", 0, (struct sockaddr_in*)&any);
  if (uv_udp_bind(&s->upstream, (const struct sockaddr*)&any, 0) != 0 ||
      uv_udp_recv_start(&s->upstream, alloc_cb, upstream_recv_cb) != 0) {
    s->used = false;
    uv_close((uv_handle_t*)&s->upstream, session_closed_cb);
    return NULL;
  }
  s->used = true;
  s->last_active_ms = (uint64_t)now_ms();
  p->session_count++;
  p->sessions_opened++;
  return s;
}

static void close_session(netem_proxy* p, netem_session* s) {
  if (!s->used) return;
  s->used = false;
  p->session_count--;
  uv_close((uv_handle_t*)&s->upstream, session_closed_cb);
}

static void listen_recv_cb(uv_udp_t* h, ssize_t nread, const uv_buf_t* buf,
                           const struct sockaddr* addr, unsigned flags) {
  (void)buf;
  (void)flags;
  netem_proxy* p = (netem_proxy*)h->data;
  if (nread <= 0 || !addr || p->stopping) return;
  netem_session* s = NULL;
  for (int i = 0; i < NETEM_MAX_SESSIONS; i++) {
    if (p->sessions[i].used && same_addr(&p->sessions[i].client, addr)) {
      s = &p->sessions[i];
      break;
    }
  }
  if (!s) s = open_session(p, addr);
  if (!s) return;
  s->last_active_ms = (uint64_t)now_ms();
  enqueue(p, s->index, 0, p->buf, (size_t)nread);
}

static void print_stats_line(netem_proxy* p, double elapsed) {
  fprintf(stderr,
          "arbiter-netem: t=%.0fs sessions=%d in-flight=%d | up in=%llu out=%llu lost=%llu "
          "dup=%llu reord=%llu qdrop=%llu"
          " | down in=%llu out=%llu lost=%llu dup=%llu reord=%llu qdrop=%llu\n",
          elapsed, p->session_count, p->queue.count, (unsigned long long)p->up.c.packets_in,
          (unsigned long long)p->up.c.packets_out, (unsigned long long)p->up.c.lost,
          (unsigned long long)p->up.c.duplicated, (unsigned long long)p->up.c.reordered,
          (unsigned long long)p->up.c.queue_drops, (unsigned long long)p->down.c.packets_in,
          (unsigned long long)p->down.c.packets_out, (unsigned long long)p->down.c.lost,
          (unsigned long long)p->down.c.duplicated, (unsigned long long)p->down.c.reordered,
          (unsigned long long)p->down.c.queue_drops);
}

static void housekeeping_cb(uv_timer_t* t) {
  netem_proxy* p = (netem_proxy*)t->data;
  uint64_t now = (uint64_t)now_ms();
  for (int i = 0; i < NETEM_MAX_SESSIONS; i++)
    if (p->sessions[i].used && now - p->sessions[i].last_active_ms > NETEM_IDLE_MS)
      close_session(p, &p->sessions[i]);
  double elapsed = (double)(now - p->start_ms) / 1000.0;
  if (p->stats_interval_s > 0.0 && elapsed - p->last_stats_s >= p->stats_interval_s) {
    p->last_stats_s = elapsed;
    print_stats_line(p, elapsed);
  }
  if (p->duration_s > 0.0 && elapsed >= p->duration_s) netem_proxy_stop(p);
}

int netem_proxy_start(netem_proxy* p, uv_loop_t* loop, const struct sockaddr* listen_addr,
                      const struct sockaddr* server_addr, const netem_params* up,
                      const netem_params* down, uint64_t seed) {
  // p is caller-zeroed except for duration/stats settings.
  p->loop = loop;
  memset(&p->server, 0, sizeof p->server);
  memcpy(&p->server, server_addr, addr_len(server_addr));
  netem_dir_init(&p->up, up, seed * 2 + 1);
  netem_dir_init(&p->down, down, seed * 2 + 2);
  netem_queue_init(&p->queue);
  p->sessions = (netem_session*)calloc(NETEM_MAX_SESSIONS, sizeof(netem_session));
  if (!p->sessions) return UV_ENOMEM;
  p->start_ms = (uint64_t)now_ms();
  int rc = uv_udp_init(loop, &p->listen);
  if (rc) return rc;
  p->listen.data = p;
  if ((rc = uv_udp_bind(&p->listen, listen_addr, 0)) != 0) return rc;
  if ((rc = uv_udp_recv_start(&p->listen, alloc_cb, listen_recv_cb)) != 0) return rc;
  uv_timer_init(loop, &p->timer);
  p->timer.data = p;
  uv_timer_init(loop, &p->housekeeping);
  p->housekeeping.data = p;
  uv_timer_start(&p->housekeeping, housekeeping_cb, 100, 100);
  return 0;
}

int netem_proxy_port(netem_proxy* p) {
  struct sockaddr_storage a;
  int len = sizeof a;
  if (uv_udp_getsockname(&p->listen, (struct sockaddr*)&a, &len) != 0) return -1;
  if (a.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6*)&a)->sin6_port);
  return ntohs(((struct sockaddr_in*)&a)->sin_port);
}

void netem_proxy_stop(netem_proxy* p) {
  if (p->stopping) return;
  p->stopping = true;
  for (int i = 0; i < NETEM_MAX_SESSIONS; i++) close_session(p, &p->sessions[i]);
  uv_close((uv_handle_t*)&p->listen, NULL);
  uv_close((uv_handle_t*)&p->timer, NULL);
  uv_close((uv_handle_t*)&p->housekeeping, NULL);
}

void netem_proxy_free(netem_proxy* p) {
  netem_queue_free(&p->queue);
  free(p->sessions);
  p->sessions = NULL;
}
