// The state image of a running match (see sv_migrate_image.h).
#include "sv_migrate_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

// ---- writing ------------------------------------------------------------------------------

typedef struct wr {
  uint8_t* p;
  size_t len, cap;  // len counts past cap: the size pass writes nothing
} wr;

static void put(wr* w, const void* src, size_t n) {
  if (w->p != NULL && w->len + n <= w->cap) memcpy(w->p + w->len, src, n);
  w->len += n;
}
static void put_u(wr* w, uint64_t v, int bytes) {
  uint8_t b[8];
  for (int i = 0; i < bytes; ++i) b[i] = (uint8_t)(v >> (8 * i));
  put(w, b, (size_t)bytes);
}

static bool fits_fields(const sv_mig_image* m) {
  if (m->player_count < 0 || m->player_count > SV_MIG_MAX_PLAYERS) return false;
  if (m->game_len > SV_MIG_MAX_GAME || strlen(m->record_path) > SV_MIG_MAX_PATH) return false;
  for (int i = 0; i < m->player_count; ++i)
    if (strlen(m->players[i].name) > ARB_PROTO_MAX_NAME ||
        strlen(m->players[i].rejoin_token) > SV_MIG_TOKEN_MAX)
      return false;
  return true;
}

// The fixed fields after the format version, in their order in the image; each takes its
// width in the struct, little-endian (sv_migrate_image.h lists them with their widths).
#define SV_MIG_FIXED_FIELDS(X) \
  X(sim_version);              \
  X(scene_hash);               \
  X(seed);                     \
  X(tick);                     \
  X(game_hash);                \
  X(tick_rate);                \
  X(next_client_id);           \
  X(match_state);              \
  X(match_age_ns);             \
  X(drain_age_ns);             \
  X(max_duration_ns);          \
  X(exit_when_empty_ns);       \
  X(drain_timeout_ns)

static void write_all(wr* w, const sv_mig_image* m) {
  put(w, SV_MIG_MAGIC, 8);
  put_u(w, SV_MIG_IMAGE_VERSION, 4);
#define PUT_FIELD(f) put_u(w, m->f, (int)sizeof m->f)
  SV_MIG_FIXED_FIELDS(PUT_FIELD);
#undef PUT_FIELD
  size_t pl = strlen(m->record_path);
  put_u(w, pl, 2);
  put(w, m->record_path, pl);
  put_u(w, (uint64_t)m->player_count, 4);
  for (int i = 0; i < m->player_count; ++i) {
    const sv_mig_player* p = &m->players[i];
    put_u(w, p->client_id, 4);
    put_u(w, p->entity_id, 4);
    put_u(w, p->avatar_kind, 1);
    put_u(w, p->has_token ? 1 : 0, 1);
    put_u(w, p->token_client_id, 8);
    size_t n = strlen(p->name), t = strlen(p->rejoin_token);
    put_u(w, n, 1);
    put(w, p->name, n);
    put_u(w, t, 1);
    put(w, p->rejoin_token, t);
  }
  put_u(w, m->game_len, 4);
  put(w, m->game, m->game_len);
}

size_t sv_mig_image_size(const sv_mig_image* m) {
  if (!fits_fields(m)) return 0;
  wr w = {NULL, 0, 0};
  write_all(&w, m);
  return w.len + 8;
}

size_t sv_mig_image_encode(const sv_mig_image* m, uint8_t* buf, size_t cap) {
  size_t need = sv_mig_image_size(m);
  if (need == 0 || need > cap) return 0;
  wr w = {buf, 0, cap};
  write_all(&w, m);
  put_u(&w, XXH3_64bits(buf, w.len), 8);
  return w.len;
}

// ---- reading (untrusted) ------------------------------------------------------------------

typedef struct rd {
  const uint8_t* p;
  size_t len, pos;
  bool short_;
} rd;

static const uint8_t* take(rd* r, size_t n) {
  if (r->short_ || n > r->len - r->pos) {
    r->short_ = true;
    return NULL;
  }
  const uint8_t* at = r->p + r->pos;
  r->pos += n;
  return at;
}
static uint64_t get_u(rd* r, int bytes) {
  const uint8_t* b = take(r, (size_t)bytes);
  uint64_t v = 0;
  for (int i = 0; b != NULL && i < bytes; ++i) v |= (uint64_t)b[i] << (8 * i);
  return v;
}
// A text of `n` bytes into out (cap n + 1 at least); false when short or not printable.
static bool get_text(rd* r, size_t n, char* out) {
  const uint8_t* b = take(r, n);
  if (b == NULL) return false;
  for (size_t i = 0; i < n; ++i)
    if (b[i] < 0x20 || b[i] == 0x7f) return false;  // UTF-8 beyond ASCII passes
  memcpy(out, b, n);
  out[n] = '\0';
  return true;
}

