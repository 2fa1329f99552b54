// World queries with collision filtering (see query.h). Read-only; results come in slot
// order, so they never depend on the broad-phase trees' shape.
#include "arbiter/query.h"
#include "extras.h"

arb_query_filter arb_default_query_filter(void) {
  arb_query_filter f = {0xffffffffu, 0xffffffffu, 0, 0u};
  return f;
}

bool arb_query_filter_accepts(arb_query_filter f, const arb_shape_def* s) {
  if (!s) return false;
  if (f.group != 0 && f.group == s->group) return f.group > 0;
  return (f.mask_bits & s->category_bits) != 0u && (s->mask_bits & f.category_bits) != 0u;
}

// A world query's test of the body in `slot` (in use): one of its shapes through the
// filter, and its type in the filter's body types.
static bool arb__sees(const arb_world* w, arb_query_filter f, int slot) {
  const arb__body* b = &w->bodies[slot];
  if (f.body_types != 0u && (f.body_types & ARB_QUERY_TYPE(w->sims[slot].type)) == 0u) return false;
  for (int i = 0; i < b->shape_count; ++i) {
    if (arb_query_filter_accepts(f, arb__body_shape(b, i))) return true;
  }
  return false;
}

// The closest of the body's solid shapes that the filter sees.
static arb_cast_output arb__cast_body(const arb__body* b, arb_vec2 origin, arb_vec2 translation,
                                      float max_fraction, const arb_query_filter* f) {
  arb_ray_input local = {arb_inv_transform_point(b->xf, origin),
                         arb_inv_rotate(b->xf.q, translation), max_fraction};
  arb_cast_output o = arb__body_ray_cast(b, &local, f);
  if (o.hit) {
    o.point = arb_transform_point(b->xf, o.point);
    o.normal = arb_rotate(b->xf.q, o.normal);
  }
  return o;
}

static arb_ray_hit arb__make_hit(const arb_world* w, int i, arb_cast_output o) {
  arb_ray_hit h;
  h.body.index1 = i + 1;
  h.body.generation = w->bodies[i].generation;
  h.point = o.point;
  h.normal = o.normal;
  h.fraction = o.fraction;
  return h;
}

static bool arb__ray_ok(const arb_world* w, arb_vec2 origin, arb_vec2 translation) {
  return w && arb_vec2_is_valid(origin) && arb_vec2_is_valid(translation);
}

bool arb_world_ray_cast_closest(const arb_world* w, arb_vec2 origin, arb_vec2 translation,
                                arb_query_filter f, arb_ray_hit* out) {
  ARB__CHECK_WORLD(w);
  if (!arb__ray_ok(w, origin, translation)) return false;
  float best = 1.0f;
  int best_i = -1;
  arb_cast_output best_o;
  memset(&best_o, 0, sizeof best_o);
  arb_ray_input in = {origin, translation, 1.0f};
  for (int i = 0; i < w->body_slots; ++i) {  // DET: slot order; ties keep the lower slot
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb__sees(w, f, i)) continue;  // rays pass through sensors
    in.max_fraction = best;
    if (!arb_ray_cast_aabb(&in, b->fat_aabb).hit) continue;
    arb_cast_output o = arb__cast_body(b, origin, translation, best, &f);
    if (!o.hit || o.fraction > best || (o.fraction == best && best_i >= 0)) continue;
    best = o.fraction;
    best_i = i;
    best_o = o;
  }
  if (best_i < 0) return false;
  if (out) *out = arb__make_hit(w, best_i, best_o);
  return true;
}

int arb_world_ray_cast_all(const arb_world* w, arb_vec2 origin, arb_vec2 translation,
                           arb_query_filter f, arb_ray_hit* out, int cap) {
  ARB__CHECK_WORLD(w);
  if (!arb__ray_ok(w, origin, translation)) return 0;
  int n = 0;
  arb_ray_input in = {origin, translation, 1.0f};
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb__sees(w, f, i)) continue;  // rays pass through sensors
    if (!arb_ray_cast_aabb(&in, b->fat_aabb).hit) continue;
    arb_cast_output o = arb__cast_body(b, origin, translation, 1.0f, &f);
    if (!o.hit) continue;
    if (out && cap > 0) {
      // Insertion by (fraction, slot); slots arrive ascending, so equal fractions stay in
      // slot order. When the buffer is full the farthest hit drops off.
      arb_ray_hit h = arb__make_hit(w, i, o);
      int m = n < cap ? n : cap;
      int k = m;
      while (k > 0 && out[k - 1].fraction > h.fraction) --k;
      if (k < cap) {
        int last = m < cap ? m : cap - 1;
        for (int s = last; s > k; --s) out[s] = out[s - 1];
        out[k] = h;
      }
    }
    n += 1;
  }
  return n;
}

