// arbiter-view — the visual client and replay player (SDL2).
//
//   arbiter-view [--host H] [--port P]      live: connect to a server and drive an avatar
//   arbiter-view --replay LOG               re-simulate a recording locally
//   arbiter-view --scene FILE|default       run a scene locally (sandbox)
//   ... --screenshot FILE.png --after S     write one frame after S seconds and exit
//
// The only file that exits. Everything else reports errors up to here.
#define _POSIX_C_SOURCE 200809L  // setenv

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/game.h>

#include "view.h"
#include "view_live.h"
#include "view_replay.h"
#include "view_sandbox.h"

#define MAX_SHOTS 8

typedef enum view_mode { MODE_LIVE = 0, MODE_REPLAY, MODE_SANDBOX } view_mode;

typedef struct options {
  view_mode mode;
  const char* host;
  int port;
  const char* name;
  arb_avatar_kind avatar;
  bool spectate;
  const char* replay;
  const char* scene;
  int width, height;
  const char* shot_file[MAX_SHOTS];
  double shot_after[MAX_SHOTS];
  int shot_count;
  bool stats, help;
  view_debug debug;
  float speed;
  long long seek;
  uint32_t follow;
  int fps;
} options;

static void usage(FILE* out) {
  fprintf(out,
          "usage: arbiter-view [options]\n"
          "Shows an arbiter world: live from a server (default), a replay log, or a scene.\n"
          "\n"
          "modes:\n"
          "  --host H              server address (default 127.0.0.1)\n"
          "  --port P              server UDP port (default 7777)\n"
          "  --name NAME           player name (default viewer)\n"
          "  --avatar KIND         force | vehicle | default (the scene's choice)\n"
          "  --spectate            live: watch without an avatar (the whole world, no controls)\n"
          "  --replay LOG          re-simulate a .arbrec recording (no server)\n"
          "  --scene FILE          run a scene JSON locally with one player; 'default' = built-in\n"
          "\n"
          "display:\n"
          "  --size WxH            window size in pixels (default 1280x720)\n"
          "  --fps N               frame-rate cap (default 60)\n"
          "  --stats               start with the stats overlay on (F2)\n"
          "  --show-help           start with the help overlay on (F1)\n"
          "  --debug LIST          start with debug layers on: "
          "aabb,contacts,velocity,ghosts,corrections,grid\n"
          "  --follow CLIENT       replay: the client whose avatar the camera follows (default: "
          "lowest id)\n"
          "  --speed X             replay: playback speed 0.25..8 (default 1)\n"
          "  --seek TICK           replay: start at this tick\n"
          "\n"
          "screenshots (no X server needed: SDL_VIDEODRIVER=dummy is set when unset):\n"
          "  --screenshot FILE.png --after SECONDS\n"
          "                        write the frame shown SECONDS after start and exit when the\n"
          "                        last one is written; repeat the pair for several frames\n"
          "\n"
          "  --help                this text\n"
          "Keys: press F1 in the window (also in docs/VIEWER.md).\n");
}

static void die_usage(const char* what, const char* value) {
  fprintf(stderr, "arbiter-view: %s '%s' (try --help)\n", what, value ? value : "");
  exit(2);
}

static long long parse_int(const char* opt, const char* s, long long lo, long long hi) {
  if (!s) die_usage("missing value for", opt);
  char* end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    fprintf(stderr, "arbiter-view: %s: '%s' is not an integer in [%lld, %lld]\n", opt, s, lo, hi);
    exit(2);
  }
  return v;
}

static double parse_double(const char* opt, const char* s, double lo, double hi) {
  if (!s) die_usage("missing value for", opt);
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= lo && v <= hi)) {
    fprintf(stderr, "arbiter-view: %s: '%s' is not a number in [%g, %g]\n", opt, s, lo, hi);
    exit(2);
  }
  return v;
}

