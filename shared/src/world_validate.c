// Validation walkers: invariants of the world's derived structures, checked with
// ARB_ASSERT (the ideas of Box2D v3's b2ValidateSolverSets, b2ValidateContacts and
// b2DynamicTree_Validate, written for this world's layout).
//
// arb_world_step calls arb__world_validate as its last act in builds configured with
// ARB_VALIDATE (the debug, asan and fuzz presets), so a broken invariant stops the unit
// test that broke it at the step that broke it, instead of showing up as a different
// golden hash many steps later. Release builds do not compile the call (world.c), and
// this file's object is then never linked into a program.
//
// What is checked is what the library itself maintains: the body slots and free list,
// the sleeping islands and the awake lists, the contact array with its briefs, edge lists
// and pair map, the two AABB trees, the sensor overlaps, the joints' solver array and the
// per-step arena. Whatever arb_world_restore accepts from an image satisfies these once
// the world has stepped (the image decoder refuses the rest, see world_codec.c and
// sleep_io.c), so no check here can fire on untrusted bytes: an assert is a library bug,
// or a restore check that is missing.
//
// Not a determinism hazard: the walker only reads the world (through a const pointer);
// its scratch is libc memory, not the world's allocator or arena, so byte counts, arena
// sizes and the allocation hooks see the same calls with and without it.
#include <stdlib.h>

#include "extras.h"
#include "world.h"

#if ARB_ASSERT_ENABLED

// ---- helpers ----------------------------------------------------------------------------

static bool arb__v_finite_box(arb_aabb b) {
  return arb_vec2_is_valid(b.lower) && arb_vec2_is_valid(b.upper);
}

// Containment that a non-finite box (a blown-up body, a hostile image's huge impulse)
// cannot fail: only finite boxes are held to it.
static bool arb__v_holds(arb_aabb outer, arb_aabb inner) {
  if (!arb__v_finite_box(outer) || !arb__v_finite_box(inner)) return true;
  return arb_aabb_contains(outer, inner);
}

