// DETERMINISM-CRITICAL: the canonical serialization of the simulated state, shared by
// arb_world_hash (XXH3-64 over it) and arb_world_save (the same bytes in an image).
// Little-endian, field by field, never raw structs (no padding), NaN written as one
// canonical pattern (it cannot occur: every input is validated, but the hash must not
// depend on a NaN's payload bits if it ever did).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "world.h"

#include "extras.h"

void arb__writer_init_hash(arb__writer* wr, void* xxh3_state) {
  wr->base = wr->cur = wr->chunk;
  wr->end = wr->chunk + sizeof wr->chunk;
  wr->flushed = 0;
  wr->hash_state = xxh3_state;
  wr->direct = false;
  wr->for_hash = true;
}

void arb__writer_init_count(arb__writer* wr) {
  arb__writer_init_hash(wr, NULL);
  wr->for_hash = false;
}

void arb__writer_init_buffer(arb__writer* wr, uint8_t* buf, size_t cap) {
  wr->base = wr->cur = buf;
  wr->end = buf + cap;
  wr->flushed = 0;
  wr->hash_state = NULL;
  wr->direct = true;
  wr->for_hash = false;
}

void arb__writer_flush(arb__writer* wr) {
  if (wr->direct) return;  // the size pass guaranteed the room
  size_t n = (size_t)(wr->cur - wr->base);
  if (wr->hash_state && n > 0) XXH3_64bits_update((XXH3_state_t*)wr->hash_state, wr->base, n);
  wr->flushed += n;
  wr->cur = wr->base;
}

// Largest record: a live body with an 8-vertex polygon (~250 bytes).
#define ARB__MAX_RECORD 512

static void arb__w_shape(arb__writer* wr, const arb_shape_def* s) {
  arb__w_u8(wr, (uint8_t)s->type);
  arb__w_f32(wr, s->density);
  arb__w_f32(wr, s->friction);
  arb__w_f32(wr, s->restitution);
  arb__w_u32(wr, s->category_bits);
  arb__w_u32(wr, s->mask_bits);
  arb__w_i32(wr, s->group);
  switch (s->type) {
    case ARB_SHAPE_CIRCLE:
      arb__w_vec2(wr, s->circle.center);
      arb__w_f32(wr, s->circle.radius);
      break;
    case ARB_SHAPE_POLYGON:
      arb__w_u8(wr, (uint8_t)s->polygon.count);
      for (int i = 0; i < s->polygon.count; ++i) arb__w_vec2(wr, s->polygon.vertices[i]);
      for (int i = 0; i < s->polygon.count; ++i) arb__w_vec2(wr, s->polygon.normals[i]);
      arb__w_vec2(wr, s->polygon.centroid);
      break;
    case ARB_SHAPE_SEGMENT:
      arb__w_vec2(wr, s->segment.a);
      arb__w_vec2(wr, s->segment.b);
      break;
    default:
      break;
  }
}

// The layout is documented in snapshot.c (and must be mirrored by its reader).
void arb__serialize_state(const arb_world* w, arb__writer* wr) {
  const arb_world_def* d = &w->def;
  arb__w_reserve(wr, ARB__MAX_RECORD);
  arb__w_vec2(wr, d->gravity);
  arb__w_i32(wr, d->substeps);
  arb__w_f32(wr, d->restitution_threshold);
  arb__w_f32(wr, d->contact_hertz);
  arb__w_f32(wr, d->contact_damping_ratio);
  arb__w_f32(wr, d->max_contact_push_speed);
  arb__w_f32(wr, d->max_linear_speed);
  arb__w_u64(wr, w->step_count);
  arb__w_i32(wr, w->body_slots);
  arb__w_i32(wr, w->body_count);
  arb__w_i32(wr, w->free_head);
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    arb__w_reserve(wr, ARB__MAX_RECORD);
    arb__w_u32(wr, b->generation);
    arb__w_u8(wr, b->in_use);
    if (!b->in_use) {
      arb__w_i32(wr, b->next_free);
      continue;
    }
    const arb__body_sim* sim = &w->sims[i];
    const arb__body_state* st = &w->states[i];
    arb__w_u8(wr, (uint8_t)sim->type);
    arb__w_u8(wr, b->fixed_rotation);
    arb__w_u8(wr, b->bullet);
    arb__w_u8(wr, b->moved);
    arb__w_vec2(wr, b->xf.p);
    arb__w_f32(wr, b->xf.q.c);
    arb__w_f32(wr, b->xf.q.s);
    arb__w_vec2(wr, b->center);
    arb__w_vec2(wr, b->local_center);
    arb__w_vec2(wr, st->v);
    arb__w_f32(wr, st->w);
    arb__w_vec2(wr, b->force);
    arb__w_f32(wr, b->torque);
    arb__w_f32(wr, b->mass);
    arb__w_f32(wr, b->inertia);
    arb__w_f32(wr, sim->inv_mass);
    arb__w_f32(wr, sim->inv_inertia);
    arb__w_f32(wr, sim->gravity_scale);
    arb__w_f32(wr, sim->linear_damping);
    arb__w_f32(wr, sim->angular_damping);
    arb__w_vec2(wr, b->fat_aabb.lower);
    arb__w_vec2(wr, b->fat_aabb.upper);
    if (!wr->for_hash) arb__w_u64(wr, b->user_data);
    arb__w_shape(wr, &b->shape);
  }
  arb__w_reserve(wr, ARB__MAX_RECORD);
  arb__w_i32(wr, w->contact_count);
  for (int i = 0; i < w->contact_count; ++i) {
    const arb__contact* c = &w->contacts[i];
    arb__w_reserve(wr, ARB__MAX_RECORD);
    arb__w_i32(wr, c->body_a);
    arb__w_i32(wr, c->body_b);
    arb__w_u32(wr, c->flags);
    arb__w_f32(wr, c->friction);
    arb__w_f32(wr, c->restitution);
    const arb_manifold* m = &c->manifold;
    arb__w_vec2(wr, m->normal);
    arb__w_u8(wr, (uint8_t)m->point_count);
    for (int k = 0; k < m->point_count; ++k) {
      const arb_manifold_point* p = &m->points[k];
      arb__w_vec2(wr, p->point);
      arb__w_vec2(wr, p->anchor_a);
      arb__w_vec2(wr, p->anchor_b);
      arb__w_f32(wr, p->separation);
      arb__w_f32(wr, p->normal_impulse);
      arb__w_f32(wr, p->tangent_impulse);
      arb__w_u16(wr, p->id);
    }
  }
  if (d->solve_iterations != 1 || d->relax_iterations != 1) {
    arb__w_reserve(wr, ARB__MAX_RECORD);
    arb__w_u32(wr, ARB__ITER_TAG);
    arb__w_i32(wr, d->solve_iterations);
    arb__w_i32(wr, d->relax_iterations);
  }
  arb__extras_serialize(w, wr);  // nothing at all for a world without extras
}

uint64_t arb_world_hash(const arb_world* w) {
  if (!w) return 0;
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  arb__writer wr;
  arb__writer_init_hash(&wr, &state);
  arb__serialize_state(w, &wr);
  arb__writer_flush(&wr);
  return XXH3_64bits_digest(&state);
}

uint64_t arb__hash_bytes(const void* p, size_t n) { return XXH3_64bits(p, n); }