static void parse_debug(options* o, const char* list) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (!strcmp(tok, "aabb"))
      o->debug.aabbs = true;
    else if (!strcmp(tok, "contacts"))
      o->debug.contacts = true;
    else if (!strcmp(tok, "velocity"))
      o->debug.velocities = true;
    else if (!strcmp(tok, "ghosts"))
      o->debug.ghosts = true;
    else if (!strcmp(tok, "corrections"))
      o->debug.corrections = true;
    else if (!strcmp(tok, "grid"))
      o->debug.grid = true;
    else
      die_usage("unknown debug layer", tok);
  }
}

static void parse_args(int argc, char** argv, options* o) {
  memset(o, 0, sizeof *o);
  o->host = "127.0.0.1";
  o->port = 7777;
  o->name = "viewer";
  o->width = 1280;
  o->height = 720;
  o->speed = 1.0f;
  o->seek = -1;
  o->fps = 60;
  o->debug.grid = true;
  bool pending_after = false;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKES_VALUE()                          \
  do {                                         \
    if (!v) die_usage("missing value for", a); \
    i++;                                       \
  } while (0)
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--host")) {
      TAKES_VALUE();
      o->host = v;
    } else if (!strcmp(a, "--port")) {
      TAKES_VALUE();
      o->port = (int)parse_int(a, v, 1, 65535);
    } else if (!strcmp(a, "--name")) {
      TAKES_VALUE();
      o->name = v;
    } else if (!strcmp(a, "--spectate")) {
      o->spectate = true;
    } else if (!strcmp(a, "--avatar")) {
      TAKES_VALUE();
      if (!strcmp(v, "force"))
        o->avatar = ARB_AVATAR_FORCE;
      else if (!strcmp(v, "vehicle"))
        o->avatar = ARB_AVATAR_VEHICLE;
      else if (!strcmp(v, "default"))
        o->avatar = ARB_AVATAR_DEFAULT;
      else
        die_usage("unknown avatar kind", v);
    } else if (!strcmp(a, "--replay")) {
      TAKES_VALUE();
      o->replay = v;
    } else if (!strcmp(a, "--scene")) {
      TAKES_VALUE();
      o->scene = v;
    } else if (!strcmp(a, "--size")) {
      TAKES_VALUE();
      int w = 0, h = 0;
      char tail = 0;
      if (sscanf(v, "%dx%d%c", &w, &h, &tail) != 2 || w < 64 || h < 64 || w > 8192 || h > 8192)
        die_usage("--size wants WxH between 64 and 8192, got", v);
      o->width = w;
      o->height = h;
    } else if (!strcmp(a, "--fps")) {
      TAKES_VALUE();
      o->fps = (int)parse_int(a, v, 1, 1000);
    } else if (!strcmp(a, "--stats")) {
      o->stats = true;
    } else if (!strcmp(a, "--show-help")) {
      o->help = true;
    } else if (!strcmp(a, "--debug")) {
      TAKES_VALUE();
      parse_debug(o, v);
    } else if (!strcmp(a, "--follow")) {
      TAKES_VALUE();
      o->follow = (uint32_t)parse_int(a, v, 1, 0xffffffffLL);
    } else if (!strcmp(a, "--speed")) {
      TAKES_VALUE();
      o->speed = (float)parse_double(a, v, VIEW_REPLAY_MIN_SPEED, VIEW_REPLAY_MAX_SPEED);
    } else if (!strcmp(a, "--seek")) {
      TAKES_VALUE();
      o->seek = parse_int(a, v, 0, 1LL << 62);
    } else if (!strcmp(a, "--screenshot")) {
      TAKES_VALUE();
      if (o->shot_count == MAX_SHOTS) die_usage("too many --screenshot, the limit is 8, at", v);
      if (pending_after) die_usage("--screenshot needs --after SECONDS before the next one:", v);
      o->shot_file[o->shot_count++] = v;
      pending_after = true;
    } else if (!strcmp(a, "--after")) {
      TAKES_VALUE();
      if (!pending_after) die_usage("--after must follow a --screenshot FILE, got", v);
      double t = parse_double(a, v, 0.0, 86400.0);
      if (o->shot_count > 1 && t < o->shot_after[o->shot_count - 2])
        die_usage("screenshots must be in time order; --after", v);
      o->shot_after[o->shot_count - 1] = t;
      pending_after = false;
    } else {
      die_usage("unknown option", a);
    }