static bool arb__v_same_box(arb_aabb a, arb_aabb b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

static bool arb__v_live(const arb_world* w, int i) {
  return i >= 0 && i < w->body_slots && w->bodies[i].in_use;
}

// A bit set over body slots or contacts (libc memory, see the top); NULL when there is
// none, and the checks that need it are skipped.
static uint64_t* arb__v_bits(int n) {
  return calloc((size_t)(n / 64 + 1), sizeof(uint64_t));
}
static bool arb__v_test(const uint64_t* bits, int i) {
  return (bits[i >> 6] >> (i & 63)) & 1u;
}
static void arb__v_set(uint64_t* bits, int i) {
  bits[i >> 6] |= (uint64_t)1 << (i & 63);
}

// ---- bodies, free list, sleeping islands ------------------------------------------------

static void arb__validate_island(const arb_world* w, int i) {
  const arb__body* b = &w->bodies[i];
  int head = b->island_head;
  ARB_ASSERT(head >= 0 && head <= i);
  if (head < 0 || head > i) return;
  const arb__body* h = &w->bodies[head];
  ARB_ASSERT(h->in_use && h->sleeping && h->island_head == head);
  // The list from the head is ascending and holds i (a walk bounded by the slots).
  bool found = false;
  int steps = 0, prev = -1;
  for (int k = head; k != ARB__NULL && steps <= w->body_slots;
       k = w->bodies[k].island_next, ++steps) {
    ARB_ASSERT(k > prev && k < w->body_slots);
    if (k <= prev || k >= w->body_slots) return;
    ARB_ASSERT(w->bodies[k].sleeping && w->bodies[k].island_head == head);
    if (k == i) found = true;
    prev = k;
  }
  ARB_ASSERT(found && "a sleeping body is on its island's list");
}

static void arb__validate_bodies(const arb_world* w) {
  ARB_ASSERT(w->body_count >= 0 && w->body_count <= w->body_slots);
  ARB_ASSERT(w->body_slots <= w->body_capacity && w->body_capacity <= ARB__MAX_BODIES);
  int live = 0, sleeping = 0, sensors = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    const arb__body_sim* sim = &w->sims[i];
    const arb__body_state* st = &w->states[i];
    if (!b->in_use) {
      ARB_ASSERT(sim->type == -1 && "a free slot has no type");
      ARB_ASSERT(b->proxy == ARB__NULL && !b->moved);
      continue;
    }
    live += 1;
    sensors += arb__body_has_sensor(b);
    ARB_ASSERT(sim->type >= 0 && sim->type < ARB_BODY_TYPE_COUNT);
    ARB_ASSERT(b->generation != 0);
    ARB_ASSERT(b->shape_count >= 1 && b->shape_count <= ARB_MAX_BODY_SHAPES);
    ARB_ASSERT((b->shape_count > 1) == (b->more_shapes != NULL));
    if (sim->type == ARB_BODY_DYNAMIC) {
      ARB_ASSERT(sim->inv_mass > 0.0f || !arb_is_valid_float(sim->inv_mass));
    } else {
      ARB_ASSERT(sim->inv_mass == 0.0f && sim->inv_inertia == 0.0f);
    }
    if (sim->type == ARB_BODY_STATIC) {
      ARB_ASSERT(st->v.x == 0.0f && st->v.y == 0.0f && st->w == 0.0f && "static bodies rest");
      ARB_ASSERT(!b->sleeping);
    }
    // Finalize (and continuous collision after it) left every moving body inside its
    // proxy's box; a sleeping or static body's box is the one it was given.
    if (arb__body_awake(w, i) && b->proxy != ARB__NULL) {
      ARB_ASSERT(arb__v_holds(b->fat_aabb, arb__body_compute_aabb(b)) && "body left its fat AABB");
    }
    if (b->sleeping) {
      sleeping += 1;
      ARB_ASSERT(st->v.x == 0.0f && st->v.y == 0.0f && st->w == 0.0f && "asleep = at rest");
      arb__validate_island(w, i);
    } else {
      ARB_ASSERT(b->island_head == ARB__NULL && b->island_next == ARB__NULL);
    }
  }
  ARB_ASSERT(live == w->body_count);
  ARB_ASSERT(sleeping == w->sleeping_count && "sleeping_count counts the sleeping flags");
  ARB_ASSERT(w->def.enable_sleep || sleeping == 0);
  ARB_ASSERT(sensors == w->sensor_bodies);
  // The free list visits every free slot once.
  int visited = 0;
  for (int f = w->free_head; f != ARB__NULL; f = w->bodies[f].next_free) {
    ARB_ASSERT(f >= 0 && f < w->body_slots && !w->bodies[f].in_use);
    if (f < 0 || f >= w->body_slots || visited > w->body_slots - w->body_count) break;
    visited += 1;
  }
  ARB_ASSERT(visited == w->body_slots - w->body_count && "the free list holds every free slot");
}

// The awake list, when valid (something sleeps and it is not stale): exactly the awake
// bodies, ascending. The moved list holds every body whose `moved` flag is up.
static void arb__validate_lists(const arb_world* w) {
  if (w->sleeping_count > 0 && !w->awake_dirty) {
    int n = 0;
    for (int i = 0; i < w->body_slots; ++i) n += arb__body_awake(w, i);
    ARB_ASSERT(w->awake_count == n && w->awake_count <= w->awake_cap);
    for (int k = 0; k < w->awake_count && k < w->awake_cap; ++k) {
      int i = w->awake_bodies[k];
      ARB_ASSERT(i >= 0 && i < w->body_slots && arb__body_awake(w, i));
      ARB_ASSERT((k == 0 || w->awake_bodies[k - 1] < i) && "awake_bodies ascending");
    }
  }
  ARB_ASSERT(w->wake_count == 0 && "wake requests are applied within the step");
  ARB_ASSERT(w->moved_count >= 0 && w->moved_count <= w->moved_cap);
  if (w->moved_scan) return;
  uint64_t* listed = arb__v_bits(w->body_slots);
  if (!listed) return;
  for (int k = 0; k < w->moved_count; ++k) {
    int i = w->moved_list[k];
    ARB_ASSERT(i >= 0 && i < w->body_slots);
    if (i >= 0 && i < w->body_slots) arb__v_set(listed, i);
  }
  for (int i = 0; i < w->body_slots; ++i) {
    ARB_ASSERT((!w->bodies[i].moved || arb__v_test(listed, i)) && "a moved body is listed");
  }
  free(listed);
}

