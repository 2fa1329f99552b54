// arbiter-replay: verify and inspect .arbrec replay logs (docs/DETERMINISM.md).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_cmd.h"
#include "rp_log.h"
#include "tool_args.h"

// One line on stderr saying what is wrong, then the exit status for bad arguments.
#define bad_usage(fmt, arg) tool_bad_usage("arbiter-replay", RP_EXIT_UNREADABLE, fmt, arg)

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

static const char usage[] =
    "usage: arbiter-replay verify LOG [NEXT...] [--allow-truncated] [--quiet] [--max-bodies N]\n"
    "       arbiter-replay info   LOG [--allow-truncated]\n"
    "       arbiter-replay dump   LOG [--from A] [--to B] [--every K] [--hash-only] "
    "[--allow-truncated]\n"
    "       arbiter-replay seek   LOG --tick T [--hash-only] [--allow-truncated]\n"
    "       arbiter-replay --help | --version      (LOG may be - for stdin)\n"
    "\n"
    "Re-simulates a replay log recorded by arbiter-server --record from the scene text the\n"
    "log carries, applying the recorded joins, leaves and controls tick by tick.\n"
    "\n"
    "verify  compare the game hash after every tick with the recorded one, and the whole\n"
    "        saved state with every checkpoint record. Exit 0 when all match; exit 1 at the\n"
    "        first divergence, printing the tick, the expected and actual hash and, when the\n"
    "        log has checkpoints, which bodies differ in which fields (recorded state of the\n"
    "        first checkpoint at or after the divergent tick vs the re-simulation). Prints the\n"
    "        final tick and hash and the re-simulation speed (ticks/s).\n"
    "info    header (format, build id, scene name and hash, tick rate, seed, start time),\n"
    "        tick range and duration, checkpoints, every client with its join and leave\n"
    "        ticks, and the file's integrity (how and where reading stopped).\n"
    "dump    the re-simulated state of ticks A..B (default: the whole log) as JSON lines,\n"
    "        the format arbiter-sim prints: {\"tick\":N,\"hash\":\"...\",\"bodies\":[...]} and "
    "the\n"
    "        particles, vehicles, springs and joints when there are any.\n"
    "        (\"hash\" is arb_world_hash). Starts from the nearest checkpoint at or before A.\n"
    "seek    the state at tick T as one JSON line, re-simulated from the nearest checkpoint\n"
    "        at or before T instead of from tick 0.\n"
    "\n"
    "options:\n"
    "  --allow-truncated  use the readable prefix of a log that does not end cleanly (server\n"
    "                     killed, disk full, damaged tail) and say where it ends\n"
    "  --quiet            verify: print only the result line(s)\n"
    "  --max-bodies N     verify: list at most N differing entities (default 12)\n"
    "  --from A, --to B   dump: tick range, inclusive (0 = the state before the first tick)\n"
    "  --every K          dump: print every K-th tick of the range and always the last one\n"
    "  --tick T           seek: the tick to show\n"
    "  --hash-only        dump/seek: print only {\"tick\":N,\"hash\":\"...\"}\n"
    "\n"
    "self-test (proves verification can fail):\n"
    "  --perturb-gravity T  verify: scale gravity by (1 + 2^-20) before the step of tick T;\n"
    "                       the log must then diverge at tick T or later\n"
    "\n"
    "exit status: 0 ok, 1 divergence (the re-simulation differs from the recording),\n"
    "2 unreadable or unusable log, a log that does not end cleanly (without\n"
    "--allow-truncated), or bad arguments (one line on stderr says why).\n";

// The logs of one match that moved between servers, verified as one: each NEXT log starts
// with a checkpoint at the tick the log before it ends, holding the game hash it ends
// with, and every log re-simulates on its own. Stops at the first failure.
#define RP_MAX_CHAIN 64

// The last tick record of a log (tick, hash) and its first record when it is a
// checkpoint. 0, or RP_EXIT_UNREADABLE with the reason on stderr.
static int chain_ends(const char* path, const uint8_t* data, size_t len, uint64_t* last_tick,
                      uint64_t* last_hash, bool* starts_with_cp, uint64_t* cp_tick,
                      uint64_t* cp_hash) {
  arb_replay_reader r;
  arb_proto_error perr;
  if (arb_replay_reader_open(&r, data, len, &perr) != ARB_OK) {
    fprintf(stderr, "arbiter-replay: %s: %s\n", path, perr.reason);
    return RP_EXIT_UNREADABLE;
  }
  arb_replay_record rec;
  bool first = true;
  *starts_with_cp = false;
  *last_tick = *last_hash = 0;
  static arb_replay_tick t;
  while (arb_replay_reader_next(&r, &rec) == 1) {
    if (first && rec.kind == ARB_REPLAY_CHECKPOINT) {
      arb_replay_checkpoint c;
      if (arb_replay_decode_checkpoint(&rec, &c, &perr) == ARB_OK) {
        *starts_with_cp = true;
        *cp_tick = c.tick;
        *cp_hash = c.world_hash;
      }
    }
    first = false;
    if (rec.kind == ARB_REPLAY_TICK && arb_replay_decode_tick(&rec, &t, &perr) == ARB_OK) {
      *last_tick = t.tick;
      *last_hash = t.world_hash;
    }
  }
  return 0;
}

// The whole file at `path` in *data (malloc'd); false after saying why on stderr.
static bool read_log(const char* path, uint8_t** data, size_t* len) {
  char err[512];
  *data = NULL;
  *len = 0;
  if (arb_replay_read_file(path, data, len, err, sizeof err) == ARB_OK) return true;
  fprintf(stderr, "arbiter-replay: %s\n", err);
  return false;
}

