// Connect-token checks for hellos (--auth-key; PROTOCOL.md §3.1, docs/SECURITY.md).
// A token must open with the key, be unexpired, list this server's public address, and
// not have been used before: the ids of accepted tokens are kept until they expire, in a
// fixed table (full of unexpired ids = new tokens are refused, never an old one forgotten).
#pragma once

#include <arbiter/token.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SV_AUTH_USED_SLOTS 16384

typedef enum sv_auth_result {
  SV_AUTH_OK = 0,
  SV_AUTH_MISSING,  ///< no token in the hello
  SV_AUTH_INVALID,  ///< not a token, forged, tampered, another key
  SV_AUTH_EXPIRED,
  SV_AUTH_WRONG_SERVER,  ///< none of its addresses is this server's
  SV_AUTH_REUSED,        ///< already accepted once
  SV_AUTH_BUSY,          ///< the used-token table is full of unexpired ids
  SV_AUTH_RESULT_COUNT
} sv_auth_result;

typedef struct sv_auth_used {
  uint8_t id[ARB_TOKEN_ID_BYTES];
  uint64_t expires_at;  ///< 0 = free
} sv_auth_used;

typedef struct sv_auth {
  bool enabled;
  uint8_t key[ARB_TOKEN_KEY_BYTES];
  arb_token_address public_address;  ///< ip 0.0.0.0 = any address of this host
  sv_auth_used* used;                ///< SV_AUTH_USED_SLOTS
} sv_auth;

/// key_path "" = open server (enabled false). public_address "" = the bind address.
/// Returns 0 or -1 with a message.
int sv_auth_init(sv_auth* a, const char* key_path, const char* public_address, const char* bind,
                 char* err, size_t err_cap);
/// The UDP port actually bound (with --port 0 it is known only after binding).
void sv_auth_set_port(sv_auth* a, uint16_t port);
/// Check a hello's token at Unix time now_s; on SV_AUTH_OK *out holds it and it is used.
sv_auth_result sv_auth_check(sv_auth* a, const uint8_t* token, size_t len, uint64_t now_s,
                             arb_token* out);
const char* sv_auth_result_name(sv_auth_result r);
/// The reject text for a failed check.
const char* sv_auth_result_text(sv_auth_result r);
void sv_auth_free(sv_auth* a);
