// arbiter-replay — verify, info, dump and seek (see rp_cmd.h and main.c's --help).
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include "rp_cmd.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rp_log.h"
#include "rp_sim.h"

rp_opts rp_default_opts(void) {
  rp_opts o;
  memset(&o, 0, sizeof o);
  o.name = "log";
  o.to = UINT64_MAX;
  o.every = 1;
  o.perturb_tick = -1;
  o.max_bodies = 12;
  return o;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double tick_seconds(const rp_log* log, uint64_t tick) {
  unsigned rate = log->start.header.tick_rate ? log->start.header.tick_rate : 1;
  return (double)tick / (double)rate;
}

static void print_rate(FILE* out, const rp_log* log, uint64_t ticks, double secs) {
  double rate = secs > 0 ? (double)ticks / secs : 0.0;
  unsigned hz = log->start.header.tick_rate ? log->start.header.tick_rate : 1;
  fprintf(out,
          "re-simulated %" PRIu64 " ticks in %.3f s: %.0f ticks/s (%.0fx real time at %u Hz)\n",
          ticks, secs, rate, rate / hz, hz);
}

// ---- verify -------------------------------------------------------------------------------

typedef struct verify_ctx {
  uint64_t cps_matched;
  uint64_t last_identical;  ///< tick of the last checkpoint whose state matched bit for bit
  bool cp_differs;
  const arb_replay_checkpoint* bad_cp;
  arb_replay_checkpoint bad_cp_copy;
} verify_ctx;

// A checkpoint of the current tick: the whole saved state must equal the recording's
// bytes (stronger than the hash). Stop at the first one that does not.
static int on_verify_checkpoint(rp_sim* sim, const arb_replay_checkpoint* cp, void* user) {
  verify_ctx* v = user;
  int n = arb_game_save(sim->game, NULL, 0);
  bool same = false;
  if (n > 0 && (size_t)n == cp->state_len) {
    uint8_t* buf = malloc((size_t)n);
    if (buf && arb_game_save(sim->game, buf, n) == n) same = memcmp(buf, cp->state, (size_t)n) == 0;
    free(buf);
  }
  if (same && arb_game_hash(sim->game) == cp->world_hash) {
    v->cps_matched++;
    v->last_identical = cp->tick;
    return 0;
  }
  v->cp_differs = true;
  v->bad_cp_copy = *cp;
  v->bad_cp = &v->bad_cp_copy;
  return 1;
}

// The recorded state of a checkpoint in a game of its own, for comparison.
static int load_recorded(const rp_sim* sim, const uint8_t* state, size_t len, arb_game** out) {
  int rc = arb_game_create(sim->scene, sim->log->start.header.seed, out);
  if (rc != ARB_OK) return rc;
  rc = len <= (size_t)INT32_MAX ? arb_game_restore(*out, state, (int)len) : ARB_E_TOO_BIG;
  if (rc != ARB_OK) {
    arb_game_destroy(*out);
    *out = NULL;
  }
  return rc;
}

static void compare_at(rp_sim* sim, const uint8_t* state, size_t len, uint64_t tick,
                       uint64_t diverged, const rp_opts* o, FILE* out) {
  arb_game* rec = NULL;
  int rc = load_recorded(sim, state, len, &rec);
  if (rc != ARB_OK) {
    fprintf(out, "  the checkpoint of tick %" PRIu64 " does not restore: %s\n", tick,
            arb_strerror(rc));
    return;
  }
  if (tick == diverged)
    fprintf(out,
            "  at tick %" PRIu64
            " (a checkpoint), which entities differ (field recorded -> re-simulated):\n",
            tick);
  else
    fprintf(out,
            "  at tick %" PRIu64 " (the next checkpoint, %" PRIu64
            " ticks after the divergence; differences spread by then), which entities differ "
            "(field recorded -> re-simulated):\n",
            tick, tick - diverged);
  rp_diff_games(rec, sim->game, o->max_bodies, "    ", out);
  arb_game_destroy(rec);
}

// Where the first difference is: the recorded truth exists only at checkpoints, so compare
// the re-simulation with the first checkpoint at or after the divergent tick.
static void localise(rp_sim* sim, const rp_log* log, uint64_t diverged, const verify_ctx* v,
                     const rp_opts* o, FILE* out) {
  if (v->last_identical)
    fprintf(out,
            "  last state identical to the recording bit for bit: tick %" PRIu64 " (checkpoint)\n",
            v->last_identical);
  if (log->cp_count == 0) {
    fprintf(out,
            "  the log has no checkpoints, so the differing bodies can not be shown (record with "
            "arbiter-server --checkpoint-every N)\n");
    return;
  }
  const rp_checkpoint* cp = rp_log_checkpoint_at_or_after(log, diverged);
  if (!cp) {
    fprintf(out, "  no checkpoint at or after tick %" PRIu64 " to compare bodies with\n", diverged);
    return;
  }
  sim->strict = false;  // the world differs now: joins may land elsewhere
  uint64_t differing = 1, last_differing = diverged;
  while (arb_game_get_tick(sim->game) < cp->tick) {
    int rc = rp_sim_step(sim, NULL, NULL);
    if (rc == RP_STEP_END || (rc < 0 && rc != RP_STEP_JOIN_MISMATCH)) {
      fprintf(out, "  could not re-simulate to the checkpoint of tick %" PRIu64 ": %s\n", cp->tick,
              rc == RP_STEP_END ? "the log ends" : sim->why);
      return;
    }
    if (arb_game_hash(sim->game) != sim->recorded_hash) {
      differing++;
      last_differing = arb_game_get_tick(sim->game);
    }
  }
  if (cp->tick > diverged)
    fprintf(out,
            "  the hashes differ on %" PRIu64 " of the %" PRIu64 " ticks %" PRIu64 "..%" PRIu64
            " (the last at tick %" PRIu64 ")\n",
            differing, cp->tick - diverged + 1, diverged, cp->tick, last_differing);
  if (last_differing < cp->tick)
    fprintf(
        out,
        "  the re-simulation agrees with the recording again from tick %" PRIu64
        ": the difference lived in state that was later overwritten (a contact, a sleeping body)\n",
        last_differing + 1);
  compare_at(sim, cp->state, cp->state_len, cp->tick, diverged, o, out);
}

// Steps the sim through the rest of `log`, comparing the hash after every tick and every
// checkpoint's whole state; prints a divergence and localises it. Adds the ticks compared to
// *checked. RP_EXIT_OK at the log's end, or the exit status.
static int verify_steps(rp_sim* sim, const rp_log* log, verify_ctx* v, uint64_t* checked,
                        const rp_opts* o, FILE* out, FILE* err) {
  for (;;) {
    uint64_t tick = arb_game_get_tick(sim->game);
    if (o->perturb_tick >= 0 && tick + 1 == (uint64_t)o->perturb_tick) rp_sim_perturb_gravity(sim);
    int rc = rp_sim_step(sim, on_verify_checkpoint, v);
    if (rc == RP_STEP_END) return RP_EXIT_OK;
    tick = arb_game_get_tick(sim->game);
    if (rc == RP_STEP_STOPPED) {
      fprintf(out,
              "DIVERGED at tick %" PRIu64
              " (%.2f s): the tick hash matched but the checkpoint state "
              "differs from the recording (recorded hash %016" PRIx64 ", re-simulated %016" PRIx64
              ")\n",
              tick, tick_seconds(log, tick), v->bad_cp->world_hash, arb_game_hash(sim->game));
      compare_at(sim, v->bad_cp->state, v->bad_cp->state_len, tick, tick, o, out);
      return RP_EXIT_DIVERGED;
    }
    if (rc < 0 && rc != RP_STEP_JOIN_MISMATCH) {
      fprintf(err, "arbiter-replay: %s: %s\n", o->name, sim->why);
      return RP_EXIT_UNREADABLE;
    }
    (*checked)++;
    uint64_t h = arb_game_hash(sim->game);
    if (rc == RP_STEP_JOIN_MISMATCH || h != sim->recorded_hash) {
      fprintf(out,
              "DIVERGED at tick %" PRIu64 " (%.2f s): expected hash %016" PRIx64
              ", actual %016" PRIx64 "\n",
              tick, tick_seconds(log, tick), sim->recorded_hash, h);
      if (rc == RP_STEP_JOIN_MISMATCH) fprintf(out, "  %s\n", sim->why);
      localise(sim, log, tick, v, o, out);
      return RP_EXIT_DIVERGED;
    }
  }
}

// The start of a re-simulation: the sim at the log's first state, or the reason on err.
static int verify_start(rp_sim* sim, const rp_log* log, const rp_opts* o, FILE* out, FILE* err) {
  int rc = rp_sim_init(sim, log);
  const rp_checkpoint* start = NULL;
  if (rc == ARB_OK) rc = rp_sim_start(sim, log, 0, false, &start);
  if (rc != ARB_OK) {
    fprintf(err, "arbiter-replay: %s: %s\n", o->name, sim->why);
    return RP_EXIT_UNREADABLE;
  }
  if (!o->quiet && start)
    fprintf(out, "starting from the checkpoint of tick %" PRIu64 " (the log begins there)\n",
            arb_game_get_tick(sim->game));
  return RP_EXIT_OK;
}

static int cmd_verify(const rp_log* log, const rp_opts* o, FILE* out, FILE* err) {
  rp_sim sim;
  double t0 = now_s();
  if (verify_start(&sim, log, o, out, err) != RP_EXIT_OK) {
    rp_sim_deinit(&sim);
    return RP_EXIT_UNREADABLE;
  }
  uint64_t start_tick = arb_game_get_tick(sim.game);
  verify_ctx v;
  memset(&v, 0, sizeof v);
  uint64_t checked = 0;
  int status = verify_steps(&sim, log, &v, &checked, o, out, err);
  double secs = now_s() - t0;
  if (status == RP_EXIT_OK) {
    uint64_t last = arb_game_get_tick(sim.game);
    fprintf(out,
            "OK: %" PRIu64 " ticks verified (%" PRIu64 "..%" PRIu64 "), %" PRIu64
            " checkpoints identical bit for bit; final tick %" PRIu64 " hash %016" PRIx64 "\n",
            checked, checked ? start_tick + 1 : start_tick, last, v.cps_matched, last,
            arb_game_hash(sim.game));
    if (!rp_log_is_clean(log))
      fprintf(out, "the log ends early, verified its readable prefix up to tick %" PRIu64 ": %s\n",
              last, log->stop_text);
  }
  // Every tick simulated, the ones after a divergence (localising it) included.
  if (status != RP_EXIT_UNREADABLE && !o->quiet)
    print_rate(out, log, arb_game_get_tick(sim.game) - start_tick, secs);
  rp_sim_deinit(&sim);
  return status;
}

// ---- verify a chain -----------------------------------------------------------------------

// Whether `next` continues the re-simulation where `prev` ended: the same scene, seed and
// tick rate, and a first checkpoint at the current tick with the hash `prev`'s server
// ended with. Says why not on out. Then the checkpoint's whole state must equal the
// re-simulated one (checked by the caller through on_verify_checkpoint).
static bool continues(const rp_sim* sim, const rp_log* prev, const rp_log* next, const char* name,
                      FILE* out) {
  const arb_replay_header* a = &prev->start.header;
  const arb_replay_header* b = &next->start.header;
  uint64_t tick = arb_game_get_tick(sim->game);
  const rp_checkpoint* cp = next->cp_count ? &next->cps[0] : NULL;
  const char* why = NULL;
  if (b->scene_hash != a->scene_hash)
    why = "another scene";
  else if (b->seed != a->seed)
    why = "another seed";
  else if (b->tick_rate != a->tick_rate)
    why = "another tick rate";
  else if (!cp || cp->tick != tick || cp->world_hash != prev->last_hash ||
           (next->first_tick && next->first_tick != tick + 1))
    why = "no checkpoint at the tick and hash the log before ends with";
  if (!why) return true;
  fprintf(out,
          "DIVERGED: %s does not continue the log before it (%s): it starts %s%" PRIu64
          " (hash %016" PRIx64 "), the log before ends at tick %" PRIu64 " (hash %016" PRIx64 ")\n",
          name, why, cp ? "with a checkpoint at tick " : "without a checkpoint, tick ",
          cp ? cp->tick : next->first_tick, cp ? cp->world_hash : 0, tick, prev->last_hash);
  return false;
}

int rp_run_chain(const rp_opts* o, rp_chain_link* links, int count, FILE* out, FILE* err) {
  rp_log* logs = calloc((size_t)count, sizeof *logs);
  if (!logs) {
    for (int k = 0; k < count; k++) free(links[k].data);
    fprintf(err, "arbiter-replay: out of memory\n");
    return RP_EXIT_UNREADABLE;
  }
  int opened = 0, status = RP_EXIT_OK;
  rp_opts lo = *o;
  for (; opened < count; opened++) {
    char why[512];
    rp_chain_link* l = &links[opened];
    int rc = rp_log_open(&logs[opened], l->data, l->len, why, sizeof why);
    l->data = NULL;  // the log owns it now
    if (rc != ARB_OK || (!rp_log_is_clean(&logs[opened]) && !o->allow_truncated)) {
      fprintf(err, "arbiter-replay: %s: %s%s\n", l->name,
              rc != ARB_OK ? why : logs[opened].stop_text,
              rc != ARB_OK ? "" : " (the log does not end cleanly; --allow-truncated accepts it)");
      opened++;
      status = RP_EXIT_UNREADABLE;
      break;
    }
  }
  rp_sim sim;
  memset(&sim, 0, sizeof sim);
  verify_ctx v;
  memset(&v, 0, sizeof v);
  uint64_t checked = 0, start_tick = 0;
  double t0 = now_s();
  lo.name = links[0].name;
  for (int k = opened; k < count; k++) free(links[k].data);
  if (status == RP_EXIT_OK) status = verify_start(&sim, &logs[0], &lo, out, err);
  if (status == RP_EXIT_OK) {
    start_tick = arb_game_get_tick(sim.game);
    status = verify_steps(&sim, &logs[0], &v, &checked, &lo, out, err);
  }
  // Each later log carries on from the state re-simulated so far, never from its own
  // checkpoint: its checkpoint is only compared with that state, bit for bit.
  for (int k = 1; k < count && status == RP_EXIT_OK; k++) {
    lo.name = links[k].name;
    if (!continues(&sim, &logs[k - 1], &logs[k], links[k].name, out)) {
      status = RP_EXIT_DIVERGED;
      break;
    }
    const rp_checkpoint* cp = &logs[k].cps[0];
    arb_replay_checkpoint rec = {cp->tick, cp->world_hash, cp->state, cp->state_len};
    if (on_verify_checkpoint(&sim, &rec, &v) != 0) {
      fprintf(out,
              "DIVERGED at tick %" PRIu64
              ": %s starts with a checkpoint that differs from the state re-simulated from the "
              "logs before it\n",
              cp->tick, links[k].name);
      compare_at(&sim, cp->state, cp->state_len, cp->tick, cp->tick, &lo, out);
      status = RP_EXIT_DIVERGED;
      break;
    }
    sim.log = &logs[k];
    sim.reader = cp->reader;
    if (!o->quiet)
      fprintf(out,
              "%s continues at tick %" PRIu64 " (hash %016" PRIx64
              "): its checkpoint equals the re-simulated state bit for bit\n",
              links[k].name, cp->tick, cp->world_hash);
    status = verify_steps(&sim, &logs[k], &v, &checked, &lo, out, err);
  }
  if (status == RP_EXIT_OK) {
    uint64_t last = arb_game_get_tick(sim.game);
    fprintf(out,
            "OK: %d logs verified as one match, re-simulated from tick %" PRIu64
            " of the first through the last (%" PRIu64 " ticks, %" PRIu64
            " checkpoints identical bit for bit); final tick %" PRIu64 " hash %016" PRIx64 "\n",
            count, start_tick, checked, v.cps_matched, last, arb_game_hash(sim.game));
    if (!o->quiet) print_rate(out, &logs[0], checked, now_s() - t0);
  }
  if (sim.game) rp_sim_deinit(&sim);
  for (int k = 0; k < opened; k++) rp_log_close(&logs[k]);
  free(logs);
  return status;
}

// ---- info ---------------------------------------------------------------------------------

static const char* avatar_kind_name(unsigned k) {
  static const char* const names[] = {"scene default", "force", "vehicle"};
  _Static_assert(sizeof names / sizeof names[0] == ARB_AVATAR_KIND_COUNT,
                 "one name per arb_avatar_kind");
  return k < ARB_AVATAR_KIND_COUNT ? names[k] : "unknown";
}

static void print_utc(FILE* out, int64_t ms) {
  time_t t = (time_t)(ms / 1000);
  struct tm tmv;
  if (ms > 0 && gmtime_r(&t, &tmv)) {
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tmv);
    fprintf(out, "%s.%03dZ", buf, (int)(ms % 1000));
  } else {
    fprintf(out, "%" PRId64 " ms", ms);
  }
}

