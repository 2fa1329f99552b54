// arbiter — internal world layout shared by world.c, body.c, contact.c, broad_phase.c,
// contact_solver.c, world_codec.c, hash.c and snapshot.c. Not a public header.
//
// DETERMINISM-CRITICAL: every array here is iterated in index order only; the order of
// elements depends only on the order of API calls (creation, destruction) and on the
// simulation, never on pointer values, hash-table layout or time.
//
// ---- The step pipeline (arb_world_step) -------------------------------------------------
//
//   1. arena reset     grow the per-step stack arena to the high-water mark of the last
//                      step (the only allocation; none once the scene has warmed up).
//   2. update pairs    broad_phase.c: every body whose fat AABB changed since the last
//                      step (flag `moved`, set by creation, teleport or finalize) queries
//                      the AABB trees; new pairs are sorted by (lower slot, higher slot) and
//                      appended to the contact array in that order.
//   3. collide         contact.c: for each contact in array order, destroy it when the fat
//                      AABBs stopped overlapping, else recompute the manifold and carry the
//                      impulses of matching feature ids (warm starting). Begin/end touch
//                      events are recorded here (hit events after the solve, in
//                      contact_solver.c's arb__store_impulses). With continuous on, the
//                      speculative margin of a pair grows with the pair's relative motion
//                      over the step. A pair whose bounding circles are farther apart
//                      than its margin gets no points without a collide call.
//   4. solve           contact_solver.c: colour the touching contacts (greedy, contact
//                      order) and pack them 4 per wide constraint, apply the
//                      accumulated forces (once, dt*F/m), then `substeps` times:
//                      integrate velocities (gravity, damping) -> warm start -> solve with
//                      soft bias (`solve_iterations` times) -> integrate positions -> relax (no
//                      bias, `relax_iterations` times); then restitution and store impulses back
//                      into the contacts.
//   5. finalize        world.c: transforms from the substep deltas, clear force/torque,
//                      tight AABBs; a body leaving its fat AABB gets a new one and `moved`;
//                      sleep timers. With continuous on, the box a dynamic body is checked
//                      against is its tight box stretched by its motion over the next step
//                      (v*dt), so the pairs a fast body will meet exist before it gets there.
//   6. continuous      ccd.c: an awake dynamic body that moved further than a fraction of
//                      its size is swept against static bodies (time of impact) and put back
//                      where it first touches; bullets also against dynamic bodies, both
//                      moving. A sleeping body is never swept; one a bullet hits wakes with
//                      its island at the end of the step.
//   7. sleep           island.c: islands whose bodies all stayed slow for
//                      ARB_TIME_TO_SLEEP fall asleep. While any body sleeps, steps 2-6 run
//                      over the awake bodies and their contacts only (lists in ascending
//                      slot / contact order, so the order of the work is unchanged), and
//                      contacts with manifold points between an awake body and a sleeping
//                      one wake its island between steps 3 and 4. Islands are joined by
//                      touching contacts only (a point within ARB_SPECULATIVE_DISTANCE): the
//                      wider speculative points of fast motion do not tie a resting island
//                      to a body passing by.
//
// Extension points (joints, springs, particles, vehicles):
//   - A joint is another constraint kind solved inside the same substep loop: add a
//     prepare_joints() beside prepare_contacts(), and call warm_start/solve/relax for joints
//     before the contacts in contact_solver.c (joints first, contacts last: contacts are
//     the hard limits). Joints use the same body state array (v, w, dp, dq) and softness.
//   - Springs and vehicles are force generators: they run before step 4 and write into the
//     body force/torque accumulators (or a dedicated pass right before the substep loop).
//   - Verlet particles are a separate array stepped after finalize; they may read body
//     transforms but must not write them.
//   Every new piece of state must be added to its record's visitor in world_codec.c (or
//   extras_io.c): one arb_codec_* call serves the hash, the save image and restore, or
//   restore+step stops being bit-exact (arbiter/state_codec.h says how).
#pragma once

#include <string.h>

#include "arbiter/state_codec.h"
#include "arbiter/world.h"
#include "shape.h"

// Margin added around a body's tight AABB for its broad-phase proxy: small enough that
// few false pairs appear, large enough that resting bodies never touch the tree. A body
// gets an eighth of its extent up to this (arb__proxy_margin in body.c).
#define ARB__AABB_MARGIN 0.1f
#define ARB__AABB_MARGIN_FRACTION 0.125f
// Rotation per substep is clamped to this (keeps the small-angle integrator sane).
#define ARB__MAX_ROTATION (0.25f * ARB_PI)
#define ARB__NULL (-1)
// Hard limits that also bound what arb_world_restore accepts.
#define ARB__MAX_BODIES (1 << 22)
#define ARB__MAX_CONTACTS (1 << 24)
#define ARB__MAX_SUBSTEPS 64
#define ARB__MAX_ITERATIONS 8  // solve_iterations, relax_iterations

