// DETERMINISM-CRITICAL: islands and sleeping (the scheme of Box2D v3, rebuilt per step).
//
// Islands are not kept between steps: at the end of a step in which some awake body has
// been slow for ARB_TIME_TO_SLEEP, the awake dynamic bodies are joined by union-find over
// their touching contacts, joints and springs (a partition does not depend on the order
// of the unions, so edge-list order, which is not state, cannot change the result). An
// island whose slowest-to-settle body has slept-time >= ARB_TIME_TO_SLEEP falls asleep.
// Static bodies join nothing; a kinematic body joins nothing either but keeps every
// dynamic body it touches or holds awake until its own timer runs out (it sleeps alone
// after ARB_TIME_TO_SLEEP at zero velocity), so a moving platform never drops its load.
//
// A sleeping island is a list of its bodies in ascending slot order: island_head is the
// lowest slot (state), island_next the link (rebuilt from island_head on restore). Waking
// any body wakes its whole list. Sleeping contacts keep their manifolds and impulses, so
// a woken island resumes warm-started exactly where it stopped.
//
// While at least one body sleeps, the step runs over lists instead of every slot:
// awake_bodies (ascending slots) for integration, finalize and the island build, and
// awake_contacts (ascending contact index = solver order) for the narrow phase and the
// solver. With nothing asleep those loops run over all slots and contacts exactly as
// before, so a world that never sleeps pays only the sleep timers.
#include <arbiter/bits.h>

#include "extras.h"
#include "world.h"

// ---- per-body data ----------------------------------------------------------------------

void arb__body_init_sleep(arb__body* b, const arb_body_def* def) {
  b->enable_sleep = def->enable_sleep ? 1 : 0;
  b->sleeping = 0;
  b->sleep_veto = 0;
  b->sleep_threshold = def->sleep_threshold;
  b->sleep_time = 0.0f;
  b->max_extent = arb__body_max_extent(b);
  b->island_head = ARB__NULL;
  b->island_next = ARB__NULL;
}

// ---- waking -----------------------------------------------------------------------------

static void arb__wake_island(arb_world* w, int head) {
  for (int i = head; i != ARB__NULL;) {
    arb__body* b = &w->bodies[i];
    int next = b->island_next;
    b->sleeping = 0;
    b->sleep_time = 0.0f;
    b->island_head = ARB__NULL;
    b->island_next = ARB__NULL;
    w->sleeping_count -= 1;
    i = next;
  }
  w->awake_dirty = true;
}

void arb__wake_body(arb_world* w, int body) {
  if (w->bodies[body].sleeping) arb__wake_island(w, w->bodies[body].island_head);
}

void arb__wake_all(arb_world* w) {
  for (int i = 0; i < w->body_slots && w->sleeping_count > 0; ++i) arb__wake_body(w, i);
}

static int arb__slot_of(const arb_world* w, arb_body_id id) {
  return arb_body_id_is_null(id) ? ARB__NULL : arb__body_slot(w, id);
}

// A joint or spring between ids a and b: if one end is `body`, wake the other.
static void arb__wake_partner(arb_world* w, int body, arb_body_id a, arb_body_id b) {
  // An end in another slot is not `body` whatever its generation: most constraints are
  // decided from their own ids, without reading the bodies (every destroyed body runs
  // this over every joint and spring of the world).
  if (a.index1 - 1 != body && b.index1 - 1 != body) return;
  int sa = arb__slot_of(w, a), sb = arb__slot_of(w, b);
  if (sa == body && sb >= 0) arb__wake_body(w, sb);
  if (sb == body && sa >= 0) arb__wake_body(w, sa);
}

