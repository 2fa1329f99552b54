// arbiter — the simulated world: bodies, the fixed step, the state hash, save/restore.
//
// A body carries one shape, or several (a compound body: up to ARB_MAX_BODY_SHAPES, each
// with its own material, filter and sensor flag). Bodies are referred to by
// generation-checked ids. Iteration order everywhere is body slot order (ids and creation
// order), never pointer order.
// Ownership: arb_world_create allocates through the def's allocator; arb_world_destroy
// frees everything. Functions taking a stale or null id do nothing and return an error
// or a zero value.
#pragma once

#include <string.h>

#include "collision.h"
#include "id.h"

ARB_C_BEGIN

typedef struct arb_world arb_world;

/// Memory hooks (per world, not global). Both NULL = malloc/free.
typedef void* arb_alloc_fn(size_t size, void* user);
typedef void arb_free_fn(void* ptr, void* user);

typedef struct arb_world_def {
  arb_vec2 gravity;               ///< m/s^2; default (0, -9.81)
  int substeps;                   ///< solver substeps per step (1..64); default 4. Each substep
                                  ///< runs `solve_iterations` soft solve passes and
                                  ///< `relax_iterations` relax passes over joints and contacts.
  int solve_iterations;           ///< soft (biased) solve passes per substep (1..8); default 1.
                                  ///< More passes converge tall stacks: measured, a 14-box
                                  ///< column keeps about 1/5 of the residual jitter with 8.
  int relax_iterations;           ///< relax (no-bias) passes per substep (1..8); default 1.
                                  ///< Measured: more passes do not reduce stack sink or
                                  ///< jitter in this design (they slightly increase it).
  float restitution_threshold;    ///< m/s; slower impacts do not bounce; default 1. A bounce
                                  ///< never leaves two bodies with more kinetic energy than
                                  ///< they met with (docs/ARCHITECTURE.md, "Bounces and energy")
  float contact_hertz;            ///< contact softness (stiffness) in Hz; default 30
  float contact_damping_ratio;    ///< contact bounciness damping; default 10
  float max_contact_push_speed;   ///< m/s cap on penetration recovery; default 3
  float max_linear_speed;         ///< m/s clamp (keeps the step finite), in every substep and
                                  ///< after restitution: no body is ever faster; default 400
  bool enable_continuous;         ///< default true: fast dynamic bodies do not pass through
                                  ///< static bodies (time of impact) nor through each other
                                  ///< (speculative contacts widened by the relative motion).
                                  ///< false: only `bullet` bodies are swept.
  bool continuous_dynamic;        ///< with enable_continuous: default true, also between
                                  ///< dynamic bodies (their broad-phase boxes cover the motion
                                  ///< ahead and fast pairs get wider speculative contacts).
                                  ///< false: against static bodies only, as Box2D v3's
                                  ///< enableContinuous (bullets still against everything):
                                  ///< cheaper where many bodies move fast, and two fast dynamic
                                  ///< bodies may pass through each other
  bool enable_sleep;              ///< islands at rest fall asleep (see "Sleeping"); default true
  bool enable_contact_recycling;  ///< default true: a contact whose two bodies moved less
                                  ///< than ARB_CONTACT_RECYCLE_DISTANCE relative to each
                                  ///< other since its manifold was computed keeps that
                                  ///< manifold (points, normal, anchors) and only updates
                                  ///< its separations from the bodies' motion, instead of
                                  ///< colliding the shapes again (see "Contact recycling")
  float hit_event_threshold;      ///< m/s: a touching contact whose points had to stop an
                                  ///< approach faster than this reports a hit event; default
                                  ///< 1. An output setting: not state, not hashed or saved.
  int body_capacity;              ///< initial capacity hint (grows as needed)
  int worker_count;               ///< threads that step this world (1..64); default 1. The
                                  ///< results are the same bits for any count (not saved)
  arb_alloc_fn* alloc;
  arb_free_fn* free;
  void* alloc_user;
  int internal_value;  ///< set by arb_default_world_def; DO NOT SET
} arb_world_def;

typedef enum arb_body_type {
  ARB_BODY_DYNAMIC = 0,  ///< default: moved by forces and contacts
  ARB_BODY_STATIC,       ///< never moves, infinite mass
  ARB_BODY_KINEMATIC,    ///< moved only by its velocity, infinite mass
  ARB_BODY_TYPE_COUNT
} arb_body_type;

/// Most shapes one body can carry (a compound body).
#define ARB_MAX_BODY_SHAPES 8

