// arbiter-netem: a UDP proxy that makes the network worse on purpose (loss, latency,
// jitter, duplication, reordering, bandwidth cap), per direction, reproducibly (seeded).
// This kernel has no netem qdisc; this is how tests and users see a bad network.
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "netem_proxy.h"
#include "tool_args.h"

static void usage(FILE* f) {
  fprintf(
      f,
      "usage: arbiter-netem --server HOST:PORT [options]\n"
      "\n"
      "A UDP proxy between clients and a server that applies network impairments.\n"
      "Clients connect to --listen instead of the server. Every setting applies to both\n"
      "directions; --up-X sets it for client->server only, --down-X for server->client only.\n"
      "\n"
      "  --server HOST:PORT     where to forward to (required; numeric IPv4/IPv6 address)\n"
      "  --listen HOST:PORT     where clients send to (default 127.0.0.1:0 = ephemeral port;\n"
      "                         the bound port is printed as 'listening on HOST:PORT')\n"
      "  --loss PCT             drop this percentage of datagrams (0..100, default 0)\n"
      "  --latency MS           one-way delay in milliseconds (default 0)\n"
      "  --jitter MS            +- uniform variation of the delay (default 0); datagrams whose\n"
      "                         delays cross overtake each other, as on real links\n"
      "  --dup PCT              send a second copy of this percentage (own delay draw)\n"
      "  --reorder PCT          hold this percentage back by --reorder-delay (default 0)\n"
      "  --reorder-delay MS     extra delay of a reordered datagram (default 2*jitter + 10)\n"
      "  --rate KBIT            bandwidth cap in kbit/s (default 0 = unlimited)\n"
      "  --queue MS             bottleneck queue: drop datagrams that would wait longer\n"
      "                         (default 200)\n"
      "  --up-loss, --down-loss, --up-latency, ... per-direction versions of the above\n"
      "  --seed N               random seed (default 1): same seed + same traffic = same fate\n"
      "  --duration S           exit after S seconds (default 0 = run until SIGINT/SIGTERM)\n"
      "  --stats S              print a counters line to stderr every S seconds (default 0)\n"
      "  --port-file FILE       also write the bound listen port to FILE\n"
      "  --help                 this text\n"
      "\n"
      "On exit a JSON summary of the per-direction counters goes to stdout.\n"
      "Example: arbiter-netem --server 127.0.0.1:7777 --listen 127.0.0.1:7778 \\\n"
      "           --loss 10 --latency 60 --jitter 20 --dup 2 --reorder 2 --seed 7\n");
}

static int parse_hostport(const char* s, struct sockaddr_storage* out) {
  char host[256];
  const char* colon = strrchr(s, ':');
  if (!colon || colon == s || (size_t)(colon - s) >= sizeof host) return -1;
  size_t n = (size_t)(colon - s);
  memcpy(host, s, n);
  host[n] = '\0';
  char* end = NULL;
  long port = strtol(colon + 1, &end, 10);
  if (!end || *end != '\0' || port < 0 || port > 65535) return -1;
  // Strip brackets of [v6]:port.
  char* h = host;
  if (h[0] == '[' && n > 2 && h[n - 1] == ']') {
    h[n - 1] = '\0';
    h++;
  }
  memset(out, 0, sizeof *out);
  if (uv_ip4_addr(h, (int)port, (struct sockaddr_in*)out) == 0) return 0;
  if (uv_ip6_addr(h, (int)port, (struct sockaddr_in6*)out) == 0) return 0;
  return -1;
}

static uv_signal_t sig_int, sig_term;
static netem_proxy proxy;

static void on_signal(uv_signal_t* s, int signum) {
  (void)signum;
  uv_signal_stop(&sig_int);
  uv_signal_stop(&sig_term);
  uv_close((uv_handle_t*)&sig_int, NULL);
  uv_close((uv_handle_t*)&sig_term, NULL);
  netem_proxy_stop((netem_proxy*)s->data);
}

