// arbiter-view — the physics extras of a local world as drawables: Verlet particles and
// their distance constraints, springs, joints, vehicle wheels. Read-only, public API only.
#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/vehicle.h>

#include "view.h"

#define VIEW_MAX_VEHICLES 256
#define VIEW_MAX_LINKS 4096  // springs and joints drawn per frame (each list separately)

view_link_kind view_joint_link_kind(int joint_type) {
  switch ((arb_joint_type)joint_type) {
    case ARB_JOINT_REVOLUTE:
      return VIEW_LINK_PIN;
    case ARB_JOINT_PRISMATIC:
    case ARB_JOINT_WHEEL:
      return VIEW_LINK_SLIDER;
    case ARB_JOINT_WELD:
      return VIEW_LINK_WELD;
    case ARB_JOINT_MOTOR:
    case ARB_JOINT_MOUSE:
      return VIEW_LINK_TARGET;
    default:
      return VIEW_LINK_ROD;
  }
}

// Springs as zig-zags; distance joints as a line with anchor dots; revolute joints as a ring
// at the pin; sliders (prismatic, wheel) as their axis; welds as a square; motor and mouse
// joints as a line to their target. Ids come in slot order, so the drawing order is the
// same every frame.
static void add_springs_and_joints(view_frame* f, const arb_world* w) {
  arb_extra_id ids[VIEW_MAX_LINKS];
  int ns = arb_world_get_springs(w, ids, VIEW_MAX_LINKS);
  if (ns > VIEW_MAX_LINKS) ns = VIEW_MAX_LINKS;
  for (int i = 0; i < ns; i++) {
    arb_vec2 a, b;
    if (arb_spring_get_anchors(w, ids[i], &a, &b) != 0) continue;
    view_link* l = view_frame_add_link(f);
    if (!l) return;
    l->a = a;
    l->b = b;
    l->kind = VIEW_LINK_SPRING;
  }
  int nj = arb_world_get_joints(w, ids, VIEW_MAX_LINKS);
  if (nj > VIEW_MAX_LINKS) nj = VIEW_MAX_LINKS;
  for (int i = 0; i < nj; i++) {
    arb_vec2 a, b;
    arb_joint_get_anchors(w, ids[i], &a, &b);
    view_link* l = view_frame_add_link(f);
    if (!l) return;
    l->a = a;
    l->b = b;
    l->kind = view_joint_link_kind(arb_joint_get_type(w, ids[i]));
    l->axis = arb_joint_get_axis(w, ids[i]);
  }
}

void view_frame_put_wheel(view_frame* f, arb_transform xf, float radius) {
  view_wheel* wh = view_frame_add_wheel(f);
  if (!wh) return;
  wh->center = xf.p;
  wh->rot = xf.q;
  wh->half_length = radius;
  wh->half_width = 0.4f * radius;
}

void view_frame_add_extras(view_frame* f, const arb_world* w) {
  int np = arb_world_get_particle_count(w);
  for (int i = 0; i < np; i++) {
    view_particle* p = view_frame_add_particle(f);
    if (!p) break;
    p->p = arb_particle_get_position(w, i);
    p->pinned = arb_particle_is_pinned(w, i);
  }
  int nc = arb_world_get_constraint_count(w);
  for (int i = 0; i < nc; i++) {
    int a = 0, b = 0;
    float rest = 0.0f;
    if (arb_constraint_get(w, i, &a, &b, &rest) != 0) continue;
    view_link* l = view_frame_add_link(f);
    if (!l) break;
    l->a = arb_particle_get_position(w, a);
    l->b = arb_particle_get_position(w, b);
    l->kind = VIEW_LINK_CONSTRAINT;
  }
  add_springs_and_joints(f, w);
  arb_extra_id ids[VIEW_MAX_VEHICLES];
  int nv = arb_world_get_vehicles(w, ids, VIEW_MAX_VEHICLES);
  if (nv > VIEW_MAX_VEHICLES) nv = VIEW_MAX_VEHICLES;
  for (int v = 0; v < nv; v++) {
    int nw = arb_vehicle_get_wheel_count(w, ids[v]);
    for (int k = 0; k < nw; k++) {
      view_frame_put_wheel(f, arb_vehicle_get_wheel_transform(w, ids[v], k),
                           arb_vehicle_get_wheel_radius(w, ids[v], k));
    }
  }
}
