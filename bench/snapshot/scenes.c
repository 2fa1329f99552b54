// Generated bench scenes (see scenes.h). Positions and velocities come from a fixed
// xorshift generator, so every run simulates the same world.
#include "scenes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
  char* s;
  size_t len, cap;
} text;

static void put(text* t, const char* fmt, ...) {
  if (!t->s) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= t->cap - t->len) {
    free(t->s);
    t->s = NULL;
    return;
  }
  t->len += (size_t)n;
}

static unsigned long long rs = 0x1234567887654321ull;
static double urand(double lo, double hi) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return lo + (hi - lo) * (double)(rs >> 11) / 9007199254740992.0;
}

const char* bench_scene_name(bench_scene s) {
  static const char* names[] = {"1000 moving (top-down, elastic)", "1000-body pile settling",
                                "10 000 bodies, 10 % moving"};
  return s < SCENE_COUNT ? names[s] : "?";
}

static void wall(text* t, double x, double y, double hw, double hh) {
  put(t,
      "{\"type\":\"static\",\"shape\":{\"box\":{\"half_width\":%g,\"half_height\":%g}},"
      "\"position\":[%g,%g]},",
      hw, hh, x, y);
}

/* 1000 elastic frictionless circles in a closed 60 m arena centred on (cx, 0). */
static void arena_of_movers(text* t, double cx) {
  wall(t, cx, -31, 31, 1);
  wall(t, cx, 31, 31, 1);
  wall(t, cx - 31, 0, 1, 31);
  wall(t, cx + 31, 0, 1, 31);
  for (int i = 0; i < 1000; ++i) {
    double x = cx - 28 + (i % 32) * 1.8, y = -28 + (i / 32) * 1.8;
    put(t,
        "{\"shape\":{\"circle\":{\"radius\":0.3}},\"position\":[%.3f,%.3f],\"velocity\":[%.3f,%.3f]"
        ","
        "\"restitution\":1,\"friction\":0},",
        x, y, urand(-3, 3), urand(-3, 3));
  }
}

static void pile(text* t) {
  wall(t, 0, -1, 12, 1);
  wall(t, -11, 30, 1, 31);
  wall(t, 11, 30, 1, 31);
  for (int i = 0; i < 1000; ++i) {
    double x = -9 + (i % 25) * 0.75 + urand(-0.05, 0.05), y = 1 + (i / 25) * 0.75;
    if (i % 2)
      put(t,
          "{\"shape\":{\"box\":{\"half_width\":0.25,\"half_height\":0.25}},\"position\":[%.3f,%.3f]"
          "},",
          x, y);
    else
      put(t, "{\"shape\":{\"circle\":{\"radius\":0.3}},\"position\":[%.3f,%.3f]},", x, y);
  }
}

static void resting_field(text* t) {
  for (int i = 0; i < 9000; ++i)
    put(t, "{\"shape\":{\"circle\":{\"radius\":0.3}},\"position\":[%d,%d]},", 40 + (i % 90) * 2,
        -90 + (i / 90) * 2);
}

char* bench_scene_json(bench_scene s, size_t* len) {
  text t = {malloc(4u << 20), 0, 4u << 20};
  int top_down = s != SCENE_PILE;
  put(&t, "{\"version\":1,\"name\":\"bench-%d\",\"gravity\":[0,%s],\"tick_rate\":60,\"bodies\":[",
      (int)s, top_down ? "0" : "-9.81");
  if (s == SCENE_PILE)
    pile(&t);
  else
    arena_of_movers(&t, 0);
  if (s == SCENE_SPARSE) resting_field(&t);
  if (t.s && t.s[t.len - 1] == ',') t.len--;
  put(&t,
      "],\"avatar\":{\"shape\":{\"circle\":{\"radius\":0.4}},\"controller\":{\"type\":\"force\"}},"
      "\"spawn_points\":[[0,%s]]}",
      top_down ? "0" : "40");
  if (t.s) *len = t.len;
  return t.s;
}
