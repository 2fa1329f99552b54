// DETERMINISM-CRITICAL: sensor overlaps and their begin/end events (Box2D v3 style: found
// after the step, never a callback inside it).
//
// Every step (after finalize and continuous collision) each live sensor body, in slot
// order, queries the dynamic tree (dynamic and kinematic bodies: sensors do not see static
// bodies) for visitors: not a sensor, passing the collision filter, tight AABBs
// overlapping, shapes within ARB_LINEAR_SLOP (GJK). The pairs are sorted by slot keys, so
// the tree's shape (not state) never shows, and compared with last step's list: pairs only
// in the old list end, pairs only in the new one begin, both in (sensor id, visitor id)
// order. A destroyed body simply is not found again, so its end comes in the next step
// with its stale id. The list is state (the SENS record below), so a restored world
// compares against the same overlaps and reports the same events.
//
// SENS record (after the DISC record, before the sleep record; only when the list is not
// empty):
//   u32 tag 'SENS' (0x534e4553), i32 count (>= 1), per pair ascending by (sensor, visitor):
//   sensor id (i32 index1, u32 generation), visitor id (i32 index1, u32 generation)
#include "world.h"

#include "chain.h"

#define ARB__MAX_SENSOR_PAIRS (1 << 24)

static int arb__id_cmp(arb_body_id a, arb_body_id b) {
  if (a.index1 != b.index1) return a.index1 < b.index1 ? -1 : 1;
  if (a.generation != b.generation) return a.generation < b.generation ? -1 : 1;
  return 0;
}

static int arb__sensor_pair_cmp(const arb__sensor_pair* a, const arb__sensor_pair* b) {
  int c = arb__id_cmp(a->sensor, b->sensor);
  return c != 0 ? c : arb__id_cmp(a->visitor, b->visitor);
}

static arb_body_id arb__id_of(const arb_world* w, int slot) {
  arb_body_id id = {slot + 1, w->bodies[slot].generation};
  return id;
}

// `arr` (elements of elem bytes, *cap of them, `count` in use) grown to hold `need`: the
// array to use from now on (NULL while nothing was ever needed), or NULL when out of
// memory (`arr` is then left as it was).
static void* arb__sensor_room(arb_world* w, void* arr, int32_t count, int32_t* cap, int need,
                              size_t elem) {
  if (need <= *cap) return arr;
  int ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  void* p = arb__grow(w, arr, count, ncap, elem);
  if (p) *cap = ncap;
  return p;
}

static void arb__sensor_event(arb_world* w, bool begin, const arb__sensor_pair* p) {
  arb_sensor_event** arr = begin ? &w->sensor_begin : &w->sensor_end;
  int32_t* count = begin ? &w->sensor_begin_count : &w->sensor_end_count;
  int32_t* cap = begin ? &w->sensor_begin_cap : &w->sensor_end_cap;
  arb_sensor_event* room = arb__sensor_room(w, *arr, *count, cap, *count + 1, sizeof **arr);
  if (!room) return;
  *arr = room;
  arb_sensor_event* e = &(*arr)[(*count)++];
  e->sensor = p->sensor;
  e->visitor = p->visitor;
}

// ---- finding the overlaps -----------------------------------------------------------------

typedef struct arb__sensor_query {
  arb_world* w;
  int sensor;
  const arb_shape_def* shape;  // the sensor shape of that body being tested
  arb_aabb box;                // its tight AABB
  arb_shape_proxy proxy;
  uint64_t* keys;  // (sensor slot << 32) | visitor slot, in the stack arena
  int count, capacity;
  bool overflow;
} arb__sensor_query;

// Some solid shape of body `other` passes the filter of the sensor shape and is within
// ARB_LINEAR_SLOP of it.
static bool arb__sensor_sees(const arb__sensor_query* q, int other) {
  const arb_world* w = q->w;
  const arb__body* s = &w->bodies[q->sensor];
  const arb__body* o = &w->bodies[other];
  if (other == q->sensor || !o->in_use) return false;
  for (int k = 0; k < o->shape_count; ++k) {  // DET: shape order (any will do)
    const arb_shape_def* os = arb__body_shape(o, k);
    if (os->sensor || !arb__shape_filters_match(q->shape, os)) continue;
    if (o->shape_count > 1 && !arb_aabb_overlaps(q->box, arb__shape_aabb(os, o->xf))) continue;
    if (os->type == ARB_SHAPE_CHAIN) {  // a kinematic chain: its nearest link
      if (arb__chain_distance(&os->chain, o->xf, &q->proxy, s->xf) < ARB_LINEAR_SLOP) return true;
      continue;
    }
    arb_shape_proxy po = arb__shape_proxy(os);
    if (arb_shape_distance(&q->proxy, s->xf, &po, o->xf).distance < ARB_LINEAR_SLOP) return true;
  }
  return false;
}

