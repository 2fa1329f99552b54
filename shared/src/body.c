// DETERMINISM-CRITICAL: bodies behind generation-checked ids. Slots are reused LIFO from
// a free list that is part of the saved state, so ids come out the same after a restore.
#include "world.h"

#include "arbiter/query.h"
#include "chain.h"

// ---- validation and mass ----------------------------------------------------------------

static bool arb__finite_nonneg(float x) {
  return arb_is_valid_float(x) && x >= 0.0f;
}

// The shapes a def gives its body: `shapes` when shape_count is set, else `shape`.
static const arb_shape_def* arb__def_shapes(const arb_body_def* d, int* count) {
  *count = d->shape_count > 0 ? d->shape_count : 1;
  return d->shape_count > 0 ? d->shapes : &d->shape;
}

static bool arb__validate_body_def(const arb_body_def* d) {
  if ((int)d->type < 0 || d->type >= ARB_BODY_TYPE_COUNT) return false;
  if (!arb_vec2_is_valid(d->position) || !arb_is_valid_float(d->angle)) return false;
  if (!arb_vec2_is_valid(d->linear_velocity) || !arb_is_valid_float(d->angular_velocity))
    return false;
  if (!arb__finite_nonneg(d->linear_damping) || !arb__finite_nonneg(d->angular_damping))
    return false;
  if (!arb_is_valid_float(d->gravity_scale) || !arb__finite_nonneg(d->mass)) return false;
  if (!arb__finite_nonneg(d->sleep_threshold)) return false;
  if (d->shape_count < 0 || d->shape_count > ARB_MAX_BODY_SHAPES) return false;
  if (d->shape_count > 0 && !d->shapes) return false;
  int n;
  const arb_shape_def* shapes = arb__def_shapes(d, &n);
  for (int i = 0; i < n; ++i) {
    if (!arb__validate_shape(&shapes[i], NULL)) return false;
    // A chain is many links already: it is a body's only shape.
    if (n > 1 && shapes[i].type == ARB_SHAPE_CHAIN) return false;
    // Segments and chains have no area: they are static (or kinematic) geometry only.
    if (d->type == ARB_BODY_DYNAMIC && !arb_shape_has_area(shapes[i].type)) return false;
  }
  return true;
}

// Sets mass, inertia and the solver's inverses from the shapes, the def's mass override
// and the body type.
static bool arb__body_set_mass(arb_world* w, int index, float mass_override) {
  arb__body* b = &w->bodies[index];
  arb__body_sim* sim = &w->sims[index];
  b->mass = 0.0f;
  b->inertia = 0.0f;
  b->local_center = arb_vec2_zero;
  sim->inv_mass = 0.0f;
  sim->inv_inertia = 0.0f;
  arb_mass_data md = arb__body_mass_data(b);
  if (arb__body_has_area(b)) b->local_center = md.center;
  if (sim->type != ARB_BODY_DYNAMIC) return true;
  float mass = md.mass, inertia = md.rotational_inertia;
  if (mass_override > 0.0f) {
    if (mass > 0.0f) {
      inertia *= mass_override / mass;
    } else {
      inertia = 0.0f;
    }
    mass = mass_override;
  }
  if (!(mass > 0.0f) || !arb_is_valid_float(mass) || !arb_is_valid_float(inertia)) return false;
  b->mass = mass;
  b->inertia = inertia;
  sim->inv_mass = 1.0f / mass;
  sim->inv_inertia = (!b->fixed_rotation && inertia > 0.0f) ? 1.0f / inertia : 0.0f;
  return true;
}

// ---- broad-phase glue -------------------------------------------------------------------

const arb_shape_def* arb__body_shape_at(const arb__body* b, int i) {
  return arb__body_shape(b, i);
}

