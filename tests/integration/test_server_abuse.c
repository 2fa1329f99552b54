// Abuse of the UDP port while honest clients play (docs/SECURITY.md). Each attack runs in
// a forked child process for a few seconds from its own loopback addresses (127.0.0.x:
// "other machines"), while the test process connects 4 honest clients from 127.0.0.1 one
// after another and plays. For every attack: each honest join (gate + ENet + hello ->
// welcome) completes within 2 s (1 s for the lock-out attacks W1-W6 of docs/SECURITY.md), the
// honest clients see >= 99 % of the snapshots sent while they play, /healthz from 127.0.0.1 (no
// attacker uses it) answers 200 within 1 s to every probe spread over the attack, and the
// server's RSS stays under twice its value before the attack (test_server_attack.h).
// Also: what a spoofed source gets back (nothing for a CONNECT; one datagram no larger
// than the request for a gate request).
#include <arbiter/gate.h>
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_server_attack.h"

#define JOIN_LIMIT_MS 2000

static double metric(const tc_server* s, const char* name) {
  char* body = NULL;
  double v = NAN;
  if (tc_http_get(s->http_port, "/metrics", &body) == 200) v = tc_metric(body, name);
  free(body);
  return v;
}

static int udp_socket_from(const char* local_ip) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  inet_pton(AF_INET, local_ip, &a.sin_addr);
  if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0) return -1;
  return fd;
}

static void send_to_server(int fd, int port, const void* data, size_t len) {
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  sendto(fd, data, len, 0, (struct sockaddr*)&to, sizeof to);
}

// An ENet CONNECT datagram as an ENet 1.3 client sends it (header + one CONNECT).
static size_t make_connect(uint8_t* buf, uint32_t connect_id) {
  uint16_t peer = ENET_PROTOCOL_MAXIMUM_PEER_ID | ENET_PROTOCOL_HEADER_FLAG_SENT_TIME;
  buf[0] = (uint8_t)(peer >> 8);
  buf[1] = (uint8_t)peer;
  buf[2] = buf[3] = 0;  // sent time
  ENetProtocolConnect c;
  memset(&c, 0, sizeof c);
  c.header.command = ENET_PROTOCOL_COMMAND_CONNECT | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
  c.header.channelID = 0xFF;
  c.header.reliableSequenceNumber = ENET_HOST_TO_NET_16(1);
  c.outgoingPeerID = ENET_HOST_TO_NET_16(0);
  c.incomingSessionID = c.outgoingSessionID = 0xFF;
  c.mtu = ENET_HOST_TO_NET_32(1400);
  c.windowSize = ENET_HOST_TO_NET_32(32768);
  c.channelCount = ENET_HOST_TO_NET_32(ARB_PROTO_CHANNEL_COUNT);
  c.packetThrottleInterval = ENET_HOST_TO_NET_32(5000);
  c.packetThrottleAcceleration = ENET_HOST_TO_NET_32(2);
  c.packetThrottleDeceleration = ENET_HOST_TO_NET_32(2);
  c.connectID = connect_id;
  memcpy(buf + 4, &c, sizeof c);
  return 4 + sizeof c;
}

// Replies arriving on fd within ms: count, and the largest size.
static int replies_within(int fd, int ms, size_t* largest) {
  int count = 0;
  *largest = 0;
  uint64_t end = tc_now_ms() + (uint64_t)ms;
  while (tc_now_ms() < end) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 10) <= 0) continue;
    uint8_t buf[2048];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) continue;
    count++;
    if ((size_t)n > *largest) *largest = (size_t)n;
  }
  return count;
}

// Starts a server with no options and, once it has settled, the watch on it (RSS from
// that idle value, /healthz probes every 200 ms).
static void start_watched_server(tc_server* s, watch* w) {
  start_server(s, NULL);
  tc_sleep_ms(300);
  watch_start(w, s, rss_kb(s->pid), 200);
}

// An attack under way: the attacker's pid and when it started (tc_now_ms).
typedef struct attack_run {
  pid_t child;
  uint64_t t0;
} attack_run;

// A watched server (start_watched_server) with `attack` on it from now for `seconds`.
static attack_run start_watched_attack(tc_server* s, watch* w, attack_fn* attack, int seconds) {
  start_watched_server(s, w);
  attack_run run = {0, tc_now_ms()};
  run.child = start_attack(attack, s->port, seconds);
  return run;
}

static void run_attack(const char* name, attack_fn* attack, const char* const* extra, int seconds) {
  tc_server s;
  honest h;
  watch w;
  start_played_server(&s, &h, &w, extra, JOIN_LIMIT_MS, 200);

  pid_t child = start_attack(attack, s.port, seconds);
  pump_joined(&h, 300);  // the attack is under way
  while (h.joined < HONEST) {
    join_one(&h, &s, JOIN_LIMIT_MS);
    play_and_check_snapshots(&h, 400);
  }
  play_and_check_snapshots(&h, 1000);
  // The honest clients keep playing until the attack is over (a client that falls
  // silent for --peer-timeout-ms is dropped, as it should be).
  int status = play_until_exit(&h, child);
  assert_true(WIFEXITED(status));
  play_and_check_snapshots(&h, 500);
  watch_stop(&w, name, 10);
  report_four(name, &h, &w);

  char* body = NULL;
  assert_int_equal(tc_http_get(s.http_port, "/metrics", &body), 200);
  print_message(
      "%s: %s\n", name,
      strstr(body, "arbiter_datagrams_dropped_total{") ? "metrics ok" : "no drop metrics");
  free(body);
  honest_free(&h);
  stop_server(&s);
}