// ---- contacts ---------------------------------------------------------------------------

// Touching as the narrow phase decides it (contact.c, arb__manifold_touching).
static bool arb__v_touching(const arb_manifold* m) {
  for (int k = 0; k < m->point_count; ++k) {
    if (m->points[k].separation <= ARB_SPECULATIVE_DISTANCE) return true;
  }
  return false;
}

static bool arb__v_dynamic_awake(const arb_world* w, int i) {
  return w->sims[i].type == ARB_BODY_DYNAMIC && !w->bodies[i].sleeping;
}
static bool arb__v_dynamic_asleep(const arb_world* w, int i) {
  return w->sims[i].type == ARB_BODY_DYNAMIC && w->bodies[i].sleeping;
}

static void arb__validate_contact(const arb_world* w, int i) {
  const arb__contact* c = &w->contacts[i];
  const arb__contact_brief* br = &w->contact_briefs[i];
  int a = c->body_a, b = c->body_b;
  ARB_ASSERT(arb__v_live(w, a) && arb__v_live(w, b) && a != b && "a contact joins two live bodies");
  if (!arb__v_live(w, a) || !arb__v_live(w, b)) return;
  ARB_ASSERT(br->body_a == a && br->body_b == b && "brief mirrors its contact");
  ARB_ASSERT(w->sims[a].type == ARB_BODY_DYNAMIC || w->sims[b].type == ARB_BODY_DYNAMIC);
  const uint32_t known = ARB__CONTACT_TOUCHING | ARB__CONTACT_CACHED | ARB__CONTACT_SHAPES;
  ARB_ASSERT((c->flags & ~known) == 0);
  ARB_ASSERT(w->def.enable_contact_recycling || !(c->flags & ARB__CONTACT_CACHED));
  int sa = arb__contact_shape_a(c->flags), sb = arb__contact_shape_b(c->flags);
  ARB_ASSERT(sa < w->bodies[a].shape_count && sb < w->bodies[b].shape_count);
  if (sa >= w->bodies[a].shape_count || sb >= w->bodies[b].shape_count) return;
  const arb_shape_def* pa = arb__body_shape(&w->bodies[a], sa);
  const arb_shape_def* pb = arb__body_shape(&w->bodies[b], sb);
  ARB_ASSERT(!pa->sensor && !pb->sensor && "sensors get no contacts");
  ARB_ASSERT(arb__contact_kind_order(pa->type, pb->type) <= 0 &&
             "body A has the collide function's first kind");
  const arb_manifold* m = &c->manifold;
  ARB_ASSERT(m->point_count >= 0 && m->point_count <= 2);
  ARB_ASSERT(br->point_count == m->point_count && "brief point count follows the manifold");
  bool touching = (c->flags & ARB__CONTACT_TOUCHING) != 0;
  ARB_ASSERT(br->touching == (touching ? 1 : 0) && "brief touching follows the flag");
  ARB_ASSERT(touching == arb__v_touching(m) && "touching flag follows the manifold");
  // Islands: what touches an awake dynamic body is awake (arb__islands_sleep joins
  // touching dynamic bodies, the narrow phase wakes a sleeper an awake body touches).
  if (touching) {
    ARB_ASSERT(!(arb__v_dynamic_awake(w, a) && arb__v_dynamic_asleep(w, b)) &&
               !(arb__v_dynamic_awake(w, b) && arb__v_dynamic_asleep(w, a)) &&
               "a touching contact never joins an awake and a sleeping dynamic body");
  }
}

