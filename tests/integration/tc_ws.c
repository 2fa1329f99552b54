// Raw WebSocket client (see tc_ws.h).
#include "tc_ws.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int tc_ws_connect(const char* local_ip, uint16_t port) {
  return tc_ws_connect_buf(local_ip, port, 0);
}

int tc_ws_connect_buf(const char* local_ip, uint16_t port, int rcvbuf) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (local_ip) {
    struct sockaddr_in l;
    memset(&l, 0, sizeof l);
    l.sin_family = AF_INET;
    if (inet_pton(AF_INET, local_ip, &l.sin_addr) != 1 ||
        bind(fd, (struct sockaddr*)&l, sizeof l) != 0) {
      close(fd);
      return -1;
    }
  }
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

int tc_ws_request(char* out, size_t cap, uint16_t port, const char* extra) {
  return snprintf(out, cap,
                  "GET / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: " TC_WS_KEY
                  "\r\nSec-WebSocket-Version: 13\r\n%s\r\n",
                  (unsigned)port, extra ? extra : "");
}

int tc_ws_send_all(int fd, const void* data, size_t len) {
  const uint8_t* p = data;
  while (len > 0) {
    ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int tc_ws_read_status(int fd, int timeout_ms, char* out, size_t cap) {
  size_t got = 0;
  uint64_t end = now_ms() + (uint64_t)timeout_ms;
  out[0] = '\0';
  // One byte at a time: nothing after the head is consumed (frames may follow it).
  while (got + 1 < cap) {
    int left = (int)(end - now_ms());
    if (left <= 0) return -1;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left) <= 0) return -1;
    ssize_t r = recv(fd, out + got, 1, 0);
    if (r <= 0) break;
    got++;
    out[got] = '\0';
    if (got >= 4 && memcmp(out + got - 4, "\r\n\r\n", 4) == 0) break;
  }
  int status = -1;
  if (sscanf(out, "HTTP/1.1 %d", &status) != 1) return -1;
  return status;
}

int tc_ws_handshake(int fd, const char* request, int timeout_ms, char* out, size_t cap) {
  if (tc_ws_send_all(fd, request, strlen(request)) != 0) return -1;
  return tc_ws_read_status(fd, timeout_ms, out, cap);
}

size_t tc_ws_frame(uint8_t* out, size_t cap, int opcode, bool fin, const uint8_t mask[4],
                   const void* payload, size_t len) {
  size_t n = 0;
  if (cap < len + 14) return 0;
  out[n++] = (uint8_t)((fin ? 0x80 : 0) | (opcode & 0x0f));
  uint8_t m = mask ? 0x80 : 0;
  if (len < 126) {
    out[n++] = (uint8_t)(m | len);
  } else if (len <= 0xffff) {
    out[n++] = (uint8_t)(m | 126);
    out[n++] = (uint8_t)(len >> 8);
    out[n++] = (uint8_t)len;
  } else {
    out[n++] = (uint8_t)(m | 127);
    for (int i = 7; i >= 0; --i) out[n++] = (uint8_t)((uint64_t)len >> (8 * i));
  }
  if (mask) {
    memcpy(out + n, mask, 4);
    n += 4;
  }
  const uint8_t* p = payload;
  for (size_t i = 0; i < len; ++i) out[n + i] = mask ? (uint8_t)(p[i] ^ mask[i % 4]) : p[i];
  return n + len;
}

int tc_ws_send_binary(int fd, const void* data, size_t len) {
  static const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
  size_t cap = len + 14;
  uint8_t* f = malloc(cap);
  if (f == NULL) return -1;
  size_t n = tc_ws_frame(f, cap, 2, true, mask, data, len);
  int rc = tc_ws_send_all(fd, f, n);
  free(f);
  return rc;
}

int tc_ws_reader_init(tc_ws_reader* r) {
  memset(r, 0, sizeof *r);
  r->cap = 1 << 20;
  r->buf = malloc(r->cap);
  return r->buf ? 0 : -1;
}

