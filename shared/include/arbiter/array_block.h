// arbiter — one allocation carved into the fixed-size arrays a structure owns.
// Stand-alone (libc only), header-only, so every library above shared/ may use it.
//
// A structure sized once at create (a snapshot builder: items, order, descriptions,
// packet memory...) lists its arrays in one carve function, and arb_array_block_new runs
// it twice: first to measure, then, on one zeroed allocation, to hand the arrays out.
// Creation is all-or-nothing, adding an array is one line, and one free() releases them:
//
//   static void carve(void* owner, arb_array_block* blk) {
//     thing* t = owner;
//     t->items = arb_array_block_take(blk, t->cap, sizeof *t->items);
//     t->order = arb_array_block_take(blk, t->cap, sizeof *t->order);
//   }
//   t->mem = arb_array_block_new(t, carve);  // NULL: out of memory; later free(t->mem)
#pragma once

#include <stdlib.h>

#include "base.h"

ARB_C_BEGIN

typedef struct arb_array_block {
  unsigned char* base;  ///< NULL while measuring; the allocation afterwards (free() it)
  size_t size;          ///< bytes measured / handed out so far; SIZE_MAX on overflow
} arb_array_block;

/// Where each array starts: a cache line, which is also more than any type needs.
#define ARB_ARRAY_BLOCK_ALIGN ((size_t)64)

/// `count` zeroed elements of `elem` bytes, aligned for any type; NULL while measuring.
static inline void* arb_array_block_take(arb_array_block* blk, size_t count, size_t elem) {
  const size_t align = ARB_ARRAY_BLOCK_ALIGN;
  size_t at = blk->size == SIZE_MAX ? SIZE_MAX : (blk->size + align - 1) / align * align;
  if (at < blk->size || (elem && count > (SIZE_MAX - at) / elem)) {
    blk->size = SIZE_MAX;  // the alloc that follows fails
    return NULL;
  }
  blk->size = at + count * elem;
  return blk->base ? blk->base + at : NULL;
}

typedef void arb_array_block_carve_fn(void* owner, arb_array_block* blk);

/// Measures what `carve` takes, allocates that zeroed, and carves `owner`'s arrays from it.
/// Returns the block for free(), or NULL when memory runs out or the size overflows (then
/// the owner's array pointers are NULL).
static inline void* arb_array_block_new(void* owner, arb_array_block_carve_fn* carve) {
  arb_array_block blk = {NULL, 0};
  carve(owner, &blk);
  if (blk.size == SIZE_MAX) return NULL;
  blk.base = (unsigned char*)calloc(1, blk.size ? blk.size : 1);
  if (!blk.base) return NULL;
  blk.size = 0;
  carve(owner, &blk);
  return blk.base;
}

ARB_C_END
