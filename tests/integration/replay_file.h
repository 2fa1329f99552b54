// A replay log the server wrote, opened for re-simulation offline: the reader, and the
// scene and game its header describes (scene text, tick rate, seed). Every step fails the
// test on error.
#pragma once

#include <stdlib.h>

#include <arbiter/game.h>
#include <arbiter/replay_log.h>
#include <arbiter/scene.h>

#include "test_server_common.h"

typedef struct replay_file {
  char* data;  ///< the file's bytes, read by the reader
  arb_replay_reader reader;
  arb_scene* scene;
  arb_game* game;
} replay_file;

static inline void replay_file_open(replay_file* f, const char* path) {
  long len = tc_read_file(path, &f->data);
  assert_true(len > 0);
  arb_proto_error err;
  assert_int_equal(arb_replay_reader_open(&f->reader, (const uint8_t*)f->data, (size_t)len, &err),
                   0);
  const arb_replay_header* h = &f->reader.header;
  f->scene = NULL;
  arb_scene_error serr;
  assert_int_equal(arb_scene_load_string(h->scene_text, h->scene_len, "log", &f->scene, &serr), 0);
  assert_int_equal(arb_scene_set_tick_rate(f->scene, h->tick_rate), 0);
  f->game = NULL;
  assert_int_equal(arb_game_create(f->scene, h->seed, &f->game), 0);
}

static inline void replay_file_close(replay_file* f) {
  arb_game_destroy(f->game);
  arb_scene_destroy(f->scene);
  free(f->data);
}
