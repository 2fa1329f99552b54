// Names of protocol enums, and the build id.
#include <arbiter/protocol.h>
#include <arbiter/replay_log.h>

#ifndef ARB_BUILD_ID
#define ARB_BUILD_ID "arbiter-unknown"
#endif

const char* arb_proto_build_id(void) { return ARB_BUILD_ID; }

const char* arb_proto_reason_name(int reason) {
  static const char* const names[ARB_PROTO_REASON_COUNT] = {
      "none", "version", "full", "bad_token", "malformed", "bad_name", "shutdown", "kicked", "timeout", "other"};
  return reason >= 0 && reason < ARB_PROTO_REASON_COUNT ? names[reason] : "unknown";
}

const char* arb_proto_msg_name(int type) {
  static const char* const names[ARB_PROTO_MSG_TYPE_COUNT] = {
      "none", "hello", "welcome", "reject", "input", "snapshot", "event", "ping", "pong"};
  return type >= 0 && type < ARB_PROTO_MSG_TYPE_COUNT ? names[type] : "unknown";
}

const char* arb_replay_stop_name(int stop) {
  static const char* const names[] = {"none", "clean", "eof", "truncated", "checksum", "corrupt"};
  return stop >= 0 && stop <= ARB_REPLAY_STOP_CORRUPT ? names[stop] : "unknown";
}

const char* arb_replay_kind_name(int kind) {
  static const char* const names[ARB_REPLAY_KIND_COUNT] = {"none", "header", "tick", "checkpoint", "end"};
  return kind >= 0 && kind < ARB_REPLAY_KIND_COUNT ? names[kind] : "unknown";
}