/// A shape a body carries, with its material and collision filter. Its geometry is in the
/// body frame: the shapes of a compound body sit where their vertices and centres put them.
typedef struct arb_shape_def {
  arb_shape_type type;
  ARB_SHAPE_GEOMETRY_UNION;  ///< the member the type names; a chain: static and kinematic
                             ///< bodies only, never a sensor
  float density;             ///< kg/m^2; default 1
  float friction;            ///< default 0.6; mixed as sqrt(fa*fb)
  float restitution;         ///< default 0; mixed as max(ra, rb)
  uint32_t category_bits;    ///< default 1
  uint32_t mask_bits;        ///< default all bits
  int32_t group;             ///< same positive group: always collide; same negative: never
  bool sensor;               ///< no contact response: reports overlaps as sensor events
                             ///< (see "Sensors"); default false. Its density still counts.
} arb_shape_def;

/// The geometry of a shape definition (type + circle/polygon/segment/capsule/chain), without
/// material. A chain's points are not copied: the geometry points at the def's.
static inline arb_shape_geometry arb_shape_def_geometry(const arb_shape_def* def) {
  arb_shape_geometry g;
  g.type = def->type;
  // Both unions are ARB_SHAPE_GEOMETRY_UNION, whose largest member is the polygon: copying its
  // bytes copies whichever member is in use.
  memcpy(&g.polygon, &def->polygon, sizeof g.polygon);
  return g;
}

typedef struct arb_body_def {
  arb_body_type type;
  arb_vec2 position;         ///< world position of the body origin, meters
  float angle;               ///< radians
  arb_vec2 linear_velocity;  ///< m/s of the body origin
  float angular_velocity;    ///< rad/s
  float linear_damping;      ///< per-second rate: v *= 1/(1 + dt*damping) each step
  float angular_damping;     ///< per-second rate
  float gravity_scale;       ///< default 1
  float mass;                ///< kg; > 0 overrides the shapes' densities (scales them)
  bool fixed_rotation;
  bool bullet;            ///< also swept against dynamic bodies (both moving), not only
                          ///< statics; on even when the world's continuous is off
  bool enable_sleep;      ///< may fall asleep with its island; default true
  bool is_awake;          ///< false: created asleep (alone, until touched); default true
  float sleep_threshold;  ///< m/s (speed of its farthest point) below which it may sleep; default
                          ///< 0.05
  uint64_t user_data;     ///< not simulated, not hashed
  arb_shape_def shape;    ///< the body's shape when shape_count is 0
  /// A compound body: shape_count (1..ARB_MAX_BODY_SHAPES) shapes, copied at creation
  /// (`shape` is then ignored). Mass, centre of mass and rotational inertia come from all
  /// of them (parallel axis); sensor shapes add no mass unless every shape is a sensor.
  /// Every pair of shapes of two bodies that pass their filters collides on its own (own
  /// points, own friction and restitution mix). A chain must be a body's only shape.
  const arb_shape_def* shapes;
  int shape_count;
  int internal_value;  ///< set by arb_default_body_def; DO NOT SET
} arb_body_def;

ARB_API arb_world_def arb_default_world_def(void);
ARB_API arb_body_def arb_default_body_def(void);
/// Defaults for the shape part (density 1, friction 0.6, filter: collide with all).
ARB_API arb_shape_def arb_default_shape_def(void);

/// Returns NULL on invalid def or out of memory.
ARB_API arb_world* arb_world_create(const arb_world_def* def);
ARB_API void arb_world_destroy(arb_world* world);

/// Advance by exactly dt seconds (the fixed tick). Not allowed from inside callbacks.
ARB_API void arb_world_step(arb_world* world, float dt);
/// Number of completed steps (part of the simulated state).
ARB_API uint64_t arb_world_get_step_count(const arb_world* world);
ARB_API arb_vec2 arb_world_get_gravity(const arb_world* world);
ARB_API void arb_world_set_gravity(arb_world* world, arb_vec2 gravity);

// ---- sleeping -------------------------------------------------------------------------
//
// Dynamic bodies joined by touching contacts, joints or springs form an island. When every
// body of an island has moved slower than its sleep_threshold for ARB_TIME_TO_SLEEP
// seconds in a row (and no moving kinematic body touches or holds it), the whole island
// falls asleep at the end of the step: velocities become zero and it costs nothing per
// step (not integrated, not solved, its contacts not updated) until something wakes it:
// a touching contact with an awake body, a joint or spring from an awake body, a nonzero
// force, impulse or velocity, a teleport, a changed damping or gravity scale or world
// gravity, static geometry created next to it or moved away from under it, or the
// destruction of a body it touches or is joined to. Waking wakes the whole island and
// restarts its sleep timers. A kinematic body sleeps alone once its velocity has been
// zero for ARB_TIME_TO_SLEEP. Sleeping is part of the simulated state (hash, save).
#define ARB_TIME_TO_SLEEP 0.5f

