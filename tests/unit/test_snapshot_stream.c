// The snapshot record stream writer (protocol/src/snapshot_bits.c, PROTOCOL.md §6): every
// stream it writes reads back to the same records, takes exactly the bits the builder's
// sizes say (the builder packs parts by them, so a difference would break its budget), and
// starts at any bit of a writer without touching the bits before; what it refuses it still
// refuses, in the same order (an invalid record before a full buffer).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../common/test_main.h"

#include <arbiter/bitstream.h>
#include <arbiter/snapshot.h>

#include "snapshot_internal.h"
#include "test_rng.h"

static uint64_t rng_state;
static uint32_t rnd(void) {
  return (uint32_t)(xorshift64_next(&rng_state) >> 16);
}
static int chance(int percent) {
  return (int)(rnd() % 100u) < percent;
}

/* A residual or an absolute value of any size a bucket code has (every bucket, the last
 * 32-bit ones too). */
static int32_t any_value(void) {
  static const uint32_t spans[] = {1, 8, 80, 1200, 70000, 20000000};
  if (chance(5)) return (int32_t)(rnd() << 16 ^ rnd());
  uint32_t span = spans[rnd() % 6u];
  return (int32_t)(rnd() % span) - (int32_t)(span / 2u);
}

static void fill_fields(arb_snapshot_state* v, unsigned fields) {
  if (fields & ARB_SNAPSHOT_M_POS) v->x = any_value(), v->y = any_value();
  if (fields & ARB_SNAPSHOT_M_ANGLE) v->angle = (uint16_t)rnd();
  if (fields & ARB_SNAPSHOT_M_VEL) v->vx = any_value(), v->vy = any_value();
  if (fields & ARB_SNAPSHOT_M_ANGVEL) v->w = any_value();
  if (fields & ARB_SNAPSHOT_M_AUX) v->aux = (uint16_t)rnd();
  if (fields & ARB_SNAPSHOT_M_FLAGS) v->flags = (uint8_t)(rnd() % (ARB_SNAPSHOT_FLAGS_ALL + 1u));
}

/* count valid records as the decoder returns them (fields a record does not carry zero). */
static void random_records(arb_snapshot_record* recs, int count) {
  static const uint32_t gaps[] = {1, 8, 72, 1100, 100000};
  uint32_t id = 0;
  int named = 0;
  for (int i = 0; i < count; ++i) {
    arb_snapshot_record* r = &recs[i];
    memset(r, 0, sizeof *r);
    uint32_t room = UINT32_MAX - id - (uint32_t)(count - i);  // ids left for the rest
    uint32_t gap = chance(3) ? rnd() << 16 ^ rnd() : rnd() % gaps[rnd() % 5u];
    id += (gap < room ? gap : room) + 1u;
    r->id = id;
    int pick = (int)(rnd() % 20u);
    if (pick < 12) {
      r->op = ARB_SNAPSHOT_UPDATE;
      static const uint8_t common[] = {5, 15, 1, 4, 12, 14};  // the ones with copies of their own
      r->mask = chance(50) ? common[rnd() % 6u] : (uint8_t)(1u + rnd() % ARB_SNAPSHOT_M_ALL);
      fill_fields(&r->v, r->mask);
    } else if (pick < 17) {
      r->op = ARB_SNAPSHOT_ENTER;
      r->cls = (uint8_t)(ARB_SNAPSHOT_BODY + rnd() % 4u);
      fill_fields(&r->v, arb__snapshot_class_fields(r->cls));
      r->v.flags = (uint8_t)(rnd() % (ARB_SNAPSHOT_FLAGS_ALL + 1u));
      int fresh = named == 0 || (named < ARB_SNAPSHOT_MAX_PART_ENTERED && chance(60));
      r->desc = (uint8_t)(fresh ? named : (int)(rnd() % (uint32_t)named));
      named += fresh;
    } else {
      r->op = ARB_SNAPSHOT_REMOVE;
    }
  }
}

static void assert_same_record(const arb_snapshot_record* a, const arb_snapshot_record* b) {
  assert_int_equal(a->id, b->id);
  assert_int_equal(a->op, b->op);
  assert_int_equal(a->cls, b->cls);
  assert_int_equal(a->mask, b->mask);
  assert_int_equal(a->desc, b->desc);
  assert_int_equal(a->v.x, b->v.x);
  assert_int_equal(a->v.y, b->v.y);
  assert_int_equal(a->v.vx, b->v.vx);
  assert_int_equal(a->v.vy, b->v.vy);
  assert_int_equal(a->v.w, b->v.w);
  assert_int_equal(a->v.angle, b->v.angle);
  assert_int_equal(a->v.aux, b->v.aux);
  assert_int_equal(a->v.flags, b->v.flags);
}

static arb_snapshot_record recs[ARB_SNAPSHOT_MAX_PART_RECORDS];
static arb_snapshot_part decoded;
static uint8_t buf[1 << 17];

/* Bits the builder's sizes give a stream of these records. */
static size_t sized_bits(int count) {
  size_t bits = (size_t)arb__snapshot_count_bits(count);
  uint32_t prev = 0;
  int named = 0;
  for (int i = 0; i < count; ++i) {
    bits += (size_t)arb__snapshot_record_bits(&recs[i], prev, named);
    if (recs[i].op == ARB_SNAPSHOT_ENTER && recs[i].desc == named) ++named;
    prev = recs[i].id;
  }
  return bits;
}

