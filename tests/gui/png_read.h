// A small independent PNG reader for the viewer tests: 8-bit RGB/RGBA, non-interlaced,
// every filter type; CRCs checked. Not the viewer's code, so a writer bug can not hide.
#pragma once

#include <stdint.h>

typedef struct image {
  int w, h;
  uint8_t* rgb;  // w*h*3, free() it
} image;

/// Returns 0, or -1 with a message on stderr.
int png_read(const char* path, image* out);