// Asks the CPU to start loading *p now, for a pass that will read it a few items later:
// the passes over contacts jump to bodies and contacts that are far apart in memory. A
// hint only: the results are the same with it or without it.
#if defined(__GNUC__) || defined(__clang__)
#define ARB__PREFETCH(p) __builtin_prefetch(p)
#else
#define ARB__PREFETCH(p) ((void)(p))
#endif
#define ARB__PREFETCH_AHEAD 8  // items: far enough ahead to hide a miss behind the work
// Tag of the optional settings record that follows the contacts in the canonical state
// (world_codec.c); written only when solve_iterations or relax_iterations != 1, so the
// state (and every hash) of a default world is byte-identical to before these settings.
#define ARB__ITER_TAG 0x52455449u  // "ITER"
// Tag of the optional record after it (world_codec.c): present (no payload) only when
// enable_continuous is false, so a default world's layout has no extra bytes.
#define ARB__DISCRETE_TAG 0x43534944u  // "DISC"
// Tag of the optional record after it: present (no payload) only when continuous_dynamic
// is false (continuous collision against static bodies only).
#define ARB__STATIC_CCD_TAG 0x41545343u  // "CSTA"
// Tag of the optional record after that: present (no payload) only when
// enable_contact_recycling is true. A world with it false never has a contact with the
// recycling cache, so its state has the bytes (and hashes) of worlds from before
// recycling, and an image from then restores a world without recycling.
#define ARB__RECYCLE_TAG 0x43594352u  // "RCYC"

// ---- programmer errors at the public entry points ---------------------------------------
//
// Box2D style: the entry asserts, then fails softly exactly as a release build does (the
// documented default or error code), so a debug build stops at the bug and a release
// build carries on. Only for what a caller's bug can cause, never for bytes from a file
// or the network (arb_world_restore returns errors for those).
#define ARB__CHECK_WORLD(w) ARB_ASSERT((w) != NULL && "null world")
// A change to the world from inside arb_world_step (a worker, or a hook of the caller's
// running on one) would race with the step: refused with ARB_E_STATE or ignored.
#define ARB__CHECK_MUTABLE(w) ARB_ASSERT(((w) == NULL || !(w)->locked) && "world is inside a step")
// A definition must come from arb_default_*_def (world and body defs share this cookie).
#define ARB__DEF_COOKIE 0x4152424e  // "ARBN"
#define ARB__CHECK_DEF(def, cookie) \
  ARB_ASSERT((def) != NULL && (def)->internal_value == (cookie) && "def not from arb_default_*_def")

// ---- memory -----------------------------------------------------------------------------

void* arb__alloc(arb_world* w, size_t size);
void arb__free(arb_world* w, void* ptr);
/// Grow an array to new_cap elements (copying old_cap), freeing the old block.
void* arb__grow(arb_world* w, void* old, int old_cap, int new_cap, size_t elem);

// Per-step LIFO arena. Allocations beyond the arena's capacity fall back to the heap for
// this step and raise the high-water mark; the next step starts with a larger arena.
#define ARB__STACK_MAX_ENTRIES 32
typedef struct arb__stack_entry {
  void* ptr;
  size_t size;
  bool heap;
} arb__stack_entry;

typedef struct arb__stack {
  uint8_t* data;
  size_t capacity;
  size_t top;
  size_t high_water;
  int count;
  arb__stack_entry entries[ARB__STACK_MAX_ENTRIES];
} arb__stack;

void* arb__stack_alloc(arb_world* w, size_t size);
void arb__stack_free(arb_world* w, void* ptr);

// ---- bodies -----------------------------------------------------------------------------

// Solver-hot per-body data, one entry per body slot (static bodies keep v = w = 0 and
// are never written with anything but their own value since their inverse mass is 0).
typedef struct arb__body_state {
  arb_vec2 v;
  float w;
  uint32_t flags;  // unused, keeps the struct at 32 bytes
  arb_vec2 dp;     // position change of the centre of mass during this step
  arb_rot dq;      // rotation change during this step
} arb__body_state;

// Per-body constants the integrators read, compact for cache use.
typedef struct arb__body_sim {
  float inv_mass;
  float inv_inertia;
  float gravity_scale;
  float linear_damping;
  float angular_damping;
  int32_t type;  // arb_body_type, or -1 for a free slot
} arb__body_sim;

