// Fuzz targets for every protocol decoder and the replay-log reader. One source, three
// targets (FUZZ_TARGET): 1 proto_control, 2 proto_input, 3 replay (reader and record
// decoders). Targets 1 and 2 each round-trip every message of messages.def (the list is
// generated from the table, so a new message is fuzzed from its first row); they differ
// in their seed corpus (tests/fuzz/corpus/<target>) and 2 also checks peek_type. The
// snapshot's own decoder and apply are fuzzed in depth by fuzz_snapshot.c. Properties
// checked on every input:
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
#include <arbiter/snapshot.h>  // arb_proto_snapshot (a row of messages.def)

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
#define ROUNDTRIP(T, decode, encode)                                \
  do {                                                              \
    static T m1, m2;                                                \
    arb_proto_error err;                                            \
    PREPARE(&m1);                                                   \
    int rc = decode(data, size, &m1, &err);                         \
    check_error(rc, &err);                                          \
    if (rc == 0) {                                                  \
      int n1 = encode(&m1, enc1, sizeof enc1);                      \
      if (n1 <= 0 || (size_t)n1 > sizeof enc1) abort();             \
      memcpy(&m2, &m1, sizeof m2);                                  \
      if (decode(enc1, (size_t)n1, &m2, &err) != 0) abort();        \
      int n2 = encode(&m2, enc2, sizeof enc2);                      \
      if (n2 != n1 || memcmp(enc1, enc2, (size_t)n1) != 0) abort(); \
    }                                                               \
  } while (0)

#if FUZZ_TARGET != 3
// The storage a decoder takes from its caller: welcome's static bodies. Every other
// message decodes into its struct alone (the default).
static arb_proto_static_body statics[ARB_PROTO_MAX_STATIC];
static void prepare_welcome(arb_proto_welcome* m) {
  m->statics = statics;
  m->static_cap = ARB_PROTO_MAX_STATIC;
}
static void prepare_nothing(void* m) {
  (void)m;
}
#define PREPARE(m) \
  _Generic((m), arb_proto_welcome * : prepare_welcome, default : prepare_nothing)(m)

// One round trip per row of messages.def.
static void roundtrip_every_message(const uint8_t* data, size_t size) {
#define ARB_PROTO_MSG(NAME, name, code, channel, direction) \
  ROUNDTRIP(arb_proto_##name, arb_proto_decode_##name, arb_proto_encode_##name);
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
#if FUZZ_TARGET == 1
  roundtrip_every_message(data, size);
#elif FUZZ_TARGET == 2
  arb_proto_msg_type t;
  if (arb_proto_peek_type(data, size, &t) == 0 && (t < 1 || t >= ARB_PROTO_MSG_TYPE_COUNT)) abort();
  roundtrip_every_message(data, size);
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
