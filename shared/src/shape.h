// arbiter — the shape module: everything the world asks of a shape that depends on its
// kind. Not a public header.
//
// One home per question (the way Box2D v3's shape.c holds b2ComputeShapeAABB,
// b2ComputeShapeMass, b2ComputeShapeExtent, b2RayCastShape and b2MakeShapeDistanceProxy):
// shape.c turns an arb_shape_def into the kind's own answer, arb__<kind>_<question>
// (shape_kind.h; each kind's file shape_<kind>.c, which calls its functions of
// geometry.c, raycast.c, distance.c or manifold.c). Every such dispatch is a `switch` over
// arb_shape_type without a `default:` arm, made from the kinds list (ARB_SHAPE_KINDS,
// collision.h): a new row needs no case anywhere, and a kind missing an answer fails to
// link. A value outside the enum (a hostile save image, an unset def) falls out of the
// switch to the answer after it; arb__validate_shape refuses it wherever a shape enters
// the world.
//
// What is not here: which kinds collide with which, and which of the two a contact puts
// first (ARB_COLLIDE_PAIRS, collision.h, and the table contact.c makes from it); how a
// shape is saved and hashed (arb__shape_fields in world_codec.c, with each kind's
// arb__<kind>_fields); a chain's link-by-link work (chain.h).
//
// The second half works on all the shapes of a body together (compound bodies: mass by
// the parallel axis theorem, the union of boxes, the thinnest and farthest extents, the
// closest ray hit), in shape order.
#pragma once

#include "arbiter/collision.h"
#include "arbiter/world.h"

typedef struct arb__body arb__body;
struct arb_query_filter;

// ---- one shape ---------------------------------------------------------------------------

/// A valid def: finite non-negative material, and the geometry its kind requires. False
/// with a static reason in *why (may be NULL) for anything else, an unknown kind included.
bool arb__validate_shape(const arb_shape_def* s, const char** why);
/// Mass data of shape s at its own density (zero for kinds without area).
arb_mass_data arb__shape_mass(const arb_shape_def* s);
/// The tight AABB of shape s of a body at transform xf.
arb_aabb arb__shape_aabb(const arb_shape_def* s, arb_transform xf);
/// The distance proxy of shape s (a chain: its first link; callers that meet chains go
/// link by link, see ccd.c and sensor.c).
arb_shape_proxy arb__shape_proxy(const arb_shape_def* s);
/// The centre of a shape in its body frame (the centre of its own area; the origin for
/// kinds without area).
arb_vec2 arb__shape_center(const arb_shape_def* s);
/// Shortest distance from `center` (body frame) to the surface of s (0 without an inside).
float arb__shape_min_extent(const arb_shape_def* s, arb_vec2 center);
/// Distance from `center` (body frame) to the farthest point of s.
float arb__shape_max_extent(const arb_shape_def* s, arb_vec2 center);
/// A ray (in the shape's local frame) against the shape, whatever its kind.
arb_cast_output arb__shape_ray_cast(const arb_shape_def* s, const arb_ray_input* local);
/// Point (local frame) inside the shape; segments and chains have no inside.
bool arb__shape_contains_point(const arb_shape_def* s, arb_vec2 local);
/// Whether point p (world) lies farther than `reach` outside shape s of a body at xf (a
/// chain answers false: its links have their own test in the chain collide).
bool arb__shape_beyond(const arb_shape_def* s, arb_transform xf, arb_vec2 p, float reach);
/// Manifold of shape s (body at xf) against circle c at xc, normal from s to the circle
/// (particles).
arb_manifold arb__shape_collide_circle(const arb_shape_def* s, arb_transform xf,
                                       const arb_circle* c, arb_transform xc);
/// Category, mask and group of two shapes let them meet.
bool arb__shape_filters_match(const arb_shape_def* a, const arb_shape_def* b);
/// Whether shape sa of a and shape sb of b can get a contact (no sensor, filters, collider).
bool arb__shapes_should_collide(const arb_shape_def* sa, const arb_shape_def* sb);

// ---- the shapes of a body ----------------------------------------------------------------

/// Mass data of a body's shapes about its frame: the centre is the centre of mass, the
/// inertia about it. Sensors add no mass unless all shapes are sensors.
arb_mass_data arb__body_mass_data(const arb__body* b);
/// True when some shape of the body has area (its centre of mass comes from the shapes).
bool arb__body_has_area(const arb__body* b);
/// True when any shape of the body is a sensor.
bool arb__body_has_sensor(const arb__body* b);
/// The body's tight AABB at its transform: the union of its shapes' boxes.
arb_aabb arb__body_compute_aabb(const arb__body* b);
/// Shortest centre-to-surface distance (the thinnest solid shape of a compound body).
float arb__body_min_extent(const arb__body* b);
/// Farthest shape point from the body's centre of mass.
float arb__body_max_extent(const arb__body* b);
/// The closest hit of a ray (body frame) on the body's solid shapes that `filter` sees
/// (NULL: all); rays pass through sensors.
arb_cast_output arb__body_ray_cast(const arb__body* b, const arb_ray_input* local,
                                   const struct arb_query_filter* filter);
