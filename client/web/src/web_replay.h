// The replay player of the web page (web_replay.c), as exported to JavaScript
// (client/web/lib/replay.js is the only caller).
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct web_replay web_replay;

/// Open a log written into the module's file system. NULL on failure: wr_open_error()
/// says why.
web_replay* wr_open(const char* path);
/// The same from the log's bytes (copied).
web_replay* wr_open_bytes(const uint8_t* data, size_t len);
const char* wr_open_error(void);
void wr_close(web_replay* w);
/// Up to n ticks forward, each checked against its recorded hash; returns how many were
/// stepped (fewer at the end of the log or after an error).
int wr_step(web_replay* w, int n);
/// Start going to a tick (clamped to the log); wr_update finishes it.
void wr_seek(web_replay* w, double tick);
/// Continue a seek for at most budget_ms; returns 1 while it is not finished.
int wr_update(web_replay* w, double budget_ms);
double wr_tick(web_replay* w);
double wr_last_tick(web_replay* w);
int wr_tick_rate(web_replay* w);
/// Ticks whose hash was compared, how many differed, the first that did (0 = none).
double wr_checked(web_replay* w);
double wr_mismatches(web_replay* w);
double wr_first_mismatch(web_replay* w);
/// 1 when the current tick's hash equals the recorded one.
int wr_last_ok(web_replay* w);
/// A replay error that stopped playback ("" = none).
const char* wr_error(web_replay* w);
/// How the log ends: "log complete", or where a truncated or torn log stops.
const char* wr_log_end(web_replay* w);
/// Whose avatar the frame marks as own: a client id, 0 = the lowest present.
void wr_follow(web_replay* w, uint32_t client_id);
/// Build the current tick's frame (layout in web_replay.c); returns its address
/// (wr_frame_len floats), or NULL when memory ran out.
const float* wr_frame(web_replay* w);
int wr_frame_len(web_replay* w);
