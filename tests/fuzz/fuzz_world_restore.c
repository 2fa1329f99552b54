// Fuzz target: world images are untrusted input (arb_world_restore). Two ways in:
//   raw     the bytes as a whole image (mostly rejected by the header and checksum);
//   framed  the bytes as the payload of an image with a correct header and checksum, so
//           the mutations reach every field check. A payload that is accepted must
//           step, hash, save and restore to the same hash without crashing.
// Built as a libFuzzer target (fuzz-world-restore) in the fuzz preset. In test builds it
// is a plain program (test_fuzz_world_restore) that runs a deterministic mutation sweep
// over images of a small scene, plus any corpus files given on the command line.
#include <arbiter/world.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { HEADER = 20 };

static arb_world* new_world(void) {
  arb_world_def wd = arb_default_world_def();
  return arb_world_create(&wd);
}

// Image = header of a real save + payload + XXH3 of the payload.
static uint8_t* frame(const uint8_t* payload, size_t n, size_t* out_len) {
  static uint8_t header[HEADER];
  static int have = 0;
  if (!have) {
    arb_world* w = new_world();
    uint8_t img[256];
    if (!w || arb_world_save(w, img, (int)sizeof img) < HEADER) abort();
    memcpy(header, img, HEADER);
    arb_world_destroy(w);
    have = 1;
  }
  uint8_t* img = malloc(HEADER + n + 8);
  if (!img) abort();
  memcpy(img, header, HEADER);
  uint32_t len = (uint32_t)n;
  for (int i = 0; i < 4; ++i) img[16 + i] = (uint8_t)(len >> (8 * i));
  if (n) memcpy(img + HEADER, payload, n);
  uint64_t h = XXH3_64bits(payload, n);
  for (int i = 0; i < 8; ++i) img[HEADER + n + (size_t)i] = (uint8_t)(h >> (8 * i));
  *out_len = HEADER + n + 8;
  return img;
}

static int try_image(const uint8_t* img, size_t len) {
  arb_world* w = new_world();
  if (!w) abort();
  int rc = arb_world_restore(w, img, (int)len);
  if (rc > 0) abort();
  if (rc == 0) {
    for (int t = 0; t < 3; ++t) arb_world_step(w, 1.0f / 60.0f);
    uint64_t h = arb_world_hash(w);
    int n = arb_world_save(w, NULL, 0);
    uint8_t* again = malloc((size_t)n);
    if (!again || arb_world_save(w, again, n) != n) abort();
    arb_world* w2 = new_world();
    // A hostile but well-formed image (say, a huge impulse) may step into non-finite
    // values: not a crash, and the image of such a world is refused as NONFINITE.
    // Otherwise the round trip must be exact.
    int rc2 = arb_world_restore(w2, again, n);
    if (rc2 != 0 && rc2 != ARB_E_NONFINITE) {
      fprintf(stderr, "fuzz_world_restore: re-restore failed: %s\n", arb_strerror(rc2));
      abort();
    }
    if (rc2 == 0 && arb_world_hash(w2) != h) abort();
    arb_world_destroy(w2);
    free(again);
  } else if (arb_strerror(rc)[0] == '\0') {
    abort();
  }
  arb_world_destroy(w);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  try_image(data, size);
  size_t len;
  uint8_t* img = frame(data, size, &len);
  try_image(img, len);
  free(img);
  return 0;
}