// The box a body's proxy must cover: its AABB grown by the speculative distance (manifolds
// appear within it) and by the path ahead (zero for a slow body: the fat margin covers it).
static arb_aabb arb__proxy_need(const arb__body* b, arb_vec2 motion) {
  arb_aabb tight = arb__body_compute_aabb(b);
  const float s = ARB_SPECULATIVE_DISTANCE;
  tight.lower = arb_sub(tight.lower, arb_v2(s, s));
  tight.upper = arb_add(tight.upper, arb_v2(s, s));
  if (motion.x < 0.0f) tight.lower.x += motion.x;
  if (motion.x > 0.0f) tight.upper.x += motion.x;
  if (motion.y < 0.0f) tight.lower.y += motion.y;
  if (motion.y > 0.0f) tight.upper.y += motion.y;
  return tight;
}

bool arb__body_proxy_fits(const arb_world* w, int index, arb_vec2 motion) {
  const arb__body* b = &w->bodies[index];
  return b->proxy != ARB__NULL && arb_aabb_contains(b->fat_aabb, arb__proxy_need(b, motion));
}

// How far a proxy's fat box reaches beyond the box it must cover. Every body within it
// has a contact, so it scales with the body: an eighth of its extent, at most
// ARB__AABB_MARGIN (the way Box2D v3 sizes it per shape). A fixed 0.1 m around a crowd of
// 0.2 m boxes 0.21 m apart (washer) gave each box a contact with its 12 nearest
// neighbours, nearly all of them apart. A static body never moves: the speculative
// distance only.
static float arb__proxy_margin(const arb_world* w, int index) {
  if (w->sims[index].type == ARB_BODY_STATIC) return ARB_SPECULATIVE_DISTANCE;
  return arb_minf(ARB__AABB_MARGIN, ARB__AABB_MARGIN_FRACTION * w->bodies[index].max_extent);
}

void arb__body_refresh_proxy(arb_world* w, int index, bool force, arb_vec2 motion) {
  arb__body* b = &w->bodies[index];
  arb_aabb tight = arb__proxy_need(b, motion);
  if (!force && b->proxy != ARB__NULL && arb_aabb_contains(b->fat_aabb, tight)) return;
  arb__note_paired_aabb(w, index, force || b->proxy == ARB__NULL || !b->pairs_checked);
  const float m = arb__proxy_margin(w, index);
  b->fat_aabb.lower = arb_sub(tight.lower, arb_v2(m, m));
  b->fat_aabb.upper = arb_add(tight.upper, arb_v2(m, m));
  // A body gone non-finite (a hostile image, a blown-up state) spoils the tree's boxes,
  // and queries may then miss overlaps: from here every pair is looked up in the map.
  if (!arb_vec2_is_valid(b->fat_aabb.lower) || !arb_vec2_is_valid(b->fat_aabb.upper))
    w->pairs_incomplete = true;
  arb__tree* t = w->sims[index].type == ARB_BODY_STATIC ? &w->static_tree : &w->dynamic_tree;
  if (b->proxy != ARB__NULL) {
    arb__tree_move(t, b->proxy, b->fat_aabb, b);
  } else {
    b->proxy =
        arb__tree_insert(w, t, b->fat_aabb, index, b, w->sims[index].type == ARB_BODY_DYNAMIC);
  }
  arb__mark_moved(w, index);
}

// ---- ids --------------------------------------------------------------------------------

arb__body* arb__body_get(const arb_world* w, arb_body_id id) {
  if (!w || id.index1 <= 0 || id.index1 > w->body_slots) return NULL;
  arb__body* b = &w->bodies[id.index1 - 1];
  if (!b->in_use || b->generation != id.generation) return NULL;
  return b;
}

static arb_body_id arb__make_id(const arb_world* w, int index) {
  arb_body_id id = {index + 1, w->bodies[index].generation};
  return id;
}

static bool arb__ensure_body_capacity(arb_world* w, int need) {
  if (need <= w->body_capacity) return true;
  int cap = w->body_capacity * 2 > need ? w->body_capacity * 2 : need;
  arb__body* bodies = arb__grow(w, w->bodies, w->body_slots, cap, sizeof *bodies);
  if (!bodies) return false;
  w->bodies = bodies;
  arb__body_state* states = arb__grow(w, w->states, w->body_slots, cap + 1, sizeof *states);
  if (!states) return false;
  w->states = states;
  arb__body_sim* sims = arb__grow(w, w->sims, w->body_slots, cap, sizeof *sims);
  if (!sims) return false;
  w->sims = sims;
  w->body_capacity = cap;
  return true;
}

