// Fuzz target: any bytes as the Agones SDK server's answer to the server's HTTP client
// (sv_httpc_response_*, then sv_agones_parse_gameserver on every streamed line and on the
// collected body), the only code that reads what comes back from the sidecar. The first
// byte picks streaming or collecting and how the rest is split into reads. The parser must
// end complete or in error, within its limits. Built as fuzz-agones-response in the fuzz
// preset; otherwise the same function runs over the seed corpus.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sv_agones.h"
#include "sv_http_client.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void on_line(void* user, const char* line, size_t len) {
  (void)user;
  if (memchr(line, '\n', len) != NULL) abort();
  sv_agones_gameserver gs;
  char err[160];
  if (sv_agones_parse_gameserver(line, len, &gs, err, sizeof err) == 0) {
    if (gs.annotation_count < 0 || gs.annotation_count > SV_AGONES_MAX_ANNOTATIONS) abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  bool stream = data[0] & 1;
  size_t step = 1 + (data[0] >> 1);
  data++, size--;
  sv_httpc_response r;
  if (sv_httpc_response_init(&r, stream ? on_line : NULL, NULL) != 0) return 0;
  int rc = 0;
  for (size_t pos = 0; pos < size && rc == 0; pos += step)
    rc = sv_httpc_response_feed(&r, (const char*)data + pos, size - pos < step ? size - pos : step);
  if (rc == 0) rc = sv_httpc_response_eof(&r);
  if (rc != 1 && rc != -1) abort();
  if (r.body_len > SV_HTTPC_MAX_BODY || r.body[r.body_len] != '\0') abort();
  if (rc == 1 && !stream) on_line(NULL, r.body, strcspn(r.body, "\n"));
  sv_httpc_response_free(&r);
  return 0;
}
