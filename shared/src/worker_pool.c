// Worker pool behind arb_pool_for (arbiter/worker_pool.h). Blocks are claimed from one
// atomic counter that carries the loop's generation in its high half, so a worker that
// wakes late can never claim a block of a later loop with the earlier loop's function.
// Idle workers spin for a while (when asked to: a step posts many short loops) and then
// sleep on a condition variable.
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

struct arb_pool {
  pthread_mutex_t mu;
  pthread_cond_t wake;
  arb__loop loop;         // written under mu, before gen is published
  _Atomic uint32_t gen;   // generation of the newest loop
  _Atomic uint64_t next;  // gen << 32 | next block index
  _Atomic int done;       // blocks finished of the current loop
  _Atomic int quit;
  int spins;  // idle checks before sleeping
  int threads;
  pthread_t tid[ARB_POOL_MAX_THREADS];
};

typedef struct arb__pool_thread {
  arb_pool* pool;
  int index;  // 1..threads
} arb__pool_thread;

// Claims and runs blocks of loop l on thread `thread` until none is left (or a newer loop
// replaced it).
static void arb__pool_work(arb_pool* p, const arb__loop* l, int thread) {
  for (;;) {
    uint64_t v = atomic_load(&p->next);
    if ((uint32_t)(v >> 32) != l->gen || (int)(uint32_t)v >= l->blocks) return;
    if (!atomic_compare_exchange_weak(&p->next, &v, v + 1)) continue;
    int b = (int)(uint32_t)v;
    int begin = b * l->block;
    int end = begin + l->block < l->count ? begin + l->block : l->count;
    l->fn(l->ctx, begin, end, thread);
    atomic_fetch_add(&p->done, 1);
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
    arb__pool_work(p, &l, self.index);
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
  pthread_mutex_lock(&p->mu);
  uint32_t gen = atomic_load(&p->gen) + 1u;
  if (gen == 0u) gen = 1u;  // 0 is what a new worker has seen
  p->loop = (arb__loop){fn, ctx, count, block, blocks, gen};
  atomic_store(&p->done, 0);
  atomic_store(&p->next, (uint64_t)gen << 32);
  atomic_store(&p->gen, gen);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  arb__loop l = p->loop;
  arb__pool_work(p, &l, 0);
  for (int i = 0; atomic_load(&p->done) < blocks; ++i) {
    if ((i & 63) == 63) sched_yield();
  }
}
