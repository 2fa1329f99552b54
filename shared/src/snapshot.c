// DETERMINISM-CRITICAL: exact save/restore of the whole simulated state.
//
// Image format, version 1 (all integers and floats little-endian, floats IEEE binary32):
//   u32 magic 'ARBW' (0x57425241)   u32 version (1)   u64 layout hash   u32 payload length
//   payload = the canonical state (hash.c, arb__serialize_state) plus user data:
//     settings: vec2 gravity, i32 substeps, f32 restitution_threshold, contact_hertz,
//               contact_damping_ratio, max_contact_push_speed, max_linear_speed
//     u64 step_count, i32 body_slots, i32 body_count, i32 free_head
//     per slot: u32 generation, u8 in_use; free slot: i32 next_free; live body:
//       u8 type, fixed_rotation, bullet, moved; vec2 position; f32 cos, sin; vec2 centre;
//       vec2 local centre; vec2 v; f32 w; vec2 force; f32 torque; f32 mass, inertia,
//       inv_mass, inv_inertia, gravity_scale, linear_damping, angular_damping;
//       vec2 fat_lower, fat_upper; u64 user_data;
//       shape: u8 type, f32 density, friction, restitution, u32 category, u32 mask,
//       i32 group, then circle (vec2 centre, f32 radius) | polygon (u8 n, n vec2
//       vertices, n vec2 normals, vec2 centroid) | segment (vec2 a, vec2 b)
//     i32 contact_count; per contact (solver order): i32 body_a, body_b, u32 flags,
//       f32 friction, restitution, vec2 normal, u8 point_count, per point: vec2 point,
//       anchor_a, anchor_b, f32 separation, normal_impulse, tangent_impulse, u16 id
//     then, only when solve_iterations or relax_iterations != 1: u32 tag 'ITER'
//       (0x52455449), i32 solve_iterations, i32 relax_iterations (each 1..8, not both 1;
//       absent means 1 and 1, so default worlds keep the layout and hashes of before)
//     then, only when the world has springs, joints, vehicles or particles, the extras
//       section (tag 'XTRA'; layout in extras_io.c)
//   u64 XXH3-64 of the payload
// The trees, pair map and edge lists are rebuilt on restore; nothing depends on their
// shape (see broad_phase.c and contact.c), so restore + step == uninterrupted step.
// The image is untrusted: every count is bounded by the bytes present, every float must
// be finite, every index must name a live body, and mass data must be consistent.
#include "world.h"

#include "extras.h"

#define ARB__IMAGE_MAGIC 0x57425241u
#define ARB__IMAGE_VERSION 1u
#define ARB__IMAGE_HEADER 20

static const char arb__layout[] =
    "arbiter-world-image v1: settings(v2 g,i32 sub,f32 rt,hz,zeta,push,vmax) u64 step "
    "i32 slots,count,free; slot(u32 gen,u8 use|i32 next|u8 type,fix,bullet,moved,v2 p,f32 c,s,"
    "v2 c,lc,v,f32 w,v2 f,f32 t,m,I,im,iI,gs,ld,ad,v2 lo,hi,u64 ud,shape(u8 t,f32 d,f,r,u32 cat,"
    "mask,i32 grp,circle|poly|seg)) i32 contacts; contact(i32 a,b,u32 fl,f32 f,r,v2 n,u8 pc,"
    "pt(v2 p,aa,ab,f32 s,ni,ti,u16 id)) u64 xxh3";

static uint64_t arb__layout_hash(void) { return arb__hash_bytes(arb__layout, sizeof arb__layout - 1); }

int arb_world_save(const arb_world* w, uint8_t* buf, int cap) {
  if (!w || cap < 0) return ARB_E_INVAL;
  arb__writer wr;
  arb__writer_init_count(&wr);
  arb__serialize_state(w, &wr);  // size pass
  arb__writer_flush(&wr);
  size_t payload = arb__writer_len(&wr);
  size_t total = ARB__IMAGE_HEADER + payload + 8;
  if (total > (size_t)INT32_MAX) return ARB_E_TOO_BIG;
  if (!buf || (size_t)cap < total) return (int)total;
  // Straight into the caller's buffer: the size pass wrote exactly the same bytes.
  arb__writer_init_buffer(&wr, buf, total);
  arb__w_u32(&wr, ARB__IMAGE_MAGIC);
  arb__w_u32(&wr, ARB__IMAGE_VERSION);
  arb__w_u64(&wr, arb__layout_hash());
  arb__w_u32(&wr, (uint32_t)payload);
  arb__serialize_state(w, &wr);
  arb__w_u64(&wr, arb__hash_bytes(buf + ARB__IMAGE_HEADER, payload));
  return (int)total;
}