// ---- attacks (run in the child) ---------------------------------------------------------

// 100 ENet CONNECTs from 100 addresses (as a spoofing attacker would send them), repeated
// every 200 ms: the burst that locked every slot, and the low-rate lock-out after it.
static void attack_connect_flood(int port, int seconds) {
  int fds[100];
  for (int i = 0; i < 100; ++i) {
    char ip[32];
    snprintf(ip, sizeof ip, "127.0.1.%d", i + 1);
    if ((fds[i] = udp_socket_from(ip)) < 0) _exit(2);
  }
  uint8_t buf[128];
  uint64_t end = tc_now_ms() + (uint64_t)seconds * 1000u;
  uint32_t id = 1;
  while (tc_now_ms() < end) {
    for (int i = 0; i < 100; ++i) {
      size_t n = make_connect(buf, id++);
      send_to_server(fds[i], port, buf, n);
    }
    tc_sleep_ms(200);
  }
  for (int i = 0; i < 100; ++i) close(fds[i]);
}

// Real peers that pass the gate, connect, never say hello, and reconnect when dropped;
// plus peers that pass the gate, send CONNECT and never finish the ENet handshake.
#define HOSTAGES 100
static void attack_hostages(int port, int seconds) {
  ENetHost* hosts[HOSTAGES] = {0};
  ENetAddress server;
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = (uint16_t)port;
  uint64_t end = tc_now_ms() + (uint64_t)seconds * 1000u;
  while (tc_now_ms() < end) {
    for (int i = 0; i < HOSTAGES; ++i) {
      bool half_open = i % 5 == 0;  // every fifth never completes the handshake
      if (hosts[i] != NULL && hosts[i]->peers[0].state != ENET_PEER_STATE_DISCONNECTED) {
        if (!half_open) {
          ENetEvent ev;
          while (enet_host_service(hosts[i], &ev, 0) > 0)
            if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
        }
        continue;
      }
      if (hosts[i] != NULL) enet_host_destroy(hosts[i]);
      ENetAddress local = {.port = 0};
      enet_address_set_host_ip(&local, half_open ? "127.0.0.31" : "127.0.0.30");
      hosts[i] = enet_host_create(&local, 1, ARB_PROTO_CHANNEL_COUNT, 0, 0);
      if (hosts[i] == NULL) continue;
      if (tc_gate(hosts[i], (uint16_t)port, 5) != 0) continue;  // rate-limited: try later
      enet_host_connect(hosts[i], &server, ARB_PROTO_CHANNEL_COUNT, 0);
      enet_host_flush(hosts[i]);
    }
    // A half-open host is never serviced again, so ENet never notices the server gave up
    // on it: start it over now and then.
    for (int i = 0; i < HOSTAGES; i += 5)
      if (hosts[i] != NULL && (tc_now_ms() / 100) % 20 == (uint64_t)i % 20) {
        enet_host_destroy(hosts[i]);
        hosts[i] = NULL;
      }
    tc_sleep_ms(5);
  }
  for (int i = 0; i < HOSTAGES; ++i)
    if (hosts[i]) enet_host_destroy(hosts[i]);
}

// 90 connected peers from 6 addresses, each sending 20 fragment starts that declare
// 1 000 000 fragments of a 4096-byte packet (what made ENet allocate ~2 MB per peer).
#define BOMBERS 90
static void send_fragment_start(ENetHost* host, uint16_t seq, uint32_t fragment_count) {
  ENetPeer* p = &host->peers[0];
  uint8_t buf[256];
  uint16_t peer =
      (uint16_t)(p->outgoingPeerID | (p->outgoingSessionID << ENET_PROTOCOL_HEADER_SESSION_SHIFT) |
                 ENET_PROTOCOL_HEADER_FLAG_SENT_TIME);
  buf[0] = (uint8_t)(peer >> 8);
  buf[1] = (uint8_t)peer;
  buf[2] = buf[3] = 0;
  ENetProtocolSendFragment f;
  memset(&f, 0, sizeof f);
  f.header.command = ENET_PROTOCOL_COMMAND_SEND_FRAGMENT | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
  f.header.channelID = 0;
  f.header.reliableSequenceNumber = ENET_HOST_TO_NET_16(seq);
  f.startSequenceNumber = ENET_HOST_TO_NET_16(seq);
  f.dataLength = ENET_HOST_TO_NET_16(100);
  f.fragmentCount = ENET_HOST_TO_NET_32(fragment_count);
  f.fragmentNumber = 0;
  f.totalLength = ENET_HOST_TO_NET_32(4096);
  f.fragmentOffset = 0;
  memcpy(buf + 4, &f, sizeof f);
  memset(buf + 4 + sizeof f, 0x55, 100);
  ENetBuffer b = {.data = buf, .dataLength = 4 + sizeof f + 100};
  enet_socket_send(host->socket, &p->address, &b, 1);
}

