// Replay-log file writer: whole records are appended to a memory buffer and written out
// by sv_record_flush (the server calls it at least every half second) and when the buffer
// fills; sv_record_close flushes and fsyncs. Because only whole records are ever handed to
// write(), a kill -9 leaves a file that reads back up to its last whole record and loses
// at most the unflushed half second. The record encoding is the protocol's (protocol.h).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SV_RECORD_BUFFER (256 * 1024)

typedef struct sv_record {
  int fd;               ///< -1 when closed
  char path[1200];      ///< the file actually written
  uint8_t* buf;         ///< SV_RECORD_BUFFER bytes
  size_t len;
  uint64_t bytes_total; ///< bytes handed to sv_record_append
  int error;            ///< sticky errno of the first failed write, 0 = fine
} sv_record;

/// `target` is a file (created or truncated) or an existing directory, in which a new file
/// arbiter-YYYYmmdd-HHMMSS-PID.arbrec is created. Returns 0 or -1 with a message in err.
int sv_record_open(sv_record* r, const char* target, char* err, size_t err_cap);
/// Append one whole record. Returns 0 or -1 (sticky error, see r->error).
int sv_record_append(sv_record* r, const void* data, size_t len);
/// write() the buffered records. Returns 0 or -1.
int sv_record_flush(sv_record* r);
/// Flush, fsync and close. Returns 0 or -1. Safe on a closed recorder.
int sv_record_close(sv_record* r);
