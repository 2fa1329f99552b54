// The server's datagram guards in-process, no traffic: sv_enet_check (what may reach ENet)
// against a real ENet host with one peer set up as connected, and sv_gate (cookies,
// admissions, the per-address attempt rate) with a simulated clock.
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
// clang-format on

#include <unistd.h>

#include "../common/enet_group.h"
#include "../common/test_main.h"
#include "sv_auth.h"
#include "sv_enet_check.h"
#include "sv_gate.h"

#define PEER_IP 0x0100007Fu  // 127.0.0.1 as ENet stores it (network order)
#define PEER_PORT 40000

typedef struct fixture {
  ENetHost* host;
  uint8_t buf[1400];
  size_t len;
} fixture;

static void fixture_init(fixture* f) {
  memset(f, 0, sizeof *f);
  ENetAddress any = {.host = ENET_HOST_ANY, .port = 0};
  f->host = enet_host_create(&any, 4, 3, 0, 0);
  assert_non_null(f->host);
  // Peer 1 plays a connected client at 127.0.0.1:40000 with 3 channels.
  ENetPeer* p = &f->host->peers[1];
  p->state = ENET_PEER_STATE_CONNECTED;
  p->address.host = PEER_IP;
  p->address.port = PEER_PORT;
  p->channels = calloc(3, sizeof(ENetChannel));
  p->channelCount = 3;
  for (int c = 0; c < 3; ++c) {  // as ENet sets up a connecting peer's channels
    enet_list_clear(&p->channels[c].incomingReliableCommands);
    enet_list_clear(&p->channels[c].incomingUnreliableCommands);
  }
  f->host->receivedAddress = p->address;
}

static void fixture_free(fixture* f) {
  ENetPeer* p = &f->host->peers[1];
  free(p->channels);
  p->channels = NULL;
  p->channelCount = 0;
  p->state = ENET_PEER_STATE_DISCONNECTED;
  enet_host_destroy(f->host);
}

// cmocka fixture: a fresh host with its connected peer for each test, as *state; freed
// after the test also when it fails.
static int fixture_setup(void** state) {
  static fixture f;
  fixture_init(&f);
  *state = &f;
  return 0;
}

static int fixture_teardown(void** state) {
  fixture_free(*state);
  return 0;
}

#define FIXTURE_TEST(test) cmocka_unit_test_setup_teardown(test, fixture_setup, fixture_teardown)

static void header(fixture* f, uint16_t peer_id) {
  uint16_t v = (uint16_t)(peer_id | ENET_PROTOCOL_HEADER_FLAG_SENT_TIME);
  f->buf[0] = (uint8_t)(v >> 8);
  f->buf[1] = (uint8_t)v;
  f->buf[2] = f->buf[3] = 0;
  f->len = 4;
}

static void add(fixture* f, const void* cmd, size_t size, size_t data_len) {
  memcpy(f->buf + f->len, cmd, size);
  memset(f->buf + f->len + size, 0x5A, data_len);
  f->len += size + data_len;
}

static void add_fragment(fixture* f, int cmd, uint16_t start_seq, uint32_t count, uint32_t number,
                         uint32_t total, uint32_t offset, uint16_t data_len) {
  ENetProtocolSendFragment s;
  memset(&s, 0, sizeof s);
  s.header.command = (enet_uint8)(cmd | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE);
  s.header.channelID = 0;
  s.header.reliableSequenceNumber = ENET_HOST_TO_NET_16(start_seq);
  s.startSequenceNumber = ENET_HOST_TO_NET_16(start_seq);
  s.dataLength = ENET_HOST_TO_NET_16(data_len);
  s.fragmentCount = ENET_HOST_TO_NET_32(count);
  s.fragmentNumber = ENET_HOST_TO_NET_32(number);
  s.totalLength = ENET_HOST_TO_NET_32(total);
  s.fragmentOffset = ENET_HOST_TO_NET_32(offset);
  add(f, &s, sizeof s, data_len);
}

