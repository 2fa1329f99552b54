// The bounded msgpack reader (see mp.h for why it exists) and the writer glue.
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mp.h"

void arb__dec_init(arb__dec* d, const uint8_t* p, size_t len, arb_proto_error* err,
                   const char* msg) {
  d->p = p;
  d->len = p ? len : 0;
  d->pos = 0;
  d->err = err;
  d->msg = msg;
  d->list = NULL;
  d->index = 0;
  d->id = 0;
  d->id_label = "entity";
  if (err) {
    err->code = 0;
    err->offset = 0;
    err->reason[0] = '\0';
  }
}

int arb__dec_fail(arb__dec* d, int code, const char* field, const char* fmt, ...) {
  arb_proto_error* e = d->err;
  if (!e) return code;
  e->code = code;
  e->offset = d->pos;
  size_t cap = sizeof e->reason;
  int n = snprintf(e->reason, cap, "%s: ", d->msg);
  if (n < 0) n = 0;
  if (d->list && (size_t)n < cap) {
    int k = d->id ? snprintf(e->reason + n, cap - (size_t)n, "%s[%d] (%s %u) ", d->list, d->index,
                             d->id_label, d->id)
                  : snprintf(e->reason + n, cap - (size_t)n, "%s[%d] ", d->list, d->index);
    if (k > 0) n += k;
  }
  if (field && (size_t)n < cap) {
    int k = snprintf(e->reason + n, cap - (size_t)n, "field '%s': ", field);
    if (k > 0) n += k;
  }
  if ((size_t)n < cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->reason + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return code;
}

static const char* type_name_of(uint8_t b) {
  if (b <= 0x7f || b >= 0xe0) return "int";
  if (b <= 0x8f) return "map";
  if (b <= 0x9f) return "array";
  if (b <= 0xbf) return "str";
  switch (b) {
    case 0xc0:
      return "nil";
    case 0xc1:
      return "invalid byte 0xc1";
    case 0xc2:
    case 0xc3:
      return "bool";
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return "bin";
    case 0xc7:
    case 0xc8:
    case 0xc9:
      return "ext";
    case 0xca:
      return "float32";
    case 0xcb:
      return "float64";
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
      return "ext";
    case 0xd9:
    case 0xda:
    case 0xdb:
      return "str";
    case 0xdc:
    case 0xdd:
      return "array";
    case 0xde:
    case 0xdf:
      return "map";
    default:
      return "int";  // 0xcc..0xd3
  }
}

const char* arb__dec_type_name(const arb__dec* d) {
  return d->pos < d->len ? type_name_of(d->p[d->pos]) : "end of input";
}

static int need(arb__dec* d, const char* field, size_t n) {
  if (d->len - d->pos < n)
    return arb__dec_fail(d, ARB_E_TRUNCATED, field,
                         "input ends early (%zu more bytes needed at offset %zu, %zu left)", n,
                         d->pos, d->len - d->pos);
  return 0;
}

static uint64_t be(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | p[i];
  return v;
}

static int wrong_type(arb__dec* d, const char* field, const char* expected) {
  return arb__dec_fail(d, d->pos < d->len ? ARB_E_CORRUPT : ARB_E_TRUNCATED, field,
                       "expected %s, got %s", expected, arb__dec_type_name(d));
}

int arb__dec_array(arb__dec* d, const char* field, uint32_t min, uint32_t max, uint32_t* n) {
  if (d->pos >= d->len) return wrong_type(d, field, "array");
  uint8_t b = d->p[d->pos];
  uint64_t count;
  size_t hdr;
  if (b >= 0x90 && b <= 0x9f) {
    count = b & 0x0f;
    hdr = 1;
  } else if (b == 0xdc || b == 0xdd) {
    hdr = b == 0xdc ? 3 : 5;
    ARB__TRY(need(d, field, hdr));
    count = be(d->p + d->pos + 1, (int)hdr - 1);
  } else {
    return wrong_type(d, field, "array");
  }
  if (count < min || count > max) {
    if (min == max)
      return arb__dec_fail(d, count > max ? ARB_E_TOO_BIG : ARB_E_CORRUPT, field,
                           "array of %llu elements, expected %u", (unsigned long long)count, min);
    return arb__dec_fail(d, count > max ? ARB_E_TOO_BIG : ARB_E_CORRUPT, field,
                         "array of %llu elements, allowed %u..%u", (unsigned long long)count, min,
                         max);
  }
  // Every element takes at least one byte: a count the input cannot hold is a lie.
  if (count > d->len - d->pos - hdr)
    return arb__dec_fail(d, ARB_E_TRUNCATED, field,
                         "array claims %llu elements but only %zu bytes remain",
                         (unsigned long long)count, d->len - d->pos - hdr);
  d->pos += hdr;
  *n = (uint32_t)count;
  return 0;
}

/* Reads any msgpack integer: non-negative values in *u (neg = false), negative in *i. */
// A msgpack integer: non-negative ones in u, negative ones in i.
typedef struct mp_int {
  bool neg;
  uint64_t u;
  int64_t i;
} mp_int;

static int read_integer(arb__dec* d, const char* field, mp_int* out) {
  out->neg = false;
  out->u = 0;
  out->i = 0;
  if (d->pos >= d->len) return wrong_type(d, field, "int");
  uint8_t b = d->p[d->pos];
  if (b <= 0x7f) {
    out->neg = false;
    out->u = b;
    d->pos += 1;
    return 0;
  }
  if (b >= 0xe0) {
    out->neg = true;
    out->i = (int8_t)b;
    d->pos += 1;
    return 0;
  }
  if (b >= 0xcc && b <= 0xcf) {
    int n = 1 << (b - 0xcc);
    ARB__TRY(need(d, field, 1 + (size_t)n));
    out->neg = false;
    out->u = be(d->p + d->pos + 1, n);
    d->pos += 1 + (size_t)n;
    return 0;
  }
  if (b >= 0xd0 && b <= 0xd3) {
    int n = 1 << (b - 0xd0);
    ARB__TRY(need(d, field, 1 + (size_t)n));
    uint64_t raw = be(d->p + d->pos + 1, n);
    int64_t v;
    switch (n) {
      case 1:
        v = (int8_t)(uint8_t)raw;
        break;
      case 2:
        v = (int16_t)(uint16_t)raw;
        break;
      case 4:
        v = (int32_t)(uint32_t)raw;
        break;
      default: {
        // Two's complement without implementation-defined conversion.
        v = raw <= (uint64_t)INT64_MAX ? (int64_t)raw : -(int64_t)(~raw) - 1;
      }
    }
    d->pos += 1 + (size_t)n;
    if (v >= 0) {
      out->neg = false;
      out->u = (uint64_t)v;
    } else {
      out->neg = true;
      out->i = v;
    }
    return 0;
  }
  return wrong_type(d, field, "int");
}

int arb__dec_uint(arb__dec* d, const char* field, uint64_t min, uint64_t max, uint64_t* out) {
  size_t at = d->pos;
  mp_int v;
  ARB__TRY(read_integer(d, field, &v));
  if (v.neg || v.u < min || v.u > max) {
    d->pos = at;
    if (v.neg)
      return arb__dec_fail(d, ARB_E_RANGE, field, "value %lld out of range [%llu, %llu]",
                           (long long)v.i, (unsigned long long)min, (unsigned long long)max);
    return arb__dec_fail(d, ARB_E_RANGE, field, "value %llu out of range [%llu, %llu]",
                         (unsigned long long)v.u, (unsigned long long)min, (unsigned long long)max);
  }
  *out = v.u;
  return 0;
}

int arb__dec_int(arb__dec* d, const char* field, int64_t min, int64_t max, int64_t* out) {
  size_t at = d->pos;
  mp_int v;
  ARB__TRY(read_integer(d, field, &v));
  if (!v.neg) {
    if (v.u > (uint64_t)INT64_MAX || (int64_t)v.u < min || (int64_t)v.u > max) {
      d->pos = at;
      return arb__dec_fail(d, ARB_E_RANGE, field, "value %llu out of range [%lld, %lld]",
                           (unsigned long long)v.u, (long long)min, (long long)max);
    }
    *out = (int64_t)v.u;
    return 0;
  }
  if (v.i < min || v.i > max) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_RANGE, field, "value %lld out of range [%lld, %lld]",
                         (long long)v.i, (long long)min, (long long)max);
  }
  *out = v.i;
  return 0;
}