// The slot a new body takes: the head of the free list, or a new slot at the end (zeroed,
// generation 1). ARB__NULL when full or out of memory. Nothing is committed yet.
static int arb__claim_slot(arb_world* w) {
  if (w->free_head != ARB__NULL) return w->free_head;
  if (w->body_slots >= ARB__MAX_BODIES) return ARB__NULL;
  if (!arb__ensure_body_capacity(w, w->body_slots + 1)) return ARB__NULL;
  int index = w->body_slots;
  memset(&w->bodies[index], 0, sizeof w->bodies[index]);
  w->bodies[index].generation = 1;
  return index;
}

// The world's own copy of a chain's points (the def's may go away after creation), with
// its link tree behind them (chain.h).
static arb_vec2* arb__copy_chain_points(arb_world* w, const arb_chain* c) {
  arb_vec2* p = arb__alloc(w, arb__chain_points_size(c->count, c->loop));
  if (!p) return NULL;
  memcpy(p, c->points, (size_t)c->count * sizeof *c->points);
  arb__chain_build_tree(p, c->count, c->loop);
  return p;
}

void arb__free_body_shapes(arb_world* w, arb__body* bodies, int slots) {
  for (int i = 0; i < slots; ++i) {
    arb_shape_def* s = &bodies[i].shape;
    if (!bodies[i].in_use) continue;
    // A compound body has no chain, but an image being read may have claimed one (refused
    // after its points were allocated).
    for (int k = 0; bodies[i].more_shapes && k < bodies[i].shape_count - 1; ++k) {
      arb_shape_def* more = &bodies[i].more_shapes[k];
      if (more->type == ARB_SHAPE_CHAIN) arb__free(w, (void*)more->chain.points);
    }
    arb__free(w, bodies[i].more_shapes);
    bodies[i].more_shapes = NULL;
    if (s->type != ARB_SHAPE_CHAIN) continue;
    arb__free(w, (void*)s->chain.points);
    s->chain.points = NULL;
  }
}

// What a new body owns beyond its slot: the copy of a chain's points, the extra shapes
// of a compound body. False when out of memory (free what was taken with arb__free_owned).
typedef struct arb__body_owned {
  arb_vec2* chain_points;
  arb_shape_def* more_shapes;
} arb__body_owned;

static bool arb__alloc_owned(arb_world* w, const arb_body_def* def, arb__body_owned* o) {
  int n;
  const arb_shape_def* shapes = arb__def_shapes(def, &n);
  memset(o, 0, sizeof *o);
  if (shapes[0].type == ARB_SHAPE_CHAIN) {
    o->chain_points = arb__copy_chain_points(w, &shapes[0].chain);
    if (!o->chain_points) return false;
  }
  if (n > 1) {
    o->more_shapes = arb__alloc(w, (size_t)(n - 1) * sizeof *o->more_shapes);
    if (!o->more_shapes) return false;
    memcpy(o->more_shapes, shapes + 1, (size_t)(n - 1) * sizeof *o->more_shapes);
  }
  return true;
}

static void arb__free_owned(arb_world* w, arb__body_owned* o) {
  arb__free(w, o->chain_points);
  arb__free(w, o->more_shapes);
}

