// The broad phase's dynamic AABB tree: insertion by the surface-area heuristic (SAH),
// rotations on the way up that lower the tree's total perimeter, and a binned SAH rebuild
// after many insertions at once.
//
// Why SAH rotations and not height balancing: a query's cost is the number of nodes whose
// box it overlaps, which grows with the boxes' perimeters, not with the height. Height
// rotations pair far-apart subtrees to keep the depth even and leave big, overlapping
// boxes; perimeter rotations keep neighbours together. The height is still bounded: a
// tree taller than ARB__TREE_MAX_HEIGHT is rebuilt at once, and a rebuild switches from
// SAH splits to median splits below ARB__BUILD_SAH_DEPTH, so it always ends far below.
//
// A moved proxy (thousands per step in a busy scene) keeps its node and its place: its
// ancestors grow in place to hold the new box and are flagged ARB__NODE_ENLARGED, and
// once per step, before the pair update, arb__tree_settle rebuilds the flagged top of the
// tree over the unflagged subtrees below it (Box2D v3 does the same). That rebuild
// splits at the middle of the centres, not by binned SAH: it runs every step over most
// of a busy tree, where SAH binning cost three times as much as the queries it saved
// (docs/BENCHMARKS.md, "Moved proxies grow in place"). A detach and an SAH descent per
// moved proxy, as before, cost more than both. The flags form a top part of the tree (a
// flagged node's parent is flagged), which lets a walk up stop at the first flagged
// ancestor that already holds the box.
//
// Nothing here is state: the shape depends on insertion history and rebuild points, and
// every caller orders what it finds independently of the walk (broad_phase.c, world.h).
#include <float.h>

#include "world.h"

// Below this depth a rebuild splits at the median (depth <= 40 + log2(leaves) < 96).
#define ARB__BUILD_SAH_DEPTH 40
#define ARB__BUILD_BINS 16
// The nodes start on a cache line (the allocator gives 16-byte alignment).
#define ARB__TREE_ALIGN 64

void arb__tree_init(arb__tree* t) {
  memset(t, 0, sizeof *t);
  t->root = ARB__NULL;
  t->free_list = ARB__NULL;
}

void arb__tree_free(arb_world* w, arb__tree* t) {
  arb__free(w, t->block);
  arb__tree_init(t);
}

// Doubles the node array (and the rebuild's scratch lists beside it).
static bool arb__tree_grow(arb_world* w, arb__tree* t) {
  int cap = t->capacity ? t->capacity * 2 : 64;
  size_t bytes =
      (size_t)cap * (sizeof(arb__tree_node) + sizeof(arb_aabb) + sizeof(int32_t)) + ARB__TREE_ALIGN;
  uint8_t* block = arb__alloc(w, bytes);
  if (!block) return false;
  uintptr_t misalign = (uintptr_t)block % ARB__TREE_ALIGN;  // DET-ALLOW: alignment, not order
  arb__tree_node* nodes = (arb__tree_node*)(block + (misalign ? ARB__TREE_ALIGN - misalign : 0));
  if (t->capacity) memcpy(nodes, t->nodes, (size_t)t->capacity * sizeof *nodes);
  for (int i = t->capacity; i < cap; ++i) {
    nodes[i].parent = i + 1 < cap ? i + 1 : t->free_list;
    nodes[i].height = -1;
  }
  arb__free(w, t->block);
  t->block = block;
  t->nodes = nodes;
  t->scratch_boxes = (arb_aabb*)(nodes + cap);
  t->scratch = (int32_t*)(t->scratch_boxes + cap);
  t->free_list = t->capacity;
  t->capacity = cap;
  return true;
}

static int arb__tree_alloc_node(arb_world* w, arb__tree* t) {
  if (t->free_list == ARB__NULL && !arb__tree_grow(w, t)) return ARB__NULL;
  int n = t->free_list;
  arb__tree_node* node = &t->nodes[n];
  t->free_list = node->parent;
  node->parent = ARB__NULL;
  node->child1 = ARB__NULL;
  node->child2 = ARB__NULL;
  node->height = 0;
  node->flags = 0;
  t->count += 1;
  return n;
}

