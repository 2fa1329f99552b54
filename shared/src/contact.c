// DETERMINISM-CRITICAL: contact lifecycle. Contacts live in one dense array whose order
// is the solver order; removal swaps the last contact into the hole, which depends only
// on which contacts are removed and in what (index) order. A pair map finds a contact by
// body pair (lookup only, never iterated). Per-body edge lists serve body destruction and
// arb_body_get_contacts; their order is not state, so every use of them is order-free.
#include <arbiter/worker_pool.h>
#include <math.h>

#include "chain.h"
#include "manifold.h"
#include "world.h"

// ---- pair map ---------------------------------------------------------------------------

static uint32_t arb__mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return (uint32_t)k;
}

int arb__map_find(const arb__pair_map* m, uint64_t key) {
  if (m->capacity == 0) return ARB__NULL;
  uint32_t mask = (uint32_t)m->capacity - 1;
  for (uint32_t i = arb__mix(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key) return m->values[i];
    if (m->keys[i] == 0) return ARB__NULL;
  }
}

static void arb__map_put(arb__pair_map* m, uint64_t key, int value) {
  uint32_t mask = (uint32_t)m->capacity - 1;
  uint32_t i = arb__mix(key) & mask;
  while (m->keys[i] != 0 && m->keys[i] != key) i = (i + 1) & mask;
  if (m->keys[i] == 0) m->count += 1;
  m->keys[i] = key;
  m->values[i] = value;
}

int arb__map_insert(arb_world* w, arb__pair_map* m, uint64_t key, int value) {
  if (2 * (m->count + 1) > m->capacity) {
    int cap = m->capacity ? m->capacity * 2 : 256;
    uint64_t* keys = arb__alloc(w, (size_t)cap * sizeof *keys);
    int32_t* values = arb__alloc(w, (size_t)cap * sizeof *values);
    if (!keys || !values) {
      arb__free(w, keys);
      arb__free(w, values);
      return ARB_E_NOMEM;
    }
    memset(keys, 0, (size_t)cap * sizeof *keys);
    arb__pair_map old = *m;
    m->keys = keys;
    m->values = values;
    m->capacity = cap;
    m->count = 0;
    for (int i = 0; i < old.capacity; ++i) {
      if (old.keys[i] != 0) arb__map_put(m, old.keys[i], old.values[i]);
    }
    arb__free(w, old.keys);
    arb__free(w, old.values);
  }
  arb__map_put(m, key, value);
  return 0;
}

void arb__map_set(arb__pair_map* m, uint64_t key, int value) {
  uint32_t mask = (uint32_t)m->capacity - 1;
  for (uint32_t i = arb__mix(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key) {
      m->values[i] = value;
      return;
    }
    if (m->keys[i] == 0) return;
  }
}

void arb__map_remove(arb__pair_map* m, uint64_t key) {
  if (m->capacity == 0) return;
  uint32_t mask = (uint32_t)m->capacity - 1;
  uint32_t i = arb__mix(key) & mask;
  while (m->keys[i] != key) {
    if (m->keys[i] == 0) return;
    i = (i + 1) & mask;
  }
  // Backward-shift deletion keeps probe chains intact without tombstones.
  uint32_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (m->keys[j] == 0) break;
    uint32_t home = arb__mix(m->keys[j]) & mask;
    bool between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (between) continue;
    m->keys[i] = m->keys[j];
    m->values[i] = m->values[j];
    i = j;
  }
  m->keys[i] = 0;
  m->count -= 1;
}

void arb__map_free(arb_world* w, arb__pair_map* m) {
  arb__free(w, m->keys);
  arb__free(w, m->values);
  memset(m, 0, sizeof *m);
}

// ---- edges ------------------------------------------------------------------------------

static void arb__set_next(arb_world* w, int edge, int value) {
  w->contact_briefs[edge >> 1].next[edge & 1] = value;
}

static void arb__set_prev(arb_world* w, int edge, int value) {
  w->contacts[edge >> 1].prev[edge & 1] = value;
}

