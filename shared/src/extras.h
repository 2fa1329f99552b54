// arbiter — internal state of the physics extras (springs, joints, Verlet particles,
// vehicles) hanging off arb_world.extras. Not a public header.
//
// DETERMINISM-CRITICAL: every array is iterated in slot (creation) order. Objects refer to
// bodies by generation-checked id and look them up every step: a destroyed body makes its
// springs, joints and vehicles inactive, never dangling.
//
// Step hooks (world.c, contact_solver.c):
//   arb__extras_pre_solve    springs and vehicles write the body force accumulators
//   arb__joints_*            joints inside the solver's substep loop (before contacts)
//   arb__extras_post_step    after finalize and continuous collision: the Verlet
//                            particles (they read the final body poses)
// Serialization (extras_io.c, called by world_codec.c) writes nothing when there are no
// extras, so worlds without them hash and save exactly as before.
#pragma once

#include "arbiter/joint.h"
#include "arbiter/particles.h"
#include "arbiter/vehicle.h"
#include "world.h"

typedef struct arb__spring {
  uint32_t generation;
  uint8_t in_use;
  arb_body_id body_a, body_b;
  arb_vec2 local_a, local_b;
  float rest_length, stiffness, damping;
} arb__spring;

typedef struct arb__joint {
  uint32_t generation;
  uint8_t in_use;
  uint8_t type;   // arb_joint_type
  uint8_t flags;  // ARB__JOINT_LIMIT | ARB__JOINT_MOTOR | ARB__JOINT_SPRING
  arb_body_id body_a, body_b;
  arb_vec2 local_a, local_b;  // body frames (origin-relative), or world point for b
  float length, hertz, damping_ratio;
  // Parameters of the types after the revolute and of the limit, motor and spring.
  arb_vec2 local_axis;  // prismatic, wheel: unit axis in A's frame
  float reference_angle, lower, upper, motor_speed, max_motor, max_force, max_torque;
  float correction;   // motor joint: correction factor
  float break_force;  // N; 0 = unbreakable (state: hashed only when set)
  // Accumulated impulses (warm start), state. `impulse` is the point constraint (revolute,
  // weld, motor, mouse), the rod (distance, x) or the perpendicular and angular rows
  // (prismatic x, y; wheel x).
  arb_vec2 impulse;
  float angular_impulse, spring_impulse, motor_impulse, lower_impulse, upper_impulse;
  // Solver scratch, rebuilt by prepare every step (not state); the rest is in arb__jrun.
  uint8_t active;         // both bodies alive this step
  arb_vec2 axis;          // local_axis in world axes at step start
  float delta_angle;      // B's angle - A's - reference_angle at step start, in [-pi, pi]
  arb_vec2 step_impulse;  // linear impulse applied to B over the whole step (its force * dt)
} arb__joint;

// What every pass of the joint solver reads and writes for one joint, packed (64 bytes,
// one cache line) in an array of the step's solvable joints in colour order, so the
// substep passes and the projection stream through it instead of the whole joints.
// Rebuilt by prepare every step (not state): `impulse` is the joint's, copied in at
// prepare and back with `step_impulse` after the substeps (arb__joints_store).
typedef struct arb__jrun {
  int32_t ia, ib;  // body slots or -1 (world / static / stale)
  float ma, mb, iA, iB;
  arb_vec2 ra, rb;        // anchors relative to the centres of mass at step start
  arb_vec2 delta_center;  // cB - cA at step start (world anchor: its point - cA)
  arb_vec2 impulse;
  arb_vec2 step_impulse;
} arb__jrun;

// A revolute joint with a limit, motor or spring (ARB__JRUN_REVOLUTE) as its rows read it,
// beside its arb__jrun (same index): the parameters, what prepare can work out
// once per step (the angular row's mass, the spring's softness, the motor's impulse cap)
// and the rows' accumulated impulses, copied in at prepare and back at arb__joints_store.
typedef struct arb__jrev {
  float angular_mass;  // the angular row's (arb__angular_row)
  // The spring's arb__make_softness at the substep, and the motor's cap: max_motor * h.
  float spring_bias_rate, spring_mass_scale, spring_impulse_scale;
  float motor_speed, max_motor_impulse;
  float lower, upper, delta_angle;
  float spring_impulse, motor_impulse, lower_impulse, upper_impulse;
  uint8_t flags;  // the joint's ARB__JOINT_*
} arb__jrev;

