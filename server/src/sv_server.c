// What clients are told about the world's shapes: the static bodies of the welcome and
// the description of an entity entering a client's view.
#include "sv_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- shapes for the welcome and for entity descriptions ----------------------------------

// Wire entries a static body takes: one per shape (a compound body has several), or one
// per piece of a chain (a chain is its body's only shape).
static int statics_of(const arb_world* world, arb_body_id id) {
  const arb_shape_def* shape = arb_body_get_shape(world, id);
  if (shape->type != ARB_SHAPE_CHAIN) return arb_body_get_shape_count(world, id);
  int n = arb_proto_chain_pieces(&shape->chain, NULL, 0);
  return n > 0 ? n : 1;
}

// A static body's wire entries from `at` on (at most cap), all at the body's position and
// angle; returns how many or ARB_E_*.
static int put_static(const arb_world* world, arb_body_id id, arb_proto_static_body* at, int cap) {
  const arb_shape_def* shape = arb_body_get_shape(world, id);
  arb_proto_shape pieces[ARB_MAX_CHAIN_POINTS];
  int n = 0;
  if (shape->type == ARB_SHAPE_CHAIN) {
    n = arb_proto_chain_pieces(&shape->chain, pieces, ARB_MAX_CHAIN_POINTS);
    if (n < 0) return n;
  } else {
    n = arb_body_get_shape_count(world, id);
    for (int k = 0; k < n; ++k) {
      arb_shape_geometry g = arb_shape_def_geometry(arb_body_get_shape_at(world, id, k));
      int rc = arb_proto_shape_from_geometry(&g, &pieces[k]);
      if (rc != ARB_OK) return rc;
    }
  }
  for (int k = 0; k < n && k < cap; ++k) {
    at[k].position = arb_body_get_position(world, id);
    at[k].angle = arb_body_get_angle(world, id);
    at[k].shape = pieces[k];
  }
  return n < cap ? n : cap;
}

int sv_build_statics(sv_server* s, char* err, size_t err_cap) {
  arb_world* world = arb_game_get_world(s->game);
  int n = arb_world_get_body_count(world);
  arb_body_id* ids = calloc((size_t)(n > 0 ? n : 1), sizeof *ids);
  if (ids == NULL) return snprintf(err, err_cap, "out of memory"), ARB_E_NOMEM;
  n = arb_world_get_bodies(world, ids, n);
  int entries = 0;
  for (int i = 0; i < n; ++i) {
    if (arb_body_get_type(world, ids[i]) == ARB_BODY_STATIC) entries += statics_of(world, ids[i]);
    // Entity descriptions carry whole shapes: a chain on a moving body cannot be sent.
    if (arb_body_get_type(world, ids[i]) == ARB_BODY_KINEMATIC &&
        arb_body_get_shape(world, ids[i])->type == ARB_SHAPE_CHAIN) {
      snprintf(err, err_cap,
               "bodies[%d]: a chain on a kinematic body cannot be sent to clients "
               "(only static chains): make it static",
               ids[i].index1 - 1);
      free(ids);
      return ARB_E_INVAL;
    }
  }
  s->statics = calloc((size_t)(entries > 0 ? entries : 1), sizeof *s->statics);
  if (s->statics == NULL) {
    snprintf(err, err_cap, "out of memory");
    free(ids);
    return ARB_E_NOMEM;
  }
  s->static_count = 0;
  for (int i = 0; i < n && s->static_count < ARB_PROTO_MAX_STATIC; ++i) {
    if (arb_body_get_type(world, ids[i]) != ARB_BODY_STATIC) continue;
    int rc = put_static(world, ids[i], &s->statics[s->static_count],
                        ARB_PROTO_MAX_STATIC - s->static_count);
    if (rc < 0) {
      snprintf(err, err_cap, "bodies[%d]: its shape has no wire form: %s", ids[i].index1 - 1,
               arb_strerror(rc));
      free(ids);
      return rc;
    }
    s->static_count += rc;
  }
  free(ids);
  return 0;
}