void arb__contact_link(arb_world* w, int index) {
  for (int side = 0; side < 2; ++side) {
    arb__contact* c = &w->contacts[index];
    arb__body* b = &w->bodies[side == 0 ? c->body_a : c->body_b];
    int edge = index * 2 + side;
    c->prev[side] = ARB__NULL;
    w->contact_briefs[index].next[side] = b->contact_head;
    if (b->contact_head != ARB__NULL) arb__set_prev(w, b->contact_head, edge);
    b->contact_head = edge;
  }
}

static void arb__contact_unlink(arb_world* w, int index) {
  for (int side = 0; side < 2; ++side) {
    arb__contact* c = &w->contacts[index];
    int prev = c->prev[side], next = w->contact_briefs[index].next[side];
    if (prev != ARB__NULL) {
      arb__set_next(w, prev, next);
    } else {
      w->bodies[side == 0 ? c->body_a : c->body_b].contact_head = next;
    }
    if (next != ARB__NULL) arb__set_prev(w, next, prev);
  }
}

// The contact at `from` moves to `to`: re-point its neighbours and the body heads.
static void arb__contact_relink(arb_world* w, int from, int to) {
  for (int side = 0; side < 2; ++side) {
    arb__contact* c = &w->contacts[to];
    int edge = to * 2 + side;
    if (c->prev[side] != ARB__NULL) {
      arb__set_next(w, c->prev[side], edge);
    } else {
      w->bodies[side == 0 ? c->body_a : c->body_b].contact_head = edge;
    }
    int next = w->contact_briefs[to].next[side];
    if (next != ARB__NULL) arb__set_prev(w, next, edge);
  }
  (void)from;
}

// ---- the collide function of each pair of shape kinds -----------------------------------

// One registration per pair of kinds (Box2D's s_registers), one per row of
// ARB_COLLIDE_PAIRS and ARB_COLLIDE_CHAIN_PAIRS (collision.h), under the kind the function
// takes first: the table is also the order of the two bodies of a contact (body A has the
// kind registered first; arb__contact_kind_order). A pair without a registration
// (segment/segment) never gets a contact. Two different kinds are registered one way only.
typedef arb_manifold arb__collide_fn(const arb_shape_def* a, arb_transform xfa,
                                     const arb_shape_def* b, arb_transform xfb, float margin);

// Adapts a collide function of manifold.h (with its speculative margin) to shape
// definitions; a world's chain brings its link tree (chain.h).
#define ARB__COLLIDER(name, KA, ka, KB, kb)                                                     \
  static arb_manifold collide_##name(const arb_shape_def* a, arb_transform xfa,                 \
                                     const arb_shape_def* b, arb_transform xfb, float margin) { \
    return arb__collide_##name(&a->ka, xfa, &b->kb, xfb, margin);                               \
  }
#define ARB__CHAIN_COLLIDER(name, KA, ka, KB, kb)                                               \
  static arb_manifold collide_##name(const arb_shape_def* a, arb_transform xfa,                 \
                                     const arb_shape_def* b, arb_transform xfb, float margin) { \
    return arb__collide_##name(&a->ka, arb__chain_tree(&a->ka), xfa, &b->kb, xfb, margin);      \
  }
ARB_COLLIDE_PAIRS(ARB__COLLIDER)
ARB_COLLIDE_CHAIN_PAIRS(ARB__CHAIN_COLLIDER)
#undef ARB__COLLIDER
#undef ARB__CHAIN_COLLIDER

#define ARB__REGISTER(name, KA, ka, KB, kb) [ARB_SHAPE_##KA][ARB_SHAPE_##KB] = collide_##name,
static arb__collide_fn* const collide_registers[ARB_SHAPE_TYPE_COUNT][ARB_SHAPE_TYPE_COUNT] = {
    ARB_COLLIDE_PAIRS(ARB__REGISTER) ARB_COLLIDE_CHAIN_PAIRS(ARB__REGISTER)};
#undef ARB__REGISTER

