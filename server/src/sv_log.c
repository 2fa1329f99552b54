// Server logging (see sv_log.h for the line formats).
#include "sv_log.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

static const char* const level_names[] = {"error", "warn", "info", "debug"};
_Static_assert(sizeof level_names / sizeof level_names[0] == SV_LOG_DEBUG + 1,
               "one name per sv_log_level");

void sv_log_init(sv_log* log, FILE* out, sv_log_level level, sv_log_format format) {
  log->out = out ? out : stderr;
  log->level = level;
  log->format = format;
}

int sv_log_parse_level(const char* s, sv_log_level* out) {
  for (int i = 0; i < 4; ++i) {
    if (strcmp(s, level_names[i]) == 0) {
      *out = (sv_log_level)i;
      return 0;
    }
  }
  return -1;
}

int sv_log_parse_format(const char* s, sv_log_format* out) {
  if (strcmp(s, "text") == 0) {
    *out = SV_LOG_TEXT;
    return 0;
  }
  if (strcmp(s, "json") == 0) {
    *out = SV_LOG_JSON;
    return 0;
  }
  return -1;
}

const char* sv_log_level_name(sv_log_level level) {
  return (unsigned)level < 4 ? level_names[level] : "?";
}

// A bounded appender: once full, further output is dropped and the line ends in "...".
typedef struct line_buf {
  char* p;
  size_t len, cap;
  int overflow;
} line_buf;

static void put(line_buf* b, const char* s, size_t n) {
  if (b->len + n > b->cap) {
    n = b->cap - b->len;
    b->overflow = 1;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
}
static void puts_(line_buf* b, const char* s) {
  put(b, s, strlen(s));
}
static void putc_(line_buf* b, char c) {
  put(b, &c, 1);
}

static void put_json_string(line_buf* b, const char* s) {
  // The bytes with a two-character escape in JSON, and the letter after the backslash.
  static const char short_escaped[] = "\"\\\n\r\t", short_escape[] = "\"\\nrt";
  putc_(b, '"');
  for (const unsigned char* q = (const unsigned char*)(s ? s : ""); *q; ++q) {
    const char* named = strchr(short_escaped, *q);
    if (named) {
      putc_(b, '\\');
      putc_(b, short_escape[named - short_escaped]);
    } else if (*q < 0x20) {
      char esc[8];
      snprintf(esc, sizeof esc, "\\u%04x", *q);
      puts_(b, esc);
    } else {
      putc_(b, (char)*q);
    }
  }
  putc_(b, '"');
}

// Text values are quoted only when they contain spaces, quotes or '=' (logfmt style).
static void put_text_string(line_buf* b, const char* s) {
  s = s ? s : "";
  if (*s != '\0' && strpbrk(s, " \"=\t\n\r") == NULL) {
    puts_(b, s);
    return;
  }
  put_json_string(b, s);
}

static void put_value(line_buf* b, const sv_log_field* f, int json) {
  char num[64];
  switch (f->type) {
    case SV_LF_INT:
      snprintf(num, sizeof num, "%" PRId64, f->i);
      break;
    case SV_LF_UINT:
      snprintf(num, sizeof num, "%" PRIu64, f->u);
      break;
    case SV_LF_HEX:
      snprintf(num, sizeof num, json ? "\"%016" PRIx64 "\"" : "%016" PRIx64, f->u);
      break;
    case SV_LF_DOUBLE:
      if (f->d != f->d)
        snprintf(num, sizeof num, json ? "null" : "nan");
      else
        snprintf(num, sizeof num, "%.6g", f->d);
      break;
    case SV_LF_STR:
      if (json)
        put_json_string(b, f->s);
      else
        put_text_string(b, f->s);
      return;
  }
  puts_(b, num);
}

static void put_json_head(line_buf* b, const char* stamp, sv_log_level level, const char* event) {
  puts_(b, "{\"ts\":\"");
  puts_(b, stamp);
  puts_(b, "\",\"level\":\"");
  puts_(b, sv_log_level_name(level));
  puts_(b, "\",\"event\":");
  put_json_string(b, event);
}

// `,"key":value` (JSON) or ` key=value` (text) for every field.
static void put_fields(line_buf* b, const sv_log_field* fields, int n, int json) {
  for (int i = 0; i < n; ++i) {
    putc_(b, json ? ',' : ' ');
    if (json)
      put_json_string(b, fields[i].key);
    else
      puts_(b, fields[i].key);
    putc_(b, json ? ':' : '=');
    put_value(b, &fields[i], json);
  }
}

void sv_log_emit(const sv_log* log, sv_log_level level, const char* event,
                 const sv_log_field* fields, int n) {
  if (!SV_LOG_ENABLED(log, level)) return;
  char storage[2048];
  line_buf b = {storage, 0, sizeof storage - 5, 0};  // room for "...\n"

  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char stamp[64];
  snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
           tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
           (int)(ts.tv_nsec / 1000000));

  const int json = log->format == SV_LOG_JSON;
  if (json) {
    put_json_head(&b, stamp, level, event);
    put_fields(&b, fields, n, 1);
    if (b.overflow) {
      // Keep the line valid JSON even when cut: close with a marker field.
      b.len = 0;
      b.overflow = 0;
      put_json_head(&b, stamp, level, event);
      puts_(&b, ",\"truncated\":true");
    }
    putc_(&b, '}');
  } else {
    char head[96];
    snprintf(head, sizeof head, "%s %-5s ", stamp, sv_log_level_name(level));
    puts_(&b, head);
    puts_(&b, event);
    put_fields(&b, fields, n, 0);
  }
  if (b.overflow) {
    memcpy(b.p + b.len, "...", 3);
    b.len += 3;
  }
  b.p[b.len++] = '\n';
  fwrite(b.p, 1, b.len, log->out);
  fflush(log->out);
}
