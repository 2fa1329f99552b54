// arbiter — bounded bit writer and reader for the packed parts of the wire format
// (PROTOCOL.md, "Bit packing"). Bit order: stream bit i is bit (i % 8) of byte i / 8, and a
// value of n bits is written least significant bit first. Both sides are total: writing
// past the buffer or reading past the data sets a sticky error flag instead of touching
// memory, so a caller checks once at the end. Neither allocates.
#pragma once

#include <arbiter/base.h>
#include <stddef.h>
#include <stdint.h>

ARB_C_BEGIN

typedef struct arb_bit_writer {
  uint8_t* buf;
  size_t cap_bits;  ///< 8 * capacity of buf
  size_t pos;       ///< bits written so far
  int overflow;     ///< 1 once a write did not fit; later writes are ignored
} arb_bit_writer;

typedef struct arb_bit_reader {
  const uint8_t* buf;
  size_t len_bits;  ///< 8 * bytes available
  size_t pos;       ///< bits read so far
  int overrun;      ///< 1 once a read went past the end; later reads return 0
} arb_bit_reader;

/// A variable-length integer code: bucket k holds `widths[k]` payload bits and is announced
/// by k one-bits followed by a zero-bit (the last bucket has no terminating zero). Bucket 0
/// holds [0, 2^w0), bucket 1 the next 2^w1 values, and so on. Small values cost few bits;
/// values beyond every bucket cannot be written (the writer's overflow flag is set).
typedef struct arb_bit_buckets {
  uint8_t count;      ///< 1..8 buckets
  uint8_t widths[8];  ///< payload bits per bucket, 0..32, total range must fit in 2^32
} arb_bit_buckets;

ARB_API void arb_bits_writer_init(arb_bit_writer* w, uint8_t* buf, size_t cap_bytes);
/// Writes the low n bits of value (0 <= n <= 32).
ARB_API void arb_bits_write(arb_bit_writer* w, uint32_t value, int n);
/// Writes v with the bucket code b.
ARB_API void arb_bits_write_bucketed(arb_bit_writer* w, uint32_t v, const arb_bit_buckets* b);
/// Signed values go through zigzag (0, -1, 1, -2, 2 ... -> 0, 1, 2, 3, 4 ...).
ARB_API void arb_bits_write_signed(arb_bit_writer* w, int32_t v, const arb_bit_buckets* b);
/// Bytes used so far (whole bytes, the last one zero-padded).
ARB_API size_t arb_bits_writer_bytes(const arb_bit_writer* w);
/// Bits `arb_bits_write_bucketed` would use for v; 0 when v is beyond every bucket.
ARB_API int arb_bits_bucketed_size(uint32_t v, const arb_bit_buckets* b);
ARB_API int arb_bits_signed_size(int32_t v, const arb_bit_buckets* b);

ARB_API void arb_bits_reader_init(arb_bit_reader* r, const uint8_t* buf, size_t len_bytes);
ARB_API uint32_t arb_bits_read(arb_bit_reader* r, int n);
ARB_API uint32_t arb_bits_read_bucketed(arb_bit_reader* r, const arb_bit_buckets* b);
ARB_API int32_t arb_bits_read_signed(arb_bit_reader* r, const arb_bit_buckets* b);
/// Bits left to read.
ARB_API size_t arb_bits_remaining(const arb_bit_reader* r);

/// zigzag mapping used by the signed functions, exposed for size estimates and tests.
static inline uint32_t arb_zigzag(int32_t v) {
  return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
}
static inline int32_t arb_unzigzag(uint32_t u) {
  return (int32_t)(u >> 1) ^ -(int32_t)(u & 1u);
}

ARB_C_END
