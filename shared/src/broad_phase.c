// DETERMINISM-CRITICAL: broad phase. Two dynamic AABB trees (static bodies; dynamic and
// kinematic bodies) over fat AABBs, and the pair update.
//
// Why a tree with fat AABBs (reasoned from the benchmark scenes, then checked with perf
// on bench-physics; figures in docs/BENCHMARKS.md):
//   - Stacks and piles rest: with a margin (up to 0.1 m, arb__proxy_margin) almost no
//     proxy moves once a pyramid has settled, so the per-step broad-phase cost is one
//     AABB containment test per body and no queries at all (tree functions are < 2 % of
//     large_pyramid and many_pyramids).
//     Sort-and-sweep re-sorts and re-sweeps every step, and in a 100-high pyramid each box
//     overlaps ~100 others on the sweep axis (a whole column or a whole row).
//   - A uniform grid needs one cell size: rain_circles (r 0.25-0.5) next to a 200 m ground
//     box makes any single size bad, and it is rebuilt or updated every step.
//   - Only moved proxies query, so falling debris costs O(moved * log n): about a third
//     of rain_circles (4000 circles falling, most proxies moving every step), most of
//     free_field (1000 bodies in flight, 0.3-0.4 ms/step in total).
// Determinism: the tree's shape depends on insertion history (and is rebuilt differently
// after a restore), so nothing may depend on it. Query hits are collected as pair keys
// (lower slot, higher slot), sorted, de-duplicated and only then turned into contacts.
#include <arbiter/worker_pool.h>

#include "world.h"

// ---- sorting (qsort is not stable and not allowed in shared/: LSD radix sort) ----------

void arb__sort_u64(arb_world* w, uint64_t* keys, int count) {
  if (count < 2) return;
  if (count <= 32) {
    for (int i = 1; i < count; ++i) {
      uint64_t k = keys[i];
      int j = i - 1;
      while (j >= 0 && keys[j] > k) {
        keys[j + 1] = keys[j];
        --j;
      }
      keys[j + 1] = k;
    }
    return;
  }
  uint64_t* tmp = arb__stack_alloc(w, (size_t)count * sizeof *tmp);
  if (!tmp) return;
  uint64_t* src = keys;
  uint64_t* dst = tmp;
  uint64_t all_or = 0;
  for (int i = 0; i < count; ++i) all_or |= keys[i];
  for (int shift = 0; shift < 64; shift += 8) {
    if (((all_or >> shift) & 0xffu) == 0) continue;  // digit is zero in every key
    int hist[256];
    memset(hist, 0, sizeof hist);
    for (int i = 0; i < count; ++i) hist[(src[i] >> shift) & 0xffu] += 1;
    int sum = 0;
    for (int d = 0; d < 256; ++d) {
      int c = hist[d];
      hist[d] = sum;
      sum += c;
    }
    for (int i = 0; i < count; ++i) dst[hist[(src[i] >> shift) & 0xffu]++] = src[i];
    uint64_t* s = src;
    src = dst;
    dst = s;
  }
  if (src != keys) memcpy(keys, src, (size_t)count * sizeof *keys);
  arb__stack_free(w, tmp);
}

// ---- pair update ------------------------------------------------------------------------

typedef struct arb__pair_query {
  arb_world* w;
  bool use_paired;       // the querying body's box at the last pair update is known:
  arb_aabb self_paired;  // this one (w->paired_aabbs)
  int known;             // overlaps passed over as known pairs (w->stat_known_pairs)
  uint64_t* keys;
  int count, capacity;
  bool overflow;
  bool one_shape;  // a compound's per-shape query: only the querying body's shape `shape`
  int shape;
} arb__pair_query;

// An empty box (lower above upper) marks a slot whose box at the last pair update is not
// known; it meets no box.
static const arb_aabb arb__unknown_box = {{3.0e38f, 3.0e38f}, {-3.0e38f, -3.0e38f}};

static inline bool arb__paired_known(arb_aabb box) {
  return box.lower.x <= box.upper.x;
}

// Whether two boxes overlap, false when a coordinate is NaN (arb_aabb_overlaps is true
// then): a pair is passed over only when its boxes surely met.
static inline bool arb__boxes_met(arb_aabb a, arb_aabb b) {
  return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y &&
         b.lower.y <= a.upper.y;
}