static void print_dir(const char* name, const netem_dir* d, int last) {
  const netem_counters* c = &d->c;
  printf(
      "  \"%s\": {\"packets_in\": %llu, \"bytes_in\": %llu, \"packets_out\": %llu, \"bytes_out\": "
      "%llu, "
      "\"lost\": %llu, \"queue_drops\": %llu, \"duplicated\": %llu, \"reordered\": %llu, "
      "\"send_errors\": %llu, "
      "\"loss_pct\": %g, \"latency_ms\": %g, \"jitter_ms\": %g, \"dup_pct\": %g, \"reorder_pct\": "
      "%g, "
      "\"rate_kbps\": %g}%s\n",
      name, (unsigned long long)c->packets_in, (unsigned long long)c->bytes_in,
      (unsigned long long)c->packets_out, (unsigned long long)c->bytes_out,
      (unsigned long long)c->lost, (unsigned long long)c->queue_drops,
      (unsigned long long)c->duplicated, (unsigned long long)c->reordered,
      (unsigned long long)c->send_errors, d->p.loss * 100.0, d->p.latency_ms, d->p.jitter_ms,
      d->p.dup * 100.0, d->p.reorder * 100.0, d->p.rate_kbps, last ? "" : ",");
}

// The per-direction impairment flags: --NAME, --up-NAME, --down-NAME.
typedef struct impairment {
  const char* name;
  double max;      ///< largest accepted value (the smallest is 0)
  double divisor;  ///< value stored = flag value / divisor (percent -> probability)
  size_t field;    ///< offsetof(netem_params, ...)
} impairment;

static const impairment impairments[] = {
    {"loss", 100, 100, offsetof(netem_params, loss)},
    {"dup", 100, 100, offsetof(netem_params, dup)},
    {"reorder", 100, 100, offsetof(netem_params, reorder)},
    {"latency", 60000, 1, offsetof(netem_params, latency_ms)},
    {"jitter", 60000, 1, offsetof(netem_params, jitter_ms)},
    {"reorder-delay", 60000, 1, offsetof(netem_params, reorder_ms)},
    {"rate", 1e9, 1, offsetof(netem_params, rate_kbps)},
    {"queue", 60000, 1, offsetof(netem_params, queue_ms)},
};

// The command line.
typedef struct netem_options {
  netem_params dir[2];  ///< [0] up (client -> server), [1] down
  bool reorder_delay_set[2];
  const char* server;
  const char* listen_at;
  const char* port_file;
  double seed, duration, stats;
} netem_options;

static const impairment* find_impairment(const char* name) {
  for (size_t k = 0; k < sizeof impairments / sizeof impairments[0]; k++)
    if (!strcmp(impairments[k].name, name)) return &impairments[k];
  return NULL;
}

// One flag with its value: 0, or 2 (the exit status for a bad flag) after saying why.
static int parse_flag(netem_options* o, const char* a, const char* v) {
  int dirs[2] = {1, 1};  // which directions a setting applies to
  const char* name = strncmp(a, "--", 2) == 0 ? a + 2 : a;
  bool prefixed = false;
  if (!strncmp(a, "--up-", 5) || !strncmp(a, "--down-", 7)) {
    prefixed = true;
    dirs[a[2] == 'u' ? 1 : 0] = 0;
    name = a + (a[2] == 'u' ? 5 : 7);
  }
  const impairment* imp = find_impairment(name);
  double x = 0;
  if (imp) {
    if (tool_parse_double(v, 0, imp->max, &x) != 0) {
      fprintf(stderr, "arbiter-netem: %s: invalid value '%s' (see --help for the range)\n", a, v);
      return 2;
    }
    for (int d = 0; d < 2; d++) {
      if (!dirs[d]) continue;
      *(double*)((char*)&o->dir[d] + imp->field) = x / imp->divisor;
      if (imp->field == offsetof(netem_params, reorder_ms)) o->reorder_delay_set[d] = true;
    }
    return 0;
  }
  int bad = 0;
  if (prefixed)
    bad = -2;
  else if (!strcmp(a, "--server"))
    o->server = v;
  else if (!strcmp(a, "--listen"))
    o->listen_at = v;
  else if (!strcmp(a, "--port-file"))
    o->port_file = v;
  else if (!strcmp(a, "--seed"))
    bad = tool_parse_double(v, 0, 1e18, &o->seed);
  else if (!strcmp(a, "--duration"))
    bad = tool_parse_double(v, 0, 1e9, &o->duration);
  else if (!strcmp(a, "--stats"))
    bad = tool_parse_double(v, 0, 1e9, &o->stats);
  else
    bad = -2;
  if (bad == -2)
    fprintf(stderr, "arbiter-netem: unknown flag %s (see --help)\n", a);
  else if (bad)
    fprintf(stderr, "arbiter-netem: %s: invalid value '%s'\n", a, v);
  return bad ? 2 : 0;
}