static void add_send(fixture* f, int cmd, uint8_t channel, uint16_t seq, uint16_t data_len) {
  ENetProtocol p;
  memset(&p, 0, sizeof p);
  p.header.command = (enet_uint8)cmd;
  p.header.channelID = channel;
  p.header.reliableSequenceNumber = ENET_HOST_TO_NET_16(seq);
  size_t size = enet_protocol_command_size((enet_uint8)cmd);
  if (cmd == ENET_PROTOCOL_COMMAND_SEND_RELIABLE)
    p.sendReliable.dataLength = ENET_HOST_TO_NET_16(data_len);
  if (cmd == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE)
    p.sendUnreliable.dataLength = ENET_HOST_TO_NET_16(data_len);
  if (cmd == ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED)
    p.sendUnsequenced.dataLength = ENET_HOST_TO_NET_16(data_len);
  add(f, &p, size, data_len);
}

static sv_enet_verdict check(fixture* f) {
  f->host->receivedData = f->buf;
  f->host->receivedDataLength = f->len;
  uint32_t id;
  int peer;
  return sv_enet_check(f->host, 4096, &id, &peer);
}

static void test_guard_fragments(void** state) {
  fixture* f = *state;
  // What ENet itself sends for a 4096-byte packet at MTU 1400: 3 fragments.
  header(f, 1);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 1, 3, 0, 4096, 0, 1368);
  assert_int_equal(check(f), SV_ENET_PASS);
  // The bomb: a million fragments declared.
  header(f, 1);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 1, 1000000, 0, 4096, 0, 100);
  assert_int_equal(check(f), SV_ENET_DROP_FRAGMENT);
  header(f, 1);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT, 0, 1000000, 0, 4096, 0, 100);
  assert_int_equal(check(f), SV_ENET_DROP_FRAGMENT);
  // Bounds: 8 fragments of 4096 pass, 9 do not; more than the packet limit; bad number,
  // offset, length; zero count.
  struct {
    uint32_t count, number, total, offset;
    uint16_t len;
    sv_enet_verdict want;
  } cases[] = {
      {8, 7, 4096, 3584, 512, SV_ENET_PASS},         {9, 0, 4096, 0, 100, SV_ENET_DROP_FRAGMENT},
      {2, 0, 4097, 0, 100, SV_ENET_DROP_FRAGMENT},   {3, 3, 4096, 0, 100, SV_ENET_DROP_FRAGMENT},
      {3, 0, 4096, 4096, 0, SV_ENET_DROP_MALFORMED}, {3, 0, 4096, 4000, 200, SV_ENET_DROP_FRAGMENT},
      {0, 0, 4096, 0, 100, SV_ENET_DROP_FRAGMENT},   {1, 0, 0, 0, 100, SV_ENET_DROP_FRAGMENT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    header(f, 1);
    add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 1, cases[i].count, cases[i].number,
                 cases[i].total, cases[i].offset, cases[i].len);
    if (check(f) != cases[i].want) fail_msg("fragment case %zu: got %d", i, (int)check(f));
  }
}

static size_t starts(fixture* f, size_t* buffered) {
  assert_int_equal(check(f), SV_ENET_PASS);
  return sv_enet_fragment_starts(f->host, &f->host->peers[1], buffered);
}

// What the fragment budget (sv_net.h) charges: the whole length of each packet a datagram
// starts, once, and nothing for fragments of a packet ENet is assembling or duplicates.
static void test_guard_fragment_starts(void** state) {
  fixture* f = *state;
  size_t buffered = 99;
  header(f, 1);
  add_send(f, ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 1, 0, 40);  // an input: no fragment
  assert_int_equal(starts(f, &buffered), 0);
  assert_int_equal(buffered, 0);
  // W6: a 4096-byte packet announced in 2 fragments, fragment 0 only.
  header(f, 1);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 1, 2, 0, 4096, 0, 100);
  assert_int_equal(starts(f, &buffered), 4096);
  // Two fragments of one packet in a datagram start it once; two packets, twice.
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 1, 2, 1, 4096, 2048, 100);
  assert_int_equal(starts(f, &buffered), 4096);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 2, 2, 0, 3000, 0, 100);
  assert_int_equal(starts(f, &buffered), 4096 + 3000);
  // A resent fragment of a packet already delivered (sequence 0 is the last one in).
  header(f, 1);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 0, 2, 0, 4096, 0, 100);
  assert_int_equal(starts(f, &buffered), 0);
  // ENet assembles packet 1 (one fragment of 2 in): its second fragment costs nothing,
  // and what the peer holds is counted.
  ENetChannel* ch = &f->host->peers[1].channels[0];
  ENetIncomingCommand ic;
  memset(&ic, 0, sizeof ic);
  ic.reliableSequenceNumber = 1;
  ic.command.header.command = ENET_PROTOCOL_COMMAND_SEND_FRAGMENT;
  ic.fragmentCount = 2;
  ic.fragmentsRemaining = 1;
  ENetPacket packet = {.dataLength = 4096};
  ic.packet = &packet;
  enet_list_insert(enet_list_end(&ch->incomingReliableCommands), &ic);
  assert_int_equal(sv_enet_fragment_buffered(&f->host->peers[1]), 4096);
  header(f, 1);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 1, 2, 1, 4096, 2048, 100);
  assert_int_equal(starts(f, &buffered), 0);
  add_fragment(f, ENET_PROTOCOL_COMMAND_SEND_FRAGMENT, 2, 2, 0, 4096, 0, 100);
  assert_int_equal(starts(f, &buffered), 4096);
  assert_int_equal(buffered, 4096);
  ic.fragmentsRemaining = 0;  // complete: ENet's waiting-data cap covers it from now on
  assert_int_equal(sv_enet_fragment_buffered(&f->host->peers[1]), 0);
  enet_list_remove(&ic.incomingCommandList);
}

