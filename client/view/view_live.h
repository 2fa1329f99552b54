// arbiter-view — live mode: one arb_client connected to a server, turned into frames,
// statistics and connection messages. Connection trouble never blocks: every state is
// shown on screen and a rejected or failed connection is retried on a timer.
#pragma once

#include <arbiter/client.h>

#include "view.h"

typedef struct view_live view_live;

typedef struct view_live_config {
  const char* host;
  uint16_t port;
  const char* name;
  arb_avatar_kind avatar;
  bool spectate;      ///< watch without an avatar (PROTOCOL.md §4.1)
  float retry_delay;  ///< seconds before retrying after a reject or a failed connect
} view_live_config;

int view_live_create(const view_live_config* cfg, view_live** out, char* err, size_t err_cap);
void view_live_destroy(view_live* l);
/// Network work, events and controls; `now` in seconds (monotonic).
void view_live_update(view_live* l, double now, const arb_controls* controls);
/// Interpolated world at `now` into the frame (the own avatar predicted, with its fading
/// correction); with ghosts, each body also gets the pose of the newest raw snapshot
/// (arb_client_get_latest).
void view_live_fill(view_live* l, double now, view_frame* f, bool ghosts);
void view_live_stats(view_live* l, view_stats* s);
/// Status lines (top-left) and, when something is wrong, a centred message.
void view_live_messages(view_live* l, double now, view_text_lines* status,
                        view_text_lines* message);
/// The world rectangle the window shows (min, max): reported to the server as the view box
/// (arb_client_set_view_box) with a margin, again only when the view leaves what was sent.
void view_live_set_camera(view_live* l, arb_vec2 lo, arb_vec2 hi);
/// Retry now (the R key) when not connected.
void view_live_retry(view_live* l, double now);
/// The kind of our avatar when known, else what we asked for.
arb_avatar_kind view_live_avatar_kind(const view_live* l);
bool view_live_connected(const view_live* l);
