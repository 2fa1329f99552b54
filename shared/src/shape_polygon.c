// DETERMINISM-CRITICAL: a polygon's answers to the shape module (shape.h), rounded
// polygons included.
#include "shape_kind.h"

ARB__AREA_KIND_ANSWERS(polygon)

bool arb__polygon_valid(const arb_shape_def* s, const char** why) {
  const arb_polygon* p = &s->polygon;
  if (p->count < 3 || p->count > ARB_MAX_POLYGON_VERTICES)
    return *why = "polygon vertex count", false;
  for (int i = 0; i < p->count; ++i) {
    if (!arb_vec2_is_valid(p->vertices[i]) || !arb_vec2_is_valid(p->normals[i])) {
      return *why = "polygon vertex not finite", false;
    }
    float len = arb_length(p->normals[i]);
    if (len < 0.999f || len > 1.001f) return *why = "polygon normal not unit length", false;
  }
  if (!arb_vec2_is_valid(p->centroid)) return *why = "polygon centroid not finite", false;
  if (!(p->radius >= 0.0f && p->radius <= ARB_MAX_POLYGON_RADIUS)) {
    return *why = "polygon radius must be finite, >= 0 and <= ARB_MAX_POLYGON_RADIUS", false;
  }
  // Convex and counter-clockwise: every vertex lies behind every edge.
  for (int i = 0; i < p->count; ++i) {
    int i2 = i + 1 < p->count ? i + 1 : 0;
    arb_vec2 e = arb_sub(p->vertices[i2], p->vertices[i]);
    if (arb_cross(e, p->normals[i]) > 0.0f) return *why = "polygon normal points inwards", false;
    for (int j = 0; j < p->count; ++j) {
      if (arb_dot(p->normals[i], arb_sub(p->vertices[j], p->vertices[i])) > ARB_LINEAR_SLOP) {
        return *why = "polygon not convex", false;
      }
    }
    if (arb_length(e) < ARB_LINEAR_SLOP) return *why = "polygon has coincident vertices", false;
  }
  return true;
}

arb_vec2 arb__polygon_center(const arb_polygon* g) {
  return g->centroid;
}

float arb__polygon_min_extent(const arb_polygon* p, arb_vec2 center) {
  float min_e = 3.4e38f;
  for (int i = 0; i < p->count; ++i) {
    float face = arb_dot(p->normals[i], arb_sub(p->vertices[i], center));
    if (face < min_e) min_e = face;
  }
  if (p->radius > 0.0f) min_e += p->radius;  // the rim
  return min_e < 0.0f ? 0.0f : min_e;
}

float arb__polygon_max_extent(const arb_polygon* g, arb_vec2 center) {
  float ext = 0.0f;
  for (int i = 0; i < g->count; ++i) ext = arb_maxf(ext, arb_distance(g->vertices[i], center));
  if (g->radius > 0.0f) ext += g->radius;
  return ext;
}

bool arb__polygon_out_of_reach(const arb_polygon* g, arb_transform xf, arb_vec2 p, float reach) {
  return arb__polygon_beyond(g, xf, p, reach);
}

arb_manifold arb__polygon_collide_circle(const arb_polygon* g, arb_transform xf,
                                         const arb_circle* c, arb_transform xc) {
  return arb_collide_polygon_and_circle(g, xf, c, xc);
}

// u8 n, n vec2 vertices, n vec2 normals, vec2 centroid, then, rounded only, f32 radius > 0.
void arb__polygon_fields(arb_codec* c, arb_shape_def* s, const arb__shape_codec* how) {
  arb_polygon* p = &s->polygon;
  arb_codec_int_u8(c, &p->count);
  ARB_CODEC_CHECK(c, p->count >= 3 && p->count <= ARB_MAX_POLYGON_VERTICES);
  if (c->err) return;
  for (int i = 0; i < p->count; ++i) arb_codec_vec2(c, &p->vertices[i]);
  for (int i = 0; i < p->count; ++i) arb_codec_vec2(c, &p->normals[i]);
  arb_codec_vec2(c, &p->centroid);
  if (how->rounded) {
    arb_codec_f32(c, &p->radius);
    ARB_CODEC_CHECK(c, p->radius > 0.0f);
  } else if (arb_codec_reading(c)) {
    p->radius = 0.0f;
  }
}

// Its vertices, closed, grown by its rounding radius.
int arb__polygon_outline(const arb_polygon* g, arb_shape_outline* out, arb_vec2* points,
                         int capacity) {
  out->radius = g->radius;
  out->closed = true;
  int n = g->count >= 0 && g->count <= ARB_MAX_POLYGON_VERTICES ? g->count : 0;
  return arb__outline_points(points, capacity, g->vertices, n);
}
