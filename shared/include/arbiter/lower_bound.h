// arbiter — binary search in an array of structs kept sorted by a uint32 key (an entity
// id, usually). Stand-alone (libc only), header-only, so every library may use it.
#pragma once

#include <string.h>

#include "base.h"

ARB_C_BEGIN

/// Index of the first of `count` elements (`stride` bytes apart) whose uint32 key, stored
/// `key_offset` bytes into the element, is not less than `key`; `count` when there is none.
/// The elements must be in increasing key order. Pass sizeof and offsetof of the element:
///   int i = arb_lower_bound_u32(set->items, set->count, sizeof *set->items,
///                               offsetof(entity, id), id);
static inline int arb_lower_bound_u32(const void* items, int count, size_t stride,
                                      size_t key_offset, uint32_t key) {
  const unsigned char* base = (const unsigned char*)items;
  int lo = 0, hi = count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    uint32_t k;
    memcpy(&k, base + (size_t)mid * stride + key_offset, sizeof k);
    if (k < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

ARB_C_END