void arb__wake_touching(arb_world* w, int body) {
  arb__wake_body(w, body);
  for (int e = w->bodies[body].contact_head; e != ARB__NULL; e = arb__next_edge(w, e)) {
    const arb__contact_brief* c = &w->contact_briefs[e >> 1];
    if (c->touching) arb__wake_body(w, (e & 1) == 0 ? c->body_b : c->body_a);
  }
  if (!arb__constraint_may_name(w, body)) return;  // no joint or spring to scan for
  const arb__extras* x = w->extras;
  for (int i = 0; x && i < x->joint_slots; ++i) {
    if (x->joints[i].in_use) arb__wake_partner(w, body, x->joints[i].body_a, x->joints[i].body_b);
  }
  for (int i = 0; x && i < x->spring_slots; ++i) {
    if (x->springs[i].in_use)
      arb__wake_partner(w, body, x->springs[i].body_a, x->springs[i].body_b);
  }
}

void arb__wake_ids(arb_world* w, arb_body_id a, arb_body_id b) {
  int s[2] = {arb__slot_of(w, a), arb__slot_of(w, b)};
  for (int k = 0; k < 2; ++k) {
    if (s[k] < 0 || w->sims[s[k]].type == ARB_BODY_STATIC) continue;
    arb__wake_body(w, s[k]);
    w->bodies[s[k]].sleep_time = 0.0f;
  }
}

void arb__wake_on_static_pair(arb_world* w, int a, int b) {
  if (w->sims[a].type == ARB_BODY_STATIC) arb__wake_body(w, b);
  if (w->sims[b].type == ARB_BODY_STATIC) arb__wake_body(w, a);
}

// A constraint from an awake (dynamic or kinematic) body wakes a sleeping dynamic body.
static void arb__wake_pair(arb_world* w, int a, int b) {
  if (a < 0 || b < 0) return;
  if (arb__body_awake(w, a) && w->bodies[b].sleeping && w->sims[b].type == ARB_BODY_DYNAMIC) {
    arb__wake_body(w, b);
  }
  if (arb__body_awake(w, b) && w->bodies[a].sleeping && w->sims[a].type == ARB_BODY_DYNAMIC) {
    arb__wake_body(w, a);
  }
}

void arb__refresh_awake_bodies(arb_world* w) {
  if (w->sleeping_count == 0 || !w->awake_dirty) return;
  if (w->awake_cap < w->body_slots || !w->awake_bodies) {  // never NULL in list mode
    int cap = w->body_slots + w->body_slots / 2 + 16;
    int32_t* p = arb__grow(w, w->awake_bodies, 0, cap, sizeof *p);
    if (!p) {
      arb__wake_all(w);  // no memory for the list: run without sleeping this step
      return;
    }
    w->awake_bodies = p;
    w->awake_cap = cap;
  }
  int n = 0;
  for (int i = 0; i < w->body_slots; ++i) {
    if (arb__body_awake(w, i)) w->awake_bodies[n++] = i;
  }
  w->awake_count = n;
  w->awake_dirty = false;
}

void arb__sleep_prepare(arb_world* w) {
  const arb__extras* x = w->extras;
  if (x && w->sleeping_count > 0) {
    for (int i = 0; i < x->joint_slots; ++i) {  // DET: slot order
      if (x->joints[i].in_use)
        arb__wake_pair(w, arb__slot_of(w, x->joints[i].body_a),
                       arb__slot_of(w, x->joints[i].body_b));
    }
    for (int i = 0; i < x->spring_slots; ++i) {
      if (x->springs[i].in_use)
        arb__wake_pair(w, arb__slot_of(w, x->springs[i].body_a),
                       arb__slot_of(w, x->springs[i].body_b));
    }
  }
  arb__refresh_awake_bodies(w);
}

// A bit per body slot, set for the n slots of list (stack memory: arb__stack_free it);
// NULL when there is no room.
static uint64_t* arb__slot_bits(arb_world* w, const int32_t* list, int n) {
  int words = (w->body_slots + 63) / 64;
  uint64_t* bits = arb__stack_alloc(w, (size_t)(words > 0 ? words : 1) * sizeof *bits);
  if (!bits) return NULL;
  memset(bits, 0, (size_t)words * sizeof *bits);
  for (int k = 0; k < n; ++k) bits[list[k] >> 6] |= (uint64_t)1 << (list[k] & 63);
  return bits;
}

