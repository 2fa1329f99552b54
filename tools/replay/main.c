// arbiter-replay: verify and inspect .arbrec replay logs (docs/DETERMINISM.md).
#include <errno.h>
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
    "       arbiter-replay continue LOG --tick T --out FILE\n"
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
    "        With NEXT logs (a match that moved to another server and on): one re-simulation\n"
    "        of the whole match. Each NEXT log must start with a checkpoint at the tick and\n"
    "        hash the log before it ends with, equal bit for bit to the state re-simulated so\n"
    "        far; its ticks are applied to that state, never restored from its checkpoint.\n"
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
    "continue  re-simulate LOG to tick T (every hash compared) and write FILE: the log a\n"
    "        server built like this program would have written had the match moved to it\n"
    "        at T: LOG's header naming LOG as its predecessor, a checkpoint of this build's\n"
    "        own state at T, LOG's records after T as they are, an end record. `verify FILE`\n"
    "        on another platform proves this platform's state continues there bit for bit.\n"
    "\n"
    "options:\n"
    "  --allow-truncated  use the readable prefix of a log that does not end cleanly (server\n"
    "                     killed, disk full, damaged tail) and say where it ends\n"
    "  --quiet            verify: print only the result line(s)\n"
    "  --max-bodies N     verify: list at most N differing entities (default 12)\n"
    "  --from A, --to B   dump: tick range, inclusive (0 = the state before the first tick)\n"
    "  --every K          dump: print every K-th tick of the range and always the last one\n"
    "  --tick T           seek: the tick to show; continue: the tick to continue from\n"
    "  --out FILE         continue: the continuation log to write\n"
    "  --hash-only        dump/seek: print only {\"tick\":N,\"hash\":\"...\"}\n"
    "\n"
    "self-test (proves verification can fail):\n"
    "  --perturb-gravity T  verify: scale gravity by (1 + 2^-20) before the step of tick T;\n"
    "                       the log must then diverge at tick T or later\n"
    "\n"
    "exit status: 0 ok, 1 divergence (the re-simulation differs from the recording),\n"
    "2 unreadable or unusable log, a log that does not end cleanly (without\n"
    "--allow-truncated), or bad arguments (one line on stderr says why).\n";

// The logs of one match that moved between servers, verified as one (rp_run_chain).
#define RP_MAX_CHAIN 64

// The whole file at `path` in *data (malloc'd); false after saying why on stderr.
static bool read_log(const char* path, uint8_t** data, size_t* len) {
  char err[512];
  *data = NULL;
  *len = 0;
  if (arb_replay_read_file(path, data, len, err, sizeof err) == ARB_OK) return true;
  fprintf(stderr, "arbiter-replay: %s\n", err);
  return false;
}

static int verify_chain(const rp_opts* o, const char* path, const char* const* next, int count) {
  rp_chain_link links[RP_MAX_CHAIN + 1];
  memset(links, 0, sizeof links);
  for (int k = 0; k <= count; ++k) {
    links[k].name = k == 0 ? path : next[k - 1];
    if (!read_log(links[k].name, &links[k].data, &links[k].len)) {
      for (int j = 0; j < k; j++) free(links[j].data);
      return RP_EXIT_UNREADABLE;
    }
  }
  int status = rp_run_chain(o, links, count + 1, stdout, stderr);
  fflush(stdout);
  return status;
}

// continue: the file is written in full under a temporary name and renamed, so a failed
// run leaves no partial log behind.
static int write_continuation(const rp_opts* o, uint8_t* data, size_t len, const char* path) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
    free(data);
    return bad_usage("--out %s: the name is too long", path);
  }
  FILE* f = fopen(tmp, "wb");
  if (!f) {
    free(data);
    fprintf(stderr, "arbiter-replay: %s: cannot create: %s\n", tmp, strerror(errno));
    return RP_EXIT_UNREADABLE;
  }
  int status = rp_run_continue(o, data, len, f, stdout, stderr);
  if (fclose(f) != 0 && status == RP_EXIT_OK) {
    fprintf(stderr, "arbiter-replay: %s: write failed: %s\n", tmp, strerror(errno));
    status = RP_EXIT_UNREADABLE;
  }
  if (status == RP_EXIT_OK && rename(tmp, path) != 0) {
    fprintf(stderr, "arbiter-replay: %s: cannot rename to %s: %s\n", tmp, path, strerror(errno));
    status = RP_EXIT_UNREADABLE;
  }
  if (status != RP_EXIT_OK) remove(tmp);
  fflush(stdout);
  return status;
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
  else if (strcmp(cmd, "continue") == 0)
    o.cmd = RP_CMD_CONTINUE;
  else
    return bad_usage("unknown command \"%s\" (verify, info, dump, seek or continue)", cmd);

  const char* path = NULL;
  const char* next[RP_MAX_CHAIN];
  int next_count = 0;
  const char* out_path = NULL;
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
    } else if (strcmp(a, "--out") == 0 && o.cmd == RP_CMD_CONTINUE) {
      if (!value) return bad_usage("%s needs a file name", a);
      out_path = value;
      i++;
    } else if (strcmp(a, "--tick") == 0 && (o.cmd == RP_CMD_SEEK || o.cmd == RP_CMD_CONTINUE)) {
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
  if ((o.cmd == RP_CMD_SEEK || o.cmd == RP_CMD_CONTINUE) && !have_tick)
    return bad_usage("%s needs --tick T", cmd);
  if (o.cmd == RP_CMD_CONTINUE && !out_path) return bad_usage("%s needs --out FILE", cmd);
  o.name = path;

  if (next_count > 0) return verify_chain(&o, path, next, next_count);
  uint8_t* data;
  size_t len;
  if (!read_log(path, &data, &len)) return RP_EXIT_UNREADABLE;
  if (o.cmd == RP_CMD_CONTINUE) return write_continuation(&o, data, len, out_path);
  int status = rp_run(&o, data, len, stdout, stderr);
  fflush(stdout);
  return status;
}
