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
/// Polygon vertices must lie within this distance (per axis, meters) of the body origin.
#define ARB_MAX_POLYGON_COORD 1.0e4f

/// Every shape kind, one row each: the one list the kind enum, the geometry unions of
/// arb_shape_geometry and arb_shape_def, arb_shape_has_area and the uniform per-kind
/// dispatch (shape.c: bounding box, ray cast) are generated from. A new kind is appended:
/// its value is the kind's record code in the world state.
///
///   X(NAME, name, has_area)
///     NAME      ARB_SHAPE_<NAME>
///     name      the geometry struct arb_<name>, the union member <name>, and the functions
///               arb_compute_<name>_aabb and arb_ray_cast_<name>
///     has_area  false for lines: no mass, no inside, static or kinematic bodies only
///
/// circle; polygon: convex (boxes are polygons); segment: two-sided, for static geometry;
/// capsule: two circle centres joined by their tangents (a stadium); chain: one-sided
/// polyline for terrain.
#define ARB_SHAPE_KINDS(X)   \
  X(CIRCLE, circle, true)    \
  X(POLYGON, polygon, true)  \
  X(SEGMENT, segment, false) \
  X(CAPSULE, capsule, true)  \
  X(CHAIN, chain, false)

#define ARB__SHAPE_ENUM(NAME, name, has_area) ARB_SHAPE_##NAME,
typedef enum arb_shape_type {
  ARB_SHAPE_NONE = 0,  ///< invalid / unset
  ARB_SHAPE_KINDS(ARB__SHAPE_ENUM) ARB_SHAPE_TYPE_COUNT
} arb_shape_type;
#undef ARB__SHAPE_ENUM

typedef struct arb_circle {
  arb_vec2 center;  ///< local center, meters
  float radius;     ///< meters, > 0
} arb_circle;

/// A validated convex polygon: counter-clockwise vertices, outward unit normals.
/// Build it with arb_make_polygon / arb_make_box, never by hand. With a radius it is a
/// rounded polygon: every point within `radius` of the polygon (its corners become arcs,
/// its outline grows by the radius).
typedef struct arb_polygon {
  arb_vec2 vertices[ARB_MAX_POLYGON_VERTICES];  ///< local, counter-clockwise
  arb_vec2 normals[ARB_MAX_POLYGON_VERTICES];   ///< normals[i] is the edge vertices[i] -> [i+1]
  arb_vec2 centroid;                            ///< local area centroid (of the sharp core)
  int count;                                    ///< 3..ARB_MAX_POLYGON_VERTICES
  float radius;  ///< meters, 0..ARB_MAX_POLYGON_RADIUS; 0 (the default) is a sharp polygon
} arb_polygon;

/// Largest rounding radius of a polygon, meters.
#define ARB_MAX_POLYGON_RADIUS 1.0e3f

typedef struct arb_segment {
  arb_vec2 a, b;  ///< local end points, distinct
} arb_segment;

/// Every point within `radius` of the segment center1-center2: a rod with round ends.
typedef struct arb_capsule {
  arb_vec2 center1, center2;  ///< local centres of the end circles, at least ARB_LINEAR_SLOP apart
  float radius;               ///< meters, > 0
} arb_capsule;

/// A chain has at most this many points (a loop as many links, an open chain one less).
#define ARB_MAX_CHAIN_POINTS 512
/// Chain points must lie within this distance (per axis, meters) of the body origin.
#define ARB_MAX_CHAIN_COORD 1.0e5f

/// A polyline of links points[i] -> points[i+1] (and, as a loop, last -> first), for
/// terrain. Each link is one-sided: bodies collide with its front, the left side going
/// from points[i] to points[i+1] (a ground listed left to right faces up; a loop listed
/// clockwise is solid inside, counter-clockwise it is a container), and pass through from
/// behind. Neighbouring links act as ghost vertices: a body sliding across the joint of
/// two links meets one smooth surface and does not catch on the inner vertex.
typedef struct arb_chain {
  const arb_vec2* points;  ///< local; a world keeps its own copy (points of a created
                           ///< body's shape point into the world, valid while it lives)
  int count;               ///< 2..ARB_MAX_CHAIN_POINTS (a loop: 3..)
  bool loop;               ///< the last point joins the first
} arb_chain;

