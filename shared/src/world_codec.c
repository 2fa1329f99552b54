// DETERMINISM-CRITICAL: the canonical state of a world, one visitor per record kind. The
// same visitors write the save image, feed the hash and read an image back (restore), so
// the three cannot drift apart (arbiter/state_codec.h: how to add a field). The byte
// layout is documented in snapshot.c.
//
// Reading is restore's first half: it fills a staging image (arrays allocated from the
// world's allocator), checking each record as it goes. Cross-record checks that need the
// whole image (free list, pair map) and the commit are in snapshot.c.
#include "extras.h"
#include "shape_kind.h"
#include "world.h"

// ---- records ----------------------------------------------------------------------------

static void arb__settings_fields(arb_codec* c, arb_world_def* d) {
  arb_codec_vec2(c, &d->gravity);
  arb_codec_i32(c, &d->substeps);
  ARB_CODEC_F32S(c, &d->restitution_threshold, &d->contact_hertz, &d->contact_damping_ratio,
                 &d->max_contact_push_speed, &d->max_linear_speed);
  ARB_CODEC_CHECK(c, d->substeps >= 1 && d->substeps <= ARB__MAX_SUBSTEPS &&
                         d->restitution_threshold >= 0.0f && d->contact_hertz >= 0.0f &&
                         d->contact_damping_ratio >= 0.0f && d->max_contact_push_speed >= 0.0f &&
                         d->max_linear_speed > 0.0f);
}

// Bit 7 of a shape's type byte: a flags byte follows (ARB__SHAPE_SENSOR; ARB__SHAPE_ROUNDED:
// the polygon's radius follows its centroid), written only for a shape that has one set,
// so every other shape (a sharp polygon included) keeps the bytes (and hashes) it had.
// ARB__SHAPE_COMPOUND, on a body's first shape only: u8 n (1..ARB_MAX_BODY_SHAPES - 1)
// and n more shapes follow it (a compound body; one-shape bodies keep their bytes).
#define ARB__SHAPE_MORE 0x80u
#define ARB__SHAPE_SENSOR 1u
#define ARB__SHAPE_ROUNDED 2u
#define ARB__SHAPE_COMPOUND 4u

// A shape. `compound` (a body's first shape only, else NULL): whether more shapes follow.
// After the material and filter (layout: snapshot.c), the kind's own fields: its
// arb__<kind>_fields (shared/src/shape_<kind>.c, which documents the layout).
static void arb__shape_fields(arb_codec* c, arb_shape_def* s, arb_world* owner, bool* compound) {
  bool rounded = s->type == ARB_SHAPE_POLYGON && s->polygon.radius != 0.0f;
  bool more = compound && *compound;
  int type = (int)s->type | (s->sensor || rounded || more ? (int)ARB__SHAPE_MORE : 0);
  arb_codec_int_u8(c, &type);
  if (arb_codec_reading(c)) s->type = (arb_shape_type)(type & 0x7f);
  uint8_t allowed = ARB__SHAPE_SENSOR | ARB__SHAPE_ROUNDED | (compound ? ARB__SHAPE_COMPOUND : 0u);
  if (type & (int)ARB__SHAPE_MORE) {
    uint8_t flags = (s->sensor ? ARB__SHAPE_SENSOR : 0u) | (rounded ? ARB__SHAPE_ROUNDED : 0u) |
                    (more ? ARB__SHAPE_COMPOUND : 0u);
    arb_codec_u8(c, &flags);
    // Only flags that differ from the default, and a radius only on a polygon.
    ARB_CODEC_CHECK(c, flags != 0u && (flags & ~allowed) == 0u &&
                           (!(flags & ARB__SHAPE_ROUNDED) || s->type == ARB_SHAPE_POLYGON));
    if (arb_codec_reading(c)) {
      s->sensor = (flags & ARB__SHAPE_SENSOR) != 0;
      rounded = (flags & ARB__SHAPE_ROUNDED) != 0;
      if (compound) *compound = (flags & ARB__SHAPE_COMPOUND) != 0;
    }
  } else if (arb_codec_reading(c)) {
    rounded = false;
    if (compound) *compound = false;
  }
  ARB_CODEC_F32S(c, &s->density, &s->friction, &s->restitution);
  arb_codec_u32(c, &s->category_bits);
  arb_codec_u32(c, &s->mask_bits);
  arb_codec_i32(c, &s->group);
  // A kind this build does not know (none, or past the enum: a hostile image) is refused
  // before the switch, which has no default arm so that a new kind cannot be missed.
  ARB_CODEC_CHECK(c,
                  (int)s->type > (int)ARB_SHAPE_NONE && (int)s->type < (int)ARB_SHAPE_TYPE_COUNT);
  const arb__shape_codec how = {owner, rounded};
#define ARB__FIELDS_CASE(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                       \
    arb__##name##_fields(c, s, &how);          \
    break;
  switch (s->type) {
    ARB_SHAPE_KINDS(ARB__FIELDS_CASE)
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      return;  // refused above
  }
#undef ARB__FIELDS_CASE
  ARB_CODEC_CHECK(c, c->err || arb__validate_shape(s, NULL));
}