#undef TAKES_VALUE
  }
  if (pending_after)
    die_usage("--screenshot needs --after SECONDS:", o->shot_file[o->shot_count - 1]);
  if (o->replay && o->scene) die_usage("choose one of --replay and --scene, not both:", o->scene);
  o->mode = o->replay ? MODE_REPLAY : (o->scene ? MODE_SANDBOX : MODE_LIVE);
}

// The camera and overlay keys, the same in every mode: each page below lists its mode's
// own keys, then these, then its own extra overlays and quit.
#define HELP_VIEW_KEYS                                                                         \
  "#camera", "mouse wheel, + -   zoom", "C                  free camera on/off (drag to pan)", \
      "F                  fit the level again, follow", "#overlays",                           \
      "F1 help   F2 stats   G grid", "F3 AABBs  F4 contacts  F5 velocities"

static const char* const help_live[] = {
    "#arbiter-view - live",
    "W A S D / arrows   move (force avatar)",
    "space              jump",
    "up / W             throttle (vehicle avatar)",
    "left right / A D   steer (vehicle)",
    "space / down / S   brake (vehicle)",
    "R                  retry connecting now",
    HELP_VIEW_KEYS,
    "F6 server ghosts (raw newest snapshot)",
    "F7 prediction: own avatar as simulated + correction",
    "Esc / Q            quit",
    NULL,
};

static const char* const help_replay[] = {
    "#arbiter-view - replay",
    "space / P          pause, resume",
    ". (period)         step one tick (pauses)",
    ", (comma)          one tick back (pauses)",
    "[ ]                speed half / double (0.25x..8x)",
    "left / right       seek -5 s / +5 s",
    "page up / down     seek -60 s / +60 s",
    "home / end         first / last tick",
    HELP_VIEW_KEYS,
    "Esc / Q            quit",
    NULL,
};

static const char* const help_sandbox[] = {
    "#arbiter-view - scene sandbox",
    "W A S D / arrows   move (force avatar)",
    "space              jump / brake (vehicle)",
    "up / left / right  throttle / steer (vehicle)",
    "P                  pause, resume",
    "R                  restart the scene",
    HELP_VIEW_KEYS,
    "Esc / Q            quit",
    NULL,
};

typedef struct app {
  options opt;
  SDL_Window* window;
  SDL_Renderer* renderer;
  view_font font;
  view_camera cam;
  view_frame frame;
  view_graph graph;
  view_live* live;
  view_replay* replay;
  view_sandbox* sandbox;
  bool show_help, show_stats, sandbox_paused, dragging;
  bool quit;
  long frames;          // displayed frames, for the exit summary
  double busy_seconds;  // time spent producing them (without the frame-cap sleep)
} app;

