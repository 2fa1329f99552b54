// The record stream: bucket codes and record layout (PROTOCOL.md §6).
//   stream  = count:COUNT record*count padding(zero bits to a whole byte)
//   record  = gap:GAP op body         id = previous id + 1 + gap (previous = 0 at start)
//   op      = '0' update | '10' enter | '11' remove
//   update  = mask then, for each mask bit in order: pos dx:POS dy:POS, angle da:ANGLE,
//             vel dvx:VEL dvy:VEL, angvel dw:ANGVEL, aux daux:ANGLE, flags f:3
//   enter   = class-1:2 flags:3 desc then the class's fields absolutely: x:POS_ABS y:POS_ABS
//             angle:16 vx:VEL_ABS vy:VEL_ABS w:ANGVEL_ABS aux:16 (only those it has)
//   desc    = '0' (the next new description of the part) | '1' index:DESC_REF (an earlier one)
//   mask    = '1' pos|vel | '01' pos|angle|vel|angvel | '001' pos | '000' bits:6 (another)
// Residuals are new minus predicted, wrapping (int32 modulo 2^32; angles modulo 65536,
// sent as int16). Signed values are zigzagged.
#include <stdio.h>
#include <string.h>

#include "snapshot_internal.h"

static const arb_bit_buckets COUNT = {2, {6, 12}};
static const arb_bit_buckets GAP = {5, {0, 3, 6, 10, 32}};
static const arb_bit_buckets POS = {4, {3, 6, 9, 32}};
static const arb_bit_buckets ANGLE = {4, {3, 6, 10, 16}};
static const arb_bit_buckets VEL = {5, {3, 6, 9, 12, 32}};
static const arb_bit_buckets ANGVEL = {4, {3, 7, 12, 32}};
static const arb_bit_buckets POS_ABS = {3, {16, 24, 32}};
static const arb_bit_buckets VEL_ABS = {4, {8, 12, 16, 32}};
static const arb_bit_buckets ANGVEL_ABS = {3, {8, 16, 32}};
static const arb_bit_buckets DESC_REF = {3, {2, 4, 7}};

unsigned arb__snapshot_class_fields(uint8_t cls) {
  switch (cls) {
    case ARB_SNAPSHOT_BODY:
      return ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_ANGLE | ARB_SNAPSHOT_M_VEL |
             ARB_SNAPSHOT_M_ANGVEL | ARB_SNAPSHOT_M_FLAGS;
    case ARB_SNAPSHOT_PARTICLE:
      return ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_VEL | ARB_SNAPSHOT_M_FLAGS;
    case ARB_SNAPSHOT_WHEEL:
      return ARB_SNAPSHOT_M_ANGLE | ARB_SNAPSHOT_M_ANGVEL | ARB_SNAPSHOT_M_AUX |
             ARB_SNAPSHOT_M_FLAGS;
    case ARB_SNAPSHOT_LINK:
      return 0;
    default:
      return 0;
  }
}

arb_snapshot_state arb__snapshot_class_state(const arb_snapshot_state* s, uint8_t cls) {
  unsigned f = arb__snapshot_class_fields(cls);
  arb_snapshot_state o;
  memset(&o, 0, sizeof o);
  if (f & ARB_SNAPSHOT_M_POS) o.x = s->x, o.y = s->y;
  if (f & ARB_SNAPSHOT_M_ANGLE) o.angle = s->angle;
  if (f & ARB_SNAPSHOT_M_VEL) o.vx = s->vx, o.vy = s->vy;
  if (f & ARB_SNAPSHOT_M_ANGVEL) o.w = s->w;
  if (f & ARB_SNAPSHOT_M_AUX) o.aux = s->aux;
  o.flags = s->flags;
  return o;
}

static int16_t angle_delta(uint16_t d) {
  return (int16_t)(d >= 32768u ? (int32_t)d - 65536 : (int32_t)d);
}

