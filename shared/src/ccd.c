// DETERMINISM-CRITICAL: continuous collision (time of impact) after finalize.
//
// Before the solver the start pose (centre of mass, rotation) of every awake body is
// recorded. After finalize, in two passes in slot order:
//   1. Every awake dynamic body that moved further than half its smallest extent in this step
//      (it could have passed through something thin; `continuous` worlds, or bullets) is
//      swept from its start pose to its end pose against the static bodies its swept box
//      touches, by conservative advancement (arb_time_of_impact). It is put back at the
//      earliest time of impact (ties: the lower slot, by strict comparison in slot order)
//      and keeps its velocity: it now sits within the speculative distance of what it hit,
//      so the next step's speculative contact stops it at the surface, not behind it.
//   2. Every fast bullet is swept against the dynamic and kinematic bodies near its path,
//      both moving along their own (pass-1-corrected) paths, so two bullets flying at each
//      other meet instead of passing. At the earliest hit both bodies are put back to that
//      time (a kinematic body keeps its pose: its path is prescribed); every earlier pose
//      of a body's own path is free of statics, so neither is pushed through a wall.
//      A sleeping body a bullet hits does not move (its sweep is its pose); it wakes with
//      its island at the end of the step (arb__ccd_wake_hits, after the islands fell
//      asleep, so the island pass sees the awake list it was built for), and its contact
//      with the bullet is solved from the next step on.
// Sleeping bodies are never swept and their poses are not recorded: they do not move.
// Slow bodies cost one distance comparison per step and are never swept: the speculative
// contacts (contact.c) already stop them. A hit only counts if the body would otherwise
// end on the far side or with its heart (a small circle at its centre of mass) inside
// the other shape (arb__ccd_passed): a body that just lands, or grazes a surface on the
// straight-line sweep while its real substep path bent away, is left to the contacts.
// Bodies that touch at the start pose (overlap, or a hit at t = 0) are left to the
// ordinary contacts too, except that the heart is then swept: pressed against a thin
// wall and driven hard, the body still can not tunnel through it.
// Candidates of pass 2 are the bodies whose broad-phase box meets the bullet's swept box,
// plus every fast body whose own swept box meets it (a fast body's box only covers its
// end pose). A slow body's start pose is not searched: it moved less than half its size.
// The start poses are step scratch (per-step arena), not state: they are recomputed from
// the state at every step, so restore + step is unaffected.
#include <arbiter/worker_pool.h>

#include "chain.h"
#include "world.h"

// Awake and dynamic (a sleeping body has no recorded start pose: it does not move).
static bool arb__ccd_dynamic(const arb_world* w, int i) {
  return w->bodies[i].in_use && w->sims[i].type == ARB_BODY_DYNAMIC && !w->bodies[i].sleeping;
}

// Which awake bodies a pass has to visit, decided per body by worker threads (reads only
// that body), so that the ordered pass after it skips the others.
typedef struct arb__ccd_scan_job {
  const arb_world* w;
  const int32_t* list;  // awake bodies, or NULL: slots 0..n-1
  bool (*pick)(const arb_world* w, int i, float dt);
  uint8_t* picked;  // per position
  float dt;
} arb__ccd_scan_job;

static void arb__ccd_scan_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__ccd_scan_job* job = ctx;
  for (int k = begin; k < end; ++k)
    job->picked[k] = job->pick(job->w, job->list ? job->list[k] : k, job->dt);
}

// Per position of the awake list: whether pick() holds (NULL when out of memory: the caller
// then asks pick() itself). Freed by the caller (arena).
static uint8_t* arb__ccd_scan(arb_world* w, const int32_t* list, int n, float dt,
                              bool (*pick)(const arb_world* w, int i, float dt)) {
  uint8_t* picked = n > 0 ? arb__stack_alloc(w, (size_t)n) : NULL;
  arb__ccd_scan_job job = {w, list, pick, picked, dt};
  if (picked) arb_pool_for(w->pool, arb__ccd_scan_range, &job, n, 512);
  return picked;
}

// Awake and moving more than half its smallest extent this step.
static bool arb__ccd_outruns_proxy(const arb_world* w, int i, float dt) {
  if (!arb__body_awake(w, i)) return false;  // static, free or asleep
  arb_vec2 motion = arb_scale(dt, w->states[i].v);
  float reach = 0.5f * w->bodies[i].min_extent;
  return arb_dot(motion, motion) > reach * reach;
}