// The registered function for kinds (a, b) in contact order (rank of a <= rank of b).
static arb__collide_fn* collider_of(arb_shape_type a, arb_shape_type b) {
  if ((unsigned)a >= ARB_SHAPE_TYPE_COUNT || (unsigned)b >= ARB_SHAPE_TYPE_COUNT) return NULL;
  return collide_registers[a][b];
}

bool arb__contact_has_collider(arb_shape_type a, arb_shape_type b) {
  return collider_of(a, b) != NULL || collider_of(b, a) != NULL;
}

int arb__contact_kind_order(arb_shape_type a, arb_shape_type b) {
  if (a == b) return 0;
  if (collider_of(a, b)) return -1;
  return collider_of(b, a) ? 1 : 0;
}

// ---- lifecycle --------------------------------------------------------------------------

int arb__contact_create(arb_world* w, int a, int sa, int b, int sb) {
  if (w->contact_count == w->contact_capacity) {
    if (w->contact_capacity >= ARB__MAX_CONTACTS) return ARB_E_FULL;
    int cap = w->contact_capacity ? w->contact_capacity * 2 : 256;
    // The briefs first: if the contacts cannot grow, a larger brief array does no harm.
    arb__contact_brief* bs = arb__grow(w, w->contact_briefs, w->contact_count, cap, sizeof *bs);
    if (!bs) return ARB_E_NOMEM;
    w->contact_briefs = bs;
    arb__contact* cs = arb__grow(w, w->contacts, w->contact_count, cap, sizeof *cs);
    if (!cs) return ARB_E_NOMEM;
    w->contacts = cs;
    w->contact_capacity = cap;
  }
  const arb_shape_def* pa = arb__body_shape(&w->bodies[a], sa);
  const arb_shape_def* pb = arb__body_shape(&w->bodies[b], sb);
  int order = arb__contact_kind_order(pa->type, pb->type);
  if (order > 0 || (order == 0 && b < a)) {
    int t = a;
    a = b;
    b = t;
    t = sa;
    sa = sb;
    sb = t;
    const arb_shape_def* ts = pa;
    pa = pb;
    pb = ts;
  }
  int index = w->contact_count;
  uint64_t key = arb__pair_key(arb__shape_key(a, sa), arb__shape_key(b, sb));
  if (arb__map_insert(w, &w->pair_map, key, index) != 0) return ARB_E_NOMEM;
  arb__contact* c = &w->contacts[index];
  memset(c, 0, sizeof *c);
  c->body_a = a;
  c->body_b = b;
  c->flags = (uint32_t)sa << ARB__CONTACT_SHAPE_A_SHIFT | (uint32_t)sb
                                                              << ARB__CONTACT_SHAPE_B_SHIFT;
  // Mixing: friction sqrt(fa*fb) (a zero-friction surface makes the pair frictionless);
  // restitution max(ra, rb) (a bouncy ball bounces on any floor).
  c->friction = sqrtf(pa->friction * pb->friction);
  c->restitution = arb_maxf(pa->restitution, pb->restitution);
  w->contact_briefs[index] = (arb__contact_brief){a, b, {ARB__NULL, ARB__NULL}, 0, 0};
  w->contact_count += 1;
  arb__contact_link(w, index);
  return 0;
}

void arb__contact_destroy(arb_world* w, int index) {
  arb__contact* c = &w->contacts[index];
  arb__contact_unlink(w, index);
  arb__map_remove(&w->pair_map, arb__contact_key(c));
  int last = w->contact_count - 1;
  if (index != last) {
    w->contacts[index] = w->contacts[last];
    w->contact_briefs[index] = w->contact_briefs[last];
    arb__contact_relink(w, last, index);
    const arb__contact* m = &w->contacts[index];
    arb__map_set(&w->pair_map, arb__contact_key(m), index);
  }
  w->contact_count -= 1;
}

static void arb__push_event(arb_world* w, bool begin, const arb__contact* c);

