// Buffered replay-log file writer (see sv_record.h).
#include "sv_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int sv_record_open(sv_record* r, const char* target, char* err, size_t err_cap) {
  memset(r, 0, sizeof *r);
  r->fd = -1;
  struct stat st;
  size_t tl = strlen(target);
  bool is_dir = (stat(target, &st) == 0 && S_ISDIR(st.st_mode));
  if (!is_dir && tl > 0 && target[tl - 1] == '/') {
    snprintf(err, err_cap, "--record: directory \"%s\" does not exist", target);
    return -1;
  }
  if (is_dir) {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char name[64];
    strftime(name, sizeof name, "arbiter-%Y%m%d-%H%M%S", &tm);
    int n = snprintf(r->path, sizeof r->path, "%s%s%s-%ld.arbrec", target, target[tl - 1] == '/' ? "" : "/", name,
                     (long)getpid());
    if (n < 0 || (size_t)n >= sizeof r->path) {
      snprintf(err, err_cap, "--record: path too long");
      return -1;
    }
  } else {
    if (tl >= sizeof r->path) {
      snprintf(err, err_cap, "--record: path too long");
      return -1;
    }
    memcpy(r->path, target, tl + 1);
  }
  r->fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (r->fd < 0) {
    snprintf(err, err_cap, "--record: cannot create \"%s\": %s", r->path, strerror(errno));
    return -1;
  }
  r->buf = malloc(SV_RECORD_BUFFER);
  if (r->buf == NULL) {
    close(r->fd);
    r->fd = -1;
    snprintf(err, err_cap, "--record: out of memory");
    return -1;
  }
  return 0;
}

static int write_all(sv_record* r, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(r->fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      r->error = errno;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int sv_record_flush(sv_record* r) {
  if (r->fd < 0 || r->error) return -1;
  if (r->len == 0) return 0;
  int rc = write_all(r, r->buf, r->len);
  r->len = 0;
  return rc;
}

int sv_record_append(sv_record* r, const void* data, size_t len) {
  if (r->fd < 0 || r->error) return -1;
  if (r->len + len > SV_RECORD_BUFFER && sv_record_flush(r) != 0) return -1;
  r->bytes_total += len;
  if (len > SV_RECORD_BUFFER) return write_all(r, data, len);  // a huge record (scene text) goes straight out
  memcpy(r->buf + r->len, data, len);
  r->len += len;
  return 0;
}

int sv_record_close(sv_record* r) {
  if (r->fd < 0) return 0;
  int rc = sv_record_flush(r);
  if (fsync(r->fd) != 0 && rc == 0) {
    r->error = errno;
    rc = -1;
  }
  if (close(r->fd) != 0 && rc == 0) rc = -1;
  r->fd = -1;
  free(r->buf);
  r->buf = NULL;
  return rc;
}