typedef struct arb__body {
  // What the narrow phase reads of both bodies of every contact it updates (the fat box,
  // and for recycling and the reach test the pose, centre and extent) leads, in 44 bytes,
  // one or two cache lines; the 150-byte first shape comes last. hash_cache.c keeps
  // xf ... inertia as one block.
  arb_transform xf;       // body origin
  arb_vec2 center;        // world centre of mass
  arb_aabb fat_aabb;      // broad-phase proxy box (state: decides contact lifetime)
  float max_extent;       // farthest shape point from the centre of mass (from the shape)
  arb_vec2 local_center;  // centre of mass in the body frame
  arb_vec2 force;
  float torque;
  float mass, inertia;  // inertia about the centre of mass
  uint64_t user_data;
  uint32_t generation;
  int32_t next_free;     // free-list link when the slot is unused
  int32_t proxy;         // tree node (not state: rebuilt on restore)
  int32_t contact_head;  // first contact edge (contact*2+side), list order is not state
  uint8_t in_use;
  uint8_t fixed_rotation;
  uint8_t bullet;
  uint8_t moved;  // fat AABB changed since the last pair update (state)
  // Sleeping (island.c). State: enable_sleep, sleeping, sleep_threshold, sleep_time,
  // island_head. island_next is rebuilt from island_head on restore (slot order).
  uint8_t enable_sleep;
  uint8_t sleeping;
  uint8_t sleep_veto;   // kept awake this step by an extra (vehicle input); scratch
  uint8_t shape_count;  // 1..ARB_MAX_BODY_SHAPES (state, with the shapes)
  // Not state: the pair map was asked about every overlap of this body's box at a pair
  // update since it was created or restored (broad_phase.c, w->paired_aabbs).
  uint8_t pairs_checked;
  float sleep_threshold;  // m/s of the farthest point
  float sleep_time;       // seconds below the threshold (>= ARB_TIME_TO_SLEEP while asleep)
  int32_t island_head;    // asleep: lowest slot of its sleeping island; else -1
  int32_t island_next;    // asleep: next slot of the island (ascending), or -1
  // Derived from the shape and local centre (not state; set at creation and restore):
  // the shortest distance from the centre of mass to the surface, how far the body may
  // move in a step before it could pass through something thin (ccd.c).
  float min_extent;
  int32_t compound;  // index in w->compounds when it pairs by shape (not state; else unused)
  // Shapes 1..shape_count-1 of a compound body (world-owned, never changed after
  // creation); NULL for a body with one shape.
  arb_shape_def* more_shapes;
  arb_shape_def shape;  // the first (often the only) shape; see arb__body_shape
} arb__body;

// A compound body this large (bounding radius about its centre of mass, m) pairs shape by
// shape (broad_phase.c, "compound bodies"): a drum or a long platform, whose box holds far
// more than any one shape. A smaller one (a ragdoll's shin and foot, a table) keeps one
// box for all its shapes: its shapes' boxes are within a few margins of each other, and
// the query it would make every step while awake would cost more than it saves.
#define ARB__COMPOUND_SPLIT_EXTENT 1.0f

static inline bool arb__body_pairs_by_shape(const arb__body* b) {
  return b->shape_count > 1 && b->max_extent > ARB__COMPOUND_SPLIT_EXTENT;
}

/// Shape i (0..shape_count-1) of a body, in its body frame.
static inline const arb_shape_def* arb__body_shape(const arb__body* b, int i) {
  return i == 0 ? &b->shape : &b->more_shapes[i - 1];
}
/// The same out of line, for hot paths that take it only for compound bodies.
const arb_shape_def* arb__body_shape_at(const arb__body* b, int i);

// ---- broad phase: dynamic AABB tree ----------------------------------------------------

// 32 bytes, in a 64-byte aligned array: a node's box and children are one load, and two
// nodes share a cache line. A leaf keeps its body slot and flags, so a query decides most
// leaves without touching the body array.
typedef struct arb__tree_node {
  arb_aabb aabb;
  int32_t child1;  // ARB__NULL for a leaf
  union {
    int32_t child2;
    int32_t body;  // leaf payload
  };
  int32_t parent;  // or next free
  int16_t height;  // leaf = 0, free = -1
  uint16_t flags;  // leaves: ARB__LEAF_*; internal nodes: ARB__NODE_ENLARGED
} arb__tree_node;

#define ARB__LEAF_DYNAMIC 1u    // the body is dynamic (its type never changes)
#define ARB__LEAF_MOVED 2u      // set only during the pair update, for the moved bodies
#define ARB__LEAF_COMPOUND 4u   // the body has more than one shape (fixed at creation)
#define ARB__LEAF_BY_SHAPE 16u  // its shapes pair by their own boxes (arb__body_pairs_by_shape)
// An internal node whose box grew in place for a moved leaf below it since the last
// rebuild (aabb_tree.c); its parent has the flag too.
#define ARB__NODE_ENLARGED 8u
// A tree deeper than this is rebuilt at once (a rebuild stays far below it), so a walk
// never needs more than this many stack entries.
#define ARB__TREE_MAX_HEIGHT 96

