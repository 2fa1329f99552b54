// Replay log: write/read round trip, and damaged files (cut at every byte, a flipped bit
// in every byte, bad bodies with good checksums) read back to the last good record with
// a clear account of where and why the reader stopped.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../common/test_main.h"
#include "test_proto_fixtures.h"

#define TICKS 40
#define CHECKPOINT_AT 20

static uint8_t log_buf[256 * 1024];
static size_t log_len;
static size_t rec_start[TICKS + 4];   // start offset of each record (0 = header)
static uint64_t rec_tick[TICKS + 4];  // tick reached after each record
static int rec_count;
static arb_replay_tick tick_rec, tick_out;

static void append(int64_t n) {
  assert_true(n > 0);
  log_len += (size_t)n;
}

static void fill_tick(arb_replay_tick* t, uint64_t tick) {
  memset(t, 0, sizeof *t);
  t->tick = tick;
  if (tick == 1) {
    t->join_count = 2;
    t->joins[0].client_id = 1;
    t->joins[0].avatar_kind = ARB_AVATAR_FORCE;
    t->joins[0].entity_id = 100;
    strcpy(t->joins[0].name, "ada");
    t->joins[1].client_id = 2;
    t->joins[1].entity_id = 101;
    strcpy(t->joins[1].name, "\xe2\x82\xac");
  }
  if (tick == 30) {
    t->leave_count = 1;
    t->leaves[0] = 2;
  }
  t->input_count = tick < 30 ? 2 : 1;
  for (int i = 0; i < t->input_count; i++) {
    t->inputs[i].client_id = (uint32_t)(i + 1);
    t->inputs[i].seq = (uint32_t)tick * 3;
    t->inputs[i].controls.move_x = (int8_t)(tick % 255 - 127);
    t->inputs[i].controls.aim = (uint16_t)(tick * 1000);
    t->inputs[i].controls.throttle = (uint8_t)tick;
  }
  t->world_hash = tick * 0x9e3779b97f4a7c15ull;
}

static void write_log(void) {
  log_len = 0;
  rec_count = 0;
  arb_replay_header h = fx_replay_header();
  rec_start[rec_count] = 0;
  rec_tick[rec_count++] = 0;
  append(arb_replay_encode_header(&h, log_buf + log_len, sizeof log_buf - log_len));
  for (uint64_t t = 1; t <= TICKS; t++) {
    fill_tick(&tick_rec, t);
    rec_start[rec_count] = log_len;
    rec_tick[rec_count++] = t;
    append(arb_replay_encode_tick(&tick_rec, log_buf + log_len, sizeof log_buf - log_len));
    if (t == CHECKPOINT_AT) {
      arb_replay_checkpoint c = fx_replay_checkpoint(t);
      rec_start[rec_count] = log_len;
      rec_tick[rec_count++] = t;
      append(arb_replay_encode_checkpoint(&c, log_buf + log_len, sizeof log_buf - log_len));
    }
  }
  arb_replay_end e = fx_replay_end(TICKS, TICKS);
  rec_start[rec_count] = log_len;
  rec_tick[rec_count++] = TICKS;
  append(arb_replay_encode_end(&e, log_buf + log_len, sizeof log_buf - log_len));
}