static void test_guard_windows_channels_lengths(void** state) {
  fixture* f = *state;
  f->host->peers[1].channels[0].incomingReliableSequenceNumber = 100;
  struct {
    int cmd;
    uint8_t ch;
    uint16_t seq, len;
    sv_enet_verdict want;
  } cases[] = {
      {ENET_PROTOCOL_COMMAND_SEND_RELIABLE, 0, 101, 10, SV_ENET_PASS},
      {ENET_PROTOCOL_COMMAND_SEND_RELIABLE, 0, 164, 10, SV_ENET_PASS},
      {ENET_PROTOCOL_COMMAND_SEND_RELIABLE, 0, 165, 10, SV_ENET_DROP_WINDOW},
      {ENET_PROTOCOL_COMMAND_SEND_RELIABLE, 0, 50, 10,
       SV_ENET_PASS},  // duplicate: ENet discards it
      {ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE, 0, 100, 10, SV_ENET_PASS},
      {ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE, 0, 101, 10, SV_ENET_DROP_WINDOW},
      {ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 2, 9999, 10, SV_ENET_PASS},
      {ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 3, 0, 10,
       SV_ENET_DROP_MALFORMED},                                                   // no such channel
      {ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 1, 0, 0, SV_ENET_DROP_MALFORMED},  // empty
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    header(f, 1);
    add_send(f, cases[i].cmd, cases[i].ch, cases[i].seq, cases[i].len);
    if (check(f) != cases[i].want) fail_msg("send case %zu: got %d", i, (int)check(f));
  }
  // Data that runs past the datagram, and every truncation of a valid datagram.
  header(f, 1);
  add_send(f, ENET_PROTOCOL_COMMAND_SEND_RELIABLE, 0, 101, 40);
  size_t full = f->len;
  for (size_t cut = 0; cut < full; ++cut) {
    f->len = cut;
    assert_int_not_equal(check(f), SV_ENET_PASS);
  }
}

