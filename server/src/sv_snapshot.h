// Per-client snapshots (PROTOCOL.md §6).
//
// A client gets a snapshot every K = snapshot_every ticks, the clients spread over the K
// phases by session slot (sv_snapshot_due), so each tick builds about 1/K of them: the
// same snapshots per second, and a tick cost without a spike every K-th tick. Every tick
// that builds any, the server captures the quantized state of everything a client
// draws once (sv_snapshot_capture: bodies, particles, ropes, vehicle wheels; shared by all
// clients), and with a view radius buckets the captured positions into a uniform grid.
// Then for each client:
//
//   relevant set   everything, or with --view-radius the captured entities within the
//                  radius of the avatar plus those in the client's view box (its camera,
//                  the `view` message; a spectator sees only its box): the grid cells the
//                  radius and the box touch, never a scan of the whole capture
//   priority       what the client draws wrong (a model of its drawn set), weighted by
//                  relevance (own avatar, nearness), plus the time it has waited
//   budget         the client's rate controller: --client-kbps, lowered by the hello's
//                  max_kbps, cut on loss or rising RTT and recovering after
//   build          arb_snapshot_build against the newest view the client acknowledged
//
// A client's build reads only the capture and writes only the client and an
// sv_snap_scratch, so builds for different clients may run on different threads (one
// scratch each) while nothing changes the game.
//
// Each client keeps a ring of the views it was sent, keyed by tick, so an ack of any of
// the last SV_SNAP_RING snapshots can be a baseline; an older or unknown ack means a full
// snapshot. A view older than the newest ack can never be a baseline again (acks only move
// forward), so its slot is written first: a client that acks keeps a few slots in use and
// warm in the cache instead of cycling through all of them. Static bodies are not in snapshots:
// they are in the welcome message. All memory is allocated at init / session start.
#pragma once

#include <arbiter/game.h>
#include <arbiter/snapshot.h>
#include <arbiter/snapshot_priority.h>
#include <arbiter/snapshot_rate.h>
#include <stdbool.h>
#include <stdint.h>

#include "sv_capture.h"

#define SV_SNAP_RING 16
/// Bytes a snapshot packet costs on the link beyond its payload (IPv4 20 + UDP 8 + ENet
/// protocol header 4 + command header with unsequenced group 8), counted against budgets.
#define SV_SNAP_PACKET_OVERHEAD 40

/// Whether the client in session slot `slot` gets a snapshot on `tick` (every `every`
/// ticks, on the ticks where (tick + slot) % every == 0).
static inline bool sv_snapshot_due(uint64_t tick, int every, int slot) {
  return every <= 1 || (tick + (uint64_t)slot) % (uint64_t)every == 0;
}

typedef struct sv_snap_client {
  int cap;                       ///< entities per ring set
  arb_snapshot_entity* storage;  ///< SV_SNAP_RING * cap
  arb_snapshot_set ring[SV_SNAP_RING];
  uint32_t ring_tick[SV_SNAP_RING];    ///< tick each slot was sent for, 0 = empty
  uint32_t acked_tick;                 ///< newest acknowledged tick still in the ring, 0 = none
  uint32_t ring_base[SV_SNAP_RING];    ///< baseline tick each slot was built on
  uint8_t ring_acked[SV_SNAP_RING];    ///< the client acknowledged that slot's tick
  uint8_t ring_settled[SV_SNAP_RING];  ///< at or before acked_tick: known received or lost
  /// What the client draws (arbiter/snapshot_drawn.h) if every snapshot sent since the
  /// newest acknowledged one arrives; rebuilt from that one's view when an older snapshot
  /// is found lost (never acknowledged while a newer one was).
  arb_snapshot_set drawn;
  arb_snapshot_entity* drawn_storage;
  arb_snapshot_priority priority;
  arb_snapshot_rate rate;
  /// Tick of the first full snapshot sent since the client last acknowledged anything, 0 =
  /// none. Once that is a second old, full snapshots carry the whole view whatever the
  /// budget: a full snapshot replaces the client's view (PROTOCOL.md §6), so a client that
  /// never acknowledges would otherwise only ever hold the part of its view one budget
  /// fits. (Within the second, an acknowledgement on its way is the usual reason.) What a
  /// whole view costs over the budget the rate controller takes back from later snapshots.
  uint32_t unacked_full_since;
} sv_snap_client;