static void test_proto_replay_roundtrip(void** state) {
  (void)state;
  write_log();
  arb_replay_reader r;
  arb_proto_error err;
  assert_int_equal(arb_replay_reader_open(&r, log_buf, log_len, &err), 0);
  arb_replay_header h = fx_replay_header();
  assert_int_equal(r.header.build_id_len, h.build_id_len);
  assert_memory_equal(r.header.build_id, h.build_id, h.build_id_len);
  assert_memory_equal(r.header.scene_text, h.scene_text, h.scene_len);
  assert_true(r.header.scene_hash == h.scene_hash);
  assert_int_equal(r.header.tick_rate, 60);
  assert_true(r.header.seed == 42);
  assert_true(r.header.start_time_ms == h.start_time_ms);
  arb_replay_record rec;
  uint64_t expect = 1;
  int checkpoints = 0, ends = 0;
  while (arb_replay_reader_next(&r, &rec) == 1) {
    if (rec.kind == ARB_REPLAY_TICK) {
      assert_int_equal(rec.tick, expect);
      assert_int_equal(arb_replay_decode_tick(&rec, &tick_out, &err), 0);
      fill_tick(&tick_rec, expect);
      assert_true(tick_out.tick == expect);
      assert_int_equal(tick_out.join_count, tick_rec.join_count);
      assert_int_equal(tick_out.leave_count, tick_rec.leave_count);
      assert_int_equal(tick_out.input_count, tick_rec.input_count);
      for (int i = 0; i < tick_rec.join_count; i++) {
        assert_int_equal(tick_out.joins[i].client_id, tick_rec.joins[i].client_id);
        assert_int_equal(tick_out.joins[i].avatar_kind, tick_rec.joins[i].avatar_kind);
        assert_int_equal(tick_out.joins[i].entity_id, tick_rec.joins[i].entity_id);
        assert_string_equal(tick_out.joins[i].name, tick_rec.joins[i].name);
      }
      for (int i = 0; i < tick_rec.leave_count; i++)
        assert_int_equal(tick_out.leaves[i], tick_rec.leaves[i]);
      for (int i = 0; i < tick_rec.input_count; i++) {
        assert_int_equal(tick_out.inputs[i].client_id, tick_rec.inputs[i].client_id);
        assert_int_equal(tick_out.inputs[i].seq, tick_rec.inputs[i].seq);
        assert_int_equal(tick_out.inputs[i].controls.move_x, tick_rec.inputs[i].controls.move_x);
        assert_int_equal(tick_out.inputs[i].controls.aim, tick_rec.inputs[i].controls.aim);
        assert_int_equal(tick_out.inputs[i].controls.throttle,
                         tick_rec.inputs[i].controls.throttle);
      }
      assert_true(tick_out.world_hash == tick_rec.world_hash);
      expect++;
    } else if (rec.kind == ARB_REPLAY_CHECKPOINT) {
      arb_replay_checkpoint c;
      assert_int_equal(arb_replay_decode_checkpoint(&rec, &c, &err), 0);
      assert_int_equal(c.tick, CHECKPOINT_AT);
      assert_int_equal(c.state_len, sizeof fx_checkpoint_state);
      assert_memory_equal(c.state, fx_checkpoint_state, c.state_len);
      checkpoints++;
    } else {
      assert_int_equal(rec.kind, ARB_REPLAY_END);
      arb_replay_end e;
      assert_int_equal(arb_replay_decode_end(&rec, &e, &err), 0);
      assert_int_equal(e.last_tick, TICKS);
      ends++;
    }
  }
  assert_int_equal(expect, TICKS + 1);
  assert_int_equal(checkpoints, 1);
  assert_int_equal(ends, 1);
  assert_int_equal(r.stop, ARB_REPLAY_STOP_CLEAN);
  assert_int_equal(arb_replay_reader_next(&r, &rec), 0);  // stays stopped
  char msg[256];
  arb_replay_reader_describe(&r, msg, sizeof msg);
  char want[128];
  snprintf(want, sizeof want, "clean end: %d tick records, last tick %d, %zu bytes", TICKS, TICKS,
           log_len);
  assert_string_equal(msg, want);
  // A decode of the wrong kind is refused.
  assert_int_equal(arb_replay_decode_tick(&rec, &tick_out, &err), ARB_E_INVAL);
}

/* Read everything; returns the number of records read (header included). */
static int read_all(const uint8_t* data, size_t len, arb_replay_reader* r) {
  arb_proto_error err;
  if (arb_replay_reader_open(r, data, len, &err) < 0) {
    assert_true(err.reason[0] != '\0');
    return 0;
  }
  arb_replay_record rec;
  int n = 1;
  while (arb_replay_reader_next(r, &rec) == 1) n++;
  return n;
}