int arb__dec_float(arb__dec* d, const char* field, double lo, double hi, float* out) {
  if (d->pos >= d->len) return wrong_type(d, field, "float");
  size_t at = d->pos;
  uint8_t b = d->p[d->pos];
  double v;
  if (b == 0xca) {
    ARB__TRY(need(d, field, 5));
    uint32_t bits = (uint32_t)be(d->p + d->pos + 1, 4);
    float f;
    memcpy(&f, &bits, 4);
    v = f;
    d->pos += 5;
  } else if (b == 0xcb) {
    ARB__TRY(need(d, field, 9));
    uint64_t bits = be(d->p + d->pos + 1, 8);
    memcpy(&v, &bits, 8);
    d->pos += 9;
  } else {
    // Other languages send whole-number floats as ints (JavaScript: 2.0 -> 2).
    const char* t = type_name_of(b);
    if (strcmp(t, "int") != 0) return wrong_type(d, field, "float or int");
    mp_int n;
    ARB__TRY(read_integer(d, field, &n));
    v = n.neg ? (double)n.i : (double)n.u;
  }
  if (isnan(v) || isinf(v)) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_NONFINITE, field, "%s is not allowed",
                         isnan(v) ? "NaN" : "infinity");
  }
  if (v < lo || v > hi) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_RANGE, field, "value %g out of range [%g, %g]", v, lo, hi);
  }
  *out = (float)v;
  return 0;
}