typedef struct arb__tree {
  arb__tree_node* nodes;    // aligned inside `block`
  arb_aabb* scratch_boxes;  // capacity entries after the nodes: the rebuild's boxes,
  int32_t* scratch;         // and after them its leaf list
  void* block;
  int32_t capacity;
  int32_t count;
  int32_t root;
  int32_t free_list;
  int32_t leaf_count;
  int32_t rebuilt_leaves;  // leaf count at the last rebuild (what "many new leaves" means)
  bool enlarged;           // some node has ARB__NODE_ENLARGED: arb__tree_settle rebuilds them
  // Every category and mask bit of the shapes inserted since the tree was created (never
  // cleared: a superset is enough), so a query can tell at once that no leaf can pass its
  // filter (a grid of parts that never collide queries nothing).
  uint32_t category_union, mask_union;
} arb__tree;

void arb__tree_init(arb__tree* t);
void arb__tree_free(arb_world* w, arb__tree* t);
/// Inserts body's proxy; its shapes' filter bits join the tree's unions. The node index it
/// returns stays the proxy's until it is removed (rebuilds keep leaf indices).
int arb__tree_insert(arb_world* w, arb__tree* t, arb_aabb aabb, int body, const arb__body* b,
                     bool dynamic);
void arb__tree_remove(arb__tree* t, int leaf);
/// Gives body b's leaf a new box (the same node: its index stays the proxy); its shapes'
/// filter bits join the unions as on insert. The leaf stays where it is and its ancestors
/// grow to hold the box, until arb__tree_settle rebuilds the part that grew.
void arb__tree_move(arb__tree* t, int leaf, arb_aabb aabb, const arb__body* b);
/// Adds body's leaf without hanging it into the tree: for many leaves at once (a
/// restore), followed by arb__tree_rebuild before the tree is used.
int arb__tree_add_leaf(arb_world* w, arb__tree* t, arb_aabb aabb, int body, const arb__body* b,
                       bool dynamic);
/// Rebuilds the whole tree by the binned surface-area heuristic (after many insertions at
/// once: a scene load, a restore). Never allocates, never fails.
void arb__tree_rebuild(arb__tree* t);
/// Rebuilds when many leaves arrived since the last rebuild, else rebuilds the nodes that
/// grew for moved leaves (called once per step, before the pair update).
void arb__tree_settle(arb__tree* t);

/// Visits a leaf of a tree query: false stops the walk.
typedef bool arb__tree_leaf_fn(void* ctx, int body);

/// Calls fn(ctx, body) for every leaf of t whose box overlaps `box`, depth first. The order
/// follows the tree's shape, which is not state: callers sort or do order-free work. False
/// when fn stopped the walk (or, never with ARB__TREE_MAX_HEIGHT kept, the stack was full).
static inline bool arb__tree_query(const arb__tree* t, arb_aabb box, arb__tree_leaf_fn* fn,
                                   void* ctx) {
  if (t->root == ARB__NULL) return true;
  const arb__tree_node* nodes = t->nodes;
  if (!arb_aabb_overlaps(nodes[t->root].aabb, box)) return true;
  if (nodes[t->root].height == 0) return fn(ctx, nodes[t->root].body);
  int32_t stack[2 * ARB__TREE_MAX_HEIGHT + 2];
  int top = 0;
  stack[top++] = t->root;
  while (top > 0) {
    const arb__tree_node* node = &nodes[stack[--top]];
    // Both children's boxes are tested here: a leaf is visited without a push.
    for (int k = 0; k < 2; ++k) {
      int c = k == 0 ? node->child1 : node->child2;
      const arb__tree_node* ch = &nodes[c];
      if (!arb_aabb_overlaps(ch->aabb, box)) continue;
      if (ch->height == 0) {
        if (!fn(ctx, ch->body)) return false;
      } else {
        if (top == (int)(sizeof stack / sizeof stack[0])) return false;
        stack[top++] = c;
      }
    }
  }
  return true;
}

// ---- contacts ---------------------------------------------------------------------------

