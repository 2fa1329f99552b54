// gui test: arbiter-view screenshots, live and replay.
//
// One server (recording) + 3 bots + the viewer in screenshot mode (two frames 1 s apart)
// on an ephemeral 127.0.0.1 port; then the recording is stopped and replayed by the
// viewer, again two frames 1 s apart. Each PNG is decoded here (an independent reader,
// zlib inflate + all five PNG filters) and must have the requested size, contain the own
// avatar, other avatars, world bodies and static geometry in their exact palette colours,
// and differ from the frame taken 1 s later in where bodies are drawn (not just in text).
// While the live viewer runs, the server's operator session list must show the camera box
// it reported (the `view` message).
//
// The scene sandbox on tests/scenes/triggers.json draws its goal sensor as an outline, and
// on tests/scenes/compound.json every shape of its compound bodies.
//
// argv: BIN_DIR (holding arbiter-server, arbiter-bot, arbiter-view) WORK_DIR SCENES_DIR
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <setjmp.h>
#include <cmocka.h>

#include "../common/exit_status.h"
#include "png_read.h"
#include "view_palette.h"

extern char** environ;

#define SHOT_W 640
#define SHOT_H 400

static const char* g_bin;
static const char* g_scenes;  // tests/scenes of the source tree
static char g_work[512];

// ---- processes --------------------------------------------------------------------------

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static pid_t spawn(const char* log_name, char* const argv[]) {
  char log[700];
  snprintf(log, sizeof log, "%s/%s", g_work, log_name);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(rc));
    return -1;
  }
  return pid;
}

// Wait up to timeout_ms; returns the exit status (0..255), 128+signal, or -1 on timeout.
static int wait_for(pid_t pid, int timeout_ms) {
  for (int t = 0; t <= timeout_ms; t += 20) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return exit_status_of(st);
    sleep_ms(20);
  }
  return -1;
}

static void stop(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  if (wait_for(pid, 3000) < 0) {
    kill(pid, SIGKILL);
    wait_for(pid, 2000);
  }
}

static void show_log(const char* name) {
  char path[700], line[512];
  snprintf(path, sizeof path, "%s/%s", g_work, name);
  FILE* f = fopen(path, "r");
  if (!f) return;
  fprintf(stderr, "---- %s ----\n", name);
  int n = 0;
  while (fgets(line, sizeof line, f) && n++ < 60) fputs(line, stderr);
  fclose(f);
}

// Runs a program that must end by itself (a viewer writing its screenshots) with its output
// in log_name, and checks it exits 0 within timeout_ms; otherwise it is stopped and its
// log shown.
static void run_to_success(const char* log_name, char* const argv[], int timeout_ms) {
  pid_t pid = spawn(log_name, argv);
  assert_true(pid > 0);
  int rc = wait_for(pid, timeout_ms);
  if (rc != 0) {
    if (rc < 0) stop(pid);
    show_log(log_name);
  }
  assert_int_equal(rc, 0);
}

static bool log_contains(const char* name, const char* needle) {
  char path[700], line[1024];
  snprintf(path, sizeof path, "%s/%s", g_work, name);
  FILE* f = fopen(path, "r");
  if (!f) return false;
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
  fclose(f);
  return found;
}

