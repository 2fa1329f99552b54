// Stand-in for emscripten's header in the native build of the WebSocket transport
// (stream_replay.c): the exported functions are plain functions there.
#pragma once
#define EMSCRIPTEN_KEEPALIVE