void arb__destroy_body_contacts(arb_world* w, int body) {
  // Remove from the highest contact index down: the result depends only on the set of
  // contacts, not on the order of the body's edge list. A touching one ends (reported
  // after the next step: every begin has its end).
  for (;;) {
    int best = ARB__NULL;
    for (int e = w->bodies[body].contact_head; e != ARB__NULL; e = arb__next_edge(w, e)) {
      if ((e >> 1) > best) best = e >> 1;
    }
    if (best == ARB__NULL) break;
    const arb__contact* c = &w->contacts[best];
    if (c->flags & ARB__CONTACT_TOUCHING) arb__push_event(w, false, c);
    arb__contact_destroy(w, best);
  }
}

// ---- narrow phase -----------------------------------------------------------------------

// The shapes of contact c on bodies a and b, in contact order (arb__contact_create: A has
// the registered first kind).
static void arb__contact_shapes(const arb__contact* c, const arb__body* a, const arb__body* b,
                                const arb_shape_def** sa, const arb_shape_def** sb) {
  *sa = &a->shape;
  *sb = &b->shape;
  if (c->flags & ARB__CONTACT_SHAPES) {  // a compound body's other shapes
    *sa = arb__body_shape_at(a, arb__contact_shape_a(c->flags));
    *sb = arb__body_shape_at(b, arb__contact_shape_b(c->flags));
  }
}

static arb_manifold arb__collide_pair(const arb_shape_def* sa, const arb__body* a,
                                      const arb_shape_def* sb, const arb__body* b, float margin) {
  arb__collide_fn* collide = collider_of(sa->type, sb->type);
  if (collide) return collide(sa, a->xf, sb, b->xf, margin);
  arb_manifold none;
  memset(&none, 0, sizeof none);
  return none;
}

// Whether two bodies are too far apart for any speculative point: their bounding circles
// (about the centre of mass, radius max_extent, which holds every shape) are apart by more
// than the margin and the linear slop. The shapes are then farther apart than the margin,
// and the collide functions would find no point (the slop covers their rounding;
// tests/unit/test_manifold_reach.c checks this for every pair of kinds, chains too); this
// answers without them. Most contacts a fast body's stretched proxy makes (continuous
// collision) are of this kind.
static bool arb__out_of_reach(const arb__body* a, const arb__body* b, float margin) {
  float reach = a->max_extent + b->max_extent + margin + ARB_LINEAR_SLOP;
  return arb_distance_sq(a->center, b->center) > reach * reach;
}

// The same question as arb__out_of_reach for shapes sa (of a) and sb (of b), asked when
// the bounding circles meet: the shape of the much larger body against the smaller body's
// bounding circle. A long shape (a bar, a wall of a compound drum) has a bounding circle
// much larger than itself, so a pair can be far apart while the circles overlap; a lower
// bound on the distance past the margin and the slop still means no point, as above.
// Between bodies of about one size the circles are nearly as tight, and the test would
// cost more than it saves (callgrind, spinner: +3 % instructions per step when every pair
// took it both ways).
static bool arb__shapes_out_of_reach(const arb_shape_def* sa, const arb__body* a,
                                     const arb_shape_def* sb, const arb__body* b, float margin) {
  float slack = margin + ARB_LINEAR_SLOP;
  if (a->max_extent > 2.0f * b->max_extent) {
    return arb__shape_beyond(sa, a->xf, b->center, b->max_extent + slack);
  }
  if (b->max_extent > 2.0f * a->max_extent) {
    return arb__shape_beyond(sb, b->xf, a->center, a->max_extent + slack);
  }
  return false;
}

// Speculative margin of a pair: the fixed distance, plus (continuous) how far the two
// bodies can close on each other in this step, bounded by their relative speed and the
// speed of their farthest points from turning. A fast body then has speculative points
// with whatever lies within its reach, and the solver lets it close each gap and no
// more: it stops at the surface instead of passing through. A body at rest gets
// ARB_SPECULATIVE_DISTANCE (to rounding) and the same contacts as without continuous.
static float arb__pair_margin(const arb_world* w, int a, int b, float dt) {
  if (!arb__continuous_dynamic(w)) return ARB_SPECULATIVE_DISTANCE;
  const arb__body_state* sa = &w->states[a];
  const arb__body_state* sb = &w->states[b];
  float reach = arb_length(arb_sub(sb->v, sa->v)) + arb_absf(sa->w) * w->bodies[a].max_extent +
                arb_absf(sb->w) * w->bodies[b].max_extent;
  return ARB_SPECULATIVE_DISTANCE + dt * reach;
}