int arb__snapshot_count_bits(int count) {
  return arb_bits_bucketed_size((uint32_t)count, &COUNT);
}

/* One function writes and sizes a record, so the builder's sizes are the encoder's. The
 * bits gather in a 64-bit accumulator and go to the writer 32 at a time (the same bits, LSB
 * first, as one arb_bits_write per value: every server snapshot writes every record, and a
 * call per value was a large share of its CPU). With w == NULL it only counts. */
/* The writer's pieces are inlined into record(), and record() into its two callers (one
 * sizes, one writes): the bucket tables are constants there and fold into compares. */
#define WRITE_INLINE static inline __attribute__((always_inline))

typedef struct sink {
  arb_bit_writer* w;
  uint64_t acc;  ///< bits not yet written, the oldest lowest
  int n;         ///< how many (< 32 between calls)
} sink;

/* 32 bits of the accumulator to the writer: stored directly as 4 little-endian bytes when
 * the writer is on a byte boundary with room (always, in a stream that starts on one). */
WRITE_INLINE void put_word(arb_bit_writer* w, uint32_t word) {
  if ((w->pos & 7u) != 0 || w->overflow || w->cap_bits - w->pos < 32) {
    arb_bits_write(w, word, 32);
    return;
  }
  uint8_t* p = w->buf + (w->pos >> 3);
  p[0] = (uint8_t)word;
  p[1] = (uint8_t)(word >> 8);
  p[2] = (uint8_t)(word >> 16);
  p[3] = (uint8_t)(word >> 24);
  w->pos += 32;
}
WRITE_INLINE int put(sink* s, uint32_t v, int n) {
  if (!s->w) return n;
  s->acc |= (uint64_t)(n < 32 ? v & ((1u << n) - 1u) : v) << s->n;
  s->n += n;
  if (s->n >= 32) {
    put_word(s->w, (uint32_t)s->acc);
    s->acc >>= 32;
    s->n -= 32;
  }
  return n;
}
static void flush(sink* s) {
  if (s->w && s->n > 0) arb_bits_write(s->w, (uint32_t)s->acc, s->n);
  s->acc = 0;
  s->n = 0;
}
/* arb_bits_write_bucketed and arb_bits_bucketed_size in one pass over the buckets (this
 * file's tables: 1..8 buckets of 0..32 bits): the prefix (k ones, then a 0 unless k is the
 * last bucket), then v minus the values of the buckets before k. */
WRITE_INLINE int put_u(sink* s, uint32_t v, const arb_bit_buckets* b) {
  int last = b->count - 1;
#pragma GCC unroll 8  // with the constant table: a compare and a shift per bucket
  for (int k = 0; k <= last; ++k) {
    int width = b->widths[k];
    if (width >= 32 || v < (1u << width)) {
      int prefix = k + (k < last ? 1 : 0);
      put(s, (1u << k) - 1u, prefix);
      put(s, v, width);
      return prefix + width;
    }
    v -= 1u << width;
  }
  if (s->w) s->w->overflow = 1;  // past the last bucket
  return 0;
}
WRITE_INLINE int put_s(sink* w, int32_t v, const arb_bit_buckets* b) {
  return put_u(w, arb_zigzag(v), b);
}

/* Update masks: the three common ones have short codes (a moving body corrected after a
 * contact, a turning one, a drifted one), any other is '000' and the 6 bits. */
#define MASK_MOVE (ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_VEL)
#define MASK_TURN \
  (ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_ANGLE | ARB_SNAPSHOT_M_VEL | ARB_SNAPSHOT_M_ANGVEL)
WRITE_INLINE int put_mask(sink* w, uint8_t mask) {
  if (mask == MASK_MOVE) return put(w, 1, 1);
  if (mask == MASK_TURN) return put(w, 2, 2);           // bits 0, 1
  if (mask == ARB_SNAPSHOT_M_POS) return put(w, 4, 3);  // bits 0, 0, 1
  return put(w, 0, 3) + put(w, mask, 6);
}