static int cmd_info(const rp_log* log, const rp_opts* o, FILE* out, FILE* err) {
  const arb_replay_header* h = &log->start.header;
  fprintf(out, "file:        %s (%zu bytes)\n", o->name, log->len);
  fprintf(out, "format:      .arbrec version %u\n", h->format_version);
  fprintf(out, "build id:    %.*s\n", (int)h->build_id_len, h->build_id);
  uint64_t here = arb_game_sim_version();
  if (h->sim_version == 0)
    fprintf(out, "simulation:  not recorded (format version 1)\n");
  else
    fprintf(out, "simulation:  version %016" PRIx64 " (%s)\n", h->sim_version,
            h->sim_version == here ? "this build's" : "NOT this build's: results may differ");
  if (h->predecessor_len > 0)
    fprintf(out, "continues:   %.*s (the match moved here from that log's server)\n",
            (int)h->predecessor_len, h->predecessor);
  arb_scene* scene = NULL;
  arb_scene_error serr;
  memset(&serr, 0, sizeof serr);
  int src = arb_scene_load_string(h->scene_text, h->scene_len, "recorded scene", &scene, &serr);
  if (src == ARB_OK) {
    bool hash_ok = arb_scene_get_hash(scene) == h->scene_hash;
    fprintf(out, "scene:       \"%s\", %zu bytes, hash %016" PRIx64 " (%s)\n",
            arb_scene_get_name(scene), h->scene_len, h->scene_hash,
            hash_ok ? "matches the text" : "DOES NOT match the text");
    if (!hash_ok) src = ARB_E_CORRUPT;
  } else {
    char msg[320];
    arb_scene_error_format(&serr, msg, sizeof msg);
    fprintf(out, "scene:       %zu bytes, hash %016" PRIx64 ", DOES NOT LOAD: %s\n", h->scene_len,
            h->scene_hash, msg);
  }
  fprintf(out, "tick rate:   %u Hz", h->tick_rate);
  if (scene && arb_scene_get_tick_rate(scene) != h->tick_rate)
    fprintf(out, " (the scene file says %d Hz: the server overrode it with --tick-rate)",
            arb_scene_get_tick_rate(scene));
  fprintf(out, "\nseed:        %" PRIu64 "\nstarted:     ", h->seed);
  print_utc(out, h->start_time_ms);
  fputc('\n', out);
  if (log->tick_count) {
    fprintf(out,
            "ticks:       %" PRIu64 "..%" PRIu64 " (%" PRIu64
            " tick records), %.2f s of game time\n",
            log->first_tick, log->last_tick, log->tick_count, tick_seconds(log, log->tick_count));
    fprintf(out,
            "recorded:    final tick %" PRIu64 " hash %016" PRIx64 " (as the server computed it)\n",
            log->last_tick, log->last_hash);
  } else
    fprintf(out, "ticks:       none\n");
  fprintf(out, "checkpoints: %d", log->cp_count);
  for (int i = 0; i < log->cp_count && i < 12; i++)
    fprintf(out, "%s%" PRIu64, i ? ", " : " at ticks ", log->cps[i].tick);
  if (log->cp_count > 12) fprintf(out, ", ... %" PRIu64, log->cps[log->cp_count - 1].tick);
  if (log->cp_count)
    fprintf(out, " (%zu bytes of state each, the last)", log->cps[log->cp_count - 1].state_len);
  fprintf(out, "\nclients:     %d\n", log->client_count);
  for (int i = 0; i < log->client_count; i++) {
    const rp_client* c = &log->clients[i];
    fprintf(out, "  client %u \"%s\", %s avatar, entity %u: joined tick %" PRIu64 " (%.2f s)",
            c->client_id, c->name, avatar_kind_name(c->avatar_kind), c->entity_id, c->join_tick,
            tick_seconds(log, c->join_tick));
    if (c->leave_tick)
      fprintf(out, ", left tick %" PRIu64 " (%.2f s)\n", c->leave_tick,
              tick_seconds(log, c->leave_tick));
    else
      fprintf(out, ", still there at the end\n");
  }
  fprintf(out, "integrity:   ");
  if (rp_log_is_clean(log)) {
    fprintf(out,
            "clean: every record's checksum verified; end record (last tick %" PRIu64 ", %" PRIu64
            " tick records, ended ",
            log->end.last_tick, log->end.tick_count);
    print_utc(out, log->end.end_time_ms);
    fprintf(out, ")\n");
  } else {
    fprintf(out, "%s\n", log->stop_text);
  }
  if (scene) arb_scene_destroy(scene);
  if (src != ARB_OK) {
    fprintf(err, "arbiter-replay: %s: the recorded scene is unusable\n", o->name);
    return RP_EXIT_UNREADABLE;
  }
  return RP_EXIT_OK;
}

