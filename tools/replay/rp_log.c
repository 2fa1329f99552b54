// arbiter-replay — reading and indexing a log (see rp_log.h).
#include "rp_log.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(void** arr, int* cap, size_t elem) {
  int n = *cap ? *cap * 2 : 16;
  void* p = realloc(*arr, (size_t)n * elem);
  if (!p) return ARB_E_NOMEM;
  *arr = p;
  *cap = n;
  return ARB_OK;
}

static int note_tick(rp_log* log, const arb_replay_tick* t) {
  for (int i = 0; i < t->join_count; i++) {
    if (log->client_count == log->client_cap &&
        grow((void**)&log->clients, &log->client_cap, sizeof *log->clients) != ARB_OK)
      return ARB_E_NOMEM;
    rp_client* c = &log->clients[log->client_count++];
    memset(c, 0, sizeof *c);
    c->client_id = t->joins[i].client_id;
    c->entity_id = t->joins[i].entity_id;
    c->avatar_kind = t->joins[i].avatar_kind;
    memcpy(c->name, t->joins[i].name, sizeof c->name);
    c->join_tick = t->tick;
  }
  for (int i = 0; i < t->leave_count; i++) {
    for (int k = log->client_count - 1; k >= 0; k--) {
      rp_client* c = &log->clients[k];
      if (c->client_id == t->leaves[i] && c->leave_tick == 0) {
        c->leave_tick = t->tick;
        break;
      }
    }
  }
  return ARB_OK;
}

static int scan(rp_log* log, char* err, size_t cap) {
  arb_replay_tick* t = malloc(sizeof *t);
  if (!t) {
    snprintf(err, cap, "out of memory");
    return ARB_E_NOMEM;
  }
  arb_replay_reader r = log->start;
  arb_replay_record rec;
  arb_proto_error perr;
  int rc = ARB_OK;
  while (rc == ARB_OK && arb_replay_reader_next(&r, &rec)) {
    memset(&perr, 0, sizeof perr);
    if (rec.kind == ARB_REPLAY_TICK) {
      // The reader validated the body already, so a decode failure is a bug; say so.
      rc = arb_replay_decode_tick(&rec, t, &perr);
      if (rc == ARB_OK) {
        if (!log->first_tick) log->first_tick = t->tick;
        log->last_hash = t->world_hash;
        rc = note_tick(log, t);
      }
    } else if (rec.kind == ARB_REPLAY_CHECKPOINT) {
      arb_replay_checkpoint cp;
      rc = arb_replay_decode_checkpoint(&rec, &cp, &perr);
      if (rc == ARB_OK && log->cp_count == log->cp_cap)
        rc = grow((void**)&log->cps, &log->cp_cap, sizeof *log->cps);
      if (rc == ARB_OK) {
        rp_checkpoint* c = &log->cps[log->cp_count++];
        c->tick = cp.tick;
        c->world_hash = cp.world_hash;
        c->state = cp.state;
        c->state_len = cp.state_len;
        c->reader = r;
      }
    } else if (rec.kind == ARB_REPLAY_END) {
      rc = arb_replay_decode_end(&rec, &log->end, &perr);
      if (rc == ARB_OK) log->have_end = true;
    }
    if (rc != ARB_OK)
      snprintf(err, cap, "record at offset %llu: %s", (unsigned long long)rec.offset,
               perr.reason[0] ? perr.reason : arb_strerror(rc));
  }
  free(t);
  log->end_state = r;
  log->last_tick = r.last_tick;
  log->tick_count = r.tick_count;
  if (r.stop == ARB_REPLAY_STOP_CLEAN)
    snprintf(log->stop_text, sizeof log->stop_text, "clean");
  else
    arb_replay_reader_describe(&r, log->stop_text, sizeof log->stop_text);
  return rc;
}

int rp_log_open(rp_log* log, uint8_t* data, size_t len, char* err, size_t cap) {
  memset(log, 0, sizeof *log);
  log->data = data;
  log->len = len;
  arb_proto_error perr;
  memset(&perr, 0, sizeof perr);
  int rc = arb_replay_reader_open(&log->start, data, len, &perr);
  if (rc != ARB_OK) {
    snprintf(err, cap, "not a readable replay log: %s",
             perr.reason[0] ? perr.reason : arb_strerror(rc));
    return rc;
  }
  return scan(log, err, cap);
}

void rp_log_close(rp_log* log) {
  free(log->data);
  free(log->cps);
  free(log->clients);
  memset(log, 0, sizeof *log);
}

bool rp_log_is_clean(const rp_log* log) {
  return log->end_state.stop == ARB_REPLAY_STOP_CLEAN;
}

const rp_checkpoint* rp_log_checkpoint_at_or_before(const rp_log* log, uint64_t tick) {
  const rp_checkpoint* best = NULL;
  for (int i = 0; i < log->cp_count && log->cps[i].tick <= tick; i++) best = &log->cps[i];
  return best;
}

const rp_checkpoint* rp_log_checkpoint_at_or_after(const rp_log* log, uint64_t tick) {
  for (int i = 0; i < log->cp_count; i++)
    if (log->cps[i].tick >= tick) return &log->cps[i];
  return NULL;
}