void tc_ws_reader_free(tc_ws_reader* r) {
  free(r->buf);
  free(r->msg);
  memset(r, 0, sizeof *r);
}

// One whole frame from the buffer: 1 (consumed, *op/*payload/*plen set), 0 need more, -1 bad.
static int take_frame(tc_ws_reader* r, int* op, bool* fin, uint8_t** payload, size_t* plen,
                      size_t* used) {
  if (r->len < 2) return 0;
  const uint8_t* b = r->buf;
  size_t n = 2;
  uint64_t len = b[1] & 0x7f;
  if (b[1] & 0x80) return -1;  // the server never masks
  if (len == 126) {
    if (r->len < 4) return 0;
    len = (uint64_t)b[2] << 8 | b[3];
    n = 4;
  } else if (len == 127) {
    if (r->len < 10) return 0;
    len = 0;
    for (int i = 0; i < 8; ++i) len = len << 8 | b[2 + i];
    n = 10;
  }
  if (len > r->cap - n) return -1;  // larger than the reader takes
  if (r->len < n + len) return 0;
  *op = b[0] & 0x0f;
  *fin = (b[0] & 0x80) != 0;
  *payload = r->buf + n;
  *plen = (size_t)len;
  *used = n + (size_t)len;
  return 1;
}

int tc_ws_read(tc_ws_reader* r, int fd, int timeout_ms, const uint8_t** data, size_t* len) {
  uint64_t end = now_ms() + (uint64_t)timeout_ms;
  if (r->drop) {  // the control frame returned last time
    memmove(r->buf, r->buf + r->drop, r->len - r->drop);
    r->len -= r->drop;
    r->drop = 0;
  }
  for (;;) {
    int op;
    bool fin;
    uint8_t* payload;
    size_t plen, used;
    int t = take_frame(r, &op, &fin, &payload, &plen, &used);
    if (t < 0) return -1;
    if (t > 0) {
      if (op >= 8) {  // control frames stand alone
        if (op == 8) {
          r->close_code = plen >= 2 ? payload[0] << 8 | payload[1] : 1005;
          size_t rl = plen > 2 ? plen - 2 : 0;
          if (rl >= sizeof r->close_reason) rl = sizeof r->close_reason - 1;
          memcpy(r->close_reason, payload + 2, rl);
          r->close_reason[rl] = '\0';
        }
        *data = payload;
        *len = plen;
        r->drop = used;
        return op;
      }
      if (op != 0) {
        r->msg_opcode = op;
        r->msg_len = 0;
      }
      if (r->msg_len + plen > r->msg_cap) {
        size_t cap = (r->msg_len + plen) * 2;
        uint8_t* m = realloc(r->msg, cap);
        if (m == NULL) return -1;
        r->msg = m;
        r->msg_cap = cap;
      }
      memcpy(r->msg + r->msg_len, payload, plen);
      r->msg_len += plen;
      memmove(r->buf, r->buf + used, r->len - used);
      r->len -= used;
      if (fin) {
        *data = r->msg;
        *len = r->msg_len;
        return r->msg_opcode;
      }
      continue;
    }
    if (r->closed) return -1;
    int left = (int)(end - now_ms());
    if (left < 0) left = 0;
    struct pollfd p = {fd, POLLIN, 0};
    int pr = poll(&p, 1, left);
    if (pr <= 0) return 0;
    ssize_t got = recv(fd, r->buf + r->len, r->cap - r->len, 0);
    if (got <= 0) {
      r->closed = true;
      return -1;
    }
    r->len += (size_t)got;
  }
}

int tc_ws_wait_close(tc_ws_reader* r, int fd, int timeout_ms) {
  uint64_t end = now_ms() + (uint64_t)timeout_ms;
  for (;;) {
    int left = (int)(end - now_ms());
    if (left <= 0) return 0;
    const uint8_t* d;
    size_t n;
    int op = tc_ws_read(r, fd, left, &d, &n);
    if (op == 8 || op < 0) return op;
    if (op == 0) return 0;
  }
}

void tc_ws_reset(int fd) {
  struct linger l = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  close(fd);
}