static bool arb__sensor_leaf(void* ctx, int body) {
  arb__sensor_query* q = ctx;
  const arb__body* o = &q->w->bodies[body];
  if (!arb_aabb_overlaps(q->box, arb__body_compute_aabb(o)) || !arb__sensor_sees(q, body))
    return true;
  if (q->count == q->capacity) {
    q->overflow = true;
    return true;
  }
  q->keys[q->count++] = ((uint64_t)(uint32_t)q->sensor << 32) | (uint32_t)body;
  return true;
}

static void arb__sensor_query_tree(arb__sensor_query* q) {
  arb__tree_query(&q->w->dynamic_tree, q->box, arb__sensor_leaf, q);
}

// The sorted keys of every overlap now, or -1 (out of memory). *keys is in the arena.
static int arb__sensor_find(arb_world* w, uint64_t** out) {
  int capacity = 64;
  for (;;) {
    arb__sensor_query q;
    memset(&q, 0, sizeof q);
    q.w = w;
    q.capacity = capacity;
    q.keys = arb__stack_alloc(w, (size_t)capacity * sizeof *q.keys);
    if (!q.keys) return -1;
    for (int i = 0; i < w->body_slots && !q.overflow; ++i) {  // DET: slot order
      const arb__body* b = &w->bodies[i];
      if (!b->in_use) continue;
      for (int k = 0; k < b->shape_count && !q.overflow; ++k) {  // DET: shape order
        if (!arb__body_shape(b, k)->sensor) continue;
        q.sensor = i;
        q.shape = arb__body_shape(b, k);
        q.box = arb__shape_aabb(q.shape, b->xf);
        q.proxy = arb__shape_proxy(q.shape);
        arb__sensor_query_tree(&q);
      }
    }
    if (q.overflow) {
      arb__stack_free(w, q.keys);
      capacity *= 4;
      continue;
    }
    arb__sort_u64(w, q.keys, q.count);
    // A body with several sensor shapes may see a visitor through more than one.
    int n = 0;
    for (int k = 0; k < q.count; ++k) {
      if (n == 0 || q.keys[k] != q.keys[n - 1]) q.keys[n++] = q.keys[k];
    }
    *out = q.keys;
    return n;
  }
}

void arb__sensors_update(arb_world* w) {
  w->sensor_begin_count = 0;
  w->sensor_end_count = 0;
  if (w->sensor_bodies == 0 && w->sensor_pair_count == 0) return;  // no cost without sensors
  uint64_t* keys = NULL;
  int n = arb__sensor_find(w, &keys);
  if (n < 0) return;  // out of memory: the overlaps stay as they were
  arb__sensor_pair* room =
      arb__sensor_room(w, w->sensor_scratch, 0, &w->sensor_scratch_cap, n, sizeof *room);
  if (!room && n > 0) {  // (no overlaps need no array: room may then be NULL)
    arb__stack_free(w, keys);
    return;
  }
  w->sensor_scratch = room;
  arb__sensor_pair* now = w->sensor_scratch;
  for (int k = 0; k < n; ++k) {
    now[k].sensor = arb__id_of(w, (int)(keys[k] >> 32));
    now[k].visitor = arb__id_of(w, (int)(keys[k] & 0xffffffffu));
  }
  arb__stack_free(w, keys);
  // Merge the old and new lists (both ascending): ends and begins come out in pair order.
  const arb__sensor_pair* old = w->sensor_pairs;
  int i = 0, j = 0, old_n = w->sensor_pair_count;
  while (i < old_n || j < n) {
    int c = i == old_n ? 1 : (j == n ? -1 : arb__sensor_pair_cmp(&old[i], &now[j]));
    if (c < 0) arb__sensor_event(w, false, &old[i++]);
    if (c > 0) arb__sensor_event(w, true, &now[j++]);
    if (c == 0) i += 1, j += 1;
  }
  w->sensor_scratch = w->sensor_pairs;
  w->sensor_pairs = now;
  int32_t cap = w->sensor_scratch_cap;
  w->sensor_scratch_cap = w->sensor_pair_cap;
  w->sensor_pair_cap = cap;
  w->sensor_pair_count = n;
}

