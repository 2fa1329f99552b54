// arbiter-bot: N headless clients in one process and one loop, sending scripted inputs.
// The load generator for benchmarks and the traffic for integration tests and demos.
//
// stdout: the JSON summary at the end (only that). stderr: one progress line per second
// and the clients' warnings. Exit status: 0 = every client connected, was never rejected
// and received snapshots; 1 = some did not (the summary says which and why); 2 = bad flags.
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bot.h"
#include "tool_args.h"

#define BOT_MAX_CLIENTS 4000
#define BOT_FRAME 0.016  // seconds between samples/behaviour updates (about 60 frames/s)

static volatile sig_atomic_t g_stop = 0;
static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

static double mono_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE* f) {
  fprintf(f,
          "usage: arbiter-bot [--host H] [--port P] [--clients N] [--duration S]\n"
          "                   [--behaviour idle|random|circle|seek|toggle] [--seed X]\n"
          "                   [--per-client] [--no-predict] [--no-interp] [--spectate]\n"
          "                   [--tokens FILE]"
          "                   [--input-rate N]\n"
          "\n"
          "Runs N headless clients of arbiter-server in one process, each sending scripted\n"
          "inputs at the server's tick rate (or --input-rate) and interpolating the world\n"
          "like a game would.\n"
          "\n"
          "  --host H        server address (default 127.0.0.1)\n"
          "  --port P        server UDP port (default 7777)\n"
          "  --clients N     number of clients, 1..%d (default 1)\n"
          "  --duration S    seconds to run, > 0 (default 10)\n"
          "  --behaviour B   idle: no input; random: a new random direction every 0.5-1.5 s;\n"
          "                  circle: run in circles; seek: chase the nearest other body;\n"
          "                  toggle: right 1 s, stand 1 s, left 1 s, stand 1 s (the summary's\n"
          "                  confirm_ms: from a move's start to the first snapshot that\n"
          "                  shows the server's avatar moving; needs prediction)\n"
          "                  (default random)\n"
          "  --seed X        seed of the scripted inputs (default 1); client i uses X + i\n"
          "  --per-client    add one JSON object per client to the summary\n"
          "  --no-predict    draw the own avatar interpolated, like everything else\n"
          "                  (default: predicted, see the summary's \"prediction\")\n"
          "  --no-interp     decode and acknowledge snapshots only: no interpolation, no\n"
          "                  prediction, no continuity check (the cheapest client, for load\n"
          "                  tests with hundreds of clients on one core; not with seek)\n"
          "  --spectate      watch without an avatar: each client asks the server to\n"
          "                  spectate (no commands sent; counts against --max-spectators)\n"
          "  --tokens FILE   connect tokens, one per line (arbiter-token mint); client i uses\n"
          "                  line i (a server with --auth-key needs one per client)\n"
          "  --input-rate N  input packets per second at most, 0..10000 (default 0: one per\n"
          "                  server tick); below the tick rate each packet carries the\n"
          "                  commands of the ticks since the last (arb_client_config.input_rate)\n"
          "  --help          this text\n"
          "\n"
          "Every second a progress line goes to stderr: connected clients, snapshots/s and\n"
          "kbit/s in and out (all clients together), RTT p50/p99 across clients. At the end\n"
          "a JSON summary goes to stdout. Exit status 1 when any client failed to connect,\n"
          "was rejected, or received no snapshot; 2 for invalid flags.\n",
          BOT_MAX_CLIENTS);
}

// A whole decimal number in [lo, hi] (lo >= 0) into a long option. 0, or -1 when invalid.
static int parse_long(const char* s, long lo, long hi, long* out) {
  unsigned long long v;
  if (tool_parse_u64(s, (unsigned long long)lo, (unsigned long long)hi, &v) != 0) return -1;
  *out = (long)v;
  return 0;
}

// One token per line; returns the number read (at most max), -1 if the file cannot be read.
static long read_tokens(const char* path, char (*tokens)[ARB_CLIENT_MAX_TOKEN_TEXT + 2], long max) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return -1;
  long n = 0;
  while (n < max && fgets(tokens[n], ARB_CLIENT_MAX_TOKEN_TEXT + 2, f)) {
    size_t len = strcspn(tokens[n], "\r\n");
    tokens[n][len] = '\0';
    if (len > 0) n++;
  }
  fclose(f);
  return n;
}