/// Turning sleeping off wakes every body. Not allowed from inside a step.
ARB_API void arb_world_enable_sleep(arb_world* world, bool enable);
ARB_API bool arb_world_is_sleep_enabled(const arb_world* world);

/// XXH3-64 over a canonical little-endian serialization of all simulated state (the save
/// image's fields minus user data), in which each static or sleeping body's slot stands as
/// the XXH3-64 of its own bytes, so that a body at rest costs 8 bytes a tick.
ARB_API uint64_t arb_world_hash(const arb_world* world);

/// Serialize the whole simulated state into buf. Returns the number of bytes needed;
/// writes nothing when buf is NULL or cap is too small. The image carries a format
/// version and layout hash (format: shared/src/snapshot.c). User data is saved too.
ARB_API int arb_world_save(const arb_world* world, uint8_t* buf, int cap);
/// XXH3-64 of the world image's layout description (in every image, checked by restore):
/// part of the simulation version (arb_game_sim_version).
ARB_API uint64_t arb_world_image_layout(void);
/// Replace the world's state with a saved image. Restore then step gives bit-identical
/// results to never having saved. Returns 0 or ARB_E_* (image untrusted, fully checked).
ARB_API int arb_world_restore(arb_world* world, const uint8_t* buf, int len);

/// Bytes currently allocated by this world (for leak and no-allocation-in-step tests).
ARB_API int64_t arb_world_get_byte_count(const arb_world* world);

// ---- bodies ----------------------------------------------------------------------------

/// Returns the null id on an invalid def (non-finite values, bad shape, bad type, negative
/// damping, a segment or chain on a dynamic body, a dynamic body with no mass). A chain's
/// points are copied: the def's may go away after the call.
ARB_API arb_body_id arb_body_create(arb_world* world, const arb_body_def* def);
/// Destroys the body and its contacts. Allowed between steps.
ARB_API int arb_body_destroy(arb_world* world, arb_body_id id);
ARB_API bool arb_body_is_valid(const arb_world* world, arb_body_id id);

/// Bodies in slot order. Writes up to cap ids, returns the total count.
ARB_API int arb_world_get_bodies(const arb_world* world, arb_body_id* out, int cap);
ARB_API int arb_world_get_body_count(const arb_world* world);

ARB_API arb_body_type arb_body_get_type(const arb_world* world, arb_body_id id);
ARB_API arb_vec2 arb_body_get_position(const arb_world* world, arb_body_id id);
ARB_API arb_rot arb_body_get_rotation(const arb_world* world, arb_body_id id);
ARB_API float arb_body_get_angle(const arb_world* world, arb_body_id id);
ARB_API arb_transform arb_body_get_transform(const arb_world* world, arb_body_id id);
/// Teleport. Wakes the body's island, keeps velocity.
ARB_API void arb_body_set_transform(arb_world* world, arb_body_id id, arb_vec2 position,
                                    float angle);
ARB_API arb_vec2 arb_body_get_world_center(const arb_world* world, arb_body_id id);
ARB_API arb_vec2 arb_body_get_linear_velocity(const arb_world* world, arb_body_id id);
ARB_API void arb_body_set_linear_velocity(arb_world* world, arb_body_id id, arb_vec2 v);
ARB_API float arb_body_get_angular_velocity(const arb_world* world, arb_body_id id);
ARB_API void arb_body_set_angular_velocity(arb_world* world, arb_body_id id, float w);
/// A body's type, transform and velocities, as the getters above give them, behind one id
/// check: for code that reads every body each tick (a snapshot capture).
typedef struct arb_body_motion {
  arb_body_type type;
  arb_transform xf;
  arb_vec2 v;  ///< linear velocity of the centre of mass
  float w;     ///< angular velocity
} arb_body_motion;
/// Returns false (and leaves *out alone) for a stale or null id.
ARB_API bool arb_body_get_motion(const arb_world* world, arb_body_id id, arb_body_motion* out);
/// Velocity of a world point attached to the body.
ARB_API arb_vec2 arb_body_get_point_velocity(const arb_world* world, arb_body_id id,
                                             arb_vec2 world_point);

/// Forces and torques accumulate until the next step, which applies and clears them.
ARB_API void arb_body_apply_force(arb_world* world, arb_body_id id, arb_vec2 force,
                                  arb_vec2 world_point);
