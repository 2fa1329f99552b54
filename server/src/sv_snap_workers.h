// Builds one snapshot tick's per-client snapshots (sv_snapshot_build) on the tick thread
// and `threads` worker threads (--snapshot-threads). The simulation does not run while
// they build: the tick thread hands out the clients, builds its share and waits for the
// rest, so the game is only read. Any thread may build any client; a build depends only on
// the capture and that client, so the bytes are the same whichever thread built them and
// however many there are. Each thread copies its packets into its own buffer; the tick
// thread sends them afterwards, in client order (ENet is not thread-safe).
#pragma once

#include "sv_snapshot.h"

/// One client's build of this snapshot tick.
typedef struct sv_snap_job {
  sv_snap_client* client;         ///< in
  sv_snap_request req;            ///< in
  int rc;                         ///< out: 0 or ARB_E_*
  arb_snapshot_build_result res;  ///< out (when rc is 0): packets valid until the next run
  int thread;                     ///< which thread's buffer holds the packets
  size_t offset;                  ///< where in it they start
} sv_snap_job;

typedef struct sv_snap_workers sv_snap_workers;

/// threads 0 = everything on the calling thread. max_entities as for sv_snapshot_init.
/// Returns 0 or ARB_E_*.
int sv_snap_workers_create(int threads, int max_entities, sv_snap_workers** out);
void sv_snap_workers_destroy(sv_snap_workers* w);
/// Builds jobs[0..n) from s's last capture; returns when every one is done.
void sv_snap_workers_run(sv_snap_workers* w, const sv_snapshot* s, sv_snap_job* jobs, int n);
