// Worker pool behind arb_pool_for (arbiter/worker_pool.h). Blocks are claimed from one
// atomic counter that carries the loop's generation in its high half, so a worker that
// wakes late can never claim a block of a later loop with the earlier loop's function.
// Idle workers spin for a while (when asked to: a step posts many short loops) and then
// sleep on a condition variable.
//
// Held pool (arb_pool_hold .. arb_pool_release): one posted loop brings every worker into
// arb__pool_helper, where it spins on a sequence number for the caller's next loop; a loop
// is then published with atomic stores only (no mutex, no broadcast), which is what a
// physics step needs for its hundreds of short loops (one per solver colour and pass).
#include <arbiter/worker_pool.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct arb__loop {
  arb_range_fn* fn;
  void* ctx;
  int count, block, blocks;
  uint32_t gen;
} arb__loop;

// The loop of a held pool, published under a sequence lock: seq is odd while the caller
// writes the fields, and a helper uses the fields only if seq was the same even value
// before and after it read them.
typedef struct arb__held_loop {
  _Atomic uint32_t seq;
  _Atomic(arb_range_fn*) fn;
  _Atomic(void*) ctx;
  _Atomic int count, block, blocks;
  _Atomic uint64_t next;  // seq << 32 | next block index
  _Atomic int done;       // blocks finished
} arb__held_loop;

struct arb_pool {
  pthread_mutex_t mu;
  pthread_cond_t wake;
  arb__loop loop;         // written under mu, before gen is published
  _Atomic uint32_t gen;   // generation of the newest loop
  _Atomic uint64_t next;  // gen << 32 | next block index
  _Atomic int done;       // blocks finished of the current loop
  _Atomic int quit;
  _Atomic int held;  // helpers keep waiting for held loops while set
  arb__held_loop hl;
  uint32_t hold_gen;  // the loop that runs the helpers (caller only), 0: not held
  int spins;          // idle checks before sleeping
  int threads;
  pthread_t tid[ARB_POOL_MAX_THREADS];
};

typedef struct arb__pool_thread {
  arb_pool* pool;
  int index;  // 1..threads
} arb__pool_thread;

// Claims (from `next`, while its high half is `tag`) and runs blocks of a loop until none
// is left; counts each finished block in `done`.
static void arb__claim_run(_Atomic uint64_t* next, _Atomic int* done, uint32_t tag,
                           const arb__loop* l, int thread) {
  for (;;) {
    uint64_t v = atomic_load(next);
    if ((uint32_t)(v >> 32) != tag || (int)(uint32_t)v >= l->blocks) return;
    if (!atomic_compare_exchange_weak(next, &v, v + 1)) continue;
    int b = (int)(uint32_t)v;
    int begin = b * l->block;
    int end = begin + l->block < l->count ? begin + l->block : l->count;
    l->fn(l->ctx, begin, end, thread);
    atomic_fetch_add(done, 1);
  }
}

static void arb__spin_until(_Atomic int* counter, int value) {
  for (int i = 0; atomic_load(counter) < value; ++i) {
    if ((i & 63) == 63) sched_yield();
  }
}

// What a worker runs while the pool is held: every held loop the caller publishes, until
// the caller releases the pool.
static void arb__pool_helper(void* ctx, int begin, int end, int thread) {
  (void)begin;
  (void)end;
  arb_pool* p = ctx;
  arb__held_loop* h = &p->hl;
  uint32_t tried = 1;  // odd: no loop has that sequence number
  for (int i = 0; atomic_load(&p->held); ++i) {
    uint32_t s = atomic_load(&h->seq);
    if (s == tried || (s & 1u)) {
      if ((i & 255) == 255) sched_yield();
      continue;
    }
    arb__loop l = {atomic_load(&h->fn),    atomic_load(&h->ctx),    atomic_load(&h->count),
                   atomic_load(&h->block), atomic_load(&h->blocks), s};
    if (atomic_load(&h->seq) != s) continue;  // rewritten while read: read again
    tried = s;
    arb__claim_run(&h->next, &h->done, s, &l, thread);
  }
}

static void* arb__pool_main(void* arg) {
  arb__pool_thread self = *(arb__pool_thread*)arg;
  free(arg);
  arb_pool* p = self.pool;
  uint32_t seen = 0;
  for (;;) {
    for (int i = 0; i < p->spins && atomic_load(&p->gen) == seen && !atomic_load(&p->quit); ++i) {
      if ((i & 255) == 255) sched_yield();
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->gen) == seen && !atomic_load(&p->quit))
      pthread_cond_wait(&p->wake, &p->mu);
    arb__loop l = p->loop;
    pthread_mutex_unlock(&p->mu);
    if (atomic_load(&p->quit)) return NULL;
    seen = l.gen;
    arb__claim_run(&p->next, &p->done, l.gen, &l, self.index);
  }
}

