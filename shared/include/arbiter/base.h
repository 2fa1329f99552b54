// arbiter — base definitions shared by every library: export macro, error codes.
// Stand-alone: includes only the C standard library.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define ARB_API __attribute__((visibility("default")))
#else
#define ARB_API
#endif

#ifdef __cplusplus
#define ARB_C_BEGIN extern "C" {
#define ARB_C_END }
#else
#define ARB_C_BEGIN
#define ARB_C_END
#endif

ARB_C_BEGIN

// Every fallible function returns 0 on success or one of these negative codes.
// XX(name, message): the code is ARB_E_<name>.
#define ARB_ERROR_MAP(XX)                                                   \
  XX(INVAL, "invalid argument")                                            \
  XX(NOMEM, "out of memory")                                               \
  XX(RANGE, "value out of range")                                          \
  XX(NOSPACE, "buffer too small")                                          \
  XX(TRUNCATED, "input ends early")                                        \
  XX(CORRUPT, "input is malformed")                                        \
  XX(CHECKSUM, "checksum mismatch")                                        \
  XX(VERSION, "unsupported version")                                       \
  XX(TOO_BIG, "size or count over the limit")                              \
  XX(NONFINITE, "value is NaN or infinite")                                \
  XX(STALE_ID, "id refers to a destroyed object")                          \
  XX(FULL, "capacity reached")                                             \
  XX(NOT_FOUND, "not found")                                               \
  XX(IO, "input/output error")                                             \
  XX(STATE, "operation not allowed in the current state")

typedef enum arb_error {
  ARB_OK = 0,
#define ARB__ERR_ENUM(name, msg) ARB_E_##name,
  ARB__ERR_FIRST = -100,
  ARB_ERROR_MAP(ARB__ERR_ENUM)
#undef ARB__ERR_ENUM
} arb_error;

/// A static, human readable text for 0 or an ARB_E_* code ("unknown error" otherwise).
ARB_API const char* arb_strerror(int err);

/// The error code's symbolic name, e.g. "ARB_E_INVAL".
ARB_API const char* arb_err_name(int err);

ARB_C_END
