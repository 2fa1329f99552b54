// What clients are told about the world's shapes: the static bodies of the welcome and
// the description of an entity entering a client's view.
#include "sv_server.h"

#include <stdlib.h>
#include <string.h>

// ---- shapes for the welcome and for entity descriptions ----------------------------------

static void shape_to_proto(const arb_shape_def* sd, arb_proto_shape* out) {
  memset(out, 0, sizeof *out);
  out->kind = (uint8_t)sd->type;
  switch (sd->type) {
    case ARB_SHAPE_CIRCLE:
      out->count = 1;
      out->radius = sd->circle.radius;
      out->points[0] = sd->circle.center;
      break;
    case ARB_SHAPE_POLYGON:
      out->count = (uint8_t)sd->polygon.count;
      for (int i = 0; i < sd->polygon.count && i < 8; ++i) out->points[i] = sd->polygon.vertices[i];
      break;
    case ARB_SHAPE_SEGMENT:
      out->count = 2;
      out->points[0] = sd->segment.a;
      out->points[1] = sd->segment.b;
      break;
    default: break;
  }
}

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
    shape_to_proto(arb_body_get_shape(world, ids[i]), &sb->shape);
  }
  free(ids);
  return 0;
}

// Description of an entity entering a client's view (snapshot builder callback).
int sv_describe_entity(void* user, uint32_t entity_id, arb_proto_entity_desc* desc) {
  sv_server* s = user;
  arb_entity e;
  if (arb_game_find_entity(s->game, entity_id, &e) != 0) return ARB_E_NOT_FOUND;
  const arb_world* world = arb_game_get_world(s->game);
  memset(desc, 0, sizeof *desc);
  desc->body_type = (uint8_t)arb_body_get_type(world, e.body);
  desc->owner = e.owner;
  if (e.owner != 0) desc->avatar_kind = (uint8_t)e.kind;
  shape_to_proto(arb_body_get_shape(world, e.body), &desc->shape);
  return 0;
}