#define ARB__CONTACT_TOUCHING 1u
// The manifold was computed at the poses in the contact's recycle cache (contact.c,
// "Contact recycling"); never set when the world has enable_contact_recycling false.
#define ARB__CONTACT_CACHED 2u
// A contact joins one shape of each body: the shape indices (0 for single-shape bodies, so
// their contacts keep the flags, bytes and hashes they always had) live in the flags.
#define ARB__CONTACT_SHAPE_A_SHIFT 8
#define ARB__CONTACT_SHAPE_B_SHIFT 12
#define ARB__CONTACT_SHAPES 0xff00u  // both shape indices
static inline int arb__contact_shape_a(uint32_t flags) {
  return (int)((flags >> ARB__CONTACT_SHAPE_A_SHIFT) & 0xfu);
}
static inline int arb__contact_shape_b(uint32_t flags) {
  return (int)((flags >> ARB__CONTACT_SHAPE_B_SHIFT) & 0xfu);
}

typedef struct arb__contact {
  int32_t body_a, body_b;  // slots; A has the first shape of the collide function
  int32_t prev[2];         // per-body edge lists (edge = contact*2 + side); next is in the brief
  float friction, restitution;
  uint32_t flags;
  arb_manifold manifold;
  // With ARB__CONTACT_CACHED: the bodies' rotations and relative pose (inverse(xf_a) *
  // xf_b) when the manifold was computed, and each point's separation then.
  arb_rot cached_qa, cached_qb;
  arb_transform cached_relative;
  float base_separation[2];
} arb__contact;

// What the passes over every contact read of one (the island build, the solver's
// colouring) and what a walk of a body's edge list reads: 20 bytes at the contact's index,
// beside the 152-byte contacts, so a pass reads 1 MB for 51 000 contacts instead of a
// cache line per contact, and a walk stays in that array. Not state: kept in step with the
// contacts by create, destroy and the edge links (contact.c), by the narrow phase
// (point_count after each manifold, touching with ARB__CONTACT_TOUCHING) and rebuilt by
// restore (snapshot.c).
typedef struct arb__contact_brief {
  int32_t body_a, body_b;
  int32_t next[2];      // the next edge of each body's list (edge = contact*2 + side)
  uint8_t point_count;  // the manifold's
  uint8_t touching;     // ARB__CONTACT_TOUCHING is set
} arb__contact_brief;

// Open-addressing map from a body pair to a contact index. Lookup only: never iterated.
typedef struct arb__pair_map {
  uint64_t* keys;  // 0 = empty (pair keys are never 0: the higher slot is >= 1)
  int32_t* values;
  int32_t capacity;  // power of two
  int32_t count;
} arb__pair_map;

static inline uint64_t arb__pair_key(int a, int b) {
  uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
  return ((uint64_t)lo << 32) | hi;
}
// A shape of a body as one number, body * 8 + shape: ascending in body order first, so
// shape pairs sort by body pair (then by shapes) and single-shape worlds keep their order.
static inline int arb__shape_key(int body, int shape) {
  return body * ARB_MAX_BODY_SHAPES + shape;
}
/// The pair map key of contact c (its shape pair).
static inline uint64_t arb__contact_key(const arb__contact* c) {
  return arb__pair_key(arb__shape_key(c->body_a, arb__contact_shape_a(c->flags)),
                       arb__shape_key(c->body_b, arb__contact_shape_b(c->flags)));
}

int arb__map_find(const arb__pair_map* m, uint64_t key);
int arb__map_insert(arb_world* w, arb__pair_map* m, uint64_t key, int value);
void arb__map_set(arb__pair_map* m, uint64_t key, int value);
void arb__map_remove(arb__pair_map* m, uint64_t key);
void arb__map_free(arb_world* w, arb__pair_map* m);

// ---- sensors ----------------------------------------------------------------------------

// One overlap between a sensor body and a visitor body, both by id (a destroyed body's
// stale id stays until the next step reports its end).
typedef struct arb__sensor_pair {
  arb_body_id sensor, visitor;
} arb__sensor_pair;

// ---- the world --------------------------------------------------------------------------

struct arb_world {
  arb_world_def def;
  struct arb_pool* pool;  // worker threads (arbiter/worker_pool.h); NULL with one worker
  uint64_t step_count;
  int64_t byte_count;

  arb__body* bodies;
  arb__body_state* states;  // body_capacity + 1: the last entry is the solver dummy
  arb__body_sim* sims;
  int32_t body_capacity;  // allocated
  int32_t body_slots;     // slots ever used (high-water); slot order = iteration order
  int32_t body_count;     // live
  int32_t free_head;      // free slot list (LIFO, part of the state)

  arb__contact* contacts;
  arb__contact_brief* contact_briefs;  // contact_capacity, like contacts
  int32_t contact_count, contact_capacity;
  arb__pair_map pair_map;

  arb__tree static_tree;   // static bodies
  arb__tree dynamic_tree;  // dynamic and kinematic bodies

