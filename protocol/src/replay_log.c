// The replay log (.arbrec), PROTOCOL.md "Replay log".
//
//   file   = magic "\x89ARBREC\n" (8 bytes), header record, record*, [end record]
//   record = u32 body_len (LE) | u8 kind | 3 zero bytes | body (msgpack) | u32 XXH32 (LE)
//            the checksum (seed 0) covers everything from body_len to the end of body
//
//   header     [format_version, build_id:str, scene_text:bin, scene_hash, tick_rate, seed,
//   start_time_ms, (version 2:) sim_version, predecessor:str] tick       [tick, [[client_id,
//   avatar_kind, entity_id, name:str], ...], [client_id, ...],
//               [[client_id, seq, mx, my, aim, buttons, steer, throttle, brake], ...], world_hash]
//   checkpoint [tick, world_hash, state:bin]
//   end        [last_tick, tick_count, end_time_ms]
//
// The checksum sits after the body so a torn append (crash mid-write) is always caught:
// either the frame is short (truncated) or its last 4 bytes are not the checksum.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <arbiter/replay_log.h>
#include <arbiter/state_codec.h>

#include "codec.h"

#define FRAME_HEAD 8

/* Pack the body at buf + prefix + 8, then write the frame around it when it fits. */
typedef struct frame {
  msgpack_packer pk;
  arb__wbuf w;
  uint8_t* buf;
  size_t cap;
  size_t prefix;
} frame;

static void frame_begin(frame* f, uint8_t* buf, size_t cap, size_t prefix) {
  f->buf = buf;
  f->cap = buf ? cap : 0;
  f->prefix = prefix;
  size_t start = prefix + FRAME_HEAD;
  if (f->cap > start + 4)
    arb__packer_init(&f->pk, &f->w, buf + start, f->cap - start - 4);
  else
    arb__packer_init(&f->pk, &f->w, NULL, 0);
}

static int64_t frame_end(frame* f, uint8_t kind) {
  if (f->w.len > ARB_REPLAY_MAX_RECORD) return ARB_E_TOO_BIG;
  size_t total = f->prefix + FRAME_HEAD + f->w.len + 4;
  if (f->buf && total <= f->cap) {
    uint8_t* p = f->buf + f->prefix;
    arb_store_le32(p, (uint32_t)f->w.len);
    p[4] = kind;
    p[5] = p[6] = p[7] = 0;
    arb_store_le32(p + FRAME_HEAD + f->w.len, XXH32(p, FRAME_HEAD + f->w.len, 0));
  }
  return (int64_t)total;
}

// ---- encoders ----------------------------------------------------------------------------

int64_t arb_replay_encode_header(const arb_replay_header* h, uint8_t* buf, size_t cap) {
  // Version 1 is still written on request (tests of old logs), without the new fields.
  if (!h || (h->format_version != ARB_REPLAY_FORMAT_VERSION && h->format_version != 1))
    return ARB_E_VERSION;
  bool v1 = h->format_version == 1;
  if (h->build_id_len > ARB_REPLAY_MAX_BUILD_ID || (h->build_id_len && !h->build_id))
    return ARB_E_INVAL;
  if (h->predecessor_len > ARB_REPLAY_MAX_PREDECESSOR || (h->predecessor_len && !h->predecessor) ||
      (v1 && (h->predecessor_len || h->sim_version)) ||
      !arb__utf8_valid((const uint8_t*)h->predecessor, h->predecessor_len, true))
    return ARB_E_INVAL;
  if (h->scene_len > ARB_REPLAY_MAX_SCENE_TEXT || (h->scene_len && !h->scene_text))
    return ARB_E_TOO_BIG;
  if (h->tick_rate < 1 || h->tick_rate > 1000) return ARB_E_RANGE;
  if (!arb__utf8_valid((const uint8_t*)h->build_id, h->build_id_len, true)) return ARB_E_INVAL;
  frame f;
  frame_begin(&f, buf, cap, ARB_REPLAY_MAGIC_LEN);
  msgpack_pack_array(&f.pk, v1 ? 7 : 9);
  msgpack_pack_uint32(&f.pk, h->format_version);
  msgpack_pack_str_with_body(&f.pk, h->build_id, h->build_id_len);
  msgpack_pack_bin_with_body(&f.pk, h->scene_text, h->scene_len);
  msgpack_pack_uint64(&f.pk, h->scene_hash);
  msgpack_pack_uint16(&f.pk, h->tick_rate);
  msgpack_pack_uint64(&f.pk, h->seed);
  msgpack_pack_int64(&f.pk, h->start_time_ms);
  if (!v1) {
    msgpack_pack_uint64(&f.pk, h->sim_version);
    msgpack_pack_str_with_body(&f.pk, h->predecessor, h->predecessor_len);
  }
  int64_t total = frame_end(&f, ARB_REPLAY_HEADER);
  if (total > 0 && buf && (size_t)total <= cap) memcpy(buf, ARB_REPLAY_MAGIC, ARB_REPLAY_MAGIC_LEN);
  return total;
}

