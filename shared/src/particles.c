// DETERMINISM-CRITICAL: Verlet particles and distance constraints (see particles.h).
// Particles move in creation order, constraints relax in creation order (Gauss-Seidel),
// and each particle meets the bodies it overlaps in body slot order.
#include "extras.h"

#define ARB__PARTICLE_COOKIE 0x50415254  // "PART"
#define ARB__MAX_CONSTRAINT_ITERATIONS 256

// Room for one more item after `count` in a dense array of at most ARB__MAX_EXTRAS
// (capacity doubling from 64): the array, moved if it grew. *err is ARB_OK, ARB_E_FULL or
// ARB_E_NOMEM (then the array is unchanged).
static void* arb__append_room(arb_world* w, void* items, int32_t count, int32_t* cap, size_t elem,
                              int* err) {
  *err = ARB_OK;
  if (count >= ARB__MAX_EXTRAS) {
    *err = ARB_E_FULL;
    return items;
  }
  if (count < *cap) return items;
  int32_t new_cap = *cap ? 2 * *cap : 64;
  void* grown = arb__grow(w, items, count, new_cap, elem);
  if (!grown) {
    *err = ARB_E_NOMEM;
    return items;
  }
  *cap = new_cap;
  return grown;
}

arb_particle_def arb_default_particle_def(void) {
  arb_particle_def d;
  memset(&d, 0, sizeof d);
  d.mass = 1.0f;
  d.mask_bits = 0xffffffffu;
  d.internal_value = ARB__PARTICLE_COOKIE;
  return d;
}

int arb_particle_create(arb_world* w, const arb_particle_def* d) {
  ARB__CHECK_DEF(d, ARB__PARTICLE_COOKIE);
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w || !d || d->internal_value != ARB__PARTICLE_COOKIE) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  if (!arb_vec2_is_valid(d->position) || !arb_is_valid_float(d->mass) || !(d->mass > 0.0f) ||
      !arb_is_valid_float(d->radius) || d->radius < 0.0f || d->radius > 1.0e3f ||
      !arb_is_valid_float(d->damping) || d->damping < 0.0f) {
    return ARB_E_INVAL;
  }
  arb__extras* x = arb__extras_get(w);
  if (!x) return ARB_E_NOMEM;
  int err;
  x->particles = arb__append_room(w, x->particles, x->particle_count, &x->particle_cap,
                                  sizeof *x->particles, &err);
  if (err) return err;
  arb__particle* p = &x->particles[x->particle_count];
  memset(p, 0, sizeof *p);
  p->p = d->position;
  p->prev = d->position;
  p->mass = d->mass;
  p->inv_mass = d->pinned ? 0.0f : 1.0f / d->mass;
  p->radius = d->radius;
  p->damping = d->damping;
  p->mask_bits = d->mask_bits;
  return x->particle_count++;
}

static arb__particle* arb__particle_at(const arb_world* w, int i) {
  const arb__extras* x = w ? w->extras : NULL;
  if (!x || i < 0 || i >= x->particle_count) return NULL;
  return &x->particles[i];
}

int arb_world_get_particle_count(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return w && w->extras ? w->extras->particle_count : 0;
}

arb_vec2 arb_particle_get_position(const arb_world* w, int i) {
  const arb__particle* p = arb__particle_at(w, i);
  return p ? p->p : arb_vec2_zero;
}

arb_vec2 arb_particle_get_velocity(const arb_world* w, int i) {
  const arb__particle* p = arb__particle_at(w, i);
  if (!p || w->extras->last_dt <= 0.0f) return arb_vec2_zero;
  // prev is one substep back (see arb__particles_step).
  return arb_scale((float)w->def.substeps / w->extras->last_dt, arb_sub(p->p, p->prev));
}

bool arb_particle_is_pinned(const arb_world* w, int i) {
  const arb__particle* p = arb__particle_at(w, i);
  return p && p->inv_mass == 0.0f;
}

int arb_particle_set_position(arb_world* w, int i, arb_vec2 pos) {
  arb__particle* p = arb__particle_at(w, i);
  if (!p) return ARB_E_RANGE;
  if (w->locked) return ARB_E_STATE;
  if (!arb_vec2_is_valid(pos)) return ARB_E_INVAL;
  p->p = pos;
  p->prev = pos;
  return 0;
}

int arb_particle_set_pinned(arb_world* w, int i, bool pinned) {
  arb__particle* p = arb__particle_at(w, i);
  if (!p) return ARB_E_RANGE;
  if (w->locked) return ARB_E_STATE;
  p->inv_mass = pinned ? 0.0f : 1.0f / p->mass;
  return 0;
}

