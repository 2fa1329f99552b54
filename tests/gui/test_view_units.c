// Viewer pieces that need no window: camera, bitmap font table, keyboard mapping, PNG
// writer (checked with the independent reader in png_read.c), frame bounds.
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include "png_read.h"
#include "view.h"

static const char* g_dir = ".";

static void test_view_camera_round_trip_and_zoom(void** state) {
  (void)state;
  view_camera c;
  view_camera_init(&c, 800, 600);
  c.center = arb_v2(3.0f, -2.0f);
  c.zoom = 25.0f;
  SDL_FPoint s = view_camera_to_screen(&c, c.center);
  assert_true(fabsf(s.x - 400.0f) < 1e-4f && fabsf(s.y - 300.0f) < 1e-4f);
  // y is up in the world and down on screen.
  SDL_FPoint up = view_camera_to_screen(&c, arb_v2(3.0f, -1.0f));
  assert_true(fabsf(up.y - 275.0f) < 1e-4f);
  arb_vec2 w = view_camera_to_world(&c, 123.0f, 456.0f);
  SDL_FPoint back = view_camera_to_screen(&c, w);
  assert_true(fabsf(back.x - 123.0f) < 1e-3f && fabsf(back.y - 456.0f) < 1e-3f);
  // A free camera zooms about the cursor: the world point under it stays put.
  c.free = true;
  arb_vec2 before = view_camera_to_world(&c, 700.0f, 100.0f);
  view_camera_zoom_at(&c, 1.7f, 700.0f, 100.0f);
  arb_vec2 after = view_camera_to_world(&c, 700.0f, 100.0f);
  assert_true(fabsf(before.x - after.x) < 1e-3f && fabsf(before.y - after.y) < 1e-3f);
  assert_true(fabsf(c.zoom - 42.5f) < 1e-3f);
  // Zoom is clamped.
  for (int i = 0; i < 100; i++) view_camera_zoom_at(&c, 10.0f, 0.0f, 0.0f);
  assert_true(c.zoom <= 400.0f);
  // Panning by pixels moves the view the other way (dragging the world along).
  view_camera_init(&c, 800, 600);
  c.zoom = 10.0f;
  view_camera_pan_pixels(&c, 100.0f, 50.0f);
  assert_true(fabsf(c.center.x + 10.0f) < 1e-4f && fabsf(c.center.y - 5.0f) < 1e-4f);
}

static view_body* add_box(view_frame* f, view_role role, float x, float y, float hw, float hh) {
  view_body* b = view_frame_add_body(f);
  assert_non_null(b);
  b->role = role;
  b->shape.type = ARB_SHAPE_POLYGON;
  b->shape.polygon = arb_make_box(hw, hh);
  b->xf.p = arb_v2(x, y);
  b->xf.q = arb_rot_identity;
  return b;
}

static void test_view_camera_fits_and_follows_inside_the_level(void** state) {
  (void)state;
  view_frame f;
  memset(&f, 0, sizeof f);
  add_box(&f, VIEW_ROLE_STATIC, 0.0f, 0.0f, 50.0f, 10.0f);  // level: 100 m x 20 m
  add_box(&f, VIEW_ROLE_WORLD, 200.0f, 0.0f, 1.0f, 1.0f);   // a stray body does not widen it
  view_frame_compute_bounds(&f);
  assert_true(f.has_bounds);
  assert_true(fabsf(f.bounds.upper.x - 50.0f) < 1e-4f);
  view_camera c;
  view_camera_init(&c, 1000, 500);
  view_camera_update(&c, &f, 0.016f);
  assert_true(c.fitted);
  // The whole level is in view: 100 m (+4 %) across 1000 px.
  assert_true(fabsf(c.zoom - 1000.0f / 104.0f) < 1e-2f);
  // Zoomed in, following an avatar near the left wall: the view stops at the level edge.
  c.zoom = 50.0f;  // 20 m x 10 m visible
  f.focus = arb_v2(-49.0f, 0.0f);
  f.has_focus = true;
  view_camera_update(&c, &f, 10.0f);  // long dt: arrives at the target
  float half_w = 500.0f / 50.0f;
  assert_true(fabsf(c.center.x - (-51.0f + half_w)) < 1e-3f);  // level edge - 1 m margin
  // Vertically the level (22 m with margins) is taller than the view (10 m): follows.
  f.focus = arb_v2(0.0f, 3.0f);
  view_camera_update(&c, &f, 10.0f);
  assert_true(fabsf(c.center.x) < 1e-3f && fabsf(c.center.y - 3.0f) < 1e-3f);
  // A free camera is left alone.
  c.free = true;
  f.focus = arb_v2(30.0f, 0.0f);
  view_camera_update(&c, &f, 10.0f);
  assert_true(fabsf(c.center.x) < 1e-3f);
  view_frame_free(&f);
}

