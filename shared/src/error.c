// Error code names and texts (the map is in arbiter/base.h).
#include <arbiter/base.h>

#include <stddef.h>

// Row 0 is ARB_OK; row k > 0 the map's k-th code, ARB__ERR_FIRST + k (the codes follow
// one another from there).
static const struct {
  const char* name;
  const char* text;
} arb__errors[] = {{"ARB_OK", "success"},
#define ARB__ERR_ROW(name, msg) {"ARB_E_" #name, msg},
                   ARB_ERROR_MAP(ARB__ERR_ROW)
#undef ARB__ERR_ROW
};
#define ARB__ERROR_ROWS ((int)(sizeof arb__errors / sizeof arb__errors[0]))

// The row of err, or -1 for a code not in the map.
static int arb__error_row(int err) {
  if (err == ARB_OK) return 0;
  int row = err - (int)ARB__ERR_FIRST;
  return row >= 1 && row < ARB__ERROR_ROWS ? row : -1;
}

const char* arb_strerror(int err) {
  int row = arb__error_row(err);
  return row < 0 ? "unknown error" : arb__errors[row].text;
}

const char* arb_err_name(int err) {
  int row = arb__error_row(err);
  return row < 0 ? "ARB_E_UNKNOWN" : arb__errors[row].name;
}