static void log_to_stderr(void* user, arb_client_log_level level, const char* msg) {
  bot* b = (bot*)user;
  static const char* names[] = {"debug", "info", "warn", "error"};
  fprintf(stderr, "arbiter-bot: client %d: %s: %s\n", b->index, names[level < 4 ? level : 3], msg);
}

static int cmp_float(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static float percentile(float* v, int n, double p) {
  if (n <= 0) return 0.0f;
  qsort(v, (size_t)n, sizeof *v, cmp_float);
  int i = (int)ceil(p * n) - 1;
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return v[i];
}

static void drain_events(bot* b, double now) {
  arb_client_event ev;
  while (arb_client_poll_event(b->client, &ev) > 0) {
    switch (ev.type) {
      case ARB_CLIENT_EVENT_CONNECTED:
        b->ever_connected = true;
        b->connected_since = now;
        b->snapshot_rate = arb_client_get_session(b->client)->snapshot_rate;
        break;
      case ARB_CLIENT_EVENT_REJECTED:
        b->rejected = true;
        snprintf(b->reason, sizeof b->reason, "%s", ev.text);
        fprintf(stderr, "arbiter-bot: client %d: rejected: %s\n", b->index, ev.text);
        break;
      case ARB_CLIENT_EVENT_DISCONNECTED:
        if (b->connected_since >= 0.0) {
          b->connected_time += now - b->connected_since;
          b->connected_since = -1.0;
          b->drops++;
        } else {
          b->connect_failures++;
        }
        if (b->streaming_since >= 0.0) {
          b->streaming_time += now - b->streaming_since;
          b->streaming_since = -1.0;
        }
        snprintf(b->reason, sizeof b->reason, "%s", ev.text);
        break;
      case ARB_CLIENT_EVENT_PLAYER_JOINED:
      case ARB_CLIENT_EVENT_PLAYER_LEFT:
        bot_note_player(b, &ev);
        if (b->index == 0)
          fprintf(stderr, "arbiter-bot: player %s: client %u \"%s\"\n",
                  ev.type == ARB_CLIENT_EVENT_PLAYER_JOINED ? "joined" : "left", ev.client_id,
                  ev.text);
        break;
      default:
        break;
    }
  }
}

// The link as the bots saw it: the longest wait for a snapshot, and (toggle) how long the
// server took to show a move in its snapshots.
static void print_link(const bot* bots, long n) {
  bot_samples confirm = {0};
  float worst_stall = 0.0f;
  for (long i = 0; i < n; i++) {
    const bot* b = &bots[i];
    for (int k = 0; k < b->confirm_ms.n; k++) bot_samples_push(&confirm, b->confirm_ms.v[k]);
    if (b->worst_stall_ms > worst_stall) worst_stall = b->worst_stall_ms;
  }
  printf(
      "  \"worst_stall_ms\": %.1f,\n  \"confirm_samples\": %d,\n  \"confirm_ms_p50\": %.1f,\n"
      "  \"confirm_ms_p95\": %.1f,\n",
      worst_stall, confirm.n, percentile(confirm.v, confirm.n, 0.50),
      percentile(confirm.v, confirm.n, 0.95));
  bot_samples_free(&confirm);
}

// The "prediction" object of the summary: what the bots' clients measured themselves.
static void print_prediction(const bot* bots, long n) {
  bot_samples motion = {0}, err = {0}, err_free = {0};
  uint64_t checks = 0, corrections = 0, snaps = 0, late = 0;
  int predicting = 0;
  float err_max = 0.0f, corr_max = 0.0f;
  for (long i = 0; i < n; i++) {
    const bot* b = &bots[i];
    for (int k = 0; k < b->motion_ms.n; k++) bot_samples_push(&motion, b->motion_ms.v[k]);
    for (int k = 0; k < b->error_m.n; k++) bot_samples_push(&err, b->error_m.v[k]);
    for (int k = 0; k < b->error_free_m.n; k++) bot_samples_push(&err_free, b->error_free_m.v[k]);
    arb_client_stats st;
    arb_client_get_stats(b->client, &st);
    predicting += st.predicting ? 1 : 0;
    checks += st.predict_checks;
    corrections += st.predict_corrections;
    snaps += st.predict_snaps;
    late += st.inputs_late;
    if (st.predict_error_max > err_max) err_max = st.predict_error_max;
    if (st.predict_correction_max > corr_max) corr_max = st.predict_correction_max;
  }
  printf(
      "  \"prediction\": {\"predicting_at_end\": %d, \"input_to_motion_samples\": %d, "
      "\"input_to_motion_ms_p50\": %.2f, \"input_to_motion_ms_p95\": %.2f, \"checks\": %llu, "
      "\"error_m_p50\": %.4f, \"error_m_p95\": %.4f, \"error_m_max\": %.4f, \"free_space_checks\": "
      "%d, "
      "\"free_space_error_m_p95\": %.4f, \"corrections\": %llu, \"correction_m_max\": %.4f, "
      "\"snaps\": %llu, \"inputs_late\": %llu},\n",
      predicting, motion.n, percentile(motion.v, motion.n, 0.50),
      percentile(motion.v, motion.n, 0.95), (unsigned long long)checks,
      percentile(err.v, err.n, 0.50), percentile(err.v, err.n, 0.95), err_max, err_free.n,
      percentile(err_free.v, err_free.n, 0.95), (unsigned long long)corrections, corr_max,
      (unsigned long long)snaps, (unsigned long long)late);
  bot_samples_free(&motion);
  bot_samples_free(&err);
  bot_samples_free(&err_free);
}

typedef struct totals {
  int connected, ever, rejected, no_snapshots;
  double snaps, expected, bytes_in, bytes_out, connected_time;
  uint64_t decode_errors, reconnects, lost, samples, discontinuities, frames, long_frames, inputs,
      drops, connect_failures;
  float worst_step;
} totals;

static void json_escape(FILE* f, const char* s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

// The command line.
typedef struct bot_options {
  const char* host;
  long port, nclients, seed;
  long input_rate;  ///< --input-rate: arb_client_config.input_rate
  double duration;
  bot_behaviour behaviour;
  bool per_client;
  bool predict;
  bool interp;              ///< sample the interpolated world every frame (false: --no-interp)
  bool spectate;            ///< --spectate: watch without an avatar
  const char* tokens_path;  ///< --tokens FILE, NULL for none
} bot_options;

// Returns -1 to go on, else the exit status (0 after --help, 2 for a bad flag).
static int parse_options(int argc, char** argv, bot_options* o) {
  *o = (bot_options){"127.0.0.1", 7777, 1, 1, 0, 10.0, BOT_RANDOM, false, true, true, false, NULL};
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(a, "--per-client")) {
      o->per_client = true;
      continue;
    }
    if (!strcmp(a, "--no-predict")) {
      o->predict = false;
      continue;
    }
    if (!strcmp(a, "--spectate")) {
      o->spectate = true;
      continue;
    }
    if (!strcmp(a, "--no-interp")) {
      o->interp = false;
      o->predict = false;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "arbiter-bot: %s: missing value or unknown flag (see --help)\n", a);
      return 2;
    }
    const char* v = argv[++i];
    int bad = 0;
    if (!strcmp(a, "--host"))
      o->host = v;
    else if (!strcmp(a, "--port"))
      bad = parse_long(v, 1, 65535, &o->port);
    else if (!strcmp(a, "--clients"))
      bad = parse_long(v, 1, BOT_MAX_CLIENTS, &o->nclients);
    else if (!strcmp(a, "--duration"))
      bad = tool_parse_double(v, 0.001, 1e7, &o->duration);
    else if (!strcmp(a, "--seed"))
      bad = parse_long(v, 0, 0x7fffffffL, &o->seed);
    else if (!strcmp(a, "--behaviour"))
      bad = bot_parse_behaviour(v, &o->behaviour);
    else if (!strcmp(a, "--tokens"))
      o->tokens_path = v;
    else if (!strcmp(a, "--input-rate"))
      bad = parse_long(v, 0, 10000, &o->input_rate);
    else {
      fprintf(stderr, "arbiter-bot: unknown flag %s (see --help)\n", a);
      return 2;
    }
    if (bad) {
      fprintf(stderr, "arbiter-bot: %s: invalid value '%s' (see --help)\n", a, v);
      return 2;
    }
  }
  if (!o->interp && o->behaviour == BOT_SEEK) {
    fprintf(stderr,
            "arbiter-bot: --behaviour seek needs the interpolated world (drop --no-interp)\n");
    return 2;
  }
  return -1;
}

