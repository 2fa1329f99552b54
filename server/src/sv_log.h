// Server logging: one line per event on stderr (or any FILE*), text or JSON.
//
// An event is a short snake_case name plus typed key/value fields, so the JSON form is
// real structured data and the text form stays grep-able:
//   text: 2026-11-21T05:40:01.123Z info  client_joined client=3 addr=127.0.0.1:50123
//   json: {"ts":"2026-11-21T05:40:01.123Z","level":"info","event":"client_joined","client":3,...}
// Each line is formatted into a bounded buffer and written with one fwrite.
#pragma once

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

typedef enum sv_log_level {
  SV_LOG_ERROR = 0,
  SV_LOG_WARN,
  SV_LOG_INFO,
  SV_LOG_DEBUG,
} sv_log_level;

typedef enum sv_log_format { SV_LOG_TEXT = 0, SV_LOG_JSON } sv_log_format;

typedef enum sv_log_type { SV_LF_INT, SV_LF_UINT, SV_LF_HEX, SV_LF_DOUBLE, SV_LF_STR } sv_log_type;

typedef struct sv_log_field {
  const char* key;  ///< snake_case, no quoting needed
  sv_log_type type;
  union {
    int64_t i;
    uint64_t u;
    double d;
    const char* s;  ///< NULL is written as an empty string
  };
} sv_log_field;

#define SV_LI(k, v) ((sv_log_field){.key = (k), .type = SV_LF_INT, .i = (int64_t)(v)})
#define SV_LU(k, v) ((sv_log_field){.key = (k), .type = SV_LF_UINT, .u = (uint64_t)(v)})
/// 64-bit value written as 16 hex digits (hashes).
#define SV_LX(k, v) ((sv_log_field){.key = (k), .type = SV_LF_HEX, .u = (uint64_t)(v)})
#define SV_LD(k, v) ((sv_log_field){.key = (k), .type = SV_LF_DOUBLE, .d = (double)(v)})
#define SV_LS(k, v) ((sv_log_field){.key = (k), .type = SV_LF_STR, .s = (v)})

typedef struct sv_log {
  FILE* out;           ///< not owned; stderr by default
  sv_log_level level;  ///< events above this level are skipped
  sv_log_format format;
} sv_log;

void sv_log_init(sv_log* log, FILE* out, sv_log_level level, sv_log_format format);
/// Parses "error|warn|info|debug"; returns 0 or -1.
int sv_log_parse_level(const char* s, sv_log_level* out);
/// Parses "text|json"; returns 0 or -1.
int sv_log_parse_format(const char* s, sv_log_format* out);
const char* sv_log_level_name(sv_log_level level);

/// Write one event line. fields may be NULL when n == 0.
void sv_log_emit(const sv_log* log, sv_log_level level, const char* event,
                 const sv_log_field* fields, int n);

#define SV_LOG_ENABLED(log, lvl) ((log) != NULL && (int)(lvl) <= (int)(log)->level)
/// SV_LOG(log, SV_LOG_INFO, "event", SV_LI("k", 1), ...): at least one field.
#define SV_LOG(log, lvl, event, ...)                              \
  do {                                                            \
    if (SV_LOG_ENABLED(log, lvl)) {                               \
      const sv_log_field sv_log_f_[] = {__VA_ARGS__};             \
      sv_log_emit((log), (lvl), (event), sv_log_f_,               \
                  (int)(sizeof sv_log_f_ / sizeof sv_log_f_[0])); \
    }                                                             \
  } while (0)
/// An event with no fields.
#define SV_LOG0(log, lvl, event)                                               \
  do {                                                                         \
    if (SV_LOG_ENABLED(log, lvl)) sv_log_emit((log), (lvl), (event), NULL, 0); \
  } while (0)