int arb_constraint_create(arb_world* w, const arb_constraint_def* d) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w || !d) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  arb__extras* x = w->extras;
  int n = x ? x->particle_count : 0;
  if (d->a < 0 || d->b < 0 || d->a >= n || d->b >= n || d->a == d->b) return ARB_E_RANGE;
  if (!arb_is_valid_float(d->rest_length) || !arb_is_valid_float(d->stiffness) ||
      !(d->stiffness > 0.0f) || d->stiffness > 1.0f) {
    return ARB_E_INVAL;
  }
  int err;
  x->constraints = arb__append_room(w, x->constraints, x->constraint_count, &x->constraint_cap,
                                    sizeof *x->constraints, &err);
  if (err) return err;
  arb__constraint* c = &x->constraints[x->constraint_count];
  c->a = d->a;
  c->b = d->b;
  c->rest = d->rest_length >= 0.0f ? d->rest_length
                                   : arb_distance(x->particles[d->a].p, x->particles[d->b].p);
  c->stiffness = d->stiffness;
  return x->constraint_count++;
}

int arb_world_get_constraint_count(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return w && w->extras ? w->extras->constraint_count : 0;
}

int arb_constraint_get(const arb_world* w, int i, int* a, int* b, float* rest) {
  ARB__CHECK_WORLD(w);
  const arb__extras* x = w ? w->extras : NULL;
  if (!x || i < 0 || i >= x->constraint_count) return ARB_E_RANGE;
  if (a) *a = x->constraints[i].a;
  if (b) *b = x->constraints[i].b;
  if (rest) *rest = x->constraints[i].rest;
  return 0;
}

int arb_world_set_constraint_iterations(arb_world* w, int n) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  if (n < 1 || n > ARB__MAX_CONSTRAINT_ITERATIONS) return ARB_E_RANGE;
  arb__extras* x = arb__extras_get(w);
  if (!x) return ARB_E_NOMEM;
  x->constraint_iterations = n;
  return 0;
}

int arb_world_get_constraint_iterations(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  return w && w->extras ? w->extras->constraint_iterations : ARB__DEFAULT_CONSTRAINT_ITERATIONS;
}

void arb_particles_clear(arb_world* w) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w || w->locked || !w->extras) return;
  w->extras->particle_count = 0;
  w->extras->constraint_count = 0;
  w->extras->last_dt = 0.0f;
}

// ---- step -------------------------------------------------------------------------------

// One Gauss-Seidel pass; `backward` walks the constraints in reverse creation order.
// Alternating directions (symmetric Gauss-Seidel) carries a correction along a rope in
// one pass whichever end is pinned, which a one-way sweep needs many passes for.
static void arb__relax(arb__extras* x, bool backward) {
  arb__particle* ps = x->particles;
  const int n = x->constraint_count;
  for (int i = 0; i < n; ++i) {  // DET: creation order (or its reverse)
    const arb__constraint* c = &x->constraints[backward ? n - 1 - i : i];
    arb__particle* a = &ps[c->a];
    arb__particle* b = &ps[c->b];
    float wsum = a->inv_mass + b->inv_mass;
    if (wsum == 0.0f) continue;
    arb_vec2 d = arb_sub(b->p, a->p);
    float len = arb_length(d);
    if (len < 1.0e-9f) continue;
    float k = c->stiffness * (len - c->rest) / (len * wsum);
    a->p = arb_mul_add(a->p, k * a->inv_mass, d);
    b->p = arb_mul_sub(b->p, k * b->inv_mass, d);
  }
}

// Remove the particle's approach speed along n (n points from the body to the particle)
// and a friction share of its sliding speed, both relative to the body's surface.
static void arb__particle_contact(const arb_world* w, arb__particle* p, int slot,
                                  const arb_shape_def* s, arb_vec2 n, float dt) {
  const arb__body* b = &w->bodies[slot];
  const arb__body_state* st = &w->states[slot];
  arb_vec2 vb = arb_add(st->v, arb_cross_sv(st->w, arb_sub(p->p, b->center)));
  arb_vec2 rel = arb_sub(arb_sub(p->p, p->prev), arb_scale(dt, vb));  // this step's relative motion
  float vn = arb_dot(rel, n);
  if (vn < 0.0f) p->prev = arb_mul_add(p->prev, vn, n);
  arb_vec2 vt = arb_mul_sub(rel, arb_dot(rel, n), n);
  p->prev = arb_mul_add(p->prev, arb_minf(s->friction, 1.0f), vt);
}

