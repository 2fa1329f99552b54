// arbiter — the controls a player applies to its avatar for one tick. Stand-alone, so the
// protocol (which quantizes them) and the game rules (which apply them) share one type.
#pragma once

#include "base.h"

ARB_C_BEGIN

/// Controls for one tick. On the server and in every replay these are the dequantized
/// values of the protocol's quantized input, so both sides see exactly the same floats.
typedef struct arb_controls {
  float move_x, move_y;  ///< [-1, 1]
  float aim;             ///< radians, [-pi, pi]
  uint32_t buttons;      ///< ARB_BUTTON_* bits
  float steer;           ///< [-1, 1], vehicles; positive turns left (counter-clockwise)
  float throttle;        ///< [0, 1], vehicles
  float brake;           ///< [0, 1], vehicles
} arb_controls;

#define ARB_BUTTON_JUMP (1u << 0)
#define ARB_BUTTON_FIRE (1u << 1)
#define ARB_BUTTON_USE (1u << 2)

/// Kind of avatar a client asks for; 0 = the scene's default.
typedef enum arb_avatar_kind {
  ARB_AVATAR_DEFAULT = 0,
  ARB_AVATAR_FORCE,
  ARB_AVATAR_VEHICLE,
  ARB_AVATAR_KIND_COUNT
} arb_avatar_kind;

ARB_C_END
