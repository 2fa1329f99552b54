// Whether a client's copy of an entity is within the snapshot tolerance of the truth: the
// groups its class carries (position and velocity for bodies and particles, angle and
// angular velocity for bodies and wheels, a wheel's aux exactly) and its flags (the
// ballistic flag is the encoder's choice, not state). What arb_snapshot_build promises
// for every entity it reports up to date (arbiter/snapshot.h, arb_snapshot_tolerance).
#pragma once

#include <arbiter/snapshot.h>
#include <stdbool.h>
#include <stdlib.h>

static inline bool snapshot_within(int32_t a, int32_t b, int32_t tol) {
  return llabs((long long)a - (long long)b) <= tol;
}

/// s: the copy evaluated at the truth's tick; t: the true entity.
static inline bool snapshot_within_tolerance(const arb_snapshot_state* s,
                                             const arb_snapshot_entity* t,
                                             const arb_snapshot_tolerance* tol) {
  bool moves = t->cls == ARB_SNAPSHOT_BODY || t->cls == ARB_SNAPSHOT_PARTICLE;
  bool turns = t->cls == ARB_SNAPSHOT_BODY || t->cls == ARB_SNAPSHOT_WHEEL;
  if (moves &&
      !(snapshot_within(s->x, t->s.x, tol->pos) && snapshot_within(s->y, t->s.y, tol->pos) &&
        snapshot_within(s->vx, t->s.vx, tol->vel) && snapshot_within(s->vy, t->s.vy, tol->vel)))
    return false;
  if (turns) {
    int da = (uint16_t)(s->angle - t->s.angle);
    if (!(da <= tol->angle || 65536 - da <= tol->angle) ||
        !snapshot_within(s->w, t->s.w, tol->angvel))
      return false;
  }
  if (t->cls == ARB_SNAPSHOT_WHEEL && s->aux != t->s.aux) return false;
  return (s->flags & ~ARB_SNAPSHOT_FLAG_BALLISTIC) == (t->s.flags & ~ARB_SNAPSHOT_FLAG_BALLISTIC);
}