static void arb__tree_free_node(arb__tree* t, int n) {
  t->nodes[n].parent = t->free_list;
  t->nodes[n].height = -1;
  t->free_list = n;
  t->count -= 1;
}

static void arb__tree_refit(arb__tree_node* n, int i) {
  const arb__tree_node* c1 = &n[n[i].child1];
  const arb__tree_node* c2 = &n[n[i].child2];
  n[i].aabb = arb_aabb_union(c1->aabb, c2->aabb);
  n[i].height = (int16_t)(1 + arb_maxi(c1->height, c2->height));
}

// Node a has children x and p (p internal, children g and s). Swapping x and g leaves a's
// box as it is and changes p's box to x + s: taken when that lowers p's perimeter, for the
// best of the (up to) four such swaps under a.
static void arb__tree_rotate(arb__tree* t, int ia) {
  arb__tree_node* n = t->nodes;
  if (n[ia].height < 2) return;
  int best_p = ARB__NULL, best_g = ARB__NULL;
  float best = 0.0f;
  arb_aabb best_box = n[ia].aabb;
  for (int k = 0; k < 2; ++k) {
    int ip = k == 0 ? n[ia].child1 : n[ia].child2;
    int ix = k == 0 ? n[ia].child2 : n[ia].child1;
    if (n[ip].height == 0) continue;
    float area = arb_aabb_perimeter(n[ip].aabb);
    for (int m = 0; m < 2; ++m) {
      int ig = m == 0 ? n[ip].child1 : n[ip].child2;
      int is = m == 0 ? n[ip].child2 : n[ip].child1;
      arb_aabb box = arb_aabb_union(n[ix].aabb, n[is].aabb);
      float gain = arb_aabb_perimeter(box) - area;
      if (gain < best) {
        best = gain;
        best_p = ip;
        best_g = ig;
        best_box = box;
      }
    }
  }
  if (best_p == ARB__NULL) return;
  int ix = n[ia].child1 == best_p ? n[ia].child2 : n[ia].child1;
  if (n[ia].child1 == ix) {
    n[ia].child1 = best_g;
  } else {
    n[ia].child2 = best_g;
  }
  if (n[best_p].child1 == best_g) {
    n[best_p].child1 = ix;
  } else {
    n[best_p].child2 = ix;
  }
  n[best_g].parent = ia;
  n[ix].parent = best_p;
  n[best_p].flags |= n[ix].flags & ARB__NODE_ENLARGED;  // x's parent now (a has it too)
  n[best_p].aabb = best_box;
  n[best_p].height =
      (int16_t)(1 + arb_maxi(n[n[best_p].child1].height, n[n[best_p].child2].height));
  n[ia].height = (int16_t)(1 + arb_maxi(n[n[ia].child1].height, n[n[ia].child2].height));
}

// The cheapest sibling for a new leaf by SAH, branch and bound along one path: a node's
// cost is the perimeter of its new parent plus what its ancestors grow by ("inherited");
// a subtree is left when even a leaf-sized box placed in it could not beat the best.
static int arb__tree_best_sibling(const arb__tree* t, int from, arb_aabb box) {
  const arb__tree_node* n = t->nodes;
  const float area_new = arb_aabb_perimeter(box);
  int i = from;
  float area = arb_aabb_perimeter(n[i].aabb);
  float direct = arb_aabb_perimeter(arb_aabb_union(n[i].aabb, box));
  float inherited = 0.0f;
  int best = i;
  float best_cost = direct;
  while (n[i].height > 0) {
    if (direct + inherited < best_cost) {
      best = i;
      best_cost = direct + inherited;
    }
    inherited += direct - area;
    int ch[2] = {n[i].child1, n[i].child2};
    float child_direct[2], child_area[2] = {0.0f, 0.0f}, lower[2];
    for (int k = 0; k < 2; ++k) {
      const arb__tree_node* c = &n[ch[k]];
      child_direct[k] = arb_aabb_perimeter(arb_aabb_union(c->aabb, box));
      if (c->height == 0) {
        if (child_direct[k] + inherited < best_cost) {
          best = ch[k];
          best_cost = child_direct[k] + inherited;
        }
        lower[k] = FLT_MAX;  // nothing below a leaf
      } else {
        child_area[k] = arb_aabb_perimeter(c->aabb);
        lower[k] = inherited + child_direct[k] + arb_minf(area_new - child_area[k], 0.0f);
      }
    }
    if (best_cost <= lower[0] && best_cost <= lower[1]) break;
    int k = lower[1] < lower[0] ? 1 : 0;
    if (lower[0] == lower[1]) {  // both contain the box: the nearer centre
      arb_vec2 c = arb_aabb_center(box);
      float d0 = arb_length_sq(arb_sub(arb_aabb_center(n[ch[0]].aabb), c));
      float d1 = arb_length_sq(arb_sub(arb_aabb_center(n[ch[1]].aabb), c));
      k = d1 < d0 ? 1 : 0;
    }
    i = ch[k];
    area = child_area[k];
    direct = child_direct[k];
  }
  return best;
}

