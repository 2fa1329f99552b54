// The replay player of the web page, compiled to WebAssembly: a .arbrec log re-simulated
// in the browser with the same game rules, replay-log reader and re-simulation driver as
// the native viewer (client/view/view_replay.c), the recorded world hash compared after
// every tick, and the world turned into the viewer's drawable frame
// (client/view/view_world.c) flattened into one float array for JavaScript
// (client/web/lib/replay.js decodes it; the layout is written out below).
//
// JavaScript hands over the log's bytes (wr_open_bytes), then steps, seeks and asks for
// frames. Every function here runs to completion within
// the time it is given: seeks are finished over several calls so the page never freezes.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/game.h>

#include "../../view/view.h"
#include "../../view/view_replay.h"
#include "web_replay.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define WR_API EMSCRIPTEN_KEEPALIVE
#else
#define WR_API
#endif

// Frame layout (all float32; ids, counts and kinds are small integers held exactly):
//   header  [0] WR_FRAME_VERSION  [1] bodies  [2] links  [3] particles  [4] wheels
//           [5] has_focus  [6] focus.x  [7] focus.y
//           [8] has_bounds  [9] lower.x  [10] lower.y  [11] upper.x  [12] upper.y
//           [13] followed client id (0 = none)
//   body    body slot (the same for every shape of a compound body), entity id (0 = not
//           an entity), owner client id (0 = the world), avatar kind (arb_avatar_kind),
//           role (view_role), sensor, p.x, p.y, q.c, q.s, v.x, v.y, then the shape as
//           its outline (arb_compute_shape_outline), the same for every kind: type
//           (arb_shape_type), flags (1 closed, 2 has_area, 4 one_sided), radius, count,
//           count x (x, y)
//   link    kind (view_link_kind), a.x, a.y, b.x, b.y, axis.x, axis.y
//   particle p.x, p.y, radius, pinned
//   wheel   center.x, center.y, rot.c, rot.s, half_length, half_width
#define WR_FRAME_VERSION 2
#define WR_HEADER_LEN 14

struct web_replay {
  view_replay* replay;
  view_frame frame;
  float* out;
  int out_len, out_cap;
  bool out_failed;
  uint32_t follow;       ///< client whose avatar is "own"; 0 = the lowest client id present
  arb_entity* entities;  ///< the game's entities this frame
  int entity_cap;
  int* entity_of_slot;  ///< body slot (1-based) -> index into entities, -1 = none
  int slot_cap;
  /// put_shape's points
  arb_vec2 outline[ARB_MAX_OUTLINE_POINTS];
};

static char open_error[400];

static void put(web_replay* w, float v) {
  if (w->out_len == w->out_cap) {
    int cap = w->out_cap ? w->out_cap * 2 : 4096;
    float* p = realloc(w->out, (size_t)cap * sizeof *p);
    if (!p) {
      w->out_failed = true;
      return;
    }
    w->out = p;
    w->out_cap = cap;
  }
  w->out[w->out_len++] = v;
}

static void put_vec(web_replay* w, arb_vec2 v) {
  put(w, v.x);
  put(w, v.y);
}

static void put_shape(web_replay* w, const view_shape* s) {
  arb_shape_outline o;
  int n = arb_compute_shape_outline(s, &o, w->outline, ARB_MAX_OUTLINE_POINTS);
  put(w, (float)s->type);
  put(w, (float)((o.closed ? 1 : 0) | (o.has_area ? 2 : 0) | (o.one_sided ? 4 : 0)));
  put(w, o.radius);
  put(w, (float)n);
  for (int i = 0; i < n; i++) put_vec(w, w->outline[i]);
}

