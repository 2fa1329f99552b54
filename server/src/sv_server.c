// What clients are told about the world's shapes: the static bodies of the welcome and
// the description of an entity entering a client's view.
#include "sv_server.h"

#include <stdlib.h>
#include <string.h>

// ---- shapes for the welcome and for entity descriptions ----------------------------------

int sv_build_statics(sv_server* s) {
  arb_world* world = arb_game_get_world(s->game);
  int n = arb_world_get_body_count(world);
  arb_body_id* ids = calloc((size_t)(n > 0 ? n : 1), sizeof *ids);
  if (ids == NULL) return ARB_E_NOMEM;
  n = arb_world_get_bodies(world, ids, n);
  s->statics = calloc((size_t)(n > 0 ? n : 1), sizeof *s->statics);
  if (s->statics == NULL) {
    free(ids);
    return ARB_E_NOMEM;
  }
  s->static_count = 0;
  for (int i = 0; i < n && s->static_count < ARB_PROTO_MAX_STATIC; ++i) {
    if (arb_body_get_type(world, ids[i]) != ARB_BODY_STATIC) continue;
    arb_proto_static_body* sb = &s->statics[s->static_count++];
    sb->position = arb_body_get_position(world, ids[i]);
    sb->angle = arb_body_get_angle(world, ids[i]);
    arb_shape_geometry g = arb_shape_def_geometry(arb_body_get_shape(world, ids[i]));
    int rc = arb_proto_shape_from_geometry(&g, &sb->shape);
    if (rc != ARB_OK) {
      free(ids);
      return rc;
    }
  }
  free(ids);
  return 0;
}

