// JSON reading helpers for the scene loader: typed, range-checked getters over jansson
// values that track the JSON path of whatever they are looking at, so any rejection can
// name the exact place ("bodies[3].shape.circle.radius") and the reason.
//
// Usage: push a key or index before descending, pop with the returned mark after. The
// first failure wins: later calls see ctx->code != 0 and do nothing, so parse functions
// can return early with `if (sj_...) return ctx->code;` without losing the first message.
#pragma once

#include <arbiter/scene.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sj_ctx {
  arb_scene_error* err;  ///< where the first failure is written
  int code;              ///< 0 until the first failure, then its ARB_E_* code
  char path[256];        ///< current JSON path, NUL-terminated
  size_t len;            ///< strlen(path)
} sj_ctx;

void sj_init(sj_ctx* ctx, arb_scene_error* err);
/// Descend into object member `key` / array element `i`. Returns the mark for sj_pop.
size_t sj_push_key(sj_ctx* ctx, const char* key);
size_t sj_push_index(sj_ctx* ctx, size_t i);
void sj_pop(sj_ctx* ctx, size_t mark);

/// Record a failure at the current path (only the first one is kept). Returns code.
int sj_fail(sj_ctx* ctx, int code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// "an object", "a string", ... for messages.
const char* sj_type_name(const json_t* v);

/// v must be an object whose keys are all in `allowed` (NULL-terminated list).
int sj_expect_object(sj_ctx* ctx, const json_t* v);
int sj_check_keys(sj_ctx* ctx, const json_t* obj, const char* const* allowed);
/// "a, b, c": the NULL-terminated `keys` joined for a message, cut to fit `cap`.
const char* sj_join_keys(const char* const* keys, char* out, size_t cap);

/// Bounds for sj_float: a value must satisfy lo <(=) v <(=) hi.
typedef struct sj_bounds {
  double lo, hi;
  bool lo_open;  ///< true: v > lo; false: v >= lo
} sj_bounds;

/// Read a finite float32 at the current path (the caller pushed the key).
int sj_float_value(sj_ctx* ctx, const json_t* v, sj_bounds b, float* out);
/// Optional member: leaves *out untouched when absent. `required` makes absence an error.
int sj_float(sj_ctx* ctx, const json_t* obj, const char* key, bool required, sj_bounds b,
             float* out);
/// [x, y], each within [-bound, bound].
int sj_vec2_value(sj_ctx* ctx, const json_t* v, float bound, float* x, float* y);
int sj_vec2(sj_ctx* ctx, const json_t* obj, const char* key, bool required, float bound, float* x,
            float* y);
int sj_bool(sj_ctx* ctx, const json_t* obj, const char* key, bool* out);
/// An integer in [lo, hi].
int sj_int(sj_ctx* ctx, const json_t* obj, const char* key, bool required, long long lo,
           long long hi, long long* out);
/// A string of 1..max_len bytes without control characters; *out borrows jansson's copy.
int sj_string(sj_ctx* ctx, const json_t* obj, const char* key, bool required, size_t max_len,
              const char** out);
/// One of `choices` (NULL-terminated); writes its index.
int sj_enum(sj_ctx* ctx, const json_t* obj, const char* key, const char* const* choices, int* out);

/// Deepest nesting of arrays/objects in raw JSON text (strings skipped), stopping early
/// once it exceeds `limit`. Lets us refuse absurd nesting before building any tree.
int sj_max_depth(const char* text, size_t len, int limit);
