// Names of protocol enums, and the build id.
#include <arbiter/protocol.h>
#include <arbiter/replay_log.h>

#include "codec.h"

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

const char* arb_proto_build_id(void) {
  return ARB_BUILD_ID;
}

const char* arb_proto_reason_name(int reason) {
  static const char* const names[ARB_PROTO_REASON_COUNT] = {
      "none",     "version",  "full",   "bad_token", "malformed",
      "bad_name", "shutdown", "kicked", "timeout",   "other"};
  return reason >= 0 && reason < ARB_PROTO_REASON_COUNT ? names[reason] : "unknown";
}

// One row per message, indexed by type code (messages.def).
typedef struct msg_info {
  const char* name;
  int channel;
  int direction;
} msg_info;

static const msg_info msg_table[ARB_PROTO_MSG_TYPE_COUNT] = {
    [ARB_PROTO_MSG_NONE] = {"none", -1, 0},
#define ARB_PROTO_MSG(NAME, name, code, channel, direction) \
  [code] = {#name, ARB_PROTO_CHANNEL_##channel, ARB_PROTO_##direction},
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
};

// The enum's COUNT (largest code + 1) bounds every table indexed by code; a retired code
// (5, the version-1 snapshot) is a row without a name.
static const msg_info* msg_row(int type) {
  return type > 0 && type < ARB_PROTO_MSG_TYPE_COUNT && msg_table[type].name ? &msg_table[type]
                                                                             : NULL;
}

int arb__msg_code_known(int type) {
  return msg_row(type) != NULL;
}

const char* arb_proto_msg_name(int type) {
  if (type == ARB_PROTO_MSG_NONE) return msg_table[0].name;
  return msg_row(type) ? msg_row(type)->name : "unknown";
}

int arb_proto_msg_direction(int type) {
  return msg_row(type) ? msg_row(type)->direction : 0;
}

int arb_proto_msg_channel(int type) {
  return msg_row(type) ? msg_row(type)->channel : -1;
}

const char* arb_replay_stop_name(int stop) {
  static const char* const names[] = {"none", "clean", "eof", "truncated", "checksum", "corrupt"};
  return stop >= 0 && stop <= ARB_REPLAY_STOP_CORRUPT ? names[stop] : "unknown";
}

const char* arb_replay_kind_name(int kind) {
  static const char* const names[ARB_REPLAY_KIND_COUNT] = {"none", "header", "tick", "checkpoint",
                                                           "end"};
  return kind >= 0 && kind < ARB_REPLAY_KIND_COUNT ? names[kind] : "unknown";
}
