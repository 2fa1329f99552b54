// netem_proxy — the libuv UDP proxy around netem_model.
//
//   client A ──▶ listen socket ──(up: model)──▶ session A's socket ──▶ server
//   client A ◀── listen socket ◀─(down: model)── session A's socket ◀── server
//
// Each client address gets a session with its own upstream socket (an ephemeral port),
// so the server sees one peer per client, as without the proxy. Datagrams wait in one
// delivery queue; a one-shot uv_timer is re-armed for the earliest delivery time (a
// repeating timer drifts, see DEPENDENCIES.md). Sessions idle for 60 s are closed.
#pragma once

#include <stdbool.h>

#include <uv.h>

#include "netem_model.h"

#define NETEM_MAX_SESSIONS 1024

typedef struct netem_session {
  bool used;
  struct sockaddr_storage client;  ///< the client's address
  uv_udp_t upstream;               ///< bound to an ephemeral port, talks to the server
  uint64_t last_active_ms;
  struct netem_proxy* proxy;
  int index;
} netem_session;

typedef struct netem_proxy {
  uv_loop_t* loop;
  uv_udp_t listen;
  uv_timer_t timer;         ///< next delivery
  uv_timer_t housekeeping;  ///< idle sessions, stats line, duration
  struct sockaddr_storage server;
  netem_dir up, down;  ///< up = client -> server
  netem_queue queue;
  netem_session* sessions;  ///< NETEM_MAX_SESSIONS
  int session_count;
  uint64_t sessions_opened, session_refused;
  uint64_t start_ms;
  double duration_s;        ///< stop after this long (0 = never)
  double stats_interval_s;  ///< print a stats line this often (0 = never)
  double last_stats_s;
  bool stopping;
  uint8_t buf[65536];  ///< receive buffer (libuv hands out one at a time per loop)
} netem_proxy;

/// Bind the listen socket (port 0 = ephemeral) and prepare; the loop runs the proxy.
/// Returns 0 or a libuv error code.
int netem_proxy_start(netem_proxy* p, uv_loop_t* loop, const struct sockaddr* listen_addr,
                      const struct sockaddr* server_addr, const netem_params* up,
                      const netem_params* down, uint64_t seed);
/// The bound listen port.
int netem_proxy_port(netem_proxy* p);
/// Close every handle (the loop then finishes); datagrams in flight are dropped.
void netem_proxy_stop(netem_proxy* p);
/// Free memory after the loop has finished.
void netem_proxy_free(netem_proxy* p);
