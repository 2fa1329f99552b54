// Worker threads for one world (arb_world_def.worker_count). A parallel loop splits
// [0, count) into fixed blocks; any thread may run any block, so it is used only for work
// whose every item writes its own slots and reads nothing another item of the same loop
// writes: the results are the same bits with 1, 2 or 4 workers.
#pragma once

typedef struct arb__pool arb__pool;

/// Runs items [begin, end) of a parallel loop.
typedef void arb__range_fn(void* ctx, int begin, int end);

/// workers - 1 threads (the stepping thread is the first worker). NULL when workers <= 1
/// or the threads cannot be started: the loops then run on the calling thread.
arb__pool* arb__pool_create(int workers);
void arb__pool_destroy(arb__pool* pool);

/// fn over [0, count) in blocks of at least min_block items; returns when all are done.
/// Without a pool (or with fewer than two blocks) it is one call fn(ctx, 0, count).
void arb__pool_for(arb__pool* pool, arb__range_fn* fn, void* ctx, int count, int min_block);
