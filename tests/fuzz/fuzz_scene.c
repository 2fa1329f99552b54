// Fuzz target: any bytes as a scene file. A scene that loads must also build a game that
// accepts joins, steps, and round-trips through save/restore; nothing may crash or leak.
// Built as a libFuzzer target (fuzz-scene) in the fuzz preset, and otherwise as a plain
// program that runs the seed corpus (test_fuzz_scene_corpus) under every ctest build.
#include <arbiter/game.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  arb_scene* scene = NULL;
  arb_scene_error err;
  int rc = arb_scene_load_string((const char*)data, size, "fuzz", &scene, &err);
  if (rc != ARB_OK) {
    char line[1024];
    arb_scene_error_format(&err, line, sizeof line);
    if (scene != NULL || err.message[0] == '\0') abort();  // failure must say why
    return 0;
  }
  arb_game* game = NULL;
  if (arb_game_create(scene, size, &game) != ARB_OK) abort();  // a loaded scene always builds
  for (uint32_t c = 1; c <= 3; c++) {
    if (arb_game_join(game, c, ARB_AVATAR_DEFAULT, NULL) != ARB_OK) abort();
  }
  // Every scene also offers vehicle avatars (the scene's vehicle template or the default kart).
  if (arb_game_join(game, 4, ARB_AVATAR_VEHICLE, NULL) != ARB_OK) abort();
  arb_controls ctl = {1.0f, -1.0f, 0.5f, ARB_BUTTON_JUMP, 0.0f, 0.0f, 0.0f};
  arb_game_set_controls(game, 2, &ctl);
  arb_controls drive = {0.0f, 0.0f, 0.0f, 0u, 0.5f, 1.0f, 0.0f};
  arb_game_set_controls(game, 4, &drive);
  for (int t = 0; t < 4; t++) arb_game_step(game);
  if (arb_game_leave(game, 1) != ARB_OK) abort();
  int n = arb_game_save(game, NULL, 0);
  if (n > 0) {
    uint8_t* image = malloc((size_t)n);
    if (image && arb_game_save(game, image, n) == n) {
      uint64_t h = arb_game_hash(game);
      if (arb_game_restore(game, image, n) != ARB_OK || arb_game_hash(game) != h) abort();
    }
    free(image);
  }
  arb_game_destroy(game);
  arb_scene_destroy(scene);
  return 0;
}
