// netem_model — what happens to one UDP datagram on an impaired link, and the queue of
// datagrams in flight. No sockets, no clock: the proxy passes times in, so the model is
// deterministic for a seed and unit-testable.
//
// Per direction, in this order:
//
//   arrive(now) --loss?--> drop
//        |
//        v  bandwidth cap: leaves the bottleneck at depart = max(now, link_free) + size/rate;
//        |  a datagram that would wait longer than queue_ms is dropped (tail drop)
//        v
//   deliver at depart + latency + U(-jitter, +jitter)   (clamped at depart: never early)
//        |  with probability reorder: + reorder_delay (overtaken by later datagrams)
//        |  with probability dup: a second copy with its own latency/jitter draw
//        v
//   netem_queue (min-heap by delivery time, FIFO among equal times)
//
// Independent jitter per datagram already reorders when jitter exceeds the spacing of
// datagrams, as real links with jitter do; --reorder adds explicit late datagrams.
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct netem_params {
  double loss;        ///< probability [0,1]
  double dup;         ///< probability [0,1]
  double reorder;     ///< probability [0,1]
  double latency_ms;  ///< one way, >= 0
  double jitter_ms;   ///< +- uniform, >= 0
  double reorder_ms;  ///< extra delay of a reordered datagram, >= 0
  double rate_kbps;   ///< bottleneck kbit/s, 0 = unlimited
  double queue_ms;    ///< bottleneck queue limit, ms of waiting
} netem_params;

typedef struct netem_counters {
  uint64_t packets_in, bytes_in;
  uint64_t packets_out, bytes_out;  ///< delivered (copies included)
  uint64_t lost, queue_drops, duplicated, reordered, send_errors;
} netem_counters;

typedef struct netem_dir {
  netem_params p;
  uint64_t rng;         ///< xorshift64* state, never 0
  double link_free_ms;  ///< when the bottleneck is idle again
  netem_counters c;
} netem_dir;

/// Seed a direction; the same seed and the same arrivals give the same fate.
void netem_dir_init(netem_dir* d, const netem_params* p, uint64_t seed);
/// Decide the fate of one datagram of `size` bytes arriving at now_ms: writes 0..2
/// delivery times into out[] and returns how many (0 = dropped).
int netem_dir_decide(netem_dir* d, double now_ms, size_t size, double out[2]);

typedef struct netem_item {
  double due_ms;
  uint64_t order;  ///< insertion order: ties deliver FIFO
  int session;     ///< proxy session index
  int dir;         ///< 0 = up (client -> server), 1 = down
  uint32_t len;
  uint8_t* data;  ///< owned by the queue until popped
} netem_item;

typedef struct netem_queue {
  netem_item* items;  ///< binary min-heap
  int count, cap;
  uint64_t next_order;
  size_t bytes;  ///< payload bytes held
} netem_queue;

void netem_queue_init(netem_queue* q);
/// Frees every held datagram.
void netem_queue_free(netem_queue* q);
/// Copies data. Returns 0 or -1 (out of memory: the datagram is dropped).
int netem_queue_push(netem_queue* q, double due_ms, int session, int dir, const uint8_t* data,
                     size_t len);
/// The earliest item (NULL when empty); stays in the queue.
const netem_item* netem_queue_peek(const netem_queue* q);
/// Remove the earliest item into *out; the caller frees out->data. 0 = ok, -1 = empty.
int netem_queue_pop(netem_queue* q, netem_item* out);
