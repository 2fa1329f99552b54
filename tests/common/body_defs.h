// tests, bench — body definitions the unit tests and the physics benchmark build their
// worlds from, for callers that set more (velocities, damping...) before creating them.
#pragma once

#include <arbiter/world.h>

/// A body of `type` at (x, y): a box of half extents hw x hh.
static inline arb_body_def box_body_def(arb_body_type type, float x, float y, float hw, float hh) {
  arb_body_def bd = arb_default_body_def();
  bd.type = type;
  bd.position = arb_v2(x, y);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(hw, hh);
  return bd;
}