static void attack_fragment_bomb(int port, int seconds) {
  static ENetHost* hosts[BOMBERS];
  ENetAddress server;
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = (uint16_t)port;
  for (int i = 0; i < BOMBERS; ++i) {
    char ip[32];
    snprintf(ip, sizeof ip, "127.0.0.%d", 40 + i / 15);
    ENetAddress local = {.port = 0};
    enet_address_set_host_ip(&local, ip);
    hosts[i] = enet_host_create(&local, 1, ARB_PROTO_CHANNEL_COUNT, 0, 0);
    if (hosts[i] == NULL || tc_gate(hosts[i], (uint16_t)port, 2000) != 0) _exit(3);
    enet_host_connect(hosts[i], &server, ARB_PROTO_CHANNEL_COUNT, 0);
  }
  bool bombed[BOMBERS] = {false};
  uint64_t end = tc_now_ms() + (uint64_t)seconds * 1000u;
  while (tc_now_ms() < end) {
    for (int i = 0; i < BOMBERS; ++i) {
      ENetEvent ev;
      while (enet_host_service(hosts[i], &ev, 0) > 0)
        if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
      if (!bombed[i] && hosts[i]->peers[0].state == ENET_PEER_STATE_CONNECTED) {
        for (uint16_t k = 1; k <= 20; ++k) send_fragment_start(hosts[i], k, 1000000);
        bombed[i] = true;
      }
    }
    tc_sleep_ms(2);
  }
  for (int i = 0; i < BOMBERS; ++i) enet_host_destroy(hosts[i]);
}

// ---- tests -------------------------------------------------------------------------------

ARB_TEST_CASE(test_abuse_connect_flood, run_attack, "connect flood", attack_connect_flood, NULL, 5)
ARB_TEST_CASE(test_abuse_hostage_peers, run_attack, "hostage peers", attack_hostages, NULL, 6)
ARB_TEST_CASE(test_abuse_fragment_bomb, run_attack, "fragment bomb", attack_fragment_bomb, NULL, 4)

// What a forged source address can get out of the server: nothing for an ENet CONNECT,
// exactly one datagram no larger than the request for a gate request, nothing for a gate
// response with a made-up cookie. The drops are counted.
static void test_abuse_spoofed_source_gets_no_amplification(void** state) {
  (void)state;
  tc_server s;
  start_server(&s, NULL);
  int fd = udp_socket_from("127.0.0.50");
  assert_true(fd >= 0);
  size_t largest;
  uint8_t buf[128];

  size_t n = make_connect(buf, 1234);
  send_to_server(fd, s.port, buf, n);
  assert_int_equal(replies_within(fd, 700, &largest), 0);

  arb_gate_msg m;
  memset(&m, 0, sizeof m);
  m.kind = ARB_GATE_REQUEST;
  m.nonce = 42;
  m.proto_version = ARB_PROTO_VERSION;
  int len = arb_gate_encode(&m, buf, sizeof buf);
  assert_int_equal(len, ARB_GATE_REQUEST_SIZE);
  send_to_server(fd, s.port, buf, (size_t)len);
  assert_int_equal(replies_within(fd, 500, &largest), 1);
  assert_true(largest <= (size_t)len);

  // A shortened request (the padding is what makes replies smaller) gets nothing.
  send_to_server(fd, s.port, buf, (size_t)len - 8);
  assert_int_equal(replies_within(fd, 300, &largest), 0);

  m.kind = ARB_GATE_RESPONSE;
  memset(m.cookie, 0x11, sizeof m.cookie);
  len = arb_gate_encode(&m, buf, sizeof buf);
  send_to_server(fd, s.port, buf, (size_t)len);
  assert_int_equal(replies_within(fd, 300, &largest), 0);
  close(fd);

  assert_true(metric(&s, "arbiter_datagrams_dropped_total{reason=\"not_admitted\"}") >= 1.0);
  assert_true(metric(&s, "arbiter_datagrams_dropped_total{reason=\"gate_malformed\"}") >= 1.0);
  assert_true(metric(&s, "arbiter_datagrams_dropped_total{reason=\"gate_cookie\"}") >= 1.0);
  assert_true(metric(&s, "arbiter_gate_challenges_total") >= 1.0);
  stop_server(&s);
}

// Half-open peers (gate passed, ENet handshake never finished) are visible in /metrics and
// gone after --half-open-timeout-ms; one address cannot hold more than
// --peers-per-address peers.
static void test_abuse_half_open_expire_and_per_address_cap(void** state) {
  (void)state;
  tc_server s;
  START_SERVER(&s, "--peers-per-address", "4");
  ENetAddress server;
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = (uint16_t)s.port;
  ENetHost* hosts[6];
  for (int i = 0; i < 6; ++i) {
    ENetAddress local = {.port = 0};
    enet_address_set_host_ip(&local, "127.0.0.60");
    assert_non_null(hosts[i] = enet_host_create(&local, 1, ARB_PROTO_CHANNEL_COUNT, 0, 0));
    assert_int_equal(tc_gate(hosts[i], (uint16_t)s.port, 2000), 0);
    enet_host_connect(hosts[i], &server, ARB_PROTO_CHANNEL_COUNT, 0);
    enet_host_flush(hosts[i]);  // CONNECT out; never serviced, so never acknowledged
  }
  tc_sleep_ms(300);
  double half_open = metric(&s, "arbiter_half_open_peers");
  print_message("half-open peers after 300 ms: %.0f\n", half_open);
  assert_true(half_open == 4.0);  // the other two are over the per-address cap
  tc_sleep_ms(1500);
  assert_true(metric(&s, "arbiter_half_open_peers") == 0.0);
  assert_true(metric(&s, "arbiter_half_open_expired_total") == 4.0);
  for (int i = 0; i < 6; ++i) enet_host_destroy(hosts[i]);
  stop_server(&s);
}