static double seconds_now(void) {
  return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

static void seek_seconds(app* a, double s) {
  int64_t t =
      (int64_t)view_replay_tick(a->replay) + (int64_t)(s * view_replay_tick_rate(a->replay));
  view_replay_seek(a->replay, t);
}

// The keys that switch one view option on and off (the help text lists them).
static bool* toggled_by(app* a, SDL_Keycode k) {
  const struct {
    SDL_Keycode key;
    bool* flag;
  } toggles[] = {
      {SDLK_F1, &a->show_help},
      {SDLK_F2, &a->show_stats},
      {SDLK_F3, &a->opt.debug.aabbs},
      {SDLK_F4, &a->opt.debug.contacts},
      {SDLK_F5, &a->opt.debug.velocities},
      {SDLK_F6, &a->opt.debug.ghosts},
      {SDLK_F7, &a->opt.debug.corrections},
      {SDLK_g, &a->opt.debug.grid},
      {SDLK_c, &a->cam.free},
  };
  for (size_t i = 0; i < sizeof toggles / sizeof toggles[0]; ++i)
    if (toggles[i].key == k) return toggles[i].flag;
  return NULL;
}

static void on_key(app* a, SDL_Keycode k) {
  bool* flag = toggled_by(a, k);
  if (flag) {
    *flag = !*flag;
    return;
  }
  switch (k) {
    case SDLK_ESCAPE:
    case SDLK_q:
      a->quit = true;
      return;
    case SDLK_f:
      view_camera_reset(&a->cam);
      return;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
      view_camera_zoom_at(&a->cam, 1.25f, a->cam.width * 0.5f, a->cam.height * 0.5f);
      return;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
      view_camera_zoom_at(&a->cam, 0.8f, a->cam.width * 0.5f, a->cam.height * 0.5f);
      return;
    default:
      break;
  }
  if (a->replay) {
    view_replay* r = a->replay;
    // The keys that jump through a replay, and by how many seconds.
    static const struct {
      SDL_Keycode key;
      double seconds;
    } jumps[] = {{SDLK_LEFT, -5.0}, {SDLK_RIGHT, 5.0}, {SDLK_PAGEUP, -60.0}, {SDLK_PAGEDOWN, 60.0}};
    for (size_t i = 0; i < sizeof jumps / sizeof jumps[0]; ++i) {
      if (jumps[i].key == k) {
        seek_seconds(a, jumps[i].seconds);
        return;
      }
    }
    switch (k) {
      case SDLK_SPACE:
      case SDLK_p:
        view_replay_set_paused(r, !view_replay_paused(r));
        break;
      case SDLK_PERIOD:
        view_replay_step(r);
        break;
      case SDLK_COMMA:
        view_replay_set_paused(r, true);
        if (view_replay_tick(r) > 0) view_replay_seek(r, (int64_t)view_replay_tick(r) - 1);
        break;
      case SDLK_LEFTBRACKET:
        view_replay_set_speed(r, view_replay_speed(r) * 0.5f);
        break;
      case SDLK_RIGHTBRACKET:
        view_replay_set_speed(r, view_replay_speed(r) * 2.0f);
        break;
      case SDLK_HOME:
        view_replay_seek(r, 0);
        break;
      case SDLK_END:
        view_replay_seek(r, (int64_t)view_replay_last_tick(r));
        break;
      default:
        break;
    }
  } else if (a->sandbox) {
    if (k == SDLK_p) a->sandbox_paused = !a->sandbox_paused;
    if (k == SDLK_r) view_sandbox_restart(a->sandbox);
  } else if (a->live) {
    if (k == SDLK_r) view_live_retry(a->live, seconds_now());
  }
}

static void handle_events(app* a) {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    switch (e.type) {
      case SDL_QUIT:
        a->quit = true;
        break;
      case SDL_KEYDOWN:
        on_key(a, e.key.keysym.sym);
        break;
      case SDL_MOUSEWHEEL: {
        int mx = 0, my = 0;
        SDL_GetMouseState(&mx, &my);
        float f = e.wheel.y > 0 ? 1.15f : (e.wheel.y < 0 ? 1.0f / 1.15f : 1.0f);
        view_camera_zoom_at(&a->cam, f, (float)mx, (float)my);
        break;
      }
      case SDL_MOUSEBUTTONDOWN:
        a->dragging = true;
        break;
      case SDL_MOUSEBUTTONUP:
        a->dragging = false;
        break;
      case SDL_MOUSEMOTION:
        if (a->dragging && a->cam.free)
          view_camera_pan_pixels(&a->cam, (float)e.motion.xrel, (float)e.motion.yrel);
        break;
      case SDL_WINDOWEVENT:
        if (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
          int w = 0, h = 0;
          SDL_GetRendererOutputSize(a->renderer, &w, &h);
          a->cam.width = w;
          a->cam.height = h;
        }
        break;
      default:
        break;
    }
  }
}

