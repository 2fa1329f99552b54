// Capture of a game's drawable state for the snapshot stream: every non-static body, every
// particle, every particle constraint (a rope link between two particle entities), every
// vehicle wheel and every spring and joint (links between bodies), quantized, in one id-ordered
// set. Entity ids: bodies keep their game entity id; the extras get ids in their own ranges above
// every body id, so a client can tell them apart and the order is stable. All memory is allocated
// at init.
#pragma once

#include <arbiter/game.h>
#include <arbiter/snapshot.h>

#define SV_ID_PARTICLE 0x40000000u  ///< + particle index
#define SV_ID_ROPE 0x50000000u      ///< + constraint index
#define SV_ID_WHEEL 0x60000000u     ///< + vehicle slot * SV_WHEELS_PER_VEHICLE + wheel
#define SV_WHEELS_PER_VEHICLE 8
#define SV_ID_SPRING 0x70000000u  ///< + spring slot
#define SV_ID_JOINT 0x78000000u   ///< + joint slot

/// The inputs of a body's captured state and what they gave (sv_capture.memo). The state
/// is a function of the inputs alone (the quantizers and arb_rot_angle are pure), so equal
/// bits give the same state: an entry cannot go stale.
typedef struct sv_capture_memo {
  uint32_t index1;
  arb_transform xf;
  arb_vec2 v;
  float w;
  arb_snapshot_state s;  ///< x, y, angle, vx, vy, w; the rest zero
  float speed;
} sv_capture_memo;

typedef struct sv_capture {
  int cap;               ///< entities of any kind per capture
  arb_entity* entities;  ///< game entities of the last capture (cap)
  int entity_count;
  arb_snapshot_entity* items;  ///< captured, id order (cap)
  arb_snapshot_set set;        ///< view of items
  arb_vec2* positions;         ///< world position of items[i] (bodies, particles; wheels: chassis)
  float* speeds;               ///< |velocity| of items[i], m/s
  arb_game* game;              ///< of the last capture, for descriptions
  int32_t gravity_x, gravity_y;  ///< quantized world gravity (1/256 m/s^2)
  int truncated;                 ///< things left out of the last capture (over cap)
  /// Per body slot (index1 % cap), what its last capture was made from and gave: a body at
  /// rest keeps its transform and velocities bit for bit, and its quantized state (the
  /// angle's atan2 the dearest part) and speed are then reused. index1 = 0: empty.
  sv_capture_memo* memo;
  /// This capture against the previous one (sv_capture_find_changes), found once per
  /// capture for every client: `changed` holds the indexes (into items, increasing) of the entities
  /// whose captured record (class, description version, quantized state) or position
  /// differs, `entered` those new since the previous capture, and `left` the ids (increasing)
  /// of the previous capture's entities no longer captured. A body at rest keeps its
  /// record and position bit for bit, so it is in none of them.
  int* changed;
  int changed_count;
  int* entered;
  int entered_count;
  uint32_t* left;
  int left_count;
  /// The previous capture's items and positions (the buffers swap every capture).
  arb_snapshot_entity* prev_items;
  arb_vec2* prev_positions;
  int prev_count;
} sv_capture;

int sv_capture_init(sv_capture* c, int max_entities);
/// Fill changed/entered/left: the last sv_capture_run against the one before. Not part of
/// sv_capture_run: the snapshot builder does not read the change set yet, and a tick
/// should not pay for it (about a fifth of the capture's instructions) until one does.
void sv_capture_find_changes(sv_capture* c);
void sv_capture_free(sv_capture* c);
void sv_capture_run(sv_capture* c, arb_game* game);
/// arb_snapshot_describe_fn over the last capture (user = the sv_capture).
int sv_capture_describe(void* user, uint32_t id, arb_snapshot_desc* desc);