static void test_proto_replay_truncated(void** state) {
  (void)state;
  write_log();
  static uint8_t copy[sizeof log_buf];
  for (size_t cut = 0; cut < log_len; cut++) {
    // A copy of exactly `cut` bytes on the heap, so ASan sees any read past the end.
    uint8_t* p = malloc(cut ? cut : 1);
    memcpy(p, log_buf, cut);
    arb_replay_reader r;
    int n = read_all(p, cut, &r);
    // whole records before the cut
    int whole = 0;
    for (int i = 0; i < rec_count; i++) {
      size_t end = i + 1 < rec_count ? rec_start[i + 1] : log_len;
      if (end <= cut) whole = i + 1;
    }
    assert_int_equal(n, whole);
    if (whole > 0) {
      assert_int_equal(r.last_good_offset, whole < rec_count ? rec_start[whole] : log_len);
      uint64_t t = rec_tick[whole - 1];
      if (whole - 1 == CHECKPOINT_AT + 1) t = CHECKPOINT_AT;  // the checkpoint record
      assert_int_equal(r.last_tick, t);
      int at_boundary = r.last_good_offset == cut;
      assert_int_equal(r.stop, at_boundary ? ARB_REPLAY_STOP_EOF : ARB_REPLAY_STOP_TRUNCATED);
    }
    free(p);
  }
  // The message for a cut in the middle of tick 11's record.
  size_t cut = rec_start[11] + 5;
  memcpy(copy, log_buf, cut);
  arb_replay_reader r;
  assert_int_equal(read_all(copy, cut, &r), 11);
  char msg[256], want[256];
  arb_replay_reader_describe(&r, msg, sizeof msg);
  snprintf(want, sizeof want,
           "truncated: stopped at offset %zu after tick 10 (10 tick records; last good byte %zu of "
           "%zu): record cut short: "
           "5 bytes, a frame needs at least 12",
           rec_start[11], rec_start[11], cut);
  assert_string_equal(msg, want);
  // Cut exactly after a record: EOF, and the reason says the log was not closed.
  assert_int_equal(read_all(log_buf, rec_start[11], &r), 11);
  assert_int_equal(r.stop, ARB_REPLAY_STOP_EOF);
  arb_replay_reader_describe(&r, msg, sizeof msg);
  ARB_ASSERT_HAS(msg, "eof: stopped at offset", "after tick 10", "without an end record");
}

static void test_proto_replay_bitflip(void** state) {
  (void)state;
  write_log();
  static uint8_t copy[sizeof log_buf];
  for (size_t pos = 0; pos < log_len; pos++) {
    memcpy(copy, log_buf, log_len);
    copy[pos] ^= (uint8_t)(1u << (pos % 8));
    arb_replay_reader r;
    int n = read_all(copy, log_len, &r);
    // the record holding the flipped byte and everything after it are not read
    int hit = 0;
    for (int i = 0; i < rec_count; i++)
      if (rec_start[i] <= pos) hit = i;
    if (pos < ARB_REPLAY_MAGIC_LEN) hit = 0;
    assert_int_equal(n, hit);
    if (hit > 0) {
      assert_int_equal(r.last_good_offset, rec_start[hit]);
      assert_true(r.stop == ARB_REPLAY_STOP_CHECKSUM || r.stop == ARB_REPLAY_STOP_TRUNCATED ||
                  r.stop == ARB_REPLAY_STOP_CORRUPT);
      // a flip in the body or the checksum itself is a checksum mismatch
      if (pos >= rec_start[hit] + 8) assert_int_equal(r.stop, ARB_REPLAY_STOP_CHECKSUM);
    }
  }
  // The message for a flip inside tick 7's body.
  memcpy(copy, log_buf, log_len);
  copy[rec_start[7] + 10] ^= 0x10;
  arb_replay_reader r;
  assert_int_equal(read_all(copy, log_len, &r), 7);
  char msg[256];
  arb_replay_reader_describe(&r, msg, sizeof msg);
  char want[96];
  snprintf(want, sizeof want, "checksum: stopped at offset %zu after tick 6 (6 tick records;",
           rec_start[7]);
  assert_true(strncmp(msg, want, strlen(want)) == 0);
  assert_non_null(strstr(msg, "record checksum mismatch (stored 0x"));
}