typedef struct arb__particle {
  arb_vec2 p, prev;
  float inv_mass;  // 0 = pinned
  float mass;
  float radius;
  float damping;
  uint32_t mask_bits;
} arb__particle;

typedef struct arb__constraint {
  int32_t a, b;
  float rest, stiffness;
} arb__constraint;

typedef struct arb__wheel {
  arb_wheel_def def;
  float spin;    // rad/s, state
  float steer;   // radians, state (from the last step's input)
  uint8_t skid;  // state (reported, hashed)
} arb__wheel;

typedef struct arb__vehicle {
  uint32_t generation;
  uint8_t in_use;
  arb_body_id chassis;
  int32_t wheel_count;
  float max_steer, friction, ground_gravity, rolling, drag;
  float steer_in, throttle_in, brake_in;  // held input, state
  arb__wheel wheels[ARB_VEHICLE_MAX_WHEELS];
} arb__vehicle;

// Memory for one element per body slot (grown when bodies were added).
typedef struct arb__body_scratch {
  void* mem;
  int32_t cap;  // elements
} arb__body_scratch;

typedef struct arb__extras {
  // Each kind's slots, with the lowest slot that may be free (every slot below it is in
  // use; not state, 0 after a restore): a create takes the lowest free slot, found from
  // there instead of from slot 0, so creating n joints costs O(n), not O(n^2).
  arb__spring* springs;
  int32_t spring_slots, spring_cap, spring_free;
  arb__joint* joints;
  int32_t joint_slots, joint_cap, joint_free;
  arb__vehicle* vehicles;
  int32_t vehicle_slots, vehicle_cap, vehicle_free;
  arb__particle* particles;
  int32_t particle_count, particle_cap;
  arb__constraint* constraints;
  int32_t constraint_count, constraint_cap;
  int32_t constraint_iterations;
  float last_dt;  // dt of the last step with particles (their velocities), state; 0 without
  // Joint solver scratch (not state).
  float joint_bias_rate, joint_mass_scale, joint_impulse_scale, joint_max_push;
  // The step's solvable joints in colour order, slot order within a colour (64-byte
  // aligned in jrun_mem, which also holds jrun_spare: prepare sorts into it and swaps).
  arb__jrun *jrun, *jrun_spare;
  arb__jrev* jrev;  // per jrun entry of a revolute with rows (after colouring), in jrun_mem
  void* jrun_mem;
  int32_t *jrun_tag, *jrun_tag_spare;  // per jrun entry: joint slot * 4 + ARB__JRUN_* kind
  int32_t* jrun_tag_mem;               // holds jrun_tag and jrun_tag_spare
  uint8_t* jrun_open;                  // per jrun entry: the projection's last visit found it off
  uint8_t* jrun_color;                 // per jrun entry, slot order: its colour (prepare)
  arb__body_scratch body_moved;        // uint8_t per body slot: 1 + the projection pass that
                                       // last moved it, 0: none
  arb__body_scratch body_colors;       // uint32_t per body slot: its joints' colours so far
  int32_t jrun_count, jrun_cap;
  // Per body slot: how many live joints and springs name that slot as an end (whatever the
  // id's generation), so that destroying a body scans the constraints only when one may
  // name it (arb__constraint_may_name). Not state: built on demand, dropped by every
  // create (a release lowers it; a break leaves it high, which only costs a scan).
  int32_t* end_refs;
  int32_t end_refs_count;  // body slots counted; 0: to be built
  int32_t end_refs_cap;
} arb__extras;

#define ARB__JOINT_LIMIT 1u
#define ARB__JOINT_MOTOR 2u
#define ARB__JOINT_SPRING 4u

#define ARB__MAX_EXTRAS (1 << 20)
#define ARB__DEFAULT_CONSTRAINT_ITERATIONS 8