void arb__ccd_extend_proxies(arb_world* w, float dt) {
  int n;
  const int32_t* list = arb__awake_list(w, &n);
  uint8_t* picked = arb__ccd_scan(w, list, n, dt, arb__ccd_outruns_proxy);
  for (int k = 0; k < n; ++k) {  // DET: slot order (tree insertion order)
    int i = list ? list[k] : k;
    if (!(picked ? picked[k] : arb__ccd_outruns_proxy(w, i, dt))) continue;
    arb__body_refresh_proxy(w, i, false, arb_scale(dt, w->states[i].v));
  }
  arb__stack_free(w, picked);
}

typedef struct arb__ccd_start_job {
  arb_world* w;
  const int32_t* list;  // awake bodies, or NULL: slots 0..n-1
} arb__ccd_start_job;

// Records the start poses of a block of bodies (each writes its own slot).
static void arb__ccd_start_range(void* ctx, int begin, int end, int thread) {
  (void)thread;
  const arb__ccd_start_job* job = ctx;
  arb_world* w = job->w;
  for (int k = begin; k < end; ++k) {
    int i = job->list ? job->list[k] : k;
    w->sweep_c[i] = w->bodies[i].center;
    w->sweep_q[i] = w->bodies[i].xf.q;
  }
}

void arb__ccd_begin(arb_world* w) {
  w->sweep_c = NULL;
  w->sweep_q = NULL;
  w->wake_count = 0;  // bullet hits on sleeping bodies (arb__ccd_wake_hits)
  bool any = false;
  int n;
  const int32_t* list = arb__awake_list(w, &n);
  for (int k = 0; k < n && !any; ++k) {
    int i = list ? list[k] : k;
    any = arb__ccd_dynamic(w, i) && (w->def.enable_continuous || w->bodies[i].bullet);
  }
  if (!any) return;
  arb_vec2* c = arb__stack_alloc(w, (size_t)w->body_slots * sizeof *c);
  arb_rot* q = c ? arb__stack_alloc(w, (size_t)w->body_slots * sizeof *q) : NULL;
  if (!q) {
    arb__stack_free(w, c);
    return;  // out of memory: this step runs without continuous collision
  }
  w->sweep_c = c;
  w->sweep_q = q;
  arb__ccd_start_job job = {w, list};
  arb_pool_for(w->pool, arb__ccd_start_range, &job, n, 512);
}

// A body's motion over the step: from its recorded start pose to its pose now (a static
// or sleeping body stays where it is).
static arb_sweep arb__sweep(const arb_world* w, int i) {
  const arb__body* b = &w->bodies[i];
  bool moves = arb__body_awake(w, i);
  arb_sweep s;
  s.local_center = b->local_center;
  s.c1 = moves ? w->sweep_c[i] : b->center;
  s.q1 = moves ? w->sweep_q[i] : b->xf.q;
  s.c2 = b->center;
  s.q2 = b->xf.q;
  return s;
}

// Only for awake bodies (the others' box is their tight box).
static arb_aabb arb__swept_box(const arb_world* w, int i) {
  const arb__body* b = &w->bodies[i];
  arb__body start = *b;
  start.xf.q = w->sweep_q[i];
  start.xf.p = arb_sub(w->sweep_c[i], arb_rotate(start.xf.q, b->local_center));
  return arb_aabb_union(arb__body_compute_aabb(&start), arb__body_compute_aabb(b));
}

// Moved further than half its smallest extent: it could have skipped over something.
static bool arb__ccd_is_fast(const arb_world* w, int i, float dt) {
  const arb__body* b = &w->bodies[i];
  float travel =
      arb_distance(w->sweep_c[i], b->center) + dt * arb_absf(w->states[i].w) * b->max_extent;
  return travel > 0.5f * b->min_extent;
}

// A body arb__ccd_finish sweeps: awake, dynamic, swept in this world, and fast.
static bool arb__ccd_sweeps(const arb_world* w, int i, float dt) {
  if (!arb__ccd_dynamic(w, i)) return false;
  return (w->def.enable_continuous || w->bodies[i].bullet) && arb__ccd_is_fast(w, i, dt);
}

typedef struct arb__ccd_keys {
  uint64_t* keys;
  int n;
} arb__ccd_keys;

static bool arb__ccd_leaf(void* ctx, int body) {
  arb__ccd_keys* k = ctx;
  k->keys[k->n++] = (uint64_t)body;
  return true;
}