static void test_guard_peers_and_connect(void** state) {
  fixture* f = *state;
  ENetProtocolConnect c;
  memset(&c, 0, sizeof c);
  c.header.command = ENET_PROTOCOL_COMMAND_CONNECT | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
  c.header.channelID = 0xFF;
  c.connectID = 0xC0FFEE;
  header(f, ENET_PROTOCOL_MAXIMUM_PEER_ID);
  add(f, &c, sizeof c, 0);
  f->host->receivedData = f->buf;
  f->host->receivedDataLength = f->len;
  uint32_t id = 0;
  int peer = 0;
  assert_int_equal(sv_enet_check(f->host, 4096, &id, &peer), SV_ENET_CONNECT);
  assert_int_equal(peer, -1);
  assert_int_equal(id, 0xC0FFEE);
  // Anything else without a peer, or a CONNECT with company, is dropped.
  add_send(f, ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 0, 0, 4);
  assert_int_equal(check(f), SV_ENET_DROP_MALFORMED);
  header(f, ENET_PROTOCOL_MAXIMUM_PEER_ID);
  add_send(f, ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 0, 0, 4);
  assert_int_equal(check(f), SV_ENET_DROP_MALFORMED);
  // A CONNECT inside a connected peer's datagram.
  header(f, 1);
  add(f, &c, sizeof c, 0);
  assert_int_equal(check(f), SV_ENET_DROP_MALFORMED);
  // Free slot, out-of-range id, another address, compression.
  header(f, 2);
  add_send(f, ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 0, 0, 4);
  assert_int_equal(check(f), SV_ENET_DROP_PEER);
  header(f, 7);
  add_send(f, ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 0, 0, 4);
  assert_int_equal(check(f), SV_ENET_DROP_PEER);
  header(f, 1);
  add_send(f, ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED, 0, 0, 4);
  f->host->receivedAddress.port = PEER_PORT + 1;
  assert_int_equal(check(f), SV_ENET_DROP_PEER);
  f->host->receivedAddress.port = PEER_PORT;
  assert_int_equal(check(f), SV_ENET_PASS);
  f->buf[0] |= ENET_PROTOCOL_HEADER_FLAG_COMPRESSED >> 8;
  assert_int_equal(check(f), SV_ENET_DROP_MALFORMED);
}

static sv_gate_result gate_send(sv_gate* g, uint32_t ip, uint16_t port, const arb_gate_msg* m,
                                uint64_t now, arb_gate_msg* reply) {
  uint8_t in[64], out[64];
  int n = arb_gate_encode(m, in, sizeof in);
  size_t out_len = 0;
  sv_gate_result r = sv_gate_on_datagram(g, ip, port, in, (size_t)n, now, out, &out_len);
  memset(reply, 0, sizeof *reply);
  if (r == SV_GATE_REPLY) {
    assert_true(out_len <= (size_t)n);
    assert_int_equal(arb_gate_decode(out, out_len, reply), 0);
  }
  return r;
}

// A gate allowing 5 attempts per second with a new cookie key (static: a large struct).
static sv_gate* fresh_gate(void) {
  static sv_gate g;
  assert_int_equal(sv_gate_init(&g, 5), 0);
  return &g;
}

// A client's gate request with `nonce`.
static arb_gate_msg gate_request(uint64_t nonce) {
  arb_gate_msg req = {.kind = ARB_GATE_REQUEST, .nonce = nonce, .proto_version = 1};
  return req;
}

// The peer's request with `nonce` at `now` must get a challenge for that nonce.
static arb_gate_msg challenge_for(sv_gate* g, uint64_t nonce, uint64_t now) {
  arb_gate_msg req = gate_request(nonce), ch;
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &req, now, &ch), SV_GATE_REPLY);
  assert_int_equal(ch.kind, ARB_GATE_CHALLENGE);
  assert_int_equal(ch.nonce, nonce);
  return ch;
}

// The response a client sends: the challenge's nonce and cookie, echoed byte for byte.
static arb_gate_msg response_to(const arb_gate_msg* ch) {
  arb_gate_msg resp = {.kind = ARB_GATE_RESPONSE, .nonce = ch->nonce};
  memcpy(resp.cookie, ch->cookie, sizeof resp.cookie);
  return resp;
}