arb__extras* arb__extras_get(arb_world* w);  // creates on first use (NULL on no memory)
void arb__extras_free(arb_world* w);
void arb__extras_release(arb_world* w, arb__extras* x);  // frees a detached extras block
bool arb__extras_empty(const arb__extras* x);

void arb__extras_pre_solve(arb_world* w, float dt);
void arb__extras_post_step(arb_world* w, float dt);

// joint_solver.c (called from contact_solver.c's arb__solve)
void arb__joints_prepare(arb_world* w, float dt, float h);
void arb__joints_warm_start(arb_world* w);
void arb__joints_solve(arb_world* w, float h, bool use_bias);
void arb__joints_store(arb_world* w);  // after the substeps: impulses back to the joints
// world.c, between the solver and finalize: position projection of rigid joints.
void arb__joints_project(arb_world* w);
// joint.c's arb__joints_break, when joints broke: they leave the step's solver array.
void arb__joints_drop_inactive(arb_world* w);
// world.c, right after the solver (before the projection): joints whose force exceeded
// their break force are removed and reported (w->joint_breaks).
void arb__joints_break(arb_world* w, float dt);

// spring.c / vehicle.c / particles.c
void arb__springs_apply(arb_world* w);
void arb__vehicles_apply(arb_world* w, float dt);
void arb__particles_step(arb_world* w, float dt);

// ---- slots of springs, joints and vehicles ---------------------------------------------
// Each of these objects starts with `uint32_t generation; uint8_t in_use;` and is named by
// an arb_extra_id {slot + 1, generation}.

/// Grow `arr` so that `slot` (the lowest free slot, or *slots for a new one) exists, a new
/// slot zeroed. Returns the array (it may have moved); *ok = false when full or out of memory.
void* arb__extra_slot_room(arb_world* w, void* arr, int32_t* slots, int32_t* cap, size_t elem,
                           int slot, bool* ok);
/// Claim the lowest free slot (DET) of an extras array: zeroed, next generation, in use.
/// `slot` is set to its index, or -1 when full or out of memory. The search starts at
/// `free_hint` (the kind's lowest slot that may be free, in arb__extras), which then moves
/// past the claimed slot; whatever frees a slot calls arb__extra_freed.
#define ARB__EXTRA_CLAIM(w, arr, slots, cap, free_hint, slot)                                \
  do {                                                                                       \
    bool ok_;                                                                                \
    ARB_ASSERT((free_hint) == 0 ||                                                           \
               arb__extra_all_used(&(arr)[0].in_use, sizeof *(arr), (free_hint)));           \
    (slot) = (free_hint);                                                                    \
    while ((slot) < (slots) && (arr)[(slot)].in_use) ++(slot);                               \
    (arr) = arb__extra_slot_room((w), (arr), &(slots), &(cap), sizeof *(arr), (slot), &ok_); \
    if (!ok_) {                                                                              \
      (slot) = -1;                                                                           \
      break;                                                                                 \
    }                                                                                        \
    uint32_t gen_ = (arr)[(slot)].generation + 1;                                            \
    memset(&(arr)[(slot)], 0, sizeof *(arr));                                                \
    (arr)[(slot)].generation = gen_ ? gen_ : 1;                                              \
    (arr)[(slot)].in_use = 1;                                                                \
    (free_hint) = (slot) + 1;                                                                \
  } while (0)
/// A slot of a kind was freed: the lowest free slot may now be below the hint.
static inline void arb__extra_freed(int32_t* free_hint, int slot) {
  if (slot < *free_hint) *free_hint = slot;
}
#if ARB_ASSERT_ENABLED
/// Whether the first n slots are in use (in_use: slot 0's flag; stride: element size).
static inline bool arb__extra_all_used(const uint8_t* in_use, size_t stride, int n) {
  for (int i = 0; i < n; ++i)
    if (!in_use[(size_t)i * stride]) return false;
  return true;
}
#endif
/// Destroy: free the slot whose in_use flag this is (NULL: the id was stale). Returns 0,
/// ARB_E_INVAL (no world), ARB_E_STATE (inside a step) or ARB_E_STALE_ID.
int arb__extra_release(arb_world* w, uint8_t* in_use);
/// Reports a stale, null or foreign extras id (a programmer error: asserts) and gives NULL.
void* arb__extra_stale(void);
/// The live object an extras id names in x->arr, or arb__extra_stale().
#define ARB__EXTRA_GET(x, arr, slots, id)                                                     \
  ((x) && (id).index1 > 0 && (id).index1 <= (x)->slots && (x)->arr[(id).index1 - 1].in_use && \
           (x)->arr[(id).index1 - 1].generation == (id).generation                            \
       ? &(x)->arr[(id).index1 - 1]                                                           \
       : arb__extra_stale())

