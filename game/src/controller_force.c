// The force controller: a player's move axes become a force on its avatar.
//
// It tracks a target velocity (move axis * max_speed) with a force clamped to max_force:
// f = m * (v_target - v) / dt, so it accelerates up to max_speed and never beyond it by
// itself, brakes when the stick is released, and never overshoots within one tick.
// Platformer mode acts only along the ground (perpendicular to gravity), with air_control
// of the force while airborne and an optional jump impulse when grounded. Top-down mode
// acts on both axes (scenes without gravity).
//
// DETERMINISM: plain float32 arithmetic on values from the world and the clamped controls;
// contacts come from arb_body_get_contacts in its deterministic order.
#include "game_internal.h"

// A contact counts as ground when its normal (from the avatar to the other body) points
// within 45 degrees of "down" (the gravity direction) and the surfaces actually touch.
#define GROUND_COS 0.7071f
#define GROUND_MAX_SEPARATION (2.0f * ARB_LINEAR_SLOP)
#define MAX_GROUND_CONTACTS 16

int arb__force_jump_cooldown_ticks(float dt) {
  // A quarter second: long enough for the avatar to leave the contact it jumped from.
  int ticks = (int)(0.25f / dt + 0.5f);
  return ticks < 1 ? 1 : ticks;
}

static bool is_grounded(const arb_world* world, arb_body_id body, arb_vec2 down) {
  arb_contact_data contacts[MAX_GROUND_CONTACTS];
  int n = arb_body_get_contacts(world, body, contacts, MAX_GROUND_CONTACTS);
  if (n > MAX_GROUND_CONTACTS) n = MAX_GROUND_CONTACTS;
  for (int i = 0; i < n; i++) {  // DET: world's contact order
    if (arb_dot(contacts[i].normal, down) < GROUND_COS) continue;
    for (int k = 0; k < contacts[i].point_count && k < 2; k++) {
      if (contacts[i].separations[k] <= GROUND_MAX_SEPARATION) return true;
    }
  }
  return false;
}

void arb__controller_force_apply(arb_world* world, const arb_force_controller_def* def,
                                 arb_vec2 gravity, float dt, arb_avatar* avatar) {
  if (avatar->jump_cooldown > 0) avatar->jump_cooldown--;
  float mass = arb_body_get_mass(world, avatar->body);
  if (!(mass > 0.0f) || !(dt > 0.0f)) return;
  arb_vec2 v = arb_body_get_linear_velocity(world, avatar->body);
  const arb_controls* c = &avatar->controls;

  arb_force_mode mode = def->mode;
  if (mode == ARB_FORCE_MODE_AUTO) {
    mode = arb_length_sq(gravity) > 0.0f ? ARB_FORCE_MODE_PLATFORMER : ARB_FORCE_MODE_TOP_DOWN;
  }

  if (mode == ARB_FORCE_MODE_TOP_DOWN) {
    arb_vec2 move = arb_v2(c->move_x, c->move_y);
    if (arb_length_sq(move) > 1.0f) move = arb_normalize(move);  // diagonals are not faster
    arb_vec2 target = arb_scale(def->max_speed, move);
    arb_vec2 f = arb_scale(mass / dt, arb_sub(target, v));
    float len = arb_length(f);
    if (len > def->max_force) f = arb_scale(def->max_force / len, f);
    arb_body_apply_force_to_center(world, avatar->body, f);
    return;
  }

  arb_vec2 down = arb_normalize(gravity);
  if (arb_length_sq(down) == 0.0f) down = arb_v2(0.0f, -1.0f);  // platformer forced without gravity
  arb_vec2 up = arb_neg(down);
  arb_vec2 right = arb_right_perp(up);
  bool grounded = is_grounded(world, avatar->body, down);

  float limit = def->max_force * (grounded ? 1.0f : def->air_control);
  float target = c->move_x * def->max_speed;
  float f = mass * (target - arb_dot(v, right)) / dt;
  f = arb_clampf(f, -limit, limit);
  if (f != 0.0f) arb_body_apply_force_to_center(world, avatar->body, arb_scale(f, right));

  if ((c->buttons & ARB_BUTTON_JUMP) && grounded && avatar->jump_cooldown == 0 &&
      def->jump_impulse > 0.0f) {
    arb_body_apply_linear_impulse(world, avatar->body, arb_scale(def->jump_impulse, up),
                                  arb_body_get_world_center(world, avatar->body));
    avatar->jump_cooldown = arb__force_jump_cooldown_ticks(dt);
  }
}
