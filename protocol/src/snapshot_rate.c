// Per-client snapshot rate control (see arbiter/snapshot_rate.h).
#include <arbiter/snapshot_rate.h>

void arb_snapshot_rate_init(arb_snapshot_rate* r, int ceiling_kbps) {
  float c = (float)ceiling_kbps;
  if (!(c >= (float)ARB_SNAPSHOT_RATE_FLOOR_KBPS)) c = (float)ARB_SNAPSHOT_RATE_FLOOR_KBPS;
  r->ceiling_kbps = c;
  r->kbps = c;
  r->min_rtt_ms = 0.0f;
  r->since_cut_s = 1.0e9f;
  r->clear_s = 0.0f;
  r->owed = 0;
}

void arb_snapshot_rate_update(arb_snapshot_rate* r, float loss, float rtt_ms, float dt) {
  if (!(dt > 0.0f)) dt = 0.0f;
  if (rtt_ms > 0.0f && (r->min_rtt_ms == 0.0f || rtt_ms < r->min_rtt_ms)) r->min_rtt_ms = rtt_ms;
  int delayed =
      rtt_ms > 0.0f && r->min_rtt_ms > 0.0f && rtt_ms > r->min_rtt_ms + ARB_SNAPSHOT_RATE_DELAY_MS;
  int congested = loss > ARB_SNAPSHOT_RATE_LOSS_LIMIT || delayed;
  r->since_cut_s += dt;
  if (congested) {
    r->clear_s = 0.0f;
    if (r->since_cut_s >= 0.25f) {  // one cut per reaction time: the signal lags the cause
      r->kbps *= 0.75f;
      r->since_cut_s = 0.0f;
    }
  } else {
    r->clear_s += dt;
    if (r->clear_s >= 1.0f) r->kbps += 0.05f * r->ceiling_kbps * dt;
  }
  if (r->kbps < (float)ARB_SNAPSHOT_RATE_FLOOR_KBPS) r->kbps = (float)ARB_SNAPSHOT_RATE_FLOOR_KBPS;
  if (r->kbps > r->ceiling_kbps) r->kbps = r->ceiling_kbps;
}

int arb_snapshot_rate_budget(const arb_snapshot_rate* r, int snapshot_rate) {
  if (snapshot_rate < 1) snapshot_rate = 1;
  return (int)(r->kbps * 1000.0f / 8.0f / (float)snapshot_rate);
}

int arb_snapshot_rate_take(arb_snapshot_rate* r, int snapshot_rate) {
  int budget = arb_snapshot_rate_budget(r, snapshot_rate);
  if (r->owed >= budget) {
    r->owed -= budget;
    return 0;
  }
  budget -= r->owed;
  r->owed = 0;
  return budget;
}

void arb_snapshot_rate_spent(arb_snapshot_rate* r, int budget, long bytes) {
  if (bytes > budget) r->owed += (int)(bytes - budget);
}
