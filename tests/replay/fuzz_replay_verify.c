// libFuzzer target: arbiter-replay's whole verify path (read and index the log, load the
// recorded scene, re-simulate, compare checkpoints, localise a divergence) on arbitrary
// bytes, with --allow-truncated so damaged tails are re-simulated too. Any exit status
// is fine; a crash, a sanitizer report or a hang is not. Seeds: tests/fuzz/corpus/replay_verify.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FILE* sink;
  if (!sink) sink = fopen("/dev/null", "w");
  if (!sink) return 0;
  uint8_t* copy = malloc(size ? size : 1);  // rp_run owns its buffer
  if (!copy) return 0;
  if (size) memcpy(copy, data, size);
  rp_opts o = rp_default_opts();
  o.cmd = RP_CMD_VERIFY;
  o.allow_truncated = true;
  o.name = "fuzz";
  int status = rp_run(&o, copy, size, sink, sink);
  if (status < 0 || status > 2) abort();
  return 0;
}

#ifndef ARB_FUZZING
// Test builds: run the target over every file of the given directories (the seed corpus),
// so the harness builds and its seeds pass under ASan in `make test`.
#include <dirent.h>

static int run_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  uint8_t* buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 65536;
      uint8_t* p = realloc(buf, cap);
      if (!p) break;
      buf = p;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    if (n == 0) break;
    len += n;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 1;
}

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; i++) {
    DIR* d = opendir(argv[i]);
    if (!d) {
      fprintf(stderr, "cannot open %s\n", argv[i]);
      return 1;
    }
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      files += run_file(path);
    }
    closedir(d);
  }
  printf("%d passed, 0 failed\n", files);
  return files > 0 ? 0 : 1;
}
#endif
