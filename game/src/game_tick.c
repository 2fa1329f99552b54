// The tick applier (see game.h, arb_game_apply_tick): the one place that fixes the order
// in which a tick's inputs change the game. The live server, arbiter-replay, the viewer's
// replay player and a predicting client all go through it, so they cannot disagree.
//
// DETERMINISM: joins, then leaves, then controls (and the shot of a control that presses
// fire, game_fire.c), each in array order, then one step.
// A refused item changes nothing (a join refused for lack of memory aside, which may have
// used a body id), so a record that leaves refused items out applies the same.
#include "game_internal.h"

int arb_game_apply_tick(arb_game* game, arb_tick_inputs* in) {
  if (!game || !in || in->join_count < 0 || in->leave_count < 0 || in->control_count < 0)
    return ARB_E_INVAL;
  int first_error = ARB_OK;
  game->hit_count = 0;
  for (int i = 0; i < in->join_count; i++) {
    arb_tick_join* j = &in->joins[i];
    j->entity_id = 0;
    j->result = arb_game_join(game, j->client_id, j->kind, &j->entity_id);
    if (j->result != ARB_OK && first_error == ARB_OK) first_error = j->result;
  }
  for (int i = 0; i < in->leave_count; i++) {
    arb_tick_leave* l = &in->leaves[i];
    l->result = arb_game_leave(game, l->client_id);
    if (l->result != ARB_OK && first_error == ARB_OK) first_error = l->result;
  }
  for (int i = 0; i < in->control_count; i++) {
    arb_tick_control* c = &in->controls[i];
    arb_controls before;
    bool held = arb_game_get_controls(game, c->client_id, &before) == ARB_OK;
    c->result = arb_game_set_controls(game, c->client_id, &c->controls);
    if (c->result != ARB_OK && first_error == ARB_OK) first_error = c->result;
    // A shot is the fire button going down (holding it fires once).
    if (c->result == ARB_OK && game->ring_len && held && !(before.buttons & ARB_BUTTON_FIRE) &&
        (c->controls.buttons & ARB_BUTTON_FIRE))
      arb__fire_shoot(game, c->client_id, c->view_time);
  }
  arb_game_step(game);
  return first_error;
}
