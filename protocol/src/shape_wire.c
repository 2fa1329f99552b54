// Shapes on the wire: the table of shape kinds (shapes.def) and the one conversion between
// shared's geometry and the wire form, used by the server (geometry -> wire) and the
// client (wire -> geometry). The codec checks, packs and unpacks shapes with the same rows.
#include <string.h>

#include "codec.h"

// Points of each kind, in wire order, and back.
static void circle_put(const arb_shape_geometry* g, arb_proto_shape* s) {
  s->points[0] = g->circle.center;
  s->radius = g->circle.radius;
}
static void circle_get(const arb_proto_shape* s, arb_shape_geometry* g) {
  g->circle.center = s->points[0];
  g->circle.radius = s->radius;
}
static void polygon_put(const arb_shape_geometry* g, arb_proto_shape* s) {
  for (int i = 0; i < s->count; i++) s->points[i] = g->polygon.vertices[i];
}
static void polygon_get(const arb_proto_shape* s, arb_shape_geometry* g) {
  g->polygon.count = s->count;
  for (int i = 0; i < s->count; i++) g->polygon.vertices[i] = s->points[i];
}
static void rounded_polygon_put(const arb_shape_geometry* g, arb_proto_shape* s) {
  polygon_put(g, s);
  s->radius = g->polygon.radius;
}
static void rounded_polygon_get(const arb_proto_shape* s, arb_shape_geometry* g) {
  polygon_get(s, g);
  g->polygon.radius = s->radius;
}
static void segment_put(const arb_shape_geometry* g, arb_proto_shape* s) {
  s->points[0] = g->segment.a;
  s->points[1] = g->segment.b;
}
static void segment_get(const arb_proto_shape* s, arb_shape_geometry* g) {
  g->segment.a = s->points[0];
  g->segment.b = s->points[1];
}
static void capsule_put(const arb_shape_geometry* g, arb_proto_shape* s) {
  s->points[0] = g->capsule.center1;
  s->points[1] = g->capsule.center2;
  s->radius = g->capsule.radius;
}
static void capsule_get(const arb_proto_shape* s, arb_shape_geometry* g) {
  g->capsule.center1 = s->points[0];
  g->capsule.center2 = s->points[1];
  g->capsule.radius = s->radius;
}
// A chain piece: an open polyline (a loop goes out as pieces, arb_proto_chain_pieces). The
// geometry read back points at the wire shape's own points.
static void chain_put(const arb_shape_geometry* g, arb_proto_shape* s) {
  for (int i = 0; i < s->count; i++) s->points[i] = g->chain.points[i];
}
static void chain_get(const arb_proto_shape* s, arb_shape_geometry* g) {
  g->chain.points = s->points;
  g->chain.count = s->count;
  g->chain.loop = false;
}
static int chain_count(const arb_shape_geometry* g) {
  return g->chain.loop || g->chain.points == NULL ? 0 : g->chain.count;  // a loop: in pieces
}
// Point count of a geometry: fixed for most kinds, the polygon's own count otherwise.
static int circle_count(const arb_shape_geometry* g) {
  return (void)g, 1;
}
static int polygon_count(const arb_shape_geometry* g) {
  return g->polygon.count;
}
static int segment_count(const arb_shape_geometry* g) {
  return (void)g, 2;
}
static int capsule_count(const arb_shape_geometry* g) {
  return (void)g, 2;
}
static int rounded_polygon_count(const arb_shape_geometry* g) {
  return g->polygon.count;
}

// The geometry's radius (0 for kinds without one): picks between rows of the same kind.
static float geometry_radius(const arb_shape_geometry* g) {
  switch (g->type) {
    case ARB_SHAPE_CIRCLE:
      return g->circle.radius;
    case ARB_SHAPE_CAPSULE:
      return g->capsule.radius;
    case ARB_SHAPE_POLYGON:
      return g->polygon.radius;
    case ARB_SHAPE_SEGMENT:
    case ARB_SHAPE_CHAIN:
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
  return 0.0f;
}

static const arb__shape_kind_row shape_rows[ARB_PROTO_SHAPE_KIND_COUNT] = {
#define ARB_PROTO_SHAPE(NAME, name, code, type, min_points, max_points, has_radius) \
  [code] = {#name, type, min_points, max_points, has_radius, name##_count, name##_put, name##_get},
#include <arbiter/shapes.def>
#undef ARB_PROTO_SHAPE
};

enum {
  shape_kind_rows = 0
#define ARB_PROTO_SHAPE(NAME, name, code, type, min_points, max_points, has_radius) +1
#include <arbiter/shapes.def>
#undef ARB_PROTO_SHAPE
};
_Static_assert(shape_kind_rows + 1 == ARB_PROTO_SHAPE_KIND_COUNT,
               "shapes.def codes must be 1..N without gaps");

const arb__shape_kind_row* arb__shape_row(int kind) {
  return kind > 0 && kind < ARB_PROTO_SHAPE_KIND_COUNT ? &shape_rows[kind] : NULL;
}

const char* arb_proto_shape_kind_name(int kind) {
  const arb__shape_kind_row* row = arb__shape_row(kind);
  return row ? row->name : "unknown";
}

int arb_proto_shape_from_geometry(const arb_shape_geometry* g, arb_proto_shape* out) {
  memset(out, 0, sizeof *out);
  for (int kind = 1; kind < ARB_PROTO_SHAPE_KIND_COUNT; kind++) {
    const arb__shape_kind_row* row = &shape_rows[kind];
    if (row->type != g->type || (geometry_radius(g) > 0.0f) != (row->has_radius != 0)) continue;
    int count = row->count(g);
    if (count < row->min_points || count > row->max_points) return ARB_E_INVAL;
    out->kind = (uint8_t)kind;
    out->count = (uint8_t)count;
    row->put(g, out);
    return ARB_OK;
  }
  return ARB_E_INVAL;
}

int arb_proto_shape_to_geometry(const arb_proto_shape* s, arb_shape_geometry* out) {
  memset(out, 0, sizeof *out);
  const arb__shape_kind_row* row = arb__shape_row(s->kind);
  if (row == NULL || s->count < row->min_points || s->count > row->max_points) return ARB_E_INVAL;
  out->type = row->type;
  row->get(s, out);
  return ARB_OK;
}

int arb_proto_chain_pieces(const arb_chain* c, arb_proto_shape* out, int cap) {
  int links = arb_chain_link_count(c);
  if (c->points == NULL || links < 1) return ARB_E_INVAL;
  int per = ARB_PROTO_CHAIN_PIECE_POINTS - 1;  // links per piece
  int pieces = (links + per - 1) / per;
  if (out == NULL) return pieces;
  if (pieces > cap) return ARB_E_NOSPACE;
  for (int k = 0; k < pieces; k++) {
    arb_proto_shape* s = &out[k];
    memset(s, 0, sizeof *s);
    int first = k * per, last = first + per < links ? first + per : links;  // link range
    s->kind = ARB_PROTO_SHAPE_CHAIN;
    s->count = (uint8_t)(last - first + 1);
    // Neighbouring pieces share their end point; a loop's last piece ends at point 0.
    for (int i = 0; i < s->count; i++) s->points[i] = c->points[(first + i) % c->count];
  }
  return pieces;
}
