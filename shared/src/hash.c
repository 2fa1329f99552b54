// DETERMINISM-CRITICAL: the canonical serialization of the simulated state, shared by
// arb_world_hash (XXH3-64 over it) and arb_world_save (the same bytes in an image).
// Little-endian, field by field, never raw structs (no padding), NaN written as one
// canonical pattern (it cannot occur: every input is validated, but the hash must not
// depend on a NaN's payload bits if it ever did).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "world.h"

static void arb__w_flush(arb__writer* wr) {
  if (wr->hash_state && wr->chunk_len > 0) {
    XXH3_64bits_update((XXH3_state_t*)wr->hash_state, wr->chunk, wr->chunk_len);
  }
  wr->chunk_len = 0;
}

void arb__w_bytes(arb__writer* wr, const void* p, size_t n) {
  if (wr->hash_state) {
    if (wr->chunk_len + n > sizeof wr->chunk) arb__w_flush(wr);
    if (n > sizeof wr->chunk) {
      XXH3_64bits_update((XXH3_state_t*)wr->hash_state, p, n);
    } else {
      memcpy(wr->chunk + wr->chunk_len, p, n);
      wr->chunk_len += n;
    }
  } else if (wr->buf && wr->len + n <= wr->cap) {
    memcpy(wr->buf + wr->len, p, n);
  }
  wr->len += n;
}

void arb__w_u8(arb__writer* wr, uint8_t v) { arb__w_bytes(wr, &v, 1); }
void arb__w_u16(arb__writer* wr, uint16_t v) {
  uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  arb__w_bytes(wr, b, 2);
}
void arb__w_u32(arb__writer* wr, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  arb__w_bytes(wr, b, 4);
}
void arb__w_i32(arb__writer* wr, int32_t v) { arb__w_u32(wr, (uint32_t)v); }
void arb__w_u64(arb__writer* wr, uint64_t v) {
  arb__w_u32(wr, (uint32_t)v);
  arb__w_u32(wr, (uint32_t)(v >> 32));
}
void arb__w_f32(arb__writer* wr, float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  if (v != v) bits = 0x7fc00000u;  // canonical NaN
  arb__w_u32(wr, bits);
}
void arb__w_vec2(arb__writer* wr, arb_vec2 v) {
  arb__w_f32(wr, v.x);
  arb__w_f32(wr, v.y);
}

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
  arb__w_i32(wr, w->contact_count);
  for (int i = 0; i < w->contact_count; ++i) {
    const arb__contact* c = &w->contacts[i];
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
}

uint64_t arb_world_hash(const arb_world* w) {
  if (!w) return 0;
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  arb__writer wr;
  memset(&wr, 0, sizeof wr);
  wr.hash_state = &state;
  wr.for_hash = true;
  arb__serialize_state(w, &wr);
  arb__w_flush(&wr);
  return XXH3_64bits_digest(&state);
}

uint64_t arb__hash_bytes(const void* p, size_t n) { return XXH3_64bits(p, n); }
