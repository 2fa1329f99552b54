// The connection gate (see sv_gate.h).
#include "sv_gate.h"

#include <sodium.h>
#include <string.h>

#define PROBES 8  // slots looked at per lookup; the oldest of them is replaced when all are taken

static uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return k;
}

// The slot for key: its own, else an empty or expired one, else the stalest of the probes.
static sv_gate_slot* find_slot(sv_gate_slot* slots, size_t count, uint64_t key,
                               uint64_t expired_before, bool* found) {
  size_t base = (size_t)mix(key) & (count - 1);
  sv_gate_slot* victim = NULL;
  for (size_t i = 0; i < PROBES; ++i) {
    sv_gate_slot* s = &slots[(base + i) & (count - 1)];
    if (s->key == key) {
      *found = true;
      return s;
    }
    if (victim == NULL || s->key == 0 || s->stamp_ms < victim->stamp_ms) victim = s;
    if (s->key == 0 || s->stamp_ms < expired_before) victim = s;
  }
  *found = false;
  return victim;
}

int sv_gate_init(sv_gate* g, int attempts_per_second) {
  memset(g, 0, sizeof *g);
  if (sodium_init() < 0) return -1;
  randombytes_buf(g->key, sizeof g->key);
  g->attempts_per_second = (float)attempts_per_second;
  g->challenge_tokens = (float)SV_GATE_CHALLENGES_PER_SECOND;
  return 0;
}

// The server-wide token bucket for challenges: refills SV_GATE_CHALLENGES_PER_SECOND,
// holds 1 s worth. It is shared by everyone on purpose: a budget per destination address
// (or /24) is one a forger spends for the victim by sending requests "from" it (W5).
static bool challenge_allowed(sv_gate* g, uint64_t now_ms) {
  const float rate = (float)SV_GATE_CHALLENGES_PER_SECOND;
  if (now_ms > g->challenge_stamp_ms) {
    float refill = (float)(now_ms - g->challenge_stamp_ms) * rate / 1000.0f;
    g->challenge_tokens = g->challenge_tokens + refill > rate ? rate : g->challenge_tokens + refill;
    g->challenge_stamp_ms = now_ms;
  }
  if (g->challenge_tokens < 1.0f) return false;
  g->challenge_tokens -= 1.0f;
  return true;
}

// Token bucket per proven source IP: refills attempts_per_second, holds 2 s worth; an
// admission takes `cost`.
static bool attempt_allowed(sv_gate* g, uint32_t ip, uint64_t now_ms, float cost) {
  uint64_t key = (uint64_t)ip | (1ull << 40);  // never 0
  bool found;
  float burst = 2.0f * g->attempts_per_second;
  sv_gate_slot* s =
      find_slot(g->rate, SV_GATE_RATE_SLOTS, key, now_ms > 10000 ? now_ms - 10000 : 0, &found);
  if (!found) {
    s->key = key;
    s->tokens = burst;
    s->stamp_ms = now_ms;
  }
  float refill = (float)(now_ms - s->stamp_ms) * g->attempts_per_second / 1000.0f;
  s->tokens = s->tokens + refill > burst ? burst : s->tokens + refill;
  s->stamp_ms = now_ms;
  if (s->tokens < cost) return false;
  s->tokens -= cost;
  return true;
}

// cookie = issued seconds (u32 LE) || 4 zero bytes || BLAKE2b-128(key; ip, port, issued, nonce).
// A response must echo all 24 bytes as they were sent: the issued time is covered by the
// MAC, and the 4 zero bytes are compared too (PROTOCOL.md: the cookie is echoed byte for
// byte), so no byte of a cookie can be changed and still admit.
static void make_mac(const sv_gate* g, uint32_t ip, uint16_t port, uint32_t issued, uint64_t nonce,
                     uint8_t mac[16]) {
  uint8_t msg[18];
  memcpy(msg, &ip, 4);
  memcpy(msg + 4, &port, 2);
  for (int i = 0; i < 4; ++i) msg[6 + i] = (uint8_t)(issued >> (8 * i));
  for (int i = 0; i < 8; ++i) msg[10 + i] = (uint8_t)(nonce >> (8 * i));
  crypto_generichash(mac, 16, msg, sizeof msg, g->key, sizeof g->key);
}

