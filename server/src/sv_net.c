// ENet host on a libuv loop (see sv_net.h and DEPENDENCIES.md "ENet").
#include "sv_net.h"

#include <stdio.h>
#include <string.h>

static void on_poll(uv_poll_t* handle, int status, int events) {
  sv_net* n = handle->data;
  (void)status;
  (void)events;
  // On a poll error there is nothing better to do than let ENet look at the socket.
  sv_net_service(n);
}

int sv_net_init(sv_net* n, uv_loop_t* loop, const char* bind, int port, int peer_count, sv_net_event_fn* on_event,
                void* user, sv_metrics* metrics, char* err, size_t err_cap) {
  memset(n, 0, sizeof *n);
  n->on_event = on_event;
  n->user = user;
  n->metrics = metrics;
  ENetAddress addr;
  if (enet_address_set_host_ip(&addr, bind) != 0) {
    snprintf(err, err_cap, "--bind: \"%s\" is not an IPv4 address", bind);
    return -1;
  }
  addr.port = (enet_uint16)port;
  if (peer_count > 4095) peer_count = 4095;  // ENet's hard limit (4096 fails)
  n->host = enet_host_create(&addr, (size_t)peer_count, SV_NET_CHANNELS, 0, 0);
  if (n->host == NULL) {
    snprintf(err, err_cap, "cannot bind UDP %s:%d (in use or not permitted)", bind, port);
    return -1;
  }
  // The 32 MiB defaults let one peer make us buffer a lot of garbage.
  n->host->maximumPacketSize = SV_NET_MAX_INCOMING;
  n->host->maximumWaitingData = 64 * 1024;
  ENetAddress bound;
  if (enet_socket_get_address(n->host->socket, &bound) == 0) n->port = bound.port;
  else n->port = (uint16_t)port;
  int rc = uv_poll_init_socket(loop, &n->poll, n->host->socket);
  if (rc != 0) {
    snprintf(err, err_cap, "uv_poll_init_socket: %s", uv_strerror(rc));
    enet_host_destroy(n->host);
    n->host = NULL;
    return -1;
  }
  n->poll.data = n;
  n->poll_open = true;
  uv_poll_start(&n->poll, UV_READABLE, on_poll);
  return 0;
}

void sv_net_service(sv_net* n) {
  if (n->host == NULL || n->in_service) return;
  n->in_service = true;
  ENetEvent ev;
  // A bound on one drain keeps a flood from starving the ticker; the poll fires again.
  for (int i = 0; i < 4096; ++i) {
    int rc = enet_host_service(n->host, &ev, 0);
    if (rc <= 0) break;
    if (ev.type == ENET_EVENT_TYPE_RECEIVE && n->metrics) {
      n->metrics->packets_in_total++;
      n->metrics->bytes_in_total += ev.packet->dataLength;
    }
    n->on_event(n->user, &ev);
    if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
  }
  n->in_service = false;
}

int sv_net_send(sv_net* n, ENetPeer* peer, uint8_t channel, const void* data, size_t len, uint32_t flags) {
  if (n->host == NULL) return -1;
  ENetPacket* p = enet_packet_create(data, len, flags);
  if (p == NULL) return -1;
  // ENet's maximumPacketSize bounds what we send as well as what peers may send us. Keep
  // it small for incoming data and lift it only while queueing a large reliable message
  // of ours (a welcome with a big level, the scene text); ENet fragments it right here.
  size_t incoming_limit = n->host->maximumPacketSize;
  if (len > incoming_limit && (flags & ENET_PACKET_FLAG_RELIABLE)) n->host->maximumPacketSize = len;
  int rc = enet_peer_send(peer, channel, p);
  n->host->maximumPacketSize = incoming_limit;
  if (rc != 0) {
    enet_packet_destroy(p);  // not freed by ENet on failure
    return -1;
  }
  if (n->metrics) {
    n->metrics->packets_out_total++;
    n->metrics->bytes_out_total += len;
  }
  return 0;
}

void sv_net_flush(sv_net* n) {
  if (n->host) enet_host_flush(n->host);
}

static void on_poll_closed(uv_handle_t* handle) {
  sv_net* n = handle->data;
  if (n->host) {
    enet_host_destroy(n->host);
    n->host = NULL;
  }
}

void sv_net_close(sv_net* n) {
  if (!n->poll_open) {
    if (n->host) {
      enet_host_destroy(n->host);
      n->host = NULL;
    }
    return;
  }
  n->poll_open = false;
  uv_poll_stop(&n->poll);
  uv_close((uv_handle_t*)&n->poll, on_poll_closed);
}
