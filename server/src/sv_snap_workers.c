// Snapshot building threads (see sv_snap_workers.h) on the worker pool of
// arbiter/worker_pool.h: the jobs are a parallel loop, each block built with the scratch
// and into the packet buffer of the thread that runs it. Idle workers sleep (no spinning):
// snapshot ticks come every few milliseconds at most, and a spinning thread would take a
// core the server's other work (or another process) needs.
#include "sv_snap_workers.h"

#include <arbiter/worker_pool.h>
#include <stdlib.h>
#include <string.h>

typedef struct sv_snap_out {
  uint8_t* bytes;
  size_t len, cap;
} sv_snap_out;

struct sv_snap_workers {
  arb_pool* pool;  ///< NULL with no worker threads
  int threads;
  sv_snap_scratch* scratch;  ///< threads + 1 (index 0: the calling thread)
  sv_snap_out* out;          ///< threads + 1
};

// What one run's blocks read.
typedef struct sv_snap_run {
  sv_snap_workers* w;
  const sv_snapshot* s;
  sv_snap_job* jobs;
} sv_snap_run;

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

// Builds jobs [begin, end) with thread k's scratch, into thread k's buffer.
static void build_range(void* ctx, int begin, int end, int k) {
  const sv_snap_run* r = ctx;
  for (int i = begin; i < end; ++i) {
    sv_snap_job* j = &r->jobs[i];
    j->thread = k;
    j->rc = sv_snapshot_build(r->s, &r->w->scratch[k], j->client, &j->req, &j->res);
    if (j->rc == 0) j->rc = keep_packets(&r->w->out[k], j);
  }
}

int sv_snap_workers_create(int threads, int max_entities, sv_snap_workers** out) {
  *out = NULL;
  if (threads < 0 || threads > ARB_POOL_MAX_THREADS) return ARB_E_RANGE;
  sv_snap_workers* w = calloc(1, sizeof *w);
  if (!w) return ARB_E_NOMEM;
  w->threads = threads;
  w->scratch = calloc((size_t)threads + 1, sizeof *w->scratch);
  w->out = calloc((size_t)threads + 1, sizeof *w->out);
  int rc = w->scratch && w->out ? 0 : ARB_E_NOMEM;
  for (int k = 0; rc == 0 && k <= threads; ++k)
    rc = sv_snap_scratch_init(&w->scratch[k], max_entities);
  if (rc == 0 && threads > 0) {
    w->pool = arb_pool_create(threads, 0);
    if (arb_pool_threads(w->pool) != threads) rc = ARB_E_NOMEM;  // not all threads started
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
  arb_pool_destroy(w->pool);
  for (int k = 0; w->scratch && k <= w->threads; ++k) sv_snap_scratch_free(&w->scratch[k]);
  for (int k = 0; w->out && k <= w->threads; ++k) free(w->out[k].bytes);
  free(w->scratch);
  free(w->out);
  free(w);
}

void sv_snap_workers_run(sv_snap_workers* w, const sv_snapshot* s, sv_snap_job* jobs, int n) {
  if (n <= 0) return;
  for (int k = 0; k <= w->threads; ++k) w->out[k].len = 0;
  sv_snap_run r = {w, s, jobs};
  arb_pool_for(w->pool, build_range, &r, n, 1);
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
