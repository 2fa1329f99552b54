// DETERMINISM-CRITICAL: the sleep record of the canonical state, one visitor for hash,
// save and restore (world_codec.c runs it after the iterations record; layout also in
// snapshot.c):
//   u32 tag 'SLEP', u8 world enable_sleep, then per live body in slot order:
//   u8 flags (1 = asleep, 2 = sleep enabled), f32 sleep_threshold, f32 sleep_time,
//   and for a sleeping body i32 island_head (lowest slot of its sleeping island).
#include "world.h"

#define ARB__SLEEP_ASLEEP 1u
#define ARB__SLEEP_ENABLED 2u

// A sleeping island must be a list of sleeping non-static bodies in ascending slot order
// headed by its lowest slot: rebuilt here, so every body names a head that names itself.
static bool arb__link_islands(arb__body* bodies, const arb__body_sim* sims,
                              const arb__body_state* states, int slots) {
  for (int i = 0; i < slots; ++i) {
    arb__body* b = &bodies[i];
    b->island_next = ARB__NULL;
    if (!b->in_use || !b->sleeping) continue;
    int h = b->island_head;
    if (sims[i].type == ARB_BODY_STATIC || h < 0 || h > i || !bodies[h].in_use ||
        !bodies[h].sleeping || bodies[h].island_head != h) {
      return false;
    }
    const arb__body_state* st = &states[i];
    if (st->v.x != 0.0f || st->v.y != 0.0f || st->w != 0.0f) return false;  // asleep = at rest
  }
  // Prepend in descending slot order: each list comes out ascending behind its head.
  for (int i = slots - 1; i >= 0; --i) {
    arb__body* b = &bodies[i];
    if (!b->in_use || !b->sleeping || b->island_head == i) continue;
    b->island_next = bodies[b->island_head].island_next;
    bodies[b->island_head].island_next = i;
  }
  return true;
}

// The sleep fields of one live body. Reading also resets what is derived or scratch.
static void arb__body_sleep_fields(arb_codec* c, arb__body* b, bool world_enabled) {
  uint8_t flags = (uint8_t)((b->sleeping ? ARB__SLEEP_ASLEEP : 0u) |
                            (b->enable_sleep ? ARB__SLEEP_ENABLED : 0u));
  arb_codec_u8(c, &flags);
  ARB_CODEC_CHECK(c, flags <= (ARB__SLEEP_ASLEEP | ARB__SLEEP_ENABLED));
  ARB_CODEC_F32S(c, &b->sleep_threshold, &b->sleep_time);
  ARB_CODEC_CHECK(c, b->sleep_threshold >= 0.0f && b->sleep_time >= 0.0f);
  if (arb_codec_reading(c)) {
    b->sleeping = (flags & ARB__SLEEP_ASLEEP) ? 1 : 0;
    b->enable_sleep = (flags & ARB__SLEEP_ENABLED) ? 1 : 0;
    b->island_head = ARB__NULL;
    b->sleep_veto = 0;
    b->max_extent = arb__body_max_extent(b);
  }
  // With sleeping off nothing sleeps and the timers stay zero (arb_world_enable_sleep).
  ARB_CODEC_CHECK(c, world_enabled || (!b->sleeping && b->sleep_time == 0.0f));
  if (b->sleeping) arb_codec_i32(c, &b->island_head);
}

void arb__sleep_codec(arb_codec* c, arb__world_image* img) {
  uint32_t tag = ARB__SLEEP_TAG;
  arb_codec_u32(c, &tag);
  ARB_CODEC_CHECK(c, tag == ARB__SLEEP_TAG);
  arb_codec_bool(c, &img->def.enable_sleep);
  for (int i = 0; i < img->body_slots && !c->err; ++i) {
    if (img->bodies[i].in_use) arb__body_sleep_fields(c, &img->bodies[i], img->def.enable_sleep);
  }
  ARB_CODEC_CHECK(
      c, c->err || arb__link_islands(img->bodies, img->sims, img->states, img->body_slots));
}