// The points a wide margin found beyond the fixed speculative distance stay only where
// the pair's motion at that point closes the gap to within that distance in this step:
// the solver would not act on the others (the gap stays open), and kept they would wake
// a sleeping island that a body merely passes by.
static void arb__keep_reachable(const arb_world* w, const arb__contact* c, arb_manifold* m,
                                float dt) {
  const arb__body_state* sa = &w->states[c->body_a];
  const arb__body_state* sb = &w->states[c->body_b];
  arb_vec2 ca = w->bodies[c->body_a].center, cb = w->bodies[c->body_b].center;
  int n = 0;
  for (int k = 0; k < m->point_count; ++k) {
    const arb_manifold_point* p = &m->points[k];
    if (p->separation > ARB_SPECULATIVE_DISTANCE) {
      arb_vec2 va = arb_add(sa->v, arb_cross_sv(sa->w, arb_sub(p->point, ca)));
      arb_vec2 vb = arb_add(sb->v, arb_cross_sv(sb->w, arb_sub(p->point, cb)));
      float approach = -arb_dot(arb_sub(vb, va), m->normal);
      if (p->separation > ARB_SPECULATIVE_DISTANCE + dt * approach) continue;
    }
    m->points[n++] = *p;
  }
  m->point_count = n;
}

static void arb__push_event(arb_world* w, bool begin, const arb__contact* c) {
  int a = c->body_a, b = c->body_b;
  arb_contact_event** arr = begin ? &w->begin_events : &w->end_events;
  int* count = begin ? &w->begin_count : &w->end_count;
  int* cap = begin ? &w->event_capacity_begin : &w->event_capacity_end;
  if (*count == *cap) {
    int ncap = *cap ? *cap * 2 : 64;
    arb_contact_event* p = arb__grow(w, *arr, *count, ncap, sizeof *p);
    if (!p) return;
    *arr = p;
    *cap = ncap;
  }
  arb_contact_event* e = &(*arr)[(*count)++];
  e->a.index1 = a + 1;
  e->a.generation = w->bodies[a].generation;
  e->b.index1 = b + 1;
  e->b.generation = w->bodies[b].generation;
  e->shape_a = arb__contact_shape_a(c->flags);
  e->shape_b = arb__contact_shape_b(c->flags);
}

// A sleeping dynamic body whose contact with an awake body touches (or stops touching)
// wakes with its island after the narrow phase, in contact order.
static void arb__request_wake(arb_world* w, const arb__contact* c) {
  int ab[2] = {c->body_a, c->body_b};
  for (int k = 0; k < 2; ++k) {
    int i = ab[k];
    if (!w->bodies[i].sleeping || w->sims[i].type != ARB_BODY_DYNAMIC) continue;
    if (w->wake_count == w->wake_cap) {
      int cap = w->wake_cap ? 2 * w->wake_cap : 64;
      int32_t* p = arb__grow(w, w->wake_requests, w->wake_count, cap, sizeof *p);
      if (!p) {
        arb__wake_body(w, i);  // no room to defer: waking now is as safe (flags only)
        continue;
      }
      w->wake_requests = p;
      w->wake_cap = cap;
    }
    w->wake_requests[w->wake_count++] = i;
  }
}

// Touching (begin/end events, islands, arb_body_get_contacts): a point within the fixed
// speculative distance, the contacts a world without continuous collision would have. The
// farther speculative points of a fast pair (arb__pair_margin, arb__keep_reachable) are
// solved, and wake a sleeping body they are about to reach, but do not count as touching:
// a fast body does not report a contact before it arrives, nor join (and so keep awake)
// the island of a resting pile it flies past.
static bool arb__manifold_touching(const arb_manifold* m) {
  for (int k = 0; k < m->point_count; ++k) {
    if (m->points[k].separation <= ARB_SPECULATIVE_DISTANCE) return true;
  }
  return false;
}