// Every body of tree `t` whose box overlaps `box`, appended to keys as slots. The trees'
// shape is not state: the caller sorts. A tree too deep for the walk stack falls back to
// a scan in slot order.
static int arb__ccd_query(const arb_world* w, const arb__tree* t, bool statics, arb_aabb box,
                          uint64_t* keys, int n) {
  arb__ccd_keys k = {keys, n};
  if (arb__tree_query(t, box, arb__ccd_leaf, &k)) return k.n;
  for (int s = 0; s < w->body_slots; ++s) {
    bool is_static = w->sims[s].type == ARB_BODY_STATIC;
    if (w->bodies[s].in_use && is_static == statics &&
        arb_aabb_overlaps(w->bodies[s].fat_aabb, box)) {
      keys[n++] = (uint64_t)s;
    }
  }
  return n;
}

// Some shape of body i can hit some shape of body j.
static bool arb__ccd_pair_ok(const arb_world* w, int i, int j) {
  const arb__body* a = &w->bodies[i];
  const arb__body* o = &w->bodies[j];
  if (j == i || !o->in_use) return false;
  for (int sa = 0; sa < a->shape_count; ++sa) {
    for (int so = 0; so < o->shape_count; ++so) {
      if (arb__shapes_should_collide(arb__body_shape(a, sa), arb__body_shape(o, so))) return true;
    }
  }
  return false;
}

// A small circle at the centre of mass: the body's heart. A compound body's centre of mass
// may lie outside its shapes: each of its shapes has its heart at its own centre.
static arb_shape_proxy arb__ccd_heart(const arb__body* b, const arb_shape_def* s, arb_vec2* at) {
  *at = b->shape_count == 1 ? b->local_center : arb__shape_center(s);
  return arb_make_proxy(at, 1, 0.25f * b->min_extent);
}

// Whether a hit found on the straight sweep must stop the body. The sweep interpolates
// the start and end poses linearly, but the body moved through the substeps on a bent
// path (it landed, turned, was pulled by a joint), and a body may end a step slightly
// sunk into what it lands on: both are the contacts' business, and putting the body
// back would tear it from its joints for nothing. It must stop if it ends on the other
// side (the separating direction turned around) or with its heart inside the shape: from
// there the contact would push it out through the far side.
static bool arb__ccd_passed(const arb_shape_proxy* heart, const arb_toi_input* in) {
  arb_transform a1 = arb_get_sweep_transform(&in->sweep_a, 0.0f);
  arb_transform b1 = arb_get_sweep_transform(&in->sweep_b, 0.0f);
  arb_transform a2 = arb_get_sweep_transform(&in->sweep_a, 1.0f);
  arb_transform b2 = arb_get_sweep_transform(&in->sweep_b, 1.0f);
  arb_distance_output d1 = arb_shape_distance(&in->proxy_a, a1, &in->proxy_b, b1);
  arb_distance_output d2 = arb_shape_distance(&in->proxy_a, a2, &in->proxy_b, b2);
  if (arb_dot(d1.normal, d2.normal) < 0.0f) return true;
  return arb_shape_distance(heart, a2, &in->proxy_b, b2).distance < ARB_LINEAR_SLOP;
}

// Earliest hit of shape s of body i (sweep sa) against shape pb of a body with sweep sb
// before `t`, or `t`.
static float arb__ccd_toi_proxy(const arb_world* w, int i, const arb_shape_def* s,
                                const arb_sweep* sa, const arb_shape_proxy* pb, const arb_sweep* sb,
                                float t) {
  const arb__body* b = &w->bodies[i];
  arb_vec2 heart_at;
  arb_shape_proxy heart = arb__ccd_heart(b, s, &heart_at);
  arb_toi_input in;
  memset(&in, 0, sizeof in);
  in.proxy_a = arb__shape_proxy(s);
  in.proxy_b = *pb;
  in.sweep_a = *sa;
  in.sweep_b = *sb;
  in.max_fraction = t;
  arb_toi_output out = arb_time_of_impact(&in);
  // A hit at t = 0 is a body already resting on the surface (maybe placed there by the
  // last step): its contact handles it; pinning it there would stop a body that leaves.
  if (out.state == ARB_TOI_HIT && out.fraction > 0.0f && out.fraction < t) {
    return arb__ccd_passed(&heart, &in) ? out.fraction : t;
  }
  if (out.state == ARB_TOI_OVERLAPPED || (out.state == ARB_TOI_HIT && out.fraction == 0.0f)) {
    // Touching at the start: sweep the core alone, so that pushing on through stops.
    in.proxy_a = heart;
    out = arb_time_of_impact(&in);
    if (out.state == ARB_TOI_HIT && out.fraction > 0.0f && out.fraction < t &&
        arb__ccd_passed(&heart, &in)) {
      return out.fraction;
    }
  }
  return t;
}

