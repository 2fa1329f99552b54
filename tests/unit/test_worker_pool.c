// The worker pool (arbiter/worker_pool.h): every item of a loop runs exactly once, on a
// thread index in [0, threads], in blocks of at least min_block items; without a pool or
// with fewer than two blocks the loop is one call on the calling thread (index 0); a pool
// runs loop after loop (each run's blocks belong to that run only), also while held.
#include <arbiter/worker_pool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../common/test_main.h"

#define ITEMS 5000

typedef struct loop_record {
  _Atomic int runs[ITEMS];      // how many times each item ran
  _Atomic int calls;            // blocks
  _Atomic int short_block;      // a block other than the last one under min_block
  _Atomic int bad_thread;       // a thread index out of [0, threads]
  _Atomic int non_zero_thread;  // a block ran off the calling thread
  int threads, count, min_block;
} loop_record;

static void record_range(void* ctx, int begin, int end, int thread) {
  loop_record* r = ctx;
  for (int i = begin; i < end; ++i) atomic_fetch_add(&r->runs[i], 1);
  atomic_fetch_add(&r->calls, 1);
  if (end < r->count && end - begin < r->min_block) atomic_store(&r->short_block, 1);
  if (thread < 0 || thread > r->threads) atomic_store(&r->bad_thread, 1);
  if (thread != 0) atomic_store(&r->non_zero_thread, 1);
}

static loop_record* run_loop(arb_pool* pool, int count, int min_block) {
  static loop_record r;
  memset(&r, 0, sizeof r);
  r.threads = arb_pool_threads(pool);
  r.count = count;
  r.min_block = min_block;
  arb_pool_for(pool, record_range, &r, count, min_block);
  for (int i = 0; i < count; ++i) assert_int_equal(atomic_load(&r.runs[i]), 1);
  for (int i = count; i < ITEMS; ++i) assert_int_equal(atomic_load(&r.runs[i]), 0);
  assert_int_equal(atomic_load(&r.bad_thread), 0);
  assert_int_equal(atomic_load(&r.short_block), 0);
  return &r;
}

static void no_pool_is_one_call_on_the_caller(void** state) {
  (void)state;
  assert_null(arb_pool_create(0, 0));
  assert_int_equal(arb_pool_threads(NULL), 0);
  loop_record* r = run_loop(NULL, ITEMS, 1);
  assert_int_equal(atomic_load(&r->calls), 1);
  assert_int_equal(atomic_load(&r->non_zero_thread), 0);
  arb_pool_destroy(NULL);
}

static void every_item_once_in_blocks_of_at_least_min_block(void** state) {
  (void)state;
  for (int spins = 0; spins <= 1000; spins += 1000) {
    arb_pool* pool = arb_pool_create(3, spins);
    assert_non_null(pool);
    assert_int_equal(arb_pool_threads(pool), 3);
    for (int round = 0; round < 200; ++round) {
      int count = 1 + (round * 397) % ITEMS, min_block = 1 + round % 70;
      loop_record* r = run_loop(pool, count, min_block);
      int calls = atomic_load(&r->calls);
      assert_true(calls <= (count + min_block - 1) / min_block);
      if (count < 2 * min_block) assert_int_equal(calls, 1);  // under two blocks: one call
      if (calls == 1) assert_int_equal(atomic_load(&r->non_zero_thread), 0);
    }
    run_loop(pool, 0, 1);  // nothing to run: no call
    arb_pool_destroy(pool);
  }
}

// A held pool runs loop after loop the same way (published without the mutex); holding
// twice or releasing a pool not held does nothing; after a release plain loops run again.
static void held_loops_run_every_item_once(void** state) {
  (void)state;
  arb_pool_hold(NULL);
  arb_pool_release(NULL);
  for (int spins = 0; spins <= 1000; spins += 1000) {
    arb_pool* pool = arb_pool_create(3, spins);
    assert_non_null(pool);
    arb_pool_release(pool);  // not held
    for (int cycle = 0; cycle < 20; ++cycle) {
      arb_pool_hold(pool);
      arb_pool_hold(pool);  // already held
      for (int round = 0; round < 50; ++round) {
        int count = 1 + (cycle * 1009 + round * 397) % ITEMS, min_block = 1 + round % 70;
        loop_record* r = run_loop(pool, count, min_block);
        assert_true(atomic_load(&r->calls) <= (count + min_block - 1) / min_block);
      }
      arb_pool_release(pool);
      run_loop(pool, ITEMS, 1);  // a plain loop after the release
    }
    arb_pool_hold(pool);  // destroyed while held: released first
    run_loop(pool, ITEMS, 7);
    arb_pool_destroy(pool);
  }
}

ARB_TEST_MAIN(cmocka_unit_test(no_pool_is_one_call_on_the_caller),
              cmocka_unit_test(every_item_once_in_blocks_of_at_least_min_block),
              cmocka_unit_test(held_loops_run_every_item_once))
