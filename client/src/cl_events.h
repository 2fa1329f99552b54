// cl_events — the bounded queue behind arb_client_poll_event. A full queue drops its
// oldest event (counted) rather than growing: an application that never polls must not
// make the client allocate without bound.
#pragma once

#include <arbiter/client.h>

#define CL_EVENT_CAP 1024

typedef struct cl_events {
  arb_client_event ring[CL_EVENT_CAP];
  int head;  ///< index of the oldest event
  int count;
  uint64_t dropped;
} cl_events;

void cl_events_clear(cl_events* q);
/// Append an event; text may be NULL. Truncated to fit ev.text.
void cl_events_push(cl_events* q, arb_client_event_type type, double time, uint32_t entity_id,
                    uint32_t client_id, int code, bool will_reconnect, const char* text);
/// 1 = popped into *out, 0 = empty.
int cl_events_pop(cl_events* q, arb_client_event* out);
