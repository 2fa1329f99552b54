// arbiter-view — turn a local game (replay re-simulation or scene sandbox) into a
// drawable frame. Reads the world through its public API only; never changes it.
#include <stdlib.h>
#include <string.h>

#include <arbiter/game.h>

#include "view.h"

// Grow-only scratch for the entity list (kept in the frame so nothing is global).
static arb_entity* entity_scratch(view_frame* f, int need) {
  if (need <= f->scratch_cap) return f->scratch;
  int cap = f->scratch_cap ? f->scratch_cap : 256;
  while (cap < need) cap *= 2;
  void* p = realloc(f->scratch, (size_t)cap * sizeof(arb_entity));
  if (!p) return NULL;
  f->scratch = p;
  f->scratch_cap = cap;
  return p;
}

uint32_t view_game_first_owner(const arb_game* game, view_frame* f) {
  int n = arb_game_get_entities(game, NULL, 0);
  arb_entity* ents = entity_scratch(f, n);
  if (!ents) return 0;
  n = arb_game_get_entities(game, ents, n);
  uint32_t best = 0;
  for (int i = 0; i < n; i++)
    if (ents[i].owner && (!best || ents[i].owner < best)) best = ents[i].owner;
  return best;
}

static view_shape shape_from_def(const arb_shape_def* d) {
  if (d) return arb_shape_def_geometry(d);
  view_shape none;
  memset(&none, 0, sizeof none);
  return none;
}

void view_frame_from_game(view_frame* f, arb_game* game, uint32_t own_client, bool want_contacts) {
  view_frame_clear(f);
  arb_world* w = arb_game_get_world(game);
  int ne = arb_game_get_entities(game, NULL, 0);
  arb_entity* ents = entity_scratch(f, ne);
  if (!ents) ne = 0;
  ne = ents ? arb_game_get_entities(game, ents, ne) : 0;
  // Only avatars (owned entities) change a body's colour: keep those, a handful.
  int na = 0;
  for (int k = 0; k < ne; k++)
    if (ents[k].owner != 0) ents[na++] = ents[k];

  int nb = arb_world_get_body_count(w);
  arb_body_id stack_ids[256];
  arb_body_id* ids = nb <= 256 ? stack_ids : malloc((size_t)nb * sizeof(arb_body_id));
  if (!ids) return;
  nb = arb_world_get_bodies(w, ids, nb);
  for (int i = 0; i < nb; i++) {
    view_body* b = view_frame_add_body(f);
    if (!b) break;
    arb_body_id id = ids[i];
    b->id = (uint32_t)id.index1;
    b->shape = shape_from_def(arb_body_get_shape(w, id));
    b->sensor = arb_body_get_shape(w, id)->sensor;
    b->xf = arb_body_get_transform(w, id);
    arb_body_type type = arb_body_get_type(w, id);
    b->role = type == ARB_BODY_STATIC ? VIEW_ROLE_STATIC : VIEW_ROLE_WORLD;
    for (int k = 0; k < na; k++) {
      if (!arb_body_id_equals(ents[k].body, id)) continue;
      b->role = ents[k].owner == own_client ? VIEW_ROLE_OWN : VIEW_ROLE_OTHER;
      if (ents[k].owner == own_client) {
        f->focus = b->xf.p;
        f->has_focus = true;
      }
      break;
    }
    if (b->role != VIEW_ROLE_STATIC) {
      b->velocity = arb_body_get_linear_velocity(w, id);
      b->has_velocity = true;
    }
    if (want_contacts && type != ARB_BODY_STATIC) {
      arb_contact_data cd[8];
      int nc = arb_body_get_contacts(w, id, cd, 8);
      if (nc > 8) nc = 8;
      for (int c = 0; c < nc; c++) {
        // Each touching pair is seen from both bodies: keep it once (from the lower slot,
        // or from the moving body when the other is static).
        if (arb_body_get_type(w, cd[c].other) != ARB_BODY_STATIC && cd[c].other.index1 < id.index1)
          continue;
        for (int p = 0; p < cd[c].point_count && p < 2; p++) {
          view_contact* k = view_frame_add_contact(f);
          if (!k) break;
          k->point = cd[c].points[p];
          k->normal = cd[c].normal;
        }
      }
    }
    // A compound body's other shapes, drawn at the same pose.
    for (int k = 1; k < arb_body_get_shape_count(w, id); k++) {
      const arb_shape_def* part = arb_body_get_shape_at(w, id, k);
      if (!view_frame_add_part(f, b, shape_from_def(part), part->sensor)) break;
    }
  }
  if (ids != stack_ids) free(ids);
  view_frame_add_extras(f, w);
  view_frame_compute_bounds(f);
}