  arb_contact_event* begin_events;
  arb_contact_event* end_events;
  int32_t begin_count, end_count, event_capacity_begin, event_capacity_end;
  int32_t end_reported;               // end events already reported by the last step (the rest came
                                      // from arb_body_destroy since, and are reported by the next)
  arb_contact_hit_event* hit_events;  // last step, contact order (contact_solver.c)
  int32_t hit_count, hit_capacity;

  // Sensors (sensor.c). State: the overlaps after the last step, ascending by (sensor id,
  // visitor id); `sensor_scratch` is where the next step builds its list (then swapped).
  arb__sensor_pair* sensor_pairs;
  int32_t sensor_pair_count, sensor_pair_cap;
  arb__sensor_pair* sensor_scratch;
  int32_t sensor_scratch_cap;
  int32_t sensor_bodies;           // live sensor bodies (not state: recounted on restore)
  arb_sensor_event* sensor_begin;  // last step's events (outputs)
  arb_sensor_event* sensor_end;
  int32_t sensor_begin_count, sensor_end_count, sensor_begin_cap, sensor_end_cap;
  // Joints broken by the last step (joint.c; outputs, not state).
  struct arb_joint_break_event* joint_breaks;
  int32_t joint_break_count, joint_break_cap;
  float last_step_dt;  // dt of the last step (arb_joint_get_force; not state)

  arb__stack stack;
  bool locked;  // inside arb_world_step

  // Sleeping (island.c). Not state: derived from the bodies' sleeping flags.
  int32_t sleeping_count;          // bodies asleep; 0 = every loop runs over all slots as before
  int32_t* awake_bodies;           // non-static live bodies awake, ascending slot (valid when
  int32_t awake_count, awake_cap;  // sleeping_count > 0 and !awake_dirty)
  bool awake_dirty;
  int32_t* awake_contacts;  // contacts with an awake body, ascending index (same validity)
  int32_t awake_contact_count, awake_contact_cap;
  int32_t awake_contacts_of;  // contact_count when the list was collected
  int32_t* wake_requests;     // sleeping bodies touched by awake ones during collide
  int32_t wake_count, wake_cap;
  // Bodies whose `moved` flag went up since the last pair update, so the pair update
  // visits only them (broad_phase.c). Not state: on overflow or after a restore
  // (moved_scan) the flags are scanned instead, with the same result.
  int32_t* moved_list;
  int32_t moved_count, moved_cap;
  bool moved_scan;
  // Per slot, while the body is `moved`: the fat AABB the last pair update saw. Every
  // collidable pair whose boxes overlapped then has its contact, so a moved body does not
  // look those up in the pair map (broad_phase.c, arb__pair_leaf). An empty box after
  // creation, a teleport, and until the body's pairs were checked after a restore (an
  // image need not hold every contact): the pair map decides all of that body's pairs.
  // 16 bytes a slot, apart from the bodies, so the walk reads it from cache. Not state.
  arb_aabb* paired_aabbs;
  int32_t paired_cap;
  // Compound bodies that pair shape by shape (arb__body_pairs_by_shape), ascending slot,
  // and per compound the boxes of its shapes at this step's pair update,
  // ARB_MAX_BODY_SHAPES apart (broad_phase.c, "compound bodies"). Not state: the list is
  // rebuilt from the bodies after a compound body is created or destroyed and after a
  // restore (compounds_dirty), and the boxes of every compound but the static ones are
  // recomputed each step from its pose and speed.
  int32_t* compounds;
  arb_aabb* compound_boxes;
  int32_t compound_count, compound_cap;
  bool compounds_dirty;
  bool compound_boxes_lost;  // out of memory for them: every shape pair pairs, as before
  // Set when the claim above may fail (a pair found without memory for its contact, an
  // allocation of paired_aabbs failed, a non-finite box in a tree): every pair is then
  // looked up in the map, as before.
  bool pairs_incomplete;
  // Work counters of the last step (arb_world_counters).
  int32_t stat_collided, stat_recycled, stat_solved_contacts, stat_solved_bodies, stat_islands;
  int32_t stat_known_pairs;  // overlaps the pair update knew without the pair map

  // Continuous collision scratch for this step (ccd.c; per-step arena, not state): the
  // pose of every awake body at the start of the step, NULL when nothing is swept.
  arb_vec2* sweep_c;
  arb_rot* sweep_q;

  // Springs, joints, particles, vehicles (extras.h; NULL until first used).
  struct arb__extras* extras;
  // Slot digests of bodies at rest, reused by the hash (hash_cache.c). Not state.
  struct arb__hash_cache* hash_cache;
};

/// The edge after `edge` in its body's contact list (ARB__NULL at the end).
static inline int arb__next_edge(const arb_world* w, int edge) {
  return w->contact_briefs[edge >> 1].next[edge & 1];
}

