// Fuzz target: any bytes as the header of an HTTP request to the server's /healthz and
// /metrics listener (sv_http_parse_request, the only code that reads them). The parser must
// answer 0, 400 or 405, and on success leave a GET/HEAD method and a NUL-terminated path
// without a query string. Built as fuzz-http in the fuzz preset; otherwise the same
// function runs over the seed corpus (test_fuzz_http_corpus).
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
  if (rc == 0) {
    if (strcmp(req.method, req.head ? "HEAD" : "GET") != 0) abort();
    if (strchr(req.path, '?') != NULL) abort();
  }
  return 0;
}

#ifndef ARB_FUZZING
// Corpus runner: each argument is a directory of inputs.
#include <dirent.h>

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; i++) {
    DIR* d = opendir(argv[i]);
    if (!d) {
      fprintf(stderr, "test_fuzz_http_corpus: cannot open %s\n", argv[i]);
      return 1;
    }
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      FILE* f = fopen(path, "rb");
      if (!f) continue;
      static uint8_t buf[1 << 16];
      size_t n = fread(buf, 1, sizeof buf, f);
      fclose(f);
      LLVMFuzzerTestOneInput(buf, n);
      files++;
    }
    closedir(d);
  }
  printf("test_fuzz_http_corpus: %d inputs, no failure\n", files);
  return files > 0 ? 0 : 1;
}
#endif