// ---- reader -----------------------------------------------------------------------------

typedef struct arb__reader {
  const uint8_t* p;
  size_t len, pos;
  int err;
} arb__reader;

static bool arb__r_need(arb__reader* r, size_t n) {
  if (r->err) return false;
  if (r->len - r->pos < n) {
    r->err = ARB_E_TRUNCATED;
    return false;
  }
  return true;
}
static uint8_t arb__r_u8(arb__reader* r) {
  if (!arb__r_need(r, 1)) return 0;
  return r->p[r->pos++];
}
static uint16_t arb__r_u16(arb__reader* r) {
  if (!arb__r_need(r, 2)) return 0;
  uint16_t v = (uint16_t)(r->p[r->pos] | (r->p[r->pos + 1] << 8));
  r->pos += 2;
  return v;
}
static uint32_t arb__r_u32(arb__reader* r) {
  if (!arb__r_need(r, 4)) return 0;
  const uint8_t* b = r->p + r->pos;
  r->pos += 4;
  return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
static int32_t arb__r_i32(arb__reader* r) { return (int32_t)arb__r_u32(r); }
static uint64_t arb__r_u64(arb__reader* r) {
  uint64_t lo = arb__r_u32(r);
  return lo | ((uint64_t)arb__r_u32(r) << 32);
}
static float arb__r_f32(arb__reader* r) {
  uint32_t bits = arb__r_u32(r);
  float f;
  memcpy(&f, &bits, 4);
  if (!r->err && !arb_is_valid_float(f)) r->err = ARB_E_NONFINITE;
  return r->err ? 0.0f : f;
}
static arb_vec2 arb__r_vec2(arb__reader* r) {
  arb_vec2 v;
  v.x = arb__r_f32(r);
  v.y = arb__r_f32(r);
  return v;
}
static void arb__r_fail(arb__reader* r, int err) {
  if (!r->err) r->err = err;
}

static void arb__r_shape(arb__reader* r, arb_shape_def* s) {
  memset(s, 0, sizeof *s);
  s->type = (arb_shape_type)arb__r_u8(r);
  s->density = arb__r_f32(r);
  s->friction = arb__r_f32(r);
  s->restitution = arb__r_f32(r);
  s->category_bits = arb__r_u32(r);
  s->mask_bits = arb__r_u32(r);
  s->group = arb__r_i32(r);
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      s->circle.center = arb__r_vec2(r);
      s->circle.radius = arb__r_f32(r);
      break;
    case ARB_SHAPE_POLYGON: {
      int n = arb__r_u8(r);
      if (n < 3 || n > ARB_MAX_POLYGON_VERTICES) {
        arb__r_fail(r, ARB_E_CORRUPT);
        return;
      }
      s->polygon.count = n;
      for (int i = 0; i < n; ++i) s->polygon.vertices[i] = arb__r_vec2(r);
      for (int i = 0; i < n; ++i) s->polygon.normals[i] = arb__r_vec2(r);
      s->polygon.centroid = arb__r_vec2(r);
      break;
    }
    case ARB_SHAPE_SEGMENT:
      s->segment.a = arb__r_vec2(r);
      s->segment.b = arb__r_vec2(r);
      break;
    default:
      arb__r_fail(r, ARB_E_CORRUPT);
      return;
  }
  if (!r->err && !arb__validate_shape(s, NULL)) arb__r_fail(r, ARB_E_CORRUPT);
}

static bool arb__nonneg(float x) { return x >= 0.0f; }