// True when no shape in t can pass s's filter (arb__shape_filters_match): s is in no
// colliding group and no category it masks, or no mask its category is in, is in the tree.
static bool arb__tree_filters_out(const arb__tree* t, const arb_shape_def* s) {
  if (s->group > 0) return false;  // its group collides whatever the masks say
  return (s->mask_bits & t->category_union) == 0u || (t->mask_union & s->category_bits) == 0u;
}

// True when no shape of body b can pass the filter of any shape in t.
static bool arb__body_filtered_out(const arb__tree* t, const arb__body* b) {
  for (int i = 0; i < b->shape_count; ++i) {
    if (!arb__tree_filters_out(t, arb__body_shape(b, i))) return false;
  }
  return true;
}

// ---- compound bodies ----------------------------------------------------------------------
//
// A compound body has one proxy for all its shapes, so whatever comes near it meets its
// whole box: a box in a drum of forty walls would have forty contacts, most of them with
// walls metres away, each collided every step (washer: 377 000 contacts, 17 000 touching).
// So a shape pair with a large compound body (more than ARB__COMPOUND_SPLIT_EXTENT from
// its centre: arb__body_pairs_by_shape) has its contact only while the shape's own box,
// grown as below, meets the other side's box (its fat box, or its shape's grown box), and
// loses it once they are apart by more than the margin (the narrow phase asks
// arb__compound_pair_apart; the margin keeps a pair at the edge from coming and going).
// The grown box covers what the fat box covers for a body with one shape: the speculative
// distance and the margin, and with continuous collision between dynamic bodies how far
// the shape can travel in the step (speed plus turn at its farthest point).
// Such a body, when awake, moves its shapes inside its proxy without moving it, so it
// queries the trees every step, shape by shape (arb__query_compound); another body stays inside its
// fat box until its proxy moves, and then it queries. Either way every pair is decided at the pair
// update from this step's poses, so the contacts depend on the state only.

static void arb__compound_list(arb_world* w) {
  int n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    n += w->bodies[i].in_use && arb__body_pairs_by_shape(&w->bodies[i]);
  }
  if (n > w->compound_cap) {
    int32_t* list = arb__grow(w, w->compounds, 0, n, sizeof *list);
    if (list) w->compounds = list;
    arb_aabb* boxes =
        list ? arb__grow(w, w->compound_boxes, 0, n * ARB_MAX_BODY_SHAPES, sizeof *boxes) : NULL;
    if (boxes) w->compound_boxes = boxes;
    if (!list || !boxes) {
      w->compound_count = 0;
      w->compound_boxes_lost = true;
      return;  // tried again next step
    }
    w->compound_cap = n;
  }
  n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb__body_pairs_by_shape(b)) continue;
    b->compound = n;
    w->compounds[n++] = i;
  }
  w->compound_count = n;
  w->compounds_dirty = false;
  w->compound_boxes_lost = false;
}

// This step's grown boxes of every compound's shapes: a static compound's only when the
// list was rebuilt or the body moved (they depend on its pose alone), the others always.
static void arb__compound_boxes(arb_world* w, float dt) {
  bool all = w->compounds_dirty;
  if (all) arb__compound_list(w);
  if (w->compound_boxes_lost) return;
  for (int k = 0; k < w->compound_count; ++k) {  // DET: each compound writes its own boxes
    int i = w->compounds[k];
    const arb__body* b = &w->bodies[i];
    bool fixed = w->sims[i].type == ARB_BODY_STATIC;
    if (fixed && !all && !b->moved) continue;
    float grow = ARB_SPECULATIVE_DISTANCE + ARB__AABB_MARGIN;
    if (!fixed && !b->sleeping && arb__continuous_dynamic(w)) {
      const arb__body_state* st = &w->states[i];
      grow += dt * (arb_length(st->v) + arb_absf(st->w) * b->max_extent);
    }
    arb_aabb* boxes = &w->compound_boxes[(size_t)k * ARB_MAX_BODY_SHAPES];
    for (int s = 0; s < b->shape_count; ++s) {
      arb_aabb box = arb__shape_aabb(arb__body_shape(b, s), b->xf);
      boxes[s].lower = arb_sub(box.lower, arb_v2(grow, grow));
      boxes[s].upper = arb_add(box.upper, arb_v2(grow, grow));
    }
  }
}

