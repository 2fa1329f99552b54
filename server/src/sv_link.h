// A session's connection, whatever carries it: an ENet peer or a WebSocket connection.
// The session layer (sv_session.c, sv_tick.c, sv_admin.c, ...) talks to its client only
// through these operations, so sessions, rejoin holds, strikes, rate limits, tokens,
// spectators and the stop path are one code path for both transports. Each operation is a
// switch over the kind with no default: a new transport does not compile until every
// operation handles it.
#pragma once

#include <enet/enet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sv_net.h"
#include "sv_ws.h"

typedef enum sv_link_kind {
  SV_LINK_NONE = 0,  ///< a free session
  SV_LINK_ENET,
  SV_LINK_WS,
} sv_link_kind;

typedef struct sv_link {
  sv_link_kind kind;
  sv_net* net;     ///< SV_LINK_ENET: the host's glue (not owned)
  ENetPeer* peer;  ///< SV_LINK_ENET
  sv_ws_conn* ws;  ///< SV_LINK_WS
} sv_link;

sv_link sv_link_enet(sv_net* net, ENetPeer* peer);
sv_link sv_link_ws(sv_ws_conn* c);

/// Send one message on `channel` (ARB_PROTO_CHANNEL_*): over ENet reliable on the control
/// channel and unsequenced on the others; over WebSocket one binary message (all
/// reliable and ordered). 0, or -1 when it was not queued.
int sv_link_send(const sv_link* l, uint8_t channel, const void* data, size_t len);
/// End the connection after what was sent is delivered, telling the client `reason`
/// (ENet: disconnect data; WebSocket: close code 4000 + reason).
void sv_link_close(const sv_link* l, uint8_t reason);
/// End it now: ENet resets the peer (one DISCONNECT datagram); a WebSocket connection is
/// abandoned (its close frame still goes out within a bounded drain). No event follows.
void sv_link_close_now(const sv_link* l, uint8_t reason);
/// Milliseconds since anything (acks included) was heard from the client; 0 = unknown.
uint64_t sv_link_silent_ms(const sv_link* l);
/// Everything sent was delivered: ENet acknowledged it all; WebSocket wrote it all.
bool sv_link_reliable_idle(const sv_link* l);
/// Bytes sent and not yet on the wire: only a WebSocket connection queues (ENet: 0).
size_t sv_link_backlog(const sv_link* l);
/// Round trip in ms (ENet's estimate; the kernel's TCP estimate) and loss in [0, 1]
/// (TCP hides loss from the application: 0).
uint32_t sv_link_rtt_ms(const sv_link* l);
float sv_link_loss(const sv_link* l);
/// Keep the round trip fresh (ENet: a reliable ping; TCP measures its own).
void sv_link_refresh_rtt(const sv_link* l);
/// The connection is still up (not yet reported closed).
bool sv_link_live(const sv_link* l);
/// The session said hello: ENet no longer evicts the peer for room.
void sv_link_set_greeted(const sv_link* l);
/// The transport's name for logs and /admin/sessions: "enet" or "ws".
const char* sv_link_kind_name(const sv_link* l);