static bool arb__nonneg(float x) {
  return x >= 0.0f;
}

// What finalize and the solver assume of a body, checked on a body read from an image.
static bool arb__body_consistent(const arb__body* b, const arb__body_sim* sim,
                                 const arb__body_state* st) {
  float qq = b->xf.q.c * b->xf.q.c + b->xf.q.s * b->xf.q.s;
  bool ok = qq > 0.999f && qq < 1.001f;
  ok = ok && arb__nonneg(b->mass) && arb__nonneg(b->inertia) && arb__nonneg(sim->inv_mass) &&
       arb__nonneg(sim->inv_inertia) && arb__nonneg(sim->linear_damping) &&
       arb__nonneg(sim->angular_damping);
  ok = ok && arb_vec2_is_valid(b->fat_aabb.lower) && arb_vec2_is_valid(b->fat_aabb.upper) &&
       b->fat_aabb.lower.x <= b->fat_aabb.upper.x && b->fat_aabb.lower.y <= b->fat_aabb.upper.y;
  if (sim->type == ARB_BODY_DYNAMIC) {
    ok = ok && b->mass > 0.0f && sim->inv_mass > 0.0f;
    for (int i = 0; i < b->shape_count; ++i)
      ok = ok && arb_shape_has_area(arb__body_shape(b, i)->type);
    ok = ok && (!b->fixed_rotation || sim->inv_inertia == 0.0f);
  } else {
    ok = ok && sim->inv_mass == 0.0f && sim->inv_inertia == 0.0f;
  }
  if (sim->type == ARB_BODY_STATIC) ok = ok && st->v.x == 0.0f && st->v.y == 0.0f && st->w == 0.0f;
  if (!ok) return false;
  // The centre of mass must be where the transform puts the local centre (finalize
  // derives one from the other; a mismatch would act as a huge lever arm).
  arb_vec2 c = arb_transform_point(b->xf, b->local_center);
  float tol = 1e-3f * (1.0f + arb_maxf(arb_absf(c.x), arb_absf(c.y)));
  return arb_absf(c.x - b->center.x) <= tol && arb_absf(c.y - b->center.y) <= tol;
}

// The first shape, then (a compound body) u8 n and n more shapes. A chain is a body's
// only shape. Reading allocates the extra shapes from `owner` (the body owns them).
static void arb__body_shapes(arb_codec* c, arb__body* b, arb_world* owner) {
  bool compound = b->shape_count > 1;
  arb__shape_fields(c, &b->shape, owner, &compound);
  if (arb_codec_reading(c)) b->shape_count = 1;
  if (c->err || !compound) return;
  int more = b->shape_count - 1;
  arb_codec_int_u8(c, &more);
  ARB_CODEC_CHECK(c, more >= 1 && more < ARB_MAX_BODY_SHAPES && b->shape.type != ARB_SHAPE_CHAIN &&
                         (size_t)more * 33 <= arb_codec_left(c));  // a shape takes >= 33 bytes
  if (c->err) return;
  if (arb_codec_reading(c)) {
    b->more_shapes = arb__alloc(owner, (size_t)more * sizeof *b->more_shapes);
    if (!b->more_shapes) {
      arb_codec_fail(c, ARB_E_NOMEM);
      return;
    }
    memset(b->more_shapes, 0, (size_t)more * sizeof *b->more_shapes);
    b->shape_count = (uint8_t)(1 + more);
  }
  for (int i = 0; i < more && !c->err; ++i) {
    arb__shape_fields(c, &b->more_shapes[i], owner, NULL);
    ARB_CODEC_CHECK(c, c->err || b->more_shapes[i].type != ARB_SHAPE_CHAIN);
  }
}

