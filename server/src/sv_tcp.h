// Small pieces shared by the server's TCP listeners (HTTP, WebSocket, migration).
#pragma once

#include <stdint.h>

#include <uv.h>

/// The port a bound TCP handle listens on (what --port 0 or -1 got), 0 when unknown.
uint16_t sv_tcp_bound_port(const uv_tcp_t* listener);
