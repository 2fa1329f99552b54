// Private: the scene parser's sections. Each top-level key of a scene file is handled by
// one function of this type, listed in the table in scene.c; adding a section (say,
// `vehicles`) is one function plus one table row.
#pragma once

#include "scene_internal.h"
#include "scene_json.h"

/// Parse the value of one top-level key into the scene. The ctx path already names the key.
typedef int scene_section_fn(sj_ctx* ctx, const json_t* value, arb_scene* scene);

int arb__scene_parse_bodies(sj_ctx* ctx, const json_t* value, arb_scene* scene);
int arb__scene_parse_avatar(sj_ctx* ctx, const json_t* value, arb_scene* scene);
int arb__scene_parse_spawn_points(sj_ctx* ctx, const json_t* value, arb_scene* scene);
/// Defaults of the avatar section (also used when the scene has none).
void arb__scene_default_avatar(arb_scene_avatar* avatar);
/// Reject duplicate body names (after bodies are parsed). Sorts a copy: O(n log n).
int arb__scene_check_names(sj_ctx* ctx, const arb_scene* scene);
