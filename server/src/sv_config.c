// Flag and environment parsing for arbiter-server (see docs/SERVER.md).
#include "sv_config.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

typedef enum opt_kind {
  OPT_INT,
  OPT_FLOAT,
  OPT_RADIUS,  ///< a float in [0, 1e6] or "auto" (stored as SV_VIEW_RADIUS_AUTO)
  OPT_STR,
  OPT_LEVEL,
  OPT_FORMAT,
  OPT_U64,
  OPT_BOOL,
  OPT_LIST  ///< a string option that may repeat: the values are joined with commas
} opt_kind;

typedef struct opt {
  const char* flag;  ///< without leading "--"
  const char* env;
  const char* metavar;
  opt_kind kind;
  size_t offset;       ///< into sv_config
  size_t size;         ///< for strings: buffer size
  long long min, max;  ///< for ints
  const char* def;     ///< the default as its flag would give it; NULL = zero / empty
  const char* help;
} opt;

#define OFF(f) offsetof(sv_config, f)
#define SZ(f) sizeof(((sv_config*)0)->f)

static const opt opts[] = {
    {"port", "ARBITER_PORT", "N", OPT_INT, OFF(port), 0, 0, 65535, "7777",
     "UDP port for clients; 0 = any free port (the bound port is logged). Default 7777."},
    {"bind", "ARBITER_BIND", "ADDR", OPT_STR, OFF(bind), SZ(bind), 0, 0, "0.0.0.0",
     "IPv4 address to listen on. Default 0.0.0.0."},
    {"max-clients", "ARBITER_MAX_CLIENTS", "N", OPT_INT, OFF(max_clients), 0, 1, 1024, "64",
     "Player slots; one more connects and gets reject \"server full\". Default 64."},
    {"max-spectators", "ARBITER_MAX_SPECTATORS", "N", OPT_INT, OFF(max_spectators), 0, 0, 1024,
     "32",
     "Spectator slots (clients that watch without an avatar; not players, not in the replay log); "
     "one more gets reject full (\"spectators full (N)\"); 0 = no spectators. Default 32."},
    {"tick-rate", "ARBITER_TICK_RATE", "HZ", OPT_INT, OFF(tick_rate), 0, 1, 1000, NULL,
     "Simulation ticks per second; overrides the scene's tick_rate (recorded in replay logs). "
     "Default: the scene's (built-in scene: 60)."},
    {"physics-threads", "ARBITER_PHYSICS_THREADS", "N", OPT_INT, OFF(physics_threads), 0, 1, 64,
     "1",
     "Threads stepping the physics world (narrow phase and contact solver split between them; the "
     "results are the same bits for any N). Default 1."},
    {"snapshot-threads", "ARBITER_SNAPSHOT_THREADS", "N", OPT_INT, OFF(snapshot_threads), 0, 0, 64,
     "0",
     "Worker threads that build per-client snapshots with the tick thread (the simulation stays on "
     "the tick thread; the snapshots are the same bytes for any N). Default 0: all on the tick "
     "thread."},
    {"snapshot-rate", "ARBITER_SNAPSHOT_RATE", "HZ", OPT_INT, OFF(snapshot_rate), 0, 1, 1000, "30",
     "Snapshots per second per client, sent every round(tick/snapshot) ticks. Default 30."},
    {"scene", "ARBITER_SCENE", "FILE", OPT_STR, OFF(scene), SZ(scene), 0, 0, NULL,
     "Scene JSON file (docs/SCENES.md). Default: the built-in scene."},
    {"record", "ARBITER_RECORD", "FILE|DIR", OPT_STR, OFF(record), SZ(record), 0, 0, NULL,
     "Write a replay log. A directory gets arbiter-YYYYmmdd-HHMMSS-PID.arbrec. Default off."},
    {"record-max-bytes", "ARBITER_RECORD_MAX_BYTES", "N", OPT_U64, OFF(record_max_bytes), 0, 0, 0,
     "0",
     "With --record: before a file would pass N bytes, end it and go on in FILE.1.arbrec, "
     "FILE.2.arbrec, ... each starting with the header and a checkpoint; 0 = no limit (default)."},
    {"http-port", "ARBITER_HTTP_PORT", "N", OPT_INT, OFF(http_port), 0, -1, 65535, "8080",
     "TCP port for GET /healthz and /metrics; 0 = off, -1 = any free port. Default 8080."},
    {"http-bind", "ARBITER_HTTP_BIND", "ADDR", OPT_STR, OFF(http_bind), SZ(http_bind), 0, 0,
     "127.0.0.1", "Address for the HTTP listener. Default 127.0.0.1."},
    {"web-root", "ARBITER_WEB_ROOT", "DIR", OPT_STR, OFF(web_root), SZ(web_root), 0, 0, NULL,
     "The web page's files, served on the HTTP port (docs/WEB.md). Default: the bundle next to "
     "the executable (../share/arbiter/web, in a build tree and in an install), if there."},
    {"view-radius", "ARBITER_VIEW_RADIUS", "M|auto", OPT_RADIUS, OFF(view_radius), 0, 0, 0, "auto",
     "Send each client only entities within M meters of its avatar or in the camera box it reports "
     "(a spectator: only its box); 0 = everything. Default auto: everything in a scene of at most "
     "2000 bodies, 30 m in a larger one."},
    {"client-kbps", "ARBITER_CLIENT_KBPS", "N", OPT_INT, OFF(client_kbps), 0, 16, 1000000, "1000",
     "Snapshot bandwidth per client, kbit/s (payload and packet headers); a client may ask for "
     "less in its hello, and loss or rising round trip lowers it for a while. Default 1000."},
    {"log-level", "ARBITER_LOG_LEVEL", "LEVEL", OPT_LEVEL, OFF(log_level), 0, 0, 0, "info",
     "error, warn, info or debug. Default info."},
    {"log-format", "ARBITER_LOG_FORMAT", "FMT", OPT_FORMAT, OFF(log_format), 0, 0, 0, "text",
     "text or json, one line per event on stderr. Default text."},
    {"seed", "ARBITER_SEED", "N", OPT_U64, OFF(seed), 0, 0, 0, "1",
     "Game random seed (recorded in the replay log). Default 1."},
    {"hello-timeout-ms", "ARBITER_HELLO_TIMEOUT_MS", "MS", OPT_INT, OFF(hello_timeout_ms), 0, 50,
     60000, "5000", "A connection that sends no valid hello within MS is dropped. Default 5000."},
    {"peer-timeout-ms", "ARBITER_PEER_TIMEOUT_MS", "MS", OPT_INT, OFF(peer_timeout_ms), 0, 200,
     60000, "3000", "A silent client is timed out after about MS. Default 3000."},
    {"input-rate-limit", "ARBITER_INPUT_RATE_LIMIT", "N", OPT_INT, OFF(input_rate_limit), 0, 1,
     100000, "120",
     "Input packets per second per client; more are dropped and counted. Default 120."},
    {"byte-rate-limit", "ARBITER_BYTE_RATE_LIMIT", "N", OPT_INT, OFF(byte_rate_limit), 0, 256,
     100000000, "16384",
     "Bytes per second per client; more are dropped and counted. Default 16384."},
    {"strike-limit", "ARBITER_STRIKE_LIMIT", "N", OPT_INT, OFF(strike_limit), 0, 1, 1000000, "10",
     "Malformed messages a client may send before it is disconnected. Default 10."},
    {"max-catchup-ticks", "ARBITER_MAX_CATCHUP_TICKS", "N", OPT_INT, OFF(max_catchup_ticks), 0, 1,
     100, "5",
     "Ticks run in one wake-up; a backlog of more than N after them is dropped. Default 5."},
    {"checkpoint-every", "ARBITER_CHECKPOINT_EVERY", "N", OPT_INT, OFF(checkpoint_every), 0, 0,
     1000000, "600",
     "With --record: a full game-state checkpoint every N ticks (seek, divergence search); 0 = "
     "none. Default 600."},
    {"match-max-duration", "ARBITER_MATCH_MAX_DURATION", "S", OPT_INT, OFF(match_max_duration_s), 0,
     0, 604800, NULL,
     "End the match S seconds after it started (first join or allocation), then exit 0; 0 = no "
     "limit (default)."},
    {"exit-when-empty", "ARBITER_EXIT_WHEN_EMPTY", "S", OPT_INT, OFF(exit_when_empty_s), 0, 0,
     604800, NULL,
     "End the match when nobody has been in it for S seconds (after the last player left, or "
     "nobody joined within S of the allocation); 0 = never (default)."},
    {"drain-timeout", "ARBITER_DRAIN_TIMEOUT", "S", OPT_INT, OFF(drain_timeout_s), 0, 0, 604800,
     "60",
     "A drain (SIGUSR1, POST /admin/drain) ends the match after at most S seconds even if players "
     "remain. Default 60."},
    {"agones", "ARBITER_AGONES", "", OPT_BOOL, OFF(agones), 0, 0, 0, NULL,
     "Report to the Agones SDK server: ready, health, labels, players, shutdown; watch for the "
     "allocation. Default off."},
    {"agones-sdk-port", "AGONES_SDK_HTTP_PORT", "N", OPT_INT, OFF(agones_sdk_port), 0, 1, 65535,
     "9358",
     "REST port of the Agones SDK server on localhost (Agones sets the variable). Default 9358."},
    {"agones-health-ms", "ARBITER_AGONES_HEALTH_MS", "MS", OPT_INT, OFF(agones_health_ms), 0, 100,
     600000, "2000",
     "With --agones: a health ping every MS, sent from the tick (a stuck tick stops them). Default "
     "2000."},
    {"admin-token", "ARBITER_ADMIN_TOKEN", "FILE", OPT_STR, OFF(admin_token), SZ(admin_token), 0, 0,
     NULL,
     "File holding the bearer token for the operator endpoints (/admin/sessions, kick, ban, "
     "drain); unset = those endpoints are off."},
    {"test-stall-after-ms", "ARBITER_TEST_STALL_AFTER_MS", "MS", OPT_INT, OFF(test_stall_after_ms),
     0, 0, 86400000, NULL,
     "Testing only: stop ticking MS after start, as a hung tick would (health pings stop, /healthz "
     "503); 0 = off (default)."},
    {"peers-per-address", "ARBITER_PEERS_PER_ADDRESS", "N", OPT_INT, OFF(peers_per_address), 0, 1,
     4095, "16",
     "Connections one IP address may hold at once (players behind one NAT share it). Default 16."},
    {"connect-rate", "ARBITER_CONNECT_RATE", "N", OPT_INT, OFF(connect_rate), 0, 1, 100000, "20",
     "Connection-gate datagrams per second one IP address may send (2 s burst); more are dropped. "
     "Default 20."},
    {"rejoin-window-ms", "ARBITER_REJOIN_WINDOW_MS", "MS", OPT_INT, OFF(rejoin_window_ms), 0, 0,
     600000, "10000",
     "A client whose connection is lost gets its own avatar back if it rejoins within MS; 0 = off. "
     "Default 10000."},
    {"migrate-port", "ARBITER_MIGRATE_PORT", "PORT", OPT_INT, OFF(migrate_port), 0, -1, 65535, NULL,
     "TCP port on which this server takes over a match moved from another one (needs "
     "--admin-token, the credential the sender presents); -1 = any free port; 0 = off "
     "(default). docs/SCALING.md."},
    {"migrate-to", "ARBITER_MIGRATE_TO", "IP:PORT[/IP:PORT][?ws=URL]", OPT_STR, OFF(migrate_to),
     SZ(migrate_to), 0, 0, NULL,
     "Where SIGUSR2 moves the match: the receiving server's --migrate-port, then optionally "
     "where its ENet clients and its WebSocket clients (a ws:// or wss:// URL) reach it. "
     "Default none."},
    {"migrate-on-drain", "ARBITER_MIGRATE_ON_DRAIN", "IP:PORT[/IP:PORT][?ws=URL]", OPT_STR,
     OFF(migrate_on_drain), SZ(migrate_on_drain), 0, 0, NULL,
     "SIGTERM (a node drain) first moves a match with players to this --migrate-port (then "
     "optionally where its clients reach it, as for --migrate-to), and stops once a player got "
     "there; if the move fails the server stops as without it. Default none."},
    {"migrate-allocator", "ARBITER_MIGRATE_ALLOCATOR", "URL", OPT_STR, OFF(migrate_allocator),
     SZ(migrate_allocator), 0, 0, NULL,
     "SIGTERM first asks this http:// endpoint where to move the match (POST, JSON; "
     "docs/SCALING.md), then moves it there; --migrate-on-drain is the fallback. Default none."},
    {"test-migrate-fault", "ARBITER_TEST_MIGRATE_FAULT", "WHAT", OPT_STR, OFF(test_migrate_fault),
     SZ(test_migrate_fault), 0, 0, NULL,
     "Testing only: send a state image with a wrong simulation version (version) or game hash "
     "(hash), which the receiver must refuse. Default off."},
    {"auth-key", "ARBITER_AUTH_KEY", "FILE", OPT_STR, OFF(auth_key), SZ(auth_key), 0, 0, NULL,
     "Require connect tokens minted with this key (arbiter-token keygen/mint; docs/SECURITY.md). "
     "Default: open server."},
    {"public-address", "ARBITER_PUBLIC_ADDRESS", "IP:PORT", OPT_STR, OFF(public_address),
     SZ(public_address), 0, 0, NULL,
     "The address clients reach this server at, which tokens must list. Default: --bind and the "
     "bound port (0.0.0.0 = any IP)."},
    {"half-open-timeout-ms", "ARBITER_HALF_OPEN_TIMEOUT_MS", "MS", OPT_INT,
     OFF(half_open_timeout_ms), 0, 100, 60000, "1000",
     "A connection whose ENet handshake is not finished within MS is dropped. Default 1000."},
    // ---- WebSocket transport (PROTOCOL.md §1.2, docs/SERVER.md) ----
    {"ws-port", "ARBITER_WS_PORT", "N", OPT_INT, OFF(ws_port), 0, -1, 65535, NULL,
     "TCP port for WebSocket clients (browsers): ws://ADDR:N/ (any path); 0 = off (default), -1 = "
     "any free port (logged)."},
    {"ws-bind", "ARBITER_WS_BIND", "ADDR", OPT_STR, OFF(ws_bind), SZ(ws_bind), 0, 0, NULL,
     "IPv4 address for the WebSocket listener. Default: the --bind address."},
    {"ws-origin", "ARBITER_WS_ORIGIN", "ORIGIN", OPT_LIST, OFF(ws_origin), SZ(ws_origin), 0, 0,
     NULL,
     "Accept WebSocket upgrades only with this exact Origin header (e.g. https://game.example); "
     "repeat for more (the variable takes a comma-separated list; at most 16). Default: any "
     "origin."},
    {"ws-per-address", "ARBITER_WS_PER_ADDRESS", "N", OPT_INT, OFF(ws_per_address), 0, 1, 4095,
     "16",
     "WebSocket connections (handshakes included) one IP address may hold; more get 503. "
     "--peers-per-address also counts them with its ENet peers. Default 16."},
    {"ws-max", "ARBITER_WS_MAX", "N", OPT_INT, OFF(ws_max), 0, 1, SV_CONFIG_WS_MAX, "256",
     "WebSocket connections in total (each holds a session slot); more get 503. Default 256."},
    {"receive-interval-ms", "ARBITER_RECEIVE_INTERVAL_MS", "MS", OPT_INT, OFF(receive_interval_ms),
     0, 0, 100, "1",
     "Between ticks, read the UDP socket at most once per MS (each tick reads it too); 0 = "
     "whenever a datagram arrives. Default 1."},
};
#define OPT_COUNT ((int)(sizeof opts / sizeof opts[0]))

