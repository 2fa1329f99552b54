// DETERMINISM-CRITICAL: integration and the contact solver. Constraints are solved in
// contact array order (Gauss-Seidel), bodies are integrated in slot order.
//
// Why soft-step (substepping with soft contacts and relaxation, as in Box2D v3 and
// "Solver2D") rather than Baumgarte or split impulses:
//   - Baumgarte feeds position error into the velocity solve as a stiff spring with no
//     damping model; tall stacks either sink (small factor) or jitter and gain energy
//     (large factor), and the bias velocity survives into the next step as bounce.
//   - Split impulses (pseudo-velocities) fix the energy leak but need a separate position
//     solve whose convergence again depends on iteration count; tall stacks still creep.
//   - Soft step: each substep re-evaluates separation from the substep position deltas
//     (dp, dq), so the stiffness is tuned in Hz and damping ratio, independent of mass and
//     iteration count (a mass-spring-damper whose parameters are exact per substep). The
//     relax pass removes the bias velocity before the positions move on, so penetration
//     recovery never turns into bounce. Substeps (4) give small effective time steps,
//     which is what makes a 100-box pyramid stand with ~one iteration per substep.
//     Warm starting carries impulses between steps by feature id, and speculative points
//     (positive separation, bias = s/h) stop fast bodies at the surface instead of after
//     penetrating.
// Materials: friction sqrt(fa*fb), restitution max(ra, rb), applied only to approach
// speeds above world.restitution_threshold and only for points that carried an impulse.
// Forces: the accumulated force/torque is applied once per step (dt*F/m, at the start),
// which keeps force-driven motion semi-implicit Euler at the step level (a spring driven
// through the accumulator keeps its energy); gravity is applied per substep (constant, so
// this is exact). Damping: v *= 1/(1 + dt*c) once per step.
#include "world.h"

typedef struct arb__soft {
  float bias_rate, mass_scale, impulse_scale;
} arb__soft;

typedef struct arb__cpoint {
  arb_vec2 ra, rb;  // anchors relative to the centres of mass, world axes at step start
  float base_separation;
  float normal_impulse, tangent_impulse, max_normal_impulse;
  float normal_mass, tangent_mass;
  float relative_velocity;  // normal approach speed at step start (restitution)
} arb__cpoint;

typedef struct arb__constraint {
  int32_t a, b;
  arb_vec2 normal;
  float friction, restitution;
  float ma, ia, mb, ib;
  arb__soft soft;
  int32_t contact;
  int32_t point_count;
  arb__cpoint points[2];
} arb__constraint;

static arb__soft arb__make_soft(float hertz, float zeta, float h) {
  arb__soft s = {0.0f, 1.0f, 0.0f};
  if (hertz == 0.0f) return s;
  float omega = 2.0f * ARB_PI * hertz;
  float a1 = 2.0f * zeta + h * omega;
  float a2 = h * omega * a1;
  float a3 = 1.0f / (1.0f + a2);
  s.bias_rate = omega / a1;
  s.mass_scale = a2 * a3;
  s.impulse_scale = a3;
  return s;
}

