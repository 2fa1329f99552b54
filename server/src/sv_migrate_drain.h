// A node drain moves the match before the server stops (docs/SCALING.md, "Draining a
// node"): SIGTERM, with somewhere to move it configured, while players are in the match.
//
//   SIGTERM ─▶ --migrate-allocator URL: POST {"gameserver", "scene", "scene_hash",
//              "sim_version", "tick_rate", "tick", "players"}; a 200 answer
//              {"migrate": "IP:PORT", "clients": "IP:PORT"} ("clients" optional) names the
//              target; within SV_MIG_ALLOCATOR_MS, or
//            ─▶ --migrate-on-drain IP:PORT[/IP:PORT] (also the allocator's fallback)
//            ─▶ sv_migrate_begin; the server stops when the move committed ("migrated"),
//              failed or was cancelled ("SIGTERM", as without the move).
// No players, no target, an allocator that fails with no fallback: the server stops at
// once, as SIGTERM always did, with the reason logged.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "sv_http_client.h"

#define SV_MIG_ALLOCATOR_MS 2000  ///< the allocator's answer (name lookup included) in time

struct sv_server;

typedef struct sv_mig_drain {
  bool active;  ///< a SIGTERM is being handled by a move
  uv_getaddrinfo_t resolve;
  bool resolving;
  sv_httpc* call;
  uv_timer_t deadline;
  bool deadline_open;
  char host[128];
  int port;
  char path[192];
} sv_mig_drain;

/// Check --migrate-allocator (a URL sv_httpc_parse_url takes). 0, or -1 with why in err.
int sv_migrate_drain_check(const struct sv_server* s, char* err, size_t err_cap);
/// SIGTERM: true when a move is under way (the server stops when it ends), false when the
/// server should stop now.
bool sv_migrate_drain(struct sv_server* s);
/// Close the deadline timer and a call in flight.
void sv_migrate_drain_close(struct sv_server* s);