arb_body_id arb_body_create(arb_world* w, const arb_body_def* def) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  ARB__CHECK_DEF(def, ARB__DEF_COOKIE);
  if (!w || w->locked || !def || !arb__validate_body_def(def)) return arb_null_body_id;
  arb__body_owned owned;
  if (!arb__alloc_owned(w, def, &owned)) {
    arb__free_owned(w, &owned);
    return arb_null_body_id;
  }
  int index = arb__claim_slot(w);
  if (index == ARB__NULL) {
    arb__free_owned(w, &owned);
    return arb_null_body_id;
  }
  arb__body* b = &w->bodies[index];
  uint32_t generation = b->generation;
  int next_free = b->next_free;
  memset(b, 0, sizeof *b);
  b->generation = generation;
  int shape_count;
  b->shape = arb__def_shapes(def, &shape_count)[0];
  b->shape_count = (uint8_t)shape_count;
  b->more_shapes = owned.more_shapes;
  if (owned.chain_points) b->shape.chain.points = owned.chain_points;
  b->fixed_rotation = def->fixed_rotation;
  b->bullet = def->bullet;
  b->user_data = def->user_data;
  b->proxy = ARB__NULL;
  b->contact_head = ARB__NULL;
  b->next_free = ARB__NULL;
  arb__body_sim* sim = &w->sims[index];
  sim->type = (int32_t)def->type;
  sim->gravity_scale = def->gravity_scale;
  sim->linear_damping = def->linear_damping;
  sim->angular_damping = def->angular_damping;
  if (!arb__body_set_mass(w, index, def->mass)) {
    // A dynamic body without mass (density 0 and no mass override): leave the slot as
    // it was, still linked into the free list.
    sim->type = -1;
    b->next_free = next_free;
    b->more_shapes = NULL;
    arb__free_owned(w, &owned);
    return arb_null_body_id;
  }
  // Commit the slot only now that nothing can fail except the tree allocation.
  if (index == w->free_head) {
    w->free_head = next_free;
  } else {
    w->body_slots += 1;
  }
  b->in_use = 1;
  b->xf.p = def->position;
  b->xf.q = arb_rot_from_angle(def->angle);
  b->center = arb_transform_point(b->xf, b->local_center);
  arb__body_state* st = &w->states[index];
  memset(st, 0, sizeof *st);
  st->dq = arb_rot_identity;
  if (def->type != ARB_BODY_STATIC) {
    st->v = def->linear_velocity;
    st->w = b->fixed_rotation && def->type == ARB_BODY_DYNAMIC ? 0.0f : def->angular_velocity;
  }
  w->body_count += 1;
  w->sensor_bodies += arb__body_has_sensor(b);
  arb__body_init_sleep(b, def);
  b->min_extent = arb__body_min_extent(b);
  if (!def->is_awake && def->type != ARB_BODY_STATIC && w->def.enable_sleep) {
    // Asleep from the start: an island of its own, at rest, until something touches it.
    b->sleeping = 1;
    b->sleep_time = ARB_TIME_TO_SLEEP;
    b->island_head = index;
    st->v = arb_vec2_zero;
    st->w = 0.0f;
    w->sleeping_count += 1;
  }
  w->awake_dirty = true;
  if (b->shape_count > 1) w->compounds_dirty = true;
  arb__body_refresh_proxy(w, index, true, arb_vec2_zero);
  return arb__make_id(w, index);
}

int arb_body_destroy(arb_world* w, arb_body_id id) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  arb__body* b = arb__body_get(w, id);
  ARB_ASSERT(b != NULL && "stale or null body id");
  if (!b) return ARB_E_STALE_ID;
  int index = id.index1 - 1;
  // What it touches or holds wakes (a pile loses its support), and so does its own island
  // (the list would otherwise keep a dead slot).
  arb__wake_touching(w, index);
  arb__destroy_body_contacts(w, index);
  arb__tree* t = w->sims[index].type == ARB_BODY_STATIC ? &w->static_tree : &w->dynamic_tree;
  if (b->proxy != ARB__NULL) arb__tree_remove(t, b->proxy);
  b->proxy = ARB__NULL;
  w->sensor_bodies -= arb__body_has_sensor(b);  // its overlaps end in the next step (sensor.c)
  if (b->shape_count > 1) w->compounds_dirty = true;
  arb__free_body_shapes(w, b, 1);
  b->in_use = 0;
  b->moved = 0;
  b->generation += 1;
  if (b->generation == 0) b->generation = 1;
  b->next_free = w->free_head;
  w->free_head = index;
  w->sims[index].type = -1;
  memset(&w->states[index], 0, sizeof w->states[index]);
  w->body_count -= 1;
  w->awake_dirty = true;
  return 0;
}

bool arb_body_is_valid(const arb_world* w, arb_body_id id) {
  return arb__body_get(w, id) != NULL;
}