static void make_cookie(const sv_gate* g, uint32_t ip, uint16_t port, uint64_t now_ms,
                        uint64_t nonce, uint8_t cookie[ARB_GATE_COOKIE_SIZE]) {
  uint32_t issued = (uint32_t)(now_ms / 1000u);
  memset(cookie, 0, ARB_GATE_COOKIE_SIZE);
  for (int i = 0; i < 4; ++i) cookie[i] = (uint8_t)(issued >> (8 * i));
  make_mac(g, ip, port, issued, nonce, cookie + 8);
}

static bool cookie_valid(const sv_gate* g, uint32_t ip, uint16_t port, uint64_t now_ms,
                         uint64_t nonce, const uint8_t cookie[ARB_GATE_COOKIE_SIZE]) {
  uint32_t issued = (uint32_t)cookie[0] | (uint32_t)cookie[1] << 8 | (uint32_t)cookie[2] << 16 |
                    (uint32_t)cookie[3] << 24;
  uint32_t now_s = (uint32_t)(now_ms / 1000u);
  if (issued > now_s || now_s - issued > SV_GATE_COOKIE_SECONDS) return false;
  uint8_t want[ARB_GATE_COOKIE_SIZE] = {0};
  memcpy(want, cookie, 4);
  make_mac(g, ip, port, issued, nonce, want + 8);
  return sodium_memcmp(want, cookie, sizeof want) == 0;
}

// Admits ip:port for the exchange `nonce`, charging ip's budget unless this exchange was
// admitted already (the client resends its response until `admitted` arrives, and someone
// on the path may replay it: neither spends the budget again nor reopens the admission).
static bool admit(sv_gate* g, uint32_t ip, uint16_t port, uint64_t nonce, uint64_t now_ms) {
  uint64_t key = ((uint64_t)ip << 16 | port) | (1ull << 56);
  bool found;
  sv_gate_slot* s = find_slot(g->admit, SV_GATE_ADMIT_SLOTS, key, now_ms, &found);
  if (found && s->stamp_ms >= now_ms && s->nonce == nonce) return true;
  if (!attempt_allowed(g, ip, now_ms, SV_GATE_ADMISSION_COST)) return false;
  // A fresh admission is for a new connection: a client that gave up on its previous
  // CONNECT (lost handshake) and passed the gate again connects with a new connectID.
  s->key = key;
  s->stamp_ms = now_ms + SV_GATE_ADMIT_MS;
  s->nonce = nonce;
  s->connect_id = 0;
  return true;
}

sv_gate_result sv_gate_on_datagram(sv_gate* g, uint32_t ip, uint16_t port, const uint8_t* data,
                                   size_t len, uint64_t now_ms, uint8_t* reply, size_t* reply_len) {
  *reply_len = 0;
  arb_gate_msg m;
  if (arb_gate_decode(data, len, &m) != 0) return SV_GATE_BAD;
  if (m.kind != ARB_GATE_REQUEST && m.kind != ARB_GATE_RESPONSE) return SV_GATE_BAD;
  arb_gate_msg out;
  memset(&out, 0, sizeof out);
  out.nonce = m.nonce;
  if (m.kind == ARB_GATE_REQUEST) {
    if (!challenge_allowed(g, now_ms)) return SV_GATE_BUSY;
    out.kind = ARB_GATE_CHALLENGE;
    make_cookie(g, ip, port, now_ms, m.nonce, out.cookie);
  } else {
    if (!cookie_valid(g, ip, port, now_ms, m.nonce, m.cookie)) return SV_GATE_BAD;
    if (!admit(g, ip, port, m.nonce, now_ms)) return SV_GATE_RATE_LIMITED;
    out.kind = ARB_GATE_ADMITTED;
  }
  int n = arb_gate_encode(&out, reply, ARB_GATE_REQUEST_SIZE);
  if (n <= 0 || (size_t)n > len) return SV_GATE_IGNORE;  // never answer with more than was sent
  *reply_len = (size_t)n;
  return SV_GATE_REPLY;
}

bool sv_gate_take_connect(sv_gate* g, uint32_t ip, uint16_t port, uint32_t connect_id,
                          uint64_t now_ms) {
  uint64_t key = ((uint64_t)ip << 16 | port) | (1ull << 56);
  bool found;
  sv_gate_slot* s = find_slot(g->admit, SV_GATE_ADMIT_SLOTS, key, now_ms, &found);
  if (!found || s->stamp_ms < now_ms) return false;
  if (s->connect_id != 0 && s->connect_id != connect_id) return false;
  s->connect_id = connect_id;
  return true;
}