int64_t arb_replay_encode_tick(const arb_replay_tick* t, uint8_t* buf, size_t cap) {
  if (!t || t->tick == 0) return ARB_E_INVAL;
  if (t->join_count < 0 || t->join_count > ARB_PROTO_MAX_CLIENTS || t->leave_count < 0 ||
      t->leave_count > ARB_PROTO_MAX_CLIENTS || t->input_count < 0 ||
      t->input_count > ARB_PROTO_MAX_CLIENTS)
    return ARB_E_TOO_BIG;
  for (int i = 0; i < t->join_count; i++) {
    const arb_replay_join* j = &t->joins[i];
    size_t nl = arb__strnlen(j->name, sizeof j->name);
    if (j->client_id == 0 || j->avatar_kind >= ARB_AVATAR_KIND_COUNT || nl > ARB_PROTO_MAX_NAME ||
        !arb__utf8_valid((const uint8_t*)j->name, nl, true))
      return ARB_E_INVAL;
  }
  for (int i = 0; i < t->leave_count; i++)
    if (t->leaves[i] == 0) return ARB_E_INVAL;
  for (int i = 0; i < t->input_count; i++) {
    if (t->inputs[i].client_id == 0) return ARB_E_INVAL;
    ARB__TRY(arb__check_controls(&t->inputs[i].controls));
  }
  frame f;
  frame_begin(&f, buf, cap, 0);
  msgpack_packer* pk = &f.pk;
  msgpack_pack_array(pk, 5);
  msgpack_pack_uint64(pk, t->tick);
  msgpack_pack_array(pk, (size_t)t->join_count);
  for (int i = 0; i < t->join_count; i++) {
    const arb_replay_join* j = &t->joins[i];
    msgpack_pack_array(pk, 4);
    msgpack_pack_uint32(pk, j->client_id);
    msgpack_pack_uint8(pk, j->avatar_kind);
    msgpack_pack_uint32(pk, j->entity_id);
    msgpack_pack_str_with_body(pk, j->name, arb__strnlen(j->name, sizeof j->name));
  }
  msgpack_pack_array(pk, (size_t)t->leave_count);
  for (int i = 0; i < t->leave_count; i++) msgpack_pack_uint32(pk, t->leaves[i]);
  msgpack_pack_array(pk, (size_t)t->input_count);
  for (int i = 0; i < t->input_count; i++) {
    bool view = t->inputs[i].view_time != 0;  // logs without shots stay as they were
    msgpack_pack_array(pk, view ? 10 : 9);
    msgpack_pack_uint32(pk, t->inputs[i].client_id);
    msgpack_pack_uint32(pk, t->inputs[i].seq);
    arb__pack_controls(pk, &t->inputs[i].controls);
    if (view) msgpack_pack_uint64(pk, t->inputs[i].view_time);
  }
  msgpack_pack_uint64(pk, t->world_hash);
  return frame_end(&f, ARB_REPLAY_TICK);
}

int64_t arb_replay_encode_checkpoint(const arb_replay_checkpoint* c, uint8_t* buf, size_t cap) {
  if (!c || (c->state_len && !c->state)) return ARB_E_INVAL;
  if (c->state_len > ARB_REPLAY_MAX_CHECKPOINT) return ARB_E_TOO_BIG;
  frame f;
  frame_begin(&f, buf, cap, 0);
  msgpack_pack_array(&f.pk, 3);
  msgpack_pack_uint64(&f.pk, c->tick);
  msgpack_pack_uint64(&f.pk, c->world_hash);
  msgpack_pack_bin_with_body(&f.pk, c->state, c->state_len);
  return frame_end(&f, ARB_REPLAY_CHECKPOINT);
}

