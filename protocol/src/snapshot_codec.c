// The snapshot message (PROTOCOL.md, "snapshot"):
//
//   [9, tick, baseline_tick, last_input_seq, part_index, part_count, tick_rate,
//    gravity_x, gravity_y, descs, stream]
//
// descs: one description per enter record of the stream, in stream order. stream: a
// msgpack bin holding the bit-packed records (snapshot_bits.c). The envelope stays msgpack
// so a generic msgpack reader can route and inspect it; the hot payload is bits.
#include <arbiter/world.h>
#include <math.h>
#include <string.h>

#include "codec.h"
#include "snapshot_internal.h"

#define SNAPSHOT_FIELDS 11

static int finite_coord(float v) {
  return isfinite(v) && fabsf(v) <= ARB_PROTO_MAX_COORD;
}

// Rope ends are particles; a spring or joint end may be 0 (the world: a static body or a
// fixed point, its anchor in world coordinates), but not both.
static bool link_ends_valid(uint32_t kind, uint32_t a, uint32_t b) {
  return kind == ARB_SNAPSHOT_LINK_ROPE ? a != 0 && b != 0 : (a | b) != 0;
}

static int check_desc(const arb_snapshot_desc* d) {
  switch (d->cls) {
    case ARB_SNAPSHOT_BODY:
      if (d->body_type >= ARB_BODY_TYPE_COUNT || d->avatar_kind >= ARB_AVATAR_KIND_COUNT)
        return ARB_E_RANGE;
      if (d->shape_count < 1 || d->shape_count > ARB_SNAPSHOT_MAX_SHAPES) return ARB_E_RANGE;
      for (int i = 0; i < d->shape_count; ++i) ARB__TRY(arb__check_shape(&d->shapes[i]));
      return 0;
    case ARB_SNAPSHOT_PARTICLE:
      return finite_coord(d->radius) && d->radius >= 0.0f ? 0 : ARB_E_RANGE;
    case ARB_SNAPSHOT_LINK:
      if (d->link_kind < ARB_SNAPSHOT_LINK_ROPE || d->link_kind > ARB_SNAPSHOT_LINK_JOINT)
        return ARB_E_RANGE;
      if (!link_ends_valid(d->link_kind, d->a, d->b)) return ARB_E_RANGE;
      return finite_coord(d->anchor_a.x) && finite_coord(d->anchor_a.y) &&
                     finite_coord(d->anchor_b.x) && finite_coord(d->anchor_b.y)
                 ? 0
                 : ARB_E_RANGE;
    case ARB_SNAPSHOT_WHEEL:
      if (d->a == 0 || !(d->radius > 0.0f) || !finite_coord(d->radius)) return ARB_E_RANGE;
      return finite_coord(d->anchor_a.x) && finite_coord(d->anchor_a.y) ? 0 : ARB_E_RANGE;
    default:
      return ARB_E_INVAL;
  }
}

static void pack_desc(msgpack_packer* pk, const arb_snapshot_desc* d) {
  switch (d->cls) {
    case ARB_SNAPSHOT_BODY:
      msgpack_pack_array(pk, 5);
      msgpack_pack_uint8(pk, d->cls);
      msgpack_pack_uint8(pk, d->body_type);
      msgpack_pack_uint8(pk, d->avatar_kind);
      msgpack_pack_uint32(pk, d->owner);
      msgpack_pack_array(pk, d->shape_count);
      for (int i = 0; i < d->shape_count; ++i) arb__pack_shape(pk, &d->shapes[i]);
      break;
    case ARB_SNAPSHOT_PARTICLE:
      msgpack_pack_array(pk, 2);
      msgpack_pack_uint8(pk, d->cls);
      msgpack_pack_float(pk, d->radius);
      break;
    case ARB_SNAPSHOT_LINK:
      msgpack_pack_array(pk, 9);
      msgpack_pack_uint8(pk, d->cls);
      msgpack_pack_uint8(pk, d->link_kind);
      msgpack_pack_uint8(pk, d->joint_type);
      msgpack_pack_uint32(pk, d->a);
      msgpack_pack_uint32(pk, d->b);
      msgpack_pack_float(pk, d->anchor_a.x);
      msgpack_pack_float(pk, d->anchor_a.y);
      msgpack_pack_float(pk, d->anchor_b.x);
      msgpack_pack_float(pk, d->anchor_b.y);
      break;
    default:  // wheel
      msgpack_pack_array(pk, 5);
      msgpack_pack_uint8(pk, d->cls);
      msgpack_pack_uint32(pk, d->a);
      msgpack_pack_float(pk, d->anchor_a.x);
      msgpack_pack_float(pk, d->anchor_a.y);
      msgpack_pack_float(pk, d->radius);
      break;
  }
}