static void test_gate_cookie_admission_rate(void** state) {
  (void)state;
  sv_gate* g = fresh_gate();
  uint64_t now = 1000000;
  arb_gate_msg ch = challenge_for(g, 9, now), ad;
  // No admission without a response; a CONNECT is refused.
  assert_false(sv_gate_take_connect(g, PEER_IP, PEER_PORT, 1, now));
  arb_gate_msg resp = response_to(&ch);
  // The cookie from another port, with another nonce, forged or too old does not verify.
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT + 1, &resp, now, &ad), SV_GATE_BAD);
  resp.nonce = 10;
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, now, &ad), SV_GATE_BAD);
  resp.nonce = 9;
  resp.cookie[20] ^= 1;
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, now, &ad), SV_GATE_BAD);
  resp.cookie[20] ^= 1;
  assert_int_equal(
      gate_send(g, PEER_IP, PEER_PORT, &resp, now + (SV_GATE_COOKIE_SECONDS + 1) * 1000u, &ad),
      SV_GATE_BAD);
  uint64_t later = now + 2000;  // the limiter refilled (5/s, burst 10)
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, later, &ad), SV_GATE_REPLY);
  assert_int_equal(ad.kind, ARB_GATE_ADMITTED);
  // One connection per admission: its retransmissions pass, another connectID does not,
  // another port does not, and the admission expires.
  assert_true(sv_gate_take_connect(g, PEER_IP, PEER_PORT, 77, later));
  assert_true(sv_gate_take_connect(g, PEER_IP, PEER_PORT, 77, later + 100));
  assert_false(sv_gate_take_connect(g, PEER_IP, PEER_PORT, 78, later + 100));
  assert_false(sv_gate_take_connect(g, PEER_IP, PEER_PORT + 1, 77, later));
  assert_false(sv_gate_take_connect(g, PEER_IP, PEER_PORT, 77, later + SV_GATE_ADMIT_MS + 1));
  // The response resent (its `admitted` was lost) is answered again, and neither reopens
  // the admission for another connection nor costs the address anything.
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, later + 200, &ad), SV_GATE_REPLY);
  assert_false(sv_gate_take_connect(g, PEER_IP, PEER_PORT, 78, later + 200));
  // Passing the gate again (the client gave up on that connection: a new nonce) admits a
  // new one.
  ch = challenge_for(g, 10, later + 200);
  arb_gate_msg resp2 = response_to(&ch);
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp2, later + 300, &ad), SV_GATE_REPLY);
  assert_true(sv_gate_take_connect(g, PEER_IP, PEER_PORT, 78, later + 400));
  // The connection limiter: an admission costs 2 of the 5 per second (burst 10), per IP:
  // 5 admissions at once, then one per 400 ms; other IPs are unaffected. Requests cost the
  // address nothing: all 30 are answered.
  uint64_t t = later + 10000;
  arb_gate_msg chs[30];
  int replies = 0;
  for (int i = 0; i < 30; ++i) {
    arb_gate_msg r = gate_request(100u + (uint64_t)i);
    if (gate_send(g, 0x0200007Fu, 1, &r, t, &chs[i]) == SV_GATE_REPLY) replies++;
  }
  assert_int_equal(replies, 30);
  int admitted = 0;
  for (int i = 0; i < 6; ++i) {
    arb_gate_msg r = response_to(&chs[i]);
    if (gate_send(g, 0x0200007Fu, 1, &r, t, &ad) == SV_GATE_REPLY) admitted++;
  }
  assert_int_equal(admitted, 5);
  arb_gate_msg r6 = response_to(&chs[6]);
  assert_int_equal(gate_send(g, 0x0200007Fu, 1, &r6, t + 100, &ad), SV_GATE_RATE_LIMITED);
  assert_int_equal(gate_send(g, 0x0200007Fu, 1, &r6, t + 400, &ad), SV_GATE_REPLY);
  ch = challenge_for(g, 11, t);
  resp = response_to(&ch);
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, t, &ad), SV_GATE_REPLY);
  // Replies are not sent for kinds only a server sends.
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &ch, t, &ad), SV_GATE_BAD);
}

// The server-wide challenge budget: SV_GATE_CHALLENGES_PER_SECOND at once from anywhere,
// then as many per second; a proven address's response is not affected by it.
static void test_gate_challenge_budget(void** state) {
  (void)state;
  sv_gate* g = fresh_gate();
  uint64_t t = 3000000;
  arb_gate_msg req = gate_request(1), ch, ad;
  arb_gate_msg mine = challenge_for(g, 1, t);
  int answered = 0;
  for (int i = 0; i < SV_GATE_CHALLENGES_PER_SECOND + 100; ++i)
    if (gate_send(g, 0x0A000000u + (uint32_t)i, 9, &req, t, &ch) == SV_GATE_REPLY) answered++;
  assert_int_equal(answered, SV_GATE_CHALLENGES_PER_SECOND - 1);
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &req, t, &ch), SV_GATE_BUSY);
  arb_gate_msg resp = response_to(&mine);
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, t, &ad), SV_GATE_REPLY);
  assert_int_equal(ad.kind, ARB_GATE_ADMITTED);
  // 10 ms refill 1 % of the budget.
  answered = 0;
  for (int i = 0; i < 1000; ++i)
    if (gate_send(g, 0x0B000000u + (uint32_t)i, 9, &req, t + 10, &ch) == SV_GATE_REPLY) answered++;
  assert_int_equal(answered, SV_GATE_CHALLENGES_PER_SECOND / 100);
}