/// The ids of the live objects in x->arr, in slot order, into out[0..cap) (out may be NULL);
/// `n` receives how many there are (all of them, also beyond cap). x may be NULL.
#define ARB__EXTRA_IDS(x, arr, slots, out, cap, n)                                            \
  do {                                                                                        \
    (n) = 0;                                                                                  \
    for (int i_ = 0; (x) && i_ < (x)->slots; ++i_) {                                          \
      if (!(x)->arr[i_].in_use) continue;                                                     \
      if ((out) && (n) < (cap)) (out)[(n)] = (arb_extra_id){i_ + 1, (x)->arr[i_].generation}; \
      (n) += 1;                                                                               \
    }                                                                                         \
  } while (0)

/// The lookups of one kind of extra kept in x->arr (x->slots slots of x->cap, lowest free
/// slot hint x->free_hint), written once for joints, springs and vehicles:
///   arb__<kind>_claim    create's common part: the zeroed object in the lowest free slot
///                        (*slot its index; ARB__EXTRA_CLAIM), or NULL when full or out of
///                        memory
///   arb__<kind>_get      the live object an id names, or arb__extra_stale()
///   arb__<kind>_release  destroy's common part: frees the slot of the live object the id
///                        names and returns it (its fields still readable), or NULL with
///                        *err the arb__extra_release error
///   arb__<kind>_ids      the ids of the live objects in slot order, as ARB__EXTRA_IDS
///   arb_<kind>_destroy   the public destroy: release, then arb__<kind>_destroyed(w, o),
///                        which the kind defines before this (what else goes with it)
#define ARB__EXTRA_LOOKUPS(type, kind, arr, slots, cap, free_hint)               \
  static type* arb__##kind##_claim(arb_world* w, int* slot) {                    \
    arb__extras* x = arb__extras_get(w);                                         \
    if (!x) return NULL;                                                         \
    ARB__EXTRA_CLAIM(w, x->arr, x->slots, x->cap, x->free_hint, *slot);          \
    return *slot < 0 ? NULL : &x->arr[*slot];                                    \
  }                                                                              \
  static type* arb__##kind##_get(const arb_world* w, arb_extra_id id) {          \
    const arb__extras* x = w ? w->extras : NULL;                                 \
    return ARB__EXTRA_GET(x, arr, slots, id);                                    \
  }                                                                              \
  static type* arb__##kind##_release(arb_world* w, arb_extra_id id, int* err) {  \
    type* o = w && !w->locked ? arb__##kind##_get(w, id) : NULL;                 \
    *err = arb__extra_release(w, o ? &o->in_use : NULL);                         \
    if (*err) return NULL;                                                       \
    arb__extra_freed(&w->extras->free_hint, (int)(o - w->extras->arr));          \
    return o;                                                                    \
  }                                                                              \
  static int arb__##kind##_ids(const arb_world* w, arb_extra_id* out, int cap) { \
    int n;                                                                       \
    const arb__extras* x = w ? w->extras : NULL;                                 \
    ARB__EXTRA_IDS(x, arr, slots, out, cap, n);                                  \
    return n;                                                                    \
  }                                                                              \
  int arb_##kind##_destroy(arb_world* w, arb_extra_id id) {                      \
    ARB__CHECK_WORLD(w);                                                         \
    ARB__CHECK_MUTABLE(w);                                                       \
    int err;                                                                     \
    type* o = arb__##kind##_release(w, id, &err);                                \
    if (!o) return err;                                                          \
    arb__##kind##_destroyed(w, o);                                               \
    return 0;                                                                    \
  }