// ---- state --------------------------------------------------------------------------------

static bool arb__sensor_id_ok(const arb__world_image* img, arb_body_id id) {
  return id.index1 >= 1 && id.index1 <= img->body_slots && id.generation != 0;
}

void arb__sensor_codec(arb_codec* c, arb_world* w, arb__world_image* img) {
  if (arb_codec_reading(c)) {
    img->sensor_pair_count = 0;
    img->sensor_pairs = NULL;
    if (arb_codec_left(c) < 8 || arb_codec_peek_u32(c) != ARB__SENSOR_TAG) return;
  } else if (img->sensor_pair_count == 0) {
    return;
  }
  uint32_t tag = ARB__SENSOR_TAG;
  arb_codec_u32(c, &tag);
  arb_codec_count(c, &img->sensor_pair_count, ARB__MAX_SENSOR_PAIRS, 16);
  ARB_CODEC_CHECK(c, img->sensor_pair_count >= 1);
  if (c->err) return;
  if (arb_codec_reading(c)) {
    img->sensor_pairs = arb__alloc(w, (size_t)img->sensor_pair_count * sizeof *img->sensor_pairs);
    if (!img->sensor_pairs) {
      arb_codec_fail(c, ARB_E_NOMEM);
      return;
    }
  }
  for (int k = 0; k < img->sensor_pair_count && !c->err; ++k) {
    arb__sensor_pair* p = &img->sensor_pairs[k];
    arb_codec_id(c, &p->sensor);
    arb_codec_id(c, &p->visitor);
    // Ids may be stale (their end is still to come), never out of range, never one body
    // with itself, strictly ascending (unique).
    ARB_CODEC_CHECK(
        c, c->err || (arb__sensor_id_ok(img, p->sensor) && arb__sensor_id_ok(img, p->visitor) &&
                      p->sensor.index1 != p->visitor.index1 &&
                      (k == 0 || arb__sensor_pair_cmp(&p[-1], p) < 0)));
  }
}

void arb__sensors_commit(arb_world* w, arb__world_image* img) {
  arb__free(w, w->sensor_pairs);
  w->sensor_pairs = img->sensor_pairs;
  w->sensor_pair_count = w->sensor_pair_cap = img->sensor_pair_count;
  img->sensor_pairs = NULL;
  img->sensor_pair_count = 0;
  w->sensor_begin_count = w->sensor_end_count = 0;
  w->sensor_bodies = 0;
  for (int i = 0; i < w->body_slots; ++i)
    w->sensor_bodies += w->bodies[i].in_use && arb__body_has_sensor(&w->bodies[i]);
}

void arb__sensors_free(arb_world* w) {
  arb__free(w, w->sensor_pairs);
  arb__free(w, w->sensor_scratch);
  arb__free(w, w->sensor_begin);
  arb__free(w, w->sensor_end);
}

// ---- public -------------------------------------------------------------------------------

int arb_world_get_sensor_begin_events(const arb_world* w, const arb_sensor_event** out) {
  ARB__CHECK_WORLD(w);
  if (out) *out = w ? w->sensor_begin : NULL;
  return w ? w->sensor_begin_count : 0;
}

int arb_world_get_sensor_end_events(const arb_world* w, const arb_sensor_event** out) {
  ARB__CHECK_WORLD(w);
  if (out) *out = w ? w->sensor_end : NULL;
  return w ? w->sensor_end_count : 0;
}

int arb_sensor_get_overlaps(const arb_world* w, arb_body_id sensor, arb_body_id* out, int cap) {
  ARB__CHECK_WORLD(w);
  const arb__body* b = arb__body_get(w, sensor);
  if (!b || !arb__body_has_sensor(b)) return 0;
  int n = 0;
  for (int k = 0; k < w->sensor_pair_count; ++k) {  // ascending: this sensor's run, in order
    const arb__sensor_pair* p = &w->sensor_pairs[k];
    if (!arb_body_id_equals(p->sensor, sensor)) continue;
    if (out && n < cap) out[n] = p->visitor;
    n += 1;
  }
  return n;
}
