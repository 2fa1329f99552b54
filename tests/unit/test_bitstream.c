// Bit writer/reader: exact bit order (the byte-wise writer against a bit-at-a-time one),
// bucket codes, and that neither side ever goes past its buffer (sticky overflow/overrun
// flags instead).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <arbiter/bitstream.h>

#include "../common/test_main.h"
#include "test_rng.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void) {
  return (uint32_t)(xorshift64_next(&rng) >> 17);
}

static void bit_order_is_lsb_first(void** state) {
  (void)state;
  uint8_t buf[4] = {0xAA, 0xAA, 0xAA, 0xAA};
  arb_bit_writer w;
  arb_bits_writer_init(&w, buf, sizeof buf);
  arb_bits_write(&w, 1, 1);       // bit 0
  arb_bits_write(&w, 0x5, 3);     // bits 1..3 = 1,0,1
  arb_bits_write(&w, 0x3FF, 10);  // bits 4..13
  assert_int_equal(w.pos, 14);
  assert_int_equal(arb_bits_writer_bytes(&w), 2);
  assert_int_equal(buf[0], 0xFB);  // 1111 1011
  assert_int_equal(buf[1], 0x3F);  // padding bits are zero
  assert_int_equal(buf[2], 0xAA);  // untouched
  arb_bit_reader r;
  arb_bits_reader_init(&r, buf, 2);
  assert_int_equal(arb_bits_read(&r, 1), 1);
  assert_int_equal(arb_bits_read(&r, 3), 5);
  assert_int_equal(arb_bits_read(&r, 10), 0x3FF);
  assert_int_equal(arb_bits_remaining(&r), 2);
  assert_int_equal(arb_bits_read(&r, 2), 0);
  assert_false(r.overrun);
}

static void random_round_trip(void** state) {
  (void)state;
  static uint8_t buf[8192];
  static uint32_t vals[4000];
  static int widths[4000];
  arb_bit_writer w;
  arb_bits_writer_init(&w, buf, sizeof buf);
  for (int i = 0; i < 4000; ++i) {
    widths[i] = (int)(rnd() % 33);
    vals[i] = widths[i] == 32 ? (rnd() << 16) ^ rnd() : (rnd() & ((1u << widths[i]) - 1u));
    arb_bits_write(&w, vals[i], widths[i]);
  }
  assert_false(w.overflow);
  arb_bit_reader r;
  arb_bits_reader_init(&r, buf, arb_bits_writer_bytes(&w));
  for (int i = 0; i < 4000; ++i) assert_int_equal(arb_bits_read(&r, widths[i]), vals[i]);
  assert_false(r.overrun);
  assert_true(arb_bits_remaining(&r) < 8);
}

/* The writer moves bytes at a time: its stream equals bit i of each value going to bit
 * pos + i of the buffer, one bit at a time, with bits above the width ignored. */
static void bytes_equal_a_bit_at_a_time(void** state) {
  (void)state;
  static uint8_t got[4096], want[4096];
  memset(got, 0x5A, sizeof got);  // garbage the writer must clear as it goes
  memset(want, 0, sizeof want);
  arb_bit_writer w;
  arb_bits_writer_init(&w, got, sizeof got);
  size_t pos = 0;
  for (int i = 0; i < 2000; ++i) {
    int n = (int)(rnd() % 33);
    uint32_t v = (rnd() << 16) ^ rnd();  // high bits beyond n set too
    arb_bits_write(&w, v, n);
    for (int b = 0; b < n; ++b, ++pos)
      if ((v >> b) & 1u) want[pos >> 3] |= (uint8_t)(1u << (pos & 7u));
  }
  assert_false(w.overflow);
  assert_int_equal(w.pos, pos);
  assert_memory_equal(got, want, (pos + 7) / 8);
}