static int read_blob(arb__dec* d, const char* field, bool want_str, uint32_t max, const uint8_t** s,
                     uint32_t* n) {
  if (d->pos >= d->len) return wrong_type(d, field, want_str ? "str" : "bin");
  uint8_t b = d->p[d->pos];
  size_t hdr;
  uint64_t len;
  if (want_str && b >= 0xa0 && b <= 0xbf) {
    hdr = 1;
    len = b & 0x1f;
  } else if ((want_str && b >= 0xd9 && b <= 0xdb) || (!want_str && b >= 0xc4 && b <= 0xc6)) {
    int k = 1 << (want_str ? b - 0xd9 : b - 0xc4);
    hdr = 1 + (size_t)k;
    ARB__TRY(need(d, field, hdr));
    len = be(d->p + d->pos + 1, k);
  } else {
    return wrong_type(d, field, want_str ? "str" : "bin");
  }
  if (len > max)
    return arb__dec_fail(d, ARB_E_TOO_BIG, field, "%s of %llu bytes, at most %u allowed",
                         want_str ? "str" : "bin", (unsigned long long)len, max);
  if (len > d->len - d->pos - hdr)
    return arb__dec_fail(d, ARB_E_TRUNCATED, field, "%s claims %llu bytes but only %zu remain",
                         want_str ? "str" : "bin", (unsigned long long)len, d->len - d->pos - hdr);
  *s = d->p + d->pos + hdr;
  *n = (uint32_t)len;
  d->pos += hdr + (size_t)len;
  return 0;
}

int arb__dec_str(arb__dec* d, const char* field, uint32_t max, const uint8_t** s, uint32_t* n) {
  return read_blob(d, field, true, max, s, n);
}

int arb__dec_bin(arb__dec* d, const char* field, uint32_t max, const uint8_t** s, uint32_t* n) {
  return read_blob(d, field, false, max, s, n);
}

int arb__dec_end(arb__dec* d) {
  if (d->pos != d->len) {
    d->list = NULL;
    return arb__dec_fail(d, ARB_E_CORRUPT, NULL, "%zu unexpected bytes after the message",
                         d->len - d->pos);
  }
  return 0;
}

bool arb__utf8_valid(const uint8_t* s, size_t n, bool no_control) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c < 0x80) {
      if (c == 0 || (no_control && (c < 0x20 || c == 0x7f))) return false;
      i++;
      continue;
    }
    uint32_t cp;
    size_t k;
    if (c >= 0xc2 && c <= 0xdf) {
      cp = c & 0x1f;
      k = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      cp = c & 0x0f;
      k = 2;
    } else if (c >= 0xf0 && c <= 0xf4) {
      cp = c & 0x07;
      k = 3;
    } else {
      return false;
    }
    if (n - i <= k) return false;
    for (size_t j = 1; j <= k; j++) {
      if ((s[i + j] & 0xc0) != 0x80) return false;
      cp = cp << 6 | (s[i + j] & 0x3f);
    }
    if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += k + 1;
  }
  return true;
}

int arb__dec_text(arb__dec* d, const char* field, uint32_t min, uint32_t max, bool no_control,
                  char* out) {
  size_t at = d->pos;
  const uint8_t* s;
  uint32_t n;
  ARB__TRY(arb__dec_str(d, field, max, &s, &n));
  if (n < min) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, field, "empty, at least %u bytes required", min);
  }
  if (!arb__utf8_valid(s, n, no_control)) {
    d->pos = at;
    return arb__dec_fail(d, ARB_E_CORRUPT, field, "not valid UTF-8%s",
                         no_control ? " without control characters" : " without NUL");
  }
  memcpy(out, s, n);
  out[n] = '\0';
  return 0;
}

// ---- writer ------------------------------------------------------------------------------

static int wbuf_write(void* data, const char* buf, size_t len) {
  arb__wbuf* w = (arb__wbuf*)data;
  if (len == 0) return 0;  // an empty str/bin body: buf may be NULL (memcpy must not see it)
  if (w->buf && len <= w->cap && w->len <= w->cap - len) memcpy(w->buf + w->len, buf, len);
  w->len += len;
  return 0;
}

void arb__packer_init(msgpack_packer* pk, arb__wbuf* w, uint8_t* buf, size_t cap) {
  w->buf = buf;
  w->cap = buf ? cap : 0;
  w->len = 0;
  msgpack_packer_init(pk, w, wbuf_write);
}

int arb__wbuf_result(const arb__wbuf* w) {
  return w->len > (size_t)INT_MAX ? ARB_E_TOO_BIG : (int)w->len;
}
