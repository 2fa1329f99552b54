// Tests that build replay logs in memory: records appended to a growing buffer through the
// real encoders (protocol/replay_log.h). Include after cmocka.h.
#pragma once

#include <stdint.h>
#include <stdlib.h>

#include <arbiter/replay_log.h>

typedef struct log_buffer {
  uint8_t* p;
  size_t len, cap;
} log_buffer;

typedef int64_t log_encode_fn(const void* rec, uint8_t* buf, size_t cap);

static inline void log_put(log_buffer* b, log_encode_fn* enc, const void* rec) {
  int64_t need = enc(rec, NULL, 0);
  assert_true(need > 0);
  if (b->len + (size_t)need > b->cap) {
    b->cap = (b->len + (size_t)need) * 2;
    b->p = realloc(b->p, b->cap);
    assert_non_null(b->p);
  }
  assert_int_equal(enc(rec, b->p + b->len, (size_t)need), need);
  b->len += (size_t)need;
}

static inline int64_t log_header(const void* r, uint8_t* b, size_t c) {
  return arb_replay_encode_header(r, b, c);
}
static inline int64_t log_tick(const void* r, uint8_t* b, size_t c) {
  return arb_replay_encode_tick(r, b, c);
}
static inline int64_t log_checkpoint(const void* r, uint8_t* b, size_t c) {
  return arb_replay_encode_checkpoint(r, b, c);
}
static inline int64_t log_end(const void* r, uint8_t* b, size_t c) {
  return arb_replay_encode_end(r, b, c);
}
