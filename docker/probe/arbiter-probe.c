/* arbiter-probe: the container HEALTHCHECK. Asks the local arbiter-server's HTTP endpoint
 * for /healthz and exits 0 on "200", 1 otherwise. It exists so the runtime image needs no
 * curl/wget (fewer packages, nothing to fetch arbitrary URLs with) and only talks to
 * loopback by default.
 *
 * Usage: arbiter-probe [--host IPV4] [--port N] [--path /healthz] [--timeout-ms N] [--print]
 * Defaults follow the server's own settings: port $ARBITER_HTTP_PORT (else 8080), host
 * $ARBITER_HTTP_BIND unless it is unset or 0.0.0.0 (then 127.0.0.1).
 * Exit: 0 healthy (HTTP 200), 1 unhealthy or unreachable, 2 bad usage. */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { PROBE_RESPONSE_MAX = 64 * 1024 }; /* /metrics fits; anything longer is cut, not an error */

typedef struct probe_opts {
  const char* host; /* dotted IPv4 address; no DNS on purpose */
  long port;        /* 1..65535 */
  const char* path; /* must start with '/' */
  long timeout_ms;  /* whole exchange: connect + send + receive */
  int print;        /* write the response body to stdout */
} probe_opts;

static void usage(FILE* out) {
  fputs(
      "usage: arbiter-probe [--host IPV4] [--port N] [--path /healthz] [--timeout-ms N] [--print]\n"
      "Sends GET PATH to the arbiter-server HTTP endpoint and exits 0 if it answers 200,\n"
      "1 if it answers anything else or cannot be reached in time, 2 on bad usage.\n"
      "  --host IPV4       address to ask (default $ARBITER_HTTP_BIND, else 127.0.0.1)\n"
      "  --port N          HTTP port (default $ARBITER_HTTP_PORT, else 8080)\n"
      "  --path P          request path (default /healthz)\n"
      "  --timeout-ms N    limit for the whole exchange (default 2000)\n"
      "  --print           write the response body to stdout\n"
      "Used as the HEALTHCHECK of the arbiter container image.\n",
      out);
}

static int parse_long(const char* s, long lo, long hi, long* out) {
  char* end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for `events` or the deadline passes. 1 ready, 0 timeout, -1 error. */
static int wait_fd(int fd, short events, long deadline) {
  for (;;) {
    long left = deadline - now_ms();
    if (left <= 0) return 0;
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, (int)left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return r;
    return 1;
  }
}

static int parse_args(int argc, char** argv, probe_opts* o) {
  const char* env_port = getenv("ARBITER_HTTP_PORT");
  const char* env_bind = getenv("ARBITER_HTTP_BIND");
  o->host = (env_bind && *env_bind && strcmp(env_bind, "0.0.0.0") != 0) ? env_bind : "127.0.0.1";
  o->port = 8080;
  o->path = "/healthz";
  o->timeout_ms = 2000;
  o->print = 0;
  if (env_port && *env_port && parse_long(env_port, 1, 65535, &o->port) != 0) {
    fprintf(stderr, "arbiter-probe: ARBITER_HTTP_PORT='%s' is not a port in 1..65535\n", env_port);
    return -1;
  }
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--print") == 0) {
      o->print = 1;
      continue;
    }
    if (!v) {
      fprintf(stderr, "arbiter-probe: '%s' needs a value or is unknown (try --help)\n", a);
      return -1;
    }
    if (strcmp(a, "--host") == 0) {
      o->host = v;
    } else if (strcmp(a, "--port") == 0) {
      if (parse_long(v, 1, 65535, &o->port) != 0) {
        fprintf(stderr, "arbiter-probe: --port '%s' is not a port in 1..65535\n", v);
        return -1;
      }
    } else if (strcmp(a, "--path") == 0) {
      if (v[0] != '/' || strlen(v) > 256 || strpbrk(v, " \r\n") != NULL) {
        fprintf(stderr,
                "arbiter-probe: --path '%s' must start with '/', be at most 256 bytes, no spaces\n",
                v);
        return -1;
      }
      o->path = v;
    } else if (strcmp(a, "--timeout-ms") == 0) {
      if (parse_long(v, 1, 600000, &o->timeout_ms) != 0) {
        fprintf(stderr, "arbiter-probe: --timeout-ms '%s' is not in 1..600000\n", v);
        return -1;
      }
    } else {
      fprintf(stderr, "arbiter-probe: unknown option '%s' (try --help)\n", a);
      return -1;
    }
    i++;
  }
  return 0;
}

int main(int argc, char** argv) {
  probe_opts o;
  if (parse_args(argc, argv, &o) != 0) return 2;

  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((unsigned short)o.port);
  if (inet_pton(AF_INET, o.host, &sa.sin_addr) != 1) {
    fprintf(stderr, "arbiter-probe: --host '%s' is not a dotted IPv4 address\n", o.host);
    return 2;
  }

  long deadline = now_ms() + o.timeout_ms;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    fprintf(stderr, "arbiter-probe: socket: %s\n", strerror(errno));
    return 1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (connect(fd, (struct sockaddr*)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
    fprintf(stderr, "arbiter-probe: connect %s:%ld: %s\n", o.host, o.port, strerror(errno));
    close(fd);
    return 1;
  }
  int err = 0;
  socklen_t len = sizeof err;
  if (wait_fd(fd, POLLOUT, deadline) != 1 ||
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
    fprintf(stderr, "arbiter-probe: connect %s:%ld: %s\n", o.host, o.port,
            err ? strerror(err) : "timed out");
    close(fd);
    return 1;
  }

  char req[512];
  int n = snprintf(
      req, sizeof req,
      "GET %s HTTP/1.1\r\nHost: %s:%ld\r\nUser-Agent: arbiter-probe\r\nConnection: close\r\n\r\n",
      o.path, o.host, o.port);
  for (int off = 0; off < n;) {
    if (wait_fd(fd, POLLOUT, deadline) != 1) {
      fprintf(stderr, "arbiter-probe: sending the request timed out\n");
      close(fd);
      return 1;
    }
    ssize_t w = send(fd, req + off, (size_t)(n - off), MSG_NOSIGNAL);
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (w <= 0) {
      fprintf(stderr, "arbiter-probe: send: %s\n", strerror(errno));
      close(fd);
      return 1;
    }
    off += (int)w;
  }

  static char resp[PROBE_RESPONSE_MAX + 1];
  size_t got = 0;
  while (got < PROBE_RESPONSE_MAX) {
    if (wait_fd(fd, POLLIN, deadline) != 1)
      break; /* a status line read before the deadline still counts */
    ssize_t r = recv(fd, resp + got, PROBE_RESPONSE_MAX - got, 0);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  resp[got] = '\0';

  int status = 0;
  if (sscanf(resp, "HTTP/1.%*[01] %3d", &status) != 1) {
    fprintf(stderr, "arbiter-probe: no HTTP status line from %s:%ld%s (%zu bytes)\n", o.host,
            o.port, o.path, got);
    return 1;
  }
  if (o.print) {
    const char* body = strstr(resp, "\r\n\r\n");
    if (body) fputs(body + 4, stdout);
  }
  if (status != 200) {
    fprintf(stderr, "arbiter-probe: %s:%ld%s answered %d\n", o.host, o.port, o.path, status);
    return 1;
  }
  return 0;
}
