// arbiter — vehicles (physics extras): a rigid chassis body driven by virtual wheels, seen
// from above (the world plane is the ground; use zero world gravity).
//
// Each step, before the solver, every wheel computes its contact-patch velocity (the
// chassis velocity at the wheel minus the ground's, which is at rest), projects it on the
// wheel's forward and side axes, and the tyre forces that cancel the longitudinal slip
// (patch speed minus wheel surface speed) and the side slip are found by a small
// sequential impulse solve over the wheels, clamped to the friction circle mu*N (N =
// chassis mass * ground_gravity / wheel count): beyond it the wheel skids. The forces go
// into the chassis force accumulator at the wheel positions; drive and brake torques and
// the tyre reaction integrate each wheel's spin. Rolling resistance and aerodynamic drag
// make a car coast to rest and give it a top speed.
// Chassis frame: +x is forward, +y is left. Steering turns steerable wheels by
// steer * max_steer_angle (positive = left).
#pragma once

#include "joint.h"

ARB_C_BEGIN

#define ARB_VEHICLE_MAX_WHEELS 8

typedef struct arb_wheel_def {
  arb_vec2 offset;     ///< wheel centre in the chassis body frame, meters
  float radius;        ///< meters, > 0
  float inertia;       ///< spin inertia, kg*m^2, > 0
  bool steerable;      ///< turned by the steer input
  bool driven;         ///< receives drive torque
  float drive_torque;  ///< N*m at full throttle (driven wheels)
  float brake_torque;  ///< N*m at full brake
} arb_wheel_def;

typedef struct arb_vehicle_def {
  arb_body_id chassis;  ///< a dynamic body (required)
  arb_wheel_def wheels[ARB_VEHICLE_MAX_WHEELS];
  int wheel_count;           ///< 1..ARB_VEHICLE_MAX_WHEELS
  float max_steer_angle;     ///< radians, [0, 1.2]
  float friction;            ///< tyre friction coefficient mu, > 0
  float ground_gravity;      ///< m/s^2 pressing the wheels on the ground, > 0
  float rolling_resistance;  ///< coefficient (force = c * N against the rolling), >= 0
  float drag;                ///< aerodynamic drag, N per (m/s)^2, >= 0
  int internal_value;        ///< set by arb_default_vehicle_def; DO NOT SET
} arb_vehicle_def;

/// A four-wheeled car for a chassis about 4 m x 2 m of ~1000 kg: front wheels steer,
/// rear wheels drive, all brake. Top speed about 30 m/s on full throttle.
ARB_API arb_vehicle_def arb_default_vehicle_def(void);
ARB_API arb_extra_id arb_vehicle_create(arb_world* world, const arb_vehicle_def* def);
ARB_API int arb_vehicle_destroy(arb_world* world, arb_extra_id id);
/// Held until replaced; steer in [-1, 1], throttle and brake in [0, 1] (clamped; NaN -> 0).
ARB_API int arb_vehicle_set_input(arb_world* world, arb_extra_id id, float steer, float throttle,
                                  float brake);
ARB_API arb_body_id arb_vehicle_get_chassis(const arb_world* world, arb_extra_id id);
ARB_API int arb_vehicle_get_wheel_count(const arb_world* world, arb_extra_id id);
/// Wheel spin (rad/s, positive rolls forward) and current steering angle (radians).
ARB_API float arb_vehicle_get_wheel_spin(const arb_world* world, arb_extra_id id, int wheel);
ARB_API float arb_vehicle_get_steer_angle(const arb_world* world, arb_extra_id id, int wheel);
/// Radius of a wheel in metres (its arb_wheel_def.radius), 0 for a stale id or bad index.
ARB_API float arb_vehicle_get_wheel_radius(const arb_world* world, arb_extra_id id, int wheel);
/// Mount point of a wheel in the chassis body frame (its arb_wheel_def.offset, exactly as
/// defined: it never moves), (0, 0) for a stale id or bad index.
ARB_API arb_vec2 arb_vehicle_get_wheel_offset(const arb_world* world, arb_extra_id id, int wheel);
/// World transform of a wheel (position and chassis rotation times steering), for drawing.
ARB_API arb_transform arb_vehicle_get_wheel_transform(const arb_world* world, arb_extra_id id,
                                                      int wheel);
/// True when the wheel's tyre force was clamped by the friction circle in the last step.
ARB_API bool arb_vehicle_is_wheel_skidding(const arb_world* world, arb_extra_id id, int wheel);
/// Speed of the chassis along its forward axis, m/s.
ARB_API float arb_vehicle_get_forward_speed(const arb_world* world, arb_extra_id id);
/// The vehicle built on this chassis (the lowest slot if several), or the null id.
ARB_API arb_extra_id arb_vehicle_find_by_chassis(const arb_world* world, arb_body_id chassis);
/// Vehicles in slot order (for the game layer). Writes up to cap ids, returns the total.
ARB_API int arb_world_get_vehicles(const arb_world* world, arb_extra_id* out, int cap);

ARB_C_END
