// arbiter — springs and joints between bodies (physics extras).
//
// Springs are force generators: each step, before the solver, a spring adds
// -k*(length - rest) along its axis plus damping on the relative speed along the axis to
// the two bodies' force accumulators (a body and a fixed world point when body_b is null).
// Joints are constraints solved inside the contact solver's substep loop (joints first,
// contacts last), with the same soft-step scheme as contacts, so chains and ragdolls hold.
// Jointed bodies still collide with each other: give them the same negative shape group
// (arb_shape_def.group) when they overlap at the joint, as chain links do.
// A spring or joint whose body was destroyed does nothing (it keeps its slot until
// destroyed). Both are part of the world hash and of arb_world_save/arb_world_restore.
// Creation and destruction are allowed between steps only.
#pragma once

#include "world.h"

ARB_C_BEGIN

/// Handle of a spring, joint, vehicle or particle object: slot index + 1 and generation.
typedef struct arb_extra_id {
  int32_t index1;       ///< slot + 1; 0 = null
  uint32_t generation;  ///< must match the slot's generation
} arb_extra_id;

static inline bool arb_extra_id_is_null(arb_extra_id id) {
  return id.index1 == 0;
}

typedef struct arb_spring_def {
  arb_body_id body_a;       ///< required; usually dynamic
  arb_body_id body_b;       ///< null: the spring is tied to the world point local_anchor_b
  arb_vec2 local_anchor_a;  ///< in body A's frame (relative to its origin), meters
  arb_vec2 local_anchor_b;  ///< in body B's frame, or a world point when body_b is null
  float rest_length;        ///< meters, >= 0
  float stiffness;          ///< k, N/m, >= 0
  float damping;            ///< c, N*s/m, >= 0 (force -c * relative speed along the axis)
  int internal_value;       ///< set by arb_default_spring_def; DO NOT SET
} arb_spring_def;

ARB_API arb_spring_def arb_default_spring_def(void);
/// Returns the null id on an invalid def (non-finite or negative values, stale body).
ARB_API arb_extra_id arb_spring_create(arb_world* world, const arb_spring_def* def);
ARB_API int arb_spring_destroy(arb_world* world, arb_extra_id id);
/// Current length between the anchors (0 for a stale id).
ARB_API float arb_spring_get_length(const arb_world* world, arb_extra_id id);
ARB_API int arb_world_get_spring_count(const arb_world* world);
/// World positions of the spring's two anchors (body B null: its world point). Zero for a
/// stale id. Returns 0 or ARB_E_STALE_ID (also when one of its bodies was destroyed).
ARB_API int arb_spring_get_anchors(const arb_world* world, arb_extra_id id, arb_vec2* a,
                                   arb_vec2* b);
/// Live springs in slot order (deterministic: creation order, freed slots reused lowest
/// first). Writes up to cap ids (out may be NULL), returns the total count.
ARB_API int arb_world_get_springs(const arb_world* world, arb_extra_id* out, int cap);
/// The spring's bodies and local anchors as created (body B null: local_b is a world point),
/// so a remote viewer can place the anchors from the bodies' poses. Any out may be NULL.
/// Returns 0 or ARB_E_STALE_ID (outs zeroed).
ARB_API int arb_spring_get_bodies(const arb_world* world, arb_extra_id id, arb_body_id* body_a,
                                  arb_body_id* body_b, arb_vec2* local_a, arb_vec2* local_b);

typedef enum arb_joint_type {
  ARB_JOINT_NONE = 0,
  ARB_JOINT_DISTANCE,  ///< keeps the anchors `length` apart (rigid rod, soft spring, or a rope
                       ///< between min and max length)
  ARB_JOINT_REVOLUTE,  ///< pins the anchors together; rotation about the pin (limit, motor, spring)
  ARB_JOINT_PRISMATIC,  ///< B slides along A's axis through the anchor, no relative rotation
                        ///< (limit, motor, spring along the axis)
  ARB_JOINT_WELD,       ///< glues B to A (rigid, or soft with hertz > 0)
  ARB_JOINT_WHEEL,      ///< B's anchor on A's axis (suspension spring along it), B spins freely
                        ///< (drive motor on the spin)
  ARB_JOINT_MOTOR,      ///< drives B towards the offset local_anchor_a / reference_angle in A's
                        ///< frame with at most max_force and max_torque
  ARB_JOINT_MOUSE,      ///< drags A's anchor towards the world target point local_anchor_b (body_b
                        ///< null) with a soft spring limited to max_force
  ARB_JOINT_TYPE_COUNT
} arb_joint_type;