// ---- lock-outs: slots held by peers that never say hello (W1 and W3) ---------

#define LOCKOUT_JOIN_LIMIT_MS 1000
#define SILENT_PEERS 124     // the cost: 124 handshakes from 8 addresses, sent once
#define SILENT_ADDRESSES 8   // 127.0.0.70 ..
#define HOSTAGE_ADDRESSES 8  // 127.0.0.80 .. ; 16 peers each (the per-address cap)
#define HOSTAGE_PEERS (HOSTAGE_ADDRESSES * 16)

static ENetHost* gated_host(const char* local_ip, int port) {
  ENetAddress local = {.port = 0};
  enet_address_set_host_ip(&local, local_ip);
  ENetHost* host = enet_host_create(&local, 1, ARB_PROTO_CHANNEL_COUNT, 0, 0);
  if (host == NULL) return NULL;
  if (tc_gate(host, (uint16_t)port, 2000) != 0) {
    enet_host_destroy(host);
    return NULL;
  }
  ENetAddress server;
  enet_address_set_host_ip(&server, "127.0.0.1");
  server.port = (uint16_t)port;
  enet_host_connect(host, &server, ARB_PROTO_CHANNEL_COUNT, 0);
  enet_host_flush(host);
  return host;
}

// Keeps `count` peers connected from the loopback addresses 127.0.0.<base + i % addresses>
// for `seconds`, acknowledging what they get and never saying hello: a peer the server
// drops connects again next round, so the slots stay held as long as the attack lasts.
// `on_connected`, if not NULL, runs once per connection, when the peer is connected.
#define HELD_PEERS_MAX 128
static void hold_peers(int port, int seconds, int count, int base, int addresses,
                       void (*on_connected)(ENetHost* host)) {
  static ENetHost* hosts[HELD_PEERS_MAX];
  static bool seen[HELD_PEERS_MAX];
  if (count > HELD_PEERS_MAX) count = HELD_PEERS_MAX;
  uint64_t end = tc_now_ms() + (uint64_t)seconds * 1000u;
  while (tc_now_ms() < end) {
    for (int i = 0; i < count; ++i) {
      if (hosts[i] != NULL && hosts[i]->peers[0].state != ENET_PEER_STATE_DISCONNECTED) {
        ENetEvent ev;
        while (enet_host_service(hosts[i], &ev, 0) > 0)
          if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
        if (!seen[i] && hosts[i]->peers[0].state == ENET_PEER_STATE_CONNECTED) {
          if (on_connected != NULL) on_connected(hosts[i]);
          seen[i] = true;
        }
        continue;
      }
      if (hosts[i] != NULL) enet_host_destroy(hosts[i]);
      char ip[32];
      snprintf(ip, sizeof ip, "127.0.0.%d", base + i % addresses);
      hosts[i] = gated_host(ip, port);  // NULL when rate-limited: try again next round
      seen[i] = false;
    }
    tc_sleep_ms(2);
  }
  for (int i = 0; i < count; ++i)
    if (hosts[i]) enet_host_destroy(hosts[i]);
}

// Raw ENet peers that pass the gate (PROTOCOL.md §1.1) like a real client, from `addresses`
// loopback addresses, finish ENet's handshake with its one ACK and from then on are never
// serviced: they send nothing, not even acknowledgements. Returns how many connected.
static int open_silent_peers(ENetHost** hosts, int count, int addresses, int port) {
  bool done[SILENT_PEERS] = {false};
  int connected = 0;
  for (int i = 0; i < count; ++i) {
    char ip[32];
    snprintf(ip, sizeof ip, "127.0.0.%d", 70 + i % addresses);
    hosts[i] = gated_host(ip, port);
  }
  uint64_t end = tc_now_ms() + 3000;
  while (connected < count && tc_now_ms() < end) {
    for (int i = 0; i < count; ++i) {
      ENetEvent ev;
      if (done[i] || hosts[i] == NULL || enet_host_service(hosts[i], &ev, 0) <= 0) continue;
      if (ev.type != ENET_EVENT_TYPE_CONNECT) continue;
      enet_host_flush(hosts[i]);  // the ACK of VERIFY_CONNECT: the last thing it ever sends
      done[i] = true;
      connected++;
    }
    tc_sleep_ms(1);
  }
  return connected;
}