int arb_world_get_bodies(const arb_world* w, arb_body_id* out, int cap) {
  if (!w) return 0;
  int n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    if (!w->bodies[i].in_use) continue;
    if (out && n < cap) out[n] = arb__make_id(w, i);
    n += 1;
  }
  return n;
}

int arb_world_get_body_count(const arb_world* w) {
  return w ? w->body_count : 0;
}

// ---- accessors --------------------------------------------------------------------------

// A stale or null id (or a null world) is a programmer error: it asserts in debug builds
// and then, as in release, the accessor returns `ret` and changes nothing.
#define ARB__BODY_OR(ret)                           \
  arb__body* b = arb__body_get(w, id);              \
  ARB_ASSERT(b != NULL && "stale or null body id"); \
  if (!b) return ret;                               \
  int index = id.index1 - 1;                        \
  (void)index

// An outside change to a body's motion: wake its island and restart its sleep timer.
static void arb__touch(arb_world* w, int index) {
  if (w->sims[index].type == ARB_BODY_STATIC) return;
  arb__wake_body(w, index);
  w->bodies[index].sleep_time = 0.0f;
}

static bool arb__is_zero(arb_vec2 v) {
  return v.x == 0.0f && v.y == 0.0f;
}

arb_body_type arb_body_get_type(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(ARB_BODY_STATIC);
  return (arb_body_type)w->sims[index].type;
}
arb_vec2 arb_body_get_position(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(arb_vec2_zero);
  return b->xf.p;
}
arb_rot arb_body_get_rotation(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(arb_rot_identity);
  return b->xf.q;
}
float arb_body_get_angle(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(0.0f);
  return arb_rot_angle(b->xf.q);
}
arb_transform arb_body_get_transform(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(arb_transform_identity);
  return b->xf;
}
void arb_body_set_transform(arb_world* w, arb_body_id id, arb_vec2 position, float angle) {
  if (w && w->locked) return;
  ARB__BODY_OR();
  if (!arb_vec2_is_valid(position) || !arb_is_valid_float(angle)) return;
  b->xf.p = position;
  b->xf.q = arb_rot_from_angle(angle);
  b->center = arb_transform_point(b->xf, b->local_center);
  arb__touch(w, index);
  // Static geometry that moves away from sleeping bodies must not leave them hanging.
  if (w->sims[index].type == ARB_BODY_STATIC) arb__wake_touching(w, index);
  arb__body_refresh_proxy(w, index, true, arb_vec2_zero);
}
arb_vec2 arb_body_get_world_center(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(arb_vec2_zero);
  return b->center;
}
arb_vec2 arb_body_get_linear_velocity(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(arb_vec2_zero);
  return w->states[index].v;
}
bool arb_body_get_motion(const arb_world* w, arb_body_id id, arb_body_motion* out) {
  const arb__body* b = arb__body_get(w, id);
  if (!b) return false;
  int index = id.index1 - 1;
  out->type = (arb_body_type)w->sims[index].type;
  out->xf = b->xf;
  out->v = w->states[index].v;
  out->w = w->states[index].w;
  return true;
}
void arb_body_set_linear_velocity(arb_world* w, arb_body_id id, arb_vec2 v) {
  ARB__BODY_OR();
  if (w->sims[index].type == ARB_BODY_STATIC || !arb_vec2_is_valid(v)) return;
  if (b->sleeping && arb__is_zero(v)) return;  // already so
  arb__touch(w, index);
  w->states[index].v = v;
}
float arb_body_get_angular_velocity(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(0.0f);
  return w->states[index].w;
}
void arb_body_set_angular_velocity(arb_world* w, arb_body_id id, float av) {
  ARB__BODY_OR();
  if (w->sims[index].type == ARB_BODY_STATIC || !arb_is_valid_float(av)) return;
  if (b->fixed_rotation && w->sims[index].type == ARB_BODY_DYNAMIC) return;
  if (b->sleeping && av == 0.0f) return;
  arb__touch(w, index);
  w->states[index].w = av;
}
arb_vec2 arb_body_get_point_velocity(const arb_world* w, arb_body_id id, arb_vec2 p) {
  ARB__BODY_OR(arb_vec2_zero);
  const arb__body_state* st = &w->states[index];
  return arb_add(st->v, arb_cross_sv(st->w, arb_sub(p, b->center)));
}