// Every body's edge list is a proper doubly linked list of edges that name the body, and
// the lists together hold every edge once (2 per contact).
static void arb__validate_edges(const arb_world* w) {
  int total = 0, limit = 2 * w->contact_count;
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use) continue;
    int prev = ARB__NULL;
    for (int e = b->contact_head; e != ARB__NULL; e = arb__next_edge(w, e)) {
      ARB_ASSERT(e >= 0 && (e >> 1) < w->contact_count && total < limit);
      if (e < 0 || (e >> 1) >= w->contact_count || total >= limit) return;
      const arb__contact* c = &w->contacts[e >> 1];
      ARB_ASSERT(((e & 1) == 0 ? c->body_a : c->body_b) == i && "an edge names its body");
      ARB_ASSERT(c->prev[e & 1] == prev && "edge back link");
      prev = e;
      total += 1;
    }
  }
  ARB_ASSERT(total == limit && "every contact is on both bodies' lists");
}

// awake_contacts (when valid): exactly the contacts with an awake end, ascending.
static void arb__validate_awake_contacts(const arb_world* w) {
  if (w->sleeping_count == 0 || w->awake_dirty || w->awake_contacts_of != w->contact_count) return;
  int n = 0;
  for (int i = 0; i < w->contact_count; ++i) {
    const arb__contact* c = &w->contacts[i];
    n += arb__body_awake(w, c->body_a) || arb__body_awake(w, c->body_b);
  }
  ARB_ASSERT(w->awake_contact_count == n && "awake_contacts: every contact with an awake body");
  ARB_ASSERT(w->awake_contact_count <= w->awake_contact_cap);
  for (int k = 0; k < w->awake_contact_count && k < w->awake_contact_cap; ++k) {
    int i = w->awake_contacts[k];
    ARB_ASSERT(i >= 0 && i < w->contact_count);
    if (i < 0 || i >= w->contact_count) return;
    ARB_ASSERT((k == 0 || w->awake_contacts[k - 1] < i) && "awake_contacts ascending");
    const arb__contact* c = &w->contacts[i];
    ARB_ASSERT(arb__body_awake(w, c->body_a) || arb__body_awake(w, c->body_b));
  }
}

static void arb__validate_contacts(const arb_world* w) {
  ARB_ASSERT(w->contact_count >= 0 && w->contact_count <= w->contact_capacity &&
             w->contact_capacity <= ARB__MAX_CONTACTS);
  for (int i = 0; i < w->contact_count; ++i) arb__validate_contact(w, i);
  arb__validate_edges(w);
  arb__validate_awake_contacts(w);
  // The pair map holds each contact's shape pair, and nothing else.
  const arb__pair_map* m = &w->pair_map;
  ARB_ASSERT(m->count == w->contact_count && "one pair map entry per contact");
  ARB_ASSERT(m->capacity == 0 ||
             (2 * m->count <= m->capacity && (m->capacity & (m->capacity - 1)) == 0));
  if (m->capacity != 0 && 2 * m->count > m->capacity) return;  // a lookup might not end
  for (int i = 0; i < w->contact_count; ++i) {
    ARB_ASSERT(arb__map_find(m, arb__contact_key(&w->contacts[i])) == i && "pair map -> contact");
  }
}

// ---- broad phase ------------------------------------------------------------------------