ARB_API void arb_body_apply_force_to_center(arb_world* world, arb_body_id id, arb_vec2 force);
ARB_API void arb_body_apply_torque(arb_world* world, arb_body_id id, float torque);
/// Impulses change velocity immediately.
ARB_API void arb_body_apply_linear_impulse(arb_world* world, arb_body_id id, arb_vec2 impulse,
                                           arb_vec2 world_point);
ARB_API void arb_body_apply_angular_impulse(arb_world* world, arb_body_id id, float impulse);

ARB_API float arb_body_get_mass(const arb_world* world, arb_body_id id);
/// 0 for static and kinematic bodies (infinite mass).
ARB_API float arb_body_get_inverse_mass(const arb_world* world, arb_body_id id);
/// About the center of mass.
ARB_API float arb_body_get_rotational_inertia(const arb_world* world, arb_body_id id);
/// The body's first shape (its only one unless it is a compound body).
ARB_API const arb_shape_def* arb_body_get_shape(const arb_world* world, arb_body_id id);
/// Number of shapes of the body (1..ARB_MAX_BODY_SHAPES; 0 for a stale id).
ARB_API int arb_body_get_shape_count(const arb_world* world, arb_body_id id);
/// Shape i (0..count-1) of the body, in the body frame; NULL when out of range.
ARB_API const arb_shape_def* arb_body_get_shape_at(const arb_world* world, arb_body_id id, int i);
ARB_API arb_aabb arb_body_get_aabb(const arb_world* world, arb_body_id id);
ARB_API uint64_t arb_body_get_user_data(const arb_world* world, arb_body_id id);
ARB_API void arb_body_set_user_data(arb_world* world, arb_body_id id, uint64_t user_data);
ARB_API void arb_body_set_damping(arb_world* world, arb_body_id id, float linear, float angular);
ARB_API void arb_body_set_gravity_scale(arb_world* world, arb_body_id id, float scale);

/// False while the body's island sleeps (static bodies: false).
ARB_API bool arb_body_is_awake(const arb_world* world, arb_body_id id);
/// Wakes the body's whole island (nothing for an awake or static body).
ARB_API void arb_body_wake(arb_world* world, arb_body_id id);
/// Disabling sleep for a body wakes its island and keeps it awake.
ARB_API void arb_body_enable_sleep(arb_world* world, arb_body_id id, bool enable);
ARB_API bool arb_body_is_sleep_enabled(const arb_world* world, arb_body_id id);

/// A contact touching the body, as seen from it: normal points away from this body.
typedef struct arb_contact_data {
  arb_body_id other;
  arb_vec2 normal;       ///< unit, from this body towards the other
  arb_vec2 points[2];    ///< world
  float separations[2];  ///< meters
  float normal_impulses[2];
  int point_count;
  int shape, other_shape;  ///< which shape of this body and of the other (compound bodies)
} arb_contact_data;

/// Touching contacts of a body after the last step (deterministic order), one per pair of
/// shapes that touch. Returns total count.
ARB_API int arb_body_get_contacts(const arb_world* world, arb_body_id id, arb_contact_data* out,
                                  int cap);

/// A pair of shapes of two bodies that started or stopped touching (a point within
/// ARB_SPECULATIVE_DISTANCE) during the last step. Two compound bodies may report several
/// pairs at once, one per pair of their shapes.
typedef struct arb_contact_event {
  arb_body_id a, b;
  int shape_a, shape_b;  ///< which shape of a and of b (0 for single-shape bodies)
} arb_contact_event;

/// Begin/end touch events of the last step, in contact order (deterministic: the same
/// events in the same order in every build and after save/restore). Every begin is
/// followed, in a later step, by exactly one end for the same pair: when the bodies part,
/// when their proxies stop overlapping, or when one of them is destroyed (those ends are
/// reported after the next step, first, and carry the destroyed body's now stale id).
/// The arrays stay valid until the next step or body destruction. Returns the count.
/// Events are outputs only: reading them (or not) changes nothing in the simulation.
ARB_API int arb_world_get_begin_touch_events(const arb_world* world, const arb_contact_event** out);
ARB_API int arb_world_get_end_touch_events(const arb_world* world, const arb_contact_event** out);

/// A contact that had to stop an approach faster than the world's hit_event_threshold in
/// the last step (an impact: damage, sounds). approach_speed is the fastest normal
/// approach one of its points stopped (m/s, > threshold), point that point (world),
/// normal from a towards b.
typedef struct arb_contact_hit_event {
  arb_body_id a, b;
  arb_vec2 point;
  arb_vec2 normal;
  float approach_speed;
} arb_contact_hit_event;

