// PNG reader for the viewer tests (see png_read.h).
#include "png_read.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const uint8_t* p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

// Reads 8-bit RGB or RGBA, non-interlaced PNGs. Returns 0 or -1 with a message.
int png_read(const char* path, image* out) {
  memset(out, 0, sizeof *out);
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: missing\n", path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* data = malloc((size_t)size);
  if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    free(data);
    return -1;
  }
  fclose(f);
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size < 8 || memcmp(data, sig, 8) != 0) {
    fprintf(stderr, "%s: not a PNG\n", path);
    free(data);
    return -1;
  }
  size_t pos = 8, zlen = 0;
  uint8_t* z = malloc((size_t)size);
  int w = 0, h = 0, ctype = -1, depth = 0, interlace = 0;
  bool end = false;
  while (pos + 12 <= (size_t)size && !end) {
    uint32_t len = be32(data + pos);
    const uint8_t* type = data + pos + 4;
    const uint8_t* body = data + pos + 8;
    if (pos + 12 + len > (size_t)size) break;
    uLong crc = crc32(crc32(0L, Z_NULL, 0), type, 4 + len);
    if (crc != be32(body + len)) {
      fprintf(stderr, "%s: bad CRC in chunk %.4s\n", path, (const char*)type);
      free(data);
      free(z);
      return -1;
    }
    if (!memcmp(type, "IHDR", 4) && len == 13) {
      w = (int)be32(body);
      h = (int)be32(body + 4);
      depth = body[8];
      ctype = body[9];
      interlace = body[12];
    } else if (!memcmp(type, "IDAT", 4)) {
      memcpy(z + zlen, body, len);
      zlen += len;
    } else if (!memcmp(type, "IEND", 4)) {
      end = true;
    }
    pos += 12 + len;
  }
  free(data);
  int bpp = ctype == 2 ? 3 : (ctype == 6 ? 4 : 0);
  if (!end || w <= 0 || h <= 0 || depth != 8 || bpp == 0 || interlace != 0) {
    fprintf(stderr, "%s: unsupported or incomplete PNG (%dx%d depth %d type %d)\n", path, w, h,
            depth, ctype);
    free(z);
    return -1;
  }
  size_t stride = (size_t)w * (size_t)bpp;
  uLongf raw_len = (uLongf)((stride + 1) * (size_t)h);
  uint8_t* raw = malloc(raw_len);
  int zr = uncompress(raw, &raw_len, z, (uLong)zlen);
  free(z);
  if (zr != Z_OK || raw_len != (stride + 1) * (size_t)h) {
    fprintf(stderr, "%s: inflate failed (%d)\n", path, zr);
    free(raw);
    return -1;
  }
  uint8_t* px = calloc(stride * (size_t)h, 1);
  for (int y = 0; y < h; y++) {
    int filter = raw[(size_t)y * (stride + 1)];
    const uint8_t* in = raw + (size_t)y * (stride + 1) + 1;
    uint8_t* row = px + (size_t)y * stride;
    const uint8_t* up = y ? row - stride : NULL;
    for (size_t x = 0; x < stride; x++) {
      int a = x >= (size_t)bpp ? row[x - (size_t)bpp] : 0;
      int b = up ? up[x] : 0;
      int c = (up && x >= (size_t)bpp) ? up[x - (size_t)bpp] : 0;
      int pred = 0;
      switch (filter) {
        case 0:
          pred = 0;
          break;
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4:
          pred = paeth(a, b, c);
          break;
        default:
          fprintf(stderr, "%s: bad filter %d on row %d\n", path, filter, y);
          free(raw);
          free(px);
          return -1;
      }
      row[x] = (uint8_t)(in[x] + pred);
    }
  }
  free(raw);
  out->w = w;
  out->h = h;
  out->rgb = malloc((size_t)w * (size_t)h * 3);
  for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
    memcpy(out->rgb + 3 * i, px + (size_t)bpp * i, 3);
  free(px);
  return 0;
}