static void arb__validate_leaf(const arb_world* w, const arb__tree* t, int n, bool is_static) {
  const arb__tree_node* node = &t->nodes[n];
  int i = node->body;
  ARB_ASSERT(node->child1 == ARB__NULL);
  ARB_ASSERT(arb__v_live(w, i) && "a leaf names a live body");
  if (!arb__v_live(w, i)) return;
  const arb__body* b = &w->bodies[i];
  ARB_ASSERT(b->proxy == n && "the body's proxy is its leaf");
  ARB_ASSERT((w->sims[i].type == ARB_BODY_STATIC) == is_static && "the body's tree");
  ARB_ASSERT(arb__v_same_box(node->aabb, b->fat_aabb) && "the leaf's box is the fat AABB");
  uint16_t want = (uint16_t)((w->sims[i].type == ARB_BODY_DYNAMIC ? ARB__LEAF_DYNAMIC : 0u) |
                             (b->shape_count > 1 ? ARB__LEAF_COMPOUND : 0u) |
                             (arb__body_pairs_by_shape(b) ? ARB__LEAF_BY_SHAPE : 0u));
  ARB_ASSERT(node->flags == want && "leaf flags (MOVED only inside the pair update)");
  for (int s = 0; s < b->shape_count; ++s) {
    const arb_shape_def* sh = arb__body_shape(b, s);
    ARB_ASSERT((sh->category_bits & ~t->category_union) == 0 &&
               (sh->mask_bits & ~t->mask_union) == 0 && "the tree's filter unions");
  }
}

// Parent and child links, heights, boxes that hold their children, the ENLARGED flags
// forming a top part of the tree, and the counts of leaves, nodes and free nodes.
static void arb__validate_tree(const arb_world* w, const arb__tree* t, bool is_static) {
  ARB_ASSERT(t->count >= 0 && t->count <= t->capacity);
  ARB_ASSERT(t->leaf_count >= 0 && (t->leaf_count == 0 || t->count == 2 * t->leaf_count - 1));
  ARB_ASSERT((t->root == ARB__NULL) == (t->leaf_count == 0));
  int free_nodes = 0;
  for (int f = t->free_list; f != ARB__NULL && free_nodes <= t->capacity; f = t->nodes[f].parent) {
    ARB_ASSERT(f >= 0 && f < t->capacity && t->nodes[f].height == -1 && "free node");
    if (f < 0 || f >= t->capacity) break;
    free_nodes += 1;
  }
  ARB_ASSERT(free_nodes == t->capacity - t->count && "the free list holds every free node");
  if (t->root == ARB__NULL) return;
  ARB_ASSERT(t->root >= 0 && t->root < t->capacity && t->nodes[t->root].parent == ARB__NULL);
  ARB_ASSERT(t->nodes[t->root].height <= ARB__TREE_MAX_HEIGHT);
  int32_t stack[2 * ARB__TREE_MAX_HEIGHT + 2];
  int top = 0, leaves = 0, nodes = 0;
  stack[top++] = t->root;
  while (top > 0) {
    int n = stack[--top];
    const arb__tree_node* node = &t->nodes[n];
    nodes += 1;
    ARB_ASSERT(nodes <= t->count);
    if (nodes > t->count) return;  // a cycle
    if (node->height == 0) {
      leaves += 1;
      arb__validate_leaf(w, t, n, is_static);
      continue;
    }
    int c[2] = {node->child1, node->child2};
    for (int k = 0; k < 2; ++k) {
      ARB_ASSERT(c[k] >= 0 && c[k] < t->capacity && t->nodes[c[k]].parent == n && "child link");
      if (c[k] < 0 || c[k] >= t->capacity) return;
      // Not once a non-finite box entered a tree (pairs_incomplete, sticky): the union with
      // a NaN can leave an ancestor that never grew, and the broad phase then stops
      // trusting the trees for its pairs (body.c, arb__body_refresh_proxy).
      ARB_ASSERT((w->pairs_incomplete || arb__v_holds(node->aabb, t->nodes[c[k]].aabb)) &&
                 "a node's box holds its child");
      if (t->nodes[c[k]].height > 0 && (t->nodes[c[k]].flags & ARB__NODE_ENLARGED)) {
        ARB_ASSERT((node->flags & ARB__NODE_ENLARGED) && "enlarged nodes form the top");
      }
    }
    ARB_ASSERT(node->height == 1 + arb_maxi(t->nodes[c[0]].height, t->nodes[c[1]].height));
    ARB_ASSERT(!(node->flags & ARB__NODE_ENLARGED) || t->enlarged);
    ARB_ASSERT(top + 2 <= (int)(sizeof stack / sizeof stack[0]));
    if (top + 2 > (int)(sizeof stack / sizeof stack[0])) return;
    stack[top++] = c[0];
    stack[top++] = c[1];
  }
  ARB_ASSERT(leaves == t->leaf_count && nodes == t->count && "every node is in the tree");
}