// A free port of `type` (SOCK_DGRAM, SOCK_STREAM) on 127.0.0.1 (released just before the
// server binds it).
static int free_port(int type) {
  int s = socket(AF_INET, type, 0);
  assert_true(s >= 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(bind(s, (struct sockaddr*)&a, sizeof a), 0);
  socklen_t len = sizeof a;
  assert_int_equal(getsockname(s, (struct sockaddr*)&a, &len), 0);
  close(s);
  return ntohs(a.sin_port);
}

#define ADMIN_TOKEN "view-test-admin-token-0123456789abcdef"

// GET /admin/sessions on the server's HTTP port into out (headers and body, NUL-ended);
// false when the server did not answer.
static bool admin_sessions(int port, char* out, size_t cap) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return false;
  struct timeval tv = {2, 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons((uint16_t)port);
  static const char req[] =
      "GET /admin/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Authorization: Bearer " ADMIN_TOKEN "\r\nConnection: close\r\n\r\n";
  size_t got = 0;
  if (connect(s, (struct sockaddr*)&a, sizeof a) == 0 &&
      send(s, req, sizeof req - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof req - 1)) {
    ssize_t n;
    while (got + 1 < cap && (n = recv(s, out + got, cap - 1 - got, 0)) > 0) got += (size_t)n;
  }
  close(s);
  out[got] = '\0';
  return got > 0;
}

static int count_rgb(const image* im, uint32_t rgb) {
  int n = 0;
  for (size_t i = 0; i < (size_t)im->w * (size_t)im->h; i++) {
    const uint8_t* p = im->rgb + 3 * i;
    if (p[0] == VIEW_R(rgb) && p[1] == VIEW_G(rgb) && p[2] == VIEW_B(rgb)) n++;
  }
  return n;
}

// Which moving thing a pixel shows: 0 none, 1 own avatar, 2 other avatar, 3 world body.
static int classify(const uint8_t* p) {
  static const uint32_t moving[3] = {VIEW_RGB_OWN, VIEW_RGB_OTHER, VIEW_RGB_WORLD};
  for (int k = 0; k < 3; k++)
    if (p[0] == VIEW_R(moving[k]) && p[1] == VIEW_G(moving[k]) && p[2] == VIEW_B(moving[k]))
      return k + 1;
  return 0;
}

// Pixels where a body is drawn in one frame and not (or another one) in the other: motion
// only, so the changing tick counter in the status text does not count.
static int count_moved(const image* a, const image* b) {
  int n = 0;
  for (size_t i = 0; i < (size_t)a->w * (size_t)a->h; i++)
    if (classify(a->rgb + 3 * i) != classify(b->rgb + 3 * i)) n++;
  return n;
}

// Both frames: right size, the expected colours, and different from each other.
static void check_pair(const char* first, const char* second, int min_other) {
  char p1[700], p2[700];
  snprintf(p1, sizeof p1, "%s/%s", g_work, first);
  snprintf(p2, sizeof p2, "%s/%s", g_work, second);
  image a, b;
  assert_int_equal(png_read(p1, &a), 0);
  assert_int_equal(png_read(p2, &b), 0);
  assert_int_equal(a.w, SHOT_W);
  assert_int_equal(a.h, SHOT_H);
  assert_int_equal(b.w, SHOT_W);
  assert_int_equal(b.h, SHOT_H);
  const image* ims[2] = {&a, &b};
  for (int i = 0; i < 2; i++) {
    int own = count_rgb(ims[i], VIEW_RGB_OWN), other = count_rgb(ims[i], VIEW_RGB_OTHER);
    int world = count_rgb(ims[i], VIEW_RGB_WORLD), stat = count_rgb(ims[i], VIEW_RGB_STATIC);
    int bg = count_rgb(ims[i], VIEW_RGB_BACKGROUND);
    fprintf(stderr, "%s: own %d, other %d, world %d, static %d, background %d pixels\n",
            i ? second : first, own, other, world, stat, bg);
    assert_true(own >= 8);
    assert_true(other >= min_other);
    assert_true(world >= 50);
    assert_true(stat >= 50);
    assert_true(bg >= SHOT_W * SHOT_H / 10);
  }
  int moved = count_moved(&a, &b);
  fprintf(stderr, "%s vs %s: %d body pixels moved\n", first, second, moved);
  assert_true(moved >= 20);
  free(a.rgb);
  free(b.rgb);
}

// ---- the test -------------------------------------------------------------------------

static void test_view_live_and_replay_screenshots(void** state) {
  (void)state;
  char server[600], bot[600], view[600], port[16], rec[700];
  snprintf(server, sizeof server, "%s/arbiter-server", g_bin);
  snprintf(bot, sizeof bot, "%s/arbiter-bot", g_bin);
  snprintf(view, sizeof view, "%s/arbiter-view", g_bin);
  snprintf(port, sizeof port, "%d", free_port(SOCK_DGRAM));
  snprintf(rec, sizeof rec, "%s/session.arbrec", g_work);
  char shot[4][700];
  const char* names[4] = {"live-1.png", "live-2.png", "replay-1.png", "replay-2.png"};
  for (int i = 0; i < 4; i++) {
    snprintf(shot[i], sizeof shot[i], "%s/%s", g_work, names[i]);
    unlink(shot[i]);
  }
  setenv("SDL_VIDEODRIVER", "dummy", 1);

  // Nobody listens on the port yet: the viewer must keep drawing (a message, not a frozen
  // window) and write its frame on time.
  char nobody[700];
  snprintf(nobody, sizeof nobody, "%s/no-server.png", g_work);
  char* ns_argv[] = {view,    "--host", "127.0.0.1",    "--port", port,      "--size", "640x400",
                     "--fps", "30",     "--screenshot", nobody,   "--after", "1.5",    NULL};
  run_to_success("view-no-server.log", ns_argv, 10000);
  image none;
  assert_int_equal(png_read(nobody, &none), 0);
  assert_int_equal(none.w, SHOT_W);
  assert_int_equal(none.h, SHOT_H);
  int warn = count_rgb(&none, VIEW_RGB_WARN), own0 = count_rgb(&none, VIEW_RGB_OWN);
  fprintf(stderr, "no-server.png: warning text %d pixels, own avatar %d pixels\n", warn, own0);
  assert_true(warn >= 50);  // "not connected" in the status box
  assert_int_equal(own0, 0);
  free(none.rgb);

  char http_port[16], token_path[700];
  int http = free_port(SOCK_STREAM);
  snprintf(http_port, sizeof http_port, "%d", http);
  snprintf(token_path, sizeof token_path, "%s/admin.token", g_work);
  FILE* tf = fopen(token_path, "w");
  assert_non_null(tf);
  fputs(ADMIN_TOKEN "\n", tf);
  fclose(tf);
  char* sv_argv[] = {server,    "--port",        port,       "--bind",   "127.0.0.1", "--http-port",
                     http_port, "--admin-token", token_path, "--record", rec,         NULL};
  pid_t sv = spawn("server.log", sv_argv);
  assert_true(sv > 0);
  sleep_ms(300);
  char* bot_argv[] = {bot,          "--host", "127.0.0.1",   "--port", port,     "--clients", "3",
                      "--duration", "12",     "--behaviour", "random", "--seed", "7",         NULL};
  pid_t bots = spawn("bots.log", bot_argv);
  // With the ghosts on (outlines at the newest raw snapshot poses) and the prediction layer
  // (the own avatar outlined where the prediction has it).
  char* view_argv[] = {view,
                       "--host",
                       "127.0.0.1",
                       "--port",
                       port,
                       "--size",
                       "640x400",
                       "--fps",
                       "30",
                       "--debug",
                       "ghosts,corrections",
                       "--screenshot",
                       shot[0],
                       "--after",
                       "3",
                       "--screenshot",
                       shot[1],
                       "--after",
                       "4",
                       NULL};
  pid_t vw = spawn("view-live.log", view_argv);
  // While it runs, the viewer reports what its window shows as its view box (§4.10): the
  // operator's session list has a box for the session named "viewer".
  bool box_seen = false;
  static char answer[16384];
  int vrc = -1;
  for (int t = 0; t <= 15000; t += 200) {
    int st = 0;
    if (waitpid(vw, &st, WNOHANG) == vw) {
      vrc = exit_status_of(st);
      break;
    }
    if (!box_seen && admin_sessions(http, answer, sizeof answer)) {
      const char* row = strstr(answer, "\"name\":\"viewer\"");
      const char* end = row ? strchr(row, '}') : NULL;
      const char* box = row ? strstr(row, "\"view\":[") : NULL;
      box_seen = box && end && box < end;
    }
    sleep_ms(200);
  }
  if (vrc != 0) {
    if (vrc < 0) stop(vw);
    show_log("view-live.log");
    show_log("server.log");
    show_log("bots.log");
  }
  // Let the bots play on a little so the recording has movement after the joins.
  sleep_ms(500);
  stop(bots);
  stop(sv);
  assert_int_equal(vrc, 0);
  if (!box_seen) fprintf(stderr, "last /admin/sessions answer:\n%s\n", answer);
  assert_true(box_seen);
  check_pair(names[0], names[1], 8);
  image live;
  assert_int_equal(png_read(shot[1], &live), 0);
  int ghost = count_rgb(&live, VIEW_RGB_GHOST);
  fprintf(stderr, "live-2.png: ghost outline %d pixels\n", ghost);
  assert_true(ghost >= 20);
  int predicted = count_rgb(&live, VIEW_RGB_CORRECTION);
  fprintf(stderr, "live-2.png: predicted avatar outline %d pixels\n", predicted);
  assert_true(predicted >= 20);
  free(live.rgb);

  // Replay: from 1 s into the recording (bots joined by then), frames at +1 s and +2 s.
  char* rv_argv[] = {view,      "--replay",     rec,     "--seek",       "60",    "--size",
                     "640x400", "--fps",        "30",    "--screenshot", shot[2], "--after",
                     "1",       "--screenshot", shot[3], "--after",      "2",     NULL};
  run_to_success("view-replay.log", rv_argv, 15000);
  // The re-simulation must agree with the server's recorded hashes.
  if (!log_contains("view-replay.log", "0 mismatches")) show_log("view-replay.log");
  assert_true(log_contains("view-replay.log", "0 mismatches"));
  // A replay has no "own" player: the followed avatar (lowest client id) is drawn in the
  // own colour, the others in the other colour.
  check_pair(names[2], names[3], 8);
}

// A screenshot of the scene sandbox on tests/scenes/SCENE (640x400, after 0.5 s), decoded.
static void sandbox_shot(const char* scene_file, const char* tag, image* im) {
  char view[600], scene[700], shot[700], log[64];
  snprintf(view, sizeof view, "%s/arbiter-view", g_bin);
  snprintf(scene, sizeof scene, "%s/%s", g_scenes, scene_file);
  snprintf(shot, sizeof shot, "%s/%s.png", g_work, tag);
  snprintf(log, sizeof log, "view-%s.log", tag);
  unlink(shot);
  setenv("SDL_VIDEODRIVER", "dummy", 1);
  char* argv[] = {view, "--scene",      scene, "--size",  "640x400", "--fps",
                  "30", "--screenshot", shot,  "--after", "0.5",     NULL};
  run_to_success(log, argv, 15000);
  assert_int_equal(png_read(shot, im), 0);
}

// Pixels of exactly colour rgb, and their bounding box.
static int colour_box(const image* im, uint32_t rgb, int* x0, int* x1, int* y0, int* y1) {
  int n = 0;
  *x0 = im->w, *x1 = -1, *y0 = im->h, *y1 = -1;
  for (int y = 0; y < im->h; y++)
    for (int x = 0; x < im->w; x++) {
      const uint8_t* p = im->rgb + 3 * ((size_t)y * (size_t)im->w + (size_t)x);
      if (p[0] != VIEW_R(rgb) || p[1] != VIEW_G(rgb) || p[2] != VIEW_B(rgb)) continue;
      n++;
      if (x < *x0) *x0 = x;
      if (x > *x1) *x1 = x;
      if (y < *y0) *y0 = y;
      if (y > *y1) *y1 = y;
    }
  return n;
}

// The scene sandbox on tests/scenes/triggers.json: the goal sensor is drawn as an outline
// in the sensor colour, with the background showing through it (a zone, not a solid).
static void test_view_sensor_drawn_as_outline(void** state) {
  (void)state;
  image im;
  sandbox_shot("triggers.json", "sensor", &im);
  // The outline's pixels, and the background inside it: the middle of their bounding box.
  int x0, x1, y0, y1;
  int n = colour_box(&im, VIEW_RGB_SENSOR, &x0, &x1, &y0, &y1);
  fprintf(stderr, "sensor.png: %d sensor pixels in [%d..%d] x [%d..%d]\n", n, x0, x1, y0, y1);
  assert_true(n >= 60);
  assert_true(x1 - x0 >= 10 && y1 - y0 >= 10);
  const uint8_t* mid =
      im.rgb + 3 * ((size_t)((y0 + y1) / 2) * (size_t)im.w + (size_t)((x0 + x1) / 2));
  assert_true(mid[0] != VIEW_R(VIEW_RGB_SENSOR) || mid[1] != VIEW_G(VIEW_RGB_SENSOR) ||
              mid[2] != VIEW_B(VIEW_RGB_SENSOR));
  assert_true(mid[0] != VIEW_R(VIEW_RGB_STATIC) || mid[1] != VIEW_G(VIEW_RGB_STATIC) ||
              mid[2] != VIEW_B(VIEW_RGB_STATIC));
  free(im.rgb);
}

// The scene sandbox on tests/scenes/compound.json draws every shape of a compound body:
// the detector's sensor ring is its second shape (only its first, a box, would be drawn
// otherwise), and it is a ring above the box, drawn as an outline.
static void test_view_compound_draws_every_shape(void** state) {
  (void)state;
  image im;
  sandbox_shot("compound.json", "compound", &im);
  int sx0, sx1, sy0, sy1, bx0, bx1, by0, by1;
  int n = colour_box(&im, VIEW_RGB_SENSOR, &sx0, &sx1, &sy0, &sy1);
  int statics = colour_box(&im, VIEW_RGB_STATIC, &bx0, &bx1, &by0, &by1);
  fprintf(stderr, "compound.png: %d sensor pixels in [%d..%d] x [%d..%d], %d static\n", n, sx0, sx1,
          sy0, sy1, statics);
  assert_true(n >= 40);
  assert_true(sx1 - sx0 >= 10 && sy1 - sy0 >= 10 && sx1 - sx0 <= 60);
  assert_true(statics > 0);
  free(im.rgb);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_view BIN_DIR WORK_DIR SCENES_DIR\n");
    return 2;
  }
  g_bin = argv[1];
  g_scenes = argv[3];
  snprintf(g_work, sizeof g_work, "%s", argv[2]);
  mkdir(g_work, 0755);
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_view_live_and_replay_screenshots),
      cmocka_unit_test(test_view_sensor_drawn_as_outline),
      cmocka_unit_test(test_view_compound_draws_every_shape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
