// Gate datagrams (see arbiter/gate.h and PROTOCOL.md §1.1). Layout, little-endian:
//   0  7F FF 'A' 'R' 'B'   magic
//   5  u8  gate version (1)
//   6  u8  kind
//   7  u8  0
//   8  request: u32 proto_version, u32 0, u64 nonce, zeros to 64
//      challenge: u64 nonce, cookie[24]            (40 bytes)
//      response: u64 nonce, cookie[24], zeros to 64
//      admitted: u64 nonce                         (16 bytes)
#include <arbiter/gate.h>
#include <arbiter/state_codec.h>
#include <string.h>

static const uint8_t magic[5] = {ARB_GATE_MAGIC0, ARB_GATE_MAGIC1, 'A', 'R', 'B'};

static size_t kind_size(int kind) {
  switch (kind) {
    case ARB_GATE_REQUEST:
      return ARB_GATE_REQUEST_SIZE;
    case ARB_GATE_CHALLENGE:
      return ARB_GATE_CHALLENGE_SIZE;
    case ARB_GATE_RESPONSE:
      return ARB_GATE_RESPONSE_SIZE;
    case ARB_GATE_ADMITTED:
      return ARB_GATE_ADMITTED_SIZE;
    default:
      return 0;
  }
}

int arb_gate_is_gate(const uint8_t* data, size_t len) {
  return data != NULL && len >= sizeof magic && memcmp(data, magic, sizeof magic) == 0;
}

int arb_gate_encode(const arb_gate_msg* m, uint8_t* buf, size_t cap) {
  size_t size = kind_size((int)m->kind);
  if (size == 0) return ARB_E_INVAL;
  if (buf == NULL || cap < size) return ARB_E_NOSPACE;
  memset(buf, 0, size);
  memcpy(buf, magic, sizeof magic);
  buf[5] = ARB_GATE_VERSION;
  buf[6] = (uint8_t)m->kind;
  if (m->kind == ARB_GATE_REQUEST) {
    arb_store_le32(buf + 8, m->proto_version);
    arb_store_le64(buf + 16, m->nonce);
  } else {
    arb_store_le64(buf + 8, m->nonce);
    if (m->kind == ARB_GATE_CHALLENGE || m->kind == ARB_GATE_RESPONSE)
      memcpy(buf + 16, m->cookie, ARB_GATE_COOKIE_SIZE);
  }
  return (int)size;
}

static int all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != 0) return 0;
  return 1;
}

int arb_gate_decode(const uint8_t* data, size_t len, arb_gate_msg* out) {
  memset(out, 0, sizeof *out);
  if (!arb_gate_is_gate(data, len) || len < 8 || data[5] != ARB_GATE_VERSION || data[7] != 0)
    return ARB_E_CORRUPT;
  size_t size = kind_size(data[6]);
  if (size == 0 || len != size) return ARB_E_CORRUPT;
  out->kind = (arb_gate_kind)data[6];
  if (out->kind == ARB_GATE_REQUEST) {
    if (!all_zero(data + 12, 4) || !all_zero(data + 24, size - 24)) return ARB_E_CORRUPT;
    out->proto_version = arb_load_le32(data + 8);
    out->nonce = arb_load_le64(data + 16);
    return 0;
  }
  out->nonce = arb_load_le64(data + 8);
  if (out->kind == ARB_GATE_CHALLENGE || out->kind == ARB_GATE_RESPONSE) {
    memcpy(out->cookie, data + 16, ARB_GATE_COOKIE_SIZE);
    if (!all_zero(data + 40, size - 40)) return ARB_E_CORRUPT;
  }
  return 0;
}

void arb_gate_client_start(arb_gate_client* c, uint64_t nonce, uint32_t proto_version) {
  memset(c, 0, sizeof *c);
  c->nonce = nonce;
  c->proto_version = proto_version;
}

int arb_gate_client_next(arb_gate_client* c, uint64_t now_ms, uint8_t* out, size_t cap) {
  if (c->state == ARB_GATE_CLIENT_ADMITTED || (c->next_send_ms != 0 && now_ms < c->next_send_ms))
    return 0;
  arb_gate_msg m;
  memset(&m, 0, sizeof m);
  m.nonce = c->nonce;
  if (c->state == ARB_GATE_CLIENT_REQUESTING) {
    m.kind = ARB_GATE_REQUEST;
    m.proto_version = c->proto_version;
  } else {
    m.kind = ARB_GATE_RESPONSE;
    memcpy(m.cookie, c->cookie, sizeof m.cookie);
  }
  int n = arb_gate_encode(&m, out, cap);
  if (n > 0) c->next_send_ms = now_ms + ARB_GATE_RETRY_MS;
  return n > 0 ? n : 0;
}

int arb_gate_client_receive(arb_gate_client* c, const uint8_t* data, size_t len) {
  arb_gate_msg m;
  if (arb_gate_decode(data, len, &m) != 0 || m.nonce != c->nonce) return 0;
  if (m.kind == ARB_GATE_CHALLENGE && c->state == ARB_GATE_CLIENT_REQUESTING) {
    memcpy(c->cookie, m.cookie, sizeof c->cookie);
    c->state = ARB_GATE_CLIENT_RESPONDING;
    c->next_send_ms = 0;
    return 1;
  }
  if (m.kind == ARB_GATE_ADMITTED && c->state == ARB_GATE_CLIENT_RESPONDING) {
    c->state = ARB_GATE_CLIENT_ADMITTED;
    return 1;
  }
  return 0;
}