static void arb__body_fields(arb_codec* c, arb__body* b, arb__body_sim* sim, arb__body_state* st,
                             arb_world* owner) {
  arb_codec_int_u8(c, &sim->type);
  arb_codec_flag(c, &b->fixed_rotation);
  arb_codec_flag(c, &b->bullet);
  arb_codec_flag(c, &b->moved);
  ARB_CODEC_CHECK(c, sim->type < ARB_BODY_TYPE_COUNT);
  arb_codec_vec2(c, &b->xf.p);
  ARB_CODEC_F32S(c, &b->xf.q.c, &b->xf.q.s);
  ARB_CODEC_VEC2S(c, &b->center, &b->local_center, &st->v);
  arb_codec_f32(c, &st->w);
  arb_codec_vec2(c, &b->force);
  ARB_CODEC_F32S(c, &b->torque, &b->mass, &b->inertia, &sim->inv_mass, &sim->inv_inertia,
                 &sim->gravity_scale, &sim->linear_damping, &sim->angular_damping);
  ARB_CODEC_VEC2S(c, &b->fat_aabb.lower, &b->fat_aabb.upper);
  if (!arb_codec_hashing(c)) arb_codec_u64(c, &b->user_data);  // not simulated
  arb__body_shapes(c, b, owner);
  ARB_CODEC_CHECK(c, c->err || arb__body_consistent(b, sim, st));
  if (arb_codec_reading(c) && !c->err) b->min_extent = arb__body_min_extent(b);  // derived
}

// A slot: generation and use, then the free-list link or the live body.
void arb__slot_fields(arb_codec* c, arb__world_image* img, int i) {
  arb__body* b = &img->bodies[i];
  arb_codec_u32(c, &b->generation);
  arb_codec_u8(c, &b->in_use);
  ARB_CODEC_CHECK(c, b->in_use <= 1 && b->generation != 0);
  if (b->in_use) {
    arb__body_fields(c, b, &img->sims[i], &img->states[i], img->owner);
  } else {
    arb_codec_i32(c, &b->next_free);
    ARB_CODEC_CHECK(c, b->next_free >= ARB__NULL && b->next_free < img->body_slots);
  }
}

// A contact must join a shape of each of two live bodies, at least one dynamic, neither
// a sensor, in collide-function order.
static bool arb__contact_links_ok(const arb__world_image* img, const arb__contact* ct) {
  int a = ct->body_a, b = ct->body_b, n = img->body_slots;
  if (a < 0 || b < 0 || a >= n || b >= n || a == b) return false;
  const arb__body* ba = &img->bodies[a];
  const arb__body* bb = &img->bodies[b];
  const uint32_t known = ARB__CONTACT_TOUCHING | ARB__CONTACT_CACHED | ARB__CONTACT_SHAPES;
  int ka = arb__contact_shape_a(ct->flags), kb = arb__contact_shape_b(ct->flags);
  if (!ba->in_use || !bb->in_use || (ct->flags & ~known) != 0) return false;
  if (ka >= ba->shape_count || kb >= bb->shape_count) return false;
  const arb_shape_def* sa = arb__body_shape(ba, ka);
  const arb_shape_def* sb = arb__body_shape(bb, kb);
  return !sa->sensor && !sb->sensor &&
         (img->sims[a].type == ARB_BODY_DYNAMIC || img->sims[b].type == ARB_BODY_DYNAMIC) &&
         arb__contact_has_collider(sa->type, sb->type) &&
         arb__contact_kind_order(sa->type, sb->type) <= 0;
}

static void arb__point_fields(arb_codec* c, arb_manifold_point* p) {
  ARB_CODEC_VEC2S(c, &p->point, &p->anchor_a, &p->anchor_b);
  ARB_CODEC_F32S(c, &p->separation, &p->normal_impulse, &p->tangent_impulse);
  arb_codec_u16(c, &p->id);
  ARB_CODEC_CHECK(c, c->err || p->normal_impulse >= 0.0f);  // the solver clamps at 0
}

static bool arb__image_touching(const arb_manifold* m) {
  for (int k = 0; k < m->point_count; ++k) {
    if (m->points[k].separation <= ARB_SPECULATIVE_DISTANCE) return true;
  }
  return false;
}

