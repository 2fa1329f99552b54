// Priority accumulator (see arbiter/snapshot_priority.h).
#include <arbiter/snapshot_priority.h>
#include <stdlib.h>
#include <string.h>

int arb_snapshot_priority_init(arb_snapshot_priority* p, int max_entities) {
  memset(p, 0, sizeof *p);
  if (max_entities < 1) return ARB_E_RANGE;
  size_t n = (size_t)max_entities;
  p->ids = calloc(n, sizeof *p->ids);
  p->acc = calloc(n, sizeof *p->acc);
  p->spare_ids = calloc(n, sizeof *p->spare_ids);
  p->spare_acc = calloc(n, sizeof *p->spare_acc);
  if (!p->ids || !p->acc || !p->spare_ids || !p->spare_acc) {
    arb_snapshot_priority_free(p);
    return ARB_E_NOMEM;
  }
  p->cap = max_entities;
  return 0;
}

void arb_snapshot_priority_free(arb_snapshot_priority* p) {
  free(p->ids);
  free(p->acc);
  free(p->spare_ids);
  free(p->spare_acc);
  memset(p, 0, sizeof *p);
}

/* 1 / (1 + d^2 / s^2) for a squared distance d2 and squared scale s2, written as
 * s2 / (s2 + d2): no square root and one division (this runs for every changed entity
 * of every client's view). 1 at d2 = 0, whatever the scale. */
static float nearness(float d2, float s2) {
  return d2 > 0.0f ? s2 / (s2 + d2) : 1.0f;
}

/* What an interest's weights share: computed once per snapshot (arb_snapshot_priority_begin)
 * rather than once per entity, with the same float operations, so every weight is the same
 * to the bit either way. */
static arb_snapshot_interest_scales scales_of(const arb_snapshot_interest* in) {
  arb_snapshot_interest_scales k;
  float r = in->near_radius > 0.0f ? in->near_radius : 10.0f;
  k.near_sq = r * r;
  k.view_centre = arb_scale(0.5f, arb_add(in->view.lower, in->view.upper));
  k.view_half_sq = 0.25f * arb_length_sq(arb_sub(in->view.upper, in->view.lower));
  return k;
}

// arb_snapshot_weight of an entity other than the avatar.
static inline float weight_apart(const arb_snapshot_interest* in,
                                 const arb_snapshot_interest_scales* k, arb_vec2 position) {
  float w = 1.0f;
  if (in->avatar_id != 0) w = nearness(arb_distance_sq(position, in->avatar), k->near_sq);
  if (in->has_view && position.x >= in->view.lower.x && position.x <= in->view.upper.x &&
      position.y >= in->view.lower.y && position.y <= in->view.upper.y) {
    // On the player's screen: as near as the avatar's surroundings even when the camera
    // looks far from the avatar (nearness to the box's centre, on the scale of half the
    // box's diagonal).
    float near = k->view_half_sq > 0.0f
                     ? nearness(arb_distance_sq(position, k->view_centre), k->view_half_sq)
                     : 1.0f;
    w = 4.0f * arb_maxf(w, near);
  }
  return w;
}

static bool is_avatar(const arb_snapshot_interest* in, uint32_t id) {
  return in->avatar_id != 0 && id == in->avatar_id;
}

float arb_snapshot_weight(const arb_snapshot_interest* in, uint32_t id, arb_vec2 position) {
  if (is_avatar(in, id)) return 1.0e6f;
  arb_snapshot_interest_scales k = scales_of(in);
  return weight_apart(in, &k, position);
}

float arb_snapshot_relevance(const arb_snapshot_interest* in, uint32_t id, arb_vec2 position,
                             float speed) {
  float w = arb_snapshot_weight(in, id, position);
  if (is_avatar(in, id)) return w;
  return w * (1.0f + speed);  // fast things drift from the prediction sooner
}

/* arb_snapshot_relevance, with the weight (*w) computed once for both uses. */
static float relevance_weight(const arb_snapshot_interest* in,
                              const arb_snapshot_interest_scales* k, uint32_t id, arb_vec2 position,
                              float speed, float* w) {
  if (is_avatar(in, id)) return *w = 1.0e6f;
  *w = weight_apart(in, k, position);
  return *w * (1.0f + speed);
}

// The n entries just written to the spare arrays become the accumulators; the old arrays
// become the spare ones (no copy).
static void adopt_spare(arb_snapshot_priority* p, int n) {
  uint32_t* ids = p->ids;
  float* acc = p->acc;
  p->ids = p->spare_ids;
  p->acc = p->spare_acc;
  p->spare_ids = ids;
  p->spare_acc = acc;
  p->count = n;
}

void arb_snapshot_priority_update(arb_snapshot_priority* p, const arb_snapshot_set* current,
                                  const arb_vec2* positions, const float* speeds,
                                  const arb_snapshot_interest* in, float dt, float* out,
                                  float* weight) {
  int i = 0, n = current->count < p->cap ? current->count : p->cap;
  arb_snapshot_interest_scales k = scales_of(in);
  for (int j = 0; j < n; ++j) {
    uint32_t id = current->items[j].id;
    while (i < p->count && p->ids[i] < id) ++i;  // gone from the view: dropped
    float acc = i < p->count && p->ids[i] == id ? p->acc[i] : 0.0f;
    float w;
    acc += relevance_weight(in, &k, id, positions[j], speeds[j], &w) * dt;
    p->spare_ids[j] = id;
    p->spare_acc[j] = acc;
    out[j] = acc;
    if (weight) weight[j] = w;
  }
  adopt_spare(p, n);
}

void arb_snapshot_priority_sent(arb_snapshot_priority* p, const uint8_t* up_to_date) {
  for (int i = 0; i < p->count; ++i)
    if (up_to_date[i]) p->acc[i] = 0.0f;
}

void arb_snapshot_priority_begin(arb_snapshot_priority* p, const arb_snapshot_interest* in,
                                 float dt) {
  p->cursor = 0;
  p->in = *in;
  p->scales = scales_of(in);
  p->dt = dt;
}

float arb_snapshot_priority_next(arb_snapshot_priority* p, uint32_t id, arb_vec2 position,
                                 float speed, float* weight) {
  int i = p->cursor;
  while (i < p->count && p->ids[i] < id) ++i;
  p->cursor = i;
  float acc = i < p->count && p->ids[i] == id ? p->acc[i] : 0.0f;
  float w;
  acc += relevance_weight(&p->in, &p->scales, id, position, speed, &w) * p->dt;
  if (weight) *weight = w;
  return acc;
}

void arb_snapshot_priority_keep(arb_snapshot_priority* p, const arb_snapshot_set* current,
                                const float* acc, const uint8_t* up_to_date) {
  int n = 0;
  for (int j = 0; j < current->count && n < p->cap; ++j) {
    if (up_to_date[j]) continue;
    p->spare_ids[n] = current->items[j].id;
    p->spare_acc[n++] = acc[j];
  }
  adopt_spare(p, n);
}

void arb_snapshot_priority_keep_stale(arb_snapshot_priority* p, const arb_snapshot_set* current,
                                      const float* acc, const int* stale, int count) {
  int n = count < p->cap ? count : p->cap;
  for (int k = 0; k < n; ++k) {
    p->spare_ids[k] = current->items[stale[k]].id;
    p->spare_acc[k] = acc[stale[k]];
  }
  adopt_spare(p, n);
}
