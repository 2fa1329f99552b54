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
#define ARB_ERROR_MAP(XX)                         \
  XX(INVAL, "invalid argument")                   \
  XX(NOMEM, "out of memory")                      \
  XX(RANGE, "value out of range")                 \
  XX(NOSPACE, "buffer too small")                 \
  XX(TRUNCATED, "input ends early")               \
  XX(CORRUPT, "input is malformed")               \
  XX(CHECKSUM, "checksum mismatch")               \
  XX(VERSION, "unsupported version")              \
  XX(TOO_BIG, "size or count over the limit")     \
  XX(NONFINITE, "value is NaN or infinite")       \
  XX(STALE_ID, "id refers to a destroyed object") \
  XX(FULL, "capacity reached")                    \
  XX(NOT_FOUND, "not found")                      \
  XX(IO, "input/output error")                    \
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

// ---- asserts: programmer errors only --------------------------------------------------
//
// ARB_ASSERT checks what only a bug in the calling code can break (a stale or null id, a
// call from the wrong place). Never data from a file or the network: that is validated
// and returned as an ARB_E_* code. Asserts are compiled in when NDEBUG is not defined
// (the debug, asan and fuzz builds) or with ARB_ENABLE_ASSERT; release builds compile
// them out. Either way the function then fails softly as documented (Box2D style), so
// release callers get the same defaults and error codes.

/// Called when an assert fails. Return true to abort the process (the default handler
/// prints "file:line: assert failed: condition" to stderr and returns true); return false
/// to carry on with the soft failure (tests counting asserts do that).
typedef bool arb_assert_fn(const char* condition, const char* file, int line);
/// Install the assert handler (NULL restores the default). Process-wide, unlike the
/// allocator hooks: an assert can fire where there is no world to carry a hook (a null
/// world argument). Set it before any other thread calls into the library.
ARB_API void arb_set_assert_handler(arb_assert_fn* handler);
/// Used by ARB_ASSERT.
ARB_API void arb__assert_failed(const char* condition, const char* file, int line);

#if !defined(NDEBUG) || defined(ARB_ENABLE_ASSERT)
#define ARB_ASSERT_ENABLED 1
#define ARB_ASSERT(cond) ((cond) ? (void)0 : arb__assert_failed(#cond, __FILE__, __LINE__))
#else
#define ARB_ASSERT_ENABLED 0
#define ARB_ASSERT(cond) ((void)0)
#endif

ARB_C_END
