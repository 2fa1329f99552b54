// tests — a whole file read into memory, for tests that check documents, logs and the
// files a program wrote.
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

// The bytes of the file at `path` followed by a NUL (malloc'd: free it), their count in
// *len (len may be NULL). NULL when the file cannot be opened or read.
static inline char* arb_test_read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 4096, n = 0;
  char* buf = malloc(cap + 1);
  while (buf != NULL) {
    if (n == cap) {
      char* bigger = realloc(buf, cap * 2 + 1);
      if (bigger == NULL) free(buf);
      buf = bigger;
      cap *= 2;
      continue;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  bool failed = ferror(f) != 0;
  fclose(f);
  if (buf == NULL || failed) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  if (len != NULL) *len = n;
  return buf;
}