// The box shape s of body i pairs with: a compound's grown shape box, else the fat box.
static inline arb_aabb arb__pairing_box(const arb_world* w, int i, int s) {
  const arb__body* b = &w->bodies[i];
  if (!arb__body_pairs_by_shape(b)) return b->fat_aabb;
  return w->compound_boxes[(size_t)b->compound * ARB_MAX_BODY_SHAPES + (size_t)s];
}

bool arb__compound_pair_apart(const arb_world* w, int a, int shape_a, int b, int shape_b) {
  if (w->compound_boxes_lost) return false;
  arb_aabb box = arb__pairing_box(w, a, shape_a);
  const float m = ARB__AABB_MARGIN;
  box.lower = arb_sub(box.lower, arb_v2(m, m));
  box.upper = arb_add(box.upper, arb_v2(m, m));
  return !arb_aabb_overlaps(box, arb__pairing_box(w, b, shape_b));
}

// The new shape pairs of bodies self and other (a body pair seen for the first time, or
// again): every pair of their shapes that collides, has no contact yet and (with a
// compound body) whose boxes meet.
static void arb__add_shape_pairs(arb__pair_query* q, int self, int other) {
  arb_world* w = q->w;
  const arb__body* bs = &w->bodies[self];
  const arb__body* bo = &w->bodies[other];
  const bool compound =
      (arb__body_pairs_by_shape(bs) || arb__body_pairs_by_shape(bo)) && !w->compound_boxes_lost;
  for (int i = 0; i < bs->shape_count; ++i) {
    if (q->one_shape && i != q->shape) continue;
    for (int j = 0; j < bo->shape_count; ++j) {
      if (compound &&
          !arb_aabb_overlaps(arb__pairing_box(w, self, i), arb__pairing_box(w, other, j))) {
        continue;
      }
      if (!arb__shapes_should_collide(arb__body_shape(bs, i), arb__body_shape(bo, j))) continue;
      uint64_t key = arb__pair_key(arb__shape_key(self, i), arb__shape_key(other, j));
      if (arb__map_find(&w->pair_map, key) != ARB__NULL) continue;
      if (q->count == q->capacity) {
        q->overflow = true;
        return;
      }
      q->keys[q->count++] = key;
    }
  }
}

#if ARB_ASSERT_ENABLED
// Whether every collidable shape pair of bodies a and b has its contact (the claim that
// lets arb__pair_leaf skip an overlap that is not new; checked in debug builds).
static bool arb__pair_known(arb_world* w, int a, int b) {
  uint64_t key;
  arb__pair_query probe = {.w = w, .keys = &key, .capacity = 1};
  arb__add_shape_pairs(&probe, a, b);
  return probe.count == 0 && !probe.overflow;
}
#endif

// A leaf of the pair query: a body pair to create, unless the other side reports it.
// self_flags: the querying body's ARB__LEAF_DYNAMIC, _COMPOUND and _BY_SHAPE bits.
static void arb__pair_leaf(arb__pair_query* q, const arb__tree_node* leaf, int self,
                           uint16_t self_flags) {
  int other = leaf->body;
  if (other == self) return;
  // Both moved: the lower slot reports the pair (the other would report it again).
  if ((leaf->flags & ARB__LEAF_MOVED) && other < self) return;
  if (!((self_flags | leaf->flags) & ARB__LEAF_DYNAMIC)) return;
  // Boxes that overlapped at the last pair update: their contacts exist, or they never
  // collide. A contact is destroyed only when the fat boxes part (arb__collide, which
  // sees the boxes of the last pair update) or a body goes, and every pair whose boxes
  // overlap was found when one of them last moved. An unmoved leaf's box is the one it
  // had then. The same keys come out as with the map.
  // (Not with a body that pairs by shape: its shape pairs come and go inside its box.)
  if (q->use_paired && !((self_flags | leaf->flags) & ARB__LEAF_BY_SHAPE)) {
    arb_aabb then = (leaf->flags & ARB__LEAF_MOVED) ? q->w->paired_aabbs[other] : leaf->aabb;
    if (arb__boxes_met(q->self_paired, then)) {
      ARB_ASSERT(arb__pair_known(q->w, self, other));
      q->known += 1;
      return;
    }
  }
  // Most overlaps of a moved proxy are pairs it already has: for two one-shape bodies the
  // pair map says so before the bodies' shapes are read (same keys come out either way).
  if (!((self_flags | leaf->flags) & ARB__LEAF_COMPOUND) &&
      arb__map_find(&q->w->pair_map, arb__pair_key(arb__shape_key(self, 0),
                                                   arb__shape_key(other, 0))) != ARB__NULL) {
    return;
  }
  arb__add_shape_pairs(q, self, other);
}

