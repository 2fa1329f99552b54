// Particles, links and wheels for the application (client.h, "particles, links and
// wheels").
//
// They are not in the interpolation buffer (cl_interp holds bodies): they live only in the
// complete snapshot views (cl_snapshot.h), each entity as an origin both sides evaluate
// with the protocol's prediction. Sampling at server time T (in ticks: tau = T * rate):
//
//   views:   [lo] ........ tau ........ [hi]      state = lerp(lo at lo.tick, hi at hi.tick)
//   past the newest view: its origin evaluated at tau (between two whole ticks: lerp), at
//   most extrapolation_limit ahead, then held
//
// What exists is what the newest complete view holds (a removed link disappears with the
// snapshot that removes it). Link ends and wheels sit on bodies: at the sample time on the
// bodies as arb_client_sample drew them (interpolated, the own avatar predicted), so a car's
// wheels stay on the car; at the newest snapshot on that snapshot's bodies.
#include <math.h>
#include <string.h>

#include "cl_client.h"

// A dequantized state: meters, m/s, radians, rad/s.
typedef struct cl_xstate {
  arb_vec2 p, v;
  float angle, aux, w;
  uint8_t flags;
} cl_xstate;

// Which views a sample reads: lo and hi bracket tau (hi NULL: extrapolate from lo).
typedef struct cl_when {
  const cl_slot* newest;
  const cl_slot* lo;
  const cl_slot* hi;
  double tau;  ///< ticks
  bool latest;
} cl_when;

static float wrap_pi(float a) {
  const float pi = 3.14159265358979f;
  if (a > pi) a -= 2.0f * pi;
  if (a <= -pi) a += 2.0f * pi;
  return a;
}

static cl_xstate dequant(const arb_snapshot_state* s) {
  cl_xstate x;
  x.p = arb_v2(arb_proto_dequantize_pos(s->x), arb_proto_dequantize_pos(s->y));
  x.v = arb_v2(arb_proto_dequantize_vel(s->vx), arb_proto_dequantize_vel(s->vy));
  x.angle = arb_proto_dequantize_angle(s->angle);
  x.aux = arb_proto_dequantize_angle(s->aux);
  x.w = arb_snapshot_dequantize_angvel(s->w);
  x.flags = s->flags;
  return x;
}

// Angles along the shorter way (spin between two snapshots stays under half a turn up to
// 15 turns per second at 30 snapshots per second).
static cl_xstate lerp_state(const cl_xstate* a, const cl_xstate* b, float f) {
  cl_xstate x = *a;
  x.p = arb_lerp(a->p, b->p, f);
  x.v = arb_lerp(a->v, b->v, f);
  x.angle = wrap_pi(a->angle + f * wrap_pi(b->angle - a->angle));
  x.aux = wrap_pi(a->aux + f * wrap_pi(b->aux - a->aux));
  x.w = a->w + f * (b->w - a->w);
  x.flags = f < 0.5f ? a->flags : b->flags;
  return x;
}

// An origin of a view evaluated at fractional tick tau (>= 0).
static cl_xstate eval_at(const cl_slot* sl, const arb_snapshot_entity* e, double tau) {
  double k = floor(tau);
  uint32_t tick = k >= 4294967294.0 ? 4294967294u : (uint32_t)k;
  arb_snapshot_state s0 = arb_snapshot_eval(&e->s, e->cls, tick, &sl->h);
  cl_xstate x0 = dequant(&s0);
  if (tau <= k) return x0;
  arb_snapshot_state s1 = arb_snapshot_eval(&e->s, e->cls, tick + 1, &sl->h);
  cl_xstate x1 = dequant(&s1);
  return lerp_state(&x0, &x1, (float)(tau - k));
}