// ---- dump and seek ------------------------------------------------------------------------

static void write_to(const char* data, size_t len, void* user) {
  fwrite(data, 1, len, (FILE*)user);
}

static int cmd_dump(const rp_log* log, const rp_opts* o, FILE* out, FILE* err) {
  uint64_t from = o->cmd == RP_CMD_SEEK ? o->tick : o->from;
  uint64_t to = o->cmd == RP_CMD_SEEK ? o->tick : (o->to == UINT64_MAX ? log->last_tick : o->to);
  uint64_t lowest = log->first_tick ? log->first_tick - 1 : 0;
  if (log->first_tick > 1 && !rp_log_checkpoint_at_or_before(log, log->first_tick - 1))
    lowest = log->first_tick;
  if (from > to || to > log->last_tick || from < lowest) {
    fprintf(err,
            "arbiter-replay: %s: tick range %" PRIu64 "..%" PRIu64 " is outside the log (%" PRIu64
            "..%" PRIu64 ")\n",
            o->name, from, to, lowest, log->last_tick);
    return RP_EXIT_UNREADABLE;
  }
  rp_sim sim;
  double t0 = now_s();
  int rc = rp_sim_init(&sim, log);
  const rp_checkpoint* cp = NULL;
  if (rc == ARB_OK) rc = rp_sim_start(&sim, log, from, true, &cp);
  if (rc != ARB_OK) {
    fprintf(err, "arbiter-replay: %s: %s\n", o->name, sim.why);
    rp_sim_deinit(&sim);
    return RP_EXIT_UNREADABLE;
  }
  uint64_t start = arb_game_get_tick(sim.game), stepped = 0, mismatch = 0;
  int status = RP_EXIT_OK;
  for (;;) {
    uint64_t tick = arb_game_get_tick(sim.game);
    if (tick >= from && ((tick - from) % o->every == 0 || tick == to))
      arb_game_write_json(sim.game, !o->hash_only, write_to, out);
    if (tick >= to) break;
    rc = rp_sim_step(&sim, NULL, NULL);
    if (rc == RP_STEP_END || (rc < 0 && rc != RP_STEP_JOIN_MISMATCH)) {
      fprintf(err, "arbiter-replay: %s: stopped at tick %" PRIu64 ": %s\n", o->name, tick,
              rc == RP_STEP_END ? "the log ends" : sim.why);
      status = RP_EXIT_UNREADABLE;
      break;
    }
    stepped++;
    if (!mismatch &&
        (rc == RP_STEP_JOIN_MISMATCH || arb_game_hash(sim.game) != sim.recorded_hash)) {
      mismatch = arb_game_get_tick(sim.game);
      sim.strict = false;
      fprintf(err,
              "arbiter-replay: %s: WARNING: the re-simulation diverges from the recording at tick "
              "%" PRIu64 " (run verify); the states printed from there on are this build's\n",
              o->name, mismatch);
      status = RP_EXIT_DIVERGED;
    }
  }
  fflush(out);
  if (cp)
    fprintf(err, "started from the checkpoint of tick %" PRIu64 "; ", start);
  else
    fprintf(err, "started from tick %" PRIu64 "; ", start);
  print_rate(err, log, stepped, now_s() - t0);
  rp_sim_deinit(&sim);
  return status;
}

