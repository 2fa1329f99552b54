// Bounded event queue (see cl_events.h).
#include "cl_events.h"

#include <string.h>

void cl_events_clear(cl_events* q) {
  q->head = 0;
  q->count = 0;
}

void cl_events_push(cl_events* q, arb_client_event_type type, double time, uint32_t entity_id,
                    uint32_t client_id, int code, bool will_reconnect, const char* text) {
  if (q->count == CL_EVENT_CAP) {
    q->head = (q->head + 1) % CL_EVENT_CAP;
    q->count--;
    q->dropped++;
  }
  arb_client_event* ev = &q->ring[(q->head + q->count) % CL_EVENT_CAP];
  memset(ev, 0, sizeof *ev);
  ev->type = type;
  ev->time = time;
  ev->entity_id = entity_id;
  ev->client_id = client_id;
  ev->code = code;
  ev->will_reconnect = will_reconnect;
  if (text) {
    size_t n = strlen(text);
    if (n >= sizeof ev->text) n = sizeof ev->text - 1;
    memcpy(ev->text, text, n);
    ev->text[n] = '\0';
  }
  q->count++;
}

int cl_events_pop(cl_events* q, arb_client_event* out) {
  if (q->count == 0) return 0;
  *out = q->ring[q->head];
  q->head = (q->head + 1) % CL_EVENT_CAP;
  q->count--;
  return 1;
}
