// arbiter-replay — the subcommands, callable on a log in memory (main.c reads the file;
// the fuzz target feeds bytes directly). Each returns the process exit status:
// 0 ok, 1 divergence, 2 unreadable or unusable log (reason on err).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum rp_command { RP_CMD_VERIFY = 1, RP_CMD_INFO, RP_CMD_DUMP, RP_CMD_SEEK } rp_command;

#define RP_EXIT_OK 0
#define RP_EXIT_DIVERGED 1
#define RP_EXIT_UNREADABLE 2

typedef struct rp_opts {
  rp_command cmd;
  const char* name;      ///< the file name, for messages
  bool allow_truncated;  ///< use the readable prefix of a log that stops early
  bool quiet;            ///< verify: only the result line(s)
  uint64_t from, to;     ///< dump: tick range (to = UINT64_MAX: the last tick)
  uint64_t every;        ///< dump: print every K-th tick of the range (>= 1)
  bool hash_only;        ///< dump/seek: {"tick","hash"} only
  uint64_t tick;         ///< seek: target tick
  int64_t perturb_tick;  ///< self-test: change gravity before this tick's step; -1 = off
  int max_bodies;        ///< verify: differing entities listed at most
} rp_opts;

rp_opts rp_default_opts(void);

/// Run a subcommand over a whole log file's bytes. Takes ownership of data (malloc'd).
int rp_run(const rp_opts* o, uint8_t* data, size_t len, FILE* out, FILE* err);