static void arb__validate_broad_phase(const arb_world* w) {
  arb__validate_tree(w, &w->static_tree, true);
  arb__validate_tree(w, &w->dynamic_tree, false);
  // Every live body with a proxy is a leaf of its tree (a proxy may be missing only
  // after an allocation failed).
  int in_static = 0, in_dynamic = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    if (!w->bodies[i].in_use || w->bodies[i].proxy == ARB__NULL) continue;
    if (w->sims[i].type == ARB_BODY_STATIC) {
      in_static += 1;
    } else {
      in_dynamic += 1;
    }
  }
  ARB_ASSERT(in_static == w->static_tree.leaf_count && in_dynamic == w->dynamic_tree.leaf_count);
  // The compound list, once built: the live bodies that pair by shape, ascending.
  if (!w->compounds_dirty && !w->compound_boxes_lost) {
    int k = 0;
    for (int i = 0; i < w->body_slots; ++i) {
      const arb__body* b = &w->bodies[i];
      if (!b->in_use || !arb__body_pairs_by_shape(b)) continue;
      ARB_ASSERT(k < w->compound_count && w->compounds[k] == i && b->compound == k);
      k += 1;
    }
    ARB_ASSERT(k == w->compound_count);
  }
}

// ---- sensors, joints and springs, arena -------------------------------------------------

static void arb__validate_sensors(const arb_world* w) {
  for (int k = 0; k < w->sensor_pair_count; ++k) {
    const arb__sensor_pair* p = &w->sensor_pairs[k];
    const arb__body* s = arb__body_get(w, p->sensor);
    ARB_ASSERT(s != NULL && arb__body_get(w, p->visitor) != NULL && "overlaps of live bodies");
    ARB_ASSERT((s == NULL || arb__body_has_sensor(s)) && p->sensor.index1 != p->visitor.index1);
    if (k == 0) continue;
    const arb__sensor_pair* q = &w->sensor_pairs[k - 1];
    bool ascending = q->sensor.index1 < p->sensor.index1 || (q->sensor.index1 == p->sensor.index1 &&
                                                             q->visitor.index1 < p->visitor.index1);
    ARB_ASSERT(ascending && "sensor overlaps ascending by (sensor, visitor)");
  }
}

// A constraint between two live dynamic bodies never holds an awake one to a sleeping one.
static void arb__validate_constraint_ends(const arb_world* w, arb_body_id a, arb_body_id b) {
  ARB_ASSERT(a.index1 >= 0 && b.index1 >= 0);
  int sa = arb__body_slot(w, a), sb = arb__body_slot(w, b);
  if (sa < 0 || sb < 0) return;
  ARB_ASSERT(!(arb__v_dynamic_awake(w, sa) && arb__v_dynamic_asleep(w, sb)) &&
             !(arb__v_dynamic_awake(w, sb) && arb__v_dynamic_asleep(w, sa)) &&
             "a joint or spring never holds an awake body to a sleeping one");
}