// Many leaves since the last rebuild, or too tall: rebuild now (doubling keeps a scene
// load at O(n log n) in all).
static void arb__tree_after_insert(arb__tree* t) {
  if (t->leaf_count > 2 * t->rebuilt_leaves + 64 ||
      t->nodes[t->root].height > ARB__TREE_MAX_HEIGHT) {
    arb__tree_rebuild(t);
  }
}

static bool arb__same_box(arb_aabb a, arb_aabb b) {
  return a.lower.x == b.lower.x && a.lower.y == b.lower.y && a.upper.x == b.upper.x &&
         a.upper.y == b.upper.y;
}

// Refits node i; false when its box and height stayed as they were.
static bool arb__tree_refit_changed(arb__tree_node* n, int i) {
  arb_aabb box = n[i].aabb;
  int height = n[i].height;
  arb__tree_refit(n, i);
  return n[i].height != height || !arb__same_box(n[i].aabb, box);
}

// Hangs leaf (box set) into the tree next to its best sibling, under the free node parent,
// with rotations on the way up.
static void arb__tree_attach(arb__tree* t, int leaf, int parent) {
  arb__tree_node* n = t->nodes;
  n[leaf].parent = ARB__NULL;
  if (t->root == ARB__NULL) {
    t->root = leaf;
    arb__tree_free_node(t, parent);
    return;
  }
  int sibling = arb__tree_best_sibling(t, t->root, n[leaf].aabb);
  int old_parent = n[sibling].parent;
  n[parent].parent = old_parent;
  n[parent].child1 = sibling;
  n[parent].child2 = leaf;
  n[parent].flags = n[sibling].flags & ARB__NODE_ENLARGED;  // the sibling's parent now
  n[sibling].parent = parent;
  n[leaf].parent = parent;
  if (old_parent == ARB__NULL) {
    t->root = parent;
  } else if (n[old_parent].child1 == sibling) {
    n[old_parent].child1 = parent;
  } else {
    n[old_parent].child2 = parent;
  }
  arb__tree_refit(n, parent);
  arb__tree_rotate(t, parent);
  for (int i = n[parent].parent; i != ARB__NULL; i = n[i].parent) {
    arb__tree_refit(n, i);
    arb__tree_rotate(t, i);
  }
}

// Takes leaf out of the tree; returns its parent node, unlinked (ARB__NULL for the root).
// The ancestors are refitted up to the first one that does not change.
static int arb__tree_detach(arb__tree* t, int leaf) {
  arb__tree_node* n = t->nodes;
  if (leaf == t->root) {
    t->root = ARB__NULL;
    return ARB__NULL;
  }
  int parent = n[leaf].parent;
  int grand = n[parent].parent;
  int sibling = n[parent].child1 == leaf ? n[parent].child2 : n[parent].child1;
  n[sibling].parent = grand;
  if (grand == ARB__NULL) {
    t->root = sibling;
    return parent;
  }
  if (n[grand].child1 == parent) {
    n[grand].child1 = sibling;
  } else {
    n[grand].child2 = sibling;
  }
  for (int i = grand; i != ARB__NULL && arb__tree_refit_changed(n, i); i = n[i].parent) {
  }
  return parent;
}

