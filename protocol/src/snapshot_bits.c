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

/* Inlined where a class is a constant (the stream writer's enter records), a call elsewhere. */
static inline unsigned class_fields(uint8_t cls) {
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

unsigned arb__snapshot_class_fields(uint8_t cls) {
  return class_fields(cls);
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

/* One set of functions writes and sizes a record, so the builder's sizes are the encoder's:
 * a sink either writes (writing = 1) or only counts (0). Every server snapshot writes every
 * record and the builder sizes each candidate, so both are a large share of the server's
 * CPU; the pieces below are inlined into their few callers with `writing` and the bucket
 * tables constant, and fold into compares and shifts (no branch on the mode, no loop over
 * the buckets, no per-put masking). */
#define WRITE_INLINE static inline __attribute__((always_inline))

typedef struct sink {
  int writing;   ///< 0: only count (put returns the length and stores nothing)
  uint64_t acc;  ///< bits not yet stored, the oldest lowest
  int n;         ///< how many (< 32 between puts)
  uint8_t* at;   ///< where acc's first byte goes (whole bytes before it are written)
  size_t room;   ///< bytes of the writer's buffer from `at` on
  int overflow;  ///< 1 once a store did not fit, or a value was past its code's last bucket
} sink;

/* The low 32 bits of the accumulator, as 4 little-endian bytes (a compiler merges them into
 * one store where that is the same). A store that does not fit is dropped and marks the
 * overflow, like arb_bits_write. */
WRITE_INLINE void store_word(sink* s) {
  if (s->room >= 4) {
    s->at[0] = (uint8_t)s->acc;
    s->at[1] = (uint8_t)(s->acc >> 8);
    s->at[2] = (uint8_t)(s->acc >> 16);
    s->at[3] = (uint8_t)(s->acc >> 24);
    s->at += 4;
    s->room -= 4;
  } else {
    s->overflow = 1;
  }
  s->acc >>= 32;
  s->n -= 32;
}
/* Appends the len (<= 32) bits of `bits`, which has nothing above them: every caller passes
 * a bucket's payload (below 2^width by construction) or a field the stream writer checked
 * (record_valid), so no mask is needed. The accumulator holds < 32 bits before, so <= 63
 * after. Returns len. */
WRITE_INLINE int put(sink* s, uint64_t bits, int len) {
  if (!s->writing) return len;
  s->acc |= bits << s->n;
  s->n += len;
  if (s->n >= 32) store_word(s);
  return len;
}

/* v in bucket code b (this file's tables, constants after inlining: 1..8 buckets, all but
 * the last < 32 bits wide): the prefix (k ones, then a 0 unless k is the last bucket) and v
 * minus the values of the buckets before k; then the then_len bits of `then` (a record's
 * op code after its gap). One put when they fit in 32 bits. */
WRITE_INLINE int put_u_then(sink* s, uint32_t v, const arb_bit_buckets* b, uint64_t then,
                            int then_len) {
  int last = b->count - 1;
#pragma GCC unroll 8  // with the constant table: a compare and a subtraction per bucket
  for (int k = 0; k < last; ++k) {
    int width = b->widths[k], len = k + 1 + width;
    if (v < (1u << width)) {
      if (len + then_len <= 32)
        return put(s, then << len | (uint64_t)v << (k + 1) | ((1u << k) - 1u), len + then_len);
      return put(s, (uint64_t)v << (k + 1) | ((1u << k) - 1u), len) + put(s, then, then_len);
    }
    v -= 1u << width;
  }
  int width = b->widths[last], len = last + width;
  if (width < 32 && v >= (1u << width)) {  // past the last bucket: cannot be written
    s->overflow = 1;
    return 0;
  }
  if (len + then_len <= 32)
    return put(s, then << len | (uint64_t)v << last | ((1u << last) - 1u), len + then_len);
  int n = put(s, (1u << last) - 1u, last) + put(s, v, width);
  return then_len ? n + put(s, then, then_len) : n;
}
WRITE_INLINE int put_u(sink* s, uint32_t v, const arb_bit_buckets* b) {
  return put_u_then(s, v, b, 0, 0);
}
/* Bits of zigzag(v) in bucket code b, without the zigzag: zigzag(v) < E, for an even E, is
 * -E/2 <= v < E/2, and E (the values of the buckets up to k) is even in every signed code
 * of this file (their buckets all have 8 values or more). Sizes are asked for far more
 * often than values are written: this saves a few instructions on each. */
WRITE_INLINE int signed_bits(int32_t v, const arb_bit_buckets* b) {
  int last = b->count - 1;
  int64_t end = 0;
#pragma GCC unroll 8  // with the constant table: an addition and a compare per bucket
  for (int k = 0; k <= last; ++k) {
    int width = b->widths[k];
    if (width >= 32) return k + (k < last) + width;  // every int32 is in it
    end += (int64_t)1 << width;
    if ((uint64_t)((int64_t)v + end / 2) < (uint64_t)end) return k + (k < last) + width;
  }
  return 0;  // past the last bucket
}
WRITE_INLINE int put_s(sink* s, int32_t v, const arb_bit_buckets* b) {
  return s->writing ? put_u(s, arb_zigzag(v), b) : signed_bits(v, b);
}

/* A record's first bits: its gap when `gap` is not NULL (a stream's record; a size leaves
 * it out), then `code`, its op and mask or class (len bits). */
WRITE_INLINE int head(sink* s, const uint32_t* gap, uint64_t code, int len) {
  return gap ? put_u_then(s, *gap, &GAP, code, len) : put(s, code, len);
}

/* Update masks: the three common ones have short codes (a moving body corrected after a
 * contact, a turning one, a drifted one), any other is '000' and the 6 bits. */
#define MASK_MOVE (ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_VEL)
#define MASK_TURN \
  (ARB_SNAPSHOT_M_POS | ARB_SNAPSHOT_M_ANGLE | ARB_SNAPSHOT_M_VEL | ARB_SNAPSHOT_M_ANGVEL)

/* An update's fields in mask order; `mask` is a constant where the mask has a short code,
 * so the tests fold away. */
WRITE_INLINE int update_fields(sink* s, const arb_snapshot_state* v, unsigned mask) {
  int n = 0;
  if (mask & ARB_SNAPSHOT_M_POS) n += put_s(s, v->x, &POS) + put_s(s, v->y, &POS);
  if (mask & ARB_SNAPSHOT_M_ANGLE) n += put_s(s, angle_delta(v->angle), &ANGLE);
  if (mask & ARB_SNAPSHOT_M_VEL) n += put_s(s, v->vx, &VEL) + put_s(s, v->vy, &VEL);
  if (mask & ARB_SNAPSHOT_M_ANGVEL) n += put_s(s, v->w, &ANGVEL);
  if (mask & ARB_SNAPSHOT_M_AUX) n += put_s(s, angle_delta(v->aux), &ANGLE);
  if (mask & ARB_SNAPSHOT_M_FLAGS) n += put(s, v->flags, 3);
  return n;
}

/* An update with a mask that has no short code: '0' '000' bits:6, then the fields. */
WRITE_INLINE int update_long(sink* s, const uint32_t* gap, const arb_snapshot_state* v,
                             unsigned mask) {
  return head(s, gap, (uint64_t)mask << 4, 10) + update_fields(s, v, mask);
}

/* An update record after its gap (gap as for head): op '0' and the mask code in one put
 * (first bit lowest), then the fields. The masks frequent in a crowd (bench-capacity: the
 * short-coded ones, a body's velocity alone or with its spin, with or without its angle)
 * each get a copy with the mask constant. */
WRITE_INLINE int update_body(sink* s, const arb_snapshot_record* r, const uint32_t* gap) {
  const arb_snapshot_state* v = &r->v;
  switch (r->mask) {
    case MASK_MOVE:  // '0' '1'
      return head(s, gap, 2, 2) + update_fields(s, v, MASK_MOVE);
    case MASK_TURN:  // '0' '01'
      return head(s, gap, 4, 3) + update_fields(s, v, MASK_TURN);
    case ARB_SNAPSHOT_M_POS:  // '0' '001'
      return head(s, gap, 8, 4) + update_fields(s, v, ARB_SNAPSHOT_M_POS);
    case ARB_SNAPSHOT_M_VEL:
      return update_long(s, gap, v, ARB_SNAPSHOT_M_VEL);
    case ARB_SNAPSHOT_M_VEL | ARB_SNAPSHOT_M_ANGVEL:
      return update_long(s, gap, v, ARB_SNAPSHOT_M_VEL | ARB_SNAPSHOT_M_ANGVEL);
    case ARB_SNAPSHOT_M_ANGLE | ARB_SNAPSHOT_M_VEL | ARB_SNAPSHOT_M_ANGVEL:
      return update_long(s, gap, v,
                         ARB_SNAPSHOT_M_ANGLE | ARB_SNAPSHOT_M_VEL | ARB_SNAPSHOT_M_ANGVEL);
    default:  // r->mask is a byte, not an enum
      return update_long(s, gap, v, r->mask);
  }
}

/* An enter record's description: the part's next new one, or a reference to an earlier
 * one (named: descriptions named by the part's enter records so far, updated). */
WRITE_INLINE int desc_ref(sink* s, const arb_snapshot_record* r, int* named) {
  if (r->desc == *named) {
    ++*named;
    return put(s, 0, 1);
  }
  return put(s, 1, 1) + put_u(s, r->desc, &DESC_REF);
}

/* An enter record's fields (f: its class's, a constant where inlined). */
WRITE_INLINE int enter_fields(sink* s, const arb_snapshot_state* v, unsigned f) {
  int n = 0;
  if (f & ARB_SNAPSHOT_M_POS) n += put_s(s, v->x, &POS_ABS) + put_s(s, v->y, &POS_ABS);
  if (f & ARB_SNAPSHOT_M_ANGLE) n += put(s, v->angle, 16);
  if (f & ARB_SNAPSHOT_M_VEL) n += put_s(s, v->vx, &VEL_ABS) + put_s(s, v->vy, &VEL_ABS);
  if (f & ARB_SNAPSHOT_M_ANGVEL) n += put_s(s, v->w, &ANGVEL_ABS);
  if (f & ARB_SNAPSHOT_M_AUX) n += put(s, v->aux, 16);
  return n;
}

/* An enter record after its gap (gap as for head). named: descriptions named by the part's
 * enter records so far (updated), or NULL to leave the description reference out (a size
 * only). */
WRITE_INLINE int enter_body(sink* s, const arb_snapshot_record* r, int* named,
                            const uint32_t* gap) {
  const arb_snapshot_state* v = &r->v;
  // op '10', class-1:2, flags:3 in one put (first bit lowest)
  int n = head(s, gap, 1u | (uint32_t)(r->cls - 1u) << 2 | (uint32_t)v->flags << 4, 7);
  if (named) n += desc_ref(s, r, named);
  switch (r->cls) {  // the class constant in each copy
    case ARB_SNAPSHOT_BODY:
      return n + enter_fields(s, v, class_fields(ARB_SNAPSHOT_BODY));
    case ARB_SNAPSHOT_PARTICLE:
      return n + enter_fields(s, v, class_fields(ARB_SNAPSHOT_PARTICLE));
    case ARB_SNAPSHOT_WHEEL:
      return n + enter_fields(s, v, class_fields(ARB_SNAPSHOT_WHEEL));
    default:  // a link (no state), or no class (r->cls is a byte: the writer refuses it)
      return n;
  }
}

/* A record, with its gap when `gap` is not NULL (named as for enter_body). */
WRITE_INLINE int record(sink* s, const arb_snapshot_record* r, int* named, const uint32_t* gap) {
  if (r->op == ARB_SNAPSHOT_UPDATE) return update_body(s, r, gap);
  if (r->op == ARB_SNAPSHOT_ENTER) return enter_body(s, r, named, gap);
  return head(s, gap, 3, 2);  // remove: '11'
}

int arb__snapshot_record_bits(const arb_snapshot_record* r, uint32_t prev_id, int named) {
  sink count_only = {0};
  uint32_t gap = r->id - prev_id - 1u;
  return record(&count_only, r, &named, &gap);
}

int arb__snapshot_gap_bits(uint32_t id, uint32_t prev_id) {
  sink count_only = {0};
  return put_u(&count_only, id - prev_id - 1u, &GAP);
}

int arb__snapshot_desc_ref_bits(const arb_snapshot_record* r, int named) {
  if (r->op != ARB_SNAPSHOT_ENTER) return 0;
  sink count_only = {0};
  return desc_ref(&count_only, r, &named);
}

int arb__snapshot_fixed_bits(const arb_snapshot_record* r) {
  sink count_only = {0};
  return record(&count_only, r, NULL, NULL);
}

/* What the stream can carry after a record with id prev_id, when `named` descriptions were
 * introduced before it: ids increase; an update has a mask within M_ALL, an enter a class
 * with a state and a description at most the next new one, and both flags that fit their 3
 * bits (a removal carries none). The writer relies on it: put() does not mask the fields. */
WRITE_INLINE int record_valid(const arb_snapshot_record* r, uint32_t prev_id, int named) {
  if (r->id <= prev_id) return 0;
  if (r->op == ARB_SNAPSHOT_UPDATE)
    return r->mask != 0 && r->mask <= ARB_SNAPSHOT_M_ALL && r->v.flags <= ARB_SNAPSHOT_FLAGS_ALL;
  if (r->op == ARB_SNAPSHOT_ENTER)
    return r->cls >= ARB_SNAPSHOT_BODY && r->cls <= ARB_SNAPSHOT_WHEEL && r->desc <= named &&
           r->v.flags <= ARB_SNAPSHOT_FLAGS_ALL;
  return r->op == ARB_SNAPSHOT_REMOVE;
}

int arb__snapshot_write_stream(arb_bit_writer* w, const arb_snapshot_record* recs, int count) {
  if (count < 0 || count > ARB_SNAPSHOT_MAX_PART_RECORDS) return ARB_E_TOO_BIG;
  // The sink stores whole bytes from the writer's current byte on; a partly written byte's
  // bits start the accumulator and are stored again as they were.
  // (The stream is at least the count's 7 bits: a writer with no byte left overflows.)
  size_t at = w->pos / 8u, cap = w->buf ? w->cap_bits / 8u : 0;
  int off = (int)(w->pos % 8u);
  sink s = {1, 0, 0, NULL, 0, w->overflow || at >= cap};
  if (!s.overflow) {
    s.at = w->buf + at;
    s.room = cap - at;
    s.acc = *s.at & ((1u << off) - 1u);
    s.n = off;
  }
  put_u(&s, (uint32_t)count, &COUNT);
  uint32_t prev = 0;
  int named = 0;
  for (int i = 0; i < count; ++i) {
    const arb_snapshot_record* r = &recs[i];
    if (!record_valid(r, prev, named)) return ARB_E_INVAL;
    uint32_t gap = r->id - prev - 1u;
    record(&s, r, &named, &gap);
    prev = r->id;
  }
  // The last partial word, its top byte's unused bits zero (the padding).
  size_t tail = (size_t)(s.n + 7) / 8u;
  if (s.overflow || s.room < tail) {
    w->overflow = 1;
    return ARB_E_TOO_BIG;
  }
  for (size_t k = 0; k < tail; ++k) s.at[k] = (uint8_t)(s.acc >> (8u * k));
  w->pos = (size_t)(s.at - w->buf) * 8u + (size_t)s.n;
  return 0;
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