/* An enter record's description: the part's next new one, or a reference to an earlier
 * one (named: descriptions named by the part's enter records so far, updated). */
WRITE_INLINE int desc_ref(sink* w, const arb_snapshot_record* r, int* named) {
  int n = r->desc == *named ? put(w, 0, 1) : put(w, 1, 1) + put_u(w, r->desc, &DESC_REF);
  if (r->desc == *named) ++*named;
  return n;
}

/* A record after its gap. named: descriptions named by the part's enter records so far
 * (updated), or NULL to leave an enter's description reference out (a size only). */
WRITE_INLINE int record_rest(sink* w, const arb_snapshot_record* r, int* named) {
  const arb_snapshot_state* v = &r->v;
  if (r->op == ARB_SNAPSHOT_REMOVE) return put(w, 3, 2);
  int n = 0;
  if (r->op == ARB_SNAPSHOT_UPDATE) {
    n += put(w, 0, 1) + put_mask(w, r->mask);
    if (r->mask & ARB_SNAPSHOT_M_POS) n += put_s(w, v->x, &POS) + put_s(w, v->y, &POS);
    if (r->mask & ARB_SNAPSHOT_M_ANGLE) n += put_s(w, angle_delta(v->angle), &ANGLE);
    if (r->mask & ARB_SNAPSHOT_M_VEL) n += put_s(w, v->vx, &VEL) + put_s(w, v->vy, &VEL);
    if (r->mask & ARB_SNAPSHOT_M_ANGVEL) n += put_s(w, v->w, &ANGVEL);
    if (r->mask & ARB_SNAPSHOT_M_AUX) n += put_s(w, angle_delta(v->aux), &ANGLE);
    if (r->mask & ARB_SNAPSHOT_M_FLAGS) n += put(w, v->flags, 3);
    return n;
  }
  unsigned f = arb__snapshot_class_fields(r->cls);
  n += put(w, 1, 2) + put(w, (uint32_t)(r->cls - 1u), 2) + put(w, v->flags, 3);
  if (named) n += desc_ref(w, r, named);
  if (f & ARB_SNAPSHOT_M_POS) n += put_s(w, v->x, &POS_ABS) + put_s(w, v->y, &POS_ABS);
  if (f & ARB_SNAPSHOT_M_ANGLE) n += put(w, v->angle, 16);
  if (f & ARB_SNAPSHOT_M_VEL) n += put_s(w, v->vx, &VEL_ABS) + put_s(w, v->vy, &VEL_ABS);
  if (f & ARB_SNAPSHOT_M_ANGVEL) n += put_s(w, v->w, &ANGVEL_ABS);
  if (f & ARB_SNAPSHOT_M_AUX) n += put(w, v->aux, 16);
  return n;
}

/* named: descriptions named by the part's enter records so far (updated). */
WRITE_INLINE int record(sink* w, const arb_snapshot_record* r, uint32_t prev_id, int* named) {
  int n = put_u(w, r->id - prev_id - 1u, &GAP);
  return n + record_rest(w, r, named);
}

int arb__snapshot_record_bits(const arb_snapshot_record* r, uint32_t prev_id, int named) {
  sink count_only = {NULL, 0, 0};
  return record(&count_only, r, prev_id, &named);
}

int arb__snapshot_gap_bits(uint32_t id, uint32_t prev_id) {
  sink count_only = {NULL, 0, 0};
  return put_u(&count_only, id - prev_id - 1u, &GAP);
}

int arb__snapshot_desc_ref_bits(const arb_snapshot_record* r, int named) {
  if (r->op != ARB_SNAPSHOT_ENTER) return 0;
  sink count_only = {NULL, 0, 0};
  return desc_ref(&count_only, r, &named);
}

int arb__snapshot_fixed_bits(const arb_snapshot_record* r) {
  sink count_only = {NULL, 0, 0};
  return record_rest(&count_only, r, NULL);
}

