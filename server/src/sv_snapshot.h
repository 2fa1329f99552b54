// Per-client snapshots, stream v2 (PROTOCOL.md §13).
//
// Every snapshot tick the server captures the quantized state of everything a client
// draws once (sv_snapshot_capture: bodies, particles, ropes, vehicle wheels; shared by all
// clients). Then for each client:
//
//   relevant set   everything, or with --view-radius what the broad phase finds around
//                  the avatar (arb_world_overlap_aabb) plus the extras within the radius
//   priority       what the client draws wrong (a model of its drawn set), weighted by
//                  relevance (own avatar, nearness), plus the time it has waited
//   budget         the client's rate controller: --client-kbps, lowered by the hello's
//                  max_kbps, cut on loss or rising RTT and recovering after
//   build          arb_snap2_build against the newest view the client acknowledged
//
// Each client keeps a ring of the views it was sent, keyed by tick, so an ack of any of
// the last SV_SNAP_RING snapshots can be a baseline; an older or unknown ack means a full
// snapshot. Static bodies are not in snapshots: they are in the welcome message. All
// memory is allocated at init / session start.
#pragma once

#include <arbiter/game.h>
#include <arbiter/snapshot_priority.h>
#include <arbiter/snapshot_rate.h>
#include <arbiter/snapshot_v2.h>
#include <stdbool.h>
#include <stdint.h>

#include "sv_capture2.h"

#define SV_SNAP_RING 16
/// Bytes a snapshot packet costs on the link beyond its payload (IPv4 20 + UDP 8 + ENet
/// protocol header 4 + command header with unsequenced group 8), counted against budgets.
#define SV_SNAP_PACKET_OVERHEAD 40

typedef struct sv_snap_client {
  int cap;                            ///< entities per ring set
  arb_snap2_entity* storage;          ///< SV_SNAP_RING * cap
  arb_snap2_set ring[SV_SNAP_RING];
  uint32_t ring_tick[SV_SNAP_RING];   ///< tick each slot was sent for, 0 = empty
  int next_slot;
  uint32_t acked_tick;                ///< newest acknowledged tick still in the ring, 0 = none
  uint32_t ring_base[SV_SNAP_RING];   ///< baseline tick each slot was built on
  uint8_t ring_acked[SV_SNAP_RING];   ///< the client acknowledged that slot's tick
  uint8_t ring_settled[SV_SNAP_RING]; ///< at or before acked_tick: known received or lost
  /// What the client draws (arbiter/snapshot_drawn.h) if every snapshot sent since the
  /// newest acknowledged one arrives; rebuilt from that one's view when an older snapshot
  /// is found lost (never acknowledged while a newer one was).
  arb_snap2_set drawn, drawn_tmp;
  arb_snap2_entity* drawn_storage;
  arb_snap2_priority priority;
  arb_snap2_rate rate;
} sv_snap_client;

/// A captured body's broad-phase slot and its capture index.
typedef struct sv_body_slot {
  int32_t index1;  ///< arb_body_id.index1
  int32_t item;    ///< index in the capture
} sv_body_slot;

typedef struct sv_snapshot {
  arb_snap2_builder* builder;
  int cap;                 ///< entities per capture
  sv_capture2 capture;     ///< this tick's state, shared by every client
  sv_body_slot* bodies;    ///< captured bodies by increasing index1
  int body_count;
  arb_body_id* hits;       ///< broad-phase query results (cap)
  int* picked;             ///< capture indexes of one client's relevant set (cap)
  arb_snap2_set view;      ///< one client's relevant set (scratch, cap)
  arb_vec2* view_pos;      ///< of view items
  float* view_speed;
  float* prio;             ///< per view item, for the builder
  float* weight;           ///< per view item: relevance, weighs the client's error
  uint8_t* up_to_date;     ///< per view item, from the builder
} sv_snapshot;

/// max_entities bounds the entities (of every class) per capture. Returns 0 or ARB_E_*.
int sv_snapshot_init(sv_snapshot* s, int max_entities);
void sv_snapshot_free(sv_snapshot* s);
/// Capture the current state of everything drawable in the game.
void sv_snapshot_capture(sv_snapshot* s, arb_game* game);

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
  int snapshot_rate;       ///< snapshots per second (budget per snapshot = rate / this)
  float loss;              ///< the client's packet loss, 0..1
  float rtt_ms;            ///< its round trip, 0 = unknown
} sv_snap_request;

/// Build one client's snapshot packets from the last capture. The result's packets are
/// views into the builder, valid until the next build. Returns 0 or ARB_E_*.
int sv_snapshot_build(sv_snapshot* s, sv_snap_client* c, const sv_snap_request* req,
                      arb_snap2_build_result* out);