/// The public create of a kind of extra, written once: the def must come from
/// arb_default_<kind>_def and pass arb__<kind>_def_ok, then the lowest free slot is claimed
/// (arb__<kind>_claim) and the kind fills the zeroed object from the def with
/// arb__<kind>_created (defined before this). The null id when refused or full.
#define ARB__EXTRA_CREATE(type, kind, cookie)                                   \
  arb_extra_id arb_##kind##_create(arb_world* w, const arb_##kind##_def* def) { \
    ARB__CHECK_DEF(def, cookie);                                                \
    ARB__CHECK_WORLD(w);                                                        \
    ARB__CHECK_MUTABLE(w);                                                      \
    arb_extra_id none = {0, 0};                                                 \
    if (!w || w->locked || !def || !arb__##kind##_def_ok(w, def)) return none;  \
    int slot;                                                                   \
    type* o = arb__##kind##_claim(w, &slot);                                    \
    if (!o) return none;                                                        \
    arb__##kind##_created(w, o, def);                                           \
    arb_extra_id id = {slot + 1, o->generation};                                \
    return id;                                                                  \
  }

// island.c: a constraint was added or removed between these bodies (either may be null):
// wake both islands and restart their sleep timers.
void arb__wake_ids(arb_world* w, arb_body_id a, arb_body_id b);

// Lookups shared by the extras.
int arb__body_slot(const arb_world* w, arb_body_id id);  // live slot or -1
/// Whether a live joint or spring may name body slot `body` as an end (false: surely none).
bool arb__constraint_may_name(arb_world* w, int body);
/// A joint or spring with ends a and b was created (drops the end counts) or released
/// (lowers them); either way both ends wake (arb__wake_ids).
void arb__constraint_ends_created(arb_world* w, arb_body_id a, arb_body_id b);
void arb__constraint_ends_released(arb_world* w, arb_body_id a, arb_body_id b);
void arb__collect_bodies(const arb_world* w, arb_aabb box, int32_t* out, int* count, int cap);

// extras_io.c: the extras section of the canonical state, one visitor per record kind
// (the same code writes the hash and the save image and reads an image back). Writing
// an empty or NULL *x writes nothing; reading with no bytes left gives *x = NULL, else a
// detached block (release it with arb__extras_release unless committed).
void arb__extras_codec(arb_codec* c, arb_world* w, arb__extras** x);
/// Replace the world's extras with `x` (may be NULL). Cannot fail.
void arb__extras_commit(arb_world* w, arb__extras* x);

// The outs of arb_spring_get_bodies / arb_joint_get_bodies: the attachment when found (a
// live object), zeros otherwise. Returns 0 or ARB_E_STALE_ID.
static inline int arb__attachment_out(bool found, arb_body_id a, arb_body_id b, arb_vec2 la,
                                      arb_vec2 lb, arb_body_id* body_a, arb_body_id* body_b,
                                      arb_vec2* local_a, arb_vec2* local_b) {
  static const arb_body_id none = {0, 0};
  if (body_a) *body_a = found ? a : none;
  if (body_b) *body_b = found ? b : none;
  if (local_a) *local_a = found ? la : arb_vec2_zero;
  if (local_b) *local_b = found ? lb : arb_vec2_zero;
  return found ? 0 : ARB_E_STALE_ID;
}
/// The whole of arb_spring_get_bodies / arb_joint_get_bodies for a looked-up object (NULL: stale).
#define ARB__ATTACHMENT_OUT(obj, out_ba, out_bb, out_la, out_lb)                                   \
  ((obj) ? arb__attachment_out(true, (obj)->body_a, (obj)->body_b, (obj)->local_a, (obj)->local_b, \
                               out_ba, out_bb, out_la, out_lb)                                     \
         : arb__attachment_out(false, (arb_body_id){0, 0}, (arb_body_id){0, 0}, arb_vec2_zero,     \
                               arb_vec2_zero, out_ba, out_bb, out_la, out_lb))
