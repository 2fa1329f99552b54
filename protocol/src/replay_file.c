// Reading a replay log file into memory (arbiter/replay_log.h), for the tools that open
// one: arbiter-replay and the viewer.
#include <arbiter/replay_log.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// 16 GiB, or half the address space of a 32-bit build: far beyond any log a tool could
// re-simulate or show in a session. (A size_t constant 1 << 34 is 0 on 32-bit platforms.)
#define ARB_REPLAY_MAX_FILE ((uint64_t)1 << 34)

int arb_replay_read_file(const char* path, uint8_t** data, size_t* len, char* err, size_t cap) {
  *data = NULL;
  *len = 0;
  bool is_stdin = strcmp(path, "-") == 0;
  FILE* fp = is_stdin ? stdin : fopen(path, "rb");
  if (!fp) {
    snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
    return ARB_E_IO;
  }
  size_t n = 0, size = 1 << 16;
  uint8_t* buf = malloc(size);
  bool too_big = false;
  while (buf) {
    n += fread(buf + n, 1, size - n, fp);
    if (n < size) break;
    if ((uint64_t)size >= ARB_REPLAY_MAX_FILE || size > SIZE_MAX / 2) {
      too_big = true;
      break;
    }
    uint8_t* bigger = realloc(buf, size * 2);
    if (!bigger) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    size *= 2;
  }
  int io_error = ferror(fp) ? errno : 0;
  if (!is_stdin) fclose(fp);
  if (!buf || io_error || too_big) {
    free(buf);
    if (too_big)
      snprintf(err, cap, "%s: larger than %zu MiB, the most a replay log may be", path, size >> 20);
    else if (io_error)
      snprintf(err, cap, "%s: read error: %s", path, strerror(io_error));
    else
      snprintf(err, cap, "%s: out of memory", path);
    return too_big ? ARB_E_TOO_BIG : io_error ? ARB_E_IO : ARB_E_NOMEM;
  }
  *data = buf;
  *len = n;
  return ARB_OK;
}