// Returns -1 to go on, else the exit status (0 after --help, 2 for bad flags).
static int parse_options(int argc, char** argv, netem_options* o, struct sockaddr_storage* srv,
                         struct sockaddr_storage* lst) {
  memset(o, 0, sizeof *o);
  for (int d = 0; d < 2; d++) o->dir[d].queue_ms = 200.0;
  o->listen_at = "127.0.0.1:0";
  o->seed = 1;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "arbiter-netem: %s: missing value or unknown flag (see --help)\n", a);
      return 2;
    }
    if (parse_flag(o, a, argv[++i]) != 0) return 2;
  }
  if (!o->server) {
    fprintf(stderr, "arbiter-netem: --server HOST:PORT is required (see --help)\n");
    return 2;
  }
  if (parse_hostport(o->server, srv) != 0) {
    fprintf(
        stderr,
        "arbiter-netem: --server '%s': expected a numeric address and port, e.g. 127.0.0.1:7777\n",
        o->server);
    return 2;
  }
  if (parse_hostport(o->listen_at, lst) != 0) {
    fprintf(stderr,
            "arbiter-netem: --listen '%s': expected a numeric address and port, e.g. 127.0.0.1:0\n",
            o->listen_at);
    return 2;
  }
  for (int d = 0; d < 2; d++)
    if (!o->reorder_delay_set[d]) o->dir[d].reorder_ms = 2.0 * o->dir[d].jitter_ms + 10.0;
  return -1;
}

// "listening on HOST:PORT" on stdout, and the port into --port-file. 0 or -1.
static int announce(const netem_options* o, int port) {
  char host[64];
  const char* colon = strrchr(o->listen_at, ':');
  snprintf(host, sizeof host, "%.*s", (int)(colon - o->listen_at), o->listen_at);
  printf("arbiter-netem: listening on %s:%d, forwarding to %s\n", host, port, o->server);
  fflush(stdout);
  if (!o->port_file) return 0;
  FILE* f = fopen(o->port_file, "w");
  if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0) {
    fprintf(stderr, "arbiter-netem: cannot write --port-file %s\n", o->port_file);
    return -1;
  }
  return 0;
}

static void watch_signals(uv_loop_t* loop) {
  uv_signal_init(loop, &sig_int);
  uv_signal_init(loop, &sig_term);
  sig_int.data = sig_term.data = &proxy;
  uv_signal_start(&sig_int, on_signal, SIGINT);
  uv_signal_start(&sig_term, on_signal, SIGTERM);
  // A --duration stop closes the proxy's handles; the signal watchers then keep the loop
  // alive, so unref them: they must not be the reason the process keeps running.
  uv_unref((uv_handle_t*)&sig_int);
  uv_unref((uv_handle_t*)&sig_term);
}

int main(int argc, char** argv) {
  netem_options o;
  struct sockaddr_storage srv, lst;
  int status = parse_options(argc, argv, &o, &srv, &lst);
  if (status >= 0) return status;

  uv_loop_t* loop = uv_default_loop();
  proxy.duration_s = o.duration;
  proxy.stats_interval_s = o.stats;
  int rc = netem_proxy_start(&proxy, loop, (const struct sockaddr*)&lst,
                             (const struct sockaddr*)&srv, &o.dir[0], &o.dir[1], (uint64_t)o.seed);
  if (rc != 0) {
    fprintf(stderr, "arbiter-netem: cannot listen on %s: %s\n", o.listen_at, uv_strerror(rc));
    return 1;
  }
  if (announce(&o, netem_proxy_port(&proxy)) != 0) return 1;
  watch_signals(loop);
  uv_run(loop, UV_RUN_DEFAULT);

  printf("{\n  \"sessions\": %llu,\n  \"sessions_refused\": %llu,\n",
         (unsigned long long)proxy.sessions_opened, (unsigned long long)proxy.session_refused);
  print_dir("up", &proxy.up, 0);
  print_dir("down", &proxy.down, 1);
  printf("}\n");
  netem_proxy_free(&proxy);
  if (!uv_is_closing((uv_handle_t*)&sig_int)) {
    uv_close((uv_handle_t*)&sig_int, NULL);
    uv_close((uv_handle_t*)&sig_term, NULL);
    uv_run(loop, UV_RUN_DEFAULT);
  }
  uv_loop_close(loop);
  return 0;
}