// W1: 124 peers from 8 addresses finish the handshake and fall silent. The hello timeout
// (5 s) kicks each; its goodbye is never acknowledged, and the peer must still be reset
// SV_CLOSE_GRACE_MS (1 s) later instead of holding its slot until ENet's own timeout
// (~164 s on loopback before). Honest clients join within 1 s meanwhile, and the peer
// count is back to the honest clients within hello timeout + grace (+ 1.5 s of slack for
// the tick and a loaded machine).
static void test_abuse_silent_peers_free_their_slots(void** state) {
  (void)state;
  tc_server s;
  watch w;
  start_watched_server(&s, &w);
  static ENetHost* silent[SILENT_PEERS];
  uint64_t t0 = tc_now_ms();
  int connected = open_silent_peers(silent, SILENT_PEERS, SILENT_ADDRESSES, s.port);
  uint64_t t_connected = tc_now_ms();
  print_message("silent peers: %d of %d connected in %llu ms\n", connected, SILENT_PEERS,
                (unsigned long long)(t_connected - t0));
  assert_int_equal(connected, SILENT_PEERS);
  honest h;
  honest_init(&h);
  while (h.joined < HONEST) {
    join_one(&h, &s, LOCKOUT_JOIN_LIMIT_MS);
    play_and_check_snapshots(&h, 400);
  }
  assert_true(metric(&s, "arbiter_peers_connected") == (double)(SILENT_PEERS + HONEST));
  // Wait for the slots to come back, playing meanwhile; bounded.
  uint64_t deadline = t_connected + 5000 + 1000 + 1500;
  double peers = NAN;
  snap_mark m;
  snap_begin(&m, h.c, h.joined);
  while (tc_now_ms() < deadline + 500) {
    pump_joined(&h, 100);
    peers = metric(&s, "arbiter_peers_connected");
    if (peers == (double)HONEST) break;
  }
  uint64_t freed_after = tc_now_ms() - t_connected;
  snap_check(&h.snaps, &m, h.c, h.joined);
  print_message(
      "silent peers: honest joins <= %llu ms; peers back to %.0f %llu ms after the "
      "handshakes (hello timeout 5000 + grace 1000)\n",
      (unsigned long long)h.worst_join_ms, peers, (unsigned long long)freed_after);
  assert_true(peers == (double)HONEST);
  assert_true(tc_now_ms() <= deadline);
  assert_true(metric(&s, "arbiter_closing_peers_reset_total") >= (double)SILENT_PEERS);
  // The freed slots take new players at once, and the honest ones kept playing.
  play_and_check_snapshots(&h, 500);
  watch_stop(&w, "silent peers", 20);
  report_four("silent peers (W1)", &h, &w);
  for (int i = 0; i < SILENT_PEERS; ++i)
    if (silent[i]) enet_host_destroy(silent[i]);
  honest_free(&h);
  stop_server(&s);
}

// W3's attacker, in a child: 16 peers from each of 8 addresses, so the 128-entry peer
// table (64 players + 32 spectators + 32) is full; each connects, acknowledges what it
// gets, never says hello, and reconnects as soon as it is dropped (hello timeout, or
// evicted for a newcomer).
static void attack_full_table(int port, int seconds) {
  hold_peers(port, seconds, HOSTAGE_PEERS, 80, HOSTAGE_ADDRESSES, NULL);
}

// W3: with the table held full by hostages, each honest newcomer still joins within 1 s
// (a peer without a hello from the busiest address makes room) and plays.
static void test_abuse_full_table_makes_room(void** state) {
  (void)state;
  tc_server s;
  watch w;
  attack_run run = start_watched_attack(&s, &w, attack_full_table, 9);
  // Bounded wait for the table to fill (handshakes in progress count too).
  double held = 0;
  uint64_t end = tc_now_ms() + 4000;
  while (tc_now_ms() < end) {
    tc_sleep_ms(100);
    held = metric(&s, "arbiter_peers_connected") + metric(&s, "arbiter_half_open_peers");
    if (held >= (double)HOSTAGE_PEERS) break;
  }
  print_message("full table: %.0f hostage peers held\n", held);
  assert_true(held >= (double)HOSTAGE_PEERS);
  honest h;
  honest_init(&h);
  while (h.joined < HONEST) {
    join_one(&h, &s, LOCKOUT_JOIN_LIMIT_MS);
    play_and_check_snapshots(&h, 400);
  }
  double evicted = metric(&s, "arbiter_peers_evicted_total");
  print_message("full table: honest joins <= %llu ms, %.0f hostages evicted\n",
                (unsigned long long)h.worst_join_ms, evicted);
  assert_true(evicted >= (double)HONEST);
  int status = play_until_exit(&h, run.child);
  assert_true(WIFEXITED(status));
  // The hostages vanished with the child: their sessions end (hello timeout, then the
  // close grace) and every count comes back to the honest clients alone, evicted and
  // reset peers counted once.
  double peers = NAN;
  end = tc_now_ms() + 5000 + 1000 + 1500;
  snap_mark m;
  snap_begin(&m, h.c, h.joined);
  uint64_t after_start = tc_now_ms();
  while (tc_now_ms() < end) {
    pump_joined(&h, 100);
    peers = metric(&s, "arbiter_peers_connected");
    if (peers == (double)HONEST && tc_now_ms() - after_start >= 400) break;
  }
  snap_check(&h.snaps, &m, h.c, h.joined);
  print_message("full table: peers back to %.0f after the attack\n", peers);
  assert_true(peers == (double)HONEST);
  assert_true(metric(&s, "arbiter_clients_connected") == (double)HONEST);
  play_and_check_snapshots(&h, 500);
  watch_stop(&w, "full table", 20);
  report_four("full table (W3)", &h, &w);
  honest_free(&h);
  stop_server(&s);
}

