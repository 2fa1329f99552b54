// arbiter-sim: load a scene (or the built-in one), step it headless for N ticks and print
// the state as JSON lines. Output format and scene keys: docs/SCENES.md.
#include <arbiter/game.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_args.h"

// One line on stderr saying what is wrong, then the exit status for bad arguments.
#define bad_usage(fmt, arg) tool_bad_usage("arbiter-sim", 2, fmt, arg)

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

#define MAX_TICKS 1000000000ull

static const char usage[] =
    "usage: arbiter-sim [SCENE.json] --ticks N [--every K] [--hash-only]\n"
    "\n"
    "Run a scene headless for N fixed ticks (1/tick_rate s each) and print JSON lines on\n"
    "stdout: every K ticks and always after the last tick,\n"
    "  {\"tick\":N,\"hash\":\"<16 "
    "hex>\",\"bodies\":[{\"id\":I,\"name\":\"...\",\"p\":[x,y],\"a\":angle,\n"
    "   \"v\":[vx,vy],\"w\":w},...]}\n"
    "bodies in scene order (id = index + 1), then \"particles\", \"vehicles\", \"springs\" and\n"
    "\"joints\" when the world has any (docs/SCENES.md); \"hash\" is arb_world_hash (XXH3-64\n"
    "of the whole world state). Without SCENE.json the built-in default scene is used.\n"
    "\n"
    "options:\n"
    "  --ticks N     ticks to simulate (required, 0..1000000000; 0 prints the initial state)\n"
    "  --every K     also print after every K-th tick (K >= 1)\n"
    "  --hash-only   print only {\"tick\":N,\"hash\":\"...\"}\n"
    "  --help        this text          --version   print the build id\n"
    "\n"
    "exit status: 0 ok, 2 bad arguments or a scene that does not load (one line on stderr:\n"
    "FILE: JSON.PATH: REASON), 1 other failures.\n";

static void write_stdout(const char* data, size_t len, void* user) {
  (void)user;
  fwrite(data, 1, len, stdout);
}

int main(int argc, char** argv) {
  const char* scene_path = NULL;
  unsigned long long ticks = 0, every = 0;
  bool have_ticks = false, hash_only = false;

  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* value = NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("arbiter-sim %s\n", ARB_BUILD_ID);
      return 0;
    } else if (strcmp(a, "--hash-only") == 0) {
      hash_only = true;
    } else if (strncmp(a, "--ticks", 7) == 0 || strncmp(a, "--every", 7) == 0) {
      if (a[7] == '=') {
        value = a + 8;
      } else if (a[7] == '\0') {
        if (i + 1 >= argc) return bad_usage("%s needs a value", a);
        value = argv[++i];
      } else {
        return bad_usage("unknown option %s", a);
      }
      bool is_ticks = a[2] == 't';
      if (is_ticks) {
        if (tool_parse_u64(value, 0, MAX_TICKS, &ticks))
          return bad_usage("--ticks: not an integer in 0..1000000000: %s", value);
        have_ticks = true;
      } else if (tool_parse_u64(value, 1, MAX_TICKS, &every)) {
        return bad_usage("--every: not an integer in 1..1000000000: %s", value);
      }
    } else if (tool_take_operand("arbiter-sim", 2, a, "scene file", &scene_path) != 0) {
      return 2;
    }
  }
  if (!have_ticks) return bad_usage("%s", "--ticks N is required");

  arb_scene* scene = NULL;
  arb_scene_error err;
  int rc = scene_path ? arb_scene_load_file(scene_path, &scene, &err)
                      : arb_scene_load_default(&scene, &err);
  if (rc != ARB_OK) {
    char msg[1024];
    arb_scene_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return 2;
  }
  arb_game* game = NULL;
  rc = arb_game_create(scene, 0, &game);
  if (rc != ARB_OK) {
    fprintf(stderr, "arbiter-sim: cannot create the world: %s\n", arb_strerror(rc));
    arb_scene_destroy(scene);
    return 1;
  }

  static char outbuf[1 << 16];
  setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
  for (unsigned long long t = 1; t <= ticks; t++) {
    arb_game_step(game);
    if (every && t % every == 0 && t != ticks)
      arb_game_write_json(game, !hash_only, write_stdout, NULL);
  }
  arb_game_write_json(game, !hash_only, write_stdout, NULL);
  int status = 0;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "arbiter-sim: cannot write the output: %s\n", strerror(errno));
    status = 1;
  }
  arb_game_destroy(game);
  arb_scene_destroy(scene);
  return status;
}
