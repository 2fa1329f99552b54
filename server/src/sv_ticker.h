// Fixed-step ticker on a libuv loop.
//
// A repeating uv_timer is not a clock (it drifts and its period stretches with the
// callback's work, see DEPENDENCIES.md), so the deadline of tick n is computed from
// uv_hrtime(): start + n * period. Each wake runs every tick that is due, at most
// max_catchup of them; if more than max_catchup are still due the lag is dropped
// (counted, logged once per lag episode) so a slow tick can never start a spiral of death,
// and a smaller backlog is worked off by the next wakes. Then a one-shot timer is re-armed
// for the next deadline (at once while behind).
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef struct sv_ticker sv_ticker;
typedef void sv_tick_fn(void* user);
/// Called once per wake that dropped lag: `skipped` ticks will never run.
typedef void sv_lag_fn(void* user, uint64_t skipped);

struct sv_ticker {
  uv_timer_t timer;  ///< one-shot, re-armed per wake
  uint64_t period_ns;
  uint64_t next_ns;  ///< uv_hrtime() deadline of the next tick
  int max_catchup;
  sv_tick_fn* on_tick;
  sv_lag_fn* on_lag;
  void* user;
  bool running;
  uint64_t skipped_total;    ///< ticks dropped: more than max_catchup due after a batch
  uint64_t last_lag_ns;      ///< uv_hrtime() of the last dropped lag or overrun, 0 = never
  uint64_t lateness_max_ns;  ///< worst start lateness seen (diagnostics)
};

/// The timer is initialised on `loop`; close it with sv_ticker_close.
int sv_ticker_init(sv_ticker* t, uv_loop_t* loop, uint64_t period_ns, int max_catchup,
                   sv_tick_fn* on_tick, sv_lag_fn* on_lag, void* user);
/// First tick is due one period from now.
void sv_ticker_start(sv_ticker* t);
void sv_ticker_stop(sv_ticker* t);
/// Stop and close the timer handle (its memory must stay valid until the loop runs the close).
void sv_ticker_close(sv_ticker* t);
/// Mark the ticker as lagging now (e.g. a tick overran its period).
void sv_ticker_note_lag(sv_ticker* t);
/// True when no lag was seen in the last `window_ns`.
bool sv_ticker_healthy(const sv_ticker* t, uint64_t window_ns);
