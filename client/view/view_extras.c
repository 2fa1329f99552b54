// arbiter-view — the physics extras of a local world as drawables: Verlet particles and
// their distance constraints, vehicle wheels, joints. Read-only, public API only.
#include <arbiter/joint.h>
#include <arbiter/particles.h>
#include <arbiter/vehicle.h>

#include "view.h"

#define VIEW_MAX_VEHICLES 256

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
  // Wheels: the API gives their transforms; their size is drawn from the default car's
  // wheel radius (there is no per-wheel radius getter).
  arb_vehicle_def car = arb_default_vehicle_def();
  float half_len = car.wheels[0].radius > 0.0f ? car.wheels[0].radius : 0.35f;
  arb_extra_id ids[VIEW_MAX_VEHICLES];
  int nv = arb_world_get_vehicles(w, ids, VIEW_MAX_VEHICLES);
  if (nv > VIEW_MAX_VEHICLES) nv = VIEW_MAX_VEHICLES;
  for (int v = 0; v < nv; v++) {
    int nw = arb_vehicle_get_wheel_count(w, ids[v]);
    for (int k = 0; k < nw; k++) {
      view_wheel* wh = view_frame_add_wheel(f);
      if (!wh) break;
      arb_transform xf = arb_vehicle_get_wheel_transform(w, ids[v], k);
      wh->center = xf.p;
      wh->rot = xf.q;
      wh->half_length = half_len;
      wh->half_width = 0.4f * half_len;
    }
  }
}
