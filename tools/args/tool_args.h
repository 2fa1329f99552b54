// Command-line helpers of arbiter-sim, arbiter-replay, arbiter-netem, arbiter-token and
// arbiter-bot: strict number parsing (the whole argument, in range, or an error) and the
// one-line usage error.
#pragma once

/// Unsigned decimal in [lo, hi]: no sign, nothing after the digits. 0, or -1 when invalid.
int tool_parse_u64(const char* s, unsigned long long lo, unsigned long long hi,
                   unsigned long long* out);
/// A number in [lo, hi] (strtod syntax), nothing after it. 0, or -1 when invalid.
int tool_parse_double(const char* s, double lo, double hi, double* out);
/// Prints "PROG: " + fmt (with arg) + "\n(see PROG --help)" on stderr; returns status.
int tool_bad_usage(const char* prog, int status, const char* fmt, const char* arg);
/// A word of the command line that no option took: an unknown option ("-x", "--y") is a
/// usage error, else it is the one operand (what names it: "LOG") and goes to *operand,
/// which must still be NULL. 0, or the usage error's status (the error printed).
int tool_take_operand(const char* prog, int status, const char* arg, const char* what,
                      const char** operand);