// body.c (what a body's shapes answer together is in shape.h)
/// motion: how far the body is expected to move over the next step (zero outside the
/// step); the proxy then covers the whole path so its pairs exist before it arrives.
/// Whether the body's fat AABB still covers it after moving `motion` (refresh_proxy with
/// force false would do nothing). Reads only that body.
bool arb__body_proxy_fits(const arb_world* w, int index, arb_vec2 motion);
void arb__body_refresh_proxy(arb_world* w, int index, bool force, arb_vec2 motion);
arb__body* arb__body_get(const arb_world* w, arb_body_id id);
/// Free what the live bodies among bodies[0..slots) own: chain points, extra shapes.
void arb__free_body_shapes(arb_world* w, arb__body* bodies, int slots);

// contact.c
/// A contact between shape sa of body a and shape sb of body b (either order).
int arb__contact_create(arb_world* w, int a, int sa, int b, int sb);
void arb__contact_destroy(arb_world* w, int index);
void arb__contact_link(arb_world* w, int index);
void arb__collide(arb_world* w, float dt);
void arb__destroy_body_contacts(arb_world* w, int body);  // ends of touching ones reported
bool arb__contact_has_collider(arb_shape_type a, arb_shape_type b);
/// Which of two kinds a contact puts first (body A), read from the collide registration
/// table: < 0 a, > 0 b, 0 either (the same kind, or a pair that never collides; then the
/// lower body slot goes first).
int arb__contact_kind_order(arb_shape_type a, arb_shape_type b);

// broad_phase.c
void arb__update_pairs(arb_world* w, float dt);
/// Whether a contact's two shapes, one of them on a compound body, have moved apart
/// (its contact then goes; broad_phase.c, "compound bodies").
bool arb__compound_pair_apart(const arb_world* w, int a, int shape_a, int b, int shape_b);
void arb__mark_moved(arb_world* w, int body);  // sets `moved` and lists the body
// Before a body's fat AABB changes: keeps the box the last pair update saw (the first
// change since), or forgets it (`fresh`: the body is new, jumped, or its pairs were not
// checked since a restore).
void arb__note_paired_aabb(arb_world* w, int body, bool fresh);
void arb__forget_paired_aabbs(arb_world* w);  // after a restore
void arb__sort_u64(arb_world* w, uint64_t* keys, int count);

// contact_solver.c
void arb__solve(arb_world* w, float dt);

// ccd.c: before the pairs are found, stretch the proxy of every awake body that can move
// further than half its size in this step over its path (finalize does it for the next
// step, but a body created with, or given, a high speed since then would otherwise meet
// nothing in its first step); record the start poses before the solver (after the wake
// requests of collide), sweep after finalize; after the islands fell asleep, wake the
// sleeping bodies a bullet hit.
void arb__ccd_extend_proxies(arb_world* w, float dt);
void arb__ccd_begin(arb_world* w);
void arb__ccd_finish(arb_world* w, float dt);
void arb__ccd_wake_hits(arb_world* w);

// world_codec.c: the canonical state (hash, save image, restore), one visitor per record
// kind (arbiter/state_codec.h). An image is the state as it is serialized: for a write,
// a view of the world's own arrays; for a read, staging arrays that restore commits.
typedef struct arb__world_image {
  arb_world_def def;  // the simulated settings; the rest is copied from the world
  uint64_t step_count;
  int32_t body_slots, body_count, free_head, body_capacity;
  arb__body* bodies;
  arb__body_state* states;  // body_capacity + 1
  arb__body_sim* sims;
  int32_t contact_count, contact_capacity;
  arb__contact* contacts;
  int32_t sensor_pair_count;
  arb__sensor_pair* sensor_pairs;      // reading: staging array (NULL when none)
  struct arb__extras* extras;          // NULL: no extras section
  struct arb__hash_cache* hash_cache;  // hashing only: reuse the digests of bodies at rest
  arb_world* owner;                    // the world visited (reading allocates chain points from it)
} arb__world_image;

// Continuous collision between dynamic bodies (enable_continuous and continuous_dynamic):
// a proxy covers the motion ahead (arb__ccd_extend_proxies, arb__body_refresh_proxy) and a
// fast pair's speculative margin widens with its relative motion (contact.c). Without it
// the sweeps against static bodies (and of bullets) still run: ccd.c.
static inline bool arb__continuous_dynamic(const arb_world* w) {
  return w->def.enable_continuous && w->def.continuous_dynamic;
}