// One UDP socket per client: raise the descriptor limit as far as allowed. 0 or -1.
static int raise_fd_limit(long nclients) {
  struct rlimit rl;
  rlim_t want = (rlim_t)(nclients + 32);
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want) return 0;
  rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
    fprintf(
        stderr,
        "arbiter-bot: --clients %ld needs %ld file descriptors, the limit is %llu (ulimit -n)\n",
        nclients, nclients + 32, (unsigned long long)rl.rlim_cur);
    return -1;
  }
  return 0;
}

// Everything one run owns.
typedef struct bot_run {
  bot_options opt;
  bot* bots;
  struct pollfd* fds;
  float* rtts;
  char (*tokens)[ARB_CLIENT_MAX_TOKEN_TEXT + 2];  ///< one per client from --tokens, or NULL
  double t0;
} bot_run;

static int start_client(const bot_options* o, bot* b, long i, const char* token) {
  b->index = (int)i;
  b->behaviour = o->behaviour;
  b->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(o->seed + i) * 0xBF58476D1CE4E5B9ull);
  if (b->rng == 0) b->rng = 1;
  b->phase = bot_rand(b) * 6.283185307179586;
  b->connected_since = -1.0;
  b->streaming_since = -1.0;
  b->prev_T = -1.0;
  arb_client_config cfg = arb_client_default_config();
  char name[32];
  snprintf(name, sizeof name, "bot-%ld-%ld", o->seed, i);
  cfg.host = o->host;
  cfg.port = (uint16_t)o->port;
  cfg.name = name;
  if (token) cfg.token = token;
  cfg.log = log_to_stderr;
  cfg.log_user = b;
  cfg.log_level = ARB_CLIENT_LOG_WARN;
  cfg.predict = o->predict;
  cfg.interpolate = o->interp;
  cfg.spectate = o->spectate;
  cfg.input_rate = (int)o->input_rate;
  b->smoothing = cfg.predict_smoothing;
  int rc = arb_client_create(&cfg, &b->client);
  if (rc != 0) {
    fprintf(stderr, "arbiter-bot: client %ld: cannot create: %s\n", i, arb_strerror(rc));
    return rc;
  }
  rc = arb_client_connect(b->client);
  if (rc != 0)
    fprintf(stderr, "arbiter-bot: client %ld: cannot connect to %s:%ld: %s (%s)\n", i, o->host,
            o->port, arb_strerror(rc), arb_client_get_last_error(b->client));
  return rc;
}

