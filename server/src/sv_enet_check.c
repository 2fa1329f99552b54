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

// ENet allocates a fragmented packet's whole length when the first of its fragments
// arrives (any fragment, not only number 0), as an incoming command whose
// fragmentsRemaining counts down; complete packets are bounded by maximumWaitingData.
static size_t incomplete_bytes(const ENetList* list) {
  size_t sum = 0;
  for (const ENetListNode* it = list->sentinel.next; it != &list->sentinel; it = it->next) {
    const ENetIncomingCommand* ic = (const ENetIncomingCommand*)it;
    if (ic->fragmentsRemaining > 0 && ic->packet != NULL) sum += ic->packet->dataLength;
  }
  return sum;
}

size_t sv_enet_fragment_buffered(const ENetPeer* peer) {
  size_t sum = 0;
  if (peer->channels == NULL) return 0;
  for (size_t c = 0; c < peer->channelCount; ++c) {
    sum += incomplete_bytes(&peer->channels[c].incomingReliableCommands);
    sum += incomplete_bytes(&peer->channels[c].incomingUnreliableCommands);
  }
  return sum;
}

// True when ENet already assembles the packet this fragment belongs to. ENet keys a
// reliable fragmented packet by its start sequence number, an unreliable one by its
// start (unreliable) sequence number under the reliable one it follows.
static bool assembling(const ENetChannel* ch, const ENetProtocol* cmd, int number) {
  uint16_t start = ENET_NET_TO_HOST_16(cmd->sendFragment.startSequenceNumber);
  uint16_t reliable = ENET_NET_TO_HOST_16(cmd->header.reliableSequenceNumber);
  bool is_reliable = number == ENET_PROTOCOL_COMMAND_SEND_FRAGMENT;
  const ENetList* list =
      is_reliable ? &ch->incomingReliableCommands : &ch->incomingUnreliableCommands;
  for (const ENetListNode* it = list->sentinel.next; it != &list->sentinel; it = it->next) {
    const ENetIncomingCommand* ic = (const ENetIncomingCommand*)it;
    if ((ic->command.header.command & ENET_PROTOCOL_COMMAND_MASK) != number) continue;
    if (is_reliable
            ? ic->reliableSequenceNumber == start
            : ic->unreliableSequenceNumber == start && ic->reliableSequenceNumber == reliable)
      return true;
  }
  return false;
}

// Packets started earlier in the same datagram (ENet has not seen them yet). Past this
// many, a start is counted again: an overestimate, never an underestimate.
#define SV_ENET_STARTS_SEEN 8

size_t sv_enet_fragment_starts(const ENetHost* host, const ENetPeer* peer, size_t* buffered) {
  *buffered = 0;
  const uint8_t* data = host->receivedData;
  size_t len = host->receivedDataLength;
  uint16_t raw = (uint16_t)((data[0] << 8) | data[1]);
  size_t pos = (raw & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) ? sizeof(ENetProtocolHeader) : 2;
  uint64_t seen[SV_ENET_STARTS_SEEN];
  int seen_count = 0;
  size_t starts = 0;
  // The datagram passed sv_enet_check: every command and its data are in bounds.
  while (pos < len) {
    const ENetProtocol* cmd = (const ENetProtocol*)(data + pos);
    int number = cmd->header.command & ENET_PROTOCOL_COMMAND_MASK;
    pos += enet_protocol_command_size((enet_uint8)number);
    if (!is_send(number)) continue;
    pos += send_data_length(cmd, number);
    if (number != ENET_PROTOCOL_COMMAND_SEND_FRAGMENT &&
        number != ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT)
      continue;
    const ENetChannel* ch = &peer->channels[cmd->header.channelID];
    uint16_t start = ENET_NET_TO_HOST_16(cmd->sendFragment.startSequenceNumber);
    if (number == ENET_PROTOCOL_COMMAND_SEND_FRAGMENT) {
      uint16_t ahead = (uint16_t)(start - ch->incomingReliableSequenceNumber);
      if (ahead == 0 || ahead >= 0x8000u) continue;  // a duplicate: ENet discards it
    }
    if (assembling(ch, cmd, number)) continue;
    uint64_t key = (uint64_t)cmd->header.channelID << 40 | (uint64_t)(number & 0xFF) << 32 |
                   (uint64_t)cmd->header.reliableSequenceNumber << 16 | start;
    bool again = false;
    for (int i = 0; i < seen_count; ++i) again = again || seen[i] == key;
    if (again) continue;
    if (seen_count < SV_ENET_STARTS_SEEN) seen[seen_count++] = key;
    starts += ENET_NET_TO_HOST_32(cmd->sendFragment.totalLength);
  }
  if (starts > 0) *buffered = sv_enet_fragment_buffered(peer);  // inputs never pay for a walk
  return starts;
}