// Whether a force or impulse v moves body `index`: a dynamic body and a finite, non-zero v.
static bool arb__pushes(const arb_world* w, int index, arb_vec2 v) {
  return w->sims[index].type == ARB_BODY_DYNAMIC && arb_vec2_is_valid(v) && !arb__is_zero(v);
}

void arb_body_apply_force(arb_world* w, arb_body_id id, arb_vec2 f, arb_vec2 p) {
  ARB__BODY_OR();
  if (!arb__pushes(w, index, f) || !arb_vec2_is_valid(p)) return;
  arb__touch(w, index);
  b->force = arb_add(b->force, f);
  b->torque += arb_cross(arb_sub(p, b->center), f);
}
void arb_body_apply_force_to_center(arb_world* w, arb_body_id id, arb_vec2 f) {
  ARB__BODY_OR();
  if (!arb__pushes(w, index, f)) return;
  arb__touch(w, index);
  b->force = arb_add(b->force, f);
}
void arb_body_apply_torque(arb_world* w, arb_body_id id, float torque) {
  ARB__BODY_OR();
  if (w->sims[index].type != ARB_BODY_DYNAMIC || !arb_is_valid_float(torque)) return;
  if (torque == 0.0f) return;
  arb__touch(w, index);
  b->torque += torque;
}
void arb_body_apply_linear_impulse(arb_world* w, arb_body_id id, arb_vec2 j, arb_vec2 p) {
  ARB__BODY_OR();
  if (!arb__pushes(w, index, j) || !arb_vec2_is_valid(p)) return;
  arb__touch(w, index);
  arb__body_state* st = &w->states[index];
  const arb__body_sim* sim = &w->sims[index];
  st->v = arb_mul_add(st->v, sim->inv_mass, j);
  st->w += sim->inv_inertia * arb_cross(arb_sub(p, b->center), j);
}
void arb_body_apply_angular_impulse(arb_world* w, arb_body_id id, float j) {
  ARB__BODY_OR();
  if (w->sims[index].type != ARB_BODY_DYNAMIC || !arb_is_valid_float(j)) return;
  if (j == 0.0f) return;
  arb__touch(w, index);
  w->states[index].w += w->sims[index].inv_inertia * j;
}

float arb_body_get_mass(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(0.0f);
  return b->mass;
}
float arb_body_get_inverse_mass(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(0.0f);
  return w->sims[index].inv_mass;
}
float arb_body_get_rotational_inertia(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(0.0f);
  return b->inertia;
}
const arb_shape_def* arb_body_get_shape(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(NULL);
  return &b->shape;
}
int arb_body_get_shape_count(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(0);
  return b->shape_count;
}
const arb_shape_def* arb_body_get_shape_at(const arb_world* w, arb_body_id id, int i) {
  ARB__BODY_OR(NULL);
  return i >= 0 && i < b->shape_count ? arb__body_shape(b, i) : NULL;
}
arb_aabb arb_body_get_aabb(const arb_world* w, arb_body_id id) {
  arb_aabb zero = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  ARB__BODY_OR(zero);
  return arb__body_compute_aabb(b);
}
uint64_t arb_body_get_user_data(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(0);
  return b->user_data;
}
void arb_body_set_user_data(arb_world* w, arb_body_id id, uint64_t user_data) {
  ARB__BODY_OR();
  b->user_data = user_data;
}
void arb_body_set_damping(arb_world* w, arb_body_id id, float linear, float angular) {
  ARB__BODY_OR();
  if (!arb__finite_nonneg(linear) || !arb__finite_nonneg(angular)) return;
  arb__touch(w, index);
  w->sims[index].linear_damping = linear;
  w->sims[index].angular_damping = angular;
}
void arb_body_set_gravity_scale(arb_world* w, arb_body_id id, float scale) {
  ARB__BODY_OR();
  if (!arb_is_valid_float(scale)) return;
  arb__touch(w, index);
  w->sims[index].gravity_scale = scale;
}

