// The list of open connections a listener keeps (HTTP, WebSocket): doubly linked through
// the connection's own `prev` and `next` members, from a head pointer, newest first.
#pragma once

#include <stddef.h>

/// Puts `node` at the front of the list that starts at `head`.
#define SV_CONN_LIST_PUSH(head, node) \
  do {                                \
    (node)->prev = NULL;              \
    (node)->next = (head);            \
    if (head) (head)->prev = (node);  \
    (head) = (node);                  \
  } while (0)

/// Takes `node` out of the list that starts at `head`.
#define SV_CONN_LIST_REMOVE(head, node)                  \
  do {                                                   \
    if ((node)->prev)                                    \
      (node)->prev->next = (node)->next;                 \
    else                                                 \
      (head) = (node)->next;                             \
    if ((node)->next) (node)->next->prev = (node)->prev; \
  } while (0)
