// Snapshot codec (PROTOCOL.md, "snapshot").
//
//   snapshot [5, tick, baseline_tick, last_input_seq, part_index, part_count,
//             entered: [[id, body_type, avatar_kind, owner, shape, x, y, angle, vx, vy, w], ...],
//             changed: [[id, mask, d...], ...],      one d per mask bit, low bit first
//             removed: [id, ...]]
//
// Each list is sorted by strictly increasing id and the three lists are disjoint, so a
// part applies in one merge pass and a duplicate can never make two parts disagree.
// Changed values are differences to the baseline: int32 fields wrap modulo 2^32 (sent as
// a signed int32), the angle wraps modulo 65536 (sent as a signed int16).
#include <string.h>

#include <arbiter/world.h>

#include "codec.h"

void arb__pack_entered(msgpack_packer* pk, const arb_proto_entered* e) {
  msgpack_pack_array(pk, 11);
  msgpack_pack_uint32(pk, e->id);
  msgpack_pack_uint8(pk, e->desc.body_type);
  msgpack_pack_uint8(pk, e->desc.avatar_kind);
  msgpack_pack_uint32(pk, e->desc.owner);
  arb__pack_shape(pk, &e->desc.shape);
  msgpack_pack_int32(pk, e->state.x);
  msgpack_pack_int32(pk, e->state.y);
  msgpack_pack_uint16(pk, e->state.angle);
  msgpack_pack_int32(pk, e->state.vx);
  msgpack_pack_int32(pk, e->state.vy);
  msgpack_pack_int32(pk, e->state.w);
}

void arb__pack_changed(msgpack_packer* pk, const arb_proto_changed* c) {
  msgpack_pack_array(pk, (size_t)(2 + arb__popcount6(c->mask)));
  msgpack_pack_uint32(pk, c->id);
  msgpack_pack_uint8(pk, c->mask);
  if (c->mask & ARB_PROTO_FIELD_X) msgpack_pack_int32(pk, c->delta.x);
  if (c->mask & ARB_PROTO_FIELD_Y) msgpack_pack_int32(pk, c->delta.y);
  if (c->mask & ARB_PROTO_FIELD_ANGLE) msgpack_pack_int16(pk, (int16_t)(c->delta.angle >= 32768u ? (int32_t)c->delta.angle - 65536 : (int32_t)c->delta.angle));
  if (c->mask & ARB_PROTO_FIELD_VX) msgpack_pack_int32(pk, c->delta.vx);
  if (c->mask & ARB_PROTO_FIELD_VY) msgpack_pack_int32(pk, c->delta.vy);
  if (c->mask & ARB_PROTO_FIELD_W) msgpack_pack_int32(pk, c->delta.w);
}

/* Returns the first id present in two sorted lists, 0 if they are disjoint. */
static uint32_t common_id(const uint32_t* a, int na, size_t sa, const uint32_t* b, int nb, size_t sb) {
  int i = 0, j = 0;
  while (i < na && j < nb) {
    uint32_t x = *(const uint32_t*)((const uint8_t*)a + (size_t)i * sa);
    uint32_t y = *(const uint32_t*)((const uint8_t*)b + (size_t)j * sb);
    if (x == y) return x;
    if (x < y)
      i++;
    else
      j++;
  }
  return 0;
}

static uint32_t overlap(const arb_proto_snapshot* m) {
  uint32_t id = common_id(&m->entered[0].id, m->entered_count, sizeof m->entered[0], &m->changed[0].id, m->changed_count,
                          sizeof m->changed[0]);
  if (!id)
    id = common_id(&m->entered[0].id, m->entered_count, sizeof m->entered[0], m->removed, m->removed_count,
                   sizeof m->removed[0]);
  if (!id)
    id = common_id(&m->changed[0].id, m->changed_count, sizeof m->changed[0], m->removed, m->removed_count,
                   sizeof m->removed[0]);
  return id;
}