// The body's shapes' filter bits join the tree's unions.
static void arb__tree_add_filters(arb__tree* t, const arb__body* b) {
  for (int i = 0; i < b->shape_count; ++i) {
    t->category_union |= arb__body_shape(b, i)->category_bits;
    t->mask_union |= arb__body_shape(b, i)->mask_bits;
  }
}

// A new leaf for body (the caller made room for it).
static int arb__tree_new_leaf(arb_world* w, arb__tree* t, arb_aabb aabb, int body,
                              const arb__body* b, bool dynamic) {
  int leaf = arb__tree_alloc_node(w, t);
  arb__tree_add_filters(t, b);
  arb__tree_node* n = &t->nodes[leaf];
  n->aabb = aabb;
  n->body = body;
  n->flags = (uint16_t)((dynamic ? ARB__LEAF_DYNAMIC : 0u) |
                        (b->shape_count > 1 ? ARB__LEAF_COMPOUND : 0u) |
                        (arb__body_pairs_by_shape(b) ? ARB__LEAF_BY_SHAPE : 0u));
  t->leaf_count += 1;
  return leaf;
}

int arb__tree_insert(arb_world* w, arb__tree* t, arb_aabb aabb, int body, const arb__body* b,
                     bool dynamic) {
  // Both nodes first: the array may move, and a failure leaves the tree as it was.
  if (t->capacity - t->count < 2 && !arb__tree_grow(w, t)) return ARB__NULL;
  int leaf = arb__tree_new_leaf(w, t, aabb, body, b, dynamic);
  int parent = arb__tree_alloc_node(w, t);
  arb__tree_attach(t, leaf, parent);
  arb__tree_after_insert(t);
  return leaf;
}

int arb__tree_add_leaf(arb_world* w, arb__tree* t, arb_aabb aabb, int body, const arb__body* b,
                       bool dynamic) {
  // Room for the internal nodes the rebuild will need (one per leaf but one).
  if (t->capacity < 2 * (t->leaf_count + 1) && !arb__tree_grow(w, t)) return ARB__NULL;
  return arb__tree_new_leaf(w, t, aabb, body, b, dynamic);
}

void arb__tree_move(arb__tree* t, int leaf, arb_aabb aabb, const arb__body* b) {
  arb__tree_add_filters(t, b);  // its shapes may have changed
  arb__tree_node* n = t->nodes;
  n[leaf].aabb = aabb;
  // Up to the first ancestor that holds the box and is flagged already: everything above
  // it holds its box, and is flagged.
  for (int i = n[leaf].parent; i != ARB__NULL; i = n[i].parent) {
    bool holds = arb_aabb_contains(n[i].aabb, aabb);
    if (holds && (n[i].flags & ARB__NODE_ENLARGED)) break;
    if (!holds) n[i].aabb = arb_aabb_union(n[i].aabb, aabb);
    n[i].flags |= ARB__NODE_ENLARGED;
    t->enlarged = true;
  }
}

void arb__tree_remove(arb__tree* t, int leaf) {
  t->leaf_count -= 1;
  if (t->leaf_count < t->rebuilt_leaves / 2) t->rebuilt_leaves = t->leaf_count;
  int parent = arb__tree_detach(t, leaf);
  if (parent != ARB__NULL) arb__tree_free_node(t, parent);
  arb__tree_free_node(t, leaf);
}

// ---- binned SAH rebuild -----------------------------------------------------------------

static float arb__centre_on(arb_aabb b, int axis) {
  return axis == 0 ? b.lower.x + b.upper.x : b.lower.y + b.upper.y;  // twice the centre
}

// The rebuild works on a copy of its leaves' boxes beside their indices (the unit i of a
// build is leaves[i] with box boxes[i]): its passes read them in order instead of going
// through the node array, and both arrays are reordered together.
static void arb__swap_units(int32_t* leaves, arb_aabb* boxes, int i, int j) {
  int32_t l = leaves[i];
  leaves[i] = leaves[j];
  leaves[j] = l;
  arb_aabb b = boxes[i];
  boxes[i] = boxes[j];
  boxes[j] = b;
}

