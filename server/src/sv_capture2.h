// Capture of a game's drawable state for snapshot stream v2: every non-static body, every
// particle, every particle constraint (a rope link between two particle entities), every
// vehicle wheel and every spring and joint (links between bodies), quantized, in one id-ordered set. Entity ids: bodies keep their game
// entity id; the extras get ids in their own ranges above every body id, so a client can
// tell them apart and the order is stable. All memory is allocated at init.
#pragma once

#include <arbiter/game.h>
#include <arbiter/snapshot_v2.h>

#define SV_ID_PARTICLE 0x40000000u  ///< + particle index
#define SV_ID_ROPE 0x50000000u      ///< + constraint index
#define SV_ID_WHEEL 0x60000000u     ///< + vehicle slot * SV_WHEELS_PER_VEHICLE + wheel
#define SV_WHEELS_PER_VEHICLE 8
#define SV_ID_SPRING 0x70000000u    ///< + spring slot
#define SV_ID_JOINT 0x78000000u     ///< + joint slot

typedef struct sv_capture2 {
  int cap;               ///< entities of any kind per capture
  arb_entity* entities;  ///< game entities of the last capture (cap)
  int entity_count;
  arb_snap2_entity* items;  ///< captured, id order (cap)
  arb_snap2_set set;        ///< view of items
  arb_vec2* positions;      ///< world position of items[i] (bodies, particles; wheels: chassis)
  float* speeds;            ///< |velocity| of items[i], m/s
  arb_game* game;           ///< of the last capture, for descriptions
  int32_t gravity_x, gravity_y;  ///< quantized world gravity (1/256 m/s^2)
  int truncated;                 ///< things left out of the last capture (over cap)
  /// The quantized angle of the last rotation seen per body slot (index1 % cap): a body at
  /// rest keeps its rotation bit for bit, and its angle (an atan2, the dearest part of a
  /// capture) is then reused. angle_key[k] = 0: empty.
  uint32_t* angle_key;  ///< body index1
  arb_rot* angle_rot;
  uint16_t* angle_q;
} sv_capture2;

int sv_capture2_init(sv_capture2* c, int max_entities);
void sv_capture2_free(sv_capture2* c);
void sv_capture2_run(sv_capture2* c, arb_game* game);
/// arb_snap2_describe_fn over the last capture (user = the sv_capture2).
int sv_capture2_describe(void* user, uint32_t id, arb_snap2_desc* desc);
