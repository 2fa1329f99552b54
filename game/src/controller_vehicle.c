// The vehicle controller: a player's steer/throttle/brake drive the vehicle built on its
// avatar's chassis (arbiter/vehicle.h does the physics).
//
// The avatar body is the chassis (from the scene's avatar.controller vehicle template);
// the vehicle is found again from the chassis each tick, so the game keeps no handle
// that would need saving: the world image carries the vehicle with the body.
//
// DETERMINISM: the lookup scans vehicles in slot order; the inputs are the clamped controls.
#include "controller_vehicle.h"

#include <arbiter/vehicle.h>

int arb__controller_vehicle_attach(arb_world* world, const arb_scene_avatar* tpl,
                                   arb_body_id chassis) {
  arb_vehicle_def def = tpl->vehicle;
  def.chassis = chassis;
  return arb_extra_id_is_null(arb_vehicle_create(world, &def)) ? ARB_E_INVAL : ARB_OK;
}

void arb__controller_vehicle_detach(arb_world* world, arb_body_id chassis) {
  arb_extra_id id = arb_vehicle_find_by_chassis(world, chassis);
  if (!arb_extra_id_is_null(id)) arb_vehicle_destroy(world, id);
}

void arb__controller_vehicle_apply(arb_world* world, const arb_avatar* avatar) {
  arb_extra_id id = arb_vehicle_find_by_chassis(world, avatar->body);
  if (arb_extra_id_is_null(id)) return;
  const arb_controls* c = &avatar->controls;
  arb_vehicle_set_input(world, id, c->steer, c->throttle, c->brake);
}