// The tree walk of arb__tree_query, with the leaf test inline (the hot loop of the pair
// update): both children's boxes are tested before a push, and a leaf is decided by its
// node's flags before the body array is read.
static void arb__query_tree(arb__pair_query* q, const arb__tree* t, int self, arb_aabb box) {
  if (t->root == ARB__NULL) return;
  arb_world* w = q->w;
  if (arb__body_filtered_out(t, &w->bodies[self])) return;  // no pair could come out of it
  const arb__body* bs = &w->bodies[self];
  q->use_paired = !w->pairs_incomplete && arb__paired_known(w->paired_aabbs[self]);
  if (q->use_paired) q->self_paired = w->paired_aabbs[self];
  const uint16_t self_flags =
      (uint16_t)((w->sims[self].type == ARB_BODY_DYNAMIC ? ARB__LEAF_DYNAMIC : 0u) |
                 (bs->shape_count > 1 ? ARB__LEAF_COMPOUND : 0u) |
                 (arb__body_pairs_by_shape(bs) ? ARB__LEAF_BY_SHAPE : 0u));
  const arb__tree_node* nodes = t->nodes;
  const arb__tree_node* root = &nodes[t->root];
  if (!arb_aabb_overlaps(root->aabb, box)) return;
  if (root->height == 0) {
    arb__pair_leaf(q, root, self, self_flags);
    return;
  }
  int32_t stack[2 * ARB__TREE_MAX_HEIGHT + 2];  // holds height + 1 entries at most
  int top = 0;
  stack[top++] = t->root;
  while (top > 0) {
    const arb__tree_node* node = &nodes[stack[--top]];
    const arb__tree_node* c1 = &nodes[node->child1];
    const arb__tree_node* c2 = &nodes[node->child2];
    if (arb_aabb_overlaps(c1->aabb, box)) {
      if (c1->height == 0) {
        arb__pair_leaf(q, c1, self, self_flags);
      } else {
        stack[top++] = node->child1;
      }
    }
    if (arb_aabb_overlaps(c2->aabb, box)) {
      if (c2->height == 0) {
        arb__pair_leaf(q, c2, self, self_flags);
      } else {
        stack[top++] = node->child2;
      }
    }
  }
}

void arb__note_paired_aabb(arb_world* w, int body, bool fresh) {
  if (w->pairs_incomplete) return;
  if (!fresh && w->bodies[body].moved) return;  // the first change since keeps the box
  if (body >= w->paired_cap) {
    int cap = w->body_capacity > body ? w->body_capacity : body + 1;
    arb_aabb* p = arb__grow(w, w->paired_aabbs, w->paired_cap, cap, sizeof *p);
    if (!p) {
      w->pairs_incomplete = true;
      return;
    }
    w->paired_aabbs = p;
    w->paired_cap = cap;
  }
  w->paired_aabbs[body] = fresh ? arb__unknown_box : w->bodies[body].fat_aabb;
}

void arb__forget_paired_aabbs(arb_world* w) {
  if (w->paired_cap < w->body_slots) {  // the image may have moved bodies beyond it
    arb_aabb* p = arb__grow(w, w->paired_aabbs, w->paired_cap, w->body_slots, sizeof *p);
    if (!p) {
      w->pairs_incomplete = true;
      return;
    }
    w->paired_aabbs = p;
    w->paired_cap = w->body_slots;
  }
  for (int i = 0; i < w->paired_cap; ++i) w->paired_aabbs[i] = arb__unknown_box;
}