// ---- contact recycling ------------------------------------------------------------------
//
// Colliding two shapes again each step is most of the narrow phase, and in a resting pile
// the bodies barely move relative to each other. A contact therefore keeps the poses its
// manifold was computed at (cached_qa/qb, cached_relative). While the relative pose has
// moved less than ARB_CONTACT_RECYCLE_DISTANCE (ARB_SPECULATIVE_DISTANCE for a contact that
// does not touch, so no new overlap can be missed) and neither body turned by more than
// acos(0.98) ~ 11.5 degrees, the manifold is kept: points, normal, anchors and impulses stay,
// and each point's separation is its separation then plus how far the two material points
// of the anchors have moved along the normal since (the way the solver's substeps update
// separation). A pair closing fast enough to widen its speculative margin (continuous
// collision) is always collided. The idea and its thresholds are Box2D v3's contact
// recycling (Erin Catto, box2d.org; physics_world.c, b2CollideTask).
#define ARB__RECYCLE_MIN_COS 0.98f

// The separations of contact c's cached manifold at the bodies' present poses, or false
// when it cannot be recycled.
static bool arb__recycle(const arb_world* w, arb__contact* c, float margin) {
  if (!(c->flags & ARB__CONTACT_CACHED) || margin > ARB_SPECULATIVE_DISTANCE + ARB_LINEAR_SLOP) {
    return false;
  }
  const arb__body* a = &w->bodies[c->body_a];
  const arb__body* b = &w->bodies[c->body_b];
  arb_transform xfa = a->xf, xfb = b->xf;
  float cos_a = xfa.q.c * c->cached_qa.c + xfa.q.s * c->cached_qa.s;
  float cos_b = xfb.q.c * c->cached_qb.c + xfb.q.s * c->cached_qb.s;
  if (arb_minf(cos_a, cos_b) <= ARB__RECYCLE_MIN_COS) return false;
  arb_transform rel = arb_inv_transform_mul(xfa, xfb);
  arb_rot turn = arb_rot_inv_mul(rel.q, c->cached_relative.q);
  float extent_a = w->sims[c->body_a].type == ARB_BODY_STATIC ? 0.0f : a->max_extent;
  float extent_b = w->sims[c->body_b].type == ARB_BODY_STATIC ? 0.0f : b->max_extent;
  float moved =
      arb_distance(rel.p, c->cached_relative.p) + arb_maxf(extent_a, extent_b) * arb_absf(turn.s);
  bool touching = (c->flags & ARB__CONTACT_TOUCHING) != 0;
  if (moved >= (touching ? ARB_CONTACT_RECYCLE_DISTANCE : ARB_SPECULATIVE_DISTANCE)) return false;
  arb_rot dqa = arb_rot_inv_mul(c->cached_qa, xfa.q), dqb = arb_rot_inv_mul(c->cached_qb, xfb.q);
  arb_vec2 d = arb_sub(xfb.p, xfa.p);
  arb_manifold* m = &c->manifold;
  for (int k = 0; k < m->point_count; ++k) {
    arb_manifold_point* p = &m->points[k];
    arb_vec2 ra = arb_rotate(dqa, p->anchor_a), rb = arb_rotate(dqb, p->anchor_b);
    p->separation = c->base_separation[k] + arb_dot(arb_add(d, arb_sub(rb, ra)), m->normal);
  }
  return true;
}

// Remembers the poses contact c's new manifold was computed at.
static void arb__cache_poses(const arb_world* w, arb__contact* c) {
  arb_transform xfa = w->bodies[c->body_a].xf, xfb = w->bodies[c->body_b].xf;
  c->cached_qa = xfa.q;
  c->cached_qb = xfb.q;
  c->cached_relative = arb_inv_transform_mul(xfa, xfb);
  c->base_separation[0] = c->base_separation[1] = 0.0f;
  for (int k = 0; k < c->manifold.point_count; ++k) {
    c->base_separation[k] = c->manifold.points[k].separation;
  }
  c->flags |= ARB__CONTACT_CACHED;
}