// Aim: from the own avatar towards the mouse pointer.
static float mouse_aim(const app* a) {
  if (!a->frame.has_focus) return 0.0f;
  int mx = 0, my = 0;
  SDL_GetMouseState(&mx, &my);
  arb_vec2 m = view_camera_to_world(&a->cam, (float)mx, (float)my);
  arb_vec2 d = arb_sub(m, a->frame.focus);
  return arb_length_sq(d) > 1e-6f ? atan2f(d.y, d.x) : 0.0f;
}

static void replay_status(app* a, view_text_lines* st) {
  view_replay* r = a->replay;
  const view_replay_check* ck = view_replay_get_check(r);
  double rate = (double)view_replay_tick_rate(r);
  view_lines_add(st, VIEW_RGB_TEXT, "replay %s", a->opt.replay);
  view_lines_add(st, VIEW_RGB_TEXT, "tick %llu / %llu  (%.1f s)  speed %gx%s%s",
                 (unsigned long long)view_replay_tick(r),
                 (unsigned long long)view_replay_last_tick(r), (double)view_replay_tick(r) / rate,
                 (double)view_replay_speed(r), view_replay_paused(r) ? "  PAUSED" : "",
                 view_replay_seeking(r) ? "  seeking..." : "");
  if (ck->checked == 0)
    view_lines_add(st, VIEW_RGB_TEXT_DIM, "hash: not checked yet");
  else if (ck->mismatches == 0)
    view_lines_add(st, VIEW_RGB_OK, "hash matches the recording (%llu ticks checked)",
                   (unsigned long long)ck->checked);
  else
    view_lines_add(st, VIEW_RGB_ERROR, "hash MISMATCH: %llu ticks, first at tick %llu%s",
                   (unsigned long long)ck->mismatches, (unsigned long long)ck->first_mismatch,
                   ck->last_ok ? "" : " (this tick too)");
  if (ck->error[0]) view_lines_add(st, VIEW_RGB_ERROR, "stopped: %s", ck->error);
  view_lines_add(st, VIEW_RGB_TEXT_DIM, "%s", ck->log_end);
  view_lines_add(st, VIEW_RGB_TEXT_DIM, "F1 help");
}

// Returns 0, or 1 after the last screenshot was written, or -1 on a write error.
static int take_screenshot(app* a, const char* path) {
  int w = a->cam.width, h = a->cam.height;
  uint8_t* px = malloc((size_t)w * (size_t)h * 3);
  if (!px) {
    fprintf(stderr, "arbiter-view: %s: out of memory\n", path);
    return -1;
  }
  if (SDL_RenderReadPixels(a->renderer, NULL, SDL_PIXELFORMAT_RGB24, px, w * 3) != 0) {
    fprintf(stderr, "arbiter-view: %s: SDL_RenderReadPixels: %s\n", path, SDL_GetError());
    free(px);
    return -1;
  }
  char err[512];
  int rc = view_png_write(path, px, w, h, w * 3, err, sizeof err);
  free(px);
  if (rc != 0) {
    fprintf(stderr, "arbiter-view: %s\n", err);
    return -1;
  }
  fprintf(stderr, "arbiter-view: wrote %s (%dx%d)\n", path, w, h);
  return 0;
}

static int open_mode(app* a) {
  char err[1024];
  int rc = 0;
  switch (a->opt.mode) {
    case MODE_REPLAY:
      rc = view_replay_open(a->opt.replay, &a->replay, err, sizeof err);
      if (rc == 0) {
        view_replay_set_speed(a->replay, a->opt.speed);
        if (a->opt.seek >= 0) view_replay_seek(a->replay, a->opt.seek);
      }
      break;
    case MODE_SANDBOX:
      rc = view_sandbox_open(a->opt.scene, a->opt.avatar, &a->sandbox, err, sizeof err);
      break;
    default: {
      view_live_config lc = {a->opt.host,   (uint16_t)a->opt.port, a->opt.name,
                             a->opt.avatar, a->opt.spectate,       2.0f};
      rc = view_live_create(&lc, &a->live, err, sizeof err);
      break;
    }
  }
  if (rc != 0) fprintf(stderr, "arbiter-view: %s\n", err);
  return rc;
}

