// Per-client delta snapshots.
//
// Every K ticks the server captures the quantized state of every non-static entity once
// (sv_snapshot_capture), then for each client: filters it by the interest radius around
// the client's avatar, and lets the protocol's builder diff it against the view that
// client last acknowledged (input.ack_tick) and split it into packets of at most
// ARB_PROTO_DEFAULT_PAYLOAD bytes. Each client keeps a ring of the views it was sent,
// keyed by tick, so an ack of any of the last SV_SNAP_RING snapshots can be a baseline;
// an older or unknown ack means a full snapshot. Static bodies are not in snapshots:
// they are in the welcome message. All memory is allocated at init / session start.
#pragma once

#include <arbiter/game.h>
#include <arbiter/protocol.h>
#include <stdbool.h>
#include <stdint.h>

#define SV_SNAP_RING 16

typedef struct sv_snap_client {
  int cap;                                ///< entities per ring set
  arb_proto_entity* storage;              ///< SV_SNAP_RING * cap
  arb_proto_entity_set ring[SV_SNAP_RING];
  uint32_t ring_tick[SV_SNAP_RING];       ///< tick each slot was sent for, 0 = empty
  int next_slot;
  uint32_t acked_tick;                    ///< newest acknowledged tick still in the ring, 0 = none
} sv_snap_client;

typedef struct sv_snapshot {
  arb_proto_snapshot_builder* builder;
  int cap;                   ///< max entities captured
  arb_entity* entities;      ///< scratch for arb_game_get_entities (cap)
  arb_proto_entity_set all;  ///< captured this tick, id order
  arb_vec2* positions;       ///< of all.items[i]
  uint32_t* owners;          ///< of all.items[i]
  arb_proto_entity_set view; ///< one client's filtered set (scratch)
  uint32_t* priority;        ///< per view item (scratch)
  int truncated;             ///< entities left out of the last capture (over cap)
} sv_snapshot;

/// max_entities bounds the dynamic entities per snapshot. Returns 0 or ARB_E_*.
int sv_snapshot_init(sv_snapshot* s, int max_entities);
void sv_snapshot_free(sv_snapshot* s);
/// Capture the current state of every dynamic and kinematic entity of the game.
void sv_snapshot_capture(sv_snapshot* s, arb_game* game);

int sv_snap_client_init(sv_snap_client* c, int max_entities);
void sv_snap_client_free(sv_snap_client* c);
/// The client says it has the whole snapshot of `tick`; ignored when unknown or older.
void sv_snap_client_ack(sv_snap_client* c, uint32_t tick);

typedef struct sv_snap_request {
  uint32_t tick;
  uint32_t last_input_seq;
  uint32_t avatar_entity;  ///< 0 = none: no interest filtering, no priority
  float view_radius;       ///< meters, 0 = everything
  arb_proto_describe_fn* describe;
  void* describe_user;
} sv_snap_request;

/// Build one client's snapshot packets from the last capture. The result's packets are
/// views into the builder, valid until the next build. Returns 0 or ARB_E_*.
int sv_snapshot_build(sv_snapshot* s, sv_snap_client* c, const sv_snap_request* req, arb_proto_build_result* out);
