// Fuzz target: any bytes as the header of an HTTP request to the server's /healthz and
// /metrics listener (sv_http_parse_request, the only code that reads them). The parser must
// answer 0, 400 or 405, and on success leave a GET/HEAD/POST method and a NUL-terminated path
// without a query string. Built as fuzz-http in the fuzz preset; otherwise the same
// function runs over the seed corpus (test_fuzz_http_corpus, with corpus_main.c).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_http.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The listener never holds more than SV_HTTP_MAX_REQUEST bytes, NUL-terminated.
  char header[SV_HTTP_MAX_REQUEST + 1];
  if (size > SV_HTTP_MAX_REQUEST) size = SV_HTTP_MAX_REQUEST;
  memcpy(header, data, size);
  header[size] = '\0';
  sv_http_request req;
  int rc = sv_http_parse_request(header, &req);
  if (rc != 0 && rc != 400 && rc != 405) abort();
  if (memchr(req.method, '\0', sizeof req.method) == NULL) abort();
  if (memchr(req.path, '\0', sizeof req.path) == NULL) abort();
  if (memchr(req.authorization, '\0', sizeof req.authorization) == NULL) abort();
  if (rc == 0) {
    if (req.head ? strcmp(req.method, "HEAD") != 0
                 : (strcmp(req.method, "GET") != 0 && strcmp(req.method, "POST") != 0))
      abort();
    if (strchr(req.path, '?') != NULL) abort();
  }
  return 0;
}