static void round_trip_at_any_bit(void** state) {
  (void)state;
  rng_state = 0x5eed57a3u;
  for (int t = 0; t < 400; ++t) {
    int count = t == 0 ? 0 : chance(5) ? ARB_SNAPSHOT_MAX_PART_RECORDS : (int)(rnd() % 300u);
    random_records(recs, count);
    for (size_t k = 0; k < sizeof buf; ++k) buf[k] = (uint8_t)(0xA5u ^ k);
    int start = (int)(rnd() % 20u);  // bits already in the writer
    uint32_t lead = rnd() & ((1u << start) - 1u);
    arb_bit_writer w;
    arb_bits_writer_init(&w, buf, sizeof buf);
    arb_bits_write(&w, lead, start);
    assert_int_equal(arb__snapshot_write_stream(&w, recs, count), 0);
    assert_int_equal(w.pos, (size_t)start + sized_bits(count));
    size_t used = arb_bits_writer_bytes(&w);
    for (size_t k = used; k < used + 8; ++k) assert_int_equal(buf[k], (uint8_t)(0xA5u ^ k));

    arb_bit_reader r;
    arb_bits_reader_init(&r, buf, used);
    assert_int_equal(arb_bits_read(&r, start), lead);
    arb_proto_error err;
    assert_int_equal(arb__snapshot_read_stream(&r, &decoded, &err), 0);
    assert_int_equal(decoded.record_count, count);
    for (int i = 0; i < count; ++i) assert_same_record(&decoded.records[i], &recs[i]);
  }
}

static int write_into(size_t cap, int count) {
  arb_bit_writer w;
  arb_bits_writer_init(&w, cap ? buf : NULL, cap);
  return arb__snapshot_write_stream(&w, recs, count);
}

static void refuses_what_it_cannot_write(void** state) {
  (void)state;
  rng_state = 0x0dd5eedu;
  random_records(recs, 40);
  size_t need = (sized_bits(40) + 7u) / 8u;
  for (size_t cap = 0; cap < need; ++cap) assert_int_equal(write_into(cap, 40), ARB_E_TOO_BIG);
  assert_int_equal(write_into(need, 40), 0);

  arb_bit_writer full;
  arb_bits_writer_init(&full, buf, 1);
  arb_bits_write(&full, 0, 9);  // already overflowed
  assert_int_equal(arb__snapshot_write_stream(&full, recs, 40), ARB_E_TOO_BIG);
  assert_int_equal(write_into(sizeof buf, -1), ARB_E_TOO_BIG);
  assert_int_equal(write_into(sizeof buf, ARB_SNAPSHOT_MAX_PART_RECORDS + 1), ARB_E_TOO_BIG);

  // Each a record made invalid, the last of the stream (so the stream is full by then when
  // the buffer is small: an invalid record is still reported as such).
  static const struct {
    uint8_t op, cls, mask, flags, desc;
    int same_id;
  } bad[] = {
      {ARB_SNAPSHOT_UPDATE, 0, 0, 0, 0, 0},                             // empty mask
      {ARB_SNAPSHOT_UPDATE, 0, ARB_SNAPSHOT_M_ALL + 1u, 0, 0, 0},       // mask past M_ALL
      {ARB_SNAPSHOT_UPDATE, 0, 1, ARB_SNAPSHOT_FLAGS_ALL + 1u, 0, 0},   // flags past 3 bits
      {ARB_SNAPSHOT_UPDATE, 0, 1, 0, 0, 1},                             // id not increasing
      {ARB_SNAPSHOT_ENTER, 0, 0, 0, 0, 0},                              // no class
      {ARB_SNAPSHOT_ENTER, ARB_SNAPSHOT_WHEEL + 1u, 0, 0, 0, 0},        // no class
      {ARB_SNAPSHOT_ENTER, 1, 0, ARB_SNAPSHOT_FLAGS_ALL + 1u, 0, 0},    // flags past 3 bits
      {ARB_SNAPSHOT_ENTER, 1, 0, 0, ARB_SNAPSHOT_MAX_PART_ENTERED, 0},  // past the next new
      {ARB_SNAPSHOT_ENTER, 1, 0, 0, 0, 1},                              // id not increasing
      {ARB_SNAPSHOT_REMOVE + 1u, 0, 0, 0, 0, 0},                        // no op
  };
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; ++c) {
    random_records(recs, 40);
    arb_snapshot_record* r = &recs[39];
    memset(&r->v, 0, sizeof r->v);
    r->op = bad[c].op;
    r->cls = bad[c].cls;
    r->mask = bad[c].mask;
    r->v.flags = bad[c].flags;
    r->desc = bad[c].desc;
    if (bad[c].same_id) r->id = recs[38].id;
    assert_int_equal(write_into(sizeof buf, 40), ARB_E_INVAL);
    assert_int_equal(write_into(need / 2u, 40), ARB_E_INVAL);
  }
  // A removal carries no flags: whatever its state holds is not looked at.
  random_records(recs, 2);
  recs[1].op = ARB_SNAPSHOT_REMOVE;
  recs[1].v.flags = 0xFF;
  recs[1].mask = 0;
  assert_int_equal(write_into(sizeof buf, 2), 0);
}

ARB_TEST_MAIN(cmocka_unit_test(round_trip_at_any_bit),
              cmocka_unit_test(refuses_what_it_cannot_write))
