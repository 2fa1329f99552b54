// Where the match lifecycle (sv_match), the Agones SDK client (sv_agones) and the server
// meet: the server calls these few hooks, this module decides what they mean.
//
//   sv_server_init done  -> sv_lifecycle_start: match ready; Agones ready + labels + watch
//   end of every tick    -> sv_lifecycle_after_tick: player count and Agones player
//                           tracking from the tick's joins/leaves, health ping, limits
//                           checked; a match that is over stops the server
//   hello                -> sv_lifecycle_accepting: no new players once draining
//   SIGUSR1, POST /admin/drain -> sv_lifecycle_drain
//   sv_server_stop       -> sv_lifecycle_stop: Agones shutdown, handles closed
#pragma once

#include <arbiter/replay_log.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "sv_agones.h"
#include "sv_match.h"

struct sv_server;

typedef struct sv_lifecycle {
  sv_match match;
  bool agones_on;
  sv_agones agones;
  char gameserver_state[32];  ///< last status.state seen from Agones
  char gameserver_name[64];   ///< its name, as the SDK reports it
  uv_signal_t sig_usr1;
  bool sig_usr1_open;
  char admin_token[513];  ///< "" = operator endpoints off
  uint64_t started_ns;
  bool stalled;  ///< --test-stall-after-ms fired
} sv_lifecycle;

/// Load the operator token, start the match (ready) and the Agones client, catch SIGUSR1.
/// Returns 0 or -1 with a message in err (an unusable --admin-token file).
int sv_lifecycle_start(struct sv_server* s, char* err, size_t err_cap);
/// The tick's joins and leaves are in rec (the tick record, filled whether or not recording).
void sv_lifecycle_after_tick(struct sv_server* s, const arb_replay_tick* rec, uint64_t now_ns);
/// May a new player join now?
bool sv_lifecycle_accepting(const struct sv_server* s);
/// Begin a drain (who: "SIGUSR1", "http"). Returns true if it started one now.
bool sv_lifecycle_drain(struct sv_server* s, const char* who);
/// Ready, with this server's own limits: at start, and when a moved-in match was dropped.
void sv_lifecycle_reset_match(struct sv_server* s);
/// A match moved in (allocated = true: Agones is told, so the fleet neither hands this
/// server to another match nor scales it down), or was dropped (false: Ready again).
void sv_lifecycle_moved_in(struct sv_server* s, bool allocated);
/// The server is stopping: tell Agones (POST /shutdown) and close this module's handles.
void sv_lifecycle_stop(struct sv_server* s);
