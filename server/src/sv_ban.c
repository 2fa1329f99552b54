// Operator bans (see sv_ban.h).
#include "sv_ban.h"

#include <stddef.h>

static bool live(const sv_ban_slot* s, uint64_t now_ms) {
  return s->ip != 0 && s->until_ms > now_ms;
}

bool sv_ban_set(sv_bans* b, uint32_t ip, uint64_t ms, uint64_t now_ms) {
  sv_ban_slot* same = NULL;
  sv_ban_slot* free_slot = NULL;
  sv_ban_slot* soonest = &b->slot[0];
  for (int i = 0; i < SV_BAN_SLOTS; ++i) {
    sv_ban_slot* s = &b->slot[i];
    if (s->ip == ip && live(s, now_ms)) same = s;
    if (!live(s, now_ms) && free_slot == NULL) free_slot = s;
    if (s->until_ms < soonest->until_ms) soonest = s;
  }
  bool was = same != NULL;
  if (ms == 0) {
    if (same) same->ip = 0;
    return was;
  }
  sv_ban_slot* s = same ? same : free_slot ? free_slot : soonest;
  s->ip = ip;
  s->until_ms = now_ms + ms;
  if (s->until_ms > b->latest_until_ms) b->latest_until_ms = s->until_ms;
  return was;
}

bool sv_ban_active(const sv_bans* b, uint32_t ip, uint64_t now_ms) {
  if (b->latest_until_ms <= now_ms) return false;  // every ban has ended (or none was set)
  for (int i = 0; i < SV_BAN_SLOTS; ++i)
    if (b->slot[i].ip == ip && live(&b->slot[i], now_ms)) return true;
  return false;
}

int sv_ban_count(const sv_bans* b, uint64_t now_ms) {
  int n = 0;
  for (int i = 0; i < SV_BAN_SLOTS; ++i) n += live(&b->slot[i], now_ms) ? 1 : 0;
  return n;
}