// ---- lock-out by rejoin holds (W2) ---------------------------------------------

#define W2_ATTACK_SECONDS 10
#define W2_ATTACKER_IP "127.0.0.90"
#define W2_HONEST 8  // from 127.0.0.91 .. 98

// One W2 cycle from `ip`: gate, connect, hello, welcome, then ENet disconnect with code 0
// (what a lost connection looks like) and nothing more. True when it was welcomed.
static bool w2_cycle(const char* ip, int port) {
  tc_client* c = tc_create();
  bool welcomed = false;
  if (c != NULL && tc_start_from(c, ip, (uint16_t)port, "w2", ARB_PROTO_VERSION) == 0) {
    uint64_t end = tc_now_ms() + 2000;
    while (c->state != TC_WELCOMED && c->state != TC_REJECTED && c->state != TC_DISCONNECTED &&
           tc_now_ms() < end)
      tc_service(c, 1);
    welcomed = c->state == TC_WELCOMED;
    if (c->peer != NULL && c->state != TC_DISCONNECTED) {
      enet_peer_disconnect(c->peer, 0);
      end = tc_now_ms() + 300;
      while (c->peer != NULL && c->state != TC_DISCONNECTED && tc_now_ms() < end) tc_service(c, 1);
    }
  }
  if (c != NULL) tc_destroy(c);
  return welcomed;
}

static void attack_rejoin_holds(int port, int seconds) {
  uint64_t end = tc_now_ms() + (uint64_t)seconds * 1000u;
  while (tc_now_ms() < end) w2_cycle(W2_ATTACKER_IP, port);
}

// Raises *peak_held to the rejoin holds the server keeps now and *peak_avatars to its
// avatars (connected clients plus held ones).
static void sample_avatars(const tc_server* s, double* peak_avatars, double* peak_held) {
  double held = metric(s, "arbiter_rejoins_pending");
  double avatars = metric(s, "arbiter_clients_connected") + held;
  if (held > *peak_held) *peak_held = held;
  if (avatars > *peak_avatars) *peak_avatars = avatars;
}

// W2: one address cycles connect, hello, welcome, disconnect-with-0 as fast as the gate
// lets it for 10 s (each cycle used to hold an avatar and a player slot for the 10 s
// rejoin window: 60 of 60 free slots full within ~6 s, honest joins refused "server
// full"). A session that never played is not held, so 8 honest clients from other
// addresses, joining in the second half of the attack, each get in within 1 s, and the
// avatars in the world (players connected + held) stay at the honest clients plus the
// attacker's one live session. The attacker's own address is not tested for honest joins:
// the attacker spends that address's whole gate budget (10 connections/s), which every
// client behind it shares by design (the per-address rate limit, not a rejoin hold).
static void test_abuse_rejoin_holds_bounded(void** state) {
  (void)state;
  tc_server s;
  watch w;
  attack_run run = start_watched_attack(&s, &w, attack_rejoin_holds, W2_ATTACK_SECONDS);
  honest h;
  honest_init_n(&h, W2_HONEST, NULL);
  double peak_avatars = 0, peak_held = 0;
  uint64_t next_sample = 0;
  // Let the attack run half its time (the slots used to be full after ~6 s), sampling.
  while (tc_now_ms() - run.t0 < 5000) {
    tc_sleep_ms(100);
    sample_avatars(&s, &peak_avatars, &peak_held);
  }
  while (h.joined < W2_HONEST) {
    char ip[32];
    snprintf(ip, sizeof ip, "127.0.0.%d", 91 + h.joined);
    join_one_from(&h, &s, ip, LOCKOUT_JOIN_LIMIT_MS);
    // Play a moment before the next join, sampling the avatars.
    snap_mark m;
    snap_begin(&m, h.c, h.joined);
    uint64_t until = tc_now_ms() + 400;
    while (tc_now_ms() < until) {
      pump_joined(&h, 50);
      if (tc_now_ms() >= next_sample) {
        sample_avatars(&s, &peak_avatars, &peak_held);
        next_sample = tc_now_ms() + 100;
      }
    }
    snap_check(&h.snaps, &m, h.c, h.joined);
  }
  int status = play_until_exit(&h, run.child);
  assert_true(WIFEXITED(status));
  double cycles = metric(&s, "arbiter_clients_joined_total") - W2_HONEST;
  print_message(
      "rejoin holds: %.0f attacker cycles from one address in %d s; honest joins <= %llu ms; "
      "peak avatars %.0f (held %.0f)\n",
      cycles, W2_ATTACK_SECONDS, (unsigned long long)h.worst_join_ms, peak_avatars, peak_held);
  assert_true(cycles >= 20.0);  // the attack ran at its cost
  assert_true(peak_held == 0.0);
  assert_true(peak_avatars <= W2_HONEST + 2.0);  // + the attacker's live session (or two)
  watch_stop(&w, "rejoin holds", 20);
  report_four("rejoin holds (W2)", &h, &w);
  close_all(h.c, W2_HONEST);
  stop_server(&s);
}

