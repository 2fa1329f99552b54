// DETERMINISM-CRITICAL: broad phase. Two dynamic AABB trees (static bodies; dynamic and
// kinematic bodies) over fat AABBs, and the pair update.
//
// Why a tree with fat AABBs (reasoned from the benchmark scenes, then checked with perf
// on bench-physics; figures in docs/BENCHMARKS.md):
//   - Stacks and piles rest: with a 0.1 m margin almost no proxy moves once a pyramid has
//     settled, so the per-step broad-phase cost is one AABB containment test per body and
//     no queries at all (tree functions are < 2 % of large_pyramid and many_pyramids).
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
#include "world.h"
#include <arbiter/worker_pool.h>

// ---- tree -------------------------------------------------------------------------------

void arb__tree_init(arb__tree* t) {
  memset(t, 0, sizeof *t);
  t->root = ARB__NULL;
  t->free_list = ARB__NULL;
}

void arb__tree_free(arb_world* w, arb__tree* t) {
  arb__free(w, t->nodes);
  arb__tree_init(t);
}

static int arb__tree_alloc_node(arb_world* w, arb__tree* t) {
  if (t->free_list == ARB__NULL) {
    int cap = t->capacity ? t->capacity * 2 : 64;
    arb__tree_node* nodes = arb__grow(w, t->nodes, t->capacity, cap, sizeof *nodes);
    if (!nodes) return ARB__NULL;
    t->nodes = nodes;
    for (int i = t->capacity; i < cap; ++i) {
      t->nodes[i].parent = i + 1 < cap ? i + 1 : ARB__NULL;
      t->nodes[i].height = -1;
    }
    t->free_list = t->capacity;
    t->capacity = cap;
  }
  int n = t->free_list;
  t->free_list = t->nodes[n].parent;
  arb__tree_node* node = &t->nodes[n];
  node->parent = ARB__NULL;
  node->child1 = ARB__NULL;
  node->child2 = ARB__NULL;
  node->height = 0;
  node->body = ARB__NULL;
  t->count += 1;
  return n;
}

static void arb__tree_free_node(arb__tree* t, int n) {
  t->nodes[n].parent = t->free_list;
  t->nodes[n].height = -1;
  t->free_list = n;
  t->count -= 1;
}

// Rotates child iu of node ia up into ia's place (the classic dynamic tree rotation): iu's
// taller child stays under it (as child2), the other one takes iu's old slot under ia.
static int arb__tree_rotate_up(arb__tree* t, int ia, int iu) {
  arb__tree_node* n = t->nodes;
  arb__tree_node* a = &n[ia];
  arb__tree_node* u = &n[iu];
  int* slot = a->child1 == iu ? &a->child1 : &a->child2;
  const arb__tree_node* other = &n[a->child1 == iu ? a->child2 : a->child1];
  int i1 = u->child1, i2 = u->child2;
  int keep = n[i1].height > n[i2].height ? i1 : i2;
  int move = keep == i1 ? i2 : i1;
  u->child1 = ia;
  u->parent = a->parent;
  a->parent = iu;
  if (u->parent != ARB__NULL) {
    if (n[u->parent].child1 == ia) {
      n[u->parent].child1 = iu;
    } else {
      n[u->parent].child2 = iu;
    }
  } else {
    t->root = iu;
  }
  u->child2 = keep;
  *slot = move;
  n[move].parent = ia;
  a->aabb = arb_aabb_union(other->aabb, n[move].aabb);
  u->aabb = arb_aabb_union(a->aabb, n[keep].aabb);
  a->height = 1 + arb_maxi(other->height, n[move].height);
  u->height = 1 + arb_maxi(a->height, n[keep].height);
  return iu;
}

// AVL-style rotation that keeps the tree balanced: the taller child rotates up when the
// heights differ by more than one.
static int arb__tree_balance(arb__tree* t, int ia) {
  const arb__tree_node* a = &t->nodes[ia];
  if (a->height < 2) return ia;
  int balance = t->nodes[a->child2].height - t->nodes[a->child1].height;
  if (balance > 1) return arb__tree_rotate_up(t, ia, a->child2);
  if (balance < -1) return arb__tree_rotate_up(t, ia, a->child1);
  return ia;
}

