// arbiter — ids for world objects. Stand-alone.
// Ids are small values passed by copy; a zeroed id is null. The generation makes an id
// of a destroyed body stale instead of silently pointing at whatever reuses its slot.
#pragma once

#include "base.h"

ARB_C_BEGIN

typedef struct arb_body_id {
  int32_t index1;       ///< slot index + 1; 0 = null
  uint32_t generation;  ///< must match the slot's generation
} arb_body_id;

static const arb_body_id arb_null_body_id = {0, 0};

static inline bool arb_body_id_is_null(arb_body_id id) {
  return id.index1 == 0;
}
static inline bool arb_body_id_equals(arb_body_id a, arb_body_id b) {
  return a.index1 == b.index1 && a.generation == b.generation;
}

ARB_C_END