// Reads and checks one live body into the new arrays.
static void arb__r_body(arb__reader* r, arb__body* b, arb__body_sim* sim, arb__body_state* st) {
  int type = arb__r_u8(r);
  b->fixed_rotation = arb__r_u8(r);
  b->bullet = arb__r_u8(r);
  b->moved = arb__r_u8(r);
  if (type >= ARB_BODY_TYPE_COUNT || b->fixed_rotation > 1 || b->bullet > 1 || b->moved > 1) {
    arb__r_fail(r, ARB_E_CORRUPT);
  }
  sim->type = type;
  b->xf.p = arb__r_vec2(r);
  b->xf.q.c = arb__r_f32(r);
  b->xf.q.s = arb__r_f32(r);
  b->center = arb__r_vec2(r);
  b->local_center = arb__r_vec2(r);
  st->v = arb__r_vec2(r);
  st->w = arb__r_f32(r);
  st->dp = arb_vec2_zero;
  st->dq = arb_rot_identity;
  b->force = arb__r_vec2(r);
  b->torque = arb__r_f32(r);
  b->mass = arb__r_f32(r);
  b->inertia = arb__r_f32(r);
  sim->inv_mass = arb__r_f32(r);
  sim->inv_inertia = arb__r_f32(r);
  sim->gravity_scale = arb__r_f32(r);
  sim->linear_damping = arb__r_f32(r);
  sim->angular_damping = arb__r_f32(r);
  b->fat_aabb.lower = arb__r_vec2(r);
  b->fat_aabb.upper = arb__r_vec2(r);
  b->user_data = arb__r_u64(r);
  arb__r_shape(r, &b->shape);
  if (r->err) return;
  float qq = b->xf.q.c * b->xf.q.c + b->xf.q.s * b->xf.q.s;
  bool ok = qq > 0.999f && qq < 1.001f;
  ok = ok && arb__nonneg(b->mass) && arb__nonneg(b->inertia) && arb__nonneg(sim->inv_mass) &&
       arb__nonneg(sim->inv_inertia) && arb__nonneg(sim->linear_damping) &&
       arb__nonneg(sim->angular_damping);
  ok = ok && b->fat_aabb.lower.x <= b->fat_aabb.upper.x && b->fat_aabb.lower.y <= b->fat_aabb.upper.y;
  if (type == ARB_BODY_DYNAMIC) {
    ok = ok && b->mass > 0.0f && sim->inv_mass > 0.0f && b->shape.type != ARB_SHAPE_SEGMENT;
    ok = ok && (!b->fixed_rotation || sim->inv_inertia == 0.0f);
  } else {
    ok = ok && sim->inv_mass == 0.0f && sim->inv_inertia == 0.0f;
  }
  if (type == ARB_BODY_STATIC) ok = ok && st->v.x == 0.0f && st->v.y == 0.0f && st->w == 0.0f;
  // The centre of mass must be where the transform puts the local centre (finalize
  // derives one from the other; a mismatch would act as a huge lever arm).
  if (ok) {
    arb_vec2 c = arb_transform_point(b->xf, b->local_center);
    float tol = 1e-3f * (1.0f + arb_maxf(arb_absf(c.x), arb_absf(c.y)));
    ok = arb_absf(c.x - b->center.x) <= tol && arb_absf(c.y - b->center.y) <= tol;
  }
  if (!ok) arb__r_fail(r, ARB_E_CORRUPT);
}

