// World queries with collision filtering (see query.h). Read-only; bodies are visited in
// slot order, so results never depend on the broad-phase trees' shape.
#include "arbiter/query.h"
#include "extras.h"

arb_query_filter arb_default_query_filter(void) {
  arb_query_filter f = {0xffffffffu, 0xffffffffu, 0};
  return f;
}

bool arb_query_filter_accepts(arb_query_filter f, const arb_shape_def* s) {
  if (!s) return false;
  if (f.group != 0 && f.group == s->group) return f.group > 0;
  return (f.mask_bits & s->category_bits) != 0u && (s->mask_bits & f.category_bits) != 0u;
}

static arb_cast_output arb__cast_body(const arb__body* b, arb_vec2 origin, arb_vec2 translation,
                                      float max_fraction) {
  arb_ray_input local = {arb_inv_transform_point(b->xf, origin),
                         arb_inv_rotate(b->xf.q, translation), max_fraction};
  arb_cast_output o;
  memset(&o, 0, sizeof o);
  if (b->shape.type == ARB_SHAPE_CIRCLE) o = arb_ray_cast_circle(&local, &b->shape.circle);
  if (b->shape.type == ARB_SHAPE_POLYGON) o = arb_ray_cast_polygon(&local, &b->shape.polygon);
  if (b->shape.type == ARB_SHAPE_SEGMENT) o = arb_ray_cast_segment(&local, &b->shape.segment);
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
  if (!arb__ray_ok(w, origin, translation)) return false;
  float best = 1.0f;
  int best_i = -1;
  arb_cast_output best_o;
  memset(&best_o, 0, sizeof best_o);
  arb_ray_input in = {origin, translation, 1.0f};
  for (int i = 0; i < w->body_slots; ++i) {  // DET: slot order; ties keep the lower slot
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb_query_filter_accepts(f, &b->shape)) continue;
    in.max_fraction = best;
    if (!arb_ray_cast_aabb(&in, b->fat_aabb).hit) continue;
    arb_cast_output o = arb__cast_body(b, origin, translation, best);
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
  if (!arb__ray_ok(w, origin, translation)) return 0;
  int n = 0;
  arb_ray_input in = {origin, translation, 1.0f};
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb_query_filter_accepts(f, &b->shape)) continue;
    if (!arb_ray_cast_aabb(&in, b->fat_aabb).hit) continue;
    arb_cast_output o = arb__cast_body(b, origin, translation, 1.0f);
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

int arb_world_overlap_aabb(const arb_world* w, arb_aabb box, arb_query_filter f, arb_body_id* out,
                           int cap) {
  if (!w || !arb_vec2_is_valid(box.lower) || !arb_vec2_is_valid(box.upper)) return 0;
  int n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb_query_filter_accepts(f, &b->shape)) continue;
    if (!arb_aabb_overlaps(b->fat_aabb, box) || !arb_aabb_overlaps(arb__body_compute_aabb(b), box))
      continue;
    if (out && n < cap) {
      out[n].index1 = i + 1;
      out[n].generation = b->generation;
    }
    n += 1;
  }
  return n;
}

int arb_world_query_point(const arb_world* w, arb_vec2 point, arb_query_filter f, arb_body_id* out,
                          int cap) {
  if (!w || !arb_vec2_is_valid(point)) return 0;
  int n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb_query_filter_accepts(f, &b->shape)) continue;
    if (!arb_aabb_contains_point(b->fat_aabb, point)) continue;
    arb_vec2 lp = arb_inv_transform_point(b->xf, point);
    bool inside = false;
    if (b->shape.type == ARB_SHAPE_CIRCLE) inside = arb_point_in_circle(lp, &b->shape.circle);
    if (b->shape.type == ARB_SHAPE_POLYGON) inside = arb_point_in_polygon(lp, &b->shape.polygon);
    if (!inside) continue;
    if (out && n < cap) {
      out[n].index1 = i + 1;
      out[n].generation = b->generation;
    }
    n += 1;
  }
  return n;
}