// Marks the contacts with an awake end, walking the edge lists of the awake bodies (a
// contact of two awake bodies is marked twice, which is the same).
static void arb__mark_contacts_of_awake(arb_world* w, uint64_t* marked) {
  for (int k = 0; k < w->awake_count; ++k) {
    int i = w->awake_bodies[k];
    for (int e = w->bodies[i].contact_head; e != ARB__NULL; e = arb__next_edge(w, e)) {
      int c = e >> 1;
      marked[c >> 6] |= (uint64_t)1 << (c & 63);
    }
  }
}

// The same marks from the other side, for a world with few bodies asleep: a contact has no
// awake end only when both are asleep or static, and never two static ends, so walking the
// sleeping bodies' edge lists finds every such contact; every other one is marked. The
// awake list is exact here (just refreshed), so a slot outside it that is neither free nor
// static is asleep. False when there is no room for the bits (then walk the awake bodies).
static bool arb__mark_contacts_not_asleep(arb_world* w, uint64_t* marked, int words) {
  uint64_t* awake = arb__slot_bits(w, w->awake_bodies, w->awake_count);
  if (!awake) return false;
  int found = 0;
  for (int i = 0; i < w->body_slots && found < w->sleeping_count; ++i) {
    if ((awake[i >> 6] >> (i & 63)) & 1u) continue;
    if (w->sims[i].type < 0 || w->sims[i].type == ARB_BODY_STATIC) continue;
    found += 1;
    for (int e = w->bodies[i].contact_head; e != ARB__NULL; e = arb__next_edge(w, e)) {
      int c = e >> 1,
          other = (e & 1) == 0 ? w->contact_briefs[c].body_b : w->contact_briefs[c].body_a;
      if (!((awake[other >> 6] >> (other & 63)) & 1u)) marked[c >> 6] |= (uint64_t)1 << (c & 63);
    }
  }
  arb__stack_free(w, awake);
  for (int k = 0; k < words; ++k) marked[k] = ~marked[k];
  int tail = w->contact_count & 63;  // no mark past the last contact
  if (tail != 0) marked[words - 1] &= ((uint64_t)1 << tail) - 1;
  return true;
}

// The contacts of the awake bodies, ascending: a bitmap over the contact indices, marked
// from whichever side has fewer bodies (the awake ones, or the sleeping ones and the
// complement), read out in order. No sort, and no pass over the whole contact array.
void arb__collect_awake_contacts(arb_world* w) {
  w->awake_contact_count = 0;
  w->awake_contacts_of = w->contact_count;
  if (w->sleeping_count == 0) return;
  arb__refresh_awake_bodies(w);
  if (w->sleeping_count == 0) return;
  // Each contact is listed once at most, so the contact count bounds the list.
  int total = w->contact_count;
  if (w->awake_contact_cap < total || !w->awake_contacts) {  // never NULL in list mode
    int cap = total + total / 2 + 64;
    int32_t* p = arb__grow(w, w->awake_contacts, 0, cap, sizeof *p);
    if (!p) {
      arb__wake_all(w);
      return;
    }
    w->awake_contacts = p;
    w->awake_contact_cap = cap;
  }
  int words = (total + 63) / 64;
  uint64_t* marked = arb__stack_alloc(w, (size_t)(words > 0 ? words : 1) * sizeof *marked);
  if (!marked) {
    arb__wake_all(w);
    return;
  }
  memset(marked, 0, (size_t)words * sizeof *marked);
  if (w->sleeping_count >= w->awake_count || !arb__mark_contacts_not_asleep(w, marked, words)) {
    arb__mark_contacts_of_awake(w, marked);
  }
  int n = 0;
  for (int k = 0; k < words; ++k) {
    for (uint64_t x = marked[k]; x != 0; x &= x - 1) {
      w->awake_contacts[n++] = k * 64 + arb_lowest_bit(x);
    }
  }
  w->awake_contact_count = n;
  arb__stack_free(w, marked);
}