int arb_proto_encode_snapshot(const arb_proto_snapshot* m, uint8_t* buf, size_t cap) {
  if (!m || m->tick == 0 || m->baseline_tick >= m->tick) return ARB_E_INVAL;
  if (m->part_count < 1 || m->part_index >= m->part_count) return ARB_E_RANGE;
  if (m->entered_count < 0 || m->entered_count > ARB_PROTO_MAX_PART_ENTERED || m->changed_count < 0 ||
      m->changed_count > ARB_PROTO_MAX_PART_CHANGED || m->removed_count < 0 ||
      m->removed_count > ARB_PROTO_MAX_PART_REMOVED)
    return ARB_E_TOO_BIG;
  if (m->baseline_tick == 0 && (m->changed_count || m->removed_count)) return ARB_E_INVAL;
  for (int i = 0; i < m->entered_count; i++) {
    if (m->entered[i].id == 0 || (i && m->entered[i].id <= m->entered[i - 1].id)) return ARB_E_INVAL;
    ARB__TRY(arb__check_desc(&m->entered[i].desc));
  }
  for (int i = 0; i < m->changed_count; i++) {
    if (m->changed[i].id == 0 || (i && m->changed[i].id <= m->changed[i - 1].id)) return ARB_E_INVAL;
    if (m->changed[i].mask == 0 || m->changed[i].mask > ARB_PROTO_FIELD_ALL) return ARB_E_INVAL;
  }
  for (int i = 0; i < m->removed_count; i++)
    if (m->removed[i] == 0 || (i && m->removed[i] <= m->removed[i - 1])) return ARB_E_INVAL;
  if (overlap(m)) return ARB_E_INVAL;

  msgpack_packer pk;
  arb__wbuf w;
  arb__pack_header(&pk, &w, buf, cap, ARB_PROTO_MSG_SNAPSHOT, 9);
  msgpack_pack_uint32(&pk, m->tick);
  msgpack_pack_uint32(&pk, m->baseline_tick);
  msgpack_pack_uint32(&pk, m->last_input_seq);
  msgpack_pack_uint8(&pk, m->part_index);
  msgpack_pack_uint8(&pk, m->part_count);
  msgpack_pack_array(&pk, (size_t)m->entered_count);
  for (int i = 0; i < m->entered_count; i++) arb__pack_entered(&pk, &m->entered[i]);
  msgpack_pack_array(&pk, (size_t)m->changed_count);
  for (int i = 0; i < m->changed_count; i++) arb__pack_changed(&pk, &m->changed[i]);
  msgpack_pack_array(&pk, (size_t)m->removed_count);
  for (int i = 0; i < m->removed_count; i++) msgpack_pack_uint32(&pk, m->removed[i]);
  // An unreliable packet the decoder would refuse is not a snapshot.
  return w.len > ARB_PROTO_MAX_PAYLOAD ? ARB_E_TOO_BIG : arb__wbuf_result(&w);
}

static int dec_i32(arb__dec* d, const char* field, int32_t* out) {
  int64_t v;
  ARB__TRY(arb__dec_int(d, field, INT32_MIN, INT32_MAX, &v));
  *out = (int32_t)v;
  return 0;
}

static int dec_id(arb__dec* d, uint32_t prev, uint32_t* id) {
  size_t at = d->pos;
  ARB__TRY(arb__dec_u32(d, "id", 1, UINT32_MAX, id));
  if (*id <= prev) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, "id", "%u after %u: ids must be strictly increasing", *id, prev);
  }
  return 0;
}

static int dec_entered(arb__dec* d, uint32_t prev, arb_proto_entered* e) {
  uint32_t n, u;
  ARB__TRY(arb__dec_array(d, NULL, 11, 11, &n));
  ARB__TRY(dec_id(d, prev, &e->id));
  d->id = e->id;
  ARB__TRY(arb__dec_u32(d, "body_type", 0, ARB_BODY_TYPE_COUNT - 1, &u));
  e->desc.body_type = (uint8_t)u;
  ARB__TRY(arb__dec_u32(d, "avatar_kind", 0, ARB_AVATAR_KIND_COUNT - 1, &u));
  e->desc.avatar_kind = (uint8_t)u;
  ARB__TRY(arb__dec_u32(d, "owner", 0, UINT32_MAX, &e->desc.owner));
  ARB__TRY(arb__unpack_shape(d, &e->desc.shape));
  ARB__TRY(dec_i32(d, "x", &e->state.x));
  ARB__TRY(dec_i32(d, "y", &e->state.y));
  ARB__TRY(arb__dec_u32(d, "angle", 0, 65535, &u));
  e->state.angle = (uint16_t)u;
  ARB__TRY(dec_i32(d, "vx", &e->state.vx));
  ARB__TRY(dec_i32(d, "vy", &e->state.vy));
  ARB__TRY(dec_i32(d, "w", &e->state.w));
  return 0;
}

static int dec_changed(arb__dec* d, uint32_t prev, arb_proto_changed* c) {
  uint32_t n, m;
  size_t at = d->pos;
  ARB__TRY(arb__dec_array(d, NULL, 3, 8, &n));
  ARB__TRY(dec_id(d, prev, &c->id));
  d->id = c->id;
  ARB__TRY(arb__dec_u32(d, "mask", 1, ARB_PROTO_FIELD_ALL, &m));
  c->mask = (uint8_t)m;
  if (n != 2u + (uint32_t)arb__popcount6(m)) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, "mask", "mask 0x%02x names %d fields but the array holds %u", m,
                         arb__popcount6(m), n - 2);
  }
  memset(&c->delta, 0, sizeof c->delta);
  if (m & ARB_PROTO_FIELD_X) ARB__TRY(dec_i32(d, "x", &c->delta.x));
  if (m & ARB_PROTO_FIELD_Y) ARB__TRY(dec_i32(d, "y", &c->delta.y));
  if (m & ARB_PROTO_FIELD_ANGLE) {
    int64_t a;
    ARB__TRY(arb__dec_int(d, "angle", -32768, 32767, &a));
    c->delta.angle = (uint16_t)(a < 0 ? a + 65536 : a);
  }
  if (m & ARB_PROTO_FIELD_VX) ARB__TRY(dec_i32(d, "vx", &c->delta.vx));
  if (m & ARB_PROTO_FIELD_VY) ARB__TRY(dec_i32(d, "vy", &c->delta.vy));
  if (m & ARB_PROTO_FIELD_W) ARB__TRY(dec_i32(d, "w", &c->delta.w));
  return 0;
}

