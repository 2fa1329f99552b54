// Fuzz target: connect tokens (arbiter/token.h), the text every hello may carry. Input byte
// 0 picks the mode:
//   even: the rest is token text from an attacker: arb_token_open with a fixed key must
//         return 0, ARB_E_CORRUPT or ARB_E_CHECKSUM, never read out of bounds; a token it
//         accepts must mint back to the same text's fields.
//   odd:  the rest fills an arb_token's fields (clamped to their ranges): minting with the
//         key and a fixed nonce, then opening, must give back exactly those fields, and
//         any single flipped character of the text must be refused.
#include <arbiter/base.h>
#include <arbiter/token.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static const uint8_t g_key[ARB_TOKEN_KEY_BYTES] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                   12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                                   23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const uint8_t g_nonce[ARB_TOKEN_NONCE_BYTES] = {7};

static size_t take(const uint8_t** data, size_t* size, void* out, size_t n) {
  size_t k = *size < n ? *size : n;
  memset(out, 0, n);
  memcpy(out, *data, k);
  *data += k;
  *size -= k;
  return k;
}

static void same_fields(const arb_token* a, const arb_token* b) {
  if (a->expires_at != b->expires_at || a->client_id != b->client_id ||
      memcmp(a->token_id, b->token_id, sizeof a->token_id) != 0 ||
      a->address_count != b->address_count || a->user_data_len != b->user_data_len ||
      memcmp(a->user_data, b->user_data, (size_t)a->user_data_len) != 0)
    abort();
  for (int i = 0; i < a->address_count; ++i) {
    if (memcmp(a->addresses[i].ip, b->addresses[i].ip, 4) != 0 ||
        a->addresses[i].port != b->addresses[i].port)
      abort();
  }
}

static void open_text(const uint8_t* data, size_t size) {
  arb_token t;
  int rc = arb_token_open((const char*)data, size, g_key, &t);
  if (rc != 0 && rc != ARB_E_CORRUPT && rc != ARB_E_CHECKSUM) abort();
  if (rc != 0) return;
  if (t.address_count < 1 || t.address_count > ARB_TOKEN_MAX_ADDRESSES || t.user_data_len < 0 ||
      t.user_data_len > ARB_TOKEN_MAX_USER_DATA)
    abort();
}

static void mint_and_open(const uint8_t* data, size_t size) {
  arb_token t;
  memset(&t, 0, sizeof t);
  uint8_t counts[2];
  take(&data, &size, &t.expires_at, sizeof t.expires_at);
  take(&data, &size, &t.client_id, sizeof t.client_id);
  take(&data, &size, t.token_id, sizeof t.token_id);
  take(&data, &size, counts, sizeof counts);
  t.address_count = 1 + counts[0] % ARB_TOKEN_MAX_ADDRESSES;
  for (int i = 0; i < t.address_count; ++i) {
    take(&data, &size, t.addresses[i].ip, 4);
    take(&data, &size, &t.addresses[i].port, sizeof t.addresses[i].port);
  }
  t.user_data_len = counts[1] % (ARB_TOKEN_MAX_USER_DATA + 1);
  take(&data, &size, t.user_data, (size_t)t.user_data_len);

  char text[ARB_TOKEN_MAX_TEXT + 1];
  int n = arb_token_mint(&t, g_key, g_nonce, text, sizeof text);
  if (n <= 0 || n > ARB_TOKEN_MAX_TEXT) abort();
  arb_token back;
  if (arb_token_open(text, (size_t)n, g_key, &back) != 0) abort();
  same_fields(&t, &back);
  // One changed character: a different token, refused (tampered or not a token).
  size_t at = (size_t)(t.client_id % (uint64_t)n);
  text[at] = text[at] == 'A' ? 'B' : 'A';
  if (arb_token_open(text, (size_t)n, g_key, &back) == 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    open_text(data + 1, size - 1);
  } else {
    mint_and_open(data + 1, size - 1);
  }
  return 0;
}
