// arbiter — connect tokens (PROTOCOL.md §3.1, docs/SECURITY.md). A game backend that
// shares a secret key with its servers mints a token for one player and one or more
// servers; the client puts it in its hello; the server opens it with the key and checks
// expiry, its own address and single use. Library arbiter_token (links libsodium); the
// wire protocol library and the client library do not need it: to them a token is text.
//
// A token is printable base64url text (no padding, at most ARB_TOKEN_MAX_TEXT bytes) of:
//   public, authenticated:  "ARBT" | u8 version 1 | 3 zero bytes | u64 expires_at (LE)
//                           | 24-byte nonce
//   encrypted (XChaCha20-Poly1305-IETF, key 32 bytes, additional data = the first 16
//   bytes): u64 client_id | 16-byte token_id | u8 n | n x (4-byte IPv4, u16 port LE)
//           | u8 user_data_len | user_data ... | 16-byte tag
#pragma once

#include <arbiter/base.h>
#include <stddef.h>
#include <stdint.h>

ARB_C_BEGIN

#define ARB_TOKEN_KEY_BYTES 32
#define ARB_TOKEN_NONCE_BYTES 24
#define ARB_TOKEN_ID_BYTES 16
#define ARB_TOKEN_MAX_ADDRESSES 4
#define ARB_TOKEN_MAX_USER_DATA 32
#define ARB_TOKEN_MAX_TEXT 256  ///< = ARB_PROTO_MAX_TOKEN: fits a hello

typedef struct arb_token_address {
  uint8_t ip[4];  ///< a.b.c.d as ip[0..3]
  uint16_t port;
} arb_token_address;

typedef struct arb_token {
  uint64_t expires_at;  ///< Unix seconds; the server refuses the token from then on
  uint64_t client_id;   ///< the backend's id of the player (logged, listed to operators)
  uint8_t token_id[ARB_TOKEN_ID_BYTES];  ///< random; a server accepts each token once
  int address_count;  ///< 1..ARB_TOKEN_MAX_ADDRESSES servers the token is valid for
  arb_token_address addresses[ARB_TOKEN_MAX_ADDRESSES];
  int user_data_len;  ///< 0..ARB_TOKEN_MAX_USER_DATA opaque bytes for the game
  uint8_t user_data[ARB_TOKEN_MAX_USER_DATA];
} arb_token;

/// Encrypt t into token text (NUL-terminated) in out. nonce must never repeat for a key:
/// pass NULL for a random one. Returns the text length, ARB_E_INVAL (a field out of
/// range), ARB_E_NOSPACE or ARB_E_IO (libsodium failed to initialise).
int arb_token_mint(const arb_token* t, const uint8_t key[ARB_TOKEN_KEY_BYTES],
                   const uint8_t nonce[ARB_TOKEN_NONCE_BYTES], char* out, size_t cap);
/// Decode and decrypt token text. Returns 0, ARB_E_CORRUPT (not a token: bad text, size,
/// magic, version or fields) or ARB_E_CHECKSUM (forged, tampered or another key).
/// Expiry, address and single use are the caller's checks.
int arb_token_open(const char* text, size_t len, const uint8_t key[ARB_TOKEN_KEY_BYTES],
                   arb_token* out);
/// Read a key file: 64 hex digits, optional trailing newline. 0, or -1 with a message.
int arb_token_load_key(const char* path, uint8_t key[ARB_TOKEN_KEY_BYTES], char* err,
                       size_t err_cap);
/// Parse "a.b.c.d:port". 0 or ARB_E_INVAL.
int arb_token_parse_address(const char* s, arb_token_address* out);

ARB_C_END