// Counters summed over all clients, as the last progress line saw them.
typedef struct progress {
  uint64_t snaps, in, out;
  double at, next;
} progress;

static void print_progress(bot_run* r, progress* last, double now) {
  int connected = 0, nr = 0;
  uint64_t snaps = 0, in = 0, out = 0;
  for (long i = 0; i < r->opt.nclients; i++) {
    arb_client_stats st;
    arb_client_get_stats(r->bots[i].client, &st);
    snaps += st.snapshots_received;
    in += st.bytes_in;
    out += st.bytes_out;
    if (arb_client_get_state(r->bots[i].client) == ARB_CLIENT_CONNECTED) {
      connected++;
      r->rtts[nr++] = st.rtt * 1000.0f;
    }
  }
  double dt = now - last->at;
  float p50 = percentile(r->rtts, nr, 0.50), p99 = percentile(r->rtts, nr, 0.99);
  fprintf(stderr,
          "arbiter-bot: t=%.0fs connected=%d/%ld snapshots/s=%.1f kbps_in=%.1f kbps_out=%.1f "
          "rtt_p50=%.1fms rtt_p99=%.1fms\n",
          now - r->t0, connected, r->opt.nclients, (double)(snaps - last->snaps) / dt,
          (double)(in - last->in) * 8.0 / 1000.0 / dt,
          (double)(out - last->out) * 8.0 / 1000.0 / dt, p50, p99);
  *last = (progress){snaps, in, out, now, last->next + 1.0};
  if (last->next < now) last->next = now + 1.0;
}

// Sleep until a socket is readable or the next frame is due (inputs go out from
// arb_client_update at the tick rate, so wake at least every 4 ms for them).
static void wait_for_traffic(bot_run* r, double next_frame) {
  for (long i = 0; i < r->opt.nclients; i++) {
    r->fds[i].fd = arb_client_get_fd(r->bots[i].client);
    r->fds[i].events = POLLIN;
    r->fds[i].revents = 0;
  }
  double wait = next_frame - mono_now();
  if (wait > 0.004) wait = 0.004;
  if (wait > 0.0) poll(r->fds, (nfds_t)r->opt.nclients, (int)(wait * 1000.0 + 0.5));
}