bool arb_body_is_awake(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(false);
  return arb__body_awake(w, index);
}
void arb_body_wake(arb_world* w, arb_body_id id) {
  if (w && w->locked) return;
  ARB__BODY_OR();
  arb__touch(w, index);
}
void arb_body_enable_sleep(arb_world* w, arb_body_id id, bool enable) {
  if (w && w->locked) return;
  ARB__BODY_OR();
  if (!enable) arb__touch(w, index);
  b->enable_sleep = enable ? 1 : 0;
}
bool arb_body_is_sleep_enabled(const arb_world* w, arb_body_id id) {
  ARB__BODY_OR(false);
  return b->enable_sleep != 0;
}

// ---- queries ----------------------------------------------------------------------------

int arb_body_get_contacts(const arb_world* w, arb_body_id id, arb_contact_data* out, int cap) {
  ARB__BODY_OR(0);
  // Output in contact array order (deterministic) independent of the edge-list order,
  // which is not part of the state: repeatedly pick the next larger contact index.
  int n = 0, last = -1;
  for (;;) {
    int best = -1, best_side = 0;
    for (int e = b->contact_head; e != ARB__NULL;) {
      int ci = e >> 1, side = e & 1;
      if (ci > last && (best < 0 || ci < best)) {
        best = ci;
        best_side = side;
      }
      e = arb__next_edge(w, e);
    }
    if (best < 0) break;
    last = best;
    const arb__contact* c = &w->contacts[best];
    if (!(c->flags & ARB__CONTACT_TOUCHING)) continue;
    if (out && n < cap) {
      arb_contact_data* d = &out[n];
      memset(d, 0, sizeof *d);
      int other = best_side == 0 ? c->body_b : c->body_a;
      d->other = arb__make_id(w, other);
      d->normal = best_side == 0 ? c->manifold.normal : arb_neg(c->manifold.normal);
      d->point_count = c->manifold.point_count;
      int sa = arb__contact_shape_a(c->flags), sb = arb__contact_shape_b(c->flags);
      d->shape = best_side == 0 ? sa : sb;
      d->other_shape = best_side == 0 ? sb : sa;
      for (int k = 0; k < c->manifold.point_count; ++k) {
        d->points[k] = c->manifold.points[k].point;
        d->separations[k] = c->manifold.points[k].separation;
        d->normal_impulses[k] = c->manifold.points[k].normal_impulse;
      }
    }
    n += 1;
  }
  return n;
}

int arb_world_query_aabb(const arb_world* w, arb_aabb box, arb_body_id* out, int cap) {
  if (!w) return 0;
  int n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use || !arb_aabb_overlaps(b->fat_aabb, box)) continue;
    if (!arb_aabb_overlaps(arb__body_compute_aabb(b), box)) continue;
    if (out && n < cap) out[n] = arb__make_id(w, i);
    n += 1;
  }
  return n;
}

arb_ray_result arb_world_cast_ray(const arb_world* w, arb_vec2 origin, arb_vec2 translation) {
  arb_ray_result r;
  memset(&r, 0, sizeof r);
  if (!w || !arb_vec2_is_valid(origin) || !arb_vec2_is_valid(translation)) return r;
  float best = 1.0f;
  arb_ray_input in = {origin, translation, 1.0f};
  for (int i = 0; i < w->body_slots; ++i) {
    const arb__body* b = &w->bodies[i];
    if (!b->in_use) continue;
    in.max_fraction = best;
    if (!arb_ray_cast_aabb(&in, b->fat_aabb).hit) continue;
    arb_ray_input local = {arb_inv_transform_point(b->xf, origin),
                           arb_inv_rotate(b->xf.q, translation), best};
    arb_cast_output o = arb__body_ray_cast(b, &local, NULL);  // rays pass through sensors
    // Strictly closer only: on a tie the lower slot wins (deterministic).
    if (!o.hit || o.fraction > best || (o.fraction == best && !arb_body_id_is_null(r.body)))
      continue;
    best = o.fraction;
    r.body = arb__make_id(w, i);
    r.fraction = o.fraction;
    r.point = arb_transform_point(b->xf, o.point);
    r.normal = arb_rotate(b->xf.q, o.normal);
  }
  return r;
}