// Reorders units so that the first `half` have the lowest centres on axis (quickselect).
static void arb__select_median(int32_t* leaves, arb_aabb* boxes, int count, int half, int axis) {
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    float pivot = arb__centre_on(boxes[(lo + hi) / 2], axis);
    int i = lo, j = hi;
    while (i <= j) {
      while (arb__centre_on(boxes[i], axis) < pivot) ++i;
      while (arb__centre_on(boxes[j], axis) > pivot) --j;
      if (i <= j) arb__swap_units(leaves, boxes, i++, j--);
    }
    if (half <= j) {
      hi = j;
    } else if (half >= i) {
      lo = i;
    } else {
      break;
    }
  }
}

static int arb__bin_of(arb_aabb b, int axis, float lo, float scale) {
  // Clamped as a float: boxes near the float range make centres overflow to infinity, and
  // an infinite extent a NaN here, which no int conversion may see.
  float f = (arb__centre_on(b, axis) - lo) * scale;
  if (!(f > 0.0f)) return 0;
  return f < (float)(ARB__BUILD_BINS - 1) ? (int)f : ARB__BUILD_BINS - 1;
}

// How many units go left: on the axis where the centres spread most, those below its
// middle (mid_split), or else the best of the bin boundaries (cost = count * perimeter on
// each side); the median when the centres coincide, the build is deep or a side would be
// empty. Units are reordered to match.
static int arb__build_split(int32_t* leaves, arb_aabb* boxes, int count, int depth,
                            bool mid_split) {
  arb_aabb centres = {{FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX}};
  for (int i = 0; i < count; ++i) {
    arb_aabb b = boxes[i];
    arb_vec2 c = arb_v2(b.lower.x + b.upper.x, b.lower.y + b.upper.y);
    centres.lower = arb_vmin(centres.lower, c);
    centres.upper = arb_vmax(centres.upper, c);
  }
  float ex = centres.upper.x - centres.lower.x, ey = centres.upper.y - centres.lower.y;
  int axis = ey > ex ? 1 : 0;
  float extent = axis ? ey : ex, lo = axis ? centres.lower.y : centres.lower.x;
  if (!(extent > 0.0f) || depth >= ARB__BUILD_SAH_DEPTH) {
    arb__select_median(leaves, boxes, count, count / 2, axis);
    return count / 2;
  }
  if (mid_split) {
    float mid = lo + 0.5f * extent;
    int left = 0;
    for (int i = 0; i < count; ++i) {
      if (arb__centre_on(boxes[i], axis) < mid) arb__swap_units(leaves, boxes, left++, i);
    }
    if (left > 0 && left < count) return left;
    arb__select_median(leaves, boxes, count, count / 2, axis);
    return count / 2;
  }
  float scale = (float)ARB__BUILD_BINS * 0.999f / extent;
  int bin_count[ARB__BUILD_BINS] = {0};
  arb_aabb bin_box[ARB__BUILD_BINS];
  for (int k = 0; k < ARB__BUILD_BINS; ++k) bin_box[k] = centres;  // replaced on first use
  for (int i = 0; i < count; ++i) {
    arb_aabb b = boxes[i];
    int k = arb__bin_of(b, axis, lo, scale);
    bin_box[k] = bin_count[k] ? arb_aabb_union(bin_box[k], b) : b;
    bin_count[k] += 1;
  }
  // right_cost[k]: the cost of bins k+1.. as one side.
  float right_cost[ARB__BUILD_BINS];
  arb_aabb acc = bin_box[ARB__BUILD_BINS - 1];
  int acc_n = 0;
  for (int k = ARB__BUILD_BINS - 1; k > 0; --k) {
    if (bin_count[k]) acc = acc_n ? arb_aabb_union(acc, bin_box[k]) : bin_box[k];
    acc_n += bin_count[k];
    right_cost[k - 1] = acc_n ? (float)acc_n * arb_aabb_perimeter(acc) : 0.0f;
  }
  int split = 0;
  float best = FLT_MAX;
  acc_n = 0;
  for (int k = 0; k < ARB__BUILD_BINS - 1; ++k) {
    if (bin_count[k]) acc = acc_n ? arb_aabb_union(acc, bin_box[k]) : bin_box[k];
    acc_n += bin_count[k];
    float cost = (acc_n ? (float)acc_n * arb_aabb_perimeter(acc) : 0.0f) + right_cost[k];
    if (acc_n > 0 && acc_n < count && cost < best) {
      best = cost;
      split = k;
    }
  }
  int left = 0;  // partition: bins 0..split first
  for (int i = 0; i < count; ++i) {
    if (arb__bin_of(boxes[i], axis, lo, scale) > split) continue;
    arb__swap_units(leaves, boxes, left++, i);
  }
  if (left == 0 || left == count) {  // no finite cost (a box with NaN): the median
    arb__select_median(leaves, boxes, count, count / 2, axis);
    return count / 2;
  }
  return left;
}