// The new manifold of contact i, with last step's impulses carried to points with the same
// feature id (warm starting), or its recycled manifold. Returns false when the fat AABBs no
// longer overlap (the contact is then left as it was, to be destroyed). Writes only contact
// i: the worker threads run it for many contacts at once.
static bool arb__collide_one(arb_world* w, int i, float dt, bool* recycled) {
  arb__contact* c = &w->contacts[i];
  const arb__body* a = &w->bodies[c->body_a];
  const arb__body* b = &w->bodies[c->body_b];
  if (!arb_aabb_overlaps(a->fat_aabb, b->fat_aabb)) return false;
  if ((arb__body_pairs_by_shape(a) || arb__body_pairs_by_shape(b)) &&
      arb__compound_pair_apart(w, c->body_a, arb__contact_shape_a(c->flags), c->body_b,
                               arb__contact_shape_b(c->flags))) {
    return false;
  }
  float margin = arb__pair_margin(w, c->body_a, c->body_b, dt);
  *recycled = arb__recycle(w, c, margin);
  if (*recycled) return true;
  const arb_shape_def *sa, *sb;
  arb__contact_shapes(c, a, b, &sa, &sb);
  if (arb__out_of_reach(a, b, margin) || arb__shapes_out_of_reach(sa, a, sb, b, margin)) {
    c->manifold = arb__empty_manifold();  // most pairs of a crowd: no copy of the old one
    if (w->def.enable_contact_recycling) arb__cache_poses(w, c);
    return true;
  }
  const arb_manifold old = c->manifold;
  c->manifold = arb__collide_pair(sa, a, sb, b, margin);
  arb_manifold* m = &c->manifold;
  if (margin > ARB_SPECULATIVE_DISTANCE) arb__keep_reachable(w, c, m, dt);
  for (int k = 0; k < m->point_count; ++k) {
    arb_manifold_point* p = &m->points[k];
    p->normal_impulse = 0.0f;
    p->tangent_impulse = 0.0f;
    for (int j = 0; j < old.point_count; ++j) {
      if (old.points[j].id == p->id) {
        p->normal_impulse = old.points[j].normal_impulse;
        p->tangent_impulse = old.points[j].tangent_impulse;
        break;
      }
    }
  }
  if (w->def.enable_contact_recycling) arb__cache_poses(w, c);
  return true;
}

// What the narrow phase found for one contact (arb__collide acts on these in order).
enum {
  ARB__COLLIDE_OVERLAP = 1,   // the fat AABBs still overlap: a manifold was computed or recycled
  ARB__COLLIDE_TOUCHING = 2,  // the new manifold touches (arb__manifold_touching)
  ARB__COLLIDE_ACT = 4,       // an event, a wake request or a removal is due
  ARB__COLLIDE_RECYCLED = 8,  // the manifold was recycled, not computed
};

typedef struct arb__collide_job {
  arb_world* w;
  const int32_t* list;  // awake contacts, or NULL: all
  uint8_t* status;      // per position in the list: ARB__COLLIDE_* bits
  float dt;
} arb__collide_job;

// Whether arb__request_wake has a body to wake for contact c.
static bool arb__has_sleeper(const arb_world* w, const arb__contact* c) {
  return (w->bodies[c->body_a].sleeping && w->sims[c->body_a].type == ARB_BODY_DYNAMIC) ||
         (w->bodies[c->body_b].sleeping && w->sims[c->body_b].type == ARB_BODY_DYNAMIC);
}

static uint8_t arb__collide_status(arb_world* w, int i, bool awake_list, float dt) {
  bool recycled = false;
  if (!arb__collide_one(w, i, dt, &recycled)) return ARB__COLLIDE_ACT;
  const arb__contact* c = &w->contacts[i];
  w->contact_briefs[i].point_count = (uint8_t)c->manifold.point_count;
  bool touching = arb__manifold_touching(&c->manifold);
  bool was = (c->flags & ARB__CONTACT_TOUCHING) != 0;
  // Any point is solved, so any point wakes (the solver must not move a sleeping body).
  // Nothing falls asleep during the narrow phase, so a pair with no sleeper now has none
  // when arb__collide acts on it, and is not visited again.
  bool wake = awake_list && (c->manifold.point_count > 0 || was) && arb__has_sleeper(w, c);
  bool act = touching != was || wake;
  return (uint8_t)(ARB__COLLIDE_OVERLAP | (touching ? ARB__COLLIDE_TOUCHING : 0) |
                   (act ? ARB__COLLIDE_ACT : 0) | (recycled ? ARB__COLLIDE_RECYCLED : 0));
}

