// Fuzz target for the snapshot decoder and apply (fuzz-snapshot). Checked on every input:
//   - the decoder returns 0 or a negative ARB_E_* with a reason;
//   - whatever decodes re-encodes, and that encoding is a fixed point;
//   - applying it to a view (a copy of a baseline with a few entities of each class)
//     either succeeds with ids still strictly increasing, or fails leaving the view as it was.
#include <arbiter/snapshot.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static arb_snapshot_part m1, m2;
static uint8_t enc1[ARB_PROTO_MAX_PAYLOAD], enc2[ARB_PROTO_MAX_PAYLOAD];

#define VIEW_CAP 64
static arb_snapshot_entity base_items[8], view_items[VIEW_CAP], copy_items[VIEW_CAP];

static void check_apply(const arb_snapshot_part* p) {
  arb_snapshot_set base = {base_items, 8, 8};
  for (int i = 0; i < 8; ++i) {
    memset(&base_items[i], 0, sizeof base_items[i]);
    base_items[i].id = (uint32_t)(1 + 3 * i);
    base_items[i].cls = (uint8_t)(1 + i % 4);
    base_items[i].s.vx = 300 * i;
    base_items[i].s.w = -7000 * i;
    base_items[i].s.flags = (uint8_t)(i % 8);
  }
  arb_snapshot_set view = {view_items, 0, VIEW_CAP};
  if (arb_snapshot_set_copy(&view, &base) != 0) abort();
  memcpy(copy_items, view_items, sizeof view_items);
  int before = view.count;
  arb_proto_error err;
  err.reason[0] = 0;
  int rc = arb_snapshot_set_apply(&view, p, &err);
  if (rc > 0) abort();
  if (rc < 0) {
    if (err.reason[0] == 0 || view.count != before ||
        memcmp(copy_items, view_items, sizeof view_items) != 0)
      abort();
    return;
  }
  for (int i = 1; i < view.count; ++i)
    if (view.items[i].id <= view.items[i - 1].id) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  arb_proto_error err;
  err.reason[0] = 0;
  int rc = arb_proto_decode_snapshot(data, size, &m1, &err);
  if (rc > 0 || (rc < 0 && err.reason[0] == 0)) abort();
  if (rc != 0) return 0;
  int n1 = arb_proto_encode_snapshot(&m1, enc1, sizeof enc1);
  if (n1 <= 0 || (size_t)n1 > sizeof enc1) abort();
  if (arb_proto_decode_snapshot(enc1, (size_t)n1, &m2, &err) != 0) abort();
  int n2 = arb_proto_encode_snapshot(&m2, enc2, sizeof enc2);
  if (n2 != n1 || memcmp(enc1, enc2, (size_t)n1) != 0) abort();
  check_apply(&m1);
  return 0;
}