static int fail(int rc, char* err, size_t cap, const char* what) {
  snprintf(err, cap, "state image: %s", what);
  return rc;
}

int sv_mig_image_decode(const uint8_t* buf, size_t len, sv_mig_image* out, char* err,
                        size_t err_cap) {
  memset(out, 0, sizeof *out);
  if (len > SV_MIG_MAX_IMAGE) return fail(ARB_E_TOO_BIG, err, err_cap, "larger than the limit");
  if (len < 8 + 4 + 8) return fail(ARB_E_TRUNCATED, err, err_cap, "shorter than its header");
  if (memcmp(buf, SV_MIG_MAGIC, 8) != 0) return fail(ARB_E_CORRUPT, err, err_cap, "bad magic");
  rd r = {buf, len - 8, 8, false};
  uint32_t version = (uint32_t)get_u(&r, 4);
  if (version != SV_MIG_IMAGE_VERSION)
    return fail(ARB_E_VERSION, err, err_cap, "unknown format version");
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i) stored |= (uint64_t)buf[len - 8 + (size_t)i] << (8 * i);
  if (XXH3_64bits(buf, len - 8) != stored)
    return fail(ARB_E_CHECKSUM, err, err_cap, "checksum mismatch (damaged or cut short)");
#define GET_FIELD(f) out->f = get_u(&r, (int)sizeof out->f)
  SV_MIG_FIXED_FIELDS(GET_FIELD);
#undef GET_FIELD
  if (!r.short_ &&
      (out->match_state < SV_MIG_MATCH_READY || out->match_state > SV_MIG_MATCH_DRAINING))
    return fail(ARB_E_CORRUPT, err, err_cap, "bad match state");
  size_t pl = (size_t)get_u(&r, 2);
  if (pl > SV_MIG_MAX_PATH || !get_text(&r, pl, out->record_path))
    return fail(r.short_ ? ARB_E_TRUNCATED : ARB_E_CORRUPT, err, err_cap, "bad recording path");
  uint32_t n = (uint32_t)get_u(&r, 4);
  if (n > SV_MIG_MAX_PLAYERS) return fail(ARB_E_TOO_BIG, err, err_cap, "too many players");
  // Each player takes 22 bytes at least: a count the rest cannot hold is refused before
  // anything is allocated for it.
  if ((size_t)n * 22u > r.len - r.pos)
    return fail(ARB_E_TRUNCATED, err, err_cap, "player list cut short");
  if (r.short_ || out->tick_rate == 0 || out->next_client_id == 0)
    return fail(r.short_ ? ARB_E_TRUNCATED : ARB_E_CORRUPT, err, err_cap, "bad header fields");
  out->players = n ? calloc(n, sizeof *out->players) : NULL;
  if (n && out->players == NULL) return fail(ARB_E_NOMEM, err, err_cap, "out of memory");
  for (uint32_t i = 0; i < n; ++i) {
    sv_mig_player* p = &out->players[i];
    p->client_id = (uint32_t)get_u(&r, 4);
    p->entity_id = (uint32_t)get_u(&r, 4);
    p->avatar_kind = (uint8_t)get_u(&r, 1);
    uint8_t flags = (uint8_t)get_u(&r, 1);
    p->has_token = flags & 1;
    p->token_client_id = get_u(&r, 8);
    size_t nl = (size_t)get_u(&r, 1);
    bool ok = nl <= ARB_PROTO_MAX_NAME && get_text(&r, nl, p->name);
    size_t tl = ok ? (size_t)get_u(&r, 1) : 0;
    ok = ok && tl <= SV_MIG_TOKEN_MAX && get_text(&r, tl, p->rejoin_token);
    if (!ok || flags > 1 || p->client_id == 0 || p->client_id >= out->next_client_id ||
        p->entity_id == 0) {
      int rc = r.short_ ? ARB_E_TRUNCATED : ARB_E_CORRUPT;
      sv_mig_image_free(out);
      return fail(rc, err, err_cap, "bad player record");
    }
    for (uint32_t j = 0; j < i; ++j)
      if (out->players[j].client_id == p->client_id) {
        sv_mig_image_free(out);
        return fail(ARB_E_CORRUPT, err, err_cap, "a client id appears twice");
      }
  }
  out->player_count = (int)n;
  uint32_t gl = (uint32_t)get_u(&r, 4);
  const uint8_t* g = gl <= SV_MIG_MAX_GAME ? take(&r, gl) : NULL;
  if (g == NULL || gl == 0 || r.pos != r.len) {
    int rc = r.short_ ? ARB_E_TRUNCATED : ARB_E_CORRUPT;
    sv_mig_image_free(out);
    return fail(rc, err, err_cap, "bad game image length");
  }
  out->game = g;
  out->game_len = gl;
  return 0;
}

void sv_mig_image_free(sv_mig_image* m) {
  free(m->players);
  m->players = NULL;
  m->player_count = 0;
}