// A particle that moved farther than its radius this step could have crossed a thin
// shape: cast its path (prev -> p) against the shape and stop it at the surface.
static void arb__particle_sweep(const arb_world* w, arb__particle* p, int slot,
                                const arb_shape_def* s, float dt) {
  arb_vec2 d = arb_sub(p->p, p->prev);
  if (arb_length_sq(d) <= p->radius * p->radius) return;
  const arb__body* b = &w->bodies[slot];
  arb_ray_input in = {arb_inv_transform_point(b->xf, p->prev), arb_inv_rotate(b->xf.q, d), 1.0f};
  arb_cast_output o = arb__shape_ray_cast(s, &in);
  if (!o.hit || (o.normal.x == 0.0f && o.normal.y == 0.0f)) return;  // miss, or started inside
  arb_vec2 n = arb_rotate(b->xf.q, o.normal);
  if (arb_dot(n, d) > 0.0f) n = arb_neg(n);  // two-sided segments: face the particle
  p->p = arb_mul_add(arb_transform_point(b->xf, o.point), p->radius, n);
  arb__particle_contact(w, p, slot, s, n, dt);
}

// Push one particle out of one shape of a body (a circle of the particle's radius).
static void arb__particle_vs_shape(const arb_world* w, arb__particle* p, int slot,
                                   const arb_shape_def* s, float dt) {
  const arb__body* b = &w->bodies[slot];
  if ((p->mask_bits & s->category_bits) == 0u || s->sensor) return;  // sensors push nothing
  arb__particle_sweep(w, p, slot, s, dt);
  arb_circle c = {arb_vec2_zero, p->radius};
  arb_transform xp = {p->p, arb_rot_identity};
  arb_manifold m = arb__shape_collide_circle(s, b->xf, &c, xp);
  if (m.point_count == 0 || m.points[0].separation >= 0.0f) return;
  p->p = arb_mul_sub(p->p, m.points[0].separation, m.normal);
  arb__particle_contact(w, p, slot, s, m.normal, dt);
}

static void arb__particle_vs_body(const arb_world* w, arb__particle* p, int slot, float dt) {
  const arb__body* b = &w->bodies[slot];
  for (int k = 0; k < b->shape_count; ++k) {  // DET: shape order
    arb__particle_vs_shape(w, p, slot, arb__body_shape(b, k), dt);
  }
}

// One substep of length h: Verlet move, relaxation, collisions.
static void arb__particles_substep(arb_world* w, arb__extras* x, float h) {
  const arb_vec2 g2 = arb_scale(h * h, w->def.gravity);
  for (int i = 0; i < x->particle_count; ++i) {  // DET: creation order
    arb__particle* p = &x->particles[i];
    if (p->inv_mass == 0.0f) {
      p->prev = p->p;
      continue;
    }
    arb_vec2 v = arb_sub(p->p, p->prev);
    if (p->damping > 0.0f) v = arb_scale(1.0f / (1.0f + h * p->damping), v);
    p->prev = p->p;
    p->p = arb_add(arb_add(p->p, v), g2);
  }
  for (int k = 0; k < x->constraint_iterations; ++k) arb__relax(x, (k & 1) != 0);
  if (w->body_count == 0) return;
  int32_t cand[64];
  for (int i = 0; i < x->particle_count; ++i) {
    arb__particle* p = &x->particles[i];
    if (p->inv_mass == 0.0f || p->radius <= 0.0f) continue;
    arb_vec2 r = arb_v2(p->radius, p->radius);
    arb_aabb box = {arb_sub(arb_vmin(p->p, p->prev), r), arb_add(arb_vmax(p->p, p->prev), r)};
    int n;
    arb__collect_bodies(w, box, cand, &n, 64);
    for (int k = 0; k < n; ++k) arb__particle_vs_body(w, p, cand[k], h);  // DET: slot order
  }
}

// Particles take the world's substeps: the error a relaxation pass leaves scales with
// the displacement per (sub)step, h^2*g, so small steps hold ropes taut for far fewer
// passes than one big step with many iterations ("small steps" position dynamics).
void arb__particles_step(arb_world* w, float dt) {
  arb__extras* x = w->extras;
  const int n = w->def.substeps;
  const float h = dt / (float)n;
  for (int s = 0; s < n; ++s) arb__particles_substep(w, x, h);
}