int64_t arb_replay_encode_end(const arb_replay_end* e, uint8_t* buf, size_t cap) {
  if (!e) return ARB_E_INVAL;
  frame f;
  frame_begin(&f, buf, cap, 0);
  msgpack_pack_array(&f.pk, 3);
  msgpack_pack_uint64(&f.pk, e->last_tick);
  msgpack_pack_uint64(&f.pk, e->tick_count);
  msgpack_pack_int64(&f.pk, e->end_time_ms);
  return frame_end(&f, ARB_REPLAY_END);
}

// ---- body decoders -----------------------------------------------------------------------

// A str of at most `max` bytes that must be UTF-8 without control characters; *text points
// into the input (no NUL).
static int dec_plain_text(arb__dec* d, const char* field, uint32_t max, const char** text,
                          size_t* len) {
  size_t at = d->pos;
  const uint8_t* s;
  uint32_t n;
  ARB__TRY(arb__dec_str(d, field, max, &s, &n));
  if (!arb__utf8_valid(s, n, true)) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, field, "not valid UTF-8 without control characters");
  }
  *text = (const char*)s;
  *len = n;
  return 0;
}

static int dec_header_body(const uint8_t* body, size_t len, arb_replay_header* h,
                           arb_proto_error* err) {
  arb__dec d;
  arb__dec_init(&d, body, len, err, "replay header");
  uint32_t n, u;
  ARB__TRY(arb__dec_array(&d, "header", 1, 255, &n));
  memset(h, 0, sizeof *h);
  size_t at = d.pos;
  ARB__TRY(arb__dec_u32(&d, "format_version", 0, UINT32_MAX, &h->format_version));
  if (h->format_version != ARB_REPLAY_FORMAT_VERSION && h->format_version != 1) {
    d.pos = at;
    return arb__dec_fail(&d, ARB_E_VERSION, "format_version",
                         "format version %u, this reader reads 1 to %u", h->format_version,
                         ARB_REPLAY_FORMAT_VERSION);
  }
  uint32_t want = h->format_version == 1 ? 7 : 9;
  if (n != want)
    return arb__dec_fail(&d, ARB_E_CORRUPT, NULL, "header of %u elements, expected %u", n, want);
  ARB__TRY(dec_plain_text(&d, "build_id", ARB_REPLAY_MAX_BUILD_ID, &h->build_id, &h->build_id_len));
  const uint8_t* s;
  uint32_t sl;
  ARB__TRY(arb__dec_bin(&d, "scene_text", ARB_REPLAY_MAX_SCENE_TEXT, &s, &sl));
  h->scene_text = (const char*)s;
  h->scene_len = sl;
  ARB__TRY(arb__dec_uint(&d, "scene_hash", 0, UINT64_MAX, &h->scene_hash));
  ARB__TRY(arb__dec_u32(&d, "tick_rate", 1, 1000, &u));
  h->tick_rate = (uint16_t)u;
  ARB__TRY(arb__dec_uint(&d, "seed", 0, UINT64_MAX, &h->seed));
  ARB__TRY(arb__dec_int(&d, "start_time_ms", INT64_MIN, INT64_MAX, &h->start_time_ms));
  if (want == 9) {
    ARB__TRY(arb__dec_uint(&d, "sim_version", 0, UINT64_MAX, &h->sim_version));
    ARB__TRY(dec_plain_text(&d, "predecessor", ARB_REPLAY_MAX_PREDECESSOR, &h->predecessor,
                            &h->predecessor_len));
  }
  return arb__dec_end(&d);
}

// Enters a list of a tick record: decodes its length and names it in failures inside.
static int enter_list(arb__dec* d, const char* name, uint32_t* n) {
  ARB__TRY(arb__dec_array(d, name, 0, ARB_PROTO_MAX_CLIENTS, n));
  d->list = name;
  return 0;
}

// Element i of the entered list, its client id not read yet.
static void enter_item(arb__dec* d, uint32_t i) {
  d->index = (int)i;
  d->id = 0;
}

static void leave_list(arb__dec* d) {
  d->list = NULL;
  d->id = 0;
}