arb_pool* arb_pool_create(int threads, int spins) {
  if (threads < 1) return NULL;
  arb_pool* p = calloc(1, sizeof *p);
  if (!p) return NULL;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  p->spins = spins > 0 ? spins : 0;
  int want = threads < ARB_POOL_MAX_THREADS ? threads : ARB_POOL_MAX_THREADS;
  for (int i = 0; i < want; ++i) {
    arb__pool_thread* arg = malloc(sizeof *arg);
    if (!arg) break;
    *arg = (arb__pool_thread){p, i + 1};
    if (pthread_create(&p->tid[i], NULL, arb__pool_main, arg) != 0) {
      free(arg);
      break;
    }
    p->threads++;
  }
  if (p->threads == 0) {
    arb_pool_destroy(p);
    return NULL;
  }
  return p;
}

void arb_pool_destroy(arb_pool* p) {
  if (!p) return;
  arb_pool_release(p);
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->quit, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->threads; ++i) pthread_join(p->tid[i], NULL);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

int arb_pool_threads(const arb_pool* p) {
  return p ? p->threads : 0;
}

// Publishes a loop to the sleeping or spinning workers; returns its generation.
static uint32_t arb__post(arb_pool* p, arb_range_fn* fn, void* ctx, int count, int block,
                          int blocks) {
  pthread_mutex_lock(&p->mu);
  uint32_t gen = atomic_load(&p->gen) + 1u;
  if (gen == 0u) gen = 1u;  // 0 is what a new worker has seen
  p->loop = (arb__loop){fn, ctx, count, block, blocks, gen};
  atomic_store(&p->done, 0);
  atomic_store(&p->next, (uint64_t)gen << 32);
  atomic_store(&p->gen, gen);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  return gen;
}

void arb_pool_hold(arb_pool* p) {
  if (!p || p->hold_gen != 0u) return;
  atomic_store(&p->held, 1);
  p->hold_gen = arb__post(p, arb__pool_helper, p, p->threads, 1, p->threads);
}

void arb_pool_release(arb_pool* p) {
  if (!p || p->hold_gen == 0u) return;
  atomic_store(&p->held, 0);
  // Close the helpers' loop: a worker that has not entered it yet never will; wait for
  // those that did to leave.
  uint64_t v = atomic_exchange(&p->next, ((uint64_t)p->hold_gen << 32) | (uint32_t)p->threads);
  int claimed = (int)(uint32_t)v < p->threads ? (int)(uint32_t)v : p->threads;
  arb__spin_until(&p->done, claimed);
  p->hold_gen = 0u;
}

// One loop on a held pool: published with atomic stores, run by the caller and helpers.
static void arb__held_for(arb_pool* p, const arb__loop* l) {
  arb__held_loop* h = &p->hl;
  uint32_t s = atomic_load(&h->seq);
  atomic_store(&h->seq, s + 1u);  // odd: being written
  atomic_store(&h->fn, l->fn);
  atomic_store(&h->ctx, l->ctx);
  atomic_store(&h->count, l->count);
  atomic_store(&h->block, l->block);
  atomic_store(&h->blocks, l->blocks);
  atomic_store(&h->done, 0);
  s += 2u;  // even again (wraps to 0 after 2^32 - 2: still never the helpers' odd start)
  atomic_store(&h->next, (uint64_t)s << 32);
  atomic_store(&h->seq, s);
  arb__claim_run(&h->next, &h->done, s, l, 0);
  arb__spin_until(&h->done, l->blocks);
}

void arb_pool_for(arb_pool* p, arb_range_fn* fn, void* ctx, int count, int min_block) {
  if (count <= 0) return;
  if (min_block < 1) min_block = 1;
  int parts = p ? 4 * (p->threads + 1) : 1;  // a few blocks per thread evens out the load
  int block = (count + parts - 1) / parts;
  if (block < min_block) block = min_block;
  int blocks = (count + block - 1) / block;
  if (!p || blocks < 2) {
    fn(ctx, 0, count, 0);
    return;
  }
  if (p->hold_gen != 0u) {
    arb__loop l = {fn, ctx, count, block, blocks, 0u};
    arb__held_for(p, &l);
    return;
  }
  uint32_t gen = arb__post(p, fn, ctx, count, block, blocks);
  arb__loop l = {fn, ctx, count, block, blocks, gen};
  arb__claim_run(&p->next, &p->done, gen, &l, 0);
  arb__spin_until(&p->done, blocks);
}