static int arb__prepare(arb_world* w, arb__constraint* cs, arb__soft soft, arb__soft static_soft) {
  int n = 0;
  for (int i = 0; i < w->contact_count; ++i) {
    const arb__contact* c = &w->contacts[i];
    const arb_manifold* m = &c->manifold;
    if (m->point_count == 0) continue;
    arb__constraint* k = &cs[n++];
    int ia = c->body_a, ib = c->body_b;
    const arb__body* A = &w->bodies[ia];
    const arb__body* B = &w->bodies[ib];
    const arb__body_state* sa = &w->states[ia];
    const arb__body_state* sb = &w->states[ib];
    k->a = ia;
    k->b = ib;
    k->normal = m->normal;
    k->friction = c->friction;
    k->restitution = c->restitution;
    k->ma = w->sims[ia].inv_mass;
    k->ia = w->sims[ia].inv_inertia;
    k->mb = w->sims[ib].inv_mass;
    k->ib = w->sims[ib].inv_inertia;
    k->soft = (k->ma == 0.0f || k->mb == 0.0f) ? static_soft : soft;
    k->contact = i;
    k->point_count = m->point_count;
    arb_vec2 oa = arb_sub(A->center, A->xf.p), ob = arb_sub(B->center, B->xf.p);
    arb_vec2 nrm = m->normal, tan = arb_right_perp(m->normal);
    for (int j = 0; j < m->point_count; ++j) {
      const arb_manifold_point* mp = &m->points[j];
      arb__cpoint* p = &k->points[j];
      p->ra = arb_sub(mp->anchor_a, oa);
      p->rb = arb_sub(mp->anchor_b, ob);
      p->base_separation = mp->separation - arb_dot(arb_sub(p->rb, p->ra), nrm);
      p->normal_impulse = mp->normal_impulse;
      p->tangent_impulse = mp->tangent_impulse;
      p->max_normal_impulse = 0.0f;
      float rna = arb_cross(p->ra, nrm), rnb = arb_cross(p->rb, nrm);
      float kn = k->ma + k->mb + k->ia * rna * rna + k->ib * rnb * rnb;
      p->normal_mass = kn > 0.0f ? 1.0f / kn : 0.0f;
      float rta = arb_cross(p->ra, tan), rtb = arb_cross(p->rb, tan);
      float kt = k->ma + k->mb + k->ia * rta * rta + k->ib * rtb * rtb;
      p->tangent_mass = kt > 0.0f ? 1.0f / kt : 0.0f;
      arb_vec2 va = arb_add(sa->v, arb_cross_sv(sa->w, p->ra));
      arb_vec2 vb = arb_add(sb->v, arb_cross_sv(sb->w, p->rb));
      p->relative_velocity = arb_dot(nrm, arb_sub(vb, va));
    }
  }
  return n;
}

static void arb__warm_start(arb_world* w, arb__constraint* cs, int n) {
  arb__body_state* st = w->states;
  for (int i = 0; i < n; ++i) {
    arb__constraint* k = &cs[i];
    arb__body_state* sa = &st[k->a];
    arb__body_state* sb = &st[k->b];
    arb_vec2 va = sa->v, vb = sb->v;
    float wa = sa->w, wb = sb->w;
    arb_vec2 nrm = k->normal, tan = arb_right_perp(k->normal);
    for (int j = 0; j < k->point_count; ++j) {
      const arb__cpoint* p = &k->points[j];
      arb_vec2 P = arb_add(arb_scale(p->normal_impulse, nrm), arb_scale(p->tangent_impulse, tan));
      wa -= k->ia * arb_cross(p->ra, P);
      va = arb_mul_sub(va, k->ma, P);
      wb += k->ib * arb_cross(p->rb, P);
      vb = arb_mul_add(vb, k->mb, P);
    }
    sa->v = va;
    sa->w = wa;
    sb->v = vb;
    sb->w = wb;
  }
}