static void test_proto_replay_bad_content(void** state) {
  (void)state;
  write_log();
  static uint8_t copy[sizeof log_buf];
  arb_replay_reader r;
  arb_proto_error err;
  char msg[256];
  // 1. a tick record whose body has a str for the tick number, checksum valid
  size_t n = rec_start[3];
  memcpy(copy, log_buf, n);
  const uint8_t bad_body[] = {0x95, 0xa1, 'x', 0x90, 0x90, 0x90, 0x00};
  n += fx_frame_record(copy + n, bad_body, sizeof bad_body, ARB_REPLAY_TICK);
  assert_int_equal(read_all(copy, n, &r), 3);
  assert_int_equal(r.stop, ARB_REPLAY_STOP_CORRUPT);
  assert_string_equal(r.error.reason, "replay tick: field 'tick': expected int, got str");
  // 2. a gap in the ticks (tick 2 then tick 4)
  n = rec_start[3];
  memcpy(copy, log_buf, n);
  memcpy(copy + n, log_buf + rec_start[4], rec_start[5] - rec_start[4]);
  n += rec_start[5] - rec_start[4];
  assert_int_equal(read_all(copy, n, &r), 3);
  assert_string_equal(r.error.reason, "tick record 4 after tick 2");
  // 3. bytes after the end record
  memcpy(copy, log_buf, log_len);
  copy[log_len] = 0;
  assert_int_equal(read_all(copy, log_len + 1, &r), rec_count);
  assert_int_equal(r.stop, ARB_REPLAY_STOP_CORRUPT);
  assert_string_equal(r.error.reason, "1 bytes after the end record");
  // 4. an end record that does not match the log
  n = rec_start[rec_count - 1];
  memcpy(copy, log_buf, n);
  arb_replay_end e = fx_replay_end(TICKS, TICKS + 1);
  int64_t k = arb_replay_encode_end(&e, copy + n, sizeof copy - n);
  assert_true(k > 0);
  assert_int_equal(read_all(copy, n + (size_t)k, &r), rec_count - 1);
  assert_non_null(strstr(r.error.reason, "end record says last tick 40 of 41"));
  // 5. a huge length field is refused without reading
  memcpy(copy, log_buf, log_len);
  copy[rec_start[2] + 3] = 0xff;
  assert_int_equal(read_all(copy, log_len, &r), 2);
  assert_int_equal(r.stop, ARB_REPLAY_STOP_CORRUPT);
  assert_non_null(strstr(r.error.reason, "over the limit"));
  // 6. not a log at all; empty; another format version
  assert_int_equal(arb_replay_reader_open(&r, (const uint8_t*)"hello world", 11, &err),
                   ARB_E_CORRUPT);
  assert_string_equal(err.reason, "not an .arbrec file (bad magic)");
  assert_int_equal(arb_replay_reader_open(&r, NULL, 0, &err), ARB_E_TRUNCATED);
  arb_replay_header h = fx_replay_header();
  h.format_version = 3;
  assert_int_equal(arb_replay_encode_header(&h, copy, sizeof copy), ARB_E_VERSION);
  const uint8_t v3[] = {0x97, 0x03, 0xa0, 0xc4, 0x00, 0x00, 0x01, 0x00, 0x00};
  memcpy(copy, ARB_REPLAY_MAGIC, 8);
  n = 8 + fx_frame_record(copy + 8, v3, sizeof v3, ARB_REPLAY_HEADER);
  assert_int_equal(arb_replay_reader_open(&r, copy, n, &err), ARB_E_VERSION);
  assert_string_equal(
      err.reason,
      "replay header: field 'format_version': format version 3, this reader reads 1 to 2");
  arb_replay_reader_describe(&r, msg, sizeof msg);
  assert_non_null(strstr(msg, "format version 3"));
  // Version 1 (7 elements, no simulation version or predecessor) still reads; version 2
  // needs its 9 elements.
  h = fx_replay_header();
  h.format_version = 1;
  assert_int_equal(arb_replay_encode_header(&h, copy, sizeof copy), ARB_E_INVAL);
  h.predecessor_len = 0;
  h.sim_version = 0;
  int64_t v1n = arb_replay_encode_header(&h, copy, sizeof copy);
  assert_true(v1n > 0 && (size_t)v1n <= sizeof copy);
  assert_int_equal(arb_replay_reader_open(&r, copy, (size_t)v1n, &err), ARB_OK);
  assert_int_equal(r.header.format_version, 1);
  assert_int_equal(r.header.sim_version, 0);
  assert_int_equal(r.header.predecessor_len, 0);
  const uint8_t v2short[] = {0x97, 0x02, 0xa0, 0xc4, 0x00, 0x00, 0x01, 0x00, 0x00};
  n = 8 + fx_frame_record(copy + 8, v2short, sizeof v2short, ARB_REPLAY_HEADER);
  assert_int_equal(arb_replay_reader_open(&r, copy, n, &err), ARB_E_CORRUPT);
  assert_non_null(strstr(err.reason, "header of 7 elements, expected 9"));
  // 7. encoders refuse invalid records
  memset(&tick_rec, 0, sizeof tick_rec);
  assert_int_equal(arb_replay_encode_tick(&tick_rec, copy, sizeof copy), ARB_E_INVAL);  // tick 0
  tick_rec.tick = 1;
  tick_rec.input_count = ARB_PROTO_MAX_CLIENTS + 1;
  assert_int_equal(arb_replay_encode_tick(&tick_rec, copy, sizeof copy), ARB_E_TOO_BIG);
  tick_rec.input_count = 0;
  // a buffer that is too small gets the size, for every record kind
  int64_t need = arb_replay_encode_tick(&tick_rec, NULL, 0);
  assert_true(need > 12);
  assert_int_equal(arb_replay_encode_tick(&tick_rec, copy, (size_t)need - 1), need);
  assert_int_equal(arb_replay_encode_tick(&tick_rec, copy, (size_t)need), need);
}

