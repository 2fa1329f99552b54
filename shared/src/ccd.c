// DETERMINISM-CRITICAL: continuous collision for `bullet` bodies.
//
// Before the solver the start pose (centre of mass, rotation) of every body is recorded
// (only when the world holds a bullet). After finalize, each bullet in slot order sweeps
// from its start pose to its end pose against every body its swept box touches, those
// bodies held at their final pose (as Box2D v3 does: the bullet is placed where it meets
// what is there now, so it can not end up behind a body that moved on), by conservative
// advancement (arb_time_of_impact). The bullet is moved back to the earliest time of
// impact (ties: the lower slot, by strict comparison in slot order) and keeps its
// velocity: it now sits within the speculative distance of what it hit, so the next
// step's speculative contact stops it at the surface instead of behind it. Bodies it
// already touches at its start pose (overlap, or a hit at t = 0) are left to the ordinary
// contacts.
// The start poses are step scratch (per-step arena), not state: they are recomputed from
// the state at every step, so restore + step is unaffected.
#include "extras.h"

// Sleeping bullets do not move: only awake bodies are looked at (all slots while nothing
// sleeps, see arb__awake_list).
static bool arb__is_bullet(const arb_world* w, int i) {
  return w->bodies[i].in_use && w->bodies[i].bullet && w->sims[i].type == ARB_BODY_DYNAMIC &&
         !w->bodies[i].sleeping;
}

void arb__ccd_begin(arb_world* w) {
  arb__extras* x = w->extras;
  bool any = false;
  int n;
  const int32_t* list = arb__awake_list(w, &n);
  for (int k = 0; k < n && !any; ++k) any = arb__is_bullet(w, list ? list[k] : k);
  if (x) x->sweeping = false;
  if (!any) return;
  if (!x) x = arb__extras_get(w);  // allocates once, the first step with a bullet
  if (!x) return;
  x->sweep_c = arb__stack_alloc(w, (size_t)w->body_slots * sizeof *x->sweep_c);
  x->sweep_q = x->sweep_c ? arb__stack_alloc(w, (size_t)w->body_slots * sizeof *x->sweep_q) : NULL;
  x->sweep_keys =
      x->sweep_q ? arb__stack_alloc(w, (size_t)w->body_slots * sizeof *x->sweep_keys) : NULL;
  if (!x->sweep_keys) {
    if (x->sweep_q) arb__stack_free(w, x->sweep_q);
    if (x->sweep_c) arb__stack_free(w, x->sweep_c);
    x->sweep_c = NULL;
    x->sweep_q = NULL;
    return;
  }
  for (int i = 0; i < w->body_slots; ++i) {
    x->sweep_c[i] = w->bodies[i].center;
    x->sweep_q[i] = w->bodies[i].xf.q;
  }
  x->sweeping = true;
}

static arb_shape_proxy arb__proxy(const arb_shape_def* s) {
  if (s->type == ARB_SHAPE_CIRCLE) return arb_make_circle_proxy(&s->circle);
  if (s->type == ARB_SHAPE_POLYGON) return arb_make_polygon_proxy(&s->polygon);
  return arb_make_segment_proxy(&s->segment);
}

// The bullet's own motion over the step, or (moving == false) a body held at its end pose.
static arb_sweep arb__sweep(const arb_world* w, const arb__extras* x, int i, bool moving) {
  const arb__body* b = &w->bodies[i];
  arb_sweep s;
  s.local_center = b->local_center;
  s.c2 = b->center;
  s.q2 = b->xf.q;
  s.c1 = moving ? x->sweep_c[i] : b->center;
  s.q1 = moving ? x->sweep_q[i] : b->xf.q;
  return s;
}