// ---- entry --------------------------------------------------------------------------------

int rp_run(const rp_opts* o, uint8_t* data, size_t len, FILE* out, FILE* err) {
  rp_log log;
  char why[512];
  int rc = rp_log_open(&log, data, len, why, sizeof why);
  if (rc != ARB_OK) {
    fprintf(err, "arbiter-replay: %s: %s\n", o->name, why);
    rp_log_close(&log);
    return RP_EXIT_UNREADABLE;
  }
  int status;
  if (o->cmd == RP_CMD_INFO) {
    status = cmd_info(&log, o, out, err);
    if (status == RP_EXIT_OK && !rp_log_is_clean(&log) && !o->allow_truncated) {
      fprintf(err,
              "arbiter-replay: %s: the log does not end cleanly (see integrity; --allow-truncated "
              "accepts it)\n",
              o->name);
      status = RP_EXIT_UNREADABLE;
    }
  } else if (!rp_log_is_clean(&log) && !o->allow_truncated) {
    fprintf(err,
            "arbiter-replay: %s: the log does not end cleanly: %s\n"
            "(--allow-truncated uses the readable prefix, up to tick %" PRIu64 ")\n",
            o->name, log.stop_text, log.last_tick);
    status = RP_EXIT_UNREADABLE;
  } else if (o->cmd == RP_CMD_VERIFY) {
    status = cmd_verify(&log, o, out, err);
  } else {
    status = cmd_dump(&log, o, out, err);
  }
  rp_log_close(&log);
  return status;
}
