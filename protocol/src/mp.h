// Internal: the bounded msgpack reader all decoders use, and the writer glue that lets
// msgpack-c's packer write into a caller buffer.
//
// Why our own reader: msgpack-c's unpacker allocates per *claimed* element before it
// checks that the bytes exist (a 40-byte packet can ask for 4 GiB) and builds a zone per
// call. Our decoders know the schema, so they pull one value at a time from a cursor:
// every count is checked against the remaining bytes and the protocol limits before it
// is used, nothing is allocated, and nesting is bounded by the schema itself (a value of
// the wrong type is an error, never descended into).
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include <arbiter/protocol.h>

// ---- reader ------------------------------------------------------------------------------

/// Decode context: cursor + where we are, for error messages. Failures are formatted once,
/// when they happen; the success path never formats anything.
typedef struct arb__dec {
  const uint8_t* p;
  size_t len;
  size_t pos;
  arb_proto_error* err;
  const char* msg;       ///< "snapshot", "replay tick", ...
  const char* list;      ///< NULL, or the list being read ("changed")
  int index;             ///< element of `list`
  uint32_t id;           ///< entity/client id of that element when known, else 0
  const char* id_label;  ///< "entity", "client"
} arb__dec;

void arb__dec_init(arb__dec* d, const uint8_t* p, size_t len, arb_proto_error* err,
                   const char* msg);
/// Format "<msg>: [<list>[i] (<label> id) ]field '<field>': <why>" into d->err; returns code.
int arb__dec_fail(arb__dec* d, int code, const char* field, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/// Msgpack type name of the value at the cursor ("int", "str", "array", "end of input"...).
const char* arb__dec_type_name(const arb__dec* d);

int arb__dec_array(arb__dec* d, const char* field, uint32_t min, uint32_t max, uint32_t* n);
int arb__dec_uint(arb__dec* d, const char* field, uint64_t min, uint64_t max, uint64_t* out);
int arb__dec_int(arb__dec* d, const char* field, int64_t min, int64_t max, int64_t* out);
/// Accepts int, float32 and float64; rejects NaN/Inf and values outside [lo, hi].
int arb__dec_float(arb__dec* d, const char* field, double lo, double hi, float* out);
int arb__dec_str(arb__dec* d, const char* field, uint32_t max, const uint8_t** s, uint32_t* n);
int arb__dec_bin(arb__dec* d, const char* field, uint32_t max, const uint8_t** s, uint32_t* n);
/// The whole input must be consumed.
int arb__dec_end(arb__dec* d);

/// Copy a str into a NUL-terminated buffer after checking it is UTF-8 without NUL bytes
/// (and, when no_control, without control characters).
int arb__dec_text(arb__dec* d, const char* field, uint32_t min, uint32_t max, bool no_control,
                  char* out);

static inline int arb__dec_u32(arb__dec* d, const char* field, uint32_t min, uint32_t max,
                               uint32_t* out) {
  uint64_t v = 0;  // written on every path: keeps -O2 -Wmaybe-uninitialized quiet in callers
  int rc = arb__dec_uint(d, field, min, max, &v);
  *out = (uint32_t)v;
  return rc;
}

/// true when s[0..n) is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF) without NUL
/// and, when no_control, without C0 controls or DEL.
bool arb__utf8_valid(const uint8_t* s, size_t n, bool no_control);

// ---- writer ------------------------------------------------------------------------------

/// A bounded output buffer. Writes past cap are counted but not stored, so one encode
/// pass gives both the bytes and the size needed.
typedef struct arb__wbuf {
  uint8_t* buf;
  size_t cap;
  size_t len;
} arb__wbuf;

void arb__packer_init(msgpack_packer* pk, arb__wbuf* w, uint8_t* buf, size_t cap);
/// Encoder result: bytes needed, or ARB_E_TOO_BIG past INT_MAX.
int arb__wbuf_result(const arb__wbuf* w);

#define ARB__TRY(expr)                 \
  do {                                 \
    int arb__rc_ = (expr);             \
    if (arb__rc_ < 0) return arb__rc_; \
  } while (0)

/// strnlen (POSIX, not C11).
static inline size_t arb__strnlen(const char* s, size_t max) {
  size_t n = 0;
  while (n < max && s[n]) n++;
  return n;
}
