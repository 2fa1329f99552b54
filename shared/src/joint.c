// DETERMINISM-CRITICAL: joint creation, destruction and queries (the solver part is in
// joint_solver.c). Slots are reused lowest-first, so ids depend only on call order.
#include "extras.h"

#define ARB__JOINT_COOKIE 0x4a4f4e54  // "JONT"

arb_joint_def arb_default_joint_def(void) {
  arb_joint_def d;
  memset(&d, 0, sizeof d);
  d.type = ARB_JOINT_REVOLUTE;
  d.length = -1.0f;
  d.damping_ratio = 1.0f;
  d.internal_value = ARB__JOINT_COOKIE;
  return d;
}

static arb_vec2 arb__anchor_world(const arb_world* w, arb_body_id id, arb_vec2 local) {
  int slot = arb__body_slot(w, id);
  return slot < 0 ? local : arb_transform_point(w->bodies[slot].xf, local);
}

static bool arb__joint_def_ok(const arb_world* w, const arb_joint_def* d) {
  if (d->internal_value != ARB__JOINT_COOKIE) return false;
  if (d->type <= ARB_JOINT_NONE || d->type >= ARB_JOINT_TYPE_COUNT) return false;
  int a = arb__body_slot(w, d->body_a);
  if (a < 0) return false;
  int b = arb_body_id_is_null(d->body_b) ? -1 : arb__body_slot(w, d->body_b);
  if (!arb_body_id_is_null(d->body_b) && b < 0) return false;
  if (a == b) return false;
  // Something must be able to move.
  bool ma = w->sims[a].type == ARB_BODY_DYNAMIC, mb = b >= 0 && w->sims[b].type == ARB_BODY_DYNAMIC;
  if (!ma && !mb) return false;
  if (!arb_vec2_is_valid(d->local_anchor_a) || !arb_vec2_is_valid(d->local_anchor_b)) return false;
  if (!arb_is_valid_float(d->length) || !arb_is_valid_float(d->hertz) ||
      !arb_is_valid_float(d->damping_ratio)) {
    return false;
  }
  if (d->hertz < 0.0f || d->damping_ratio < 0.0f || d->hertz > 1.0e4f) return false;
  return true;
}

arb_extra_id arb_joint_create(arb_world* w, const arb_joint_def* def) {
  arb_extra_id none = {0, 0};
  if (!w || w->locked || !def || !arb__joint_def_ok(w, def)) return none;
  arb__extras* x = arb__extras_get(w);
  if (!x) return none;
  int slot;
  ARB__EXTRA_CLAIM(w, x->joints, x->joint_slots, x->joint_cap, slot);
  if (slot < 0) return none;
  arb__joint* j = &x->joints[slot];
  j->type = (uint8_t)def->type;
  j->body_a = def->body_a;
  j->body_b = def->body_b;
  j->local_a = def->local_anchor_a;
  j->local_b = def->local_anchor_b;
  j->hertz = def->hertz;
  j->damping_ratio = def->damping_ratio;
  j->length = def->length;
  if (j->type == ARB_JOINT_DISTANCE && j->length < 0.0f) {
    j->length = arb_distance(arb__anchor_world(w, def->body_a, def->local_anchor_a),
                             arb__anchor_world(w, def->body_b, def->local_anchor_b));
  }
  if (j->type != ARB_JOINT_DISTANCE) j->length = 0.0f;
  j->ia = j->ib = -1;
  arb__wake_ids(w, def->body_a, def->body_b);
  arb_extra_id id = {slot + 1, j->generation};
  return id;
}

static arb__joint* arb__joint_get(const arb_world* w, arb_extra_id id) {
  const arb__extras* x = w ? w->extras : NULL;
  return ARB__EXTRA_GET(x, joints, joint_slots, id);
}

int arb_joint_destroy(arb_world* w, arb_extra_id id) {
  arb__joint* j = w && !w->locked ? arb__joint_get(w, id) : NULL;
  int err = arb__extra_release(w, j ? &j->in_use : NULL);
  if (!err) arb__wake_ids(w, j->body_a, j->body_b);  // each may now sleep on its own
  return err;
}

void arb_joint_get_anchors(const arb_world* w, arb_extra_id id, arb_vec2* a, arb_vec2* b) {
  const arb__joint* j = arb__joint_get(w, id);
  arb_vec2 pa = arb_vec2_zero, pb = arb_vec2_zero;
  if (j) {
    pa = arb__anchor_world(w, j->body_a, j->local_a);
    pb = arb_body_id_is_null(j->body_b) ? j->local_b : arb__anchor_world(w, j->body_b, j->local_b);
  }
  if (a) *a = pa;
  if (b) *b = pb;
}

int arb_world_get_joint_count(const arb_world* w) {
  int n = 0;
  if (w && w->extras) {
    for (int i = 0; i < w->extras->joint_slots; ++i) n += w->extras->joints[i].in_use;
  }
  return n;
}

arb_joint_type arb_joint_get_type(const arb_world* w, arb_extra_id id) {
  const arb__joint* j = arb__joint_get(w, id);
  return j ? (arb_joint_type)j->type : ARB_JOINT_NONE;
}

int arb_world_get_joints(const arb_world* w, arb_extra_id* out, int cap) {
  int n = 0;
  const arb__extras* x = w ? w->extras : NULL;
  for (int i = 0; x && i < x->joint_slots; ++i) {
    if (!x->joints[i].in_use) continue;
    if (out && n < cap) {
      out[n].index1 = i + 1;
      out[n].generation = x->joints[i].generation;
    }
    n += 1;
  }
  return n;
}