static void close_mode(app* a) {
  view_live_destroy(a->live);
  view_replay_close(a->replay);
  view_sandbox_close(a->sandbox);
  a->live = NULL;
  a->replay = NULL;
  a->sandbox = NULL;
}

static int run(app* a) {
  const bool shots = a->opt.shot_count > 0;
  int next_shot = 0;
  double t0 = seconds_now(), last = t0;
  const double frame_time = 1.0 / (double)a->opt.fps;
  while (!a->quit) {
    double frame_start = seconds_now();
    double dt = frame_start - last;
    last = frame_start;
    handle_events(a);

    const Uint8* keys = SDL_GetKeyboardState(NULL);
    arb_controls controls;
    view_text_lines status, message;
    memset(&status, 0, sizeof status);
    memset(&message, 0, sizeof message);
    view_stats stats;
    memset(&stats, 0, sizeof stats);

    if (a->live) {
      view_input_controls(keys, view_live_avatar_kind(a->live), mouse_aim(a), &controls);
      view_live_update(a->live, frame_start, &controls);
      view_live_fill(a->live, frame_start, &a->frame, a->opt.debug.ghosts);
      view_live_stats(a->live, &stats);
      view_live_messages(a->live, frame_start, &status, &message);
      if (!view_live_connected(a->live)) stats.valid = false;
      view_graph_push(&a->graph, stats.jitter_ms, stats.interp_delay_ms);
    } else if (a->replay) {
      view_replay_update(a->replay, dt, 25.0);
      arb_game* g = view_replay_game(a->replay);
      uint32_t follow = a->opt.follow ? a->opt.follow : view_game_first_owner(g, &a->frame);
      view_frame_from_game(&a->frame, g, follow, a->opt.debug.contacts);
      replay_status(a, &status);
      if (follow) view_lines_add(&status, VIEW_RGB_OWN_EDGE, "following client %u (green)", follow);
    } else {
      view_input_controls(keys, a->opt.avatar, mouse_aim(a), &controls);
      view_sandbox_update(a->sandbox, dt, &controls, a->sandbox_paused);
      arb_game* g = view_sandbox_game(a->sandbox);
      view_frame_from_game(&a->frame, g, 1, a->opt.debug.contacts);
      view_lines_add(&status, VIEW_RGB_TEXT, "scene '%s'  tick %llu%s",
                     view_sandbox_name(a->sandbox), (unsigned long long)arb_game_get_tick(g),
                     a->sandbox_paused ? "  PAUSED" : "");
      view_lines_add(&status, VIEW_RGB_TEXT_DIM, "local sandbox, not connected  F1 help");
    }

    view_camera_update(&a->cam, &a->frame, (float)dt);
    if (a->live)
      view_live_set_camera(a->live, view_camera_to_world(&a->cam, 0.0f, (float)a->cam.height),
                           view_camera_to_world(&a->cam, (float)a->cam.width, 0.0f));
    view_render_frame(a->renderer, &a->cam, &a->frame, &a->opt.debug);
    SDL_Rect sbox = view_overlay_status(a->renderer, &a->font, 8, 8, &status);
    if (a->show_stats) {
      // Top-right; below the status box when the window is too narrow for both.
      int sx = a->cam.width - view_overlay_stats_width() - 8;
      int sy = sx < sbox.x + sbox.w + 8 ? sbox.y + sbox.h + 8 : 8;
      view_overlay_stats(a->renderer, &a->font, &stats, &a->graph, sx < 0 ? 0 : sx, sy);
    }
    view_overlay_message(a->renderer, &a->font, a->cam.width, a->cam.height, &message);
    if (a->show_help) {
      const char* const* lines = a->live ? help_live : (a->replay ? help_replay : help_sandbox);
      view_overlay_help(a->renderer, &a->font, a->cam.width, a->cam.height, lines);
    }

    if (shots && next_shot < a->opt.shot_count &&
        frame_start - t0 >= a->opt.shot_after[next_shot]) {
      a->frames++;
      a->busy_seconds += seconds_now() - frame_start;
      if (take_screenshot(a, a->opt.shot_file[next_shot]) != 0) return 1;
      if (++next_shot == a->opt.shot_count) return 0;
    }
    SDL_RenderPresent(a->renderer);

    double spent = seconds_now() - frame_start;
    a->frames++;
    a->busy_seconds += spent;
    if (spent < frame_time) SDL_Delay((Uint32)((frame_time - spent) * 1000.0));
  }
  return 0;
}

