// Private to libarbiter_game: the vehicle avatar controller (controller_vehicle.c).
#pragma once

#include "game_internal.h"

/// Build the avatar's vehicle on its freshly created chassis body (the template's wheels).
int arb__controller_vehicle_attach(arb_world* world, const arb_scene_avatar* tpl,
                                   arb_body_id chassis);
/// Remove the vehicle built on this chassis (before the chassis body is destroyed).
void arb__controller_vehicle_detach(arb_world* world, arb_body_id chassis);
/// Hand this tick's steer/throttle/brake to the avatar's vehicle.
void arb__controller_vehicle_apply(arb_world* world, const arb_avatar* avatar);
