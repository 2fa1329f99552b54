// arbiter — scene files (JSON, version 1; every key documented in docs/SCENES.md).
// A separate library from the dependency-free core: it parses with jansson and builds
// worlds through the public world API. Untrusted input: any text gives a scene or one
// error that names the file, the JSON path and the reason.
#pragma once

#include <arbiter/world.h>

ARB_C_BEGIN

typedef struct arb_scene arb_scene;

/// Where and why a scene was rejected.
typedef struct arb_scene_error {
  char file[256];     ///< file name as given, or "<built-in>" / the name passed to load_string
  char path[256];     ///< JSON path, e.g. "bodies[3].shape.circle.radius" ("" = whole file)
  char message[256];  ///< the reason, e.g. "must be > 0, got -1"
  int line, column;   ///< for JSON syntax errors, else 0
} arb_scene_error;

/// Format as "FILE: PATH: MESSAGE" (or with line:column for syntax errors).
ARB_API void arb_scene_error_format(const arb_scene_error* err, char* buf, size_t cap);

/// Parse and validate. On failure returns ARB_E_* and fills *err; *out stays NULL.
ARB_API int arb_scene_load_file(const char* path, arb_scene** out, arb_scene_error* err);
ARB_API int arb_scene_load_string(const char* text, size_t len, const char* name,
                                  arb_scene** out, arb_scene_error* err);
/// The built-in default scene (a walled arena with a pyramid and loose circles).
ARB_API int arb_scene_load_default(arb_scene** out, arb_scene_error* err);
ARB_API const char* arb_scene_default_text(void);
ARB_API void arb_scene_destroy(arb_scene* scene);

ARB_API const char* arb_scene_get_name(const arb_scene* scene);
/// The exact text the scene was parsed from (embedded in replay logs).
ARB_API const char* arb_scene_get_text(const arb_scene* scene, size_t* len);
/// XXH3-64 of the scene text.
ARB_API uint64_t arb_scene_get_hash(const arb_scene* scene);
ARB_API int arb_scene_get_tick_rate(const arb_scene* scene);

/// Create a world holding the scene's bodies in scene order. body_ids (may be NULL)
/// receives up to cap ids, one per scene body. Returns ARB_OK or ARB_E_*.
ARB_API int arb_scene_create_world(const arb_scene* scene, arb_world** out, arb_body_id* body_ids, int cap);
ARB_API int arb_scene_get_body_count(const arb_scene* scene);
/// Name of scene body i, or NULL when it has none.
ARB_API const char* arb_scene_get_body_name(const arb_scene* scene, int i);

ARB_C_END
