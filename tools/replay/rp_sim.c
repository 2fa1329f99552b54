// arbiter-replay — re-simulation driver and state comparison (see rp_sim.h).
#include "rp_sim.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int rp_sim_init(rp_sim* sim, const rp_log* log) {
  memset(sim, 0, sizeof *sim);
  sim->log = log;
  sim->reader = log->start;
  sim->strict = true;
  const arb_replay_header* h = &log->start.header;
  arb_scene_error serr;
  memset(&serr, 0, sizeof serr);
  int rc = arb_scene_load_string(h->scene_text, h->scene_len, "recorded scene", &sim->scene, &serr);
  if (rc != ARB_OK) {
    char msg[320];
    arb_scene_error_format(&serr, msg, sizeof msg);
    snprintf(sim->why, sizeof sim->why, "the recorded scene does not load: %s", msg);
    return rc;
  }
  if (arb_scene_get_hash(sim->scene) != h->scene_hash) {
    snprintf(sim->why, sizeof sim->why,
             "the header's scene hash %016llx does not match the scene text (%016llx)",
             (unsigned long long)h->scene_hash, (unsigned long long)arb_scene_get_hash(sim->scene));
    return ARB_E_CORRUPT;
  }
  // The server may run a scene at another rate (--tick-rate): the header has the one used.
  rc = arb_scene_set_tick_rate(sim->scene, h->tick_rate);
  if (rc != ARB_OK) {
    snprintf(sim->why, sizeof sim->why, "the header's tick rate %u Hz can not be applied: %s",
             h->tick_rate, arb_strerror(rc));
    return rc;
  }
  rc = arb_game_create(sim->scene, h->seed, &sim->game);
  if (rc != ARB_OK) {
    snprintf(sim->why, sizeof sim->why, "cannot create the game: %s", arb_strerror(rc));
    return rc;
  }
  sim->rec = malloc(sizeof *sim->rec);
  sim->inputs = malloc(sizeof *sim->inputs);
  if (!sim->rec || !sim->inputs) {
    snprintf(sim->why, sizeof sim->why, "out of memory");
    return ARB_E_NOMEM;
  }
  return ARB_OK;
}

void rp_sim_deinit(rp_sim* sim) {
  if (sim->game) arb_game_destroy(sim->game);
  if (sim->scene) arb_scene_destroy(sim->scene);
  free(sim->rec);
  free(sim->inputs);
  memset(sim, 0, sizeof *sim);
}

int rp_sim_start_at(rp_sim* sim, const rp_checkpoint* cp) {
  if (cp->state_len > (size_t)INT32_MAX) {
    snprintf(sim->why, sizeof sim->why, "checkpoint of tick %llu: state too large",
             (unsigned long long)cp->tick);
    return ARB_E_TOO_BIG;
  }
  int rc = arb_game_restore(sim->game, cp->state, (int)cp->state_len);
  if (rc != ARB_OK) {
    snprintf(sim->why, sizeof sim->why, "checkpoint of tick %llu does not restore: %s",
             (unsigned long long)cp->tick, arb_strerror(rc));
    return rc;
  }
  if (arb_game_get_tick(sim->game) != cp->tick || arb_game_hash(sim->game) != cp->world_hash) {
    snprintf(sim->why, sizeof sim->why,
             "checkpoint of tick %llu restores to tick %llu with hash %016llx, recorded %016llx",
             (unsigned long long)cp->tick, (unsigned long long)arb_game_get_tick(sim->game),
             (unsigned long long)arb_game_hash(sim->game), (unsigned long long)cp->world_hash);
    return ARB_E_CORRUPT;
  }
  sim->reader = cp->reader;
  sim->recorded_hash = cp->world_hash;
  return ARB_OK;
}

// Put a sim at the state before tick `first` of the log: tick 0 when the log starts at
// tick 1, else the latest checkpoint at or before first - 1. With prefer_checkpoint, the
// latest checkpoint at or before `target` (seek/dump skip the ticks before it).
int rp_sim_start(rp_sim* sim, const rp_log* log, uint64_t target, bool prefer_checkpoint,
                 const rp_checkpoint** used) {
  *used = NULL;
  const rp_checkpoint* cp = prefer_checkpoint ? rp_log_checkpoint_at_or_before(log, target) : NULL;
  bool from_zero = log->first_tick <= 1;  // 0: a log with no tick records
  if (!cp && !from_zero) {
    cp = rp_log_checkpoint_at_or_before(log, log->first_tick - 1);
    if (!cp) {
      snprintf(sim->why, sizeof sim->why,
               "the log starts at tick %" PRIu64
               " with no checkpoint before it: nothing to start from",
               log->first_tick);
      return ARB_E_STATE;
    }
  }
  if (!cp) return ARB_OK;
  *used = cp;
  return rp_sim_start_at(sim, cp);
}

