// Restore of a world image with a few payload bytes edited: the image is re-framed (the
// payload checksum recomputed), so the edit reaches the record checks of restore instead
// of being refused by the checksum.
#pragma once

#include <arbiter/world.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/// Restore into r the image img[0..size) with n bytes at payload offset `at` replaced by v.
/// Returns what arb_world_restore returns.
static inline int restore_edited(arb_world* r, const uint8_t* img, int size, size_t at,
                                 const void* v, size_t n) {
  enum { HEADER = 20, CHECKSUM = 8 };
  uint8_t* m = malloc((size_t)size);
  if (!m) return ARB_E_NOMEM;
  memcpy(m, img, (size_t)size);
  memcpy(m + HEADER + at, v, n);
  size_t plen = (size_t)size - HEADER - CHECKSUM;
  uint64_t h = XXH3_64bits(m + HEADER, plen);
  for (int i = 0; i < CHECKSUM; ++i) m[HEADER + plen + (size_t)i] = (uint8_t)(h >> (8 * i));
  int rc = arb_world_restore(r, m, size);
  free(m);
  return rc;
}
