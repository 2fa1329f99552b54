// Corpus runner for ordinary test builds: links with one fuzz target's
// LLVMFuzzerTestOneInput (the same function libFuzzer drives in the fuzz preset) and runs
// it once on every file named on the command line, or in the directories named there, so
// each target's seeds pass under every ctest build, ASan+UBSan included. A failing check
// inside the target aborts, which fails the test.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Inputs above this are not fuzz seeds; refuse rather than read a huge file.
#define CORPUS_MAX_FILE (64u << 20)

// Runs one file. The input gets a heap block of exactly its size, so ASan reports any
// read past the end. Returns 0 or -1 (unreadable, too big).
static int run_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  uint8_t* buf = NULL;
  size_t len = 0, cap = 0;
  int status = 0;
  for (;;) {
    if (len == cap) {
      if (cap >= CORPUS_MAX_FILE) {
        status = -1;
        break;
      }
      cap = cap ? cap * 2 : 65536;
      uint8_t* grown = realloc(buf, cap);
      if (!grown) {
        status = -1;
        break;
      }
      buf = grown;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    if (n == 0) break;
    len += n;
  }
  fclose(f);
  if (status == 0) {
    uint8_t* exact = malloc(len ? len : 1);
    if (exact) {
      if (len) memcpy(exact, buf, len);
      LLVMFuzzerTestOneInput(exact, len);
      free(exact);
    } else {
      status = -1;
    }
  }
  free(buf);
  return status;
}

int main(int argc, char** argv) {
  int ran = 0;
  for (int i = 1; i < argc; i++) {
    DIR* d = opendir(argv[i]);
    if (!d) {
      if (run_file(argv[i]) != 0) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
        return 1;
      }
      ran++;
      continue;
    }
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      if (run_file(path) != 0) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], path);
        closedir(d);
        return 1;
      }
      ran++;
    }
    closedir(d);
  }
  if (ran == 0) {
    fprintf(stderr, "%s: no corpus inputs found\n", argv[0]);
    return 1;
  }
  printf("%d passed, 0 failed\n", ran);
  return 0;
}