// What an address holds counts against one budget (--peers-per-address, 4 here): players
// from one address that played (3 s) and then disconnect with code 0 are held, at most as
// many as the budget; a newcomer from that address is not refused for the holds: the
// oldest hold leaves to make room for it.
#define BUDGET_IP "127.0.0.89"
static void test_abuse_rejoin_holds_count_against_address(void** state) {
  (void)state;
  tc_server s;
  START_SERVER(&s, "--peers-per-address", "4");
  tc_client* c[4];
  for (int i = 0; i < 4; ++i) {
    char name[32];
    snprintf(name, sizeof name, "player-%d", i);
    assert_non_null(c[i] = tc_create());
    assert_int_equal(tc_start_from(c[i], BUDGET_IP, (uint16_t)s.port, name, ARB_PROTO_VERSION), 0);
  }
  assert_int_equal(tc_wait_settled(c, 4, 3000), 4);
  drive(c, 4, NULL, 3000);  // played: past SV_REJOIN_MIN_PLAY_MS
  for (int i = 0; i < 4; ++i) {
    enet_peer_disconnect(c[i]->peer, 0);  // "lost": code 0
    uint64_t end = tc_now_ms() + 500;
    while (c[i]->peer != NULL && c[i]->state != TC_DISCONNECTED && tc_now_ms() < end)
      tc_service(c[i], 1);
    tc_destroy(c[i]);
  }
  tc_sleep_ms(100);
  double held = metric(&s, "arbiter_rejoins_pending");
  print_message("address budget 4: %.0f avatars held after 4 players lost\n", held);
  assert_true(held == 4.0);
  tc_client* late = tc_create();
  uint64_t t0 = tc_now_ms();
  assert_int_equal(tc_start_from(late, BUDGET_IP, (uint16_t)s.port, "late", ARB_PROTO_VERSION), 0);
  assert_int_equal(tc_wait_settled(&late, 1, 2000), 1);
  uint64_t took = tc_now_ms() - t0;
  held = metric(&s, "arbiter_rejoins_pending");
  double released = metric(&s, "arbiter_rejoin_holds_released_total");
  print_message("address budget 4: newcomer joined in %llu ms; %.0f held, %.0f released\n",
                (unsigned long long)took, held, released);
  assert_true(took <= LOCKOUT_JOIN_LIMIT_MS);
  assert_true(held == 3.0);
  assert_true(released == 1.0);
  close_all(&late, 1);
  stop_server(&s);
}

// ---- fragment starts that pass the datagram check (W6) --------------------------

#define W6_PEERS 124    // the cost: 124 peers
#define W6_ADDRESSES 8  // 127.0.0.100 .. ; at most 16 peers each (the per-address cap)
#define W6_STARTS 20    // packets started per connection (ENet's 64 KiB waiting cap: 16)
#define W6_SECONDS 9    // past the hello timeout (5 s) + close grace (1 s): peers recycle
#define W6_ATTACKER_BASE 100

// W6's attacker, in a child: 124 peers pass the gate and connect like a real client, keep
// acknowledging what they get (never a hello), and on each connection start W6_STARTS
// packets of 4096 bytes announced in 2 fragments, sending only fragment 0 (100 bytes of
// it): fields the datagram check accepts. A peer dropped by the hello timeout connects
// again and starts over, so the attack lasts as long as the child does.
static void start_fragments(ENetHost* host) {
  for (uint16_t k = 1; k <= W6_STARTS; ++k) send_fragment_start(host, k, 2);
}
static void attack_fragment_starts(int port, int seconds) {
  hold_peers(port, seconds, W6_PEERS, W6_ATTACKER_BASE, W6_ADDRESSES, start_fragments);
}

