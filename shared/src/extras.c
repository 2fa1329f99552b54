// DETERMINISM-CRITICAL: the physics extras' container and step hooks (see extras.h).
// Iteration is in slot / creation order only.
#include "extras.h"

arb__extras* arb__extras_get(arb_world* w) {
  if (w->extras) return w->extras;
  arb__extras* x = arb__alloc(w, sizeof *x);
  if (!x) return NULL;
  memset(x, 0, sizeof *x);
  x->constraint_iterations = ARB__DEFAULT_CONSTRAINT_ITERATIONS;
  w->extras = x;
  return x;
}

void arb__extras_release(arb_world* w, arb__extras* x) {
  if (!x) return;
  arb__free(w, x->springs);
  arb__free(w, x->joints);
  arb__free(w, x->jrun_mem);
  arb__free(w, x->jrun_tag_mem);
  arb__free(w, x->jrun_open);
  arb__free(w, x->body_moved.mem);
  arb__free(w, x->body_colors.mem);
  arb__free(w, x->vehicles);
  arb__free(w, x->particles);
  arb__free(w, x->constraints);
  arb__free(w, x->end_refs);
  arb__free(w, x);
}

void arb__extras_free(arb_world* w) {
  if (!w) return;
  arb__extras_release(w, w->extras);
  w->extras = NULL;
}

bool arb__extras_empty(const arb__extras* x) {
  return !x ||
         (x->spring_slots == 0 && x->joint_slots == 0 && x->vehicle_slots == 0 &&
          x->particle_count == 0 && x->constraint_count == 0 &&
          x->constraint_iterations == ARB__DEFAULT_CONSTRAINT_ITERATIONS && x->last_dt == 0.0f);
}

void* arb__extra_slot_room(arb_world* w, void* arr, int32_t* slots, int32_t* cap, size_t elem,
                           int slot, bool* ok) {
  *ok = true;
  if (slot < *slots) return arr;
  if (slot >= ARB__MAX_EXTRAS) {
    *ok = false;
    return arr;
  }
  if (slot == *cap) {
    int new_cap = *cap ? 2 * *cap : 8;
    void* grown = arb__grow(w, arr, *slots, new_cap, elem);
    if (!grown) {
      *ok = false;
      return arr;
    }
    arr = grown;
    *cap = new_cap;
  }
  memset((uint8_t*)arr + (size_t)slot * elem, 0, elem);
  *slots += 1;
  return arr;
}

int arb__extra_release(arb_world* w, uint8_t* in_use) {
  if (!w) return ARB_E_INVAL;
  if (w->locked) return ARB_E_STATE;
  if (!in_use) return ARB_E_STALE_ID;
  *in_use = 0;
  return 0;
}

void* arb__extra_stale(void) {
  ARB_ASSERT(false && "stale, null or foreign extras id");
  return NULL;
}

int arb__body_slot(const arb_world* w, arb_body_id id) {
  return arb__body_get(w, id) ? id.index1 - 1 : -1;
}

static void arb__count_end(arb__extras* x, arb_body_id id, int delta) {
  if (id.index1 >= 1 && id.index1 <= x->end_refs_count) x->end_refs[id.index1 - 1] += delta;
}

// Counts every live joint's and spring's ends by slot; false when there is no memory.
static bool arb__build_end_refs(arb_world* w, arb__extras* x) {
  int n = w->body_slots > 0 ? w->body_slots : 1;
  if (x->end_refs_cap < n) {
    int32_t* p = arb__grow(w, x->end_refs, 0, n, sizeof *p);
    if (!p) return false;
    x->end_refs = p;
    x->end_refs_cap = n;
  }
  memset(x->end_refs, 0, (size_t)n * sizeof *x->end_refs);
  x->end_refs_count = n;
  for (int i = 0; i < x->joint_slots; ++i) {
    if (!x->joints[i].in_use) continue;
    arb__count_end(x, x->joints[i].body_a, 1);
    arb__count_end(x, x->joints[i].body_b, 1);
  }
  for (int i = 0; i < x->spring_slots; ++i) {
    if (!x->springs[i].in_use) continue;
    arb__count_end(x, x->springs[i].body_a, 1);
    arb__count_end(x, x->springs[i].body_b, 1);
  }
  return true;
}

// A slot beyond the counted ones was created after the count, and every constraint
// created since would have dropped it: none names it.
bool arb__constraint_may_name(arb_world* w, int body) {
  arb__extras* x = w->extras;
  if (!x || (x->joint_slots == 0 && x->spring_slots == 0)) return false;
  if (x->end_refs_count == 0 && !arb__build_end_refs(w, x)) return true;
  return body < x->end_refs_count && x->end_refs[body] > 0;
}

void arb__constraint_ends_created(arb_world* w, arb_body_id a, arb_body_id b) {
  w->extras->end_refs_count = 0;
  arb__wake_ids(w, a, b);
}

void arb__constraint_ends_released(arb_world* w, arb_body_id a, arb_body_id b) {
  arb__count_end(w->extras, a, -1);
  arb__count_end(w->extras, b, -1);
  arb__wake_ids(w, a, b);  // each may now sleep on its own
}

static void arb__insert_sorted(int32_t* out, int* count, int32_t v) {
  int n = *count;
  while (n > 0 && out[n - 1] > v) {
    out[n] = out[n - 1];
    n -= 1;
  }
  out[n] = v;
  *count += 1;
}

// Tree traversal order depends on the tree's shape, which is not state (trees are rebuilt
// on restore): results are kept sorted by slot, and an overflowing query falls back to a
// slot-order scan so the result never depends on the traversal.
typedef struct arb__collect_query {
  int32_t* out;
  int* count;
  int cap;
} arb__collect_query;

static bool arb__collect_leaf(void* ctx, int body) {
  arb__collect_query* q = ctx;
  if (*q->count >= q->cap) return false;
  arb__insert_sorted(q->out, q->count, body);
  return true;
}

static bool arb__collect_tree(const arb__tree* t, arb_aabb box, int32_t* out, int* count, int cap) {
  arb__collect_query q = {out, count, cap};
  return arb__tree_query(t, box, arb__collect_leaf, &q);
}

void arb__collect_bodies(const arb_world* w, arb_aabb box, int32_t* out, int* count, int cap) {
  *count = 0;
  if (arb__collect_tree(&w->static_tree, box, out, count, cap) &&
      arb__collect_tree(&w->dynamic_tree, box, out, count, cap)) {
    return;
  }
  *count = 0;
  for (int i = 0; i < w->body_slots && *count < cap; ++i) {
    if (w->bodies[i].in_use && arb_aabb_overlaps(w->bodies[i].fat_aabb, box)) out[(*count)++] = i;
  }
}

void arb__extras_pre_solve(arb_world* w, float dt) {
  arb__extras* x = w->extras;
  if (!x) return;
  if (x->spring_slots > 0) arb__springs_apply(w);
  if (x->vehicle_slots > 0) arb__vehicles_apply(w, dt);
}

void arb__extras_post_step(arb_world* w, float dt) {
  arb__extras* x = w->extras;
  if (x && x->particle_count > 0) {
    x->last_dt = dt;  // only with particles (it is state: see arb__extras_empty)
    arb__particles_step(w, dt);
  }
}