static bool pick_views(const arb_client* c, arb_client_when when, cl_when* w) {
  w->newest =
      c->snaps.newest_complete ? cl_snapshots_get(&c->snaps, c->snaps.newest_complete) : NULL;
  if (!w->newest) return false;
  w->latest = when == ARB_CLIENT_AT_LATEST || c->session.tick_rate <= 0;
  w->lo = w->newest;
  w->hi = NULL;
  w->tau = w->newest->tick;
  if (w->latest) return true;
  w->tau = c->sample_time * c->session.tick_rate;
  const cl_slot *lo = NULL, *hi = NULL, *oldest = NULL;
  for (int i = 0; i < CL_SLOTS; i++) {
    const cl_slot* sl = &c->snaps.slots[i];
    if (!sl->used || !sl->complete) continue;
    if (!oldest || sl->tick < oldest->tick) oldest = sl;
    if (sl->tick <= w->tau && (!lo || sl->tick > lo->tick)) lo = sl;
    if (sl->tick > w->tau && (!hi || sl->tick < hi->tick)) hi = sl;
  }
  if (!lo) {  // before every view held: the oldest, held
    w->lo = oldest;
    w->tau = oldest->tick;
    return true;
  }
  w->lo = lo;
  w->hi = hi;
  double cap = lo->tick + (double)c->cfg.extrapolation_limit * c->session.tick_rate;
  if (!hi && w->tau > cap) w->tau = cap;
  return true;
}

// The state of an entity of the newest view at the chosen moment.
static cl_xstate state_of(const cl_when* w, const arb_snapshot_entity* e) {
  const arb_snapshot_entity* lo =
      w->lo == w->newest ? e : arb_snapshot_set_find(&w->lo->origins, e->id);
  const arb_snapshot_entity* hi = w->hi ? arb_snapshot_set_find(&w->hi->origins, e->id) : NULL;
  if (lo && hi) {
    cl_xstate a = eval_at(w->lo, lo, w->lo->tick), b = eval_at(w->hi, hi, w->hi->tick);
    return lerp_state(&a, &b,
                      (float)((w->tau - w->lo->tick) / (double)(w->hi->tick - w->lo->tick)));
  }
  if (lo) return eval_at(w->lo, lo, w->tau > w->lo->tick ? w->tau : w->lo->tick);
  if (hi) return eval_at(w->hi, hi, w->hi->tick);
  return eval_at(w->newest, e, w->newest->tick);
}

// A body's pose at the chosen moment; false when the body is not known.
static bool body_pose(const arb_client* c, const cl_when* w, uint32_t id, arb_transform* xf) {
  if (w->latest) {
    cl_body b;
    if (!cl_snapshots_body_at(w->newest, id, &b)) return false;
    xf->p = b.position;
    xf->q = arb_rot_from_angle(b.angle);
    return true;
  }
  if (c->sampled_own && id == c->session.avatar_entity) {
    *xf = c->sampled_own_xf;
    return true;
  }
  const cl_entity* e = cl_interp_find_const(&c->interp, id);
  if (!e || !e->has_out) return false;
  xf->p = e->out_p;
  xf->q = arb_rot_from_angle(e->out_a);
  return true;
}

// One entity of the newest complete view with its description, sampled at w's moment.
typedef struct cl_extra {
  const arb_client* c;
  const cl_when* w;
  const arb_snapshot_entity* e;
  const cl_extra_desc* d;
} cl_extra;

// Writes the application's item for one extra into the zeroed `item`; false leaves it out.
typedef bool cl_extra_fill_fn(const cl_extra* x, void* item);

