// ENet datagram checks (see sv_enet_check.h). The walk mirrors the command loop of ENet's
// protocol.c: header (peer id, flags, optional sent time), then commands back to back,
// each of the size ENet's table gives, SEND commands followed by their data.
#include "sv_enet_check.h"

#include <stdbool.h>
#include <string.h>

static bool window_ok(const ENetChannel* ch, uint16_t seq, uint16_t max_ahead) {
  uint16_t ahead = (uint16_t)(seq - ch->incomingReliableSequenceNumber);
  // Behind (a duplicate) is discarded by ENet without allocating anything.
  return ahead <= max_ahead || ahead >= 0x8000u;
}

static sv_enet_verdict check_fragment(const ENetProtocolSendFragment* f, size_t data_len,
                                      size_t max_packet) {
  uint32_t count = ENET_NET_TO_HOST_32(f->fragmentCount);
  uint32_t number = ENET_NET_TO_HOST_32(f->fragmentNumber);
  uint32_t total = ENET_NET_TO_HOST_32(f->totalLength);
  uint32_t offset = ENET_NET_TO_HOST_32(f->fragmentOffset);
  if (total == 0 || total > max_packet) return SV_ENET_DROP_FRAGMENT;
  if (count == 0 || count > (total + SV_ENET_MIN_FRAGMENT - 1) / SV_ENET_MIN_FRAGMENT)
    return SV_ENET_DROP_FRAGMENT;
  if (number >= count || offset >= total || data_len > total - offset) return SV_ENET_DROP_FRAGMENT;
  return SV_ENET_PASS;
}

// One SEND_* command of a connected peer: channel, length, sequence window, fragments.
static sv_enet_verdict check_send(const ENetPeer* peer, const ENetProtocol* cmd, int number,
                                  size_t data_len, size_t max_packet) {
  if (cmd->header.channelID >= peer->channelCount) return SV_ENET_DROP_MALFORMED;
  if (data_len == 0 || data_len > max_packet) return SV_ENET_DROP_MALFORMED;
  const ENetChannel* ch = &peer->channels[cmd->header.channelID];
  uint16_t seq = ENET_NET_TO_HOST_16(cmd->header.reliableSequenceNumber);
  switch (number) {
    case ENET_PROTOCOL_COMMAND_SEND_RELIABLE:
      return window_ok(ch, seq, SV_ENET_MAX_RELIABLE_AHEAD) ? SV_ENET_PASS : SV_ENET_DROP_WINDOW;
    case ENET_PROTOCOL_COMMAND_SEND_FRAGMENT:
      if (!window_ok(ch, ENET_NET_TO_HOST_16(cmd->sendFragment.startSequenceNumber),
                     SV_ENET_MAX_RELIABLE_AHEAD))
        return SV_ENET_DROP_WINDOW;
      return check_fragment(&cmd->sendFragment, data_len, max_packet);
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE:
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT:
      // Sequenced unreliable data that waits for a reliable command not yet received is
      // buffered without limit by ENet; arbiter clients send unsequenced, so drop it.
      if (!window_ok(ch, seq, 0)) return SV_ENET_DROP_WINDOW;
      if (number == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT)
        return check_fragment(&cmd->sendFragment, data_len, max_packet);
      return SV_ENET_PASS;
    default:
      return SV_ENET_PASS;  // unsequenced: delivered at once, nothing is buffered
  }
}

static size_t send_data_length(const ENetProtocol* cmd, int number) {
  switch (number) {
    case ENET_PROTOCOL_COMMAND_SEND_RELIABLE:
      return ENET_NET_TO_HOST_16(cmd->sendReliable.dataLength);
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE:
      return ENET_NET_TO_HOST_16(cmd->sendUnreliable.dataLength);
    case ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED:
      return ENET_NET_TO_HOST_16(cmd->sendUnsequenced.dataLength);
    case ENET_PROTOCOL_COMMAND_SEND_FRAGMENT:
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT:
      return ENET_NET_TO_HOST_16(cmd->sendFragment.dataLength);
    default:
      return 0;
  }
}

static bool is_send(int number) {
  return number == ENET_PROTOCOL_COMMAND_SEND_RELIABLE ||
         number == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE ||
         number == ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED ||
         number == ENET_PROTOCOL_COMMAND_SEND_FRAGMENT ||
         number == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT;
}

// The peer the datagram is for, or NULL for "no peer" (peer id 0xFFF: only CONNECT).
static sv_enet_verdict find_peer(const ENetHost* host, uint16_t peer_id, const ENetPeer** out) {
  *out = NULL;
  if (peer_id == ENET_PROTOCOL_MAXIMUM_PEER_ID) return SV_ENET_PASS;
  if (peer_id >= host->peerCount) return SV_ENET_DROP_PEER;
  const ENetPeer* peer = &host->peers[peer_id];
  if (peer->state == ENET_PEER_STATE_DISCONNECTED || peer->state == ENET_PEER_STATE_ZOMBIE ||
      peer->address.host != host->receivedAddress.host ||
      peer->address.port != host->receivedAddress.port)
    return SV_ENET_DROP_PEER;
  *out = peer;
  return SV_ENET_PASS;
}

sv_enet_verdict sv_enet_check(const ENetHost* host, size_t max_packet, uint32_t* connect_id,
                              int* peer_index) {
  const uint8_t* data = host->receivedData;
  size_t len = host->receivedDataLength;
  *connect_id = 0;
  *peer_index = -1;
  if (len < 2) return SV_ENET_DROP_MALFORMED;
  uint16_t raw = (uint16_t)((data[0] << 8) | data[1]);
  if (raw & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED)
    return SV_ENET_DROP_MALFORMED;  // we never use compression
  size_t pos = (raw & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) ? sizeof(ENetProtocolHeader) : 2;
  uint16_t peer_id =
      (uint16_t)(raw & ~(ENET_PROTOCOL_HEADER_FLAG_MASK | ENET_PROTOCOL_HEADER_SESSION_MASK));
  const ENetPeer* peer;
  sv_enet_verdict v = find_peer(host, peer_id, &peer);
  if (v != SV_ENET_PASS) return v;
  if (pos >= len) return SV_ENET_DROP_MALFORMED;
  int commands = 0;
  while (pos < len) {
    if (len - pos < sizeof(ENetProtocolCommandHeader)) return SV_ENET_DROP_MALFORMED;
    const ENetProtocol* cmd = (const ENetProtocol*)(data + pos);
    int number = cmd->header.command & ENET_PROTOCOL_COMMAND_MASK;
    size_t size =
        number < ENET_PROTOCOL_COMMAND_COUNT ? enet_protocol_command_size((enet_uint8)number) : 0;
    if (size == 0 || len - pos < size) return SV_ENET_DROP_MALFORMED;
    ++commands;
    if (peer == NULL) {
      // No peer yet: exactly one CONNECT, as ENet clients send it.
      if (number != ENET_PROTOCOL_COMMAND_CONNECT || pos + size != len || commands != 1)
        return SV_ENET_DROP_MALFORMED;
      *connect_id = cmd->connect.connectID;
      return SV_ENET_CONNECT;
    }
    if (number == ENET_PROTOCOL_COMMAND_CONNECT) return SV_ENET_DROP_MALFORMED;
    pos += size;
    if (!is_send(number)) continue;
    size_t data_len = send_data_length(cmd, number);
    if (data_len > len - pos) return SV_ENET_DROP_MALFORMED;
    v = check_send(peer, cmd, number, data_len, max_packet);
    if (v != SV_ENET_PASS) return v;
    pos += data_len;
  }
  *peer_index = (int)peer_id;
  return SV_ENET_PASS;
}
