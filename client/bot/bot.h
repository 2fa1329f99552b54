// arbiter-bot internals: one bot = one arb_client with a scripted behaviour and its own
// measurements. Several hundred bots share one process and one loop (main.c).
#pragma once

#include <arbiter/client.h>

typedef enum bot_behaviour {
  BOT_IDLE = 0,  ///< no input at all
  BOT_RANDOM,    ///< a random direction (and sometimes jump) every 0.5..1.5 s
  BOT_CIRCLE,    ///< move axes turning at 1 rad/s: the avatar runs in circles
  BOT_SEEK,      ///< move towards the nearest other entity's interpolated position
  BOT_TOGGLE,    ///< move right for 1 s, stand for 1 s, ...: input-to-confirmed-motion samples
} bot_behaviour;

/// A growing list of measurements (percentiles at the end).
typedef struct bot_samples {
  float* v;
  int n, cap;
} bot_samples;

void bot_samples_push(bot_samples* s, float x);
void bot_samples_free(bot_samples* s);

#define BOT_MAX_SEEN 64

/// Another player this bot saw join (PLAYER_JOINED), and what it saw of them afterwards:
/// the summary's "players_seen".
typedef struct bot_seen_player {
  uint32_t client_id;
  uint32_t avatar;  ///< their avatar entity
  char name[128];
  bool left;       ///< PLAYER_LEFT seen
  bool placed;     ///< the avatar was sampled at least once
  arb_vec2 first;  ///< where it was first sampled
  float moved;     ///< m, the farthest it was sampled from there
} bot_seen_player;

typedef struct bot {
  int index;
  arb_client* client;
  uint64_t rng;
  bot_behaviour behaviour;
  arb_controls controls;
  double next_change;  ///< random: when to pick a new direction
  double phase;        ///< circle: starting angle

  // lifecycle
  bool ever_connected;
  bool rejected;
  char reason[128];           ///< rejection or last disconnect reason
  double connected_since;     ///< < 0 when not connected
  double connected_time;      ///< seconds spent connected
  double streaming_since;     ///< first snapshot of the current connection (< 0: none yet)
  double streaming_time;      ///< seconds from each connection's first snapshot to its end
  int snapshot_rate;          ///< from the welcome
  uint32_t drops;             ///< connections lost after a welcome
  uint32_t connect_failures;  ///< connect attempts that never got a welcome

  // interpolated state and continuity
  arb_client_entity_state* states;  ///< this frame's sample
  arb_client_entity_state* prev;    ///< last frame's sample (same connection)
  int cap, count, prev_count;
  double prev_T;             ///< server time of the previous sample (<0 = none)
  double prev_now;           ///< local time of the previous sample
  float prev_correction;     ///< m, the own avatar's fading correction at the previous sample
  float smoothing;           ///< s, the client's predict_smoothing (time constant of that fade)
  uint64_t samples;          ///< entity-frames checked for continuity
  uint64_t frames;           ///< frames compared with the previous one
  uint64_t long_frames;      ///< ... of them not checked: longer than a snapshot interval
  uint64_t discontinuities;  ///< entity-frames with a step the velocities cannot explain
  float worst_step;          ///< largest step / allowed step seen

  // the own avatar across a reconnect (a rejoin, a match moved to another server): the
  // step between the last frame drawn before and the first after, against the same
  // allowance as a frame of that length (server time between the two samples)
  uint32_t sampled_reconnects;          ///< the client's reconnect count at the last frame
  bool across_pending;                  ///< a state from before the connection ended is held
  arb_client_entity_state across_from;  ///< the own avatar at the last frame before
  double across_T;                      ///< its server time
  uint32_t rejoin_checks;               ///< reconnects whose first frame was compared
  float rejoin_jump_m;                  ///< largest such step, m
  float rejoin_jump_ratio;              ///< largest step / allowed

  // prediction, measured from the client's statistics as they change
  bot_samples motion_ms;     ///< input-to-motion times
  bot_samples error_m;       ///< predicted vs server avatar at each snapshot check
  bot_samples error_free_m;  ///< ... of the checks where the avatar touched only the level
  uint64_t seen_motion, seen_checks;

  // the link, measured from the snapshots as they arrive
  unsigned toggle_step;      ///< toggle: which quarter of the cycle comes next
  float toggle_dir;          ///< toggle: the move now (+1 right, -1 left, 0 standing)
  double move_since;         ///< toggle: when the last move started (0 = confirmed or standing)
  uint32_t move_after_tick;  ///< ... newest prediction check then: a later one must show it
  bot_samples confirm_ms;   ///< toggle: move started -> a snapshot shows the server's avatar moving
  uint64_t seen_snapshots;  ///< snapshots_received when last looked
  double last_snapshot_time;  ///< when snapshots_received last grew (0 = never)
  float worst_stall_ms;       ///< longest time between two complete snapshots

  // other players (up to BOT_MAX_SEEN; more are not followed)
  bot_seen_player seen[BOT_MAX_SEEN];
  int seen_count;
} bot;

/// Seeded xorshift per bot: the same --seed replays the same inputs.
double bot_rand(bot* b);
/// Choose this frame's controls from the behaviour (uses the last sample for seek).
void bot_behave(bot* b, double now);
/// Sample the interpolated world and update the continuity counters.
void bot_sample(bot* b, double now);
/// Note a PLAYER_JOINED or PLAYER_LEFT event (others are ignored).
void bot_note_player(bot* b, const arb_client_event* ev);
/// Collect the prediction figures the client measured since the last call.
void bot_observe_prediction(bot* b);
/// Track snapshot arrivals (stalls) and, for toggle, the server confirming a move.
void bot_observe_link(bot* b, double now);
const char* bot_behaviour_name(bot_behaviour k);
int bot_parse_behaviour(const char* s, bot_behaviour* out);