// Every entity of class cls in the newest complete view that has a description and that
// fill accepts: the first max of them into out (elem bytes each; out may be NULL).
// Returns how many there are, also beyond max.
static int collect(const arb_client* c, arb_client_when when, uint8_t cls, cl_extra_fill_fn* fill,
                   void* out, size_t elem, int max) {
  cl_when w;
  if (!c || !pick_views(c, when, &w)) return 0;
  union {
    arb_client_particle particle;
    arb_client_link link;
    arb_client_wheel wheel;
  } item;
  int n = 0;
  for (int i = 0; i < w.newest->origins.count; ++i) {
    cl_extra x = {c, &w, &w.newest->origins.items[i], NULL};
    if (x.e->cls != cls || (x.d = cl_snapshots_extra(&c->snaps, x.e->id, cls)) == NULL) continue;
    memset(&item, 0, sizeof item);
    if (!fill(&x, &item)) continue;
    if (out && n < max) memcpy((char*)out + (size_t)n * elem, &item, elem);
    n++;
  }
  return n;
}

static bool fill_particle(const cl_extra* x, void* item) {
  cl_xstate s = state_of(x->w, x->e);
  arb_client_particle* o = item;
  o->id = x->e->id;
  o->position = s.p;
  o->velocity = s.v;
  o->radius = x->d->radius;
  o->pinned = (s.flags & ARB_SNAPSHOT_FLAG_PINNED) != 0;
  return true;
}

int arb_client_get_particles(const arb_client* c, arb_client_when when, arb_client_particle* out,
                             int max) {
  return collect(c, when, ARB_SNAPSHOT_PARTICLE, fill_particle, out, sizeof *out, max);
}

// One end of a link in world coordinates: on a particle (ropes), on a body, or the world.
static bool link_end(const arb_client* c, const cl_when* w, const cl_extra_desc* d, uint32_t id,
                     arb_vec2 anchor, arb_vec2* out) {
  if (id == 0) {
    *out = anchor;
    return true;
  }
  if (d->link_kind == ARB_SNAPSHOT_LINK_ROPE) {
    const arb_snapshot_entity* p = arb_snapshot_set_find(&w->newest->origins, id);
    if (!p || p->cls != ARB_SNAPSHOT_PARTICLE) return false;
    *out = state_of(w, p).p;
    return true;
  }
  arb_transform xf;
  if (!body_pose(c, w, id, &xf)) return false;
  *out = arb_transform_point(xf, anchor);
  return true;
}

static bool fill_link(const cl_extra* x, void* item) {
  const cl_extra_desc* d = x->d;
  arb_client_link* l = item;
  if (!link_end(x->c, x->w, d, d->a, d->anchor_a, &l->anchor_a) ||
      !link_end(x->c, x->w, d, d->b, d->anchor_b, &l->anchor_b))
    return false;
  l->id = x->e->id;
  l->kind = (arb_client_link_kind)d->link_kind;
  l->joint_type = d->link_kind == ARB_SNAPSHOT_LINK_JOINT ? d->joint_type : 0;
  l->a = d->a;
  l->b = d->b;
  return true;
}

int arb_client_get_links(const arb_client* c, arb_client_when when, arb_client_link* out, int max) {
  return collect(c, when, ARB_SNAPSHOT_LINK, fill_link, out, sizeof *out, max);
}

static bool fill_wheel(const cl_extra* x, void* item) {
  arb_transform chassis;
  if (!body_pose(x->c, x->w, x->d->a, &chassis)) return false;
  cl_xstate s = state_of(x->w, x->e);
  arb_client_wheel* o = item;
  o->id = x->e->id;
  o->vehicle = x->d->a;
  o->position = arb_transform_point(chassis, x->d->anchor_a);
  o->rotation = arb_rot_mul(chassis.q, arb_rot_from_angle(s.aux));
  o->radius = x->d->radius;
  o->steer = s.aux;
  o->spin = s.angle;
  o->spin_rate = s.w;
  o->skid = (s.flags & ARB_SNAPSHOT_FLAG_SKID) != 0;
  return true;
}

int arb_client_get_wheels(const arb_client* c, arb_client_when when, arb_client_wheel* out,
                          int max) {
  return collect(c, when, ARB_SNAPSHOT_WHEEL, fill_wheel, out, sizeof *out, max);
}