/// Open a log written into the module's file system. NULL on failure: wr_open_error()
/// says why.
WR_API web_replay* wr_open(const char* path) {
  open_error[0] = '\0';
  web_replay* w = calloc(1, sizeof *w);
  if (!w) {
    snprintf(open_error, sizeof open_error, "out of memory");
    return NULL;
  }
  if (view_replay_open(path, &w->replay, open_error, sizeof open_error) != 0) {
    free(w);
    return NULL;
  }
  // Playback time is kept by the page; here only steps and seeks move the game.
  view_replay_set_paused(w->replay, true);
  return w;
}

WR_API web_replay* wr_open_bytes(const uint8_t* data, size_t len) {
  // The driver reads a file: the bytes go to the module's in-memory file system for the
  // time it takes to read them.
  static unsigned counter;
  char path[64];
  snprintf(path, sizeof path, "/tmp/replay-%u.arbrec", ++counter);
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len) {
    if (f) fclose(f);
    remove(path);
    snprintf(open_error, sizeof open_error, "cannot hold the log in memory");
    return NULL;
  }
  fclose(f);
  web_replay* w = wr_open(path);
  remove(path);
  // The reason names the log, not the temporary file.
  size_t pl = strlen(path);
  if (!w && strncmp(open_error, path, pl) == 0 && open_error[pl] == ':')
    memmove(open_error, open_error + pl + 2, strlen(open_error + pl + 2) + 1);
  return w;
}

WR_API const char* wr_open_error(void) {
  return open_error;
}

WR_API void wr_close(web_replay* w) {
  if (!w) return;
  view_replay_close(w->replay);
  view_frame_free(&w->frame);
  free(w->entities);
  free(w->entity_of_slot);
  free(w->out);
  free(w);
}

/// Up to n ticks forward, each checked against its recorded hash; returns how many were
/// stepped (fewer at the end of the log or after an error).
WR_API int wr_step(web_replay* w, int n) {
  int done = 0;
  for (; done < n; done++) {
    uint64_t before = view_replay_tick(w->replay);
    view_replay_step(w->replay);
    if (view_replay_tick(w->replay) == before) break;
  }
  return done;
}

/// Start going to a tick (clamped to the log); wr_update finishes it.
WR_API void wr_seek(web_replay* w, double tick) {
  view_replay_seek(w->replay, (int64_t)tick);
}

/// Continue a seek for at most budget_ms; returns 1 while it is not finished.
WR_API int wr_update(web_replay* w, double budget_ms) {
  view_replay_update(w->replay, 0.0, budget_ms);
  return view_replay_seeking(w->replay) ? 1 : 0;
}

WR_API double wr_tick(web_replay* w) {
  return (double)view_replay_tick(w->replay);
}
WR_API double wr_last_tick(web_replay* w) {
  return (double)view_replay_last_tick(w->replay);
}
WR_API int wr_tick_rate(web_replay* w) {
  return view_replay_tick_rate(w->replay);
}
WR_API double wr_checked(web_replay* w) {
  return (double)view_replay_get_check(w->replay)->checked;
}
WR_API double wr_mismatches(web_replay* w) {
  return (double)view_replay_get_check(w->replay)->mismatches;
}
WR_API double wr_first_mismatch(web_replay* w) {
  return (double)view_replay_get_check(w->replay)->first_mismatch;
}
/// 1 when the current tick's hash equals the recorded one.
WR_API int wr_last_ok(web_replay* w) {
  return view_replay_get_check(w->replay)->last_ok ? 1 : 0;
}
/// A replay error that stopped playback ("" = none).
WR_API const char* wr_error(web_replay* w) {
  return view_replay_get_check(w->replay)->error;
}
/// How the log ends: "log complete", or where a truncated or torn log stops.
WR_API const char* wr_log_end(web_replay* w) {
  return view_replay_get_check(w->replay)->log_end;
}
/// Whose avatar the frame marks as own: a client id, 0 = the lowest present.
WR_API void wr_follow(web_replay* w, uint32_t client_id) {
  w->follow = client_id;
}