static void arb__contact_fields(arb_codec* c, const arb__world_image* img, arb__contact* ct) {
  arb_manifold* m = &ct->manifold;
  arb_codec_i32(c, &ct->body_a);
  arb_codec_i32(c, &ct->body_b);
  arb_codec_u32(c, &ct->flags);
  ARB_CODEC_F32S(c, &ct->friction, &ct->restitution);
  arb_codec_vec2(c, &m->normal);
  arb_codec_int_u8(c, &m->point_count);
  ARB_CODEC_CHECK(c, c->err || (arb__contact_links_ok(img, ct) && m->point_count <= 2 &&
                                ct->friction >= 0.0f && ct->restitution >= 0.0f));
  if (c->err) return;
  float nn = arb_dot(m->normal, m->normal);
  ARB_CODEC_CHECK(c, m->point_count == 0 || (nn >= 0.99f && nn <= 1.01f));
  for (int k = 0; k < m->point_count; ++k) arb__point_fields(c, &m->points[k]);
  // Touching is the narrow phase's verdict on the manifold: a point within the speculative
  // distance (contact.c). A world never has it otherwise, and the validation walkers
  // (world_validate.c) hold every world to that.
  ARB_CODEC_CHECK(c, c->err || !arb_codec_reading(c) ||
                         ((ct->flags & ARB__CONTACT_TOUCHING) != 0) == arb__image_touching(m));
  if (!(ct->flags & ARB__CONTACT_CACHED)) return;
  // The recycling cache (contact.c): the poses the manifold was computed at.
  ARB_CODEC_F32S(c, &ct->cached_qa.c, &ct->cached_qa.s, &ct->cached_qb.c, &ct->cached_qb.s);
  arb_codec_vec2(c, &ct->cached_relative.p);
  ARB_CODEC_F32S(c, &ct->cached_relative.q.c, &ct->cached_relative.q.s);
  for (int k = 0; k < m->point_count; ++k) arb_codec_f32(c, &ct->base_separation[k]);
  if (!arb_codec_reading(c)) return;  // the checks below are for untrusted images only
  const arb_rot* qs[3] = {&ct->cached_qa, &ct->cached_qb, &ct->cached_relative.q};
  for (int k = 0; k < 3; ++k) {
    float qq = qs[k]->c * qs[k]->c + qs[k]->s * qs[k]->s;
    ARB_CODEC_CHECK(c, c->err || (qq >= 0.99f && qq <= 1.01f));
  }
  for (int k = m->point_count; k < 2; ++k) ct->base_separation[k] = 0.0f;
}

// Optional record (see world.h): only when not both 1, so default worlds keep their bytes.
static void arb__iteration_fields(arb_codec* c, arb_world_def* d) {
  if (arb_codec_reading(c)) {
    d->solve_iterations = d->relax_iterations = 1;
    if (arb_codec_left(c) < 12 || arb_codec_peek_u32(c) != ARB__ITER_TAG) return;
  } else if (d->solve_iterations == 1 && d->relax_iterations == 1) {
    return;
  }
  uint32_t tag = ARB__ITER_TAG;
  arb_codec_u32(c, &tag);
  arb_codec_i32(c, &d->solve_iterations);
  arb_codec_i32(c, &d->relax_iterations);
  int ns = d->solve_iterations, nr = d->relax_iterations;
  ARB_CODEC_CHECK(c, ns >= 1 && ns <= ARB__MAX_ITERATIONS && nr >= 1 && nr <= ARB__MAX_ITERATIONS &&
                         !(ns == 1 && nr == 1));
}

// An optional record that is its tag alone (see world.h): present when *flag is not
// `absent` (the value of an image without it), so a default world keeps its bytes.
static void arb__flag_record(arb_codec* c, uint32_t tag, bool absent, bool* flag) {
  if (arb_codec_reading(c)) {
    *flag = absent;
    if (arb_codec_left(c) < 4 || arb_codec_peek_u32(c) != tag) return;
    *flag = !absent;
  } else if (*flag == absent) {
    return;
  }
  arb_codec_u32(c, &tag);
}

// Optional record (see world.h): the tag alone, only when contact recycling is on. An
// image without it (from before recycling existed, or of a world with it off) has no
// contact with a recycling cache and restores a world that collides every contact.
static void arb__recycling_fields(arb_codec* c, arb_world_def* d, const arb__world_image* img) {
  if (arb_codec_reading(c)) {
    d->enable_contact_recycling = false;
    if (arb_codec_left(c) >= 4 && arb_codec_peek_u32(c) == ARB__RECYCLE_TAG) {
      d->enable_contact_recycling = true;
    }
  }
  if (d->enable_contact_recycling) {
    uint32_t tag = ARB__RECYCLE_TAG;
    arb_codec_u32(c, &tag);
    return;
  }
  for (int i = 0; arb_codec_reading(c) && i < img->contact_count && !c->err; ++i) {
    ARB_CODEC_CHECK(c, !(img->contacts[i].flags & ARB__CONTACT_CACHED));
  }
}

// ---- the staging arrays of a read -------------------------------------------------------