static void arb__collide_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__collide_job* job = ctx;
  const arb_world* w = job->w;
  for (int at = begin; at < end; ++at) {
    // The first thing a contact reads is its two bodies' boxes, far apart in memory.
    if (at + ARB__PREFETCH_AHEAD < end) {
      int ahead = job->list ? job->list[at + ARB__PREFETCH_AHEAD] : at + ARB__PREFETCH_AHEAD;
      const arb__contact_brief* cb = &w->contact_briefs[ahead];
      ARB__PREFETCH(&w->bodies[cb->body_a].fat_aabb);
      ARB__PREFETCH(&w->bodies[cb->body_b].fat_aabb);
    }
    job->status[at] =
        arb__collide_status(job->w, job->list ? job->list[at] : at, job->list != NULL, job->dt);
  }
}

// With bodies asleep only the contacts of awake bodies are updated (awake_contacts,
// ascending): a contact between two sleeping (or sleeping and static) bodies keeps its
// manifold and impulses until its island wakes. The manifolds are computed first (in
// parallel with worker threads), then events, wake requests and removals in contact order
// (only the contacts that have one are visited again).
void arb__collide(arb_world* w, float dt) {
  const int32_t* list = w->sleeping_count > 0 ? w->awake_contacts : NULL;
  int n = list ? w->awake_contact_count : w->contact_count;
  w->wake_count = 0;
  w->stat_collided = 0;
  w->stat_recycled = 0;
  if (n == 0) return;
  uint8_t* status = arb__stack_alloc(w, (size_t)n);
  int* doomed = arb__stack_alloc(w, (size_t)n * sizeof *doomed);
  int doomed_count = 0;
  arb__collide_job job = {w, list, status, dt};
  if (status) arb_pool_for(w->pool, arb__collide_range, &job, n, 64);
  for (int at = 0; at < n; ++at) {
    int i = list ? list[at] : at;
    uint8_t st = status ? status[at] : arb__collide_status(w, i, list != NULL, dt);
    w->stat_recycled += (st & ARB__COLLIDE_RECYCLED) != 0;
    if (!(st & ARB__COLLIDE_ACT)) continue;
    arb__contact* c = &w->contacts[i];
    if (!(st & ARB__COLLIDE_OVERLAP)) {
      if (doomed) doomed[doomed_count++] = i;
      continue;
    }
    bool touching = (st & ARB__COLLIDE_TOUCHING) != 0;
    bool was = (c->flags & ARB__CONTACT_TOUCHING) != 0;
    if (list && (c->manifold.point_count > 0 || was)) arb__request_wake(w, c);
    if (touching && !was) {
      c->flags |= ARB__CONTACT_TOUCHING;
      w->contact_briefs[i].touching = 1;
      arb__push_event(w, true, c);
    } else if (!touching && was) {
      c->flags &= ~ARB__CONTACT_TOUCHING;
      w->contact_briefs[i].touching = 0;
      arb__push_event(w, false, c);
    }
  }
  w->stat_collided = n - doomed_count - w->stat_recycled;
  // Highest index first: a swap-remove then only moves contacts that are already done.
  for (int k = doomed_count - 1; k >= 0; --k) {
    arb__contact* c = &w->contacts[doomed[k]];
    if (c->flags & ARB__CONTACT_TOUCHING) {
      arb__push_event(w, false, c);
      if (list) arb__request_wake(w, c);  // what it rested on moved away
    }
    arb__contact_destroy(w, doomed[k]);
  }
  arb__stack_free(w, doomed);
  arb__stack_free(w, status);
}