// The main loop until --duration or a signal; returns the end time.
static double run_clients(bot_run* r) {
  double next_frame = r->t0, end = r->t0 + r->opt.duration;
  progress last = {0, 0, 0, r->t0, r->t0 + 1.0};
  while (!g_stop) {
    double now = mono_now();
    if (now >= end) break;
    for (long i = 0; i < r->opt.nclients; i++) {
      bot* b = &r->bots[i];
      arb_client_update(b->client, now);
      drain_events(b, now);
      bot_observe_prediction(b);
      bot_observe_link(b, now - r->t0);  // the clock bot_behave runs on
      if (b->streaming_since < 0.0 && b->connected_since >= 0.0 &&
          arb_client_get_snapshot_tick(b->client) != 0)
        b->streaming_since = now;
    }
    if (now >= next_frame) {
      for (long i = 0; i < r->opt.nclients; i++) {
        if (r->opt.interp) bot_sample(&r->bots[i], now);
        bot_behave(&r->bots[i], now - r->t0);
      }
      next_frame += BOT_FRAME;
      if (next_frame < now) next_frame = now + BOT_FRAME;
    }
    if (now >= last.next) print_progress(r, &last, now);
    wait_for_traffic(r, next_frame);
  }
  return mono_now();
}

// Close every client's open intervals at t_end and sum; r->rtts gets the connected RTTs.
static totals sum_totals(bot_run* r, double t_end, int* rtt_count) {
  totals tot;
  memset(&tot, 0, sizeof tot);
  int nr = 0;
  for (long i = 0; i < r->opt.nclients; i++) {
    bot* b = &r->bots[i];
    if (b->connected_since >= 0.0) b->connected_time += t_end - b->connected_since;
    if (b->streaming_since >= 0.0) b->streaming_time += t_end - b->streaming_since;
    arb_client_stats st;
    arb_client_get_stats(b->client, &st);
    if (arb_client_get_state(b->client) == ARB_CLIENT_CONNECTED) {
      tot.connected++;
      r->rtts[nr++] = st.rtt * 1000.0f;
    }
    if (b->ever_connected) tot.ever++;
    if (b->rejected) tot.rejected++;
    if (st.snapshots_received == 0) tot.no_snapshots++;
    tot.snaps += (double)st.snapshots_received;
    tot.expected += b->streaming_time * b->snapshot_rate;
    tot.drops += b->drops;
    tot.connect_failures += b->connect_failures;
    tot.bytes_in += (double)st.bytes_in;
    tot.bytes_out += (double)st.bytes_out;
    tot.connected_time += b->connected_time;
    tot.decode_errors += st.decode_errors;
    tot.reconnects += st.reconnects;
    tot.lost += st.snapshots_lost;
    tot.samples += b->samples;
    tot.discontinuities += b->discontinuities;
    tot.frames += b->frames;
    tot.long_frames += b->long_frames;
    tot.inputs += st.inputs_sent;
    if (b->worst_step > tot.worst_step) tot.worst_step = b->worst_step;
  }
  *rtt_count = nr;
  return tot;
}