static void test_proto_replay_max_clients(void** state) {
  (void)state;
  // A tick with the most joins, leaves and inputs a record may hold, at extreme values.
  static uint8_t file[1 << 20];
  memset(&tick_rec, 0, sizeof tick_rec);
  tick_rec.tick = UINT64_MAX;
  tick_rec.world_hash = UINT64_MAX;
  tick_rec.join_count = tick_rec.leave_count = tick_rec.input_count = ARB_PROTO_MAX_CLIENTS;
  for (int i = 0; i < ARB_PROTO_MAX_CLIENTS; i++) {
    arb_replay_join* j = &tick_rec.joins[i];
    j->client_id = UINT32_MAX - (uint32_t)i;
    j->avatar_kind = ARB_AVATAR_KIND_COUNT - 1;
    j->entity_id = UINT32_MAX;
    memset(j->name, 'a' + i % 26, ARB_PROTO_MAX_NAME);
    tick_rec.leaves[i] = (uint32_t)i + 1;
    arb_replay_input* in = &tick_rec.inputs[i];
    in->client_id = (uint32_t)i + 1;
    in->seq = UINT32_MAX;
    in->controls.move_x = -127;
    in->controls.move_y = 127;
    in->controls.aim = 65535;
    in->controls.buttons = 0xFFFF;
    in->controls.steer = 127;
    in->controls.throttle = 255;
    in->controls.brake = 255;
  }
  arb_replay_header h = fx_replay_header();
  int64_t n = arb_replay_encode_header(&h, file, sizeof file);
  assert_true(n > 0);
  int64_t k = arb_replay_encode_tick(&tick_rec, file + n, sizeof file - (size_t)n);
  assert_true(k > 0 && n + k <= (int64_t)sizeof file);
  arb_replay_reader r;
  arb_replay_record rec;
  arb_proto_error err;
  assert_int_equal(arb_replay_reader_open(&r, file, (size_t)(n + k), &err), 0);
  assert_int_equal(arb_replay_reader_next(&r, &rec), 1);
  memset(&tick_out, 0, sizeof tick_out);
  assert_int_equal(arb_replay_decode_tick(&rec, &tick_out, &err), 0);
  assert_true(tick_out.tick == UINT64_MAX && tick_out.world_hash == UINT64_MAX);
  assert_int_equal(tick_out.join_count, ARB_PROTO_MAX_CLIENTS);
  assert_memory_equal(tick_out.joins, tick_rec.joins, sizeof tick_rec.joins);
  assert_memory_equal(tick_out.leaves, tick_rec.leaves, sizeof tick_rec.leaves);
  for (int i = 0; i < ARB_PROTO_MAX_CLIENTS; i++) {
    assert_int_equal(tick_out.inputs[i].client_id, tick_rec.inputs[i].client_id);
    assert_int_equal(tick_out.inputs[i].seq, tick_rec.inputs[i].seq);
    assert_int_equal(tick_out.inputs[i].controls.aim, 65535);
    assert_int_equal(tick_out.inputs[i].controls.move_x, -127);
  }
  assert_int_equal(arb_replay_reader_next(&r, &rec), 0);
  assert_int_equal(r.stop, ARB_REPLAY_STOP_EOF);
}

ARB_TEST_MAIN(cmocka_unit_test(test_proto_replay_roundtrip),
              cmocka_unit_test(test_proto_replay_truncated),
              cmocka_unit_test(test_proto_replay_bitflip),
              cmocka_unit_test(test_proto_replay_bad_content),
              cmocka_unit_test(test_proto_replay_max_clients))