// W5 (docs/SECURITY.md): a forger sends gate requests "from" the victim's address (other ports,
// its own nonces; it never sees the challenges), 40 a second, plus as many responses with
// made-up cookies, for 14 s, while 6 clients behind that address (a NAT: a new port each
// time) join at 2, 4, ... 12 s like arbiter's client: a request every 200 ms until the challenge,
// then the response every 200 ms until `admitted`, then the CONNECT. Each must be
// admitted within 1 s (against the old gate: 0 of 6; the forged datagrams spent the address's
// budget).
#define W5_FORGED_PER_SECOND 40
#define W5_JOINS 6
static void test_gate_forged_requests_spend_nothing(void** state) {
  (void)state;
  static sv_gate gate;
  sv_gate* g = &gate;
  assert_int_equal(sv_gate_init(g, 20), 0);  // the default --connect-rate
  const uint32_t victim = 0x4D00007Fu;       // 127.0.0.77
  const uint64_t t0 = 5000000, step = 1000 / (2 * W5_FORGED_PER_SECOND);  // requests + responses
  uint64_t forged = 0, forged_admitted = 0;
  int admitted = 0, worst_ms = 0, join = -1;
  uint32_t rng = 12345;
  arb_gate_msg req = {0}, resp = {0}, reply;
  bool have_cookie = false, in = true;
  uint64_t start = 0, next_send = 0, next_join = t0 + 2000u;
  for (uint64_t t = t0; t < t0 + 2000u * (W5_JOINS + 1); t += step) {
    rng = rng * 1664525u + 1013904223u;
    arb_gate_msg f = {.kind = (rng >> 8) & 1 ? ARB_GATE_REQUEST : ARB_GATE_RESPONSE,
                      .nonce = rng,
                      .proto_version = 1};
    for (int i = 0; i < ARB_GATE_COOKIE_SIZE; ++i) f.cookie[i] = (uint8_t)(rng >> (i % 24));
    uint32_t issued = (uint32_t)(t / 1000u);  // a plausible issue time, zeros, a made-up MAC
    memcpy(f.cookie, &issued, 4);
    memset(f.cookie + 4, 0, 4);
    if (gate_send(g, victim, (uint16_t)(1024 + (rng >> 16) % 60000), &f, t, &reply) ==
            SV_GATE_REPLY &&
        f.kind == ARB_GATE_RESPONSE)
      forged_admitted++;
    forged++;
    if (t >= next_join) {        // the next client behind the address starts
      if (!in) worst_ms = 2000;  // the previous one never got in
      next_join += 2000u;
      join++;
      if (join == W5_JOINS) break;
      req = (arb_gate_msg){
          .kind = ARB_GATE_REQUEST, .nonce = 0x7700u + (uint64_t)join, .proto_version = 1};
      have_cookie = in = false;
      start = next_send = t;
    }
    if (in || join < 0 || t < next_send) continue;
    uint16_t port = (uint16_t)(50000 + join);
    next_send = t + ARB_GATE_RETRY_MS;
    if (!have_cookie) {
      if (gate_send(g, victim, port, &req, t, &reply) == SV_GATE_REPLY &&
          reply.kind == ARB_GATE_CHALLENGE && reply.nonce == req.nonce) {
        resp = response_to(&reply);
        have_cookie = true;
        next_send = t;  // the client answers at once
      }
    } else if (gate_send(g, victim, port, &resp, t, &reply) == SV_GATE_REPLY &&
               reply.kind == ARB_GATE_ADMITTED &&
               sv_gate_take_connect(g, victim, port, 1000u + (uint32_t)join, t)) {
      in = true;
      int took = (int)(t - start);
      if (took <= 1000) admitted++;
      if (took > worst_ms) worst_ms = took;
    }
  }
  print_message(
      "W5: %d of %d joins from the forged address admitted within 1 s (slowest %d ms; "
      "%llu forged datagrams, %llu forged responses admitted)\n",
      admitted, W5_JOINS, worst_ms, (unsigned long long)forged,
      (unsigned long long)forged_admitted);
  assert_int_equal(forged_admitted, 0);
  assert_int_equal(admitted, W5_JOINS);
}