int arb_world_restore(arb_world* w, const uint8_t* buf, int len) {
  if (!w || !buf || len < 0) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  arb__reader r = {buf, (size_t)len, 0, 0};
  if (arb__r_u32(&r) != ARB__IMAGE_MAGIC) return r.err ? r.err : ARB_E_CORRUPT;
  if (arb__r_u32(&r) != ARB__IMAGE_VERSION) return r.err ? r.err : ARB_E_VERSION;
  if (arb__r_u64(&r) != arb__layout_hash()) return r.err ? r.err : ARB_E_VERSION;
  uint32_t payload = arb__r_u32(&r);
  if (r.err) return r.err;
  if ((size_t)payload + 8 > r.len - r.pos) return ARB_E_TRUNCATED;
  if ((size_t)payload + 8 < r.len - r.pos) return ARB_E_CORRUPT;  // trailing bytes
  {
    arb__reader t = {buf + r.pos + payload, 8, 0, 0};
    if (arb__r_u64(&t) != arb__hash_bytes(buf + r.pos, payload)) return ARB_E_CHECKSUM;
  }
  r.len = r.pos + payload;

  arb_world_def def = w->def;
  def.gravity = arb__r_vec2(&r);
  def.substeps = arb__r_i32(&r);
  def.restitution_threshold = arb__r_f32(&r);
  def.contact_hertz = arb__r_f32(&r);
  def.contact_damping_ratio = arb__r_f32(&r);
  def.max_contact_push_speed = arb__r_f32(&r);
  def.max_linear_speed = arb__r_f32(&r);
  uint64_t step_count = arb__r_u64(&r);
  int32_t slots = arb__r_i32(&r), count = arb__r_i32(&r), free_head = arb__r_i32(&r);
  if (r.err) return r.err;
  if (def.substeps < 1 || def.substeps > ARB__MAX_SUBSTEPS || def.restitution_threshold < 0.0f ||
      def.contact_hertz < 0.0f || def.contact_damping_ratio < 0.0f ||
      def.max_contact_push_speed < 0.0f || def.max_linear_speed <= 0.0f) {
    return ARB_E_CORRUPT;
  }
  // Every slot takes at least 5 bytes: bounds the allocation by the input size.
  if (slots < 0 || slots > ARB__MAX_BODIES || (size_t)slots * 5 > r.len - r.pos) return ARB_E_TOO_BIG;
  if (count < 0 || count > slots || free_head < ARB__NULL || free_head >= slots) return ARB_E_CORRUPT;

  int cap = slots > 16 ? slots : 16;
  arb__body* bodies = arb__alloc(w, (size_t)cap * sizeof *bodies);
  arb__body_state* states = arb__alloc(w, (size_t)(cap + 1) * sizeof *states);
  arb__body_sim* sims = arb__alloc(w, (size_t)cap * sizeof *sims);
  arb__contact* contacts = NULL;
  arb__extras* extras = NULL;  // physics extras section, detached until the commit
  arb__pair_map map;
  memset(&map, 0, sizeof map);
  arb__tree st_tree, dyn_tree;
  arb__tree_init(&st_tree);
  arb__tree_init(&dyn_tree);
  int err = 0, live = 0, ncontacts = 0;
  if (!bodies || !states || !sims) {
    err = ARB_E_NOMEM;
    goto fail;
  }
  memset(bodies, 0, (size_t)cap * sizeof *bodies);
  memset(states, 0, (size_t)cap * sizeof *states);
  for (int i = 0; i < slots && !r.err; ++i) {
    arb__body* b = &bodies[i];
    b->generation = arb__r_u32(&r);
    b->in_use = arb__r_u8(&r);
    b->proxy = ARB__NULL;
    b->contact_head = ARB__NULL;
    b->next_free = ARB__NULL;
    sims[i].type = -1;
    states[i].dq = arb_rot_identity;
    if (b->in_use > 1 || b->generation == 0) arb__r_fail(&r, ARB_E_CORRUPT);
    if (b->in_use == 1) {
      arb__r_body(&r, b, &sims[i], &states[i]);
      live += 1;
    } else {
      b->next_free = arb__r_i32(&r);
      if (b->next_free < ARB__NULL || b->next_free >= slots) arb__r_fail(&r, ARB_E_CORRUPT);
    }
  }
  if (r.err) {
    err = r.err;
    goto fail;
  }
  if (live != count) {
    err = ARB_E_CORRUPT;
    goto fail;
  }
  // The free list must visit every free slot exactly once (no cycles, no live slots).
  {
    int visited = 0;
    for (int f = free_head; f != ARB__NULL; f = bodies[f].next_free) {
      if (bodies[f].in_use || visited > slots - count) {
        err = ARB_E_CORRUPT;
        goto fail;
      }
      visited += 1;
    }
    if (visited != slots - count) {
      err = ARB_E_CORRUPT;
      goto fail;
    }
  }
  ncontacts = arb__r_i32(&r);
  if (r.err) {
    err = r.err;
    goto fail;
  }
  // A contact takes at least 29 bytes (no points).
  if (ncontacts < 0 || ncontacts > ARB__MAX_CONTACTS || (size_t)ncontacts * 29 > r.len - r.pos) {
    err = ARB_E_TOO_BIG;
    goto fail;
  }
  int ccap = ncontacts > 256 ? ncontacts : 256;
  contacts = arb__alloc(w, (size_t)ccap * sizeof *contacts);
  if (!contacts) {
    err = ARB_E_NOMEM;
    goto fail;
  }
  for (int i = 0; i < ncontacts && !r.err; ++i) {
    arb__contact* c = &contacts[i];
    memset(c, 0, sizeof *c);
    c->body_a = arb__r_i32(&r);
    c->body_b = arb__r_i32(&r);
    c->flags = arb__r_u32(&r);
    c->friction = arb__r_f32(&r);
    c->restitution = arb__r_f32(&r);
    c->manifold.normal = arb__r_vec2(&r);
    c->manifold.point_count = arb__r_u8(&r);
    if (r.err) break;
    int a = c->body_a, b = c->body_b;
    if (a < 0 || b < 0 || a >= slots || b >= slots || a == b || !bodies[a].in_use ||
        !bodies[b].in_use || (c->flags & ~ARB__CONTACT_TOUCHING) != 0 ||
        c->manifold.point_count > 2 || c->friction < 0.0f || c->restitution < 0.0f ||
        (sims[a].type != ARB_BODY_DYNAMIC && sims[b].type != ARB_BODY_DYNAMIC) ||
        !arb__contact_has_collider(bodies[a].shape.type, bodies[b].shape.type) ||
        arb__body_shape_rank(bodies[a].shape.type) > arb__body_shape_rank(bodies[b].shape.type)) {
      arb__r_fail(&r, ARB_E_CORRUPT);
      break;
    }
    if (c->manifold.point_count > 0) {
      float nn = arb_dot(c->manifold.normal, c->manifold.normal);
      if (nn < 0.99f || nn > 1.01f) arb__r_fail(&r, ARB_E_CORRUPT);
    }
    for (int k = 0; k < c->manifold.point_count; ++k) {
      arb_manifold_point* p = &c->manifold.points[k];
      p->point = arb__r_vec2(&r);
      p->anchor_a = arb__r_vec2(&r);
      p->anchor_b = arb__r_vec2(&r);
      p->separation = arb__r_f32(&r);
      p->normal_impulse = arb__r_f32(&r);
      p->tangent_impulse = arb__r_f32(&r);
      p->id = arb__r_u16(&r);
      if (!r.err && p->normal_impulse < 0.0f) arb__r_fail(&r, ARB_E_CORRUPT);  // the solver clamps at 0
    }
    if (r.err) break;
    uint64_t key = arb__pair_key(a, b);
    if (arb__map_find(&map, key) != ARB__NULL) {
      arb__r_fail(&r, ARB_E_CORRUPT);  // the same pair twice
      break;
    }
    if (arb__map_insert(w, &map, key, i) != 0) {
      err = ARB_E_NOMEM;
      goto fail;
    }
  }
  if (r.err) {
    err = r.err;
    goto fail;
  }
  // Optional iterations record (only when not both 1; see world.h): absent means 1, 1.
  def.solve_iterations = 1;
  def.relax_iterations = 1;
  if (r.len - r.pos >= 12) {
    arb__reader t = r;
    if (arb__r_u32(&t) == ARB__ITER_TAG) {
      int32_t ns = arb__r_i32(&t), nr = arb__r_i32(&t);
      if (t.err || ns < 1 || ns > ARB__MAX_ITERATIONS || nr < 1 || nr > ARB__MAX_ITERATIONS ||
          (ns == 1 && nr == 1)) {
        err = t.err ? t.err : ARB_E_CORRUPT;
        goto fail;
      }
      def.solve_iterations = ns;
      def.relax_iterations = nr;
      r = t;
    }
  }
  // Whatever follows the contacts is the optional physics extras section (extras_io.c).
  err = arb__extras_read(w, r.p + r.pos, r.len - r.pos, &extras);
  if (err) goto fail;
  for (int i = 0; i < slots; ++i) {
    arb__body* b = &bodies[i];
    if (!b->in_use) continue;
    arb__tree* t = sims[i].type == ARB_BODY_STATIC ? &st_tree : &dyn_tree;
    b->proxy = arb__tree_insert(w, t, b->fat_aabb, i);
    if (b->proxy == ARB__NULL) {
      err = ARB_E_NOMEM;
      goto fail;
    }
  }

  // Commit: nothing below can fail.
  arb__free(w, w->bodies);
  arb__free(w, w->states);
  arb__free(w, w->sims);
  arb__free(w, w->contacts);
  arb__map_free(w, &w->pair_map);
  arb__tree_free(w, &w->static_tree);
  arb__tree_free(w, &w->dynamic_tree);
  w->def = def;
  w->step_count = step_count;
  w->bodies = bodies;
  w->states = states;
  w->sims = sims;
  w->body_capacity = cap;
  w->body_slots = slots;
  w->body_count = count;
  w->free_head = free_head;
  w->contacts = contacts;
  w->contact_count = ncontacts;
  w->contact_capacity = ccap;
  w->pair_map = map;
  w->static_tree = st_tree;
  w->dynamic_tree = dyn_tree;
  w->begin_count = 0;
  w->end_count = 0;
  for (int i = 0; i < ncontacts; ++i) arb__contact_link(w, i);
  arb__extras_commit(w, extras);
  return 0;

fail:
  arb__extras_release(w, extras);
  arb__tree_free(w, &st_tree);
  arb__tree_free(w, &dyn_tree);
  arb__map_free(w, &map);
  arb__free(w, contacts);
  arb__free(w, bodies);
  arb__free(w, states);
  arb__free(w, sims);
  return err ? err : ARB_E_CORRUPT;
}