/* out may be NULL: validate only. */
static int dec_tick_body(const uint8_t* body, size_t len, arb_replay_tick* out, uint64_t* tick,
                         arb_proto_error* err) {
  arb__dec d;
  arb__dec_init(&d, body, len, err, "replay tick");
  uint32_t n, k;
  uint64_t t;
  ARB__TRY(arb__dec_array(&d, "tick record", 5, 5, &n));
  ARB__TRY(arb__dec_uint(&d, "tick", 1, UINT64_MAX, &t));
  *tick = t;
  if (out) {
    out->tick = t;
    out->join_count = out->leave_count = out->input_count = 0;
  }
  d.id_label = "client";
  ARB__TRY(enter_list(&d, "joins", &n));
  for (uint32_t i = 0; i < n; i++) {
    arb_replay_join tmp, *j = out ? &out->joins[i] : &tmp;
    enter_item(&d, i);
    uint32_t u;
    ARB__TRY(arb__dec_array(&d, NULL, 4, 4, &k));
    ARB__TRY(arb__dec_u32(&d, "client_id", 1, UINT32_MAX, &j->client_id));
    d.id = j->client_id;
    ARB__TRY(arb__dec_u32(&d, "avatar_kind", 0, ARB_AVATAR_KIND_COUNT - 1, &u));
    j->avatar_kind = (uint8_t)u;
    ARB__TRY(arb__dec_u32(&d, "entity_id", 0, UINT32_MAX, &j->entity_id));
    ARB__TRY(arb__dec_text(&d, "name", 0, ARB_PROTO_MAX_NAME, true, j->name));
  }
  if (out) out->join_count = (int)n;
  leave_list(&d);
  ARB__TRY(enter_list(&d, "leaves", &n));
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id;
    enter_item(&d, i);
    ARB__TRY(arb__dec_u32(&d, "client_id", 1, UINT32_MAX, &id));
    if (out) out->leaves[i] = id;
  }
  if (out) out->leave_count = (int)n;
  leave_list(&d);
  ARB__TRY(enter_list(&d, "inputs", &n));
  for (uint32_t i = 0; i < n; i++) {
    arb_replay_input tmp, *in = out ? &out->inputs[i] : &tmp;
    enter_item(&d, i);
    ARB__TRY(arb__dec_array(&d, NULL, 9, 10, &k));
    ARB__TRY(arb__dec_u32(&d, "client_id", 1, UINT32_MAX, &in->client_id));
    d.id = in->client_id;
    ARB__TRY(arb__dec_u32(&d, "seq", 0, UINT32_MAX, &in->seq));
    ARB__TRY(arb__unpack_controls(&d, &in->controls));
    in->view_time = 0;
    if (k == 10) ARB__TRY(arb__dec_uint(&d, "view_time", 1, UINT64_MAX, &in->view_time));
  }
  if (out) out->input_count = (int)n;
  leave_list(&d);
  uint64_t h;
  ARB__TRY(arb__dec_uint(&d, "world_hash", 0, UINT64_MAX, &h));
  if (out) out->world_hash = h;
  return arb__dec_end(&d);
}

static int dec_checkpoint_body(const uint8_t* body, size_t len, arb_replay_checkpoint* c,
                               arb_proto_error* err) {
  arb__dec d;
  arb__dec_init(&d, body, len, err, "replay checkpoint");
  uint32_t n, sl;
  const uint8_t* s;
  ARB__TRY(arb__dec_array(&d, "checkpoint record", 3, 3, &n));
  ARB__TRY(arb__dec_uint(&d, "tick", 0, UINT64_MAX, &c->tick));
  ARB__TRY(arb__dec_uint(&d, "world_hash", 0, UINT64_MAX, &c->world_hash));
  ARB__TRY(arb__dec_bin(&d, "state", ARB_REPLAY_MAX_CHECKPOINT, &s, &sl));
  c->state = s;
  c->state_len = sl;
  return arb__dec_end(&d);
}

static int dec_end_body(const uint8_t* body, size_t len, arb_replay_end* e, arb_proto_error* err) {
  arb__dec d;
  arb__dec_init(&d, body, len, err, "replay end");
  uint32_t n;
  ARB__TRY(arb__dec_array(&d, "end record", 3, 3, &n));
  ARB__TRY(arb__dec_uint(&d, "last_tick", 0, UINT64_MAX, &e->last_tick));
  ARB__TRY(arb__dec_uint(&d, "tick_count", 0, UINT64_MAX, &e->tick_count));
  ARB__TRY(arb__dec_int(&d, "end_time_ms", INT64_MIN, INT64_MAX, &e->end_time_ms));
  return arb__dec_end(&d);
}

int arb_replay_decode_tick(const arb_replay_record* rec, arb_replay_tick* out,
                           arb_proto_error* err) {
  if (!rec || !out || rec->kind != ARB_REPLAY_TICK) return ARB_E_INVAL;
  uint64_t t;
  return dec_tick_body(rec->body, rec->body_len, out, &t, err);
}

