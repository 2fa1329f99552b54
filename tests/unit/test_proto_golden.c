// Golden byte vectors: every message kind and replay record kind, encoded from the
// fixtures, must equal the hex shown in PROTOCOL.md ("```hex golden=<name>" blocks), and
// the doc's bytes must decode to the fixture. So the spec cannot drift from the code.
//
//   test_proto_golden PROTOCOL.md          check (ctest)
//   test_proto_golden --print              print the blocks to paste into PROTOCOL.md
//   test_proto_golden --write-corpus DIR   write fuzz seeds DIR/<target>/<name>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../common/read_file.h"
#include "../common/test_main.h"
#include "test_proto_fixtures.h"

static const char* doc_path;
static char* doc;

static uint8_t enc[8192];

static int encode(int i, uint8_t* out, size_t cap) {
  int64_t n = fx_golden_encode(i, out, cap);
  assert_true(n > 0 && (size_t)n <= cap);
  return (int)n;
}

/* Hex of block `name` in the doc: returns the byte count, -1 if absent, -2 if twice. */
static int doc_block(const char* name, uint8_t* out, size_t cap) {
  char tag[64];
  snprintf(tag, sizeof tag, "```hex golden=%s\n", name);
  const char* p = strstr(doc, tag);
  if (!p) return -1;
  if (strstr(p + 1, tag)) return -2;
  p += strlen(tag);
  const char* end = strstr(p, "```");
  if (!end) return -1;
  int n = 0;
  while (p < end) {
    unsigned v;
    int used;
    if (*p == ' ' || *p == '\n') {
      p++;
      continue;
    }
    if (sscanf(p, "%2x%n", &v, &used) != 1 || used != 2 || (size_t)n >= cap) return -3;
    out[n++] = (uint8_t)v;
    p += 2;
  }
  return n;
}

static void print_block(const char* name, const uint8_t* b, int n) {
  printf("```hex golden=%s\n", name);
  for (int i = 0; i < n; i++) printf("%02x%s", b[i], (i % 16 == 15 || i == n - 1) ? "\n" : " ");
  printf("```\n\n");
}

/* Decode the doc's bytes with the matching decoder and encode again: same bytes. */
static void redecode(int i, const uint8_t* b, int n) {
  static arb_proto_static_body statics[8];
  static arb_replay_tick tick;
  static uint8_t again[8192];
  arb_proto_error err;
  int64_t m = -1;
  const char* name = fx_golden[i].name;
  int rc = -1;
  if (fx_reencode_plain(name, b, (size_t)n, again, sizeof again, &err, &rc, &m)) {
    assert_int_equal(rc, 0);  // hello, reject, input, event, ping, pong, scene, view
  } else if (!strncmp(name, "welcome", 7)) {  // welcome, welcome_chain
    arb_proto_welcome x;
    memset(&x, 0, sizeof x);
    x.statics = statics;
    x.static_cap = 8;
    assert_int_equal(arb_proto_decode_welcome(b, (size_t)n, &x, &err), 0);
    m = arb_proto_encode_welcome(&x, again, sizeof again);
  } else if (!strncmp(name, "snapshot_", 9)) {
    static arb_snapshot_part part;
    assert_int_equal(arb_proto_decode_snapshot(b, (size_t)n, &part, &err), 0);
    m = arb_proto_encode_snapshot(&part, again, sizeof again);
  } else if (!strcmp(name, "replay_header")) {
    arb_replay_reader r;
    assert_int_equal(arb_replay_reader_open(&r, b, (size_t)n, &err), 0);
    m = arb_replay_encode_header(&r.header, again, sizeof again);
  } else {
    // A record: put it behind a header (and, for the end record, the tick record it
    // closes) so the reader validates it in context.
    static uint8_t file[8192];
    int h = encode(7, file, sizeof file);  // replay_header
    int is_end = !strcmp(name, "replay_end");
    if (is_end) h += encode(8, file + h, sizeof file - (size_t)h);  // replay_tick
    memcpy(file + h, b, (size_t)n);
    arb_replay_reader r;
    arb_replay_record rec;
    assert_int_equal(arb_replay_reader_open(&r, file, (size_t)(h + n), &err), 0);
    assert_int_equal(arb_replay_reader_next(&r, &rec), 1);
    if (is_end) assert_int_equal(arb_replay_reader_next(&r, &rec), 1);
    if (rec.kind == ARB_REPLAY_TICK) {
      assert_int_equal(arb_replay_decode_tick(&rec, &tick, &err), 0);
      m = arb_replay_encode_tick(&tick, again, sizeof again);
    } else if (rec.kind == ARB_REPLAY_CHECKPOINT) {
      arb_replay_checkpoint c;
      assert_int_equal(arb_replay_decode_checkpoint(&rec, &c, &err), 0);
      m = arb_replay_encode_checkpoint(&c, again, sizeof again);
    } else {
      arb_replay_end e;
      assert_int_equal(arb_replay_decode_end(&rec, &e, &err), 0);
      m = arb_replay_encode_end(&e, again, sizeof again);
    }
  }
  assert_int_equal(m, n);
  assert_memory_equal(again, b, (size_t)n);
}