/// The geometry of one shape of any kind, a member per kind named as the kind (shared by
/// arb_shape_geometry and arb_shape_def, so both lay out the same).
#define ARB__SHAPE_MEMBER(NAME, name, has_area) arb_##name name;
#define ARB_SHAPE_GEOMETRY_UNION       \
  union {                              \
    ARB_SHAPE_KINDS(ARB__SHAPE_MEMBER) \
  }

/// One shape's geometry tagged with its kind: what a shape is, without material or
/// collision filter (arb_shape_def adds those). Used where shapes travel or are drawn.
typedef struct arb_shape_geometry {
  arb_shape_type type;
  ARB_SHAPE_GEOMETRY_UNION;
} arb_shape_geometry;

/// Segments and chains are lines: no mass, no inside, static or kinematic bodies only.
static inline bool arb_shape_has_area(arb_shape_type t) {
#define ARB__SHAPE_HAS_AREA(NAME, name, has_area) \
  case ARB_SHAPE_##NAME:                          \
    return has_area;
  switch (t) {
    ARB_SHAPE_KINDS(ARB__SHAPE_HAS_AREA)
    case ARB_SHAPE_NONE:
    case ARB_SHAPE_TYPE_COUNT:
      break;
  }
#undef ARB__SHAPE_HAS_AREA
  return true;
}

/// Mass properties of a shape of uniform density.
typedef struct arb_mass_data {
  float mass;                ///< kilograms
  arb_vec2 center;           ///< local center of mass
  float rotational_inertia;  ///< kg*m^2 about the center of mass
} arb_mass_data;

/// Validate points and build a convex polygon. Accepts clockwise or counter-clockwise
/// order (output is counter-clockwise). Fails with ARB_E_INVAL and a reason in *why when
/// there are fewer than 3 or more than ARB_MAX_POLYGON_VERTICES points, a point is not
/// finite or is beyond ARB_MAX_POLYGON_COORD, two points coincide (closer than
/// ARB_LINEAR_SLOP), three consecutive points are collinear, the polygon is not convex (or
/// self-intersecting), or its area is (nearly) zero. `why` may be NULL; it points to a
/// static string. On failure *out is not written.
ARB_API int arb_make_polygon(const arb_vec2* points, int count, arb_polygon* out, const char** why);
/// Axis-aligned box centred on the origin. Half extents must be finite and > 0 (callers
/// validate; scene files are checked by the scene loader). Invalid extents give a
/// polygon with count 0, which has no mass and collides with nothing.
ARB_API arb_polygon arb_make_box(float half_width, float half_height);
/// Box centred at `center`, rotated by `rotation`, in the body frame.
ARB_API arb_polygon arb_make_offset_box(float half_width, float half_height, arb_vec2 center,
                                        arb_rot rotation);
/// The polygon grown by `radius` (> 0: corners become arcs of that radius). The result of
/// arb_make_polygon or arb_make_box, as it is; radius finite, 0..ARB_MAX_POLYGON_RADIUS.
ARB_API arb_polygon arb_make_rounded_polygon(const arb_polygon* core, float radius);

ARB_API arb_mass_data arb_compute_circle_mass(const arb_circle* shape, float density);
/// Exact for any convex polygon (a solid w x h box gets m*(w*w + h*h)/12), rounded
/// polygons included (the core plus a rectangle along each edge and an arc sector at
/// each corner).
ARB_API arb_mass_data arb_compute_polygon_mass(const arb_polygon* shape, float density);
/// A w x 2r rectangle plus two half discs: exact (centre midway between the centres).
ARB_API arb_mass_data arb_compute_capsule_mass(const arb_capsule* shape, float density);