static void arb__tree_fix_upwards(arb__tree* t, int i) {
  while (i != ARB__NULL) {
    i = arb__tree_balance(t, i);
    arb__tree_node* node = &t->nodes[i];
    const arb__tree_node* c1 = &t->nodes[node->child1];
    const arb__tree_node* c2 = &t->nodes[node->child2];
    node->height = 1 + arb_maxi(c1->height, c2->height);
    node->aabb = arb_aabb_union(c1->aabb, c2->aabb);
    i = node->parent;
  }
}

int arb__tree_insert(arb_world* w, arb__tree* t, arb_aabb aabb, int body, const arb__body* b) {
  int leaf = arb__tree_alloc_node(w, t);
  if (leaf == ARB__NULL) return ARB__NULL;
  for (int i = 0; i < b->shape_count; ++i) {
    t->category_union |= arb__body_shape(b, i)->category_bits;
    t->mask_union |= arb__body_shape(b, i)->mask_bits;
  }
  t->nodes[leaf].aabb = aabb;
  t->nodes[leaf].body = body;
  if (t->root == ARB__NULL) {
    t->root = leaf;
    return leaf;
  }
  // Descend by the surface-area heuristic to the cheapest sibling.
  int i = t->root;
  while (t->nodes[i].height > 0) {
    const arb__tree_node* node = &t->nodes[i];
    float area = arb_aabb_perimeter(node->aabb);
    float combined = arb_aabb_perimeter(arb_aabb_union(node->aabb, aabb));
    float cost = 2.0f * combined;
    float inherit = 2.0f * (combined - area);
    float cost_child[2];
    for (int k = 0; k < 2; ++k) {
      const arb__tree_node* ch = &t->nodes[k == 0 ? node->child1 : node->child2];
      float c = arb_aabb_perimeter(arb_aabb_union(aabb, ch->aabb)) + inherit;
      if (ch->height > 0) c -= arb_aabb_perimeter(ch->aabb);
      cost_child[k] = c;
    }
    if (cost < cost_child[0] && cost < cost_child[1]) break;
    i = cost_child[0] <= cost_child[1] ? node->child1 : node->child2;
  }
  int sibling = i;
  int old_parent = t->nodes[sibling].parent;
  int parent = arb__tree_alloc_node(w, t);
  if (parent == ARB__NULL) {
    arb__tree_free_node(t, leaf);
    return ARB__NULL;
  }
  arb__tree_node* p = &t->nodes[parent];
  p->parent = old_parent;
  p->aabb = arb_aabb_union(aabb, t->nodes[sibling].aabb);
  p->height = t->nodes[sibling].height + 1;
  p->child1 = sibling;
  p->child2 = leaf;
  if (old_parent != ARB__NULL) {
    if (t->nodes[old_parent].child1 == sibling) {
      t->nodes[old_parent].child1 = parent;
    } else {
      t->nodes[old_parent].child2 = parent;
    }
  } else {
    t->root = parent;
  }
  t->nodes[sibling].parent = parent;
  t->nodes[leaf].parent = parent;
  arb__tree_fix_upwards(t, parent);
  return leaf;
}

void arb__tree_remove(arb__tree* t, int leaf) {
  if (leaf == t->root) {
    t->root = ARB__NULL;
    arb__tree_free_node(t, leaf);
    return;
  }
  int parent = t->nodes[leaf].parent;
  int grand = t->nodes[parent].parent;
  int sibling = t->nodes[parent].child1 == leaf ? t->nodes[parent].child2 : t->nodes[parent].child1;
  if (grand != ARB__NULL) {
    if (t->nodes[grand].child1 == parent) {
      t->nodes[grand].child1 = sibling;
    } else {
      t->nodes[grand].child2 = sibling;
    }
    t->nodes[sibling].parent = grand;
    arb__tree_free_node(t, parent);
    arb__tree_fix_upwards(t, grand);
  } else {
    t->root = sibling;
    t->nodes[sibling].parent = ARB__NULL;
    arb__tree_free_node(t, parent);
  }
  arb__tree_free_node(t, leaf);
}

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
  uint64_t* keys;
  int count, capacity;
  bool overflow;
} arb__pair_query;

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