// Shape s of body i against each link of chain body j whose front its centre starts on
// (from behind, a link lets bodies through). A static chain only tries the links near i's
// path.
static float arb__ccd_toi_chain(const arb_world* w, int i, const arb_shape_def* s,
                                const arb_sweep* sa, int j, const arb_sweep* sb, float t) {
  const arb__body* o = &w->bodies[j];
  const arb_chain* ch = &o->shape.chain;
  arb_transform xf0 = arb_get_sweep_transform(sb, 0.0f);
  arb_vec2 start = arb_inv_transform_point(xf0, sa->c1);
  bool cull = w->sims[j].type == ARB_BODY_STATIC;
  arb_aabb box = arb__swept_box(w, i);
  arb_vec2 corners[4] = {box.lower, arb_v2(box.upper.x, box.lower.y), box.upper,
                         arb_v2(box.lower.x, box.upper.y)};
  arb_aabb local = {arb_inv_transform_point(xf0, corners[0]),
                    arb_inv_transform_point(xf0, corners[0])};
  for (int k = 1; k < 4; ++k) {
    arb_vec2 p = arb_inv_transform_point(xf0, corners[k]);
    local.lower = arb_vmin(local.lower, p);
    local.upper = arb_vmax(local.upper, p);
  }
  int near[ARB_MAX_CHAIN_POINTS];
  int count =
      cull ? arb__chain_links_near(ch, arb__chain_tree(ch), local, near) : arb_chain_link_count(ch);
  for (int n = 0; n < count; ++n) {  // DET: link order
    arb__link l = arb__chain_link(ch, cull ? near[n] : n);
    if (arb_dot(arb__link_normal(l.v1, l.v2), arb_sub(start, l.v1)) < 0.0f) continue;
    arb_vec2 pts[2] = {l.v1, l.v2};
    arb_shape_proxy pb = arb_make_proxy(pts, 2, 0.0f);
    t = arb__ccd_toi_proxy(w, i, s, sa, &pb, sb, t);
  }
  return t;
}

// Every shape of body i against every shape of body j it collides with.
static float arb__ccd_toi(const arb_world* w, int i, const arb_sweep* sa, int j,
                          const arb_sweep* sb, float t) {
  const arb__body* a = &w->bodies[i];
  const arb__body* o = &w->bodies[j];
  for (int ka = 0; ka < a->shape_count; ++ka) {  // DET: shape order
    const arb_shape_def* s = arb__body_shape(a, ka);
    for (int ko = 0; ko < o->shape_count; ++ko) {
      const arb_shape_def* so = arb__body_shape(o, ko);
      if (!arb__shapes_should_collide(s, so)) continue;
      if (so->type == ARB_SHAPE_CHAIN) {
        t = arb__ccd_toi_chain(w, i, s, sa, j, sb, t);
        continue;
      }
      arb_shape_proxy pb = arb__shape_proxy(so);
      t = arb__ccd_toi_proxy(w, i, s, sa, &pb, sb, t);
    }
  }
  return t;
}

// Put body i back to time t of its sweep (velocity kept); its proxy follows.
static void arb__ccd_rewind(arb_world* w, int i, float t, float dt) {
  arb__body* b = &w->bodies[i];
  arb_sweep s = arb__sweep(w, i);
  b->xf = arb_get_sweep_transform(&s, t);
  b->center = arb_transform_point(b->xf, b->local_center);
  arb_vec2 motion = arb__continuous_dynamic(w) ? arb_scale(dt, w->states[i].v) : arb_vec2_zero;
  arb__body_refresh_proxy(w, i, false, motion);
}

// Pass 1: body i against the statics near its path.
static void arb__ccd_against_statics(arb_world* w, int i, uint64_t* keys, float dt) {
  arb_sweep sa = arb__sweep(w, i);
  int n = arb__ccd_query(w, &w->static_tree, true, arb__swept_box(w, i), keys, 0);
  arb__sort_u64(w, keys, n);
  float t = 1.0f;
  for (int k = 0; k < n; ++k) {  // DET: slot order
    int j = (int)keys[k];
    if (!arb__ccd_pair_ok(w, i, j)) continue;
    arb_sweep sb = arb__sweep(w, j);  // a static body's start and end poses are the same
    t = arb__ccd_toi(w, i, &sa, j, &sb, t);
  }
  if (t < 1.0f) arb__ccd_rewind(w, i, t, dt);
}

