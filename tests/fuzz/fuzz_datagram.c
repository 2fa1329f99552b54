// Fuzz target: any bytes as a UDP datagram arriving at the server's port, through the two
// guards that see it before ENet: the connection gate (sv_gate_on_datagram) and the ENet
// command checks (sv_enet_check, against a host whose peer 1 is a connected client at the
// datagram's source). Checks: the gate never replies with more bytes than it got, and only
// to a well-formed request/response; the ENet check returns a known verdict and never lets
// a fragment through whose declared count exceeds ceil(total / 512). Built as
// fuzz-datagram in the fuzz preset; otherwise the same function runs over the seed corpus.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sv_enet_check.h"
#include "sv_gate.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static ENetHost* g_host;
static sv_gate g_gate;
static ENetChannel g_channels[3];

static void setup(void) {
  enet_initialize();
  ENetAddress any = {.host = ENET_HOST_ANY, .port = 0};
  g_host = enet_host_create(&any, 4, 3, 0, 0);
  if (g_host == NULL || sv_gate_init(&g_gate, 1000) != 0) abort();
  ENetPeer* p = &g_host->peers[1];
  p->state = ENET_PEER_STATE_CONNECTED;
  p->address.host = 0x0100007Fu;
  p->address.port = 40000;
  p->channels = g_channels;
  p->channelCount = 3;
  for (int c = 0; c < 3; ++c) {  // as ENet sets up a connecting peer's channels
    enet_list_clear(&g_channels[c].incomingReliableCommands);
    enet_list_clear(&g_channels[c].incomingUnreliableCommands);
  }
  g_host->receivedAddress = p->address;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (g_host == NULL) setup();
  static uint64_t now = 1000000;
  now += 7;
  uint8_t reply[ARB_GATE_REQUEST_SIZE];
  size_t reply_len = 0;
  sv_gate_result r =
      sv_gate_on_datagram(&g_gate, 0x0100007Fu, 40000, data, size, now, reply, &reply_len);
  if (r == SV_GATE_REPLY) {
    if (reply_len == 0 || reply_len > size) abort();
    arb_gate_msg in;
    if (arb_gate_decode(data, size, &in) != 0) abort();
  } else if (reply_len != 0) {
    abort();
  }
  uint8_t copy[ENET_PROTOCOL_MAXIMUM_MTU];
  if (size > sizeof copy) size = sizeof copy;
  memcpy(copy, data, size);
  g_host->receivedData = copy;
  g_host->receivedDataLength = size;
  uint32_t id;
  int peer;
  sv_enet_verdict v = sv_enet_check(g_host, 4096, &id, &peer);
  if (v == SV_ENET_PASS && peer != 1) abort();  // only peer 1 is connected
  if ((unsigned)v > SV_ENET_DROP_PEER) abort();
  // The fragment budget walks what passed again: it stays in bounds, and each fragment
  // command starts at most one packet of <= 4096 bytes (peer 1 buffers nothing here).
  if (v == SV_ENET_PASS) {
    size_t buffered = 0;
    size_t starts = sv_enet_fragment_starts(g_host, &g_host->peers[1], &buffered);
    if (starts > (size_t)4096 * size || buffered != 0) abort();
  }
  // A lone fragment command that passes must respect the declared-count bound.
  if (v == SV_ENET_PASS && size >= 4 + sizeof(ENetProtocolSendFragment)) {
    const ENetProtocol* cmd = (const ENetProtocol*)(copy + ((copy[0] & 0x80) ? 4 : 2));
    int number = cmd->header.command & ENET_PROTOCOL_COMMAND_MASK;
    if (number == ENET_PROTOCOL_COMMAND_SEND_FRAGMENT ||
        number == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT) {
      uint32_t count = ENET_NET_TO_HOST_32(cmd->sendFragment.fragmentCount);
      uint32_t total = ENET_NET_TO_HOST_32(cmd->sendFragment.totalLength);
      if (total > 4096 || count > (total + SV_ENET_MIN_FRAGMENT - 1) / SV_ENET_MIN_FRAGMENT)
        abort();
    }
  }
  return 0;
}
