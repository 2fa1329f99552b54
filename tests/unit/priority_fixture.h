// The four entities the snapshot priority tests rank, so the eager and the lazy
// accumulators are checked against the same scene.
#pragma once

#include <arbiter/snapshot.h>
#include <arbiter/snapshot_priority.h>
#include <string.h>

typedef struct {
  arb_snapshot_entity items[4];    // ids 10..13
  arb_snapshot_set set;            // all four, pointing at items (do not copy the fixture)
  arb_vec2 pos[4];                 // 10 at the origin, 11 far (50 m), 12 and 13 near (5 m)
  float speed[4];                  // 13 moves at 10 m/s, the others rest
  arb_snapshot_interest interest;  // avatar 10, near radius 10 m, no camera box
} priority_fixture;

static inline void priority_fixture_init(priority_fixture* f) {
  static const arb_vec2 pos[4] = {{0, 0}, {50, 0}, {5, 0}, {5, 0}};
  static const float speed[4] = {0, 0, 0, 10};
  memset(f, 0, sizeof *f);
  for (int i = 0; i < 4; ++i) f->items[i].id = (uint32_t)(10 + i);
  f->set = (arb_snapshot_set){f->items, 4, 4};
  memcpy(f->pos, pos, sizeof pos);
  memcpy(f->speed, speed, sizeof speed);
  f->interest.avatar_id = 10;
  f->interest.near_radius = 10.0f;
}