// W6: ENet allocates a whole packet on its first fragment, so 124 peers each starting
// 4096-byte packets took the server from 3.9 to 12.8 MB (ENet's 64 KiB waiting cap per
// peer). Fragment starts are now paid for (sv_net.h): the server's RSS stays under twice
// its idle value through the attack, while honest clients join within 1 s each and keep
// their snapshots.
static void test_abuse_fragment_starts_bounded(void** state) {
  (void)state;
  tc_server s;
  honest h;
  watch w;
  start_played_server(&s, &h, &w, NULL, LOCKOUT_JOIN_LIMIT_MS, 200);
  long idle_kb = w.idle_kb;
  pid_t child = start_attack(attack_fragment_starts, s.port, W6_SECONDS);
  // Bounded wait for the attackers to be in (and their fragments sent).
  double peers = 0;
  uint64_t end = tc_now_ms() + 4000;
  snap_mark m;
  snap_begin(&m, h.c, h.joined);
  while (tc_now_ms() < end && peers < (double)W6_PEERS) {
    pump_joined(&h, 100);
    peers = metric(&s, "arbiter_peers_connected");
  }
  pump_joined(&h, 300);
  snap_check(&h.snaps, &m, h.c, h.joined);
  long held_kb = rss_kb(s.pid);  // while the first wave of attackers is held
  print_message("fragment starts: %.0f peers connected, RSS idle %ld KiB, held %ld KiB\n", peers,
                idle_kb, held_kb);
  assert_true(peers >= (double)(W6_PEERS - W6_ADDRESSES));
  while (h.joined < HONEST) {
    join_one(&h, &s, LOCKOUT_JOIN_LIMIT_MS);
    play_and_check_snapshots(&h, 400);
  }
  int status = play_until_exit(&h, child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  long after_kb = rss_kb(s.pid);
  play_and_check_snapshots(&h, 500);
  watch_stop(&w, "fragment starts", 20);
  print_message(
      "fragment starts: RSS after %ld KiB; %.0f datagrams dropped over the fragment budget\n",
      after_kb, metric(&s, "arbiter_datagrams_dropped_total{reason=\"fragment_budget\"}"));
  report_four("fragment starts (W6)", &h, &w);
  honest_free(&h);
  stop_server(&s);
}

// ---- forged gate requests (W5) ------------------------------------------------

// On loopback any process may send from any 127.0.0.x address, so a child sending from the
// victim's IP and never reading what comes back is a forger (it sees none of the
// challenges, as a spoofer would not).
#define W5_VICTIM_IP "127.0.0.77"
#define W5_ATTACK_SECONDS 60  // at most: the test stops it when its joins are done
#define W5_HONEST 5

static void attack_forged_requests(int port, int seconds) {
  int fds[8];
  for (int i = 0; i < 8; ++i)
    if ((fds[i] = udp_socket_from(W5_VICTIM_IP)) < 0) _exit(2);
  uint8_t buf[ARB_GATE_REQUEST_SIZE];
  arb_gate_msg m;
  memset(&m, 0, sizeof m);
  m.kind = ARB_GATE_REQUEST;
  m.proto_version = ARB_PROTO_VERSION;
  uint64_t end = tc_now_ms() + (uint64_t)seconds * 1000u;
  for (uint64_t k = 0; tc_now_ms() < end; ++k) {  // 40 a second (2.5 KB/s), the cost
    m.nonce = 0xF0F0000000000000ull + k;
    int len = arb_gate_encode(&m, buf, sizeof buf);
    send_to_server(fds[k % 8], port, buf, (size_t)len);
    tc_sleep_ms(25);
  }
  for (int i = 0; i < 8; ++i) close(fds[i]);
}

// W5: 40 gate requests a second forged "from" the victim's address used to spend its gate
// budget (4 of 5 honest joins from it failed). Requests now cost no address anything, so
// 5 clients from that address, joining one after another during the attack, each get in
// within 1 s, and no datagram is dropped for the address's rate. (Against the old gate: 2
// of 5, the other 3 did not pass the gate in 3 s.) The forger runs until the joins are done.
static void test_abuse_forged_requests_spend_no_budget(void** state) {
  (void)state;
  tc_server s;
  watch w;
  attack_run run = start_watched_attack(&s, &w, attack_forged_requests, W5_ATTACK_SECONDS);
  tc_sleep_ms(2000);  // the old budget (burst 40) is spent by now
  honest h;
  honest_init_n(&h, W5_HONEST, W5_VICTIM_IP);
  while (h.joined < W5_HONEST) {
    join_one(&h, &s, LOCKOUT_JOIN_LIMIT_MS);
    play_and_check_snapshots(&h, 600);
  }
  uint64_t attacked_ms = tc_now_ms() - run.t0;
  kill(run.child, SIGTERM);
  int status = 0;
  waitpid(run.child, &status, 0);
  double challenges = metric(&s, "arbiter_gate_challenges_total");
  double limited = metric(&s, "arbiter_datagrams_dropped_total{reason=\"rate_limited\"}");
  print_message(
      "forged requests: %d of %d joins from the forged address within %d ms (slowest "
      "%llu ms); %.0f challenges sent in %.1f s, %.0f datagrams dropped for the "
      "address's rate\n",
      h.joined, W5_HONEST, LOCKOUT_JOIN_LIMIT_MS, (unsigned long long)h.worst_join_ms, challenges,
      (double)attacked_ms / 1000.0, limited);
  assert_true(challenges >= 40.0 * ((double)attacked_ms / 1000.0 - 1.0) * 0.8);  // at its cost
  assert_int_equal(h.joined, W5_HONEST);
  assert_true(limited == 0.0);
  watch_stop(&w, "forged requests", 20);
  report_four("forged requests (W5)", &h, &w);
  close_all(h.c, W5_HONEST);
  stop_server(&s);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_abuse_spoofed_source_gets_no_amplification),
                 cmocka_unit_test(test_abuse_half_open_expire_and_per_address_cap),
                 cmocka_unit_test(test_abuse_connect_flood),
                 cmocka_unit_test(test_abuse_hostage_peers),
                 cmocka_unit_test(test_abuse_fragment_bomb),
                 cmocka_unit_test(test_abuse_silent_peers_free_their_slots),
                 cmocka_unit_test(test_abuse_full_table_makes_room),
                 cmocka_unit_test(test_abuse_rejoin_holds_bounded),
                 cmocka_unit_test(test_abuse_rejoin_holds_count_against_address),
                 cmocka_unit_test(test_abuse_fragment_starts_bounded),
                 cmocka_unit_test(test_abuse_forged_requests_spend_no_budget))
