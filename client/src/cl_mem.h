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
