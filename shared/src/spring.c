// DETERMINISM-CRITICAL: springs between bodies (force generators, see joint.h).
// Springs are applied in slot order before the solver; the force enters the bodies'
// accumulators, which the solver applies once per step (semi-implicit Euler at the step
// level, so an undamped spring keeps its energy and its period).
#include "extras.h"

#define ARB__SPRING_COOKIE 0x53505247  // "SPRG"

arb_spring_def arb_default_spring_def(void) {
  arb_spring_def d;
  memset(&d, 0, sizeof d);
  d.internal_value = ARB__SPRING_COOKIE;
  return d;
}

static bool arb__spring_def_ok(const arb_world* w, const arb_spring_def* d) {
  if (d->internal_value != ARB__SPRING_COOKIE) return false;
  if (arb__body_slot(w, d->body_a) < 0) return false;
  if (!arb_body_id_is_null(d->body_b) && arb__body_slot(w, d->body_b) < 0) return false;
  if (arb_body_id_equals(d->body_a, d->body_b)) return false;
  if (!arb_vec2_is_valid(d->local_anchor_a) || !arb_vec2_is_valid(d->local_anchor_b)) return false;
  float f[] = {d->rest_length, d->stiffness, d->damping};
  for (int i = 0; i < 3; ++i) {
    if (!arb_is_valid_float(f[i]) || f[i] < 0.0f) return false;
  }
  return true;
}

static void arb__spring_destroyed(arb_world* w, const arb__spring* s) {
  arb__constraint_ends_released(w, s->body_a, s->body_b);
}
ARB__EXTRA_LOOKUPS(arb__spring, spring, springs, spring_slots, spring_cap, spring_free)

// Fills a claimed spring from its def.
static void arb__spring_created(arb_world* w, arb__spring* s, const arb_spring_def* def) {
  s->body_a = def->body_a;
  s->body_b = def->body_b;
  s->local_a = def->local_anchor_a;
  s->local_b = def->local_anchor_b;
  s->rest_length = def->rest_length;
  s->stiffness = def->stiffness;
  s->damping = def->damping;
  arb__constraint_ends_created(w, def->body_a, def->body_b);
}
ARB__EXTRA_CREATE(arb__spring, spring, ARB__SPRING_COOKIE)

int arb_world_get_spring_count(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return arb__spring_ids(w, NULL, 0);
}

// World anchor points and their velocities; false when body A is gone.
static bool arb__spring_points(const arb_world* w, const arb__spring* s, arb_vec2* pa, arb_vec2* pb,
                               arb_vec2* va, arb_vec2* vb, int* ia, int* ib) {
  *ia = arb__body_slot(w, s->body_a);
  *ib = arb_body_id_is_null(s->body_b) ? -1 : arb__body_slot(w, s->body_b);
  if (*ia < 0 || (*ib < 0 && !arb_body_id_is_null(s->body_b))) return false;
  const arb__body* a = &w->bodies[*ia];
  *pa = arb_transform_point(a->xf, s->local_a);
  const arb__body_state* sa = &w->states[*ia];
  *va = arb_add(sa->v, arb_cross_sv(sa->w, arb_sub(*pa, a->center)));
  if (*ib >= 0) {
    const arb__body* b = &w->bodies[*ib];
    const arb__body_state* sb = &w->states[*ib];
    *pb = arb_transform_point(b->xf, s->local_b);
    *vb = arb_add(sb->v, arb_cross_sv(sb->w, arb_sub(*pb, b->center)));
  } else {
    *pb = s->local_b;
    *vb = arb_vec2_zero;
  }
  return true;
}

float arb_spring_get_length(const arb_world* w, arb_extra_id id) {
  const arb__spring* s = arb__spring_get(w, id);
  arb_vec2 pa, pb, va, vb;
  int ia, ib;
  if (!s || !arb__spring_points(w, s, &pa, &pb, &va, &vb, &ia, &ib)) return 0.0f;
  return arb_distance(pa, pb);
}

int arb_spring_get_anchors(const arb_world* w, arb_extra_id id, arb_vec2* a, arb_vec2* b) {
  const arb__spring* s = arb__spring_get(w, id);
  arb_vec2 pa = arb_vec2_zero, pb = arb_vec2_zero, va, vb;
  int ia, ib, rc = ARB_E_STALE_ID;
  if (s && arb__spring_points(w, s, &pa, &pb, &va, &vb, &ia, &ib)) {
    rc = 0;
  } else {
    pa = pb = arb_vec2_zero;
  }
  if (a) *a = pa;
  if (b) *b = pb;
  return rc;
}

int arb_spring_get_bodies(const arb_world* w, arb_extra_id id, arb_body_id* body_a,
                          arb_body_id* body_b, arb_vec2* local_a, arb_vec2* local_b) {
  const arb__spring* s = arb__spring_get(w, id);
  return ARB__ATTACHMENT_OUT(s, body_a, body_b, local_a, local_b);
}

int arb_world_get_springs(const arb_world* w, arb_extra_id* out, int cap) {
  ARB__CHECK_WORLD(w);
  return arb__spring_ids(w, out, cap);
}

static void arb__add_force(arb_world* w, int slot, arb_vec2 f, arb_vec2 point) {
  // A sleeping body's springs are at rest with it (an island sleeps whole).
  if (slot < 0 || w->sims[slot].type != ARB_BODY_DYNAMIC || w->bodies[slot].sleeping) return;
  arb__body* b = &w->bodies[slot];
  b->force = arb_add(b->force, f);
  b->torque += arb_cross(arb_sub(point, b->center), f);
}

void arb__springs_apply(arb_world* w) {
  arb__extras* x = w->extras;
  for (int i = 0; i < x->spring_slots; ++i) {  // DET: slot order
    const arb__spring* s = &x->springs[i];
    if (!s->in_use) continue;
    arb_vec2 pa, pb, va, vb;
    int ia, ib;
    if (!arb__spring_points(w, s, &pa, &pb, &va, &vb, &ia, &ib)) continue;
    float len;
    arb_vec2 axis = arb_get_length_and_normalize(&len, arb_sub(pb, pa));
    if (len < ARB_LINEAR_SLOP * 0.01f) continue;  // no direction: no force
    float speed = arb_dot(arb_sub(vb, va), axis);
    // Tension pulls A towards B: positive when stretched or separating.
    float tension = s->stiffness * (len - s->rest_length) + s->damping * speed;
    arb_vec2 f = arb_scale(tension, axis);
    arb__add_force(w, ia, f, pa);
    arb__add_force(w, ib, arb_neg(f), pb);
  }
}