int arb__snapshot_desc_encode(const arb_snapshot_desc* d, uint8_t* buf, size_t cap) {
  ARB__TRY(check_desc(d));
  msgpack_packer pk;
  arb__wbuf w;
  arb__packer_init(&pk, &w, buf, cap);
  pack_desc(&pk, d);
  return arb__wbuf_result(&w);
}

static int check_header(const arb_snapshot_header* h) {
  if (h->tick == 0 || h->baseline_tick >= h->tick) return ARB_E_INVAL;
  if (h->baseline_tick != 0 && h->tick - h->baseline_tick > ARB_SNAPSHOT_MAX_DT) return ARB_E_RANGE;
  if (h->part_count < 1 || h->part_index >= h->part_count) return ARB_E_RANGE;
  if (h->tick_rate < 1 || h->tick_rate > 1000) return ARB_E_RANGE;
  if (h->gravity_x < -ARB_SNAPSHOT_MAX_GRAVITY || h->gravity_x > ARB_SNAPSHOT_MAX_GRAVITY ||
      h->gravity_y < -ARB_SNAPSHOT_MAX_GRAVITY || h->gravity_y > ARB_SNAPSHOT_MAX_GRAVITY)
    return ARB_E_RANGE;
  return 0;
}

/* Enter records name descriptions in order (each new one is the next unused; others
 * repeat an earlier one), every description is named, classes agree; a full snapshot
 * holds enter records only. */
static int check_pairing(const arb_snapshot_part* p) {
  int named = 0;
  for (int i = 0; i < p->record_count; ++i) {
    const arb_snapshot_record* r = &p->records[i];
    if (p->h.baseline_tick == 0 && r->op != ARB_SNAPSHOT_ENTER) return ARB_E_INVAL;
    if (r->op != ARB_SNAPSHOT_ENTER) continue;
    if (r->desc > named || r->desc >= p->desc_count || p->descs[r->desc].cls != r->cls)
      return ARB_E_INVAL;
    if (r->desc == named) ++named;
  }
  return named == p->desc_count ? 0 : ARB_E_INVAL;
}

int arb_proto_encode_snapshot(const arb_snapshot_part* p, uint8_t* buf, size_t cap) {
  if (!p) return ARB_E_INVAL;
  ARB__TRY(check_header(&p->h));
  if (p->desc_count < 0 || p->desc_count > ARB_SNAPSHOT_MAX_PART_ENTERED) return ARB_E_TOO_BIG;
  if (p->record_count < 0 || p->record_count > ARB_SNAPSHOT_MAX_PART_RECORDS) return ARB_E_TOO_BIG;
  for (int i = 0; i < p->desc_count; ++i) ARB__TRY(check_desc(&p->descs[i]));
  ARB__TRY(check_pairing(p));
  uint8_t bits[ARB_PROTO_MAX_PAYLOAD];
  arb_bit_writer bw;
  arb_bits_writer_init(&bw, bits, sizeof bits);
  ARB__TRY(arb__snapshot_write_stream(&bw, p->records, p->record_count));
  size_t nbits = arb_bits_writer_bytes(&bw);

  msgpack_packer pk;
  arb__wbuf w;
  arb__packer_init(&pk, &w, buf, cap);
  msgpack_pack_array(&pk, SNAPSHOT_FIELDS);
  msgpack_pack_uint8(&pk, ARB_PROTO_MSG_SNAPSHOT);
  msgpack_pack_uint32(&pk, p->h.tick);
  msgpack_pack_uint32(&pk, p->h.baseline_tick);
  msgpack_pack_uint32(&pk, p->h.last_input_seq);
  msgpack_pack_uint8(&pk, p->h.part_index);
  msgpack_pack_uint8(&pk, p->h.part_count);
  msgpack_pack_uint16(&pk, p->h.tick_rate);
  msgpack_pack_int32(&pk, p->h.gravity_x);
  msgpack_pack_int32(&pk, p->h.gravity_y);
  msgpack_pack_array(&pk, (size_t)p->desc_count);
  for (int i = 0; i < p->desc_count; ++i) pack_desc(&pk, &p->descs[i]);
  msgpack_pack_bin(&pk, nbits);
  msgpack_pack_bin_body(&pk, bits, nbits);
  return w.len > ARB_PROTO_MAX_PAYLOAD ? ARB_E_TOO_BIG : arb__wbuf_result(&w);
}

