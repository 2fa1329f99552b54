// arbiter-view — drawing primitives and the frame renderer (SDL2 renderer API only, so
// the same code draws in a window and in the software renderer used for screenshots).
//
// Fills are opaque, unblended triangles (SDL_RenderGeometry): a fill colour lands in the
// framebuffer exactly, which is what the gui test looks for.
#include <math.h>

#include "view.h"

#define MAX_POLY 64

void view_set_rgb(SDL_Renderer* r, uint32_t rgb, uint8_t alpha) {
  SDL_SetRenderDrawBlendMode(r, alpha == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
  SDL_SetRenderDrawColor(r, VIEW_R(rgb), VIEW_G(rgb), VIEW_B(rgb), alpha);
}

void view_fill_rect(SDL_Renderer* r, int x, int y, int w, int h, uint32_t rgb, uint8_t alpha) {
  view_set_rgb(r, rgb, alpha);
  SDL_Rect rect = {x, y, w, h};
  SDL_RenderFillRect(r, &rect);
}

// Triangle fan over screen points (convex outlines only).
static void fill_convex(SDL_Renderer* r, const SDL_FPoint* pts, int n, uint32_t rgb) {
  if (n < 3) return;
  SDL_Vertex v[MAX_POLY + 1];
  int idx[3 * MAX_POLY];
  if (n > MAX_POLY) n = MAX_POLY;
  SDL_Color col = {VIEW_R(rgb), VIEW_G(rgb), VIEW_B(rgb), 255};
  for (int i = 0; i < n; i++) {
    v[i].position = pts[i];
    v[i].color = col;
    v[i].tex_coord.x = v[i].tex_coord.y = 0.0f;
  }
  int k = 0;
  for (int i = 1; i + 1 < n; i++) {
    idx[k++] = 0;
    idx[k++] = i;
    idx[k++] = i + 1;
  }
  SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
  SDL_RenderGeometry(r, NULL, v, n, idx, k);
}

static void outline(SDL_Renderer* r, const SDL_FPoint* pts, int n, uint32_t rgb) {
  if (n < 2) return;
  SDL_FPoint loop[MAX_POLY + 1];
  if (n > MAX_POLY) n = MAX_POLY;
  for (int i = 0; i < n; i++) loop[i] = pts[i];
  loop[n] = pts[0];
  view_set_rgb(r, rgb, 255);
  SDL_RenderDrawLinesF(r, loop, n + 1);
}

void view_draw_circle(SDL_Renderer* r, const view_camera* c, arb_vec2 center, float radius,
                      uint32_t fill, uint32_t edge, bool filled) {
  float rpx = radius * c->zoom;
  int n = (int)(rpx * 0.6f);
  n = n < 12 ? 12 : (n > MAX_POLY ? MAX_POLY : n);
  SDL_FPoint pts[MAX_POLY];
  SDL_FPoint s = view_camera_to_screen(c, center);
  for (int i = 0; i < n; i++) {
    float a = 2.0f * ARB_PI * (float)i / (float)n;
    pts[i].x = s.x + rpx * cosf(a);
    pts[i].y = s.y - rpx * sinf(a);
  }
  if (filled) fill_convex(r, pts, n, fill);
  outline(r, pts, n, edge);
}

// A rounded outline: the points (counter-clockwise, world; 2 for a capsule) grown by
// radius. Each corner is an arc from the previous edge's outward normal round to the next
// one's; the straight edges join the arcs. One convex outline.
static void draw_rounded(SDL_Renderer* r, const view_camera* c, const arb_vec2* p, int n,
                         float radius, uint32_t fill, uint32_t edge, bool filled) {
  enum { ARC = 6 };  // 8 corners x 7 points stay within MAX_POLY
  SDL_FPoint pts[ARB_MAX_POLYGON_VERTICES * (ARC + 1)];
  if (n > ARB_MAX_POLYGON_VERTICES) n = ARB_MAX_POLYGON_VERTICES;
  int k = 0;
  for (int i = 0; i < n; i++) {
    arb_vec2 prev = p[(i + n - 1) % n], next = p[(i + 1) % n];
    float a0 = atan2f(-(p[i].x - prev.x), p[i].y - prev.y);  // right normal of prev -> p[i]
    float a1 = atan2f(-(next.x - p[i].x), next.y - p[i].y);
    if (a1 < a0) a1 += 2.0f * ARB_PI;
    for (int j = 0; j <= ARC; j++) {
      float a = a0 + (a1 - a0) * (float)j / (float)ARC;
      pts[k++] =
          view_camera_to_screen(c, arb_v2(p[i].x + radius * cosf(a), p[i].y + radius * sinf(a)));
    }
  }
  if (filled) fill_convex(r, pts, k, fill);
  outline(r, pts, k, edge);
}

void view_draw_polygon(SDL_Renderer* r, const view_camera* c, const arb_vec2* p, int n,
                       uint32_t fill, uint32_t edge, bool filled) {
  SDL_FPoint pts[MAX_POLY];
  if (n > MAX_POLY) n = MAX_POLY;
  for (int i = 0; i < n; i++) pts[i] = view_camera_to_screen(c, p[i]);
  if (filled) fill_convex(r, pts, n, fill);
  outline(r, pts, n, edge);
}

void view_draw_segment(SDL_Renderer* r, const view_camera* c, arb_vec2 a, arb_vec2 b,
                       uint32_t rgb) {
  SDL_FPoint sa = view_camera_to_screen(c, a), sb = view_camera_to_screen(c, b);
  view_set_rgb(r, rgb, 255);
  SDL_RenderDrawLineF(r, sa.x, sa.y, sb.x, sb.y);
}

// A segment with a visible thickness (static walls made of segments must show their fill).
static void draw_thick_segment(SDL_Renderer* r, const view_camera* c, arb_vec2 a, arb_vec2 b,
                               float px, uint32_t fill, uint32_t edge) {
  SDL_FPoint sa = view_camera_to_screen(c, a), sb = view_camera_to_screen(c, b);
  float dx = sb.x - sa.x, dy = sb.y - sa.y, len = sqrtf(dx * dx + dy * dy);
  if (len < 1e-3f) return;
  float nx = -dy / len * 0.5f * px, ny = dx / len * 0.5f * px;
  SDL_FPoint q[4] = {{sa.x + nx, sa.y + ny},
                     {sb.x + nx, sb.y + ny},
                     {sb.x - nx, sb.y - ny},
                     {sa.x - nx, sa.y - ny}};
  fill_convex(r, q, 4, fill);
  outline(r, q, 4, edge);
}

void view_draw_arrow(SDL_Renderer* r, const view_camera* c, arb_vec2 from, arb_vec2 to,
                     uint32_t rgb) {
  SDL_FPoint a = view_camera_to_screen(c, from), b = view_camera_to_screen(c, to);
  view_set_rgb(r, rgb, 255);
  SDL_RenderDrawLineF(r, a.x, a.y, b.x, b.y);
  float dx = b.x - a.x, dy = b.y - a.y, len = sqrtf(dx * dx + dy * dy);
  if (len < 4.0f) return;
  dx /= len;
  dy /= len;
  float h = len < 24.0f ? len * 0.3f : 7.0f;
  SDL_RenderDrawLineF(r, b.x, b.y, b.x - h * (dx - 0.5f * dy), b.y - h * (dy + 0.5f * dx));
  SDL_RenderDrawLineF(r, b.x, b.y, b.x - h * (dx + 0.5f * dy), b.y - h * (dy - 0.5f * dx));
}

static void role_colours(view_role role, uint32_t* fill, uint32_t* edge) {
  switch (role) {
    case VIEW_ROLE_STATIC:
      *fill = VIEW_RGB_STATIC;
      *edge = VIEW_RGB_STATIC_EDGE;
      break;
    case VIEW_ROLE_OWN:
      *fill = VIEW_RGB_OWN;
      *edge = VIEW_RGB_OWN_EDGE;
      break;
    case VIEW_ROLE_OTHER:
      *fill = VIEW_RGB_OTHER;
      *edge = VIEW_RGB_OTHER_EDGE;
      break;
    default:
      *fill = VIEW_RGB_WORLD;
      *edge = VIEW_RGB_WORLD_EDGE;
      break;
  }
}

// The links of a line (a segment, a chain): thick when filled (static walls must show
// their fill), grown by the radius if it has one, and for a one-sided line a short tick
// from the middle of each link towards its front (the side bodies collide with).
static void draw_line(SDL_Renderer* r, const view_camera* c, const arb_shape_outline* o,
                      const arb_vec2* p, uint32_t fill, uint32_t edge, bool filled) {
  int links = o->closed ? o->count : o->count - 1;
  for (int i = 0; i < links; i++) {
    arb_vec2 a = p[i], b = p[(i + 1) % o->count];
    if (o->radius > 0.0f) {
      arb_vec2 ends[2] = {a, b};
      draw_rounded(r, c, ends, 2, o->radius, fill, edge, filled);
    } else if (filled) {
      draw_thick_segment(r, c, a, b, arb_maxf(3.0f, 0.08f * c->zoom), fill, edge);
    } else {
      view_draw_segment(r, c, a, b, edge);
    }
    if (!o->one_sided) continue;
    arb_vec2 mid = arb_lerp(a, b, 0.5f);
    arb_vec2 front = arb_normalize(arb_left_perp(arb_sub(b, a)));
    view_draw_segment(r, c, mid, arb_mul_add(mid, 8.0f / arb_maxf(c->zoom, 1e-3f), front), edge);
  }
}

// A shape of any kind from its outline (arb_compute_shape_outline): one point is a circle
// with a line showing the rotation; a closed outline with area a (rounded) polygon; an
// open one with area each link grown by the radius, and the core line; else a line.
static void draw_shape(SDL_Renderer* r, const view_camera* c, const view_shape* s, arb_transform xf,
                       uint32_t fill, uint32_t edge, bool filled) {
  arb_vec2 p[ARB_MAX_OUTLINE_POINTS];
  arb_shape_outline o;
  int n = arb_compute_shape_outline(s, &o, p, ARB_MAX_OUTLINE_POINTS);
  for (int i = 0; i < n; i++) p[i] = arb_transform_point(xf, p[i]);
  if (n == 0) {  // a shape without an outline: a small marker
    arb_vec2 d = arb_v2(0.1f, 0.1f);
    arb_vec2 box[4] = {arb_sub(xf.p, d), arb_add(xf.p, arb_v2(d.x, -d.y)), arb_add(xf.p, d),
                       arb_add(xf.p, arb_v2(-d.x, d.y))};
    view_draw_polygon(r, c, box, 4, fill, edge, filled);
  } else if (n == 1) {
    view_draw_circle(r, c, p[0], o.radius, fill, edge, filled);
    view_draw_segment(r, c, p[0], arb_add(p[0], arb_rotate(xf.q, arb_v2(o.radius, 0.0f))), edge);
  } else if (o.has_area && o.closed) {
    if (n < 3) return;
    if (o.radius > 0.0f) {
      draw_rounded(r, c, p, n, o.radius, fill, edge, filled);
    } else {
      view_draw_polygon(r, c, p, n, fill, edge, filled);
    }
  } else if (o.has_area) {
    for (int i = 0; i + 1 < n; i++) draw_rounded(r, c, &p[i], 2, o.radius, fill, edge, filled);
    for (int i = 0; i + 1 < n; i++) view_draw_segment(r, c, p[i], p[i + 1], edge);  // the core
  } else {
    draw_line(r, c, &o, p, fill, edge, filled);
  }
}

static void draw_grid(SDL_Renderer* r, const view_camera* c) {
  // Spacing: the smallest power of ten metres that is at least 24 pixels apart.
  float step = 1.0f;
  while (step * c->zoom < 24.0f) step *= 10.0f;
  while (step * c->zoom > 240.0f) step *= 0.1f;
  arb_vec2 lo = view_camera_to_world(c, 0.0f, (float)c->height);
  arb_vec2 hi = view_camera_to_world(c, (float)c->width, 0.0f);
  view_set_rgb(r, VIEW_RGB_GRID, 255);
  for (float x = floorf(lo.x / step) * step; x <= hi.x; x += step) {
    SDL_FPoint s = view_camera_to_screen(c, arb_v2(x, 0.0f));
    SDL_RenderDrawLineF(r, s.x, 0.0f, s.x, (float)c->height);
  }
  for (float y = floorf(lo.y / step) * step; y <= hi.y; y += step) {
    SDL_FPoint s = view_camera_to_screen(c, arb_v2(0.0f, y));
    SDL_RenderDrawLineF(r, 0.0f, s.y, (float)c->width, s.y);
  }
}

static void draw_spring(SDL_Renderer* r, const view_camera* c, arb_vec2 a, arb_vec2 b) {
  arb_vec2 d = arb_sub(b, a);
  float len = arb_length(d);
  if (len < 1e-4f) return;
  arb_vec2 n = arb_scale(0.12f, arb_left_perp(arb_scale(1.0f / len, d)));
  const int zig = 10;
  arb_vec2 prev = a;
  for (int i = 1; i <= zig; i++) {
    arb_vec2 p = arb_lerp(a, b, (float)i / (float)(zig + 1));
    p = arb_add(p, arb_scale((i & 1) ? 1.0f : -1.0f, n));
    view_draw_segment(r, c, prev, p, VIEW_RGB_JOINT);
    prev = p;
  }
  view_draw_segment(r, c, prev, b, VIEW_RGB_JOINT);
}

// The joint kinds added with limits and motors: a slider's axis (1 m each way) and the
// rod to its moving anchor, a weld's square, a motor or mouse joint's line to its target.
static void draw_joint_link(SDL_Renderer* r, const view_camera* c, const view_link* l) {
  float px = 4.0f / c->zoom;
  switch (l->kind) {
    case VIEW_LINK_SLIDER:
      view_draw_segment(r, c, arb_mul_sub(l->a, 1.0f, l->axis), arb_mul_add(l->a, 1.0f, l->axis),
                        VIEW_RGB_JOINT);
      view_draw_segment(r, c, l->a, l->b, VIEW_RGB_JOINT);
      view_draw_circle(r, c, l->b, px, VIEW_RGB_JOINT, VIEW_RGB_JOINT, false);
      break;
    case VIEW_LINK_WELD: {
      arb_vec2 sq[4] = {{l->a.x - px, l->a.y - px},
                        {l->a.x + px, l->a.y - px},
                        {l->a.x + px, l->a.y + px},
                        {l->a.x - px, l->a.y + px}};
      view_draw_polygon(r, c, sq, 4, VIEW_RGB_JOINT, VIEW_RGB_JOINT, false);
      break;
    }
    default:  // VIEW_LINK_TARGET
      view_draw_segment(r, c, l->a, l->b, VIEW_RGB_JOINT);
      view_draw_segment(r, c, arb_v2(l->b.x - px, l->b.y - px), arb_v2(l->b.x + px, l->b.y + px),
                        VIEW_RGB_JOINT);
      view_draw_segment(r, c, arb_v2(l->b.x - px, l->b.y + px), arb_v2(l->b.x + px, l->b.y - px),
                        VIEW_RGB_JOINT);
      break;
  }
}

void view_render_frame(SDL_Renderer* r, const view_camera* c, const view_frame* f,
                       const view_debug* d) {
  view_set_rgb(r, VIEW_RGB_BACKGROUND, 255);
  SDL_RenderClear(r);
  if (d->grid) draw_grid(r, c);
  arb_vec2 wlo = view_camera_to_world(c, 0.0f, (float)c->height);
  arb_vec2 whi = view_camera_to_world(c, (float)c->width, 0.0f);
  arb_aabb screen = {wlo, whi};

  // Static geometry first, then world bodies, then avatars on top.
  static const view_role order[4] = {VIEW_ROLE_STATIC, VIEW_ROLE_WORLD, VIEW_ROLE_OTHER,
                                     VIEW_ROLE_OWN};
  for (int pass = 0; pass < 4; pass++) {
    for (int i = 0; i < f->body_count; i++) {
      const view_body* b = &f->bodies[i];
      if (b->role != order[pass]) continue;
      if (!arb_aabb_overlaps(screen, view_shape_aabb(&b->shape, b->xf))) continue;
      uint32_t fill, edge;
      role_colours(b->role, &fill, &edge);
      if (b->sensor) fill = edge = VIEW_RGB_SENSOR;  // a zone, not a solid: outline only
      draw_shape(r, c, &b->shape, b->xf, fill, edge, !b->sensor);
    }
  }
  for (int i = 0; i < f->wheel_count; i++) {
    const view_wheel* w = &f->wheels[i];
    arb_vec2 corners[4] = {{w->half_length, w->half_width},
                           {-w->half_length, w->half_width},
                           {-w->half_length, -w->half_width},
                           {w->half_length, -w->half_width}};
    arb_transform xf = {w->center, w->rot};
    for (int k = 0; k < 4; k++) corners[k] = arb_transform_point(xf, corners[k]);
    view_draw_polygon(r, c, corners, 4, VIEW_RGB_WHEEL, VIEW_RGB_STATIC_EDGE, true);
  }
  for (int i = 0; i < f->link_count; i++) {
    const view_link* l = &f->links[i];
    switch (l->kind) {
      case VIEW_LINK_SPRING:
        draw_spring(r, c, l->a, l->b);
        break;
      case VIEW_LINK_PIN:
        view_draw_circle(r, c, l->a, 4.0f / c->zoom, VIEW_RGB_JOINT, VIEW_RGB_JOINT, false);
        break;
      case VIEW_LINK_CONSTRAINT:
        view_draw_segment(r, c, l->a, l->b, VIEW_RGB_PARTICLE);
        break;
      case VIEW_LINK_SLIDER:
      case VIEW_LINK_WELD:
      case VIEW_LINK_TARGET:
        draw_joint_link(r, c, l);
        break;
      default:  // distance joint: the rod and a dot at each anchor
        view_draw_segment(r, c, l->a, l->b, VIEW_RGB_JOINT);
        view_draw_circle(r, c, l->a, 3.0f / c->zoom, VIEW_RGB_JOINT, VIEW_RGB_JOINT, true);
        view_draw_circle(r, c, l->b, 3.0f / c->zoom, VIEW_RGB_JOINT, VIEW_RGB_JOINT, true);
        break;
    }
  }
  for (int i = 0; i < f->particle_count; i++) {
    const view_particle* p = &f->particles[i];
    float rad = p->radius > 0.0f ? p->radius : 2.0f / c->zoom;
    view_draw_circle(r, c, p->p, rad, VIEW_RGB_PARTICLE,
                     p->pinned ? VIEW_RGB_TEXT : VIEW_RGB_PARTICLE, true);
  }

  // Debug layers on top of everything.
  for (int i = 0; i < f->body_count; i++) {
    const view_body* b = &f->bodies[i];
    if (d->ghosts && b->has_ghost) {
      // Outline at the newest snapshot's pose, tied to the drawn (interpolated) body: the
      // tie's length is how far behind the authoritative state the picture is.
      draw_shape(r, c, &b->shape, b->ghost, 0, VIEW_RGB_GHOST, false);
      view_draw_segment(r, c, b->xf.p, b->ghost.p, VIEW_RGB_GHOST);
    }
    if (d->corrections && b->has_correction) {
      // Where the prediction has the avatar now, and the correction still being faded out
      // of the drawing (an arrow from there to the drawn avatar; none once it has faded).
      arb_transform sim = {arb_sub(b->xf.p, b->correction), b->xf.q};
      draw_shape(r, c, &b->shape, sim, 0, VIEW_RGB_CORRECTION, false);
      if (arb_length(b->correction) > 1e-3f)
        view_draw_arrow(r, c, sim.p, b->xf.p, VIEW_RGB_CORRECTION);
    }
    if (d->aabbs && b->role != VIEW_ROLE_STATIC) {
      arb_aabb box = view_shape_aabb(&b->shape, b->xf);
      arb_vec2 q[4] = {
          box.lower, {box.upper.x, box.lower.y}, box.upper, {box.lower.x, box.upper.y}};
      view_draw_polygon(r, c, q, 4, 0, VIEW_RGB_AABB, false);
    }
    if (d->velocities && b->has_velocity && b->role != VIEW_ROLE_STATIC) {
      // 0.25 s of travel: long enough to see, short enough to stay near the body.
      view_draw_arrow(r, c, b->xf.p, arb_mul_add(b->xf.p, 0.25f, b->velocity), VIEW_RGB_VELOCITY);
    }
  }
  if (d->contacts) {
    for (int i = 0; i < f->contact_count; i++) {
      const view_contact* k = &f->contacts[i];
      SDL_FPoint s = view_camera_to_screen(c, k->point);
      view_fill_rect(r, (int)s.x - 2, (int)s.y - 2, 5, 5, VIEW_RGB_CONTACT, 255);
      view_draw_arrow(r, c, k->point, arb_mul_add(k->point, 0.4f, k->normal), VIEW_RGB_CONTACT);
    }
  }
}