void arb__mark_moved(arb_world* w, int body) {
  arb__body* b = &w->bodies[body];
  if (b->moved) return;
  b->moved = 1;
  if (w->moved_scan) return;
  if (w->moved_count == w->moved_cap) {
    int cap = w->moved_cap ? 2 * w->moved_cap : 256;
    int32_t* p = arb__grow(w, w->moved_list, w->moved_count, cap, sizeof *p);
    if (!p) {
      w->moved_scan = true;  // the flags are still right: scan them once
      return;
    }
    w->moved_list = p;
    w->moved_cap = cap;
  }
  w->moved_list[w->moved_count++] = body;
}

// Sets (or clears) ARB__LEAF_MOVED on the leaves of the moved bodies, so the walk tells a
// moved leaf from its node; returns how many bodies moved.
static int arb__flag_moved_leaves(arb_world* w, bool scan, int n, uint16_t flag) {
  int moved = 0;
  for (int k = 0; k < n; ++k) {
    int i = scan ? k : w->moved_list[k];
    const arb__body* b = &w->bodies[i];
    if (!b->moved) continue;
    moved += 1;
    if (b->proxy == ARB__NULL) continue;
    arb__tree* t = w->sims[i].type == ARB_BODY_STATIC ? &w->static_tree : &w->dynamic_tree;
    arb__tree_node* leaf = &t->nodes[b->proxy];
    leaf->flags = (uint16_t)((leaf->flags & ~ARB__LEAF_MOVED) | flag);
  }
  return moved;
}

// New pairs of the moved bodies, queried by worker threads: each thread appends to its own
// key buffer (the trees and the pair map are only read), and the keys are sorted after,
// so the result does not depend on which thread found which pair.
typedef struct arb__pairs_job {
  arb_world* w;
  bool scan;  // every slot, not the moved list
  int n;      // slots or moved bodies; positions n.. are the awake compounds
  const int32_t* compounds;
  arb__pair_query* per_thread;
} arb__pairs_job;

static void arb__query_trees_with(arb__pair_query* q, int i, arb_aabb box) {
  arb_world* w = q->w;
  // Only a dynamic body can touch a static one: a kinematic rotor inside a static
  // ring would walk the ring's leaves every step for pairs that are all refused.
  if (w->sims[i].type == ARB_BODY_DYNAMIC) arb__query_tree(q, &w->static_tree, i, box);
  arb__query_tree(q, &w->dynamic_tree, i, box);
}

static void arb__query_trees(arb__pair_query* q, int i) {
  arb__query_trees_with(q, i, q->w->bodies[i].fat_aabb);
}

// An awake compound's step query, shape by shape with each shape's grown box: a pair of
// its shape s can only come from a leaf that box meets (the other side's pairing box lies
// inside its leaf's box), so the same keys come out as from one query with the body's
// box, whose every leaf would be tested against every shape (tumbler: the whole drum's
// contents against four walls, every step).
static void arb__query_compound(arb__pair_query* q, int i) {
  const arb__body* b = &q->w->bodies[i];
  q->one_shape = true;
  for (int s = 0; s < b->shape_count; ++s) {
    q->shape = s;
    arb__query_trees_with(q, i, arb__pairing_box(q->w, i, s));
  }
  q->one_shape = false;
}

static void arb__pairs_range(void* ctx, int begin, int end, int thread) {
  const arb__pairs_job* job = ctx;
  arb_world* w = job->w;
  arb__pair_query* q = &job->per_thread[thread];
  for (int k = begin; k < end; ++k) {
    if (k >= job->n) {  // an awake compound (and if it also moved, its keys come twice)
      arb__query_compound(q, job->compounds[k - job->n]);
      continue;
    }
    int i = job->scan ? k : w->moved_list[k];
    if (!w->bodies[i].moved) continue;  // destroyed since it was listed
    arb__query_trees(q, i);
  }
}

// The compounds that query this step, the awake ones that pair by shape, in an arena block
// the caller frees (NULL when the world has none, or no memory for the list).
static int32_t* arb__awake_compounds(arb_world* w, int* count) {
  *count = 0;
  if (w->compound_count == 0 || w->compound_boxes_lost) return NULL;
  int32_t* list = arb__stack_alloc(w, (size_t)w->compound_count * sizeof *list);
  if (!list) {  // no memory: they pair as before, box for box
    w->compound_boxes_lost = true;
    w->compounds_dirty = true;
    return NULL;
  }
  for (int k = 0; k < w->compound_count; ++k) {
    if (arb__body_awake(w, w->compounds[k])) list[(*count)++] = w->compounds[k];
  }
  return list;
}

