// arbiter-token: the reference for a game backend minting connect tokens (arbiter/token.h,
// docs/SECURITY.md): make a key, mint a token, look inside one.
#include <arbiter/token.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool_args.h"

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

static const char usage[] =
    "usage: arbiter-token keygen FILE\n"
    "       arbiter-token mint --key FILE --client-id N --server IP:PORT [--server IP:PORT ...]\n"
    "                          [--expires-in SECONDS] [--user-data TEXT]\n"
    "       arbiter-token inspect --key FILE TOKEN\n"
    "\n"
    "Connect tokens let only the players your backend admits join an arbiter-server started\n"
    "with --auth-key FILE. The backend and every server share the key file.\n"
    "\n"
    "  keygen FILE          write a new random key (64 hex digits) to FILE, mode 0600;\n"
    "                       refuses to overwrite an existing file\n"
    "  mint                 print a token (base64url text, <= 256 bytes) on stdout:\n"
    "    --key FILE         the shared key\n"
    "    --client-id N      your id of the player (0..2^64-1), shown to operators\n"
    "    --server IP:PORT   a server the token is valid for, as clients reach it (1..4)\n"
    "    --expires-in S     seconds until the token expires (1..86400, default 60)\n"
    "    --user-data TEXT   up to 32 bytes handed to the server with the token\n"
    "  inspect              decrypt TOKEN with the key and print its fields as JSON\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 ok, 2 bad arguments or key file, 1 other failures (a token that does\n"
    "not open with the key).\n";

static int fail(const char* msg, const char* arg) {
  fprintf(stderr, "arbiter-token: ");
  fprintf(stderr, msg, arg);
  fprintf(stderr, "\n(see arbiter-token --help)\n");
  return 2;
}

static int keygen(const char* path) {
  uint8_t key[ARB_TOKEN_KEY_BYTES];
  randombytes_buf(key, sizeof key);
  char hex[2 * ARB_TOKEN_KEY_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, key, sizeof key);
  sodium_memzero(key, sizeof key);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    fprintf(stderr, "arbiter-token: cannot create \"%s\": %s\n", path, strerror(errno));
    return 2;
  }
  hex[2 * ARB_TOKEN_KEY_BYTES] = '\n';
  ssize_t w = write(fd, hex, sizeof hex);
  sodium_memzero(hex, sizeof hex);
  if (w != (ssize_t)sizeof hex || close(fd) != 0) {
    fprintf(stderr, "arbiter-token: cannot write \"%s\"\n", path);
    return 1;
  }
  return 0;
}

// tool_parse_u64 into a uint64_t.
static int parse_u64(const char* s, uint64_t lo, uint64_t hi, uint64_t* out) {
  unsigned long long v = 0;
  if (tool_parse_u64(s, lo, hi, &v) != 0) return -1;
  *out = (uint64_t)v;
  return 0;
}

static int mint(int argc, char** argv) {
  const char* key_path = NULL;
  arb_token t;
  memset(&t, 0, sizeof t);
  uint64_t expires_in = 60;
  bool have_client = false;
  for (int i = 0; i < argc; ++i) {
    const char* a = argv[i];
    if (i + 1 >= argc) return fail("%s needs a value", a);
    const char* v = argv[++i];
    if (!strcmp(a, "--key"))
      key_path = v;
    else if (!strcmp(a, "--client-id")) {
      if (parse_u64(v, 0, UINT64_MAX, &t.client_id) != 0)
        return fail("--client-id: \"%s\" is not an unsigned integer", v);
      have_client = true;
    } else if (!strcmp(a, "--server")) {
      if (t.address_count == ARB_TOKEN_MAX_ADDRESSES)
        return fail("at most 4 --server (got \"%s\")", v);
      if (arb_token_parse_address(v, &t.addresses[t.address_count]) != 0)
        return fail("--server: \"%s\" is not IPV4:PORT", v);
      t.address_count++;
    } else if (!strcmp(a, "--expires-in")) {
      if (parse_u64(v, 1, 86400, &expires_in) != 0)
        return fail("--expires-in: \"%s\" is not 1..86400", v);
    } else if (!strcmp(a, "--user-data")) {
      if (strlen(v) > ARB_TOKEN_MAX_USER_DATA)
        return fail("--user-data: \"%s\" is longer than 32 bytes", v);
      t.user_data_len = (int)strlen(v);
      memcpy(t.user_data, v, strlen(v));
    } else {
      return fail("unknown option \"%s\"", a);
    }
  }
  if (key_path == NULL || !have_client || t.address_count == 0)
    return fail("%s", "mint needs --key, --client-id and at least one --server");
  uint8_t key[ARB_TOKEN_KEY_BYTES];
  char err[300];
  if (arb_token_load_key(key_path, key, err, sizeof err) != 0) return fail("%s", err);
  t.expires_at = (uint64_t)time(NULL) + expires_in;
  randombytes_buf(t.token_id, sizeof t.token_id);
  char text[ARB_TOKEN_MAX_TEXT + 1];
  int n = arb_token_mint(&t, key, NULL, text, sizeof text);
  sodium_memzero(key, sizeof key);
  if (n < 0) {
    fprintf(stderr, "arbiter-token: cannot mint: %s\n", arb_strerror(n));
    return 1;
  }
  printf("%s\n", text);
  return 0;
}

static int inspect(int argc, char** argv) {
  if (argc != 3 || strcmp(argv[0], "--key") != 0)
    return fail("%s", "inspect needs --key FILE TOKEN");
  uint8_t key[ARB_TOKEN_KEY_BYTES];
  char err[300];
  if (arb_token_load_key(argv[1], key, err, sizeof err) != 0) return fail("%s", err);
  arb_token t;
  int rc = arb_token_open(argv[2], strlen(argv[2]), key, &t);
  sodium_memzero(key, sizeof key);
  if (rc != 0) {
    fprintf(stderr, "arbiter-token: %s\n",
            rc == ARB_E_CHECKSUM
                ? "the token does not open with this key (forged, tampered or another key)"
                : "not a connect token");
    return 1;
  }
  printf("{\"client_id\":%" PRIu64 ",\"expires_at\":%" PRIu64 ",\"expired\":%s,\"servers\":[",
         t.client_id, t.expires_at, t.expires_at <= (uint64_t)time(NULL) ? "true" : "false");
  for (int i = 0; i < t.address_count; ++i)
    printf("%s\"%u.%u.%u.%u:%u\"", i ? "," : "", t.addresses[i].ip[0], t.addresses[i].ip[1],
           t.addresses[i].ip[2], t.addresses[i].ip[3], t.addresses[i].port);
  printf("],\"user_data_bytes\":%d}\n", t.user_data_len);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "--version")) {
    printf("%s\n", ARB_BUILD_ID);
    return 0;
  }
  if (sodium_init() < 0) {
    fprintf(stderr, "arbiter-token: libsodium failed to initialise\n");
    return 1;
  }
  if (argc == 3 && !strcmp(argv[1], "keygen")) return keygen(argv[2]);
  if (argc >= 2 && !strcmp(argv[1], "mint")) return mint(argc - 2, argv + 2);
  if (argc >= 2 && !strcmp(argv[1], "inspect")) return inspect(argc - 2, argv + 2);
  return fail("%s", argc < 2 ? "missing command" : "unknown command or wrong arguments");
}
