// DETERMINISM-CRITICAL: exact save/restore of the whole simulated state.
//
// Image format, version 1 (all integers and floats little-endian, floats IEEE binary32):
//   u32 magic 'ARBW' (0x57425241)   u32 version (1)   u64 layout hash   u32 payload length
//   payload = the canonical state (world_codec.c, arb__world_codec) with user data:
//     settings: vec2 gravity, i32 substeps, f32 restitution_threshold, contact_hertz,
//               contact_damping_ratio, max_contact_push_speed, max_linear_speed
//     u64 step_count, i32 body_slots, i32 body_count, i32 free_head
//     per slot: u32 generation, u8 in_use; free slot: i32 next_free; live body:
//       u8 type, fixed_rotation, bullet, moved; vec2 position; f32 cos, sin; vec2 centre;
//       vec2 local centre; vec2 v; f32 w; vec2 force; f32 torque; f32 mass, inertia,
//       inv_mass, inv_inertia, gravity_scale, linear_damping, angular_damping;
//       vec2 fat_lower, fat_upper; u64 user_data;
//       shape: u8 type (bit 7: u8 flags follow, 1 = sensor, 2 = rounded polygon, 4 =
//       more shapes follow: first shape of a compound body only), f32
//       density, friction, restitution, u32 category, u32 mask, i32 group, then the
//       kind's fields (their layout per kind: arb__<kind>_fields, shape_<kind>.c); the type
//       codes are those of arb_shape_type, and a new kind only adds a code (older images
//       read unchanged); with flag 4: u8 n (1..7) and n more shapes
//       (same layout, without flag 4; no chain in a compound body)
//     i32 contact_count; per contact (solver order): i32 body_a, body_b, u32 flags (1 =
//       touching; 2 = recycling cache follows; bits 8-11 the shape of body_a, bits 12-15
//       that of body_b: 0 unless a body is compound),
//       f32 friction, restitution, vec2 normal, u8 point_count, per point: vec2 point,
//       anchor_a, anchor_b, f32 separation, normal_impulse, tangent_impulse, u16 id;
//       with flag 2 (contact recycling, contact.c): f32 cos, sin of body_a's rotation and
//       of body_b's, vec2 position, f32 cos, sin of B relative to A (all when the manifold
//       was computed; each rotation of unit length +- 1 %), then per point f32 separation
//       then
//     then, only when solve_iterations or relax_iterations != 1: u32 tag 'ITER'
//       (0x52455449), i32 solve_iterations, i32 relax_iterations (each 1..8, not both 1;
//       absent means 1 and 1, so default worlds keep the layout and hashes of before)
//     then, only when enable_continuous is false: u32 tag 'DISC' (0x43534944)
//     then, only when continuous_dynamic is false: u32 tag 'CSTA' (0x41545343)
//     then, only when enable_contact_recycling is true: u32 tag 'RCYC' (0x43594352);
//       without it no contact may have flag 2 (an image from before recycling existed
//       reads as a world with it off)
//     then, only when sensors overlap something: the sensor record (tag 'SENS'; layout
//       in sensor.c)
//     then the sleep record: u32 tag 'SLEP' (0x50454c53), u8 world enable_sleep, per live
//       body: u8 flags (1 asleep, 2 sleep enabled), f32 sleep_threshold, f32 sleep_time,
//       asleep only: i32 island_head (visitor and checks in sleep_io.c)
//     then, only when the world has springs, joints, vehicles or particles, the extras
//       section (tag 'XTRA'; layout in extras_io.c)
//   u64 XXH3-64 of the payload
// The trees, pair map and edge lists are rebuilt on restore; nothing depends on their
// shape (see broad_phase.c and contact.c), so restore + step == uninterrupted step.
// The image is untrusted: every count is bounded by the bytes present, every float must
// be finite, every index must name a live body, and mass data must be consistent. The
// records are read and checked by the same visitors that write them (world_codec.c); this
// file checks what spans records (live count, free list, unique pairs) and commits.
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
    "pt(v2 p,aa,ab,f32 s,ni,ti,u16 id)) [ITER] sleep(u32 tag,u8 on;body(u8 fl,f32 thr,t|i32 head)) "
    "[XTRA] u64 xxh3";

static uint64_t arb__layout_hash(void) {
  return arb__hash_bytes(arb__layout, sizeof arb__layout - 1);
}