/// One definition for every joint type; each type reads only the fields its comment names
/// (the rest keep their defaults). Angles are radians, B relative to A (counter-clockwise).
typedef struct arb_joint_def {
  arb_joint_type type;
  arb_body_id body_a;       ///< required
  arb_body_id body_b;       ///< null: the world (local_anchor_b is then a world point)
  arb_vec2 local_anchor_a;  ///< in body A's frame, meters (motor joint: the target offset of B)
  arb_vec2 local_anchor_b;  ///< in body B's frame, or a world point (mouse joint: the target)
  float length;             ///< distance joint: rest length (m); < 0 = the current distance
  float hertz;              ///< distance, weld, mouse: 0 = rigid, > 0 = soft (spring frequency);
                            ///< revolute, prismatic, wheel: the spring's frequency (enable_spring)
  float damping_ratio;      ///< with hertz > 0: damping ratio (1 = critical)
  arb_vec2 local_axis_a;    ///< prismatic, wheel: slide axis in A's frame (normalized; default +x)
  float reference_angle;    ///< revolute, prismatic, weld, motor: B's angle minus A's at rest
  bool enable_limit;        ///< revolute: angle in [lower, upper]; prismatic, wheel: translation
                      ///< along the axis in [lower, upper]; distance: length in [lower, upper]
                      ///< (free in between unless hertz > 0 pulls towards `length`)
  float lower, upper;       ///< the limit (radians or meters), lower <= upper
  bool enable_motor;        ///< revolute, wheel: relative spin; prismatic: speed along the axis
  float motor_speed;        ///< rad/s (revolute, wheel) or m/s (prismatic)
  float max_motor_torque;   ///< N*m (revolute, wheel) or N (prismatic), >= 0
  bool enable_spring;       ///< revolute: towards reference_angle; prismatic, wheel: towards
                            ///< translation 0 (the wheel's suspension); uses hertz, damping_ratio
  float max_force;          ///< motor, mouse: N, >= 0
  float max_torque;         ///< motor: N*m, >= 0
  float correction_factor;  ///< motor: fraction of the offset error removed per step, [0, 1]
  float break_force;        ///< N, >= 0; 0 = never breaks. Any type: when the constraint
                            ///< force of a step (arb_joint_get_force) exceeds it, the step
                            ///< removes the joint and reports a break event
  int internal_value;       ///< set by arb_default_joint_def; DO NOT SET
} arb_joint_def;

ARB_API arb_joint_def arb_default_joint_def(void);
ARB_API arb_extra_id arb_joint_create(arb_world* world, const arb_joint_def* def);
ARB_API int arb_joint_destroy(arb_world* world, arb_extra_id id);
/// World positions of the two anchors (zero for a stale id).
ARB_API void arb_joint_get_anchors(const arb_world* world, arb_extra_id id, arb_vec2* a,
                                   arb_vec2* b);
/// The joint's bodies and local anchors as in its definition (body B null: local_b is a
/// world point). Any out may be NULL. Returns 0 or ARB_E_STALE_ID (outs zeroed).
ARB_API int arb_joint_get_bodies(const arb_world* world, arb_extra_id id, arb_body_id* body_a,
                                 arb_body_id* body_b, arb_vec2* local_a, arb_vec2* local_b);
ARB_API int arb_world_get_joint_count(const arb_world* world);
/// The joint's type, or ARB_JOINT_NONE for a stale id.
ARB_API arb_joint_type arb_joint_get_type(const arb_world* world, arb_extra_id id);
/// Mouse joint: move its world target (wakes the body). Returns 0, ARB_E_STALE_ID,
/// ARB_E_INVAL (not a mouse joint, non-finite point) or ARB_E_STATE (inside a step).
ARB_API int arb_joint_set_target(arb_world* world, arb_extra_id id, arb_vec2 target);
/// Revolute, prismatic, wheel: change the motor speed (wakes the bodies). Same returns.
ARB_API int arb_joint_set_motor_speed(arb_world* world, arb_extra_id id, float speed);
/// Prismatic and wheel joints: the slide axis in world axes (zero for other types).
ARB_API arb_vec2 arb_joint_get_axis(const arb_world* world, arb_extra_id id);
/// Revolute: B's angle relative to A minus the reference angle (radians, [-pi, pi]);
/// prismatic, wheel: translation of B's anchor along the axis (meters); distance: length.
/// 0 for other types and stale ids.
ARB_API float arb_joint_get_position(const arb_world* world, arb_extra_id id);
/// The linear force the joint applied in the last step (N, >= 0): the linear impulse it
/// gave its bodies over the whole step (point, rod, axis, limit, spring and motor rows; not
/// the angular ones) divided by dt. 0 while its bodies sleep, for a stale id, and after a
/// restore until the next step (an output of the step, not state).
ARB_API float arb_joint_get_force(const arb_world* world, arb_extra_id id);

/// A joint the last step removed because its force exceeded its break_force. The joint id
/// is stale by the time this is read (its slot may be reused by the next joint created).
typedef struct arb_joint_break_event {
  arb_extra_id joint;
  arb_body_id body_a, body_b;  ///< as created (body_b null: the world)
  float force;                 ///< N, the force that broke it (> break_force)
} arb_joint_break_event;

/// Break events of the last step in joint slot order (deterministic). Valid until the next
/// step or restore. Returns the count. Joints break at the end of the solver, so a broken
/// joint held its bodies during that step and is gone from the next one.
ARB_API int arb_world_get_joint_break_events(const arb_world* world,
                                             const arb_joint_break_event** out);

/// Live joints in slot order (as arb_world_get_springs). Writes up to cap ids, returns the
/// total count.
ARB_API int arb_world_get_joints(const arb_world* world, arb_extra_id* out, int cap);

ARB_C_END