// Apply one decoded tick record (through the game's tick applier) and step.
static int apply(rp_sim* sim, const arb_replay_tick* t) {
  arb_replay_inputs_from_tick(t, sim->inputs);
  arb_game_apply_tick(sim->game, &sim->inputs->inputs);
  sim->recorded_hash = t->world_hash;
  char why[200];
  if (!sim->strict || arb_replay_inputs_check_joins(t, sim->inputs, why, sizeof why) == ARB_OK)
    return RP_STEP_OK;
  snprintf(sim->why, sizeof sim->why, "tick %llu: %s", (unsigned long long)t->tick, why);
  return RP_STEP_JOIN_MISMATCH;
}

int rp_sim_step(rp_sim* sim, rp_checkpoint_fn* on_checkpoint, void* user) {
  arb_replay_record rec;
  arb_proto_error perr;
  for (;;) {
    // Peek on a copy: a stop requested by the checkpoint callback leaves the reader
    // before that checkpoint, so the caller can resume consistently.
    arb_replay_reader next = sim->reader;
    if (!arb_replay_reader_next(&next, &rec)) {
      sim->reader = next;
      return RP_STEP_END;
    }
    memset(&perr, 0, sizeof perr);
    if (rec.kind == ARB_REPLAY_CHECKPOINT) {
      arb_replay_checkpoint cp;
      if (on_checkpoint && arb_replay_decode_checkpoint(&rec, &cp, &perr) == ARB_OK &&
          cp.tick == arb_game_get_tick(sim->game)) {
        int stop = on_checkpoint(sim, &cp, user);
        if (stop) return RP_STEP_STOPPED;
      }
      sim->reader = next;
      continue;
    }
    sim->reader = next;
    if (rec.kind != ARB_REPLAY_TICK) continue;
    int rc = arb_replay_decode_tick(&rec, sim->rec, &perr);
    uint64_t want = arb_game_get_tick(sim->game) + 1;
    if (rc != ARB_OK || sim->rec->tick != want) {
      // The reader guarantees consecutive ticks, so this is a log that starts later than
      // the state we have (a recording begun mid-game without a checkpoint).
      if (rc == ARB_OK)
        snprintf(sim->why, sizeof sim->why, "tick record %llu follows game tick %llu",
                 (unsigned long long)sim->rec->tick, (unsigned long long)(want - 1));
      else
        snprintf(sim->why, sizeof sim->why, "tick record at offset %llu: %s",
                 (unsigned long long)rec.offset, perr.reason);
      return ARB_E_CORRUPT;
    }
    return apply(sim, sim->rec);
  }
}

void rp_sim_perturb_gravity(rp_sim* sim) {
  arb_world* w = arb_game_get_world(sim->game);
  arb_vec2 g = arb_world_get_gravity(w);
  const float k = 1.0f + 1.0f / 1048576.0f;
  arb_world_set_gravity(w, (arb_vec2){g.x * k, g.y * k});
}

// ---- comparison -------------------------------------------------------------------------

typedef struct field_values {
  float v[7];
} field_values;

static const char* const field_names[7] = {"p.x", "p.y", "rot.c", "rot.s", "v.x", "v.y", "w"};

static field_values body_fields(const arb_world* w, arb_body_id id) {
  arb_vec2 p = arb_body_get_position(w, id);
  arb_rot q = arb_body_get_rotation(w, id);
  arb_vec2 v = arb_body_get_linear_velocity(w, id);
  field_values f = {{p.x, p.y, q.c, q.s, v.x, v.y, arb_body_get_angular_velocity(w, id)}};
  return f;
}

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

// Distance in representable floats (same sign only; otherwise reported as "sign").
static long long ulps(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, sizeof ia);
  memcpy(&ib, &b, sizeof ib);
  if ((ia < 0) != (ib < 0)) return -1;
  long long d = (long long)ia - (long long)ib;
  return d < 0 ? -d : d;
}