// The lowest `cap` slots seen so far, kept as a max-heap on the slot (out[0] = highest):
// tree traversal order depends on the tree's shape, which is not state, so a full buffer
// keeps the slots a slot-order scan would have kept.
static void arb__heap_sift_down(arb_body_id* h, int n, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && h[l].index1 > h[m].index1) m = l;
    if (r < n && h[r].index1 > h[m].index1) m = r;
    if (m == i) return;
    arb_body_id t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static void arb__heap_sift_up(arb_body_id* h, int i) {
  while (i > 0 && h[(i - 1) / 2].index1 < h[i].index1) {
    arb_body_id t = h[i];
    h[i] = h[(i - 1) / 2];
    h[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

typedef struct arb__overlap_query {
  const arb_world* w;
  arb_aabb box;
  arb_query_filter filter;
  arb_body_id* out;  // max-heap of the lowest slots (kept <= cap)
  int cap, kept, total;
} arb__overlap_query;

static void arb__overlap_hit(arb__overlap_query* q, int slot) {
  const arb__body* b = &q->w->bodies[slot];
  if (!arb__sees(q->w, q->filter, slot)) return;
  if (!arb_aabb_overlaps(arb__body_compute_aabb(b), q->box)) return;
  q->total += 1;
  if (!q->out || q->cap <= 0) return;
  arb_body_id id = {slot + 1, b->generation};
  if (q->kept < q->cap) {
    q->out[q->kept] = id;
    arb__heap_sift_up(q->out, q->kept++);
  } else if (id.index1 < q->out[0].index1) {
    q->out[0] = id;
    arb__heap_sift_down(q->out, q->kept, 0);
  }
}

// A tree's leaves whose fat AABB overlaps the box (a leaf's box is its body's fat AABB).
// False when the traversal stack overflowed (a tree that deep is never balanced).
static bool arb__overlap_leaf(void* ctx, int body) {
  arb__overlap_hit(ctx, body);
  return true;
}

static bool arb__overlap_tree(arb__overlap_query* q, const arb__tree* t) {
  return arb__tree_query(t, q->box, arb__overlap_leaf, q);
}

// Heap sort of the kept slots into ascending slot order (in place).
static void arb__heap_sort(arb_body_id* h, int n) {
  for (int end = n - 1; end > 0; --end) {
    arb_body_id t = h[0];
    h[0] = h[end];
    h[end] = t;
    arb__heap_sift_down(h, end, 0);
  }
}

// From the broad-phase trees (O(log n + hits)), with the result of a slot-order scan of
// every body: same bodies, same order, same total.
int arb_world_overlap_aabb(const arb_world* w, arb_aabb box, arb_query_filter f, arb_body_id* out,
                           int cap) {
  ARB__CHECK_WORLD(w);
  if (!w || !arb_vec2_is_valid(box.lower) || !arb_vec2_is_valid(box.upper)) return 0;
  arb__overlap_query q = {w, box, f, out, cap, 0, 0};
  if (!arb__overlap_tree(&q, &w->static_tree) || !arb__overlap_tree(&q, &w->dynamic_tree)) {
    q.kept = q.total = 0;
    for (int i = 0; i < w->body_slots; ++i) {
      if (w->bodies[i].in_use && arb_aabb_overlaps(w->bodies[i].fat_aabb, box))
        arb__overlap_hit(&q, i);
    }
  }
  arb__heap_sort(out, q.kept);
  return q.total;
}

int arb_world_query_point(const arb_world* w, arb_vec2 point, arb_query_filter f, arb_body_id* out,
                          int cap) {
  ARB__CHECK_WORLD(w);
  if (!w || !arb_vec2_is_valid(point)) return 0;
  int n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb__sees(w, f, i)) continue;
    if (!arb_aabb_contains_point(b->fat_aabb, point)) continue;
    arb_vec2 lp = arb_inv_transform_point(b->xf, point);
    bool inside = false;
    for (int k = 0; k < b->shape_count && !inside; ++k) {
      const arb_shape_def* s = arb__body_shape(b, k);
      inside = arb_query_filter_accepts(f, s) && arb__shape_contains_point(s, lp);
    }
    if (!inside) continue;
    if (out && n < cap) {
      out[n].index1 = i + 1;
      out[n].generation = b->generation;
    }
    n += 1;
  }
  return n;
}