/// Hit events of the last step, in contact order (deterministic), at most one per contact.
/// Valid until the next step. Returns the count.
ARB_API int arb_world_get_hit_events(const arb_world* world, const arb_contact_hit_event** out);
/// The hit event threshold (m/s, >= 0; not state: a restore keeps the world's own).
ARB_API void arb_world_set_hit_event_threshold(arb_world* world, float speed);

// ---- sensors ---------------------------------------------------------------------------
//
// A shape with `sensor` set is in the broad phase but never touches anything: it gets no
// contacts (nothing pushes it, it pushes nothing, continuous collision and ray casts pass
// through it) and instead reports which bodies overlap it. At the end of every step each
// sensor shape finds the dynamic and kinematic bodies (not static ones) with a shape that
// is not a sensor, passes its collision filter (category, mask, group) and is within
// ARB_LINEAR_SLOP of it (GJK distance); a body with sensor shapes (a sensor body) compares
// the bodies its sensor shapes see with the last step's: a new overlap is a begin event,
// a lost one an end event (per pair of bodies: a visitor seen by two sensor shapes of one
// body is one overlap). A destroyed visitor or sensor
// ends its overlaps in the next step (the event carries the now stale id). The overlaps
// are state (hashed and saved, only when there are any), so a restored world reports the
// same events. A sensor on a sleeping body still reports (nothing moves, nothing changes).

/// A sensor and a body that started or stopped overlapping it in the last step.
typedef struct arb_sensor_event {
  arb_body_id sensor;
  arb_body_id visitor;
} arb_sensor_event;

/// Sensor begin/end events of the last step, ordered by (sensor id, visitor id): the same
/// in every build and after save/restore. Every begin is followed, in a later step, by
/// exactly one end for the same pair. Valid until the next step or restore. Returns the
/// count. Reading them (or not) changes nothing in the simulation.
ARB_API int arb_world_get_sensor_begin_events(const arb_world* world, const arb_sensor_event** out);
ARB_API int arb_world_get_sensor_end_events(const arb_world* world, const arb_sensor_event** out);
/// Bodies overlapping a sensor body after the last step, in id order (a stale id for a
/// visitor destroyed since). Writes up to cap ids (out may be NULL), returns the total count
/// (0 for a body without sensor shapes).
ARB_API int arb_sensor_get_overlaps(const arb_world* world, arb_body_id sensor, arb_body_id* out,
                                    int cap);

/// Bodies whose AABB overlaps `box`, in slot order. Writes up to cap ids, returns the total.
ARB_API int arb_world_query_aabb(const arb_world* world, arb_aabb box, arb_body_id* out, int cap);

/// Closest body hit by a ray (origin + fraction * translation, fraction in [0, 1]); rays
/// pass through sensors.
typedef struct arb_ray_result {
  arb_body_id body;  ///< null when nothing was hit
  arb_vec2 point, normal;
  float fraction;
} arb_ray_result;
ARB_API arb_ray_result arb_world_cast_ray(const arb_world* world, arb_vec2 origin,
                                          arb_vec2 translation);

/// Sizes of the world after the last step, for metrics and benchmarks (not state).
typedef struct arb_world_counters {
  int body_count;
  int contact_count;       ///< shape pairs whose boxes meet (fat AABBs; each shape of a
                           ///< compound body by its own box)
  int touching_count;      ///< contacts with manifold points (solved)
  int static_tree_height;  ///< broad-phase tree heights (balance check)
  int dynamic_tree_height;
  int64_t byte_count;    ///< same as arb_world_get_byte_count
  int64_t arena_bytes;   ///< per-step arena capacity (part of byte_count)
  int awake_body_count;  ///< dynamic and kinematic bodies not asleep
  int sleeping_body_count;
  // Work done by the last step (what sleeping saves):
  int step_collided_contacts;  ///< contacts whose manifold was recomputed
  int step_recycled_contacts;  ///< contacts whose manifold was kept (contact recycling)
  int step_solved_contacts;    ///< touching contacts in the solver
  int step_solved_bodies;      ///< bodies integrated
  int step_island_count;       ///< islands built for the sleep check (0 when none was sleepy)
} arb_world_counters;
ARB_API arb_world_counters arb_world_get_counters(const arb_world* world);

/// How many contact constraints the solver runs at once on this CPU: 8 (AVX2, x86-64) or
/// 4 (SSE2, or portable C); ARBITER_SIMD=sse2 in the environment forces 4. The results are
/// the same bits either way (docs/DETERMINISM.md); this is for reports and logs.
ARB_API int arb_contact_solver_lanes(void);

ARB_C_END
