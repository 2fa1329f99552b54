// Scene loading: file/string entry points, the top-level section table, the read-only
// accessors, and building a world from a scene. Bodies and avatars: scene_body.c.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "scene_extras.h"
#include "scene_parse.h"

// ---- top-level sections -------------------------------------------------------------

static int parse_version(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  if (!json_is_integer(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected an integer, got %s", sj_type_name(v));
  if (json_integer_value(v) != ARB_SCENE_VERSION) {
    return sj_fail(ctx, ARB_E_VERSION, "unsupported scene version %lld (this build reads %d)",
                   (long long)json_integer_value(v), ARB_SCENE_VERSION);
  }
  scene->version = ARB_SCENE_VERSION;
  return 0;
}

static int parse_name(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  if (!json_is_string(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected a string, got %s", sj_type_name(v));
  size_t n = json_string_length(v);
  if (n == 0 || n > ARB_SCENE_MAX_NAME) {
    return sj_fail(ctx, ARB_E_RANGE, "must be 1 to %d bytes long, got %zu", ARB_SCENE_MAX_NAME, n);
  }
  const char* s = json_string_value(v);
  for (size_t i = 0; i < n; i++) {
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      return sj_fail(ctx, ARB_E_INVAL, "contains a control character");
  }
  char* copy = malloc(n + 1);
  if (!copy) return sj_fail(ctx, ARB_E_NOMEM, "out of memory");
  memcpy(copy, s, n + 1);
  free(scene->name);
  scene->name = copy;
  return 0;
}

static int parse_seed(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  if (!json_is_integer(v) || json_integer_value(v) < 0) {
    return sj_fail(ctx, ARB_E_INVAL, "expected a non-negative integer, got %s", sj_type_name(v));
  }
  scene->seed = (uint64_t)json_integer_value(v);
  return 0;
}

static int parse_gravity(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  return sj_vec2_value(ctx, v, 1000.0f, &scene->gravity.x, &scene->gravity.y);
}

static int parse_small_int(sj_ctx* ctx, const json_t* v, int lo, int hi, int* out) {
  if (!json_is_integer(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected an integer, got %s", sj_type_name(v));
  json_int_t i = json_integer_value(v);
  if (i < lo || i > hi)
    return sj_fail(ctx, ARB_E_RANGE, "must be between %d and %d, got %lld", lo, hi, (long long)i);
  *out = (int)i;
  return 0;
}

static int parse_tick_rate(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  return parse_small_int(ctx, v, 1, 1000, &scene->tick_rate);
}

static int parse_substeps(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  return parse_small_int(ctx, v, 1, 64, &scene->substeps);
}

static int parse_solve_iterations(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  return parse_small_int(ctx, v, 1, 8, &scene->solve_iterations);
}

static int parse_relax_iterations(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  return parse_small_int(ctx, v, 1, 8, &scene->relax_iterations);
}

static int parse_enable_continuous(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  if (json_is_string(v) && strcmp(json_string_value(v), "static") == 0) {
    scene->continuous = 2;
    return 0;
  }
  if (!json_is_boolean(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected true, false or \"static\", got %s", sj_type_name(v));
  scene->continuous = json_is_true(v) ? 1 : -1;
  return 0;
}

static int parse_enable_sleep(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  if (!json_is_boolean(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected true or false, got %s", sj_type_name(v));
  scene->sleep_off = json_is_false(v);
  return 0;
}

static int parse_enable_contact_recycling(sj_ctx* ctx, const json_t* v, arb_scene* scene) {
  if (!json_is_boolean(v))
    return sj_fail(ctx, ARB_E_INVAL, "expected true or false, got %s", sj_type_name(v));
  scene->recycling_off = json_is_false(v);
  return 0;
}

// Sections run in this order whatever the order in the file (version first, so a newer
// file is refused as such rather than for a key it added).
static const struct {
  const char* key;
  scene_section_fn* parse;
} sections[] = {
    {"version", parse_version},
    {"name", parse_name},
    {"seed", parse_seed},
    {"gravity", parse_gravity},
    {"tick_rate", parse_tick_rate},
    {"substeps", parse_substeps},
    {"solve_iterations", parse_solve_iterations},
    {"relax_iterations", parse_relax_iterations},
    {"enable_continuous", parse_enable_continuous},
    {"enable_sleep", parse_enable_sleep},
    {"enable_contact_recycling", parse_enable_contact_recycling},
    {"bodies", arb__scene_parse_bodies},
    {"avatar", arb__scene_parse_avatar},
    {"spawn_points", arb__scene_parse_spawn_points},
    // Physics extras (scene_extras.c): after `bodies`, which they refer to.
    {"springs", arb__scene_parse_springs},
    {"joints", arb__scene_parse_joints},
    {"particles", arb__scene_parse_particles},
    {"constraints", arb__scene_parse_constraints},
    {"constraint_iterations", arb__scene_parse_constraint_iterations},
    {"vehicles", arb__scene_parse_vehicles},
};
#define SECTION_COUNT (sizeof sections / sizeof sections[0])

// ---- loading ------------------------------------------------------------------------

static void set_file(arb_scene_error* err, const char* name) {
  if (err) snprintf(err->file, sizeof err->file, "%s", name);
}

static char* default_name(const char* file) {
  const char* base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t n = strlen(base);
  if (n > 5 && strcmp(base + n - 5, ".json") == 0) n -= 5;
  if (n == 0) base = "scene", n = 5;
  if (n > ARB_SCENE_MAX_NAME) n = ARB_SCENE_MAX_NAME;
  char* s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, base, n);
  s[n] = '\0';
  return s;
}

// A trial world proves that every body (and the avatar template) is acceptable to the
// physics world, so a scene that loads always builds; the error names the body.
static int check_with_world(sj_ctx* ctx, const arb_scene* scene) {
  arb_world* world = NULL;
  arb_world_def wd = arb_scene_get_world_def(scene);
  wd.body_capacity = scene->body_count + 1;
  world = arb_world_create(&wd);
  if (!world) return sj_fail(ctx, ARB_E_NOMEM, "cannot create the physics world");
  for (int i = 0; i < scene->body_count && !ctx->code; i++) {
    if (arb_body_id_is_null(arb_body_create(world, &scene->bodies[i].def))) {
      size_t m1 = sj_push_key(ctx, "bodies");
      size_t m2 = sj_push_index(ctx, (size_t)i);
      sj_fail(ctx, ARB_E_INVAL, "rejected by the physics world (invalid body definition)");
      sj_pop(ctx, m2);
      sj_pop(ctx, m1);
    }
  }
  if (!ctx->code) {
    arb_body_def def = scene->avatar.body;
    def.position = scene->spawn_points[0];
    if (arb_body_id_is_null(arb_body_create(world, &def))) {
      size_t m = sj_push_key(ctx, "avatar");
      sj_fail(ctx, ARB_E_INVAL, "rejected by the physics world (invalid body definition)");
      sj_pop(ctx, m);
    }
  }
  if (!ctx->code) arb__scene_build_extras(scene, world, ctx);
  if (!ctx->code && scene->avatar.controller == ARB_CONTROLLER_VEHICLE) {
    arb_vehicle_def vd = scene->avatar.vehicle;
    arb_body_def def = scene->avatar.vehicle_body;
    def.position = arb_v2(0.0f, 0.0f);
    vd.chassis = arb_body_create(world, &def);
    if (arb_extra_id_is_null(arb_vehicle_create(world, &vd))) {
      size_t m = sj_push_key(ctx, "avatar");
      sj_fail(ctx, ARB_E_INVAL, "rejected by the physics world (invalid vehicle definition)");
      sj_pop(ctx, m);
    }
  }
  arb_world_destroy(world);
  return ctx->code;
}

static int parse_root(sj_ctx* ctx, const json_t* root, arb_scene* scene) {
  if (!json_is_object(root)) {
    return sj_fail(ctx, ARB_E_INVAL, "a scene must be a JSON object, got %s", sj_type_name(root));
  }
  const char* allowed[SECTION_COUNT + 1];
  for (size_t i = 0; i < SECTION_COUNT; i++) allowed[i] = sections[i].key;
  allowed[SECTION_COUNT] = NULL;
  if (sj_check_keys(ctx, root, allowed)) return ctx->code;
  for (size_t i = 0; i < SECTION_COUNT; i++) {
    json_t* v = json_object_get(root, sections[i].key);
    if (!v) continue;
    size_t mark = sj_push_key(ctx, sections[i].key);
    sections[i].parse(ctx, v, scene);
    sj_pop(ctx, mark);
    if (ctx->code) return ctx->code;
  }
  if (arb__scene_check_names(ctx, scene)) return ctx->code;
  if (scene->spawn_count == 0) {
    scene->spawn_points = calloc(1, sizeof *scene->spawn_points);
    if (!scene->spawn_points) return sj_fail(ctx, ARB_E_NOMEM, "out of memory");
    scene->spawn_count = 1;
  }
  return check_with_world(ctx, scene);
}

int arb_scene_load_string(const char* text, size_t len, const char* name, arb_scene** out,
                          arb_scene_error* err) {
  arb_scene_error local;
  if (!err) err = &local;
  memset(err, 0, sizeof *err);
  if (!name) name = "<string>";
  set_file(err, name);
  if (!out) return ARB_E_INVAL;
  *out = NULL;
  sj_ctx ctx;
  sj_init(&ctx, err);
  if (!text) return sj_fail(&ctx, ARB_E_INVAL, "no text");
  if (len > ARB_SCENE_MAX_FILE_SIZE) {
    return sj_fail(&ctx, ARB_E_TOO_BIG, "scene is %zu bytes, the limit is %d", len,
                   ARB_SCENE_MAX_FILE_SIZE);
  }
  int depth = sj_max_depth(text, len, ARB_SCENE_MAX_DEPTH);
  if (depth > ARB_SCENE_MAX_DEPTH) {
    return sj_fail(&ctx, ARB_E_TOO_BIG, "JSON nested deeper than %d levels", ARB_SCENE_MAX_DEPTH);
  }

  json_error_t jerr;
  json_t* root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) {
    err->line = jerr.line > 0 ? jerr.line : 0;
    err->column = jerr.column > 0 ? jerr.column : 0;
    return sj_fail(&ctx, ARB_E_CORRUPT, "invalid JSON: %s", jerr.text);
  }

  arb_scene* scene = calloc(1, sizeof *scene);
  if (!scene) {
    json_decref(root);
    return sj_fail(&ctx, ARB_E_NOMEM, "out of memory");
  }
  scene->version = ARB_SCENE_VERSION;
  scene->gravity = arb_v2(0.0f, -9.81f);
  scene->tick_rate = 60;
  arb__scene_default_avatar(&scene->avatar);
  scene->text = malloc(len + 1);
  if (scene->text) {
    memcpy(scene->text, text, len);
    scene->text[len] = '\0';
    scene->text_len = len;
    scene->hash = XXH3_64bits(text, len);
  } else {
    sj_fail(&ctx, ARB_E_NOMEM, "out of memory");
  }

  if (!ctx.code) parse_root(&ctx, root, scene);
  json_decref(root);
  if (!ctx.code && !scene->name) {
    scene->name = default_name(name);
    if (!scene->name) sj_fail(&ctx, ARB_E_NOMEM, "out of memory");
  }
  if (ctx.code) {
    arb_scene_destroy(scene);
    return ctx.code;
  }
  *out = scene;
  return ARB_OK;
}

int arb_scene_load_file(const char* path, arb_scene** out, arb_scene_error* err) {
  arb_scene_error local;
  if (!err) err = &local;
  memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  set_file(err, path ? path : "<null>");
  sj_ctx ctx;
  sj_init(&ctx, err);
  if (!path || !out) return sj_fail(&ctx, ARB_E_INVAL, "no file name");
  FILE* f = fopen(path, "rb");
  if (!f) return sj_fail(&ctx, ARB_E_IO, "cannot open: %s", strerror(errno));
  size_t cap = 64 * 1024, len = 0;
  char* buf = malloc(cap);
  int rc = 0;
  while (buf) {
    if (len == cap) {
      if (cap > ARB_SCENE_MAX_FILE_SIZE) {
        rc = sj_fail(&ctx, ARB_E_TOO_BIG, "file is larger than the limit of %d bytes",
                     ARB_SCENE_MAX_FILE_SIZE);
        break;
      }
      char* grown = realloc(buf, cap * 2);
      if (!grown) break;
      buf = grown;
      cap *= 2;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (n == 0) {
      if (ferror(f)) rc = sj_fail(&ctx, ARB_E_IO, "cannot read: %s", strerror(errno));
      break;
    }
  }
  fclose(f);
  if (!buf) return sj_fail(&ctx, ARB_E_NOMEM, "out of memory");
  if (rc == 0 && len > ARB_SCENE_MAX_FILE_SIZE) {
    rc = sj_fail(&ctx, ARB_E_TOO_BIG, "file is larger than the limit of %d bytes",
                 ARB_SCENE_MAX_FILE_SIZE);
  }
  if (rc == 0) rc = arb_scene_load_string(buf, len, path, out, err);
  free(buf);
  return rc;
}

const char* arb_scene_default_text(void) {
  return arb__default_scene_text(NULL);
}

int arb_scene_load_default(arb_scene** out, arb_scene_error* err) {
  size_t len;
  const char* text = arb__default_scene_text(&len);
  return arb_scene_load_string(text, len, "<built-in>", out, err);
}

void arb_scene_destroy(arb_scene* scene) {
  if (!scene) return;
  for (int i = 0; i < scene->body_count; i++) {
    free(scene->bodies[i].name);
    free(scene->bodies[i].chain_points);
    free(scene->bodies[i].shapes);
  }
  free(scene->bodies);
  free(scene->spawn_points);
  arb__scene_free_extras(scene);
  free(scene->name);
  free(scene->text);
  free(scene);
}

void arb_scene_error_format(const arb_scene_error* err, char* buf, size_t cap) {
  if (!buf || cap == 0) return;
  if (!err) {
    snprintf(buf, cap, "unknown error");
  } else if (err->line > 0) {
    snprintf(buf, cap, "%s:%d:%d: %s", err->file, err->line, err->column, err->message);
  } else if (err->path[0]) {
    snprintf(buf, cap, "%s: %s: %s", err->file, err->path, err->message);
  } else {
    snprintf(buf, cap, "%s: %s", err->file, err->message);
  }
}

// ---- accessors ----------------------------------------------------------------------

const char* arb_scene_get_name(const arb_scene* scene) {
  return scene->name;
}

const char* arb_scene_get_text(const arb_scene* scene, size_t* len) {
  if (len) *len = scene->text_len;
  return scene->text;
}

uint64_t arb_scene_get_hash(const arb_scene* scene) {
  return scene->hash;
}
int arb_scene_get_tick_rate(const arb_scene* scene) {
  return scene->tick_rate;
}

int arb_scene_set_tick_rate(arb_scene* scene, int hz) {
  if (!scene || hz < 1 || hz > 1000) return ARB_E_RANGE;
  scene->tick_rate = hz;
  return ARB_OK;
}

int arb_scene_set_worker_count(arb_scene* scene, int workers) {
  if (!scene || workers < 1 || workers > 64) return ARB_E_RANGE;
  scene->worker_count = workers;
  return ARB_OK;
}
arb_vec2 arb_scene_get_gravity(const arb_scene* scene) {
  return scene->gravity;
}
uint64_t arb_scene_get_seed(const arb_scene* scene) {
  return scene->seed;
}
int arb_scene_get_body_count(const arb_scene* scene) {
  return scene->body_count;
}

int arb_scene_get_substeps(const arb_scene* scene) {
  if (scene->substeps > 0) return scene->substeps;
  return arb_default_world_def().substeps;
}

arb_world_def arb_scene_get_world_def(const arb_scene* scene) {
  arb_world_def def = arb_default_world_def();
  def.gravity = scene->gravity;
  if (scene->substeps > 0) def.substeps = scene->substeps;
  if (scene->solve_iterations > 0) def.solve_iterations = scene->solve_iterations;
  if (scene->relax_iterations > 0) def.relax_iterations = scene->relax_iterations;
  if (scene->continuous != 0) def.enable_continuous = scene->continuous > 0;
  if (scene->continuous == 2) def.continuous_dynamic = false;
  if (scene->sleep_off) def.enable_sleep = false;
  if (scene->recycling_off) def.enable_contact_recycling = false;
  if (scene->worker_count > 0) def.worker_count = scene->worker_count;
  def.body_capacity = scene->body_count + 16;
  return def;
}

const char* arb_scene_get_body_name(const arb_scene* scene, int i) {
  if (i < 0 || i >= scene->body_count) return NULL;
  return scene->bodies[i].name;
}

const arb_body_def* arb_scene_get_body_def(const arb_scene* scene, int i) {
  if (i < 0 || i >= scene->body_count) return NULL;
  return &scene->bodies[i].def;
}

int arb_scene_find_body(const arb_scene* scene, const char* name) {
  if (!name) return -1;
  for (int i = 0; i < scene->body_count; i++) {
    if (scene->bodies[i].name && strcmp(scene->bodies[i].name, name) == 0) return i;
  }
  return -1;
}

const arb_scene_avatar* arb_scene_get_avatar(const arb_scene* scene) {
  return &scene->avatar;
}
int arb_scene_get_spawn_point_count(const arb_scene* scene) {
  return scene->spawn_count;
}

arb_vec2 arb_scene_get_spawn_point(const arb_scene* scene, int i) {
  if (i < 0 || i >= scene->spawn_count) return arb_vec2_zero;
  return scene->spawn_points[i];
}

int arb_scene_create_world(const arb_scene* scene, arb_world** out, arb_body_id* body_ids,
                           int cap) {
  if (!scene || !out) return ARB_E_INVAL;
  *out = NULL;
  arb_world_def wd = arb_scene_get_world_def(scene);
  arb_world* world = arb_world_create(&wd);
  if (!world) return ARB_E_NOMEM;
  for (int i = 0; i < scene->body_count; i++) {  // DET: scene order is creation order
    arb_body_id id = arb_body_create(world, &scene->bodies[i].def);
    if (arb_body_id_is_null(id)) {
      arb_world_destroy(world);
      return ARB_E_INVAL;
    }
    if (body_ids && i < cap) body_ids[i] = id;
  }
  if (arb__scene_build_extras(scene, world, NULL) != 0) {
    arb_world_destroy(world);
    return ARB_E_INVAL;
  }
  *out = world;
  return ARB_OK;
}