static int record_ok(const arb_snapshot_record* r, uint32_t prev_id) {
  if (r->id <= prev_id) return 0;
  if (r->op == ARB_SNAPSHOT_UPDATE)
    return r->mask != 0 && r->mask <= ARB_SNAPSHOT_M_ALL && r->v.flags <= ARB_SNAPSHOT_FLAGS_ALL;
  if (r->op == ARB_SNAPSHOT_ENTER)
    return r->cls >= ARB_SNAPSHOT_BODY && r->cls <= ARB_SNAPSHOT_WHEEL &&
           r->v.flags <= ARB_SNAPSHOT_FLAGS_ALL;
  return r->op == ARB_SNAPSHOT_REMOVE;
}

int arb__snapshot_write_stream(arb_bit_writer* w, const arb_snapshot_record* recs, int count) {
  if (count < 0 || count > ARB_SNAPSHOT_MAX_PART_RECORDS) return ARB_E_TOO_BIG;
  sink s = {w, 0, 0};
  put_u(&s, (uint32_t)count, &COUNT);
  uint32_t prev = 0;
  int named = 0;
  for (int i = 0; i < count; ++i) {
    if (!record_ok(&recs[i], prev)) return ARB_E_INVAL;
    if (recs[i].op == ARB_SNAPSHOT_ENTER && recs[i].desc > named) return ARB_E_INVAL;
    record(&s, &recs[i], prev, &named);
    prev = recs[i].id;
  }
  flush(&s);
  return w->overflow ? ARB_E_TOO_BIG : 0;
}

static int fail(arb_bit_reader* r, arb_proto_error* err, int index, const char* why) {
  if (err) {
    err->code = ARB_E_CORRUPT;
    err->offset = r->pos / 8u;
    snprintf(err->reason, sizeof err->reason, "snapshot: stream record %d (bit %zu): %s", index,
             r->pos, why);
  }
  return ARB_E_CORRUPT;
}

/* An angle residual is an int16: a larger zigzagged value is not a valid encoding. */
static int read_angle_delta(arb_bit_reader* r, uint16_t* out) {
  int32_t d = arb_bits_read_signed(r, &ANGLE);
  *out = (uint16_t)((uint32_t)d & 0xFFFFu);
  return d >= -32768 && d <= 32767;
}

/* Returns 0 when a field is out of its range. */
static int read_update(arb_bit_reader* r, arb_snapshot_record* rec) {
  arb_snapshot_state* v = &rec->v;
  int ok = 1;
  if (arb_bits_read(r, 1))
    rec->mask = MASK_MOVE;
  else if (arb_bits_read(r, 1))
    rec->mask = MASK_TURN;
  else if (arb_bits_read(r, 1))
    rec->mask = ARB_SNAPSHOT_M_POS;
  else {
    rec->mask = (uint8_t)arb_bits_read(r, 6);
    if (rec->mask == MASK_MOVE || rec->mask == MASK_TURN || rec->mask == ARB_SNAPSHOT_M_POS) ok = 0;
  }
  if (rec->mask & ARB_SNAPSHOT_M_POS) {
    v->x = arb_bits_read_signed(r, &POS);
    v->y = arb_bits_read_signed(r, &POS);
  }
  if (rec->mask & ARB_SNAPSHOT_M_ANGLE) ok &= read_angle_delta(r, &v->angle);
  if (rec->mask & ARB_SNAPSHOT_M_VEL) {
    v->vx = arb_bits_read_signed(r, &VEL);
    v->vy = arb_bits_read_signed(r, &VEL);
  }
  if (rec->mask & ARB_SNAPSHOT_M_ANGVEL) v->w = arb_bits_read_signed(r, &ANGVEL);
  if (rec->mask & ARB_SNAPSHOT_M_AUX) ok &= read_angle_delta(r, &v->aux);
  if (rec->mask & ARB_SNAPSHOT_M_FLAGS) v->flags = (uint8_t)arb_bits_read(r, 3);
  return ok;
}