ARB_API arb_aabb arb_compute_circle_aabb(const arb_circle* shape, arb_transform xf);
ARB_API arb_aabb arb_compute_polygon_aabb(const arb_polygon* shape, arb_transform xf);
ARB_API arb_aabb arb_compute_segment_aabb(const arb_segment* shape, arb_transform xf);
ARB_API arb_aabb arb_compute_capsule_aabb(const arb_capsule* shape, arb_transform xf);
ARB_API arb_aabb arb_compute_chain_aabb(const arb_chain* shape, arb_transform xf);
/// The AABB of a shape of any kind at xf: the function of its kind above (the point xf.p
/// for ARB_SHAPE_NONE or a value outside the enum).
ARB_API arb_aabb arb_compute_shape_aabb(const arb_shape_geometry* shape, arb_transform xf);
/// Distance from `center` (the shape's frame) to the farthest point of a shape of any
/// kind, rounding radius included (0 for ARB_SHAPE_NONE or a value outside the enum).
ARB_API float arb_compute_shape_extent(const arb_shape_geometry* shape, arb_vec2 center);

/// The kind's name as in ARB_SHAPE_KINDS ("circle", "polygon", ...); "none" for
/// ARB_SHAPE_NONE or a value outside the enum.
ARB_API const char* arb_shape_type_name(arb_shape_type type);

/// Most points an outline has (a chain's).
#define ARB_MAX_OUTLINE_POINTS ARB_MAX_CHAIN_POINTS

/// A shape of any kind described so that it can be drawn without knowing its kind: every
/// point within `radius` of a polyline (body frame). A circle is its centre (1 point) and
/// radius; a polygon its vertices, closed, and its rounding radius; a segment its two ends;
/// a capsule its two centres and radius; a chain its points, closed when it loops.
typedef struct arb_shape_outline {
  const char* kind;  ///< arb_shape_type_name of the shape's kind
  int count;         ///< points of the polyline, 0..ARB_MAX_OUTLINE_POINTS (0: no kind)
  float radius;      ///< meters, >= 0
  bool closed;       ///< the last point joins the first (a closed outline with area is convex)
  bool has_area;     ///< an inside to fill (arb_shape_has_area); false: a line
  bool one_sided;    ///< a line that collides only from the left of each link (a chain)
} arb_shape_outline;

/// The outline of a shape of any kind into *out, and its first min(out->count, capacity)
/// points into `points` (NULL with capacity 0 asks for the count). Returns out->count. A
/// caller that draws long chains gives ARB_MAX_OUTLINE_POINTS of room, which never
/// truncates. The points are copies: the outline stays valid after the shape is gone.
ARB_API int arb_compute_shape_outline(const arb_shape_geometry* shape, arb_shape_outline* out,
                                      arb_vec2* points, int capacity);

/// Number of links of a valid chain (count - 1, or count for a loop).
ARB_API int arb_chain_link_count(const arb_chain* shape);
/// Check a chain: points present and finite, within ARB_MAX_CHAIN_COORD, 2..
/// ARB_MAX_CHAIN_POINTS of them (a loop at least 3), every link (the closing one of a
/// loop too) at least ARB_LINEAR_SLOP long. False with a static reason in *why (may be NULL).
ARB_API bool arb_validate_chain(const arb_chain* shape, const char** why);

/// Point inside test, point in the shape's local frame.
ARB_API bool arb_point_in_circle(arb_vec2 point, const arb_circle* shape);
ARB_API bool arb_point_in_polygon(arb_vec2 point, const arb_polygon* shape);
ARB_API bool arb_point_in_capsule(arb_vec2 point, const arb_capsule* shape);

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
/// Contact recycling (arb_world_def.enable_contact_recycling): a touching contact keeps
/// its manifold while the relative motion of its two bodies since the manifold was
/// computed stays below this distance (a contact that does not touch: below
/// ARB_SPECULATIVE_DISTANCE) and neither body turned more than about 11.5 degrees.
#define ARB_CONTACT_RECYCLE_DISTANCE (10.0f * ARB_LINEAR_SLOP)

