// Address bans set by the operator (POST /admin/ban, docs/SECURITY.md): a fixed table of
// IPv4 addresses, each until a time. Every datagram from a banned address is dropped in
// ENet's intercept hook, before the connection gate or ENet see it. Nothing grows: when
// the table is full, a new ban replaces the one that ends first.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define SV_BAN_SLOTS 256

typedef struct sv_ban_slot {
  uint32_t ip;        ///< network order, as ENet stores it; 0 = empty
  uint64_t until_ms;  ///< the ban ends at this time (uv_hrtime milliseconds)
} sv_ban_slot;

typedef struct sv_bans {
  sv_ban_slot slot[SV_BAN_SLOTS];
  /// No ban lasts past this time (the latest end ever set; a lifted ban leaves it): every
  /// datagram is checked, and while no ban is in force the check reads nothing else.
  uint64_t latest_until_ms;
} sv_bans;

/// Ban ip for ms milliseconds from now_ms (replacing an earlier ban of the same address);
/// ms = 0 lifts its ban. Returns true when the address was banned before.
bool sv_ban_set(sv_bans* b, uint32_t ip, uint64_t ms, uint64_t now_ms);
/// True while ip is banned.
bool sv_ban_active(const sv_bans* b, uint32_t ip, uint64_t now_ms);
/// Bans in force at now_ms.
int sv_ban_count(const sv_bans* b, uint64_t now_ms);