static void arb__solve_contacts(arb_world* w, arb__constraint* cs, int n, float inv_h, bool use_bias) {
  arb__body_state* st = w->states;
  const float max_push = w->def.max_contact_push_speed;
  for (int i = 0; i < n; ++i) {
    arb__constraint* k = &cs[i];
    arb__body_state* sa = &st[k->a];
    arb__body_state* sb = &st[k->b];
    arb_vec2 va = sa->v, vb = sb->v;
    float wa = sa->w, wb = sb->w;
    const arb_vec2 dp = arb_sub(sb->dp, sa->dp);
    const arb_rot qa = sa->dq, qb = sb->dq;
    const arb_vec2 nrm = k->normal, tan = arb_right_perp(k->normal);
    const float ma = k->ma, ia = k->ia, mb = k->mb, ib = k->ib;
    float total_normal = 0.0f;
    for (int j = 0; j < k->point_count; ++j) {
      arb__cpoint* p = &k->points[j];
      // Current separation from the substep deltas (anchors rotate with the bodies).
      arb_vec2 d = arb_add(dp, arb_sub(arb_rotate(qb, p->rb), arb_rotate(qa, p->ra)));
      float s = arb_dot(d, nrm) + p->base_separation;
      float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
      if (s > 0.0f) {
        bias = s * inv_h;  // speculative: allow closing the gap, no more
      } else if (use_bias) {
        bias = arb_maxf(k->soft.bias_rate * s, -max_push);
        mass_scale = k->soft.mass_scale;
        impulse_scale = k->soft.impulse_scale;
      }
      arb_vec2 dv = arb_sub(arb_add(vb, arb_cross_sv(wb, p->rb)), arb_add(va, arb_cross_sv(wa, p->ra)));
      float vn = arb_dot(dv, nrm);
      float impulse = -p->normal_mass * mass_scale * (vn + bias) - impulse_scale * p->normal_impulse;
      float nimp = arb_maxf(p->normal_impulse + impulse, 0.0f);
      impulse = nimp - p->normal_impulse;
      p->normal_impulse = nimp;
      p->max_normal_impulse = arb_maxf(p->max_normal_impulse, impulse);
      total_normal += nimp;
      arb_vec2 P = arb_scale(impulse, nrm);
      wa -= ia * arb_cross(p->ra, P);
      va = arb_mul_sub(va, ma, P);
      wb += ib * arb_cross(p->rb, P);
      vb = arb_mul_add(vb, mb, P);
    }
    (void)total_normal;
    for (int j = 0; j < k->point_count; ++j) {
      arb__cpoint* p = &k->points[j];
      arb_vec2 dv = arb_sub(arb_add(vb, arb_cross_sv(wb, p->rb)), arb_add(va, arb_cross_sv(wa, p->ra)));
      float vt = arb_dot(dv, tan);
      float impulse = -p->tangent_mass * vt;
      float max_friction = k->friction * p->normal_impulse;
      float timp = arb_clampf(p->tangent_impulse + impulse, -max_friction, max_friction);
      impulse = timp - p->tangent_impulse;
      p->tangent_impulse = timp;
      arb_vec2 P = arb_scale(impulse, tan);
      wa -= ia * arb_cross(p->ra, P);
      va = arb_mul_sub(va, ma, P);
      wb += ib * arb_cross(p->rb, P);
      vb = arb_mul_add(vb, mb, P);
    }
    sa->v = va;
    sa->w = wa;
    sb->v = vb;
    sb->w = wb;
  }
}

static void arb__apply_restitution(arb_world* w, arb__constraint* cs, int n) {
  arb__body_state* st = w->states;
  const float threshold = w->def.restitution_threshold;
  for (int i = 0; i < n; ++i) {
    arb__constraint* k = &cs[i];
    if (k->restitution == 0.0f) continue;
    arb__body_state* sa = &st[k->a];
    arb__body_state* sb = &st[k->b];
    arb_vec2 va = sa->v, vb = sb->v;
    float wa = sa->w, wb = sb->w;
    const arb_vec2 nrm = k->normal;
    for (int j = 0; j < k->point_count; ++j) {
      arb__cpoint* p = &k->points[j];
      // Only real impacts bounce: fast enough, and the point actually pushed.
      if (p->relative_velocity > -threshold || p->max_normal_impulse == 0.0f) continue;
      arb_vec2 dv = arb_sub(arb_add(vb, arb_cross_sv(wb, p->rb)), arb_add(va, arb_cross_sv(wa, p->ra)));
      float vn = arb_dot(dv, nrm);
      float impulse = -p->normal_mass * (vn + k->restitution * p->relative_velocity);
      float nimp = arb_maxf(p->normal_impulse + impulse, 0.0f);
      impulse = nimp - p->normal_impulse;
      p->normal_impulse = nimp;
      p->max_normal_impulse = arb_maxf(p->max_normal_impulse, impulse);
      arb_vec2 P = arb_scale(impulse, nrm);
      wa -= k->ia * arb_cross(p->ra, P);
      va = arb_mul_sub(va, k->ma, P);
      wb += k->ib * arb_cross(p->rb, P);
      vb = arb_mul_add(vb, k->mb, P);
    }
    sa->v = va;
    sa->w = wa;
    sb->v = vb;
    sb->w = wb;
  }
}

