// arbiter-view — keyboard to controls.
//
//   force avatar:   W A S D or arrows move, space = jump (ARB_BUTTON_JUMP)
//   vehicle avatar: up/W throttle, left/right or A/D steer, space or down/S brake
#include <string.h>

#include "view.h"

void view_input_controls(const Uint8* keys, arb_avatar_kind kind, float aim, arb_controls* out) {
  memset(out, 0, sizeof(*out));
  bool up = keys[SDL_SCANCODE_W] || keys[SDL_SCANCODE_UP];
  bool down = keys[SDL_SCANCODE_S] || keys[SDL_SCANCODE_DOWN];
  bool left = keys[SDL_SCANCODE_A] || keys[SDL_SCANCODE_LEFT];
  bool right = keys[SDL_SCANCODE_D] || keys[SDL_SCANCODE_RIGHT];
  bool space = keys[SDL_SCANCODE_SPACE];
  out->aim = aim;
  // The default kind is whatever the scene says, which the viewer may not know yet:
  // then both sets of controls are filled and the avatar's controller reads its own.
  if (kind != ARB_AVATAR_FORCE) {
    out->throttle = up ? 1.0f : 0.0f;
    out->steer = (left ? 1.0f : 0.0f) - (right ? 1.0f : 0.0f);  // positive turns left
    out->brake = (space || down) ? 1.0f : 0.0f;
    if (kind == ARB_AVATAR_VEHICLE) return;
  }
  out->move_x = (right ? 1.0f : 0.0f) - (left ? 1.0f : 0.0f);
  out->move_y = (up ? 1.0f : 0.0f) - (down ? 1.0f : 0.0f);
  if (space) out->buttons |= ARB_BUTTON_JUMP;
}
