// Error code texts (the map is in arbiter/base.h).
#include <arbiter/base.h>

const char* arb_strerror(int err) {
  switch (err) {
    case ARB_OK:
      return "success";
#define ARB__ERR_TEXT(name, msg) \
  case ARB_E_##name:             \
    return msg;
      ARB_ERROR_MAP(ARB__ERR_TEXT)
#undef ARB__ERR_TEXT
    default:
      return "unknown error";
  }
}

const char* arb_err_name(int err) {
  switch (err) {
    case ARB_OK:
      return "ARB_OK";
#define ARB__ERR_NAME(name, msg) \
  case ARB_E_##name:             \
    return "ARB_E_" #name;
      ARB_ERROR_MAP(ARB__ERR_NAME)
#undef ARB__ERR_NAME
    default:
      return "ARB_E_UNKNOWN";
  }
}