// The bodies to query: the moved list (in any order: the new pairs are sorted before
// they are created, and a slot listed twice only repeats keys that are dropped), or all
// slots when the list is not complete.
void arb__update_pairs(arb_world* w, float dt) {
  arb__tree_settle(&w->static_tree);
  arb__tree_settle(&w->dynamic_tree);
  const bool scan = w->moved_scan;
  const int n = scan ? w->body_slots : w->moved_count;
  arb__compound_boxes(w, dt);  // reads the moved flags (a static compound moved by hand)
  int moved = arb__flag_moved_leaves(w, scan, n, ARB__LEAF_MOVED);
  w->stat_known_pairs = 0;
  int ncompounds;
  int32_t* compounds = arb__awake_compounds(w, &ncompounds);
  if (moved == 0 && ncompounds == 0) {
    arb__stack_free(w, compounds);
    w->moved_count = 0;
    w->moved_scan = false;
    return;
  }
  // Capacity guess from the previous high-water mark; on overflow the pass repeats with
  // a bigger buffer (only during warm-up: the arena remembers the size next step).
  int capacity = 4 * (moved + ncompounds) + 64;
  const int threads = arb_pool_threads(w->pool) + 1;
  arb__pair_query per_thread[ARB_POOL_MAX_THREADS + 1];
  for (;;) {
    uint64_t* keys = arb__stack_alloc(w, (size_t)threads * (size_t)capacity * sizeof *keys);
    if (!keys) {  // tried again next step; contacts may part meanwhile
      w->pairs_incomplete = true;
      arb__stack_free(w, compounds);
      return;
    }
    for (int t = 0; t < threads; ++t)
      per_thread[t] = (arb__pair_query){
          .w = w, .keys = keys + (size_t)t * (size_t)capacity, .capacity = capacity};
    arb__pairs_job job = {w, scan, n, compounds, per_thread};
    arb_pool_for(w->pool, arb__pairs_range, &job, n + ncompounds, 64);
    // The threads' keys, one run after the other (thread 0's are already in place).
    arb__pair_query q = per_thread[0];
    w->stat_known_pairs = 0;
    for (int t = 0; t < threads; ++t) w->stat_known_pairs += per_thread[t].known;
    for (int t = 1; t < threads && !q.overflow; ++t) {
      memmove(keys + q.count, per_thread[t].keys, (size_t)per_thread[t].count * sizeof *keys);
      q.count += per_thread[t].count;
      q.overflow = per_thread[t].overflow;
    }
    if (q.overflow) {
      arb__stack_free(w, keys);
      capacity *= 4;
      continue;
    }
    arb__sort_u64(w, q.keys, q.count);
    for (int k = 0; k < q.count; ++k) {
      if (k > 0 && q.keys[k] == q.keys[k - 1]) continue;
      int lo = (int)(q.keys[k] >> 32), hi = (int)(q.keys[k] & 0xffffffffu);
      int a = lo / ARB_MAX_BODY_SHAPES, b = hi / ARB_MAX_BODY_SHAPES;
      int err = arb__contact_create(w, a, lo % ARB_MAX_BODY_SHAPES, b, hi % ARB_MAX_BODY_SHAPES);
      if (err == 0) {
        arb__wake_on_static_pair(w, a, b);
      } else {
        w->pairs_incomplete = true;  // a pair without its contact: the map decides from now
      }
    }
    arb__stack_free(w, q.keys);
    break;
  }
  arb__stack_free(w, compounds);
  arb__flag_moved_leaves(w, scan, n, 0u);
  for (int k = 0; k < n; ++k) {
    arb__body* b = &w->bodies[scan ? k : w->moved_list[k]];
    if (b->moved) b->pairs_checked = 1;  // every overlap of its box was looked up or known
    b->moved = 0;
  }
  w->moved_count = 0;
  w->moved_scan = false;
}