static const char* entity_name(const arb_game* g, const arb_entity* e) {
  if (e->owner) return "avatar";
  const char* n = arb_scene_get_body_name(arb_game_get_scene(g), (int)e->id - 1);
  return n ? n : "";
}

static int get_entities(const arb_game* g, arb_entity** out) {
  int n = arb_game_get_entities(g, NULL, 0);
  *out = calloc((size_t)(n > 0 ? n : 1), sizeof **out);
  if (!*out) return -1;
  return arb_game_get_entities(g, *out, n);
}

static void diff_state_bytes(const arb_game* a, const arb_game* b, const char* indent, FILE* out) {
  int na = arb_game_save(a, NULL, 0), nb = arb_game_save(b, NULL, 0);
  uint8_t* ba = na > 0 ? malloc((size_t)na) : NULL;
  uint8_t* bb = nb > 0 ? malloc((size_t)nb) : NULL;
  if (ba && bb && arb_game_save(a, ba, na) == na && arb_game_save(b, bb, nb) == nb) {
    int n = na < nb ? na : nb, first = -1, count = 0;
    for (int i = 0; i < n; i++)
      if (ba[i] != bb[i]) {
        if (first < 0) first = i;
        count++;
      }
    if (first < 0 && na == nb)
      fprintf(out, "%sthe saved game states are byte-identical\n", indent);
    else
      fprintf(out,
              "%sbody poses and velocities are identical; the saved game states differ in %d of %d "
              "bytes (sizes %d recorded, %d replayed), first at byte %d: the difference is in "
              "other state (contacts, avatars and controls, random state, joints/particles)\n",
              indent, count + (na > nb ? na - nb : nb - na), n, na, nb, first < 0 ? n : first);
  } else {
    fprintf(out, "%scannot save the game states for a byte comparison\n", indent);
  }
  free(ba);
  free(bb);
}

int rp_diff_games(const arb_game* a, const arb_game* b, int limit, const char* indent, FILE* out) {
  arb_entity *ea = NULL, *eb = NULL;
  int na = get_entities(a, &ea), nb = get_entities(b, &eb);
  if (na < 0 || nb < 0) {
    free(ea);
    free(eb);
    fprintf(out, "%sout of memory\n", indent);
    return -1;
  }
  const arb_world* wa = arb_game_get_world((arb_game*)a);
  const arb_world* wb = arb_game_get_world((arb_game*)b);
  int differing = 0, i = 0, k = 0;
  while (i < na || k < nb) {
    // Entities are in id order on both sides: walk them like a merge.
    if (k >= nb || (i < na && ea[i].id < eb[k].id)) {
      if (differing++ < limit)
        fprintf(out, "%sentity %u \"%s\": only in the recording\n", indent, ea[i].id,
                entity_name(a, &ea[i]));
      i++;
      continue;
    }
    if (i >= na || eb[k].id < ea[i].id) {
      if (differing++ < limit)
        fprintf(out, "%sentity %u \"%s\": only in the re-simulation\n", indent, eb[k].id,
                entity_name(b, &eb[k]));
      k++;
      continue;
    }
    field_values fa = body_fields(wa, ea[i].body), fb = body_fields(wb, eb[k].body);
    bool head = false;
    for (int f = 0; f < 7; f++) {
      if (bits_of(fa.v[f]) == bits_of(fb.v[f])) continue;
      if (!head) {
        head = true;
        if (differing++ >= limit) break;
        fprintf(out, "%sentity %u \"%s\"", indent, ea[i].id, entity_name(a, &ea[i]));
        if (ea[i].owner) fprintf(out, " (client %u)", ea[i].owner);
        fputc(':', out);
      } else {
        fputc(',', out);
      }
      long long u = ulps(fa.v[f], fb.v[f]);
      fprintf(out, " %s %.9g -> %.9g", field_names[f], (double)fa.v[f], (double)fb.v[f]);
      if (u >= 0)
        fprintf(out, " (%lld ulp)", u);
      else
        fprintf(out, " (0x%08x -> 0x%08x)", bits_of(fa.v[f]), bits_of(fb.v[f]));
    }
    if (head && differing <= limit) fputc('\n', out);
    i++;
    k++;
  }
  if (differing > limit)
    fprintf(out, "%s... and %d more entities differ\n", indent, differing - limit);
  if (differing == 0) diff_state_bytes(a, b, indent, out);
  free(ea);
  free(eb);
  return differing;
}