/// Captured entities bucketed by position: cell (cx, cy) holds the capture indexes
/// items[start[cy * nx + cx] .. start[cy * nx + cx + 1]), increasing.
typedef struct sv_snap_grid {
  float x0, y0, cell;  ///< lower corner and cell side, meters
  int nx, ny;
  int* start;    ///< SV_SNAP_GRID_CELLS + 1
  int* items;    ///< cap
  arb_vec2* at;  ///< cap: at[j] = the position of items[j], read in a row by every client
  int* cell_of;  ///< cap: the cell of each captured item (scratch of the build)
} sv_snap_grid;

/// Cells per side at most: a world larger than this many view radii gets larger cells.
#define SV_SNAP_GRID_SIDE 256

/// What one building thread writes while it builds a client's snapshot.
typedef struct sv_snap_scratch {
  arb_snapshot_builder* builder;
  int* picked;            ///< capture indexes of one client's relevant set (cap), in
                          ///< view order
  uint64_t* picked_bits;  ///< the same as a bit per capture index (cap bits), all zero
                          ///< between builds: read in order, it sorts them
  int* drawn_inserts;     ///< arb_snapshot_drawn_apply_in_place's scratch (2 * cap)
  arb_snapshot_set view;  ///< one client's relevant set (cap)
  float* prio;            ///< per view item the builder asked about: its accumulator
  int* stale;             ///< view items not up to date, from the builder
} sv_snap_scratch;

typedef struct sv_snapshot {
  int cap;             ///< entities per capture
  sv_capture capture;  ///< this tick's state, shared by every client
  sv_snap_grid grid;   ///< of this capture, when captured with a view radius
  bool has_grid;
} sv_snapshot;

/// max_entities bounds the entities (of every class) per capture. Returns 0 or ARB_E_*.
int sv_snapshot_init(sv_snapshot* s, int max_entities);
void sv_snapshot_free(sv_snapshot* s);
/// Capture the current state of everything drawable in the game; with view_radius > 0
/// also the grid that finds what lies within a radius of a point (without it, requests
/// with a view radius get everything).
void sv_snapshot_capture(sv_snapshot* s, arb_game* game, float view_radius);

/// A building thread's scratch (for max_entities as given to sv_snapshot_init).
int sv_snap_scratch_init(sv_snap_scratch* x, int max_entities);
void sv_snap_scratch_free(sv_snap_scratch* x);

int sv_snap_client_init(sv_snap_client* c, int max_entities);
/// A new session: no views sent, priorities from zero, the rate at ceiling_kbps (the
/// server's limit, lowered by what the client's hello asked for).
void sv_snap_client_reset(sv_snap_client* c, int ceiling_kbps);
void sv_snap_client_free(sv_snap_client* c);
/// The client says it has the whole snapshot of `tick`; ignored when unknown or older.
void sv_snap_client_ack(sv_snap_client* c, uint32_t tick);

typedef struct sv_snap_request {
  uint32_t tick;
  uint32_t last_input_seq;
  uint32_t avatar_entity;  ///< 0 = none: no interest filtering, no avatar priority
  float view_radius;       ///< meters, 0 = everything
  uint16_t tick_rate;
  int snapshot_rate;  ///< snapshots per second (budget per snapshot = rate / this)
  float loss;         ///< the client's packet loss, 0..1
  float rtt_ms;       ///< its round trip, 0 = unknown
  bool has_view;      ///< the client reported a view box (camera)
  arb_aabb view;      ///< world-space box: with a view radius, what lies in it is
                      ///< relevant too; it also raises relevance (priority)
} sv_snap_request;

/// Build one client's snapshot packets from the last capture, using the calling thread's
/// scratch x. The result's packets are views into x's builder,
/// valid until its next build; none (packet_count 0) when the client is paying back a
/// whole view sent over its budget. Only reads s. Returns 0 or ARB_E_*.
int sv_snapshot_build(const sv_snapshot* s, sv_snap_scratch* x, sv_snap_client* c,
                      const sv_snap_request* req, arb_snapshot_build_result* out);
