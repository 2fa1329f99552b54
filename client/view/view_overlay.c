// arbiter-view — text overlays: status box, stats panel with a rolling graph, the F1
// help and the centred message box used for connection problems.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

#define PAD 8
#define PANEL_ALPHA 200

void view_lines_add(view_text_lines* t, uint32_t rgb, const char* fmt, ...) {
  if (t->count >= (int)(sizeof t->line / sizeof t->line[0])) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->line[t->count], sizeof t->line[0], fmt, ap);
  va_end(ap);
  t->rgb[t->count++] = rgb;
}

void view_graph_push(view_graph* g, float jitter_ms, float delay_ms) {
  g->jitter_ms[g->head] = jitter_ms;
  g->delay_ms[g->head] = delay_ms;
  g->head = (g->head + 1) % VIEW_GRAPH_LEN;
  if (g->count < VIEW_GRAPH_LEN) g->count++;
}

static void panel_alpha(SDL_Renderer* r, int x, int y, int w, int h, uint8_t alpha) {
  view_fill_rect(r, x, y, w, h, 0x000000u, alpha);
  view_set_rgb(r, VIEW_RGB_TEXT_DIM, 255);
  SDL_Rect box = {x, y, w, h};
  SDL_RenderDrawRect(r, &box);
}

static void panel(SDL_Renderer* r, int x, int y, int w, int h) {
  panel_alpha(r, x, y, w, h, PANEL_ALPHA);
}

SDL_Rect view_overlay_status(SDL_Renderer* r, const view_font* font, int x, int y,
                             const view_text_lines* t) {
  SDL_Rect box = {x, y, 0, 0};
  if (t->count == 0) return box;
  int w = 0;
  for (int i = 0; i < t->count; i++) {
    int lw = view_text_width(t->line[i]);
    if (lw > w) w = lw;
  }
  box.w = w + 2 * PAD;
  box.h = t->count * VIEW_LINE_H + 2 * PAD - 4;
  panel(r, x, y, box.w, box.h);
  for (int i = 0; i < t->count; i++)
    view_text(font, r, x + PAD, y + PAD + i * VIEW_LINE_H, t->rgb[i], t->line[i]);
  return box;
}

int view_overlay_stats_width(void) {
  int w = 24 * VIEW_CHAR_W;
  return (w < VIEW_GRAPH_LEN ? VIEW_GRAPH_LEN : w) + 2 * PAD;
}

void view_overlay_message(SDL_Renderer* r, const view_font* font, int width, int height,
                          const view_text_lines* t) {
  if (t->count == 0) return;
  int w = 0;
  for (int i = 0; i < t->count; i++) {
    int lw = view_text_width(t->line[i]);
    if (lw > w) w = lw;
  }
  int bw = w + 4 * PAD, bh = t->count * VIEW_LINE_H + 3 * PAD;
  int x = (width - bw) / 2, y = (height - bh) / 2;
  panel(r, x, y, bw, bh);
  for (int i = 0; i < t->count; i++) {
    int lw = view_text_width(t->line[i]);
    view_text(font, r, x + (bw - lw) / 2, y + 2 * PAD + i * VIEW_LINE_H, t->rgb[i], t->line[i]);
  }
}

void view_overlay_help(SDL_Renderer* r, const view_font* font, int width, int height,
                       const char* const* lines) {
  int n = 0, w = 0;
  for (; lines[n]; n++) {
    int lw = view_text_width(lines[n]);
    if (lw > w) w = lw;
  }
  int bw = w + 4 * PAD, bh = n * VIEW_LINE_H + 3 * PAD;
  int x = (width - bw) / 2, y = (height - bh) / 2;
  if (x < 0) x = 0;
  if (y < 0) y = 0;
  panel_alpha(r, x, y, bw, bh, 255);  // opaque: nothing behind may show through the help
  for (int i = 0; i < n; i++) {
    // A line starting with '#' is a heading.
    bool head = lines[i][0] == '#';
    view_text(font, r, x + 2 * PAD, y + 2 * PAD + i * VIEW_LINE_H,
              head ? VIEW_RGB_WARN : VIEW_RGB_TEXT, head ? lines[i] + 1 : lines[i]);
  }
}