static void arb__store_impulses(arb_world* w, const arb__constraint* cs, int n) {
  for (int i = 0; i < n; ++i) {
    const arb__constraint* k = &cs[i];
    arb_manifold* m = &w->contacts[k->contact].manifold;
    for (int j = 0; j < k->point_count; ++j) {
      m->points[j].normal_impulse = k->points[j].normal_impulse;
      m->points[j].tangent_impulse = k->points[j].tangent_impulse;
    }
  }
}

// Accumulated forces and damping, once per step (see the comment at the top).
static void arb__apply_forces(arb_world* w, float dt) {
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body_sim* sim = &w->sims[i];
    if (sim->type != ARB_BODY_DYNAMIC) continue;
    const arb__body* b = &w->bodies[i];
    arb__body_state* st = &w->states[i];
    arb_vec2 v = arb_mul_add(st->v, dt * sim->inv_mass, b->force);
    float av = st->w + dt * sim->inv_inertia * b->torque;
    if (sim->linear_damping > 0.0f) v = arb_scale(1.0f / (1.0f + dt * sim->linear_damping), v);
    if (sim->angular_damping > 0.0f) av *= 1.0f / (1.0f + dt * sim->angular_damping);
    st->v = v;
    st->w = av;
  }
}

static void arb__integrate_velocities(arb_world* w, float h) {
  const arb_vec2 g = w->def.gravity;
  const float max_v = w->def.max_linear_speed;
  const float max_w = ARB__MAX_ROTATION / h;
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body_sim* sim = &w->sims[i];
    if (sim->type != ARB_BODY_DYNAMIC) continue;
    arb__body_state* st = &w->states[i];
    arb_vec2 v = arb_mul_add(st->v, h * sim->gravity_scale, g);
    float av = st->w;
    float vv = arb_dot(v, v);
    if (vv > max_v * max_v) v = arb_scale(max_v / sqrtf(vv), v);
    if (av * av > max_w * max_w) av = av < 0.0f ? -max_w : max_w;
    st->v = v;
    st->w = av;
  }
}

static void arb__integrate_positions(arb_world* w, float h) {
  for (int i = 0; i < w->body_slots; ++i) {
    int type = w->sims[i].type;
    if (type != ARB_BODY_DYNAMIC && type != ARB_BODY_KINEMATIC) continue;
    arb__body_state* st = &w->states[i];
    st->dq = arb_rot_integrate(st->dq, h * st->w);
    st->dp = arb_mul_add(st->dp, h, st->v);
  }
}

void arb__solve(arb_world* w, float dt) {
  const int substeps = w->def.substeps;
  const float h = dt / (float)substeps;
  const float inv_h = 1.0f / h;
  // Contacts stiffer than a quarter of the substep rate would be under-resolved.
  float hertz = arb_minf(w->def.contact_hertz, 0.25f * (float)substeps / dt);
  arb__soft soft = arb__make_soft(hertz, w->def.contact_damping_ratio, h);
  arb__soft static_soft = arb__make_soft(2.0f * hertz, w->def.contact_damping_ratio, h);

  arb__constraint* cs = NULL;
  int n = 0;
  if (w->contact_count > 0) {
    cs = arb__stack_alloc(w, (size_t)w->contact_count * sizeof *cs);
    if (cs) n = arb__prepare(w, cs, soft, static_soft);
  }
  arb__apply_forces(w, dt);
  for (int s = 0; s < substeps; ++s) {
    arb__integrate_velocities(w, h);
    arb__warm_start(w, cs, n);
    arb__solve_contacts(w, cs, n, inv_h, true);
    arb__integrate_positions(w, h);
    arb__solve_contacts(w, cs, n, inv_h, false);
  }
  arb__apply_restitution(w, cs, n);
  arb__store_impulses(w, cs, n);
  arb__stack_free(w, cs);
}