// A sleeping body hit by a bullet, woken after the islands fell asleep. The list is the
// collide step's wake list, empty again since arb__apply_wake_requests.
static void arb__ccd_request_wake(arb_world* w, int body) {
  if (w->wake_count == w->wake_cap) {
    int cap = w->wake_cap ? 2 * w->wake_cap : 64;
    int32_t* p = arb__grow(w, w->wake_requests, w->wake_count, cap, sizeof *p);
    if (!p) return;  // out of memory: the contact with the bullet wakes it next step
    w->wake_requests = p;
    w->wake_cap = cap;
  }
  w->wake_requests[w->wake_count++] = body;
}

// Pass 2: bullet i against the moving bodies near its path (fast: the fast bodies of
// pass 1, with their swept boxes).
static void arb__ccd_bullet(arb_world* w, int i, const int32_t* fast, const arb_aabb* fast_box,
                            int fast_count, uint64_t* keys, float dt) {
  arb_aabb box = arb__swept_box(w, i);
  int n = arb__ccd_query(w, &w->dynamic_tree, false, box, keys, 0);
  for (int k = 0; k < fast_count; ++k) {
    if (arb_aabb_overlaps(fast_box[k], box)) keys[n++] = (uint64_t)fast[k];
  }
  arb__sort_u64(w, keys, n);
  arb_sweep sa = arb__sweep(w, i);
  float t = 1.0f;
  int hit = ARB__NULL;
  for (int k = 0; k < n; ++k) {  // DET: slot order (duplicates are adjacent)
    int j = (int)keys[k];
    if ((k > 0 && keys[k - 1] == keys[k]) || !arb__ccd_pair_ok(w, i, j)) continue;
    arb_sweep sb = arb__sweep(w, j);
    float tj = arb__ccd_toi(w, i, &sa, j, &sb, t);
    if (tj < t) {
      t = tj;
      hit = j;
    }
  }
  if (hit == ARB__NULL) return;
  arb__ccd_rewind(w, i, t, dt);
  if (w->bodies[hit].sleeping) {
    arb__ccd_request_wake(w, hit);
  } else if (w->sims[hit].type == ARB_BODY_DYNAMIC) {
    arb__ccd_rewind(w, hit, t, dt);
  }
}

void arb__ccd_finish(arb_world* w, float dt) {
  if (!w->sweep_c) return;
  int slots = w->body_slots;
  int awake;
  const int32_t* list = arb__awake_list(w, &awake);
  // keys holds both trees' hits plus the fast list: at most two entries per slot.
  uint64_t* keys = arb__stack_alloc(w, (size_t)slots * 2 * sizeof *keys);
  int32_t* fast = keys ? arb__stack_alloc(w, (size_t)slots * sizeof *fast) : NULL;
  arb_aabb* fast_box = fast ? arb__stack_alloc(w, (size_t)slots * sizeof *fast_box) : NULL;
  int fast_count = 0;
  int bullets = 0;
  // Sweeping a body against the statics moves only that body: which bodies are swept can
  // be decided for all of them first.
  uint8_t* picked = fast_box ? arb__ccd_scan(w, list, awake, dt, arb__ccd_sweeps) : NULL;
  if (fast_box) {
    for (int k = 0; k < awake; ++k) {  // DET: slot order
      int i = list ? list[k] : k;
      if (!(picked ? picked[k] : arb__ccd_sweeps(w, i, dt))) continue;
      bool bullet = w->bodies[i].bullet != 0;
      arb__ccd_against_statics(w, i, keys, dt);
      fast[fast_count] = i;
      fast_box[fast_count] = arb__swept_box(w, i);
      fast_count += 1;
      bullets += bullet;
    }
    for (int k = 0; k < fast_count && bullets > 0; ++k) {  // DET: slot order
      if (w->bodies[fast[k]].bullet)
        arb__ccd_bullet(w, fast[k], fast, fast_box, fast_count, keys, dt);
    }
  }
  arb__stack_free(w, picked);
  arb__stack_free(w, fast_box);
  arb__stack_free(w, fast);
  arb__stack_free(w, keys);
  arb__stack_free(w, w->sweep_q);
  arb__stack_free(w, w->sweep_c);
  w->sweep_c = NULL;
  w->sweep_q = NULL;
}

void arb__ccd_wake_hits(arb_world* w) {
  for (int k = 0; k < w->wake_count; ++k) arb__wake_body(w, w->wake_requests[k]);  // DET: hit order
  w->wake_count = 0;
}