void arb__apply_wake_requests(arb_world* w) {
  bool woke = w->wake_count > 0;
  for (int k = 0; k < w->wake_count; ++k)
    arb__wake_body(w, w->wake_requests[k]);  // DET: contact order
  w->wake_count = 0;
  // Indices moved (destroyed contacts) or islands woke: collect again. The narrow phase
  // creates no contacts, so an unchanged count means none was destroyed, and a body it
  // woke at once (no room for the request) left awake_dirty set.
  if (woke || w->awake_dirty || w->contact_count != w->awake_contacts_of) {
    arb__collect_awake_contacts(w);
  }
}

// ---- falling asleep ---------------------------------------------------------------------

static int arb__find(int32_t* parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}

static void arb__union(int32_t* parent, int a, int b) {
  a = arb__find(parent, a);
  b = arb__find(parent, b);
  if (a == b) return;
  if (a < b) {
    parent[b] = a;
  } else {
    parent[a] = b;
  }
}

typedef struct arb__island_build {
  int32_t* parent;  // union-find over awake bodies (slot-indexed)
  float* slow;      // per body, then per root: the smallest sleep time that holds it awake
  int32_t* tail;    // per root: last body linked into its sleeping list
} arb__island_build;

// One edge of the island graph between an awake dynamic body and `other`.
static void arb__island_edge(const arb_world* w, arb__island_build* ib, int body, int other) {
  if (other < 0) return;
  int type = w->sims[other].type;
  if (type == ARB_BODY_DYNAMIC) {
    if (w->bodies[other].sleeping) {
      ib->slow[body] = 0.0f;  // cannot happen (it would have been woken): stay awake
    } else {
      arb__union(ib->parent, body, other);
    }
  } else if (type == ARB_BODY_KINEMATIC) {
    ib->slow[body] = arb_minf(ib->slow[body], w->bodies[other].sleep_time);
  }
}

static void arb__island_constraint(const arb_world* w, arb__island_build* ib, int a, int b) {
  if (a < 0 || b < 0) return;
  if (w->sims[a].type == ARB_BODY_DYNAMIC && arb__body_awake(w, a)) arb__island_edge(w, ib, a, b);
  if (w->sims[b].type == ARB_BODY_DYNAMIC && arb__body_awake(w, b)) arb__island_edge(w, ib, b, a);
}

// Whether body i is one the island build starts from: in the list (every slot without
// one), dynamic and not asleep.
static bool arb__island_member(const arb_world* w, const uint64_t* in_list, int i) {
  return (!in_list || ((in_list[i >> 6] >> (i & 63)) & 1u)) &&
         w->sims[i].type == ARB_BODY_DYNAMIC && !w->bodies[i].sleeping;
}

// The touching contacts as edges, read in contact order from the briefs (most bodies
// awake: memory order beats following the edge lists from contact to contact). The same
// edges as the walk in arb__island_edges, in another order, which the partition and the
// minima do not see. False when there is no room for the list's bits.
static bool arb__island_contact_scan(arb_world* w, arb__island_build* ib, int n,
                                     const int32_t* list) {
  uint64_t* in_list = NULL;
  if (list && !(in_list = arb__slot_bits(w, list, n))) return false;
  for (int c = 0; c < w->contact_count; ++c) {
    const arb__contact_brief* ct = &w->contact_briefs[c];
    if (!ct->touching) continue;
    if (arb__island_member(w, in_list, ct->body_a)) arb__island_edge(w, ib, ct->body_a, ct->body_b);
    if (arb__island_member(w, in_list, ct->body_b)) arb__island_edge(w, ib, ct->body_b, ct->body_a);
  }
  if (in_list) arb__stack_free(w, in_list);
  return true;
}

