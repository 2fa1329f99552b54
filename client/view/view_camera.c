// arbiter-view — the camera: world metres (y up) to window pixels (y down).
//
// By default it follows the focus (the own avatar) but never shows more empty space than
// it must: along an axis where the level is smaller than the window it centres on the
// level; otherwise it keeps the view inside the level's bounds. The first time real
// bounds are known it picks the zoom that shows the whole level.
#include "view.h"

#define VIEW_MIN_ZOOM 0.5f  // pixels per metre
#define VIEW_MAX_ZOOM 400.0f

void view_camera_init(view_camera* c, int width, int height) {
  c->center = arb_vec2_zero;
  c->zoom = c->fit_zoom = 20.0f;
  c->free = false;
  c->fitted = false;
  c->width = width;
  c->height = height;
}

void view_camera_reset(view_camera* c) {
  c->free = false;
  c->fitted = false;
}

static float clamp_axis(float target, float lo, float hi, float half_view) {
  if (hi - lo <= 2.0f * half_view) return 0.5f * (lo + hi);
  return arb_clampf(target, lo + half_view, hi - half_view);
}

void view_camera_update(view_camera* c, const view_frame* f, float dt) {
  if (!f->has_bounds) return;
  arb_aabb b = f->bounds;
  float bw = arb_maxf(b.upper.x - b.lower.x, 1.0f), bh = arb_maxf(b.upper.y - b.lower.y, 1.0f);
  c->fit_zoom = arb_minf((float)c->width / (bw * 1.04f), (float)c->height / (bh * 1.04f));
  c->fit_zoom = arb_clampf(c->fit_zoom, VIEW_MIN_ZOOM, VIEW_MAX_ZOOM);
  bool snap = false;
  if (!c->fitted) {
    c->zoom = c->fit_zoom;
    c->center = arb_v2(0.5f * (b.lower.x + b.upper.x), 0.5f * (b.lower.y + b.upper.y));
    c->fitted = true;
    snap = true;
  }
  if (c->free) return;
  arb_vec2 target = f->has_focus ? f->focus : c->center;
  float hw = 0.5f * (float)c->width / c->zoom, hh = 0.5f * (float)c->height / c->zoom;
  float pad = 1.0f;  // metres of margin around the level
  target.x = clamp_axis(target.x, b.lower.x - pad, b.upper.x + pad, hw);
  target.y = clamp_axis(target.y, b.lower.y - pad, b.upper.y + pad, hh);
  // Critically damped-ish follow: smooth at any frame rate, no overshoot.
  float k = snap ? 1.0f : arb_minf(1.0f, dt * 8.0f);
  c->center = arb_add(c->center, arb_scale(k, arb_sub(target, c->center)));
}

void view_camera_zoom_at(view_camera* c, float factor, float sx, float sy) {
  arb_vec2 before = view_camera_to_world(c, sx, sy);
  c->zoom = arb_clampf(c->zoom * factor, VIEW_MIN_ZOOM, VIEW_MAX_ZOOM);
  arb_vec2 after = view_camera_to_world(c, sx, sy);
  // Only a free camera keeps the point under the cursor; a following one re-centres.
  if (c->free) c->center = arb_add(c->center, arb_sub(before, after));
}

void view_camera_pan_pixels(view_camera* c, float dx, float dy) {
  c->center.x -= dx / c->zoom;
  c->center.y += dy / c->zoom;
}

SDL_FPoint view_camera_to_screen(const view_camera* c, arb_vec2 p) {
  SDL_FPoint s = {0.5f * (float)c->width + (p.x - c->center.x) * c->zoom,
                  0.5f * (float)c->height - (p.y - c->center.y) * c->zoom};
  return s;
}

arb_vec2 view_camera_to_world(const view_camera* c, float sx, float sy) {
  return arb_v2(c->center.x + (sx - 0.5f * (float)c->width) / c->zoom,
                c->center.y - (sy - 0.5f * (float)c->height) / c->zoom);
}