uint64_t arb_world_image_layout(void) {
  return arb__layout_hash();
}

int arb_world_save(const arb_world* w, uint8_t* buf, int cap) {
  ARB__CHECK_WORLD(w);
  if (!w || cap < 0) return ARB_E_INVAL;
  arb__world_image img;
  arb__world_image_of(w, &img);
  arb_codec c;
  arb_codec_init_count(&c);
  arb__world_codec(&c, (arb_world*)w, &img);  // size pass (writing never stores)
  size_t payload = arb_codec_pos(&c);
  size_t total = ARB__IMAGE_HEADER + payload + 8;
  if (total > (size_t)INT32_MAX) return ARB_E_TOO_BIG;
  if (!buf || (size_t)cap < total) return (int)total;
  uint32_t magic = ARB__IMAGE_MAGIC, version = ARB__IMAGE_VERSION, len = (uint32_t)payload;
  uint64_t layout = arb__layout_hash();
  arb_codec_init_write(&c, buf, total);
  arb_codec_u32(&c, &magic);
  arb_codec_u32(&c, &version);
  arb_codec_u64(&c, &layout);
  arb_codec_u32(&c, &len);
  arb__world_codec(&c, (arb_world*)w, &img);
  uint64_t sum = arb__hash_bytes(buf + ARB__IMAGE_HEADER, payload);
  arb_codec_u64(&c, &sum);
  return c.err ? c.err : (int)total;
}

// The header and the checksum around the payload.
static int arb__image_open(const uint8_t* buf, int len, const uint8_t** payload,
                           size_t* payload_len) {
  arb_codec c;
  arb_codec_init_read(&c, buf, (size_t)len);
  uint32_t magic = 0, version = 0, n = 0;
  uint64_t layout = 0, sum = 0;
  arb_codec_u32(&c, &magic);
  if (magic != ARB__IMAGE_MAGIC) return c.err ? c.err : ARB_E_CORRUPT;
  arb_codec_u32(&c, &version);
  if (version != ARB__IMAGE_VERSION) return c.err ? c.err : ARB_E_VERSION;
  arb_codec_u64(&c, &layout);
  if (layout != arb__layout_hash()) return c.err ? c.err : ARB_E_VERSION;
  arb_codec_u32(&c, &n);
  if (c.err) return c.err;
  if ((size_t)n + 8 > arb_codec_left(&c)) return ARB_E_TRUNCATED;
  if ((size_t)n + 8 < arb_codec_left(&c)) return ARB_E_CORRUPT;  // trailing bytes
  *payload = buf + ARB__IMAGE_HEADER;
  *payload_len = n;
  arb_codec_init_read(&c, buf + ARB__IMAGE_HEADER + n, 8);
  arb_codec_u64(&c, &sum);
  return sum == arb__hash_bytes(*payload, n) ? 0 : ARB_E_CHECKSUM;
}

// Every live slot counted once, and the free list visits every free slot exactly once
// (no cycles, no live slots).
static int arb__check_slots(const arb__world_image* img) {
  int live = 0, visited = 0, free_slots = img->body_slots - img->body_count;
  for (int i = 0; i < img->body_slots; ++i) live += img->bodies[i].in_use;
  if (live != img->body_count) return ARB_E_CORRUPT;
  for (int f = img->free_head; f != ARB__NULL; f = img->bodies[f].next_free) {
    if (img->bodies[f].in_use || visited >= free_slots) return ARB_E_CORRUPT;
    visited += 1;
  }
  return visited == free_slots ? 0 : ARB_E_CORRUPT;
}

// The derived structures restore rebuilds: the pair map (a pair must not appear twice)
// and the broad-phase trees. Nothing depends on their shape.
typedef struct arb__derived {
  arb__pair_map map;
  arb__tree static_tree, dynamic_tree;
  arb__contact_brief* briefs;  // the image's contact_capacity
} arb__derived;