/* Returns 0 when the description reference names one not yet introduced. */
static int read_enter(arb_bit_reader* r, arb_snapshot_record* rec, int* named) {
  arb_snapshot_state* v = &rec->v;
  rec->cls = (uint8_t)(arb_bits_read(r, 2) + 1u);
  v->flags = (uint8_t)arb_bits_read(r, 3);
  int ok = 1;
  if (arb_bits_read(r, 1) == 0) {
    rec->desc = (uint8_t)(*named < 255 ? *named : 255);
    ok = *named < ARB_SNAPSHOT_MAX_PART_ENTERED;
    ++*named;
  } else {
    uint32_t k = arb_bits_read_bucketed(r, &DESC_REF);
    ok = k < (uint32_t)*named;
    rec->desc = (uint8_t)(k < 255 ? k : 255);
  }
  unsigned f = arb__snapshot_class_fields(rec->cls);
  if (f & ARB_SNAPSHOT_M_POS) {
    v->x = arb_bits_read_signed(r, &POS_ABS);
    v->y = arb_bits_read_signed(r, &POS_ABS);
  }
  if (f & ARB_SNAPSHOT_M_ANGLE) v->angle = (uint16_t)arb_bits_read(r, 16);
  if (f & ARB_SNAPSHOT_M_VEL) {
    v->vx = arb_bits_read_signed(r, &VEL_ABS);
    v->vy = arb_bits_read_signed(r, &VEL_ABS);
  }
  if (f & ARB_SNAPSHOT_M_ANGVEL) v->w = arb_bits_read_signed(r, &ANGVEL_ABS);
  if (f & ARB_SNAPSHOT_M_AUX) v->aux = (uint16_t)arb_bits_read(r, 16);
  return ok;
}

int arb__snapshot_read_stream(arb_bit_reader* r, arb_snapshot_part* out, arb_proto_error* err) {
  uint32_t count = arb_bits_read_bucketed(r, &COUNT);
  if (r->overrun) return fail(r, err, -1, "stream ends inside the record count");
  if (count > ARB_SNAPSHOT_MAX_PART_RECORDS) return fail(r, err, -1, "more than 4096 records");
  uint32_t prev = 0;
  int named = 0;
  for (uint32_t i = 0; i < count; ++i) {
    arb_snapshot_record* rec = &out->records[i];
    memset(rec, 0, sizeof *rec);
    uint32_t gap = arb_bits_read_bucketed(r, &GAP);
    if ((uint64_t)prev + gap + 1u > UINT32_MAX) return fail(r, err, (int)i, "id past 2^32-1");
    rec->id = prev + gap + 1u;
    if (arb_bits_read(r, 1) == 0) {
      rec->op = ARB_SNAPSHOT_UPDATE;
      int ok = read_update(r, rec);
      if (r->overrun) return fail(r, err, (int)i, "stream ends inside the record");
      if (!ok)
        return fail(r, err, (int)i,
                    "angle residual outside int16, or a long mask code for a short one");
      if (rec->mask == 0) return fail(r, err, (int)i, "update with an empty mask");
    } else {
      rec->op = arb_bits_read(r, 1) ? ARB_SNAPSHOT_REMOVE : ARB_SNAPSHOT_ENTER;
      if (rec->op == ARB_SNAPSHOT_ENTER && !read_enter(r, rec, &named) && !r->overrun)
        return fail(r, err, (int)i, "enter names a description not introduced before it");
    }
    if (r->overrun) return fail(r, err, (int)i, "stream ends inside the record");
    prev = rec->id;
  }
  out->record_count = (int)count;
  size_t pad = arb_bits_remaining(r);
  if (pad >= 8) return fail(r, err, (int)count, "bytes after the last record");
  if (arb_bits_read(r, (int)pad) != 0) return fail(r, err, (int)count, "padding bits are not zero");
  return 0;
}