/// Build the current tick's frame; returns its address (wr_frame_len floats), or NULL
/// when memory ran out.
// Which entity each body slot holds (entity_of_slot); false when memory ran out.
static bool map_entities(web_replay* w, const arb_game* game) {
  int n = arb_game_get_entities(game, NULL, 0);
  if (n > w->entity_cap) {
    arb_entity* p = realloc(w->entities, (size_t)n * sizeof *p);
    if (!p) return false;
    w->entities = p;
    w->entity_cap = n;
  }
  n = arb_game_get_entities(game, w->entities, n);
  int slots = 1;
  for (int i = 0; i < n; i++)
    if (w->entities[i].body.index1 >= slots) slots = w->entities[i].body.index1 + 1;
  if (slots > w->slot_cap) {
    int* p = realloc(w->entity_of_slot, (size_t)slots * sizeof *p);
    if (!p) return false;
    w->entity_of_slot = p;
    w->slot_cap = slots;
  }
  for (int i = 0; i < w->slot_cap; i++) w->entity_of_slot[i] = -1;
  for (int i = 0; i < n; i++)
    if (w->entities[i].body.index1 > 0) w->entity_of_slot[w->entities[i].body.index1] = i;
  return true;
}

WR_API const float* wr_frame(web_replay* w) {
  arb_game* game = view_replay_game(w->replay);
  view_frame* f = &w->frame;
  uint32_t own = w->follow ? w->follow : view_game_first_owner(game, f);
  view_frame_from_game(f, game, own, false);
  w->out_len = 0;
  w->out_failed = !map_entities(w, game);
  float header[WR_HEADER_LEN] = {WR_FRAME_VERSION,
                                 (float)f->body_count,
                                 (float)f->link_count,
                                 (float)f->particle_count,
                                 (float)f->wheel_count,
                                 f->has_focus ? 1.0f : 0.0f,
                                 f->focus.x,
                                 f->focus.y,
                                 f->has_bounds ? 1.0f : 0.0f,
                                 f->bounds.lower.x,
                                 f->bounds.lower.y,
                                 f->bounds.upper.x,
                                 f->bounds.upper.y,
                                 (float)own};
  for (int i = 0; i < WR_HEADER_LEN; i++) put(w, header[i]);
  for (int i = 0; i < f->body_count; i++) {
    const view_body* b = &f->bodies[i];
    int e = b->id < (uint32_t)w->slot_cap ? w->entity_of_slot[b->id] : -1;
    put(w, (float)b->id);
    put(w, e >= 0 ? (float)w->entities[e].id : 0.0f);
    put(w, e >= 0 ? (float)w->entities[e].owner : 0.0f);
    put(w, e >= 0 ? (float)w->entities[e].kind : 0.0f);
    put(w, (float)b->role);
    put(w, b->sensor ? 1.0f : 0.0f);
    put_vec(w, b->xf.p);
    put(w, b->xf.q.c);
    put(w, b->xf.q.s);
    put_vec(w, b->has_velocity ? b->velocity : arb_v2(0.0f, 0.0f));
    put_shape(w, &b->shape);
  }
  for (int i = 0; i < f->link_count; i++) {
    const view_link* l = &f->links[i];
    put(w, (float)l->kind);
    put_vec(w, l->a);
    put_vec(w, l->b);
    put_vec(w, l->axis);
  }
  for (int i = 0; i < f->particle_count; i++) {
    const view_particle* p = &f->particles[i];
    put_vec(w, p->p);
    put(w, p->radius);
    put(w, p->pinned ? 1.0f : 0.0f);
  }
  for (int i = 0; i < f->wheel_count; i++) {
    const view_wheel* wh = &f->wheels[i];
    put_vec(w, wh->center);
    put(w, wh->rot.c);
    put(w, wh->rot.s);
    put(w, wh->half_length);
    put(w, wh->half_width);
  }
  return w->out_failed ? NULL : w->out;
}

WR_API int wr_frame_len(web_replay* w) {
  return w->out_len;
}
