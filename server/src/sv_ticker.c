// Fixed-step ticker: uv_hrtime accumulator + one-shot uv_timer (see sv_ticker.h).
#include "sv_ticker.h"

#include <string.h>

static void on_timer(uv_timer_t* handle);

static void arm(sv_ticker* t) {
  uint64_t now = uv_hrtime();
  uint64_t delay_ms = 0;
  if (t->next_ns > now) {
    // Round up: the timer has 1 ms resolution and firing early would just re-arm.
    delay_ms = (t->next_ns - now + 999999u) / 1000000u;
  }
  // The loop's cached time may be a whole tick old after a long callback.
  uv_update_time(t->timer.loop);
  uv_timer_start(&t->timer, on_timer, delay_ms, 0);
}

static void on_timer(uv_timer_t* handle) {
  sv_ticker* t = handle->data;
  uint64_t now = uv_hrtime();
  if (now >= t->next_ns && now - t->next_ns > t->lateness_max_ns)
    t->lateness_max_ns = now - t->next_ns;
  int ran = 0;
  while (t->running && now >= t->next_ns && ran < t->max_catchup) {
    t->on_tick(t->user);
    t->next_ns += t->period_ns;
    ++ran;
    now = uv_hrtime();
  }
  if (!t->running) return;
  // Still behind after a full batch: at most max_catchup ticks due is a backlog the
  // following wake-ups work off (the loop services the network in between, the timer
  // fires at once); more than that is dropped. Dropping whatever was left after one batch
  // lost ticks, and their snapshots, to every short stall while ticks took most of their
  // period (a loaded server): each tick then wins back only a little of the delay.
  uint64_t behind = now >= t->next_ns ? (now - t->next_ns) / t->period_ns + 1 : 0;
  if (behind > (uint64_t)t->max_catchup) {
    t->next_ns += behind * t->period_ns;
    t->skipped_total += behind;
    t->last_lag_ns = now;
    if (t->on_lag) t->on_lag(t->user, behind);
  }
  arm(t);
}

int sv_ticker_init(sv_ticker* t, uv_loop_t* loop, uint64_t period_ns, int max_catchup,
                   sv_tick_fn* on_tick, sv_lag_fn* on_lag, void* user) {
  memset(t, 0, sizeof *t);
  if (period_ns == 0 || max_catchup < 1 || on_tick == NULL) return UV_EINVAL;
  t->period_ns = period_ns;
  t->max_catchup = max_catchup;
  t->on_tick = on_tick;
  t->on_lag = on_lag;
  t->user = user;
  int rc = uv_timer_init(loop, &t->timer);
  t->timer.data = t;
  return rc;
}

void sv_ticker_start(sv_ticker* t) {
  t->running = true;
  t->next_ns = uv_hrtime() + t->period_ns;
  arm(t);
}

void sv_ticker_stop(sv_ticker* t) {
  t->running = false;
  uv_timer_stop(&t->timer);
}

void sv_ticker_close(sv_ticker* t) {
  sv_ticker_stop(t);
  if (!uv_is_closing((uv_handle_t*)&t->timer)) uv_close((uv_handle_t*)&t->timer, NULL);
}

void sv_ticker_note_lag(sv_ticker* t) {
  t->last_lag_ns = uv_hrtime();
}

bool sv_ticker_healthy(const sv_ticker* t, uint64_t window_ns) {
  if (!t->running) return false;
  if (t->last_lag_ns == 0) return true;
  return uv_hrtime() - t->last_lag_ns > window_ns;
}
