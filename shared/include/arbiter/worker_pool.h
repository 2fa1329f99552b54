// arbiter — a pool of worker threads for parallel loops: the physics step's per-body and
// per-contact passes (arb_world_def.worker_count), the server's per-client snapshots.
//
// arb_pool_for splits [0, count) into fixed blocks and any thread may run any block, so
// it is for work whose every item writes its own slots and reads nothing another item of
// the same loop writes. The thread index a block runs on is there to pick per-thread
// scratch memory: no result may depend on it, so the results are the same bits with 0, 1
// or N threads.
#pragma once

#include "base.h"

ARB_C_BEGIN

#define ARB_POOL_MAX_THREADS 64

typedef struct arb_pool arb_pool;

/// Runs items [begin, end) of a parallel loop. thread: 0 is the thread that called
/// arb_pool_for, 1..arb_pool_threads(pool) the pool's own threads.
typedef void arb_range_fn(void* ctx, int begin, int end, int thread);

/// Starts `threads` threads (1..ARB_POOL_MAX_THREADS; fewer if some cannot be started).
/// spins: how many times an idle thread looks for a new loop before it sleeps (a few
/// thousand when loops come in quick bursts, 0 when they are rare). NULL when threads < 1,
/// out of memory or no thread starts; arb_pool_for then runs every loop on the caller.
ARB_API arb_pool* arb_pool_create(int threads, int spins);
/// Stops and joins the threads. NULL is fine.
ARB_API void arb_pool_destroy(arb_pool* pool);
/// The threads running (0 for NULL).
ARB_API int arb_pool_threads(const arb_pool* pool);

/// fn over [0, count) in blocks of at least min_block items, on the calling thread and the
/// pool's; returns when all are done. Without a pool (or with fewer than two blocks) it is
/// one call fn(ctx, 0, count, 0). One loop at a time: not reentrant, one caller thread.
ARB_API void arb_pool_for(arb_pool* pool, arb_range_fn* fn, void* ctx, int count, int min_block);

/// Keeps the pool's threads awake and waiting for loops until arb_pool_release, so that
/// each arb_pool_for in between is posted with a few atomic stores instead of a mutex and
/// a wake-up (for bursts of short loops, such as a physics step's solver passes). The
/// threads spin meanwhile: hold only while loops keep coming. Same caller thread as
/// arb_pool_for; holding a held pool, or NULL, does nothing.
ARB_API void arb_pool_hold(arb_pool* pool);
/// Ends arb_pool_hold: returns once every thread has stopped waiting for held loops (they
/// then spin a while and sleep as usual). Releasing a pool not held, or NULL, does nothing.
ARB_API void arb_pool_release(arb_pool* pool);

ARB_C_END