int arb_replay_decode_checkpoint(const arb_replay_record* rec, arb_replay_checkpoint* out,
                                 arb_proto_error* err) {
  if (!rec || !out || rec->kind != ARB_REPLAY_CHECKPOINT) return ARB_E_INVAL;
  return dec_checkpoint_body(rec->body, rec->body_len, out, err);
}

int arb_replay_decode_end(const arb_replay_record* rec, arb_replay_end* out, arb_proto_error* err) {
  if (!rec || !out || rec->kind != ARB_REPLAY_END) return ARB_E_INVAL;
  return dec_end_body(rec->body, rec->body_len, out, err);
}

// ---- reader ------------------------------------------------------------------------------

static int stop(arb_replay_reader* r, arb_replay_stop why, int code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int stop(arb_replay_reader* r, arb_replay_stop why, int code, const char* fmt, ...) {
  r->stop = why;
  r->error.code = code;
  r->error.offset = r->offset;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->error.reason, sizeof r->error.reason, fmt, ap);
  va_end(ap);
  return 0;
}

/* Frame at r->offset: returns 1 with the body, or 0 after stop(). Never reads past len. */
static int read_frame(arb_replay_reader* r, arb_replay_record* rec) {
  size_t left = r->len - r->offset;
  const uint8_t* p = r->data + r->offset;
  if (left < FRAME_HEAD + 4)
    return stop(r, ARB_REPLAY_STOP_TRUNCATED, ARB_E_TRUNCATED,
                "record cut short: %zu bytes, a frame needs at least %d", left, FRAME_HEAD + 4);
  uint32_t blen = arb_load_le32(p);
  if (blen > ARB_REPLAY_MAX_RECORD)
    return stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT,
                "record length %" PRIu32 " over the limit %d", blen, ARB_REPLAY_MAX_RECORD);
  if ((size_t)blen + FRAME_HEAD + 4 > left)
    return stop(r, ARB_REPLAY_STOP_TRUNCATED, ARB_E_TRUNCATED,
                "record cut short: length says %zu bytes, %zu remain",
                (size_t)blen + FRAME_HEAD + 4, left);
  uint32_t stored = arb_load_le32(p + FRAME_HEAD + blen);
  uint32_t computed = XXH32(p, FRAME_HEAD + (size_t)blen, 0);
  if (stored != computed)
    return stop(r, ARB_REPLAY_STOP_CHECKSUM, ARB_E_CHECKSUM,
                "record checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
                stored, computed);
  if (p[4] == ARB_REPLAY_NONE || p[4] >= ARB_REPLAY_KIND_COUNT || p[5] || p[6] || p[7])
    return stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT, "unknown record kind %u", p[4]);
  rec->kind = p[4];
  rec->offset = r->offset;
  rec->size = blen + FRAME_HEAD + 4;
  rec->body = p + FRAME_HEAD;
  rec->body_len = blen;
  rec->tick = 0;
  return 1;
}

int arb_replay_reader_open(arb_replay_reader* r, const uint8_t* data, size_t len,
                           arb_proto_error* err) {
  if (!r) return ARB_E_INVAL;
  memset(r, 0, sizeof *r);
  r->data = data;
  r->len = data ? len : 0;
  int code = 0;
  if (r->len < ARB_REPLAY_MAGIC_LEN) {
    if (memcmp(data ? (const void*)data : "", ARB_REPLAY_MAGIC, r->len) == 0) {
      stop(r, ARB_REPLAY_STOP_TRUNCATED, ARB_E_TRUNCATED,
           "file of %zu bytes is shorter than the magic", r->len);
      code = ARB_E_TRUNCATED;
    } else {
      stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT, "not an .arbrec file (bad magic)");
      code = ARB_E_CORRUPT;
    }
  } else if (memcmp(data, ARB_REPLAY_MAGIC, ARB_REPLAY_MAGIC_LEN) != 0) {
    stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT, "not an .arbrec file (bad magic)");
    code = ARB_E_CORRUPT;
  } else {
    r->offset = ARB_REPLAY_MAGIC_LEN;
    arb_replay_record rec;
    if (!read_frame(r, &rec)) {
      code = r->error.code;
    } else if (rec.kind != ARB_REPLAY_HEADER) {
      stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT,
           "first record is a %s record, expected header", arb_replay_kind_name(rec.kind));
      code = ARB_E_CORRUPT;
    } else {
      arb_proto_error e;
      code = dec_header_body(rec.body, rec.body_len, &r->header, &e);
      if (code < 0) {
        stop(r, ARB_REPLAY_STOP_CORRUPT, code, "%s", e.reason);
      } else {
        r->offset += rec.size;
        r->last_good_offset = r->offset;
        r->record_count = 1;
      }
    }
  }
  if (code < 0 && err) *err = r->error;
  return code;
}

