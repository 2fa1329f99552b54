// Names of a server enum's values, as metrics labels, log fields and /admin JSON show them.
#pragma once

/// The whole body of a `const char* x_name(x value)`: the name of `value` in the list that
/// follows, which holds exactly `count` names in the enum's order (the build checks the
/// count), or "unknown" for a value outside [0, count).
#define SV_RETURN_NAME(value, count, ...)                                                    \
  static const char* const names[] = {__VA_ARGS__};                                          \
  _Static_assert(sizeof names / sizeof names[0] == (count), "one name per value, in order"); \
  return (unsigned)(value) < (unsigned)(count) ? names[value] : "unknown"