static int dec_point(arb__dec* d, const char* fx, const char* fy, arb_vec2* p) {
  ARB__TRY(arb__dec_float(d, fx, -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD, &p->x));
  return arb__dec_float(d, fy, -ARB_PROTO_MAX_COORD, ARB_PROTO_MAX_COORD, &p->y);
}

/* Wheels have a radius > 0; a particle's may be 0 (a point that does not collide). */
static int dec_radius(arb__dec* d, float* r, int zero_ok) {
  size_t at = d->pos;
  ARB__TRY(arb__dec_float(d, "radius", 0.0, ARB_PROTO_MAX_COORD, r));
  if (*r > 0.0f || zero_ok) return 0;
  d->pos = at;
  return arb__dec_fail(d, ARB_E_RANGE, "radius", "must be > 0");
}

static int dec_body(arb__dec* d, arb_snapshot_desc* o) {
  uint32_t v, n;
  ARB__TRY(arb__dec_u32(d, "body_type", 0, ARB_BODY_TYPE_COUNT - 1, &v));
  o->body_type = (uint8_t)v;
  ARB__TRY(arb__dec_u32(d, "avatar_kind", 0, ARB_AVATAR_KIND_COUNT - 1, &v));
  o->avatar_kind = (uint8_t)v;
  ARB__TRY(arb__dec_u32(d, "owner", 0, UINT32_MAX, &o->owner));
  ARB__TRY(arb__dec_array(d, "shapes", 1, ARB_SNAPSHOT_MAX_SHAPES, &n));
  o->shape_count = (uint8_t)n;
  for (uint32_t i = 0; i < n; ++i) ARB__TRY(arb__unpack_shape(d, &o->shapes[i]));
  return 0;
}

static int dec_link(arb__dec* d, arb_snapshot_desc* o) {
  uint32_t v;
  ARB__TRY(arb__dec_u32(d, "link_kind", ARB_SNAPSHOT_LINK_ROPE, ARB_SNAPSHOT_LINK_JOINT, &v));
  o->link_kind = (uint8_t)v;
  ARB__TRY(arb__dec_u32(d, "joint_type", 0, 255, &v));
  o->joint_type = (uint8_t)v;
  size_t at = d->pos;
  ARB__TRY(arb__dec_u32(d, "a", 0, UINT32_MAX, &o->a));
  ARB__TRY(arb__dec_u32(d, "b", 0, UINT32_MAX, &o->b));
  if (!link_ends_valid(o->link_kind, o->a, o->b)) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_RANGE, "link", "ends %u and %u: %s", o->a, o->b,
                         o->link_kind == ARB_SNAPSHOT_LINK_ROPE
                             ? "a rope joins two particles (ids >= 1)"
                             : "at most one end may be the world (0)");
  }
  ARB__TRY(dec_point(d, "anchor_a.x", "anchor_a.y", &o->anchor_a));
  return dec_point(d, "anchor_b.x", "anchor_b.y", &o->anchor_b);
}