static int verify_chain(const rp_opts* base, const char* path, const char* const* next, int count) {
  uint64_t prev_tick = 0, prev_hash = 0;
  for (int k = 0; k <= count; ++k) {
    const char* p = k == 0 ? path : next[k - 1];
    uint8_t* data;
    size_t len;
    if (!read_log(p, &data, &len)) return RP_EXIT_UNREADABLE;
    uint64_t last_tick, last_hash, cp_tick = 0, cp_hash = 0;
    bool cp = false;
    int status = chain_ends(p, data, len, &last_tick, &last_hash, &cp, &cp_tick, &cp_hash);
    if (status == 0 && k > 0 && (!cp || cp_tick != prev_tick || cp_hash != prev_hash)) {
      fprintf(stdout,
              "DIVERGED: %s does not continue the log before it: it starts %s%llu (hash "
              "%016llx), the log before ends at tick %llu (hash %016llx)\n",
              p, cp ? "with a checkpoint at tick " : "without a checkpoint, tick ",
              (unsigned long long)cp_tick, (unsigned long long)cp_hash,
              (unsigned long long)prev_tick, (unsigned long long)prev_hash);
      status = RP_EXIT_DIVERGED;
    }
    if (status != 0) {
      free(data);
      return status;
    }
    rp_opts o = *base;
    o.name = p;
    status = rp_run(&o, data, len, stdout, stderr);  // takes the buffer
    if (status != 0) return status;
    if (k > 0)
      fprintf(stdout, "continues the log before it at tick %llu (hash %016llx)\n",
              (unsigned long long)prev_tick, (unsigned long long)prev_hash);
    prev_tick = last_tick;
    prev_hash = last_hash;
  }
  fprintf(stdout, "OK: %d logs verified as one match, ticks to %llu, final hash %016llx\n",
          count + 1, (unsigned long long)prev_tick, (unsigned long long)prev_hash);
  fflush(stdout);
  return RP_EXIT_OK;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return RP_EXIT_UNREADABLE;
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return RP_EXIT_OK;
    }
    if (strcmp(argv[i], "--version") == 0) {
      printf("arbiter-replay %s\n", ARB_BUILD_ID);
      return RP_EXIT_OK;
    }
  }
  rp_opts o = rp_default_opts();
  const char* cmd = argv[1];
  if (strcmp(cmd, "verify") == 0)
    o.cmd = RP_CMD_VERIFY;
  else if (strcmp(cmd, "info") == 0)
    o.cmd = RP_CMD_INFO;
  else if (strcmp(cmd, "dump") == 0)
    o.cmd = RP_CMD_DUMP;
  else if (strcmp(cmd, "seek") == 0)
    o.cmd = RP_CMD_SEEK;
  else
    return bad_usage("unknown command \"%s\" (verify, info, dump or seek)", cmd);

  const char* path = NULL;
  const char* next[RP_MAX_CHAIN];
  int next_count = 0;
  bool have_tick = false;
  for (int i = 2; i < argc; i++) {
    const char* a = argv[i];
    unsigned long long v = 0;
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--allow-truncated") == 0) {
      o.allow_truncated = true;
    } else if (strcmp(a, "--quiet") == 0 && o.cmd == RP_CMD_VERIFY) {
      o.quiet = true;
    } else if (strcmp(a, "--hash-only") == 0 && (o.cmd == RP_CMD_DUMP || o.cmd == RP_CMD_SEEK)) {
      o.hash_only = true;
    } else if (strcmp(a, "--max-bodies") == 0 && o.cmd == RP_CMD_VERIFY) {
      if (tool_parse_u64(value, 0, 1000000, &v) != 0)
        return bad_usage("--max-bodies needs a count, got \"%s\"", value ? value : "");
      o.max_bodies = (int)v;
      i++;
    } else if (strcmp(a, "--perturb-gravity") == 0 && o.cmd == RP_CMD_VERIFY) {
      if (tool_parse_u64(value, 0, (unsigned long long)INT64_MAX, &v) != 0 || v == 0)
        return bad_usage("--perturb-gravity needs a tick >= 1, got \"%s\"", value ? value : "");
      o.perturb_tick = (int64_t)v;
      i++;
    } else if ((strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0 || strcmp(a, "--every") == 0) &&
               o.cmd == RP_CMD_DUMP) {
      if (tool_parse_u64(value, 0, UINT64_MAX - 1, &v) != 0)
        return bad_usage("%s needs a tick count", a);
      if (a[2] == 'f')
        o.from = v;
      else if (a[2] == 't')
        o.to = v;
      else if (v == 0)
        return bad_usage("%s must be >= 1", a);
      else
        o.every = v;
      i++;
    } else if (strcmp(a, "--tick") == 0 && o.cmd == RP_CMD_SEEK) {
      if (tool_parse_u64(value, 0, UINT64_MAX - 1, &v) != 0) return bad_usage("%s needs a tick", a);
      o.tick = v;
      have_tick = true;
      i++;
    } else if (path && o.cmd == RP_CMD_VERIFY && a[0] != '-' && next_count < RP_MAX_CHAIN) {
      next[next_count++] = a;
    } else if (tool_take_operand("arbiter-replay", RP_EXIT_UNREADABLE, a, "LOG", &path) != 0) {
      return RP_EXIT_UNREADABLE;
    }
  }
  if (!path) return bad_usage("%s needs a LOG file", cmd);
  if (o.cmd == RP_CMD_SEEK && !have_tick) return bad_usage("%s needs --tick T", cmd);
  o.name = path;

  if (next_count > 0) return verify_chain(&o, path, next, next_count);
  uint8_t* data;
  size_t len;
  if (!read_log(path, &data, &len)) return RP_EXIT_UNREADABLE;
  int status = rp_run(&o, data, len, stdout, stderr);
  fflush(stdout);
  return status;
}