static void test_proto_golden_vectors_match_doc(void** state) {
  (void)state;
  assert_non_null(doc);
  static uint8_t from_doc[8192];
  for (int i = 0; i < FX_GOLDEN_COUNT; i++) {
    int n = encode(i, enc, sizeof enc);
    int d = doc_block(fx_golden[i].name, from_doc, sizeof from_doc);
    if (d < 0)
      fail_msg("PROTOCOL.md: golden block '%s' %s", fx_golden[i].name,
               d == -2 ? "appears twice" : "missing or bad hex");
    if (d != n || memcmp(enc, from_doc, (size_t)n) != 0) {
      fprintf(stderr, "PROTOCOL.md is out of date for '%s'; the code encodes:\n",
              fx_golden[i].name);
      print_block(fx_golden[i].name, enc, n);
      fail_msg("golden vector '%s' differs from PROTOCOL.md", fx_golden[i].name);
    }
    redecode(i, from_doc, d);
  }
}

static int write_file(const char* dir, const char* sub, const char* name, const uint8_t* b,
                      size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
  FILE* f = fopen(path, "wb");
  if (!f) return 1;
  fwrite(b, 1, n, f);
  return fclose(f) != 0;
}

static const char* corpus_of(const char* name) {
  if (!strncmp(name, "input", 5) || !strcmp(name, "ping") || !strcmp(name, "pong"))
    return "proto_input";
  if (!strncmp(name, "snapshot_", 9)) return "snapshot";
  if (!strncmp(name, "replay", 6)) return "replay";
  return "proto_control";
}

int main(int argc, char** argv) {
  if (argc == 2 && !strcmp(argv[1], "--print")) {
    for (int i = 0; i < FX_GOLDEN_COUNT; i++) {
      int64_t n = fx_golden_encode(i, enc, sizeof enc);
      if (n <= 0) return 1;
      print_block(fx_golden[i].name, enc, (int)n);
    }
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "--write-corpus")) {
    int bad = 0;
    static uint8_t file[16384];
    size_t flen = 0;
    for (int i = 0; i < FX_GOLDEN_COUNT; i++) {
      int64_t n = fx_golden_encode(i, enc, sizeof enc);
      if (n <= 0) return 1;
      const char* c = corpus_of(fx_golden[i].name);
      if (strcmp(c, "replay") != 0) {
        bad |= write_file(argv[2], c, fx_golden[i].name, enc, (size_t)n);
      } else {
        memcpy(file + flen, enc, (size_t)n);
        flen += (size_t)n;
      }
    }
    // The replay reader takes whole files: header, tick, checkpoint, end.
    bad |= write_file(argv[2], "replay", "golden.arbrec", file, flen);
    return bad;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: test_proto_golden PROTOCOL.md | --print | --write-corpus DIR\n");
    return 2;
  }
  doc_path = argv[1];
  doc = arb_test_read_file(doc_path, NULL);
  if (!doc) {
    fprintf(stderr, "test_proto_golden: cannot read %s: %s\n", doc_path, strerror(errno));
    return 1;
  }
  int rc = ARB_RUN_TESTS(NULL, NULL, cmocka_unit_test(test_proto_golden_vectors_match_doc));
  free(doc);
  return rc;
}