int arb_replay_reader_next(arb_replay_reader* r, arb_replay_record* rec) {
  if (!r || !rec || r->stop != ARB_REPLAY_STOP_NONE) return 0;
  if (r->offset == r->len) {
    if (r->saw_end) {
      r->stop = ARB_REPLAY_STOP_CLEAN;
      return 0;
    }
    return stop(r, ARB_REPLAY_STOP_EOF, 0,
                "the log ends without an end record (recorder still running or crashed)");
  }
  if (r->saw_end)
    return stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT, "%zu bytes after the end record",
                r->len - r->offset);
  if (!read_frame(r, rec)) return 0;
  arb_proto_error e;
  int rc;
  switch (rec->kind) {
    case ARB_REPLAY_HEADER:
      return stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT, "a second header record");
    case ARB_REPLAY_TICK: {
      uint64_t t = 0;
      rc = dec_tick_body(rec->body, rec->body_len, NULL, &t, &e);
      if (rc < 0) return stop(r, ARB_REPLAY_STOP_CORRUPT, rc, "%s", e.reason);
      if (r->tick_known && t != r->game_tick + 1)
        return stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT,
                    "tick record %" PRIu64 " after tick %" PRIu64, t, r->game_tick);
      rec->tick = t;
      r->tick_known = true;
      r->game_tick = t;
      r->last_tick = t;
      r->tick_count++;
      break;
    }
    case ARB_REPLAY_CHECKPOINT: {
      arb_replay_checkpoint c;
      rc = dec_checkpoint_body(rec->body, rec->body_len, &c, &e);
      if (rc < 0) return stop(r, ARB_REPLAY_STOP_CORRUPT, rc, "%s", e.reason);
      if (r->tick_known && c.tick != r->game_tick)
        return stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT,
                    "checkpoint of tick %" PRIu64 " after tick %" PRIu64, c.tick, r->game_tick);
      rec->tick = c.tick;
      r->tick_known = true;
      r->game_tick = c.tick;
      break;
    }
    default: {
      arb_replay_end en;
      rc = dec_end_body(rec->body, rec->body_len, &en, &e);
      if (rc < 0) return stop(r, ARB_REPLAY_STOP_CORRUPT, rc, "%s", e.reason);
      if (en.last_tick != r->last_tick || en.tick_count != r->tick_count)
        return stop(r, ARB_REPLAY_STOP_CORRUPT, ARB_E_CORRUPT,
                    "end record says last tick %" PRIu64 " of %" PRIu64 ", the log has %" PRIu64
                    " of %" PRIu64,
                    en.last_tick, en.tick_count, r->last_tick, r->tick_count);
      rec->tick = en.last_tick;
      r->saw_end = true;
      break;
    }
  }
  r->offset += rec->size;
  r->last_good_offset = r->offset;
  r->record_count++;
  return 1;
}

const char* arb_replay_reader_describe(const arb_replay_reader* r, char* buf, size_t cap) {
  if (!buf || cap == 0) return buf;
  if (!r) {
    snprintf(buf, cap, "no reader");
    return buf;
  }
  switch (r->stop) {
    case ARB_REPLAY_STOP_NONE:
      snprintf(buf, cap, "reading: %" PRIu64 " records, at offset %zu, last tick %" PRIu64,
               r->record_count, r->offset, r->last_tick);
      break;
    case ARB_REPLAY_STOP_CLEAN:
      snprintf(buf, cap, "clean end: %" PRIu64 " tick records, last tick %" PRIu64 ", %zu bytes",
               r->tick_count, r->last_tick, r->len);
      break;
    default:
      snprintf(buf, cap,
               "%s: stopped at offset %zu after tick %" PRIu64 " (%" PRIu64
               " tick records; last good byte %" PRIu64 " of %zu): %s",
               arb_replay_stop_name(r->stop), r->offset, r->last_tick, r->tick_count,
               r->last_good_offset, r->len, r->error.reason);
  }
  return buf;
}