// The new shape pairs of bodies self and other (a body pair seen for the first time, or
// again): every pair of their shapes that collides and has no contact yet.
static void arb__add_shape_pairs(arb__pair_query* q, int self, int other) {
  arb_world* w = q->w;
  const arb__body* bs = &w->bodies[self];
  const arb__body* bo = &w->bodies[other];
  for (int i = 0; i < bs->shape_count; ++i) {
    for (int j = 0; j < bo->shape_count; ++j) {
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

static void arb__query_tree(arb__pair_query* q, const arb__tree* t, int self, arb_aabb box) {
  if (t->root == ARB__NULL) return;
  arb_world* w = q->w;
  const arb__body* bs = &w->bodies[self];
  if (arb__body_filtered_out(t, bs)) return;  // no pair could come out of it
  int stack[256];
  int top = 0;
  stack[top++] = t->root;
  while (top > 0) {
    int i = stack[--top];
    const arb__tree_node* node = &t->nodes[i];
    if (!arb_aabb_overlaps(node->aabb, box)) continue;
    if (node->height > 0) {
      if (top + 2 > 256) continue;  // a balanced tree is never this deep (2^128 leaves)
      stack[top++] = node->child1;
      stack[top++] = node->child2;
      continue;
    }
    int other = node->body;
    if (other == self) continue;
    const arb__body* bo = &w->bodies[other];
    // Both moved: the lower slot reports the pair (the other would report it again).
    if (bo->moved && other < self) continue;
    int ta = w->sims[self].type, tb = w->sims[other].type;
    if (ta != ARB_BODY_DYNAMIC && tb != ARB_BODY_DYNAMIC) continue;
    arb__add_shape_pairs(q, self, other);
  }
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

// The bodies to query: the moved list (in any order: the new pairs are sorted before
// they are created, and a slot listed twice only repeats keys that are dropped), or all
// slots when the list is not complete.
// New pairs of the moved bodies, queried by worker threads: each thread appends to its own
// key buffer (the trees and the pair map are only read), and the keys are sorted after,
// so the result does not depend on which thread found which pair.
typedef struct arb__pairs_job {
  arb_world* w;
  bool scan;                // every slot, not the moved list
  arb__pair_query* per_thread;
} arb__pairs_job;

static void arb__pairs_range(void* ctx, int begin, int end, int thread) {
  const arb__pairs_job* job = ctx;
  arb_world* w = job->w;
  arb__pair_query* q = &job->per_thread[thread];
  for (int k = begin; k < end; ++k) {
    int i = job->scan ? k : w->moved_list[k];
    const arb__body* b = &w->bodies[i];
    if (!b->moved) continue;  // destroyed since it was listed
    // Only a dynamic body can touch a static one: a kinematic rotor inside a static
    // ring would walk the ring's leaves every step for pairs that are all refused.
    if (w->sims[i].type == ARB_BODY_DYNAMIC) arb__query_tree(q, &w->static_tree, i, b->fat_aabb);
    arb__query_tree(q, &w->dynamic_tree, i, b->fat_aabb);
  }
}

void arb__update_pairs(arb_world* w) {
  const bool scan = w->moved_scan;
  const int n = scan ? w->body_slots : w->moved_count;
  int moved = 0;
  for (int k = 0; k < n; ++k) moved += w->bodies[scan ? k : w->moved_list[k]].moved;
  if (moved == 0) {
    w->moved_count = 0;
    w->moved_scan = false;
    return;
  }
  // Capacity guess from the previous high-water mark; on overflow the pass repeats with
  // a bigger buffer (only during warm-up: the arena remembers the size next step).
  int capacity = 4 * moved + 64;
  const int threads = arb_pool_threads(w->pool) + 1;
  arb__pair_query per_thread[ARB_POOL_MAX_THREADS + 1];
  for (;;) {
    uint64_t* keys = arb__stack_alloc(w, (size_t)threads * (size_t)capacity * sizeof *keys);
    if (!keys) return;
    for (int t = 0; t < threads; ++t) per_thread[t] = (arb__pair_query){w, keys + (size_t)t * (size_t)capacity, 0, capacity, false};
    arb__pairs_job job = {w, scan, per_thread};
    arb_pool_for(w->pool, arb__pairs_range, &job, n, 64);
    // The threads' keys, one run after the other (thread 0's are already in place).
    arb__pair_query q = per_thread[0];
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
      if (arb__contact_create(w, a, lo % ARB_MAX_BODY_SHAPES, b, hi % ARB_MAX_BODY_SHAPES) == 0)
        arb__wake_on_static_pair(w, a, b);
    }
    arb__stack_free(w, q.keys);
    break;
  }
  for (int k = 0; k < n; ++k) w->bodies[scan ? k : w->moved_list[k]].moved = 0;
  w->moved_count = 0;
  w->moved_scan = false;
}
