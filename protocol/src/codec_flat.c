// Flat messages (see codec.h): the encoder and decoder both walk the message's one field
// list, so the bytes written and the fields read back cannot drift apart.
#include <string.h>

#include "codec.h"

static uint64_t load_uint(const uint8_t* p, size_t size) {
  switch (size) {
    case 1:
      return *p;
    case 2: {
      uint16_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
    default: {
      uint64_t v;
      memcpy(&v, p, sizeof v);
      return v;
    }
  }
}

static void store_uint(uint8_t* p, size_t size, uint64_t v) {
  switch (size) {
    case 1:
      *p = (uint8_t)v;
      break;
    case 2: {
      uint16_t v16 = (uint16_t)v;
      memcpy(p, &v16, sizeof v16);
      break;
    }
    case 4: {
      uint32_t v32 = (uint32_t)v;
      memcpy(p, &v32, sizeof v32);
      break;
    }
    default:
      memcpy(p, &v, sizeof v);
  }
}

// 0, or why the message cannot be encoded: integers are checked before texts.
static int check_flat(const arb__flat_msg* f, const uint8_t* m) {
  for (int i = 0; i < f->field_count; ++i) {
    const arb__flat_field* fd = &f->fields[i];
    if (fd->kind != ARB__FLAT_KIND_UINT) continue;
    uint64_t v = load_uint(m + fd->offset, fd->size);
    if (v < fd->min || v > fd->max) return ARB_E_RANGE;
  }
  for (int i = 0; i < f->field_count; ++i) {
    const arb__flat_field* fd = &f->fields[i];
    if (fd->kind != ARB__FLAT_KIND_TEXT) continue;
    const char* text = (const char*)m + fd->offset;
    size_t tl = arb__strnlen(text, fd->size);
    if (tl > fd->max || !arb__utf8_valid((const uint8_t*)text, tl, false)) return ARB_E_INVAL;
  }
  return 0;
}

int arb__encode_flat(const arb__flat_msg* f, const void* m, uint8_t* buf, size_t cap) {
  const uint8_t* bytes = m;
  ARB__TRY(check_flat(f, bytes));
  msgpack_packer pk;
  arb__wbuf w;
  arb__pack_message(&pk, &w, buf, cap, &f->frame);
  for (int i = 0; i < f->field_count; ++i) {
    const arb__flat_field* fd = &f->fields[i];
    if (fd->kind == ARB__FLAT_KIND_UINT) {
      msgpack_pack_uint64(&pk, load_uint(bytes + fd->offset, fd->size));  // smallest form
    } else {
      const char* text = (const char*)bytes + fd->offset;
      msgpack_pack_str_with_body(&pk, text, arb__strnlen(text, fd->size));
    }
  }
  return arb__pack_message_result(&w, &f->frame);
}

int arb__decode_flat(const arb__flat_msg* f, const uint8_t* buf, size_t len, void* out,
                     arb_proto_error* err) {
  arb__dec d;
  ARB__TRY(arb__dec_message(&d, &f->frame, buf, len, err));
  uint8_t* bytes = out;
  memset(out, 0, f->struct_size);
  for (int i = 0; i < f->field_count; ++i) {
    const arb__flat_field* fd = &f->fields[i];
    if (fd->kind == ARB__FLAT_KIND_UINT) {
      uint64_t v = 0;
      ARB__TRY(arb__dec_uint(&d, fd->name, fd->min, fd->max, &v));
      store_uint(bytes + fd->offset, fd->size, v);
    } else {
      ARB__TRY(arb__dec_text(&d, fd->name, 0, (uint32_t)fd->max, false, (char*)bytes + fd->offset));
    }
  }
  return arb__dec_end(&d);
}