static void print_client_json(const bot* b, bool last) {
  arb_client_stats st;
  arb_client_get_stats(b->client, &st);
  const arb_client_session* s = arb_client_get_session(b->client);
  double ctime = b->connected_time > 0.0 ? b->connected_time : 1.0;
  printf(
      "    {\"index\": %d, \"client_id\": %u, \"avatar\": %u, \"state\": %d, \"ever_connected\": "
      "%s, "
      "\"rejected\": %s, \"reason\": ",
      b->index, s->client_id, s->avatar_entity, (int)arb_client_get_state(b->client),
      b->ever_connected ? "true" : "false", b->rejected ? "true" : "false");
  json_escape(stdout, b->reason);
  printf(
      ", \"connected_s\": %.3f, \"snapshots\": %llu, \"expected\": %.0f, \"lost\": %llu, "
      "\"duplicates\": %llu, \"late\": %llu, \"baseline_missing\": %llu, \"decode_errors\": %llu, "
      "\"reconnects\": %u, \"drops\": %u, \"bytes_in_per_s\": %.1f, \"bytes_out_per_s\": %.1f, "
      "\"rtt_ms\": %.2f, \"interp_delay_ms\": %.2f, \"frames\": %llu, \"long_frames\": %llu, "
      "\"discontinuities\": %llu, \"worst_step_ratio\": %.3f, \"worst_stall_ms\": %.1f, "
      "\"rejoin_checks\": %u, \"rejoin_jump_m\": %.3f, \"rejoin_jump_ratio\": %.3f}%s\n",
      b->connected_time, (unsigned long long)st.snapshots_received,
      b->streaming_time * b->snapshot_rate, (unsigned long long)st.snapshots_lost,
      (unsigned long long)st.snapshots_duplicate, (unsigned long long)st.snapshots_late,
      (unsigned long long)st.baseline_missing, (unsigned long long)st.decode_errors, st.reconnects,
      b->drops, (double)st.bytes_in / ctime, (double)st.bytes_out / ctime, st.rtt * 1000.0f,
      st.interp_delay * 1000.0f, (unsigned long long)b->frames, (unsigned long long)b->long_frames,
      (unsigned long long)b->discontinuities, b->worst_step, (double)b->worst_stall_ms,
      b->rejoin_checks, b->rejoin_jump_m, b->rejoin_jump_ratio, last ? "" : ",");
}

// "players_seen": the players the first bot saw join after it, whether they left, and
// how far each one's avatar moved from where it was first sampled.
static void print_players_seen(const bot* b) {
  printf("  \"players_seen\": [");
  for (int k = 0; b && k < b->seen_count; k++) {
    const bot_seen_player* p = &b->seen[k];
    printf("%s\n    {\"client_id\": %u, \"avatar\": %u, \"name\": ", k ? "," : "", p->client_id,
           p->avatar);
    json_escape(stdout, p->name);
    printf(", \"left\": %s, \"sampled\": %s, \"moved_m\": %.3f}", p->left ? "true" : "false",
           p->placed ? "true" : "false", p->moved);
  }
  printf("%s],\n", b && b->seen_count ? "\n  " : "");
}

// The JSON summary on stdout; returns whether the run passed.
static bool print_summary(bot_run* r, double t_end) {
  const bot_options* o = &r->opt;
  int nr;
  totals tot = sum_totals(r, t_end, &nr);
  bool ok = tot.ever == o->nclients && tot.rejected == 0 && tot.no_snapshots == 0;
  float p50 = percentile(r->rtts, nr, 0.50), p99 = percentile(r->rtts, nr, 0.99);
  double ct = tot.connected_time > 0.0 ? tot.connected_time : 1.0;
  printf("{\n");
  printf("  \"ok\": %s,\n", ok ? "true" : "false");
  printf("  \"host\": ");
  json_escape(stdout, o->host);
  printf(",\n  \"port\": %ld,\n  \"clients\": %ld,\n  \"behaviour\": \"%s\",\n  \"seed\": %ld,\n",
         o->port, o->nclients, bot_behaviour_name(o->behaviour), o->seed);
  printf("  \"duration_s\": %.3f,\n", t_end - r->t0);
  printf(
      "  \"connected_at_end\": %d,\n  \"ever_connected\": %d,\n  \"rejected\": %d,\n  "
      "\"without_snapshots\": %d,\n",
      tot.connected, tot.ever, tot.rejected, tot.no_snapshots);
  printf("  \"reconnects\": %llu,\n  \"drops\": %llu,\n  \"connect_failures\": %llu,\n",
         (unsigned long long)tot.reconnects, (unsigned long long)tot.drops,
         (unsigned long long)tot.connect_failures);
  printf(
      "  \"snapshots_received\": %.0f,\n  \"snapshots_expected\": %.0f,\n  \"snapshot_ratio\": "
      "%.4f,\n",
      tot.snaps, tot.expected, tot.expected > 0.0 ? tot.snaps / tot.expected : 0.0);
  printf("  \"snapshots_lost\": %llu,\n", (unsigned long long)tot.lost);
  printf("  \"snapshots_per_client_per_s\": %.2f,\n", tot.snaps / ct);
  int snapshot_rate = 0;  // the servers' (every bot's session has one)
  for (long i = 0; i < o->nclients; i++)
    if (r->bots[i].snapshot_rate > snapshot_rate) snapshot_rate = r->bots[i].snapshot_rate;
  printf("  \"snapshot_rate\": %d,\n", snapshot_rate);
  printf("  \"bytes_in_per_client_per_s\": %.1f,\n  \"bytes_out_per_client_per_s\": %.1f,\n",
         tot.bytes_in / ct, tot.bytes_out / ct);
  printf("  \"inputs_sent\": %llu,\n", (unsigned long long)tot.inputs);
  printf("  \"inputs_per_client_per_s\": %.2f,\n", tot.inputs / ct);
  printf("  \"rtt_ms_p50\": %.2f,\n  \"rtt_ms_p99\": %.2f,\n", p50, p99);
  printf("  \"decode_errors\": %llu,\n", (unsigned long long)tot.decode_errors);
  print_link(r->bots, o->nclients);
  print_prediction(r->bots, o->nclients);
  print_players_seen(o->nclients > 0 ? &r->bots[0] : NULL);
  printf("  \"frames\": %llu,\n  \"long_frames\": %llu,\n", (unsigned long long)tot.frames,
         (unsigned long long)tot.long_frames);
  printf(
      "  \"continuity_samples\": %llu,\n  \"discontinuities\": %llu,\n  \"worst_step_ratio\": "
      "%.3f%s\n",
      (unsigned long long)tot.samples, (unsigned long long)tot.discontinuities, tot.worst_step,
      o->per_client ? "," : "");
  if (o->per_client) {
    printf("  \"per_client\": [\n");
    for (long i = 0; i < o->nclients; i++) print_client_json(&r->bots[i], i + 1 == o->nclients);
    printf("  ]\n");
  }
  printf("}\n");
  fflush(stdout);
  return ok;
}

