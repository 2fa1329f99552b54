// arbiter-replay continue — a continuation log starting from this build's own state (see
// rp_cmd.h). The log the server would have written had the match moved at that tick to a
// server built like this tool: the determinism matrix writes one on every platform and
// verifies them on the others, so a state made on aarch64 or i386 is proven to continue
// on x86-64 and the reverse.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rp_cmd.h"
#include "rp_log.h"
#include "rp_sim.h"

typedef struct out_buf {
  uint8_t* data;
  size_t cap;
} out_buf;

// Encodes one record of ours (header, checkpoint or end) into buf, growing it.
static int64_t encode(arb_replay_kind kind, const void* rec, out_buf* b) {
  for (int pass = 0; pass < 2; pass++) {
    int64_t n = ARB_E_INVAL;
    switch (kind) {
      case ARB_REPLAY_HEADER:
        n = arb_replay_encode_header(rec, b->data, b->cap);
        break;
      case ARB_REPLAY_CHECKPOINT:
        n = arb_replay_encode_checkpoint(rec, b->data, b->cap);
        break;
      case ARB_REPLAY_END:
        n = arb_replay_encode_end(rec, b->data, b->cap);
        break;
      case ARB_REPLAY_NONE:
      case ARB_REPLAY_TICK:
      case ARB_REPLAY_KIND_COUNT:
        break;
    }
    if (n < 0 || (size_t)n <= b->cap) return n;
    uint8_t* grown = realloc(b->data, (size_t)n);
    if (!grown) return ARB_E_NOMEM;
    b->data = grown;
    b->cap = (size_t)n;
  }
  return ARB_E_STATE;
}

static int emit(FILE* file, arb_replay_kind kind, const void* rec, out_buf* b) {
  int64_t n = encode(kind, rec, b);
  if (n < 0) return (int)n;
  return fwrite(b->data, 1, (size_t)n, file) == (size_t)n ? ARB_OK : ARB_E_IO;
}

// Re-simulates to `tick`, comparing every tick's hash with the recording. RP_EXIT_*.
static int run_to(rp_sim* sim, uint64_t tick, const rp_opts* o, FILE* out, FILE* err) {
  while (arb_game_get_tick(sim->game) < tick) {
    int rc = rp_sim_step(sim, NULL, NULL);
    if (rc == RP_STEP_END || (rc < 0 && rc != RP_STEP_JOIN_MISMATCH)) {
      fprintf(err, "arbiter-replay: %s: %s\n", o->name,
              rc == RP_STEP_END ? "the log ends before the tick" : sim->why);
      return RP_EXIT_UNREADABLE;
    }
    if (rc == RP_STEP_JOIN_MISMATCH || arb_game_hash(sim->game) != sim->recorded_hash) {
      fprintf(out,
              "DIVERGED at tick %" PRIu64 ": expected hash %016" PRIx64 ", actual %016" PRIx64
              " (run verify)\n",
              arb_game_get_tick(sim->game), sim->recorded_hash, arb_game_hash(sim->game));
      return RP_EXIT_DIVERGED;
    }
  }
  return RP_EXIT_OK;
}

// Header (the log's own, naming it as the predecessor), this build's checkpoint, the
// recorded records after the tick as they are, and an end record counting them.
static int write_continuation(rp_sim* sim, const rp_log* log, const rp_opts* o, FILE* file,
                              uint64_t* ticks, uint64_t* last) {
  out_buf b = {NULL, 0};
  arb_replay_header h = log->start.header;
  h.format_version = ARB_REPLAY_FORMAT_VERSION;
  h.sim_version = arb_game_sim_version();
  h.predecessor = o->name;
  h.predecessor_len = strlen(o->name);
  if (h.predecessor_len > ARB_REPLAY_MAX_PREDECESSOR) h.predecessor_len = 0;
  int n = arb_game_save(sim->game, NULL, 0);
  uint8_t* state = n > 0 ? malloc((size_t)n) : NULL;
  int rc = state && arb_game_save(sim->game, state, n) == n ? ARB_OK : ARB_E_NOMEM;
  uint64_t tick = arb_game_get_tick(sim->game);
  if (rc == ARB_OK) rc = emit(file, ARB_REPLAY_HEADER, &h, &b);  // the magic included
  arb_replay_checkpoint cp = {tick, arb_game_hash(sim->game), state, (size_t)n};
  if (rc == ARB_OK) rc = emit(file, ARB_REPLAY_CHECKPOINT, &cp, &b);
  arb_replay_reader r = sim->reader;
  arb_replay_record rec;
  *ticks = 0;
  *last = tick;
  while (rc == ARB_OK && arb_replay_reader_next(&r, &rec) == 1) {
    bool ours = rec.kind == ARB_REPLAY_CHECKPOINT && rec.tick == tick;  // replaced by ours
    if ((rec.kind != ARB_REPLAY_TICK && rec.kind != ARB_REPLAY_CHECKPOINT) || ours) continue;
    if (fwrite(log->data + rec.offset, 1, rec.size, file) != rec.size) rc = ARB_E_IO;
    if (rec.kind == ARB_REPLAY_TICK) {
      (*ticks)++;
      *last = rec.tick;
    }
  }
  arb_replay_end end = {*ticks ? *last : 0, *ticks, log->end.end_time_ms};
  if (rc == ARB_OK) rc = emit(file, ARB_REPLAY_END, &end, &b);
  free(state);
  free(b.data);
  return rc;
}

int rp_run_continue(const rp_opts* o, uint8_t* data, size_t len, FILE* file, FILE* out, FILE* err) {
  rp_log log;
  char why[512];
  if (rp_log_open(&log, data, len, why, sizeof why) != ARB_OK || !rp_log_is_clean(&log)) {
    fprintf(err, "arbiter-replay: %s: %s\n", o->name,
            log.data && log.stop_text[0] ? log.stop_text : why);
    rp_log_close(&log);
    return RP_EXIT_UNREADABLE;
  }
  rp_sim sim;
  const rp_checkpoint* cp = NULL;
  int rc = rp_sim_init(&sim, &log);
  if (rc == ARB_OK) rc = rp_sim_start(&sim, &log, 0, false, &cp);
  int status = RP_EXIT_UNREADABLE;
  if (rc != ARB_OK) {
    fprintf(err, "arbiter-replay: %s: %s\n", o->name, sim.why);
  } else if (o->tick < arb_game_get_tick(sim.game) || o->tick >= log.last_tick) {
    fprintf(err,
            "arbiter-replay: %s: --tick %" PRIu64 " is outside %" PRIu64 "..%" PRIu64
            " (a continuation needs at least one tick after it)\n",
            o->name, o->tick, arb_game_get_tick(sim.game), log.last_tick ? log.last_tick - 1 : 0);
  } else {
    status = run_to(&sim, o->tick, o, out, err);
  }
  uint64_t ticks = 0, last = 0;
  if (status == RP_EXIT_OK) {
    rc = write_continuation(&sim, &log, o, file, &ticks, &last);
    if (rc != ARB_OK) {
      fprintf(err, "arbiter-replay: %s: cannot write the continuation: %s\n", o->name,
              arb_strerror(rc));
      status = RP_EXIT_UNREADABLE;
    }
  }
  if (status == RP_EXIT_OK)
    fprintf(out,
            "continues %s at tick %" PRIu64 " from this build's state (hash %016" PRIx64
            "), then %" PRIu64 " recorded ticks to tick %" PRIu64 "\n",
            o->name, o->tick, arb_game_hash(sim.game), ticks, last);
  rp_sim_deinit(&sim);
  rp_log_close(&log);
  return status;
}