static void test_view_font_table(void** state) {
  (void)state;
  // Every printable character except space has ink; no two glyphs are the same; outside
  // the table a '?' is drawn.
  uint64_t seen[95];
  for (int ch = 32; ch <= 126; ch++) {
    uint64_t bits = 0;
    for (int r = 0; r < VIEW_GLYPH_ROWS; r++)
      for (int c = 0; c < VIEW_GLYPH_COLS; c++)
        if (view_font_pixel(ch, c, r)) bits |= 1ull << (r * VIEW_GLYPH_COLS + c);
    if (ch == ' ')
      assert_true(bits == 0);
    else
      assert_true(bits != 0);
    for (int k = 0; k < ch - 32; k++) assert_false(bits != 0 && seen[k] == bits);
    seen[ch - 32] = bits;
  }
  for (int r = 0; r < VIEW_GLYPH_ROWS; r++)
    for (int c = 0; c < VIEW_GLYPH_COLS; c++)
      assert_int_equal(view_font_pixel(200, c, r), view_font_pixel('?', c, r));
  assert_false(view_font_pixel('A', -1, 0));
  assert_false(view_font_pixel('A', 0, VIEW_GLYPH_ROWS));
  assert_int_equal(view_text_width("abc"), 3 * VIEW_CHAR_W);
  assert_int_equal(view_text_width("ab\nabcd\n"), 4 * VIEW_CHAR_W);
  assert_int_equal(view_text_width(""), 0);
}

static void test_view_input_mapping(void** state) {
  (void)state;
  Uint8 keys[SDL_NUM_SCANCODES];
  memset(keys, 0, sizeof keys);
  arb_controls c;
  keys[SDL_SCANCODE_D] = 1;
  keys[SDL_SCANCODE_UP] = 1;
  keys[SDL_SCANCODE_SPACE] = 1;
  view_input_controls(keys, ARB_AVATAR_FORCE, 0.5f, &c);
  assert_true(c.move_x == 1.0f && c.move_y == 1.0f && c.aim == 0.5f);
  assert_true(c.buttons & ARB_BUTTON_JUMP);
  assert_true(c.throttle == 0.0f && c.steer == 0.0f && c.brake == 0.0f);
  // Vehicle: up = throttle, right = steer negative (positive turns left), space = brake.
  view_input_controls(keys, ARB_AVATAR_VEHICLE, 0.0f, &c);
  assert_true(c.throttle == 1.0f && c.steer == -1.0f && c.brake == 1.0f);
  assert_true(c.move_x == 0.0f && c.move_y == 0.0f && c.buttons == 0);
  // Unknown kind: both sets, each controller reads its own.
  memset(keys, 0, sizeof keys);
  keys[SDL_SCANCODE_LEFT] = 1;
  view_input_controls(keys, ARB_AVATAR_DEFAULT, 0.0f, &c);
  assert_true(c.move_x == -1.0f && c.steer == 1.0f && c.brake == 0.0f);
  // Opposite keys cancel.
  keys[SDL_SCANCODE_RIGHT] = 1;
  view_input_controls(keys, ARB_AVATAR_FORCE, 0.0f, &c);
  assert_true(c.move_x == 0.0f);
}

static void test_view_png_writer(void** state) {
  (void)state;
  enum { W = 37, H = 23, STRIDE = W * 3 + 5 };  // odd size, padded rows
  uint8_t* px = malloc((size_t)STRIDE * H);
  assert_non_null(px);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < STRIDE; x++) px[y * STRIDE + x] = (uint8_t)(x * 7 + y * 13 + (x * y) % 5);
  char path[600], err[256];
  snprintf(path, sizeof path, "%s/test_view_units.png", g_dir);
  assert_int_equal(view_png_write(path, px, W, H, STRIDE, err, sizeof err), 0);
  image im;
  assert_int_equal(png_read(path, &im), 0);
  assert_int_equal(im.w, W);
  assert_int_equal(im.h, H);
  for (int y = 0; y < H; y++) assert_memory_equal(im.rgb + y * W * 3, px + y * STRIDE, W * 3);
  free(im.rgb);
  remove(path);
  // Errors name the file and say why.
  assert_int_equal(view_png_write("/nonexistent-dir/x.png", px, W, H, STRIDE, err, sizeof err),
                   ARB_E_IO);
  assert_non_null(strstr(err, "/nonexistent-dir/x.png"));
  assert_int_equal(view_png_write(path, px, 0, H, STRIDE, err, sizeof err), ARB_E_INVAL);
  assert_int_equal(view_png_write(path, px, W, H, W, err, sizeof err),
                   ARB_E_INVAL);  // stride too small
  free(px);
}

int main(int argc, char** argv) {
  if (argc > 1) g_dir = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_view_camera_round_trip_and_zoom),
      cmocka_unit_test(test_view_camera_fits_and_follows_inside_the_level),
      cmocka_unit_test(test_view_font_table),
      cmocka_unit_test(test_view_input_mapping),
      cmocka_unit_test(test_view_png_writer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
