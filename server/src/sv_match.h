// The match lifecycle of one server process, as a state machine with time passed in (no
// clock, no I/O, so tests drive it by hand):
//
//   starting ──world loaded, port open──▶ ready ──first join, or the fleet allocated us──▶
//   allocated
//       │                                   │                                                 │
//       └───────────── drain ───────────────┴──────────── drain (SIGUSR1, POST /admin/drain) ──┴─▶
//       draining
//   allocated ──max duration, or empty for exit-when-empty──▶ done
//   draining  ──nobody left, max duration, or drain timeout──▶ done
//
// "done" is where the server stops (clients told, recording closed, exit 0). A server that
// is never allocated waits in "ready" forever: that is a fleet's warm standby.
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef enum sv_match_state {
  SV_MATCH_STARTING = 0,
  SV_MATCH_READY,      ///< accepting; no match yet
  SV_MATCH_ALLOCATED,  ///< a match is on (a player joined, or a fleet allocated this server)
  SV_MATCH_DRAINING,   ///< no new players; the match runs until it ends
  SV_MATCH_DONE,       ///< the match is over; the server is stopping
  SV_MATCH_STATE_COUNT
} sv_match_state;

typedef struct sv_match_limits {
  uint64_t max_duration_ns;     ///< from allocation to the end of the match; 0 = no limit
  uint64_t exit_when_empty_ns;  ///< allocated and nobody in the match this long ends it; 0 = never
  uint64_t drain_timeout_ns;  ///< a drain ends the match after this even with players; 0 = at once
} sv_match_limits;

typedef struct sv_match {
  sv_match_state state;
  sv_match_limits limits;
  uint64_t allocated_ns;    ///< when the match started (valid from ALLOCATED on)
  uint64_t empty_since_ns;  ///< when the player count last became 0 (valid while players == 0)
  uint64_t drain_ns;        ///< when the drain began
  int players;              ///< players in the game now
  const char* end_reason;   ///< static string, set on DONE
  const char* end_pending;  ///< DONE reached outside sv_match_check: reported by its next call
} sv_match;

void sv_match_init(sv_match* m, const sv_match_limits* limits);
/// The world is loaded and the game port is open: starting -> ready.
void sv_match_ready(sv_match* m, uint64_t now_ns);
/// Ready (or starting) -> allocated. Returns true when the state changed.
bool sv_match_allocate(sv_match* m, uint64_t now_ns);
/// The number of players in the game now. The first join of a ready server allocates it.
void sv_match_set_players(sv_match* m, int players, uint64_t now_ns);
/// Stop accepting players and let the match finish. A server without a match is done at
/// once. Returns true when the state changed.
bool sv_match_drain(sv_match* m, uint64_t now_ns);
/// End the match now (why: a static string), whatever the state; sv_match_check reports it.
void sv_match_end(sv_match* m, const char* why);
/// Replace the limits (match parameters that arrive with an allocation); timers keep their
/// start points, so a shorter limit can end the match at the next check.
void sv_match_set_limits(sv_match* m, const sv_match_limits* limits);
/// Ends the match when a limit says so. Returns the reason the match ended (a static
/// string) the first time it reaches DONE, else NULL.
const char* sv_match_check(sv_match* m, uint64_t now_ns);
/// True while new players may join (ready or allocated).
bool sv_match_accepting(const sv_match* m);
/// "starting", "ready", "allocated", "draining", "done".
const char* sv_match_state_name(sv_match_state state);
