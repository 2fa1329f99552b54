// arbiter-view — a minimal PNG writer: 8-bit RGB, no interlace, filter 0 on every row,
// one IDAT chunk compressed with zlib's compress2, CRCs with zlib's crc32.
//
// Why zlib and not SDL2_image's IMG_SavePNG: zlib is already on every machine that has
// libsdl2-dev's dependency chain, a PNG file is four chunks around a deflate stream, and
// this keeps the viewer at one optional library (SDL2) instead of two.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "view.h"

static void put32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

// Chunk = length, type, data, CRC over type + data.
static int write_chunk(FILE* fp, const char type[4], const uint8_t* data, uint32_t len) {
  uint8_t head[8], tail[4];
  put32(head, len);
  memcpy(head + 4, type, 4);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, (const Bytef*)type, 4);
  if (len) crc = crc32(crc, data, len);
  put32(tail, (uint32_t)crc);
  if (fwrite(head, 1, 8, fp) != 8) return -1;
  if (len && fwrite(data, 1, len, fp) != len) return -1;
  if (fwrite(tail, 1, 4, fp) != 4) return -1;
  return 0;
}

int view_png_write(const char* path, const uint8_t* rgb, int width, int height, int stride,
                   char* err, size_t err_cap) {
  if (width <= 0 || height <= 0 || width > 16384 || height > 16384 || stride < width * 3) {
    snprintf(err, err_cap, "%s: bad image size %dx%d", path, width, height);
    return ARB_E_INVAL;
  }
  size_t row = (size_t)width * 3 + 1;
  size_t raw_len = row * (size_t)height;
  uint8_t* raw = malloc(raw_len);
  uLongf z_len = compressBound((uLong)raw_len);
  uint8_t* z = malloc(z_len);
  if (!raw || !z) {
    free(raw);
    free(z);
    snprintf(err, err_cap, "%s: out of memory", path);
    return ARB_E_NOMEM;
  }
  for (int y = 0; y < height; y++) {
    raw[(size_t)y * row] = 0;  // filter type 0 (None)
    memcpy(raw + (size_t)y * row + 1, rgb + (size_t)y * (size_t)stride, (size_t)width * 3);
  }
  int zr = compress2(z, &z_len, raw, (uLong)raw_len, 6);
  free(raw);
  if (zr != Z_OK) {
    free(z);
    snprintf(err, err_cap, "%s: zlib compress failed (%d)", path, zr);
    return ARB_E_IO;
  }
  FILE* fp = fopen(path, "wb");
  if (!fp) {
    free(z);
    snprintf(err, err_cap, "%s: cannot create file", path);
    return ARB_E_IO;
  }
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  uint8_t ihdr[13];
  put32(ihdr, (uint32_t)width);
  put32(ihdr + 4, (uint32_t)height);
  ihdr[8] = 8;   // bit depth
  ihdr[9] = 2;   // colour type: truecolour RGB
  ihdr[10] = 0;  // deflate
  ihdr[11] = 0;  // adaptive filtering (per-row filter byte)
  ihdr[12] = 0;  // no interlace
  int bad = fwrite(sig, 1, 8, fp) != 8;
  bad = bad || write_chunk(fp, "IHDR", ihdr, 13) != 0;
  bad = bad || write_chunk(fp, "IDAT", z, (uint32_t)z_len) != 0;
  bad = bad || write_chunk(fp, "IEND", NULL, 0) != 0;
  free(z);
  if (fclose(fp) != 0) bad = 1;
  if (bad) {
    snprintf(err, err_cap, "%s: write failed (disk full?)", path);
    return ARB_E_IO;
  }
  return 0;
}