#ifndef ARB_FUZZING
// A small scene with every shape kind (a rounded polygon too), contacts, a free slot,
// forces pending, a sleeping island, a sensor with a visitor inside and a compound body
// (a sensor shape and two feet) standing on a compound ground (contacts between shapes
// other than the first), in a world with continuous collision against static bodies only
// (so the image holds an optional tag record, 'CSTA', for the sweep to corrupt).
static uint8_t* sample_payload(size_t* n) {
  arb_world_def wd = arb_default_world_def();
  wd.continuous_dynamic = false;
  arb_world* w = arb_world_create(&wd);
  arb_body_def bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_SEGMENT;
  bd.shape.segment.a = arb_v2(-5.0f, 0.0f);
  bd.shape.segment.b = arb_v2(5.0f, 0.0f);
  arb_body_create(w, &bd);
  bd = arb_default_body_def();
  bd.position = arb_v2(0.0f, 0.5f);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.5f, 0.5f);
  arb_body_id doomed = arb_body_create(w, &bd);
  bd.position = arb_v2(0.2f, 1.5f);
  arb_body_create(w, &bd);
  bd.position = arb_v2(1.5f, 0.4f);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.4f;
  bd.shape.restitution = 0.5f;
  arb_body_id ball = arb_body_create(w, &bd);
  bd = arb_default_body_def();
  bd.type = ARB_BODY_KINEMATIC;
  bd.position = arb_v2(-3.0f, 0.3f);
  bd.linear_velocity = arb_v2(0.5f, 0.0f);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.3f;
  arb_body_create(w, &bd);
  // A capsule lying on the ground.
  bd = arb_default_body_def();
  bd.position = arb_v2(-1.5f, 0.25f);
  bd.shape.type = ARB_SHAPE_CAPSULE;
  bd.shape.capsule = (arb_capsule){{-0.4f, 0.0f}, {0.4f, 0.0f}, 0.25f};
  arb_body_create(w, &bd);
  // A rounded box beside it.
  bd = arb_default_body_def();
  bd.position = arb_v2(2.8f, 0.3f);
  bd.shape.type = ARB_SHAPE_POLYGON;
  arb_polygon core = arb_make_box(0.2f, 0.2f);
  bd.shape.polygon = arb_make_rounded_polygon(&core, 0.1f);
  arb_body_create(w, &bd);
  // Two boxes resting on each other far to the right: one sleeping island of two.
  bd = arb_default_body_def();
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(0.5f, 0.5f);
  bd.position = arb_v2(4.0f, 0.5f);
  arb_body_create(w, &bd);
  bd.position = arb_v2(4.0f, 1.5f);
  arb_body_id sleeper = arb_body_create(w, &bd);
  bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.position = arb_v2(1.5f, 1.0f);
  bd.shape.type = ARB_SHAPE_POLYGON;
  bd.shape.polygon = arb_make_box(1.0f, 1.0f);
  bd.shape.sensor = true;  // the ball is inside: the image has a sensor record
  arb_body_id sensor = arb_body_create(w, &bd);
  // Far to the left, a chain (its points in the image) with a ball resting on it.
  static const arb_vec2 hill[4] = {{-14.0f, 1.0f}, {-12.0f, 0.0f}, {-10.0f, 0.0f}, {-8.0f, 1.0f}};
  bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shape.type = ARB_SHAPE_CHAIN;
  bd.shape.chain = (arb_chain){hill, 4, false};
  arb_body_create(w, &bd);
  bd = arb_default_body_def();
  bd.position = arb_v2(-11.0f, 0.3f);
  bd.shape.type = ARB_SHAPE_CIRCLE;
  bd.shape.circle.radius = 0.3f;
  arb_body_create(w, &bd);
  arb_shape_def parts[3];
  for (int i = 0; i < 3; ++i) {
    parts[i] = arb_default_shape_def();
    parts[i].type = ARB_SHAPE_POLYGON;
  }
  parts[0].polygon = arb_make_offset_box(1.0f, 0.5f, arb_v2(8.0f, -0.5f), arb_rot_identity);
  parts[1].polygon = arb_make_offset_box(1.0f, 0.5f, arb_v2(11.0f, -0.5f), arb_rot_identity);
  bd = arb_default_body_def();
  bd.type = ARB_BODY_STATIC;
  bd.shapes = parts;
  bd.shape_count = 2;
  arb_body_create(w, &bd);
  parts[0].type = ARB_SHAPE_CIRCLE;
  parts[0].circle = (arb_circle){{0.0f, 1.0f}, 0.5f};
  parts[0].sensor = true;
  parts[1].polygon = arb_make_offset_box(0.3f, 0.3f, arb_v2(-1.5f, 0.3f), arb_rot_identity);
  parts[2].polygon = arb_make_offset_box(0.3f, 0.3f, arb_v2(1.5f, 0.3f), arb_rot_identity);
  parts[2].friction = 0.1f;
  bd = arb_default_body_def();
  bd.position = arb_v2(9.5f, 0.0f);
  bd.shapes = parts;
  bd.shape_count = 3;
  arb_body_create(w, &bd);
  for (int t = 0; t < 45; ++t) arb_world_step(w, 1.0f / 60.0f);
  if (arb_body_is_awake(w, sleeper)) abort();  // the sample must hold a sleeping island
  if (arb_sensor_get_overlaps(w, sensor, NULL, 0) == 0) abort();
  arb_body_destroy(w, doomed);
  arb_body_apply_force_to_center(w, ball, arb_v2(1.0f, 2.0f));
  int len = arb_world_save(w, NULL, 0);
  uint8_t* img = malloc((size_t)len);
  if (!img || arb_world_save(w, img, len) != len) abort();
  arb_world_destroy(w);
  *n = (size_t)len - HEADER - 8;
  uint8_t* payload = malloc(*n);
  memcpy(payload, img + HEADER, *n);
  free(img);
  return payload;
}

int main(int argc, char** argv) {
  size_t n;
  uint8_t* payload = sample_payload(&n);
  size_t len;
  uint8_t* img = frame(payload, n, &len);
  if (try_image(img, len) != 0) {
    fprintf(stderr, "test_fuzz_world_restore: the unmodified sample image was refused\n");
    return 1;
  }
  free(img);
  // Every byte of the payload, three kinds of corruption each, with a valid checksum.
  static const uint8_t flips[] = {0x01, 0x80, 0xff};
  int accepted = 0, refused = 0;
  uint8_t* mut = malloc(n);
  for (size_t k = 0; k < n; ++k) {
    for (size_t f = 0; f < sizeof flips; ++f) {
      memcpy(mut, payload, n);
      mut[k] ^= flips[f];
      img = frame(mut, n, &len);
      if (try_image(img, len) == 0) {
        accepted += 1;
      } else {
        refused += 1;
      }
      free(img);
    }
  }
  // Every truncation of the payload (framed, so only the field checks can refuse it).
  for (size_t cut = 0; cut < n; ++cut) {
    img = frame(payload, cut, &len);
    if (try_image(img, len) == 0) {
      fprintf(stderr, "test_fuzz_world_restore: payload cut at %zu accepted\n", cut);
      return 1;
    }
    free(img);
  }
  free(mut);
  free(payload);
  // Corpus files (raw and framed), if any were given.
  for (int i = 1; i < argc; ++i) {
    FILE* f = fopen(argv[i], "rb");
    if (!f) continue;
    static uint8_t buf[1 << 20];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, got);
  }
  printf("test_fuzz_world_restore: %zu-byte payload, %d mutations accepted, %d refused\n", n,
         accepted, refused);
  return 0;
}
#endif
