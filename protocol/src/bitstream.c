// Bounded bit writer/reader (see arbiter/bitstream.h). Bits go LSB first into bytes; a
// value is moved a byte's worth at a time (a server writes every client's snapshot every
// snapshot tick, so bit-at-a-time loops were a large share of its CPU).
#include <arbiter/bitstream.h>

void arb_bits_writer_init(arb_bit_writer* w, uint8_t* buf, size_t cap_bytes) {
  w->buf = buf;
  w->cap_bits = buf ? cap_bytes * 8u : 0u;
  w->pos = 0;
  w->overflow = 0;
}

void arb_bits_write(arb_bit_writer* w, uint32_t value, int n) {
  if (n < 0 || n > 32 || w->overflow || w->cap_bits - w->pos < (size_t)n) {
    w->overflow = 1;
    return;
  }
  if (n == 0) return;
  // The bits already in the current byte, then the value above them: at most 39 bits, as
  // whole bytes (a fresh byte's bits above the value stay zero: padding is zero).
  size_t at = w->pos >> 3;
  unsigned off = (unsigned)(w->pos & 7u);
  uint64_t v = n < 32 ? value & ((1u << n) - 1u) : value;  // bits above n are not written
  uint64_t word = (off ? (uint64_t)(w->buf[at] & ((1u << off) - 1u)) : 0u) | v << off;
  unsigned bytes = (off + (unsigned)n + 7u) >> 3;
  for (unsigned k = 0; k < bytes; ++k) w->buf[at + k] = (uint8_t)(word >> (8u * k));
  w->pos += (size_t)n;
}

size_t arb_bits_writer_bytes(const arb_bit_writer* w) {
  return (w->pos + 7u) / 8u;
}

// Finds v's bucket: its index, and v minus the bucket's first value. -1 when out of range.
static int bucket_of(uint32_t v, const arb_bit_buckets* b, uint32_t* rest) {
  uint64_t start = 0;
  for (int k = 0; k < b->count && k < 8; ++k) {
    if (b->widths[k] > 32) return -1;
    uint64_t size = (uint64_t)1 << b->widths[k];
    if ((uint64_t)v < start + size) {
      *rest = (uint32_t)((uint64_t)v - start);
      return k;
    }
    start += size;
  }
  return -1;
}

int arb_bits_bucketed_size(uint32_t v, const arb_bit_buckets* b) {
  uint32_t rest;
  int k = bucket_of(v, b, &rest);
  if (k < 0) return 0;
  int prefix = k + (k + 1 < b->count ? 1 : 0);
  return prefix + b->widths[k];
}

int arb_bits_signed_size(int32_t v, const arb_bit_buckets* b) {
  return arb_bits_bucketed_size(arb_zigzag(v), b);
}

void arb_bits_write_bucketed(arb_bit_writer* w, uint32_t v, const arb_bit_buckets* b) {
  uint32_t rest;
  int k = bucket_of(v, b, &rest);
  if (k < 0 || b->widths[k] > 32) {
    w->overflow = 1;
    return;
  }
  arb_bits_write(w, (1u << k) - 1u, k + (k + 1 < b->count));  // k ones, then a 0 unless last
  arb_bits_write(w, rest, b->widths[k]);
}

void arb_bits_write_signed(arb_bit_writer* w, int32_t v, const arb_bit_buckets* b) {
  arb_bits_write_bucketed(w, arb_zigzag(v), b);
}

void arb_bits_reader_init(arb_bit_reader* r, const uint8_t* buf, size_t len_bytes) {
  r->buf = buf;
  r->len_bits = buf ? len_bytes * 8u : 0u;
  r->pos = 0;
  r->overrun = 0;
}

uint32_t arb_bits_read(arb_bit_reader* r, int n) {
  if (n < 0 || n > 32 || r->overrun || r->len_bits - r->pos < (size_t)n) {
    r->overrun = 1;
    return 0;
  }
  uint64_t v = 0;
  for (int got = 0; got < n;) {
    unsigned off = (unsigned)(r->pos & 7u);
    int take = 8 - (int)off < n - got ? 8 - (int)off : n - got;
    v |= (uint64_t)((r->buf[r->pos >> 3] >> off) & ((1u << take) - 1u)) << got;
    got += take;
    r->pos += (size_t)take;
  }
  return (uint32_t)v;
}

uint32_t arb_bits_read_bucketed(arb_bit_reader* r, const arb_bit_buckets* b) {
  int count = b->count < 8 ? b->count : 8;
  if (count < 1) {
    r->overrun = 1;
    return 0;
  }
  int k = 0;
  while (k + 1 < count && arb_bits_read(r, 1) == 1u) ++k;
  uint64_t start = 0;
  for (int i = 0; i < k; ++i) start += (uint64_t)1 << b->widths[i];
  if (b->widths[k] > 32) {
    r->overrun = 1;
    return 0;
  }
  uint64_t v = start + arb_bits_read(r, b->widths[k]);
  if (v > UINT32_MAX || r->overrun) {
    r->overrun = 1;
    return 0;
  }
  return (uint32_t)v;
}

int32_t arb_bits_read_signed(arb_bit_reader* r, const arb_bit_buckets* b) {
  return arb_unzigzag(arb_bits_read_bucketed(r, b));
}

size_t arb_bits_remaining(const arb_bit_reader* r) {
  return r->overrun ? 0 : r->len_bits - r->pos;
}