// The documented checks of the golden token (PROTOCOL.md §3.1).
static const char golden_token[] =
    "QVJCVAEAAACA2NtwAAAAAEBBQkNERUZHSElKS0xNTk9QUVJTVFVWV_45BXDQ4HkWL1UlHQs5wzU6Ewdvv_T9NWtO_"
    "UUIZT2Td51j-ys48VRiYWiZLyWCKo6eiQ";

static void auth_for(sv_auth* a, const char* key_hex, const char* public_address) {
  char path[] = "/tmp/arbiter-guard-key-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, key_hex, strlen(key_hex)), (int)strlen(key_hex));
  close(fd);
  char err[300];
  assert_int_equal(sv_auth_init(a, path, public_address, "0.0.0.0", err, sizeof err), 0);
  unlink(path);
}

// Every byte of a cookie counts: the issued time and the MAC, and the four zero bytes
// between them (PROTOCOL.md: the response echoes the cookie byte for byte). Attempts are
// 250 ms apart, within the attempt limiter's rate and the cookie's lifetime.
static void test_gate_cookie_every_byte(void** state) {
  (void)state;
  sv_gate* g = fresh_gate();
  uint64_t now = 2000000;
  arb_gate_msg ch = challenge_for(g, 5, now), ad;
  arb_gate_msg resp = response_to(&ch);
  for (int i = 0; i < ARB_GATE_COOKIE_SIZE; ++i) {
    now += 250;
    resp.cookie[i] ^= 0x80;
    assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, now, &ad), SV_GATE_BAD);
    resp.cookie[i] ^= 0x80;
  }
  assert_int_equal(gate_send(g, PEER_IP, PEER_PORT, &resp, now + 250, &ad), SV_GATE_REPLY);
  assert_int_equal(ad.kind, ARB_GATE_ADMITTED);
}

static void test_auth_golden_checks(void** state) {
  (void)state;
  const char* key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  const uint8_t* tok = (const uint8_t*)golden_token;
  size_t len = strlen(golden_token);
  arb_token t;
  sv_auth a;
  auth_for(&a, key, "127.0.0.1:7777");
  assert_int_equal(sv_auth_check(&a, tok, len, 1893455999, &t), SV_AUTH_OK);
  assert_int_equal(t.client_id, 42);
  assert_int_equal(sv_auth_check(&a, tok, len, 1893455999, &t), SV_AUTH_REUSED);
  assert_int_equal(sv_auth_check(&a, tok, 0, 1893455999, &t), SV_AUTH_MISSING);
  sv_auth_free(&a);
  auth_for(&a, key, "127.0.0.1:7777");
  assert_int_equal(sv_auth_check(&a, tok, len, 1893456000, &t), SV_AUTH_EXPIRED);
  sv_auth_free(&a);
  auth_for(&a, key, "127.0.0.1:7778");
  assert_int_equal(sv_auth_check(&a, tok, len, 1893455000, &t), SV_AUTH_WRONG_SERVER);
  sv_auth_free(&a);
  // --public-address unset with --bind 0.0.0.0: any IP, the bound port.
  auth_for(&a, key, "");
  sv_auth_set_port(&a, 7777);
  assert_int_equal(sv_auth_check(&a, tok, len, 1893455000, &t), SV_AUTH_OK);
  sv_auth_free(&a);
  auth_for(&a, "1f0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
           "127.0.0.1:7777");
  assert_int_equal(sv_auth_check(&a, tok, len, 1893455000, &t), SV_AUTH_INVALID);
  sv_auth_free(&a);
}

int main(void) {
  return ARB_RUN_TESTS(
      enet_group_setup, enet_group_teardown, FIXTURE_TEST(test_guard_fragments),
      FIXTURE_TEST(test_guard_fragment_starts), FIXTURE_TEST(test_guard_windows_channels_lengths),
      FIXTURE_TEST(test_guard_peers_and_connect), cmocka_unit_test(test_gate_cookie_admission_rate),
      cmocka_unit_test(test_gate_cookie_every_byte), cmocka_unit_test(test_gate_challenge_budget),
      cmocka_unit_test(test_gate_forged_requests_spend_nothing),
      cmocka_unit_test(test_auth_golden_checks));
}
