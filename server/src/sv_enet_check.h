// Sanity checks on raw ENet datagrams, run from ENet's intercept hook before ENet parses
// them (docs/SECURITY.md, "Bounded memory").
//
// ENet allocates on behalf of fields an attacker chooses: a fragment start allocates a
// bitmap for its declared fragment count (1.3.17 checks the count against nothing but
// 2^20), and every reliable command that arrives ahead of sequence is buffered until the
// gap fills. These checks bound all of that by what an arbiter client legitimately sends:
// packets of at most max_packet bytes, few reliable messages in flight, unsequenced
// unreliable traffic. A datagram that breaks any rule is dropped whole.
#pragma once

#include <enet/enet.h>
#include <stddef.h>
#include <stdint.h>

/// Reliable commands a peer may send ahead of the next one ENet expects on a channel.
#define SV_ENET_MAX_RELIABLE_AHEAD 64
/// ENet splits a packet into fragments of at least this many bytes (ENet's minimum MTU
/// 576 minus its headers is 548), so a packet of L bytes has at most ceil(L / 512).
#define SV_ENET_MIN_FRAGMENT 512

typedef enum sv_enet_verdict {
  SV_ENET_PASS = 0,        ///< let ENet process it
  SV_ENET_CONNECT,         ///< a lone CONNECT command (no peer yet): the gate decides
  SV_ENET_DROP_MALFORMED,  ///< truncated, unknown command, compressed, bad channel or length
  SV_ENET_DROP_FRAGMENT,   ///< fragment fields out of bounds
  SV_ENET_DROP_WINDOW,     ///< sequence number too far ahead (would be buffered)
  SV_ENET_DROP_PEER,       ///< for a peer slot that is free or belongs to another address
} sv_enet_verdict;

/// Bytes of the fragmented packets ENet is assembling for `peer` (started, not complete).
size_t sv_enet_fragment_buffered(const ENetPeer* peer);
/// For a datagram sv_enet_check passed for `peer`: the bytes ENet would allocate for the
/// packets it starts (the total length of each fragment command that belongs to no packet
/// ENet is assembling and is not a duplicate ENet discards). When that is not 0, *buffered receives
/// sv_enet_fragment_buffered(peer), else 0.
size_t sv_enet_fragment_starts(const ENetHost* host, const ENetPeer* peer, size_t* buffered);

/// Check the datagram in host->receivedData from host->receivedAddress. For
/// SV_ENET_CONNECT, *connect_id receives the CONNECT's connectID; for SV_ENET_PASS,
/// *peer_index is the peer it is for (-1: none).
sv_enet_verdict sv_enet_check(const ENetHost* host, size_t max_packet, uint32_t* connect_id,
                              int* peer_index);
