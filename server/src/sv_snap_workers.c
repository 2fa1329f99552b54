// Snapshot building threads (see sv_snap_workers.h). Jobs are claimed from one atomic
// counter tagged with the run's generation in its high half, so a worker that wakes late
// can never claim a job of a later run with an earlier run's arguments. Idle workers
// sleep: snapshot ticks come every few milliseconds at most, and a spinning thread would
// take a core the server's other work (or another process) needs.
#include "sv_snap_workers.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SV_SNAP_MAX_THREADS 64

typedef struct sv_snap_out {
  uint8_t* bytes;
  size_t len, cap;
} sv_snap_out;

typedef struct sv_snap_run {
  const sv_snapshot* s;
  sv_snap_job* jobs;
  int count;
  uint32_t gen;
} sv_snap_run;

struct sv_snap_workers {
  int threads;
  sv_snap_scratch* scratch;  ///< threads + 1 (index 0: the calling thread)
  sv_snap_out* out;          ///< threads + 1
  pthread_mutex_t mu;
  pthread_cond_t wake;
  sv_snap_run run;           ///< written under mu before gen is published
  _Atomic uint32_t gen;
  _Atomic uint64_t next;     ///< gen << 32 | next job
  _Atomic int done;          ///< jobs finished in this run
  _Atomic int quit;
  pthread_t tid[SV_SNAP_MAX_THREADS];
  int started;
};

typedef struct sv_snap_thread_arg {
  sv_snap_workers* w;
  int index;
} sv_snap_thread_arg;

// Keeps the job's packets in thread k's buffer; it grows (rarely: to the largest tick
// seen) so steady state does not allocate.
static int keep_packets(sv_snap_out* o, sv_snap_job* j) {
  size_t need = o->len + (size_t)j->res.bytes;
  if (need > o->cap) {
    size_t cap = o->cap ? o->cap : 65536;
    while (cap < need) cap *= 2;
    uint8_t* p = realloc(o->bytes, cap);
    if (!p) return ARB_E_NOMEM;
    o->bytes = p;
    o->cap = cap;
  }
  j->offset = o->len;
  for (int p = 0; p < j->res.packet_count; ++p) {
    memcpy(o->bytes + o->len, j->res.packets[p], (size_t)j->res.sizes[p]);
    o->len += (size_t)j->res.sizes[p];
  }
  return 0;
}

static void work(sv_snap_workers* w, const sv_snap_run* r, int k) {
  for (;;) {
    uint64_t v = atomic_load(&w->next);
    if ((uint32_t)(v >> 32) != r->gen || (int)(uint32_t)v >= r->count) return;
    if (!atomic_compare_exchange_weak(&w->next, &v, v + 1)) continue;
    sv_snap_job* j = &r->jobs[(uint32_t)v];
    j->thread = k;
    j->rc = sv_snapshot_build(r->s, &w->scratch[k], j->client, &j->req, &j->res);
    if (j->rc == 0) j->rc = keep_packets(&w->out[k], j);
    atomic_fetch_add(&w->done, 1);
  }
}

static void* thread_main(void* arg) {
  sv_snap_thread_arg a = *(sv_snap_thread_arg*)arg;
  free(arg);
  sv_snap_workers* w = a.w;
  uint32_t seen = 0;
  for (;;) {
    pthread_mutex_lock(&w->mu);
    while (atomic_load(&w->gen) == seen && !atomic_load(&w->quit)) pthread_cond_wait(&w->wake, &w->mu);
    sv_snap_run r = w->run;
    pthread_mutex_unlock(&w->mu);
    if (atomic_load(&w->quit)) return NULL;
    seen = r.gen;
    work(w, &r, a.index);
  }
}

int sv_snap_workers_create(int threads, int max_entities, sv_snap_workers** out) {
  *out = NULL;
  if (threads < 0 || threads > SV_SNAP_MAX_THREADS) return ARB_E_RANGE;
  sv_snap_workers* w = calloc(1, sizeof *w);
  if (!w) return ARB_E_NOMEM;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->wake, NULL);
  w->threads = threads;
  w->scratch = calloc((size_t)threads + 1, sizeof *w->scratch);
  w->out = calloc((size_t)threads + 1, sizeof *w->out);
  int rc = w->scratch && w->out ? 0 : ARB_E_NOMEM;
  for (int k = 0; rc == 0 && k <= threads; ++k) rc = sv_snap_scratch_init(&w->scratch[k], max_entities);
  for (int k = 1; rc == 0 && k <= threads; ++k) {
    sv_snap_thread_arg* a = malloc(sizeof *a);
    if (!a) rc = ARB_E_NOMEM;
    if (a) *a = (sv_snap_thread_arg){w, k};
    if (a && pthread_create(&w->tid[k - 1], NULL, thread_main, a) != 0) {
      free(a);
      rc = ARB_E_NOMEM;
    }
    if (rc == 0) w->started++;
  }
  if (rc != 0) {
    sv_snap_workers_destroy(w);
    return rc;
  }
  *out = w;
  return 0;
}

void sv_snap_workers_destroy(sv_snap_workers* w) {
  if (!w) return;
  pthread_mutex_lock(&w->mu);
  atomic_store(&w->quit, 1);
  pthread_cond_broadcast(&w->wake);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->started; ++i) pthread_join(w->tid[i], NULL);
  for (int k = 0; w->scratch && k <= w->threads; ++k) sv_snap_scratch_free(&w->scratch[k]);
  for (int k = 0; w->out && k <= w->threads; ++k) free(w->out[k].bytes);
  free(w->scratch);
  free(w->out);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

void sv_snap_workers_run(sv_snap_workers* w, const sv_snapshot* s, sv_snap_job* jobs, int n) {
  if (n <= 0) return;
  for (int k = 0; k <= w->threads; ++k) w->out[k].len = 0;
  pthread_mutex_lock(&w->mu);
  uint32_t gen = atomic_load(&w->gen) + 1u;
  if (gen == 0u) gen = 1u;  // 0 is what a new worker has seen
  w->run = (sv_snap_run){s, jobs, n, gen};
  atomic_store(&w->done, 0);
  atomic_store(&w->next, (uint64_t)gen << 32);
  atomic_store(&w->gen, gen);
  if (w->threads > 0 && n > 1) pthread_cond_broadcast(&w->wake);
  pthread_mutex_unlock(&w->mu);
  sv_snap_run r = w->run;
  work(w, &r, 0);
  // The tick thread has claimed its last job; the others finish theirs (briefly: one build).
  while (atomic_load(&w->done) < n) sched_yield();
  for (int i = 0; i < n; ++i) {  // the packets' home is now the thread's buffer
    sv_snap_job* j = &jobs[i];
    if (j->rc != 0) continue;
    const uint8_t* p = w->out[j->thread].bytes + j->offset;
    for (int q = 0; q < j->res.packet_count; ++q) {
      j->res.packets[q] = p;
      p += j->res.sizes[q];
    }
  }
}
