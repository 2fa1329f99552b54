// Connect-token checks (see sv_auth.h).
#include "sv_auth.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBES 16

int sv_auth_init(sv_auth* a, const char* key_path, const char* public_address, const char* bind,
                 char* err, size_t err_cap) {
  memset(a, 0, sizeof *a);
  if (key_path[0] == '\0') return 0;
  char why[300];
  if (arb_token_load_key(key_path, a->key, why, sizeof why) != 0) {
    snprintf(err, err_cap, "--auth-key: %s", why);
    return -1;
  }
  char addr[96];
  snprintf(addr, sizeof addr, "%s:1", bind);
  if (public_address[0] != '\0') snprintf(addr, sizeof addr, "%s", public_address);
  if (arb_token_parse_address(addr, &a->public_address) != 0) {
    snprintf(err, err_cap, "--public-address: \"%s\" is not IPV4:PORT", public_address);
    return -1;
  }
  if (public_address[0] == '\0') a->public_address.port = 0;  // the bound port, set later
  a->used = calloc(SV_AUTH_USED_SLOTS, sizeof *a->used);
  if (a->used == NULL) {
    snprintf(err, err_cap, "out of memory");
    return -1;
  }
  a->enabled = true;
  return 0;
}

void sv_auth_set_port(sv_auth* a, uint16_t port) {
  if (a->public_address.port == 0) a->public_address.port = port;
}

void sv_auth_free(sv_auth* a) {
  free(a->used);
  sodium_memzero(a->key, sizeof a->key);
  memset(a, 0, sizeof *a);
}

static bool for_this_server(const sv_auth* a, const arb_token* t) {
  static const uint8_t any[4] = {0, 0, 0, 0};
  bool any_ip = memcmp(a->public_address.ip, any, 4) == 0;
  for (int i = 0; i < t->address_count; ++i)
    if (t->addresses[i].port == a->public_address.port &&
        (any_ip || memcmp(t->addresses[i].ip, a->public_address.ip, 4) == 0))
      return true;
  return false;
}

// Remember the token's id until it expires. REUSED if it is there, BUSY if no room.
static sv_auth_result mark_used(sv_auth* a, const arb_token* t, uint64_t now_s) {
  uint64_t h = 0;
  memcpy(&h, t->token_id, sizeof h);
  sv_auth_used* free_slot = NULL;
  for (int i = 0; i < PROBES; ++i) {
    sv_auth_used* u = &a->used[(h + (uint64_t)i) % SV_AUTH_USED_SLOTS];
    bool live = u->expires_at > now_s;
    if (live && memcmp(u->id, t->token_id, ARB_TOKEN_ID_BYTES) == 0) return SV_AUTH_REUSED;
    if (!live && free_slot == NULL) free_slot = u;
  }
  if (free_slot == NULL) return SV_AUTH_BUSY;
  memcpy(free_slot->id, t->token_id, ARB_TOKEN_ID_BYTES);
  free_slot->expires_at = t->expires_at;
  return SV_AUTH_OK;
}

sv_auth_result sv_auth_check(sv_auth* a, const uint8_t* token, size_t len, uint64_t now_s,
                             arb_token* out) {
  if (len == 0) return SV_AUTH_MISSING;
  if (arb_token_open((const char*)token, len, a->key, out) != 0) return SV_AUTH_INVALID;
  if (out->expires_at <= now_s) return SV_AUTH_EXPIRED;
  if (!for_this_server(a, out)) return SV_AUTH_WRONG_SERVER;
  return mark_used(a, out, now_s);
}

// Each result's name (metrics labels, logs) and the text a refused client is shown.
static const struct {
  const char* name;
  const char* text;
} results[] = {
    [SV_AUTH_OK] = {"ok", "ok"},
    [SV_AUTH_MISSING] = {"missing", "this server requires a connect token"},
    [SV_AUTH_INVALID] = {"invalid", "connect token is not valid"},
    [SV_AUTH_EXPIRED] = {"expired", "connect token has expired"},
    [SV_AUTH_WRONG_SERVER] = {"wrong_server", "connect token is not for this server"},
    [SV_AUTH_REUSED] = {"reused", "connect token was already used"},
    [SV_AUTH_BUSY] = {"busy", "too many connect tokens in use; try again"},
};
_Static_assert(sizeof results / sizeof results[0] == SV_AUTH_RESULT_COUNT,
               "one row per sv_auth_result");

const char* sv_auth_result_name(sv_auth_result r) {
  return (unsigned)r < SV_AUTH_RESULT_COUNT ? results[r].name : "unknown";
}

const char* sv_auth_result_text(sv_auth_result r) {
  return (unsigned)r < SV_AUTH_RESULT_COUNT ? results[r].text : "ok";
}