// Every body whose fat box overlaps `box`, as ascending slots in keys (no cap: each body
// is in one tree once, so at most body_slots). The trees' shape is not state, hence the
// sort; a tree too deep for the walk stack falls back to a scan in slot order.
static int arb__ccd_candidates(arb_world* w, arb_aabb box, uint64_t* keys) {
  const arb__tree* trees[2] = {&w->static_tree, &w->dynamic_tree};
  int n = 0;
  for (int k = 0; k < 2; ++k) {
    const arb__tree* t = trees[k];
    if (t->root == ARB__NULL) continue;
    int32_t stack[256];
    int top = 0;
    stack[top++] = t->root;
    while (top > 0) {
      const arb__tree_node* node = &t->nodes[stack[--top]];
      if (!arb_aabb_overlaps(node->aabb, box)) continue;
      if (node->height == 0) {
        keys[n++] = (uint64_t)node->body;
      } else if (top + 2 <= 256) {
        stack[top++] = node->child1;
        stack[top++] = node->child2;
      } else {
        n = 0;
        for (int s = 0; s < w->body_slots; ++s) {
          if (w->bodies[s].in_use && arb_aabb_overlaps(w->bodies[s].fat_aabb, box))
            keys[n++] = (uint64_t)s;
        }
        return n;
      }
    }
  }
  arb__sort_u64(w, keys, n);
  return n;
}

static void arb__ccd_bullet(arb_world* w, arb__extras* x, int i) {
  arb__body* b = &w->bodies[i];
  arb_sweep sa = arb__sweep(w, x, i, true);
  if (sa.c1.x == sa.c2.x && sa.c1.y == sa.c2.y && sa.q1.c == sa.q2.c && sa.q1.s == sa.q2.s) return;
  arb_transform xf1 = {arb_sub(sa.c1, arb_rotate(sa.q1, sa.local_center)), sa.q1};
  arb__body tmp = *b;
  tmp.xf = xf1;
  arb_aabb box = arb_aabb_union(arb__body_compute_aabb(&tmp), arb__body_compute_aabb(b));
  int n = arb__ccd_candidates(w, box, x->sweep_keys);
  arb_toi_input in;
  memset(&in, 0, sizeof in);
  in.proxy_a = arb__proxy(&b->shape);
  in.sweep_a = sa;
  float t = 1.0f;
  for (int k = 0; k < n; ++k) {  // DET: slot order
    int j = (int)x->sweep_keys[k];
    if (j == i) continue;
    const arb__body* o = &w->bodies[j];
    if (!arb__body_should_collide(b, o) || !arb__contact_has_collider(b->shape.type, o->shape.type))
      continue;
    in.proxy_b = arb__proxy(&o->shape);
    in.sweep_b = arb__sweep(w, x, j, false);
    in.max_fraction = t;
    arb_toi_output out = arb_time_of_impact(&in);
    // A hit at t = 0 is a bullet already resting on the surface (it was placed there by
    // the last step): its contact exists and handles it; pinning it there would stop a
    // bullet that is leaving.
    if (out.state == ARB_TOI_HIT && out.fraction > 0.0f && out.fraction < t) t = out.fraction;
  }
  if (t >= 1.0f) return;
  arb_transform xf = arb_get_sweep_transform(&sa, t);
  b->xf = xf;
  b->center = arb_transform_point(xf, b->local_center);
  arb__body_refresh_proxy(w, i, false);
}

void arb__ccd_finish(arb_world* w) {
  arb__extras* x = w->extras;
  if (!x || !x->sweeping) return;
  int n;
  const int32_t* list = arb__awake_list(w, &n);
  for (int k = 0; k < n; ++k) {  // DET: slot order
    int i = list ? list[k] : k;
    if (arb__is_bullet(w, i)) arb__ccd_bullet(w, x, i);
  }
  arb__stack_free(w, x->sweep_keys);
  arb__stack_free(w, x->sweep_q);
  arb__stack_free(w, x->sweep_c);
  x->sweep_keys = NULL;
  x->sweep_c = NULL;
  x->sweep_q = NULL;
  x->sweeping = false;
}
