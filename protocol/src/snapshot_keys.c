// Sorting and selecting the builder's candidate keys (snapshot_internal.h): 64-bit keys whose
// low bits are a candidate index, so every key is distinct.
#include <string.h>

#include "snapshot_internal.h"

/* Sorts keys[0..n) (tmp: n more; the keys are distinct). Up to a few hundred keys, the
 * usual count: runs of KEY_RUN sorted by insertion, then merged pairwise. More: an LSD
 * radix sort by the bytes above the candidate index, skipping those every key shares: the
 * keys come in increasing index order (as the builder writes them) and each pass
 * is stable, so keys equal above the index stay in index order, and the index bytes need
 * no pass. (The radix sort's fixed cost, 256 buckets per byte, is what the merge avoids.) */
#define KEY_FIRST_DIGIT 3
#define KEY_RUN 16
_Static_assert(2 * (uint64_t)ARB_PROTO_MAX_ENTITIES <= (uint64_t)1 << (8 * KEY_FIRST_DIGIT),
               "a candidate index fits below the sorted bytes");

static void merge_sort_keys(uint64_t* keys, uint64_t* tmp, int n) {
  for (int lo = 0; lo < n; lo += KEY_RUN) {
    int hi = lo + KEY_RUN < n ? lo + KEY_RUN : n;
    for (int k = lo + 1; k < hi; ++k) {
      uint64_t key = keys[k];
      int at = k;
      for (; at > lo && keys[at - 1] > key; --at) keys[at] = keys[at - 1];
      keys[at] = key;
    }
  }
  uint64_t *from = keys, *to = tmp;
  for (int width = KEY_RUN; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, o = lo;
      while (i < mid && j < hi) to[o++] = from[j] < from[i] ? from[j++] : from[i++];
      while (i < mid) to[o++] = from[i++];
      while (j < hi) to[o++] = from[j++];
    }
    uint64_t* t = from;
    from = to;
    to = t;
  }
  if (from != keys) memcpy(keys, from, (size_t)n * sizeof *keys);
}

void arb__snapshot_sort_keys(uint64_t* keys, uint64_t* tmp, int n) {
  if (n <= ARB__SNAPSHOT_KEY_MERGE_MAX) {
    merge_sort_keys(keys, tmp, n);
    return;
  }
  enum { DIGITS = 8 - KEY_FIRST_DIGIT };
  uint32_t count[DIGITS][256];
  memset(count, 0, sizeof count);
  for (int k = 0; k < n; ++k)
    for (int d = 0; d < DIGITS; ++d) count[d][(keys[k] >> (8 * (d + KEY_FIRST_DIGIT))) & 0xFF]++;
  for (int d = 0; d < DIGITS; ++d) {
    const int shift = 8 * (d + KEY_FIRST_DIGIT);
    uint32_t at = 0;
    int shared = 0;
    for (int v = 0; v < 256; ++v) {
      uint32_t c = count[d][v];
      shared |= c == (uint32_t)n;
      count[d][v] = at;
      at += c;
    }
    if (shared) continue;
    for (int k = 0; k < n; ++k) tmp[count[d][(keys[k] >> shift) & 0xFF]++] = keys[k];
    memcpy(keys, tmp, (size_t)n * sizeof *keys);
  }
}

/* Moves the p smallest of keys[0..n) (distinct) to keys[0..p), in no particular order: a
 * quickselect (Hoare partitions around the middle key). */
void arb__snapshot_select_smallest(uint64_t* keys, int n, int p) {
  int lo = 0, hi = n - 1;
  while (lo < hi && p > lo && p <= hi) {
    uint64_t pivot = keys[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (keys[i] < pivot) ++i;
      while (keys[j] > pivot) --j;
      if (i <= j) {
        uint64_t t = keys[i];
        keys[i++] = keys[j];
        keys[j--] = t;
      }
    }
    // [lo, j] <= pivot <= [i, hi]; keys strictly between j and i equal the pivot.
    if (p <= j)
      hi = j;
    else if (p >= i)
      lo = i;
    else
      return;
  }
}
