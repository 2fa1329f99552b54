// JSON reading helpers with path tracking (see scene_json.h).
#include "scene_json.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sj_init(sj_ctx* ctx, arb_scene_error* err) {
  memset(ctx, 0, sizeof *ctx);
  ctx->err = err;
}

// Keys come from untrusted text: show them printable, and never overflow the path.
static void path_append(sj_ctx* ctx, const char* s) {
  size_t cap = sizeof ctx->path - 1;
  for (; *s && ctx->len < cap; s++) {
    unsigned char ch = (unsigned char)*s;
    ctx->path[ctx->len++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
  }
  ctx->path[ctx->len] = '\0';
}

size_t sj_push_key(sj_ctx* ctx, const char* key) {
  size_t mark = ctx->len;
  if (ctx->len > 0) path_append(ctx, ".");
  char shown[72];
  size_t n = strlen(key);
  if (n > 64) {
    snprintf(shown, sizeof shown, "%.60s...", key);
    path_append(ctx, shown);
  } else {
    path_append(ctx, key);
  }
  return mark;
}

size_t sj_push_index(sj_ctx* ctx, size_t i) {
  size_t mark = ctx->len;
  char buf[32];
  snprintf(buf, sizeof buf, "[%zu]", i);
  path_append(ctx, buf);
  return mark;
}

void sj_pop(sj_ctx* ctx, size_t mark) {
  if (mark <= ctx->len) {
    ctx->len = mark;
    ctx->path[mark] = '\0';
  }
}

int sj_fail(sj_ctx* ctx, int code, const char* fmt, ...) {
  if (ctx->code != 0) return ctx->code;
  ctx->code = code;
  if (ctx->err) {
    snprintf(ctx->err->path, sizeof ctx->err->path, "%s", ctx->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err->message, sizeof ctx->err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

const char* sj_type_name(const json_t* v) {
  switch (json_typeof(v)) {
    case JSON_OBJECT:
      return "an object";
    case JSON_ARRAY:
      return "an array";
    case JSON_STRING:
      return "a string";
    case JSON_INTEGER:
      return "an integer";
    case JSON_REAL:
      return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
      return "a boolean";
    case JSON_NULL:
      return "null";
  }
  return "an unknown value";
}

int sj_expect_object(sj_ctx* ctx, const json_t* v) {
  if (ctx->code) return ctx->code;
  if (!json_is_object(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected an object, got %s", sj_type_name(v));
  return 0;
}

int sj_check_keys(sj_ctx* ctx, const json_t* obj, const char* const* allowed) {
  if (sj_expect_object(ctx, obj)) return ctx->code;
  const char* key;
  json_t* value;
  // jansson keeps insertion order, so the first unknown key in the file is reported.
  json_object_foreach((json_t*)obj, key, value) {
    bool known = false;
    for (const char* const* a = allowed; *a; a++) {
      if (strcmp(*a, key) == 0) {
        known = true;
        break;
      }
    }
    if (!known) {
      char list[200];
      size_t mark = sj_push_key(ctx, key);
      sj_fail(ctx, ARB_E_INVAL, "unknown key (expected one of: %s)",
              sj_join_keys(allowed, list, sizeof list));
      sj_pop(ctx, mark);
      return ctx->code;
    }
  }
  return 0;
}

const char* sj_join_keys(const char* const* keys, char* out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (const char* const* k = keys; *k && n < cap; k++) {
    int w = snprintf(out + n, cap - n, "%s%s", k == keys ? "" : ", ", *k);
    if (w < 0) break;
    n += (size_t)w;
  }
  return out;
}

static int range_fail(sj_ctx* ctx, double v, sj_bounds b) {
  if (b.hi >= DBL_MAX) {
    return sj_fail(ctx, ARB_E_RANGE, "must be %s %.9g, got %.9g", b.lo_open ? ">" : ">=", b.lo, v);
  }
  if (b.lo_open)
    return sj_fail(ctx, ARB_E_RANGE, "must be > %.9g and <= %.9g, got %.9g", b.lo, b.hi, v);
  return sj_fail(ctx, ARB_E_RANGE, "must be between %.9g and %.9g, got %.9g", b.lo, b.hi, v);
}

int sj_float_value(sj_ctx* ctx, const json_t* v, sj_bounds b, float* out) {
  if (ctx->code) return ctx->code;
  if (!json_is_number(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected a number, got %s", sj_type_name(v));
  double d = json_number_value(v);
  // jansson refuses NaN/Infinity literals and doubles that overflow, but 1e300 is a
  // fine double and an infinite float32: the simulation is float32, so check that.
  if (!isfinite(d) || d > FLT_MAX || d < -FLT_MAX) {
    return sj_fail(ctx, ARB_E_NONFINITE, "not a finite float32 number, got %.9g", d);
  }
  if (d < b.lo || (b.lo_open && d == b.lo) || d > b.hi) return range_fail(ctx, d, b);
  *out = (float)d;
  return 0;
}

// The start of every sj_<type>(obj, key) reader: descends into member `key` (*mark is for
// the reader's sj_pop) and returns it, or NULL when there is nothing to read: the member
// is absent (a failure "missing (required)" if required) or an earlier failure stands.
static const json_t* member(sj_ctx* ctx, const json_t* obj, const char* key, bool required,
                            size_t* mark) {
  *mark = ctx->len;
  if (ctx->code) return NULL;
  const json_t* v = json_object_get(obj, key);
  sj_push_key(ctx, key);
  if (!v && required) sj_fail(ctx, ARB_E_INVAL, "missing (required)");
  return v;
}

int sj_float(sj_ctx* ctx, const json_t* obj, const char* key, bool required, sj_bounds b,
             float* out) {
  size_t mark;
  const json_t* v = member(ctx, obj, key, required, &mark);
  if (v) sj_float_value(ctx, v, b, out);
  sj_pop(ctx, mark);
  return ctx->code;
}

int sj_vec2_value(sj_ctx* ctx, const json_t* v, float bound, float* x, float* y) {
  if (ctx->code) return ctx->code;
  if (!json_is_array(v) || json_array_size(v) != 2) {
    if (json_is_array(v)) {
      return sj_fail(ctx, ARB_E_INVAL, "expected [x, y], got an array of %zu elements",
                     json_array_size(v));
    }
    return sj_fail(ctx, ARB_E_INVAL, "expected [x, y], got %s", sj_type_name(v));
  }
  sj_bounds b = {-bound, bound, false};
  float tmp[2];
  for (size_t i = 0; i < 2; i++) {
    size_t mark = sj_push_index(ctx, i);
    sj_float_value(ctx, json_array_get(v, i), b, &tmp[i]);
    sj_pop(ctx, mark);
    if (ctx->code) return ctx->code;
  }
  *x = tmp[0];
  *y = tmp[1];
  return 0;
}

int sj_vec2(sj_ctx* ctx, const json_t* obj, const char* key, bool required, float bound, float* x,
            float* y) {
  size_t mark;
  const json_t* v = member(ctx, obj, key, required, &mark);
  if (v) sj_vec2_value(ctx, v, bound, x, y);
  sj_pop(ctx, mark);
  return ctx->code;
}

// The value readers below check one JSON value at the current path; the sj_<type>(obj,
// key) readers are member() + the value reader + sj_pop.

static void bool_value(sj_ctx* ctx, const json_t* v, bool* out) {
  if (!json_is_boolean(v)) {
    sj_fail(ctx, ARB_E_INVAL, "expected true or false, got %s", sj_type_name(v));
    return;
  }
  *out = json_is_true(v);
}

static void int_value(sj_ctx* ctx, const json_t* v, long long lo, long long hi, long long* out) {
  if (!json_is_integer(v)) {
    sj_fail(ctx, ARB_E_INVAL, "expected an integer, got %s", sj_type_name(v));
    return;
  }
  long long i = json_integer_value(v);
  if (i < lo || i > hi) {
    sj_fail(ctx, ARB_E_RANGE, "must be between %lld and %lld, got %lld", lo, hi, i);
    return;
  }
  *out = i;
}

static void string_value(sj_ctx* ctx, const json_t* v, size_t max_len, const char** out) {
  if (!json_is_string(v)) {
    sj_fail(ctx, ARB_E_INVAL, "expected a string, got %s", sj_type_name(v));
    return;
  }
  const char* s = json_string_value(v);
  size_t n = json_string_length(v);
  if (n == 0) {
    sj_fail(ctx, ARB_E_INVAL, "must not be empty");
    return;
  }
  if (n > max_len) {
    sj_fail(ctx, ARB_E_TOO_BIG, "longer than %zu bytes (%zu)", max_len, n);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch < 0x20 || ch == 0x7f) {
      sj_fail(ctx, ARB_E_INVAL, "contains a control character at byte %zu", i);
      return;
    }
  }
  *out = s;
}

static void enum_value(sj_ctx* ctx, const json_t* v, const char* const* choices, int* out) {
  if (!json_is_string(v)) {
    sj_fail(ctx, ARB_E_INVAL, "expected a string, got %s", sj_type_name(v));
    return;
  }
  const char* s = json_string_value(v);
  for (int i = 0; choices[i]; i++) {
    if (strcmp(choices[i], s) == 0) {
      *out = i;
      return;
    }
  }
  char list[160];
  size_t n = 0;
  list[0] = '\0';
  for (int i = 0; choices[i] && n < sizeof list; i++) {
    int w = snprintf(list + n, sizeof list - n, "%s\"%s\"", i ? ", " : "", choices[i]);
    if (w < 0) break;
    n += (size_t)w;
  }
  sj_fail(ctx, ARB_E_INVAL, "unknown value \"%.64s\" (expected one of: %s)", s, list);
}

// Absent optional members leave *out at its default (required ones failed in member()).
int sj_bool(sj_ctx* ctx, const json_t* obj, const char* key, bool* out) {
  size_t mark;
  const json_t* v = member(ctx, obj, key, false, &mark);
  if (v) bool_value(ctx, v, out);
  sj_pop(ctx, mark);
  return ctx->code;
}

int sj_int(sj_ctx* ctx, const json_t* obj, const char* key, bool required, long long lo,
           long long hi, long long* out) {
  size_t mark;
  const json_t* v = member(ctx, obj, key, required, &mark);
  if (v) int_value(ctx, v, lo, hi, out);
  sj_pop(ctx, mark);
  return ctx->code;
}

int sj_string(sj_ctx* ctx, const json_t* obj, const char* key, bool required, size_t max_len,
              const char** out) {
  size_t mark;
  const json_t* v = member(ctx, obj, key, required, &mark);
  if (v) string_value(ctx, v, max_len, out);
  sj_pop(ctx, mark);
  return ctx->code;
}

int sj_enum(sj_ctx* ctx, const json_t* obj, const char* key, const char* const* choices, int* out) {
  size_t mark;
  const json_t* v = member(ctx, obj, key, false, &mark);
  if (v) enum_value(ctx, v, choices, out);
  sj_pop(ctx, mark);
  return ctx->code;
}

int sj_max_depth(const char* text, size_t len, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < len; i++) {
    char ch = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
      continue;
    }
    if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}