// Item i of one of the three lists, ids strictly increasing after prev; *id = its id.
typedef int dec_item_fn(arb__dec* d, uint32_t prev, arb_proto_snapshot* out, uint32_t i, uint32_t* id);

static int entered_item(arb__dec* d, uint32_t prev, arb_proto_snapshot* out, uint32_t i, uint32_t* id) {
  ARB__TRY(dec_entered(d, prev, &out->entered[i]));
  *id = out->entered[i].id;
  return 0;
}
static int changed_item(arb__dec* d, uint32_t prev, arb_proto_snapshot* out, uint32_t i, uint32_t* id) {
  ARB__TRY(dec_changed(d, prev, &out->changed[i]));
  *id = out->changed[i].id;
  return 0;
}
static int removed_item(arb__dec* d, uint32_t prev, arb_proto_snapshot* out, uint32_t i, uint32_t* id) {
  ARB__TRY(dec_id(d, prev, &out->removed[i]));
  *id = out->removed[i];
  return 0;
}

// One entity list of a snapshot; `delta_only` lists must be empty in a full snapshot.
static int dec_list(arb__dec* d, const char* name, uint32_t max, bool delta_only, dec_item_fn* item,
                    arb_proto_snapshot* out, int* count) {
  uint32_t n, prev = 0;
  size_t at = d->pos;
  ARB__TRY(arb__dec_array(d, name, 0, max, &n));
  if (n && delta_only && out->baseline_tick == 0) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, name, "a full snapshot (baseline_tick 0) has no %s entities", name);
  }
  d->list = name;
  for (uint32_t i = 0; i < n; i++) {
    d->index = (int)i;
    d->id = 0;
    ARB__TRY(item(d, prev, out, i, &prev));
    *count = (int)i + 1;
  }
  d->list = NULL;
  d->id = 0;
  return 0;
}

int arb_proto_decode_snapshot(const uint8_t* buf, size_t len, arb_proto_snapshot* out, arb_proto_error* err) {
  arb__dec d;
  arb__dec_init(&d, buf, len, err, "snapshot");
  ARB__TRY(arb__dec_header(&d, ARB_PROTO_MSG_SNAPSHOT, 9, ARB_PROTO_MAX_PAYLOAD));
  out->entered_count = out->changed_count = out->removed_count = 0;
  uint32_t u;
  size_t at = d.pos;
  ARB__TRY(arb__dec_u32(&d, "tick", 1, UINT32_MAX, &out->tick));
  at = d.pos;
  ARB__TRY(arb__dec_u32(&d, "baseline_tick", 0, out->tick - 1, &out->baseline_tick));
  ARB__TRY(arb__dec_u32(&d, "last_input_seq", 0, UINT32_MAX, &out->last_input_seq));
  at = d.pos;
  ARB__TRY(arb__dec_u32(&d, "part_index", 0, ARB_PROTO_MAX_PARTS - 1, &u));
  out->part_index = (uint8_t)u;
  ARB__TRY(arb__dec_u32(&d, "part_count", 1, ARB_PROTO_MAX_PARTS, &u));
  out->part_count = (uint8_t)u;
  if (out->part_index >= out->part_count) {
    d.pos = at;
    return arb__dec_fail(&d, ARB_E_CORRUPT, "part_index", "part %u of %u", out->part_index, out->part_count);
  }

  ARB__TRY(dec_list(&d, "entered", ARB_PROTO_MAX_PART_ENTERED, false, entered_item, out, &out->entered_count));
  ARB__TRY(dec_list(&d, "changed", ARB_PROTO_MAX_PART_CHANGED, true, changed_item, out, &out->changed_count));
  ARB__TRY(dec_list(&d, "removed", ARB_PROTO_MAX_PART_REMOVED, true, removed_item, out, &out->removed_count));
  ARB__TRY(arb__dec_end(&d));
  uint32_t dup = overlap(out);
  if (dup) {
    out->entered_count = out->changed_count = out->removed_count = 0;
    return arb__dec_fail(&d, ARB_E_CORRUPT, NULL, "entity %u appears in two of entered/changed/removed", dup);
  }
  return 0;
}