/// Every pair of shape kinds that collide, one row each: XX(name, KIND_A, a, KIND_B, b)
/// with the kinds as in ARB_SHAPE_KINDS (ARB_SHAPE_<KIND>, arb_<kind>). Each row has its
/// function arb_collide_<name>(const arb_<a>*, xfa, const arb_<b>*, xfb) below. Kind A is
/// the one the function takes first, which is also the order of a contact's two bodies in
/// a world (body A has kind A). A pair with no row (segment/segment) never collides. Chain
/// pairs are listed apart: a world's chain brings its own link tree.
#define ARB_COLLIDE_PAIRS(XX)                                 \
  XX(circles, CIRCLE, circle, CIRCLE, circle)                 \
  XX(polygon_and_circle, POLYGON, polygon, CIRCLE, circle)    \
  XX(polygons, POLYGON, polygon, POLYGON, polygon)            \
  XX(segment_and_circle, SEGMENT, segment, CIRCLE, circle)    \
  XX(segment_and_polygon, SEGMENT, segment, POLYGON, polygon) \
  XX(capsules, CAPSULE, capsule, CAPSULE, capsule)            \
  XX(capsule_and_circle, CAPSULE, capsule, CIRCLE, circle)    \
  XX(polygon_and_capsule, POLYGON, polygon, CAPSULE, capsule) \
  XX(segment_and_capsule, SEGMENT, segment, CAPSULE, capsule)