static void arb__alloc_bodies(arb_codec* c, arb_world* w, arb__world_image* img) {
  int cap = img->body_slots > 16 ? img->body_slots : 16;
  img->bodies = arb__alloc(w, (size_t)cap * sizeof *img->bodies);
  img->states = arb__alloc(w, (size_t)(cap + 1) * sizeof *img->states);
  img->sims = arb__alloc(w, (size_t)cap * sizeof *img->sims);
  img->body_capacity = cap;
  if (!img->bodies || !img->states || !img->sims) {
    arb_codec_fail(c, ARB_E_NOMEM);
    return;
  }
  memset(img->bodies, 0, (size_t)cap * sizeof *img->bodies);
  memset(img->states, 0, (size_t)(cap + 1) * sizeof *img->states);
  memset(img->sims, 0, (size_t)cap * sizeof *img->sims);
  for (int i = 0; i < cap; ++i) {
    img->bodies[i].proxy = img->bodies[i].contact_head = img->bodies[i].next_free = ARB__NULL;
    img->sims[i].type = -1;
    img->states[i].dq = arb_rot_identity;
  }
  img->states[cap].dq = arb_rot_identity;
}

static void arb__alloc_contacts(arb_codec* c, arb_world* w, arb__world_image* img) {
  int cap = img->contact_count > 256 ? img->contact_count : 256;
  img->contacts = arb__alloc(w, (size_t)cap * sizeof *img->contacts);
  img->contact_capacity = cap;
  if (!img->contacts) {
    arb_codec_fail(c, ARB_E_NOMEM);
    return;
  }
  memset(img->contacts, 0, (size_t)cap * sizeof *img->contacts);
}

// ---- the whole state --------------------------------------------------------------------

void arb__world_image_of(const arb_world* w, arb__world_image* img) {
  memset(img, 0, sizeof *img);
  img->def = w->def;
  img->step_count = w->step_count;
  img->body_slots = w->body_slots;
  img->body_count = w->body_count;
  img->free_head = w->free_head;
  img->body_capacity = w->body_capacity;
  // Writing visits fields through pointers but never stores through them.
  img->bodies = w->bodies;
  img->states = w->states;
  img->sims = w->sims;
  img->contact_count = w->contact_count;
  img->contact_capacity = w->contact_capacity;
  img->contacts = w->contacts;
  img->sensor_pair_count = w->sensor_pair_count;
  img->sensor_pairs = w->sensor_pairs;
  img->extras = w->extras;
}

void arb__world_codec(arb_codec* c, arb_world* w, arb__world_image* img) {
  bool reading = arb_codec_reading(c);
  img->owner = w;
  arb__settings_fields(c, &img->def);
  arb_codec_u64(c, &img->step_count);
  arb_codec_count(c, &img->body_slots, ARB__MAX_BODIES, 5);  // a slot takes at least 5 bytes
  arb_codec_i32(c, &img->body_count);
  arb_codec_i32(c, &img->free_head);
  ARB_CODEC_CHECK(c, img->body_count >= 0 && img->body_count <= img->body_slots &&
                         img->free_head >= ARB__NULL && img->free_head < img->body_slots);
  if (reading && !c->err) arb__alloc_bodies(c, w, img);
  for (int i = 0; i < img->body_slots && !c->err; ++i) {
    if (arb_codec_hashing(c)) {
      arb__hash_slot(c, img, i);  // hash_cache.c: the slot's digest, reused when at rest
    } else {
      arb__slot_fields(c, img, i);
    }
  }
  arb_codec_count(c, &img->contact_count, ARB__MAX_CONTACTS, 29);  // a contact: >= 29 bytes
  if (reading && !c->err) arb__alloc_contacts(c, w, img);
  for (int i = 0; i < img->contact_count && !c->err; ++i)
    arb__contact_fields(c, img, &img->contacts[i]);
  arb__iteration_fields(c, &img->def);
  arb__flag_record(c, ARB__DISCRETE_TAG, true, &img->def.enable_continuous);
  arb__flag_record(c, ARB__STATIC_CCD_TAG, true, &img->def.continuous_dynamic);
  arb__recycling_fields(c, &img->def, img);
  // sensor.c: nothing at all without sensor overlaps. Before the sleep record, which is
  // always there: an image cut right before this record is refused, not read as empty.
  arb__sensor_codec(c, w, img);
  arb__sleep_codec(c, img);                            // sleep_io.c
  if (!c->err) arb__extras_codec(c, w, &img->extras);  // nothing at all without extras
}

void arb__world_image_free(arb_world* w, arb__world_image* img) {
  arb__extras_release(w, img->extras);
  if (img->bodies) arb__free_body_shapes(w, img->bodies, img->body_slots);
  arb__free(w, img->contacts);
  arb__free(w, img->sensor_pairs);
  arb__free(w, img->bodies);
  arb__free(w, img->states);
  arb__free(w, img->sims);
  memset(img, 0, sizeof *img);
}