void sv_config_print_help(FILE* out, const char* prog) {
  fprintf(out,
          "Usage: %s [options]\n"
          "The arbiter authoritative physics server: one world at a fixed tick, clients over\n"
          "ENet/UDP, optional replay recording and HTTP /healthz + /metrics.\n\n"
          "Options (each also read from the environment variable shown; flags win):\n",
          prog);
  for (int i = 0; i < OPT_COUNT; ++i) {
    char left[64];
    snprintf(left, sizeof left, opts[i].metavar[0] ? "--%s %s" : "--%s", opts[i].flag,
             opts[i].metavar);
    fprintf(out, "  %-28s %s\n  %-28s [env %s]\n", left, opts[i].help, "", opts[i].env);
  }
  fprintf(out,
          "  %-28s Show this help and exit.\n"
          "  %-28s Show the build id and exit.\n\n"
          "Signals: SIGINT/SIGTERM stop the server cleanly (clients are told, the log is closed);\n"
          "SIGUSR1 drains it (no new players; the match finishes, then the server exits 0).\n"
          "SIGUSR2 moves the match to --migrate-to; with --migrate-on-drain or\n"
          "--migrate-allocator, SIGTERM moves a match with players before stopping.\n"
          "Exit status: 0 clean stop, 1 runtime failure, 2 invalid configuration.\n",
          "--help", "--version");
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(char* err, size_t cap, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

// `source` names where the value came from, for the error message ("--port", "ARBITER_PORT").
static int set_value(sv_config* cfg, const opt* o, const char* value, const char* source, char* err,
                     size_t cap) {
  char* base = (char*)cfg + o->offset;
  char* end = NULL;
  switch (o->kind) {
    case OPT_INT: {
      errno = 0;
      long long v = strtoll(value, &end, 10);
      if (*value == '\0' || *end != '\0' || errno != 0)
        return fail(err, cap, "%s: \"%s\" is not an integer", source, value);
      if (v < o->min || v > o->max)
        return fail(err, cap, "%s: %lld is out of range [%lld, %lld]", source, v, o->min, o->max);
      *(int*)base = (int)v;
      return 0;
    }
    case OPT_U64: {
      errno = 0;
      if (*value == '-') return fail(err, cap, "%s: \"%s\" must not be negative", source, value);
      unsigned long long v = strtoull(value, &end, 0);
      if (*value == '\0' || *end != '\0' || errno != 0)
        return fail(err, cap, "%s: \"%s\" is not an unsigned integer", source, value);
      *(uint64_t*)base = (uint64_t)v;
      return 0;
    }
    case OPT_RADIUS:
      if (strcmp(value, "auto") == 0) {
        *(float*)base = SV_VIEW_RADIUS_AUTO;
        return 0;
      }
      __attribute__((fallthrough));  // a number, as a float option's
    case OPT_FLOAT: {
      errno = 0;
      float v = strtof(value, &end);
      if (*value == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
        return fail(err, cap, "%s: \"%s\" is not a finite number", source, value);
      if (v < 0.0f || v > 1.0e6f)
        return fail(err, cap, "%s: %s is out of range [0, 1e6]", source, value);
      *(float*)base = v;
      return 0;
    }
    case OPT_LIST:
      if (base[0] != '\0') {  // a repeat: append
        if (strlen(base) + 1 + strlen(value) >= o->size)
          return fail(err, cap, "%s: values are longer than %zu characters together", source,
                      o->size - 1);
        strcat(base, ",");
        strcat(base, value);
        return 0;
      }
      if (strlen(value) >= o->size)
        return fail(err, cap, "%s: value is longer than %zu characters", source, o->size - 1);
      memcpy(base, value, strlen(value) + 1);
      return 0;
    case OPT_STR:
      if (strlen(value) >= o->size)
        return fail(err, cap, "%s: value is longer than %zu characters", source, o->size - 1);
      memcpy(base, value, strlen(value) + 1);
      return 0;
    case OPT_LEVEL:
      if (sv_log_parse_level(value, (sv_log_level*)base) != 0)
        return fail(err, cap, "%s: \"%s\" is not one of error, warn, info, debug", source, value);
      return 0;
    case OPT_BOOL:
      if (strcmp(value, "1") == 0 || strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 ||
          strcmp(value, "on") == 0)
        *(bool*)base = true;
      else if (strcmp(value, "0") == 0 || strcmp(value, "false") == 0 || strcmp(value, "no") == 0 ||
               strcmp(value, "off") == 0)
        *(bool*)base = false;
      else
        return fail(err, cap, "%s: \"%s\" is not one of 1, 0, true, false, yes, no, on, off",
                    source, value);
      return 0;
    case OPT_FORMAT:
      if (sv_log_parse_format(value, (sv_log_format*)base) != 0)
        return fail(err, cap, "%s: \"%s\" is not one of text, json", source, value);
      return 0;
  }
  return fail(err, cap, "%s: internal error", source);
}

sv_config sv_default_config(void) {
  sv_config c;
  memset(&c, 0, sizeof c);
  for (int i = 0; i < OPT_COUNT; ++i) {
    if (!opts[i].def) continue;
    char err[160];
    int rc = set_value(&c, &opts[i], opts[i].def, opts[i].flag, err, sizeof err);
    assert(rc == 0 && "every default in the table is a valid value of its option");
    (void)rc;
  }
  return c;
}

static int check_ipv4(const char* s, const char* what, char* err, size_t cap) {
  unsigned a, b, c, d;
  char extra;
  if (sscanf(s, "%u.%u.%u.%u%c", &a, &b, &c, &d, &extra) != 4 || a > 255 || b > 255 || c > 255 ||
      d > 255)
    return fail(err, cap, "%s: \"%s\" is not an IPv4 address (ENet 1.3 is IPv4 only)", what, s);
  return 0;
}

int sv_config_parse(sv_config* cfg, int argc, char** argv, char* err, size_t err_cap, FILE* out) {
  // Pass 1: find the flags (and --help/--version) without applying them, so an option
  // given as a flag never looks at its environment variable.
  const opt* given[OPT_COUNT];
  const char* given_value[OPT_COUNT];
  int given_count = 0;
  bool by_flag[OPT_COUNT] = {false};
  for (int a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      sv_config_print_help(out, argv[0]);
      return 1;
    }
    if (strcmp(arg, "--version") == 0) {
      fprintf(out, "%s\n", ARB_BUILD_ID);
      return 1;
    }
    if (strncmp(arg, "--", 2) != 0)
      return fail(err, err_cap, "unexpected argument \"%s\" (see --help)", arg);
    const char* name = arg + 2;
    const char* eq = strchr(name, '=');
    size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
    int found = -1;
    for (int i = 0; i < OPT_COUNT; ++i) {
      if (strlen(opts[i].flag) == name_len && strncmp(opts[i].flag, name, name_len) == 0) found = i;
    }
    if (found < 0) return fail(err, err_cap, "unknown option \"%s\" (see --help)", arg);
    const char* value;
    if (eq) {
      value = eq + 1;
    } else if (opts[found].kind == OPT_BOOL) {
      value = "1";  // a switch: given means on
    } else {
      if (a + 1 >= argc)
        return fail(err, err_cap, "--%s needs a value (%s)", opts[found].flag, opts[found].metavar);
      value = argv[++a];
    }
    if (given_count < OPT_COUNT) {
      given[given_count] = &opts[found];
      given_value[given_count++] = value;
    }
    by_flag[found] = true;
  }
  for (int i = 0; i < OPT_COUNT; ++i) {
    const char* v = getenv(opts[i].env);
    if (v != NULL && !by_flag[i] && set_value(cfg, &opts[i], v, opts[i].env, err, err_cap) != 0)
      return -1;
  }
  for (int g = 0; g < given_count; ++g) {
    char source[80];
    snprintf(source, sizeof source, "--%s", given[g]->flag);
    if (set_value(cfg, given[g], given_value[g], source, err, err_cap) != 0) return -1;
  }
  if (check_ipv4(cfg->bind, "--bind", err, err_cap) != 0) return -1;
  if (check_ipv4(cfg->http_bind, "--http-bind", err, err_cap) != 0) return -1;
  if (cfg->ws_bind[0] && check_ipv4(cfg->ws_bind, "--ws-bind", err, err_cap) != 0) return -1;
  if (cfg->ws_port > 0 && cfg->ws_port == cfg->http_port)
    return fail(err, err_cap, "--ws-port %d is the same as --http-port", cfg->ws_port);
  if (cfg->http_port > 0 && cfg->http_port == cfg->port && cfg->port != 0) {
    // UDP and TCP could share a number, but it is almost always a typo in a config.
    return fail(err, err_cap, "--http-port %d is the same as --port", cfg->http_port);
  }
  if (cfg->tick_rate != 0 && cfg->snapshot_rate > cfg->tick_rate)
    return fail(err, err_cap, "--snapshot-rate %d is higher than --tick-rate %d",
                cfg->snapshot_rate, cfg->tick_rate);
  return 0;
}