static void arb__island_edges(arb_world* w, arb__island_build* ib, int n, const int32_t* list) {
  if (2 * n <= w->body_count || !arb__island_contact_scan(w, ib, n, list)) {
    for (int k = 0; k < n; ++k) {
      int i = list ? list[k] : k;
      if (w->sims[i].type != ARB_BODY_DYNAMIC || w->bodies[i].sleeping) continue;
      for (int e = w->bodies[i].contact_head; e != ARB__NULL; e = arb__next_edge(w, e)) {
        const arb__contact_brief* c = &w->contact_briefs[e >> 1];
        if (c->touching) arb__island_edge(w, ib, i, (e & 1) == 0 ? c->body_b : c->body_a);
      }
    }
  }
  const arb__extras* x = w->extras;
  for (int i = 0; x && i < x->joint_slots; ++i) {
    const arb__joint* j = &x->joints[i];
    if (j->in_use)
      arb__island_constraint(w, ib, arb__slot_of(w, j->body_a), arb__slot_of(w, j->body_b));
  }
  for (int i = 0; x && i < x->spring_slots; ++i) {
    const arb__spring* s = &x->springs[i];
    if (s->in_use)
      arb__island_constraint(w, ib, arb__slot_of(w, s->body_a), arb__slot_of(w, s->body_b));
  }
}

static void arb__sleep_body(arb_world* w, arb__island_build* ib, int i, int root) {
  arb__body* b = &w->bodies[i];
  int tail = ib->tail[root];
  if (tail == ARB__NULL) {
    b->island_head = i;
  } else {
    w->bodies[tail].island_next = i;
    b->island_head = w->bodies[tail].island_head;
  }
  ib->tail[root] = i;
  b->island_next = ARB__NULL;
  b->sleeping = 1;
  w->states[i].v = arb_vec2_zero;
  w->states[i].w = 0.0f;
  b->force = arb_vec2_zero;
  b->torque = 0.0f;
  w->sleeping_count += 1;
  w->awake_dirty = true;
}

void arb__islands_sleep(arb_world* w, int sleepy) {
  w->stat_islands = 0;
  if (!w->def.enable_sleep || sleepy == 0) return;
  int n;
  const int32_t* list = arb__awake_list(w, &n);
  arb__island_build ib;
  ib.parent = arb__stack_alloc(w, (size_t)w->body_slots * sizeof *ib.parent);
  ib.slow = ib.parent ? arb__stack_alloc(w, (size_t)w->body_slots * sizeof *ib.slow) : NULL;
  ib.tail = ib.slow ? arb__stack_alloc(w, (size_t)w->body_slots * sizeof *ib.tail) : NULL;
  if (ib.tail) {
    for (int k = 0; k < n; ++k) {
      int i = list ? list[k] : k;
      ib.parent[i] = i;
      ib.slow[i] = w->bodies[i].sleep_time;
      ib.tail[i] = ARB__NULL;
    }
    arb__island_edges(w, &ib, n, list);
    for (int k = 0; k < n; ++k) {
      int i = list ? list[k] : k;
      if (!arb__body_awake(w, i)) continue;
      int r = arb__find(ib.parent, i);
      if (r == i) w->stat_islands += 1;
      ib.slow[r] = arb_minf(ib.slow[r], ib.slow[i]);
    }
    // Slot order: each sleeping list comes out ascending, its head the lowest slot.
    for (int k = 0; k < n; ++k) {
      int i = list ? list[k] : k;
      if (!arb__body_awake(w, i)) continue;
      int r = arb__find(ib.parent, i);
      if (ib.slow[r] >= ARB_TIME_TO_SLEEP) arb__sleep_body(w, &ib, i, r);
    }
  }
  if (ib.tail) arb__stack_free(w, ib.tail);
  if (ib.slow) arb__stack_free(w, ib.slow);
  if (ib.parent) arb__stack_free(w, ib.parent);
}