// Polyline of one history series, scaled so `full` ms is the graph height.
static void plot(SDL_Renderer* r, const float* series, const view_graph* g, int x, int y, int w,
                 int h, float full, uint32_t rgb) {
  SDL_FPoint pts[VIEW_GRAPH_LEN];
  int n = g->count;
  for (int i = 0; i < n; i++) {
    int k = (g->head - n + i + VIEW_GRAPH_LEN) % VIEW_GRAPH_LEN;
    float v = series[k] / full;
    v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    pts[i].x = (float)x + (float)w * (float)(VIEW_GRAPH_LEN - n + i) / (float)(VIEW_GRAPH_LEN - 1);
    pts[i].y = (float)(y + h - 1) - v * (float)(h - 2);
  }
  view_set_rgb(r, rgb, 255);
  if (n >= 2) SDL_RenderDrawLinesF(r, pts, n);
}

void view_overlay_stats(SDL_Renderer* r, const view_font* font, const view_stats* s,
                        const view_graph* g, int x, int y) {
  char lines[12][64];
  int n = 0;
  if (!s->valid) {
    snprintf(lines[n++], 64, "no network statistics");
    snprintf(lines[n++], 64, "(local simulation)");
  } else {
    snprintf(lines[n++], 64, "rtt        %7.1f ms", (double)s->rtt_ms);
    snprintf(lines[n++], 64, "loss       %7.1f %%", (double)s->loss_pct);
    snprintf(lines[n++], 64, "snapshots  %7.1f /s", (double)s->snapshots_per_s);
    snprintf(lines[n++], 64, "in         %7.1f kbps", (double)s->kbps_in);
    snprintf(lines[n++], 64, "out        %7.1f kbps", (double)s->kbps_out);
    snprintf(lines[n++], 64, "interp     %7.1f ms", (double)s->interp_delay_ms);
    snprintf(lines[n++], 64, "extrap     %7.1f ms", (double)s->extrapolation_ms);
    snprintf(lines[n++], 64, "buffer     %7d", s->buffer_depth);
    snprintf(lines[n++], 64, "entities   %7d", s->entity_count);
    snprintf(lines[n++], 64, "tick       %7llu", (unsigned long long)s->server_tick);
  }
  int gw = VIEW_GRAPH_LEN, gh = 80;
  int w = 24 * VIEW_CHAR_W;
  if (w < gw) w = gw;
  int h = n * VIEW_LINE_H + (s->valid ? gh + 2 * VIEW_LINE_H + PAD : 0) + 2 * PAD;
  panel(r, x, y, w + 2 * PAD, h);
  for (int i = 0; i < n; i++)
    view_text(font, r, x + PAD, y + PAD + i * VIEW_LINE_H, VIEW_RGB_TEXT, lines[i]);
  if (!s->valid) return;
  int gy = y + PAD + n * VIEW_LINE_H + 4;
  // Scale: the larger of 100 ms and the biggest sample, rounded up to 50 ms.
  float full = 100.0f;
  for (int i = 0; i < g->count; i++) {
    if (g->delay_ms[i] > full) full = g->delay_ms[i];
    if (g->jitter_ms[i] > full) full = g->jitter_ms[i];
  }
  full = 50.0f * (float)(int)((full + 49.9f) / 50.0f);
  view_fill_rect(r, x + PAD, gy, gw, gh, 0x101010u, 255);
  view_set_rgb(r, VIEW_RGB_GRID, 255);
  for (int k = 1; k < 4; k++)
    SDL_RenderDrawLine(r, x + PAD, gy + gh * k / 4, x + PAD + gw - 1, gy + gh * k / 4);
  plot(r, g->delay_ms, g, x + PAD, gy, gw - 1, gh, full, VIEW_RGB_OK);
  plot(r, g->jitter_ms, g, x + PAD, gy, gw - 1, gh, full, VIEW_RGB_WARN);
  int ly = gy + gh + 4;
  view_textf(font, r, x + PAD, ly, VIEW_RGB_OK, "interp delay");
  view_textf(font, r, x + PAD + 14 * VIEW_CHAR_W, ly, VIEW_RGB_TEXT_DIM, "0-%.0f ms", (double)full);
  view_text(font, r, x + PAD, ly + VIEW_LINE_H, VIEW_RGB_WARN, "arrival jitter");
}