static int dec_desc(arb__dec* d, arb_snapshot_desc* o) {
  memset(o, 0, sizeof *o);
  size_t at = d->pos;
  uint32_t n, cls;
  ARB__TRY(arb__dec_array(d, "desc", 2, 9, &n));
  ARB__TRY(arb__dec_u32(d, "class", ARB_SNAPSHOT_BODY, ARB_SNAPSHOT_WHEEL, &cls));
  static const uint32_t fields[5] = {0, 5, 2, 9, 5};
  if (n != fields[cls]) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, "desc",
                         "class %u description with %u elements, expected %u", cls, n, fields[cls]);
  }
  o->cls = (uint8_t)cls;
  switch (cls) {
    case ARB_SNAPSHOT_BODY:
      return dec_body(d, o);
    case ARB_SNAPSHOT_PARTICLE:
      return dec_radius(d, &o->radius, 1);
    case ARB_SNAPSHOT_LINK:
      return dec_link(d, o);
    default:
      ARB__TRY(arb__dec_u32(d, "vehicle", 1, UINT32_MAX, &o->a));
      ARB__TRY(dec_point(d, "mount.x", "mount.y", &o->anchor_a));
      return dec_radius(d, &o->radius, 0);
  }
}

static int dec_header(arb__dec* d, arb_snapshot_header* h) {
  uint32_t v;
  int64_t g;
  ARB__TRY(arb__dec_header(d, (arb_proto_msg_type)ARB_PROTO_MSG_SNAPSHOT, SNAPSHOT_FIELDS,
                           ARB_PROTO_MAX_PAYLOAD));
  ARB__TRY(arb__dec_u32(d, "tick", 1, UINT32_MAX, &h->tick));
  size_t at = d->pos;
  ARB__TRY(arb__dec_u32(d, "baseline_tick", 0, h->tick - 1u, &h->baseline_tick));
  if (h->baseline_tick != 0 && h->tick - h->baseline_tick > ARB_SNAPSHOT_MAX_DT) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_RANGE, "baseline_tick", "%u ticks before tick, at most %d",
                         h->tick - h->baseline_tick, ARB_SNAPSHOT_MAX_DT);
  }
  ARB__TRY(arb__dec_u32(d, "last_input_seq", 0, UINT32_MAX, &h->last_input_seq));
  ARB__TRY(arb__dec_u32(d, "part_index", 0, ARB_PROTO_MAX_PARTS - 1, &v));
  h->part_index = (uint8_t)v;
  ARB__TRY(arb__dec_u32(d, "part_count", (uint32_t)h->part_index + 1u, ARB_PROTO_MAX_PARTS, &v));
  h->part_count = (uint8_t)v;
  ARB__TRY(arb__dec_u32(d, "tick_rate", 1, 1000, &v));
  h->tick_rate = (uint16_t)v;
  ARB__TRY(arb__dec_int(d, "gravity_x", -ARB_SNAPSHOT_MAX_GRAVITY, ARB_SNAPSHOT_MAX_GRAVITY, &g));
  h->gravity_x = (int32_t)g;
  ARB__TRY(arb__dec_int(d, "gravity_y", -ARB_SNAPSHOT_MAX_GRAVITY, ARB_SNAPSHOT_MAX_GRAVITY, &g));
  h->gravity_y = (int32_t)g;
  return 0;
}

int arb_proto_decode_snapshot(const uint8_t* buf, size_t len, arb_snapshot_part* out,
                              arb_proto_error* err) {
  arb__dec d;
  arb__dec_init(&d, buf, len, err, "snapshot");
  ARB__TRY(dec_header(&d, &out->h));
  uint32_t n;
  ARB__TRY(arb__dec_array(&d, "descs", 0, ARB_SNAPSHOT_MAX_PART_ENTERED, &n));
  d.list = "descs";
  for (uint32_t i = 0; i < n; ++i) {
    d.index = (int)i;
    ARB__TRY(dec_desc(&d, &out->descs[i]));
  }
  d.list = NULL;
  out->desc_count = (int)n;
  const uint8_t* bits;
  uint32_t nbits;
  size_t at = d.pos;
  ARB__TRY(arb__dec_bin(&d, "stream", ARB_PROTO_MAX_PAYLOAD, &bits, &nbits));
  ARB__TRY(arb__dec_end(&d));
  arb_bit_reader r;
  arb_bits_reader_init(&r, bits, nbits);
  int rc = arb__snapshot_read_stream(&r, out, err);
  if (rc != 0) {
    if (err) err->offset += at;
    return rc;
  }
  if (check_pairing(out) != 0) {
    d.pos = at;
    return arb__dec_fail(
        &d, ARB_E_CORRUPT, "stream",
        "enter records and descriptions do not pair up (count or class), or a full snapshot "
        "holds updates/removals");
  }
  return 0;
}
