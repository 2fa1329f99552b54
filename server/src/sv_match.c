// Match lifecycle state machine (see sv_match.h).
#include "sv_match.h"

#include <string.h>

#include "sv_names.h"

void sv_match_init(sv_match* m, const sv_match_limits* limits) {
  memset(m, 0, sizeof *m);
  m->state = SV_MATCH_STARTING;
  if (limits) m->limits = *limits;
}

void sv_match_ready(sv_match* m, uint64_t now_ns) {
  (void)now_ns;
  if (m->state == SV_MATCH_STARTING) m->state = SV_MATCH_READY;
}

bool sv_match_allocate(sv_match* m, uint64_t now_ns) {
  if (m->state != SV_MATCH_STARTING && m->state != SV_MATCH_READY) return false;
  m->state = SV_MATCH_ALLOCATED;
  m->allocated_ns = now_ns;
  // Allocated with nobody in it yet: "nobody joined within S of being allocated" counts
  // from here.
  if (m->players == 0) m->empty_since_ns = now_ns;
  return true;
}

void sv_match_set_players(sv_match* m, int players, uint64_t now_ns) {
  if (players > 0 && (m->state == SV_MATCH_READY || m->state == SV_MATCH_STARTING))
    sv_match_allocate(m, now_ns);
  if (players == 0 && m->players > 0) m->empty_since_ns = now_ns;
  m->players = players;
}

bool sv_match_drain(sv_match* m, uint64_t now_ns) {
  if (m->state == SV_MATCH_DRAINING || m->state == SV_MATCH_DONE) return false;
  if (m->state != SV_MATCH_ALLOCATED) {
    // No match to finish.
    m->state = SV_MATCH_DONE;
    m->end_pending = "drained";
  } else {
    m->state = SV_MATCH_DRAINING;
  }
  m->drain_ns = now_ns;
  return true;
}

void sv_match_end(sv_match* m, const char* why) {
  if (m->state == SV_MATCH_DONE) return;
  m->state = SV_MATCH_DONE;
  m->end_pending = why;
}

void sv_match_set_limits(sv_match* m, const sv_match_limits* limits) {
  m->limits = *limits;
}

static bool elapsed(uint64_t now, uint64_t since, uint64_t limit) {
  return now >= since && now - since >= limit;
}

const char* sv_match_check(sv_match* m, uint64_t now_ns) {
  const char* why = NULL;
  switch (m->state) {
    case SV_MATCH_DONE:
      // Ended by a drain without a match, or by sv_match_end: report it once.
      why = m->end_pending;
      m->end_pending = NULL;
      break;
    case SV_MATCH_ALLOCATED:
      if (m->limits.max_duration_ns > 0 &&
          elapsed(now_ns, m->allocated_ns, m->limits.max_duration_ns))
        why = "max_duration";
      else if (m->limits.exit_when_empty_ns > 0 && m->players == 0 &&
               elapsed(now_ns, m->empty_since_ns, m->limits.exit_when_empty_ns))
        why = "empty";
      break;
    case SV_MATCH_DRAINING:
      if (m->players == 0)
        why = "drained";
      else if (m->limits.max_duration_ns > 0 &&
               elapsed(now_ns, m->allocated_ns, m->limits.max_duration_ns))
        why = "max_duration";
      else if (elapsed(now_ns, m->drain_ns, m->limits.drain_timeout_ns))
        why = "drain_timeout";
      break;
    default:
      break;
  }
  if (why) {
    m->state = SV_MATCH_DONE;
    m->end_reason = why;
  }
  return why;
}

bool sv_match_accepting(const sv_match* m) {
  return m->state == SV_MATCH_READY || m->state == SV_MATCH_ALLOCATED;
}

const char* sv_match_state_name(sv_match_state state) {
  SV_RETURN_NAME(state, SV_MATCH_STATE_COUNT, "starting", "ready", "allocated", "draining", "done");
}
