// arbiter — per-client snapshot rate control: the byte budget of each snapshot, from the
// configured ceiling (server --client-kbps, lowered by what the client asked for) and the
// client's congestion signals (Quake 3's per-client rate, with TCP-like backoff). When the
// client's queueing delay rises, or its packet loss gets heavy, the rate drops by a quarter
// (at most once per 250 ms, never below the floor). Moderate loss alone is not taken for
// congestion: on wireless and long paths packets are lost at random, and cutting the rate
// for that only delays corrections; a queue filling up shows first as a rising round trip; after a
// second without congestion it climbs back by 5 % of the ceiling per second. Budgets are per
// snapshot, so the bytes of any second of snapshots stay within that second's rate, plus at most
// one packet (a snapshot always sends at least one, however small its budget) and a snapshot
// that had to go over its budget (a whole view, PROTOCOL.md §6), which is owed: the next
// budgets pay it back first, skipping snapshots while it is at least one budget.
#pragma once

#include <arbiter/base.h>

ARB_C_BEGIN

#define ARB_SNAPSHOT_RATE_FLOOR_KBPS 16     ///< never below this
#define ARB_SNAPSHOT_RATE_LOSS_LIMIT 0.20f  ///< loss fraction above which the link is congested
#define ARB_SNAPSHOT_RATE_DELAY_MS 50.0f    ///< RTT above the lowest seen by this much: congested

typedef struct arb_snapshot_rate {
  float ceiling_kbps;  ///< the most this client gets
  float kbps;          ///< current rate
  float min_rtt_ms;    ///< lowest RTT seen (0 = none yet): the link's delay without queues
  float since_cut_s;   ///< seconds since the last decrease
  float clear_s;       ///< seconds without congestion
  int owed;            ///< bytes sent over budgets, not paid back yet
} arb_snapshot_rate;

/// ceiling_kbps >= ARB_SNAPSHOT_RATE_FLOOR_KBPS (smaller values are raised to it).
ARB_API void arb_snapshot_rate_init(arb_snapshot_rate* r, int ceiling_kbps);
/// Once per snapshot: loss = fraction of the client's recent packets lost [0, 1] (e.g. from
/// input sequence gaps), rtt_ms = its current round trip (0 = unknown), dt = seconds since
/// the previous call.
ARB_API void arb_snapshot_rate_update(arb_snapshot_rate* r, float loss, float rtt_ms, float dt);
/// Bytes (payload + per-packet overhead) a snapshot may use at `snapshot_rate` per second.
ARB_API int arb_snapshot_rate_budget(const arb_snapshot_rate* r, int snapshot_rate);
/// Once per snapshot due: its budget less what is owed (paid back from it), or 0 when the
/// whole budget went to the debt: send nothing this time.
ARB_API int arb_snapshot_rate_take(arb_snapshot_rate* r, int snapshot_rate);
/// A snapshot spent `bytes` against the `budget` arb_snapshot_rate_take gave it: what it
/// spent over is owed.
ARB_API void arb_snapshot_rate_spent(arb_snapshot_rate* r, int budget, long bytes);

ARB_C_END
