// Command-line helpers shared by the tools.
#include "tool_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int tool_parse_u64(const char* s, unsigned long long lo, unsigned long long hi,
                   unsigned long long* out) {
  if (!s || !*s || *s == '-' || *s == '+') return -1;
  char* end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int tool_parse_double(const char* s, double lo, double hi, double* out) {
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end != '\0' || !(v >= lo && v <= hi)) return -1;
  *out = v;
  return 0;
}

int tool_bad_usage(const char* prog, int status, const char* fmt, const char* arg) {
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see %s --help)\n", prog);
  return status;
}

int tool_take_operand(const char* prog, int status, const char* arg, const char* what,
                      const char** operand) {
  if (arg[0] == '-' && arg[1] != '\0') {
    return tool_bad_usage(prog, status, "unknown option \"%s\"", arg);
  }
  if (*operand) {
    char msg[600];
    snprintf(msg, sizeof msg, "more than one %s given (\"%.500s\")", what, arg);
    return tool_bad_usage(prog, status, "%s", msg);
  }
  *operand = arg;
  return 0;
}
