// Fuzz target for the bit reader (fuzz-bits). The first bytes of the input choose a bucket
// code; the rest is read as a stream of bucketed values and raw fields until the reader
// runs out. Checked: the reader never claims more bits than the data holds, and writing
// the values read back with the writer reproduces exactly the bits consumed (each value has
// one code, so decoding is a bijection onto the accepted prefix).
#include <arbiter/bitstream.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define MAX_VALUES 4096

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3 || size > (1u << 16)) return 0;
  arb_bit_buckets b;
  memset(&b, 0, sizeof b);
  b.count = (uint8_t)(1 + data[0] % 8);
  for (int k = 0; k < b.count; ++k) b.widths[k] = (uint8_t)((data[1] >> (k % 4)) % 33);
  uint8_t raw_width = (uint8_t)(data[2] % 33);
  const uint8_t* payload = data + 3;
  size_t len = size - 3;

  static uint32_t values[MAX_VALUES];
  static int kind[MAX_VALUES];  // 0 raw, 1 bucketed, 2 signed
  int n = 0;
  size_t consumed = 0;
  arb_bit_reader r;
  arb_bits_reader_init(&r, payload, len);
  while (n < MAX_VALUES) {
    int k = n % 3;
    uint32_t v = k == 0   ? arb_bits_read(&r, raw_width)
                 : k == 1 ? arb_bits_read_bucketed(&r, &b)
                          : (uint32_t)arb_bits_read_signed(&r, &b);
    if (r.overrun) break;
    if (r.pos > len * 8u || arb_bits_remaining(&r) != len * 8u - r.pos) abort();
    values[n] = v;
    kind[n] = k;
    consumed = r.pos;
    ++n;
    if (raw_width == 0 && arb_bits_remaining(&r) == 0) break;
  }

  static uint8_t out[1 << 16];
  arb_bit_writer w;
  arb_bits_writer_init(&w, out, len);
  for (int i = 0; i < n; ++i) {
    if (kind[i] == 0)
      arb_bits_write(&w, values[i], raw_width);
    else if (kind[i] == 1)
      arb_bits_write_bucketed(&w, values[i], &b);
    else
      arb_bits_write_signed(&w, (int32_t)values[i], &b);
  }
  if (w.overflow || w.pos != consumed) abort();
  for (size_t bit = 0; bit < consumed; ++bit) {
    int a = (payload[bit >> 3] >> (bit & 7u)) & 1;
    int c = (out[bit >> 3] >> (bit & 7u)) & 1;
    if (a != c) abort();
  }
  return 0;
}
