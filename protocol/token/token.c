// Connect tokens (see arbiter/token.h).
#include <arbiter/state_codec.h>
#include <arbiter/token.h>
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 16  // magic, version, zeros, expires_at: the additional data
#define PUBLIC (HEADER + ARB_TOKEN_NONCE_BYTES)
#define TAG crypto_aead_xchacha20poly1305_ietf_ABYTES
#define PRIVATE_MAX \
  (8 + ARB_TOKEN_ID_BYTES + 1 + 6 * ARB_TOKEN_MAX_ADDRESSES + 1 + ARB_TOKEN_MAX_USER_DATA)
#define BINARY_MAX (PUBLIC + PRIVATE_MAX + TAG)
#define VARIANT sodium_base64_VARIANT_URLSAFE_NO_PADDING

static const uint8_t magic[4] = {'A', 'R', 'B', 'T'};

static size_t pack_private(const arb_token* t, uint8_t* p) {
  size_t n = 0;
  arb_store_le64(p, t->client_id);
  n += 8;
  memcpy(p + n, t->token_id, ARB_TOKEN_ID_BYTES);
  n += ARB_TOKEN_ID_BYTES;
  p[n++] = (uint8_t)t->address_count;
  for (int i = 0; i < t->address_count; ++i) {
    memcpy(p + n, t->addresses[i].ip, 4);
    p[n + 4] = (uint8_t)t->addresses[i].port;
    p[n + 5] = (uint8_t)(t->addresses[i].port >> 8);
    n += 6;
  }
  p[n++] = (uint8_t)t->user_data_len;
  memcpy(p + n, t->user_data, (size_t)t->user_data_len);
  return n + (size_t)t->user_data_len;
}

static int unpack_private(const uint8_t* p, size_t len, arb_token* t) {
  if (len < 8 + ARB_TOKEN_ID_BYTES + 2) return ARB_E_CORRUPT;
  size_t n = 0;
  t->client_id = arb_load_le64(p);
  n += 8;
  memcpy(t->token_id, p + n, ARB_TOKEN_ID_BYTES);
  n += ARB_TOKEN_ID_BYTES;
  t->address_count = p[n++];
  if (t->address_count < 1 || t->address_count > ARB_TOKEN_MAX_ADDRESSES ||
      len - n < 6u * (size_t)t->address_count + 1)
    return ARB_E_CORRUPT;
  for (int i = 0; i < t->address_count; ++i) {
    memcpy(t->addresses[i].ip, p + n, 4);
    t->addresses[i].port = (uint16_t)(p[n + 4] | p[n + 5] << 8);
    n += 6;
  }
  t->user_data_len = p[n++];
  if (t->user_data_len > ARB_TOKEN_MAX_USER_DATA || len - n != (size_t)t->user_data_len)
    return ARB_E_CORRUPT;
  memcpy(t->user_data, p + n, (size_t)t->user_data_len);
  return 0;
}

int arb_token_mint(const arb_token* t, const uint8_t key[ARB_TOKEN_KEY_BYTES],
                   const uint8_t nonce[ARB_TOKEN_NONCE_BYTES], char* out, size_t cap) {
  if (sodium_init() < 0) return ARB_E_IO;
  if (t->address_count < 1 || t->address_count > ARB_TOKEN_MAX_ADDRESSES || t->user_data_len < 0 ||
      t->user_data_len > ARB_TOKEN_MAX_USER_DATA)
    return ARB_E_INVAL;
  uint8_t bin[BINARY_MAX];
  memset(bin, 0, PUBLIC);
  memcpy(bin, magic, 4);
  bin[4] = 1;
  arb_store_le64(bin + 8, t->expires_at);
  if (nonce)
    memcpy(bin + HEADER, nonce, ARB_TOKEN_NONCE_BYTES);
  else
    randombytes_buf(bin + HEADER, ARB_TOKEN_NONCE_BYTES);
  uint8_t plain[PRIVATE_MAX];
  size_t plain_len = pack_private(t, plain);
  unsigned long long clen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(bin + PUBLIC, &clen, plain, plain_len, bin, HEADER,
                                             NULL, bin + HEADER, key);
  sodium_memzero(plain, sizeof plain);
  size_t bin_len = PUBLIC + (size_t)clen;
  size_t need = sodium_base64_ENCODED_LEN(bin_len, VARIANT);  // includes the NUL
  if (out == NULL || cap < need) return ARB_E_NOSPACE;
  sodium_bin2base64(out, cap, bin, bin_len, VARIANT);
  return (int)(need - 1);
}

int arb_token_open(const char* text, size_t len, const uint8_t key[ARB_TOKEN_KEY_BYTES],
                   arb_token* out) {
  memset(out, 0, sizeof *out);
  if (sodium_init() < 0) return ARB_E_IO;
  if (text == NULL || len == 0 || len > ARB_TOKEN_MAX_TEXT) return ARB_E_CORRUPT;
  uint8_t bin[BINARY_MAX];
  size_t bin_len = 0;
  const char* end = NULL;
  if (sodium_base642bin(bin, sizeof bin, text, len, NULL, &bin_len, &end, VARIANT) != 0 ||
      end != text + len)
    return ARB_E_CORRUPT;
  if (bin_len < PUBLIC + TAG || memcmp(bin, magic, 4) != 0 || bin[4] != 1 || bin[5] || bin[6] ||
      bin[7])
    return ARB_E_CORRUPT;
  uint8_t plain[PRIVATE_MAX + TAG];
  unsigned long long plain_len = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain, &plain_len, NULL, bin + PUBLIC,
                                                 bin_len - PUBLIC, bin, HEADER, bin + HEADER,
                                                 key) != 0)
    return ARB_E_CHECKSUM;
  int rc = unpack_private(plain, (size_t)plain_len, out);
  sodium_memzero(plain, sizeof plain);
  if (rc != 0) return rc;
  out->expires_at = arb_load_le64(bin + 8);
  return 0;
}

int arb_token_load_key(const char* path, uint8_t key[ARB_TOKEN_KEY_BYTES], char* err,
                       size_t err_cap) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(err, err_cap, "cannot open key file \"%s\": %s", path, strerror(errno));
    return -1;
  }
  char text[130];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
  size_t got = 0;
  if (n != 2 * ARB_TOKEN_KEY_BYTES ||
      sodium_hex2bin(key, ARB_TOKEN_KEY_BYTES, text, n, NULL, &got, NULL) != 0 ||
      got != ARB_TOKEN_KEY_BYTES) {
    snprintf(err, err_cap,
             "key file \"%s\": expected %d hex digits (arbiter-token keygen writes one)", path,
             2 * ARB_TOKEN_KEY_BYTES);
    sodium_memzero(text, sizeof text);
    return -1;
  }
  sodium_memzero(text, sizeof text);
  return 0;
}

int arb_token_parse_address(const char* s, arb_token_address* out) {
  unsigned a, b, c, d, port;
  char extra;
  if (sscanf(s, "%u.%u.%u.%u:%u%c", &a, &b, &c, &d, &port, &extra) != 5 || a > 255 || b > 255 ||
      c > 255 || d > 255 || port == 0 || port > 65535)
    return ARB_E_INVAL;
  out->ip[0] = (uint8_t)a;
  out->ip[1] = (uint8_t)b;
  out->ip[2] = (uint8_t)c;
  out->ip[3] = (uint8_t)d;
  out->port = (uint16_t)port;
  return 0;
}