static void bucket_codes(void** state) {
  (void)state;
  const arb_bit_buckets b = {3, {2, 5, 32}};
  // bucket 0: '0' + 2 bits, bucket 1: '10' + 5 bits, bucket 2: '11' + 32 bits.
  assert_int_equal(arb_bits_bucketed_size(0, &b), 3);
  assert_int_equal(arb_bits_bucketed_size(3, &b), 3);
  assert_int_equal(arb_bits_bucketed_size(4, &b), 7);
  assert_int_equal(arb_bits_bucketed_size(35, &b), 7);
  assert_int_equal(arb_bits_bucketed_size(36, &b), 34);
  assert_int_equal(arb_bits_signed_size(-2, &b), 3);  // zigzag 3
  assert_int_equal(arb_bits_signed_size(2, &b), 7);   // zigzag 4
  uint8_t buf[64];
  arb_bit_writer w;
  arb_bits_writer_init(&w, buf, sizeof buf);
  const uint32_t vals[] = {0, 3, 4, 35, 36, UINT32_MAX - 36};
  for (int i = 0; i < 6; ++i) arb_bits_write_bucketed(&w, vals[i], &b);
  const int32_t svals[] = {0, -1, 1, INT32_MIN, INT32_MAX};
  for (int i = 0; i < 5; ++i) arb_bits_write_signed(&w, svals[i], &b);
  assert_false(w.overflow);
  arb_bit_reader r;
  arb_bits_reader_init(&r, buf, arb_bits_writer_bytes(&w));
  for (int i = 0; i < 6; ++i) assert_int_equal(arb_bits_read_bucketed(&r, &b), vals[i]);
  for (int i = 0; i < 5; ++i) assert_int_equal(arb_bits_read_signed(&r, &b), svals[i]);
  assert_false(r.overrun);
  // The exact bits of 4 (bucket 1, payload 0): 1, 0, then 00000.
  arb_bits_writer_init(&w, buf, sizeof buf);
  arb_bits_write_bucketed(&w, 4, &b);
  assert_int_equal(w.pos, 7);
  assert_int_equal(buf[0], 0x01);
}

static void values_beyond_buckets_overflow(void** state) {
  (void)state;
  const arb_bit_buckets small = {2, {1, 3}};  // 0..9
  uint8_t buf[8];
  arb_bit_writer w;
  arb_bits_writer_init(&w, buf, sizeof buf);
  arb_bits_write_bucketed(&w, 9, &small);
  assert_false(w.overflow);
  assert_int_equal(arb_bits_bucketed_size(10, &small), 0);
  arb_bits_write_bucketed(&w, 10, &small);
  assert_true(w.overflow);
  // A value read with a range past 2^32 (four 32-bit buckets) is an error.
  const arb_bit_buckets wide = {2, {32, 32}};
  uint8_t ones[9];
  memset(ones, 0xFF, sizeof ones);
  arb_bit_reader r;
  arb_bits_reader_init(&r, ones, sizeof ones);
  (void)arb_bits_read_bucketed(&r, &wide);
  assert_true(r.overrun);
}

static void never_past_the_end(void** state) {
  (void)state;
  uint8_t buf[3] = {0, 0, 0x77};
  arb_bit_writer w;
  arb_bits_writer_init(&w, buf, 2);
  arb_bits_write(&w, 0xFFFF, 15);
  arb_bits_write(&w, 3, 2);  // one bit short: nothing written
  assert_true(w.overflow);
  arb_bits_write(&w, 1, 1);  // sticky: ignored although it would fit
  assert_int_equal(w.pos, 15);
  assert_int_equal(buf[2], 0x77);
  arb_bits_write(&w, 0, 33);
  assert_true(w.overflow);

  arb_bit_reader r;
  arb_bits_reader_init(&r, buf, 2);
  assert_int_equal(arb_bits_read(&r, 15), 0x7FFF);
  assert_int_equal(arb_bits_read(&r, 2), 0);
  assert_true(r.overrun);
  assert_int_equal(arb_bits_read(&r, 1), 0);
  assert_int_equal(arb_bits_remaining(&r), 0);
  const arb_bit_buckets none = {0, {0}};
  arb_bits_reader_init(&r, buf, 2);
  (void)arb_bits_read_bucketed(&r, &none);
  assert_true(r.overrun);
  arb_bits_writer_init(&w, NULL, 100);
  arb_bits_write(&w, 1, 1);
  assert_true(w.overflow);
}

ARB_TEST_MAIN(cmocka_unit_test(bit_order_is_lsb_first), cmocka_unit_test(random_round_trip),
              cmocka_unit_test(bytes_equal_a_bit_at_a_time), cmocka_unit_test(bucket_codes),
              cmocka_unit_test(values_beyond_buckets_overflow),
              cmocka_unit_test(never_past_the_end))
