// Fuzz targets for every protocol decoder but the snapshot's (fuzz_snapshot.c) and the
// replay-log reader. One source, three targets (FUZZ_TARGET): 1 proto_control (hello,
// welcome, reject, event, scene, view), 2 proto_input (input, ping, pong, peek_type), 3
// replay (reader and record decoders). Properties checked on every input:
//   - a decoder returns 0 or a negative ARB_E_* with a non-empty reason;
//   - whatever decodes is a valid message: it encodes again, and that encoding decodes
//     and encodes to the same bytes.
// Built as libFuzzer programs fuzz-<name> with ARB_BUILD_FUZZ; otherwise as one plain
// program per target that runs the seed corpus (ctest: test_fuzz_<name>_corpus).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/protocol.h>
#include <arbiter/replay_log.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#if FUZZ_TARGET == 3
#define XXH_INLINE_ALL
#include <xxhash.h>
static void read_log(const uint8_t* data, size_t size);
#endif

static uint8_t enc1[1 << 20];
#if FUZZ_TARGET != 3
static uint8_t enc2[1 << 20];
#endif

static void check_error(int rc, const arb_proto_error* err) {
  if (rc > 0) abort();
  if (rc < 0 && err->reason[0] == '\0') abort();
}

/* encode(decode(bytes)) must succeed, and be a fixed point. */
#define ROUNDTRIP(T, decode, encode, setup)                                        \
  do {                                                                             \
    static T m1, m2;                                                               \
    arb_proto_error err;                                                           \
    setup;                                                                         \
    int rc = decode(data, size, &m1, &err);                                        \
    check_error(rc, &err);                                                         \
    if (rc == 0) {                                                                 \
      int n1 = encode(&m1, enc1, sizeof enc1);                                     \
      if (n1 <= 0 || (size_t)n1 > sizeof enc1) abort();                            \
      memcpy(&m2, &m1, sizeof m2);                                                 \
      if (decode(enc1, (size_t)n1, &m2, &err) != 0) abort();                       \
      int n2 = encode(&m2, enc2, sizeof enc2);                                     \
      if (n2 != n1 || memcmp(enc1, enc2, (size_t)n1) != 0) abort();                \
    }                                                                              \
  } while (0)

#if FUZZ_TARGET == 1
static arb_proto_static_body statics[ARB_PROTO_MAX_STATIC];
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
#if FUZZ_TARGET == 1
  ROUNDTRIP(arb_proto_hello, arb_proto_decode_hello, arb_proto_encode_hello, (void)0);
  ROUNDTRIP(arb_proto_welcome, arb_proto_decode_welcome, arb_proto_encode_welcome,
            (m1.statics = statics, m1.static_cap = ARB_PROTO_MAX_STATIC));
  ROUNDTRIP(arb_proto_reject, arb_proto_decode_reject, arb_proto_encode_reject, (void)0);
  ROUNDTRIP(arb_proto_event, arb_proto_decode_event, arb_proto_encode_event, (void)0);
  ROUNDTRIP(arb_proto_scene, arb_proto_decode_scene, arb_proto_encode_scene, (void)0);
  ROUNDTRIP(arb_proto_view, arb_proto_decode_view, arb_proto_encode_view, (void)0);
#elif FUZZ_TARGET == 2
  arb_proto_msg_type t;
  if (arb_proto_peek_type(data, size, &t) == 0 && (t < 1 || t >= ARB_PROTO_MSG_TYPE_COUNT)) abort();
  ROUNDTRIP(arb_proto_input, arb_proto_decode_input, arb_proto_encode_input, (void)0);
  ROUNDTRIP(arb_proto_ping, arb_proto_decode_ping, arb_proto_encode_ping, (void)0);
  ROUNDTRIP(arb_proto_pong, arb_proto_decode_pong, arb_proto_encode_pong, (void)0);
#elif FUZZ_TARGET == 3
  read_log(data, size);
  // The checksums stop almost every mutation at the frame: also read a copy whose
  // checksums were recomputed, so the fuzzer reaches the record bodies.
  if (size >= 8 + 12) {
    uint8_t* fixed = malloc(size);
    memcpy(fixed, data, size);
    size_t off = 8;
    while (size - off >= 12) {
      size_t len = (size_t)fixed[off] | (size_t)fixed[off + 1] << 8 | (size_t)fixed[off + 2] << 16 |
                   (size_t)fixed[off + 3] << 24;
      if (len > size - off - 12) break;
      uint32_t h = XXH32(fixed + off, 8 + len, 0);
      for (int k = 0; k < 4; k++) fixed[off + 8 + len + (size_t)k] = (uint8_t)(h >> (8 * k));
      off += 12 + len;
    }
    read_log(fixed, size);
    free(fixed);
  }
#else
#error "FUZZ_TARGET must be 1..3"
#endif
  return 0;
}

#if FUZZ_TARGET == 3
static void read_log(const uint8_t* data, size_t size) {
  {
    static arb_replay_tick tick;
    arb_replay_reader r;
    arb_proto_error err;
    char line[512];
    int rc = arb_replay_reader_open(&r, data, size, &err);
    check_error(rc, &err);
    if (rc == 0) {
      arb_replay_record rec;
      while (arb_replay_reader_next(&r, &rec) == 1) {
        if (rec.offset + rec.size > size) abort();
        if (rec.kind == ARB_REPLAY_TICK) {
          if (arb_replay_decode_tick(&rec, &tick, &err) != 0) abort();  // the reader validated it
          // any integer encoding is allowed, so only validity (not the size) must match
          if (arb_replay_encode_tick(&tick, enc1, sizeof enc1) <= 0) abort();
        } else if (rec.kind == ARB_REPLAY_CHECKPOINT) {
          arb_replay_checkpoint c;
          if (arb_replay_decode_checkpoint(&rec, &c, &err) != 0) abort();
        } else if (rec.kind == ARB_REPLAY_END) {
          arb_replay_end e;
          if (arb_replay_decode_end(&rec, &e, &err) != 0) abort();
        }
      }
      if (r.stop == ARB_REPLAY_STOP_NONE || r.last_good_offset > size) abort();
      if (r.stop != ARB_REPLAY_STOP_CLEAN && r.error.reason[0] == '\0') abort();
    }
    arb_replay_reader_describe(&r, line, sizeof line);
  }
}
#endif