// Builds a subtree over units (count >= 1) from the free list; returns its root.
static int arb__build(arb__tree* t, int32_t* leaves, arb_aabb* boxes, int count, int depth,
                      bool mid_split) {
  if (count == 1) return leaves[0];
  int left = arb__build_split(leaves, boxes, count, depth, mid_split);
  int c1 = arb__build(t, leaves, boxes, left, depth + 1, mid_split);
  int c2 = arb__build(t, leaves + left, boxes + left, count - left, depth + 1, mid_split);
  int i = t->free_list;  // the rebuild freed exactly the internal nodes it needs
  arb__tree_node* n = t->nodes;
  t->free_list = n[i].parent;
  t->count += 1;
  n[i].child1 = c1;
  n[i].child2 = c2;
  n[i].flags = 0;
  n[c1].parent = i;
  n[c2].parent = i;
  arb__tree_refit(n, i);
  return i;
}

void arb__tree_rebuild(arb__tree* t) {
  t->rebuilt_leaves = t->leaf_count;
  t->enlarged = false;
  if (t->leaf_count == 0) return;
  arb__tree_node* n = t->nodes;
  int count = 0;
  for (int i = 0; i < t->capacity; ++i) {  // leaves in index order, internal nodes freed
    if (n[i].height == 0) {
      t->scratch_boxes[count] = n[i].aabb;
      t->scratch[count++] = i;
    } else if (n[i].height > 0) {
      arb__tree_free_node(t, i);
    }
  }
  t->root = arb__build(t, t->scratch, t->scratch_boxes, count, 0, false);
  n[t->root].parent = ARB__NULL;
}

// Rebuilds the flagged top of the tree: its nodes are freed, and the unflagged subtrees
// and leaves below them are built into a new top (one internal node fewer than subtrees:
// exactly the nodes freed).
static void arb__tree_rebuild_enlarged(arb__tree* t) {
  t->enlarged = false;
  arb__tree_node* n = t->nodes;
  if (t->root == ARB__NULL || !(n[t->root].flags & ARB__NODE_ENLARGED)) return;
  int count = 0;
  int32_t stack[2 * ARB__TREE_MAX_HEIGHT + 2];  // depth first: height + 1 entries at most
  int top = 0;
  stack[top++] = t->root;
  while (top > 0) {
    int i = stack[--top];
    if (n[i].height == 0 || !(n[i].flags & ARB__NODE_ENLARGED)) {
      t->scratch_boxes[count] = n[i].aabb;
      t->scratch[count++] = i;
      continue;
    }
    stack[top++] = n[i].child2;
    stack[top++] = n[i].child1;
    arb__tree_free_node(t, i);
  }
  t->root = arb__build(t, t->scratch, t->scratch_boxes, count, 0, true);
  n[t->root].parent = ARB__NULL;
  // Subtrees under a new top can stack up: the height bound holds whatever moved.
  if (n[t->root].height > ARB__TREE_MAX_HEIGHT) arb__tree_rebuild(t);
}

void arb__tree_settle(arb__tree* t) {
  if (t->leaf_count - t->rebuilt_leaves > 32 + t->rebuilt_leaves / 8) {
    arb__tree_rebuild(t);
  } else if (t->enlarged) {
    arb__tree_rebuild_enlarged(t);
  }
}
