// cl_mem — the client's allocator hooks (per client, from arb_client_config; no globals).
#pragma once

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/client.h>

typedef struct cl_mem {
  arb_client_alloc_fn* alloc;  ///< NULL = malloc
  arb_client_free_fn* free;    ///< NULL = free
  void* user;
} cl_mem;

static inline void* cl_alloc(const cl_mem* m, size_t size) {
  return m->alloc ? m->alloc(size, m->user) : malloc(size);
}
static inline void* cl_calloc(const cl_mem* m, size_t size) {
  void* p = cl_alloc(m, size);
  if (p) memset(p, 0, size);
  return p;
}
static inline void cl_free(const cl_mem* m, void* p) {
  if (!p) return;
  if (m->free)
    m->free(p, m->user);
  else
    free(p);
}
/// Grow an array to hold at least `need` elements of `elem` bytes (doubling). Keeps the
/// contents; returns 0 or ARB_E_NOMEM (the old array is kept on failure).
static inline int cl_grow(const cl_mem* m, void** array, int* cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int n = *cap > 0 ? *cap : 16;
  while (n < need) n *= 2;
  void* p = cl_alloc(m, (size_t)n * elem);
  if (!p) return ARB_E_NOMEM;
  if (*array) {
    memcpy(p, *array, (size_t)*cap * elem);
    cl_free(m, *array);
  }
  *array = p;
  *cap = n;
  return 0;
}

/// A table that grows a block of CL_BLOCK elements at a time and never moves an element.
/// For the tables a client of a large world fills with thousands of kilobyte-sized entries
/// (interpolation histories, descriptions): grown by doubling, such a table was copied and
/// freshly touched about twice over its final size, and 256 whole-world clients joining at
/// once stalled arbiter-bot in page faults past the server's timeout.
#define CL_BLOCK 256

typedef struct cl_blocks {
  void** block;  ///< block[k / CL_BLOCK] holds element k
  int count;     ///< blocks held: room for count * CL_BLOCK elements
  int cap;       ///< of the block pointer array
} cl_blocks;

/// Element k (below the room made) of elem bytes.
static inline void* cl_blocks_at(const cl_blocks* b, int k, size_t elem) {
  return (char*)b->block[k / CL_BLOCK] + (size_t)(k % CL_BLOCK) * elem;
}

/// Room for `need` elements of elem bytes: 0 or ARB_E_NOMEM (what was held is kept).
static inline int cl_blocks_room(const cl_mem* m, cl_blocks* b, int need, size_t elem) {
  while ((long)b->count * CL_BLOCK < need) {
    int rc = cl_grow(m, (void**)&b->block, &b->cap, b->count + 1, sizeof *b->block);
    if (rc) return rc;
    void* p = cl_alloc(m, CL_BLOCK * elem);
    if (!p) return ARB_E_NOMEM;
    b->block[b->count++] = p;
  }
  return 0;
}

static inline void cl_blocks_free(const cl_mem* m, cl_blocks* b) {
  for (int k = 0; k < b->count; k++) cl_free(m, b->block[k]);
  cl_free(m, b->block);
  b->block = NULL;
  b->count = b->cap = 0;
}
