// The link operations (see sv_link.h).
#include "sv_link.h"

#include <arbiter/protocol.h>
#include <stdio.h>

sv_link sv_link_enet(sv_net* net, ENetPeer* peer) {
  return (sv_link){SV_LINK_ENET, net, peer, NULL};
}

sv_link sv_link_ws(sv_ws_conn* c) {
  return (sv_link){SV_LINK_WS, NULL, NULL, c};
}

int sv_link_send(const sv_link* l, uint8_t channel, const void* data, size_t len) {
  switch (l->kind) {
    case SV_LINK_NONE:
      return -1;
    case SV_LINK_ENET:
      // Unsequenced, not ENet's plain unreliable mode: that one drops any packet older than
      // one already received on the channel, which would lose reordered parts of a split
      // snapshot (PROTOCOL.md §1).
      return sv_net_send(l->net, l->peer, channel, data, len,
                         channel == ARB_PROTO_CHANNEL_CONTROL ? ENET_PACKET_FLAG_RELIABLE
                                                              : ENET_PACKET_FLAG_UNSEQUENCED);
    case SV_LINK_WS:
      return sv_ws_send(l->ws, data, len);
  }
  return -1;
}

// Both closes: `now` abandons what is still queued (ENet's disconnect_now; a WebSocket
// close frame in a bounded drain), otherwise it goes out first. WebSocket carries the
// reason as close code 4000 + reason with its name as the text.
static void close_link(const sv_link* l, uint8_t reason, bool now) {
  char text[32];
  switch (l->kind) {
    case SV_LINK_NONE:
      return;
    case SV_LINK_ENET:
      if (now)
        enet_peer_disconnect_now(l->peer, (enet_uint32)reason);
      else
        enet_peer_disconnect_later(l->peer, (enet_uint32)reason);
      return;
    case SV_LINK_WS:
      snprintf(text, sizeof text, "%s", arb_proto_reason_name((arb_proto_reason)reason));
      if (now)
        sv_ws_abandon(l->ws, (uint16_t)(4000u + reason), text);
      else
        sv_ws_close_conn(l->ws, (uint16_t)(4000u + reason), text);
      return;
  }
}

void sv_link_close(const sv_link* l, uint8_t reason) {
  close_link(l, reason, false);
}

void sv_link_close_now(const sv_link* l, uint8_t reason) {
  close_link(l, reason, true);
}

uint64_t sv_link_silent_ms(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
      return 0;
    case SV_LINK_ENET:
      return sv_net_silent_ms(l->net, l->peer);
    case SV_LINK_WS:
      return sv_ws_silent_ms(l->ws);
  }
  return 0;
}

bool sv_link_reliable_idle(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
      return true;
    case SV_LINK_ENET:
      return sv_net_reliable_idle(l->peer);
    case SV_LINK_WS:
      return sv_ws_backlog(l->ws) == 0;
  }
  return true;
}

size_t sv_link_backlog(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
    case SV_LINK_ENET:
      return 0;
    case SV_LINK_WS:
      return sv_ws_backlog(l->ws);
  }
  return 0;
}

uint32_t sv_link_rtt_ms(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
      return 0;
    case SV_LINK_ENET:
      return l->peer->roundTripTime;
    case SV_LINK_WS:
      return sv_ws_rtt_ms(l->ws);
  }
  return 0;
}

float sv_link_loss(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
    case SV_LINK_WS:
      return 0.0f;
    case SV_LINK_ENET:
      return (float)l->peer->packetLoss / (float)ENET_PEER_PACKET_LOSS_SCALE;
  }
  return 0.0f;
}

void sv_link_refresh_rtt(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
    case SV_LINK_WS:
      return;
    case SV_LINK_ENET:
      enet_peer_ping(l->peer);
      return;
  }
}

bool sv_link_live(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
      return false;
    case SV_LINK_ENET:
      return sv_net_peer_live(l->peer);
    case SV_LINK_WS:
      return true;  // a session's connection is detached from it when it closes
  }
  return false;
}

void sv_link_set_greeted(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
    case SV_LINK_WS:
      return;
    case SV_LINK_ENET:
      sv_net_set_greeted(l->net, l->peer);
      return;
  }
}

const char* sv_link_kind_name(const sv_link* l) {
  switch (l->kind) {
    case SV_LINK_NONE:
      return "none";
    case SV_LINK_ENET:
      return "enet";
    case SV_LINK_WS:
      return "ws";
  }
  return "none";
}
