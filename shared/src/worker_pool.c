// Worker pool behind arb__pool_for (worker_pool.h). Blocks are claimed from one atomic
// counter that carries the job's generation in its high half, so a worker that wakes late
// can never claim a block of a later job with the earlier job's function. Idle workers spin
// briefly (a step posts many short loops) and then sleep on a condition variable.
#include "worker_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

enum { ARB__POOL_MAX_THREADS = 63, ARB__POOL_SPINS = 20000 };

typedef struct arb__job {
  arb__range_fn* fn;
  void* ctx;
  int count, block, blocks;
  uint32_t gen;
} arb__job;

struct arb__pool {
  pthread_mutex_t mu;
  pthread_cond_t wake;
  arb__job job;                 // written under mu, before gen is published
  _Atomic uint32_t gen;         // generation of the newest job
  _Atomic uint64_t next;        // gen << 32 | next block index
  _Atomic int done;             // blocks finished of the current job
  _Atomic int quit;
  int threads;
  pthread_t tid[ARB__POOL_MAX_THREADS];
};

// Claims and runs blocks of job j until none is left (or a newer job replaced it).
static void arb__pool_work(arb__pool* p, const arb__job* j) {
  for (;;) {
    uint64_t v = atomic_load(&p->next);
    if ((uint32_t)(v >> 32) != j->gen || (int)(uint32_t)v >= j->blocks) return;
    if (!atomic_compare_exchange_weak(&p->next, &v, v + 1)) continue;
    int b = (int)(uint32_t)v;
    int begin = b * j->block;
    int end = begin + j->block < j->count ? begin + j->block : j->count;
    j->fn(j->ctx, begin, end);
    atomic_fetch_add(&p->done, 1);
  }
}

static void* arb__pool_main(void* arg) {
  arb__pool* p = arg;
  uint32_t seen = 0;
  for (;;) {
    for (int i = 0; i < ARB__POOL_SPINS && atomic_load(&p->gen) == seen && !atomic_load(&p->quit); ++i) {
      if ((i & 255) == 255) sched_yield();
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->gen) == seen && !atomic_load(&p->quit)) pthread_cond_wait(&p->wake, &p->mu);
    arb__job j = p->job;
    pthread_mutex_unlock(&p->mu);
    if (atomic_load(&p->quit)) return NULL;
    seen = j.gen;
    arb__pool_work(p, &j);
  }
}

arb__pool* arb__pool_create(int workers) {
  if (workers <= 1) return NULL;
  arb__pool* p = calloc(1, sizeof *p);
  if (!p) return NULL;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  int want = workers - 1 < ARB__POOL_MAX_THREADS ? workers - 1 : ARB__POOL_MAX_THREADS;
  for (int i = 0; i < want; ++i) {
    if (pthread_create(&p->tid[i], NULL, arb__pool_main, p) != 0) break;
    p->threads++;
  }
  if (p->threads == 0) {
    arb__pool_destroy(p);
    return NULL;
  }
  return p;
}

void arb__pool_destroy(arb__pool* p) {
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

void arb__pool_for(arb__pool* p, arb__range_fn* fn, void* ctx, int count, int min_block) {
  if (count <= 0) return;
  if (min_block < 1) min_block = 1;
  int parts = p ? 4 * (p->threads + 1) : 1;  // a few blocks per thread evens out the load
  int block = (count + parts - 1) / parts;
  if (block < min_block) block = min_block;
  int blocks = (count + block - 1) / block;
  if (!p || blocks < 2) {
    fn(ctx, 0, count);
    return;
  }
  pthread_mutex_lock(&p->mu);
  uint32_t gen = atomic_load(&p->gen) + 1u;
  if (gen == 0u) gen = 1u;  // 0 is what a new worker has seen
  p->job = (arb__job){fn, ctx, count, block, blocks, gen};
  atomic_store(&p->done, 0);
  atomic_store(&p->next, (uint64_t)gen << 32);
  atomic_store(&p->gen, gen);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  arb__job j = p->job;
  arb__pool_work(p, &j);
  for (int i = 0; atomic_load(&p->done) < blocks; ++i) {
    if ((i & 63) == 63) sched_yield();
  }
}