// island.c: sleeping. A body is awake when it is live, not static and not sleeping.
static inline bool arb__body_awake(const arb_world* w, int i) {
  return w->sims[i].type != ARB_BODY_STATIC && w->sims[i].type >= 0 && !w->bodies[i].sleeping;
}
/// The bodies to step, ascending: NULL means every slot (nothing sleeps; *n = body_slots),
/// else the awake list (*n = awake_count).
static inline const int32_t* arb__awake_list(const arb_world* w, int* n) {
  *n = w->sleeping_count > 0 ? w->awake_count : w->body_slots;
  return w->sleeping_count > 0 ? w->awake_bodies : NULL;
}
void arb__body_init_sleep(arb__body* b, const arb_body_def* def);
void arb__wake_body(arb_world* w, int body);
void arb__wake_all(arb_world* w);
void arb__wake_touching(arb_world* w, int body);  // bodies touching or joined to `body`
/// A new contact between static geometry (created or moved) and a sleeping body: wake it,
/// the contact may touch (between two sleeping bodies it stays asleep until touched).
void arb__wake_on_static_pair(arb_world* w, int a, int b);
/// Joints and springs from awake bodies wake what they hold; refresh the awake lists.
void arb__sleep_prepare(arb_world* w);
/// Rebuild the awake body list when sleeping bodies exist and it is stale.
void arb__refresh_awake_bodies(arb_world* w);
/// Contacts with an awake body into awake_contacts (only when sleeping_count > 0).
void arb__collect_awake_contacts(arb_world* w);
/// Wake the islands recorded in wake_requests (collide), then refresh the lists.
void arb__apply_wake_requests(arb_world* w);
/// After finalize (which ran the sleep timers and counted `sleepy` bodies): islands whose
/// every body stayed slow for ARB_TIME_TO_SLEEP fall asleep.
void arb__islands_sleep(arb_world* w, int sleepy);

/// A view of the world's state for writing (hash, save).
void arb__world_image_of(const arb_world* w, arb__world_image* img);
/// Visit the whole state. Reading allocates the staging arrays from w (free them with
/// arb__world_image_free unless committed) and checks every record on its own.
void arb__world_codec(arb_codec* c, arb_world* w, arb__world_image* img);
void arb__world_image_free(arb_world* w, arb__world_image* img);
uint64_t arb__hash_bytes(const void* p, size_t n);
/// One body slot (generation, use, then the body or the free-list link).
void arb__slot_fields(arb_codec* c, arb__world_image* img, int i);

// hash_cache.c: the hash takes the slot of a static or sleeping body as the XXH3-64
// digest of its bytes, and reuses the digest while the body's fields are byte-for-byte
// those it was made from (exactly the digest of the full encoding).
typedef struct arb__hash_cache arb__hash_cache;
/// The world's cache, grown to body_slots; NULL when out of memory (hash without it).
arb__hash_cache* arb__hash_cache_get(const arb_world* w);
void arb__hash_cache_free(arb_world* w);
void arb__hash_cache_clear(arb_world* w);  // a restore: other bodies may now share generations
/// Hash slot i: arb__slot_fields, or for a body at rest their digest (cached).
void arb__hash_slot(arb_codec* c, arb__world_image* img, int i);

// sensor.c: after the step (after finalize and continuous collision), every sensor's
// overlaps are found again and compared with the last step's (begin and end events).
void arb__sensors_update(arb_world* w);
/// The optional sensor record of the canonical state (before the sleep record): tag 'SENS',
/// only when overlaps exist, so worlds without sensors keep their bytes and hashes.
#define ARB__SENSOR_TAG 0x534e4553u  // "SENS"
void arb__sensor_codec(arb_codec* c, arb_world* w, arb__world_image* img);
/// Restore: take the image's overlaps (the arrays of events are cleared) and recount sensors.
void arb__sensors_commit(arb_world* w, arb__world_image* img);
void arb__sensors_free(arb_world* w);
/// The shape as a GJK proxy in its body's frame (ccd.c, sensor.c).
arb_shape_proxy arb__shape_proxy(const arb_shape_def* s);

// sleep_io.c: the sleep record of the canonical state (after the iterations record).
#define ARB__SLEEP_TAG 0x50454c53u  // "SLEP"
/// Visit the sleep record. Reading (bodies already read) also checks the sleeping islands
/// and rebuilds their lists.
void arb__sleep_codec(arb_codec* c, arb__world_image* img);

// world_validate.c: the validation walkers (islands, awake lists, contacts and their edge
// lists and pair map, both AABB trees, sensors, joints, the step's arena), each check an
// ARB_ASSERT. arb_world_step runs them at its end in builds with ARB_VALIDATE defined (the
// debug, asan and fuzz presets) and asserts on; release compiles the call out.
void arb__world_validate(const arb_world* w);
#if defined(ARB_VALIDATE) && ARB_ASSERT_ENABLED
#define ARB__VALIDATE_WORLD(w) arb__world_validate(w)
#else
#define ARB__VALIDATE_WORLD(w) ((void)0)
#endif
