// arbiter — shapes and stateless collision: mass properties, bounding boxes, contact
// manifolds for every pair of shape kinds, and ray casts. Nothing here knows about the world.
//
// Conventions: shapes are given in their body's local frame and placed with a transform.
// A manifold's normal points from shape A to shape B. Separation < 0 means overlap.
#pragma once

#include "math.h"

ARB_C_BEGIN

/// Convex polygons have at most this many vertices.
#define ARB_MAX_POLYGON_VERTICES 8
/// Collision and constraint tolerance in meters (sizes below this are degenerate).
#define ARB_LINEAR_SLOP 0.005f

typedef enum arb_shape_type {
  ARB_SHAPE_NONE = 0,  ///< invalid / unset
  ARB_SHAPE_CIRCLE,
  ARB_SHAPE_POLYGON,   ///< convex polygon; boxes are polygons
  ARB_SHAPE_SEGMENT,   ///< two-sided line segment, for static geometry
  ARB_SHAPE_TYPE_COUNT
} arb_shape_type;

typedef struct arb_circle {
  arb_vec2 center;  ///< local center, meters
  float radius;     ///< meters, > 0
} arb_circle;

/// A validated convex polygon: counter-clockwise vertices, outward unit normals.
/// Build it with arb_make_polygon / arb_make_box, never by hand.
typedef struct arb_polygon {
  arb_vec2 vertices[ARB_MAX_POLYGON_VERTICES];  ///< local, counter-clockwise
  arb_vec2 normals[ARB_MAX_POLYGON_VERTICES];   ///< normals[i] is the edge vertices[i] -> [i+1]
  arb_vec2 centroid;                            ///< local area centroid
  int count;                                    ///< 3..ARB_MAX_POLYGON_VERTICES
} arb_polygon;

typedef struct arb_segment {
  arb_vec2 a, b;  ///< local end points, distinct
} arb_segment;

/// Mass properties of a shape of uniform density.
typedef struct arb_mass_data {
  float mass;                ///< kilograms
  arb_vec2 center;           ///< local center of mass
  float rotational_inertia;  ///< kg*m^2 about the center of mass
} arb_mass_data;

/// Validate points and build a convex polygon. Accepts clockwise or counter-clockwise
/// order (output is counter-clockwise). Fails with ARB_E_INVAL and a reason in *why when
/// there are fewer than 3 or more than ARB_MAX_POLYGON_VERTICES points, the points are
/// not finite, two points coincide (closer than ARB_LINEAR_SLOP), the polygon is not
/// convex, or its area is (nearly) zero. `why` may be NULL; it points to a static string.
ARB_API int arb_make_polygon(const arb_vec2* points, int count, arb_polygon* out, const char** why);
/// Axis-aligned box centred on the origin; half extents > 0.
ARB_API arb_polygon arb_make_box(float half_width, float half_height);
/// Box centred at `center`, rotated by `rotation`, in the body frame.
ARB_API arb_polygon arb_make_offset_box(float half_width, float half_height, arb_vec2 center, arb_rot rotation);

ARB_API arb_mass_data arb_compute_circle_mass(const arb_circle* shape, float density);
/// Exact for any convex polygon (a solid w x h box gets m*(w*w + h*h)/12).
ARB_API arb_mass_data arb_compute_polygon_mass(const arb_polygon* shape, float density);

ARB_API arb_aabb arb_compute_circle_aabb(const arb_circle* shape, arb_transform xf);
ARB_API arb_aabb arb_compute_polygon_aabb(const arb_polygon* shape, arb_transform xf);
ARB_API arb_aabb arb_compute_segment_aabb(const arb_segment* shape, arb_transform xf);

/// Point inside test, point in the shape's local frame.
ARB_API bool arb_point_in_circle(arb_vec2 point, const arb_circle* shape);
ARB_API bool arb_point_in_polygon(arb_vec2 point, const arb_polygon* shape);

// ---- contact manifolds -----------------------------------------------------------------

/// Feature ids identify which vertex/edge pair produced a point, so impulses can be
/// carried from one step to the next (warm starting).
#define ARB_MAKE_FEATURE_ID(a, b) ((uint16_t)(((uint8_t)(a)) << 8 | (uint8_t)(b)))

typedef struct arb_manifold_point {
  arb_vec2 point;         ///< world position (midpoint between the two surfaces)
  arb_vec2 anchor_a;      ///< point relative to the origin of transform A, world axes
  arb_vec2 anchor_b;      ///< point relative to the origin of transform B, world axes
  float separation;       ///< meters along the normal; negative = penetration
  float normal_impulse;   ///< solver state, zero from the collide functions
  float tangent_impulse;  ///< solver state, zero from the collide functions
  uint16_t id;            ///< feature id, stable while the same features touch
} arb_manifold_point;

typedef struct arb_manifold {
  arb_vec2 normal;  ///< unit, world, from A to B
  arb_manifold_point points[2];
  int point_count;  ///< 0 (not touching), 1 or 2
} arb_manifold;

/// Manifolds are produced only when the shapes are closer than this (speculative margin).
#define ARB_SPECULATIVE_DISTANCE (4.0f * ARB_LINEAR_SLOP)

ARB_API arb_manifold arb_collide_circles(const arb_circle* a, arb_transform xfa,
                                         const arb_circle* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_polygon_and_circle(const arb_polygon* a, arb_transform xfa,
                                                    const arb_circle* b, arb_transform xfb);
/// SAT with reference/incident face clipping: up to 2 points.
ARB_API arb_manifold arb_collide_polygons(const arb_polygon* a, arb_transform xfa,
                                          const arb_polygon* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_segment_and_circle(const arb_segment* a, arb_transform xfa,
                                                    const arb_circle* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_segment_and_polygon(const arb_segment* a, arb_transform xfa,
                                                     const arb_polygon* b, arb_transform xfb);

// ---- ray casts -------------------------------------------------------------------------

/// A ray from origin along translation; hits beyond max_fraction * translation are ignored.
typedef struct arb_ray_input {
  arb_vec2 origin;
  arb_vec2 translation;
  float max_fraction;  ///< usually 1
} arb_ray_input;

typedef struct arb_cast_output {
  arb_vec2 normal;  ///< surface normal at the hit (unit)
  arb_vec2 point;   ///< hit point
  float fraction;   ///< hit = origin + fraction * translation
  bool hit;
} arb_cast_output;

/// Ray casts in the shape's local frame. A ray that starts inside a solid shape
/// (circle, polygon) reports a hit at fraction 0 with a zero normal.
ARB_API arb_cast_output arb_ray_cast_circle(const arb_ray_input* input, const arb_circle* shape);
ARB_API arb_cast_output arb_ray_cast_polygon(const arb_ray_input* input, const arb_polygon* shape);
ARB_API arb_cast_output arb_ray_cast_segment(const arb_ray_input* input, const arb_segment* shape);
ARB_API arb_cast_output arb_ray_cast_aabb(const arb_ray_input* input, arb_aabb box);

ARB_C_END
