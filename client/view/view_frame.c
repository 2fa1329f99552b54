// arbiter-view — the drawable frame: growable arrays reused from frame to frame.
#include <stdlib.h>
#include <string.h>

#include "view.h"

// Grow-only: after the first few frames no allocation happens while drawing.
static void* grow(void* ptr, int* cap, int need, size_t elem) {
  if (need <= *cap) return ptr;
  int ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  void* p = realloc(ptr, (size_t)ncap * elem);
  if (!p) return NULL;
  *cap = ncap;
  return p;
}

#define ADD_ITEM(f, arr, count, cap, type)                              \
  do {                                                                  \
    type* p_ = grow((f)->arr, &(f)->cap, (f)->count + 1, sizeof(type)); \
    if (!p_) return NULL;                                               \
    (f)->arr = p_;                                                      \
    type* item_ = &(f)->arr[(f)->count++];                              \
    memset(item_, 0, sizeof(*item_));                                   \
    return item_;                                                       \
  } while (0)

view_body* view_frame_add_body(view_frame* f) {
  ADD_ITEM(f, bodies, body_count, body_cap, view_body);
}
bool view_frame_add_part(view_frame* f, const view_body* whole, view_shape shape, bool sensor) {
  view_body copy = *whole;  // `whole` may be in the array that grows
  view_body* b = view_frame_add_body(f);
  if (!b) return false;
  *b = copy;
  b->shape = shape;
  b->sensor = sensor;
  return true;
}
view_link* view_frame_add_link(view_frame* f) {
  ADD_ITEM(f, links, link_count, link_cap, view_link);
}
view_particle* view_frame_add_particle(view_frame* f) {
  ADD_ITEM(f, particles, particle_count, particle_cap, view_particle);
}
view_wheel* view_frame_add_wheel(view_frame* f) {
  ADD_ITEM(f, wheels, wheel_count, wheel_cap, view_wheel);
}
view_contact* view_frame_add_contact(view_frame* f) {
  ADD_ITEM(f, contacts, contact_count, contact_cap, view_contact);
}

void view_frame_clear(view_frame* f) {
  f->body_count = f->link_count = f->particle_count = f->wheel_count = f->contact_count = 0;
  f->has_focus = false;
}

void view_frame_free(view_frame* f) {
  free(f->bodies);
  free(f->links);
  free(f->particles);
  free(f->wheels);
  free(f->contacts);
  free(f->scratch);
  memset(f, 0, sizeof(*f));
}

arb_aabb view_shape_aabb(const view_shape* s, arb_transform xf) {
  arb_shape_outline o;
  if (arb_compute_shape_outline(s, &o, NULL, 0) > 0) return arb_compute_shape_aabb(s, xf);
  // No outline (no kind, a chain without its points): the marker draw_shape shows instead.
  arb_aabb b = {arb_sub(xf.p, arb_v2(0.1f, 0.1f)), arb_add(xf.p, arb_v2(0.1f, 0.1f))};
  return b;
}

void view_frame_compute_bounds(view_frame* f) {
  bool any = false;
  for (int pass = 0; pass < 2 && !any; pass++) {
    for (int i = 0; i < f->body_count; i++) {
      const view_body* b = &f->bodies[i];
      if (pass == 0 && b->role != VIEW_ROLE_STATIC) continue;
      arb_aabb box = view_shape_aabb(&b->shape, b->xf);
      f->bounds = any ? arb_aabb_union(f->bounds, box) : box;
      any = true;
    }
  }
  f->has_bounds = any;
}