#define ARB_COLLIDE_CHAIN_PAIRS(XX)                     \
  XX(chain_and_circle, CHAIN, chain, CIRCLE, circle)    \
  XX(chain_and_polygon, CHAIN, chain, POLYGON, polygon) \
  XX(chain_and_capsule, CHAIN, chain, CAPSULE, capsule)

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
/// Capsules collide as two-vertex polygons grown by their radius (SAT and clipping), so
/// a capsule lying along a face or along another capsule gets two points.
ARB_API arb_manifold arb_collide_capsules(const arb_capsule* a, arb_transform xfa,
                                          const arb_capsule* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_capsule_and_circle(const arb_capsule* a, arb_transform xfa,
                                                    const arb_circle* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_polygon_and_capsule(const arb_polygon* a, arb_transform xfa,
                                                     const arb_capsule* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_segment_and_capsule(const arb_segment* a, arb_transform xfa,
                                                     const arb_capsule* b, arb_transform xfb);
/// A chain against a shape: every link near B is collided as a one-sided segment whose
/// neighbours are ghost vertices (a normal the neighbouring links would hide is replaced
/// by the link's own), and the links' points are combined into one manifold: the normal
/// of the deepest link (lowest link on a tie), the points of every link whose normal is
/// within about 10 degrees of it, reduced to the deepest and the one farthest from it
/// along the surface (one point for a circle). Feature ids carry the link index.
ARB_API arb_manifold arb_collide_chain_and_circle(const arb_chain* a, arb_transform xfa,
                                                  const arb_circle* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_chain_and_polygon(const arb_chain* a, arb_transform xfa,
                                                   const arb_polygon* b, arb_transform xfb);
ARB_API arb_manifold arb_collide_chain_and_capsule(const arb_chain* a, arb_transform xfa,
                                                   const arb_capsule* b, arb_transform xfb);

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

/// Ray casts in the shape's local frame. A ray that starts inside (or on the boundary
/// of) a solid shape (circle, polygon, capsule, AABB) reports a hit at fraction 0 with a zero
/// normal. Only hits with 0 <= fraction <= max_fraction count; shapes behind the origin
/// are misses. Segments are two-sided; a ray parallel to a segment (even collinear)
/// misses it. Non-finite input is a miss.
ARB_API arb_cast_output arb_ray_cast_circle(const arb_ray_input* input, const arb_circle* shape);
ARB_API arb_cast_output arb_ray_cast_polygon(const arb_ray_input* input, const arb_polygon* shape);
ARB_API arb_cast_output arb_ray_cast_segment(const arb_ray_input* input, const arb_segment* shape);
ARB_API arb_cast_output arb_ray_cast_capsule(const arb_ray_input* input, const arb_capsule* shape);
/// The first link the ray meets from the front (rays from behind a link pass through it);
/// the lower link on a tie.
ARB_API arb_cast_output arb_ray_cast_chain(const arb_ray_input* input, const arb_chain* shape);
ARB_API arb_cast_output arb_ray_cast_aabb(const arb_ray_input* input, arb_aabb box);
/// A ray against a shape of any kind: the function of its kind above (a miss for
/// ARB_SHAPE_NONE or a value outside the enum).
ARB_API arb_cast_output arb_ray_cast_shape(const arb_ray_input* input,
                                           const arb_shape_geometry* shape);

// ---- distance and time of impact (continuous collision) --------------------------------

/// Any shape as a convex core (up to 8 points) grown by a radius: a circle is its centre
/// with its radius, a segment its two end points, a polygon its vertices, a capsule its
/// two centres with its radius. Local frame.
typedef struct arb_shape_proxy {
  arb_vec2 points[ARB_MAX_POLYGON_VERTICES];  ///< convex core, local frame
  int count;                                  ///< 1..ARB_MAX_POLYGON_VERTICES
  float radius;                               ///< meters, >= 0
} arb_shape_proxy;

/// count is clamped to [0, ARB_MAX_POLYGON_VERTICES]; points are copied.
ARB_API arb_shape_proxy arb_make_proxy(const arb_vec2* points, int count, float radius);
ARB_API arb_shape_proxy arb_make_circle_proxy(const arb_circle* shape);
ARB_API arb_shape_proxy arb_make_polygon_proxy(const arb_polygon* shape);
ARB_API arb_shape_proxy arb_make_segment_proxy(const arb_segment* shape);
ARB_API arb_shape_proxy arb_make_capsule_proxy(const arb_capsule* shape);

typedef struct arb_distance_output {
  arb_vec2 point_a;  ///< closest point on A's surface, world
  arb_vec2 point_b;  ///< closest point on B's surface, world (= point_a when touching)
  arb_vec2 normal;   ///< unit, world, from A to B; zero when the cores overlap
  float distance;    ///< between the surfaces (radii included), meters; 0 when overlapping
  int iterations;    ///< GJK iterations used (at most 32)
} arb_distance_output;

/// Closest points between two convex proxies placed by transforms (GJK). Overlapping
/// shapes report distance 0 (no penetration depth: use the manifold functions for that).
ARB_API arb_distance_output arb_shape_distance(const arb_shape_proxy* a, arb_transform xfa,
                                               const arb_shape_proxy* b, arb_transform xfb);

/// The motion of a body over one step, for continuous collision: its centre of mass moves
/// linearly from c1 to c2 and its rotation turns from q1 to q2 at constant angular speed
/// (the shorter way round, so at most pi per sweep).
typedef struct arb_sweep {
  arb_vec2 local_center;  ///< centre of mass in the body frame
  arb_vec2 c1, c2;        ///< world centre of mass at t = 0 and t = 1
  arb_rot q1, q2;         ///< world rotation at t = 0 and t = 1
} arb_sweep;

/// The body transform (origin and rotation) at time t in [0, 1] of the sweep.
ARB_API arb_transform arb_get_sweep_transform(const arb_sweep* sweep, float t);

typedef struct arb_toi_input {
  arb_shape_proxy proxy_a;  ///< A's shape in A's body frame
  arb_shape_proxy proxy_b;  ///< B's shape in B's body frame
  arb_sweep sweep_a;
  arb_sweep sweep_b;
  float max_fraction;  ///< only look in [0, max_fraction], max_fraction <= 1
} arb_toi_input;

typedef enum arb_toi_state {
  ARB_TOI_UNKNOWN = 0,
  ARB_TOI_FAILED,      ///< bad input, or out of iterations: fraction is still a safe time
  ARB_TOI_OVERLAPPED,  ///< already touching or overlapping at t = 0
  ARB_TOI_HIT,         ///< the surfaces come within ARB_LINEAR_SLOP at `fraction`
  ARB_TOI_SEPARATED,   ///< no contact up to max_fraction
} arb_toi_state;

typedef struct arb_toi_output {
  arb_toi_state state;
  float fraction;  ///< time in [0, max_fraction]; before it the shapes never touch
} arb_toi_output;

/// Time of impact by conservative advancement: repeatedly measure the distance (GJK) and
/// advance by distance / (largest possible approach speed), so the shapes can not pass
/// through each other however fast they move. Stops when the surfaces are within
/// ARB_LINEAR_SLOP (+- a quarter slop), leaving the rest to the speculative contacts.
/// At most 64 iterations.
ARB_API arb_toi_output arb_time_of_impact(const arb_toi_input* input);

ARB_C_END
