// World counters for metrics (arb_world_get_counters). Reads only; not simulation code.
#include "world.h"

arb_world_counters arb_world_get_counters(const arb_world* w) {
  ARB__CHECK_WORLD(w);
  arb_world_counters c;
  memset(&c, 0, sizeof c);
  if (!w) return c;
  c.body_count = w->body_count;
  c.contact_count = w->contact_count;
  for (int i = 0; i < w->contact_count; ++i) {
    if (w->contacts[i].manifold.point_count > 0) c.touching_count += 1;
  }
  c.static_tree_height =
      w->static_tree.root >= 0 ? w->static_tree.nodes[w->static_tree.root].height : 0;
  c.dynamic_tree_height =
      w->dynamic_tree.root >= 0 ? w->dynamic_tree.nodes[w->dynamic_tree.root].height : 0;
  c.byte_count = w->byte_count;
  c.arena_bytes = (int64_t)w->stack.capacity;
  for (int i = 0; i < w->body_slots; ++i) {
    if (w->sims[i].type != ARB_BODY_DYNAMIC && w->sims[i].type != ARB_BODY_KINEMATIC) continue;
    if (w->bodies[i].sleeping) {
      c.sleeping_body_count += 1;
    } else {
      c.awake_body_count += 1;
    }
  }
  c.step_collided_contacts = w->stat_collided;
  c.step_recycled_contacts = w->stat_recycled;
  c.step_solved_contacts = w->stat_solved_contacts;
  c.step_solved_bodies = w->stat_solved_bodies;
  c.step_island_count = w->stat_islands;
  return c;
}