static int arb__build_derived(arb_world* w, const arb__world_image* img, arb__derived* d) {
  d->briefs = arb__alloc(w, (size_t)img->contact_capacity * sizeof *d->briefs);
  if (!d->briefs) return ARB_E_NOMEM;
  for (int i = 0; i < img->contact_count; ++i) {
    const arb__contact* c = &img->contacts[i];
    d->briefs[i] =
        (arb__contact_brief){c->body_a,
                             c->body_b,
                             {ARB__NULL, ARB__NULL},
                             (uint8_t)c->manifold.point_count,
                             (c->flags & ARB__CONTACT_TOUCHING) ? 1 : 0};  // linked at commit
    uint64_t key = arb__contact_key(c);
    if (arb__map_find(&d->map, key) != ARB__NULL) return ARB_E_CORRUPT;
    if (arb__map_insert(w, &d->map, key, i) != 0) return ARB_E_NOMEM;
  }
  for (int i = 0; i < img->body_slots; ++i) {
    arb__body* b = &img->bodies[i];
    if (!b->in_use) continue;
    arb__tree* t = img->sims[i].type == ARB_BODY_STATIC ? &d->static_tree : &d->dynamic_tree;
    b->proxy = arb__tree_add_leaf(w, t, b->fat_aabb, i, b, img->sims[i].type == ARB_BODY_DYNAMIC);
    if (b->proxy == ARB__NULL) return ARB_E_NOMEM;
    b->pairs_checked = 0;  // its first pair update asks the pair map about every overlap
  }
  arb__tree_rebuild(&d->static_tree);  // built at once over all leaves: the best tree
  arb__tree_rebuild(&d->dynamic_tree);
  return 0;
}

static void arb__free_derived(arb_world* w, arb__derived* d) {
  arb__map_free(w, &d->map);
  arb__tree_free(w, &d->static_tree);
  arb__tree_free(w, &d->dynamic_tree);
  arb__free(w, d->briefs);
}

// Replace the world's state with the checked image. Cannot fail.
static void arb__commit(arb_world* w, arb__world_image* img, arb__derived* d) {
  arb__free_body_shapes(w, w->bodies, w->body_slots);
  arb__free(w, w->bodies);
  arb__free(w, w->states);
  arb__free(w, w->sims);
  arb__free(w, w->contacts);
  arb__free_derived(
      w, &(arb__derived){w->pair_map, w->static_tree, w->dynamic_tree, w->contact_briefs});
  w->def = img->def;
  w->step_count = img->step_count;
  w->bodies = img->bodies;
  w->states = img->states;
  w->sims = img->sims;
  w->body_capacity = img->body_capacity;
  w->body_slots = img->body_slots;
  w->body_count = img->body_count;
  w->free_head = img->free_head;
  w->contacts = img->contacts;
  w->contact_briefs = d->briefs;
  w->contact_count = img->contact_count;
  w->contact_capacity = img->contact_capacity;
  w->pair_map = d->map;
  w->static_tree = d->static_tree;
  w->dynamic_tree = d->dynamic_tree;
  w->begin_count = 0;
  w->end_count = 0;
  w->end_reported = 0;
  w->hit_count = 0;
  for (int i = 0; i < w->contact_count; ++i) arb__contact_link(w, i);
  w->sleeping_count = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    w->sleeping_count += w->bodies[i].in_use && w->bodies[i].sleeping;
  }
  w->awake_dirty = true;
  w->wake_count = 0;
  w->moved_count = 0;
  w->moved_scan = true;  // the image's moved flags are not listed
  arb__forget_paired_aabbs(w);
  w->compounds_dirty = true;
  arb__hash_cache_clear(w);
  arb__sensors_commit(w, img);
  arb__extras_commit(w, img->extras);
}

int arb_world_restore(arb_world* w, const uint8_t* buf, int len) {
  ARB__CHECK_WORLD(w);
  ARB__CHECK_MUTABLE(w);
  if (!w || !buf || len < 0) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  const uint8_t* payload = NULL;
  size_t payload_len = 0;
  int err = arb__image_open(buf, len, &payload, &payload_len);
  if (err) return err;
  arb__world_image img;
  memset(&img, 0, sizeof img);
  img.def = w->def;  // what the image does not hold (allocator, capacity hint)
  arb__derived d;
  memset(&d, 0, sizeof d);
  arb__tree_init(&d.static_tree);
  arb__tree_init(&d.dynamic_tree);
  arb_codec c;
  arb_codec_init_read(&c, payload, payload_len);
  arb__world_codec(&c, w, &img);
  err = c.err ? c.err : arb__check_slots(&img);
  if (!err) err = arb__build_derived(w, &img, &d);
  if (err) {
    arb__free_derived(w, &d);
    arb__world_image_free(w, &img);
    return err;
  }
  arb__commit(w, &img, &d);
  return 0;
}