static void arb__validate_extras(const arb_world* w) {
  const arb__extras* x = w->extras;
  if (!x) return;
  ARB_ASSERT(x->joint_slots <= x->joint_cap && x->spring_slots <= x->spring_cap &&
             x->vehicle_slots <= x->vehicle_cap);
  for (int i = 0; i < x->joint_slots; ++i) {
    const arb__joint* j = &x->joints[i];
    ARB_ASSERT(j->generation != 0 || !j->in_use);
    ARB_ASSERT(j->in_use || !j->active);
    if (!j->in_use) continue;
    ARB_ASSERT(j->type > ARB_JOINT_NONE && j->type < ARB_JOINT_TYPE_COUNT);
    arb__validate_constraint_ends(w, j->body_a, j->body_b);
  }
  for (int i = 0; i < x->spring_slots; ++i) {
    const arb__spring* s = &x->springs[i];
    ARB_ASSERT(s->generation != 0 || !s->in_use);
    if (s->in_use) arb__validate_constraint_ends(w, s->body_a, s->body_b);
  }
  for (int i = 0; i < x->vehicle_slots; ++i) {
    const arb__vehicle* v = &x->vehicles[i];
    ARB_ASSERT(!v->in_use || (v->wheel_count >= 1 && v->wheel_count <= ARB_VEHICLE_MAX_WHEELS));
  }
  // The step's solver array: each entry a live, active joint (once), whose solver ends
  // are its bodies' slots when they move, -1 (world, static or stale) otherwise.
  ARB_ASSERT(x->jrun_count >= 0 && x->jrun_count <= x->jrun_cap);
  uint64_t* seen = arb__v_bits(x->joint_slots);
  for (int k = 0; k < x->jrun_count; ++k) {
    int slot = x->jrun_tag[k] >> 2;
    ARB_ASSERT(slot >= 0 && slot < x->joint_slots);
    if (slot < 0 || slot >= x->joint_slots) break;
    const arb__joint* j = &x->joints[slot];
    ARB_ASSERT(j->in_use && j->active && "the solver array holds active joints");
    if (seen) {
      ARB_ASSERT(!arb__v_test(seen, slot) && "a joint is solved once");
      arb__v_set(seen, slot);
    }
    const arb__jrun* r = &x->jrun[k];
    int ends[2] = {arb__body_slot(w, j->body_a), arb__body_slot(w, j->body_b)};
    int run[2] = {r->ia, r->ib};
    for (int e = 0; e < 2; ++e) {
      bool moves = ends[e] >= 0 && w->sims[ends[e]].type != ARB_BODY_STATIC;
      ARB_ASSERT(run[e] == (moves ? ends[e] : -1) && "solver ends are the joint's bodies");
    }
  }
  free(seen);
  // end_refs (when built) never counts fewer ends per slot than the live constraints have.
  if (x->end_refs_count > 0) {
    int32_t* count = calloc((size_t)x->end_refs_count, sizeof *count);
    if (!count) return;
    for (int i = 0; i < x->joint_slots + x->spring_slots; ++i) {
      bool joint = i < x->joint_slots;
      const arb__joint* j = joint ? &x->joints[i] : NULL;
      const arb__spring* s = joint ? NULL : &x->springs[i - x->joint_slots];
      if (joint ? !j->in_use : !s->in_use) continue;
      arb_body_id ids[2] = {joint ? j->body_a : s->body_a, joint ? j->body_b : s->body_b};
      for (int e = 0; e < 2; ++e) {
        if (ids[e].index1 >= 1 && ids[e].index1 <= x->end_refs_count) count[ids[e].index1 - 1] += 1;
      }
    }
    for (int i = 0; i < x->end_refs_count; ++i) {
      ARB_ASSERT(x->end_refs[i] >= count[i] && "end_refs may over-count, never under-count");
    }
    free(count);
  }
}

void arb__world_validate(const arb_world* w) {
  if (!w) return;
  arb__validate_bodies(w);
  arb__validate_lists(w);
  arb__validate_contacts(w);
  arb__validate_broad_phase(w);
  arb__validate_sensors(w);
  arb__validate_extras(w);
  // Every arena block of the step was freed, last in first out (a block freed out of
  // order stays on the stack: arb__stack_free ignores it).
  ARB_ASSERT(w->stack.count == 0 && w->stack.top == 0 && "the step freed its arena blocks");
  ARB_ASSERT(w->end_reported == w->end_count && w->begin_count <= w->event_capacity_begin);
  ARB_ASSERT(w->hit_count <= w->hit_capacity || w->hit_count == 0);
}

#else  // no asserts: nothing to check with

void arb__world_validate(const arb_world* w) {
  (void)w;
}

#endif
