// Link impairment model and in-flight queue (see netem_model.h).
#include "netem_model.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng_next(netem_dir* d) {
  // xorshift64*: tiny, fast and good enough for coin flips.
  uint64_t x = d->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  d->rng = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(netem_dir* d) {
  return (double)(rng_next(d) >> 11) * (1.0 / 9007199254740992.0);
}

void netem_dir_init(netem_dir* d, const netem_params* p, uint64_t seed) {
  memset(d, 0, sizeof *d);
  d->p = *p;
  // splitmix64 of the seed, so seeds 1, 2, 3 give unrelated streams.
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  d->rng = z ? z : 0x1234567ull;
}

static double delay_ms(netem_dir* d) {
  double j = d->p.jitter_ms > 0.0 ? (2.0 * rng_unit(d) - 1.0) * d->p.jitter_ms : 0.0;
  double ms = d->p.latency_ms + j;
  return ms < 0.0 ? 0.0 : ms;
}

int netem_dir_decide(netem_dir* d, double now_ms, size_t size, double out[2]) {
  d->c.packets_in++;
  d->c.bytes_in += size;
  // Draw every random number for every datagram, used or not, so one setting does not
  // shift the random stream of the others (runs stay comparable across flags).
  double u_loss = rng_unit(d), u_dup = rng_unit(d), u_reorder = rng_unit(d);
  double d1 = delay_ms(d), d2 = delay_ms(d);
  if (u_loss < d->p.loss) {
    d->c.lost++;
    return 0;
  }
  double depart = now_ms;
  if (d->p.rate_kbps > 0.0) {
    double start = d->link_free_ms > now_ms ? d->link_free_ms : now_ms;
    double tx = (double)size * 8.0 / d->p.rate_kbps;  // kbit/s == bit/ms
    if (start + tx - now_ms > d->p.queue_ms) {
      d->c.queue_drops++;
      return 0;
    }
    depart = start + tx;
    d->link_free_ms = depart;
  }
  int n = 0;
  out[n] = depart + d1;
  if (u_reorder < d->p.reorder) {
    out[n] += d->p.reorder_ms;
    d->c.reordered++;
  }
  n++;
  if (u_dup < d->p.dup) {
    out[n++] = depart + d2;
    d->c.duplicated++;
  }
  return n;
}

// ---- queue -----------------------------------------------------------------------------

void netem_queue_init(netem_queue* q) {
  memset(q, 0, sizeof *q);
}

void netem_queue_free(netem_queue* q) {
  for (int i = 0; i < q->count; i++) free(q->items[i].data);
  free(q->items);
  memset(q, 0, sizeof *q);
}

static int before(const netem_item* a, const netem_item* b) {
  return a->due_ms < b->due_ms || (a->due_ms == b->due_ms && a->order < b->order);
}

int netem_queue_push(netem_queue* q, double due_ms, int session, int dir, const uint8_t* data,
                     size_t len) {
  if (q->count == q->cap) {
    int cap = q->cap ? q->cap * 2 : 256;
    netem_item* items = (netem_item*)realloc(q->items, (size_t)cap * sizeof *items);
    if (!items) return -1;
    q->items = items;
    q->cap = cap;
  }
  uint8_t* copy = (uint8_t*)malloc(len ? len : 1);
  if (!copy) return -1;
  memcpy(copy, data, len);
  netem_item it = {due_ms, q->next_order++, session, dir, (uint32_t)len, copy};
  int i = q->count++;
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (!before(&it, &q->items[parent])) break;
    q->items[i] = q->items[parent];
    i = parent;
  }
  q->items[i] = it;
  q->bytes += len;
  return 0;
}

const netem_item* netem_queue_peek(const netem_queue* q) {
  return q->count ? &q->items[0] : NULL;
}

int netem_queue_pop(netem_queue* q, netem_item* out) {
  if (q->count == 0) return -1;
  *out = q->items[0];
  q->bytes -= out->len;
  netem_item last = q->items[--q->count];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    const netem_item* best = &last;
    if (l < q->count && before(&q->items[l], best)) {
      m = l;
      best = &q->items[l];
    }
    if (r < q->count && before(&q->items[r], best)) m = r;
    if (m == i) break;
    q->items[i] = q->items[m];
    i = m;
  }
  if (q->count > 0) q->items[i] = last;
  return 0;
}