int main(int argc, char** argv) {
  app a;
  memset(&a, 0, sizeof a);
  parse_args(argc, argv, &a.opt);
  a.show_help = a.opt.help;
  a.show_stats = a.opt.stats;
  const bool shots = a.opt.shot_count > 0;
  // Screenshots render off-screen: the dummy video driver and the software renderer give
  // the same pixels as a real window (see docs/VIEWER.md) without needing an X server.
  if (shots && !getenv("SDL_VIDEODRIVER")) setenv("SDL_VIDEODRIVER", "dummy", 1);
  // Load the log or scene first: a bad file is reported before any window appears.
  if (open_mode(&a) != 0) return 1;
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    fprintf(stderr,
            "arbiter-view: cannot start SDL video: %s\n"
            "  (no display? use --screenshot, or set SDL_VIDEODRIVER=dummy)\n",
            SDL_GetError());
    close_mode(&a);
    return 1;
  }
  const char* title = a.opt.mode == MODE_REPLAY    ? "arbiter-view (replay)"
                      : a.opt.mode == MODE_SANDBOX ? "arbiter-view (scene)"
                                                   : "arbiter-view";
  a.window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, a.opt.width,
                              a.opt.height, shots ? 0 : SDL_WINDOW_RESIZABLE);
  if (a.window) {
    Uint32 flags =
        shots ? SDL_RENDERER_SOFTWARE : SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC;
    a.renderer = SDL_CreateRenderer(a.window, -1, flags);
    if (!a.renderer && !shots) a.renderer = SDL_CreateRenderer(a.window, -1, SDL_RENDERER_SOFTWARE);
  }
  if (!a.window || !a.renderer || view_font_init(&a.font, a.renderer) != 0) {
    fprintf(stderr, "arbiter-view: cannot create the window: %s\n", SDL_GetError());
    close_mode(&a);
    if (a.renderer) SDL_DestroyRenderer(a.renderer);
    if (a.window) SDL_DestroyWindow(a.window);
    SDL_Quit();
    return 1;
  }
  int w = a.opt.width, h = a.opt.height;
  SDL_GetRendererOutputSize(a.renderer, &w, &h);
  view_camera_init(&a.cam, w, h);
  int rc = run(&a);
  if (a.frames > 0)
    fprintf(stderr, "arbiter-view: %ld frames, %.2f ms of work per frame (%s renderer)\n", a.frames,
            1000.0 * a.busy_seconds / (double)a.frames, shots ? "software" : "default");
  if (a.replay) {
    // One line for scripts and tests: did the re-simulation agree with the recording?
    const view_replay_check* ck = view_replay_get_check(a.replay);
    fprintf(stderr, "arbiter-view: replay: at tick %llu, %llu ticks checked, %llu mismatches%s%s\n",
            (unsigned long long)view_replay_tick(a.replay), (unsigned long long)ck->checked,
            (unsigned long long)ck->mismatches, ck->error[0] ? ", stopped: " : "", ck->error);
  }
  close_mode(&a);
  view_frame_free(&a.frame);
  view_font_free(&a.font);
  SDL_DestroyRenderer(a.renderer);
  SDL_DestroyWindow(a.window);
  SDL_Quit();
  return rc;
}