// Reads --tokens into r->tokens, one per client. 0, or -1 with the reason on stderr.
static int load_tokens(bot_run* r) {
  const bot_options* o = &r->opt;
  r->tokens = calloc((size_t)o->nclients, sizeof *r->tokens);
  long got = r->tokens ? read_tokens(o->tokens_path, r->tokens, o->nclients) : -1;
  if (got >= o->nclients) return 0;
  fprintf(stderr, "arbiter-bot: --tokens %s: %s (%ld tokens for %ld clients)\n", o->tokens_path,
          got < 0 ? "cannot read the file" : "not enough tokens", got < 0 ? 0 : got, o->nclients);
  return -1;
}

// Says why a client never connected, then disconnects and frees it.
static void close_client(bot* b) {
  if (!b->ever_connected && !b->rejected)
    fprintf(stderr, "arbiter-bot: client %d never connected (%s)\n", b->index,
            b->reason[0] ? b->reason : "no answer from the server");
  arb_client_disconnect(b->client, "bot finished");
  arb_client_destroy(b->client);
  free(b->states);
  free(b->prev);
  bot_samples_free(&b->motion_ms);
  bot_samples_free(&b->confirm_ms);
  bot_samples_free(&b->error_m);
  bot_samples_free(&b->error_free_m);
}

int main(int argc, char** argv) {
  bot_run r;
  memset(&r, 0, sizeof r);
  int status = parse_options(argc, argv, &r.opt);
  if (status >= 0) return status;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGPIPE, SIG_IGN);
  if (raise_fd_limit(r.opt.nclients) != 0) return 2;
  r.bots = (bot*)calloc((size_t)r.opt.nclients, sizeof *r.bots);
  r.fds = (struct pollfd*)calloc((size_t)r.opt.nclients, sizeof *r.fds);
  r.rtts = (float*)calloc((size_t)r.opt.nclients, sizeof *r.rtts);
  if (!r.bots || !r.fds || !r.rtts) {
    fprintf(stderr, "arbiter-bot: out of memory\n");
    return 1;
  }
  if (r.opt.tokens_path && load_tokens(&r) != 0) return 2;
  r.t0 = mono_now();
  for (long i = 0; i < r.opt.nclients; i++)
    if (start_client(&r.opt, &r.bots[i], i, r.tokens ? r.tokens[i] : NULL) != 0) return 1;
  double t_end = run_clients(&r);
  bool ok = print_summary(&r, t_end);
  for (long i = 0; i < r.opt.nclients; i++) close_client(&r.bots[i]);
  free(r.bots);
  free(r.fds);
  free(r.rtts);
  free(r.tokens);
  return ok ? 0 : 1;
}
