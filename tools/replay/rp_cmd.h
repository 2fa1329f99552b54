// arbiter-replay — the subcommands, callable on a log in memory (main.c reads the file;
// the fuzz target feeds bytes directly). Each returns the process exit status:
// 0 ok, 1 divergence, 2 unreadable or unusable log (reason on err).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum rp_command {
  RP_CMD_VERIFY = 1,
  RP_CMD_INFO,
  RP_CMD_DUMP,
  RP_CMD_SEEK,
  RP_CMD_CONTINUE
} rp_command;

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
  uint64_t tick;         ///< seek: target tick; continue: the tick to continue from
  int64_t perturb_tick;  ///< self-test: change gravity before this tick's step; -1 = off
  int max_bodies;        ///< verify: differing entities listed at most
} rp_opts;

rp_opts rp_default_opts(void);

/// Run a subcommand over a whole log file's bytes. Takes ownership of data (malloc'd).
int rp_run(const rp_opts* o, uint8_t* data, size_t len, FILE* out, FILE* err);

/// One log of a chain: its file name (for messages) and its whole bytes (malloc'd).
typedef struct rp_chain_link {
  const char* name;
  uint8_t* data;
  size_t len;
} rp_chain_link;

/// verify LOG NEXT...: the logs of one match that moved between servers, re-simulated as one
/// match. The first log re-simulates from its start; each later one must carry the same
/// scene, seed and tick rate and start with a checkpoint at the tick and hash the log
/// before it ends with, whose whole state equals the state re-simulated so far; its ticks
/// are then applied to that state (never restored from its own checkpoint), so the final
/// hash is an offline re-simulation of the whole match from the first log's start. Takes
/// ownership of every link's data (sets it to NULL).
int rp_run_chain(const rp_opts* o, rp_chain_link* links, int count, FILE* out, FILE* err);

/// continue LOG --tick T --out FILE: re-simulate the log to tick T (every tick's hash
/// compared) and write to `file` the log a server built like this tool would have written
/// had the match moved to it at T: the log's header naming it as the predecessor, a
/// checkpoint of this build's own state at T, the recorded records after T as they are and
/// an end record. Takes ownership of data.
int rp_run_continue(const rp_opts* o, uint8_t* data, size_t len, FILE* file, FILE* out, FILE* err);
