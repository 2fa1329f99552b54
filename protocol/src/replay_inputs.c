// A tick record <-> the game's description of a tick (see replay_inputs.h).
#include <arbiter/replay_inputs.h>
#include <stdio.h>

static int clamp_count(int n) {
  return n < 0 ? 0 : n > ARB_PROTO_MAX_CLIENTS ? ARB_PROTO_MAX_CLIENTS : n;
}

void arb_replay_inputs_from_tick(const arb_replay_tick* t, arb_replay_inputs* out) {
  arb_tick_inputs* in = &out->inputs;
  in->joins = out->joins;
  in->leaves = out->leaves;
  in->controls = out->controls;
  in->join_count = clamp_count(t->join_count);
  in->leave_count = clamp_count(t->leave_count);
  in->control_count = clamp_count(t->input_count);
  for (int i = 0; i < in->join_count; i++)
    out->joins[i] =
        (arb_tick_join){t->joins[i].client_id, (arb_avatar_kind)t->joins[i].avatar_kind, 0, ARB_OK};
  for (int i = 0; i < in->leave_count; i++) out->leaves[i] = (arb_tick_leave){t->leaves[i], ARB_OK};
  for (int i = 0; i < in->control_count; i++) {
    // What the game applies is the dequantized record, never the client's own floats.
    arb_controls c = arb_proto_dequantize_controls(&t->inputs[i].controls);
    out->controls[i] =
        (arb_tick_control){t->inputs[i].client_id, c, ARB_OK, t->inputs[i].view_time};
  }
}

void arb_replay_tick_keep_applied(arb_replay_tick* t, const arb_replay_inputs* applied) {
  const arb_tick_inputs* in = &applied->inputs;
  int w = 0;
  for (int i = 0; i < in->join_count; i++) {
    if (in->joins[i].result != ARB_OK) continue;
    t->joins[w] = t->joins[i];
    t->joins[w++].entity_id = in->joins[i].entity_id;
  }
  t->join_count = w;
  w = 0;
  for (int i = 0; i < in->leave_count; i++)
    if (in->leaves[i].result == ARB_OK) t->leaves[w++] = t->leaves[i];
  t->leave_count = w;
  w = 0;
  for (int i = 0; i < in->control_count; i++)
    if (in->controls[i].result == ARB_OK) t->inputs[w++] = t->inputs[i];
  t->input_count = w;
}

int arb_replay_inputs_check_joins(const arb_replay_tick* t, const arb_replay_inputs* applied,
                                  char* why, size_t why_cap) {
  const arb_tick_inputs* in = &applied->inputs;
  for (int i = 0; i < in->join_count; i++) {
    const arb_tick_join* j = &in->joins[i];
    if (j->result == ARB_OK && j->entity_id == t->joins[i].entity_id) continue;
    snprintf(why, why_cap, "join of client %u gave entity %u (%s), the log says entity %u",
             j->client_id, j->entity_id, j->result != ARB_OK ? arb_strerror(j->result) : "ok",
             t->joins[i].entity_id);
    return ARB_E_CORRUPT;
  }
  return ARB_OK;
}
